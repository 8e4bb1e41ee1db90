//! Opening a collection's published state: the manifest, its segments, delete sets and
//! indexes, and the replay of its WAL. A following reader reloads through the same code,
//! sharing what it already has open.

use std::path::Path;
use std::sync::Arc;

use super::field_indexes;
use super::mem::MemSegment;
use super::snapshot::{SegmentRef, Snapshot};
use super::{OpenOptions, writer};
use crate::error::{Error, StorageError};
use crate::index::segment_index::{IndexTarget, SegmentIndex};
use crate::schema::Schema;
use crate::storage::manifest::{self, Manifest, SealedWal, SegmentEntry};
use crate::storage::segment::Segment;
use crate::storage::segment::layout::Layout;
use crate::storage::wal;
use crate::storage::wal::sync_record::{self, Durable};
use crate::storage::{FileKind, IndexKind, deletes};

/// The live WAL as an open read it: what it holds, its bytes (for saving a torn tail), and
/// its sync record.
pub(super) type LoadedWal = (wal::Scan, Vec<u8>, Option<Durable>);

/// Removes what a create of `m` that stopped before publishing `CURRENT` leaves in `dir`
/// (the caller holds the lock and saw no `CURRENT`), or fails naming anything else. Such
/// a create acknowledged nothing: its WAL holds at most a header.
pub(super) fn remove_unfinished_create(dir: &Path, m: &Manifest) -> Result<(), StorageError> {
    let (manifest, wal) = (crate::storage::manifest_name(m.generation), crate::storage::wal_name(m.wal_seq));
    let (mut leftovers, mut unknown) = (Vec::new(), Vec::new());
    for crate::storage::disk::DirEntry { name, is_file, len, .. } in crate::storage::disk::list_dir(dir)? {
        let ours = is_file
            && match FileKind::of_name(&name) {
                Some(FileKind::Lock) => continue,
                Some(FileKind::Temp | FileKind::WalSync) => true,
                Some(FileKind::Manifest) => name == manifest,
                Some(FileKind::Wal) => name == wal && len <= wal::WAL_HEADER_LEN as u64,
                _ => false,
            };
        if ours { leftovers.push(name) } else { unknown.push(name) }
    }
    if !unknown.is_empty() {
        unknown.sort();
        return Err(StorageError::NotEmpty { path: dir.to_path_buf(), files: unknown });
    }
    for name in &leftovers {
        crate::storage::disk::remove_file(&dir.join(name))?;
    }
    Ok(())
}

