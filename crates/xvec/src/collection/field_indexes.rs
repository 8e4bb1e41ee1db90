//! The field indexes of a segment as the collection keeps them (every index a field
//! declares beside its vector index: inverted, range, full-text, sparse; see
//! [`FieldIndexSpec`]): built beside each segment it writes (flush, optimize, merge),
//! completed when the schema gains or loses one, opened from the manifest's entries,
//! shared with the same segment's earlier snapshot.

use std::path::{Path, PathBuf};

use super::snapshot::SegmentRef;
use crate::error::{Error, StorageError};
use crate::index::field_indexes::{FieldIndexSpec, FieldIndexes, kind_name};
use crate::schema::Schema;
use crate::storage::manifest::IndexEntry;
use crate::storage::segment::Segment;
use crate::storage::{IndexKind, index_name};

/// The field indexes of one segment, open, and the files behind them.
#[derive(Clone, Debug, Default)]
pub(crate) struct Built {
    pub by_field: Vec<FieldIndexes>,
    pub files: Vec<IndexEntry>,
}

/// Builds every field index `schema` declares for the newly written `seg`.
pub(crate) fn build_all(
    dir: &Path,
    schema: &Schema,
    seg: &Segment,
    mmap: bool,
    made: &mut Vec<PathBuf>,
) -> Result<Built, Error> {
    let mut built = Built { by_field: vec![FieldIndexes::default(); schema.fields().len()], files: Vec::new() };
    build_missing(dir, schema, seg, &mut built.by_field, &mut built.files, mmap, made)?;
    Ok(built)
}

/// Builds every index `schema` declares for `seg` that `by_field` lacks, each into
/// `by_field` with its file in `files`; each file goes into `made` before it is written,
/// so a failure can remove it.
fn build_missing(
    dir: &Path,
    schema: &Schema,
    seg: &Segment,
    by_field: &mut [FieldIndexes],
    files: &mut Vec<IndexEntry>,
    mmap: bool,
    made: &mut Vec<PathBuf>,
) -> Result<(), Error> {
    for (pos, f) in schema.fields().iter().enumerate() {
        let fid = schema.field_id(pos);
        for (kind, spec) in FieldIndexSpec::declared(f) {
            if by_field[pos].has(kind) {
                continue;
            }
            let file = index_name(seg.id(), fid, kind);
            let path = dir.join(&file);
            made.push(path.clone());
            let size = spec.build(&path, seg.id(), fid, seg, pos, seg.rows())?;
            by_field[pos].set(spec.open(&path, seg.id(), fid, seg.rows(), mmap)?);
            files.push(IndexEntry { field: fid, kind, file, size });
        }
    }
    Ok(())
}

/// Whether the index file `e` is one `schema` declares as it was built: its field
/// declares it, and a full-text index open in `open` (the fields' indexes) has the
/// analyzer the schema declares now.
fn still_declared(schema: &Schema, open: &[FieldIndexes], e: &IndexEntry) -> bool {
    let Some(pos) = schema.position_of_id(e.field) else { return e.kind == IndexKind::Vector };
    match FieldIndexSpec::declared(schema.field(pos)).find(|(kind, _)| *kind == e.kind) {
        None => e.kind == IndexKind::Vector,
        Some((_, FieldIndexSpec::FullText(analyzer))) => {
            open.get(pos).and_then(|f| f.text.as_ref()).is_none_or(|i| i.analyzer() == analyzer)
        }
        Some(_) => true,
    }
}

/// Brings `s` in line with the field indexes `schema` declares: builds those it lacks
/// (files into `made`) and takes out those it no longer declares, or whose analyzer it no
/// longer declares (files into `gone`).
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
    let (keep, drop): (Vec<IndexEntry>, Vec<IndexEntry>) =
        s.index_files.drain(..).partition(|e| still_declared(schema, &s.scalar, e));
    s.index_files = keep;
    for e in drop {
        gone.push(dir.join(&e.file));
        if let Some(pos) = schema.position_of_id(e.field) {
            s.scalar[pos].clear(e.kind);
        }
    }
    build_missing(dir, schema, &s.segment, &mut s.scalar, &mut s.index_files, mmap, made)
}

/// Opens the field index files among `entries` (the manifest's for segment `seg`),
/// reusing those `old` (the same segment in an earlier snapshot) has open; a file for an
/// index its field does not declare is corruption of the manifest at `mpath`.
pub(crate) fn open_listed(
    dir: &Path,
    mpath: &Path,
    schema: &Schema,
    seg: &Segment,
    entries: &[IndexEntry],
    old: Option<&SegmentRef>,
    mmap: bool,
) -> Result<Vec<FieldIndexes>, Error> {
    let mut out = vec![FieldIndexes::default(); schema.fields().len()];
    for ie in entries.iter().filter(|ie| ie.kind != IndexKind::Vector) {
        let pos = schema.position_of_id(ie.field);
        let Some((pos, spec)) = pos.and_then(|p| Some((p, FieldIndexSpec::of(schema.field(p), ie.kind)?))) else {
            let what = format!("{}: field id {} has no {} index", ie.file, ie.field, kind_name(ie.kind));
            return Err(StorageError::corrupted(mpath, 0, what).into());
        };
        let reused = old.filter(|o| o.index_files.contains(ie)).and_then(|o| o.scalar.get(pos)?.index(ie.kind));
        let index = match reused {
            Some(index) => index,
            None => spec.open(&dir.join(&ie.file), seg.id(), ie.field, seg.rows(), mmap)?,
        };
        out[pos].set(index);
    }
    Ok(out)
}
