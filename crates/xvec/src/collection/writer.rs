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

use super::ItemResult;
use super::mem::MemSegment;
use super::snapshot::{Location, SegmentRef, Snapshot};
use crate::error::{DocError, Error, StorageError};
use crate::schema::Schema;
use crate::storage::lock::WriterLock;
use crate::storage::manifest::PublishError;
use crate::storage::manifest::{DeletesEntry, Manifest};
use crate::storage::segment::{self, Part, Segment};
use crate::storage::wal::{self, Record, Scan, SyncPolicy, WalWriter};
use crate::storage::{deletes, deletes_name, disk, manifest_name, segment_name, wal_name, write_file_atomic};
use crate::value::{Doc, Row, check_value, truncate_key};

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
    wal: WalWriter,
    pub(super) manifest: Manifest,
    schema: Arc<Schema>,
    sync: SyncPolicy,
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
        Ok(Writer { dir: dir.to_path_buf(), _lock: lock, wal, manifest, schema, sync, stopped: None })
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
        let wal = WalWriter::create(dir, m.wal_seq, m.wal_salt, sync)?;
        let made = [wal.path().to_path_buf()];
        let mut w =
            Writer { dir: dir.to_path_buf(), _lock: lock, wal, manifest: m.clone(), schema, sync, stopped: None };
        w.publish(&m, &made)?;
        discard(&[dir.join(wal_name(old.wal_seq)), dir.join(manifest_name(old.generation))]);
        Ok(w)
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
        for r in records {
            if let Err(e) = apply(snap, r, self.wal.path(), 0) {
                // Logged but not applied: memory no longer matches the log.
                self.stopped = Some(format!("applying a logged batch failed: {e}"));
                return Err(e.into());
            }
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
        let schema = snap.schema.clone();
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
                (Mode::Insert | Mode::Upsert, Old::Absent) => Row::from_doc(&schema, doc),
                (Mode::Insert, _) => Err(DocError::DuplicateKey(truncate_key(&key))),
                (Mode::Update, Old::Absent) => Err(DocError::NotFound(truncate_key(&key))),
                (_, Old::Pending(i)) => match &records[i] {
                    Record::Put(prev) => prev.clone().merge(&schema, doc),
                    Record::Delete(_) => unreachable!("a write batch logs only puts"),
                },
                (_, Old::Stored(loc)) => Row { key: doc.key.clone(), values: snap.row_values(loc) }.merge(&schema, doc),
            };
            results.push(row.map(|row| {
                pending.insert(key, records.len());
                records.push(Record::Put(row));
            }));
        }
        drop(snap);
        self.commit(current, &records)?;
        Ok(results)
    }

    pub(crate) fn delete(&mut self, current: &RwLock<Arc<Snapshot>>, keys: &[&str]) -> Result<Vec<ItemResult>, Error> {
        let snap = current.read().expect("snapshot lock poisoned").clone();
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
        drop(snap);
        self.commit(current, &records)?;
        Ok(results)
    }

    /// Seals the mutable segment and dirty delete sets into a new generation.
    pub(crate) fn flush(&mut self, current: &RwLock<Arc<Snapshot>>, mmap: bool) -> Result<(), Error> {
        self.sync()?;
        let snap = current.read().expect("snapshot lock poisoned").clone();
        if self.wal.records() == 0 && !snap.segments.iter().any(|s| s.dirty) {
            return Ok(());
        }
        // Files of the new generation, removed again if it is not published.
        let mut made: Vec<PathBuf> = Vec::new();
        let staged = self.stage_flush(&snap, mmap, &mut made);
        let (m, segments, new_wal) = staged.inspect_err(|_| discard(&made))?;
        self.publish(&m, &made)?;

        let schema = snap.schema.clone();
        drop(snap);
        *current.write().expect("snapshot lock poisoned") = Arc::new(Snapshot {
            schema: schema.clone(),
            generation: m.generation,
            segments,
            mem: MemSegment::new(&schema),
            wal_records: 0,
        });
        let old = std::mem::replace(&mut self.manifest, m);
        let old_wal = std::mem::replace(&mut self.wal, new_wal);
        // Superseded files: no new reader can reach them; open snapshots hold their maps.
        // Removal is best effort: what stays is rolled back by the next writable open.
        let mut obsolete = vec![old_wal.path().to_path_buf(), self.dir.join(manifest_name(old.generation))];
        for e in &old.segments {
            if let Some(d) = &e.deletes
                && !self.manifest.segments.iter().any(|n| n.deletes.as_ref() == Some(d))
            {
                obsolete.push(self.dir.join(&d.file));
            }
        }
        drop(old_wal);
        discard(&obsolete);
        debug_assert_eq!(self.wal.path(), self.dir.join(wal_name(self.manifest.wal_seq)));
        Ok(())
    }

    /// Writes the files of the next generation (delete files, the new segment, the next
    /// WAL) and returns its manifest; nothing is published yet.
    fn stage_flush(
        &self,
        snap: &Snapshot,
        mmap: bool,
        made: &mut Vec<PathBuf>,
    ) -> Result<(Manifest, Vec<SegmentRef>, WalWriter), Error> {
        let dir = &self.dir;
        let mut m = self.manifest.clone();
        m.generation += 1;
        let mut segments = snap.segments.clone();
        for s in segments.iter_mut().filter(|s| s.dirty) {
            let id = s.segment.id();
            let name = deletes_name(id, m.generation);
            let bytes = deletes::encode(id, &s.deleted);
            made.push(dir.join(&name));
            write_file_atomic(dir, &name, &bytes)?;
            s.deletes_file = Some(DeletesEntry { file: name, size: bytes.len() as u64, count: s.deleted.len() });
            s.dirty = false;
        }
        let rows = snap.mem.live_rows();
        if rows.iter().any(|r| !r.is_empty()) {
            let id = m.next_segment_id;
            m.next_segment_id += 1;
            let path = dir.join(segment_name(id));
            made.push(path.clone());
            let parts: Vec<Part> = (rows.iter().enumerate())
                .map(|(i, rows)| Part { source: snap.mem.part(i).expect("a chunk per row list").view, rows })
                .collect();
            segment::write(&path, id, &snap.schema, &parts)?;
            let seg = Segment::open(&path, snap.schema.clone(), mmap, false)?;
            segments.push(SegmentRef {
                segment: Arc::new(seg),
                deleted: Default::default(),
                deletes_file: None,
                dirty: false,
                indexes: vec![None; snap.schema.fields().len()],
                index_files: Vec::new(),
            });
        }
        m.segments = segments.iter().map(SegmentRef::entry).collect();
        m.wal_seq += 1;
        m.wal_salt = wal::new_salt();
        made.push(dir.join(wal_name(m.wal_seq)));
        let new_wal = WalWriter::create(dir, m.wal_seq, m.wal_salt, self.sync)?;
        Ok((m, segments, new_wal))
    }
}

