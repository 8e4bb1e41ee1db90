//! Checks of a scalar, full-text or sparse index file: its container, that it opens
//! against its segment's field (full validation), that it holds as many entries as the
//! column has, and that a sample of rows (all with `deep`) sits under its own value (its
//! own terms for a full-text index, its own dimensions for a sparse one).

use super::files::Checker;
use super::{IdxDamage, IdxState};
use crate::error::StorageError;
use crate::index::fulltext::{self, FullTextIndex};
use crate::index::scalar::{self, Indexed, ScalarIndex};
use crate::index::sparse_index::{self, SparseIndex};
use crate::schema::{FieldType, Schema};
use crate::storage::column::{ColumnData, ColumnSource};
use crate::storage::container::RawSection;
use crate::storage::manifest::{IndexEntry, SegmentEntry};
use crate::storage::segment::Segment;
use crate::storage::{IndexKind, index_name};
use crate::verify::{Finding, Severity};

/// A section's name as an index kind's `section_name` gives it.
fn named(name: fn(u16) -> Option<&'static str>) -> impl Fn(usize, &RawSection) -> String {
    move |_, s| name(s.kind).map_or_else(|| format!("section kind {}", s.kind), String::from)
}

impl Checker<'_> {
    /// The scalar, full-text and sparse indexes `schema` declares that segment `e` has
    /// no file for (a crash between an index's build and its publish cannot cause this, a
    /// lost manifest can): reported, and missing to repair, which builds them.
    pub(super) fn undeclared_scalar_indexes(&mut self, e: &SegmentEntry, schema: &Schema) -> Vec<IdxState> {
        let mut out = Vec::new();
        for (pos, f) in schema.fields().iter().enumerate() {
            let fid = schema.field_id(pos);
            // Each index the field declares, and what a query does without it.
            let mut declared: Vec<(IndexKind, String)> = f
                .scalar_indexes
                .iter()
                .map(|&k| (IndexKind::of_scalar(k), format!("{} index of `{}`; filters on it scan", k.name(), f.name)))
                .collect();
            if f.text.is_some() {
                declared.push((IndexKind::FullText, format!("full-text index of `{}`; text queries scan it", f.name)));
            }
            if let FieldType::Sparse(_) = f.ty {
                declared.push((IndexKind::Sparse, format!("sparse index of `{}`; sparse queries scan it", f.name)));
            }
            for (kind, what) in declared {
                if e.indexes.iter().any(|i| i.field == fid && i.kind == kind) {
                    continue;
                }
                let file = index_name(e.id, fid, kind);
                self.f.push(Finding::new(Severity::Warning, &file, "", format!("segment {} has no {what}", e.id)));
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
    fn wrong_field(&mut self, ie: &IndexEntry, mut st: IdxState, takes: &str) -> IdxState {
        self.named.insert(ie.file.clone());
        let what = format!("the manifest lists it for field {}, which {takes}", ie.field);
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

    pub(super) fn sparse_index(
        &mut self,
        e: &SegmentEntry,
        ie: &IndexEntry,
        schema: &Schema,
        rows: u64,
        seg: Option<&Segment>,
    ) -> IdxState {
        let mut st = Self::start(ie);
        let pos = schema.position_of_id(ie.field).filter(|&p| matches!(schema.field(p).ty, FieldType::Sparse(_)));
        let Some(pos) = pos else { return self.wrong_field(ie, st, "is no sparse field") };
        let path = self.dir.join(&ie.file);
        let (mmap, name_of) = (self.opts.mmap, named(sparse_index::section_name));
        let open = || SparseIndex::open(&path, e.id, ie.field, rows as usize, mmap);
        let Some(index) = self.scan_and_open(e, ie, &mut st, &name_of, open) else { return st };
        st.len = Some(index.file_len());
        if let Some(seg) = seg {
            let col = seg.array(pos);
            let words = |r: usize| if col.validity.is_valid(r) { col.sparse_words(r) } else { &[] };
            if let Some(r) = self.sampled(seg.rows()).find(|&r| !index.holds_row(r as u32, words(r))) {
                let what =
                    format!("row {r}'s dimensions are not as its column's (the index disagrees with the column)");
                self.f.push(Finding::new(Severity::Corrupt, &ie.file, "rows", what));
                return st;
            }
            let held: u64 = (0..seg.rows()).map(|r| words(r).len() as u64).sum();
            if index.postings() != held {
                let what = "postings, one per nonzero dimension of a row".to_string();
                self.f.push(Finding::new(Severity::Corrupt, &ie.file, "rows", what).expected(held, index.postings()));
                return st;
            }
        }
        st.damage = IdxDamage::None;
        st
    }

    pub(super) fn text_index(
        &mut self,
        e: &SegmentEntry,
        ie: &IndexEntry,
        schema: &Schema,
        rows: u64,
        seg: Option<&Segment>,
    ) -> IdxState {
        let mut st = Self::start(ie);
        let pos = schema.position_of_id(ie.field);
        let Some((pos, text)) = pos.and_then(|p| Some((p, schema.field(p).text.as_ref()?))) else {
            return self.wrong_field(ie, st, "has no full-text index");
        };
        let path = self.dir.join(&ie.file);
        let (mmap, name_of) = (self.opts.mmap, named(fulltext::section_name));
        let open = || FullTextIndex::open(&path, e.id, ie.field, &text.analyzer, rows as usize, mmap);
        let Some(index) = self.scan_and_open(e, ie, &mut st, &name_of, open) else { return st };
        st.len = Some(index.file_len());
        if let Some(seg) = seg {
            let col = seg.scalar(pos);
            let ColumnData::String(strings) = col.data else { return st };
            let analyzer = crate::text::Analyzer::new(&text.analyzer).expect("a validated schema's analyzer");
            let text_of = |r: usize| col.validity.is_valid(r).then(|| strings.get_str(r));
            if let Some(r) = self.sampled(seg.rows()).find(|&r| !index.holds_row(&analyzer, text_of(r), r as u32)) {
                let what = format!("row {r}'s terms are not as its text's (the index disagrees with the column)");
                self.f.push(Finding::new(Severity::Corrupt, &ie.file, "postings", what));
                return st;
            }
            let with_text = (0..seg.rows()).filter(|&r| col.validity.is_valid(r)).count() as u64;
            if index.docs() != with_text {
                let what = "rows with text".to_string();
                self.f.push(Finding::new(Severity::Corrupt, &ie.file, "meta", what).expected(with_text, index.docs()));
                return st;
            }
        }
        st.damage = IdxDamage::None;
        st
    }

    pub(super) fn scalar_index(
        &mut self,
        e: &SegmentEntry,
        ie: &IndexEntry,
        schema: &Schema,
        rows: u64,
        seg: Option<&Segment>,
    ) -> IdxState {
        let mut st = Self::start(ie);
        let kind = ie.kind.scalar().expect("a scalar index entry");
        let pos = schema.position_of_id(ie.field);
        let Some((pos, ty)) = pos.map(|p| (p, &schema.field(p).ty)).filter(|(_, ty)| kind.fits(ty)) else {
            return self.wrong_field(ie, st, &format!("takes no {} index", kind.name()));
        };
        let path = self.dir.join(&ie.file);
        let (mmap, name_of) = (self.opts.mmap, named(scalar::section_name));
        let open = || ScalarIndex::open(&path, e.id, ie.field, kind, ty, rows as usize, mmap);
        let Some(index) = self.scan_and_open(e, ie, &mut st, &name_of, open) else { return st };
        st.len = Some(index.file_len());
        if let Some(seg) = seg {
            let col = Indexed::of(seg, ty, pos);
            let wrong = self.sampled(seg.rows()).find(|&r| !index.holds_row(&col, r));
            let with_value = col.held();
            if let Some(r) = wrong {
                let what = format!("row {r} is not under its value (the index disagrees with the column)");
                self.f.push(Finding::new(Severity::Corrupt, &ie.file, "postings", what));
                return st;
            }
            if index.held_rows() != with_value {
                let what = "rows held, one per row with a value".to_string();
                self.f.push(
                    Finding::new(Severity::Corrupt, &ie.file, "postings", what).expected(with_value, index.held_rows()),
                );
                return st;
            }
        }
        st.damage = IdxDamage::None;
        st
    }
}
