//! `xvec bench --streaming`: runs `xvec_bench::stream`, prints its windows and totals as
//! tables, and writes the report, the CSV row and the timeline plot.

use std::path::PathBuf;
use xvec_bench::config::{BenchConfig, StreamConfig};

use xvec_bench::plot::{self, Panel};
use xvec_bench::stream::{self, report::StreamReport};

use super::CliError;
use super::bench_common::{StderrProgress, bench_error, command_line, ms, phases_table, round};
use super::context::{Io, print};
use super::output::{Cell, Table};

/// The files a streaming run writes, each when given.
pub struct Outputs {
    pub json: Option<PathBuf>,
    pub csv: Option<PathBuf>,
    pub plot: Option<PathBuf>,
}

pub fn run(cfg: &BenchConfig, s: &StreamConfig, out: &Outputs, io: &mut Io) -> Result<(), CliError> {
    let mut progress = StderrProgress::new(&mut *io.err);
    let report = stream::run(cfg, s, Some(command_line()), &mut progress).map_err(bench_error)?;
    drop(progress);
    if let Some(p) = &out.json {
        std::fs::write(p, report.to_json()).map_err(|e| CliError::file(p, &e))?;
    }
    if let Some(p) = &out.csv {
        stream::export::append(p, &report).map_err(|e| CliError::failed(e.to_string()))?;
        writeln!(io.err, "bench: appended 1 row to {}", p.display())?;
    }
    if let Some(p) = &out.plot {
        std::fs::write(p, timeline(&report)).map_err(|e| CliError::file(p, &e))?;
        writeln!(io.err, "bench: wrote {}", p.display())?;
    }
    print(io, &windows_table(&report))?;
    print(io, &totals_table(&report))?;
    print(io, &phases_table(&report.phases))?;
    Ok(())
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1 << 20) as f64
}

fn opt(v: Option<f64>, digits: i32) -> Cell {
    v.map_or(Cell::from(serde_json::Value::Null), |v| round(v, digits))
}

/// One row per window: when it ended, rows in and visible, rates, latency, recall, memory.
fn windows_table(r: &StreamReport) -> Table {
    let k = r.config.k;
    let mut t = Table::new(
        [
            "t s",
            "rows",
            "visible",
            "rows/s",
            "QPS",
            "p50 ms",
            "p99 ms",
            &format!("recall@{k}"),
            "RSS MiB",
            "engine MiB",
        ]
        .map(String::from),
    );
    for w in &r.streaming.windows {
        t.push(vec![
            round(w.end_sec, 3),
            Cell::from(serde_json::json!(w.total_rows)),
            w.visible_rows.map_or(Cell::from(serde_json::Value::Null), |v| Cell::from(serde_json::json!(v))),
            round(w.ingest_rows_per_sec, 0),
            round(w.qps, 1),
            ms(w.latency.latency_p50_ms),
            ms(w.latency.latency_p99_ms),
            opt(w.recall, 4),
            opt(w.rss_mib, 1),
            opt(w.engine_bytes.map(mib), 1),
        ]);
    }
    let c = &r.streaming.config;
    let rate = c.rate_rows_per_sec.map_or_else(|| "as fast as possible".to_string(), |v| format!("{v} rows/s"));
    t.footer = Some(format!(
        "{}: {} rows x {}, {} queries; index {}; batch {}, rate {rate}, {} search thread{}, window {} s",
        r.dataset.name,
        r.dataset.rows,
        r.dataset.dim,
        r.dataset.queries,
        serde_json::to_string(&r.config.schema_index).expect("index params serialize"),
        c.batch_size,
        c.search_threads,
        if c.search_threads == 1 { "" } else { "s" },
        c.window_sec
    ));
    t
}

/// The run's totals, one figure a row.
fn totals_table(r: &StreamReport) -> Table {
    let t = &r.streaming.totals;
    let k = r.config.k;
    let mut out = Table::new(["total", "value"]);
    let mut row = |what: &str, v: Cell| out.push(vec![Cell::from(what.to_string()), v]);
    row("rows", Cell::from(serde_json::json!(t.rows)));
    row("seconds", round(t.duration_sec, 3));
    row("rows/s", round(t.rows_per_sec, 0));
    row("flushes", Cell::from(serde_json::json!(t.flushes)));
    row("queries", Cell::from(serde_json::json!(t.queries)));
    row("QPS", round(t.qps, 1));
    row("p50 ms", ms(t.latency.latency_p50_ms));
    row("p95 ms", ms(t.latency.latency_p95_ms));
    row("p99 ms", ms(t.latency.latency_p99_ms));
    row(&format!("recall@{k}"), opt(t.recall, 4));
    row(&format!("recall@{k}, last window"), opt(t.recall_last_window, 4));
    row(&format!("recall@{k}, lowest window"), opt(t.recall_min_window, 4));
    row("peak RSS MiB", round(r.peak_rss_mib, 1));
    row("engine MiB, largest sample", opt(t.engine_max_bytes.map(mib), 1));
    row("engine MiB, at the end", round(mib(r.engine_memory.total), 1));
    if let Some(o) = &t.optimize {
        row("optimize seconds", round(o.end_sec - o.start_sec, 3));
        row("rows/s during optimize", round(o.rows_per_sec_during, 0));
        row("rows/s outside optimize", round(o.rows_per_sec_outside, 0));
        row("longest batch ms during optimize", round(o.max_batch_ms_during, 1));
        row("longest batch ms outside optimize", round(o.max_batch_ms_outside, 1));
    }
    out
}

/// Ingest rate, QPS, p99 latency and recall over time, at each window's middle.
fn timeline(r: &StreamReport) -> String {
    let w = &r.streaming.windows;
    let panel = |name: String, f: &dyn Fn(&stream::report::Window) -> Option<f64>| Panel {
        name,
        points: w.iter().filter_map(|w| Some(((w.start_sec + w.end_sec) / 2.0, f(w)?))).collect(),
    };
    let panels = [
        panel("ingest, rows/s".into(), &|w| Some(w.ingest_rows_per_sec)),
        panel("search QPS".into(), &|w| Some(w.qps)),
        panel("p99 latency, ms".into(), &|w| (w.queries > 0).then_some(w.latency.latency_p99_ms)),
        panel(format!("recall@{}", r.config.k), &|w| w.recall),
    ];
    let c = &r.streaming.config;
    let title = format!(
        "{}: streaming insert, {} search thread{}",
        r.dataset.name,
        c.search_threads,
        if c.search_threads == 1 { "" } else { "s" }
    );
    plot::timeline_svg(&title, &panels)
}
