//! Error kinds, one enum per operation family, all converging into [`Error`].
//!
//! Callers match kinds, never message text. Each layer adds only the context it owns:
//! storage names the file and offset, validation the key and field.

use std::path::PathBuf;
use std::time::Duration;

/// A schema that cannot be used.
#[derive(Debug, thiserror::Error, PartialEq)]
#[non_exhaustive]
pub enum SchemaError {
    #[error("bad collection name {0:?}: expected 1..=255 bytes without '/', '\\' or NUL")]
    BadCollectionName(String),
    #[error("bad field name {0:?}: expected [A-Za-z_][A-Za-z0-9_]* of at most 128 bytes, not `_key`")]
    BadFieldName(String),
    #[error("field `{0}` is defined twice")]
    DuplicateField(String),
    #[error("field `{field}`: dimension {dim} is out of range; expected 1..=20000")]
    BadDimension { field: String, dim: u32 },
    #[error("{0} vector fields; a collection may have at most 5")]
    TooManyVectorFields(usize),
    #[error("{0} fields; a collection may have at most 1024")]
    TooManyFields(usize),
    #[error(
        "field `{field}`: unknown type {ty:?}; expected string, bool, int32, int64, uint32, uint64, float, double, vector_fp32, vector_fp16 or vector_int8"
    )]
    UnknownType { field: String, ty: String },
    #[error("field `{field}`: vector fields need `{what}`")]
    Missing { field: String, what: &'static str },
    #[error("field `{0}`: dim, metric and index apply to vector fields only, not to a scalar field")]
    VectorOptionOnScalar(String),
    #[error("field `{field}`: index: {what}")]
    BadIndex { field: String, what: String },
    #[error("field `{field}`: id {id} is repeated or not below next_field_id {next}")]
    BadFieldId { field: String, id: u16, next: u16 },
    #[error("schema JSON: {0}")]
    Json(String),
}

/// A document that does not match the schema.
#[derive(Debug, thiserror::Error, PartialEq, Clone)]
#[non_exhaustive]
pub enum DocError {
    #[error("empty primary key: expected 1..=65536 bytes of UTF-8")]
    EmptyKey,
    #[error("primary key {key:?} is {len} bytes; expected at most 65536")]
    KeyTooLong { key: String, len: usize },
    #[error("key {key:?}: unknown field `{field}`")]
    UnknownField { key: String, field: String },
    #[error("key {key:?}: field `{field}` expects {expected}, found {found}")]
    BadValue { key: String, field: String, expected: String, found: String },
    #[error("key {key:?}: field `{field}` expects dimension {expected}, found {found}")]
    BadDimension { key: String, field: String, expected: u32, found: usize },
    #[error("key {key:?}: field `{field}` has a value that is not finite (NaN or infinity) at index {index}")]
    NotFinite { key: String, field: String, index: usize },
    #[error("key {key:?}: field `{field}` is not nullable but has no value")]
    NullNotAllowed { key: String, field: String },
    #[error("key {0:?} already exists")]
    DuplicateKey(String),
    #[error("key {0:?} not found")]
    NotFound(String),
    #[error("missing primary key member `{0}`")]
    MissingKey(String),
    #[error("primary key member `{0}` must be a string or a number")]
    BadKeyJson(String),
}

/// Reading or writing collection files failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StorageError {
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{}: corrupted at offset {offset}: {what}", path.display())]
    Corrupted { path: PathBuf, offset: u64, what: String },
    #[error("{}: {kind} format version {found} is not supported (this build reads version {supported})", path.display())]
    UnsupportedVersion { path: PathBuf, kind: &'static str, found: u32, supported: u32 },
    #[error("{0}")]
    WalDamaged(Box<WalDamage>),
    #[error(
        "{}: writes refused after an I/O error whose outcome on disk is unknown ({what}); reopen the collection to recover",
        path.display()
    )]
    FailStop { path: PathBuf, what: String },
    #[error("{}: not an xvec collection (no CURRENT file)", path.display())]
    NotACollection { path: PathBuf },
    /// The path names no directory at all (a collection is a directory).
    #[error("{}: no such directory, so no collection", path.display())]
    NoDirectory { path: PathBuf },
    /// The path names a file (say, a data file given where the collection goes).
    #[error("{}: a file, not a collection directory", path.display())]
    NotADirectory { path: PathBuf },
    #[error("{}: a collection already exists here", path.display())]
    AlreadyExists { path: PathBuf },
    /// `create` found files that no unfinished create leaves behind.
    #[error("{}: not empty and not a collection; remove these or pick another directory: {}", path.display(), files.join(", "))]
    NotEmpty { path: PathBuf, files: Vec<String> },
    /// Another handle holds the writer lock; `waited` is how long the open waited for it
    /// ([`crate::OpenOptions::lock_timeout`]).
    #[error("{}: collection is locked by another writer{}", path.display(), waited_for(*waited))]
    Locked { path: PathBuf, waited: Duration },
}

/// ` (waited 2.5 s for it)` for a lock wait that timed out, nothing when none was asked for.
fn waited_for(waited: Duration) -> String {
    match waited.as_millis() {
        0 => String::new(),
        ms @ 1..1000 => format!(" (waited {ms} ms for it)"),
        _ => format!(" (waited {:.1} s for it)", waited.as_secs_f64()),
    }
}

