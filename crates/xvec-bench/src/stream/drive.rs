//! The measured part of a streaming run: one thread inserts the base in batches, in
//! dataset order, paced to the target rate; `search_threads` threads run the queries in
//! a loop against the newest snapshot; this thread samples memory at each window end.
//!
//! Nothing is scored here: each query's hits and the prefix it searched are kept, and
//! recall is computed after the run, so the measured cores only insert and search.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use xvec::{Collection, Doc, Query};

use crate::phases::{BenchError, Progress, engine};
use crate::source::Vectors;
use crate::sys;

/// What the run needs: the collection, the rows to insert and how.
pub(crate) struct Load<'a> {
    pub coll: &'a Collection,
    pub base: &'a Vectors,
    pub queries: &'a [Query],
    pub batch: usize,
    /// Rows per second; `None`: no pacing.
    pub rate: Option<f64>,
    pub flush_every: usize,
    pub search_threads: usize,
    pub window: Duration,
    pub hold_snapshot: bool,
    pub optimize_at: Option<u64>,
}

/// One insert call returned: `total` rows acknowledged `at` seconds from the start.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Ack {
    pub at: f64,
    pub total: u64,
}

/// One query: when it finished, how long it took, which one, the rows it saw, its hits
/// (base rows).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Search {
    pub at: f64,
    pub latency_ns: u64,
    pub query: usize,
    pub visible: u64,
    pub found: Vec<u32>,
}

/// Memory at a window end.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Sample {
    pub rss_mib: Option<f64>,
    pub engine_bytes: u64,
}

/// Everything a run recorded, in time order.
#[derive(Clone, Debug, Default)]
pub(crate) struct Recorded {
    pub acks: Vec<Ack>,
    /// When each flush ended.
    pub flushes: Vec<f64>,
    pub searches: Vec<Search>,
    /// `samples[i]`: at the end of window `i`, for the windows that ended before the
    /// last acknowledgement (all of them unless the monitor woke late).
    pub samples: Vec<Sample>,
    /// Taken right after the last acknowledgement: the last window's.
    pub last_sample: Option<Sample>,
    /// From the start to the last acknowledgement.
    pub ingest_sec: f64,
    /// When the `optimize_at` optimize started and ended.
    pub optimize: Option<(f64, f64)>,
}

fn secs(t0: Instant) -> f64 {
    t0.elapsed().as_secs_f64()
}

fn sample(coll: &Collection) -> Sample {
    Sample { rss_mib: sys::rss().map(|r| r.rss_mib), engine_bytes: coll.memory().total() }
}

/// Runs the insert and the searches until every row is in.
pub(crate) fn drive(l: &Load, progress: &mut dyn Progress) -> Result<Recorded, BenchError> {
    let stop = AtomicBool::new(false);
    let acked = AtomicU64::new(0);
    let t0 = Instant::now();
    std::thread::scope(|s| {
        let ingest = s.spawn(|| {
            let r = insert_all(l, t0, &stop, &acked);
            stop.store(true, Ordering::Release);
            r
        });
        let searchers: Vec<_> = (0..l.search_threads)
            .map(|t| {
                let (stop, acked) = (&stop, &acked);
                s.spawn(move || {
                    let r = search_loop(l, t, t0, stop, acked);
                    if r.is_err() {
                        stop.store(true, Ordering::Release);
                    }
                    r
                })
            })
            .collect();
        let optimizer = l.optimize_at.map(|at| {
            let (stop, acked) = (&stop, &acked);
            s.spawn(move || optimize_at(l, at, t0, stop, acked))
        });
        let samples = monitor(l, t0, &stop, &acked, progress);
        let (acks, flushes, ingest_sec) = join(ingest)?;
        let optimize = match optimizer {
            Some(h) => join(h)?,
            None => None,
        };
        let last_sample = Some(sample(l.coll));
        let mut searches = Vec::new();
        for h in searchers {
            searches.extend(join(h)?);
        }
        searches.sort_by(|a: &Search, b: &Search| a.at.total_cmp(&b.at));
        Ok(Recorded { acks, flushes, searches, samples, last_sample, ingest_sec, optimize })
    })
}

