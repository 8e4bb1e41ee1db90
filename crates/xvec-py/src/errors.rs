//! The engine's errors as Python exceptions: one class per engine error kind under
//! `xvec.Error`, carrying the engine's message and its structured parts as attributes
//! (`key`, `field`, `path`, `offset`, `line`, `column`), so a caller can branch on them
//! without parsing text.

use pyo3::exceptions::{PyException, PyKeyboardInterrupt};
use pyo3::prelude::*;
use pyo3::{PyErr, create_exception};
use xvec::{DocError as EngineDocError, Error as EngineError, StorageError as EngineStorageError};

create_exception!(xvec, Error, PyException, "Every error the engine raises; its subclasses say which kind.");
create_exception!(xvec, SchemaError, Error, "The schema, or a change to it, is invalid.");
create_exception!(
    xvec,
    DocError,
    Error,
    "A document does not fit the schema, or its key is missing, duplicate or not found (`key`, `field`)."
);
create_exception!(xvec, QueryError, Error, "A query's parameters are invalid.");
create_exception!(
    xvec,
    FilterError,
    QueryError,
    "A filter does not parse or does not fit the schema (`line`, `column`)."
);
create_exception!(xvec, StorageError, Error, "Reading or writing the collection's files failed (`path`).");
create_exception!(
    xvec,
    LockedError,
    StorageError,
    "Another handle, in this process or another, is the collection's writer."
);
create_exception!(
    xvec,
    CorruptionError,
    StorageError,
    "A file's bytes fail a check (`path`, `offset`); `verify()` and `xvec repair` look deeper."
);
create_exception!(xvec, ReadOnlyError, Error, "A write through a read-only handle.");
create_exception!(xvec, CancelledError, Error, "A long operation was cancelled; the collection is unchanged.");
create_exception!(xvec, BusyError, Error, "A schema change kept meeting new writes; the collection is unchanged.");
create_exception!(xvec, ClosedError, Error, "The handle was closed, or was opened in another process (before a fork).");
create_exception!(
    xvec,
    Interrupted,
    PyKeyboardInterrupt,
    "Ctrl-C stopped a write part-way: `committed` rows are durable (`committed_keys`), the rest were not written."
);

/// Registers the exception classes on the module under their Python names.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    m.add("SchemaError", py.get_type::<SchemaError>())?;
    m.add("DocError", py.get_type::<DocError>())?;
    m.add("QueryError", py.get_type::<QueryError>())?;
    m.add("FilterError", py.get_type::<FilterError>())?;
    m.add("StorageError", py.get_type::<StorageError>())?;
    m.add("LockedError", py.get_type::<LockedError>())?;
    m.add("CorruptionError", py.get_type::<CorruptionError>())?;
    m.add("ReadOnlyError", py.get_type::<ReadOnlyError>())?;
    m.add("CancelledError", py.get_type::<CancelledError>())?;
    m.add("BusyError", py.get_type::<BusyError>())?;
    m.add("ClosedError", py.get_type::<ClosedError>())?;
    m.add("Interrupted", py.get_type::<Interrupted>())?;
    Ok(())
}

/// An engine error as the exception of its kind, attributes set.
pub fn to_py(e: EngineError) -> PyErr {
    Python::attach(|py| {
        let msg = e.to_string();
        let (err, attrs): (PyErr, Vec<(&str, Py<PyAny>)>) = match &e {
            EngineError::Schema(_) => (SchemaError::new_err(msg), vec![]),
            EngineError::Doc(d) => (DocError::new_err(msg), doc_attrs(py, d)),
            EngineError::Filter(f) => (
                FilterError::new_err(msg),
                vec![
                    ("line", f.line.into_pyobject(py).unwrap().into_any().unbind()),
                    ("column", f.column.into_pyobject(py).unwrap().into_any().unbind()),
                ],
            ),
            EngineError::Query(_) => (QueryError::new_err(msg), vec![]),
            EngineError::Storage(s) => storage(py, s, msg),
            EngineError::ReadOnly(_) => (ReadOnlyError::new_err(msg), vec![]),
            EngineError::Cancelled => (CancelledError::new_err(msg), vec![]),
            EngineError::Busy(_) => (BusyError::new_err(msg), vec![]),
            _ => (Error::new_err(msg), vec![]),
        };
        set_attrs(py, &err, attrs);
        err
    })
}

/// A document's error (one item of a write's results) as a `DocError` instance.
pub fn doc_error(py: Python<'_>, d: &EngineDocError) -> PyErr {
    doc_error_saying(py, d, d.to_string())
}

/// [`doc_error`] with its own message (the row's position, how many more failed).
pub fn doc_error_saying(py: Python<'_>, d: &EngineDocError, msg: String) -> PyErr {
    let err = DocError::new_err(msg);
    set_attrs(py, &err, doc_attrs(py, d));
    err
}

fn doc_attrs(py: Python<'_>, d: &EngineDocError) -> Vec<(&'static str, Py<PyAny>)> {
    let opt = |s: Option<&str>| s.into_pyobject(py).unwrap().into_any().unbind();
    vec![("key", opt(d.key())), ("field", opt(d.field()))]
}

fn storage(py: Python<'_>, s: &EngineStorageError, msg: String) -> (PyErr, Vec<(&'static str, Py<PyAny>)>) {
    let path = |p: &std::path::Path| p.to_string_lossy().into_owned().into_pyobject(py).unwrap().into_any().unbind();
    match s {
        EngineStorageError::Locked { path: p, .. } => (LockedError::new_err(msg), vec![("path", path(p))]),
        EngineStorageError::Corrupted { path: p, offset, .. } => (
            CorruptionError::new_err(msg),
            vec![("path", path(p)), ("offset", offset.into_pyobject(py).unwrap().into_any().unbind())],
        ),
        EngineStorageError::WalDamaged(_) => (CorruptionError::new_err(msg), vec![]),
        // A read of rows in a damaged block of a degraded segment: the rest stays readable.
        EngineStorageError::DamagedRows { path: p, .. } => (CorruptionError::new_err(msg), vec![("path", path(p))]),
        EngineStorageError::BackupDamaged { path: p, .. } => (CorruptionError::new_err(msg), vec![("path", path(p))]),
        EngineStorageError::Io { path: p, source } => {
            let errno = source.raw_os_error().into_pyobject(py).unwrap().into_any().unbind();
            (StorageError::new_err(msg), vec![("path", path(p)), ("errno", errno)])
        }
        _ => (StorageError::new_err(msg), vec![]),
    }
}

fn set_attrs(py: Python<'_>, err: &PyErr, attrs: Vec<(&str, Py<PyAny>)>) {
    let value = err.value(py);
    for (name, v) in attrs {
        // Setting an attribute on a fresh exception instance cannot fail.
        let _ = value.setattr(name, v);
    }
}

/// `Result<T, xvec::Error>` into `PyResult<T>`.
pub trait IntoPy<T> {
    /// The engine error as its Python exception.
    fn py_err(self) -> PyResult<T>;
}

impl<T> IntoPy<T> for Result<T, EngineError> {
    fn py_err(self) -> PyResult<T> {
        self.map_err(to_py)
    }
}
