//! A hybrid query over shards, as `xvec.ray` runs it: each shard's text statistics
//! (`Collection.text_stats`), summed and passed back in each text branch's `stats`; each
//! shard's per-branch rankings (`Collection.rankings`), merged branch by branch; one
//! fusion of the merged rankings (`fuse`). The engine does the scoring and the fusion,
//! so the answer is one collection's.

use std::collections::HashMap;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use xvec::{Branch, Collection, HybridQuery, Ranked, Ranking};

use crate::admin::hybrid_query;
use crate::convert::from_json;
use crate::errors::IntoPy;
use crate::results::fields_dict;

/// Per branch of `query`: a text branch's statistics as a dict (the form of its `stats`),
/// `None` for the other kinds.
pub fn text_stats<'py>(py: Python<'py>, c: &Collection, query: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    let q = hybrid_query(query)?;
    let stats = py
        .detach(|| {
            let snap = c.snapshot();
            q.branches()
                .iter()
                .map(|b| match b {
                    Branch::Text { fields, text, .. } => snap.text_stats(fields, text).map(|s| Some(s.to_json())),
                    _ => Ok(None),
                })
                .collect::<Result<Vec<_>, _>>()
        })
        .py_err()?;
    let out = stats.iter().map(|s| s.as_ref().map_or_else(|| Ok(py.None().into_bound(py)), |s| from_json(py, s)));
    PyList::new(py, out.collect::<PyResult<Vec<_>>>()?)
}

/// Per branch of `query`, its ranking before fusion: `(keys, scores, higher_is_better,
/// fields)`, best first.
pub fn rankings<'py>(py: Python<'py>, c: &Collection, query: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    let q = hybrid_query(query)?;
    let rankings = py.detach(|| c.snapshot().rankings(&q)).py_err()?;
    let out = rankings.iter().map(|r| {
        let keys: Vec<&str> = r.hits.iter().map(|h| h.key.as_str()).collect();
        let scores = numpy::PyArray1::from_iter(py, r.hits.iter().map(|h| h.score));
        let fields = r.hits.iter().map(|h| fields_dict(py, &h.fields)).collect::<PyResult<Vec<_>>>()?;
        Ok((keys, scores, r.higher_is_better, fields))
    });
    PyList::new(py, out.collect::<PyResult<Vec<_>>>()?)
}

/// One branch's ranking from Python: keys, scores, whether higher is better, fields.
type PyRanking<'py> = (Vec<String>, Vec<f32>, bool, Bound<'py, PyList>);

/// Fuses per-branch rankings (one `(keys, scores, higher_is_better, fields)` per branch
/// of `query`, as `Collection.rankings` gives them, merged over shards) by the query's
/// fusion into its best `k`: `[(key, score, fields)]`, as `Collection.hybrid` returns.
#[pyfunction]
pub fn fuse<'py>(
    py: Python<'py>,
    query: &Bound<'py, PyAny>,
    rankings: Vec<PyRanking<'py>>,
) -> PyResult<Bound<'py, PyList>> {
    let q: HybridQuery = hybrid_query(query)?;
    let mut fields: HashMap<String, Bound<'py, PyAny>> = HashMap::new();
    let mut ranked = Vec::with_capacity(rankings.len());
    for (b, (keys, scores, higher_is_better, docs)) in rankings.into_iter().enumerate() {
        if keys.len() != scores.len() || keys.len() != docs.len() {
            let (k, s, d) = (keys.len(), scores.len(), docs.len());
            return Err(crate::errors::QueryError::new_err(format!(
                "ranking {b}: {k} keys, {s} scores and {d} fields; expected as many of each"
            )));
        }
        for (key, doc) in keys.iter().zip(docs.iter()) {
            fields.entry(key.clone()).or_insert(doc);
        }
        let hits = keys.into_iter().zip(scores).map(|(key, score)| Ranked { key, score, fields: Default::default() });
        ranked.push(Ranking { hits: hits.collect(), higher_is_better });
    }
    let hits = py.detach(|| xvec::fuse(&q, &ranked)).py_err()?;
    let out = hits.into_iter().map(|h| {
        let doc = fields.remove(&h.key).map_or_else(|| Ok(PyDict::new(py).into_any()), Ok::<_, PyErr>)?;
        Ok((h.key, h.score, doc))
    });
    PyList::new(py, out.collect::<PyResult<Vec<_>>>()?)
}
