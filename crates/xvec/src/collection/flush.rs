//! Flushing the memtable into a segment without holding writes up, in three steps:
//!
//! 1. freeze (writer lock, brief): sync the live WAL and seal it, start the next one, and
//!    publish a generation naming both; the memtable becomes the snapshot's `frozen` one
//!    (still searched, deletes still reach it) and new writes go to an empty memtable;
//! 2. write (no lock): the frozen rows, as they were at the freeze, into a segment file;
//! 3. publish (writer lock, brief): the segment, with the frozen rows deleted since the
//!    freeze as its delete set, and every segment's pending deletes written out; the
//!    sealed WAL leaves the manifest and the directory.
//!
//! Only the freeze's WAL sync and the two publishes run under the writer lock, so a write
//! waits for a flush at most that long, whatever the memtable's size. A crash between 1
//! and 3 leaves a generation naming both WALs: an open replays the sealed one into a
//! frozen memtable and the live one on top, and the next flush finishes the job.
//!
//! The delete files of step 3 hold every delete up to the publish, some of which the live
//! WAL also logs; replaying those again is a no-op (a record only deletes live rows, and a
//! put supersedes whatever version is live), so the published state replays to itself.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

use roaring::RoaringBitmap;

use super::field_indexes;
use super::mem::MemSegment;
use super::snapshot::{ScanCodesByField, SegmentRef, Snapshot, install};
use super::writer::{Frozen, Superseded, Writer, discard};
use crate::error::Error;
use crate::index::quant::fastscan::ScanCodes;
use crate::schema::Schema;
use crate::storage::manifest::{Operation, SealedWal};
use crate::storage::segment::{self, Part, Segment};
use crate::storage::wal::{self, WalWriter};
use crate::storage::{manifest_name, segment_name, wal_name};

/// Step 2's output: the segment file (none when every frozen row was deleted by the
/// freeze) and the frozen rows it holds.
pub(crate) struct Written {
    frozen: Frozen,
    /// The written segment, its scan codes and its scalar indexes.
    segment: Option<(Arc<Segment>, ScanCodesByField, field_indexes::Built)>,
    /// Live chunk-local rows of each frozen chunk, in segment order.
    live: Vec<Vec<u32>>,
    made: Vec<PathBuf>,
}

/// Flushes everything written before the call: finishes a flush a crash or an error left
/// half done, then freezes the memtable and writes it out. `flushing` serializes flushes
/// (the step 2 of one must not race another's).
pub(crate) fn flush(
    writer: &Mutex<Writer>,
    current: &RwLock<Arc<Snapshot>>,
    flushing: &Mutex<()>,
    mmap: bool,
) -> Result<(), Error> {
    let _one_at_a_time = flushing.lock().expect("flush lock poisoned");
    flush_locked(writer, current, mmap)
}

/// [`flush`] for a caller that holds the flush lock.
pub(crate) fn flush_locked(writer: &Mutex<Writer>, current: &RwLock<Arc<Snapshot>>, mmap: bool) -> Result<(), Error> {
    let frozen = loop {
        finish_pending(writer, current, mmap)?;
        let mut w = writer.lock().expect("writer lock poisoned");
        // A write may have frozen a full memtable since: finish that one first.
        if w.pending_flush().is_none() {
            break w.freeze(current)?;
        }
    };
    // The guard is dropped before `finish`, which takes the writer lock itself.
    match frozen {
        Some(frozen) => {
            finish(writer, current, &frozen, mmap)?;
            drop(frozen);
            return_freed_memory();
            Ok(())
        }
        None => Ok(()),
    }
}

/// Finishes a flush already frozen, if there is one (what the background flusher runs).
pub(crate) fn flush_pending(
    writer: &Mutex<Writer>,
    current: &RwLock<Arc<Snapshot>>,
    flushing: &Mutex<()>,
    mmap: bool,
) -> Result<bool, Error> {
    let _one_at_a_time = flushing.lock().expect("flush lock poisoned");
    finish_pending(writer, current, mmap)
}

/// Steps 2 and 3 of the pending flush, if there is one; the caller holds `flushing`.
fn finish_pending(writer: &Mutex<Writer>, current: &RwLock<Arc<Snapshot>>, mmap: bool) -> Result<bool, Error> {
    // The guard is dropped before `finish`, which takes the writer lock itself.
    let pending = writer.lock().expect("writer lock poisoned").pending_flush();
    match pending {
        Some(frozen) => {
            finish(writer, current, &frozen, mmap)?;
            drop(frozen);
            return_freed_memory();
            Ok(true)
        }
        None => Ok(false),
    }
}