fn join<T>(h: std::thread::ScopedJoinHandle<'_, T>) -> T {
    match h.join() {
        Ok(r) => r,
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

/// The insert thread: batches in dataset order, keys the row numbers, each batch held
/// back until its first row is due at the target rate.
fn insert_all(
    l: &Load,
    t0: Instant,
    stop: &AtomicBool,
    acked: &AtomicU64,
) -> Result<(Vec<Ack>, Vec<f64>, f64), BenchError> {
    let rows = l.base.len();
    let mut acks = Vec::with_capacity(rows / l.batch + 1);
    let mut flushes = Vec::new();
    let mut scratch = Vec::new();
    let mut since_flush = 0;
    let mut held = None;
    for start in (0..rows).step_by(l.batch) {
        if stop.load(Ordering::Acquire) {
            break;
        }
        if let Some(rate) = l.rate {
            let due = Duration::from_secs_f64(start as f64 / rate);
            if let Some(wait) = due.checked_sub(t0.elapsed()) {
                std::thread::sleep(wait);
            }
        }
        let end = (start + l.batch).min(rows);
        let docs: Vec<Doc> =
            (start..end).map(|i| Doc::new(i.to_string()).set("emb", l.base.row(i, &mut scratch).to_vec())).collect();
        let results = l.coll.insert(docs).map_err(engine("insert"))?;
        if let Some((j, Err(e))) = results.iter().enumerate().find(|(_, r)| r.is_err()) {
            return Err(BenchError::Invalid(format!("insert: base row {}: {e}", start + j)));
        }
        acked.store(end as u64, Ordering::Release);
        acks.push(Ack { at: secs(t0), total: end as u64 });
        if l.hold_snapshot {
            held = Some(l.coll.snapshot());
        }
        l.base.release(start..end);
        since_flush += end - start;
        if l.flush_every > 0 && since_flush >= l.flush_every {
            l.coll.flush().map_err(engine("flush"))?;
            flushes.push(secs(t0));
            since_flush = 0;
        }
    }
    drop(held);
    let done = acks.last().map_or(0.0, |a| a.at);
    Ok((acks, flushes, done))
}

/// The optimizer thread: once `at` rows are in, one optimize with one build thread; its
/// start and end. None when the insert ended first.
fn optimize_at(
    l: &Load,
    at: u64,
    t0: Instant,
    stop: &AtomicBool,
    acked: &AtomicU64,
) -> Result<Option<(f64, f64)>, BenchError> {
    while acked.load(Ordering::Acquire) < at {
        if stop.load(Ordering::Acquire) {
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let start = secs(t0);
    l.coll.optimize(&xvec::OptimizeOptions::default().concurrency(1)).map_err(engine("optimize"))?;
    Ok(Some((start, secs(t0))))
}

/// A search thread: waits for the first rows, then runs the queries round-robin from its
/// own starting point until the insert is done. Each query takes the newest snapshot;
/// its count is the prefix it searches (rows arrive in order and nothing is deleted).
fn search_loop(
    l: &Load,
    t: usize,
    t0: Instant,
    stop: &AtomicBool,
    acked: &AtomicU64,
) -> Result<Vec<Search>, BenchError> {
    let mut out = Vec::new();
    let mut i = t * l.queries.len() / l.search_threads;
    while acked.load(Ordering::Acquire) == 0 && !stop.load(Ordering::Acquire) {
        std::thread::sleep(Duration::from_millis(1));
    }
    while !stop.load(Ordering::Acquire) {
        let start = Instant::now();
        let snap = l.coll.snapshot();
        let visible = snap.count();
        let hits = snap.query(&l.queries[i]).map_err(engine("streaming search"))?;
        let latency_ns = start.elapsed().as_nanos() as u64;
        drop(snap);
        let found = hits
            .iter()
            .map(|h| h.key.parse::<u32>().map_err(|_| BenchError::Invalid(format!("unexpected key '{}'", h.key))))
            .collect::<Result<Vec<u32>, _>>()?;
        out.push(Search { at: secs(t0), latency_ns, query: i, visible, found });
        i = (i + 1) % l.queries.len();
    }
    Ok(out)
}

/// This thread: progress, and memory at every window end until the insert is done. The
/// engine's figure needs the writer's lock for a moment, so a sample waits for the insert
/// call or flush in progress.
fn monitor(l: &Load, t0: Instant, stop: &AtomicBool, acked: &AtomicU64, progress: &mut dyn Progress) -> Vec<Sample> {
    let mut samples = Vec::new();
    loop {
        let due = l.window * (samples.len() as u32 + 1);
        while !stop.load(Ordering::Acquire) {
            let Some(left) = due.checked_sub(t0.elapsed()).filter(|d| !d.is_zero()) else { break };
            std::thread::sleep(left.min(Duration::from_millis(50)));
            progress.set(acked.load(Ordering::Acquire));
        }
        if stop.load(Ordering::Acquire) {
            return samples;
        }
        samples.push(sample(l.coll));
    }
}
