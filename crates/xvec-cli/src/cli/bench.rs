//! `xvec bench`: the face of the benchmark runner in `xvec_bench`. Parses the flags into
//! a [`BenchConfig`], shows progress on stderr (a bar only on a terminal), prints the
//! results and phases as tables, and writes the report, CSV rows, plot and comparison.

use std::path::PathBuf;
use std::time::Duration;

use clap::{ArgAction, Args};
use xvec::{Knob, Metric, SearchRoute, TextIndex};
use xvec_bench::compare::{self, Run};
use xvec_bench::config::{
    BenchConfig, DataSource, FreshConfig, StreamConfig, Sweep, WarmupFrom, parse_duration, parse_fraction,
    parse_positive_duration, parse_rate, parse_recall,
};
use xvec_bench::phases;
use xvec_bench::report::Report;
use xvec_bench::text::TextConfig;
use xvec_bench::{export, plot};

use super::CliError;
use super::bench_common::{StderrProgress, bench_error, command_line, ms, phases_table, round};
use super::context::{Io, print};
use super::index_flags::{IndexFlags, names};
use super::output::{Cell, Table};

/// Benchmark load time, search speed, recall and memory on a dataset.
///
/// Phases: create, insert in batches, optimize, close, reopen read-only, warm-up, a
/// concurrent phase per --concurrency value for --duration, cool-down, then a serial phase
/// (--warmup untimed queries, then every query once) with recall@k and nDCG@k. Without ground truth it is computed exactly.
/// Progress goes to stderr; the results and per-phase time, RSS and CPU to stdout.
///
/// With --streaming: insert the base into a fresh collection in batches (dataset order)
/// at --rate while --search-threads threads run the queries in a loop, each against the
/// newest snapshot; per --window, the ingest rate, QPS, p50/p99 latency, recall@k (exact,
/// for the rows each query saw), visible rows, RSS and engine memory, then totals.
///
/// With --fresh FRACTION: what fresh rows cost a query. A baseline collection gets every
/// base row and an optimize; a second one, with background maintenance (--auto-flush-rows,
/// --merge-factor), gets the first 1 - FRACTION of the base and an optimize, then the rest
/// as fast as it takes them (backpressure included), and a flush. Each --sweep setting is
/// searched serially over every query, recall@k against the exact ground truth, in three
/// states: baseline; after (at once, the background still indexing); drained (no row
/// unindexed and the background idle). Reported: QPS, p50, p99, recall and the backlog per
/// state and setting, the insert and drain times, and each state's p50 at the smallest
/// setting reaching --target-recall with its ratio to the baseline's. --repeat runs the
/// baseline and drained passes that many times, interleaved, and reports medians.
///
/// With --text FIELD: full-text indexing and search. The FIELD text of base.jsonl is
/// loaded into a collection alone (its insert and flush time is the indexing throughput)
/// and into one with the vectors (--index). Then, in --repeat interleaved rounds, every
/// query runs serially as a text query on the first and as a dense, a text and an RRF
/// hybrid (dense + text) query on the second, k each; per kind, p50, p99, mean and QPS of
/// the best round, and the median p50 against the dense query's.
///
/// Example:
///   xvec bench --dataset ~/.cache/xvec-bench/wordnet-minilm-384 --index flat -k 10 \
///       --concurrency 1,2 --duration 10s --output flat.json --csv docs/benchmarks/flat.csv
///   xvec bench --dataset DIR --index hnsw --sweep ef=16,32,64,128,256 --plot curve.svg
///   xvec bench --dataset DIR --index hnsw --sweep ef=16,32,64 --repeat 3 --concurrency 1 \
///       --duration 1s --csv docs/benchmarks/hnsw.csv
///   xvec --memory-budget 256MiB bench --dataset DIR --index disk --ef 100 \
///       --sweep beam=2,4,8,16 --csv docs/benchmarks/disk-serve.csv
///   xvec bench --compare flat.json hnsw.json
///   xvec bench --dataset DIR --streaming --rate 5000 --search-threads 1 \
///       --output stream.json --csv docs/benchmarks/streaming.csv --plot stream.svg
///   xvec bench --dataset DIR --index hnsw --text gloss --repeat 3 --csv docs/benchmarks/fts.csv
///   xvec bench --dataset DIR --index hnsw --fresh 0.3 --sweep ef=10,20,40,80 --repeat 3 \
///       --output fresh.json --csv docs/benchmarks/fresh.csv
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
#[command(group(clap::ArgGroup::new("live").args(["streaming", "fresh"])))]
pub struct BenchArgs {
    /// Dataset directory: base.fvecs + queries.fvecs (+ gt_<metric>_<k>.ivecs), or
    /// VectorDBBench's train.parquet (or shuffle_train*.parquet) + test.parquet
    /// (+ neighbors.parquet).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["base", "queries", "gt"])]
    pub dataset: Option<PathBuf>,
    /// Base vectors: .fvecs, .bvecs, .npy or .parquet.
    #[arg(long, value_name = "FILE", requires = "queries")]
    pub base: Option<PathBuf>,
    /// Query vectors: .fvecs, .bvecs, .npy or .parquet.
    #[arg(long, value_name = "FILE", requires = "base")]
    pub queries: Option<PathBuf>,
    /// Ground truth: .ivecs, integer .npy or neighbors .parquet (default: computed exactly).
    #[arg(long, value_name = "FILE", requires = "base")]
    pub gt: Option<PathBuf>,
    /// Collection directory to create (default: a temporary one, removed afterwards).
    #[arg(long, value_name = "DIR")]
    pub path: Option<PathBuf>,
    #[command(flatten)]
    pub index: IndexFlags,
    /// Similarity metric.
    #[arg(long, value_name = "METRIC", default_value_t = Metric::Cosine,
        value_parser = names::<Metric>(Metric::ALL.map(Metric::name)))]
    pub metric: Metric,
    /// Neighbours per query; recall and nDCG are computed at this k.
    #[arg(short, long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub k: u32,
    /// Search breadth of graph indexes, 1 to 100000 (default: the index's own).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub ef: Option<u32>,
    /// Lists an ivf index probes, 1 to 65536 (default: the index's nprobe).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=65_536))]
    pub nprobe: Option<u32>,
    /// Re-rank REFINE × k candidates with the original vectors, REFINE 0 to 1000 (default:
    /// the index's).
    #[arg(long, value_name = "FACTOR", value_parser = clap::value_parser!(u32).range(0..=1000))]
    pub refine: Option<u32>,
    /// A disk index's nodes expanded (blocks read at once) per hop, 1 to 64 (default:
    /// the index's beam_width).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=64))]
    pub beam_width: Option<u32>,
    /// Use only the first N base vectors (ground truth is checked, or computed, for them).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub limit: Option<u64>,
    /// Reuse the collection at --path: no create, insert or optimize.
    #[arg(long, requires = "path")]
    pub skip_load: bool,
    /// Documents per insert call.
    #[arg(long, visible_alias = "batch", value_name = "N", default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..))]
    pub batch_size: u32,
    /// Threads the optimize phase may use, 1 to 1024 (default: all cores).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub optimize_concurrency: Option<u32>,
    /// Map segment files when reopening for search, or read them into memory.
    #[arg(long, value_name = "BOOL", action = ArgAction::Set, default_value_t = true)]
    pub mmap: bool,
    /// Untimed queries before the timed phases of each search setting, and again right
    /// before the serial pass.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub warmup: u32,
    /// What the warm-up queries are: the measured queries, or base rows spread over the
    /// dataset (queries a cache that searches fill has not seen: a disk index's).
    #[arg(long, value_name = "FROM", default_value = "queries",
        value_parser = names::<WarmupFrom>(WarmupFrom::ALL.map(WarmupFrom::name)))]
    pub warmup_from: WarmupFrom,
    /// Thread counts of the concurrent phase, e.g. 1,2,4 (default: 1 and all cores).
    #[arg(long, value_name = "N,N", value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub concurrency: Option<Vec<u32>>,
    /// How long each concurrent phase runs, e.g. 30s, 0.2s, 500ms, 2m.
    #[arg(long, value_name = "TIME", default_value = "30s", value_parser = parse_duration)]
    pub duration: Duration,
    /// Pause between the concurrent phases and the serial phase.
    #[arg(long, value_name = "TIME", default_value = "1s", value_parser = parse_duration)]
    pub cooldown: Duration,
    /// Run the search phases once per value, e.g. ef=16,32,64,128,256 (ef, refine,
    /// nprobe or beam, a disk index's beam width).
    #[arg(long, value_name = "PARAM=V,V")]
    pub sweep: Option<Sweep>,
    /// Every query carries this filter, e.g. "pos = 'v'": the base rows' scalar attributes
    /// are loaded from the JSON Lines file beside the base vectors (base.jsonl beside
    /// base.fvecs), and ground truth is computed among the rows the filter allows.
    #[arg(long, value_name = "EXPR", conflicts_with_all = ["streaming", "fresh"])]
    pub filter: Option<String>,
    /// How segments with a graph index are searched: auto (the engine's cost model picks
    /// graph or an exact scan of the allowed rows per segment), or forced to graph or
    /// exact, to measure one route against the other.
    #[arg(long, value_name = "ROUTE", default_value = "auto",
        value_parser = names::<SearchRoute>(SearchRoute::ALL.map(SearchRoute::name)))]
    pub route: SearchRoute,
    /// Threads for computing ground truth when the dataset has none, 1 to 1024 (default:
    /// all cores).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub gt_threads: Option<u32>,
    /// Write the report as JSON (schema: docs/bench-report.schema.json).
    #[arg(short, long, value_name = "FILE.json")]
    pub output: Option<PathBuf>,
    /// Append one row per search setting to this CSV file.
    #[arg(long, value_name = "FILE.csv")]
    pub csv: Option<PathBuf>,
    /// Draw recall (x) against QPS (y, log scale) as SVG, with any --compare runs.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Insert and search at once, reported over time (no load or search phases).
    #[arg(long, conflicts_with_all = ["skip_load", "sweep", "compare", "concurrency", "duration", "cooldown", "warmup"])]
    pub streaming: bool,
    /// Target ingest rate of --streaming in rows per second (default: as fast as possible).
    #[arg(long, value_name = "ROWS_PER_S", requires = "streaming", value_parser = parse_rate)]
    pub rate: Option<f64>,
    /// Threads searching while --streaming inserts, 0 (ingest only) to 1024 (default: 1).
    #[arg(long, value_name = "N", requires = "streaming", value_parser = clap::value_parser!(u32).range(0..=1024))]
    pub search_threads: Option<u32>,
    /// --streaming's insert thread holds the newest snapshot between batches, as a program
    /// that queries between its writes does.
    #[arg(long, requires = "streaming")]
    pub hold_snapshot: bool,
    /// Create the --streaming or --fresh collection with this auto_flush_rows: background
    /// flushes, index builds and tiered merges while rows arrive (default: 0, off, for
    /// --streaming; 16384 for --fresh).
    #[arg(long, value_name = "ROWS", requires = "live")]
    pub auto_flush_rows: Option<u64>,
    /// Start an optimize (one build thread) once --streaming has inserted ROWS rows, and
    /// report the writes during it next to the rest of the run.
    #[arg(long, value_name = "ROWS", requires = "streaming")]
    pub optimize_at: Option<u64>,
    /// Length of a --streaming report window, e.g. 1s, 500ms (default: 1s).
    #[arg(long, value_name = "TIME", requires = "streaming", value_parser = parse_positive_duration)]
    pub window: Option<Duration>,
    /// Flush after every ROWS rows --streaming inserts (default: 0, never).
    #[arg(long, value_name = "ROWS", requires = "streaming")]
    pub flush_every: Option<u64>,
    /// Search with this share of the rows fresh, e.g. 0.3, against a fully indexed
    /// collection: right after the inserts and once the backlog drained (no load or
    /// concurrent phases).
    #[arg(long, value_name = "FRACTION", value_parser = parse_fraction,
        conflicts_with_all = ["skip_load", "compare", "concurrency", "duration", "cooldown"])]
    pub fresh: Option<f64>,
    /// Segments of one size tier the --fresh collection's background merges into one, 2
    /// to 1000 (default: the engine's, 10).
    #[arg(long, value_name = "N", requires = "fresh", value_parser = clap::value_parser!(u32).range(2..=1000))]
    pub merge_factor: Option<u32>,
    /// The recall at which --fresh compares the states' p50 latency (default: 0.95).
    #[arg(long, value_name = "RECALL", requires = "fresh", value_parser = parse_recall)]
    pub target_recall: Option<f64>,
    /// Interleaved rounds (default: 1): of the search phases over every --sweep setting
    /// (each reports its median round by serial QPS, and every round's QPS), of --fresh's
    /// baseline and drained passes, or of --text's query kinds.
    #[arg(long, value_name = "N", conflicts_with = "streaming", value_parser = clap::value_parser!(u32).range(1..=100))]
    pub repeat: Option<u32>,
    /// Full-text and hybrid search: index this text key of base.jsonl (a string field
    /// with a full-text index, alone and beside the vectors), then time text, dense and
    /// RRF hybrid (dense + text) queries; each query's text is its --text-query-key in
    /// queries.jsonl.
    #[arg(long, value_name = "FIELD", requires = "dataset",
        conflicts_with_all = ["live", "skip_load", "sweep", "compare", "filter", "output", "plot"])]
    pub text: Option<String>,
    /// The full-text index of --text (JSON, as a schema's string field takes it).
    #[arg(
        long,
        value_name = "JSON",
        requires = "text",
        default_value = r#"{"type": "fts", "filters": ["lowercase", "stop_en", "stem_en"]}"#
    )]
    pub text_index: String,
    /// The key of queries.jsonl holding each --text query's text (an array of strings is
    /// joined by spaces).
    #[arg(long, value_name = "KEY", requires = "text", default_value = "lemmas")]
    pub text_query_key: String,
    /// With --text: the sparse queries stop after scoring N postings per segment
    /// (approximate; their recall against brute force is reported). Default: exact.
    #[arg(long, value_name = "N", requires = "text", value_parser = clap::value_parser!(u64).range(1..))]
    pub sparse_budget: Option<u64>,
    /// Reports to print side by side (after this run's, if a dataset is given), with
    /// ratios to the first.
    #[arg(long, value_name = "FILE.json", num_args = 1..)]
    pub compare: Vec<PathBuf>,
    /// The global --memory-budget: every collection the run opens is opened under it.
    #[arg(skip)]
    pub memory_budget: Option<u64>,
}

