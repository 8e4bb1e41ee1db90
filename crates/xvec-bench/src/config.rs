//! What a benchmark run does: the dataset, the collection's index, the search parameters
//! and the phase timings. Built by the `xvec bench` flags (or by a library caller), then
//! handed whole to [`super::phases::run`]; nothing here touches a file.

use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;

use xvec::{Field, IndexParams, Metric, OpenOptions, Schema, SchemaError, SearchRoute, VectorType};

/// Where the vectors come from.
#[derive(Clone, Debug, PartialEq)]
pub enum DataSource {
    /// A directory in a known layout (see [`super::source`]).
    Dir { dataset: PathBuf },
    /// Explicit files; without `gt` the ground truth is computed.
    Files { base: PathBuf, queries: PathBuf, gt: Option<PathBuf> },
}

/// What the untimed warm-up queries are (`--warmup-from`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum WarmupFrom {
    /// The measured queries themselves.
    #[default]
    Queries,
    /// Base rows spread evenly over the dataset: queries from the same distribution that
    /// the timed passes never ask, so a cache that searches fill (a disk index's) is warm
    /// without having seen the measured queries.
    Base,
}

impl WarmupFrom {
    pub const ALL: [WarmupFrom; 2] = [WarmupFrom::Queries, WarmupFrom::Base];

    pub fn name(self) -> &'static str {
        match self {
            WarmupFrom::Queries => "queries",
            WarmupFrom::Base => "base",
        }
    }
}

/// A name no [`WarmupFrom`] has.
#[derive(Debug, thiserror::Error)]
#[error("warm-up source {0:?}: expected queries or base")]
pub struct UnknownWarmup(String);

impl std::str::FromStr for WarmupFrom {
    type Err = UnknownWarmup;

    fn from_str(s: &str) -> Result<WarmupFrom, UnknownWarmup> {
        WarmupFrom::ALL.into_iter().find(|w| w.name() == s).ok_or_else(|| UnknownWarmup(s.to_string()))
    }
}

/// A search parameter `--sweep` may vary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SweepParam {
    Ef,
    Refine,
    Nprobe,
    /// A disk index's beam width (`Query::beam_width`).
    Beam,
}

impl SweepParam {
    pub fn name(self) -> &'static str {
        match self {
            SweepParam::Ef => "ef",
            SweepParam::Refine => "refine",
            SweepParam::Nprobe => "nprobe",
            SweepParam::Beam => "beam",
        }
    }
}

/// `--sweep ef=16,32,64`: the search phases run once per value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Sweep {
    pub param: SweepParam,
    pub values: Vec<usize>,
}

/// A flag value that does not parse: what it was, what it should be.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{input}' is not {what}; expected {expected}")]
#[non_exhaustive]
pub struct ParseError {
    pub input: String,
    /// What the value stands for, e.g. `a duration`.
    pub what: &'static str,
    pub expected: &'static str,
}

impl ParseError {
    fn new(input: &str, what: &'static str, expected: &'static str) -> ParseError {
        ParseError { input: input.to_string(), what, expected }
    }
}

