//! `--csv FILE`: a report flattened into rows of one CSV file that collects runs over
//! time (ours and the peers'), one row per search setting.
//!
//! Column names follow VectorDBBench's result fields where they overlap (`qps`,
//! `recall`, `ndcg`, `insert_duration`, `load_duration`, `serial_latency_p99`,
//! `conc_num_list`, ...); durations are seconds, latencies milliseconds, lists are
//! `;`-separated. Rows are written in the column order of the file's header, so a
//! file keeps its layout; a file whose header lacks one of our columns is refused.

use std::io::Write;
use std::path::Path;

use super::report::{ConfigReport, DatasetReport, Report, ReportError, SearchReport, SystemReport};

/// The columns every kind of row starts with, in this order: when and by what the run
/// was made, on which machine, and what it searched (data, metric, k, index, ef). Shared
/// by the search rows here and the streaming rows ([`crate::stream::export`]), so that
/// rows of one sitting line up across files; [`Provenance`] writes them for every kind.
pub const PROVENANCE: &[&str] = &[
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
];

/// The search rows' columns after [`PROVENANCE`].
const SEARCH: &[&str] = &[
    "insert_duration",
    "optimize_duration",
    "load_duration",
    "rows_per_second",
    "qps",
    "serial_qps",
    "recall",
    "ndcg",
    "serial_latency_avg",
    "serial_latency_p50",
    "serial_latency_p95",
    "serial_latency_p99",
    "conc_num_list",
    "conc_qps_list",
    "conc_latency_avg_list",
    "conc_latency_p95_list",
    "conc_latency_p99_list",
    "peak_rss_mib",
    "disk_mib",
    "cpu_user_sec",
    "cpu_sys_sec",
    "ground_truth",
    "notes",
    "memory_budget",
    "open_duration",
    "blocks_read_mean",
    "blocks_read_p99",
    "read_bytes_per_query",
    "beam_width",
    "cached_nodes",
];

/// The columns, in the order a new file gets them. `docs/benchmarks/README.md`
/// explains each.
pub const COLUMNS: &[&str] = &columns::<{ PROVENANCE.len() + SEARCH.len() }>(SEARCH);

/// [`PROVENANCE`] followed by `rest`, as a constant (`N` is the sum of their lengths).
pub(crate) const fn columns<const N: usize>(rest: &[&'static str]) -> [&'static str; N] {
    assert!(PROVENANCE.len() + rest.len() == N, "N is the number of columns");
    let mut out = [""; N];
    let mut i = 0;
    while i < N {
        out[i] = if i < PROVENANCE.len() { PROVENANCE[i] } else { rest[i - PROVENANCE.len()] };
        i += 1;
    }
    out
}

/// The parts of a report the [`PROVENANCE`] columns come from; every report kind has them.
pub(crate) struct Provenance<'a> {
    pub started_at: &'a str,
    pub command: Option<&'a str>,
    pub system: &'a SystemReport,
    pub dataset: &'a DatasetReport,
    pub config: &'a ConfigReport,
}

/// What differs between the row kinds in the [`PROVENANCE`] columns.
pub(crate) struct RowKind {
    /// The `rows` cell: rows searched (search rows), or inserted (streaming rows).
    pub rows: u64,
    /// The row's `refine`, listed in `params` when set.
    pub refine: Option<u64>,
    /// Rows per insert call, listed in `params` when the row kind has no column of its own for it.
    pub batch: Option<u64>,
    /// The `ef` cell.
    pub ef: Option<u64>,
    /// An IVF search's `nprobe`: the `ef` cell when there is no ef (as the peers' rows
    /// have it: the search breadth), and listed in `params`.
    pub nprobe: Option<u64>,
}

