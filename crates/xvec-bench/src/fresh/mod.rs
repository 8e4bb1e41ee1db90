//! `xvec bench --fresh FRACTION`: what fresh rows cost a query, right after they arrive
//! and once background maintenance has indexed them, against a fully indexed collection
//! of the same rows.
//!
//! Phases: dataset → ground truth (the dataset's, or computed, as the normal mode) →
//! baseline: create, insert every base row, optimize, one search pass → fresh: a second
//! collection with `auto_flush_rows`, the first `1 − FRACTION` of the base inserted and
//! optimized, then the rest inserted as fast as the engine takes it (background
//! maintenance meanwhile, backpressure included) and flushed → "after": one search pass
//! at once, the background still working → drain ([`drain`]) → "drained": one search
//! pass → `--repeat − 1` more baseline and drained passes, interleaved. Both collections
//! live under the bench's collection directory (`baseline/`, `fresh/`); one is searched
//! at a time.
//!
//! A search pass ([`pass`]) runs every search setting serially over every query with
//! recall@k against the exact ground truth; [`summary`] takes the medians and compares
//! the states at the target recall.

mod drain;
pub mod export;
mod pass;
pub mod report;
pub mod summary;

use std::time::Instant;

use xvec::{Collection, CollectionOptions, OpenOptions};

use crate::config::{BenchConfig, FreshConfig, SearchPoint};
use crate::phases::{
    BenchError, CollectionDir, LoadSpec, PhaseLog, Progress, Sitting, engine, ground_truth, insert_rows, load_open,
    open_dataset,
};
use crate::report::{ConfigReport, CpuReport, DatasetReport, EngineMemory, FORMAT, LoadReport, SCHEMA_VERSION};
use crate::source::Dataset;
use crate::sys;
use pass::Searches;
use report::{Backlog, Fresh, FreshConfigReport, FreshLoad, FreshReport, PassReport, State, StateReport};

