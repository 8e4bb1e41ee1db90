//! `xvec.Collection`: a handle on one collection directory, a face over
//! [`xvec::Collection`] like the `xvec` tool. Every call that can take time runs with the
//! GIL released; long ones (a write of many rows, `optimize`) stop cleanly on Ctrl-C.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use numpy::{PyArray2, PyArrayMethods, PyReadonlyArray2, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use xvec::{GroupBy, Query};

use crate::admin;
use crate::args::{Knobs, params_from_py, target};
use crate::arrow_io::record_batch_reader;
use crate::convert::{as_f32_array, from_json};
use crate::errors::{ClosedError, IntoPy};
use crate::input::keys_from_py;
use crate::results::{QueryResult, fields_dict};
use crate::versions::{self, AsOf};
use crate::writes::{WriteResult, positions};

/// Rows converted and written per engine call by default: the `xvec import` default, one
/// WAL batch (and sync, under the syncing policies) each.
pub const DEFAULT_BATCH: usize = 1000;

/// A collection: a directory holding one writer's data, opened by [`create`](crate::create)
/// or [`open`](crate::open). Use it as a context manager (`with xvec.open(path) as c:`) or
/// call `close()`; a handle cannot be used after `os.fork()` in the child (open the
/// collection again there).
#[pyclass(frozen, module = "xvec")]
pub struct Collection {
    inner: Mutex<Option<Arc<xvec::Collection>>>,
    /// The process that opened it, and the forks seen then: a forked child must not
    /// write through (or close) it.
    pid: u32,
    forks: u64,
    path: String,
}

