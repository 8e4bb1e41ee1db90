//! `xvec bench --streaming`, after VectorDBBench's streaming cases: the base goes into a
//! fresh collection in batches, in dataset order, at a target rate, while search threads
//! run the query set against the same collection; throughput, latency, recall and memory
//! are reported per window of time and in total.
//!
//! Phases: dataset → prefix ground truth (before anything is measured, see
//! [`crate::prefix_truth`]) → create → streaming ([`drive`]) → close. Recall of each
//! query is against the exact top-k of the rows its snapshot held.

mod drive;
pub mod export;
pub mod report;
mod windows;

use std::time::Instant;

use xvec::Collection;

use crate::config::{BenchConfig, SearchPoint, StreamConfig};
use crate::phases::{BenchError, CollectionDir, PhaseLog, Progress, Sitting, engine, open_dataset, queries, schema};
use crate::prefix_truth::PrefixTruth;
use crate::report::{ConfigReport, CpuReport, DatasetReport, EngineMemory, FORMAT, SCHEMA_VERSION};
use crate::sys;
use report::{StreamConfigReport, StreamReport, Streaming};

/// Runs the streaming benchmark: `cfg` gives the dataset, index, k, search parameters and
/// batch size, `stream` the rest. `command` is recorded in the report as given.
pub fn run(
    cfg: &BenchConfig,
    stream: &StreamConfig,
    command: Option<String>,
    progress: &mut dyn Progress,
) -> Result<StreamReport, BenchError> {
    if cfg.k == 0 || cfg.batch_size == 0 {
        return Err(BenchError::Invalid("k and batch size must be at least 1".into()));
    }
    if cfg.skip_load {
        return Err(BenchError::Invalid("--streaming loads a fresh collection: it cannot --skip-load".into()));
    }
    stream.check().map_err(BenchError::Invalid)?;
    let sitting = Sitting::begin();
    let mut log = PhaseLog::default();
    let mut notes = Vec::new();

    let (ds, total_rows, vectors) = open_dataset(cfg, &mut log, progress)?;
    if vectors.is_empty() {
        return Err(BenchError::Invalid(format!("{}: no queries", ds.queries_file)));
    }
    log.begin("ground truth");
    progress.begin("ground truth", 0, "queries");
    let t = Instant::now();
    let truth = PrefixTruth::compute(&ds.base, &vectors, cfg.metric, cfg.k, cfg.truth_threads);
    let truth_sec = t.elapsed().as_secs_f64();
    let per_query = truth.recorded() as f64 / vectors.len() as f64;
    let msg = format!(
        "prefix ground truth computed: one brute-force pass over {} base vectors in insert order with the {} kernels, \
         k = {}, {per_query:.1} rows per query recorded, {truth_sec:.1} s; each query is scored against the exact \
         top-k of the rows its snapshot held",
        ds.base.len(),
        xvec::kernels::best().isa,
        cfg.k
    );
    progress.end(&msg);
    notes.push(msg);
    log.end();
    // The pass touched every page of the base: drop them, so RSS during the run counts
    // only the batches being inserted.
    ds.base.release(0..ds.base.len());

    let dataset = DatasetReport::new(&ds, total_rows, vectors.len(), cfg.k, Some(truth_sec));
    let schema = schema(cfg, &ds)?;
    let dir = CollectionDir::new(cfg.path.as_deref(), false)?;
    log.begin("create");
    let options = xvec::CollectionOptions::default().auto_flush_rows(stream.auto_flush_rows);
    let coll = Collection::create(dir.path(), schema, options).map_err(engine("create"))?;
    log.end();

    let queries = queries(
        cfg,
        &vectors,
        SearchPoint { ef: cfg.ef, refine: cfg.refine, nprobe: cfg.nprobe, beam_width: cfg.beam_width },
    );
    let load = drive::Load {
        coll: &coll,
        base: &ds.base,
        queries: &queries,
        batch: cfg.batch_size,
        rate: stream.rate,
        flush_every: stream.flush_every,
        search_threads: stream.search_threads,
        window: stream.window,
        hold_snapshot: stream.hold_snapshot,
        optimize_at: stream.optimize_at,
    };
    log.begin("streaming");
    progress.begin("streaming", ds.base.len() as u64, "rows");
    let recorded = drive::drive(&load, progress)?;
    let (windows, totals) = windows::summarize(&recorded, &truth, cfg.k, stream.window.as_secs_f64());
    progress.end(&format!(
        "streamed {} rows in {:.2} s ({:.0} rows/s) under {} queries ({:.1} QPS, p99 {:.3} ms), recall@{} {}",
        totals.rows,
        totals.duration_sec,
        totals.rows_per_sec,
        totals.queries,
        totals.qps,
        totals.latency.latency_p99_ms,
        cfg.k,
        totals.recall.map_or_else(|| "-".to_string(), |r| format!("{r:.4}"))
    ));
    log.end();
    drop(ds);
    let engine_memory = EngineMemory::from(coll.memory());
    log.begin("close");
    coll.close().map_err(engine("close"))?;
    log.end();
    let disk_bytes = sys::dir_bytes(dir.path());
    drop(dir);

    let usage = sys::usage();
    let peak_rss_mib = log.peak_rss_mib(usage.as_ref(), &mut notes);
    Ok(StreamReport {
        schema_version: SCHEMA_VERSION,
        format: FORMAT,
        started_at: sitting.started_at.clone(),
        finished_at: sys::utc_now(),
        command,
        dataset,
        config: ConfigReport::new(cfg),
        system: sitting.system_report(),
        streaming: Streaming {
            config: StreamConfigReport {
                rate_rows_per_sec: stream.rate,
                batch_size: cfg.batch_size as u64,
                search_threads: stream.search_threads as u64,
                window_sec: stream.window.as_secs_f64(),
                flush_every: stream.flush_every as u64,
                hold_snapshot: stream.hold_snapshot,
                auto_flush_rows: stream.auto_flush_rows,
                optimize_at: stream.optimize_at,
                truth_rows_per_query: per_query,
            },
            windows,
            totals,
        },
        peak_rss_mib,
        phases: log.done,
        engine_memory,
        disk_bytes,
        cpu: CpuReport { user_sec: usage.map(|u| u.user_sec), sys_sec: usage.map(|u| u.sys_sec) },
        notes,
    })
}
