//! Documents that do not fit the schema: their key, a value, a size or bound.

use super::truncate_key;

/// A document that does not match the schema.
#[derive(Debug, thiserror::Error, PartialEq, Clone)]
#[non_exhaustive]
pub enum DocError {
    /// The primary key is the empty string.
    #[error("empty primary key: expected 1..=65536 bytes of UTF-8")]
    EmptyKey,
    /// The primary key is over 65536 bytes.
    #[error("primary key {key:?} is {len} bytes; expected at most 65536")]
    KeyTooLong {
        /// The key, cut to its first 64 bytes and `…`.
        key: String,
        /// Its full length in bytes.
        len: usize,
    },
    /// The document sets a field the schema does not have.
    #[error("key {key:?}: unknown field `{field}`")]
    UnknownField {
        /// The document's key (at most 64 bytes and `…`).
        key: String,
        /// The unknown field name.
        field: String,
    },
    /// A value of the wrong type for its field.
    #[error("key {key:?}: field `{field}` expects {expected}, found {found}")]
    BadValue {
        /// The document's key (at most 64 bytes and `…`).
        key: String,
        /// The field.
        field: String,
        /// The field's type, as a name.
        expected: String,
        /// What the value is, as a name.
        found: String,
    },
    /// An array value with more than [`crate::MAX_ARRAY_LEN`] elements.
    #[error("key {key:?}: field `{field}` holds an array of {len} elements; an array holds at most 4096")]
    ArrayTooLong {
        /// The document's key (at most 64 bytes and `…`).
        key: String,
        /// The array field.
        field: String,
        /// Elements the value has.
        len: usize,
    },
    /// A vector whose length is not the field's dimension.
    #[error("key {key:?}: field `{field}` expects dimension {expected}, found {found}")]
    BadDimension {
        /// The document's key (at most 64 bytes and `…`).
        key: String,
        /// The vector field.
        field: String,
        /// The field's dimension.
        expected: u32,
        /// The vector's length.
        found: usize,
    },
    /// A NaN or infinite vector element, which would poison distances.
    #[error("key {key:?}: field `{field}` has a value that is not finite (NaN or infinity) at index {index}")]
    NotFinite {
        /// The document's key (at most 64 bytes and `…`).
        key: String,
        /// The field.
        field: String,
        /// Position of the bad element in the vector.
        index: usize,
    },
    /// An `fp32` vector whose squared norm passes [`crate::MAX_SQUARED_NORM`]: its
    /// distances would not be finite.
    #[error(
        "key {key:?}: field `{field}` has a squared norm past {max:e} (a quarter of the largest f32) at index \
         {index}; scale the vector down",
        max = crate::MAX_SQUARED_NORM
    )]
    NormTooLarge {
        /// The document's key (at most 64 bytes and `…`).
        key: String,
        /// The vector field.
        field: String,
        /// The element at which the running sum of squares passes the bound.
        index: usize,
    },
    /// A string value over [`crate::MAX_STRING_BYTES`].
    #[error(
        "key {key:?}: field `{field}` holds a string of {len} bytes{}; a string holds at most {max} (16 MiB)",
        index.map(|i| format!(" at index {i}")).unwrap_or_default(),
        max = crate::MAX_STRING_BYTES
    )]
    StringTooLong {
        /// The document's key (at most 64 bytes and `…`).
        key: String,
        /// The field.
        field: String,
        /// The element of an array field that is too long; `None` for a string field.
        index: Option<usize>,
        /// The string's length in bytes.
        len: usize,
    },
    /// A document whose WAL record would pass [`crate::MAX_DOC_BYTES`].
    #[error("key {key:?}: the document is {bytes} bytes as logged; a document holds at most {max} (64 MiB)", max = crate::MAX_DOC_BYTES)]
    DocTooLarge {
        /// The document's key (at most 64 bytes and `…`).
        key: String,
        /// Its size as a WAL record.
        bytes: usize,
    },
    /// A non-nullable field left unset or set to null.
    #[error("key {key:?}: field `{field}` is not nullable but has no value")]
    NullNotAllowed {
        /// The document's key (at most 64 bytes and `…`).
        key: String,
        /// The field.
        field: String,
    },
    /// A column of rows given as columns (`Columns`) that does not fit: not a field,
    /// given twice, or not one value per row.
    #[error("column `{column}`: {what}")]
    BadColumn {
        /// The column's name.
        column: String,
        /// What is wrong, and what was expected.
        what: String,
    },
    /// `insert` of a key that is live already, or twice in one batch (the key, at most
    /// 64 bytes and `…`).
    #[error("key {0:?} already exists")]
    DuplicateKey(String),
    /// `update` or `delete` of a key that is not live (the key, at most 64 bytes and `…`).
    #[error("key {0:?} not found")]
    NotFound(String),
    /// A JSON document without the member named as holding the key (that name).
    #[error("missing primary key member `{0}`")]
    MissingKey(String),
    /// A JSON document whose key member is neither a string nor a number (the member's name).
    #[error("primary key member `{0}` must be a string or a number")]
    BadKeyJson(String),
}

impl DocError {
    /// A value of the wrong shape for `field` of the document `key`, as [`crate::Value::from_json`]
    /// and [`crate::Value::vector`] report it: for faces that convert values themselves.
    pub fn bad_value(key: &str, field: &str, e: crate::ValueError) -> DocError {
        DocError::BadValue { key: truncate_key(key), field: field.to_string(), expected: e.expected, found: e.found }
    }

    /// The document's key, when the error is about one document (cut to 64 bytes and `…`
    /// where the variant says so).
    pub fn key(&self) -> Option<&str> {
        match self {
            DocError::EmptyKey | DocError::MissingKey(_) | DocError::BadKeyJson(_) | DocError::BadColumn { .. } => None,
            DocError::KeyTooLong { key, .. }
            | DocError::UnknownField { key, .. }
            | DocError::BadValue { key, .. }
            | DocError::ArrayTooLong { key, .. }
            | DocError::BadDimension { key, .. }
            | DocError::NotFinite { key, .. }
            | DocError::NormTooLarge { key, .. }
            | DocError::StringTooLong { key, .. }
            | DocError::DocTooLarge { key, .. }
            | DocError::NullNotAllowed { key, .. }
            | DocError::DuplicateKey(key)
            | DocError::NotFound(key) => Some(key),
        }
    }

    /// The field the error is about, if one (for a missing or malformed key, the member
    /// that should hold it).
    pub fn field(&self) -> Option<&str> {
        match self {
            DocError::EmptyKey
            | DocError::KeyTooLong { .. }
            | DocError::DocTooLarge { .. }
            | DocError::DuplicateKey(_)
            | DocError::NotFound(_) => None,
            DocError::UnknownField { field, .. }
            | DocError::BadValue { field, .. }
            | DocError::ArrayTooLong { field, .. }
            | DocError::BadDimension { field, .. }
            | DocError::NotFinite { field, .. }
            | DocError::NormTooLarge { field, .. }
            | DocError::StringTooLong { field, .. }
            | DocError::NullNotAllowed { field, .. }
            | DocError::MissingKey(field)
            | DocError::BadKeyJson(field)
            | DocError::BadColumn { column: field, .. } => Some(field),
        }
    }
}