impl std::str::FromStr for Sweep {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Sweep, ParseError> {
        let (name, list) =
            s.split_once('=').ok_or_else(|| ParseError::new(s, "a sweep", "PARAM=V1,V2,... e.g. ef=16,32"))?;
        let param = match name.trim() {
            "ef" => SweepParam::Ef,
            "refine" => SweepParam::Refine,
            "nprobe" => SweepParam::Nprobe,
            "beam" => SweepParam::Beam,
            other => {
                return Err(ParseError::new(other, "a parameter that can be swept", "ef, refine, nprobe or beam"));
            }
        };
        let values = list
            .split(',')
            .map(|v| {
                v.trim().parse::<usize>().map_err(|_| ParseError::new(v, "a sweep value", "a non-negative integer"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        if values.is_empty() || (param != SweepParam::Refine && values.contains(&0)) {
            return Err(ParseError::new(s, "a sweep", "at least one value, ef, nprobe and beam values at least 1"));
        }
        if param == SweepParam::Beam && values.iter().any(|&v| v > xvec::MAX_BEAM_WIDTH) {
            return Err(ParseError::new(s, "a sweep", "beam widths from 1 to 64"));
        }
        Ok(Sweep { param, values })
    }
}

/// Parses a duration: `30s`, `0.2s`, `500ms`, `2m`, or plain seconds.
pub fn parse_duration(s: &str) -> Result<Duration, ParseError> {
    let t = s.trim();
    let (num, scale) = if let Some(n) = t.strip_suffix("ms") {
        (n, 1e-3)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1.0)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60.0)
    } else {
        (t, 1.0)
    };
    match num.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 && v * scale < 1e9 => Ok(Duration::from_secs_f64(v * scale)),
        _ => Err(ParseError::new(s, "a duration", "e.g. 30s, 0.2s, 500ms or 2m")),
    }
}

/// Parses a duration above zero (see [`parse_duration`]), e.g. a window length.
pub fn parse_positive_duration(s: &str) -> Result<Duration, ParseError> {
    match parse_duration(s) {
        Ok(d) if !d.is_zero() => Ok(d),
        _ => Err(ParseError::new(s, "a duration above 0", "e.g. 1s, 0.5s or 250ms")),
    }
}

/// Parses a rate in rows per second: a finite number above zero.
pub fn parse_rate(s: &str) -> Result<f64, ParseError> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(ParseError::new(s, "a rate", "rows per second above 0, e.g. 5000 or 250.5")),
    }
}

/// Parses a fraction strictly between 0 and 1, e.g. the share of fresh rows.
pub fn parse_fraction(s: &str) -> Result<f64, ParseError> {
    match s.trim().parse::<f64>() {
        Ok(v) if v > 0.0 && v < 1.0 => Ok(v),
        _ => Err(ParseError::new(s, "a fraction", "a number between 0 and 1 (both excluded), e.g. 0.3")),
    }
}

/// Parses a recall above 0 and at most 1.
pub fn parse_recall(s: &str) -> Result<f64, ParseError> {
    match s.trim().parse::<f64>() {
        Ok(v) if v > 0.0 && v <= 1.0 => Ok(v),
        _ => Err(ParseError::new(s, "a recall", "a number above 0 and at most 1, e.g. 0.95")),
    }
}

/// Everything one benchmark run does.
#[derive(Clone, Debug)]
pub struct BenchConfig {
    pub source: DataSource,
    /// Collection directory; `None` uses a fresh temporary directory, removed afterwards.
    pub path: Option<PathBuf>,
    /// The index of the vector field, every parameter the engine takes.
    pub index: IndexParams,
    pub metric: Metric,
    pub k: usize,
    /// Search breadth of graph indexes (`Query::ef`); `None` uses the index default.
    pub ef: Option<usize>,
    /// Re-rank factor (`Query::refine`); `None` uses the index default.
    pub refine: Option<usize>,
    /// IVF lists probed (`Query::nprobe`); `None` uses the index default.
    pub nprobe: Option<usize>,
    /// A disk index's beam width (`Query::beam_width`); `None` uses the index's.
    pub beam_width: Option<usize>,
    /// Use only the first `limit` base vectors.
    pub limit: Option<usize>,
    /// Reuse the collection at `path` instead of creating and loading it.
    pub skip_load: bool,
    /// Documents per insert call.
    pub batch_size: usize,
    /// Threads the optimize phase may use.
    pub optimize_concurrency: usize,
    /// Map segments when reopening for search (`OpenOptions::mmap`).
    pub mmap: bool,
    /// `OpenOptions::memory_budget` of every handle the run opens (`--memory-budget`):
    /// the search phases' (what a disk index pins, what it reads) and the load's, whose
    /// optimize builds disk indexes under it.
    pub memory_budget: Option<u64>,
    /// Serial queries before the timed phases.
    pub warmup: usize,
    /// What the warm-up queries are.
    pub warmup_from: WarmupFrom,
    /// Thread counts of the concurrent phase, each run for `duration`.
    pub concurrency: Vec<usize>,
    pub duration: Duration,
    /// Pause between the concurrent and the serial phase.
    pub cooldown: Duration,
    pub sweep: Option<Sweep>,
    /// Threads for computing ground truth when the dataset has none.
    pub truth_threads: usize,
    /// Every query carries this filter; the base rows' attributes are loaded with them
    /// (see [`crate::attributes`]) and ground truth is computed among the rows it allows.
    pub filter: Option<String>,
    /// Graph or exact scan per segment (`Query::route`): the engine's choice by default.
    pub route: SearchRoute,
    /// Rounds of the search phases over every search setting, interleaved (round 1 runs
    /// every setting, then round 2, ...); each setting reports its median round by serial
    /// QPS, and every round's QPS.
    pub repeat: usize,
}

