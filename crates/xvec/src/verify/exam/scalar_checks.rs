//! Checks of a scalar, full-text or sparse index file: its container, that it opens
//! against its segment's field (full validation), that it holds as many entries as the
//! column has, and that a sample of rows (all with `deep`) sits under its own value (its
//! own terms for a full-text index, its own dimensions for a sparse one). Every kind is
//! opened and compared through its [`FieldIndexSpec`], so a new kind needs no edit here.

use super::files::Checker;
use super::{IdxDamage, IdxState};
use crate::error::StorageError;
use crate::index::field_indexes::{FieldIndexSpec, kind_name};
use crate::schema::Schema;
use crate::storage::container::RawSection;
use crate::storage::index_name;
use crate::storage::manifest::{IndexEntry, SegmentEntry};
use crate::storage::segment::Segment;
use crate::verify::{Finding, Severity};

impl Checker<'_> {
    /// The scalar, full-text and sparse indexes `schema` declares that segment `e` has
    /// no file for (a crash between an index's build and its publish cannot cause this, a
    /// lost manifest can): reported, and missing to repair, which builds them.
    pub(super) fn undeclared_scalar_indexes(&mut self, e: &SegmentEntry, schema: &Schema) -> Vec<IdxState> {
        let mut out = Vec::new();
        for (pos, f) in schema.fields().iter().enumerate() {
            let fid = schema.field_id(pos);
            for (kind, spec) in FieldIndexSpec::declared(f) {
                if e.indexes.iter().any(|i| i.field == fid && i.kind == kind) {
                    continue;
                }
                let file = index_name(e.id, fid, kind);
                let what =
                    format!("segment {} has no {} index of `{}`; {}", e.id, kind_name(kind), f.name, spec.without());
                self.f.push(Finding::new(Severity::Warning, &file, "", what));
                let entry = IndexEntry { field: fid, kind, file, size: 0 };
                out.push(IdxState { entry, field_ok: true, index: None, damage: IdxDamage::Missing, len: None });
            }
        }
        out
    }

    /// The state of index file `ie` before its checks: broken until they pass.
    fn start(ie: &IndexEntry) -> IdxState {
        IdxState { entry: ie.clone(), field_ok: true, index: None, damage: IdxDamage::Broken, len: None }
    }

    /// Records that the manifest lists `ie` for a field that takes no such index.
    fn wrong_field(&mut self, ie: &IndexEntry, mut st: IdxState) -> IdxState {
        self.named.insert(ie.file.clone());
        let what = format!("the manifest lists it for field {}, which takes no {} index", ie.field, kind_name(ie.kind));
        self.f.push(Finding::new(Severity::Corrupt, &ie.file, "", what));
        st.field_ok = false;
        st
    }

    /// Scans index file `ie` block by block, then opens it with `open`; `None` (the
    /// damage recorded in `st` and the findings) when either fails.
    fn scan_and_open<T>(
        &mut self,
        e: &SegmentEntry,
        ie: &IndexEntry,
        st: &mut IdxState,
        name_of: &dyn Fn(usize, &RawSection) -> String,
        open: impl FnOnce() -> Result<T, StorageError>,
    ) -> Option<T> {
        let scan = match self.scan_index_file(e, ie, name_of) {
            Ok(scan) => scan,
            Err(damage) => {
                st.damage = damage;
                return None;
            }
        };
        if !scan.is_clean() {
            return None;
        }
        open().inspect_err(|err| self.open_failed(ie, &scan, err, name_of)).ok()
    }

    /// The rows of `seg` a check samples: every one with `deep`.
    fn sampled(&self, rows: usize) -> std::iter::StepBy<std::ops::Range<usize>> {
        let step = if self.opts.deep { 1 } else { (rows / self.opts.code_sample.max(1)).max(1) };
        (0..rows).step_by(step)
    }

    /// Checks the scalar, full-text or sparse index file `ie` (of a segment of `rows`
    /// rows, `seg` when it opened): its field takes the kind, its container scans clean,
    /// it opens, and it agrees with the field's column.
    pub(super) fn field_index(
        &mut self,
        e: &SegmentEntry,
        ie: &IndexEntry,
        schema: &Schema,
        rows: u64,
        seg: Option<&Segment>,
    ) -> IdxState {
        let mut st = Self::start(ie);
        let pos = schema.position_of_id(ie.field);
        let Some((pos, spec)) = pos.and_then(|p| Some((p, FieldIndexSpec::of(schema.field(p), ie.kind)?))) else {
            return self.wrong_field(ie, st);
        };
        let path = self.dir.join(&ie.file);
        let mmap = self.opts.mmap;
        let name_of = |_: usize, s: &RawSection| {
            spec.section_name(s.kind).map_or_else(|| format!("section kind {}", s.kind), String::from)
        };
        let open = || spec.open(&path, e.id, ie.field, rows as usize, mmap);
        let Some(index) = self.scan_and_open(e, ie, &mut st, &name_of, open) else { return st };
        st.len = Some(index.file_len());
        if let Some(seg) = seg
            && let Some(d) = spec.disagreement(&index, seg, pos, self.sampled(seg.rows()))
        {
            let mut finding = Finding::new(Severity::Corrupt, &ie.file, d.section, d.what);
            if let Some((expected, found)) = d.counts {
                finding = finding.expected(expected, found);
            }
            self.f.push(finding);
            return st;
        }
        st.damage = IdxDamage::None;
        st
    }
}
