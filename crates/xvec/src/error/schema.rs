//! Schemas that cannot be used: a field, index or limit the engine refuses.

/// A schema that cannot be used.
#[derive(Debug, thiserror::Error, PartialEq)]
#[non_exhaustive]
pub enum SchemaError {
    /// The collection name is empty, over 255 bytes, or holds `/`, `\` or NUL (the name given).
    #[error("bad collection name {0:?}: expected 1..=255 bytes without '/', '\\' or NUL")]
    BadCollectionName(String),
    /// A field name that is not an identifier of at most 128 bytes, or is the reserved `_key`.
    #[error("bad field name {0:?}: expected [A-Za-z_][A-Za-z0-9_]* of at most 128 bytes, not `_key`")]
    BadFieldName(String),
    /// Two fields share this name.
    #[error("field `{0}` is defined twice")]
    DuplicateField(String),
    /// A vector field's dimension is 0 or above [`crate::MAX_DIM`].
    #[error("field `{field}`: dimension {dim} is out of range; expected 1..=20000")]
    BadDimension {
        /// The vector field.
        field: String,
        /// The dimension given.
        dim: u32,
    },
    /// More vector fields (the count) than [`crate::MAX_VECTOR_FIELDS`].
    #[error("{0} vector fields; a collection may have at most 5")]
    TooManyVectorFields(usize),
    /// More fields (the count) than [`crate::MAX_FIELDS`].
    #[error("{0} fields; a collection may have at most 1024")]
    TooManyFields(usize),
    /// Schema JSON names a field type this build does not know.
    #[error(
        "field `{field}`: unknown type {ty:?}; expected string, bool, int32, int64, uint32, uint64, float, double, array_<any of those> (array_string, ...), vector_fp32, vector_fp16 or vector_int8"
    )]
    UnknownType {
        /// The field whose type is unknown.
        field: String,
        /// The type name as written in the schema JSON.
        ty: String,
    },
    /// Schema JSON leaves out a member every vector field needs.
    #[error("field `{field}`: vector fields need `{what}`")]
    Missing {
        /// The vector field.
        field: String,
        /// The missing member: `dim` or `metric`.
        what: &'static str,
    },
    /// Schema JSON gives `dim` or `metric` to this scalar field.
    #[error("field `{0}`: dim and metric apply to vector fields only, not to a scalar field")]
    VectorOptionOnScalar(String),
    /// A schema change names a field the schema does not have.
    #[error("no field `{0}` in the schema")]
    NoSuchField(String),
    /// A scalar index added to a field that already has one of its kind.
    #[error("field `{field}` already has a {kind} index")]
    IndexExists {
        /// The field.
        field: String,
        /// The index kind's name.
        kind: &'static str,
    },
    /// A scalar index dropped from a field that has none of its kind.
    #[error("field `{field}` has no {kind} index")]
    NoSuchIndex {
        /// The field.
        field: String,
        /// The index kind's name.
        kind: &'static str,
    },
    /// Index parameters out of their bounds or not fitting the field's type or metric.
    #[error("field `{field}`: index: {what}")]
    BadIndex {
        /// The field.
        field: String,
        /// Which parameter is wrong, and why.
        what: String,
    },
    /// Stored field ids must be unique and below `next_field_id`, so a dropped field's
    /// id is never reused for another.
    #[error("field `{field}`: id {id} is repeated or not below next_field_id {next}")]
    BadFieldId {
        /// The field with the bad id.
        field: String,
        /// Its id.
        id: u16,
        /// The schema's `next_field_id`.
        next: u16,
    },
    /// A default that is not a value of its field's type, or on a vector field.
    #[error("field `{field}`: {what}")]
    BadDefault {
        /// The field.
        field: String,
        /// What is wrong with the default.
        what: String,
    },
    /// A field change the schema cannot take (the field, and why).
    #[error("field `{field}`: {what}")]
    BadChange {
        /// The field.
        field: String,
        /// Why the change is refused, and what would be accepted.
        what: String,
    },
    /// Schema JSON that does not parse or is inconsistent (the parser's message).
    #[error("schema JSON: {0}")]
    Json(String),
    /// A field's short form ([`Field::from_spec`](crate::Field::from_spec)) that does not parse.
    #[error("field spec {spec:?}: {what}")]
    BadFieldSpec {
        /// The spec as given.
        spec: String,
        /// What is wrong, and what was expected.
        what: String,
    },
}
