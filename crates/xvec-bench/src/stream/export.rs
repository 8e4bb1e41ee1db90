//! `--streaming --csv FILE`: one row per streaming run, its totals, in a file of its own
//! columns (`docs/benchmarks/streaming.csv`). The shared columns (date ... params) mean
//! what they mean in the search rows of [`crate::export`].

use std::path::Path;

use super::report::StreamReport;
use crate::export::{append_rows, num, opt};
use crate::report::ReportError;

/// The columns, in the order a new file gets them; `docs/benchmarks/README.md` explains
/// each.
pub const COLUMNS: &[&str] = &[
    "date",
    "db",
    "db_version",
    "commit",
    "command",
    "machine",
    "cores",
    "load_start",
    "load_end",
    "dataset",
    "rows",
    "dim",
    "queries",
    "metric",
    "k",
    "index",
    "params",
    "ef",
    "rate_target",
    "batch",
    "search_threads",
    "window",
    "flush_every",
    "hold_snapshot",
    "auto_flush_rows",
    "duration",
    "rows_per_second",
    "searches",
    "qps",
    "latency_avg",
    "latency_p50",
    "latency_p95",
    "latency_p99",
    "recall",
    "recall_last_window",
    "recall_min_window",
    "flushes",
    "optimize_at",
    "optimize_sec",
    "rows_per_second_during_optimize",
    "rows_per_second_outside_optimize",
    "longest_batch_ms_during_optimize",
    "longest_batch_ms_outside_optimize",
    "peak_rss_mib",
    "engine_max_mib",
    "disk_mib",
    "cpu_user_sec",
    "cpu_sys_sec",
    "ground_truth",
    "notes",
];

/// The run's row, in [`COLUMNS`] order.
pub fn row(r: &StreamReport) -> Vec<String> {
    let c = &r.config;
    let s = &r.streaming;
    let t = &s.totals;
    let o = t.optimize.as_ref();
    let load = |l: Option<[f64; 3]>| l.map_or_else(String::new, |l| num(l[0], 2));
    let mut params = vec![format!("index={}", serde_json::to_string(&c.schema_index).expect("index params serialize"))];
    params.extend(c.refine.map(|v| format!("refine={v}")));
    params.push(format!("mmap={}", c.mmap));
    if let Some(l) = c.limit {
        params.push(format!("limit={l}"));
    }
    let mib = |b: u64| num(b as f64 / (1 << 20) as f64, 1);
    let values = [
        ("date", r.started_at.clone()),
        ("db", "xvec".to_string()),
        ("db_version", r.system.info.xvec_version.clone()),
        ("commit", r.system.info.commit.clone().unwrap_or_default()),
        ("command", r.command.clone().unwrap_or_default()),
        ("machine", r.system.info.cpu_model.clone().unwrap_or_default()),
        ("cores", r.system.info.cores.to_string()),
        ("load_start", load(r.system.loadavg_start)),
        ("load_end", load(r.system.loadavg_end)),
        ("dataset", r.dataset.name.clone()),
        ("rows", t.rows.to_string()),
        ("dim", r.dataset.dim.to_string()),
        ("queries", r.dataset.queries.to_string()),
        ("metric", c.metric.name().to_string()),
        ("k", c.k.to_string()),
        ("index", c.index.name().to_string()),
        ("params", params.join(" ")),
        ("ef", c.ef.map_or_else(String::new, |v| v.to_string())),
        ("rate_target", opt(s.config.rate_rows_per_sec, 0)),
        ("batch", s.config.batch_size.to_string()),
        ("search_threads", s.config.search_threads.to_string()),
        ("window", num(s.config.window_sec, 3)),
        ("flush_every", s.config.flush_every.to_string()),
        ("hold_snapshot", s.config.hold_snapshot.to_string()),
        ("auto_flush_rows", s.config.auto_flush_rows.to_string()),
        ("duration", num(t.duration_sec, 3)),
        ("rows_per_second", num(t.rows_per_sec, 0)),
        ("searches", t.queries.to_string()),
        ("qps", num(t.qps, 1)),
        ("latency_avg", num(t.latency.latency_avg_ms, 3)),
        ("latency_p50", num(t.latency.latency_p50_ms, 3)),
        ("latency_p95", num(t.latency.latency_p95_ms, 3)),
        ("latency_p99", num(t.latency.latency_p99_ms, 3)),
        ("recall", opt(t.recall, 4)),
        ("recall_last_window", opt(t.recall_last_window, 4)),
        ("recall_min_window", opt(t.recall_min_window, 4)),
        ("flushes", t.flushes.to_string()),
        ("optimize_at", s.config.optimize_at.map_or_else(String::new, |n| n.to_string())),
        ("optimize_sec", o.map_or_else(String::new, |o| num(o.end_sec - o.start_sec, 3))),
        ("rows_per_second_during_optimize", o.map_or_else(String::new, |o| num(o.rows_per_sec_during, 0))),
        ("rows_per_second_outside_optimize", o.map_or_else(String::new, |o| num(o.rows_per_sec_outside, 0))),
        ("longest_batch_ms_during_optimize", o.map_or_else(String::new, |o| num(o.max_batch_ms_during, 1))),
        ("longest_batch_ms_outside_optimize", o.map_or_else(String::new, |o| num(o.max_batch_ms_outside, 1))),
        ("peak_rss_mib", num(r.peak_rss_mib, 1)),
        ("engine_max_mib", t.engine_max_bytes.map_or_else(String::new, mib)),
        ("disk_mib", mib(r.disk_bytes)),
        ("cpu_user_sec", opt(r.cpu.user_sec, 2)),
        ("cpu_sys_sec", opt(r.cpu.sys_sec, 2)),
        ("ground_truth", r.dataset.ground_truth.clone()),
        ("notes", r.notes.join(" | ")),
    ];
    debug_assert!(values.iter().map(|(n, _)| *n).eq(COLUMNS.iter().copied()));
    values.into_iter().map(|(_, v)| v).collect()
}

/// Appends the run's row to `path` (see [`append_rows`]).
pub fn append(path: &Path, report: &StreamReport) -> Result<usize, ReportError> {
    append_rows(path, COLUMNS, &[row(report)])
}
