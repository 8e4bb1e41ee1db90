//! `xvec bench --text FIELD`: full-text indexing and text, dense and hybrid query latency
//! (`xvec_bench::text`), printed as tables and appended as CSV rows in the columns of
//! `docs/benchmarks/fts_peers.py`, so BM25 libraries measured in the same sitting sit
//! beside them.

use std::path::PathBuf;

use xvec_bench::export::append_rows;
use xvec_bench::text::{self, KINDS, Pass, TextConfig, TextReport};
use xvec_io::sys::{SystemInfo, loadavg, utc_now};

use super::CliError;
use super::bench_common::{bench_error, command_line, ms, round};
use super::context::{Io, print};
use super::output::{Cell, Table};

/// The CSV columns, shared with `docs/benchmarks/fts_peers.py`.
const COLUMNS: &[&str] = &[
    "date",
    "db",
    "db_version",
    "command",
    "machine",
    "cores",
    "load_start",
    "load_end",
    "dataset",
    "docs",
    "queries",
    "k",
    "index_seconds",
    "docs_per_second",
    "latency_p50_ms",
    "latency_p99_ms",
    "latency_mean_ms",
    "qps",
    "peak_rss_mib",
    "notes",
];

/// The pass of a kind with the lowest mean latency (the least disturbed by the machine).
fn best(passes: &[Pass]) -> &Pass {
    passes.iter().min_by(|a, b| a.mean.total_cmp(&b.mean)).expect("at least one round")
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

pub fn run(cfg: &TextConfig, path: Option<PathBuf>, csv: Option<&PathBuf>, io: &mut Io) -> Result<(), CliError> {
    let date = utc_now();
    let load_start = loadavg().map(|l| l[0]);
    writeln!(
        io.err,
        "bench: loading {} and running {} rounds of {} query kinds",
        cfg.dataset.display(),
        cfg.repeat,
        KINDS.len()
    )?;
    let r: TextReport = text::run(cfg, path.as_deref()).map_err(bench_error)?;
    let load_end = loadavg().map(|l| l[0]);
    let index_sec = r.text_insert_sec + r.text_flush_sec;
    let mut load = Table::new(["collection", "docs", "insert s", "flush/optimize s", "docs/s", "fts index MiB"]);
    load.push(vec![
        "text only".into(),
        (r.docs as u64).into(),
        round(r.text_insert_sec, 3),
        round(r.text_flush_sec, 3),
        round(r.docs as f64 / index_sec, 0),
        round(r.text_index_bytes as f64 / 1048576.0, 2),
    ]);
    load.push(vec![
        "text + vectors".into(),
        (r.docs as u64).into(),
        round(r.hybrid_insert_sec, 3),
        round(r.hybrid_optimize_sec, 3),
        round(r.docs as f64 / (r.hybrid_insert_sec + r.hybrid_optimize_sec), 0),
        Cell::from(serde_json::Value::Null),
    ]);
    print(io, &load)?;
    let dense_p50 = median(r.passes[1].iter().map(|p| p.p50).collect());
    let mut t = Table::new(["query", "p50 ms", "p99 ms", "mean ms", "QPS", "p50 / dense", "rounds p50 ms"]);
    for (kind, passes) in KINDS.iter().zip(&r.passes) {
        let b = best(passes);
        let p50s: Vec<String> = passes.iter().map(|p| format!("{:.3}", p.p50)).collect();
        let ratio = median(passes.iter().map(|p| p.p50).collect()) / dense_p50;
        t.push(vec![
            (*kind).into(),
            ms(b.p50),
            ms(b.p99),
            ms(b.mean),
            round(b.qps, 0),
            round(ratio, 2),
            p50s.join(" ").into(),
        ]);
    }
    print(io, &t)?;
    writeln!(io.err, "bench: {:.2} text hits per query on average (k {})", r.mean_text_hits, cfg.k)?;
    writeln!(
        io.err,
        "bench: sparse recall@{} against brute force {:.4} ({} postings, sparse index {:.2} MiB)",
        cfg.k,
        r.sparse_recall,
        r.sparse_postings,
        r.sparse_index_bytes as f64 / 1048576.0
    )?;
    if let Some(p) = csv {
        let sys = SystemInfo::collect();
        let opt = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v:.2}"));
        let rows: Vec<Vec<String>> = KINDS
            .iter()
            .zip(&r.passes)
            .map(|(kind, passes)| {
                let b = best(passes);
                let rounds: Vec<String> = passes.iter().map(|p| format!("{:.4}/{:.4}", p.p50, p.p99)).collect();
                let indexed = *kind == "text only";
                vec![
                    date.clone(),
                    "xvec".into(),
                    sys.xvec_version.clone(),
                    command_line(),
                    sys.cpu_model.clone().unwrap_or_default(),
                    sys.cores.to_string(),
                    opt(load_start),
                    opt(load_end),
                    cfg.dataset.file_name().map_or(String::new(), |n| n.to_string_lossy().into_owned()),
                    r.docs.to_string(),
                    r.queries.to_string(),
                    cfg.k.to_string(),
                    if indexed { format!("{index_sec:.3}") } else { String::new() },
                    if indexed { format!("{:.0}", r.docs as f64 / index_sec) } else { String::new() },
                    format!("{:.4}", b.p50),
                    format!("{:.4}", b.p99),
                    format!("{:.4}", b.mean),
                    format!("{:.1}", b.qps),
                    String::new(),
                    format!(
                        "commit {}; query {kind}; best of {} rounds by mean; rounds p50/p99 ms {}{}",
                        sys.commit.clone().unwrap_or_default(),
                        passes.len(),
                        rounds.join(" "),
                        match *kind {
                            "sparse" => format!(
                                "; {}; recall@{} vs brute force {:.4}; {} postings, sparse index {:.2} MiB",
                                cfg.sparse_budget.map_or("exact".to_string(), |b| format!("budget {b} postings")),
                                cfg.k,
                                r.sparse_recall,
                                r.sparse_postings,
                                r.sparse_index_bytes as f64 / 1048576.0
                            ),
                            _ => String::new(),
                        }
                    ),
                ]
            })
            .collect();
        let n = append_rows(p, COLUMNS, &rows).map_err(|e| CliError::failed(e.to_string()))?;
        writeln!(io.err, "bench: appended {n} rows to {}", p.display())?;
    }
    Ok(())
}
