//! `--compare A.json B.json ...`: reports side by side, one row per figure, with each
//! run's ratio to the first.
//!
//! Reports are read as plain JSON, so a report from an older xvec (same format, lower
//! or equal schema version) compares on the figures it has; missing ones show as `-`.

use std::path::Path;

use serde_json::Value;

use super::plot::Series;
use super::report::{FORMAT, ReportError, SCHEMA_VERSION};

/// A loaded report and the name its column gets.
#[derive(Clone, Debug)]
pub struct Run {
    pub label: String,
    pub json: Value,
}

impl Run {
    /// Reads a report written by `xvec bench --output`.
    pub fn load(path: &Path) -> Result<Run, ReportError> {
        let text = std::fs::read_to_string(path).map_err(|source| ReportError::Io { path: path.into(), source })?;
        let json: Value =
            serde_json::from_str(&text).map_err(|source| ReportError::Json { path: path.into(), source })?;
        let label = path.file_stem().map_or_else(|| path.display().to_string(), |s| s.to_string_lossy().into_owned());
        Run::new(label, json).map_err(|e| match e {
            ReportError::Format { path: None, what } => ReportError::Format { path: Some(path.into()), what },
            other => other,
        })
    }

    /// Checks that `json` is a report this version reads.
    pub fn new(label: String, json: Value) -> Result<Run, ReportError> {
        let bad = |what: String| Err(ReportError::Format { path: None, what });
        if json.get("format").and_then(Value::as_str) != Some(FORMAT) {
            return bad(format!("not an xvec bench report (expected \"format\": \"{FORMAT}\")"));
        }
        match json.get("schema_version").and_then(Value::as_u64) {
            Some(v) if (1..=u64::from(SCHEMA_VERSION)).contains(&v) => Ok(Run { label, json }),
            Some(v) => bad(format!("schema_version {v}, this xvec reads 1 to {SCHEMA_VERSION}")),
            None => bad("no schema_version".into()),
        }
    }

    fn at(&self, pointer: &str) -> Option<&Value> {
        self.json.pointer(pointer).filter(|v| !v.is_null())
    }

    /// The recall/QPS points of its searches, labelled by their settings.
    pub fn series(&self) -> Series {
        let searches = self.json.get("searches").and_then(Value::as_array).map_or(&[][..], |v| v.as_slice());
        let points = searches
            .iter()
            .filter_map(|s| {
                let recall = s.pointer("/serial/recall")?.as_f64()?;
                let qps = s.pointer("/serial/qps")?.as_f64()?;
                let num = |k: &str| s.get(k).and_then(Value::as_u64);
                let label = match (num("ef"), num("nprobe"), num("refine")) {
                    (Some(ef), ..) => format!("ef={ef}"),
                    (None, Some(n), _) => format!("nprobe={n}"),
                    (None, None, Some(r)) => format!("refine={r}"),
                    (None, None, None) => String::new(),
                };
                let label = match num("beam_width") {
                    Some(b) if label.is_empty() => format!("beam={b}"),
                    Some(b) => format!("{label} beam={b}"),
                    None => label,
                };
                Some((recall, qps, label))
            })
            .collect();
        Series { name: self.label.clone(), points }
    }
}

/// How a figure compares: which direction is better decides nothing here, but is shown.
#[derive(Clone, Copy)]
enum Better {
    Higher,
    Lower,
    Neither,
}

/// The figures compared: (name, JSON pointer, better).
const FIGURES: &[(&str, &str, Better)] = &[
    ("dataset", "/dataset/name", Better::Neither),
    ("index", "/config/schema_index", Better::Neither),
    ("commit", "/system/commit", Better::Neither),
    ("started at", "/started_at", Better::Neither),
    ("rows", "/load/rows", Better::Neither),
    ("insert s", "/load/insert_duration_sec", Better::Lower),
    ("optimize s", "/load/optimize_duration_sec", Better::Lower),
    ("rows/s", "/load/rows_per_second", Better::Higher),
    ("serial QPS", "/serial/qps", Better::Higher),
    ("recall", "/serial/recall", Better::Higher),
    ("ndcg", "/serial/ndcg", Better::Higher),
    ("serial p50 ms", "/serial/latency_p50_ms", Better::Lower),
    ("serial p99 ms", "/serial/latency_p99_ms", Better::Lower),
    ("peak RSS MiB", "/peak_rss_mib", Better::Lower),
    ("engine memory B", "/engine_memory/total", Better::Lower),
    ("disk B", "/disk_bytes", Better::Lower),
    ("cpu user s", "/cpu/user_sec", Better::Lower),
];

/// A comparison as text cells: a header row, then one row per figure.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub headers: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

