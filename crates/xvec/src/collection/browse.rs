//! Browsing rows: an ordered, paged scan ([`Snapshot::scan_page`]) by key or by a scalar
//! field, with a filter, an offset and a resumable cursor. What `xvec scan`, the shell
//! and `Collection.scan` in Python page through; the unordered streaming
//! [`Snapshot::scan`] (export, Ray) stays as it is.
//!
//! By key, each segment walks its stored key order from the cursor and memtable chunks
//! sort their few rows, merged lazily: a page reads about `offset + limit` rows per
//! source, never the whole collection. By a field, every row the filter keeps is read
//! once into a bounded heap of the best `offset + limit + 1` (the column's value and the
//! key): memory stays at one page whatever the collection's size.

use std::cell::Cell;
use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::rc::Rc;
use std::time::Instant;

use roaring::RoaringBitmap;

use super::explain::Explain;
use super::query::{SearchKind, SourceTrace, candidates_traced, resolve_projection};
use super::snapshot::{Snapshot, Source};
use crate::error::{Error, QueryError};
use crate::filter::{Filter, LeafTrace, Params};
use crate::schema::{FieldType, KEY_FIELD, ScalarType};
use crate::storage::column::{ColumnData, ScalarColumn, VarColumn};
use crate::value::{Doc, Value};

/// What an ordered scan reads: the rows a filter keeps, in key order (the default) or by
/// a scalar field, a page at a time.
///
/// A field order sorts by the field's value, then by key; a null sorts after every value
/// (before them with `desc`, as in PostgreSQL), a NaN after every other number. A page
/// is `limit` rows (all without one) after skipping `offset`, starting after the cursor
/// [`ScanPage::next`] of the previous page when [`ScanRequest::after`] gives it.
///
/// ```
/// use xvec::ScanRequest;
/// let page = ScanRequest::new().filter("pos = 'n'").order_by("n_lemmas").desc(true).limit(20);
/// assert_eq!(page.order_field(), Some("n_lemmas"));
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScanRequest {
    filter: Option<String>,
    params: Params,
    fields: Option<Vec<String>>,
    order_by: Option<String>,
    desc: bool,
    limit: Option<usize>,
    offset: usize,
    after: Option<String>,
}

impl ScanRequest {
    /// Every live row, in key order, every field.
    pub fn new() -> ScanRequest {
        ScanRequest::default()
    }

    /// Only rows matching this filter expression.
    pub fn filter(mut self, filter: impl Into<String>) -> ScanRequest {
        self.filter = Some(filter.into());
        self
    }

    /// [`ScanRequest::filter`] when `filter` is `Some`.
    pub fn filter_opt(mut self, filter: Option<String>) -> ScanRequest {
        self.filter = filter;
        self
    }

    /// Binds the filter's `$name` placeholders.
    pub fn params(mut self, params: Params) -> ScanRequest {
        self.params = params;
        self
    }

    /// The fields each document carries (default: every field, vectors included).
    pub fn fields<S: Into<String>>(mut self, fields: impl IntoIterator<Item = S>) -> ScanRequest {
        self.fields = Some(fields.into_iter().map(Into::into).collect());
        self
    }

    /// [`ScanRequest::fields`] when `fields` is `Some`.
    pub fn fields_opt(mut self, fields: Option<Vec<String>>) -> ScanRequest {
        self.fields = fields;
        self
    }

    /// Orders by this scalar field, then by key (`_key` is the key order, the default).
    pub fn order_by(mut self, field: impl Into<String>) -> ScanRequest {
        self.order_by = Some(field.into());
        self
    }

    /// [`ScanRequest::order_by`] when `field` is `Some`; `None` orders by key.
    pub fn order_by_opt(mut self, field: Option<String>) -> ScanRequest {
        self.order_by = field;
        self
    }

    /// Descending order (of the field's values; ties stay in ascending key order).
    pub fn desc(mut self, desc: bool) -> ScanRequest {
        self.desc = desc;
        self
    }

    /// At most `limit` rows (default: all).
    pub fn limit(mut self, limit: impl Into<Option<usize>>) -> ScanRequest {
        self.limit = limit.into();
        self
    }

    /// Skips this many rows first (after the cursor, if any).
    pub fn offset(mut self, offset: usize) -> ScanRequest {
        self.offset = offset;
        self
    }

