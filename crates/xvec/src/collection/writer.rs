//! The single writer: validates batches, logs them, applies them to the mutable segment,
//! and flushes the mutable segment and dirty delete sets into a new generation.
//!
//! Fail-stop: an I/O error that leaves unknown what the disk holds (a failed WAL fsync, an
//! error in or after a publish's rename of `CURRENT`) stops the writer; every later write,
//! flush and optimize fails until the collection is reopened, and the open recovers.
//! Errors before that point leave the live generation as it was and the writer usable.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use roaring::RoaringBitmap;

use super::ItemResult;
use super::mem::MemSegment;
use super::snapshot::{Location, SegmentRef, Snapshot};
use crate::error::{DocError, Error, StorageError, truncate_key};
use crate::schema::Schema;
use crate::storage::lock::WriterLock;
use crate::storage::manifest::PublishError;
use crate::storage::manifest::{CollectionOptions, DeletesEntry, Manifest, Operation};
use crate::storage::versions;
use crate::storage::wal::{self, Record, Scan, SyncPolicy, WalWriter};
use crate::storage::{deletes, deletes_name, disk, manifest_name, wal_name, write_file_atomic};
use crate::value::{Doc, Row, check_value};

/// A frozen memtable as it was at the freeze, and the id its segment takes: the flush
/// between its freeze and its publish (see `flush.rs`).
#[derive(Clone, Debug)]
pub(crate) struct Frozen {
    pub(super) mem: MemSegment,
    pub(super) id: u64,
    pub(super) schema: Arc<Schema>,
}

/// Where the previous version of a key being written lives.
enum Old {
    Absent,
    /// An earlier item of the same batch.
    Pending(usize),
    Stored(Location),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    Insert,
    Upsert,
    Update,
}

pub(crate) struct Writer {
    pub(super) dir: PathBuf,
    _lock: WriterLock,
    pub(super) wal: WalWriter,
    pub(super) manifest: Manifest,
    schema: Arc<Schema>,
    pub(super) sync: SyncPolicy,
    /// The flush between its freeze and its publish, if one is (see `flush.rs`).
    pub(super) frozen: Option<Frozen>,
    /// Why writes are refused until a reopen (see the module docs).
    stopped: Option<String>,
}

impl Writer {
    pub(crate) fn new(
        dir: &Path,
        lock: WriterLock,
        manifest: Manifest,
        schema: Arc<Schema>,
        wal_state: Option<Scan>,
        sync: SyncPolicy,
    ) -> Result<Writer, Error> {
        let wal = match wal_state {
            Some(scan) => WalWriter::reopen(dir, &scan, sync)?,
            None if manifest.wal_salt == 0 => return Writer::upgrade(dir, lock, manifest, schema, sync),
            None => {
                let w = WalWriter::create(dir, manifest.wal_seq, manifest.wal_salt, sync)?;
                crate::storage::sync_dir(dir)?;
                w
            }
        };
        Ok(Writer { dir: dir.to_path_buf(), _lock: lock, wal, manifest, schema, sync, frozen: None, stopped: None })
    }

    /// A version 1 manifest naming an empty version 1 WAL: publishes the same data as a
    /// new generation with a version 2 manifest and WAL, so writes can follow.
    fn upgrade(
        dir: &Path,
        lock: WriterLock,
        old: Manifest,
        schema: Arc<Schema>,
        sync: SyncPolicy,
    ) -> Result<Writer, Error> {
        let mut m = old.clone();
        m.generation += 1;
        m.wal_seq += 1;
        m.wal_salt = wal::new_salt();
        m.schema = schema.to_stored();
        m.stamp(Operation::Upgrade);
        let wal = WalWriter::create(dir, m.wal_seq, m.wal_salt, sync)?;
        let made = [wal.path().to_path_buf()];
        let mut w = Writer {
            dir: dir.to_path_buf(),
            _lock: lock,
            wal,
            manifest: m.clone(),
            schema,
            sync,
            frozen: None,
            stopped: None,
        };
        w.publish(&m, &made)?;
        w.release_now(&[dir.join(wal_name(old.wal_seq)), dir.join(manifest_name(old.generation))]);
        Ok(w)
    }

    /// Takes on the flush an open found half done (`snap.frozen`, replayed from the sealed
    /// WAL): the next flush writes it out, as segment id reserved here.
    pub(super) fn adopt_frozen(&mut self, snap: &Snapshot) {
        if let Some(mem) = &snap.frozen {
            let id = self.manifest.next_segment_id;
            self.manifest.next_segment_id += 1;
            self.frozen = Some(Frozen { mem: mem.clone(), id, schema: snap.schema.clone() });
        }
    }

    /// Writes segment `id`'s delete file for `generation`, listed in `made` (removed
    /// again if the generation is not published).
    pub(super) fn write_deletes(
        &self,
        id: u64,
        deleted: &RoaringBitmap,
        generation: u64,
        made: &mut Vec<PathBuf>,
    ) -> Result<DeletesEntry, Error> {
        let name = deletes_name(id, generation);
        let bytes = deletes::encode(id, deleted);
        made.push(self.dir.join(&name));
        write_file_atomic(&self.dir, &name, &bytes)?;
        Ok(DeletesEntry { file: name, size: bytes.len() as u64, count: deleted.len() })
    }