impl BenchArgs {
    /// The run these flags describe, or `None` when there is no dataset (compare only).
    fn config(&self) -> Result<Option<BenchConfig>, CliError> {
        let source = match (&self.dataset, &self.base, &self.queries) {
            (Some(d), _, _) => DataSource::Dir { dataset: d.clone() },
            (None, Some(b), Some(q)) => DataSource::Files { base: b.clone(), queries: q.clone(), gt: self.gt.clone() },
            _ => return Ok(None),
        };
        let mut c = BenchConfig::new(source);
        c.path = self.path.clone();
        c.index = self.index.params()?;
        c.metric = self.metric;
        c.k = self.k as usize;
        c.ef = self.ef.map(|v| v as usize);
        c.refine = self.refine.map(|v| v as usize);
        c.nprobe = self.nprobe.map(|v| v as usize);
        c.beam_width = self.beam_width.map(|v| v as usize);
        c.limit = self.limit.map(|v| v as usize);
        c.skip_load = self.skip_load;
        c.batch_size = self.batch_size as usize;
        if let Some(n) = self.optimize_concurrency {
            c.optimize_concurrency = n as usize;
        }
        c.mmap = self.mmap;
        c.memory_budget = self.memory_budget;
        c.warmup = self.warmup as usize;
        c.warmup_from = self.warmup_from;
        if let Some(list) = &self.concurrency {
            c.concurrency = list.iter().map(|&n| n as usize).collect();
        }
        c.duration = self.duration;
        c.cooldown = self.cooldown;
        c.sweep = self.sweep.clone();
        if let Some(n) = self.gt_threads {
            c.truth_threads = n as usize;
        }
        c.filter = self.filter.clone();
        c.route = self.route;
        c.repeat = self.repeat.map_or(1, |n| n as usize);
        use xvec_bench::config::SweepParam;
        let swept = |p| c.sweep.as_ref().is_some_and(|s| s.param == p);
        let given = [
            (Knob::Ef, c.ef.is_some() || swept(SweepParam::Ef)),
            (Knob::Nprobe, c.nprobe.is_some() || swept(SweepParam::Nprobe)),
            (Knob::Refine, c.refine.is_some() || swept(SweepParam::Refine)),
            (Knob::BeamWidth, c.beam_width.is_some() || swept(SweepParam::Beam)),
        ];
        for (knob, given) in given {
            if let Some(index) = c.index.knob_refusal(knob).filter(|_| given) {
                let flag = super::query::knob_flag(knob);
                let msg = format!("{flag} does not apply to --index {index}; {flag} {}", knob.help());
                return Err(CliError::usage(msg).hint(format!("{} to this index", super::query::applies(&c.index))));
            }
        }
        Ok(Some(c))
    }

