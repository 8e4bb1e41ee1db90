//! Runs one benchmark, phase by phase, as the reference tool does: open the dataset →
//! ground truth (read, or computed) → create → insert in batches → optimize → close →
//! reopen read-only → per search setting: warm-up, a concurrent phase per thread count,
//! cool-down, a serial phase over every query with recall@k and nDCG@k.
//!
//! Every phase is timed and its RSS, VmHWM and CPU time recorded (`PhaseLog`). The
//! runner never prints: it reports progress through [`Progress`] and returns a
//! [`Report`]; the tool decides how either looks.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use half::f16;
use hdrhistogram::Histogram;

use super::config::{BenchConfig, SearchPoint, WarmupFrom};
use super::dataset::{DatasetError, GroundTruth, ndcg_at, recall_at};
use super::report::{
    ConcurrentReport, ConfigReport, CpuReport, DatasetReport, DiskReads, EngineMemory, FORMAT, Latency, LoadReport,
    PhaseReport, Report, SCHEMA_VERSION, SearchReport, SerialReport, SystemReport,
};
use super::source::Dataset;
use super::sys::{self, SystemInfo};
use xvec::{Collection, Doc, OpenOptions, OptimizeOptions, Query, Snapshot};

/// Why a benchmark stopped.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error(transparent)]
    Dataset(#[from] DatasetError),
    /// The engine refused or failed; `phase` says during what.
    #[error("{phase}: {source}")]
    Engine {
        phase: &'static str,
        #[source]
        source: xvec::Error,
    },
    /// The configuration does not fit the dataset or the collection.
    #[error("{0}")]
    Invalid(String),
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

pub(crate) fn engine(phase: &'static str) -> impl FnOnce(xvec::Error) -> BenchError {
    move |source| BenchError::Engine { phase, source }
}

/// Where the runner reports progress. Units: `"rows"`, `"queries"` or `"ms"` for timed
/// phases; a total of 0 means unknown.
pub trait Progress {
    fn begin(&mut self, phase: &str, total: u64, unit: &'static str);
    fn set(&mut self, done: u64);
    /// The phase is over; `summary` is one line about it.
    fn end(&mut self, summary: &str);
}

/// Runs the benchmark `cfg` describes. `command` is recorded in the report as given.
pub fn run(cfg: &BenchConfig, command: Option<String>, progress: &mut dyn Progress) -> Result<Report, BenchError> {
    if cfg.k == 0 || cfg.batch_size == 0 || cfg.concurrency.contains(&0) {
        return Err(BenchError::Invalid("k, batch size and every concurrency must be at least 1".into()));
    }
    let sitting = Sitting::begin();
    let mut log = PhaseLog::default();
    let mut notes = Vec::new();

    let (ds, total_rows, queries) = open_dataset(cfg, &mut log, progress)?;
    let truth = match &cfg.filter {
        None => Truth::Ready(ground_truth(cfg, &ds, &queries, &mut log, &mut notes, progress)?),
        Some(filter) => Truth::AfterLoad(filter),
    };
    let dir = CollectionDir::new(cfg.path.as_deref(), cfg.skip_load)?;
    let loaded = if cfg.skip_load { None } else { Some(load(cfg, &ds, dir.path(), &mut log, progress)?) };
    let (truth, gt_seconds, allowed) = match truth {
        Truth::Ready((truth, secs)) => (truth, secs, None),
        Truth::AfterLoad(filter) => {
            let (truth, secs, allowed) = filtered_truth(cfg, &ds, &queries, dir.path(), filter, &mut log, progress)?;
            notes.push(format!(
                "--filter {filter:?}: every query carries it; ground truth computed by brute force among the {allowed} \
                 base rows it allows ({:.2} %; the rows the engine's filter evaluation returns) in {secs:.1} s",
                100.0 * allowed as f64 / ds.base.len() as f64
            ));
            (truth, Some(secs), Some(allowed))
        }
    };
    let mut dataset = DatasetReport::new(&ds, total_rows, queries.len(), truth.k, gt_seconds);
    dataset.filter_rows = allowed.map(|n| n as u64);
    let warm_rows = warm_rows(cfg, &ds);
    // The base vectors are not needed any more: unmap them (or free them) so that the
    // search phases' RSS is the engine's and the queries', not the input file's.
    drop(ds);

    log.begin("open");
    let coll =
        Collection::open(dir.path(), &cfg.budgeted(OpenOptions::read_only().mmap(cfg.mmap))).map_err(engine("open"))?;
    log.end();
    let snap = coll.snapshot();
    let count = snap.count();
    if cfg.skip_load && count != dataset.rows {
        notes.push(format!(
            "the reused collection holds {count} documents, the dataset {}: recall is against the dataset's ground truth",
            dataset.rows
        ));
    }
    let load = loaded.unwrap_or(LoadReport {
        skipped: true,
        rows: count,
        insert_duration_sec: None,
        optimize_duration_sec: None,
        load_duration_sec: None,
        rows_per_second: None,
        optimize: "skipped (--skip-load)".into(),
        indexes_built: None,
        segments: None,
    });

    let points = cfg.search_points();
    let mut rounds: Vec<Vec<SearchReport>> = vec![Vec::new(); points.len()];
    for round in 1..=cfg.repeat.max(1) {
        for (point, done) in points.iter().zip(&mut rounds) {
            let setting = if cfg.sweep.is_some() { format!("{} ", point.label()) } else { String::new() };
            let label = if cfg.repeat > 1 { format!("round {round} {setting}") } else { setting };
            let pass = Pass { point: *point, label };
            let vectors = QueryVectors { measured: &queries, warm: warm_rows.as_deref() };
            done.push(search(cfg, &snap, vectors, &truth, pass, &mut log, progress)?);
        }
    }
    let searches: Vec<SearchReport> = rounds.into_iter().map(SearchReport::median_of).collect();
    let engine_memory = EngineMemory::from(coll.memory());
    drop(snap);
    drop(coll);
    let disk_bytes = sys::dir_bytes(dir.path());
    drop(dir);

    let usage = sys::usage();
    let peak_rss_mib = log.peak_rss_mib(usage.as_ref(), &mut notes);
    // From "open" on, the process is a read-only query process: the dataset is unmapped.
    let open_at = log.done.iter().position(|p| p.name == "open").unwrap_or(0);
    let query_peak_rss_mib = log.done[open_at..].iter().filter_map(|p| p.hwm_mib).fold(0.0, f64::max);
    let first = &searches[0];
    Ok(Report {
        schema_version: SCHEMA_VERSION,
        format: FORMAT,
        started_at: sitting.started_at.clone(),
        finished_at: sys::utc_now(),
        command,
        dataset,
        config: ConfigReport::new(cfg),
        system: sitting.system_report(),
        load,
        serial: first.serial.clone(),
        concurrent: first.concurrent.clone(),
        searches,
        peak_rss_mib,
        query_peak_rss_mib,
        phases: log.done,
        engine_memory,
        disk_bytes,
        cpu: CpuReport { user_sec: usage.map(|u| u.user_sec), sys_sec: usage.map(|u| u.sys_sec) },
        notes,
    })
}

/// The ground truth a run scores against, and the seconds it took when computed; or,
/// under `--filter`, the filter whose ground truth waits for the loaded collection (the
/// engine evaluates the filter).
enum Truth<'a> {
    Ready((GroundTruth, Option<f64>)),
    AfterLoad(&'a str),
}

/// When a run started, the load then and the machine: what every report records.
pub(crate) struct Sitting {
    pub started_at: String,
    loadavg_start: Option<[f64; 3]>,
    system: SystemInfo,
}

impl Sitting {
    pub(crate) fn begin() -> Sitting {
        Sitting { started_at: sys::utc_now(), loadavg_start: sys::loadavg(), system: SystemInfo::collect() }
    }

    /// The report's machine and load, the load read now (at the run's end).
    pub(crate) fn system_report(&self) -> SystemReport {
        SystemReport { info: self.system.clone(), loadavg_start: self.loadavg_start, loadavg_end: sys::loadavg() }
    }
}

/// Opens the dataset (its first `--limit` rows): the dataset, its row count before the
/// limit, and the queries.
pub(crate) fn open_dataset(
    cfg: &BenchConfig,
    log: &mut PhaseLog,
    progress: &mut dyn Progress,
) -> Result<(Dataset, usize, Vec<Vec<f32>>), BenchError> {
    log.begin("dataset");
    progress.begin("dataset", 0, "rows");
    let mut ds = Dataset::open(&cfg.source, cfg.metric)?;
    let total_rows = ds.base.len();
    if let Some(n) = cfg.limit {
        if n == 0 {
            return Err(BenchError::Invalid("--limit must be at least 1".into()));
        }
        ds.base.truncate(n);
        if let Some(ids) = &mut ds.base_ids {
            ids.truncate(n);
        }
    }
    if cfg.filter.is_some() {
        ds.read_attributes()
            .map_err(|e| BenchError::Invalid(format!("--filter needs the base rows' attributes: {e}")))?;
    }
    let queries = ds.queries.to_rows();
    progress.end(&format!(
        "dataset {}: {} base vectors of dimension {}, {} queries",
        ds.name,
        ds.base.len(),
        ds.base.dim(),
        queries.len()
    ));
    log.end();
    Ok((ds, total_rows, queries))
}

/// The ground truth to score against and, when it was computed, how long that took.
pub(crate) fn ground_truth(
    cfg: &BenchConfig,
    ds: &Dataset,
    queries: &[Vec<f32>],
    log: &mut PhaseLog,
    notes: &mut Vec<String>,
    progress: &mut dyn Progress,
) -> Result<(GroundTruth, Option<f64>), BenchError> {
    let why = match (&ds.truth, &ds.truth_file) {
        (Some(t), Some(file)) if t.k < cfg.k => {
            format!("{file} has {} neighbours per query, fewer than k = {}", t.k, cfg.k)
        }
        (Some(t), Some(file)) if !holds_for_prefix(t, ds, queries.len(), cfg.k) => {
            let which = if cfg.limit.is_some() { "the first" } else { "the" };
            format!("{file} names neighbours outside {which} {} base vectors used", ds.base.len())
        }
        (Some(t), _) => return Ok((t.clone(), None)),
        (None, _) => "the dataset has no ground truth".to_string(),
    };
    log.begin("ground truth");
    progress.begin("ground truth", 0, "queries");
    let t = Instant::now();
    let truth = super::truth::exact(ds, queries, cfg.metric, cfg.k, cfg.truth_threads);
    let secs = t.elapsed().as_secs_f64();
    let msg = format!(
        "ground truth computed: exact brute force over {} base vectors with the {} kernels, k = {}, {:.1} s ({why})",
        ds.base.len(),
        xvec::kernels::best().isa,
        truth.k,
        secs
    );
    progress.end(&msg);
    notes.push(msg);
    log.end();
    Ok((truth, Some(secs)))
}

/// Ground truth among the rows `filter` allows in the loaded collection at `dir` (read
/// through the engine's exact filter evaluation), with the seconds it took and the rows.
fn filtered_truth(
    cfg: &BenchConfig,
    ds: &Dataset,
    queries: &[Vec<f32>],
    dir: &Path,
    filter: &str,
    log: &mut PhaseLog,
    progress: &mut dyn Progress,
) -> Result<(GroundTruth, f64, usize), BenchError> {
    log.begin("filtered ground truth");
    progress.begin("filtered ground truth", 0, "queries");
    let t = Instant::now();
    let coll = Collection::open(dir, &cfg.budgeted(OpenOptions::read_only())).map_err(engine("open"))?;
    let keys = coll.snapshot().keys_where(Some(filter)).map_err(|e| BenchError::Invalid(format!("--filter: {e}")))?;
    drop(coll);
    let row_of: std::collections::HashMap<u32, u32> = (0..ds.base.len()).map(|r| (ds.id(r), r as u32)).collect();
    let mut rows: Vec<u32> =
        keys.iter().filter_map(|k| k.parse::<u32>().ok().and_then(|id| row_of.get(&id)).copied()).collect();
    rows.sort_unstable();
    if rows.is_empty() {
        return Err(BenchError::Invalid(format!("--filter {filter:?} matches no base row")));
    }
    let truth = super::truth::exact_among(ds, queries, cfg.metric, cfg.k, cfg.truth_threads, &rows);
    let secs = t.elapsed().as_secs_f64();
    progress.end(&format!(
        "filtered ground truth: {} of {} base rows pass, k = {}, {secs:.1} s",
        rows.len(),
        ds.base.len(),
        truth.k
    ));
    log.end();
    Ok((truth, secs, rows.len()))
}

/// True when every query's first `k` true neighbours lie in the (possibly `--limit`ed)
/// base: then they are also its first `k` within that prefix.
fn holds_for_prefix(t: &GroundTruth, ds: &Dataset, queries: usize, k: usize) -> bool {
    let n = ds.base.len();
    let present: Box<dyn Fn(u32) -> bool> = match &ds.base_ids {
        None => Box::new(move |id| (id as usize) < n),
        Some(ids) => {
            let set: std::collections::HashSet<u32> = ids.iter().copied().collect();
            Box::new(move |id| set.contains(&id))
        }
    };
    (0..queries).all(|q| t.row(q)[..k].iter().all(|&id| present(id)))
}

/// Create → insert in batches → optimize → close.
fn load(
    cfg: &BenchConfig,
    ds: &Dataset,
    dir: &Path,
    log: &mut PhaseLog,
    progress: &mut dyn Progress,
) -> Result<LoadReport, BenchError> {
    // The writer's budget is the one optimize builds disk indexes under.
    let open = cfg.budgeted(OpenOptions::writable());
    let spec = LoadSpec { dir, options: Default::default(), open, rows: 0..ds.base.len(), label: "" };
    let (coll, report) = load_open(cfg, ds, &spec, log, progress)?;
    log.begin("close");
    coll.close().map_err(engine("close"))?;
    log.end();
    Ok(report)
}

/// What [`load_open`] loads where: base rows `rows` into a new collection at `dir`
/// created with `options` and opened with `open`; its phases are logged as
/// `{label}create`, `{label}insert` and `{label}optimize`.
pub(crate) struct LoadSpec<'a> {
    pub dir: &'a Path,
    pub options: xvec::CollectionOptions,
    pub open: OpenOptions,
    pub rows: std::ops::Range<usize>,
    pub label: &'a str,
}

/// Create → insert in batches → optimize; the collection stays open.
pub(crate) fn load_open(
    cfg: &BenchConfig,
    ds: &Dataset,
    spec: &LoadSpec,
    log: &mut PhaseLog,
    progress: &mut dyn Progress,
) -> Result<(Collection, LoadReport), BenchError> {
    let label = spec.label;
    let schema = schema(cfg, ds)?;
    log.begin(&format!("{label}create"));
    let coll = Collection::create_with(spec.dir, schema, spec.options.clone(), &spec.open).map_err(engine("create"))?;
    log.end();

    let rows = spec.rows.len();
    let name = format!("{label}insert");
    log.begin(&name);
    progress.begin(&name, rows as u64, "rows");
    let insert = insert_rows(&coll, ds, spec.rows.clone(), cfg.batch_size, progress)?.total_sec;
    progress.end(&format!("{label}inserted {rows} rows in {insert:.2} s ({:.0} rows/s)", rows as f64 / insert));
    log.end();

    let name = format!("{label}optimize");
    log.begin(&name);
    progress.begin(&name, rows as u64, "rows");
    let t = Instant::now();
    let done = optimize(&coll, cfg.optimize_concurrency, progress).map_err(engine("optimize"))?;
    let optimize = t.elapsed().as_secs_f64();
    let what = format!(
        "optimize: {} index{} built over {} segment{}",
        done.indexes_built,
        if done.indexes_built == 1 { "" } else { "es" },
        done.segments_after,
        if done.segments_after == 1 { "" } else { "s" }
    );
    progress.end(&format!("{label}{what} in {optimize:.2} s"));
    log.end();
    let report = LoadReport {
        skipped: false,
        rows: rows as u64,
        insert_duration_sec: Some(insert),
        optimize_duration_sec: Some(optimize),
        load_duration_sec: Some(insert + optimize),
        rows_per_second: Some(rows as f64 / insert),
        optimize: what,
        indexes_built: Some(done.indexes_built as u64),
        segments: Some(done.segments_after as u64),
    };
    Ok((coll, report))
}

/// The collection schema of `cfg` for vectors of `dim` dimensions, or why the index
/// parameters do not make one.
pub(crate) fn schema(cfg: &BenchConfig, ds: &Dataset) -> Result<xvec::Schema, BenchError> {
    let attributes = ds.attributes.iter().flat_map(|a| a.schema_fields());
    cfg.schema(ds.base.dim(), attributes).map_err(|e| {
        let index = serde_json::to_string(&cfg.index.resolved()).expect("index params serialize");
        BenchError::Invalid(format!("index {index}: {e}"))
    })
}

/// How long inserting a run of base rows took: in all, and the longest insert call.
pub(crate) struct Inserted {
    /// From the start to the last insert call's return.
    pub total_sec: f64,
    pub longest_call_sec: f64,
    /// When the last insert call returned.
    pub ended: Instant,
}

/// Inserts base rows `range` into `coll` in dataset order, `batch` per call, releasing
/// each batch's pages of the base once inserted; reports the rows done to `progress`.
pub(crate) fn insert_rows(
    coll: &Collection,
    ds: &Dataset,
    range: std::ops::Range<usize>,
    batch: usize,
    progress: &mut dyn Progress,
) -> Result<Inserted, BenchError> {
    let t = Instant::now();
    let mut ended = t;
    let mut longest = Duration::ZERO;
    let mut scratch = Vec::new();
    for start in range.clone().step_by(batch) {
        let end = (start + batch).min(range.end);
        let docs: Vec<Doc> = (start..end)
            .map(|i| {
                let doc = Doc::new(ds.id(i).to_string()).set("emb", ds.base.row(i, &mut scratch).to_vec());
                match &ds.attributes {
                    Some(a) => a.set(i, doc),
                    None => doc,
                }
            })
            .collect();
        ds.base.release(start..end);
        let call = Instant::now();
        let results = coll.insert(docs).map_err(engine("insert"))?;
        ended = Instant::now();
        longest = longest.max(ended - call);
        if let Some((j, Err(e))) = results.iter().enumerate().find(|(_, r)| r.is_err()) {
            return Err(BenchError::Invalid(format!("insert: base row {} ({}): {e}", start + j, ds.base_file)));
        }
        progress.set((end - range.start) as u64);
    }
    Ok(Inserted { total_sec: (ended - t).as_secs_f64(), longest_call_sec: longest.as_secs_f64(), ended })
}

/// `Collection::optimize` on its own thread, so this one can report its progress.
pub(crate) fn optimize(
    coll: &Collection,
    concurrency: usize,
    progress: &mut dyn Progress,
) -> Result<xvec::OptimizeReport, xvec::Error> {
    let indexed = AtomicU64::new(0);
    let finished = AtomicBool::new(false);
    let report = |p: &xvec::OptimizeProgress| indexed.store(p.vectors_indexed, Ordering::Relaxed);
    std::thread::scope(|s| {
        let worker = s.spawn(|| {
            let opts = OptimizeOptions::default().concurrency(concurrency.max(1)).progress(Some(&report));
            let r = coll.optimize(&opts);
            finished.store(true, Ordering::Release);
            r
        });
        while !finished.load(Ordering::Acquire) {
            std::thread::sleep(Duration::from_millis(50));
            progress.set(indexed.load(Ordering::Relaxed));
        }
        match worker.join() {
            Ok(r) => r,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}

/// Warm-up, concurrent phases, cool-down and the serial phase for one search setting.
/// One search pass: its setting, and the prefix of its phase names (the round under
/// `--repeat`, the setting under `--sweep`; empty for a plain single pass).
struct Pass {
    point: SearchPoint,
    label: String,
}

/// The base rows `--warmup-from base` warms up with: `warmup` of them (all when there
/// are fewer), evenly spaced, in half precision (a warm-up query only has to visit the
/// row's neighbourhood, and tens of thousands of them stay small beside a memory cap).
fn warm_rows(cfg: &BenchConfig, ds: &Dataset) -> Option<Vec<Vec<f16>>> {
    let (n, len) = (cfg.warmup.min(ds.base.len()), ds.base.len());
    let mut scratch = Vec::new();
    let half = |v: &[f32]| v.iter().map(|&x| f16::from_f32(x)).collect();
    match cfg.warmup_from {
        WarmupFrom::Queries => None,
        WarmupFrom::Base => Some((0..n).map(|i| half(ds.base.row(i * len / n, &mut scratch))).collect()),
    }
}

/// The vectors of a search pass's queries: those measured, and those it warms up with
/// when they differ (`--warmup-from base`).
#[derive(Clone, Copy)]
struct QueryVectors<'a> {
    measured: &'a [Vec<f32>],
    warm: Option<&'a [Vec<f16>]>,
}

fn search(
    cfg: &BenchConfig,
    snap: &Arc<Snapshot>,
    vectors: QueryVectors,
    truth: &GroundTruth,
    pass: Pass,
    log: &mut PhaseLog,
    progress: &mut dyn Progress,
) -> Result<SearchReport, BenchError> {
    let Pass { point, label } = pass;
    let queries = queries(cfg, vectors.measured, point);
    // Untimed queries: the measured ones, or the warm rows, each made a query as it runs.
    let warm_up = || -> Result<(), BenchError> {
        for i in 0..cfg.warmup {
            match vectors.warm {
                None => snap.query(&queries[i % queries.len()]),
                Some(rows) => {
                    let row = &rows[i % rows.len()];
                    snap.query(&query(cfg, row.iter().map(|x| x.to_f32()).collect(), point))
                }
            }
            .map_err(engine("warmup"))?;
        }
        Ok(())
    };

    log.begin(&format!("{label}warmup"));
    progress.begin(&format!("{label}warmup"), cfg.warmup as u64, "queries");
    warm_up()?;
    progress.end(&format!("{label}warmup: {} queries", cfg.warmup));
    log.end();

    let mut concurrent = Vec::new();
    for &threads in &cfg.concurrency {
        let name = format!("{label}concurrent c={threads}");
        log.begin(&name);
        progress.begin(&name, cfg.duration.as_millis() as u64, "ms");
        let c = run_concurrent(snap, &queries, threads, cfg.duration, progress)?;
        progress.end(&format!(
            "{name}: {:.1} QPS, p99 {:.3} ms over {:.1} s",
            c.qps, c.latency.latency_p99_ms, c.duration_sec
        ));
        log.end();
        concurrent.push(c);
    }

    if !cfg.cooldown.is_zero() {
        log.begin(&format!("{label}cooldown"));
        std::thread::sleep(cfg.cooldown);
        log.end();
    }

    let name = format!("{label}serial");
    log.begin(&name);
    progress.begin(&name, queries.len() as u64, "queries");
    // The pause leaves caches cold and the core possibly clocked down: warm up again
    // right before the timed pass, as peers.py does before each of its passes.
    warm_up()?;
    let blocks_read = || snap.disk_usage().blocks_read;
    let usage = snap.disk_usage();
    let disk = usage.indexes > 0;
    let mut serial =
        run_serial(&|q| snap.query(q), disk.then_some(&blocks_read as _), &queries, truth, cfg.k, progress)?;
    // The width the queries searched with: theirs, else the index's.
    serial.reads.beam_width = beam_width(snap.schema()).map(|w| point.beam_width.map_or(w, |b| b as u64));
    serial.reads.cached_nodes = disk.then_some(usage.cached_nodes);
    progress.end(&format!(
        "{name}: {:.1} QPS, recall@{} {:.4}, p99 {:.3} ms",
        serial.qps, cfg.k, serial.recall, serial.latency.latency_p99_ms
    ));
    log.end();
    let size = |v: Option<usize>| v.map(|v| v as u64);
    let (ef, refine, nprobe, beam_width) =
        (size(point.ef), size(point.refine), size(point.nprobe), size(point.beam_width));
    Ok(SearchReport { ef, nprobe, refine, beam_width, serial, concurrent, serial_qps_rounds: Vec::new() })
}

/// The beam width of the collection's disk index (`None` for the other kinds), from
/// its schema: a reused collection's (`--skip-load`) need not be the flags' index; a
/// query's own width overrides it.
fn beam_width(schema: &xvec::Schema) -> Option<u64> {
    let field = schema.fields().iter().find(|f| f.name == "emb")?;
    field.as_vector()?.index.disk().map(|p| u64::from(p.beam_width))
}

/// The query set as `cfg`'s k-nearest-neighbour queries with `point`'s search settings,
/// keys only.
pub(crate) fn queries(cfg: &BenchConfig, vectors: &[Vec<f32>], point: SearchPoint) -> Vec<Query> {
    vectors.iter().map(|v| query(cfg, v.clone(), point)).collect()
}

/// One of `cfg`'s k-nearest-neighbour queries, for `vector`.
fn query(cfg: &BenchConfig, vector: Vec<f32>, point: SearchPoint) -> Query {
    let q = Query::vector(vector)
        .k(cfg.k)
        .fields(Vec::<String>::new())
        .ef(point.ef)
        .refine(point.refine)
        .nprobe(point.nprobe)
        .beam_width(point.beam_width)
        .route(cfg.route);
    q.filter_opt(cfg.filter.clone())
}

/// A latency histogram in nanoseconds, 1 ns to 10 minutes at 3 significant digits.
pub(crate) fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 600_000_000_000, 3).expect("valid histogram bounds")
}

/// `threads` threads share one snapshot and each runs queries, round-robin from its own
/// starting point, until `duration` has passed.
fn run_concurrent(
    snap: &Arc<Snapshot>,
    queries: &[Query],
    threads: usize,
    duration: Duration,
    progress: &mut dyn Progress,
) -> Result<ConcurrentReport, BenchError> {
    let stop = AtomicBool::new(false);
    let start_line = Barrier::new(threads + 1);
    let (hist, elapsed) = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                let snap = Arc::clone(snap);
                let (stop, start_line) = (&stop, &start_line);
                s.spawn(move || -> Result<Histogram<u64>, xvec::Error> {
                    let mut h = histogram();
                    let mut i = t * queries.len() / threads;
                    start_line.wait();
                    while !stop.load(Ordering::Relaxed) {
                        let t0 = Instant::now();
                        let result = snap.query(&queries[i]);
                        h.saturating_record(t0.elapsed().as_nanos() as u64);
                        if let Err(e) = result {
                            stop.store(true, Ordering::Relaxed);
                            return Err(e);
                        }
                        i = (i + 1) % queries.len();
                    }
                    Ok(h)
                })
            })
            .collect();
        start_line.wait();
        let t0 = Instant::now();
        while !stop.load(Ordering::Relaxed) {
            let left = duration.saturating_sub(t0.elapsed());
            if left.is_zero() {
                break;
            }
            std::thread::sleep(left.min(Duration::from_millis(100)));
            progress.set(t0.elapsed().as_millis() as u64);
        }
        stop.store(true, Ordering::Relaxed);
        let mut total = histogram();
        let mut first_err = None;
        for w in workers {
            match w.join() {
                Ok(Ok(h)) => total.add(&h).expect("histograms share bounds"),
                Ok(Err(e)) => first_err = first_err.or(Some(e)),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        (first_err.map_or(Ok(total), Err), t0.elapsed())
    });
    let hist = hist.map_err(engine("concurrent search"))?;
    let secs = elapsed.as_secs_f64();
    Ok(ConcurrentReport {
        concurrency: threads as u64,
        queries: hist.len(),
        qps: hist.len() as f64 / secs,
        latency: Latency::of(&hist),
        duration_sec: secs,
    })
}

