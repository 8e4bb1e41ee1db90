//! Background maintenance of a writable handle whose collection has
//! [`auto_flush_rows`](crate::CollectionOptions::auto_flush_rows) set: the write that
//! fills the memtable to that many rows freezes it (or, when a flush was pending then,
//! the flusher once that flush is published), a flusher thread writes it out (see
//! `flush.rs`), and a maintenance thread indexes each new segment and merges segments in
//! tiers, so fresh rows stop being searched by brute force without a full optimize. The
//! two threads are apart so that a long merge never holds up a flush.
//!
//! Each job is an [`optimize`](super::optimize) of a run of segments: pinned, built with
//! no lock held, published with the deletes that arrived meanwhile carried over. Jobs:
//!
//! 1. a segment lacking an index: build it (the segment is kept as it is);
//! 2. else `merge_factor` adjacent segments of one tier (tier `t` holds segments of about
//!    `flush · mf^t` up to `flush · mf^(t+1)` live rows): merge them into one, indexed.
//!
//! So each tier holds fewer than `merge_factor` segments once the backlog drains, and a
//! collection of `N` rows has at most `(merge_factor − 1) · (log_mf(N / flush) + 1)`
//! segments. Then, once writes have paused for `idle_optimize_ms`:
//!
//! 3. the memtable is flushed (a query would scan it by brute force);
//! 4. when the segments beside the largest hold at least a flush's worth of rows, all are
//!    planned as an optimize would: small ones merged into one, indexed. Each segment's
//!    index is searched apart, so an idle collection ends as few segments as
//!    `max_docs_per_segment` allows, and a query costs what it costs after an optimize.
//!
//! Writes wait (backpressure) while more than four flushes' worth of rows are not indexed
//! yet; the wait is counted in [`Stats::write_stall_ms`](super::Stats). A job builds with
//! [`OpenOptions::maintenance_threads`](super::OpenOptions) threads (one by default), and
//! [`Collection::pause_maintenance`](super::Collection::pause_maintenance) cancels the
//! running one and starts none until resumed (writes then stop waiting for the backlog).
//!
//! A set-index (`FieldChange::SetIndex`) leaves the field's segments without an index, and
//! the manifest lists the field as `rebuilding` until each has the new one. Job 1 builds
//! them, one segment per job, each published on its own. A writable handle of a
//! collection without automatic flushes runs the maintenance thread for that alone: it
//! starts when such a rebuild is pending (at open, or by the set-index) and runs job 1
//! for the rebuilding fields only, with no flusher, merges or backpressure. Writes never
//! wait for a rebuild: they did not make that backlog.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Condvar, Mutex, RwLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::OptimizeOptions;
use super::mem::MemSegment;
use super::optimize::{Job, indexed_fields};
use super::snapshot::Snapshot;
use super::writer::{Writer, discard};
use crate::error::Error;
use crate::storage::manifest::CollectionOptions;
use crate::storage::segment;

/// What the background thread shares with the handle.
#[derive(Debug, Default)]
pub(super) struct Status {
    /// Jobs published so far.
    pub jobs: AtomicU64,
    /// Disk indexes those jobs built from codes alone, their rows not fitting the handle's
    /// memory budget ([`OptimizeReport::low_memory_builds`](super::OptimizeReport)).
    pub low_memory_builds: AtomicU64,
    /// Threads in a flush or a job right now.
    pub busy: AtomicU32,
    /// Milliseconds writes waited for the backlog to drain, in all.
    pub stall_ms: AtomicU64,
    /// Why the last job or auto-flush failed, if it did (cleared by the next success).
    pub last_error: Mutex<Option<String>>,
    /// Notified when a job publishes (writers waiting on the backlog recheck).
    published: Condvar,
    published_lock: Mutex<()>,
    /// When the handle last wrote, in [`clock_ms`] time.
    last_write_ms: AtomicU64,
    /// Set by [`Collection::pause_maintenance`](super::Collection::pause_maintenance):
    /// no job starts.
    paused: AtomicBool,
    /// A running job's cancel flag: set to pause or stop, cleared as a job starts.
    cancel_job: AtomicBool,
}