    /// The --streaming settings, or `None` without --streaming.
    fn stream_config(&self) -> Option<StreamConfig> {
        let d = StreamConfig::default();
        self.streaming.then(|| StreamConfig {
            rate: self.rate,
            search_threads: self.search_threads.map_or(d.search_threads, |n| n as usize),
            hold_snapshot: self.hold_snapshot,
            auto_flush_rows: self.auto_flush_rows.unwrap_or(d.auto_flush_rows),
            optimize_at: self.optimize_at,
            window: self.window.unwrap_or(d.window),
            flush_every: self.flush_every.map_or(d.flush_every, |n| usize::try_from(n).unwrap_or(usize::MAX)),
        })
    }

    /// The --fresh settings, or `None` without --fresh.
    fn fresh_config(&self) -> Option<FreshConfig> {
        let d = FreshConfig::default();
        self.fresh.map(|fraction| FreshConfig {
            fraction,
            auto_flush_rows: self.auto_flush_rows.unwrap_or(d.auto_flush_rows),
            merge_factor: self.merge_factor.unwrap_or(d.merge_factor),
            target_recall: self.target_recall.unwrap_or(d.target_recall),
            repeat: self.repeat.map_or(d.repeat, |n| n as usize),
        })
    }
}

pub fn run(args: BenchArgs, io: &mut Io) -> Result<(), CliError> {
    let mut runs = Vec::new();
    let mut title = "recall vs QPS".to_string();
    match args.config()? {
        Some(cfg) if args.text.is_some() => {
            let DataSource::Dir { dataset } = cfg.source.clone() else { unreachable!("--text requires --dataset") };
            let text = TextConfig {
                dataset,
                field: args.text.clone().expect("--text was given"),
                text_index: TextIndex::parse(&args.text_index)
                    .map_err(|e| CliError::usage(format!("--text-index: {e}")))?,
                query_key: args.text_query_key.clone(),
                sparse_budget: args.sparse_budget,
                index: cfg.index.clone(),
                metric: cfg.metric,
                k: cfg.k,
                repeat: args.repeat.map_or(1, |n| n as usize),
                batch_size: cfg.batch_size,
                limit: cfg.limit,
            };
            return super::text_bench::run(&text, args.path.clone(), args.csv.as_ref(), io);
        }
        Some(cfg) if args.streaming => {
            let stream = args.stream_config().expect("--streaming was given");
            let out = super::streaming::Outputs { json: args.output, csv: args.csv, plot: args.plot };
            return super::streaming::run(&cfg, &stream, &out, io);
        }
        Some(cfg) if args.fresh.is_some() => {
            let fresh = args.fresh_config().expect("--fresh was given");
            let out = super::fresh::Outputs { json: args.output, csv: args.csv, plot: args.plot };
            return super::fresh::run(&cfg, &fresh, &out, io);
        }
        Some(cfg) => {
            let mut progress = StderrProgress::new(&mut *io.err);
            let report = phases::run(&cfg, Some(command_line()), &mut progress).map_err(bench_error)?;
            drop(progress);
            if let Some(p) = &args.output {
                std::fs::write(p, report.to_json()).map_err(|e| CliError::file(p, &e))?;
            }
            if let Some(p) = &args.csv {
                let n = export::append(p, &report).map_err(|e| CliError::failed(e.to_string()))?;
                writeln!(io.err, "bench: appended {n} row{} to {}", if n == 1 { "" } else { "s" }, p.display())?;
            }
            print(io, &results_table(&report))?;
            print(io, &phases_table(&report.phases))?;
            print(io, &memory_table(&report))?;
            title = format!("{}: recall@{} vs serial QPS", report.dataset.name, report.config.k);
            let json = serde_json::to_value(&report).expect("reports serialize");
            runs.push(Run::new("this run".into(), json).map_err(|e| CliError::failed(e.to_string()))?);
        }
        None if args.compare.is_empty() => {
            return Err(CliError::usage(
                "bench needs --dataset DIR, or --base FILE --queries FILE, or --compare FILE...",
            ));
        }
        None => {}
    }
    for p in &args.compare {
        runs.push(Run::load(p).map_err(|e| CliError::failed(e.to_string()))?);
    }
    if runs.len() > 1 || !args.compare.is_empty() {
        let c = compare::compare(&runs);
        let mut t = Table::new(c.headers);
        c.rows.into_iter().for_each(|r| t.push(r.into_iter().map(Cell::from).collect()));
        print(io, &t)?;
    }
    if let Some(p) = &args.plot {
        let series: Vec<plot::Series> = runs.iter().map(Run::series).collect();
        std::fs::write(p, plot::svg(&title, &series)).map_err(|e| CliError::file(p, &e))?;
        writeln!(io.err, "bench: wrote {}", p.display())?;
    }
    Ok(())
}