/// Every query once, one at a time, through `search`, with recall@k and nDCG@k against
/// `truth`, and the device bytes read per query (`/proc/self/io`, over the pass).
/// `blocks_read`, when the collection has disk indexes, is their count of node blocks
/// read so far: read between queries, outside the timed span, it gives each query's.
pub(crate) fn run_serial(
    search: &dyn Fn(&Query) -> Result<Vec<xvec::Hit>, xvec::Error>,
    blocks_read: Option<&dyn Fn() -> u64>,
    queries: &[Query],
    truth: &GroundTruth,
    k: usize,
    progress: &mut dyn Progress,
) -> Result<SerialReport, BenchError> {
    let mut hist = histogram();
    let mut busy = Duration::ZERO;
    let (mut recall, mut ndcg) = (0.0, 0.0);
    let mut found: Vec<u32> = Vec::with_capacity(k);
    let mut blocks: Vec<u64> = Vec::with_capacity(if blocks_read.is_some() { queries.len() } else { 0 });
    let io_start = sys::io_read_bytes();
    let wall = Instant::now();
    for (i, q) in queries.iter().enumerate() {
        let before = blocks_read.map(|f| f());
        let t0 = Instant::now();
        let hits = search(q).map_err(engine("serial search"))?;
        let took = t0.elapsed();
        if let (Some(f), Some(before)) = (blocks_read, before) {
            blocks.push(f().saturating_sub(before));
        }
        busy += took;
        hist.saturating_record(took.as_nanos() as u64);
        found.clear();
        for h in &hits {
            let id = h.key.parse::<u32>().map_err(|_| {
                BenchError::Invalid(format!(
                    "collection key '{}' is not a dataset id; search a collection that `xvec bench` loaded",
                    h.key
                ))
            })?;
            found.push(id);
        }
        recall += recall_at(&found, truth.row(i), k);
        ndcg += ndcg_at(&found, truth.row(i), k);
        if i % 64 == 63 {
            progress.set(i as u64 + 1);
        }
    }
    let duration_sec = wall.elapsed().as_secs_f64();
    let n = queries.len() as f64;
    let read_bytes = io_start.zip(sys::io_read_bytes()).map(|(a, b)| b.saturating_sub(a) as f64 / n);
    Ok(SerialReport {
        queries: queries.len() as u64,
        k: k as u64,
        qps: n / busy.as_secs_f64().max(f64::MIN_POSITIVE),
        recall: recall / n,
        ndcg: ndcg / n,
        latency: Latency::of(&hist),
        duration_sec,
        reads: DiskReads::of(&mut blocks, read_bytes),
    })
}

