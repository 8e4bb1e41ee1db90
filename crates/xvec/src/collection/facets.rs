//! Aggregates over the rows a filter keeps: counts per value of a field (facets,
//! [`Snapshot::facets`]) and the count, min, max, sum and average of a scalar field
//! ([`Snapshot::field_stats`]). Both read the field's column (facets read the postings
//! of its inverted index instead where one is built and the filter keeps more rows than
//! it has values), never a vector or a whole document.

use std::collections::HashMap;

use super::browse::SortValue;
use super::query::{SearchKind, candidates};
use super::snapshot::{Snapshot, Source};
use crate::Explain;
use crate::error::{Error, QueryError};
use crate::filter::{Filter, Params};
use crate::index::scalar::{ElementKey, ScalarIndex, element_key, value_of_key};
use crate::schema::{FieldType, ScalarIndexKind, ScalarType};
use crate::value::Value;

/// Counts per value of a field among the rows a filter keeps ([`Snapshot::facets`]).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Facets {
    /// The most frequent values, most frequent first (ties in value order), each with
    /// its rows. For an array field, the rows holding the element.
    pub values: Vec<(Value, u64)>,
    /// Rows of the values not listed (for an array field, row and element pairs).
    pub others: u64,
    /// Distinct values in all, listed or not.
    pub distinct: u64,
    /// Rows without a value: null, a NaN, or for an array field null or empty.
    pub missing: u64,
    /// Rows the filter kept.
    pub rows: u64,
}

/// Count, min, max, sum and average of a scalar field over the rows a filter keeps
/// ([`Snapshot::field_stats`]).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct FieldStats {
    /// Rows the filter kept.
    pub rows: u64,
    /// Of those, rows with a value (not null, not a NaN).
    pub count: u64,
    /// The smallest value (strings by bytes, false before true); null without values.
    pub min: Value,
    /// The largest value; null without values.
    pub max: Value,
    /// The sum of a number field: an int64 (uint64 above it) for integers while it fits,
    /// else a double; null for another type or without values.
    pub sum: Value,
    /// The mean of a number field; `None` for another type or without values.
    pub avg: Option<f64>,
}

const FACET_FIELDS: &str = "a scalar or array field";
const STATS_FIELDS: &str = "a scalar field";

