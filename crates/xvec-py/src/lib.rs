//! `xvec` for Python: the `_xvec` extension module that `python/xvec/__init__.py`
//! re-exports. A face over the engine, like the `xvec` tool: it converts Python objects
//! to the engine's types and back and releases the GIL around engine calls; every rule
//! about data lives in the engine.
//!
//! - `collection`: `Collection` (writes, reads, admin).
//! - `writes`: the chunked write loop and `WriteResult`.
//! - `args`: filter parameters, search knobs, query targets, options.
//! - `snapshot`: `Snapshot`, a pinned view.
//! - `results`: `QueryResult` and `Hit`.
//! - `input`: the write forms (dicts, columns, Arrow) as chunked row sources.
//! - `arrow_io`: Arrow in and out through the C data interface.
//! - `convert`: Python values to engine values and back.
//! - `admin`: optimize (progress, Ctrl-C), backup and restore (Ctrl-C), reports, stats,
//!   describe, verify, explain.
//! - `errors`: the exception hierarchy.
//! - `versions`: `as_of` on the reads, the versions and vacuum reports.
//! - `shard`: the shard of each key, for `xvec.ray`.
//! - `fusion`: a hybrid query over shards (text statistics, rankings, `fuse`), for `xvec.ray`.

use pyo3::prelude::*;
use pyo3::types::PyDict;

mod admin;
mod args;
mod arrow_io;
mod collection;
mod convert;
mod errors;
mod fusion;
mod input;
mod results;
mod shard;
mod snapshot;
mod versions;
mod writes;

use args::{open_options, options_from_py};
use collection::Collection;
use errors::IntoPy;

/// Creates a collection in `path` (a new or empty directory) and opens it for writing.
///
/// `schema` is the JSON form `xvec create --schema` takes, as a dict or a JSON string:
/// `{"name": "words", "fields": [{"name": "emb", "type": "vector_fp32", "dim": 384,
/// "metric": "cosine", "index": {"type": "hnsw"}}, {"name": "pos", "type": "string"}]}`.
/// `options` sets collection options (`auto_flush_rows`, `max_docs_per_segment`, ...).
#[pyfunction]
#[pyo3(signature = (path, schema, *, options = None))]
fn create(
    py: Python<'_>,
    path: std::path::PathBuf,
    schema: &Bound<'_, PyAny>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Collection> {
    let schema = admin::schema_from_py(schema)?;
    let options = options_from_py(options)?;
    let shown = path.to_string_lossy().into_owned();
    let c = py.detach(|| xvec::Collection::create(&path, schema, options)).py_err()?;
    Ok(Collection::wrap(c, shown))
}

/// Opens the collection in `path`: the writer (the default; `LockedError` while another
/// handle writes) or, with `read_only=True`, a reader that follows the writer's new data
/// at each query (`follow=False` pins what was there at open). `mmap=False` reads files
/// with read(2) instead of mapping them; `lock_timeout` waits up to that many seconds
/// for the writer lock. `sync` is when writes reach the disk: `"batch"` (each write
/// call, the default), `"flush"`, or every N records; `maintenance_threads` build indexes
/// in the background.
#[pyfunction]
#[pyo3(signature = (path, *, read_only = false, follow = true, mmap = true, lock_timeout = None, sync = None,
    maintenance_threads = None))]
#[allow(clippy::too_many_arguments)]
fn open(
    py: Python<'_>,
    path: std::path::PathBuf,
    read_only: bool,
    follow: bool,
    mmap: bool,
    lock_timeout: Option<f64>,
    sync: Option<Bound<'_, PyAny>>,
    maintenance_threads: Option<usize>,
) -> PyResult<Collection> {
    let sync = sync.unwrap_or_else(|| pyo3::types::PyString::new(py, "batch").into_any());
    let opts = open_options(read_only, follow, mmap, lock_timeout, &sync, maintenance_threads)?;
    let shown = path.to_string_lossy().into_owned();
    let c = py.detach(|| xvec::Collection::open(&path, &opts)).py_err()?;
    Ok(Collection::wrap(c, shown))
}

/// Restores the backup in `backup` into `path` (new or empty): copies it, verifies the
/// copy, and only then puts it in place; a backup that does not verify raises
/// `CorruptionError` and leaves `path` as it was. Returns a report dict.
#[pyfunction]
fn restore<'py>(
    py: Python<'py>,
    backup: std::path::PathBuf,
    path: std::path::PathBuf,
) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
    let report = admin::cancellable(py, |cancel| xvec::Collection::restore(&backup, &path, Some(cancel)))?;
    admin::backup_report(py, &report)
}

/// The extension module.
#[pymodule]
fn _xvec(m: &Bound<'_, PyModule>) -> PyResult<()> {
    collection::count_forks();
    m.add_function(wrap_pyfunction!(create, m)?)?;
    m.add_function(wrap_pyfunction!(open, m)?)?;
    m.add_function(wrap_pyfunction!(shard::shard_ids, m)?)?;
    m.add_function(wrap_pyfunction!(restore, m)?)?;
    m.add_function(wrap_pyfunction!(fusion::fuse, m)?)?;
    m.add_class::<Collection>()?;
    m.add_class::<writes::WriteResult>()?;
    m.add_class::<snapshot::Snapshot>()?;
    m.add_class::<results::QueryResult>()?;
    m.add_class::<results::Hit>()?;
    errors::register(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("KEY_FIELD", xvec::KEY_FIELD)?;
    m.add("MAX_K", xvec::MAX_K)?;
    m.add("MAX_QUERY_THREADS", xvec::MAX_QUERY_THREADS)?;
    m.add("MAX_SHARDS", shard::MAX_SHARDS)?;
    Ok(())
}