/// Reads the live manifest, opens its segments and replays the WAL. Parts that `prev` (an
/// earlier snapshot of the same collection) already has open are shared, not reopened:
/// a segment with the same id and size, a delete set read from the same file, an index
/// in the same file.
pub(super) fn load(
    dir: &Path,
    options: &OpenOptions,
    writable: bool,
    prev: Option<&Snapshot>,
) -> Result<(Manifest, Snapshot, Option<LoadedWal>), Error> {
    let m = manifest::load(dir)?;
    let mut snapshot = load_segments(dir, &m, options, prev)?;
    if let Some(sealed) = &m.sealed_wal {
        replay_sealed(dir, sealed, &mut snapshot)?;
    }
    let wal_path = dir.join(crate::storage::wal_name(m.wal_seq));
    // The sync record first: it never claims bytes not yet written, so the WAL read after
    // it holds at least what it says, even with a writer appending meanwhile.
    let durable = sync_record::read(dir, m.wal_seq, m.wal_salt)?.durable().copied();
    // Read, never mapped: a writer opening it may cut a torn tail off.
    let contents = match crate::storage::disk::read(&wal_path) {
        Ok(bytes) if wal::is_empty_v1(&bytes) => None,
        Ok(bytes) => Some((
            read_wal(&wal_path, &bytes, (m.wal_seq, m.wal_salt), &snapshot.schema, durable.as_ref())?,
            bytes,
            durable,
        )),
        Err(StorageError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound && writable => None,
        Err(e) => return Err(e.into()),
    };
    if let Some((scan, _, _)) = &contents {
        for f in &scan.records {
            writer::apply(&mut snapshot, &f.record, &wal_path, f.offset)?;
        }
        snapshot.wal_records += scan.records.len() as u64;
    }
    Ok((m, snapshot, contents))
}

/// Reads the live WAL for replay: damage, or a file shorter than its sync record says was
/// durable (records acknowledged, then cut off), is an error naming what was lost.
fn read_wal(
    path: &Path,
    bytes: &[u8],
    known: (u64, u64),
    schema: &Schema,
    durable: Option<&Durable>,
) -> Result<wal::Scan, StorageError> {
    let scan = wal::scan(path, bytes, Some(known), schema)?;
    if let Some(short) = durable.and_then(|d| sync_record::scan_shortfall(d, &scan, bytes.len() as u64)) {
        let damage = crate::error::WalDamage {
            path: path.to_path_buf(),
            offset: short.ends,
            what: match scan.damage.len() {
                0 => short.describe(),
                n => format!("{}; and {n} damaged stretch(es) before that", short.describe()),
            },
            lost: short.lost + scan.damage.iter().map(|d| d.lost_records).sum::<u64>(),
            before: scan.records.last().map(|f| f.record.key().to_string()),
            after: None,
            more: 0,
        };
        return Err(StorageError::WalDamaged(Box::new(damage)));
    }
    match scan.damage_error(path) {
        Some(e) => Err(e),
        None => Ok(scan),
    }
}

/// Opens the segments, delete sets and indexes the manifest `m` names, sharing what `prev`
/// has open (see [`load`]): the snapshot of the version `m` is, with no WAL record on top.
pub(super) fn load_segments(
    dir: &Path,
    m: &Manifest,
    options: &OpenOptions,
    prev: Option<&Snapshot>,
) -> Result<Snapshot, Error> {
    let mpath = dir.join(crate::storage::manifest_name(m.generation));
    let schema = Arc::new(m.schema(&mpath)?);
    let prev = prev.filter(|p| *p.schema == *schema);
    let legacy = m.legacy_layout(&mpath)?;
    let mut segments = Vec::with_capacity(m.segments.len());
    let total_rows = m.segments.iter().map(|e| e.rows).sum();
    for e in &m.segments {
        let old =
            prev.and_then(|p| p.segments.iter().find(|s| s.segment.id() == e.id && s.segment.file_len() == e.size));
        segments.push(open_segment(dir, &mpath, e, &schema, legacy.as_ref(), options, old, total_rows)?);
    }
    Ok(Snapshot {
        schema: schema.clone(),
        generation: m.generation,
        segments,
        frozen: None,
        mem: MemSegment::new(&schema),
        wal_records: 0,
        rebuilding: m.rebuilding.clone(),
        pin: None,
    })
}

/// Replays the sealed WAL of a flush in progress into the snapshot's frozen memtable. It
/// was synced whole before it was sealed: fewer records than the manifest says is damage
/// (bytes after the last record can only be the unsynced sync mark, cut short).
fn replay_sealed(dir: &Path, sealed: &SealedWal, snapshot: &mut Snapshot) -> Result<(), Error> {
    let path = dir.join(crate::storage::wal_name(sealed.seq));
    let bytes = crate::storage::disk::read(&path)?;
    let scan = wal::read(&path, &bytes, Some((sealed.seq, sealed.salt)), &snapshot.schema)?;
    if scan.records.len() as u64 != sealed.records {
        let what = format!("{} records; the manifest sealed it with {}", scan.records.len(), sealed.records);
        return Err(StorageError::corrupted(&path, bytes.len() as u64, what).into());
    }
    for f in &scan.records {
        writer::apply(snapshot, &f.record, &path, f.offset)?;
    }
    snapshot.wal_records = sealed.records;
    snapshot.frozen = Some(std::mem::replace(&mut snapshot.mem, MemSegment::new(&snapshot.schema)));
    Ok(())
}

/// Opens the segment `e` of the manifest at `mpath`, with its delete set and indexes,
/// sharing what `old` (the same segment in an earlier snapshot) has open. `total_rows`
/// (of every segment) divides the memory budget among disk indexes.
#[allow(clippy::too_many_arguments)]
fn open_segment(
    dir: &Path,
    mpath: &Path,
    e: &SegmentEntry,
    schema: &Arc<Schema>,
    legacy: Option<&Layout>,
    options: &OpenOptions,
    old: Option<&SegmentRef>,
    total_rows: u64,
) -> Result<SegmentRef, Error> {
    let path = dir.join(&e.file);
    let seg = match old {
        Some(old) => old.segment.clone(),
        None => {
            let seg =
                Segment::open_with(&path, schema.clone(), legacy, options.mmap, options.verifies_vectors_on_open())?;
            if options.memory_budget.is_some() {
                seg.read_on_demand();
            }
            Arc::new(seg)
        }
    };
    if seg.id() != e.id || seg.rows() as u64 != e.rows || seg.file_len() != e.size {
        return Err(StorageError::corrupted(
            &path,
            0,
            format!(
                "segment {} with {} rows and {} bytes; the manifest expects segment {} with {} rows and {} bytes",
                seg.id(),
                seg.rows(),
                seg.file_len(),
                e.id,
                e.rows,
                e.size
            ),
        )
        .into());
    }
    let deleted = match (old, &e.deletes) {
        (Some(old), _) if old.deletes_file == e.deletes && !old.dirty => old.deleted.clone(),
        (_, None) => Default::default(),
        (_, Some(d)) => {
            let p = dir.join(&d.file);
            let bytes = crate::storage::disk::read(&p)?;
            Arc::new(deletes::decode(&p, &bytes, e.id, seg.rows())?)
        }
    };
    let mut indexes = vec![None; schema.fields().len()];
    for ie in e.indexes.iter().filter(|ie| ie.kind == IndexKind::Vector) {
        let pos = schema.position_of_id(ie.field);
        let spec = pos.and_then(|pos| schema.field(pos).as_vector()).ok_or_else(|| {
            StorageError::corrupted(mpath, 0, format!("{}: field id {} is not a vector field", ie.file, ie.field))
        })?;
        let pos = pos.expect("checked above");
        let reused = old.filter(|o| o.index_files.contains(ie)).and_then(|o| o.indexes[pos].clone());
        let index = match reused {
            Some(index) => index,
            None => {
                let p = dir.join(&ie.file);
                let target = IndexTarget { path: &p, segment_id: e.id, field: ie.field, spec, rows: seg.rows() };
                let share = options.disk_share(seg.rows() as u64, total_rows);
                match SegmentIndex::open(target, options.mmap, options.verifies_vectors_on_open(), share) {
                    Ok(opened) => {
                        // A disk index reads its blocks with pread, and its codes must
                        // stay resident: its mapping keeps the read-ahead that brings
                        // them in whole.
                        if options.memory_budget.is_some() && opened.disk().is_none() {
                            opened.read_on_demand();
                        }
                        Arc::new(opened)
                    }
                    // A damaged or missing index costs speed, not answers: the segment's
                    // rows are searched exactly (stats and describe say so) until repair or
                    // an optimize builds the index again (`SegmentRef::unusable_indexes`).
                    Err(e) if e.is_damage() => continue,
                    Err(e) => return Err(e.into()),
                }
            }
        };
        indexes[pos] = Some(index);
    }
    let scan = SegmentRef::scan_codes(schema, &seg, &indexes, old.map(|o| &o.scan[..]));
    let scalar = field_indexes::open_listed(dir, mpath, schema, &seg, &e.indexes, old, options.mmap)?;
    Ok(SegmentRef {
        segment: seg,
        deleted,
        deletes_file: e.deletes.clone(),
        dirty: false,
        indexes,
        index_files: e.indexes.clone(),
        scan,
        scalar,
    })
}
