//! Arguments as the engine takes them: filter parameters, search knobs, query targets,
//! collection and open options, from their Python forms.

use std::time::Duration;

use numpy::{PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use xvec::{CollectionOptions, OpenOptions, Params, Query};

use crate::convert::{as_f32_array, to_json};

/// Filter parameters from a dict (`{"pos": "n", "ids": [1, 2]}`).
pub fn params_from_py(params: Option<&Bound<'_, PyDict>>) -> PyResult<Params> {
    let mut out = Params::new();
    let Some(d) = params else { return Ok(out) };
    for (name, v) in d.iter() {
        let name: String = name.extract()?;
        let json = to_json(&v, &|| format!("params[{name:?}]"))?;
        out.insert(name.clone(), param(&json).map_err(|e| PyValueError::new_err(format!("params[{name:?}]: {e}")))?);
    }
    Ok(out)
}

fn param(v: &serde_json::Value) -> Result<xvec::Param, String> {
    use serde_json::Value as J;
    Ok(match v {
        J::String(s) => xvec::Param::String(s.clone()),
        J::Number(n) => xvec::Param::Number(n.to_string()),
        J::Bool(b) => xvec::Param::Bool(*b),
        J::Array(xs) => xvec::Param::List(xs.iter().map(param).collect::<Result<_, _>>()?),
        J::Null | J::Object(_) => return Err("expected a str, number, bool or list".into()),
    })
}

/// The search knobs and output choices every query form shares.
#[derive(Clone, Default)]
pub struct Knobs {
    pub k: usize,
    pub filter: Option<String>,
    pub params: Params,
    pub field: Option<String>,
    pub fields: Option<Vec<String>>,
    pub ef: Option<usize>,
    pub nprobe: Option<usize>,
    pub target_recall: Option<f32>,
    pub refine: Option<usize>,
    pub beam_width: Option<usize>,
    pub vectors: bool,
}

impl Knobs {
    pub fn query(self, target: Query) -> Query {
        target
            .k(self.k)
            .filter_opt(self.filter)
            .params(self.params)
            .field_opt(self.field)
            .fields_opt(self.fields)
            .with_vectors(self.vectors)
            .ef(self.ef)
            .nprobe(self.nprobe)
            .target_recall(self.target_recall)
            .refine(self.refine)
            .beam_width(self.beam_width)
    }
}

/// `"batch"` (fsync each write call: the default), `"flush"` (only at flushes and
/// close), or an int N (every N records).
fn sync_policy(sync: &Bound<'_, PyAny>) -> PyResult<xvec::SyncPolicy> {
    if let Ok(n) = sync.extract::<u32>() {
        if n == 0 {
            return Err(PyValueError::new_err("sync=0: expected at least 1 record between syncs"));
        }
        return Ok(xvec::SyncPolicy::EveryRecords(n));
    }
    match sync.extract::<String>().as_deref() {
        Ok("batch") => Ok(xvec::SyncPolicy::EveryBatch),
        Ok("flush") => Ok(xvec::SyncPolicy::OnFlush),
        _ => Err(PyValueError::new_err(format!("sync={sync}: expected \"batch\", \"flush\" or a number of records"))),
    }
}

/// What `query` and `explain` search near: a vector, or the stored vector of a key.
pub(crate) fn target(call: &str, vector: Option<&Bound<'_, PyAny>>, key: Option<String>) -> PyResult<Query> {
    match (vector, key) {
        (Some(v), None) => Ok(Query::vector(query_vector(v)?)),
        (None, Some(key)) => Ok(Query::key(key)),
        _ => Err(PyTypeError::new_err(format!("{call} takes a vector or key=..., exactly one"))),
    }
}

/// A query vector from a numpy array or a sequence of numbers.
pub fn query_vector(v: &Bound<'_, PyAny>) -> PyResult<Vec<f32>> {
    if let Ok(arr) = v.cast::<PyUntypedArray>() {
        if arr.ndim() != 1 {
            return Err(PyValueError::new_err(format!(
                "a query vector must be 1-D, found shape {:?}; use query_batch for several",
                arr.shape()
            )));
        }
        let f = as_f32_array(arr, &|| "vector".into())?;
        let ro: numpy::PyReadonlyArray1<f32> = f.extract()?;
        return Ok(ro.as_slice().map_err(|e| PyValueError::new_err(e.to_string()))?.to_vec());
    }
    v.extract::<Vec<f32>>().map_err(|_| {
        PyTypeError::new_err(format!(
            "a query vector must be a numpy array or a list of numbers, found {}",
            v.get_type().name().map(|n| n.to_string()).unwrap_or_default()
        ))
    })
}

/// Collection options from a dict of `CollectionOptions` fields over the defaults.
pub fn options_from_py(options: Option<&Bound<'_, PyDict>>) -> PyResult<CollectionOptions> {
    let Some(d) = options else { return Ok(CollectionOptions::default()) };
    let mut base = serde_json::to_value(CollectionOptions::default()).expect("options serialize");
    let map = base.as_object_mut().expect("options are an object");
    for (name, v) in d.iter() {
        let name: String = name.extract()?;
        map.insert(name.clone(), to_json(&v, &|| format!("options[{name:?}]"))?);
    }
    // The options refuse an unknown name, listing every known one (the serialized default
    // leaves out those at their default, so it cannot be the list).
    serde_json::from_value(base).map_err(|e| PyValueError::new_err(format!("collection options: {e}")))
}

/// Open options from `open()`'s arguments.
pub fn open_options(
    read_only: bool,
    follow: bool,
    mmap: bool,
    lock_timeout: Option<f64>,
    sync: &Bound<'_, PyAny>,
    maintenance_threads: Option<usize>,
) -> PyResult<OpenOptions> {
    let mut o = if read_only { OpenOptions::read_only() } else { OpenOptions::writable() };
    o = o.follow(follow).mmap(mmap).sync(sync_policy(sync)?);
    if let Some(t) = maintenance_threads {
        o = o.maintenance_threads(t);
    }
    if let Some(t) = lock_timeout {
        if !(0.0..=86_400.0).contains(&t) {
            return Err(PyValueError::new_err(format!("lock_timeout is {t}; expected 0..=86400 seconds")));
        }
        o = o.lock_timeout(Duration::from_secs_f64(t));
    }
    Ok(o)
}