/// Runs the fresh-rows benchmark: `cfg` gives the dataset, index, k, search settings
/// (`--sweep`), warm-up and batch size, `fresh` the rest. `command` is recorded in the
/// report as given.
pub fn run(
    cfg: &BenchConfig,
    fresh: &FreshConfig,
    command: Option<String>,
    progress: &mut dyn Progress,
) -> Result<FreshReport, BenchError> {
    if cfg.k == 0 || cfg.batch_size == 0 {
        return Err(BenchError::Invalid("k and batch size must be at least 1".into()));
    }
    if cfg.skip_load {
        return Err(BenchError::Invalid("--fresh loads two new collections: it cannot --skip-load".into()));
    }
    fresh.check().map_err(BenchError::Invalid)?;
    let sitting = Sitting::begin();
    let mut log = PhaseLog::default();
    let mut notes = Vec::new();

    let (ds, total_rows, vectors) = open_dataset(cfg, &mut log, progress)?;
    if vectors.is_empty() {
        return Err(BenchError::Invalid(format!("{}: no queries", ds.queries_file)));
    }
    let rows = ds.base.len();
    let (indexed_rows, fresh_rows) = fresh.split(rows).ok_or_else(|| {
        BenchError::Invalid(format!("--fresh {} of {rows} base rows leaves one of the two parts empty", fresh.fraction))
    })?;
    let (truth, gt_seconds) = ground_truth(cfg, &ds, &vectors, &mut log, &mut notes, progress)?;
    let dataset = DatasetReport::new(&ds, total_rows, vectors.len(), truth.k, gt_seconds);
    let root = CollectionDir::new(cfg.path.as_deref(), false)?;
    std::fs::create_dir_all(root.path())
        .map_err(|source| BenchError::Io { path: root.path().display().to_string(), source })?;
    let open = cfg.budgeted(OpenOptions::writable().mmap(cfg.mmap));
    let searches = Searches { cfg, vectors: &vectors, truth: &truth };
    let mut runs = Runs::default();

    let spec = LoadSpec {
        dir: &root.path().join("baseline"),
        options: CollectionOptions::default(),
        open: open.clone(),
        rows: 0..rows,
        label: "baseline ",
    };
    let (baseline, baseline_load) = load_open(cfg, &ds, &spec, &mut log, progress)?;
    runs.measure(&baseline, &searches, State::Baseline, &mut log, progress)?;

    let options = CollectionOptions::default().auto_flush_rows(fresh.auto_flush_rows).merge_factor(fresh.merge_factor);
    let spec = LoadSpec { dir: &root.path().join("fresh"), options, open, rows: 0..indexed_rows, label: "fresh " };
    let (coll, indexed) = load_open(cfg, &ds, &spec, &mut log, progress)?;
    let (fresh_load, last_insert) =
        insert_fresh(&coll, &ds, indexed_rows..rows, cfg.batch_size, indexed, &mut log, progress)?;
    // The base is not needed any more: its pages must not count in the searches' RSS.
    drop(ds);

    runs.measure(&coll, &searches, State::After, &mut log, progress)?;
    log.begin("drain");
    let drain = drain::wait(&coll, last_insert, fresh_load.at_last_insert, progress)?;
    log.end();
    runs.measure(&coll, &searches, State::Drained, &mut log, progress)?;
    for _ in 1..fresh.repeat {
        runs.measure(&baseline, &searches, State::Baseline, &mut log, progress)?;
        runs.measure(&coll, &searches, State::Drained, &mut log, progress)?;
    }

    notes.extend(method_notes(fresh, &fresh_load));
    let points = cfg.search_points();
    let states: Vec<StateReport> = State::ALL.iter().map(|&s| runs.state(s, &points)).collect();
    let at_target = summary::at_target(&states, fresh.target_recall);
    let engine_memory = EngineMemory::from(coll.memory());
    log.begin("close");
    coll.close().map_err(engine("close"))?;
    baseline.close().map_err(engine("close"))?;
    log.end();
    let disk_bytes = sys::dir_bytes(root.path());
    drop(root);

    let usage = sys::usage();
    let peak_rss_mib = log.peak_rss_mib(usage.as_ref(), &mut notes);
    Ok(FreshReport {
        schema_version: SCHEMA_VERSION,
        format: FORMAT,
        started_at: sitting.started_at.clone(),
        finished_at: sys::utc_now(),
        command,
        dataset,
        config: ConfigReport::new(cfg),
        system: sitting.system_report(),
        fresh: Fresh {
            config: FreshConfigReport {
                fraction: fresh.fraction,
                indexed_rows: indexed_rows as u64,
                fresh_rows: fresh_rows as u64,
                batch_size: cfg.batch_size as u64,
                auto_flush_rows: fresh.auto_flush_rows,
                merge_factor: u64::from(fresh.merge_factor),
                target_recall: fresh.target_recall,
                repeat: fresh.repeat as u64,
            },
            baseline_load,
            fresh_load,
            drain,
            states,
            at_target,
        },
        peak_rss_mib,
        phases: log.done,
        engine_memory,
        disk_bytes,
        cpu: CpuReport { user_sec: usage.map(|u| u.user_sec), sys_sec: usage.map(|u| u.sys_sec) },
        notes,
    })
}

