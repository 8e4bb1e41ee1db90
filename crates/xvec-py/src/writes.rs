//! Writes from Python: the chunked write loop (`Collection::write`, behind `insert`,
//! `upsert` and `update`) and `WriteResult`, what a write did row by row.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::collection::Collection;
use crate::errors::{Interrupted, IntoPy, doc_error, doc_error_saying};
use crate::input::Rows;

impl Collection {
    /// Writes `data` (only the rows at the positions `picked`, when given) a chunk at a
    /// time with `op`, the GIL released for each engine call.
    pub(crate) fn write(
        &self,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        key: &str,
        picked: Option<Vec<usize>>,
        batch_size: usize,
        op: fn(&xvec::Collection, Vec<xvec::Doc>) -> Result<Vec<xvec::ItemResult>, xvec::Error>,
    ) -> PyResult<WriteResult> {
        let c = self.get()?;
        let schema = c.schema();
        let mut rows = Rows::new(py, &schema, data, key)?;
        if let Some(picked) = picked {
            rows.pick(py, picked)?;
        }
        let mut result = WriteResult::default();
        let mut position = 0usize;
        loop {
            let chunk = rows.next_chunk(py, &schema, batch_size.max(1)).map_err(|e| result.attach(py, e))?;
            if chunk.is_empty() {
                return Ok(result);
            }
            let chunk_rows = chunk.len();
            let mut docs = Vec::with_capacity(chunk.len());
            let mut places = Vec::with_capacity(chunk.len());
            for (j, row) in chunk.into_iter().enumerate() {
                let place = rows.position(position + j);
                match row {
                    Ok(doc) => {
                        places.push(place);
                        docs.push(doc);
                    }
                    Err(e) => result.failed.push((place, e.key().unwrap_or_default().to_string(), e)),
                }
            }
            position += chunk_rows;
            let keys: Vec<String> = docs.iter().map(|d| d.key.clone()).collect();
            let outcome = py.detach(|| op(&c, docs)).py_err().map_err(|e| result.attach(py, e))?;
            for ((place, key), r) in places.into_iter().zip(keys).zip(outcome) {
                match r {
                    Ok(()) => result.keys.push(key),
                    Err(e) => result.failed.push((place, key, e)),
                }
            }
            result.failed.sort_by_key(|f| f.0);
            if let Err(e) = py.check_signals() {
                return Err(result.interrupted(py, e));
            }
        }
    }
}

/// The row positions of `rows=`: a numpy integer array (read in place) or a sequence of
/// ints; a negative one is an error naming it.
pub(crate) fn positions(rows: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Vec<usize>>> {
    let Some(rows) = rows else { return Ok(None) };
    let list = match rows.is_instance_of::<numpy::PyUntypedArray>() {
        true => rows.call_method1("astype", ("int64",))?.call_method0("tolist")?,
        false => rows.clone(),
    };
    let mut out = Vec::with_capacity(list.len().unwrap_or(0));
    for (i, r) in list.try_iter()?.enumerate() {
        let r: i64 = r?.extract().map_err(|_| PyTypeError::new_err(format!("rows[{i}]: expected an int")))?;
        let r =
            usize::try_from(r).map_err(|_| PyValueError::new_err(format!("rows[{i}] is {r}; positions are ≥ 0")))?;
        out.push(r);
    }
    Ok(Some(out))
}

/// What a write did: the keys written and, for each row that was not, its position in
/// the input, its key and the engine's reason (a `DocError`).
#[pyclass(frozen, module = "xvec")]
#[derive(Default)]
pub struct WriteResult {
    pub(crate) keys: Vec<String>,
    pub(crate) failed: Vec<(usize, String, xvec::DocError)>,
}

impl WriteResult {
    /// Adds what was committed to an error raised part-way (`committed`, `committed_keys`).
    fn attach(&self, py: Python<'_>, e: PyErr) -> PyErr {
        if !self.keys.is_empty() {
            let v = e.value(py);
            let _ = v.setattr("committed", self.keys.len());
            let _ = v.setattr("committed_keys", self.keys.clone());
        }
        e
    }

    fn interrupted(&self, py: Python<'_>, _signal: PyErr) -> PyErr {
        let e =
            Interrupted::new_err(format!("interrupted: {} rows committed; the rest were not written", self.keys.len()));
        let v = e.value(py);
        let _ = v.setattr("committed", self.keys.len());
        let _ = v.setattr("committed_keys", self.keys.clone());
        e
    }
}

#[pymethods]
impl WriteResult {
    /// Rows written.
    #[getter]
    fn count(&self) -> usize {
        self.keys.len()
    }

    /// Keys written, in input order.
    #[getter]
    fn keys(&self) -> Vec<String> {
        self.keys.clone()
    }

    /// Rows not written: `(position in the input, key, DocError)`, in input order.
    #[getter]
    fn failed<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let items = self.failed.iter().map(|(i, k, e)| (*i, k.as_str(), doc_error(py, e).into_value(py)));
        PyList::new(py, items)
    }

    /// Raises the first failure as a `DocError` (with `failed` holding every one).
    fn raise_for_errors(&self, py: Python<'_>) -> PyResult<()> {
        match self.failed.first() {
            None => Ok(()),
            Some((i, _, e)) => {
                let msg = format!(
                    "row {i}: {e}{}",
                    if self.failed.len() > 1 {
                        format!(" (and {} more)", self.failed.len() - 1)
                    } else {
                        String::new()
                    }
                );
                let err = doc_error_saying(py, e, msg);
                let _ = err.value(py).setattr("failed", self.failed(py)?);
                Err(err)
            }
        }
    }

    fn __len__(&self) -> usize {
        self.keys.len()
    }

    fn __bool__(&self) -> bool {
        self.failed.is_empty()
    }

    fn __repr__(&self) -> String {
        format!("WriteResult(count={}, failed={})", self.keys.len(), self.failed.len())
    }
}