impl Provenance<'_> {
    /// The [`PROVENANCE`] cells of one row, named.
    pub(crate) fn cells(&self, kind: &RowKind) -> Vec<(&'static str, String)> {
        let (c, info) = (self.config, &self.system.info);
        let load = |l: Option<[f64; 3]>| l.map_or_else(String::new, |l| num(l[0], 2));
        let mut params =
            vec![format!("index={}", serde_json::to_string(&c.schema_index).expect("index params serialize"))];
        params.extend(kind.refine.map(|v| format!("refine={v}")));
        params.extend(kind.nprobe.map(|v| format!("nprobe={v}")));
        params.extend(kind.batch.map(|v| format!("batch={v}")));
        params.push(format!("mmap={}", c.mmap));
        params.extend(c.limit.map(|l| format!("limit={l}")));
        params.extend(c.filter.as_ref().map(|f| format!("filter={f:?}")));
        params.extend(self.dataset.filter_rows.map(|n| format!("filter_rows={n}")));
        params.extend((c.route != "auto").then(|| format!("route={}", c.route)));
        vec![
            ("date", self.started_at.to_string()),
            ("db", "xvec".to_string()),
            ("db_version", info.xvec_version.clone()),
            ("commit", info.commit.clone().unwrap_or_default()),
            ("command", self.command.unwrap_or_default().to_string()),
            ("machine", info.cpu_model.clone().unwrap_or_default()),
            ("cores", info.cores.to_string()),
            ("load_start", load(self.system.loadavg_start)),
            ("load_end", load(self.system.loadavg_end)),
            ("dataset", self.dataset.name.clone()),
            ("rows", kind.rows.to_string()),
            ("dim", self.dataset.dim.to_string()),
            ("queries", self.dataset.queries.to_string()),
            ("metric", c.metric.name().to_string()),
            ("k", c.k.to_string()),
            ("index", c.index.name().to_string()),
            ("params", params.join(" ")),
            ("ef", kind.ef.or(kind.nprobe).map_or_else(String::new, |v| v.to_string())),
        ]
    }
}

/// The cells of one row in `columns` order, from the named `values` (which must name
/// exactly `columns`, in order).
pub(crate) fn in_order(columns: &[&str], values: Vec<(&'static str, String)>) -> Vec<String> {
    debug_assert!(values.iter().map(|(n, _)| *n).eq(columns.iter().copied()), "cells in column order");
    values.into_iter().map(|(_, v)| v).collect()
}

/// The rows of `report`, one per search setting, each in [`COLUMNS`] order.
pub fn rows(report: &Report) -> Vec<Vec<String>> {
    report.searches.iter().map(|s| row(report, s)).collect()
}

pub(crate) fn num(v: f64, digits: usize) -> String {
    format!("{v:.digits$}")
}

pub(crate) fn opt(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(String::new, |v| num(v, digits))
}

fn list(values: impl Iterator<Item = String>) -> String {
    values.collect::<Vec<_>>().join(";")
}

fn row(r: &Report, s: &SearchReport) -> Vec<String> {
    let c = &r.config;
    let provenance = Provenance {
        started_at: &r.started_at,
        command: r.command.as_deref(),
        system: &r.system,
        dataset: &r.dataset,
        config: c,
    };
    let kind = RowKind { rows: r.load.rows, refine: s.refine, batch: Some(c.batch_size), ef: s.ef, nprobe: s.nprobe };
    let best = s.concurrent.iter().map(|x| x.qps).fold(None, |m: Option<f64>, q| Some(m.map_or(q, |m| m.max(q))));
    let mut values = provenance.cells(&kind);
    values.extend([
        ("insert_duration", opt(r.load.insert_duration_sec, 3)),
        ("optimize_duration", opt(r.load.optimize_duration_sec, 3)),
        ("load_duration", opt(r.load.load_duration_sec, 3)),
        ("rows_per_second", opt(r.load.rows_per_second, 0)),
        ("qps", opt(best, 1)),
        ("serial_qps", num(s.serial.qps, 1)),
        ("recall", num(s.serial.recall, 4)),
        ("ndcg", num(s.serial.ndcg, 4)),
        ("serial_latency_avg", num(s.serial.latency.latency_avg_ms, 3)),
        ("serial_latency_p50", num(s.serial.latency.latency_p50_ms, 3)),
        ("serial_latency_p95", num(s.serial.latency.latency_p95_ms, 3)),
        ("serial_latency_p99", num(s.serial.latency.latency_p99_ms, 3)),
        ("conc_num_list", list(s.concurrent.iter().map(|x| x.concurrency.to_string()))),
        ("conc_qps_list", list(s.concurrent.iter().map(|x| num(x.qps, 1)))),
        ("conc_latency_avg_list", list(s.concurrent.iter().map(|x| num(x.latency.latency_avg_ms, 3)))),
        ("conc_latency_p95_list", list(s.concurrent.iter().map(|x| num(x.latency.latency_p95_ms, 3)))),
        ("conc_latency_p99_list", list(s.concurrent.iter().map(|x| num(x.latency.latency_p99_ms, 3)))),
        ("peak_rss_mib", num(r.peak_rss_mib, 1)),
        ("disk_mib", num(r.disk_bytes as f64 / (1 << 20) as f64, 1)),
        ("cpu_user_sec", opt(r.cpu.user_sec, 2)),
        ("cpu_sys_sec", opt(r.cpu.sys_sec, 2)),
        ("ground_truth", r.dataset.ground_truth.clone()),
        ("notes", {
            // The query-only peak has no column of its own: older rows keep their shape.
            let peak = format!("query_peak_rss_mib={:.1}", r.query_peak_rss_mib);
            let rounds = (!s.serial_qps_rounds.is_empty()).then(|| {
                let qps: Vec<String> = s.serial_qps_rounds.iter().map(|q| num(*q, 1)).collect();
                format!("serial_qps_rounds={} (median reported)", qps.join("/"))
            });
            std::iter::once(peak).chain(rounds).chain(r.notes.iter().cloned()).collect::<Vec<_>>().join(" | ")
        }),
        ("memory_budget", c.memory_budget.map_or_else(String::new, |b| b.to_string())),
        ("open_duration", opt(r.phases.iter().find(|p| p.name == "open").map(|p| p.duration_sec), 3)),
        ("blocks_read_mean", opt(s.serial.reads.blocks_read_mean, 2)),
        ("blocks_read_p99", s.serial.reads.blocks_read_p99.map_or_else(String::new, |v| v.to_string())),
        ("read_bytes_per_query", opt(s.serial.reads.read_bytes_per_query, 0)),
        ("beam_width", s.serial.reads.beam_width.map_or_else(String::new, |v| v.to_string())),
        ("cached_nodes", s.serial.reads.cached_nodes.map_or_else(String::new, |v| v.to_string())),
    ]);
    in_order(COLUMNS, values)
}

/// One CSV field, quoted when it holds a comma, quote or line break (RFC 4180).
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_string() }
}

