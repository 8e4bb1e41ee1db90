//! What a query returns: `QueryResult` (keys, scores, fields; numpy, Arrow and pandas
//! views made on demand from the engine's hits, no Python object per hit until asked) and
//! `Hit`, one of them.

use std::sync::Arc;

use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyDict, PyList};
use xvec::{Field, Schema};

use crate::arrow_io::{stream_capsule, to_batch};
use crate::convert::value_to_py;

/// One hit: its key, score (in the metric's unit: squared L2 distance, inner product or
/// cosine similarity) and the fields the query returned.
#[pyclass(frozen, module = "xvec", get_all)]
pub struct Hit {
    /// The document's key.
    pub key: String,
    /// The score, in the metric's unit.
    pub score: f32,
    /// The returned fields, by name (nulls left out).
    pub fields: Py<PyDict>,
}

#[pymethods]
impl Hit {
    fn __repr__(&self) -> String {
        format!("Hit(key={:?}, score={})", self.key, self.score)
    }
}

/// The hits of one query, best first.
///
/// `keys`, `scores` and `fields` are lists in rank order; `to_numpy()` gives `(keys,
/// scores)` arrays, `to_arrow()` a `pyarrow.Table` (columns `_key`, `_score`, then the
/// fields), `to_pandas()` a DataFrame. It is also an Arrow stream (`__arrow_c_stream__`),
/// so `pyarrow.table(result)` and `polars.from_arrow(result)` take it as is.
#[pyclass(frozen, module = "xvec", sequence)]
pub struct QueryResult {
    hits: Vec<xvec::Hit>,
    /// For the Arrow view's column types.
    schema: Arc<Schema>,
}

impl QueryResult {
    pub fn new(hits: Vec<xvec::Hit>, schema: &Arc<Schema>) -> QueryResult {
        QueryResult { hits, schema: Arc::clone(schema) }
    }

    /// The fields some hit holds, in schema order.
    fn returned_fields(&self) -> Vec<Field> {
        let present = |name: &str| self.hits.iter().any(|h| h.fields.contains_key(name));
        self.schema.fields().iter().filter(|f| present(&f.name)).cloned().collect()
    }

    fn hit(&self, py: Python<'_>, i: usize) -> PyResult<Hit> {
        let h = &self.hits[i];
        Ok(Hit { key: h.key.clone(), score: h.score, fields: fields_dict(py, &h.fields)?.unbind() })
    }

    fn arrow_batch(&self) -> Result<arrow_array::RecordBatch, arrow_schema::ArrowError> {
        use arrow_schema::{DataType, Field as ArrowField, Schema as ArrowSchema};
        let fields = self.returned_fields();
        let base = crate::arrow_io::arrow_schema(&fields, xvec::KEY_FIELD)?;
        let rows: Vec<_> = self.hits.iter().map(|h| (h.key.clone(), &h.fields)).collect();
        let batch = to_batch(&base, &fields, &rows)?;
        let mut columns = batch.columns().to_vec();
        let mut fields: Vec<ArrowField> = base.fields().iter().map(|f| f.as_ref().clone()).collect();
        let scores = arrow_array::Float32Array::from_iter_values(self.hits.iter().map(|h| h.score));
        columns.insert(1, Arc::new(scores));
        fields.insert(1, ArrowField::new("_score", DataType::Float32, false));
        arrow_array::RecordBatch::try_new(Arc::new(ArrowSchema::new(fields)), columns)
    }
}

/// A hit's fields as a dict.
pub fn fields_dict<'py>(
    py: Python<'py>,
    fields: &std::collections::BTreeMap<String, xvec::Value>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (name, v) in fields {
        d.set_item(name, value_to_py(py, v)?)?;
    }
    Ok(d)
}

/// A fetched document as a dict: `_key` first, then its fields.
pub fn doc_dict<'py>(py: Python<'py>, d: &xvec::Doc) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item(xvec::KEY_FIELD, &d.key)?;
    for (name, v) in &d.fields {
        dict.set_item(name, value_to_py(py, v)?)?;
    }
    Ok(dict)
}

#[pymethods]
impl QueryResult {
    fn __len__(&self) -> usize {
        self.hits.len()
    }

    fn __getitem__(&self, py: Python<'_>, i: isize) -> PyResult<Hit> {
        let n = self.hits.len() as isize;
        let j = if i < 0 { i + n } else { i };
        if !(0..n).contains(&j) {
            return Err(pyo3::exceptions::PyIndexError::new_err(format!("hit {i} of {n}")));
        }
        self.hit(py, j as usize)
    }

    fn __repr__(&self) -> String {
        let keys: Vec<&str> = self.hits.iter().take(5).map(|h| h.key.as_str()).collect();
        format!("QueryResult({} hits: {keys:?}{})", self.hits.len(), if self.hits.len() > 5 { " …" } else { "" })
    }

    /// The keys, best first.
    #[getter]
    fn keys<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.hits.iter().map(|h| h.key.as_str()))
    }

    /// The scores as a float32 array, in the metric's unit.
    #[getter]
    fn scores<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f32>> {
        PyArray1::from_iter(py, self.hits.iter().map(|h| h.score))
    }

    /// The returned fields of each hit, as dicts.
    #[getter]
    fn fields<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let dicts = self.hits.iter().map(|h| fields_dict(py, &h.fields)).collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, dicts)
    }

    /// `(keys, scores)`: an object array of str and a float32 array.
    fn to_numpy<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyArray1<f32>>)> {
        let np = py.import("numpy")?;
        let keys = np.call_method1("array", (self.keys(py)?, "object"))?;
        Ok((keys, self.scores(py)))
    }

    /// The hits as a `pyarrow.Table`: `_key`, `_score`, then the returned fields.
    fn to_arrow<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let pa = import_pyarrow(slf.py())?;
        pa.call_method1("table", (slf,))
    }

    /// The hits as a `pandas.DataFrame` (through pyarrow).
    fn to_pandas<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::to_arrow(slf)?.call_method0("to_pandas")
    }

    /// The Arrow PyCapsule stream protocol: one record batch of the hits.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let batch = self.arrow_batch().map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
        let schema = batch.schema();
        stream_capsule(py, Box::new(arrow_array::RecordBatchIterator::new(vec![Ok(batch)], schema)))
    }
}

/// pyarrow, or an ImportError that says how to get it.
pub fn import_pyarrow(py: Python<'_>) -> PyResult<Bound<'_, PyModule>> {
    py.import("pyarrow").map_err(|_| {
        pyo3::exceptions::PyImportError::new_err(
            "this needs pyarrow: pip install pyarrow (or pip install 'xvec[arrow]')",
        )
    })
}