    /// Starts after this cursor: a page's [`ScanPage::next`] (for key order, a key).
    pub fn after(mut self, cursor: impl Into<Option<String>>) -> ScanRequest {
        self.after = cursor.into();
        self
    }

    /// The field ordered by; `None` for key order.
    pub fn order_field(&self) -> Option<&str> {
        self.order_by.as_deref().filter(|f| *f != KEY_FIELD)
    }
}

/// One page of an ordered scan.
#[derive(Clone, Debug, PartialEq)]
pub struct ScanPage {
    /// The page's documents, in order.
    pub docs: Vec<Doc>,
    /// The cursor to pass to [`ScanRequest::after`] for the next page; `None` when no row
    /// follows this page. For key order it is the page's last key; for a field order, the
    /// JSON array `[value, key]` of its last row.
    pub next: Option<String>,
}

/// A value as a scan orders it: by type, then value; null last.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum SortValue<'a> {
    Bool(bool),
    Int(i128),
    Float(TotalF64),
    Str(&'a str),
    Null,
}

/// An f64 ordered by [`f64::total_cmp`]: -0 before +0, NaN after every number.
#[derive(Clone, Copy, Debug)]
pub(super) struct TotalF64(pub(super) f64);

impl PartialEq for TotalF64 {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for TotalF64 {}
impl PartialOrd for TotalF64 {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for TotalF64 {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

impl<'a> SortValue<'a> {
    pub(super) fn of_column(col: &ScalarColumn<'a>, row: usize) -> SortValue<'a> {
        if !col.validity.is_valid(row) {
            return SortValue::Null;
        }
        match col.data {
            ColumnData::Bool(d) => SortValue::Bool(d[row] != 0),
            ColumnData::Int32(d) => SortValue::Int(d[row].into()),
            ColumnData::Int64(d) => SortValue::Int(d[row].into()),
            ColumnData::Uint32(d) => SortValue::Int(d[row].into()),
            ColumnData::Uint64(d) => SortValue::Int(d[row].into()),
            ColumnData::Float(d) => SortValue::Float(TotalF64(d[row].into())),
            ColumnData::Double(d) => SortValue::Float(TotalF64(d[row])),
            ColumnData::String(v) => SortValue::Str(v.get_str(row)),
        }
    }

    fn of_value(v: &'a Value) -> SortValue<'a> {
        match v {
            Value::Bool(b) => SortValue::Bool(*b),
            Value::Int32(x) => SortValue::Int((*x).into()),
            Value::Int64(x) => SortValue::Int((*x).into()),
            Value::Uint32(x) => SortValue::Int((*x).into()),
            Value::Uint64(x) => SortValue::Int((*x).into()),
            Value::Float(x) => SortValue::Float(TotalF64((*x).into())),
            Value::Double(x) => SortValue::Float(TotalF64(*x)),
            Value::String(s) => SortValue::Str(s),
            // A cursor's value is a scalar of the field's type (see `parse_cursor`).
            Value::Null
            | Value::VectorFp32(_)
            | Value::VectorFp16(_)
            | Value::VectorInt8(_)
            | Value::Array(_)
            | Value::Sparse(_) => SortValue::Null,
        }
    }

    /// The value of a column of type `ty` this was read from.
    pub(super) fn to_value(self, ty: ScalarType) -> Value {
        match (self, ty) {
            (SortValue::Null, _) => Value::Null,
            (SortValue::Bool(b), _) => Value::Bool(b),
            (SortValue::Int(x), ScalarType::Int32) => Value::Int32(x as i32),
            (SortValue::Int(x), ScalarType::Uint32) => Value::Uint32(x as u32),
            (SortValue::Int(x), ScalarType::Uint64) => Value::Uint64(x as u64),
            (SortValue::Int(x), _) => Value::Int64(x as i64),
            (SortValue::Float(x), ScalarType::Float) => Value::Float(x.0 as f32),
            (SortValue::Float(x), _) => Value::Double(x.0),
            (SortValue::Str(s), _) => Value::String(s.to_string()),
        }
    }

    /// The value in a field-order cursor: JSON, with a non-finite float as a string.
    fn to_json(self, ty: ScalarType) -> serde_json::Value {
        use serde_json::Value as J;
        match self {
            SortValue::Null => J::Null,
            SortValue::Bool(b) => J::Bool(b),
            SortValue::Int(x) => match i64::try_from(x) {
                Ok(i) => J::from(i),
                Err(_) => J::from(x as u64),
            },
            SortValue::Float(TotalF64(x)) if !x.is_finite() => J::String(x.to_string()),
            SortValue::Float(TotalF64(x)) if ty == ScalarType::Float => crate::value::json_f32(x as f32),
            SortValue::Float(TotalF64(x)) => serde_json::Number::from_f64(x).map_or(J::Null, J::Number),
            SortValue::Str(s) => J::String(s.to_string()),
        }
    }
}

/// Where a scan starts, parsed from [`ScanRequest::after`].
enum Cursor {
    Key(String),
    Field(Value, String),
}

/// How the rows are ordered.
#[derive(Clone, Copy)]
enum Order {
    Key,
    Field(usize, ScalarType),
}

/// A row kept for a page: its sort value, key and place.
struct Kept<'a> {
    value: SortValue<'a>,
    key: &'a str,
    position: u32,
    row: u32,
    desc: bool,
}

/// The order of two rows: value (reversed with `desc`), then key ascending.
fn row_order(a: (SortValue, &str), b: (SortValue, &str), desc: bool) -> Ordering {
    let by_value = a.0.cmp(&b.0);
    (if desc { by_value.reverse() } else { by_value }).then_with(|| a.1.cmp(b.1))
}

impl PartialEq for Kept<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Kept<'_> {}
impl PartialOrd for Kept<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Kept<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        row_order((self.value, self.key), (other.value, other.key), self.desc)
    }
}

/// One source's rows in key order, from after the cursor: what the merge pulls from.
struct KeyRun<'a> {
    keys: VarColumn<'a>,
    rows: Box<dyn Iterator<Item = u32> + 'a>,
    /// Rows of its key order looked at (the filter's rejects included).
    read: Rc<Cell<u64>>,
    /// Time spent making and walking it, when traced.
    nanos: u64,
}

/// The head of one source's run in the merge: the smallest key first (largest with `desc`).
struct Head<'a> {
    key: &'a str,
    row: u32,
    run: usize,
    desc: bool,
}

