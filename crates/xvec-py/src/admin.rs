//! The admin calls' conversions: optimize with progress and Ctrl-C, backup and restore
//! with Ctrl-C, reports, stats, describe, verify, explain, and the JSON forms schema changes and hybrid queries take.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use xvec::{Field, HybridQuery, OptimizeOptions, OptimizeProgress, OptimizeReport, ScalarIndexKind, Schema, TextIndex};

use crate::convert::{from_json, to_json};
use crate::errors::IntoPy;

/// Runs `optimize` on a worker thread while this thread, holding the GIL only briefly
/// every 50 ms, reports progress and watches for Ctrl-C; either cancels the optimize,
/// which then leaves the collection unchanged.
pub fn optimize(
    py: Python<'_>,
    c: &Arc<xvec::Collection>,
    progress: Option<Bound<'_, PyAny>>,
    threads: Option<usize>,
) -> PyResult<OptimizeReport> {
    if let Some(cb) = progress.as_ref().filter(|cb| !cb.is_callable()) {
        return Err(PyTypeError::new_err(format!(
            "progress must be callable as progress(done, total), found {}",
            cb.get_type().name()?
        )));
    }
    let cancel = AtomicBool::new(false);
    let latest: Mutex<Option<(u64, u64)>> = Mutex::new(None);
    let report_progress = |p: &OptimizeProgress| {
        *latest.lock().expect("progress lock poisoned") = Some((p.vectors_indexed, p.vectors_total));
    };
    let mut opts = OptimizeOptions::default().cancel(Some(&cancel)).progress(Some(&report_progress));
    if let Some(t) = threads {
        opts = opts.concurrency(t);
    }
    let mut stop: Option<PyErr> = None;
    let result = std::thread::scope(|s| {
        let worker = s.spawn(|| c.optimize(&opts));
        loop {
            let done = py.detach(|| {
                let deadline = std::time::Instant::now() + Duration::from_millis(50);
                while std::time::Instant::now() < deadline && !worker.is_finished() {
                    std::thread::sleep(Duration::from_millis(2));
                }
                worker.is_finished()
            });
            if stop.is_none() {
                let seen = latest.lock().expect("progress lock poisoned").take();
                let outcome = py.check_signals().and_then(|()| match (&progress, seen) {
                    (Some(cb), Some((done, total))) => cb.call1((done, total)).map(drop),
                    _ => Ok(()),
                });
                if let Err(e) = outcome {
                    cancel.store(true, Ordering::Relaxed);
                    stop = Some(e);
                }
            }
            if done {
                return worker.join().expect("the optimize thread panicked");
            }
        }
    });
    match (stop, result) {
        // Cancelled in time: the collection is unchanged; the interrupt (or the callback's
        // exception) is what the caller sees.
        (Some(e), Err(xvec::Error::Cancelled)) => Err(e),
        // It finished before it saw the flag: the work is published; still raise.
        (Some(e), _) => Err(e),
        (None, r) => r.py_err(),
    }
}

/// Runs `work` (a backup or restore) on a worker thread while this one, holding the GIL
/// only briefly every 50 ms, watches for Ctrl-C; an interrupt sets the cancel flag, and
/// the engine then removes its temp directory and leaves nothing under the final name.
pub fn cancellable<T: Send>(
    py: Python<'_>,
    work: impl FnOnce(&AtomicBool) -> Result<T, xvec::Error> + Send,
) -> PyResult<T> {
    let cancel = AtomicBool::new(false);
    let mut stop: Option<PyErr> = None;
    let result = std::thread::scope(|s| {
        let worker = s.spawn(|| work(&cancel));
        loop {
            let done = py.detach(|| {
                let deadline = std::time::Instant::now() + Duration::from_millis(50);
                while std::time::Instant::now() < deadline && !worker.is_finished() {
                    std::thread::sleep(Duration::from_millis(2));
                }
                worker.is_finished()
            });
            if stop.is_none()
                && let Err(e) = py.check_signals()
            {
                cancel.store(true, Ordering::Relaxed);
                stop = Some(e);
            }
            if done {
                return worker.join().expect("the backup thread panicked");
            }
        }
    });
    match (stop, result) {
        (Some(e), Err(xvec::Error::Cancelled)) => Err(e),
        (Some(e), _) => Err(e),
        (None, r) => r.py_err(),
    }
}

pub fn backup_report<'py>(py: Python<'py>, r: &xvec::BackupReport) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("generation", r.generation)?;
    d.set_item("wal_records", r.wal_records)?;
    for (name, c) in [("linked", r.linked), ("copied", r.copied), ("reused", r.reused)] {
        d.set_item(format!("{name}_files"), c.files)?;
        d.set_item(format!("{name}_bytes"), c.bytes)?;
    }
    d.set_item("attempts", r.attempts)?;
    Ok(d)
}

pub fn optimize_report<'py>(py: Python<'py>, r: &OptimizeReport) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("segments_before", r.segments_before)?;
    d.set_item("segments_after", r.segments_after)?;
    d.set_item("rows", r.rows)?;
    d.set_item("dropped", r.dropped)?;
    d.set_item("indexes_built", r.indexes_built)?;
    d.set_item("seconds", r.seconds)?;
    Ok(d)
}

