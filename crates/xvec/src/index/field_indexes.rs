//! The indexes of one field of one segment beside its vector index (which the segment
//! index holds): the inverted and range indexes of a scalar field, the full-text index of a
//! string field, the inverted index of a sparse field. Each kind is described once here
//! ([`FieldIndexSpec`]: whether a field declares it, how it is built and opened), so the
//! collection (flush, optimize, alter, open) and repair build and open them one way.

use std::path::Path;
use std::sync::Arc;

use crate::error::StorageError;
use crate::index::fulltext::{self, FullTextIndex};
use crate::index::scalar::{self, Indexed, ScalarIndex};
use crate::index::sparse_index::{self, SparseIndex};
use crate::schema::{Field, FieldType, ScalarIndexKind};
use crate::storage::IndexKind;
use crate::storage::column::{ColumnData, ColumnSource};
use crate::text::AnalyzerSpec;

/// What one declared index of a field is: enough to build it from the field's column and
/// to open its file.
#[derive(Clone, Copy, Debug)]
pub(crate) enum FieldIndexSpec<'a> {
    /// An inverted or range index over a scalar or array field of this type.
    Scalar(ScalarIndexKind, &'a FieldType),
    /// A full-text index with this analyzer.
    FullText(&'a AnalyzerSpec),
    /// The inverted index every sparse field has.
    Sparse,
}

/// A file kind as messages name it (`inverted`, `range`, `full-text`, `sparse`, `vector`).
pub(crate) fn kind_name(kind: IndexKind) -> &'static str {
    match kind {
        IndexKind::Inverted => ScalarIndexKind::Inverted.name(),
        IndexKind::Range => ScalarIndexKind::Range.name(),
        IndexKind::FullText => "full-text",
        IndexKind::Sparse => "sparse",
        IndexKind::Vector => "vector",
    }
}

/// Where an open field index disagrees with its column (see
/// [`FieldIndexSpec::disagreement`]): the section at fault, what is wrong, and for a count,
/// the count the column gives and the one the index holds.
#[derive(Debug, PartialEq)]
pub(crate) struct Disagreement {
    pub section: &'static str,
    pub what: String,
    pub counts: Option<(u64, u64)>,
}

impl Disagreement {
    fn row(section: &'static str, what: String) -> Disagreement {
        Disagreement { section, what, counts: None }
    }

    /// A disagreement when the index holds `found` entries where the column gives `expected`.
    fn count(section: &'static str, what: &str, expected: u64, found: u64) -> Option<Disagreement> {
        (expected != found).then(|| Disagreement { section, what: what.to_string(), counts: Some((expected, found)) })
    }
}

/// One open index of a field.
#[derive(Clone, Debug)]
pub(crate) enum FieldIndex {
    Scalar(ScalarIndexKind, Arc<ScalarIndex>),
    FullText(Arc<FullTextIndex>),
    Sparse(Arc<SparseIndex>),
}

impl<'a> FieldIndexSpec<'a> {
    /// Index `kind` of `field`, if the field can carry it: a scalar index kind its type
    /// fits, the full-text index it declares, the index of a sparse field. What opens or
    /// repairs a listed index file asks this; a vector index is none of these.
    pub(crate) fn of(field: &'a Field, kind: IndexKind) -> Option<FieldIndexSpec<'a>> {
        match kind {
            IndexKind::Inverted | IndexKind::Range => {
                let scalar = kind.scalar().expect("a scalar index kind");
                scalar.fits(&field.ty).then_some(FieldIndexSpec::Scalar(scalar, &field.ty))
            }
            IndexKind::FullText => field.text.as_ref().map(|t| FieldIndexSpec::FullText(&t.analyzer)),
            IndexKind::Sparse => matches!(field.ty, FieldType::Sparse(_)).then_some(FieldIndexSpec::Sparse),
            IndexKind::Vector => None,
        }
    }

    /// Every index `field` declares besides its vector index, in file-kind order: what a
    /// new segment is built with.
    pub(crate) fn declared(field: &'a Field) -> impl Iterator<Item = (IndexKind, FieldIndexSpec<'a>)> + 'a {
        [IndexKind::Inverted, IndexKind::Range, IndexKind::FullText, IndexKind::Sparse]
            .into_iter()
            .filter(|&kind| kind.scalar().is_none_or(|s| field.has_scalar_index(s)))
            .filter_map(|kind| Some((kind, FieldIndexSpec::of(field, kind)?)))
    }