impl PartialEq for Head<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Head<'_> {}
impl PartialOrd for Head<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Head<'_> {
    /// Reversed for the max-heap: the next key in scan order is the greatest.
    fn cmp(&self, other: &Self) -> Ordering {
        let c = self.key.cmp(other.key);
        if self.desc { c } else { c.reverse() }
    }
}

impl Snapshot {
    /// One page of the rows `req` asks for, in its order (see [`ScanRequest`]).
    ///
    /// ```
    /// # use xvec::{Collection, Doc, Field, ScalarType, Schema, ScanRequest};
    /// # let dir = tempfile::tempdir()?;
    /// # let schema = Schema::builder("t").field(Field::scalar("n", ScalarType::Int64)).build()?;
    /// # let coll = Collection::create(dir.path(), schema, Default::default())?;
    /// coll.insert((0..5i64).map(|i| Doc::new(format!("k{i}")).set("n", i % 3)).collect())?;
    /// let page = coll.scan_page(&ScanRequest::new().order_by("n").limit(2))?;
    /// let keys: Vec<&str> = page.docs.iter().map(|d| d.key.as_str()).collect();
    /// assert_eq!(keys, ["k0", "k3"]);
    /// let rest = coll.scan_page(&ScanRequest::new().order_by("n").after(page.next))?;
    /// assert_eq!(rest.docs.len(), 3);
    /// assert_eq!(rest.next, None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn scan_page(&self, req: &ScanRequest) -> Result<ScanPage, Error> {
        self.scan_page_traced(req, None)
    }

    /// Runs `req` and reports how, source by source: how the filter found its rows, how
    /// many it kept and how many rows the order read.
    pub fn explain_scan(&self, req: &ScanRequest) -> Result<Explain, Error> {
        let start = Instant::now();
        let mut sources = Vec::new();
        let page = self.scan_page_traced(req, Some(&mut sources))?;
        Ok(Explain {
            leaves: self.compile(req.filter.as_deref(), &req.params)?.map(|f| f.leaves().to_vec()).unwrap_or_default(),
            segment_ids: self.segments.iter().map(|s| s.segment.id()).collect(),
            sources,
            hits: page.docs.len(),
            nanos: start.elapsed().as_nanos() as u64,
        })
    }

    /// Runs a count and reports how its filter found the rows, source by source.
    pub fn explain_count(&self, filter: Option<&str>, params: &Params) -> Result<Explain, Error> {
        self.explain_kept(filter, params, |_, _| SearchKind::Counted)
    }

    /// Runs `filter` over every source and reports how it found the rows, each source's
    /// step named by `kind` (given the source and the rows kept): a count or an
    /// aggregate over those rows.
    pub(super) fn explain_kept(
        &self,
        filter: Option<&str>,
        params: &Params,
        kind: impl Fn(&Source, u64) -> SearchKind,
    ) -> Result<Explain, Error> {
        let start = Instant::now();
        let compiled = self.compile(filter, params)?;
        let mut sources = Vec::new();
        let mut total = 0;
        for src in self.sources() {
            let (mut trace, _) = self.trace_source(&src, compiled.as_ref(), SearchKind::Counted, true);
            trace.search = kind(&src, trace.allowed);
            total += trace.allowed;
            sources.push(trace);
        }
        Ok(Explain {
            leaves: compiled.map(|f| f.leaves().to_vec()).unwrap_or_default(),
            segment_ids: self.segments.iter().map(|s| s.segment.id()).collect(),
            sources,
            hits: total as usize,
            nanos: start.elapsed().as_nanos() as u64,
        })
    }

    pub(super) fn compile(&self, filter: Option<&str>, params: &Params) -> Result<Option<Filter>, Error> {
        Ok(filter.map(|t| Filter::compile_with(t, &self.schema, params)).transpose()?)
    }

    /// A source's rows the filter keeps (`None`: every row), with its trace (how each
    /// leaf ran only when `tracing`, for `explain`).
    fn trace_source(
        &self,
        src: &Source,
        filter: Option<&Filter>,
        kind: SearchKind,
        tracing: bool,
    ) -> (SourceTrace, Option<RoaringBitmap>) {
        let start = Instant::now();
        let mut leaves: Vec<LeafTrace> = Vec::new();
        let rows = candidates_traced(src, filter, tracing.then_some(&mut leaves));
        let live = src.view.rows() as u64 - src.deleted.len();
        let trace = SourceTrace {
            position: src.position,
            rows: src.view.rows() as u64,
            deleted: src.deleted.len(),
            leaves,
            allowed: rows.as_ref().map_or(live, |r| r.len()),
            search: kind,
            filter_nanos: start.elapsed().as_nanos() as u64,
            search_nanos: 0,
        };
        (trace, rows)
    }

    fn order_of(&self, req: &ScanRequest) -> Result<Order, QueryError> {
        let Some(name) = req.order_field() else { return Ok(Order::Key) };
        let bad = || QueryError::BadOrderField(name.to_string());
        let f = self.schema.index_of(name).ok_or_else(bad)?;
        match self.schema.field(f).ty {
            FieldType::Scalar(ty) => Ok(Order::Field(f, ty)),
            FieldType::Vector(_) | FieldType::Array(_) | FieldType::Sparse(_) => Err(bad()),
        }
    }

    fn parse_cursor(&self, req: &ScanRequest, order: Order) -> Result<Option<Cursor>, QueryError> {
        let Some(text) = &req.after else { return Ok(None) };
        let (f, ty) = match order {
            Order::Key => return Ok(Some(Cursor::Key(text.clone()))),
            Order::Field(f, ty) => (f, ty),
        };
        let name = &self.schema.field(f).name;
        let bad = || QueryError::BadCursor {
            cursor: text.clone(),
            expected: format!("[{name} value, key], the `next` of a page ordered by {name}"),
        };
        let json: serde_json::Value = serde_json::from_str(text).map_err(|_| bad())?;
        let [value, serde_json::Value::String(key)] = json.as_array().map(Vec::as_slice).unwrap_or_default() else {
            return Err(bad());
        };
        let value = match value {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::String(s) if matches!(ty, ScalarType::Float | ScalarType::Double) => {
                Value::Double(s.parse::<f64>().ok().filter(|x| !x.is_finite()).ok_or_else(bad)?)
            }
            v => Value::from_json(&FieldType::Scalar(ty), v).map_err(|_| bad())?,
        };
        Ok(Some(Cursor::Field(value, key.clone())))
    }

    fn scan_page_traced(&self, req: &ScanRequest, mut trace: Option<&mut Vec<SourceTrace>>) -> Result<ScanPage, Error> {
        let filter = self.compile(req.filter.as_deref(), &req.params)?;
        let projection = resolve_projection(&self.schema, req.fields.as_deref(), true)?;
        let order = self.order_of(req)?;
        let cursor = self.parse_cursor(req, order)?;
        // One row past the page tells whether a next page exists.
        let want = req.limit.map(|l| req.offset.saturating_add(l).saturating_add(1));
        let (rows, ty) = match (order, &cursor) {
            (Order::Key, c) => {
                let after = match c {
                    Some(Cursor::Key(k)) => Some(k.as_str()),
                    _ => None,
                };
                (self.by_key(filter.as_ref(), after, req.desc, want, trace.as_deref_mut()), None)
            }
            (Order::Field(f, ty), c) => {
                let after = match c {
                    Some(Cursor::Field(v, k)) => Some((SortValue::of_value(v), k.as_str())),
                    _ => None,
                };
                (self.by_field(filter.as_ref(), f, after, req.desc, want, trace), Some(ty))
            }
        };
        let more = req.limit.is_some_and(|l| rows.len() > req.offset.saturating_add(l));
        let page: Vec<&Kept> = rows.iter().skip(req.offset).take(req.limit.unwrap_or(usize::MAX)).collect();
        let next = match (more, page.last(), ty) {
            (false, _, _) | (true, None, _) => None,
            (true, Some(last), None) => Some(last.key.to_string()),
            (true, Some(last), Some(ty)) => {
                Some(serde_json::Value::Array(vec![last.value.to_json(ty), last.key.into()]).to_string())
            }
        };
        let docs = page
            .into_iter()
            .map(|k| {
                let (key, fields) = self.project(self.source(k.position), k.row as usize, &projection);
                Doc { key, fields }
            })
            .collect();
        Ok(ScanPage { docs, next })
    }

    /// The first `want` rows (all without it) the filter keeps, by key, after `after`.
    fn by_key<'s>(
        &'s self,
        filter: Option<&Filter>,
        after: Option<&str>,
        desc: bool,
        want: Option<usize>,
        trace: Option<&mut Vec<SourceTrace>>,
    ) -> Vec<Kept<'s>> {
        let mut runs: Vec<(u32, KeyRun<'s>)> = Vec::new();
        let mut traces = Vec::new();
        let tracing = trace.is_some();
        // An untraced page reads no clock.
        let clock = || tracing.then(Instant::now);
        let since = |start: Option<Instant>| start.map_or(0, |s| s.elapsed().as_nanos() as u64);
        for src in self.sources() {
            let (t, allowed) = self.trace_source(&src, filter, SearchKind::KeyOrder { read: 0 }, tracing);
            let start = clock();
            let mut run = match self.segments.get(src.position as usize) {
                Some(s) => segment_run(s.segment.order(), src.view.keys(), allowed, after, desc),
                None => chunk_run(src.view.keys(), src.view.rows(), allowed, after, desc, want),
            };
            run.nanos = since(start);
            runs.push((src.position, run));
            traces.push(t);
        }
        let mut heap = BinaryHeap::new();
        let pull = |run: usize, runs: &mut Vec<(u32, KeyRun<'s>)>, heap: &mut BinaryHeap<Head<'s>>| {
            let r = &mut runs[run].1;
            let start = clock();
            let next = r.rows.next();
            r.nanos += since(start);
            if let Some(row) = next {
                heap.push(Head { key: r.keys.get_str(row as usize), row, run, desc });
            }
        };
        for run in 0..runs.len() {
            pull(run, &mut runs, &mut heap);
        }
        let mut out = Vec::new();
        while want.is_none_or(|w| out.len() < w) {
            let Some(head) = heap.pop() else { break };
            out.push(Kept { value: SortValue::Null, key: head.key, position: runs[head.run].0, row: head.row, desc });
            pull(head.run, &mut runs, &mut heap);
        }
        if let Some(t) = trace {
            for (mut st, (_, run)) in traces.into_iter().zip(&runs) {
                st.search = SearchKind::KeyOrder { read: run.read.get() };
                st.search_nanos = run.nanos;
                t.push(st);
            }
        }
        out
    }

    /// The first `want` rows (all without it) the filter keeps, by the value of scalar
    /// field `field` then key, after `after`: a bounded heap over every kept row.
    fn by_field<'s>(
        &'s self,
        filter: Option<&Filter>,
        field: usize,
        after: Option<(SortValue, &str)>,
        desc: bool,
        want: Option<usize>,
        mut trace: Option<&mut Vec<SourceTrace>>,
    ) -> Vec<Kept<'s>> {
        let mut heap: BinaryHeap<Kept<'s>> = BinaryHeap::new();
        for src in self.sources() {
            let (mut t, allowed) = self.trace_source(&src, filter, SearchKind::FieldOrder { read: 0 }, trace.is_some());
            let start = Instant::now();
            let (col, keys) = (src.view.scalar(field), src.view.keys());
            let mut read = 0u64;
            let mut visit = |row: u32| {
                read += 1;
                let value = SortValue::of_column(&col, row as usize);
                // Values past the worst kept row lose without their key being read.
                if let Some(worst) = heap.peek().filter(|_| want.is_some_and(|w| heap.len() >= w)) {
                    let by_value = value.cmp(&worst.value);
                    if (if desc { by_value.reverse() } else { by_value }) == Ordering::Greater {
                        return;
                    }
                }
                let key = keys.get_str(row as usize);
                if after.is_some_and(|a| row_order((value, key), a, desc) != Ordering::Greater) {
                    return;
                }
                heap.push(Kept { value, key, position: src.position, row, desc });
                if want.is_some_and(|w| heap.len() > w) {
                    heap.pop();
                }
            };
            match &allowed {
                Some(rows) => rows.iter().for_each(&mut visit),
                None => (0..src.view.rows() as u32).for_each(&mut visit),
            }
            if let Some(traces) = trace.as_deref_mut() {
                t.search = SearchKind::FieldOrder { read };
                t.search_nanos = start.elapsed().as_nanos() as u64;
                traces.push(t);
            }
        }
        heap.into_sorted_vec()
    }
}

