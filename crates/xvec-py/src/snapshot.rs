//! `xvec.Snapshot`: one pinned generation of a collection, read as often as needed with
//! the same answer however the collection changes meanwhile.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use xvec::Query;

use crate::args::{Knobs, params_from_py, query_vector};
use crate::errors::IntoPy;
use crate::results::QueryResult;

/// A pinned, read-only view of a collection (`Collection.snapshot()`).
#[pyclass(frozen, module = "xvec")]
pub struct Snapshot {
    snap: Arc<xvec::Snapshot>,
    /// The view's schema, shared by its results.
    schema: Arc<xvec::Schema>,
}

impl Snapshot {
    pub fn new(snap: Arc<xvec::Snapshot>) -> Snapshot {
        let schema = Arc::new(snap.schema().clone());
        Snapshot { snap, schema }
    }
}

#[pymethods]
impl Snapshot {
    /// The manifest generation this view reads.
    #[getter]
    fn generation(&self) -> u64 {
        self.snap.generation()
    }

    fn __len__(&self) -> usize {
        self.snap.count() as usize
    }

    /// Live documents in this view, or those `filter` keeps.
    #[pyo3(signature = (filter = None, *, params = None))]
    fn count(&self, py: Python<'_>, filter: Option<String>, params: Option<&Bound<'_, PyDict>>) -> PyResult<u64> {
        let params = params_from_py(params)?;
        py.detach(|| self.snap.count_where(filter.as_deref(), &params)).py_err()
    }

    /// Nearest neighbours in this view; the arguments of `Collection.query` (no
    /// `group_by`).
    #[pyo3(signature = (vector, *, k = 10, filter = None, params = None, field = None, fields = None, ef = None,
        nprobe = None, refine = None, vectors = false))]
    #[allow(clippy::too_many_arguments)]
    fn query(
        &self,
        py: Python<'_>,
        vector: &Bound<'_, PyAny>,
        k: usize,
        filter: Option<String>,
        params: Option<&Bound<'_, PyDict>>,
        field: Option<String>,
        fields: Option<Vec<String>>,
        ef: Option<usize>,
        nprobe: Option<usize>,
        refine: Option<usize>,
        vectors: bool,
    ) -> PyResult<QueryResult> {
        let knobs = Knobs { k, filter, params: params_from_py(params)?, field, fields, ef, nprobe, refine, vectors };
        let q = knobs.query(Query::vector(query_vector(vector)?));
        let hits = py.detach(|| self.snap.query(&q)).py_err()?;
        Ok(QueryResult::new(hits, &self.schema))
    }

    /// Documents by key in this view, as dicts (`None` for a key not found).
    #[pyo3(signature = (keys, *, fields = None))]
    fn fetch<'py>(
        &self,
        py: Python<'py>,
        keys: Vec<String>,
        fields: Option<Vec<String>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
        let docs = py.detach(|| self.snap.fetch(&refs, fields.as_deref())).py_err()?;
        let out = docs
            .iter()
            .map(|d| match d {
                None => Ok(py.None().into_bound(py)),
                Some(d) => Ok(crate::results::doc_dict(py, d)?.into_any()),
            })
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, out)
    }

    fn __repr__(&self) -> String {
        format!("xvec.Snapshot(generation={}, count={})", self.snap.generation(), self.snap.count())
    }
}
