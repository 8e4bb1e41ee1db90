//! `--fresh --csv FILE`: one row per state and search setting, in a file of its own
//! columns (`docs/benchmarks/fresh.csv`). The shared columns ([`PROVENANCE`]: date ...
//! ef) are written by the code that writes them for the search rows of [`crate::export`].

use std::path::Path;

use super::report::{FreshReport, State, StateSearch};
use crate::export::{PROVENANCE, Provenance, RowKind, append_rows, columns, in_order, num, opt};
use crate::report::ReportError;

/// The fresh rows' columns after [`PROVENANCE`].
const FRESH: &[&str] = &[
    "state",
    "fraction",
    "fresh_rows",
    "auto_flush_rows",
    "merge_factor",
    "passes",
    "qps",
    "latency_p50",
    "latency_p99",
    "recall",
    "unindexed_start",
    "unindexed_end",
    "segments_start",
    "segments_end",
    "insert_sec",
    "write_stall_ms",
    "drain_sec",
    "idle_sec",
    "target_recall",
    "ef_at_target",
    "p50_at_target",
    "p50_ratio_at_target",
    "peak_rss_mib",
    "disk_mib",
    "cpu_user_sec",
    "cpu_sys_sec",
    "ground_truth",
    "notes",
];

/// The columns, in the order a new file gets them; `docs/benchmarks/README.md` explains
/// each.
pub const COLUMNS: &[&str] = &columns::<{ PROVENANCE.len() + FRESH.len() }>(FRESH);

/// The run's rows, one per state and search setting, each in [`COLUMNS`] order.
pub fn rows(r: &FreshReport) -> Vec<Vec<String>> {
    (r.fresh.states.iter()).flat_map(|st| st.searches.iter().map(|s| row(r, st.state, s))).collect()
}

fn row(r: &FreshReport, state: State, s: &StateSearch) -> Vec<String> {
    let f = &r.fresh;
    let provenance = Provenance {
        started_at: &r.started_at,
        command: r.command.as_deref(),
        system: &r.system,
        dataset: &r.dataset,
        config: &r.config,
    };
    let kind =
        RowKind { rows: r.dataset.rows, refine: s.refine, batch: Some(f.config.batch_size), ef: s.ef, nprobe: None };
    let target = f.at_target.states.iter().find(|t| t.state == state);
    let int = |v: Option<u64>| v.map_or_else(String::new, |v| v.to_string());
    let mut values = provenance.cells(&kind);
    values.extend([
        ("state", state.name().to_string()),
        ("fraction", num(f.config.fraction, 4)),
        ("fresh_rows", f.config.fresh_rows.to_string()),
        ("auto_flush_rows", f.config.auto_flush_rows.to_string()),
        ("merge_factor", f.config.merge_factor.to_string()),
        ("passes", s.passes.to_string()),
        ("qps", num(s.qps, 1)),
        ("latency_p50", num(s.latency.latency_p50_ms, 3)),
        ("latency_p99", num(s.latency.latency_p99_ms, 3)),
        ("recall", num(s.recall, 4)),
        ("unindexed_start", s.start.unindexed_rows.to_string()),
        ("unindexed_end", s.end.unindexed_rows.to_string()),
        ("segments_start", s.start.segments.to_string()),
        ("segments_end", s.end.segments.to_string()),
        ("insert_sec", num(f.fresh_load.insert_sec, 3)),
        ("write_stall_ms", f.fresh_load.write_stall_ms.to_string()),
        ("drain_sec", num(f.drain.drain_sec, 3)),
        ("idle_sec", num(f.drain.idle_sec, 3)),
        ("target_recall", num(f.at_target.target_recall, 4)),
        ("ef_at_target", int(target.and_then(|t| t.ef))),
        ("p50_at_target", opt(target.and_then(|t| t.latency_p50_ms), 3)),
        ("p50_ratio_at_target", opt(target.and_then(|t| t.p50_over_baseline), 3)),
        ("peak_rss_mib", num(r.peak_rss_mib, 1)),
        ("disk_mib", num(r.disk_bytes as f64 / (1 << 20) as f64, 1)),
        ("cpu_user_sec", opt(r.cpu.user_sec, 2)),
        ("cpu_sys_sec", opt(r.cpu.sys_sec, 2)),
        ("ground_truth", r.dataset.ground_truth.clone()),
        ("notes", r.notes.join(" | ")),
    ]);
    in_order(COLUMNS, values)
}

/// Appends the run's rows to `path` (see [`append_rows`]).
pub fn append(path: &Path, report: &FreshReport) -> Result<usize, ReportError> {
    append_rows(path, COLUMNS, &rows(report))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::tests::committed_header;

    #[test]
    fn the_committed_file_has_these_columns() {
        assert_eq!(committed_header("fresh.csv"), COLUMNS.join(","));
    }

    #[test]
    fn columns_are_unique() {
        let mut c = COLUMNS.to_vec();
        c.sort_unstable();
        c.dedup();
        assert_eq!(c.len(), COLUMNS.len());
    }
}