impl Snapshot {
    /// The `n` most frequent values of scalar or array field `field` among the live rows
    /// `filter` keeps (all without one), and what the others, the missing and the rows
    /// add up to.
    ///
    /// ```
    /// # use xvec::{Collection, Doc, Field, ScalarType, Schema, Value};
    /// # let dir = tempfile::tempdir()?;
    /// # let schema = Schema::builder("t").field(Field::scalar("pos", ScalarType::String).nullable(true)).build()?;
    /// # let coll = Collection::create(dir.path(), schema, Default::default())?;
    /// coll.insert(["n", "v", "n", "a", "n", "v"].iter().enumerate()
    ///     .map(|(i, p)| Doc::new(format!("k{i}")).set("pos", *p)).collect())?;
    /// let f = coll.snapshot().facets("pos", None, &Default::default(), 2)?;
    /// assert_eq!(f.values, [(Value::from("n"), 3), (Value::from("v"), 2)]);
    /// assert_eq!((f.others, f.distinct, f.missing, f.rows), (1, 3, 0, 6));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn facets(&self, field: &str, filter: Option<&str>, params: &Params, n: usize) -> Result<Facets, Error> {
        let (f, elem) = self.aggregated(field, FACET_FIELDS, FieldType::element)?;
        let filter = self.compile(filter, params)?;
        let mut counts: HashMap<ElementKey, u64> = HashMap::new();
        let (mut rows, mut missing) = (0, 0);
        for src in self.sources() {
            let (kept, lacking) = self.facet_source(&src, filter.as_ref(), f, &mut counts);
            rows += kept;
            missing += lacking;
        }
        let distinct = counts.len() as u64;
        let mut all: Vec<(ElementKey, u64)> = counts.into_iter().collect();
        let by_count = |a: &(ElementKey, u64), b: &(ElementKey, u64)| b.1.cmp(&a.1).then(a.0.cmp(&b.0));
        if n < all.len() {
            all.select_nth_unstable_by(n, by_count);
        }
        let others = all.get(n..).map_or(0, |rest| rest.iter().map(|c| c.1).sum());
        all.truncate(n);
        all.sort_unstable_by(by_count);
        let value = |k: ElementKey| match k {
            ElementKey::Term(t) => Value::String(String::from_utf8_lossy(t).into_owned()),
            ElementKey::Key(k) => value_of_key(elem, k),
        };
        let values = all.into_iter().map(|(k, c)| (value(k), c)).collect();
        Ok(Facets { values, others, distinct, missing, rows })
    }

    /// Count, min, max, sum and average of scalar field `field` over the live rows
    /// `filter` keeps (all without one): one pass over the field's column.
    ///
    /// ```
    /// # use xvec::{Collection, Doc, Field, ScalarType, Schema, Value};
    /// # let dir = tempfile::tempdir()?;
    /// # let schema = Schema::builder("t").field(Field::scalar("n", ScalarType::Int32).nullable(true)).build()?;
    /// # let coll = Collection::create(dir.path(), schema, Default::default())?;
    /// coll.insert(vec![Doc::new("a").set("n", 4i32), Doc::new("b").set("n", -2i32), Doc::new("c")])?;
    /// let s = coll.snapshot().field_stats("n", None, &Default::default())?;
    /// assert_eq!((s.rows, s.count, s.min, s.max), (3, 2, Value::Int32(-2), Value::Int32(4)));
    /// assert_eq!((s.sum, s.avg), (Value::Int64(2), Some(1.0)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn field_stats(&self, field: &str, filter: Option<&str>, params: &Params) -> Result<FieldStats, Error> {
        let (f, ty) = self.aggregated(field, STATS_FIELDS, scalar_type)?;
        let filter = self.compile(filter, params)?;
        let (mut rows, mut count) = (0u64, 0u64);
        let (mut min, mut max): (Option<SortValue>, Option<SortValue>) = (None, None);
        let (mut ints, mut floats) = (0i128, 0f64);
        for src in self.sources() {
            let col = src.view.scalar(f);
            let mut visit = |row: u32| {
                rows += 1;
                let v = SortValue::of_column(&col, row as usize);
                match v {
                    SortValue::Null => return,
                    SortValue::Float(x) if x.0.is_nan() => return,
                    SortValue::Int(x) => ints += x,
                    SortValue::Float(x) => floats += x.0,
                    SortValue::Bool(_) | SortValue::Str(_) => {}
                }
                count += 1;
                min = Some(min.map_or(v, |m| m.min(v)));
                max = Some(max.map_or(v, |m| m.max(v)));
            };
            match candidates(&src, filter.as_ref()) {
                Some(kept) => kept.iter().for_each(&mut visit),
                None => (0..src.view.rows() as u32).for_each(&mut visit),
            }
        }
        let numeric =
            |sum: Value, total: f64| if count == 0 { (Value::Null, None) } else { (sum, Some(total / count as f64)) };
        let (sum, avg) = match ty {
            ScalarType::Int32 | ScalarType::Int64 | ScalarType::Uint32 | ScalarType::Uint64 => {
                let sum = i64::try_from(ints)
                    .map(Value::Int64)
                    .or_else(|_| u64::try_from(ints).map(Value::Uint64))
                    .unwrap_or(Value::Double(ints as f64));
                numeric(sum, ints as f64)
            }
            ScalarType::Float | ScalarType::Double => numeric(Value::Double(floats), floats),
            ScalarType::Bool | ScalarType::String => (Value::Null, None),
        };
        let value = |v: Option<SortValue>| v.map_or(Value::Null, |v| v.to_value(ty));
        Ok(FieldStats { rows, count, min: value(min), max: value(max), sum, avg })
    }

    /// Explains [`Snapshot::facets`]: how the filter found each source's rows, and whether
    /// their values were counted from the field's inverted index or read from its column.
    pub fn explain_facets(&self, field: &str, filter: Option<&str>, params: &Params) -> Result<Explain, Error> {
        let (f, _) = self.aggregated(field, FACET_FIELDS, FieldType::element)?;
        self.explain_kept(filter, params, |src, rows| SearchKind::Grouped {
            postings: facet_index(src, f, rows).is_some(),
        })
    }

    /// Explains [`Snapshot::field_stats`] of `fields`: how the filter found each source's
    /// rows (whose values are then read from the columns).
    pub fn explain_field_stats(
        &self,
        fields: &[&str],
        filter: Option<&str>,
        params: &Params,
    ) -> Result<Explain, Error> {
        for field in fields {
            self.aggregated(field, STATS_FIELDS, scalar_type)?;
        }
        self.explain_kept(filter, params, |_, _| SearchKind::Aggregated)
    }

    /// The position and element type of field `name`, when `element` gives one for its
    /// type (else the field cannot be aggregated: `expected` says which can).
    fn aggregated(
        &self,
        name: &str,
        expected: &'static str,
        element: impl Fn(&FieldType) -> Option<ScalarType>,
    ) -> Result<(usize, ScalarType), QueryError> {
        let bad = || QueryError::BadAggregateField { field: name.to_string(), expected };
        let f = self.schema.index_of(name).ok_or_else(bad)?;
        Ok((f, element(&self.schema.field(f).ty).ok_or_else(bad)?))
    }

    /// Adds one source's counts per value of field `f` to `counts`; returns the rows the
    /// filter kept and how many of them have no value. Through the inverted index when
    /// the source has one and the filter keeps more rows than it has values.
    fn facet_source<'s>(
        &'s self,
        src: &Source<'s>,
        filter: Option<&Filter>,
        f: usize,
        counts: &mut HashMap<ElementKey<'s>, u64>,
    ) -> (u64, u64) {
        let kept = candidates(src, filter);
        let rows = kept.as_ref().map_or(src.view.rows() as u64, |k| k.len());
        let array = self.schema.field(f).ty.is_array();
        let each = |visit: &mut dyn FnMut(usize)| match &kept {
            Some(k) => k.iter().for_each(|r| visit(r as usize)),
            None => (0..src.view.rows()).for_each(visit),
        };
        let mut missing = 0;
        if let Some(ix) = facet_index(src, f, rows) {
            let mut held = 0;
            for (key, n) in ix.counts(kept.as_ref()).filter(|c| c.1 > 0) {
                *counts.entry(key).or_default() += n;
                held += n;
            }
            if !array {
                return (rows, rows - held);
            }
            let col = src.view.array(f);
            each(&mut |r| missing += u64::from(!col.validity.is_valid(r) || col.range(r).is_empty()));
            return (rows, missing);
        }
        if array {
            let col = src.view.array(f);
            let mut seen: Vec<ElementKey> = Vec::new();
            each(&mut |r| {
                seen.clear();
                if col.validity.is_valid(r) {
                    seen.extend(col.range(r).filter_map(|i| element_key(col.elems, i)));
                }
                seen.sort_unstable();
                seen.dedup();
                missing += u64::from(seen.is_empty());
                for k in &seen {
                    *counts.entry(*k).or_default() += 1;
                }
            });
        } else {
            let col = src.view.scalar(f);
            each(&mut |r| match element_key(col.data, r).filter(|_| col.validity.is_valid(r)) {
                Some(k) => *counts.entry(k).or_default() += 1,
                None => missing += 1,
            });
        }
        (rows, missing)
    }
}

/// The type of a scalar field: what `field_stats` aggregates.
fn scalar_type(t: &FieldType) -> Option<ScalarType> {
    match t {
        FieldType::Scalar(s) => Some(*s),
        _ => None,
    }
}

/// The inverted index facets of field `f` count from in `src`, when it has one and the
/// filter kept (`rows`) at least as many rows as the index has values.
fn facet_index<'s>(src: &Source<'s>, f: usize, rows: u64) -> Option<&'s ScalarIndex> {
    let index = src.scalar.get(f)?.get(ScalarIndexKind::Inverted)?;
    index.distinct().is_some_and(|d| d as u64 <= rows).then_some(&**index)
}

/// The aggregates of the current snapshot (see [`Snapshot`]'s).
impl super::Collection {
    /// [`Snapshot::facets`] over the current snapshot.
    pub fn facets(&self, field: &str, filter: Option<&str>, params: &Params, n: usize) -> Result<Facets, Error> {
        self.snapshot().facets(field, filter, params, n)
    }

    /// [`Snapshot::field_stats`] over the current snapshot.
    pub fn field_stats(&self, field: &str, filter: Option<&str>, params: &Params) -> Result<FieldStats, Error> {
        self.snapshot().field_stats(field, filter, params)
    }
}
