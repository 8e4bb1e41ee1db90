//! `xvec tui`: arguments, and the adapter from the command tree to [`crate::tui`].

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueHint};
use xvec_bench::config::parse_duration;

use super::context::{Collections, Io, color_allowed, print};
use super::output::Table;
use super::{BindArgs, CliError, CollectionArg};
use crate::tui;

/// Live dashboard: run a search workload, watch QPS, latency, recall and memory.
///
/// Runs queries against the collection on workload threads and shows, several times a
/// second, throughput, latency percentiles and histogram, recall@k (against --gt, else
/// against exact search on a sample of the queries), the process RSS beside the engine's
/// memory accounting, and CPU time. Views: 1 overview, 2 search, 3 optimize (with
/// --write), 4 segments and graph topology; `?` shows the keys. Queries come from
/// --queries or are sampled from the collection; a sampled query's own row is left out of
/// its answer and of its exact reference, so recall estimates that of outside queries.
/// --text-field and --sparse-field make each query hybrid: the sampled row's text and
/// sparse vector rank beside its vector, fused by RRF (recall then has no reference).
/// --headless runs the same workload without a screen and prints the panel values.
///
/// Example:
///   xvec tui words
///   xvec tui ann --queries q.fvecs --gt gt.ivecs --filter "lang = 'en'" --write
///   xvec tui ann --headless --duration 10s --json
///   xvec tui words --text-field gloss --sparse-field bm25
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct TuiArgs {
    #[command(flatten)]
    pub coll: CollectionArg,
    /// Open for writing (takes the writer lock), so the Optimize view can optimize.
    #[arg(long)]
    pub write: bool,
    /// Vector field to search (default: the only one).
    #[arg(long, value_name = "NAME")]
    pub field: Option<String>,
    /// Hybrid queries: add a BM25 branch over this full-text field, its query the sampled
    /// row's text (first 32 words), fused with the vector query by RRF.
    #[arg(long, value_name = "FIELD")]
    pub text_field: Option<String>,
    /// Hybrid queries: add an exact sparse branch over this sparse field, its query the
    /// sampled row's sparse vector.
    #[arg(long, value_name = "FIELD")]
    pub sparse_field: Option<String>,
    /// Query vectors, .fvecs or .npy (default: sampled from the collection).
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub queries: Option<PathBuf>,
    /// Most queries read from --queries.
    #[arg(long, value_name = "N", default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_queries: u32,
    /// Ground truth of --queries, .ivecs or .npy (keys must be dataset ids).
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath, requires = "queries")]
    pub gt: Option<PathBuf>,
    /// Filter the `f` key turns on and off (on at the start).
    #[arg(long, value_name = "EXPR")]
    pub filter: Option<String>,
    #[command(flatten)]
    pub bind: BindArgs,
    /// Neighbours per query.
    #[arg(short, long, value_name = "K", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub k: u32,
    /// Search breadth of graph indexes, 1 to 100000 (HNSW ef, Vamana query list; default:
    /// the index's).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub ef: Option<u32>,
    /// Lists an IVF index probes per query, 1 to 65536 (default: the index's).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=xvec::MAX_NLIST as i64))]
    pub nprobe: Option<u32>,
    /// Re-rank factor of quantized indexes, 0 to 1000 (0: codes only; default: the index's).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=1000))]
    pub refine: Option<u32>,
    /// Workload threads at the start (default: all cores).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=64))]
    pub concurrency: Option<u32>,
    /// Queries with an exact-search reference for recall when there is no --gt.
    #[arg(long, value_name = "N", default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..))]
    pub recall_sample: u32,
    /// Stop after this long (e.g. 10s, 2m); headless runs default to 10s.
    #[arg(long, value_name = "TIME", value_parser = parse_duration)]
    pub duration: Option<Duration>,
    /// No screen: run the workload for --duration, then print the panel values.
    #[arg(long)]
    pub headless: bool,
    /// With --headless: print the values as one JSON object.
    #[arg(long, requires = "headless")]
    pub json: bool,
}

pub fn run(a: &TuiArgs, colls: &mut dyn Collections, io: &mut Io) -> Result<(), CliError> {
    let terminal = std::io::stdout().is_terminal() && std::io::stdin().is_terminal();
    if !a.headless && !terminal {
        return Err(CliError::usage("the dashboard needs a terminal").hint("run it headless: --headless --json"));
    }
    let coll = colls.open(&a.coll.dir, a.write)?;
    let options = tui::Options {
        field: a.field.clone(),
        hybrid: tui::workload::Hybrid { text_field: a.text_field.clone(), sparse_field: a.sparse_field.clone() },
        filter: a.filter.clone(),
        params: io.params.clone(),
        queries: a.queries.clone(),
        max_queries: a.max_queries as usize,
        gt: a.gt.clone(),
        k: a.k as usize,
        ef: a.ef.map(|e| e as usize),
        nprobe: a.nprobe.map(|n| n as usize),
        refine: a.refine.map(|r| r as usize),
        concurrency: a.concurrency.map_or(std::thread::available_parallelism().map_or(1, |n| n.get()), |c| c as usize),
        duration: a.duration,
        recall_sample: a.recall_sample as usize,
        color: color_allowed(),
    };
    let failed = |e: tui::TuiError| {
        let err = if e.usage { CliError::usage(e.message) } else { CliError::failed(e.message) };
        match e.hint {
            Some(h) => err.hint(h),
            None => err,
        }
    };
    if !a.headless {
        return tui::interactive(coll, &options).map_err(failed);
    }
    let values = tui::headless(coll, &options).map_err(failed)?;
    if a.json {
        writeln!(io.out, "{values}")?;
        return Ok(());
    }
    let mut t = Table::new(["name", "value"]);
    flatten("", &values, &mut t);
    print(io, &t)
}

/// One `name`, `value` row per leaf, names joined with dots (`latency_ms.p99`).
fn flatten(prefix: &str, v: &serde_json::Value, t: &mut Table) {
    match v {
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                flatten(&if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") }, v, t);
            }
        }
        serde_json::Value::Array(items) => {
            for item in items {
                match (item.get("kind").and_then(|k| k.as_str()), item.get("bytes")) {
                    (Some(kind), Some(bytes)) => t.push(vec![format!("{prefix}.{kind}").into(), bytes.clone().into()]),
                    _ => t.push(vec![prefix.to_string().into(), item.clone().into()]),
                }
            }
        }
        other => t.push(vec![prefix.to_string().into(), other.clone().into()]),
    }
}
