//! Background maintenance: fresh rows get indexed and merged without an optimize, the
//! segment count stays within its bound, and nothing written is lost meanwhile.

use std::time::{Duration, Instant};

use crate::schema::{Field, HnswParams, IndexParams, Metric, ScalarType, Schema, VectorType};
use crate::{Collection, CollectionOptions, Doc, Query};

const DIM: usize = 16;

fn vector(i: usize) -> Vec<f32> {
    // Distinct, spread points: each row is its own nearest neighbour.
    (0..DIM).map(|j| (((i * 2654435761 + j * 40503) % 10007) as f32) / 10007.0).collect()
}

fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < Duration::from_secs(60), "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn fresh_rows_are_indexed_and_merged_in_the_background() {
    let dir = tempfile::tempdir().unwrap();
    let hnsw = IndexParams::Hnsw(HnswParams::default().m(8));
    let schema = Schema::builder("bg")
        .field(Field::scalar("n", ScalarType::Int64))
        .field(Field::vector("v", VectorType::Fp32, DIM as u32, Metric::L2).index(hnsw))
        .build()
        .unwrap();
    let (flush, mf) = (500u64, 3u32);
    // Tiers alone: idle-time optimizing would merge them away (tested below).
    let options = CollectionOptions::default().auto_flush_rows(flush).merge_factor(mf).idle_optimize_ms(0);
    let coll = Collection::create(dir.path(), schema, options.clone()).unwrap();
    let n = 6000;
    for b in 0..n / 100 {
        let docs =
            (b * 100..b * 100 + 100).map(|i| Doc::new(format!("k{i:05}")).set("n", i as i64).set("v", vector(i)));
        assert!(coll.insert(docs.collect()).unwrap().iter().all(|r| r.is_ok()));
        if b % 7 == 3 {
            coll.delete(&[&format!("k{:05}", b * 100 + 1)]).unwrap();
        }
    }
    let deleted = (0..n / 100).filter(|b| b % 7 == 3).count() as u64;
    assert_eq!(coll.count(), n as u64 - deleted);
    // Everything but the open memtable gets indexed, and tiers get merged.
    wait_until("the backlog to drain", || settled(&coll, &options, 0));
    let s = coll.stats();
    assert_eq!(s.unindexed_rows, s.mem_rows);
    assert!(s.segments.len() <= bound(n as u64, flush, mf), "{:?}", s.segments);
    assert!(s.background_jobs > 0 && s.background_error.is_none(), "{s:?}");
    assert!(s.mem_rows < flush, "auto-flush keeps the memtable under {flush} rows: {}", s.mem_rows);
    assert_eq!(coll.count(), n as u64 - deleted);
    // Every live row is found by its own vector, through the indexes.
    for i in (0..n).step_by(37) {
        let hits = coll.query(&Query::vector(vector(i)).k(1)).unwrap();
        let deleted_row = (i % 100 == 1) && (i / 100) % 7 == 3;
        if !deleted_row {
            assert_eq!(hits[0].key, format!("k{i:05}"), "row {i}");
        } else {
            assert_ne!(hits[0].key, format!("k{i:05}"), "deleted row {i} came back");
        }
    }
    // Reopened, the same.
    drop(coll);
    let coll = Collection::open(dir.path(), &crate::OpenOptions::writable()).unwrap();
    assert_eq!(coll.count(), n as u64 - deleted);
}

fn drained(coll: &Collection, options: &CollectionOptions) -> bool {
    let snap = coll.snapshot();
    snap.frozen.is_none() && super::background::next_job(&snap, options).is_none()
}

/// [`drained`], and the background idle with more than `jobs` jobs counted: a job's
/// result is published before the job is counted (and its low-memory builds before it
/// goes idle), so a test that reads the counters waits for them too.
fn settled(coll: &Collection, options: &CollectionOptions, jobs: u64) -> bool {
    let s = coll.stats();
    drained(coll, options) && !s.background_busy && s.background_jobs > jobs
}

