//! The scalar and full-text indexes of a segment as the collection keeps them: built
//! beside each segment it writes (flush, optimize, merge) for every index the schema
//! declares, opened from the manifest's entries, shared with the same segment's earlier
//! snapshot.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::snapshot::SegmentRef;
use crate::error::{Error, StorageError};
use crate::index::fulltext::{self, FullTextIndex};
use crate::index::scalar::{self, FieldScalarIndexes, Indexed, ScalarIndex};
use crate::index::sparse_index::{self, SparseIndex};
use crate::schema::{FieldType, ScalarIndexKind, Schema};
use crate::storage::column::ColumnSource;
use crate::storage::manifest::IndexEntry;
use crate::storage::segment::Segment;
use crate::storage::{IndexKind, index_name};

/// The scalar indexes of one segment, open, and the files behind them.
#[derive(Clone, Debug, Default)]
pub(crate) struct Built {
    pub by_field: Vec<FieldScalarIndexes>,
    pub files: Vec<IndexEntry>,
}

/// The field id, file name and path of index `kind` of the field at `pos` of `seg` in
/// `dir`; the path goes into `made` before anything is written, so a failure can remove it.
fn new_index_file(
    dir: &Path,
    schema: &Schema,
    seg: &Segment,
    pos: usize,
    kind: IndexKind,
    made: &mut Vec<PathBuf>,
) -> (u16, String, PathBuf) {
    let fid = schema.field_id(pos);
    let file = index_name(seg.id(), fid, kind);
    let path = dir.join(&file);
    made.push(path.clone());
    (fid, file, path)
}

/// Writes index `kind` of the field at `pos` for `seg` into `dir` and opens it; the file
/// goes into `made` before it is written, so a failure can remove it.
pub(crate) fn build_one(
    dir: &Path,
    schema: &Schema,
    seg: &Segment,
    pos: usize,
    kind: ScalarIndexKind,
    mmap: bool,
    made: &mut Vec<PathBuf>,
) -> Result<(Arc<ScalarIndex>, IndexEntry), Error> {
    let ty = &schema.field(pos).ty;
    let (fid, file, path) = new_index_file(dir, schema, seg, pos, IndexKind::of_scalar(kind), made);
    let col = Indexed::of(seg, ty, pos);
    let size = scalar::build(&path, seg.id(), fid, kind, ty, &col, seg.rows())?;
    let index = ScalarIndex::open(&path, seg.id(), fid, kind, ty, seg.rows(), mmap)?;
    Ok((Arc::new(index), IndexEntry { field: fid, kind: IndexKind::of_scalar(kind), file, size }))
}

/// Writes the full-text index of the field at `pos` (which declares one) for `seg` into
/// `dir` and opens it; the file goes into `made` before it is written.
pub(crate) fn build_text(
    dir: &Path,
    schema: &Schema,
    seg: &Segment,
    pos: usize,
    mmap: bool,
    made: &mut Vec<PathBuf>,
) -> Result<(Arc<FullTextIndex>, IndexEntry), Error> {
    let spec = &schema.field(pos).text.as_ref().expect("the field has a full-text index").analyzer;
    let (fid, file, path) = new_index_file(dir, schema, seg, pos, IndexKind::FullText, made);
    let size = fulltext::build(&path, seg.id(), fid, spec, &seg.scalar(pos))?;
    let index = FullTextIndex::open(&path, seg.id(), fid, spec, seg.rows(), mmap)?;
    Ok((Arc::new(index), IndexEntry { field: fid, kind: IndexKind::FullText, file, size }))
}

/// Writes the inverted index of the sparse field at `pos` for `seg` into `dir` and opens
/// it; the file goes into `made` before it is written.
pub(crate) fn build_sparse(
    dir: &Path,
    schema: &Schema,
    seg: &Segment,
    pos: usize,
    mmap: bool,
    made: &mut Vec<PathBuf>,
) -> Result<(Arc<SparseIndex>, IndexEntry), Error> {
    let (fid, file, path) = new_index_file(dir, schema, seg, pos, IndexKind::Sparse, made);
    let size = sparse_index::build(&path, seg.id(), fid, &seg.array(pos))?;
    let index = SparseIndex::open(&path, seg.id(), fid, seg.rows(), mmap)?;
    Ok((Arc::new(index), IndexEntry { field: fid, kind: IndexKind::Sparse, file, size }))
}

/// Builds every scalar and full-text index `schema` declares for the newly written `seg`,
/// and the inverted index of every sparse field.
pub(crate) fn build_all(
    dir: &Path,
    schema: &Schema,
    seg: &Segment,
    mmap: bool,
    made: &mut Vec<PathBuf>,
) -> Result<Built, Error> {
    let mut built = Built { by_field: vec![FieldScalarIndexes::default(); schema.fields().len()], files: Vec::new() };
    build_missing(dir, schema, seg, &mut built.by_field, &mut built.files, mmap, made)?;
    Ok(built)
}

/// Builds every index `schema` declares for `seg` that `by_field` lacks, and the
/// inverted index of every sparse field, each into `by_field` with its file in `files`.
fn build_missing(
    dir: &Path,
    schema: &Schema,
    seg: &Segment,
    by_field: &mut [FieldScalarIndexes],
    files: &mut Vec<IndexEntry>,
    mmap: bool,
    made: &mut Vec<PathBuf>,
) -> Result<(), Error> {
    for (pos, f) in schema.fields().iter().enumerate() {
        let has = &mut by_field[pos];
        for &kind in &f.scalar_indexes {
            if has.get(kind).is_none() {
                let (index, entry) = build_one(dir, schema, seg, pos, kind, mmap, made)?;
                has.set(kind, index);
                files.push(entry);
            }
        }
        if f.text.is_some() && has.text.is_none() {
            let (index, entry) = build_text(dir, schema, seg, pos, mmap, made)?;
            has.text = Some(index);
            files.push(entry);
        }
        if matches!(f.ty, FieldType::Sparse(_)) && has.sparse.is_none() {
            let (index, entry) = build_sparse(dir, schema, seg, pos, mmap, made)?;
            has.sparse = Some(index);
            files.push(entry);
        }
    }
    Ok(())
}