/// A segment's kept rows in key order after `after`: a walk of its stored key order
/// (which holds no row of a damaged key), counting the entries it looks at.
fn segment_run<'a>(
    order: &'a [u32],
    keys: VarColumn<'a>,
    allowed: Option<RoaringBitmap>,
    after: Option<&str>,
    desc: bool,
) -> KeyRun<'a> {
    let bytes = |r: u32| keys.get(r as usize);
    let order = match (after, desc) {
        (None, _) => order,
        (Some(a), false) => &order[order.partition_point(|&r| bytes(r) <= a.as_bytes())..],
        (Some(a), true) => &order[..order.partition_point(|&r| bytes(r) < a.as_bytes())],
    };
    let read = Rc::new(Cell::new(0));
    let walk: Box<dyn Iterator<Item = &'a u32>> =
        if desc { Box::new(order.iter().rev()) } else { Box::new(order.iter()) };
    let counted = Rc::clone(&read);
    let walk = walk.copied().inspect(move |_| counted.set(counted.get() + 1));
    // Without a filter or a deleted row (`allowed` is `None`), every row is kept.
    let rows: Box<dyn Iterator<Item = u32>> = match allowed {
        Some(keep) => Box::new(walk.filter(move |r| keep.contains(*r))),
        None => Box::new(walk),
    };
    KeyRun { keys, rows, read, nanos: 0 }
}

