//! Queries: what a caller asks (a vector or a key, top-k, filter, projection) and how a
//! snapshot answers it: compile the filter once, scan each segment, merge one top-k.

use std::collections::BTreeMap;

use roaring::RoaringBitmap;

use super::snapshot::Snapshot;
use crate::error::{Error, QueryError};
use crate::filter::Filter;
use crate::index::segment_index::SearchParams;
use crate::index::{PreparedQuery, TopK, flat};
use crate::kernels;
use crate::schema::{IndexParams, Schema, VectorType};
use crate::storage::column::SegmentView;
use crate::value::Value;

/// Largest top-k a query may ask for.
pub const MAX_K: usize = 100_000;

/// What to search near.
#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    /// A query vector (integers in -128..=127 for int8 fields).
    Vector(Vec<f32>),
    /// The stored vector of this document.
    Key(String),
}

/// A nearest-neighbour query.
///
/// ```
/// use xvec::Query;
/// let q = Query::vector(vec![0.1, 0.2]).k(5).filter("pos = 'n'").fields(["lemma"]);
/// assert_eq!(q.k, 5);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Query {
    pub target: Target,
    /// Vector field to search; may be omitted when the schema has exactly one.
    pub field: Option<String>,
    pub k: usize,
    pub filter: Option<String>,
    /// Fields to return; `None` returns every scalar field.
    pub fields: Option<Vec<String>>,
    /// Also return vector fields (with `fields: None`).
    pub include_vectors: bool,
    /// Search breadth of graph indexes (HNSW `ef`); `None` uses the field's default.
    /// Must be at least `k`. Exact (flat) search ignores it.
    pub ef: Option<usize>,
    /// Re-rank `refine × k` candidates found on quantized codes with the original vectors;
    /// `None` uses the field's default.
    pub refine: Option<usize>,
}

impl Query {
    pub fn vector(v: Vec<f32>) -> Query {
        Query {
            target: Target::Vector(v),
            field: None,
            k: 10,
            filter: None,
            fields: None,
            include_vectors: false,
            ef: None,
            refine: None,
        }
    }

    pub fn key(key: impl Into<String>) -> Query {
        Query { target: Target::Key(key.into()), ..Query::vector(Vec::new()) }
    }

    pub fn k(mut self, k: usize) -> Query {
        self.k = k;
        self
    }

    pub fn field(mut self, field: impl Into<String>) -> Query {
        self.field = Some(field.into());
        self
    }

    pub fn filter(mut self, filter: impl Into<String>) -> Query {
        self.filter = Some(filter.into());
        self
    }

    pub fn fields<S: Into<String>>(mut self, fields: impl IntoIterator<Item = S>) -> Query {
        self.fields = Some(fields.into_iter().map(Into::into).collect());
        self
    }

    pub fn ef(mut self, ef: usize) -> Query {
        self.ef = Some(ef);
        self
    }

    pub fn refine(mut self, factor: usize) -> Query {
        self.refine = Some(factor);
        self
    }

    pub fn with_vectors(mut self, yes: bool) -> Query {
        self.include_vectors = yes;
        self
    }
}

/// One result row, best first.
#[derive(Clone, Debug, PartialEq)]
pub struct Hit {
    pub key: String,
    /// In the metric's unit: squared L2 distance, inner product or cosine similarity.
    pub score: f32,
    pub fields: BTreeMap<String, Value>,
}

/// Resolves the vector field a query searches.
pub(crate) fn resolve_field(schema: &Schema, name: Option<&str>) -> Result<usize, QueryError> {
    match name {
        Some(n) => schema
            .index_of(n)
            .filter(|&i| schema.field(i).as_vector().is_some())
            .ok_or_else(|| QueryError::NoSuchVectorField(n.to_string())),
        None => {
            let mut it = schema.vector_fields();
            match (it.next(), it.next()) {
                (Some((i, _, _)), None) => Ok(i),
                (None, _) => Err(QueryError::NoVectorField),
                (Some(_), Some(_)) => Err(QueryError::AmbiguousField(schema.vector_fields().count())),
            }
        }
    }
}

/// Resolves the fields to return.
pub(crate) fn resolve_projection(
    schema: &Schema,
    fields: Option<&[String]>,
    include_vectors: bool,
) -> Result<Vec<usize>, QueryError> {
    match fields {
        Some(names) => {
            names.iter().map(|n| schema.index_of(n).ok_or_else(|| QueryError::UnknownField(n.clone()))).collect()
        }
        None => Ok((0..schema.fields().len())
            .filter(|&i| include_vectors || schema.field(i).as_vector().is_none())
            .collect()),
    }
}

