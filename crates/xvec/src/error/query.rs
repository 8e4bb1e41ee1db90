//! Queries that cannot run: their parameters, and the field they search (resolved by
//! kind: vector, full-text, sparse).

/// The kind of field a search works on, as [`FieldLookupError`] names it (whether a
/// field is one: [`FieldKind::holds`], beside the schema).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FieldKind {
    /// A dense vector field (`vector_fp32`, `vector_fp16`, `vector_int8`).
    Vector,
    /// A string field with a full-text (`fts`) index.
    FullText,
    /// A sparse vector field (`sparse_fp32`, `sparse_fp16`).
    Sparse,
}

impl FieldKind {
    /// The kind as messages name it: `no {name} field named ...`.
    pub fn name(self) -> &'static str {
        match self {
            FieldKind::Vector => "vector",
            FieldKind::FullText => "full-text",
            FieldKind::Sparse => "sparse vector",
        }
    }

    /// What makes a field one of the kind, for a message to a user who has none.
    pub fn needs(self) -> &'static str {
        match self {
            FieldKind::Vector => "vector_fp32, vector_fp16 or vector_int8",
            FieldKind::FullText => "a string field with an fts index",
            FieldKind::Sparse => "sparse_fp32 or sparse_fp16",
        }
    }
}

/// A field of a kind (vector, full-text, sparse) that [`Schema::resolve`](crate::Schema::resolve)
/// cannot find: each variant names the kind wanted and, where there are some, the fields
/// of that kind, so the message says what would have been accepted.
#[derive(Debug, thiserror::Error, PartialEq, Clone)]
#[non_exhaustive]
pub enum FieldLookupError {
    /// A field named that is missing or not of the kind wanted.
    #[error("no {} field named `{name}`; {}", wanted.name(), there_are(*wanted, candidates))]
    NoSuchField {
        /// The name given.
        name: String,
        /// The kind wanted.
        wanted: FieldKind,
        /// The schema's fields of that kind, in schema order.
        candidates: Vec<String>,
    },
    /// No field named, and the schema has none of the kind wanted.
    #[error("the collection has no {} field ({})", wanted.name(), wanted.needs())]
    NoField {
        /// The kind wanted.
        wanted: FieldKind,
    },
    /// No field named, and the schema has several of the kind wanted.
    #[error("the collection has {} {} fields ({}); name one", candidates.len(), wanted.name(), candidates.join(", "))]
    Ambiguous {
        /// The kind wanted.
        wanted: FieldKind,
        /// The schema's fields of that kind, in schema order.
        candidates: Vec<String>,
    },
}

/// The fields of `kind` there are, for a message about one that is not.
fn there_are(kind: FieldKind, candidates: &[String]) -> String {
    match candidates {
        [] => format!("the collection has none ({})", kind.needs()),
        [one] => format!("the {} field is {one}", kind.name()),
        _ => format!("the {} fields are {}", kind.name(), candidates.join(", ")),
    }
}

