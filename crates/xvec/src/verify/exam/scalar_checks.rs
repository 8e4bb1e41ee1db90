//! Checks of a scalar or full-text index file: its container, that it opens against its
//! segment's field (full validation), that it holds as many rows as the column has
//! values, and that a sample of rows (all with `deep`) sits under its own value (its own
//! terms, for a full-text index).

use super::files::Checker;
use super::{IdxDamage, IdxState};
use crate::index::fulltext::{self, FullTextIndex};
use crate::index::scalar::{self, Indexed, ScalarIndex};
use crate::index::sparse_index::{self, SparseIndex};
use crate::schema::Schema;
use crate::storage::column::{ColumnData, ColumnSource};
use crate::storage::manifest::{IndexEntry, SegmentEntry};
use crate::storage::segment::Segment;
use crate::storage::{IndexKind, index_name};
use crate::verify::{Finding, Severity};

fn section_name(s: &crate::storage::container::RawSection) -> String {
    scalar::section_name(s.kind).map_or_else(|| format!("section kind {}", s.kind), String::from)
}

impl Checker<'_> {
    /// The scalar indexes `schema` declares that segment `e` has no file for (a crash
    /// between an index's build and its publish cannot cause this, a lost manifest can):
    /// reported, and missing to repair, which builds them.
    pub(super) fn undeclared_scalar_indexes(&mut self, e: &SegmentEntry, schema: &Schema) -> Vec<IdxState> {
        let mut out = Vec::new();
        for (pos, f) in schema.fields().iter().enumerate() {
            for &kind in &f.scalar_indexes {
                let (fid, file_kind) = (schema.field_id(pos), IndexKind::of_scalar(kind));
                if e.indexes.iter().any(|i| i.field == fid && i.kind == file_kind) {
                    continue;
                }
                let file = index_name(e.id, fid, file_kind);
                let what = format!("segment {} has no {} index of `{}`; filters on it scan", e.id, kind.name(), f.name);
                self.f.push(Finding::new(Severity::Warning, &file, "", what));
                let entry = IndexEntry { field: fid, kind: file_kind, file, size: 0 };
                out.push(IdxState { entry, field_ok: true, index: None, damage: IdxDamage::Missing, len: None });
            }
            let fid = schema.field_id(pos);
            let sparse = matches!(f.ty, crate::schema::FieldType::Sparse(_));
            if sparse && !e.indexes.iter().any(|i| i.field == fid && i.kind == IndexKind::Sparse) {
                let file = index_name(e.id, fid, IndexKind::Sparse);
                let what = format!("segment {} has no sparse index of `{}`; sparse queries scan it", e.id, f.name);
                self.f.push(Finding::new(Severity::Warning, &file, "", what));
                let entry = IndexEntry { field: fid, kind: IndexKind::Sparse, file, size: 0 };
                out.push(IdxState { entry, field_ok: true, index: None, damage: IdxDamage::Missing, len: None });
            }
            if f.text.is_some() && !e.indexes.iter().any(|i| i.field == fid && i.kind == IndexKind::FullText) {
                let file = index_name(e.id, fid, IndexKind::FullText);
                let what = format!("segment {} has no full-text index of `{}`; text queries scan it", e.id, f.name);
                self.f.push(Finding::new(Severity::Warning, &file, "", what));
                let entry = IndexEntry { field: fid, kind: IndexKind::FullText, file, size: 0 };
                out.push(IdxState { entry, field_ok: true, index: None, damage: IdxDamage::Missing, len: None });
            }
        }
        out
    }

    pub(super) fn sparse_index(
        &mut self,
        e: &SegmentEntry,
        ie: &IndexEntry,
        schema: &Schema,
        rows: u64,
        seg: Option<&Segment>,
    ) -> IdxState {
        let mut st = IdxState { entry: ie.clone(), field_ok: true, index: None, damage: IdxDamage::Broken, len: None };
        let pos = schema
            .position_of_id(ie.field)
            .filter(|&p| matches!(schema.field(p).ty, crate::schema::FieldType::Sparse(_)));
        let Some(pos) = pos else {
            self.named.insert(ie.file.clone());
            let what = format!("the manifest lists it for field {}, which is no sparse field", ie.field);
            self.f.push(Finding::new(Severity::Corrupt, &ie.file, "", what));
            st.field_ok = false;
            return st;
        };
        let name_of = |_: usize, s: &crate::storage::container::RawSection| {
            sparse_index::section_name(s.kind).map_or_else(|| format!("section kind {}", s.kind), String::from)
        };
        let scan = match self.scan_index_file(e, ie, &name_of) {
            Ok(opened) => opened,
            Err(damage) => {
                st.damage = damage;
                return st;
            }
        };
        if !scan.is_clean() {
            return st;
        }
        let path = self.dir.join(&ie.file);
        let index = match SparseIndex::open(&path, e.id, ie.field, rows as usize, self.opts.mmap) {
            Ok(i) => i,
            Err(err) => {
                self.open_failed(ie, &scan, &err, &name_of);
                return st;
            }
        };
        st.len = Some(index.file_len());
        if let Some(seg) = seg {
            let col = seg.array(pos);
            let words = |r: usize| if col.validity.is_valid(r) { col.sparse_words(r) } else { &[] };
            let step = if self.opts.deep { 1 } else { (seg.rows() / self.opts.code_sample.max(1)).max(1) };
            if let Some(r) = (0..seg.rows()).step_by(step).find(|&r| !index.holds_row(r as u32, words(r))) {
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
        let mut st = IdxState { entry: ie.clone(), field_ok: true, index: None, damage: IdxDamage::Broken, len: None };
        let pos = schema.position_of_id(ie.field);
        let Some((pos, text)) = pos.and_then(|p| Some((p, schema.field(p).text.as_ref()?))) else {
            self.named.insert(ie.file.clone());
            let what = format!("the manifest lists it for field {}, which has no full-text index", ie.field);
            self.f.push(Finding::new(Severity::Corrupt, &ie.file, "", what));
            st.field_ok = false;
            return st;
        };
        let name_of = |_: usize, s: &crate::storage::container::RawSection| {
            fulltext::section_name(s.kind).map_or_else(|| format!("section kind {}", s.kind), String::from)
        };
        let scan = match self.scan_index_file(e, ie, &name_of) {
            Ok(opened) => opened,
            Err(damage) => {
                st.damage = damage;
                return st;
            }
        };
        if !scan.is_clean() {
            return st;
        }
        let path = self.dir.join(&ie.file);
        let index = match FullTextIndex::open(&path, e.id, ie.field, &text.analyzer, rows as usize, self.opts.mmap) {
            Ok(i) => i,
            Err(err) => {
                self.open_failed(ie, &scan, &err, &name_of);
                return st;
            }
        };
        st.len = Some(index.file_len());
        if let Some(seg) = seg {
            let col = seg.scalar(pos);
            let ColumnData::String(strings) = col.data else { return st };
            let analyzer = crate::text::Analyzer::new(&text.analyzer).expect("a validated schema's analyzer");
            let step = if self.opts.deep { 1 } else { (seg.rows() / self.opts.code_sample.max(1)).max(1) };
            let text_of = |r: usize| col.validity.is_valid(r).then(|| strings.get_str(r));
            if let Some(r) = (0..seg.rows()).step_by(step).find(|&r| !index.holds_row(&analyzer, text_of(r), r as u32))
            {
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
        let mut st = IdxState { entry: ie.clone(), field_ok: true, index: None, damage: IdxDamage::Broken, len: None };
        let kind = ie.kind.scalar().expect("a scalar index entry");
        let pos = schema.position_of_id(ie.field);
        let Some((pos, ty)) = pos.map(|p| (p, &schema.field(p).ty)).filter(|(_, ty)| kind.fits(ty)) else {
            self.named.insert(ie.file.clone());
            let what = format!("the manifest lists it for field {}, which takes no {} index", ie.field, kind.name());
            self.f.push(Finding::new(Severity::Corrupt, &ie.file, "", what));
            st.field_ok = false;
            return st;
        };
        let path = self.dir.join(&ie.file);
        let scan = match self.scan_index_file(e, ie, &|_, s| section_name(s)) {
            Ok(opened) => opened,
            Err(damage) => {
                st.damage = damage;
                return st;
            }
        };
        if !scan.is_clean() {
            return st;
        }
        let index = match ScalarIndex::open(&path, e.id, ie.field, kind, ty, rows as usize, self.opts.mmap) {
            Ok(i) => i,
            Err(err) => {
                self.open_failed(ie, &scan, &err, &|_, s| section_name(s));
                return st;
            }
        };
        st.len = Some(index.file_len());
        if let Some(seg) = seg {
            let col = Indexed::of(seg, ty, pos);
            let step = if self.opts.deep { 1 } else { (seg.rows() / self.opts.code_sample.max(1)).max(1) };
            let wrong = (0..seg.rows()).step_by(step).find(|&r| !index.holds_row(&col, r));
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
