//! `--streaming --csv FILE`: one row per streaming run, its totals, in a file of its own
//! columns (`docs/benchmarks/streaming.csv`). The shared columns ([`PROVENANCE`]: date ...
//! ef) are written by the code that writes them for the search rows of [`crate::export`].

use std::path::Path;

use super::report::StreamReport;
use crate::export::{PROVENANCE, Provenance, RowKind, append_rows, columns, in_order, num, opt};
use crate::report::ReportError;

/// The streaming rows' columns after [`PROVENANCE`].
const STREAMING: &[&str] = &[
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

/// The columns, in the order a new file gets them; `docs/benchmarks/README.md` explains
/// each.
pub const COLUMNS: &[&str] = &columns::<{ PROVENANCE.len() + STREAMING.len() }>(STREAMING);

/// The run's row, in [`COLUMNS`] order.
pub fn row(r: &StreamReport) -> Vec<String> {
    let c = &r.config;
    let s = &r.streaming;
    let t = &s.totals;
    let o = t.optimize.as_ref();
    let provenance = Provenance {
        started_at: &r.started_at,
        command: r.command.as_deref(),
        system: &r.system,
        dataset: &r.dataset,
        config: c,
    };
    // The batch size has a column of its own here.
    let kind = RowKind { rows: t.rows, refine: c.refine, batch: None, ef: c.ef, nprobe: c.nprobe };
    let mib = |b: u64| num(b as f64 / (1 << 20) as f64, 1);
    let mut values = provenance.cells(&kind);
    values.extend([
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
    ]);
    in_order(COLUMNS, values)
}

/// Appends the run's row to `path` (see [`append_rows`]).
pub fn append(path: &Path, report: &StreamReport) -> Result<usize, ReportError> {
    append_rows(path, COLUMNS, &[row(report)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::tests::committed_header;

    #[test]
    fn the_committed_file_has_these_columns() {
        assert_eq!(committed_header("streaming.csv"), COLUMNS.join(","));
    }
}