fn cell(v: Option<&Value>) -> String {
    match v {
        None => "-".into(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => match (n.as_u64(), n.as_f64()) {
            (Some(u), _) => u.to_string(),
            (None, Some(f)) if f.abs() >= 100.0 => format!("{f:.1}"),
            (None, Some(f)) => format!("{f:.4}"),
            _ => n.to_string(),
        },
        Some(other) => other.to_string(),
    }
}

/// `runs` side by side; after each run but the first, its ratio to the first.
pub fn compare(runs: &[Run]) -> Comparison {
    let mut headers = vec!["figure".to_string(), "better".to_string()];
    for (i, r) in runs.iter().enumerate() {
        headers.push(r.label.clone());
        if i > 0 {
            headers.push(format!("{} / {}", r.label, runs[0].label));
        }
    }
    let mut figures: Vec<(String, String, Better)> =
        FIGURES.iter().map(|(n, p, b)| (n.to_string(), p.to_string(), *b)).collect();
    // Concurrent QPS for every thread count the first run measured.
    let conc = runs.first().and_then(|r| r.at("/concurrent")).and_then(Value::as_array).cloned().unwrap_or_default();
    for c in conc.iter().filter_map(|c| c.get("concurrency").and_then(Value::as_u64)) {
        figures.push((format!("QPS c={c}"), format!("concurrency={c}"), Better::Higher));
    }
    let rows = figures
        .iter()
        .map(|(name, pointer, better)| {
            let values: Vec<Option<&Value>> = runs.iter().map(|r| lookup(r, pointer)).collect();
            let mut row = vec![
                name.clone(),
                match better {
                    Better::Higher => "higher",
                    Better::Lower => "lower",
                    Better::Neither => "",
                }
                .to_string(),
            ];
            let base = values.first().copied().flatten().and_then(Value::as_f64);
            for (i, v) in values.iter().enumerate() {
                row.push(cell(*v));
                if i > 0 {
                    let ratio = match (matches!(better, Better::Neither), base, v.and_then(Value::as_f64)) {
                        (false, Some(b), Some(x)) if b != 0.0 => format!("{:.2}x", x / b),
                        _ => String::new(),
                    };
                    row.push(ratio);
                }
            }
            row
        })
        .collect();
    Comparison { headers, rows }
}

/// A JSON pointer, or `concurrency=N` for the QPS of the concurrent phase with N threads.
fn lookup<'a>(run: &'a Run, pointer: &str) -> Option<&'a Value> {
    match pointer.strip_prefix("concurrency=").and_then(|n| n.parse::<u64>().ok()) {
        Some(n) => run
            .at("/concurrent")?
            .as_array()?
            .iter()
            .find(|c| c.get("concurrency").and_then(Value::as_u64) == Some(n))?
            .get("qps"),
        None => run.at(pointer),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(label: &str, qps: f64, rss: f64) -> Run {
        let j = json!({
            "format": FORMAT, "schema_version": SCHEMA_VERSION, "dataset": {"name": "d"},
            "serial": {"qps": qps, "recall": 1.0},
            "concurrent": [{"concurrency": 2, "qps": qps * 2.0}],
            "peak_rss_mib": rss,
            "searches": [{"ef": 16, "serial": {"qps": qps, "recall": 0.9}}, {"ef": 64, "serial": {"qps": qps / 2.0, "recall": 0.99}}],
        });
        Run::new(label.into(), j).unwrap()
    }

    #[test]
    fn ratios_against_the_first_run() {
        let c = compare(&[run("a", 100.0, 200.0), run("b", 150.0, 100.0)]);
        assert_eq!(c.headers, ["figure", "better", "a", "b", "b / a"]);
        let row = |name: &str| c.rows.iter().find(|r| r[0] == name).unwrap().clone();
        assert_eq!(row("serial QPS"), ["serial QPS", "higher", "100.0", "150.0", "1.50x"]);
        assert_eq!(row("peak RSS MiB"), ["peak RSS MiB", "lower", "200.0", "100.0", "0.50x"]);
        assert_eq!(row("QPS c=2"), ["QPS c=2", "higher", "200.0", "300.0", "1.50x"]);
        assert_eq!(row("dataset"), ["dataset", "", "d", "d", ""]);
        assert_eq!(row("insert s"), ["insert s", "lower", "-", "-", ""]);
        let s = run("a", 100.0, 1.0).series();
        assert_eq!(s.points, [(0.9, 100.0, "ef=16".to_string()), (0.99, 50.0, "ef=64".to_string())]);
    }

    #[test]
    fn refuses_other_files() {
        assert!(
            Run::new("x".into(), json!({"schema_version": 1}))
                .unwrap_err()
                .to_string()
                .contains("not an xvec bench report")
        );
        let future = json!({"format": FORMAT, "schema_version": SCHEMA_VERSION + 1});
        assert!(Run::new("x".into(), future).unwrap_err().to_string().contains("this xvec reads"));
        // Version 1 reports (loose index fields beside `schema_index`) still compare.
        let v1 =
            json!({"format": FORMAT, "schema_version": 1, "config": {"schema_index": {"type": "flat"}, "m": null}});
        let c = compare(&[Run::new("old".into(), v1).unwrap(), run("new", 1.0, 1.0)]);
        assert_eq!(c.rows.iter().find(|r| r[0] == "index").unwrap()[2], r#"{"type":"flat"}"#);
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.json");
        std::fs::write(&p, "{").unwrap();
        assert!(Run::load(&p).unwrap_err().to_string().contains("r.json: not JSON"));
    }
}
