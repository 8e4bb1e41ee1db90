//! Queries: what a caller asks (a vector or a key, top-k, filter, projection) and how a
//! snapshot answers it: compile the filter once, scan each segment, merge one top-k.

use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

use roaring::RoaringBitmap;

use super::snapshot::{Snapshot, Source};
use crate::error::{Error, QueryError};
use crate::filter::{Filter, LeafTrace, Params};
use crate::index::quant::fastscan::{self, ScanQuery};
use crate::index::segment_index::{SearchParams, SearchPath, SearchRoute, SegmentIndex};
use crate::index::{Candidate, PreparedQuery, Sink, TopK, flat};
use crate::kernels;
use crate::schema::{FieldKind, Knob, MAX_BEAM_WIDTH, Schema, VectorType};
use crate::value::Value;

/// Largest top-k a query may ask for.
pub const MAX_K: usize = 100_000;

pub use crate::schema::{MAX_EF, MAX_REFINE_CANDIDATES};

/// Most hits a grouped query may return: `groups × per_group`.
pub const MAX_GROUP_HITS: usize = 1_000_000;

/// Fails when `value` (a product of caller-given sizes, so computed without overflow)
/// exceeds `limit`.
fn at_most(param: &'static str, value: u128, limit: usize) -> Result<(), QueryError> {
    if value > limit as u128 { Err(QueryError::TooLarge { param, value, limit }) } else { Ok(()) }
}

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
/// Sizes are bounded so that no request can make a query allocate without limit: `k` is
/// 1..=[`MAX_K`], `ef` at most [`MAX_EF`], `refine × k` at most [`MAX_REFINE_CANDIDATES`]
/// (the field's default `refine` counts too). Beyond a bound the query fails with
/// [`QueryError::TooLarge`] or [`QueryError::BadLimit`] before it allocates anything. A
/// query's memory is O(k + ef + refine × k), whatever the collection's size: at the bounds
/// (k = 100000, ef = 100000, refine × k = 1000000) `xvec query` on a 200000-row HNSW int8
/// collection peaked about 120 MB above a k = 10 query, its hits and their output included.
///
/// ```
/// use xvec::Query;
/// let q = Query::vector(vec![0.1, 0.2]).k(5).filter("pos = 'n'").fields(["lemma"]).ef(64);
/// assert_eq!(q.returned_fields(), Some(&["lemma".to_string()][..]));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Query {
    pub(crate) target: Target,
    /// Vector field to search; may be omitted when the schema has exactly one.
    pub(crate) field: Option<String>,
    pub(crate) k: usize,
    pub(crate) filter: Option<String>,
    /// Values of the filter's `$name` placeholders.
    pub(crate) params: Params,
    /// Fields to return; `None` returns every scalar field.
    pub(crate) fields: Option<Vec<String>>,
    /// Also return vector fields (with `fields: None`).
    pub(crate) include_vectors: bool,
    /// Search breadth of graph indexes (HNSW `ef`, Vamana `query_list`); `None` uses the
    /// field's default. Must be at least `k` and at most [`MAX_EF`].
    pub(crate) ef: Option<usize>,
    /// Re-rank `refine × k` candidates found on quantized codes with the original vectors;
    /// `None` uses the field's default. `refine × k` is at most [`MAX_REFINE_CANDIDATES`].
    pub(crate) refine: Option<usize>,
    /// Graph or exact scan per segment: the cost model's choice unless forced.
    pub(crate) route: SearchRoute,
    /// IVF lists to probe, 1..=[`MAX_NLIST`](crate::MAX_NLIST); `None` uses the field's
    /// default.
    pub(crate) nprobe: Option<usize>,
    pub(crate) target_recall: Option<f32>,
    /// Nodes a disk index expands per hop, 1..=[`MAX_BEAM_WIDTH`](crate::MAX_BEAM_WIDTH);
    /// `None` uses the index's `beam_width`.
    pub(crate) beam_width: Option<usize>,
}