#[test]
fn a_memory_threshold_alone_flushes_and_indexes_in_the_background() {
    let dir = tempfile::tempdir().unwrap();
    let hnsw = IndexParams::Hnsw(HnswParams::default().m(8));
    let schema = Schema::builder("bytes")
        .field(Field::vector("v", VectorType::Fp32, DIM as u32, Metric::L2).index(hnsw))
        .build()
        .unwrap();
    let limit = 64 << 10;
    let options = CollectionOptions::default().auto_flush_bytes(limit).idle_optimize_ms(0);
    let flush_rows = super::background::flush_rows(&options, &schema);
    let coll = Collection::create(dir.path(), schema, options.clone()).unwrap();
    assert_eq!(coll.options().auto_flush_bytes, limit);
    let (n, batch) = (3000, 100);
    for b in 0..n / batch {
        let docs = (b * batch..b * batch + batch).map(|i| Doc::new(format!("k{i:05}")).set("v", vector(i)));
        coll.insert(docs.collect()).unwrap();
        // Writes wait once four flushes' worth of rows is unindexed; a busy machine (the
        // flusher not scheduled for a while) may get the memtable that far plus the batch
        // that crossed the line, never further.
        let rows = coll.snapshot().mem.len() as u64;
        assert!(
            rows <= 4 * flush_rows + batch as u64,
            "the memtable stays within four flushes of {flush_rows} rows: {rows}"
        );
    }
    wait_until("the backlog to drain", || drained(&coll, &options));
    let s = coll.stats();
    assert!(s.segments.len() > 1 && s.unindexed_rows == s.mem_rows, "{s:?}");
    assert_eq!(coll.count(), n as u64);
    for i in (0..n).step_by(41) {
        assert_eq!(coll.query(&Query::vector(vector(i)).k(1)).unwrap()[0].key, format!("k{i:05}"), "row {i}");
    }
    drop(coll);
    let coll = Collection::open(dir.path(), &crate::OpenOptions::read_only()).unwrap();
    assert_eq!((coll.count(), coll.options().auto_flush_bytes), (n as u64, limit));
}

#[test]
fn an_idle_collection_ends_flushed_and_merged_like_an_optimize() {
    let dir = tempfile::tempdir().unwrap();
    let hnsw = IndexParams::Hnsw(HnswParams::default().m(8));
    let schema = Schema::builder("idle")
        .field(Field::vector("v", VectorType::Fp32, DIM as u32, Metric::L2).index(hnsw))
        .build()
        .unwrap();
    let options = CollectionOptions::default().auto_flush_rows(400).merge_factor(10).idle_optimize_ms(200);
    let coll = Collection::create(dir.path(), schema, options).unwrap();
    let n = 2950;
    for b in 0..n / 50 {
        let docs = (b * 50..b * 50 + 50).map(|i| Doc::new(format!("k{i:05}")).set("v", vector(i)));
        coll.insert(docs.collect()).unwrap();
    }
    coll.delete(&["k00007"]).unwrap();
    // Tiers alone would leave 7 segments of 400 rows and 150 rows in the memtable.
    wait_until("idle-time optimizing", || {
        let s = coll.stats();
        s.segments.len() == 1 && s.mem_rows == 0 && s.frozen_rows == 0 && s.unindexed_rows == 0
    });
    wait_until("the threads to go quiet", || !coll.stats().background_busy);
    let s = coll.stats();
    assert_eq!((s.live_docs, s.deleted_docs), (n as u64 - 1, 0), "{s:?}");
    for i in (0..n).step_by(29).filter(|&i| i != 7) {
        assert_eq!(coll.query(&Query::vector(vector(i)).k(1)).unwrap()[0].key, format!("k{i:05}"), "row {i}");
    }
    // Idle and optimal: no more jobs.
    let jobs = coll.stats().background_jobs;
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(coll.stats().background_jobs, jobs);
}

/// The segment-count bound the background merges keep once drained.
fn bound(rows: u64, flush: u64, mf: u32) -> usize {
    let tiers = (rows / flush).max(1).ilog(mf as u64) as usize + 1;
    (mf as usize - 1) * tiers
}