/// Milliseconds since the first call in this process: a monotonic clock to time idleness.
fn clock_ms() -> u64 {
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_millis() as u64
}

impl Status {
    pub(super) fn record_error(&self, e: &Error) {
        *self.last_error.lock().expect("status lock poisoned") = Some(e.to_string());
    }

    /// Runs `work` counted as busy (see [`Stats::background_busy`](super::Stats)).
    fn busy_while<T>(&self, work: impl FnOnce() -> T) -> T {
        self.busy.fetch_add(1, Ordering::Relaxed);
        let out = work();
        self.busy.fetch_sub(1, Ordering::Relaxed);
        out
    }

    /// Notes a write: idle-time work waits for the next pause.
    pub(super) fn wrote(&self) {
        self.last_write_ms.store(clock_ms(), Ordering::Relaxed);
    }

    /// Whether writes have paused for `ms` (never, for 0).
    fn idle_for(&self, ms: u64) -> bool {
        ms > 0 && clock_ms().saturating_sub(self.last_write_ms.load(Ordering::Relaxed)) >= ms
    }

    /// Stops starting jobs and cancels the one running.
    fn pause(&self) {
        self.paused.store(true, Ordering::SeqCst);
        self.cancel_job.store(true, Ordering::SeqCst);
        // Writers waiting on the backlog stop waiting.
        self.published.notify_all();
    }

    pub(super) fn is_paused(&self) -> bool {
        self.paused.load(Ordering::SeqCst)
    }

    /// Arms the cancel flag for a job about to start; false when paused meanwhile. A
    /// pause after this sets the flag again, so the job cancels.
    fn start_job(&self) -> bool {
        self.cancel_job.store(false, Ordering::SeqCst);
        !self.is_paused()
    }

    fn failing(&self) -> bool {
        self.last_error.lock().expect("status lock poisoned").is_some()
    }

    /// Blocks while `over()` holds and the thread is running to make it false. A thread
    /// whose last job failed (a full disk, say) or that is paused cannot drain the
    /// backlog: writes then go on rather than wait for it.
    pub(super) fn wait_for_backlog(&self, stop: &AtomicBool, over: impl Fn() -> bool) {
        let draining = || !self.failing() && !self.is_paused();
        if !draining() || !over() {
            return;
        }
        let start = Instant::now();
        let mut guard = self.published_lock.lock().expect("status lock poisoned");
        while draining() && over() && !stop.load(Ordering::Acquire) {
            guard = self.published.wait_timeout(guard, Duration::from_millis(50)).expect("status lock poisoned").0;
        }
        self.stall_ms.fetch_add(start.elapsed().as_millis() as u64, Ordering::Relaxed);
    }
}

/// The handle's side of the background thread.
#[derive(Debug)]
pub(super) struct Background {
    pub status: Arc<Status>,
    /// Set to stop the threads; a running job takes it as its cancel flag.
    pub stop: Arc<AtomicBool>,
    /// The collection's `auto_flush_rows`, or the rows `auto_flush_bytes` holds.
    pub flush_rows: u64,
    /// The collection's `auto_flush_bytes` (0: none).
    pub flush_bytes: u64,
    /// False for a handle of a collection without automatic flushes: it only rebuilds
    /// the indexes a set-index changed (no flusher, merges or backpressure).
    pub auto: bool,
    wake: Sender<()>,
    wake_flusher: Sender<()>,
    threads: Vec<JoinHandle<()>>,
}

/// Everything a job needs, shared with the handle.
pub(super) struct Shared {
    pub writer: Arc<Mutex<Writer>>,
    pub current: Arc<RwLock<Arc<Snapshot>>>,
    pub maintenance: Arc<Mutex<()>>,
    pub flushing: Arc<Mutex<()>>,
    pub mmap: bool,
    pub flush_rows: u64,
    pub flush_bytes: u64,
    /// Threads a job's index build uses ([`OpenOptions::maintenance_threads`]).
    ///
    /// [`OpenOptions::maintenance_threads`]: super::OpenOptions::maintenance_threads
    pub threads: usize,
    /// The handle's memory budget: a job builds disk indexes under it, as `optimize` does.
    pub memory_budget: Option<u64>,
}