impl Query {
    /// Searches near `v`, with k = 10, no filter, every scalar field returned and the
    /// field's default search breadth.
    pub fn vector(v: Vec<f32>) -> Query {
        Query {
            target: Target::Vector(v),
            field: None,
            k: 10,
            filter: None,
            params: Params::new(),
            fields: None,
            include_vectors: false,
            ef: None,
            refine: None,
            route: SearchRoute::Auto,
            nprobe: None,
            target_recall: None,
            beam_width: None,
        }
    }

    /// Searches near the stored vector of the document `key` (the document itself is
    /// not excluded from the hits); defaults as [`Query::vector`].
    pub fn key(key: impl Into<String>) -> Query {
        Query { target: Target::Key(key.into()), ..Query::vector(Vec::new()) }
    }

    /// Most hits to return, 1..=[`MAX_K`].
    pub fn k(mut self, k: usize) -> Query {
        self.k = k;
        self
    }

    /// The vector field to search; needed when the schema has more than one.
    pub fn field(mut self, field: impl Into<String>) -> Query {
        self.field = Some(field.into());
        self
    }

    /// Only rows matching this filter expression are hits (the filter is applied during
    /// the search, so `k` hits come back when `k` rows match).
    pub fn filter(mut self, filter: impl Into<String>) -> Query {
        self.filter = Some(filter.into());
        self
    }

    /// Binds the filter's `$name` placeholders (see [`Params`]).
    pub fn params(mut self, params: Params) -> Query {
        self.params = params;
        self
    }

    /// The fields hits carry (default: every scalar field); the key always comes back.
    pub fn fields<S: Into<String>>(mut self, fields: impl IntoIterator<Item = S>) -> Query {
        self.fields = Some(fields.into_iter().map(Into::into).collect());
        self
    }

    /// Search breadth of graph indexes (HNSW `ef`, Vamana `query_list`), at least `k` and
    /// at most [`MAX_EF`]; `None` keeps the field's default. A field whose index takes no
    /// `ef` (flat, IVF) fails the query with [`QueryError::KnobDoesNotApply`], except a
    /// grouped one, where `ef` is the candidates any index feeds the groups
    /// ([`Snapshot::query_groups`]); the knobs an index takes are
    /// [`IndexParams::search_knobs`](crate::IndexParams::search_knobs).
    pub fn ef(mut self, ef: impl Into<Option<usize>>) -> Query {
        self.ef = ef.into();
        self
    }

    /// Re-rank `factor × k` candidates found on quantized codes with the original vectors
    /// (`factor × k` at most [`MAX_REFINE_CANDIDATES`]); `None` keeps the field's default.
    /// A field without quantization fails the query with [`QueryError::KnobDoesNotApply`].
    pub fn refine(mut self, factor: impl Into<Option<usize>>) -> Query {
        self.refine = factor.into();
        self
    }

    /// IVF lists to probe (of the index's `nlist`, 1..=[`MAX_NLIST`](crate::MAX_NLIST);
    /// more lists, higher recall, slower); `None` keeps the field's default. Another
    /// index fails the query with [`QueryError::KnobDoesNotApply`].
    pub fn nprobe(mut self, nprobe: impl Into<Option<usize>>) -> Query {
        self.nprobe = nprobe.into();
        self
    }

    /// IVF: probe in each segment the lists its build measured as holding this share of
    /// its rows' true 10 nearest neighbours (in `(0, 1]`; see `docs/format.md`, "IVF
    /// lists"), instead of a fixed [`nprobe`](Query::nprobe). Another index fails the
    /// query with [`QueryError::KnobDoesNotApply`].
    pub fn target_recall(mut self, recall: impl Into<Option<f32>>) -> Query {
        self.target_recall = recall.into();
        self
    }

    /// Disk index: the nodes each hop expands, and so the blocks it reads as one batch
    /// (1..=[`MAX_BEAM_WIDTH`](crate::MAX_BEAM_WIDTH)); `None` keeps the index's
    /// `beam_width`. When every hop waits on the disk (a collection larger than its
    /// memory), a wider beam reads a few more blocks in fewer round trips. Another index
    /// fails the query with [`QueryError::KnobDoesNotApply`].
    ///
    /// ```
    /// use xvec::Query;
    /// let q = Query::vector(vec![0.1, 0.2]).ef(100).beam_width(8);
    /// # let _ = q;
    /// ```
    pub fn beam_width(mut self, width: impl Into<Option<usize>>) -> Query {
        self.beam_width = width.into();
        self
    }