#[test]
fn backpressure_gives_way_when_the_maintenance_thread_fails_or_stops() {
    use std::sync::atomic::AtomicBool;
    let status = super::background::Status::default();
    let (running, stopped) = (AtomicBool::new(false), AtomicBool::new(true));
    // Over the bound, the thread stopped: no wait.
    status.wait_for_backlog(&stopped, || true);
    // Over the bound, the thread's last job failed: no wait either.
    status.record_error(&crate::Error::Cancelled);
    status.wait_for_backlog(&running, || true);
    // Under the bound: no wait, nothing counted.
    status.wait_for_backlog(&running, || false);
    assert_eq!(status.stall_ms.load(std::sync::atomic::Ordering::Relaxed), 0);
}

/// Paused, maintenance starts no job and writes stop waiting for the backlog; a pause
/// while a job runs leaves nothing behind; resumed (with two build threads), the backlog
/// drains.
#[test]
fn paused_maintenance_starts_no_job_and_resumed_drains_the_backlog() {
    let dir = tempfile::tempdir().unwrap();
    let hnsw = IndexParams::Hnsw(HnswParams::default().m(8));
    let schema = Schema::builder("bg")
        .field(Field::vector("v", VectorType::Fp32, DIM as u32, Metric::L2).index(hnsw))
        .build()
        .unwrap();
    let flush = 500u64;
    let options = CollectionOptions::default().auto_flush_rows(flush).idle_optimize_ms(0);
    let open = crate::OpenOptions::writable().maintenance_threads(2);
    drop(Collection::create(dir.path(), schema, options.clone()).unwrap());
    let coll = std::sync::Arc::new(Collection::open(dir.path(), &open).unwrap());
    assert!(coll.pause_maintenance());
    assert!(coll.stats().maintenance_paused);
    // Three times the backlog bound (4 flushes): writes would wait forever if they
    // waited for a paused thread.
    let n = 6_000;
    let (done, finished) = std::sync::mpsc::channel();
    let writer = coll.clone();
    std::thread::spawn(move || {
        for b in 0..n / 100 {
            let docs = (b * 100..b * 100 + 100).map(|i| Doc::new(format!("k{i:05}")).set("v", vector(i)));
            writer.insert(docs.collect()).unwrap();
        }
        done.send(()).unwrap();
    });
    finished.recv_timeout(Duration::from_secs(60)).expect("writes went on while maintenance was paused");
    // Every frozen memtable is flushed. A loaded machine lets the live one grow past the
    // threshold while the flush before it runs, and a full memtable freezes on the next
    // write, so the rows end in fewer than 12 segments and a memtable of any size.
    wait_until("the auto-flushes", || {
        let s = coll.stats();
        let flushed: u64 = s.segments.iter().map(|g| g.rows).sum();
        s.frozen_rows == 0 && s.segments.len() >= 2 && flushed + s.mem_rows == n as u64
    });
    std::thread::sleep(Duration::from_millis(300));
    let s = coll.stats();
    assert_eq!((s.background_jobs, s.unindexed_rows), (0, n as u64), "{s:?}");

    // Resumed; paused again while a job runs (or right after one): nothing is left behind.
    assert!(coll.resume_maintenance());
    wait_until("a job to start", || coll.stats().background_busy || coll.stats().background_jobs > 0);
    coll.pause_maintenance();
    wait_until("the job to stop", || !coll.stats().background_busy);
    let jobs = coll.stats().background_jobs;
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(coll.stats().background_jobs, jobs, "a job started while paused");
    let report = crate::verify::run(dir.path(), &crate::verify::VerifyOptions::default()).unwrap();
    let problems: Vec<_> = (report.findings.iter())
        .filter(|f| f.severity.is_problem() || f.severity == crate::verify::Severity::Warning)
        .collect();
    assert!(problems.is_empty(), "{problems:#?}");
    let stray: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|f| f.ends_with(".tmp"))
        .collect();
    assert!(stray.is_empty(), "{stray:?}");

    coll.resume_maintenance();
    wait_until("the backlog to drain", || settled(&coll, &options, jobs));
    let s = coll.stats();
    assert!(s.background_jobs > jobs && s.background_error.is_none() && !s.maintenance_paused, "{s:?}");
    assert_eq!(s.unindexed_rows, s.mem_rows);
    assert_eq!(coll.count(), n as u64);
}

