//! Versions and time travel in Python: `as_of` (a version number or a tag) on the reads,
//! and the dicts `versions()` and `vacuum()` return. The engine's `collection/versions.rs`
//! does the work; this is conversion only.

use std::sync::Arc;
use std::time::UNIX_EPOCH;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::errors::IntoPy;

/// What `as_of=` names: a version number, or a tag (`xvec tag`, `Collection.tag`).
#[derive(FromPyObject)]
pub enum AsOf {
    Version(u64),
    Tag(String),
}

/// The snapshot a read runs on: the live state, or `as_of`'s version as it was published.
/// A version's snapshot holds a lease in the collection while it lives, so a vacuum in
/// any process leaves its files alone; a version not kept is a `StorageError` naming the
/// versions that are.
pub fn view(py: Python<'_>, c: &xvec::Collection, as_of: Option<AsOf>) -> PyResult<Arc<xvec::Snapshot>> {
    match as_of {
        None => Ok(c.snapshot()),
        Some(spec) => {
            let version = resolve(py, c, spec)?;
            py.detach(|| c.snapshot_at(version)).py_err()
        }
    }
}

/// The version `as_of` names, for calls that take one (`checkout`, `tag`).
pub fn resolve(py: Python<'_>, c: &xvec::Collection, spec: AsOf) -> PyResult<u64> {
    match spec {
        AsOf::Version(v) => Ok(v),
        AsOf::Tag(t) => py.detach(|| c.resolve_version(&t)).py_err(),
    }
}

/// `Collection.versions()`'s list: one dict per version kept, oldest first, the live one
/// last, with `time` as a UTC `datetime` (`None` for a version that recorded none).
pub fn list<'py>(py: Python<'py>, versions: &[xvec::Version]) -> PyResult<Bound<'py, PyList>> {
    let datetime = py.import("datetime")?;
    let utc = datetime.getattr("timezone")?.getattr("utc")?;
    let from_ts = datetime.getattr("datetime")?.getattr("fromtimestamp")?;
    let dicts = versions
        .iter()
        .map(|v| {
            let d = PyDict::new(py);
            d.set_item("version", v.version)?;
            let time = match v.time.and_then(|t| t.duration_since(UNIX_EPOCH).ok()) {
                Some(since) => Some(from_ts.call1((since.as_secs_f64(), &utc))?),
                None => None,
            };
            d.set_item("time", time)?;
            d.set_item("operation", v.operation.name())?;
            d.set_item("rows", v.rows)?;
            d.set_item("bytes", v.bytes)?;
            d.set_item("tags", &v.tags)?;
            d.set_item("current", v.current)?;
            Ok(d)
        })
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, dicts)
}

/// `Collection.vacuum()`'s report.
pub fn vacuum_report<'py>(py: Python<'py>, r: &xvec::VacuumReport) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("versions", &r.versions)?;
    d.set_item("files", r.files)?;
    d.set_item("bytes", r.bytes)?;
    Ok(d)
}