/// Brings `s` in line with the scalar and full-text indexes `schema` declares: builds
/// those it lacks (files into `made`) and takes out those it no longer declares, or whose
/// analyzer it no longer declares (files into `gone`).
/// Every publish runs it on the segments it publishes, so a segment written under an
/// older schema (a flush or optimize running while an index was added) gets the index.
pub(crate) fn complete(
    dir: &Path,
    schema: &Schema,
    s: &mut SegmentRef,
    mmap: bool,
    made: &mut Vec<PathBuf>,
    gone: &mut Vec<PathBuf>,
) -> Result<(), Error> {
    s.scalar.resize_with(schema.fields().len(), Default::default);
    let scalar = &s.scalar;
    let declared = |e: &IndexEntry| {
        let pos = schema.position_of_id(e.field);
        match (e.kind.scalar(), e.kind) {
            (Some(kind), _) => pos.is_some_and(|p| schema.field(p).has_scalar_index(kind)),
            (None, IndexKind::Sparse) => pos.is_some_and(|p| matches!(schema.field(p).ty, FieldType::Sparse(_))),
            (None, IndexKind::FullText) => pos.is_some_and(|p| {
                let open = scalar[p].text.as_ref().map(|i| i.analyzer());
                schema.field(p).text.as_ref().is_some_and(|t| open.is_none_or(|a| *a == t.analyzer))
            }),
            (None, _) => true,
        }
    };
    let (keep, drop): (Vec<IndexEntry>, Vec<IndexEntry>) = s.index_files.drain(..).partition(declared);
    s.index_files = keep;
    for e in drop {
        gone.push(dir.join(&e.file));
        let Some(pos) = schema.position_of_id(e.field) else { continue };
        match (e.kind.scalar(), e.kind) {
            (Some(kind), _) => s.scalar[pos].clear(kind),
            (None, IndexKind::Sparse) => s.scalar[pos].sparse = None,
            (None, _) => s.scalar[pos].text = None,
        }
    }
    build_missing(dir, schema, &s.segment, &mut s.scalar, &mut s.index_files, mmap, made)
}

/// Opens the scalar and full-text index files among `entries` (the manifest's for segment `seg`),
/// reusing those `old` (the same segment in an earlier snapshot) has open.
pub(crate) fn open_listed(
    dir: &Path,
    mpath: &Path,
    schema: &Schema,
    seg: &Segment,
    entries: &[IndexEntry],
    old: Option<&SegmentRef>,
    mmap: bool,
) -> Result<Vec<FieldScalarIndexes>, Error> {
    let mut out = vec![FieldScalarIndexes::default(); schema.fields().len()];
    for ie in entries {
        if ie.kind == IndexKind::Sparse {
            let pos = schema.position_of_id(ie.field).filter(|&p| matches!(schema.field(p).ty, FieldType::Sparse(_)));
            let Some(pos) = pos else {
                let what = format!("{}: field id {} is no sparse field", ie.file, ie.field);
                return Err(StorageError::corrupted(mpath, 0, what).into());
            };
            let reused = old.filter(|o| o.index_files.contains(ie)).and_then(|o| o.scalar.get(pos)?.sparse.clone());
            let index = match reused {
                Some(index) => index,
                None => Arc::new(SparseIndex::open(&dir.join(&ie.file), seg.id(), ie.field, seg.rows(), mmap)?),
            };
            out[pos].sparse = Some(index);
            continue;
        }
        if ie.kind == IndexKind::FullText {
            let pos = schema.position_of_id(ie.field);
            let Some((pos, text)) = pos.and_then(|p| Some((p, schema.field(p).text.as_ref()?))) else {
                let what = format!("{}: field id {} has no full-text index", ie.file, ie.field);
                return Err(StorageError::corrupted(mpath, 0, what).into());
            };
            let reused = old.filter(|o| o.index_files.contains(ie)).and_then(|o| o.scalar.get(pos)?.text.clone());
            let index = match reused {
                Some(index) => index,
                None => {
                    let path = dir.join(&ie.file);
                    Arc::new(FullTextIndex::open(&path, seg.id(), ie.field, &text.analyzer, seg.rows(), mmap)?)
                }
            };
            out[pos].text = Some(index);
            continue;
        }
        let Some(kind) = ie.kind.scalar() else { continue };
        let pos = schema.position_of_id(ie.field);
        let ty = pos.map(|p| &schema.field(p).ty).filter(|ty| kind.fits(ty));
        let (Some(pos), Some(ty)) = (pos, ty) else {
            let what = format!("{}: field id {} has no {} index", ie.file, ie.field, kind.name());
            return Err(StorageError::corrupted(mpath, 0, what).into());
        };
        let reused = old.filter(|o| o.index_files.contains(ie)).and_then(|o| o.scalar.get(pos)?.get(kind).cloned());
        let index = match reused {
            Some(index) => index,
            None => Arc::new(ScalarIndex::open(&dir.join(&ie.file), seg.id(), ie.field, kind, ty, seg.rows(), mmap)?),
        };
        out[pos].set(kind, index);
    }
    Ok(out)
}