fn is_full(flush_rows: u64, flush_bytes: u64, mem: &MemSegment) -> bool {
    mem.len() as u64 >= flush_rows.max(1) || (flush_bytes > 0 && mem.heap_bytes() as u64 >= flush_bytes)
}

/// Freezes the live memtable if it is full and no flush is pending; true when it did.
/// A write freezes the memtable it fills, but not while a flush is pending: one that
/// filled it meanwhile leaves it to the flusher, so the threshold holds without a further
/// write.
fn freeze_if_full(shared: &Shared) -> Result<bool, Error> {
    let mut w = shared.writer.lock().expect("writer lock poisoned");
    let full =
        is_full(shared.flush_rows, shared.flush_bytes, &shared.current.read().expect("snapshot lock poisoned").mem);
    if w.pending_flush().is_some() || !full {
        return Ok(false);
    }
    Ok(w.freeze(&shared.current)?.is_some())
}

/// Rows one flush holds: `auto_flush_rows`, or as many rows of this schema as
/// `auto_flush_bytes` holds when only that is set (what tiers and backpressure count in).
pub(super) fn flush_rows(options: &CollectionOptions, schema: &crate::schema::Schema) -> u64 {
    match (options.auto_flush_rows, options.auto_flush_bytes) {
        (rows, _) if rows > 0 => rows,
        (_, bytes) => (bytes / MemSegment::row_bytes(schema).max(1) as u64).max(1),
    }
}

impl Background {
    /// Starts the threads: the flusher only when `auto` (see [`Background::auto`]).
    pub(super) fn start(shared: Shared, auto: bool) -> Background {
        let (flush_rows, flush_bytes) = (shared.flush_rows.max(1), shared.flush_bytes);
        let status = Arc::new(Status::default());
        let stop = Arc::new(AtomicBool::new(false));
        let (wake, woken) = mpsc::channel();
        let (wake_flusher, flusher_woken) = mpsc::channel();
        let shared = Arc::new(shared);
        let mut threads = Vec::with_capacity(2);
        if auto {
            let (shared, status, stop, wake) = (shared.clone(), status.clone(), stop.clone(), wake.clone());
            let flusher = std::thread::Builder::new()
                .name("xvec-flush".into())
                .spawn(move || run_flusher(&shared, &status, &stop, &flusher_woken, &wake))
                .expect("spawning the flush thread");
            threads.push(flusher);
        }
        let maintenance = {
            let (status, stop) = (status.clone(), stop.clone());
            std::thread::Builder::new()
                .name("xvec-maintenance".into())
                .spawn(move || run(&shared, &status, &stop, &woken))
                .expect("spawning the maintenance thread")
        };
        threads.push(maintenance);
        Background { status, stop, flush_rows, flush_bytes, auto, wake, wake_flusher, threads }
    }

    /// Whether `mem` reached a flush threshold (never, without automatic flushes).
    pub(super) fn is_full(&self, mem: &MemSegment) -> bool {
        self.auto && is_full(self.flush_rows, self.flush_bytes, mem)
    }

    /// Tells the maintenance thread there may be work (a flush published a segment).
    pub(super) fn wake(&self) {
        let _ = self.wake.send(());
    }

    /// Stops starting jobs and cancels the one running (see
    /// [`Collection::pause_maintenance`](super::Collection::pause_maintenance)).
    pub(super) fn pause(&self) {
        self.status.pause();
    }

    /// Lets jobs start again after [`Background::pause`].
    pub(super) fn resume(&self) {
        self.status.paused.store(false, Ordering::SeqCst);
        self.wake();
    }

    /// Tells the flusher a memtable was frozen.
    pub(super) fn wake_flusher(&self) {
        let _ = self.wake_flusher.send(());
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        self.status.cancel_job.store(true, Ordering::SeqCst);
        self.wake();
        self.wake_flusher();
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
        self.status.published.notify_all();
    }
}