/// One row per search setting: quality, serial latency and concurrent throughput.
fn results_table(r: &Report) -> Table {
    let k = r.config.k;
    let mut headers: Vec<String> =
        ["setting", &format!("recall@{k}"), &format!("ndcg@{k}"), "serial QPS"].iter().map(|s| s.to_string()).collect();
    headers.extend(["p50 ms", "p95 ms", "p99 ms"].map(String::from));
    for c in &r.concurrent {
        headers.push(format!("QPS c={}", c.concurrency));
        headers.push(format!("p99 ms c={}", c.concurrency));
    }
    // Reads per query (serial pass): node blocks where a disk index was searched, and
    // the device's bytes wherever /proc/self/io could be read.
    let disk = r.searches.iter().any(|s| s.serial.reads.blocks_read_mean.is_some());
    let device = r.searches.iter().any(|s| s.serial.reads.read_bytes_per_query.is_some());
    if disk {
        headers.extend(["blocks/query", "p99 blocks", "beam"].map(String::from));
    }
    if device {
        headers.push("KiB read/query".into());
    }
    let mut t = Table::new(headers);
    for s in &r.searches {
        let size = |v: Option<u64>| v.map(|v| v as usize);
        let point = xvec_bench::config::SearchPoint {
            ef: size(s.ef),
            refine: size(s.refine),
            nprobe: size(s.nprobe),
            beam_width: size(s.beam_width),
        };
        let label = point.label();
        let mut row = vec![
            Cell::from(label),
            round(s.serial.recall, 4),
            round(s.serial.ndcg, 4),
            round(s.serial.qps, 1),
            ms(s.serial.latency.latency_p50_ms),
            ms(s.serial.latency.latency_p95_ms),
            ms(s.serial.latency.latency_p99_ms),
        ];
        for c in &s.concurrent {
            row.push(round(c.qps, 1));
            row.push(ms(c.latency.latency_p99_ms));
        }
        let reads = &s.serial.reads;
        let count = |v: Option<u64>| v.map_or_else(|| Cell::from(""), Cell::from);
        if disk {
            row.push(reads.blocks_read_mean.map_or_else(|| Cell::from(""), |v| round(v, 1)));
            row.push(count(reads.blocks_read_p99));
            row.push(count(reads.beam_width));
        }
        if device {
            row.push(reads.read_bytes_per_query.map_or_else(|| Cell::from(""), |v| round(v / 1024.0, 1)));
        }
        t.push(row);
    }
    let l = &r.load;
    let load = match (l.insert_duration_sec, l.optimize_duration_sec, l.rows_per_second) {
        (Some(i), Some(o), Some(rps)) => {
            format!("insert {i:.2} s ({rps:.0} rows/s), optimize {o:.2} s [{}]", l.optimize)
        }
        _ => l.optimize.clone(),
    };
    let mib = |b: u64| b as f64 / (1 << 20) as f64;
    let open = r.phases.iter().find(|p| p.name == "open").map_or_else(String::new, |p| {
        let budget =
            r.config.memory_budget.map_or_else(String::new, |b| format!(" under a budget of {:.1} MiB", mib(b)));
        format!("; open {:.3} s{budget}", p.duration_sec)
    });
    t.footer = Some(format!(
        "{}: {} rows x {}, {} queries, ground truth {}; index {}; {load}{open}; peak RSS {:.1} MiB, engine {:.1} MiB, disk {:.1} MiB",
        r.dataset.name,
        l.rows,
        r.dataset.dim,
        r.dataset.queries,
        r.dataset.ground_truth,
        serde_json::to_string(&r.config.schema_index).expect("index params serialize"),
        r.peak_rss_mib,
        mib(r.engine_memory.total),
        mib(r.disk_bytes)
    ));
    t
}

