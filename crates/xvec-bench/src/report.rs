//! The benchmark report: one JSON document per run, versioned by [`SCHEMA_VERSION`] and
//! described by `docs/bench-report.schema.json`.
//!
//! Field names follow VectorDBBench's `vector-db-bench/v1` results where they overlap
//! (`load.insert_duration_sec`, `serial.qps`, `concurrent[].latency_p99_ms`, ...), with
//! units in the name. Numbers are what was measured; a figure that could not be measured
//! is `null`, never a guess. Adding a field bumps nothing; renaming or removing one, or
//! changing its meaning, bumps [`SCHEMA_VERSION`] and the schema file together.

use serde::Serialize;

use super::config::{BenchConfig, Sweep};
use super::source::Dataset;
use super::sys::SystemInfo;
use xvec::{IndexParams, IndexType, Metric};

/// Version of the report layout; `docs/bench-report.schema.json` pins it as a `const`.
pub const SCHEMA_VERSION: u32 = 2;

/// A report or CSV file that cannot be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReportError {
    #[error("{}: {source}", path.display())]
    Io { path: std::path::PathBuf, source: std::io::Error },
    #[error("{}: not JSON: {source}", path.display())]
    Json { path: std::path::PathBuf, source: serde_json::Error },
    /// Readable, but not what it should be (not a report, another schema version, a CSV
    /// header without our columns); `path` when it came from a file.
    #[error("{}{what}", path.as_ref().map_or(String::new(), |p| format!("{}: ", p.display())))]
    Format { path: Option<std::path::PathBuf>, what: String },
}

/// The `format` field: tells a report apart from other JSON files.
pub const FORMAT: &str = "xvec-bench";

#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub schema_version: u32,
    pub format: &'static str,
    pub started_at: String,
    pub finished_at: String,
    /// The command line that produced the report, when run from the tool.
    pub command: Option<String>,
    pub dataset: DatasetReport,
    pub config: ConfigReport,
    pub system: SystemReport,
    pub load: LoadReport,
    /// The serial phase of the first search setting (the only one without `--sweep`).
    pub serial: SerialReport,
    /// The concurrent phases of the first search setting.
    pub concurrent: Vec<ConcurrentReport>,
    /// Every search setting run, in order; one entry without `--sweep`.
    pub searches: Vec<SearchReport>,
    /// Peak RSS of the whole process: the larger of `getrusage` `ru_maxrss` and every
    /// phase's VmHWM.
    pub peak_rss_mib: f64,
    /// Peak RSS from reopening the collection read-only to the end: what a process that
    /// only queries needs (the phase VmHWMs from "open" on).
    pub query_peak_rss_mib: f64,
    pub phases: Vec<PhaseReport>,
    /// The engine's own accounting after the search phases, by kind.
    pub engine_memory: EngineMemory,
    /// Bytes of every file in the collection directory after the run.
    pub disk_bytes: u64,
    pub cpu: CpuReport,
    /// Facts a reader needs to trust the numbers: computed ground truth, a fallback taken.
    pub notes: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct DatasetReport {
    pub name: String,
    pub base_file: String,
    pub base_format: String,
    pub queries_file: String,
    /// Base rows used (after `--limit`).
    pub rows: u64,
    /// Base rows in the files.
    pub total_rows: u64,
    pub dim: u64,
    pub queries: u64,
    /// `"file"` or `"computed"` (exact brute force, when there is none or it does not
    /// hold for the `--limit` prefix).
    pub ground_truth: String,
    pub ground_truth_file: Option<String>,
    /// Neighbours per query in the ground truth used.
    pub ground_truth_k: u64,
    /// Time spent computing ground truth, when it was computed.
    pub ground_truth_sec: Option<f64>,
    /// Base rows `--filter` allows (`null` without one): the ground truth is among them.
    pub filter_rows: Option<u64>,
}