/// Times each phase and records its RSS, VmHWM and CPU time.
///
/// VmHWM is read at the end of a phase and reset right after, so the next phase's
/// reading covers everything since, gaps between phases included.
#[derive(Default)]
pub(crate) struct PhaseLog {
    pub(crate) done: Vec<PhaseReport>,
    open: Option<OpenPhase>,
    /// Whether VmHWM was reset when the last phase ended (false before the first).
    reset: bool,
    pub(crate) hwm_reset_failed: bool,
}

struct OpenPhase {
    name: String,
    start: Instant,
    rss: Option<sys::Rss>,
    usage: Option<sys::Usage>,
    hwm_scope_phase: bool,
}

impl PhaseLog {
    /// The process's peak RSS over the phases (with a note when the per-phase peaks could
    /// not be separated).
    pub(crate) fn peak_rss_mib(&self, usage: Option<&sys::Usage>, notes: &mut Vec<String>) -> f64 {
        if self.hwm_reset_failed {
            notes.push("VmHWM could not be reset (/proc/self/clear_refs): per-phase peaks are process-wide".into());
        }
        (self.done.iter().filter_map(|p| p.hwm_mib))
            .chain(usage.map(|u| u.max_rss_mib))
            .chain(sys::rss().map(|r| r.hwm_mib))
            .fold(0.0, f64::max)
    }