impl BenchConfig {
    /// A configuration with the reference tool's defaults for `source`.
    pub fn new(source: DataSource) -> BenchConfig {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        BenchConfig {
            source,
            path: None,
            index: IndexParams::default(),
            metric: Metric::Cosine,
            k: 10,
            ef: None,
            refine: None,
            nprobe: None,
            beam_width: None,
            limit: None,
            skip_load: false,
            batch_size: 1000,
            optimize_concurrency: cores,
            mmap: true,
            memory_budget: None,
            warmup: 100,
            warmup_from: WarmupFrom::Queries,
            concurrency: if cores > 1 { vec![1, cores] } else { vec![1] },
            duration: Duration::from_secs(30),
            cooldown: Duration::from_secs(1),
            sweep: None,
            truth_threads: cores,
            filter: None,
            route: SearchRoute::Auto,
            repeat: 1,
        }
    }

    /// The collection schema: one fp32 vector field `emb` of `dim` dimensions with this
    /// run's metric and index, checked by the engine as any schema is.
    pub fn schema(&self, dim: usize, attributes: impl IntoIterator<Item = Field>) -> Result<Schema, SchemaError> {
        let dim = u32::try_from(dim).unwrap_or(u32::MAX);
        let builder = Schema::builder("bench")
            .field(Field::vector("emb", VectorType::Fp32, dim, self.metric).index(self.index.clone()));
        attributes.into_iter().fold(builder, |b, f| b.field(f)).build()
    }

    /// `base` under this run's memory budget, if it has one.
    pub fn budgeted(&self, base: OpenOptions) -> OpenOptions {
        match self.memory_budget {
            Some(bytes) => base.memory_budget(bytes),
            None => base,
        }
    }

    /// The search settings to run, one per sweep value (or just the configured one).
    pub fn search_points(&self) -> Vec<SearchPoint> {
        let base = SearchPoint { ef: self.ef, refine: self.refine, nprobe: self.nprobe, beam_width: self.beam_width };
        match &self.sweep {
            None => vec![base],
            Some(s) => s
                .values
                .iter()
                .map(|&v| match s.param {
                    SweepParam::Ef => SearchPoint { ef: Some(v.max(self.k)), ..base },
                    SweepParam::Refine => SearchPoint { refine: Some(v), ..base },
                    SweepParam::Nprobe => SearchPoint { nprobe: Some(v), ..base },
                    SweepParam::Beam => SearchPoint { beam_width: Some(v), ..base },
                })
                .collect(),
        }
    }
}

/// `--streaming`: insert the base in batches (dataset order) while threads search.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamConfig {
    /// Target ingest rate in rows per second; `None` inserts as fast as the engine takes.
    pub rate: Option<f64>,
    /// Threads running the query set in a loop while rows arrive.
    pub search_threads: usize,
    /// Length of one reporting window.
    pub window: Duration,
    /// Flush after every this many rows inserted; 0 never flushes.
    pub flush_every: usize,
    /// The insert thread holds the newest snapshot between batches, as a program that
    /// queries between writes does (0 search threads then measures what holding costs).
    pub hold_snapshot: bool,
    /// The collection's `auto_flush_rows`: background flushes, index builds and merges.
    pub auto_flush_rows: u64,
    /// Start an optimize (concurrency 1) on its own thread once this many rows are in,
    /// to measure what writes see while it runs.
    pub optimize_at: Option<u64>,
}