    /// Writes the index of the field at `pos` of `src` (segment `segment_id`, field id
    /// `field`, `rows` rows) to `path`; returns the file's size.
    pub(crate) fn build(
        self,
        path: &Path,
        segment_id: u64,
        field: u16,
        src: &dyn ColumnSource,
        pos: usize,
        rows: usize,
    ) -> Result<u64, StorageError> {
        match self {
            FieldIndexSpec::Scalar(kind, ty) => {
                scalar::build(path, segment_id, field, kind, ty, &Indexed::of(src, ty, pos), rows)
            }
            FieldIndexSpec::FullText(analyzer) => fulltext::build(path, segment_id, field, analyzer, &src.scalar(pos)),
            FieldIndexSpec::Sparse => sparse_index::build(path, segment_id, field, &src.array(pos)),
        }
    }

    /// The name of section kind `code` of this kind's file, for reports.
    pub(crate) fn section_name(self, code: u16) -> Option<&'static str> {
        match self {
            FieldIndexSpec::Scalar(..) => scalar::section_name(code),
            FieldIndexSpec::FullText(_) => fulltext::section_name(code),
            FieldIndexSpec::Sparse => sparse_index::section_name(code),
        }
    }

    /// What the searches this index serves do without it, for a report of a missing one.
    pub(crate) fn without(self) -> &'static str {
        match self {
            FieldIndexSpec::Scalar(..) => "filters on it scan",
            FieldIndexSpec::FullText(_) => "text queries scan it",
            FieldIndexSpec::Sparse => "sparse queries scan it",
        }
    }

    /// Where `index` (opened through this spec) disagrees with the field at `pos` of
    /// `src`, the column it was built from: a row of `sample` not held as its column holds
    /// it, or a count of entries that is not the column's. `None` when they agree.
    pub(crate) fn disagreement(
        self,
        index: &FieldIndex,
        src: &dyn ColumnSource,
        pos: usize,
        mut sample: impl Iterator<Item = usize>,
    ) -> Option<Disagreement> {
        let rows = src.rows();
        match (self, index) {
            (FieldIndexSpec::Scalar(_, ty), FieldIndex::Scalar(_, index)) => {
                let col = Indexed::of(src, ty, pos);
                if let Some(r) = sample.find(|&r| !index.holds_row(&col, r)) {
                    let what = format!("row {r} is not under its value (the index disagrees with the column)");
                    return Some(Disagreement::row("postings", what));
                }
                let what = "rows held, one per row with a value";
                Disagreement::count("postings", what, col.held(), index.held_rows())
            }
            (FieldIndexSpec::FullText(analyzer), FieldIndex::FullText(index)) => {
                let col = src.scalar(pos);
                let ColumnData::String(strings) = col.data else { return None };
                let analyzer = crate::text::Analyzer::new(analyzer).expect("a validated schema's analyzer");
                let text_of = |r: usize| col.validity.is_valid(r).then(|| strings.get_str(r));
                if let Some(r) = sample.find(|&r| !index.holds_row(&analyzer, text_of(r), r as u32)) {
                    let what = format!("row {r}'s terms are not as its text's (the index disagrees with the column)");
                    return Some(Disagreement::row("postings", what));
                }
                let with_text = (0..rows).filter(|&r| col.validity.is_valid(r)).count() as u64;
                Disagreement::count("meta", "rows with text", with_text, index.docs())
            }
            (FieldIndexSpec::Sparse, FieldIndex::Sparse(index)) => {
                let col = src.array(pos);
                let words = |r: usize| if col.validity.is_valid(r) { col.sparse_words(r) } else { &[] };
                if let Some(r) = sample.find(|&r| !index.holds_row(r as u32, words(r))) {
                    let what =
                        format!("row {r}'s dimensions are not as its column's (the index disagrees with the column)");
                    return Some(Disagreement::row("rows", what));
                }
                let held: u64 = (0..rows).map(|r| words(r).len() as u64).sum();
                Disagreement::count("rows", "postings, one per nonzero dimension of a row", held, index.postings())
            }
            (spec, index) => unreachable!("{index:?} was not opened through {spec:?}"),
        }
    }

    /// Opens the index file at `path` (segment `segment_id`, field id `field`, `rows` rows).
    pub(crate) fn open(
        self,
        path: &Path,
        segment_id: u64,
        field: u16,
        rows: usize,
        mmap: bool,
    ) -> Result<FieldIndex, StorageError> {
        Ok(match self {
            FieldIndexSpec::Scalar(kind, ty) => {
                FieldIndex::Scalar(kind, Arc::new(ScalarIndex::open(path, segment_id, field, kind, ty, rows, mmap)?))
            }
            FieldIndexSpec::FullText(analyzer) => {
                FieldIndex::FullText(Arc::new(FullTextIndex::open(path, segment_id, field, analyzer, rows, mmap)?))
            }
            FieldIndexSpec::Sparse => {
                FieldIndex::Sparse(Arc::new(SparseIndex::open(path, segment_id, field, rows, mmap)?))
            }
        })
    }
}

