//! What a benchmark run does: the dataset, the collection's index, the search parameters
//! and the phase timings. Built by the `xvec bench` flags (or by a library caller), then
//! handed whole to [`super::phases::run`]; nothing here touches a file.

use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;

use xvec::{Metric, Quantize};

/// Where the vectors come from.
#[derive(Clone, Debug, PartialEq)]
pub enum DataSource {
    /// A directory in a known layout (see [`super::source`]).
    Dir { dataset: PathBuf },
    /// Explicit files; without `gt` the ground truth is computed.
    Files { base: PathBuf, queries: PathBuf, gt: Option<PathBuf> },
}

/// Index types a run may ask for. The engine decides which it supports: asking for one
/// it does not know yet fails at collection creation with the engine's own message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum IndexKind {
    Flat,
    Hnsw,
    Vamana,
}

impl IndexKind {
    pub fn name(self) -> &'static str {
        match self {
            IndexKind::Flat => "flat",
            IndexKind::Hnsw => "hnsw",
            IndexKind::Vamana => "vamana",
        }
    }
}

/// A search parameter `--sweep` may vary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SweepParam {
    Ef,
    Refine,
}

impl SweepParam {
    pub fn name(self) -> &'static str {
        match self {
            SweepParam::Ef => "ef",
            SweepParam::Refine => "refine",
        }
    }
}

/// `--sweep ef=16,32,64`: the search phases run once per value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Sweep {
    pub param: SweepParam,
    pub values: Vec<usize>,
}

impl std::str::FromStr for Sweep {
    type Err = String;

    fn from_str(s: &str) -> Result<Sweep, String> {
        let (name, list) = s.split_once('=').ok_or_else(|| format!("'{s}': expected PARAM=V1,V2,... e.g. ef=16,32"))?;
        let param = match name.trim() {
            "ef" => SweepParam::Ef,
            "refine" => SweepParam::Refine,
            other => return Err(format!("'{other}' cannot be swept; expected ef or refine")),
        };
        let values = list
            .split(',')
            .map(|v| v.trim().parse::<usize>().map_err(|_| format!("'{v}' is not a non-negative integer")))
            .collect::<Result<Vec<_>, _>>()?;
        if values.is_empty() || (param == SweepParam::Ef && values.contains(&0)) {
            return Err(format!("'{s}': expected at least one value, ef values at least 1"));
        }
        Ok(Sweep { param, values })
    }
}

/// Parses a duration: `30s`, `0.2s`, `500ms`, `2m`, or plain seconds.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
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
        _ => Err(format!("'{s}' is not a duration; expected e.g. 30s, 0.2s, 500ms or 2m")),
    }
}

/// Everything one benchmark run does.
#[derive(Clone, Debug)]
pub struct BenchConfig {
    pub source: DataSource,
    /// Collection directory; `None` uses a fresh temporary directory, removed afterwards.
    pub path: Option<PathBuf>,
    pub index: IndexKind,
    pub metric: Metric,
    pub k: usize,
    /// Search breadth of graph indexes (`Query::ef`); `None` uses the index default.
    pub ef: Option<usize>,
    /// HNSW links per node.
    pub m: Option<u32>,
    /// HNSW candidate list size while building.
    pub ef_construction: Option<u32>,
    /// Vamana: most neighbours per node (R).
    pub degree: Option<u32>,
    /// Vamana: candidate list size while building (L).
    pub build_list: Option<u32>,
    /// Vamana: prune relaxation.
    pub alpha: Option<f64>,
    pub quantize: Option<Quantize>,
    pub rotate: Option<bool>,
    /// Re-rank factor (`Query::refine`); `None` uses the index default.
    pub refine: Option<usize>,
    pub seed: u64,
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
    /// Serial queries before the timed phases.
    pub warmup: usize,
    /// Thread counts of the concurrent phase, each run for `duration`.
    pub concurrency: Vec<usize>,
    pub duration: Duration,
    /// Pause between the concurrent and the serial phase.
    pub cooldown: Duration,
    pub sweep: Option<Sweep>,
    /// Threads for computing ground truth when the dataset has none.
    pub truth_threads: usize,
}