fn run(shared: &Shared, status: &Status, stop: &AtomicBool, woken: &Receiver<()>) {
    while !stop.load(Ordering::Acquire) {
        let ran = match status.is_paused() {
            true => Ok(false),
            false => status.busy_while(|| run_one(shared, status)),
        };
        match ran {
            Ok(true) => {
                status.jobs.fetch_add(1, Ordering::Relaxed);
                *status.last_error.lock().expect("status lock poisoned") = None;
                status.published.notify_all();
                continue;
            }
            Ok(false) => {}
            Err(Error::Cancelled) if stop.load(Ordering::Acquire) => return,
            // Paused: the job's files are gone; it is planned afresh on resume.
            Err(Error::Cancelled) => {}
            Err(e) => status.record_error(&e),
        }
        status.published.notify_all();
        match woken.recv_timeout(Duration::from_secs(1)) {
            Ok(()) | Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}

/// Writes out each frozen memtable; an error is reported by stats and retried a second
/// later (the frozen rows stay searched and logged meanwhile).
fn run_flusher(shared: &Shared, status: &Status, stop: &AtomicBool, woken: &Receiver<()>, wake: &Sender<()>) {
    while !stop.load(Ordering::Acquire) {
        let flushed = status
            .busy_while(|| super::flush::flush_pending(&shared.writer, &shared.current, &shared.flushing, shared.mmap));
        match flushed {
            Ok(true) => {
                *status.last_error.lock().expect("status lock poisoned") = None;
                let _ = wake.send(());
                match freeze_if_full(shared) {
                    Ok(true) => {
                        status.published.notify_all();
                        continue;
                    }
                    Ok(false) => {}
                    Err(e) => status.record_error(&e),
                }
            }
            Ok(false) => {}
            Err(e) => status.record_error(&e),
        }
        status.published.notify_all();
        match woken.recv_timeout(Duration::from_secs(1)) {
            Ok(()) | Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}

/// Runs the next job, if there is one; true when one was published.
fn run_one(shared: &Shared, status: &Status) -> Result<bool, Error> {
    let _one_at_a_time = shared.maintenance.lock().expect("maintenance lock poisoned");
    if !status.start_job() {
        return Ok(false);
    }
    let options = shared.writer.lock().expect("writer lock poisoned").manifest.options.clone();
    let idle = options.background() && status.idle_for(options.idle_optimize_ms);
    if idle && shared.current.read().expect("snapshot lock poisoned").mem.len() > 0 {
        super::flush::flush(&shared.writer, &shared.current, &shared.flushing, shared.mmap)?;
        return Ok(true);
    }
    let (job, first_id, dir) = {
        let mut w = shared.writer.lock().expect("writer lock poisoned");
        w.check_running()?;
        let base = shared.current.read().expect("snapshot lock poisoned").clone();
        let options = &w.manifest.options;
        let job = next_job(&base, options).or_else(|| idle.then(|| idle_job(&base, options)).flatten());
        let Some(inputs) = job else { return Ok(false) };
        let max_rows = options.max_docs_per_segment.clamp(1, segment::MAX_ROWS) as usize;
        let job = Job::plan(base, inputs, max_rows);
        if job.is_optimal() {
            return Ok(false);
        }
        let writes = job.writes() as u64;
        let first_id = w.manifest.next_segment_id;
        w.manifest.next_segment_id += writes;
        (job, first_id, w.dir.clone())
    };
    let opts = OptimizeOptions { memory_budget: shared.memory_budget, ..OptimizeOptions::default() }
        .concurrency(shared.threads)
        .cancel(Some(&status.cancel_job));
    let mut made = Vec::new();
    let mut report = job.report();
    let built = job.build(&dir, first_id, shared.mmap, &opts, &mut made, &mut report);
    let mut w = shared.writer.lock().expect("writer lock poisoned");
    let superseded = match built.and_then(|b| Ok((w.check_running()?, b))) {
        Ok(((), built)) => w.publish_optimized(&shared.current, &job, built, &mut made, shared.mmap)?,
        Err(e) => {
            discard(&made);
            return Err(e);
        }
    };
    drop(w);
    superseded.release();
    status.low_memory_builds.fetch_add(report.low_memory_builds as u64, Ordering::Relaxed);
    Ok(true)
}

/// The run of segments the next job works on (see the module docs): without automatic
/// flushes, only a segment lacking the index of a field being rebuilt.
pub(super) fn next_job(snap: &Snapshot, options: &CollectionOptions) -> Option<std::ops::Range<usize>> {
    let fields = match options.background() {
        true => indexed_fields(snap),
        false => rebuilding_fields(snap).collect(),
    };
    // A segment with damaged blocks is left as it is until repair (see `optimize`).
    let sound = |i: usize| snap.segments[i].segment.damage().is_none();
    let unindexed = (0..snap.segments.len())
        .position(|i| sound(i) && fields.iter().any(|&f| snap.segments[i].indexes[f].is_none()));
    if let Some(i) = unindexed {
        return Some(i..i + 1);
    }
    if !options.background() {
        return None;
    }
    let mf = options.merge_factor.max(2) as usize;
    let flush = flush_rows(options, &snap.schema);
    let max = options.max_docs_per_segment;
    let live = |i: usize| snap.segments[i].segment.rows() as u64 - snap.segments[i].deleted.len();
    // Rounded, so that a merge of mf flushes a few rows short (deletes) is the next tier.
    let tier = |rows: u64| ((rows + flush / 2) / flush).max(1).ilog(mf as u64);
    (0..snap.segments.len().saturating_sub(mf - 1)).map(|i| i..i + mf).find(|run| {
        let t = tier(live(run.start));
        run.clone().all(|i| tier(live(i)) == t && sound(i)) && run.clone().map(live).sum::<u64>() <= max
    })
}

/// Step 4 of the module docs: every segment, when those beside the largest hold at least a
/// flush's worth of live rows (below that, a rebuild buys too little).
fn idle_job(snap: &Snapshot, options: &CollectionOptions) -> Option<std::ops::Range<usize>> {
    let live: Vec<u64> = snap.segments.iter().map(|s| s.segment.rows() as u64 - s.deleted.len()).collect();
    let beside_largest = live.iter().sum::<u64>() - live.iter().max().copied().unwrap_or(0);
    let sound = snap.segments.iter().all(|s| s.segment.damage().is_none());
    (sound && live.len() > 1 && beside_largest >= flush_rows(options, &snap.schema)).then_some(0..live.len())
}

/// Positions of the fields a set-index is rebuilding.
fn rebuilding_fields(snap: &Snapshot) -> impl Iterator<Item = usize> + '_ {
    snap.rebuilding.iter().filter_map(|&id| snap.schema.position_of_id(id))
}

/// Rows a query still scans by brute force: the memtable and segments lacking an index.
pub(super) fn backlog_rows(snap: &Snapshot) -> u64 {
    unindexed_rows(snap, &indexed_fields(snap))
}

/// The backlog writes wait on: [`backlog_rows`] but for the segments only a set-index's
/// rebuild left unindexed (writes did not make that work, and waiting would stall them
/// for the whole rebuild).
pub(super) fn write_backlog(snap: &Snapshot) -> u64 {
    let mut fields = indexed_fields(snap);
    fields.retain(|f| !rebuilding_fields(snap).any(|r| r == *f));
    unindexed_rows(snap, &fields)
}

/// Rows of the memtables and of the segments lacking the index of one of `fields`.
fn unindexed_rows(snap: &Snapshot, fields: &[usize]) -> u64 {
    let segments: u64 = (snap.segments.iter())
        .filter(|s| fields.iter().any(|&f| s.indexes[f].is_none()))
        .map(|s| s.segment.rows() as u64)
        .sum();
    segments + snap.mems().map(|m| m.len() as u64).sum::<u64>()
}