/// Damage in the middle of a WAL (good frames after it), as replay reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct WalDamage {
    pub path: PathBuf,
    pub offset: u64,
    pub what: String,
    /// Record frames the damage took.
    pub lost: u64,
    /// Key of the last good record before the damage.
    pub before: Option<String>,
    /// Key of the first good record after it.
    pub after: Option<String>,
    /// Further damaged stretches after this one.
    pub more: usize,
}

impl std::fmt::Display for WalDamage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: damaged at offset {}: {}; {} record frame(s) lost",
            self.path.display(),
            self.offset,
            self.what,
            self.lost
        )?;
        if let Some(k) = &self.before {
            write!(f, ", after key {k:?}")?;
        }
        if let Some(k) = &self.after {
            write!(f, ", before key {k:?}")?;
        }
        if self.more > 0 {
            write!(f, " ({} more damaged stretch(es) after it)", self.more)?;
        }
        write!(f, "; `xvec repair` salvages every other record")
    }
}

impl StorageError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> StorageError {
        StorageError::Io { path: path.into(), source }
    }

    pub(crate) fn corrupted(path: impl Into<PathBuf>, offset: u64, what: impl Into<String>) -> StorageError {
        StorageError::Corrupted { path: path.into(), offset, what: what.into() }
    }
}

/// A query that cannot run.
#[derive(Debug, thiserror::Error, PartialEq)]
#[non_exhaustive]
pub enum QueryError {
    #[error("no vector field named `{0}`")]
    NoSuchVectorField(String),
    #[error("the collection has {0} vector fields; name one")]
    AmbiguousField(usize),
    #[error("the collection has no vector field")]
    NoVectorField,
    #[error("field `{field}` expects a query vector of dimension {expected}, found {found}")]
    BadDimension { field: String, expected: u32, found: usize },
    #[error("query vector has a value that is not finite at index {0}")]
    NotFinite(usize),
    #[error("field `{field}` holds vector_int8; the query vector must be integers in -128..=127 (index {index})")]
    NotInt8 { field: String, index: usize },
    #[error("top-k {0} is out of range; expected 1..=100000")]
    BadLimit(usize),
    /// A size given by the caller, or a product of them (`param`, e.g. `refine × k`), is
    /// above its bound.
    #[error("{param} is {value}, above the limit of {limit}")]
    TooLarge { param: &'static str, value: u128, limit: usize },
    #[error("key {0:?} not found")]
    KeyNotFound(String),
    #[error("key {key:?} has no value in vector field `{field}`")]
    KeyHasNoVector { key: String, field: String },
    #[error("unknown field `{0}` in projection")]
    UnknownField(String),
    #[error("cannot group by `{0}`: expected a scalar field")]
    BadGroupField(String),
    #[error("ef {ef} is smaller than k {k}; ef must be at least k")]
    EfBelowK { ef: usize, k: usize },
    #[error("query list {list} is smaller than k {k}; a Vamana query list (the query's ef) must be at least k")]
    QueryListBelowK { list: usize, k: usize },
}

/// The collection was opened read-only.
#[derive(Debug, thiserror::Error, PartialEq)]
#[error("the collection is open read-only; open it for writing")]
pub struct ReadOnly;

/// Any engine error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    #[error(transparent)]
    Schema(#[from] SchemaError),
    #[error(transparent)]
    Doc(#[from] DocError),
    #[error(transparent)]
    Filter(#[from] FilterError),
    #[error(transparent)]
    Query(#[from] QueryError),
    #[error(transparent)]
    Storage(#[from] StorageError),
    #[error(transparent)]
    ReadOnly(#[from] ReadOnly),
    #[error("cancelled; the collection is unchanged")]
    Cancelled,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A filter that does not parse or does not fit the schema.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("filter: line {line}, column {column}: {message}")]
#[non_exhaustive]
pub struct FilterError {
    pub kind: FilterErrorKind,
    /// 1-based.
    pub line: u32,
    /// 1-based, in chars.
    pub column: u32,
    /// Chars to underline, at least 1.
    pub len: u32,
    pub message: String,
}

/// What kind of mistake a [`FilterError`] is, for callers that add advice.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FilterErrorKind {
    /// The text does not parse or does not fit the schema.
    Invalid,
    /// `$name` has no value in the parameters given (the name, without `$`).
    UnboundParam(String),
}

impl FilterError {
    /// Two lines: the offending source line, then a caret line `    ^^^` under the span
    /// (clipped to the line's end).
    pub fn caret(&self, text: &str) -> String {
        let line = text.split('\n').nth(self.line.saturating_sub(1) as usize).unwrap_or("");
        let line = line.strip_suffix('\r').unwrap_or(line);
        let width = line.chars().count();
        let before = (self.column.max(1) as usize - 1).min(width);
        // Tabs are kept so the carets line up however the terminal renders them.
        let pad: String = line.chars().take(before).map(|c| if c == '\t' { '\t' } else { ' ' }).collect();
        let carets = (self.len.max(1) as usize).min((width - before).max(1));
        format!("{line}\n{pad}{}", "^".repeat(carets))
    }
}