impl BenchConfig {
    /// A configuration with the reference tool's defaults for `source`.
    pub fn new(source: DataSource) -> BenchConfig {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        BenchConfig {
            source,
            path: None,
            index: IndexKind::Flat,
            metric: Metric::Cosine,
            k: 10,
            ef: None,
            m: None,
            ef_construction: None,
            degree: None,
            build_list: None,
            alpha: None,
            quantize: None,
            rotate: None,
            refine: None,
            seed: 42,
            limit: None,
            skip_load: false,
            batch_size: 1000,
            optimize_concurrency: cores,
            mmap: true,
            warmup: 100,
            concurrency: if cores > 1 { vec![1, cores] } else { vec![1] },
            duration: Duration::from_secs(30),
            cooldown: Duration::from_secs(1),
            sweep: None,
            truth_threads: cores,
        }
    }

    /// The index object of the collection's JSON schema: the type, and only the
    /// parameters this run sets, so everything else keeps the engine's defaults.
    pub fn index_json(&self) -> serde_json::Value {
        let mut o = serde_json::Map::new();
        o.insert("type".into(), self.index.name().into());
        if let Some(m) = self.m {
            o.insert("m".into(), m.into());
        }
        if let Some(efc) = self.ef_construction {
            o.insert("ef_construction".into(), efc.into());
        }
        if let Some(r) = self.degree {
            o.insert("degree".into(), r.into());
        }
        if let Some(l) = self.build_list {
            o.insert("build_list".into(), l.into());
        }
        if let Some(a) = self.alpha {
            o.insert("alpha".into(), a.into());
        }
        if let Some(q) = self.quantize {
            o.insert("quantize".into(), q.name().into());
        }
        if let Some(r) = self.rotate {
            o.insert("rotate".into(), r.into());
        }
        if self.index != IndexKind::Flat {
            o.insert("seed".into(), self.seed.into());
        }
        serde_json::Value::Object(o)
    }

    /// The collection schema in its JSON form: one fp32 vector field `emb`.
    pub fn schema_json(&self, dim: usize) -> String {
        serde_json::json!({
            "name": "bench",
            "fields": [{
                "name": "emb",
                "type": "vector_fp32",
                "dim": dim,
                "metric": self.metric.name(),
                "index": self.index_json(),
            }]
        })
        .to_string()
    }

    /// The search settings to run, one per sweep value (or just the configured one).
    pub fn search_points(&self) -> Vec<SearchPoint> {
        let base = SearchPoint { ef: self.ef, refine: self.refine };
        match &self.sweep {
            None => vec![base],
            Some(s) => s
                .values
                .iter()
                .map(|&v| match s.param {
                    SweepParam::Ef => SearchPoint { ef: Some(v.max(self.k)), ..base },
                    SweepParam::Refine => SearchPoint { refine: Some(v), ..base },
                })
                .collect(),
        }
    }
}

/// One setting of the search parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchPoint {
    pub ef: Option<usize>,
    pub refine: Option<usize>,
}

impl SearchPoint {
    /// `ef=64 refine=4`, or `defaults` when neither is set.
    pub fn label(&self) -> String {
        let parts: Vec<String> = [("ef", self.ef), ("refine", self.refine)]
            .iter()
            .filter_map(|(name, v)| v.map(|v| format!("{name}={v}")))
            .collect();
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
    fn sweeps() {
        assert_eq!("ef=16,32".parse(), Ok(Sweep { param: SweepParam::Ef, values: vec![16, 32] }));
        assert_eq!("refine=0,4".parse(), Ok(Sweep { param: SweepParam::Refine, values: vec![0, 4] }));
        for bad in ["ef", "m=16", "ef=", "ef=16,x", "ef=0", "ef=-1"] {
            assert!(bad.parse::<Sweep>().is_err(), "{bad}");
        }
        let mut c = BenchConfig::new(DataSource::Dir { dataset: "d".into() });
        c.sweep = Some("ef=4,64".parse().unwrap());
        // ef below k is raised to k, as the peers do.
        let efs: Vec<_> = c.search_points().iter().map(|p| p.ef).collect();
        assert_eq!(efs, [Some(10), Some(64)]);
    }

    #[test]
    fn schema_carries_only_set_parameters() {
        let mut c = BenchConfig::new(DataSource::Dir { dataset: "d".into() });
        assert_eq!(c.index_json(), serde_json::json!({"type": "flat"}));
        let s = xvec::Schema::from_json(&c.schema_json(8)).unwrap();
        assert_eq!(s.field(0).as_vector().unwrap().dim, 8);
        c.index = IndexKind::Hnsw;
        c.m = Some(8);
        c.quantize = Some(Quantize::Int8);
        c.rotate = Some(false);
        assert_eq!(
            c.index_json(),
            serde_json::json!({"type": "hnsw", "m": 8, "quantize": "int8", "rotate": false, "seed": 42})
        );
    }
}
