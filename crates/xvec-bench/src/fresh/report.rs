//! The report of a `--fresh` run: the header every bench report has (dataset, config,
//! system, memory, CPU, notes) and a `fresh` section instead of the load and search
//! phases. Same [`SCHEMA_VERSION`](crate::report::SCHEMA_VERSION), same schema file
//! (`docs/bench-report.schema.json`, which tells the kinds apart by their required
//! sections).

use serde::Serialize;

use crate::report::{
    ConfigReport, CpuReport, DatasetReport, EngineMemory, Latency, LoadReport, PhaseReport, SerialReport, SystemReport,
};

#[derive(Clone, Debug, Serialize)]
pub struct FreshReport {
    pub schema_version: u32,
    pub format: &'static str,
    pub started_at: String,
    pub finished_at: String,
    pub command: Option<String>,
    pub dataset: DatasetReport,
    /// The collections' index and the search parameters; the concurrent phase settings
    /// in it (concurrency, duration, cooldown) do not apply to a fresh run.
    pub config: ConfigReport,
    pub system: SystemReport,
    pub fresh: Fresh,
    /// Peak RSS of the whole process: `ru_maxrss` and every phase's VmHWM.
    pub peak_rss_mib: f64,
    pub phases: Vec<PhaseReport>,
    /// The engine's own accounting of the fresh collection after the last search pass.
    pub engine_memory: EngineMemory,
    /// Bytes of both collections' files after the run.
    pub disk_bytes: u64,
    pub cpu: CpuReport,
    pub notes: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Fresh {
    pub config: FreshConfigReport,
    /// The fully indexed collection: every base row inserted, then optimized.
    pub baseline_load: LoadReport,
    /// The fresh collection's load: the indexed part, then the fresh rows.
    pub fresh_load: FreshLoad,
    pub drain: Drain,
    /// `baseline`, `after` and `drained`, in this order.
    pub states: Vec<StateReport>,
    pub at_target: AtTarget,
}

#[derive(Clone, Debug, Serialize)]
pub struct FreshConfigReport {
    /// Share of the base inserted after the optimize (`--fresh`).
    pub fraction: f64,
    /// Rows inserted and optimized before the fresh ones: the first in dataset order.
    pub indexed_rows: u64,
    /// Rows inserted after the optimize: the rest of the base.
    pub fresh_rows: u64,
    pub batch_size: u64,
    /// The fresh collection's auto-flush threshold and merge factor.
    pub auto_flush_rows: u64,
    pub merge_factor: u64,
    pub target_recall: f64,
    /// Search passes of the baseline and the drained state; the after state has one.
    pub repeat: u64,
}

/// What `Collection::stats()` said about the background's work at one moment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Backlog {
    /// Rows searched by brute force: the memtable's and unindexed segments'.
    pub unindexed_rows: u64,
    /// Rows in the memtable.
    pub mem_rows: u64,
    pub segments: u64,
    /// Background jobs (index builds, merges) published since the collection opened.
    pub background_jobs: u64,
}

impl Backlog {
    pub fn of(s: &xvec::Stats) -> Backlog {
        Backlog {
            unindexed_rows: s.unindexed_rows,
            mem_rows: s.mem_rows,
            segments: s.segments.len() as u64,
            background_jobs: s.background_jobs,
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct FreshLoad {
    /// Create, insert and optimize of the indexed part (background maintenance on).
    pub indexed: LoadReport,
    /// From the first fresh insert call to the last one's return.
    pub insert_sec: f64,
    pub rows_per_sec: f64,
    /// The longest single insert call (a write waiting out the backlog shows here).
    pub longest_insert_ms: f64,
    /// Milliseconds the fresh inserts waited for the index backlog (backpressure).
    pub write_stall_ms: u64,
    /// The backlog when the last insert returned.
    pub at_last_insert: Backlog,
    /// The flush right after the last insert: the memtable's remaining rows (fewer than
    /// `auto_flush_rows`, which no automatic flush would ever take) become a segment the
    /// background can index.
    pub flush_sec: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Drain {
    /// From the last insert's return until no row was left unindexed.
    pub drain_sec: f64,
    /// From the last insert's return until the background was seen idle (no flush or
    /// job running, none published, no segment changed and the process under a tenth of
    /// a core for `quiet_sec`): merges done too. The drained passes start then.
    pub idle_sec: f64,
    pub quiet_sec: f64,
    /// The backlog once idle.
    pub at_idle: Backlog,
    /// Background jobs published from the last insert's return until idle.
    pub jobs: u64,
}

/// The three states the run compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    /// The fully indexed collection.
    Baseline,
    /// The fresh collection right after the last insert returned (and the flush).
    After,
    /// The fresh collection once the backlog drained and the background went idle.
    Drained,
}

impl State {
    pub const ALL: [State; 3] = [State::Baseline, State::After, State::Drained];

    pub fn name(self) -> &'static str {
        match self {
            State::Baseline => "baseline",
            State::After => "after",
            State::Drained => "drained",
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct StateReport {
    pub state: State,
    /// One per search setting, in sweep order.
    pub searches: Vec<StateSearch>,
}

/// One search setting of one state: the medians over its passes, and each pass.
#[derive(Clone, Debug, Serialize)]
pub struct StateSearch {
    pub ef: Option<u64>,
    pub refine: Option<u64>,
    pub passes: u64,
    /// Medians over the passes of the serial figures (see [`SerialReport`]).
    pub qps: f64,
    pub recall: f64,
    pub ndcg: f64,
    #[serde(flatten)]
    pub latency: Latency,
    /// The backlog when the first pass began and when the last one ended.
    pub start: Backlog,
    pub end: Backlog,
    pub runs: Vec<PassReport>,
}

/// One serial pass over every query (after `--warmup` untimed ones), with the backlog
/// sampled right before the warm-up and right after the last query.
#[derive(Clone, Debug, Serialize)]
pub struct PassReport {
    pub serial: SerialReport,
    pub start: Backlog,
    pub end: Backlog,
}

/// Each state's latency at the target recall: at the smallest swept value reaching it.
#[derive(Clone, Debug, Serialize)]
pub struct AtTarget {
    pub target_recall: f64,
    /// `baseline`, `after`, `drained`.
    pub states: Vec<StateAtTarget>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StateAtTarget {
    pub state: State,
    /// False when no setting of the sweep reached the target; the figures are `null` then.
    pub reached: bool,
    pub ef: Option<u64>,
    pub refine: Option<u64>,
    pub recall: Option<f64>,
    pub latency_p50_ms: Option<f64>,
    /// This p50 over the baseline's at the target; `null` when either did not reach it.
    pub p50_over_baseline: Option<f64>,
}

impl FreshReport {
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("reports serialize")
    }
}