impl Default for StreamConfig {
    fn default() -> StreamConfig {
        StreamConfig {
            rate: None,
            search_threads: 1,
            window: Duration::from_secs(1),
            flush_every: 0,
            hold_snapshot: false,
            auto_flush_rows: 0,
            optimize_at: None,
        }
    }
}

impl StreamConfig {
    /// Why this configuration cannot run, if it cannot.
    pub fn check(&self) -> Result<(), String> {
        if let Some(r) = self.rate
            && !(r.is_finite() && r > 0.0)
        {
            return Err(format!("--rate {r}: the rate must be a positive number of rows per second"));
        }
        if self.window.is_zero() {
            return Err("--window must be longer than 0".into());
        }
        Ok(())
    }
}

/// `--fresh`: search latency with a share of the rows fresh, against a fully indexed
/// collection (see [`crate::fresh`]).
#[derive(Clone, Debug, PartialEq)]
pub struct FreshConfig {
    /// Share of the base inserted after the optimize, last in dataset order; in (0, 1).
    pub fraction: f64,
    /// The fresh collection's `auto_flush_rows`: background flushes, index builds, merges.
    pub auto_flush_rows: u64,
    /// The fresh collection's `merge_factor`.
    pub merge_factor: u32,
    /// The recall at which the states' latencies are compared.
    pub target_recall: f64,
    /// Search passes of the baseline and the drained state (interleaved); the medians are
    /// reported.
    pub repeat: usize,
}

impl Default for FreshConfig {
    fn default() -> FreshConfig {
        FreshConfig {
            fraction: 0.3,
            auto_flush_rows: 16_384,
            merge_factor: xvec::CollectionOptions::default().merge_factor,
            target_recall: 0.95,
            repeat: 1,
        }
    }
}

impl FreshConfig {
    /// Why this configuration cannot run, if it cannot.
    pub fn check(&self) -> Result<(), String> {
        if !(self.fraction > 0.0 && self.fraction < 1.0) {
            return Err(format!("--fresh {}: the fraction must lie between 0 and 1", self.fraction));
        }
        if self.auto_flush_rows == 0 {
            return Err(
                "--auto-flush-rows must be at least 1 with --fresh: background maintenance is what it measures".into(),
            );
        }
        if self.merge_factor < 2 {
            return Err(format!("--merge-factor {}: merges take at least 2 segments", self.merge_factor));
        }
        if !(self.target_recall > 0.0 && self.target_recall <= 1.0) {
            return Err(format!("--target-recall {}: a recall lies above 0 and at most 1", self.target_recall));
        }
        if self.repeat == 0 {
            return Err("--repeat must be at least 1".into());
        }
        Ok(())
    }

    /// Of `rows` base rows, how many go in before the optimize and how many after (the
    /// fresh ones, rounded to the nearest row); `None` when either part would be empty.
    pub fn split(&self, rows: usize) -> Option<(usize, usize)> {
        let fresh = (rows as f64 * self.fraction).round() as usize;
        (fresh > 0 && fresh < rows).then(|| (rows - fresh, fresh))
    }
}

/// One setting of the search parameters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchPoint {
    pub ef: Option<usize>,
    pub refine: Option<usize>,
    pub nprobe: Option<usize>,
    pub beam_width: Option<usize>,
}

