//! The report of a `--streaming` run: the header every bench report has (dataset,
//! config, system, memory, CPU, notes) and a `streaming` section instead of the load and
//! search phases. Same [`SCHEMA_VERSION`](crate::report::SCHEMA_VERSION), same schema
//! file (`docs/bench-report.schema.json`, which tells the two kinds apart by their
//! required sections).

use serde::Serialize;

use crate::report::{ConfigReport, CpuReport, DatasetReport, EngineMemory, Latency, PhaseReport, SystemReport};

#[derive(Clone, Debug, Serialize)]
pub struct StreamReport {
    pub schema_version: u32,
    pub format: &'static str,
    pub started_at: String,
    pub finished_at: String,
    pub command: Option<String>,
    pub dataset: DatasetReport,
    /// The collection's index and the search parameters; the load and search phase
    /// settings in it (concurrency, duration, ...) do not apply to a streaming run.
    pub config: ConfigReport,
    pub system: SystemReport,
    pub streaming: Streaming,
    /// Peak RSS of the whole process: `ru_maxrss` and every phase's VmHWM.
    pub peak_rss_mib: f64,
    pub phases: Vec<PhaseReport>,
    /// The engine's own accounting once every row is in.
    pub engine_memory: EngineMemory,
    pub disk_bytes: u64,
    pub cpu: CpuReport,
    pub notes: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Streaming {
    pub config: StreamConfigReport,
    /// One entry per `window_sec` from the start of the insert; the last may be shorter.
    pub windows: Vec<Window>,
    pub totals: Totals,
}

#[derive(Clone, Debug, Serialize)]
pub struct StreamConfigReport {
    /// Target ingest rate; `null`: as fast as the engine takes rows.
    pub rate_rows_per_sec: Option<f64>,
    pub batch_size: u64,
    pub search_threads: u64,
    pub window_sec: f64,
    /// Flush after every this many rows; 0 never.
    pub flush_every: u64,
    /// The insert thread held the newest snapshot between batches.
    pub hold_snapshot: bool,
    /// The collection's auto-flush threshold (background indexing); 0 off.
    pub auto_flush_rows: u64,
    /// Rows in when the measured optimize started; `null`: none.
    pub optimize_at: Option<u64>,
    /// Rows per query the prefix ground truth recorded (entered a running top-k).
    pub truth_rows_per_query: f64,
}

/// What happened in one window. Rows count when their insert call returned; a query
/// counts in the window where it finished.
#[derive(Clone, Debug, Serialize)]
pub struct Window {
    pub start_sec: f64,
    pub end_sec: f64,
    /// Rows acknowledged in this window.
    pub inserted_rows: u64,
    /// Rows acknowledged from the start to the end of this window.
    pub total_rows: u64,
    pub ingest_rows_per_sec: f64,
    /// The largest prefix a query finished in this window searched; `null` without one.
    pub visible_rows: Option<u64>,
    pub queries: u64,
    pub qps: f64,
    #[serde(flatten)]
    pub latency: Latency,
    /// Mean recall@k of this window's queries, each against the exact top-k of the rows
    /// it saw; `null` when no query saw a row.
    pub recall: Option<f64>,
    /// RSS of the process sampled at the end of the window.
    pub rss_mib: Option<f64>,
    /// `Collection::memory().total()` sampled at the end of the window.
    pub engine_bytes: Option<u64>,
    pub flushes: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Totals {
    pub rows: u64,
    /// From the first insert call to the last acknowledgement.
    pub duration_sec: f64,
    pub rows_per_sec: f64,
    pub queries: u64,
    /// queries / duration_sec, over every search thread.
    pub qps: f64,
    #[serde(flatten)]
    pub latency: Latency,
    /// Mean recall@k over every query that saw at least one row.
    pub recall: Option<f64>,
    /// Recall of the last window with a scored query: what a reader sees once all is in.
    pub recall_last_window: Option<f64>,
    /// The lowest window recall.
    pub recall_min_window: Option<f64>,
    pub flushes: u64,
    /// Largest RSS sampled at a window end.
    pub rss_max_mib: Option<f64>,
    /// Largest engine memory sampled at a window end.
    pub engine_max_bytes: Option<u64>,
    /// Writes while the `optimize_at` optimize ran, against the rest of the run.
    pub optimize: Option<DuringOptimize>,
}

/// What writes saw during an optimize, next to the rest of the run. A batch counts as
/// during when its insert call overlapped the optimize.
#[derive(Clone, Debug, Serialize)]
pub struct DuringOptimize {
    pub start_sec: f64,
    pub end_sec: f64,
    pub rows_per_sec_during: f64,
    pub rows_per_sec_outside: f64,
    /// Longest time between two acknowledgements (one batch's insert call and the
    /// loop around it), during and outside the optimize.
    pub max_batch_ms_during: f64,
    pub max_batch_ms_outside: f64,
}

impl StreamReport {
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("reports serialize")
    }
}