/// Removes files that no generation needs: those of a generation that was not published,
/// or superseded ones (best effort: what stays is rolled back by the next writable open).
pub(super) fn discard(paths: &[PathBuf]) {
    for p in paths {
        let _ = disk::remove_file(p);
    }
}

/// Applies one logged record to a snapshot (writes and WAL replay share this).
pub(crate) fn apply(snap: &mut Snapshot, r: &Record, wal: &Path, offset: u64) -> Result<(), StorageError> {
    match r {
        Record::Put(row) => {
            let bad =
                |what: String| StorageError::corrupted(wal, offset, format!("record for key {:?}: {what}", row.key));
            if row.values.len() != snap.schema.fields().len() {
                return Err(bad(format!(
                    "{} values, the schema has {} fields",
                    row.values.len(),
                    snap.schema.fields().len()
                )));
            }
            for (i, v) in row.values.iter().enumerate() {
                check_value(&snap.schema, i, &row.key, v).map_err(|e| bad(e.to_string()))?;
            }
            if snap.mem.find(&row.key).is_none()
                && let Some(Location::Segment(i, r)) = snap.locate(&row.key)
            {
                mark_deleted(&mut snap.segments[i], r);
            }
            snap.mem.put(&snap.schema, row);
        }
        Record::Delete(key) => match snap.locate(key) {
            Some(Location::Mem(_)) => {
                snap.mem.delete(key);
            }
            Some(Location::Segment(i, r)) => mark_deleted(&mut snap.segments[i], r),
            None => {}
        },
    }
    Ok(())
}

fn mark_deleted(s: &mut SegmentRef, row: u32) {
    Arc::make_mut(&mut s.deleted).insert(row);
    s.dirty = true;
}