impl SearchPoint {
    /// `ef=64 refine=4`, `ef=64 beam=8`, or `defaults` when none is set.
    pub fn label(&self) -> String {
        let knobs = [("ef", self.ef), ("refine", self.refine), ("nprobe", self.nprobe), ("beam", self.beam_width)];
        let parts: Vec<String> = knobs.iter().filter_map(|(name, v)| v.map(|v| format!("{name}={v}"))).collect();
        if parts.is_empty() { "defaults".into() } else { parts.join(" ") }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("0.2s"), Ok(Duration::from_millis(200)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration(" 1.5 "), Ok(Duration::from_millis(1500)));
        for bad in ["", "s", "-1s", "abc", "1h", "nan", "1e300"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn rates_and_windows() {
        assert_eq!((parse_rate("5000"), parse_rate(" 0.5 ")), (Ok(5000.0), Ok(0.5)));
        for bad in ["0", "-1", "inf", "NaN", "fast", ""] {
            assert!(parse_rate(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_positive_duration("250ms"), Ok(Duration::from_millis(250)));
        assert!(parse_positive_duration("0").unwrap_err().to_string().contains("not a duration above 0"));
        let mut s = StreamConfig::default();
        assert_eq!(s.check(), Ok(()));
        s.search_threads = 0;
        assert_eq!(s.check(), Ok(()), "ingest only");
        s = StreamConfig { rate: Some(0.0), ..StreamConfig::default() };
        assert!(s.check().unwrap_err().contains("--rate"));
        s = StreamConfig { window: Duration::ZERO, ..StreamConfig::default() };
        assert!(s.check().unwrap_err().contains("--window"));
    }

    #[test]
    fn fresh_settings() {
        assert_eq!((parse_fraction("0.3"), parse_fraction(" 0.999 ")), (Ok(0.3), Ok(0.999)));
        for bad in ["0", "1", "1.5", "-0.2", "nan", "x", ""] {
            assert!(parse_fraction(bad).is_err(), "{bad}");
        }
        assert_eq!((parse_recall("0.95"), parse_recall("1")), (Ok(0.95), Ok(1.0)));
        for bad in ["0", "1.01", "-1", "inf", "NaN", ""] {
            assert!(parse_recall(bad).is_err(), "{bad}");
        }
        let f = FreshConfig::default();
        assert_eq!(f.check(), Ok(()));
        assert_eq!((f.split(1000), f.split(3), f.split(1)), (Some((700, 300)), Some((2, 1)), None));
        assert_eq!(FreshConfig { fraction: 0.001, ..f.clone() }.split(100), None, "no fresh row");
        assert!(FreshConfig { auto_flush_rows: 0, ..f.clone() }.check().unwrap_err().contains("--auto-flush-rows"));
        assert!(FreshConfig { merge_factor: 1, ..f.clone() }.check().unwrap_err().contains("--merge-factor"));
        assert!(FreshConfig { repeat: 0, ..f.clone() }.check().unwrap_err().contains("--repeat"));
        assert!(FreshConfig { fraction: 1.0, ..f }.check().unwrap_err().contains("--fresh"));
    }

    #[test]
    fn sweeps() {
        assert_eq!("ef=16,32".parse(), Ok(Sweep { param: SweepParam::Ef, values: vec![16, 32] }));
        assert_eq!("refine=0,4".parse(), Ok(Sweep { param: SweepParam::Refine, values: vec![0, 4] }));
        assert_eq!("beam=2,4,8,16".parse(), Ok(Sweep { param: SweepParam::Beam, values: vec![2, 4, 8, 16] }));
        for bad in ["ef", "m=16", "ef=", "ef=16,x", "ef=0", "ef=-1", "beam=0,4", "beam=4,65"] {
            assert!(bad.parse::<Sweep>().is_err(), "{bad}");
        }
        let mut c = BenchConfig::new(DataSource::Dir { dataset: "d".into() });
        c.sweep = Some("ef=4,64".parse().unwrap());
        // ef below k is raised to k, as the peers do.
        let efs: Vec<_> = c.search_points().iter().map(|p| p.ef).collect();
        assert_eq!(efs, [Some(10), Some(64)]);
        c.ef = Some(40);
        c.sweep = Some("beam=2,8".parse().unwrap());
        let labels: Vec<_> = c.search_points().iter().map(SearchPoint::label).collect();
        assert_eq!(labels, ["ef=40 beam=2", "ef=40 beam=8"]);
    }

    #[test]
    fn the_schema_carries_the_index() {
        let mut c = BenchConfig::new(DataSource::Dir { dataset: "d".into() });
        let s = c.schema(8, []).unwrap();
        let v = s.field(0).as_vector().unwrap();
        assert_eq!((v.dim, v.metric, &v.index), (8, Metric::Cosine, &IndexParams::default()));
        c.index = IndexParams::Hnsw(xvec::HnswParams::default().m(1));
        assert!(c.schema(8, []).unwrap_err().to_string().contains("m 1 is out of range"));
        assert!(c.schema(1 << 40, []).unwrap_err().to_string().contains("dimension"));
    }
}