    pub(crate) fn begin(&mut self, name: &str) {
        // Reset the peak here, not when the last phase ended: whatever was freed in
        // between (the unmapped dataset before "open") must not count in this phase.
        self.reset = sys::reset_hwm();
        self.hwm_reset_failed |= !self.reset;
        self.open = Some(OpenPhase {
            name: name.to_string(),
            start: Instant::now(),
            rss: sys::rss(),
            usage: sys::usage(),
            hwm_scope_phase: self.reset,
        });
    }

    pub(crate) fn end(&mut self) {
        let Some(p) = self.open.take() else { return };
        let duration = p.start.elapsed().as_secs_f64();
        let rss = sys::rss();
        let usage = sys::usage();
        let delta = |f: fn(&sys::Usage) -> f64| match (p.usage, usage) {
            (Some(a), Some(b)) => Some(f(&b) - f(&a)),
            _ => None,
        };
        self.done.push(PhaseReport {
            name: p.name,
            duration_sec: duration,
            rss_start_mib: p.rss.map(|r| r.rss_mib),
            rss_end_mib: rss.map(|r| r.rss_mib),
            hwm_mib: rss.map(|r| r.hwm_mib),
            hwm_scope: if p.hwm_scope_phase { "phase" } else { "process" }.into(),
            cpu_user_sec: delta(|u| u.user_sec),
            cpu_sys_sec: delta(|u| u.sys_sec),
        });
    }
}

/// The collection directory: the one given, or a fresh temporary one removed on drop.
pub(crate) struct CollectionDir {
    path: PathBuf,
    temporary: bool,
}

impl CollectionDir {
    pub(crate) fn new(path: Option<&Path>, skip_load: bool) -> Result<CollectionDir, BenchError> {
        if let Some(p) = path {
            return Ok(CollectionDir { path: p.to_path_buf(), temporary: false });
        }
        if skip_load {
            return Err(BenchError::Invalid("--skip-load reuses a collection: it needs --path DIR".into()));
        }
        let base = std::env::temp_dir();
        for i in 0..1000 {
            let p = base.join(format!("xvec-bench-{}-{i}", std::process::id()));
            match std::fs::create_dir(&p) {
                Ok(()) => return Ok(CollectionDir { path: p, temporary: true }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(source) => return Err(BenchError::Io { path: p.display().to_string(), source }),
            }
        }
        Err(BenchError::Invalid(format!("no free temporary directory name in {}", base.display())))
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for CollectionDir {
    fn drop(&mut self) {
        if self.temporary {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}