pub fn stats_to_py<'py>(py: Python<'py>, s: &xvec::Stats, m: &xvec::MemoryUsage) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("generation", s.generation)?;
    d.set_item("live_docs", s.live_docs)?;
    d.set_item("deleted_docs", s.deleted_docs)?;
    d.set_item("mem_rows", s.mem_rows)?;
    d.set_item("frozen_rows", s.frozen_rows)?;
    d.set_item("unindexed_rows", s.unindexed_rows)?;
    d.set_item("wal_records", s.wal_records)?;
    d.set_item("wal_bytes", s.wal_bytes)?;
    d.set_item("disk_bytes", s.disk_bytes)?;
    d.set_item("background_jobs", s.background_jobs)?;
    d.set_item("background_busy", s.background_busy)?;
    d.set_item("maintenance_paused", s.maintenance_paused)?;
    d.set_item("write_stall_ms", s.write_stall_ms)?;
    d.set_item("background_error", s.background_error.as_deref())?;
    d.set_item("follow_error", s.follow_error.as_deref())?;
    d.set_item("degraded", s.degraded())?;
    let segments = s
        .segments
        .iter()
        .map(|g| {
            let x = PyDict::new(py);
            x.set_item("id", g.id)?;
            x.set_item("file", &g.file)?;
            x.set_item("rows", g.rows)?;
            x.set_item("deleted", g.deleted)?;
            x.set_item("bytes", g.bytes)?;
            x.set_item("unreadable", g.unreadable)?;
            x.set_item("damaged", &g.damaged)?;
            x.set_item("unusable_indexes", &g.unusable_indexes)?;
            Ok(x)
        })
        .collect::<PyResult<Vec<_>>>()?;
    d.set_item("segments", PyList::new(py, segments)?)?;
    let memory = PyDict::new(py);
    for (kind, bytes) in m.by_kind() {
        memory.set_item(kind, bytes)?;
    }
    memory.set_item("total", m.total())?;
    d.set_item("memory", memory)?;
    Ok(d)
}

pub fn describe<'py>(py: Python<'py>, c: &xvec::Collection, path: &str) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let schema = c.schema();
    d.set_item("path", path)?;
    d.set_item("name", schema.name())?;
    d.set_item("writable", c.is_writable())?;
    d.set_item("count", c.count())?;
    d.set_item("schema", from_json(py, &serde_json::from_str(&schema.to_json()).expect("schema JSON parses"))?)?;
    d.set_item("options", from_json(py, &serde_json::to_value(c.options()).expect("options serialize"))?)?;
    let snap = c.snapshot();
    let builds = c.stats().index_builds;
    let indexes = PyDict::new(py);
    for (i, f) in schema.fields().iter().enumerate() {
        if f.as_vector().is_some() {
            let x = PyDict::new(py);
            x.set_item("index", f.index_json().map(|j| from_json(py, &j)).transpose()?)?;
            x.set_item("completeness", snap.index_completeness(i))?;
            // A set-index's rebuild under way: (segments done, segments), else None.
            let building = builds.iter().find(|b| b.field == f.name).map(|b| (b.segments_done, b.segments_total));
            x.set_item("building", building)?;
            // The knobs `query` takes for this field, their defaults and bounds, as the
            // engine defines them (a knob the index does not take is a QueryError).
            let knobs = f.as_vector().map(|v| v.index.search_knobs()).unwrap_or_default();
            x.set_item("search_knobs", from_json(py, &serde_json::to_value(knobs).expect("knobs serialize"))?)?;
            indexes.set_item(&f.name, x)?;
        }
    }
    d.set_item("vector_indexes", indexes)?;
    Ok(d)
}

pub fn verify<'py>(py: Python<'py>, dir: &Path, deep: bool) -> PyResult<Bound<'py, PyDict>> {
    let opts = xvec::verify::VerifyOptions::default().deep(deep);
    let report = py.detach(|| xvec::verify::run(dir, &opts)).map_err(|e| crate::errors::to_py(e.into()))?;
    let d = PyDict::new(py);
    d.set_item("clean", report.is_clean())?;
    d.set_item("problems", report.problems())?;
    d.set_item("generation", report.generation)?;
    let findings = report
        .findings
        .iter()
        .map(|f| {
            let x = PyDict::new(py);
            x.set_item("severity", format!("{:?}", f.severity).to_lowercase())?;
            x.set_item("file", &f.file)?;
            x.set_item("section", &f.section)?;
            x.set_item("offset", f.offset)?;
            x.set_item("what", &f.what)?;
            x.set_item("expected", &f.expected)?;
            x.set_item("found", &f.found)?;
            Ok(x)
        })
        .collect::<PyResult<Vec<_>>>()?;
    d.set_item("findings", PyList::new(py, findings)?)?;
    d.set_item("files", report.files.len())?;
    Ok(d)
}