    /// Forces the way segments with a graph index are searched ([`SearchRoute`]); the
    /// default lets the cost model choose per segment.
    pub fn route(mut self, route: SearchRoute) -> Query {
        self.route = route;
        self
    }

    /// [`Query::field`] when `field` is `Some`; `None` lets the schema's only vector field
    /// be searched.
    pub fn field_opt(mut self, field: Option<String>) -> Query {
        self.field = field;
        self
    }

    /// [`Query::filter`] when `filter` is `Some`; `None` keeps every row.
    pub fn filter_opt(mut self, filter: Option<String>) -> Query {
        self.filter = filter;
        self
    }

    /// [`Query::fields`] when `fields` is `Some`; `None` returns every scalar field.
    pub fn fields_opt(mut self, fields: Option<Vec<String>>) -> Query {
        self.fields = fields;
        self
    }

    /// Replaces the query vector, keeping every other setting (for running one query shape
    /// over many vectors).
    pub fn set_vector(&mut self, v: Vec<f32>) {
        self.target = Target::Vector(v);
    }

    /// The fields hits return: `None` for every scalar field.
    pub fn returned_fields(&self) -> Option<&[String]> {
        self.fields.as_deref()
    }

    /// Whether hits also carry vector fields (when [`Query::returned_fields`] is `None`).
    pub fn includes_vectors(&self) -> bool {
        self.include_vectors
    }

    /// Whether hits also carry the vector fields when no [`Query::fields`] are named.
    pub fn with_vectors(mut self, yes: bool) -> Query {
        self.include_vectors = yes;
        self
    }
}

/// How to group results: by the value of a scalar field.
///
/// `groups` and `per_group` are at least 1 and `groups × per_group` is at most
/// [`MAX_GROUP_HITS`]; beyond it [`Snapshot::query_groups`] fails with
/// [`QueryError::TooLarge`] before it allocates anything.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct GroupBy {
    /// The scalar field whose value groups hits (nulls form one group).
    pub field: String,
    /// Most groups returned.
    pub groups: usize,
    /// Most hits per group.
    pub per_group: usize,
}

impl GroupBy {
    /// At most `groups` groups by the value of the scalar field `field`, `per_group` hits
    /// each (bounds are checked by the query, see the type's docs).
    pub fn new(field: impl Into<String>, groups: usize, per_group: usize) -> GroupBy {
        GroupBy { field: field.into(), groups, per_group }
    }
}

/// Hits sharing one value of the group-by field, best first.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    /// The group-by field's value these hits share.
    pub value: Value,
    /// At most `per_group` hits, best first.
    pub hits: Vec<Hit>,
}

/// A group-by value as a hash key (floats by their bits; -0.0 and 0.0 differ).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum GroupKey {
    Null,
    Bool(bool),
    Int(i128),
    Float(u64),
    Str(String),
}

impl GroupKey {
    fn of(v: &Value) -> GroupKey {
        match v {
            Value::Null => GroupKey::Null,
            Value::Bool(b) => GroupKey::Bool(*b),
            Value::Int32(x) => GroupKey::Int(*x as i128),
            Value::Int64(x) => GroupKey::Int(*x as i128),
            Value::Uint32(x) => GroupKey::Int(*x as i128),
            Value::Uint64(x) => GroupKey::Int(*x as i128),
            Value::Float(x) => GroupKey::Float((*x as f64).to_bits()),
            Value::Double(x) => GroupKey::Float(x.to_bits()),
            Value::String(s) => GroupKey::Str(s.clone()),
            // Group-by fields are scalar fields.
            Value::VectorFp32(_) | Value::VectorFp16(_) | Value::VectorInt8(_) | Value::Array(_) | Value::Sparse(_) => {
                GroupKey::Null
            }
        }
    }
}

/// Collects candidates into per-group bounded top-k lists.
struct GroupSink<'a> {
    snap: &'a Snapshot,
    field: usize,
    per_group: usize,
    map: HashMap<GroupKey, (Value, TopK)>,
}