    /// What the publish just made superseded: `files` and the `snapshot` it replaced.
    pub(super) fn superseded(&self, files: Vec<PathBuf>, snapshot: Arc<Snapshot>) -> Superseded {
        Superseded { files, snapshot, dir: self.dir.clone(), options: self.manifest.options.clone() }
    }

    /// What the publish of the live manifest superseded of `old`, the manifest it
    /// replaced: that manifest and the delete files the live one no longer names.
    pub(super) fn superseded_by_publish(&self, old: &Manifest) -> Vec<PathBuf> {
        let mut out = vec![self.dir.join(manifest_name(old.generation))];
        for d in old.segments.iter().filter_map(|e| e.deletes.as_ref()) {
            if !self.manifest.segments.iter().any(|n| n.deletes.as_ref() == Some(d)) {
                out.push(self.dir.join(&d.file));
            }
        }
        out
    }

    /// Removes what a publish under the writer lock superseded, as [`Superseded::release`].
    pub(super) fn release_now(&self, files: &[PathBuf]) {
        versions::release(&self.dir, &self.manifest.options, files);
    }

    /// Fails once the writer has stopped (see the module docs).
    pub(super) fn check_running(&self) -> Result<(), StorageError> {
        match self.stopped.as_deref().or(self.wal.broken()) {
            Some(why) => Err(StorageError::FailStop { path: self.dir.clone(), what: why.to_string() }),
            None => Ok(()),
        }
    }

    /// Publishes `m`, whose new files are `made`. An error before the rename leaves the
    /// old generation live and removes `made`; one from the rename on stops the writer
    /// (the files may be live) and leaves them to the next open's recovery.
    pub(super) fn publish(&mut self, m: &Manifest, made: &[PathBuf]) -> Result<(), StorageError> {
        match m.publish(&self.dir) {
            Ok(()) => Ok(()),
            Err(PublishError::NotPublished(e)) => {
                discard(made);
                Err(e)
            }
            Err(PublishError::Unknown(e)) => {
                self.stopped = Some(format!("publishing generation {} failed: {e}", m.generation));
                Err(e)
            }
        }
    }

    pub(crate) fn sync(&mut self) -> Result<(), StorageError> {
        self.check_running()?;
        self.wal.sync()
    }

    pub(crate) fn unsynced_records(&self) -> u64 {
        self.wal.unsynced_records()
    }

    /// The schema writes are logged under, replaced by a field change.
    pub(super) fn set_schema(&mut self, schema: Arc<Schema>) {
        self.schema = schema;
    }

    pub(crate) fn buffer_bytes(&self) -> usize {
        self.wal.buffer_bytes()
    }

    /// Logs `records` and applies them to the published state.
    fn commit(&mut self, current: &RwLock<Arc<Snapshot>>, records: &[Record]) -> Result<(), Error> {
        self.check_running()?;
        if records.is_empty() {
            return Ok(());
        }
        self.wal.append(&self.schema, records)?;
        let mut guard = current.write().expect("snapshot lock poisoned");
        // Copies only the snapshot's lists when a query holds it; the rows stay shared.
        let snap = Arc::make_mut(&mut guard);
        // `put_records` validated every row against this schema (the writer lock keeps it
        // from changing in between), so the rows are applied without checking them again.
        for r in records {
            apply_valid(snap, r);
        }
        snap.wal_records += records.len() as u64;
        Ok(())
    }

    pub(crate) fn write(
        &mut self,
        current: &RwLock<Arc<Snapshot>>,
        docs: Vec<Doc>,
        mode: Mode,
    ) -> Result<Vec<ItemResult>, Error> {
        let snap = current.read().expect("snapshot lock poisoned").clone();
        let (records, results) = put_records(&snap, docs, mode);
        drop(snap);
        self.commit(current, &records)?;
        Ok(results)
    }

    pub(crate) fn delete(&mut self, current: &RwLock<Arc<Snapshot>>, keys: &[&str]) -> Result<Vec<ItemResult>, Error> {
        let snap = current.read().expect("snapshot lock poisoned").clone();
        let (records, results) = delete_records(&snap, keys);
        drop(snap);
        self.commit(current, &records)?;
        Ok(results)
    }
}