thread_local! {
    /// The handles (by address) this thread is inside a call on: a `close()` from Python
    /// code that such a call runs (a progress callback, a write reading its input) would
    /// wait for the call that is waiting for it.
    static IN_CALL: std::cell::RefCell<Vec<usize>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The engine handle held by one call, which this thread is counted inside of.
pub(crate) struct InCall {
    c: Arc<xvec::Collection>,
    id: usize,
}

impl std::ops::Deref for InCall {
    type Target = Arc<xvec::Collection>;

    fn deref(&self) -> &Arc<xvec::Collection> {
        &self.c
    }
}

impl Drop for InCall {
    fn drop(&mut self) {
        IN_CALL.with_borrow_mut(|calls| {
            if let Some(i) = calls.iter().rposition(|&id| id == self.id) {
                calls.swap_remove(i);
            }
        });
    }
}

/// Forks this process has gone through, counted in the child by a `pthread_atfork`
/// handler: a handle compares it with the count at its open, which costs a load where
/// `getpid` would cost a system call on every query.
static FORKS: AtomicU64 = AtomicU64::new(0);

extern "C" fn forked() {
    FORKS.fetch_add(1, Ordering::Relaxed);
}

/// Installs the fork counter; called once when the module loads.
pub fn count_forks() {
    // SAFETY: registers a handler that only increments an atomic, which is async-signal-
    // safe as the child side of a fork requires.
    unsafe { libc::pthread_atfork(None, None, Some(forked)) };
}

impl Collection {
    pub fn wrap(c: xvec::Collection, path: String) -> Collection {
        let forks = FORKS.load(Ordering::Relaxed);
        Collection { inner: Mutex::new(Some(Arc::new(c))), pid: std::process::id(), forks, path }
    }

    /// Whether this process is a fork of the one that opened the handle.
    fn in_fork(&self) -> bool {
        FORKS.load(Ordering::Relaxed) != self.forks
    }

    /// The engine handle for the length of one call, or why there is none.
    pub(crate) fn get(&self) -> PyResult<InCall> {
        if self.in_fork() {
            return Err(ClosedError::new_err(format!(
                "{}: this handle was opened in process {} before a fork; open the collection again in this process",
                self.path, self.pid
            )));
        }
        let inner = self.inner.lock().expect("handle lock poisoned");
        let c =
            inner.clone().ok_or_else(|| ClosedError::new_err(format!("{}: the collection is closed", self.path)))?;
        let id = self as *const Collection as usize;
        IN_CALL.with_borrow_mut(|calls| calls.push(id));
        Ok(InCall { c, id })
    }
}

impl Drop for Collection {
    fn drop(&mut self) {
        if self.in_fork()
            && let Some(c) = self.inner.get_mut().ok().and_then(Option::take)
        {
            // A forked child's copy: closing it would write to files the parent owns.
            std::mem::forget(c);
        }
    }
}

#[pymethods]
impl Collection {
    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, py: Python<'_>, _exc: &Bound<'_, PyTuple>) -> PyResult<bool> {
        self.close(py)?;
        Ok(false)
    }

    fn __repr__(&self) -> String {
        let state = match self.inner.lock().expect("handle lock poisoned").as_ref() {
            None => "closed".to_string(),
            Some(c) if c.is_writable() => "writable".to_string(),
            Some(_) => "read-only".to_string(),
        };
        format!("xvec.Collection({:?}, {state})", self.path)
    }

    fn __len__(&self) -> PyResult<usize> {
        Ok(self.get()?.count() as usize)
    }

    /// The collection directory.
    #[getter]
    fn path(&self) -> &str {
        &self.path
    }

    /// Whether this handle is the writer.
    #[getter]
    fn writable(&self) -> PyResult<bool> {
        Ok(self.get()?.is_writable())
    }

    /// Whether the handle is closed.
    #[getter]
    fn closed(&self) -> bool {
        self.inner.lock().expect("handle lock poisoned").is_none()
    }

    /// Closes the handle: waits for this handle's background work, syncs the WAL and
    /// releases the writer lock. Closing twice is a no-op; queries still running on other
    /// threads finish first.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        if self.in_fork() {
            return Err(ClosedError::new_err(format!("{}: this handle belongs to process {}", self.path, self.pid)));
        }
        if IN_CALL.with_borrow(|calls| calls.contains(&(self as *const Collection as usize))) {
            return Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
                "{}: close() from inside a call on this handle (a progress callback, or a write reading its input) would wait for that call forever; close after it returns",
                self.path
            )));
        }
        let taken = self.inner.lock().expect("handle lock poisoned").take();
        let Some(mut c) = taken else { return Ok(()) };
        py.detach(|| {
            loop {
                match Arc::try_unwrap(c) {
                    Ok(c) => return c.close(),
                    Err(shared) => {
                        c = shared;
                        std::thread::sleep(Duration::from_millis(1));
                    }
                }
            }
        })
        .py_err()
    }

    /// Inserts documents; existing keys fail (per row). `data`: a list of dicts (the key
    /// under `key`), a dict of columns (`{"_key": [...], "emb": ndarray (n, dim), ...}`),
    /// or Arrow data (pyarrow Table/RecordBatch, polars DataFrame, any
    /// `__arrow_c_stream__`). `rows` (Arrow data only): the positions of the rows to
    /// write, in that order (a sequence or numpy array of ints), read from the input in
    /// place instead of from a gathered copy; `failed` still names positions in `data`.
    /// Written `batch_size` rows per WAL batch; on Ctrl-C between batches raises
    /// `xvec.Interrupted` carrying `committed` and `committed_keys`.
    #[pyo3(signature = (data, *, key = xvec::KEY_FIELD, rows = None, batch_size = DEFAULT_BATCH))]
    fn insert(
        &self,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        key: &str,
        rows: Option<&Bound<'_, PyAny>>,
        batch_size: usize,
    ) -> PyResult<WriteResult> {
        self.write(py, data, key, positions(rows)?, batch_size, |c, d| c.insert(d))
    }

    /// Inserts documents, or merges the given fields into those whose keys exist. Same
    /// forms as `insert`.
    #[pyo3(signature = (data, *, key = xvec::KEY_FIELD, rows = None, batch_size = DEFAULT_BATCH))]
    fn upsert(
        &self,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        key: &str,
        rows: Option<&Bound<'_, PyAny>>,
        batch_size: usize,
    ) -> PyResult<WriteResult> {
        self.write(py, data, key, positions(rows)?, batch_size, |c, d| c.upsert(d))
    }

    /// Sets the given fields of existing documents (a missing key fails its row). Same
    /// forms as `insert`.
    #[pyo3(signature = (data, *, key = xvec::KEY_FIELD, rows = None, batch_size = DEFAULT_BATCH))]
    fn update(
        &self,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        key: &str,
        rows: Option<&Bound<'_, PyAny>>,
        batch_size: usize,
    ) -> PyResult<WriteResult> {
        self.write(py, data, key, positions(rows)?, batch_size, |c, d| c.update(d))
    }

    /// Deletes by key (`delete(["a", "b"])`, a `WriteResult`; a missing key fails its row)
    /// or by filter (`delete(where="pos = 'n'")`, the number deleted).
    #[pyo3(signature = (keys = None, *, r#where = None, params = None))]
    fn delete<'py>(
        &self,
        py: Python<'py>,
        keys: Option<&Bound<'py, PyAny>>,
        r#where: Option<String>,
        params: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let c = self.get()?;
        match (keys, r#where) {
            (Some(keys), None) => {
                let keys = keys_from_py(keys)?;
                let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
                let outcome = py.detach(|| c.delete(&refs)).py_err()?;
                let mut result = WriteResult::default();
                for (i, (k, r)) in keys.iter().zip(outcome).enumerate() {
                    match r {
                        Ok(()) => result.keys.push(k.clone()),
                        Err(e) => result.failed.push((i, k.clone(), e)),
                    }
                }
                Ok(Bound::new(py, result)?.into_any())
            }
            (None, Some(filter)) => {
                let params = params_from_py(params)?;
                let n = py.detach(|| c.delete_where_with(&filter, &params)).py_err()?;
                Ok(n.into_pyobject(py)?.into_any())
            }
            _ => Err(PyTypeError::new_err("delete takes keys or where=..., exactly one")),
        }
    }

    /// Documents by key, as dicts (`_key` and the fields; vectors as numpy arrays), `None`
    /// for a key not found. A single key returns a single dict or `None`. `as_of` (a
    /// version number or a tag) reads that version as it was published.
    #[pyo3(signature = (keys, *, fields = None, as_of = None))]
    fn fetch<'py>(
        &self,
        py: Python<'py>,
        keys: &Bound<'py, PyAny>,
        fields: Option<Vec<String>>,
        as_of: Option<AsOf>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let c = self.get()?;
        let single = keys.is_instance_of::<pyo3::types::PyString>();
        let keys = keys_from_py(keys)?;
        let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
        let snap = versions::view(py, &c, as_of)?;
        let docs = py.detach(|| snap.fetch(&refs, fields.as_deref())).py_err()?;
        let out = docs
            .iter()
            .map(|d| match d {
                None => Ok(py.None().into_bound(py)),
                Some(d) => Ok(crate::results::doc_dict(py, d)?.into_any()),
            })
            .collect::<PyResult<Vec<_>>>()?;
        match single {
            true => Ok(out.into_iter().next().expect("one key, one result")),
            false => Ok(PyList::new(py, out)?.into_any()),
        }
    }

    /// Live documents, or those `filter` keeps (`$name` placeholders bound from `params`);
    /// `as_of` counts in that version.
    #[pyo3(signature = (filter = None, *, params = None, as_of = None))]
    fn count(
        &self,
        py: Python<'_>,
        filter: Option<String>,
        params: Option<&Bound<'_, PyDict>>,
        as_of: Option<AsOf>,
    ) -> PyResult<u64> {
        let c = self.get()?;
        let params = params_from_py(params)?;
        let snap = versions::view(py, &c, as_of)?;
        py.detach(|| snap.count_where(filter.as_deref(), &params)).py_err()
    }

    /// A page of the documents `filter` keeps, as `(docs, next)`: dicts as `fetch` gives
    /// them, in key order or by scalar field `order_by` (then key; nulls last, first with
    /// `desc`), `limit` of them (all without one) after skipping `offset`, starting after
    /// cursor `after`. `next` is the cursor of the following page, `None` at the end: pass
    /// it back as `after` to resume (for key order it is the page's last key).
    #[pyo3(signature = (filter = None, *, fields = None, order_by = None, desc = false, limit = None, offset = 0,
        after = None, params = None, as_of = None))]
    #[allow(clippy::too_many_arguments)]
    fn scan<'py>(
        &self,
        py: Python<'py>,
        filter: Option<String>,
        fields: Option<Vec<String>>,
        order_by: Option<String>,
        desc: bool,
        limit: Option<usize>,
        offset: usize,
        after: Option<String>,
        params: Option<&Bound<'py, PyDict>>,
        as_of: Option<AsOf>,
    ) -> PyResult<(Bound<'py, PyList>, Option<String>)> {
        let c = self.get()?;
        let req = xvec::ScanRequest::new()
            .filter_opt(filter)
            .params(params_from_py(params)?)
            .fields_opt(fields)
            .order_by_opt(order_by)
            .desc(desc)
            .limit(limit)
            .offset(offset)
            .after(after);
        let snap = versions::view(py, &c, as_of)?;
        let page = py.detach(|| snap.scan_page(&req)).py_err()?;
        let docs = page.docs.iter().map(|d| crate::results::doc_dict(py, d)).collect::<PyResult<Vec<_>>>()?;
        Ok((PyList::new(py, docs)?, page.next))
    }

    /// Rows per value of scalar or array field `field` among those `filter` keeps: a dict
    /// with `values` (the `top` most frequent `(value, rows)`, most frequent first),
    /// `others` (rows of the values left out), `distinct`, `missing` (rows without a value)
    /// and `rows` (rows kept). Reads the column or its inverted index, never vectors.
    #[pyo3(signature = (field, filter = None, *, top = 20, params = None, as_of = None))]
    fn facets<'py>(
        &self,
        py: Python<'py>,
        field: String,
        filter: Option<String>,
        top: usize,
        params: Option<&Bound<'py, PyDict>>,
        as_of: Option<AsOf>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let c = self.get()?;
        let params = params_from_py(params)?;
        let snap = versions::view(py, &c, as_of)?;
        let f = py.detach(|| snap.facets(&field, filter.as_deref(), &params, top)).py_err()?;
        let values = f
            .values
            .iter()
            .map(|(v, n)| Ok((crate::convert::value_to_py(py, v)?, *n)))
            .collect::<PyResult<Vec<_>>>()?;
        let out = PyDict::new(py);
        out.set_item("values", values)?;
        out.set_item("others", f.others)?;
        out.set_item("distinct", f.distinct)?;
        out.set_item("missing", f.missing)?;
        out.set_item("rows", f.rows)?;
        Ok(out)
    }

    /// Statistics of scalar field `field` over the documents `filter` keeps: a dict with
    /// `rows` (kept), `count` (with a value; NaN is none), `min`, `max`, and for numbers
    /// `sum` and `avg` (`None` otherwise or without values). One pass over the column.
    #[pyo3(signature = (field, filter = None, *, params = None, as_of = None))]
    fn aggregate<'py>(
        &self,
        py: Python<'py>,
        field: String,
        filter: Option<String>,
        params: Option<&Bound<'py, PyDict>>,
        as_of: Option<AsOf>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let c = self.get()?;
        let params = params_from_py(params)?;
        let snap = versions::view(py, &c, as_of)?;
        let s = py.detach(|| snap.field_stats(&field, filter.as_deref(), &params)).py_err()?;
        let out = PyDict::new(py);
        out.set_item("rows", s.rows)?;
        out.set_item("count", s.count)?;
        out.set_item("min", crate::convert::value_to_py(py, &s.min)?)?;
        out.set_item("max", crate::convert::value_to_py(py, &s.max)?)?;
        out.set_item("sum", crate::convert::value_to_py(py, &s.sum)?)?;
        out.set_item("avg", s.avg)?;
        Ok(out)
    }

    /// Nearest neighbours of `vector` (or of the stored vector of `key`).
    ///
    /// `k` hits, best first, filtered by `filter` (`$name` placeholders from `params`);
    /// `field` names the vector field when there are several; `fields` the fields to
    /// return (default: every scalar field; `vectors=True` adds vectors). `ef` (graph
    /// search breadth), `nprobe` (IVF lists), `target_recall` (IVF: probe the lists that
    /// held this share, in (0, 1], of true neighbours at build, instead of `nprobe`),
    /// `refine` (re-rank `refine × k` code hits with the originals; a qg index also scores
    /// `refine × k` neighbours its beam turned away) and `beam_width` (a
    /// disk index's nodes read per hop, 1..=64) override the index's defaults. With
    /// `group_by`, returns up to `k` groups of that field's values as `[(value,
    /// QueryResult)]`, `per_group` hits each.
    /// `as_of` (a version number or a tag) searches that version as it was published.
    #[pyo3(signature = (vector = None, *, key = None, k = 10, filter = None, params = None, field = None, fields = None,
        ef = None, nprobe = None, target_recall = None, refine = None, beam_width = None, vectors = false, group_by = None,
        per_group = 3, as_of = None))]
    #[allow(clippy::too_many_arguments)]
    fn query<'py>(
        &self,
        py: Python<'py>,
        vector: Option<&Bound<'py, PyAny>>,
        key: Option<String>,
        k: usize,
        filter: Option<String>,
        params: Option<&Bound<'py, PyDict>>,
        field: Option<String>,
        fields: Option<Vec<String>>,
        ef: Option<usize>,
        nprobe: Option<usize>,
        target_recall: Option<f32>,
        refine: Option<usize>,
        beam_width: Option<usize>,
        vectors: bool,
        group_by: Option<String>,
        per_group: usize,
        as_of: Option<AsOf>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let c = self.get()?;
        let target = target("query", vector, key)?;
        let params = params_from_py(params)?;
        let knobs = Knobs { k, filter, params, field, fields, ef, nprobe, target_recall, refine, beam_width, vectors };
        let q = knobs.query(target);
        // An older version reads with its own schema (a field may have changed since).
        let schema = if as_of.is_some() { None } else { Some(c.schema()) };
        let c = versions::view(py, &c, as_of)?;
        let schema = schema.unwrap_or_else(|| Arc::new(c.schema().clone()));
        match group_by {
            None => {
                let hits = py.detach(|| c.query(&q)).py_err()?;
                Ok(Bound::new(py, QueryResult::new(hits, &schema))?.into_any())
            }
            Some(by) => {
                let by = GroupBy::new(by, k, per_group);
                let groups = py.detach(|| c.query_groups(&q, &by)).py_err()?;
                let out = groups
                    .into_iter()
                    .map(|g| {
                        Ok((
                            crate::convert::value_to_py(py, &g.value)?,
                            Bound::new(py, QueryResult::new(g.hits, &schema))?,
                        ))
                    })
                    .collect::<PyResult<Vec<_>>>()?;
                Ok(PyList::new(py, out)?.into_any())
            }
        }
    }

    /// Searches each row of the 2-D array `vectors` (n, dim) in parallel on `threads`
    /// threads (default: every core) with the GIL released, all against one snapshot.
    /// Returns `(keys, scores)`: an (n, k) object array of str (`None` past a query's
    /// last hit) and an (n, k) float32 array (NaN there). The array is read in place when
    /// it is C-contiguous float32.
    #[pyo3(signature = (vectors, *, k = 10, filter = None, params = None, field = None, ef = None, nprobe = None,
        target_recall = None, refine = None, beam_width = None, threads = None))]
    #[allow(clippy::too_many_arguments)]
    fn query_batch<'py>(
        &self,
        py: Python<'py>,
        vectors: &Bound<'py, PyAny>,
        k: usize,
        filter: Option<String>,
        params: Option<&Bound<'py, PyDict>>,
        field: Option<String>,
        ef: Option<usize>,
        nprobe: Option<usize>,
        target_recall: Option<f32>,
        refine: Option<usize>,
        beam_width: Option<usize>,
        threads: Option<usize>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyArray2<f32>>)> {
        let c = self.get()?;
        let arr = vectors
            .cast::<PyUntypedArray>()
            .map_err(|_| PyTypeError::new_err("query_batch takes a 2-D numpy array of vectors"))?;
        if arr.ndim() != 2 {
            return Err(PyValueError::new_err(format!(
                "query_batch takes a 2-D array (n, dim), found shape {:?}",
                arr.shape()
            )));
        }
        let f = as_f32_array(arr, &|| "vectors".into())?;
        let ro: PyReadonlyArray2<f32> = f.extract()?;
        let n = ro.shape()[0];
        let flat = ro.as_slice().map_err(|e| PyValueError::new_err(e.to_string()))?;
        let knobs = Knobs {
            k,
            filter,
            params: params_from_py(params)?,
            field,
            fields: Some(Vec::new()),
            ef,
            nprobe,
            target_recall,
            refine,
            beam_width,
            vectors: false,
        };
        let q = knobs.query(Query::vector(Vec::new()));
        let threads = threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |t| t.get()));
        let results = py.detach(|| c.query_batch(&q, flat, threads)).py_err()?;
        let results = (results.into_iter().enumerate())
            .map(|(i, r)| {
                r.py_err().inspect_err(|e| {
                    let _ = e.value(py).setattr("row", i);
                })
            })
            .collect::<PyResult<Vec<_>>>()?;
        // Sized only once every row passed the engine's checks (k among them), and
        // fallibly: an (n, k) answer too big for memory is a MemoryError, not an abort.
        let mut scores = Vec::new();
        n.checked_mul(k)
            .and_then(|len| scores.try_reserve_exact(len).ok())
            .ok_or_else(|| pyo3::exceptions::PyMemoryError::new_err(format!("query_batch: ({n}, {k}) scores")))?;
        scores.resize(n * k, f32::NAN);
        let keys = PyList::empty(py);
        for (i, hits) in results.into_iter().enumerate() {
            let row = PyList::new(py, (0..k).map(|j| hits.get(j).map(|h| h.key.as_str())))?;
            for (j, h) in hits.iter().enumerate() {
                scores[i * k + j] = h.score;
            }
            keys.append(row)?;
        }
        let np = py.import("numpy")?;
        let key_arr = np.call_method1("empty", ((n, k), "object"))?;
        if n > 0 && k > 0 {
            key_arr.set_item(pyo3::types::PySlice::full(py), keys)?;
        }
        let scores = numpy::PyArray1::from_vec(py, scores).reshape([n, k])?;
        Ok((key_arr, scores))
    }

    /// A hybrid query in the JSON form of `xvec query --json` (a dict or a JSON string):
    /// dense, text, sparse and key branches under one filter, fused by RRF or weights.
    /// Returns `[(key, score, fields)]`.
    fn hybrid<'py>(&self, py: Python<'py>, query: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        let c = self.get()?;
        let q = admin::hybrid_query(query)?;
        let hits = py.detach(|| c.hybrid(&q)).py_err()?;
        let out = hits
            .iter()
            .map(|h| Ok((h.key.as_str(), h.score, fields_dict(py, &h.fields)?)))
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, out)
    }

    /// Per branch of a hybrid query (`hybrid`'s form), a text branch's BM25 statistics
    /// in this collection, `None` for other branches: `{field: {"docs", "total_len",
    /// "doc_freq": {term: n}}}`. Shards sum theirs and pass the sum as the branch's `stats`.
    fn text_stats<'py>(&self, py: Python<'py>, query: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        crate::fusion::text_stats(py, &*self.get()?, query)
    }

    /// Per branch of a hybrid query, its ranking before fusion: `(keys, scores,
    /// higher_is_better, fields)`, best first; `xvec.fuse` fuses them (merged over shards).
    fn rankings<'py>(&self, py: Python<'py>, query: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        crate::fusion::rankings(py, &*self.get()?, query)
    }

    /// How a query would run and did: the plan per segment (route, candidates, filter
    /// leaves), as a dict. Takes the arguments of `query` (no `group_by`).
    #[pyo3(signature = (vector = None, *, key = None, k = 10, filter = None, params = None, field = None, ef = None,
        nprobe = None, target_recall = None, refine = None, beam_width = None))]
    #[allow(clippy::too_many_arguments)]
    fn explain<'py>(
        &self,
        py: Python<'py>,
        vector: Option<&Bound<'py, PyAny>>,
        key: Option<String>,
        k: usize,
        filter: Option<String>,
        params: Option<&Bound<'py, PyDict>>,
        field: Option<String>,
        ef: Option<usize>,
        nprobe: Option<usize>,
        target_recall: Option<f32>,
        refine: Option<usize>,
        beam_width: Option<usize>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let c = self.get()?;
        let target = target("explain", vector, key)?;
        let knobs = Knobs {
            k,
            filter,
            params: params_from_py(params)?,
            field,
            fields: None,
            ef,
            nprobe,
            target_recall,
            refine,
            beam_width,
            vectors: false,
        };
        let q = knobs.query(target);
        let explain = py.detach(|| c.snapshot().explain(&q)).py_err()?;
        admin::explain_to_py(py, &explain)
    }

    /// Seals the memtable into a segment (durable under every sync policy).
    fn flush(&self, py: Python<'_>) -> PyResult<()> {
        let c = self.get()?;
        py.detach(|| c.flush()).py_err()
    }

    /// Merges segments and builds indexes. `progress(done, total)` is called on this
    /// thread as vectors are indexed; Ctrl-C (or an exception from `progress`) cancels it
    /// with the collection unchanged. Returns a report dict.
    #[pyo3(signature = (*, progress = None, threads = None))]
    fn optimize<'py>(
        &self,
        py: Python<'py>,
        progress: Option<Bound<'py, PyAny>>,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let c = self.get()?;
        let report = admin::optimize(py, &c, progress, threads)?;
        admin::optimize_report(py, &report)
    }

    /// Adds a field: its schema JSON form as a dict (`{"name": "note", "type": "string",
    /// "nullable": true}`, a `default` allowed). Rows written earlier read the default.
    fn add_field(&self, py: Python<'_>, field: &Bound<'_, PyAny>) -> PyResult<()> {
        let c = self.get()?;
        let f = admin::field_from_py(field)?;
        py.detach(|| c.change_field(xvec::FieldChange::Add(f))).py_err()
    }

    /// Drops a field (its data is dropped at the next optimize).
    fn drop_field(&self, py: Python<'_>, name: String) -> PyResult<()> {
        let c = self.get()?;
        py.detach(|| c.change_field(xvec::FieldChange::Drop(name))).py_err()
    }

    /// Renames a field.
    fn rename_field(&self, py: Python<'_>, old: String, new: String) -> PyResult<()> {
        let c = self.get()?;
        py.detach(|| c.change_field(xvec::FieldChange::Rename { from: old, to: new })).py_err()
    }

    /// Adds an index to a scalar or string field: `"inverted"`, `"range"`, or a full-text
    /// index `"fts"` / `{"type": "fts", "filters": [...]}`. Built for every segment.
    fn add_index(&self, py: Python<'_>, field: String, index: &Bound<'_, PyAny>) -> PyResult<()> {
        let c = self.get()?;
        let index = admin::index_from_py(index)?;
        py.detach(|| match index {
            admin::IndexArg::Scalar(kind) => c.add_scalar_index(&field, kind),
            admin::IndexArg::Text(text) => c.add_text_index(&field, text),
        })
        .py_err()
    }

    /// Changes a vector field's index (kind, parameters, quantization): a type name for
    /// its defaults (`"hnsw"`) or the schema's index JSON (`{"type": "qg", "degree": 32}`).
    /// One manifest swap; every segment's index is then rebuilt in the background and
    /// searched exactly until it is (`describe()["vector_indexes"][field]["building"]`).
    /// `wait=True` returns once every segment has it (Ctrl-C stops waiting, not the build).
    #[pyo3(signature = (field, index, *, wait = false))]
    fn set_index(&self, py: Python<'_>, field: String, index: &Bound<'_, PyAny>, wait: bool) -> PyResult<()> {
        let c = self.get()?;
        let index = admin::vector_index_from_py(&field, index)?;
        let change = xvec::FieldChange::SetIndex { field: field.clone(), index };
        py.detach(|| c.change_field(change)).py_err()?;
        if !wait {
            return Ok(());
        }
        loop {
            let stats = py.detach(|| c.stats());
            let Some(build) = stats.index_builds.iter().find(|b| b.field == field) else { break };
            if let Some(e) = stats.background_error {
                return Err(crate::errors::StorageError::new_err(format!(
                    "building the new index of {field} ({} of {} segments done): {e}; it resumes at the next \
                     writable open",
                    build.segments_done, build.segments_total
                )));
            }
            py.check_signals()?;
            py.detach(|| std::thread::sleep(Duration::from_millis(20)));
        }
        Ok(())
    }

    /// Drops an index (`"inverted"`, `"range"` or `"fts"`) from a field.
    fn drop_index(&self, py: Python<'_>, field: String, index: &Bound<'_, PyAny>) -> PyResult<()> {
        let c = self.get()?;
        let index = admin::index_from_py(index)?;
        py.detach(|| match index {
            admin::IndexArg::Scalar(kind) => c.drop_scalar_index(&field, kind),
            admin::IndexArg::Text(_) => c.drop_text_index(&field),
        })
        .py_err()
    }

    /// Counts and sizes: documents, segments, memtable, WAL, disk, background work, and
    /// the engine's memory accounting by kind.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let c = self.get()?;
        let (stats, memory) = py.detach(|| (c.stats(), c.memory()));
        admin::stats_to_py(py, &stats, &memory)
    }

    /// The schema in its JSON form (the `create --schema` form), as a dict.
    fn schema<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let c = self.get()?;
        from_json(py, &serde_json::from_str(&c.schema().to_json()).expect("the schema's JSON parses"))
    }

    /// The schema, the collection options, counts and each vector field's index.
    fn describe<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let c = self.get()?;
        admin::describe(py, &c, &self.path)
    }

    /// Backs the collection up into `dest` (a new or empty directory, or with
    /// `incremental=True` an earlier backup) while writers keep writing: every write
    /// acknowledged before the call is in it, never part of a batch. Immutable files are
    /// hard-linked on the same file system unless `copy=True` (a link does not survive
    /// the loss of the disk). Ctrl-C stops it and leaves nothing under `dest`. Returns a
    /// report dict.
    #[pyo3(signature = (dest, *, copy = false, incremental = false))]
    fn backup<'py>(
        &self,
        py: Python<'py>,
        dest: std::path::PathBuf,
        copy: bool,
        incremental: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let c = self.get()?;
        let report = admin::cancellable(py, |cancel| {
            c.backup(&dest, &xvec::BackupOptions::default().copy(copy).incremental(incremental).cancel(Some(cancel)))
        })?;
        admin::backup_report(py, &report)
    }

    /// Checks every file (checksums, structure, graphs; `deep=True` also samples index
    /// recall). Returns a report dict whose `clean` says whether anything is wrong.
    #[pyo3(signature = (*, deep = false))]
    fn verify<'py>(&self, py: Python<'py>, deep: bool) -> PyResult<Bound<'py, PyDict>> {
        let c = self.get()?;
        let dir = c.dir().to_path_buf();
        admin::verify(py, &dir, deep)
    }

    /// Pins the current state: a read-only view that later writes do not change. With
    /// `as_of` (a version number or a tag), that version as it was published, held by a
    /// lease in the collection while the view lives: a vacuum in any process keeps its
    /// files.
    #[pyo3(signature = (*, as_of = None))]
    fn snapshot(&self, py: Python<'_>, as_of: Option<AsOf>) -> PyResult<crate::snapshot::Snapshot> {
        let c = self.get()?;
        Ok(crate::snapshot::Snapshot::new(versions::view(py, &c, as_of)?))
    }

    /// The live version: the generation of the manifest the collection reads (writes
    /// since it was published belong to no version until a flush publishes the next).
    #[getter]
    fn version(&self) -> PyResult<u64> {
        Ok(self.get()?.snapshot().generation())
    }

    /// The versions kept, oldest first, the live one last: dicts of `version`, `time`
    /// (UTC `datetime`), `operation`, `rows`, `bytes`, `tags` and `current`. Older
    /// versions are kept by the `keep_versions` and `keep_for_secs` options, by a tag, or
    /// by a reader's `snapshot(as_of=...)`.
    fn versions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let c = self.get()?;
        let list = py.detach(|| c.versions()).py_err()?;
        versions::list(py, &list)
    }

    /// The tags, as `{name: version}`.
    fn tags(&self, py: Python<'_>) -> PyResult<std::collections::BTreeMap<String, u64>> {
        let c = self.get()?;
        py.detach(|| c.tags()).py_err()
    }

    /// Names `version` (a number or another tag; the live version by default) `name`,
    /// moving the tag if it named another; the version is kept until the tag is deleted.
    /// Returns the version.
    #[pyo3(signature = (name, version = None))]
    fn tag(&self, py: Python<'_>, name: String, version: Option<AsOf>) -> PyResult<u64> {
        let c = self.get()?;
        let version = version.map(|v| versions::resolve(py, &c, v)).transpose()?;
        py.detach(|| c.tag(&name, version)).py_err()
    }

    /// Deletes the tag `name`; returns the version it named.
    fn delete_tag(&self, py: Python<'_>, name: String) -> PyResult<u64> {
        let c = self.get()?;
        py.detach(|| c.delete_tag(&name)).py_err()
    }

    /// Publishes `version` (a number or a tag) again as the newest version, LanceDB's
    /// `restore(v)`: the live state is flushed first, so it stays a version of its own as
    /// retention says. Crash-safe: a crash leaves the state before or the checkout.
    /// Returns the new version.
    fn checkout(&self, py: Python<'_>, version: AsOf) -> PyResult<u64> {
        let c = self.get()?;
        let version = versions::resolve(py, &c, version)?;
        py.detach(|| c.checkout(version)).py_err()
    }

    /// Removes the versions nothing keeps (retention, tags, readers' snapshots, in any
    /// process) and the files only they name. Returns `{"versions": [...], "files": n,
    /// "bytes": n}`.
    fn vacuum<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let c = self.get()?;
        let report = py.detach(|| c.vacuum()).py_err()?;
        versions::vacuum_report(py, &report)
    }

    /// For a read-only handle: catches up with the writer now (queries do it anyway when
    /// opened with `follow=True`). Returns whether anything changed.
    fn refresh(&self, py: Python<'_>) -> PyResult<bool> {
        let c = self.get()?;
        Ok(py.detach(|| c.refresh()).py_err()?.changed)
    }

    /// The documents (those `filter` keeps) as a streaming `pyarrow.RecordBatchReader`:
    /// the key column `key`, then `fields` (default: all, vectors as
    /// `fixed_size_list<float32>`), `batch_size` rows a batch, from one snapshot; `as_of`
    /// exports that version.
    #[pyo3(signature = (*, fields = None, filter = None, params = None, key = xvec::KEY_FIELD, batch_size = 10_000,
        as_of = None))]
    #[allow(clippy::too_many_arguments)]
    fn export<'py>(
        &self,
        py: Python<'py>,
        fields: Option<Vec<String>>,
        filter: Option<String>,
        params: Option<&Bound<'py, PyDict>>,
        key: &str,
        batch_size: usize,
        as_of: Option<AsOf>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let c = self.get()?;
        let params = params_from_py(params)?;
        let snap = versions::view(py, &c, as_of)?;
        let scan = py.detach(|| snap.scan(filter.as_deref(), &params, fields.as_deref())).py_err()?;
        record_batch_reader(py, scan, snap.schema(), fields.as_deref(), key, batch_size)
    }
}