impl Sink for GroupSink<'_> {
    fn threshold(&self) -> f32 {
        f32::INFINITY
    }

    fn push(&mut self, c: Candidate) {
        let value = self.snap.source(c.segment).scalar(self.field).value(c.row as usize);
        let per_group = self.per_group;
        // Grown as hits arrive: a group holds at most what was pushed, never `per_group`
        // slots up front (many distinct values would multiply that).
        self.map.entry(GroupKey::of(&value)).or_insert_with(|| (value, TopK::unreserved(per_group))).1.push(c);
    }
}

/// One result row, best first.
#[derive(Clone, Debug, PartialEq)]
pub struct Hit {
    /// The document's primary key.
    pub key: String,
    /// In the metric's unit: squared L2 distance, inner product or cosine similarity.
    pub score: f32,
    /// The fields the query asked for, by name; a null value is left out.
    pub fields: BTreeMap<String, Value>,
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
pub(crate) fn candidates(src: &Source, filter: Option<&Filter>) -> Option<RoaringBitmap> {
    candidates_traced(src, filter, None)
}

/// [`candidates`], recording each filter leaf's evaluation into `trace`.
pub(super) fn candidates_traced(
    src: &Source,
    filter: Option<&Filter>,
    trace: Option<&mut Vec<LeafTrace>>,
) -> Option<RoaringBitmap> {
    let deleted: &RoaringBitmap = &src.deleted;
    match filter {
        Some(f) => {
            let mut b = match trace {
                Some(t) => f.evaluate_traced(src.view, src.scalar, t),
                None => f.evaluate(src.view, src.scalar),
            };
            b -= deleted;
            Some(b)
        }
        None if deleted.is_empty() => None,
        None => {
            let mut b = RoaringBitmap::new();
            b.insert_range(0..src.view.rows() as u32);
            b -= deleted;
            Some(b)
        }
    }
}

/// How one source's rows were searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchKind {
    /// The segment's index (graph, or an exact scan of the allowed rows).
    Index(SearchPath),
    /// Rows no index covers yet, scanned through their one-bit codes.
    ScanCodes,
    /// An exact scan (a flat field, or a memtable of a field without codes).
    Flat,
    /// No search: a count, of the rows the filter kept ([`Snapshot::explain_count`]).
    Counted,
    /// Counts per value of a field among the rows kept ([`Snapshot::explain_facets`]):
    /// from the postings of its inverted index when `postings`, else each kept row's
    /// value read from the column.
    Grouped {
        /// Whether the inverted index's postings were counted.
        postings: bool,
    },
    /// Count, min, max, sum and average of fields over the rows kept
    /// ([`Snapshot::explain_field_stats`]): each kept row's values read from the columns.
    Aggregated,
    /// A page by key ([`Snapshot::explain_scan`]): `read` entries of the source's key
    /// order were looked at (a memtable chunk's kept rows are sorted: `read` of them).
    KeyOrder {
        /// Rows looked at.
        read: u64,
    },
    /// A page by a field: the field's value of `read` kept rows went through a bounded
    /// heap of the page's rows.
    FieldOrder {
        /// Rows whose value was read.
        read: u64,
    },
}

/// One source of a query (a segment, or a chunk of the memtable) as it was searched.
#[derive(Clone, Debug, PartialEq)]
pub struct SourceTrace {
    /// Position in the snapshot: segments first, then memtable chunks.
    pub position: u32,
    /// Rows in the source, deleted ones included.
    pub rows: u64,
    /// Its deleted rows.
    pub deleted: u64,
    /// Each filter leaf's evaluation, in evaluation order.
    pub leaves: Vec<LeafTrace>,
    /// Rows the search could return: live and passing the filter.
    pub allowed: u64,
    /// How its rows were searched.
    pub search: SearchKind,
    /// Time the filter (and the deleted rows) took.
    pub filter_nanos: u64,
    /// Time the vector search took.
    pub search_nanos: u64,
}