/// A query that cannot run.
#[derive(Debug, thiserror::Error, PartialEq)]
#[non_exhaustive]
pub enum QueryError {
    /// The field a vector, text or sparse query searches cannot be resolved.
    #[error(transparent)]
    Field(#[from] FieldLookupError),
    /// The query vector's length is not the field's dimension.
    #[error("field `{field}` expects a query vector of dimension {expected}, found {found}")]
    BadDimension {
        /// The vector field searched.
        field: String,
        /// Its dimension.
        expected: u32,
        /// The query vector's length.
        found: usize,
    },
    /// The query vector holds a NaN or infinity (at this index).
    #[error("query vector has a value that is not finite at index {0}")]
    NotFinite(usize),
    /// A query of an int8 field with an element that is not an integer in -128..=127.
    #[error("field `{field}` holds vector_int8; the query vector must be integers in -128..=127 (index {index})")]
    NotInt8 {
        /// The vector_int8 field searched.
        field: String,
        /// Index of the first element that is not such an integer.
        index: usize,
    },
    /// `k` is 0 or above [`crate::MAX_K`].
    #[error("top-k {0} is out of range; expected 1..=100000")]
    BadLimit(usize),
    /// A batch of queries asked for no thread, or for more than the bound.
    #[error("threads is {threads}; expected 1..={max}")]
    BadThreads {
        /// The threads asked for.
        threads: usize,
        /// The most a batch runs ([`crate::MAX_QUERY_THREADS`]).
        max: usize,
    },
    /// A size given by the caller, or a product of them (`param`, e.g. `refine × k`), is
    /// above its bound.
    #[error("{param} is {value}, above the limit of {limit}")]
    TooLarge {
        /// The parameter, or the product, that is too large.
        param: &'static str,
        /// Its value (wide, so a product cannot overflow).
        value: u128,
        /// Its bound.
        limit: usize,
    },
    /// A query by key (`Query::key`) of a key that is not live.
    #[error("key {0:?} not found")]
    KeyNotFound(String),
    /// A query by key whose document has null in the vector field searched.
    #[error("key {key:?} has no value in vector field `{field}`")]
    KeyHasNoVector {
        /// The key queried by.
        key: String,
        /// The vector field searched.
        field: String,
    },
    /// The projection (fields to return) names a field the schema does not have.
    #[error("unknown field `{0}` in projection")]
    UnknownField(String),
    /// Grouping by a field that is missing or is a vector field.
    #[error("cannot group by `{0}`: expected a scalar field")]
    BadGroupField(String),
    /// An IVF query must probe at least one list.
    #[error("nprobe 0 is out of range; expected 1..={max}", max = crate::MAX_NLIST)]
    BadNprobe,
    /// A target recall outside `(0, 1]`.
    #[error("target recall {0} is out of range; expected a share in (0, 1]")]
    BadTargetRecall(f32),
    /// A disk index's beam width (nodes expanded, and blocks read, per hop) outside
    /// 1..=[`MAX_BEAM_WIDTH`](crate::MAX_BEAM_WIDTH).
    #[error("beam_width {0} is out of range; expected 1..={max}", max = crate::MAX_BEAM_WIDTH)]
    BadBeamWidth(usize),
    /// A query giving both ways of choosing the lists to probe.
    #[error("nprobe and a target recall both choose the lists to probe; give one")]
    NprobeAndTargetRecall,
    /// A query gives a search knob the field's index does not take (`ef` of an IVF or
    /// flat index, `nprobe` of a graph, `refine` without quantization); see
    /// [`IndexParams::search_knobs`](crate::IndexParams::search_knobs).
    #[error("{knob} does not apply to field `{field}`: its index is {index}; {knob} {help}")]
    KnobDoesNotApply {
        /// The knob given, by name ([`Knob::name`](crate::Knob::name)).
        knob: &'static str,
        /// What the knob does, and for which indexes ([`Knob::help`](crate::Knob::help)).
        help: &'static str,
        /// The vector field searched.
        field: String,
        /// Its index, as [`IndexParams::knob_refusal`](crate::IndexParams::knob_refusal) names it.
        index: String,
    },
    /// An HNSW search list (`ef`) shorter than `k` could not return `k` hits.
    #[error("ef {ef} is smaller than k {k}; ef must be at least k")]
    EfBelowK {
        /// The `ef` asked for.
        ef: usize,
        /// The `k` asked for.
        k: usize,
    },
    /// A Vamana query list shorter than `k` could not return `k` hits.
    #[error("query list {list} is smaller than k {k}; a Vamana query list (the query's ef) must be at least k")]
    QueryListBelowK {
        /// The query list length asked for (the query's `ef`).
        list: usize,
        /// The `k` asked for.
        k: usize,
    },
    /// A text query whose analysed text holds too many distinct terms.
    #[error("the text query holds {found} distinct terms; at most {limit} are searched")]
    TooManyTerms {
        /// Distinct terms after analysis.
        found: usize,
        /// The bound.
        limit: usize,
    },
    /// A text query the field's analyzer cannot take.
    #[error("text query: {0}")]
    BadText(String),
    /// A hybrid query without branches, or a fusion that does not fit its branches.
    #[error("hybrid query: {0}")]
    BadHybrid(String),
    /// A branch of a hybrid query that cannot run: the branch's kind (`dense`, `text`,
    /// `sparse`, `keys`) and its own error, kept whole so that whether it is a
    /// [parameter](QueryError::is_parameter) mistake survives the wrapping.
    #[error("hybrid query: {branch} branch: {error}")]
    InBranch {
        /// The branch's kind, as [`BranchKind::name`](crate::BranchKind::name) says it.
        branch: &'static str,
        /// Why it cannot run.
        error: Box<QueryError>,
    },
    /// An ordered scan ([`ScanRequest::order_by`](crate::ScanRequest::order_by)) by a
    /// field that is missing or not scalar.
    #[error("cannot order by `{0}`: expected a scalar field or _key")]
    BadOrderField(String),
    /// A cursor ([`ScanRequest::after`](crate::ScanRequest::after)) that is no position
    /// of the scan's order.
    #[error("cursor {cursor:?} is not a position of this scan: expected {expected}")]
    BadCursor {
        /// The cursor given.
        cursor: String,
        /// What the scan's order takes.
        expected: String,
    },
    /// Facets or statistics of a field that is missing or cannot be aggregated.
    #[error("cannot aggregate `{field}`: expected {expected}")]
    BadAggregateField {
        /// The field named.
        field: String,
        /// The kinds of field the aggregate takes.
        expected: &'static str,
    },
    /// A scan of one part ([`Scan::only_part`](crate::Scan::only_part)) past the last.
    #[error("scan part {part} is out of range; the snapshot has {parts} parts")]
    NoSuchPart {
        /// The part asked for.
        part: usize,
        /// Parts the snapshot has.
        parts: usize,
    },
}

impl QueryError {
    /// Whether the caller's own search knobs are out of range or contradict each other
    /// (`k`, `ef` against `k`, `nprobe`, a target recall, a beam width, a hybrid query's
    /// shape and fusion, and such a mistake in one of its branches): a usage mistake that no data or
    /// schema would change. Bounds only the collection knows (a field's default refine
    /// times `k`, [`QueryError::TooLarge`]) and what the data holds are not.
    pub fn is_parameter(&self) -> bool {
        if let QueryError::InBranch { error, .. } = self {
            return error.is_parameter();
        }
        matches!(
            self,
            QueryError::BadLimit(_)
                | QueryError::BadHybrid(_)
                | QueryError::BadNprobe
                | QueryError::BadTargetRecall(_)
                | QueryError::BadBeamWidth(_)
                | QueryError::NprobeAndTargetRecall
                | QueryError::EfBelowK { .. }
                | QueryError::QueryListBelowK { .. }
                | QueryError::BadCursor { .. }
        )
    }
}