/// Hands the pages of a flushed memtable (or an optimize's scratch) back to the OS.
/// glibc keeps freed heap memory for reuse, and a process that once freed a large block
/// (numpy does, reading a file in chunks) has raised its mmap threshold, so the memtable's
/// chunks came from the heap: without this the flushed rows stayed resident beside the
/// mapped segment that replaced them, and an optimize of 116,659 × 384 fp32 rows through
/// Python peaked 210 MiB higher (636 MiB, against 425 with it). A snapshot still holding
/// the memtable keeps its pages, as it must.
pub(super) fn return_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free heap pages to the OS; it touches no live
    // allocation and takes the allocator's own locks.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Steps 2 and 3. Not on a stopped writer: a publish that stopped it may have made its
/// segment live, and writing that file again would destroy it.
fn finish(writer: &Mutex<Writer>, current: &RwLock<Arc<Snapshot>>, frozen: &Frozen, mmap: bool) -> Result<(), Error> {
    let dir = {
        let w = writer.lock().expect("writer lock poisoned");
        w.check_running()?;
        w.dir.clone()
    };
    let written = write(&dir, frozen, mmap)?;
    let superseded = writer.lock().expect("writer lock poisoned").publish_flush(current, written, mmap)?;
    superseded.release();
    Ok(())
}

/// Step 2: writes the frozen rows into segment `frozen.id`; no lock is held.
fn write(dir: &Path, frozen: &Frozen, mmap: bool) -> Result<Written, Error> {
    let live = frozen.mem.live_rows();
    let mut made = Vec::new();
    let mut segment = None;
    if live.iter().any(|r| !r.is_empty()) {
        let path = dir.join(segment_name(frozen.id));
        made.push(path.clone());
        let parts: Vec<Part> = (live.iter().enumerate())
            .map(|(i, rows)| Part { source: frozen.mem.part(i).expect("a chunk per row list").view, rows })
            .collect();
        let opened = segment::write(&path, frozen.id, &frozen.schema, &parts)
            .and_then(|_| Segment::open(&path, frozen.schema.clone(), mmap, false));
        let opened = opened.inspect_err(|_| discard(&made))?;
        let scalar = field_indexes::build_all(dir, &frozen.schema, &opened, mmap, &mut made);
        let scalar = scalar.inspect_err(|_| discard(&made))?;
        segment = Some((Arc::new(opened), copied_scan_codes(&frozen.mem, &live), scalar));
    }
    Ok(Written { frozen: frozen.clone(), segment, live, made })
}

/// Writes `mem`'s live rows as segment `id`, which no version names until a publish does
/// (an atomic import's staged rows, `stage.rs`); its files are added to `made`. `None`
/// when no row is live.
pub(super) fn write_unpublished(
    dir: &Path,
    schema: &Arc<Schema>,
    mem: MemSegment,
    id: u64,
    mmap: bool,
    made: &mut Vec<PathBuf>,
) -> Result<Option<SegmentRef>, Error> {
    let frozen = Frozen { mem, id, schema: schema.clone() };
    let Written { segment, made: mut files, .. } = write(dir, &frozen, mmap)?;
    made.append(&mut files);
    Ok(segment.map(|(segment, scan, scalar)| SegmentRef {
        segment,
        deleted: Arc::default(),
        deletes_file: None,
        dirty: false,
        indexes: vec![None; schema.fields().len()],
        index_files: scalar.files,
        scan,
        scalar: scalar.by_field,
    }))
}

/// The scan codes of a flushed segment (it is scanned with them until indexed): the
/// memtable's codes of the rows kept, copied with no lock held (a chunk no search has
/// asked for encodes them here).
fn copied_scan_codes(mem: &MemSegment, live: &[Vec<u32>]) -> ScanCodesByField {
    let fields = mem.part(0).map_or(0, |p| p.scan.fields());
    (0..fields)
        .map(|f| {
            let mut out: Option<ScanCodes> = None;
            for (i, rows) in live.iter().enumerate() {
                let codes = mem.part(i).expect("a chunk per row list").scan.field(f)?;
                let out = out.get_or_insert_with(|| codes.empty_like());
                rows.iter().for_each(|&r| out.push_copy(codes, r as usize));
            }
            out.map(Arc::new)
        })
        .collect()
}

impl Writer {
    /// The flush a crash or an error left between its freeze and its publish.
    pub(crate) fn pending_flush(&self) -> Option<Frozen> {
        self.frozen.clone()
    }