/// A query resolved against a snapshot's schema, ready to run on every segment.
pub(super) struct Plan {
    field: usize,
    vector: Vec<f32>,
    prepared: PreparedQuery,
    filter: Option<Filter>,
    ef: usize,
    refine: usize,
    route: SearchRoute,
    nprobe: usize,
    target_recall: Option<f32>,
    beam_width: usize,
    projection: Vec<usize>,
}

impl Plan {
    /// A candidate's score in the metric's unit (see [`Hit::score`]).
    pub(super) fn score(&self, c: Candidate) -> f32 {
        self.prepared.score(c.dist)
    }

    /// The metric of the field searched.
    pub(super) fn metric(&self) -> crate::schema::Metric {
        self.prepared.metric()
    }

    /// The filter's leaves as written, for `explain`.
    pub(super) fn filter_leaves(&self) -> Vec<String> {
        self.filter.as_ref().map(|f| f.leaves().to_vec()).unwrap_or_default()
    }
}

impl Snapshot {
    /// Resolves `q` for a search of `k` results per segment (`q.k`, or the group pool:
    /// `grouped`, where `ef` is the candidates every index kind feeds the groups).
    pub(super) fn plan(&self, q: &Query, k: usize, grouped: bool) -> Result<Plan, Error> {
        if k == 0 || k > MAX_K {
            return Err(QueryError::BadLimit(k).into());
        }
        if let Some(ef) = q.ef {
            at_most("ef", ef as u128, MAX_EF)?;
        }
        if let Some(n) = q.nprobe {
            if n == 0 {
                return Err(QueryError::BadNprobe.into());
            }
            at_most("nprobe", n as u128, crate::MAX_NLIST as usize)?;
        }
        if let Some(r) = q.target_recall {
            if !(r > 0.0 && r <= 1.0) {
                return Err(QueryError::BadTargetRecall(r).into());
            }
            if q.nprobe.is_some() {
                return Err(QueryError::NprobeAndTargetRecall.into());
            }
        }
        if let Some(w) = q.beam_width.filter(|w| !(1..=MAX_BEAM_WIDTH).contains(w)) {
            return Err(QueryError::BadBeamWidth(w).into());
        }
        let field = self.schema.resolve(FieldKind::Vector, q.field.as_deref())?;
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
        let (index, name) = (&spec.index, &self.schema.field(field).name);
        let given = [
            (Knob::Ef, q.ef.is_some()),
            (Knob::Nprobe, q.nprobe.is_some()),
            (Knob::TargetRecall, q.target_recall.is_some()),
            (Knob::Refine, q.refine.is_some()),
            (Knob::BeamWidth, q.beam_width.is_some()),
        ];
        for (knob, given) in given {
            if !(grouped && knob == Knob::Ef) {
                index.check_knob(knob, given, name)?;
            }
        }
        if let Some(ef) = q.ef {
            index.check_ef(ef, q.k)?;
        }
        // Indexes without a search breadth (flat, IVF) are asked for `k` candidates.
        let ef = q.ef.or(index.knob_default(Knob::Ef)).map_or(k, |ef| ef.max(k));
        let nprobe = q.nprobe.or(index.knob_default(Knob::Nprobe)).unwrap_or(0);
        let refine = q.refine.or(index.knob_default(Knob::Refine)).unwrap_or(0);
        // Only a disk index reads it.
        let beam_width = q.beam_width.or(index.knob_default(Knob::BeamWidth)).unwrap_or(1);
        let prepared = prepare(&self.schema, field, vector.clone())?;
        let filter = q.filter.as_deref().map(|t| Filter::compile_with(t, &self.schema, &q.params)).transpose()?;
        let target_recall = q.target_recall;
        let route = q.route;
        Ok(Plan { field, vector, prepared, filter, ef, refine, route, nprobe, target_recall, beam_width, projection })
    }