impl DatasetReport {
    /// What `ds` (already `--limit`ed; `total_rows` before that) and its `queries` are,
    /// scored against a ground truth of `truth_k` neighbours per query: the dataset's file,
    /// or, with `computed_sec`, one computed in that many seconds.
    pub(crate) fn new(
        ds: &Dataset,
        total_rows: usize,
        queries: usize,
        truth_k: usize,
        computed_sec: Option<f64>,
    ) -> DatasetReport {
        DatasetReport {
            name: ds.name.clone(),
            base_file: ds.base_file.clone(),
            base_format: ds.base.format().to_string(),
            queries_file: ds.queries_file.clone(),
            rows: ds.base.len() as u64,
            total_rows: total_rows as u64,
            dim: ds.base.dim() as u64,
            queries: queries as u64,
            ground_truth: if computed_sec.is_some() { "computed" } else { "file" }.into(),
            ground_truth_file: if computed_sec.is_some() { None } else { ds.truth_file.clone() },
            ground_truth_k: truth_k as u64,
            ground_truth_sec: computed_sec,
            filter_rows: None,
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct ConfigReport {
    pub index: IndexType,
    pub metric: Metric,
    pub k: u64,
    pub ef: Option<u64>,
    pub nprobe: Option<u64>,
    pub refine: Option<u64>,
    /// A disk index's beam width for every query (`--beam-width`); `null`: the index's.
    pub beam_width: Option<u64>,
    /// Seed of the index's randomized construction (the engine's default for flat).
    pub seed: u64,
    pub limit: Option<u64>,
    pub skip_load: bool,
    pub batch_size: u64,
    pub optimize_concurrency: u64,
    pub mmap: bool,
    pub warmup: u64,
    pub warmup_from: crate::config::WarmupFrom,
    pub concurrency: Vec<u64>,
    pub duration_sec: f64,
    pub cooldown_sec: f64,
    pub sweep: Option<Sweep>,
    /// The index object of the collection's JSON schema, with every parameter the
    /// engine uses (defaults spelled out).
    pub schema_index: IndexParams,
    /// The collection directory, or `null` for a temporary one.
    pub path: Option<String>,
    /// The filter every query carries (`--filter`).
    pub filter: Option<String>,
    /// How segments with a graph index are searched (`--route`): auto, graph or exact.
    pub route: &'static str,
    /// Interleaved rounds of the search phases (`--repeat`).
    pub repeat: u64,
    /// `--memory-budget`: bytes every handle the run opens may pin (`null`: none).
    pub memory_budget: Option<u64>,
}

impl ConfigReport {
    pub fn new(c: &BenchConfig) -> ConfigReport {
        ConfigReport {
            index: c.index.kind(),
            metric: c.metric,
            k: c.k as u64,
            ef: c.ef.map(|v| v as u64),
            nprobe: c.nprobe.map(|v| v as u64),
            refine: c.refine.map(|v| v as u64),
            beam_width: c.beam_width.map(|v| v as u64),
            seed: c.index.seed(),
            limit: c.limit.map(|v| v as u64),
            skip_load: c.skip_load,
            batch_size: c.batch_size as u64,
            optimize_concurrency: c.optimize_concurrency as u64,
            mmap: c.mmap,
            warmup: c.warmup as u64,
            warmup_from: c.warmup_from,
            concurrency: c.concurrency.iter().map(|&v| v as u64).collect(),
            duration_sec: c.duration.as_secs_f64(),
            cooldown_sec: c.cooldown.as_secs_f64(),
            sweep: c.sweep.clone(),
            schema_index: c.index.resolved(),
            path: c.path.as_ref().map(|p| p.display().to_string()),
            filter: c.filter.clone(),
            route: c.route.name(),
            repeat: c.repeat as u64,
            memory_budget: c.memory_budget,
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct SystemReport {
    #[serde(flatten)]
    pub info: SystemInfo,
    /// 1, 5 and 15 minute load averages before and after the run.
    pub loadavg_start: Option<[f64; 3]>,
    pub loadavg_end: Option<[f64; 3]>,
}

#[derive(Clone, Debug, Serialize)]
pub struct LoadReport {
    /// True with `--skip-load`: the durations are then `null`.
    pub skipped: bool,
    /// Documents in the collection searched.
    pub rows: u64,
    pub insert_duration_sec: Option<f64>,
    pub optimize_duration_sec: Option<f64>,
    /// insert + optimize, as VectorDBBench counts it.
    pub load_duration_sec: Option<f64>,
    /// rows / insert_duration_sec.
    pub rows_per_second: Option<f64>,
    /// What the optimize phase did, in words.
    pub optimize: String,
    /// Indexes `Collection::optimize` built (one per segment and indexed field).
    pub indexes_built: Option<u64>,
    /// Segments after optimize.
    pub segments: Option<u64>,
}

/// Latency figures of one phase, from an HDR histogram (3 significant digits).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Latency {
    pub latency_avg_ms: f64,
    pub latency_p50_ms: f64,
    pub latency_p95_ms: f64,
    pub latency_p99_ms: f64,
    pub latency_max_ms: f64,
}

impl Latency {
    pub fn of(h: &hdrhistogram::Histogram<u64>) -> Latency {
        let ms = |ns: f64| ns / 1e6;
        if h.is_empty() {
            return Latency::default();
        }
        Latency {
            latency_avg_ms: ms(h.mean()),
            latency_p50_ms: ms(h.value_at_quantile(0.50) as f64),
            latency_p95_ms: ms(h.value_at_quantile(0.95) as f64),
            latency_p99_ms: ms(h.value_at_quantile(0.99) as f64),
            latency_max_ms: ms(h.max() as f64),
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct SerialReport {
    pub queries: u64,
    pub k: u64,
    /// queries / the sum of per-query latencies (as the peers script measures).
    pub qps: f64,
    /// Mean recall@k over all queries.
    pub recall: f64,
    /// Mean nDCG@k (binary relevance) over all queries.
    pub ndcg: f64,
    #[serde(flatten)]
    pub latency: Latency,
    /// Wall time of the phase.
    pub duration_sec: f64,
    #[serde(flatten)]
    pub reads: DiskReads,
}

/// What the serial pass read per query: the disk indexes' node blocks (each one `pread`)
/// beside their beam width, and the bytes the device fetched (read-ahead and faults of
/// mapped files included): what a query costs under a memory cap.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct DiskReads {
    /// Mean node blocks read per query; `null` without a disk index.
    pub blocks_read_mean: Option<f64>,
    /// The 99th percentile of node blocks read per query; `null` without a disk index.
    pub blocks_read_p99: Option<u64>,
    /// `/proc/self/io` `read_bytes` over the pass, per query; `null` where unreadable.
    pub read_bytes_per_query: Option<f64>,
    /// Nodes a disk index expands per hop, their blocks read together: the queries' width,
    /// else the index's; `null` for the other kinds.
    pub beam_width: Option<u64>,
    /// Nodes whose neighbour lists the disk indexes' caches held when the pass began
    /// (searches fill them: with `--warmup-from base`, a cache that was full by then had
    /// seen none of the measured queries); `null` without a disk index.
    pub cached_nodes: Option<u64>,
}

impl DiskReads {
    /// The figures of per-query block counts `blocks` (empty: no disk index; sorted in
    /// place) and `read_bytes` per query; the beam width is the caller's to set.
    pub(crate) fn of(blocks: &mut [u64], read_bytes: Option<f64>) -> DiskReads {
        blocks.sort_unstable();
        let n = blocks.len();
        DiskReads {
            blocks_read_mean: (n > 0).then(|| blocks.iter().sum::<u64>() as f64 / n as f64),
            // The nearest-rank percentile: the smallest count at least 99 % of queries stay within.
            blocks_read_p99: (n > 0).then(|| blocks[(n * 99).div_ceil(100).max(1) - 1]),
            read_bytes_per_query: read_bytes,
            beam_width: None,
            cached_nodes: None,
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct ConcurrentReport {
    pub concurrency: u64,
    /// Queries completed.
    pub queries: u64,
    /// queries / wall time from the start signal until every thread stopped.
    pub qps: f64,
    #[serde(flatten)]
    pub latency: Latency,
    pub duration_sec: f64,
}

/// One search setting: its serial and concurrent phases.
#[derive(Clone, Debug, Serialize)]
pub struct SearchReport {
    pub ef: Option<u64>,
    pub nprobe: Option<u64>,
    pub refine: Option<u64>,
    /// The queries' beam width (`--beam-width`, `--sweep beam=`); `null`: the index's.
    pub beam_width: Option<u64>,
    pub serial: SerialReport,
    pub concurrent: Vec<ConcurrentReport>,
    /// Serial QPS of every round under `--repeat`, in round order (`serial` is the
    /// median round's); empty for one round.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub serial_qps_rounds: Vec<f64>,
}

impl SearchReport {
    /// One setting's rounds as one report: the round with the median serial QPS (the
    /// lower middle of an even count: no round is invented), carrying every round's QPS
    /// in round order.
    pub fn median_of(mut rounds: Vec<SearchReport>) -> SearchReport {
        let qps: Vec<f64> = rounds.iter().map(|r| r.serial.qps).collect();
        let mut order: Vec<usize> = (0..rounds.len()).collect();
        order.sort_by(|&a, &b| qps[a].total_cmp(&qps[b]));
        let mut median = rounds.swap_remove(order[(order.len() - 1) / 2]);
        if qps.len() > 1 {
            median.serial_qps_rounds = qps;
        }
        median
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct PhaseReport {
    pub name: String,
    pub duration_sec: f64,
    pub rss_start_mib: Option<f64>,
    pub rss_end_mib: Option<f64>,
    /// VmHWM at the end of the phase.
    pub hwm_mib: Option<f64>,
    /// `"phase"` when VmHWM was reset at the phase start, else `"process"`.
    pub hwm_scope: String,
    pub cpu_user_sec: Option<f64>,
    pub cpu_sys_sec: Option<f64>,
}

/// [`xvec::MemoryUsage`] in bytes, by kind (its fields, flattened), and their total.
#[derive(Clone, Debug, Default, Serialize)]
pub struct EngineMemory {
    #[serde(flatten)]
    pub usage: xvec::MemoryUsage,
    pub total: u64,
}

impl From<xvec::MemoryUsage> for EngineMemory {
    fn from(usage: xvec::MemoryUsage) -> EngineMemory {
        EngineMemory { total: usage.total(), usage }
    }
}

#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct CpuReport {
    pub user_sec: Option<f64>,
    pub sys_sec: Option<f64>,
}

impl Report {
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("reports serialize")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(qps: f64) -> SearchReport {
        let latency = Latency::default();
        let reads = DiskReads::default();
        let serial = SerialReport { queries: 1, k: 1, qps, recall: 1.0, ndcg: 1.0, latency, duration_sec: 1.0, reads };
        SearchReport {
            ef: None,
            nprobe: None,
            beam_width: None,
            refine: None,
            serial,
            concurrent: Vec::new(),
            serial_qps_rounds: Vec::new(),
        }
    }

    #[test]
    fn reads_per_query_give_mean_and_nearest_rank_p99() {
        let mut blocks: Vec<u64> = (1..=200).rev().collect();
        let r = DiskReads::of(&mut blocks, Some(4096.0));
        assert_eq!(
            (r.blocks_read_mean, r.blocks_read_p99, r.read_bytes_per_query),
            (Some(100.5), Some(198), Some(4096.0))
        );
        assert_eq!(DiskReads::of(&mut [7], None).blocks_read_p99, Some(7));
        let none = DiskReads::of(&mut [], None);
        assert_eq!((none.blocks_read_mean, none.blocks_read_p99), (None, None));
    }

    #[test]
    fn a_setting_reports_its_median_round_and_every_round() {
        let m = SearchReport::median_of(vec![round(30.0), round(10.0), round(20.0)]);
        assert_eq!((m.serial.qps, m.serial_qps_rounds), (20.0, vec![30.0, 10.0, 20.0]));
        // An even count takes the lower middle: no round is invented.
        assert_eq!(SearchReport::median_of(vec![round(4.0), round(1.0), round(3.0), round(2.0)]).serial.qps, 2.0);
        let one = SearchReport::median_of(vec![round(7.0)]);
        assert_eq!((one.serial.qps, one.serial_qps_rounds.len()), (7.0, 0));
    }
}