/// The process's peak RSS beside the engine's own accounting, by kind, in MiB.
fn memory_table(r: &Report) -> Table {
    let mut t = Table::new(["memory", "MiB"]);
    let mib = |b: u64| round(b as f64 / (1 << 20) as f64, 1);
    t.push(vec![Cell::from("peak RSS, whole process"), round(r.peak_rss_mib, 1)]);
    t.push(vec![Cell::from("peak RSS, from open on (query process)"), round(r.query_peak_rss_mib, 1)]);
    let m = &r.engine_memory;
    for (what, bytes) in m.usage.by_kind().into_iter().chain([("total", m.total)]) {
        t.push(vec![Cell::from(format!("engine: {what}")), mib(bytes)]);
    }
    t
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use xvec::{HnswParams, IndexParams, Quantize};

    use super::*;
    use crate::cli::{Cli, Command};

    fn parse(args: &[&str]) -> BenchArgs {
        let cli = Cli::try_parse_from([&["xvec", "bench"], args].concat()).unwrap();
        match cli.command {
            Command::Bench(a) => *a,
            other => panic!("parsed as {other:?}"),
        }
    }

    #[test]
    fn flags_become_the_config() {
        let c = parse(&["--dataset", "d"]).config().unwrap().unwrap();
        assert_eq!((&c.index, c.metric, c.k, c.mmap), (&IndexParams::default(), Metric::Cosine, 10, true));
        assert_eq!((c.duration, c.batch_size, c.warmup), (Duration::from_secs(30), 1000, 100));
        let a = parse(&[
            "--base",
            "b.fvecs",
            "--queries",
            "q.fvecs",
            "--index",
            "hnsw",
            "--m",
            "8",
            "--rotate",
            "--mmap",
            "false",
            "--concurrency",
            "1,4",
            "--duration",
            "500ms",
            "--quantize",
            "int8",
            "--sweep",
            "ef=16,32",
            "-k",
            "5",
        ]);
        let c = a.config().unwrap().unwrap();
        assert_eq!(c.source, DataSource::Files { base: "b.fvecs".into(), queries: "q.fvecs".into(), gt: None });
        let hnsw = HnswParams::default().m(8).quantize(Quantize::Int8).rotate(true);
        assert_eq!((c.index, c.mmap, c.k), (IndexParams::Hnsw(hnsw), false, 5));
        assert_eq!((c.concurrency, c.duration), (vec![1, 4], Duration::from_millis(500)));
        assert_eq!(parse(&["--dataset", "d", "--metric", "l2"]).config().unwrap().unwrap().metric, Metric::L2);
        // No dataset: compare only.
        assert!(parse(&["--compare", "a.json"]).config().unwrap().is_none());
        // --streaming and its settings; without it, none.
        assert_eq!(parse(&["--dataset", "d"]).stream_config(), None);
        let a = parse(&["--dataset", "d", "--streaming", "--rate", "2500.5", "--window", "250ms", "--batch", "50"]);
        let s = a.stream_config().unwrap();
        assert_eq!(
            (s.rate, s.search_threads, s.window, s.flush_every),
            (Some(2500.5), 1, Duration::from_millis(250), 0)
        );
        assert_eq!(a.config().unwrap().unwrap().batch_size, 50);
        let s =
            parse(&["--dataset", "d", "--streaming", "--search-threads", "3", "--flush-every", "9"]).stream_config();
        assert_eq!(s.map(|s| (s.rate, s.search_threads, s.flush_every)), Some((None, 3, 9)));
        // --fresh and its settings; without it, none.
        assert_eq!(parse(&["--dataset", "d"]).fresh_config(), None);
        let f = parse(&["--dataset", "d", "--fresh", "0.3"]).fresh_config().unwrap();
        assert_eq!(f, FreshConfig { fraction: 0.3, ..FreshConfig::default() });
        assert_eq!(f.auto_flush_rows, 16384);
        let a = parse(&[
            "--dataset",
            "d",
            "--index",
            "hnsw",
            "--fresh",
            "0.25",
            "--auto-flush-rows",
            "500",
            "--merge-factor",
            "3",
            "--target-recall",
            "0.9",
            "--repeat",
            "3",
            "--sweep",
            "ef=10,20",
        ]);
        let f = a.fresh_config().unwrap();
        assert_eq!((f.fraction, f.auto_flush_rows, f.merge_factor, f.target_recall, f.repeat), (0.25, 500, 3, 0.9, 3));
        assert_eq!(a.config().unwrap().unwrap().sweep.map(|s| s.values), Some(vec![10, 20]));
        // --repeat on a plain run: interleaved rounds of its search phases.
        assert_eq!(parse(&["--dataset", "d"]).config().unwrap().unwrap().repeat, 1);
        assert_eq!(
            parse(&["--dataset", "d", "--index", "hnsw", "--sweep", "ef=8,16", "--repeat", "3"])
                .config()
                .unwrap()
                .unwrap()
                .repeat,
            3
        );
        // A parameter of another index type.
        let e = parse(&["--dataset", "d", "--degree", "8"]).config().unwrap_err();
        assert_eq!(e.message, "--degree applies to --index vamana or qg or disk");
    }

    #[test]
    fn bad_flags_are_usage_errors() {
        for bad in [
            &["--dataset", "d", "-k", "0"][..],
            &["--dataset", "d", "--concurrency", "0"],
            &["--dataset", "d", "--batch-size", "0"],
            &["--dataset", "d", "--quantize", "int3"],
            &["--dataset", "d", "--metric", "hamming"],
            &["--base", "b.fvecs"],
            &["--skip-load", "--dataset", "d"],
            &["--dataset", "d", "--streaming", "--rate", "0"],
            &["--dataset", "d", "--streaming", "--window", "0s"],
            &["--dataset", "d", "--streaming", "--search-threads", "1025"],
            &["--dataset", "d", "--window", "1s"],
            &["--dataset", "d", "--streaming", "--concurrency", "2"],
            &["--dataset", "d", "--fresh", "1"],
            &["--dataset", "d", "--fresh", "0"],
            &["--dataset", "d", "--fresh", "0.3", "--streaming"],
            &["--dataset", "d", "--fresh", "0.3", "--duration", "1s"],
            &["--dataset", "d", "--fresh", "0.3", "--skip-load", "--path", "p"],
            &["--dataset", "d", "--fresh", "0.3", "--merge-factor", "1"],
            &["--dataset", "d", "--fresh", "0.3", "--target-recall", "1.5"],
            &["--dataset", "d", "--fresh", "0.3", "--repeat", "0"],
            &["--dataset", "d", "--streaming", "--repeat", "2"],
            &["--dataset", "d", "--merge-factor", "4"],
            &["--dataset", "d", "--auto-flush-rows", "4"],
        ] {
            assert!(Cli::try_parse_from([&["xvec", "bench"], bad].concat()).is_err(), "{bad:?}");
        }
    }
}
