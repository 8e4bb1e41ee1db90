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

/// Reading or writing collection files failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StorageError {
    /// An operating-system I/O error.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory it was about.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A file whose bytes fail a check (checksum, magic, bounds); `xvec verify` and
    /// `xvec repair` look deeper.
    #[error("{}: corrupted at offset {offset}: {what}", path.display())]
    Corrupted {
        /// The damaged file.
        path: PathBuf,
        /// Byte offset in it where the check failed.
        offset: u64,
        /// Which check failed.
        what: String,
    },
    /// A file in a format version this build does not read: newer than it knows, or older
    /// than [`FileKind::oldest_readable`](crate::FileKind::oldest_readable).
    #[error("{}: {kind} format version {found} is not supported (this build reads version {supported})", path.display())]
    UnsupportedVersion {
        /// The file.
        path: PathBuf,
        /// Which format (manifest, segment, WAL, ...).
        kind: &'static str,
        /// The version the file states.
        found: u32,
        /// The version this build reads.
        supported: u32,
    },
    /// Damage in the middle of the WAL: good records follow it, so it is not a torn tail
    /// and open refuses rather than silently dropping them.
    #[error("{0}")]
    WalDamaged(Box<WalDamage>),
    /// A write or fsync failed earlier with an unknown outcome on disk, so this handle
    /// refuses all further writes until the collection is reopened (and recovered).
    #[error(
        "{}: writes refused after an I/O error whose outcome on disk is unknown ({what}); reopen the collection to recover",
        path.display()
    )]
    FailStop {
        /// The collection directory or the file the failed write was to.
        path: PathBuf,
        /// The I/O error that stopped writes.
        what: String,
    },
    /// A record whose frame would pass the WAL's frame bound, which no reader would take
    /// back: refused before anything of its batch is written. Validation keeps documents
    /// far smaller ([`crate::MAX_DOC_BYTES`]), so this is the writer's last line.
    #[error(
        "{}: a record of {len} bytes for key {key:?} exceeds the WAL's {max}-byte frame bound; nothing of its batch was written",
        path.display()
    )]
    FrameTooLarge {
        /// The WAL file.
        path: PathBuf,
        /// The record's key (at most 64 bytes and `…`).
        key: String,
        /// The record's encoded length.
        len: usize,
        /// The bound.
        max: u32,
    },
    /// A collection file's name holds something else: a FIFO (whose open would block
    /// forever), a socket, a device, a directory, or a symbolic link (entries inside a
    /// collection are never followed out of it).
    #[error("{} is a {what}, not a regular file; move it out of the collection directory", path.display())]
    NotRegular {
        /// The path.
        path: PathBuf,
        /// What is there instead: `FIFO`, `socket`, `directory`, `symbolic link`, ...
        what: &'static str,
    },
    /// `lost+found` (or a folder in it) is not a directory of the collection's own: a
    /// symbolic link, which would carry what recovery and repair keep out of the
    /// collection (and, dangling, fail every create with `File exists`), or a file.
    #[error(
        "{} is a {what}, not a directory; recovery and repair keep files only in a lost+found directory inside the collection: move it away",
        path.display()
    )]
    BadLostFound {
        /// The path.
        path: PathBuf,
        /// What is there instead: `symbolic link`, `regular file`, `FIFO`, ...
        what: &'static str,
    },
    /// `repair` met files it cannot read for a reason that says nothing about their bytes
    /// (permissions, a failing device, the open-file limit, something other than a
    /// regular file in a file's place) and changed nothing: it gives up data only from a
    /// file that is damaged or provably gone.
    #[error(
        "{}: repair refused, nothing was changed: {}; fix the cause (file permissions, a failing device, the open-file limit `ulimit -n`, a non-file moved away) and run repair again",
        path.display(),
        files.join("; ")
    )]
    Unreadable {
        /// The collection directory.
        path: PathBuf,
        /// Each unreadable file and its error, as `NAME cannot be read: error`.
        files: Vec<String>,
    },
    /// A restore copied a backup that does not verify; nothing was published, the
    /// directory restored into is as it was.
    #[error(
        "{}: the backup does not verify ({problems} problem{}, the first: {first}); nothing was restored",
        path.display(),
        if *problems == 1 { "" } else { "s" }
    )]
    BackupDamaged {
        /// The backup directory.
        path: PathBuf,
        /// Problems verify found (corruption and orphans).
        problems: usize,
        /// The first of them, as verify words it.
        first: String,
    },
    /// The directory has no `CURRENT` file, so holds no collection.
    #[error("{}: not an xvec collection (no CURRENT file)", path.display())]
    NotACollection {
        /// The directory.
        path: PathBuf,
    },
    /// The path names no directory at all (a collection is a directory).
    #[error("{}: no such directory, so no collection", path.display())]
    NoDirectory {
        /// The path given.
        path: PathBuf,
    },
    /// The path names a file (say, a data file given where the collection goes).
    #[error("{}: a file, not a collection directory", path.display())]
    NotADirectory {
        /// The path given.
        path: PathBuf,
    },
    /// `create` in a directory that holds a collection already.
    #[error("{}: a collection already exists here", path.display())]
    AlreadyExists {
        /// The directory.
        path: PathBuf,
    },
    /// `create` found files that no unfinished create leaves behind.
    #[error("{}: not empty and not a collection; remove these or pick another directory: {}", path.display(), files.join(", "))]
    NotEmpty {
        /// The directory.
        path: PathBuf,
        /// Names of the foreign entries found in it.
        files: Vec<String>,
    },
    /// Another handle holds the writer lock; `waited` is how long the open waited for it
    /// ([`crate::OpenOptions::lock_timeout`]).
    #[error("{}: collection is locked by another writer{}", path.display(), waited_for(*waited))]
    Locked {
        /// The collection directory.
        path: PathBuf,
        /// How long the open waited; zero when it did not wait.
        waited: Duration,
    },
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
    /// The WAL file.
    pub path: PathBuf,
    /// Byte offset of the first damaged frame.
    pub offset: u64,
    /// Which check the frame failed.
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
}