/// Inserts the fresh rows `range` into `coll` (its indexed part loaded as `indexed`
/// says), then flushes; what it took and when the last insert returned.
fn insert_fresh(
    coll: &Collection,
    ds: &Dataset,
    range: std::ops::Range<usize>,
    batch: usize,
    indexed: LoadReport,
    log: &mut PhaseLog,
    progress: &mut dyn Progress,
) -> Result<(FreshLoad, Instant), BenchError> {
    let stall_before = coll.stats().write_stall_ms;
    let rows = range.len();
    log.begin("fresh rows insert");
    progress.begin("fresh rows insert", rows as u64, "rows");
    let inserted = insert_rows(coll, ds, range, batch, progress)?;
    let stats = coll.stats();
    let at_last_insert = Backlog::of(&stats);
    let write_stall_ms = stats.write_stall_ms.saturating_sub(stall_before);
    progress.end(&format!(
        "inserted {rows} fresh rows in {:.2} s ({:.0} rows/s, {write_stall_ms} ms waiting for the index backlog); \
         {} rows unindexed, {} in the memtable, {} segments",
        inserted.total_sec,
        rows as f64 / inserted.total_sec,
        at_last_insert.unindexed_rows,
        at_last_insert.mem_rows,
        at_last_insert.segments
    ));
    log.end();

    log.begin("flush");
    let t = Instant::now();
    coll.flush().map_err(engine("flush"))?;
    let flush_sec = t.elapsed().as_secs_f64();
    log.end();
    let load = FreshLoad {
        indexed,
        insert_sec: inserted.total_sec,
        rows_per_sec: rows as f64 / inserted.total_sec,
        longest_insert_ms: inserted.longest_call_sec * 1e3,
        write_stall_ms,
        at_last_insert,
        flush_sec,
    };
    Ok((load, inserted.ended))
}

/// How the figures were taken, for whoever reads them.
fn method_notes(fresh: &FreshConfig, load: &FreshLoad) -> Vec<String> {
    let mut notes = vec![
        "every query goes through Collection::query on a writable handle (the newest snapshot per query), \
         in all three states; each search setting is one serial pass over every query after --warmup untimed ones"
            .to_string(),
        format!(
            "the after state is measured once, right after the last insert returned ({}); background maintenance \
             goes on during its passes (each setting's backlog at start and end is in the report), so later settings \
             may see fewer unindexed rows; its figures are one pass whatever --repeat says",
            match load.at_last_insert.mem_rows {
                0 => "its auto-flush left the memtable empty".to_string(),
                n => format!(
                    "and a flush ({:.3} s) moved the memtable's last {n} rows, fewer than auto_flush_rows, which no \
                     automatic flush takes, into a segment the background indexes",
                    load.flush_sec
                ),
            }
        ),
        format!(
            "drain_sec: from the last insert's return until no row was unindexed; idle_sec: until stats() showed no \
             flush or job running, no change, and the process used under a tenth of a core for {} s, when the \
             drained passes began",
            drain::QUIET
        ),
    ];
    if fresh.repeat > 1 {
        notes.push(format!(
            "baseline and drained: {} passes each, interleaved (the first baseline pass ran before the fresh \
             collection was loaded); their figures are the medians",
            fresh.repeat
        ));
    }
    notes
}

/// Every pass run, per state, in order: each pass one report per search setting.
#[derive(Default)]
struct Runs {
    passes: Vec<(State, Vec<PassReport>)>,
    round: [usize; 3],
}

impl Runs {
    /// One pass of `state` over `coll`, logged as a phase of its own.
    fn measure(
        &mut self,
        coll: &Collection,
        searches: &Searches,
        state: State,
        log: &mut PhaseLog,
        progress: &mut dyn Progress,
    ) -> Result<(), BenchError> {
        let round = &mut self.round[state as usize];
        *round += 1;
        log.begin(&format!("{} search {round}", state.name()));
        let pass = pass::pass(coll, searches, state, progress)?;
        log.end();
        self.passes.push((state, pass));
        Ok(())
    }

    /// `state`'s passes as one entry per search setting (`points`, in order).
    fn state(&self, state: State, points: &[SearchPoint]) -> StateReport {
        let passes: Vec<&Vec<PassReport>> = (self.passes.iter()).filter(|(s, _)| *s == state).map(|(_, p)| p).collect();
        let searches = (points.iter().enumerate())
            .map(|(i, &point)| summary::combine(point, passes.iter().map(|p| p[i].clone()).collect()))
            .collect();
        StateReport { state, searches }
    }
}
