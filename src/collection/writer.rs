//! The single writer: validates batches, logs them, applies them to the mutable segment,
//! and flushes the mutable segment and dirty delete sets into a new generation.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use super::ItemResult;
use super::mem::MemSegment;
use super::snapshot::{Location, SegmentRef, Snapshot};
use crate::error::{DocError, Error, StorageError};
use crate::storage::lock::WriterLock;
use crate::storage::manifest::{DeletesEntry, Manifest, SegmentEntry};
use crate::storage::segment::{self, Part, Segment};
use crate::storage::wal::{Record, SyncPolicy, WalContents, WalWriter};
use crate::storage::{deletes, deletes_name, manifest_name, segment_name, wal_name, write_file_atomic};
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
    sync: SyncPolicy,
}

impl Writer {
    pub(crate) fn new(
        dir: &Path,
        lock: WriterLock,
        manifest: Manifest,
        wal_state: Option<WalContents>,
        sync: SyncPolicy,
    ) -> Result<Writer, Error> {
        let wal = match wal_state {
            Some(c) => WalWriter::reopen(dir, c.seq, c.valid_len, c.records.len() as u64, sync)?,
            None => WalWriter::create(dir, manifest.wal_seq, sync)?,
        };
        Ok(Writer { dir: dir.to_path_buf(), _lock: lock, wal, manifest, sync })
    }

    pub(crate) fn sync(&mut self) -> Result<(), StorageError> {
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
        if records.is_empty() {
            return Ok(());
        }
        self.wal.append(records)?;
        let mut guard = current.write().expect("snapshot lock poisoned");
        let snap = Arc::make_mut(&mut guard);
        for r in records {
            apply(snap, r, self.wal.path())?;
        }
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
        self.wal.sync()?;
        let snap = current.read().expect("snapshot lock poisoned").clone();
        if self.wal.records() == 0 && !snap.segments.iter().any(|s| s.dirty) {
            return Ok(());
        }
        let dir = self.dir.clone();
        let mut m = self.manifest.clone();
        m.generation += 1;
        let mut segments = snap.segments.clone();
        for s in segments.iter_mut().filter(|s| s.dirty) {
            let id = s.segment.id();
            let name = deletes_name(id, m.generation);
            let bytes = deletes::encode(id, &s.deleted);
            write_file_atomic(&dir, &name, &bytes)?;
            s.deletes_file = Some(DeletesEntry { file: name, size: bytes.len() as u64, count: s.deleted.len() });
            s.dirty = false;
        }
        let rows = snap.mem.live_rows();
        if !rows.is_empty() {
            let id = m.next_segment_id;
            m.next_segment_id += 1;
            let path = dir.join(segment_name(id));
            segment::write(&path, id, &snap.schema, &[Part { source: &*snap.mem, rows: &rows }])?;
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
        m.segments = segments
            .iter()
            .map(|s| SegmentEntry {
                id: s.segment.id(),
                file: segment_name(s.segment.id()),
                rows: s.segment.rows() as u64,
                size: s.segment.file_len(),
                deletes: s.deletes_file.clone(),
                indexes: s.index_files.clone(),
            })
            .collect();
        m.wal_seq += 1;
        let new_wal = WalWriter::create(&dir, m.wal_seq, self.sync)?;
        m.publish(&dir)?;

        let schema = snap.schema.clone();
        drop(snap);
        *current.write().expect("snapshot lock poisoned") = Arc::new(Snapshot {
            schema: schema.clone(),
            generation: m.generation,
            segments,
            mem: Arc::new(MemSegment::new(&schema)),
        });
        let old = std::mem::replace(&mut self.manifest, m);
        let old_wal = std::mem::replace(&mut self.wal, new_wal);
        // Superseded files: no new reader can reach them; open snapshots hold their maps.
        let mut obsolete = vec![old_wal.path().to_path_buf(), dir.join(manifest_name(old.generation))];
        for e in &old.segments {
            if let Some(d) = &e.deletes
                && !self.manifest.segments.iter().any(|n| n.deletes.as_ref() == Some(d))
            {
                obsolete.push(dir.join(&d.file));
            }
        }
        drop(old_wal);
        for p in obsolete {
            let _ = std::fs::remove_file(p);
        }
        debug_assert_eq!(self.wal.path(), dir.join(wal_name(self.manifest.wal_seq)));
        Ok(())
    }
}

/// Applies one logged record to a snapshot (writes and WAL replay share this).
pub(crate) fn apply(snap: &mut Snapshot, r: &Record, wal: &Path) -> Result<(), StorageError> {
    match r {
        Record::Put(row) => {
            let bad = |what: String| StorageError::corrupted(wal, 0, format!("record for key {:?}: {what}", row.key));
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
            Arc::make_mut(&mut snap.mem).put(row);
        }
        Record::Delete(key) => match snap.locate(key) {
            Some(Location::Mem(_)) => {
                Arc::make_mut(&mut snap.mem).delete(key);
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
