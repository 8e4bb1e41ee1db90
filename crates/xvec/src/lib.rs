//! xvec: an embedded vector database.
//!
//! A collection is a directory: a write-ahead log, immutable columnar segments that are
//! memory-mapped and searched in place, and a manifest naming the live files. One
//! writer and any number of readers, also across processes.
//!
//! ```
//! use xvec::{Collection, Doc, Field, Metric, OpenOptions, Query, ScalarType, Schema, VectorType};
//!
//! let dir = tempfile::tempdir()?;
//! let schema = Schema::builder("words")
//!     .field(Field::scalar("pos", ScalarType::String))
//!     .field(Field::vector("emb", VectorType::Fp32, 3, Metric::Cosine))
//!     .build()?;
//! let coll = Collection::create(dir.path(), schema, Default::default())?;
//! coll.insert(vec![
//!     Doc::new("dog").set("pos", "n").set("emb", vec![1.0f32, 0.1, 0.0]),
//!     Doc::new("run").set("pos", "v").set("emb", vec![0.0f32, 1.0, 0.2]),
//! ])?;
//! coll.flush()?;
//! coll.close()?;
//!
//! let reader = Collection::open(dir.path(), &OpenOptions::read_only())?;
//! let hits = reader.query(&Query::vector(vec![0.9, 0.2, 0.0]).k(1).filter("pos = 'n'"))?;
//! assert_eq!(hits[0].key, "dog");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]
#![warn(unreachable_pub)]

extern crate self as xvec;

mod backup;
mod collection;
mod columns;
mod error;
mod filter;
mod index;
mod schema;
mod storage;
mod value;
mod vocabulary;

pub mod format;
pub mod inspect;
pub mod kernels;
pub mod sparse;
pub mod text;
pub mod verify;

/// The integration tests' helpers (`tests/util.rs`), shared with the unit tests that need
/// the engine's internals.
#[cfg(test)]
#[path = "../../../tests/util.rs"]
mod testutil;

pub use backup::{BackupOptions, BackupReport, FileCount};
pub use collection::{
    Branch, BranchHit, BranchKind, BranchTrace, Collection, DEFAULT_DISK_CACHE, DEFAULT_RRF_K, DiskUsage, Explain,
    Facets, FieldStats, Fusion, Group, GroupBy, Hit, HybridExplain, HybridHit, HybridQuery, IndexBuild, ItemResult,
    Location, MAX_BRANCHES, MAX_EF, MAX_GROUP_HITS, MAX_K, MAX_QUERY_TERMS, MAX_QUERY_THREADS, MAX_REFINE_CANDIDATES,
    MemoryUsage, OpenOptions, OptimizeOptions, OptimizeProgress, OptimizeReport, PostingsTrace, Query, Ranked, Ranking,
    Recovered, Scan, ScanPage, ScanPart, ScanRequest, SearchKind, SegmentStats, Snapshot, SourceTrace, Stage, Stats,
    Target, TextField, TextFieldStats, TextStats, Version, fuse,
};
pub use columns::{Column, Columns};
pub use error::{
    DocError, Error, FieldLookupError, FilterError, FilterErrorKind, QueryError, ReadOnly, Result, SchemaError,
    StorageError, WalDamage,
};
pub use filter::{Access, LeafTrace, Param, Params};
pub use half::f16;
pub use index::MAX_BUILD_THREADS;
pub use index::segment_index::{SearchPath, SearchRoute};
pub use schema::{
    DEFAULT_DISK_BITS, DEFAULT_RABITQ_BITS, DiskParams, Field, FieldChange, FieldKind, FieldType, FlatParams,
    HnswParams, IndexParams, IndexType, IvfParams, KEY_FIELD, Knob, MAX_ARRAY_LEN, MAX_BEAM_WIDTH, MAX_DIM, MAX_FIELDS,
    MAX_NLIST, MAX_QG_DEGREE, MAX_RABITQ_BITS, MAX_VECTOR_FIELDS, Metric, QgBase, QgParams, QuantSpec, Quantize,
    ScalarIndexKind, ScalarType, Schema, SchemaBuilder, SearchKnob, SparseType, TextIndex, UnknownName, VamanaParams,
    VectorSpec, VectorType,
};
pub use sparse::{MAX_SPARSE_LEN, SparseVector};
pub use storage::FileKind;
pub use storage::manifest::{CollectionOptions, Operation};
pub use storage::versions::VacuumReport;
pub use storage::wal::SyncPolicy;
pub use value::{Doc, MAX_DOC_BYTES, MAX_KEY_BYTES, MAX_SQUARED_NORM, MAX_STRING_BYTES, Value, ValueError, json_f32};

/// The engine's version, as its package states it.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