/// Checks a query vector against its field and converts it once.
pub(crate) fn prepare(schema: &Schema, field: usize, v: Vec<f32>) -> Result<PreparedQuery, QueryError> {
    let f = schema.field(field);
    let spec = f.as_vector().expect("resolved to a vector field");
    if v.len() != spec.dim as usize {
        return Err(QueryError::BadDimension { field: f.name.clone(), expected: spec.dim, found: v.len() });
    }
    if let Some(i) = v.iter().position(|x| !x.is_finite()) {
        return Err(QueryError::NotFinite(i));
    }
    Ok(match spec.elem {
        VectorType::Fp32 | VectorType::Fp16 => PreparedQuery::float(spec.metric, v),
        VectorType::Int8 => {
            if let Some(index) = v.iter().position(|&x| x.fract() != 0.0 || !(-128.0..=127.0).contains(&x)) {
                return Err(QueryError::NotInt8 { field: f.name.clone(), index });
            }
            PreparedQuery::int8(spec.metric, v.iter().map(|&x| x as i8).collect())
        }
    })
}

/// Rows of a segment a search may return: not deleted and passing the filter.
/// `None` means every row.
pub(crate) fn candidates(
    src: &dyn SegmentView,
    deleted: &RoaringBitmap,
    filter: Option<&Filter>,
) -> Option<RoaringBitmap> {
    match filter {
        Some(f) => {
            let mut b = f.evaluate(src);
            b -= deleted;
            Some(b)
        }
        None if deleted.is_empty() => None,
        None => {
            let mut b = RoaringBitmap::new();
            b.insert_range(0..src.rows() as u32);
            b -= deleted;
            Some(b)
        }
    }
}

impl Snapshot {
    /// Runs a query against this snapshot.
    pub fn query(&self, q: &Query) -> Result<Vec<Hit>, Error> {
        if q.k == 0 || q.k > MAX_K {
            return Err(QueryError::BadLimit(q.k).into());
        }
        let field = resolve_field(&self.schema, q.field.as_deref())?;
        let projection = resolve_projection(&self.schema, q.fields.as_deref(), q.include_vectors)?;
        let vector = match &q.target {
            Target::Vector(v) => v.clone(),
            Target::Key(key) => {
                let loc = self.locate(key).ok_or_else(|| QueryError::KeyNotFound(key.clone()))?;
                let (src, row) = self.view(loc);
                let col = src.vector(field);
                if !col.validity.is_valid(row) {
                    return Err(QueryError::KeyHasNoVector {
                        key: key.clone(),
                        field: self.schema.field(field).name.clone(),
                    }
                    .into());
                }
                col.row_f32(row)
            }
        };
        let spec = self.schema.field(field).as_vector().expect("resolved to a vector field");
        let ef = match (q.ef, &spec.index) {
            (Some(ef), _) if ef < q.k => return Err(QueryError::EfBelowK { ef, k: q.k }.into()),
            (Some(ef), _) => ef,
            (None, IndexParams::Hnsw(p)) => (p.ef as usize).max(q.k),
            (None, IndexParams::Flat(_)) => q.k,
        };
        let refine = q.refine.unwrap_or(spec.index.quant().refine as usize);
        let prepared = prepare(&self.schema, field, vector.clone())?;
        let filter = q.filter.as_deref().map(|t| Filter::compile(t, &self.schema)).transpose()?;
        let k = kernels::best();
        let mut top = TopK::new(q.k);
        for src in self.sources() {
            let cands = candidates(src.view, src.deleted, filter.as_ref());
            let col = src.view.vector(field);
            match src.indexes.get(field).and_then(|i| i.as_deref()) {
                Some(index) => {
                    let p = SearchParams { k: q.k, ef, refine, allowed: cands.as_ref(), position: src.position };
                    index.search(col, &prepared, &vector, p, &mut top);
                }
                None => flat::scan(k, &col, src.view.rows(), &prepared, cands.as_ref(), src.position, &mut top),
            }
        }
        Ok(top
            .into_sorted()
            .into_iter()
            .map(|c| {
                let (key, fields) = self.project(self.source(c.segment), c.row as usize, &projection);
                Hit { key, score: prepared.score(c.dist), fields }
            })
            .collect())
    }

    /// Fetches documents by key; `None` for keys not found. `fields: None` returns every
    /// field, vectors included.
    pub fn fetch(&self, keys: &[&str], fields: Option<&[String]>) -> Result<Vec<Option<crate::value::Doc>>, Error> {
        let projection = resolve_projection(&self.schema, fields, true)?;
        Ok(keys
            .iter()
            .map(|key| {
                self.locate(key).map(|loc| {
                    let (src, row) = self.view(loc);
                    let (key, fields) = self.project(src, row, &projection);
                    crate::value::Doc { key, fields }
                })
            })
            .collect())
    }

    /// Keys of live documents matching a filter (all live documents without one).
    pub fn keys_where(&self, filter: Option<&str>) -> Result<Vec<String>, Error> {
        let filter = filter.map(|t| Filter::compile(t, &self.schema)).transpose()?;
        let mut out = Vec::new();
        for src in self.sources() {
            let keys = src.view.keys();
            match candidates(src.view, src.deleted, filter.as_ref()) {
                Some(c) => out.extend(c.iter().map(|r| keys.get_str(r as usize).to_string())),
                None => out.extend((0..src.view.rows()).map(|r| keys.get_str(r).to_string())),
            }
        }
        Ok(out)
    }
}