/// The open indexes of one field of one segment, beside its vector index (a segment's
/// `SegmentIndex`): what filters, text and sparse searches read.
#[derive(Clone, Debug, Default)]
pub(crate) struct FieldIndexes {
    pub inverted: Option<Arc<ScalarIndex>>,
    pub range: Option<Arc<ScalarIndex>>,
    pub text: Option<Arc<FullTextIndex>>,
    pub sparse: Option<Arc<SparseIndex>>,
}

impl FieldIndex {
    /// The size of the index's file.
    pub(crate) fn file_len(&self) -> u64 {
        match self {
            FieldIndex::Scalar(_, i) => i.file_len(),
            FieldIndex::FullText(i) => i.file_len(),
            FieldIndex::Sparse(i) => i.file_len(),
        }
    }
}

impl FieldIndexes {
    /// The open scalar index of `kind`, if any.
    pub(crate) fn get(&self, kind: ScalarIndexKind) -> Option<&Arc<ScalarIndex>> {
        match kind {
            ScalarIndexKind::Inverted => self.inverted.as_ref(),
            ScalarIndexKind::Range => self.range.as_ref(),
        }
    }

    /// The open index of file kind `kind`, if any.
    pub(crate) fn index(&self, kind: IndexKind) -> Option<FieldIndex> {
        match kind {
            IndexKind::Inverted | IndexKind::Range => {
                let scalar = kind.scalar().expect("a scalar index kind");
                self.get(scalar).map(|i| FieldIndex::Scalar(scalar, i.clone()))
            }
            IndexKind::FullText => self.text.clone().map(FieldIndex::FullText),
            IndexKind::Sparse => self.sparse.clone().map(FieldIndex::Sparse),
            IndexKind::Vector => None,
        }
    }

    /// Whether an index of file kind `kind` is open.
    pub(crate) fn has(&self, kind: IndexKind) -> bool {
        self.index(kind).is_some()
    }

    /// Puts `index` in its slot.
    pub(crate) fn set(&mut self, index: FieldIndex) {
        match index {
            FieldIndex::Scalar(ScalarIndexKind::Inverted, i) => self.inverted = Some(i),
            FieldIndex::Scalar(ScalarIndexKind::Range, i) => self.range = Some(i),
            FieldIndex::FullText(i) => self.text = Some(i),
            FieldIndex::Sparse(i) => self.sparse = Some(i),
        }
    }

    /// Forgets the index of file kind `kind`.
    pub(crate) fn clear(&mut self, kind: IndexKind) {
        match kind {
            IndexKind::Inverted => self.inverted = None,
            IndexKind::Range => self.range = None,
            IndexKind::FullText => self.text = None,
            IndexKind::Sparse => self.sparse = None,
            IndexKind::Vector => {}
        }
    }

    /// The open scalar (inverted, range) indexes.
    pub(crate) fn scalar(&self) -> impl Iterator<Item = &Arc<ScalarIndex>> {
        self.inverted.iter().chain(&self.range)
    }
}