/// The records a batch of writes makes on top of `snap`, and each document's result: a
/// document is validated, merged with the version it updates (stored, or an earlier one
/// of the batch), or refused by `mode`.
pub(super) fn put_records(snap: &Snapshot, docs: Vec<Doc>, mode: Mode) -> (Vec<Record>, Vec<ItemResult>) {
    let schema = &snap.schema;
    // Latest version of each key touched by this batch, as an index into `records`.
    let mut pending: HashMap<String, usize> = HashMap::new();
    let mut records: Vec<Record> = Vec::with_capacity(docs.len());
    let mut results = Vec::with_capacity(docs.len());
    for doc in docs {
        let old = match pending.get(&doc.key) {
            Some(&i) => Old::Pending(i),
            None => snap.locate(&doc.key).map_or(Old::Absent, Old::Stored),
        };
        let key = doc.key.clone();
        let row = match (mode, old) {
            (Mode::Insert | Mode::Upsert, Old::Absent) => Row::from_doc(schema, doc),
            (Mode::Insert, _) => Err(DocError::DuplicateKey(truncate_key(&key))),
            (Mode::Update, Old::Absent) => Err(DocError::NotFound(truncate_key(&key))),
            (_, Old::Pending(i)) => match &records[i] {
                Record::Put(prev) => prev.clone().merge(schema, doc),
                Record::Delete(_) => unreachable!("a write batch logs only puts"),
            },
            (_, Old::Stored(loc)) => Row { key: doc.key.clone(), values: snap.row_values(loc) }.merge(schema, doc),
        };
        results.push(row.map(|row| {
            pending.insert(key, records.len());
            records.push(Record::Put(row));
        }));
    }
    (records, results)
}

/// The records deleting `keys` from `snap` makes, and each key's result (a key not live
/// fails its entry).
pub(super) fn delete_records(snap: &Snapshot, keys: &[&str]) -> (Vec<Record>, Vec<ItemResult>) {
    let mut gone: std::collections::HashSet<&str> = Default::default();
    let mut records = Vec::new();
    let results = keys
        .iter()
        .map(|&k| {
            if gone.contains(k) || snap.locate(k).is_none() {
                return Err(DocError::NotFound(truncate_key(k)));
            }
            gone.insert(k);
            records.push(Record::Delete(k.to_string()));
            Ok(())
        })
        .collect();
    (records, results)
}

/// What a publish replaced, released once the writer lock is: removing large files (a
/// sealed WAL of a whole flush, merged segments) and unmapping a replaced snapshot's
/// segments can take milliseconds on a busy disk, and every write would wait for them.
/// Files a retained version, a tag or a reader's lease keeps stay (`storage/versions`).
#[must_use = "release it after the writer lock"]
pub(crate) struct Superseded {
    files: Vec<PathBuf>,
    snapshot: Arc<Snapshot>,
    dir: PathBuf,
    options: CollectionOptions,
}

impl Superseded {
    /// Removes the files (those no version keeps) and drops this handle's reference to
    /// the replaced snapshot.
    pub(crate) fn release(self) {
        versions::release(&self.dir, &self.options, &self.files);
        drop(self.snapshot);
    }
}

/// Removes files that no generation needs: those of a generation that was not published,
/// or superseded ones (best effort: what stays is rolled back by the next writable open).
pub(super) fn discard(paths: &[PathBuf]) {
    for p in paths {
        let _ = disk::remove_file(p);
    }
}

/// Applies one record read from a WAL to a snapshot (replay, a follower, a staged import),
/// after checking its row against the snapshot's schema: a record that does not fit is
/// corruption at `wal`, `offset`.
pub(crate) fn apply(snap: &mut Snapshot, r: &Record, wal: &Path, offset: u64) -> Result<(), StorageError> {
    if let Record::Put(row) = r {
        check_logged(&snap.schema, row)
            .map_err(|what| StorageError::corrupted(wal, offset, format!("record for key {:?}: {what}", row.key)))?;
    }
    apply_valid(snap, r);
    Ok(())
}

/// Why a logged row does not fit `schema`, if it does not: one value per field, each one
/// the field's [`check_value`] accepts.
fn check_logged(schema: &Schema, row: &Row) -> Result<(), String> {
    if row.values.len() != schema.fields().len() {
        return Err(format!("{} values, the schema has {} fields", row.values.len(), schema.fields().len()));
    }
    for (i, v) in row.values.iter().enumerate() {
        check_value(schema, i, &row.key, v).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Applies a record whose row fits the snapshot's schema: one the writer validated before
/// logging it (`put_records`), or one [`apply`] checked.
fn apply_valid(snap: &mut Snapshot, r: &Record) {
    match r {
        Record::Put(row) => {
            debug_assert_eq!(check_logged(&snap.schema, row), Ok(()), "a row applied unvalidated");
            match snap.locate(&row.key) {
                Some(Location::Segment(i, r)) => mark_deleted(&mut snap.segments[i], r),
                Some(Location::Frozen(_)) => {
                    snap.frozen.as_mut().expect("located in the frozen memtable").delete(&row.key);
                }
                // `put` supersedes a version in the memtable itself.
                Some(Location::Mem(_)) | None => {}
            }
            snap.mem.put(&snap.schema, row);
        }
        Record::Delete(key) => match snap.locate(key) {
            Some(Location::Mem(_)) => {
                snap.mem.delete(key);
            }
            Some(Location::Frozen(_)) => {
                snap.frozen.as_mut().expect("located in the frozen memtable").delete(key);
            }
            Some(Location::Segment(i, r)) => mark_deleted(&mut snap.segments[i], r),
            None => {}
        },
    }
}

fn mark_deleted(s: &mut SegmentRef, row: u32) {
    Arc::make_mut(&mut s.deleted).insert(row);
    s.dirty = true;
}