    /// Step 1: seals the live WAL and freezes the memtable; `None` when nothing was
    /// written since the last flush. Fails while another flush is pending.
    pub(crate) fn freeze(&mut self, current: &RwLock<Arc<Snapshot>>) -> Result<Option<Frozen>, Error> {
        self.check_running()?;
        assert!(self.frozen.is_none(), "a flush is already frozen");
        let snap = current.read().expect("snapshot lock poisoned").clone();
        if self.wal.records() == 0 && !snap.segments.iter().any(|s| s.dirty) {
            return Ok(None);
        }
        // Sealed means synced: the next WAL's records must never outlive these.
        self.wal.sync()?;
        let dir = self.dir.clone();
        let mut m = self.manifest.clone();
        m.generation += 1;
        m.sealed_wal = Some(SealedWal { seq: m.wal_seq, salt: m.wal_salt, records: self.wal.records() });
        m.wal_seq += 1;
        m.wal_salt = wal::new_salt();
        let id = m.next_segment_id;
        m.next_segment_id += 1;
        let made = [dir.join(wal_name(m.wal_seq))];
        let next = WalWriter::create(&dir, m.wal_seq, m.wal_salt, self.sync).inspect_err(|_| discard(&made))?;
        m.stamp(Operation::Freeze);
        self.publish(&m, &made)?;

        let mem = {
            let mut guard = current.write().expect("snapshot lock poisoned");
            let s = Arc::make_mut(&mut guard);
            s.generation = m.generation;
            let mem = std::mem::replace(&mut s.mem, MemSegment::new(&s.schema));
            s.frozen = Some(mem.clone());
            mem
        };
        let old = std::mem::replace(&mut self.manifest, m);
        drop(std::mem::replace(&mut self.wal, next));
        self.release_now(&[dir.join(manifest_name(old.generation))]);
        let frozen = Frozen { mem, id, schema: snap.schema.clone() };
        self.frozen = Some(frozen.clone());
        Ok(Some(frozen))
    }

    /// Step 3: publishes the segment `written` holds in place of the frozen memtable.
    fn publish_flush(
        &mut self,
        current: &RwLock<Arc<Snapshot>>,
        written: Written,
        mmap: bool,
    ) -> Result<Superseded, Error> {
        let Written { frozen, segment, live, mut made } = written;
        let mut gone = Vec::new();
        if let Err(e) = self.check_running() {
            // Stopped by another call since `finish` checked: these files are ours alone.
            discard(&made);
            return Err(e.into());
        }
        let cur = current.read().expect("snapshot lock poisoned").clone();
        let now = cur.frozen.as_ref().expect("a pending flush has a frozen memtable");
        let mut m = self.manifest.clone();
        m.generation += 1;
        let sealed = m.sealed_wal.take().expect("a pending flush has a sealed WAL");
        let mut segments = cur.segments.clone();
        let staged = (|| {
            for s in segments.iter_mut().filter(|s| s.dirty) {
                s.deletes_file = Some(self.write_deletes(s.segment.id(), &s.deleted, m.generation, &mut made)?);
                s.dirty = false;
            }
            if let Some((seg, scan, scalar)) = segment {
                let deleted = deleted_since_freeze(&frozen.mem, now, &live);
                let deletes_file = match deleted.is_empty() {
                    true => None,
                    false => Some(self.write_deletes(frozen.id, &deleted, m.generation, &mut made)?),
                };
                let mut r = SegmentRef {
                    segment: seg,
                    deleted: Arc::new(deleted),
                    deletes_file,
                    dirty: false,
                    indexes: vec![None; cur.schema.fields().len()],
                    index_files: scalar.files,
                    scan,
                    scalar: scalar.by_field,
                };
                field_indexes::complete(&self.dir, &cur.schema, &mut r, mmap, &mut made, &mut gone)?;
                segments.push(r);
            }
            Ok::<_, Error>(())
        })();
        staged.inspect_err(|_| discard(&made))?;
        m.segments = segments.iter().map(SegmentRef::entry).collect();
        m.stamp(Operation::Flush);
        self.publish(&m, &made)?;

        let replaced = install(current, cur.republished(m.generation, segments, self.wal.records()));
        self.frozen = None;
        let old = std::mem::replace(&mut self.manifest, m);
        // Superseded: no new reader can reach them; open snapshots hold their maps.
        let mut obsolete = vec![self.dir.join(wal_name(sealed.seq))];
        obsolete.extend(gone);
        obsolete.extend(self.superseded_by_publish(&old));
        drop(cur);
        Ok(self.superseded(obsolete, replaced))
    }
}

/// The rows of the flushed segment whose frozen row `now` has deleted and `then` (the
/// memtable at the freeze) had not; `live` lists, per chunk, the rows the segment holds.
fn deleted_since_freeze(then: &MemSegment, now: &MemSegment, live: &[Vec<u32>]) -> RoaringBitmap {
    let mut out = RoaringBitmap::new();
    let mut first = 0u32;
    for (c, rows) in live.iter().enumerate() {
        let (before, after) = (then.part(c).expect("chunk").deleted, now.part(c).expect("chunk").deleted);
        for r in (after - before).iter() {
            if let Ok(j) = rows.binary_search(&r) {
                out.insert(first + j as u32);
            }
        }
        first += rows.len() as u32;
    }
    out
}
