//! `xvec bench --fresh`: runs `xvec_bench::fresh`, prints its states, the comparison at
//! the target recall and the load and drain figures as tables, and writes the report, the
//! CSV rows and the recall/QPS plot.

use std::path::PathBuf;

use xvec::{Error, StorageError};
use xvec_bench::config::{BenchConfig, FreshConfig, SearchPoint};
use xvec_bench::fresh::{self, report::FreshReport};
use xvec_bench::phases::BenchError;
use xvec_bench::plot;

use super::CliError;
use super::bench_common::{StderrProgress, bench_error, command_line, ms, phases_table, round};
use super::context::{Io, print};
use super::output::{Cell, Table};

/// The files a fresh run writes, each when given.
pub struct Outputs {
    pub json: Option<PathBuf>,
    pub csv: Option<PathBuf>,
    pub plot: Option<PathBuf>,
}

pub fn run(cfg: &BenchConfig, f: &FreshConfig, out: &Outputs, io: &mut Io) -> Result<(), CliError> {
    let mut progress = StderrProgress::new(&mut *io.err);
    let report = fresh::run(cfg, f, Some(command_line()), &mut progress).map_err(fresh_error)?;
    drop(progress);
    if let Some(p) = &out.json {
        std::fs::write(p, report.to_json()).map_err(|e| CliError::file(p, &e))?;
    }
    if let Some(p) = &out.csv {
        let n = fresh::export::append(p, &report).map_err(|e| CliError::failed(e.to_string()))?;
        writeln!(io.err, "bench: appended {n} row{} to {}", if n == 1 { "" } else { "s" }, p.display())?;
    }
    if let Some(p) = &out.plot {
        std::fs::write(p, curves(&report)).map_err(|e| CliError::file(p, &e))?;
        writeln!(io.err, "bench: wrote {}", p.display())?;
    }
    print(io, &states_table(&report))?;
    print(io, &target_table(&report))?;
    print(io, &load_table(&report))?;
    print(io, &phases_table(&report.phases))?;
    Ok(())
}

/// [`bench_error`], with a hint that fits --fresh when a collection is in the way.
fn fresh_error(e: BenchError) -> CliError {
    let exists = matches!(&e, BenchError::Engine { source: Error::Storage(StorageError::AlreadyExists { .. }), .. });
    let c = bench_error(e);
    if exists { c.hint("--fresh creates DIR/baseline and DIR/fresh: pass another --path, or none") } else { c }
}

fn setting(ef: Option<u64>, refine: Option<u64>) -> String {
    SearchPoint { ef: ef.map(|v| v as usize), refine: refine.map(|v| v as usize), ..SearchPoint::default() }.label()
}

fn int(v: u64) -> Cell {
    Cell::from(serde_json::json!(v))
}

fn null() -> Cell {
    Cell::from(serde_json::Value::Null)
}

/// One row per state and search setting: medians over the passes, and the backlog.
fn states_table(r: &FreshReport) -> Table {
    let k = r.config.k;
    let recall = format!("recall@{k}");
    let headers = ["state", "setting", &recall, "QPS", "p50 ms", "p99 ms"]
        .into_iter()
        .chain(["unindexed start", "unindexed end", "segments", "passes"])
        .map(String::from);
    let mut t = Table::new(headers.collect::<Vec<_>>());
    for st in &r.fresh.states {
        for s in &st.searches {
            let segments = match (s.start.segments, s.end.segments) {
                (a, b) if a == b => int(a),
                (a, b) => Cell::from(format!("{a} -> {b}")),
            };
            t.push(vec![
                Cell::from(st.state.name()),
                Cell::from(setting(s.ef, s.refine)),
                round(s.recall, 4),
                round(s.qps, 1),
                ms(s.latency.latency_p50_ms),
                ms(s.latency.latency_p99_ms),
                int(s.start.unindexed_rows),
                int(s.end.unindexed_rows),
                segments,
                int(s.passes),
            ]);
        }
    }
    let c = &r.fresh.config;
    t.footer = Some(format!(
        "{}: {} rows x {}, {} queries, ground truth {}; index {}; fresh {} ({} rows after the optimize of {}), \
         auto_flush_rows {}, merge_factor {}, batch {}",
        r.dataset.name,
        r.dataset.rows,
        r.dataset.dim,
        r.dataset.queries,
        r.dataset.ground_truth,
        serde_json::to_string(&r.config.schema_index).expect("index params serialize"),
        c.fraction,
        c.fresh_rows,
        c.indexed_rows,
        c.auto_flush_rows,
        c.merge_factor,
        c.batch_size
    ));
    t
}