/// Appends the rows of `report` to `path`, writing [`COLUMNS`] as the header of a new
/// or empty file, else following the existing header's order.
pub fn append(path: &Path, report: &Report) -> Result<usize, ReportError> {
    append_rows(path, COLUMNS, &rows(report))
}

/// Appends `rows` (cells in `columns` order) to `path`: `columns` become the header of a
/// new or empty file; an existing header gives the order, and must hold every column.
pub fn append_rows(path: &Path, columns: &[&str], rows: &[Vec<String>]) -> Result<usize, ReportError> {
    let io = |source| ReportError::Io { path: path.to_path_buf(), source };
    let existing = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(io(e)),
    };
    let header: Vec<String> = match existing.lines().next() {
        Some(line) if !line.trim().is_empty() => line.split(',').map(|h| h.trim().to_string()).collect(),
        _ => Vec::new(),
    };
    let order: Vec<Option<usize>> = if header.is_empty() {
        (0..columns.len()).map(Some).collect()
    } else {
        let missing: Vec<&str> = columns.iter().copied().filter(|c| !header.iter().any(|h| h == c)).collect();
        if !missing.is_empty() {
            return Err(ReportError::Format {
                path: Some(path.to_path_buf()),
                what: format!("line 1: the header lacks the columns {}; append to a new file", missing.join(", ")),
            });
        }
        header.iter().map(|h| columns.iter().position(|c| c == h)).collect()
    };
    let mut out = String::new();
    if header.is_empty() {
        out.push_str(&columns.join(","));
        out.push('\n');
    } else if !existing.ends_with('\n') {
        out.push('\n');
    }
    for r in rows {
        let cells: Vec<String> = order.iter().map(|i| i.map_or_else(String::new, |i| field(&r[i]))).collect();
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(path).map_err(io)?;
    f.write_all(out.as_bytes()).map_err(io)?;
    Ok(rows.len())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn fields_are_quoted_only_when_needed() {
        assert_eq!(field("plain"), "plain");
        assert_eq!(field("a,b"), "\"a,b\"");
        assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(field("two\nlines"), "\"two\nlines\"");
    }

    /// The first line of a committed CSV file in `docs/benchmarks`.
    pub(crate) fn committed_header(file: &str) -> String {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/benchmarks").join(file);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        text.lines().next().unwrap_or_default().to_string()
    }

    #[test]
    fn the_committed_files_have_these_columns() {
        for file in ["flat.csv", "hnsw.csv", "vamana.csv", "ivf.csv"] {
            assert_eq!(committed_header(file), COLUMNS.join(","), "{file}");
        }
        assert_eq!(COLUMNS[..PROVENANCE.len()], *PROVENANCE);
    }

    #[test]
    fn columns_are_unique() {
        let mut c = COLUMNS.to_vec();
        c.sort_unstable();
        c.dedup();
        assert_eq!(c.len(), COLUMNS.len());
    }
}
