//! `xvec.Snapshot`: one pinned generation of a collection, read as often as needed with
//! the same answer however the collection changes meanwhile.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use xvec::Query;

use crate::args::{Knobs, params_from_py, query_vector};
use crate::arrow_io::record_batch_reader;
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

    /// WAL records this view holds on top of its generation (written since it was
    /// published): with `generation`, which state of the collection this view is.
    #[getter]
    fn wal_records(&self) -> u64 {
        self.snap.wal_records()
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
        nprobe = None, target_recall = None, refine = None, beam_width = None, vectors = false))]
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
        target_recall: Option<f32>,
        refine: Option<usize>,
        beam_width: Option<usize>,
        vectors: bool,
    ) -> PyResult<QueryResult> {
        let params = params_from_py(params)?;
        let knobs = Knobs { k, filter, params, field, fields, ef, nprobe, target_recall, refine, beam_width, vectors };
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

    /// The parts a scan of this view reads on its own, in storage order: each segment,
    /// then each chunk of the memtable, as dicts `{"segment": id or None, "rows": live
    /// rows}`. `export(part=i)` reads one; `xvec.ray.read` plans a task per part.
    fn parts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let parts = self.snap.scan_parts();
        let dicts = parts
            .iter()
            .map(|p| {
                let d = PyDict::new(py);
                d.set_item("segment", p.segment)?;
                d.set_item("rows", p.rows)?;
                Ok(d)
            })
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, dicts)
    }

    /// The documents of this view (those `filter` keeps) as a streaming
    /// `pyarrow.RecordBatchReader`, as `Collection.export`; `part` reads one of `parts()`.
    #[pyo3(signature = (*, fields = None, filter = None, params = None, key = xvec::KEY_FIELD, batch_size = 10_000,
        part = None))]
    #[allow(clippy::too_many_arguments)]
    fn export<'py>(
        &self,
        py: Python<'py>,
        fields: Option<Vec<String>>,
        filter: Option<String>,
        params: Option<&Bound<'py, PyDict>>,
        key: &str,
        batch_size: usize,
        part: Option<usize>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let params = params_from_py(params)?;
        let scan = py
            .detach(|| {
                let scan = self.snap.scan(filter.as_deref(), &params, fields.as_deref())?;
                match part {
                    Some(p) => scan.only_part(p),
                    None => Ok(scan),
                }
            })
            .py_err()?;
        record_batch_reader(py, scan, &self.schema, fields.as_deref(), key, batch_size)
    }

    fn __repr__(&self) -> String {
        format!("xvec.Snapshot(generation={}, count={})", self.snap.generation(), self.snap.count())
    }
}