/// Explicit flushes racing writes that freeze full memtables: each flush finishes the
/// flush a write froze before freezing its own, and nothing is lost.
#[test]
fn explicit_flushes_racing_automatic_ones_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let schema =
        Schema::builder("race").field(Field::vector("v", VectorType::Fp32, DIM as u32, Metric::L2)).build().unwrap();
    let options = CollectionOptions::default().auto_flush_rows(50).idle_optimize_ms(0);
    let coll = std::sync::Arc::new(Collection::create(dir.path(), schema, options).unwrap());
    let writer = coll.clone();
    let writes = std::thread::spawn(move || {
        for b in 0..400 {
            let docs = (b * 10..b * 10 + 10).map(|i| Doc::new(format!("k{i:05}")).set("v", vector(i)));
            writer.insert(docs.collect()).unwrap();
        }
    });
    while !writes.is_finished() {
        coll.flush().unwrap();
    }
    writes.join().unwrap();
    coll.flush().unwrap();
    assert_eq!(coll.count(), 4_000);
    let s = coll.stats();
    assert!(s.background_error.is_none() && s.mem_rows == 0, "{s:?}");
}

#[test]
fn a_memtable_filled_while_a_flush_runs_is_flushed_without_a_further_write() {
    let dir = tempfile::tempdir().unwrap();
    let schema =
        Schema::builder("late").field(Field::vector("v", VectorType::Fp32, DIM as u32, Metric::L2)).build().unwrap();
    let flush = 300;
    let options = CollectionOptions::default().auto_flush_rows(flush).idle_optimize_ms(0);
    let coll = Collection::create(dir.path(), schema, options).unwrap();
    let insert = |from: usize, n: usize| {
        let docs = (from..from + n).map(|i| Doc::new(format!("k{i:05}")).set("v", vector(i)));
        assert!(coll.insert(docs.collect()).unwrap().iter().all(|r| r.is_ok()));
    };
    {
        // The flusher waits for this lock: the first batch freezes, the rest fill the
        // live memtable past the threshold while that flush is pending.
        let _flush_held = coll.flushing.lock().unwrap();
        insert(0, flush as usize);
        assert!(coll.snapshot().frozen.is_some());
        insert(flush as usize, 2 * flush as usize);
        assert_eq!(coll.snapshot().mem.len() as u64, 2 * flush);
    }
    // No write follows: the flusher itself freezes and writes the full memtable.
    wait_until("the full memtable to be flushed", || {
        let snap = coll.snapshot();
        snap.frozen.is_none() && snap.mem.len() == 0
    });
    assert_eq!(coll.count(), 3 * flush);
    assert_eq!(coll.stats().segments.len(), 2);
}

/// Background jobs build disk indexes under the handle's memory budget as `optimize` does:
/// rows that do not fit it are linked from their int8 codes alone (and still found).
#[test]
fn background_jobs_build_disk_indexes_under_the_memory_budget() {
    let built = |budget: Option<u64>| {
        let dir = tempfile::tempdir().unwrap();
        let disk = IndexParams::Disk(crate::schema::DiskParams::default());
        let field = Field::vector("v", VectorType::Fp32, DIM as u32, Metric::L2).index(disk);
        let schema = Schema::builder("bg").field(field).build().unwrap();
        let options = CollectionOptions::default().auto_flush_rows(200).idle_optimize_ms(0);
        Collection::create(dir.path(), schema, options.clone()).unwrap();
        let open = crate::OpenOptions::writable();
        let coll = Collection::open(dir.path(), &budget.map_or(open.clone(), |b| open.memory_budget(b))).unwrap();
        let docs = (0..600).map(|i| Doc::new(format!("k{i:03}")).set("v", vector(i)));
        assert!(coll.insert(docs.collect()).unwrap().iter().all(|r| r.is_ok()));
        wait_until("the backlog to drain", || settled(&coll, &options, 0) && coll.stats().unindexed_rows == 0);
        for i in (0..600).step_by(41) {
            assert_eq!(coll.query(&Query::vector(vector(i)).k(1)).unwrap()[0].key, format!("k{i:03}"), "row {i}");
        }
        let s = coll.stats();
        assert!(s.background_jobs > 0 && s.background_error.is_none(), "{s:?}");
        s.background_low_memory_builds
    };
    assert_eq!(built(None), 0);
    assert!(built(Some(4096)) > 0);
}
