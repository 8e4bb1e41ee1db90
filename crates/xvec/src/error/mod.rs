//! Error kinds, one enum per operation family, all converging into [`Error`].
//!
//! Callers match kinds, never message text. Each layer adds only the context it owns:
//! storage names the file and offset, validation the key and field.

mod doc;
mod filter;
mod query;
mod schema;
mod storage;

pub use doc::DocError;
/// For the filter tests, which check that an error's echo stays within it.
#[cfg(test)]
pub(crate) use filter::CARET_CONTEXT;
pub use filter::{FilterError, FilterErrorKind};
pub use query::{FieldKind, FieldLookupError, QueryError};
pub use schema::SchemaError;
pub use storage::{StorageError, WalDamage};

/// The collection was opened read-only.
#[derive(Debug, thiserror::Error, PartialEq)]
#[error("the collection is open read-only; open it for writing")]
pub struct ReadOnly;

/// Any engine error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The schema is invalid.
    #[error(transparent)]
    Schema(#[from] SchemaError),
    /// A document does not fit the schema, or its key is duplicate or missing.
    #[error(transparent)]
    Doc(#[from] DocError),
    /// A filter does not parse or does not fit the schema.
    #[error(transparent)]
    Filter(#[from] FilterError),
    /// A query's parameters are invalid.
    #[error(transparent)]
    Query(#[from] QueryError),
    /// Reading or writing the collection's files failed.
    #[error(transparent)]
    Storage(#[from] StorageError),
    /// A write through a read-only handle.
    #[error(transparent)]
    ReadOnly(#[from] ReadOnly),
    /// The caller's cancel callback stopped a long operation (`optimize`) before it
    /// published anything.
    #[error("cancelled; the collection is unchanged")]
    Cancelled,
    /// A schema change that needs a quiet moment kept meeting new writes (what happened);
    /// the collection is unchanged.
    #[error("busy: {0}")]
    Busy(String),
}

impl From<FieldLookupError> for Error {
    /// A field that cannot be resolved is a query error: every lookup is for a search.
    fn from(e: FieldLookupError) -> Error {
        Error::Query(QueryError::Field(e))
    }
}

/// The engine's result, [`Error`] unless said otherwise.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A key as errors quote it: the first 64 bytes (on a character boundary) and `…` when
/// longer, so a hostile key cannot flood a message.
pub(crate) fn truncate_key(key: &str) -> String {
    if key.len() <= 64 {
        return key.to_string();
    }
    let mut end = 64;
    while !key.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &key[..end])
}