/// A memtable chunk's kept rows in key order after `after`: sorted here (a chunk is
/// small), only the first `want` of them when a page bounds it.
fn chunk_run<'a>(
    keys: VarColumn<'a>,
    rows: usize,
    allowed: Option<RoaringBitmap>,
    after: Option<&str>,
    desc: bool,
    want: Option<usize>,
) -> KeyRun<'a> {
    let beyond = |r: &u32| {
        after.is_none_or(|a| {
            let k = keys.get_str(*r as usize);
            if desc { k < a } else { k > a }
        })
    };
    let mut kept: Vec<u32> = match allowed {
        Some(b) => b.iter().filter(beyond).collect(),
        None => (0..rows as u32).filter(beyond).collect(),
    };
    let by_key = |x: &u32, y: &u32| {
        let c = keys.get(*x as usize).cmp(keys.get(*y as usize));
        if desc { c.reverse() } else { c }
    };
    if let Some(w) = want.filter(|&w| w < kept.len()) {
        kept.select_nth_unstable_by(w, by_key);
        kept.truncate(w);
    }
    kept.sort_unstable_by(by_key);
    let read = Rc::new(Cell::new(kept.len() as u64));
    KeyRun { keys, rows: Box::new(kept.into_iter()), read, nanos: 0 }
}