    /// Feeds the best candidates of every segment into `sink`, `k` per indexed segment.
    /// Indexed segments go first: their hits set the threshold by which the scans of
    /// unindexed rows skip most rows without reading their vectors.
    /// With `trace`, how each source was searched is recorded there, in search order.
    pub(super) fn run(
        &self,
        plan: &Plan,
        k: usize,
        sink: &mut impl Sink,
        mut trace: Option<&mut Vec<SourceTrace>>,
    ) -> Result<(), Error> {
        let kernels = kernels::best();
        fn index_of<'a>(src: &Source<'a>, field: usize) -> Option<&'a SegmentIndex> {
            src.indexes.get(field).and_then(|i| i.as_deref())
        }
        let (mut leaves, tracing) = (Vec::new(), trace.is_some());
        // An untraced query reads no clock.
        let clock = || tracing.then(Instant::now);
        let since = |start: Option<Instant>| start.map_or(Duration::ZERO, |s| s.elapsed());
        let traced = |src: &Source, leaves: &mut Vec<LeafTrace>| {
            let start = clock();
            let cands = candidates_traced(src, plan.filter.as_ref(), tracing.then_some(leaves));
            (cands, since(start))
        };
        let mut record = |src: &Source,
                          leaves: &mut Vec<LeafTrace>,
                          cands: &Option<RoaringBitmap>,
                          filter: Duration,
                          search: Duration,
                          path: SearchKind| {
            if let Some(t) = trace.as_deref_mut() {
                t.push(SourceTrace {
                    position: src.position,
                    rows: src.view.rows() as u64,
                    deleted: src.deleted.len(),
                    leaves: std::mem::take(leaves),
                    allowed: cands.as_ref().map_or(src.view.rows() as u64 - src.deleted.len(), |c| c.len()),
                    search: path,
                    filter_nanos: filter.as_nanos() as u64,
                    search_nanos: search.as_nanos() as u64,
                });
            }
        };
        for src in self.sources() {
            let Some(index) = index_of(&src, plan.field) else { continue };
            let (cands, filter_time) = traced(&src, &mut leaves);
            let col = src.view.vector(plan.field);
            // Null vectors are stored as zeros and linked into the graph like any row;
            // an index must never return them.
            let cands = match col.validity.0 {
                Some(bits) => {
                    let mut valid = RoaringBitmap::from_lsb0_bytes(0, bits);
                    valid.remove_range(src.view.rows() as u32..);
                    Some(match cands {
                        Some(c) => c & valid,
                        None => valid,
                    })
                }
                None => cands,
            };
            let p = SearchParams {
                k,
                ef: plan.ef,
                refine: plan.refine,
                allowed: cands.as_ref(),
                position: src.position,
                route: plan.route,
                nprobe: plan.nprobe,
                target_recall: plan.target_recall,
                beam_width: plan.beam_width,
            };
            let start = clock();
            let path = index.search(col, &plan.prepared, &plan.vector, p, sink)?;
            record(&src, &mut leaves, &cands, filter_time, since(start), SearchKind::Index(path));
        }
        let mut scan_query = None;
        for src in self.sources().filter(|src| index_of(src, plan.field).is_none()) {
            let (cands, filter_time) = traced(&src, &mut leaves);
            let col = src.view.vector(plan.field);
            let start = clock();
            let path = match src.scan_codes(plan.field) {
                Some(codes) => {
                    let sq = scan_query.get_or_insert_with(|| ScanQuery::new(codes, &plan.vector));
                    fastscan::scan(kernels, &col, codes, sq, &plan.prepared, cands.as_ref(), src.position, sink);
                    SearchKind::ScanCodes
                }
                None => {
                    flat::scan(kernels, &col, src.view.rows(), &plan.prepared, cands.as_ref(), src.position, sink);
                    SearchKind::Flat
                }
            };
            record(&src, &mut leaves, &cands, filter_time, since(start), path);
        }
        Ok(())
    }

    /// Starts loading the keys of the hits about to be projected: offsets of all, then
    /// bytes of all, so their misses overlap.
    fn prefetch_keys(&self, hits: &[Candidate]) {
        let rows = |pos: u32| hits.iter().filter(move |c| c.segment == pos).map(|c| c.row as usize);
        for src in self.sources() {
            src.view.keys().prefetch_offsets(rows(src.position));
        }
        for src in self.sources() {
            src.view.keys().prefetch_bytes(rows(src.position));
        }
    }

    fn hit(&self, plan: &Plan, c: Candidate) -> Hit {
        let (key, fields) = self.project(self.source(c.segment), c.row as usize, &plan.projection);
        Hit { key, score: plan.prepared.score(c.dist), fields }
    }

    /// Runs a query against this snapshot.
    pub fn query(&self, q: &Query) -> Result<Vec<Hit>, Error> {
        let plan = self.plan(q, q.k, false)?;
        at_most("refine × k", plan.refine as u128 * q.k as u128, MAX_REFINE_CANDIDATES)?;
        let mut top = TopK::new(q.k);
        self.run(&plan, q.k, &mut top, None)?;
        let best = top.into_sorted();
        self.prefetch_keys(&best);
        Ok(best.into_iter().map(|c| self.hit(&plan, c)).collect())
    }

    /// Runs a query and groups its results by the value of a scalar field: up to
    /// `by.groups` groups, best group first, each with its `by.per_group` best hits.
    /// Exact on unindexed segments; on indexed ones the groups come from the `ef`
    /// candidates the index finds (at least `groups × per_group`; raise `ef` to widen).
    pub fn query_groups(&self, q: &Query, by: &GroupBy) -> Result<Vec<Group>, Error> {
        let group_field = self
            .schema
            .index_of(&by.field)
            .filter(|&i| self.schema.field(i).as_scalar().is_some())
            .ok_or_else(|| QueryError::BadGroupField(by.field.clone()))?;
        if by.groups == 0 || by.per_group == 0 {
            return Err(QueryError::BadLimit(0).into());
        }
        let pool = by.groups as u128 * by.per_group as u128;
        at_most("groups × per_group", pool, MAX_GROUP_HITS)?;
        let plan = self.plan(q, (pool as usize).min(MAX_K), true)?;
        // Every one of the `ef` candidates is refined.
        at_most("refine × ef", plan.refine as u128 * plan.ef as u128, MAX_REFINE_CANDIDATES)?;
        let mut groups = GroupSink { snap: self, field: group_field, per_group: by.per_group, map: HashMap::new() };
        // Every candidate an index finds (ef of them) feeds the groups, not only the best.
        self.run(&plan, plan.ef, &mut groups, None)?;
        let mut out: Vec<(Value, Vec<Candidate>)> =
            groups.map.into_values().map(|(value, top)| (value, top.into_sorted())).collect();
        out.sort_by(|a, b| a.1[0].cmp(&b.1[0]));
        out.truncate(by.groups);
        Ok(out
            .into_iter()
            .map(|(value, hits)| Group { value, hits: hits.into_iter().map(|c| self.hit(&plan, c)).collect() })
            .collect())
    }

    /// Fetches documents by key; `None` for keys not found. `fields: None` returns every
    /// field, vectors included.
    pub fn fetch(&self, keys: &[&str], fields: Option<&[String]>) -> Result<Vec<Option<crate::value::Doc>>, Error> {
        let projection = resolve_projection(&self.schema, fields, true)?;
        let mut out = Vec::with_capacity(keys.len());
        for key in keys {
            let Some(loc) = self.locate(key) else {
                self.check_absent(key)?;
                out.push(None);
                continue;
            };
            self.check_readable(key, loc)?;
            let (src, row) = self.view(loc);
            let (key, fields) = self.project(src, row, &projection);
            out.push(Some(crate::value::Doc { key, fields }));
        }
        Ok(out)
    }

    /// Keys of live documents matching a filter (all live documents without one).
    pub fn keys_where(&self, filter: Option<&str>) -> Result<Vec<String>, Error> {
        self.keys_where_with(filter, &Params::new())
    }

    /// [`Snapshot::keys_where`] with the filter's `$name` placeholders bound to `params`.
    pub fn keys_where_with(&self, filter: Option<&str>, params: &Params) -> Result<Vec<String>, Error> {
        let filter = filter.map(|t| Filter::compile_with(t, &self.schema, params)).transpose()?;
        let mut out = Vec::new();
        for src in self.sources() {
            let keys = src.view.keys();
            match candidates(&src, filter.as_ref()) {
                Some(c) => out.extend(c.iter().map(|r| keys.get_str(r as usize).to_string())),
                None => out.extend((0..src.view.rows()).map(|r| keys.get_str(r).to_string())),
            }
        }
        Ok(out)
    }
}