/// Each state at the smallest setting reaching the target recall, against the baseline.
fn target_table(r: &FreshReport) -> Table {
    let a = &r.fresh.at_target;
    let k = r.config.k;
    let mut t = Table::new([
        "state".to_string(),
        format!("setting at recall@{k} >= {}", a.target_recall),
        format!("recall@{k}"),
        "p50 ms".to_string(),
        "p50 / baseline p50".to_string(),
    ]);
    for s in &a.states {
        let opt = |v: Option<f64>, f: fn(f64) -> Cell| v.map_or_else(null, f);
        t.push(vec![
            Cell::from(s.state.name()),
            if s.reached { Cell::from(setting(s.ef, s.refine)) } else { Cell::from("not reached") },
            opt(s.recall, |v| round(v, 4)),
            opt(s.latency_p50_ms, ms),
            opt(s.p50_over_baseline, |v| round(v, 2)),
        ]);
    }
    t
}

/// The loads, the fresh inserts and the drain, one figure a row.
fn load_table(r: &FreshReport) -> Table {
    let f = &r.fresh;
    let l = &f.fresh_load;
    let mut out = Table::new(["load and drain", "value"]);
    let mut row = |what: &str, v: Cell| out.push(vec![Cell::from(what.to_string()), v]);
    let secs = |v: Option<f64>| v.map_or_else(null, |v| round(v, 3));
    row("baseline rows", int(f.baseline_load.rows));
    row("baseline insert s", secs(f.baseline_load.insert_duration_sec));
    row("baseline optimize s", secs(f.baseline_load.optimize_duration_sec));
    row("fresh collection: indexed rows", int(l.indexed.rows));
    row("indexed rows insert s", secs(l.indexed.insert_duration_sec));
    row("indexed rows optimize s", secs(l.indexed.optimize_duration_sec));
    row("fresh rows", int(f.config.fresh_rows));
    row("fresh rows insert s", round(l.insert_sec, 3));
    row("fresh rows/s", round(l.rows_per_sec, 0));
    row("longest insert call ms", round(l.longest_insert_ms, 1));
    row("write stall ms (backpressure)", int(l.write_stall_ms));
    row("unindexed rows at the last insert", int(l.at_last_insert.unindexed_rows));
    row("memtable rows at the last insert", int(l.at_last_insert.mem_rows));
    row("segments at the last insert", int(l.at_last_insert.segments));
    row("flush s", round(l.flush_sec, 3));
    row("drain s (to 0 unindexed rows)", round(f.drain.drain_sec, 3));
    row("idle s (background quiet)", round(f.drain.idle_sec, 3));
    row("background jobs after the last insert", int(f.drain.jobs));
    row("segments drained", int(f.drain.at_idle.segments));
    row("peak RSS MiB", round(r.peak_rss_mib, 1));
    out
}

/// Recall (x) against serial QPS (y) of each state, one curve per state.
fn curves(r: &FreshReport) -> String {
    let series: Vec<plot::Series> = (r.fresh.states.iter())
        .map(|st| plot::Series {
            name: st.state.name().to_string(),
            points: st.searches.iter().map(|s| (s.recall, s.qps, setting(s.ef, s.refine))).collect(),
        })
        .collect();
    let title = format!(
        "{}: recall@{} vs serial QPS, {} of the rows fresh",
        r.dataset.name, r.config.k, r.fresh.config.fraction
    );
    plot::svg(&title, &series)
}