impl QueryError {
    /// Whether the caller's own search knobs are out of range or contradict each other
    /// (`k`, `ef` against `k`, `nprobe`, a target recall): a usage mistake that no data or
    /// schema would change. Bounds only the collection knows (a field's default refine
    /// times `k`, [`QueryError::TooLarge`]) and what the data holds are not.
    pub fn is_parameter(&self) -> bool {
        matches!(
            self,
            QueryError::BadLimit(_)
                | QueryError::BadNprobe
                | QueryError::BadTargetRecall(_)
                | QueryError::NprobeAndTargetRecall
                | QueryError::EfBelowK { .. }
                | QueryError::QueryListBelowK { .. }
        )
    }
}

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

/// Chars of a filter shown on each side of an error's span (and of the span) by
/// [`FilterError::caret`].
pub(crate) const CARET_CONTEXT: usize = 60;

/// A filter that does not parse or does not fit the schema.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("filter: line {line}, column {column}: {message}")]
#[non_exhaustive]
pub struct FilterError {
    /// What kind of mistake it is.
    pub kind: FilterErrorKind,
    /// 1-based.
    pub line: u32,
    /// 1-based, in chars.
    pub column: u32,
    /// Chars to underline, at least 1.
    pub len: u32,
    /// What is wrong, without the position.
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
    /// (clipped to the line's end). A long line is shown only around the error, at most
    /// 60 chars either side of the span (and of the span itself), with `…`
    /// where it is cut: the message stays short however long the filter.
    pub fn caret(&self, text: &str) -> String {
        let line = text.split('\n').nth(self.line.saturating_sub(1) as usize).unwrap_or("");
        let line = line.strip_suffix('\r').unwrap_or(line);
        let chars: Vec<char> = line.chars().collect();
        let width = chars.len();
        let before = (self.column.max(1) as usize - 1).min(width);
        let carets = (self.len.max(1) as usize).min((width - before).max(1)).min(CARET_CONTEXT);
        let start = before.saturating_sub(CARET_CONTEXT);
        let end = (before + carets + CARET_CONTEXT).min(width);
        let cut_start = if start > 0 { "…" } else { "" };
        let cut_end = if end < width { "…" } else { "" };
        let shown: String = chars[start..end].iter().collect();
        // Tabs are kept so the carets line up however the terminal renders them.
        let pad: String = cut_start
            .chars()
            .map(|_| ' ')
            .chain(chars[start..before].iter().map(|&c| if c == '\t' { '\t' } else { ' ' }))
            .collect();
        format!("{cut_start}{shown}{cut_end}\n{pad}{}", "^".repeat(carets))
    }
}

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