pub fn explain_to_py<'py>(py: Python<'py>, e: &xvec::Explain) -> PyResult<Bound<'py, PyAny>> {
    let d = PyDict::new(py);
    d.set_item("filter_leaves", e.leaves.clone())?;
    d.set_item("hits", e.hits)?;
    d.set_item("nanos", e.nanos)?;
    let sources = e
        .sources
        .iter()
        .map(|s| {
            let x = PyDict::new(py);
            let segment = e.segment_ids.get(s.position as usize).copied();
            x.set_item("segment", segment)?;
            x.set_item("rows", s.rows)?;
            x.set_item("deleted", s.deleted)?;
            x.set_item("allowed", s.allowed)?;
            x.set_item("search", format!("{:?}", s.search))?;
            x.set_item("filter_nanos", s.filter_nanos)?;
            x.set_item("search_nanos", s.search_nanos)?;
            let leaves = s
                .leaves
                .iter()
                .map(|l| {
                    let y = PyDict::new(py);
                    y.set_item("leaf", e.leaves.get(l.leaf).cloned())?;
                    y.set_item("access", format!("{:?}", l.access))?;
                    y.set_item("scope", l.scope)?;
                    y.set_item("estimated", l.estimated)?;
                    y.set_item("matched", l.matched)?;
                    Ok(y)
                })
                .collect::<PyResult<Vec<_>>>()?;
            x.set_item("leaves", PyList::new(py, leaves)?)?;
            Ok(x)
        })
        .collect::<PyResult<Vec<_>>>()?;
    d.set_item("sources", PyList::new(py, sources)?)?;
    Ok(d.into_any())
}

/// A JSON document from a dict or a JSON string.
fn json_arg(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<serde_json::Value> {
    if let Ok(s) = obj.cast::<PyString>() {
        return serde_json::from_str(&s.extract::<String>()?)
            .map_err(|e| PyValueError::new_err(format!("{what}: {e}")));
    }
    to_json(obj, &|| what.to_string())
}

pub fn hybrid_query(obj: &Bound<'_, PyAny>) -> PyResult<HybridQuery> {
    let v = json_arg(obj, "hybrid query")?;
    HybridQuery::from_json(&v).map_err(|e| crate::errors::QueryError::new_err(format!("hybrid query: {e}")))
}

/// A schema from a dict or a JSON string (the `create --schema` form).
pub fn schema_from_py(obj: &Bound<'_, PyAny>) -> PyResult<Schema> {
    let v = json_arg(obj, "schema")?;
    Schema::from_json(&v.to_string()).map_err(|e| crate::errors::to_py(e.into()))
}

/// One field in its schema JSON form.
pub fn field_from_py(obj: &Bound<'_, PyAny>) -> PyResult<Field> {
    let v = json_arg(obj, "field")?;
    let schema = serde_json::json!({ "name": "field", "fields": [v] });
    let schema = Schema::from_json(&schema.to_string()).map_err(|e| crate::errors::to_py(e.into()))?;
    Ok(schema.field(0).clone())
}

/// An index `add_index` adds or `drop_index` drops.
pub enum IndexArg {
    Scalar(ScalarIndexKind),
    Text(TextIndex),
}

pub fn index_from_py(obj: &Bound<'_, PyAny>) -> PyResult<IndexArg> {
    let v = json_arg_or_name(obj)?;
    let name = match &v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Object(o) => o.get("type").and_then(|t| t.as_str()).unwrap_or_default().to_string(),
        _ => return Err(PyTypeError::new_err("an index is a name (\"inverted\", \"range\", \"fts\") or a dict")),
    };
    if name == "fts" {
        let text = if v.is_string() { "fts".to_string() } else { v.to_string() };
        return TextIndex::parse(&text)
            .map(IndexArg::Text)
            .map_err(|e| crate::errors::SchemaError::new_err(e.to_string()));
    }
    ScalarIndexKind::from_name(&name).map(IndexArg::Scalar).ok_or_else(|| {
        crate::errors::SchemaError::new_err(format!("unknown index type {name:?}; expected inverted, range or fts"))
    })
}

/// A vector index `set_index` gives a field: a type name for its defaults (`"hnsw"`), or
/// the schema's index JSON as a dict or a string (`{"type": "hnsw", "m": 32}`).
pub fn vector_index_from_py(field: &str, obj: &Bound<'_, PyAny>) -> PyResult<xvec::IndexParams> {
    let bad =
        |what: String| crate::errors::to_py(xvec::SchemaError::BadIndex { field: field.to_string(), what }.into());
    match json_arg_or_name(obj)? {
        serde_json::Value::String(name) => {
            let kind = name.parse::<xvec::IndexType>().map_err(|e| bad(e.to_string()))?;
            Ok(xvec::IndexParams::defaults(kind))
        }
        v => serde_json::from_value(v).map_err(|e| bad(e.to_string())),
    }
}

fn json_arg_or_name(obj: &Bound<'_, PyAny>) -> PyResult<serde_json::Value> {
    if let Ok(s) = obj.cast::<PyString>() {
        let s: String = s.extract()?;
        if !s.trim_start().starts_with('{') {
            return Ok(serde_json::Value::String(s.trim().to_string()));
        }
    }
    json_arg(obj, "index")
}
