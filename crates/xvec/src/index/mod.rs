//! Indexes of one segment: vector indexes over a vector column (each takes a prepared
//! query and a candidate restriction and feeds a bounded top-k; none holds a copy of the
//! vectors), and scalar indexes that answer filters without scanning a column.

pub(crate) mod bitpack;
pub(crate) mod disk;
pub(crate) mod field_indexes;
pub(crate) mod flat;
pub(crate) mod fulltext;
pub(crate) mod graph;
pub(crate) mod graph_index;
pub(crate) mod hnsw;
pub(crate) mod ivf;
pub(crate) mod qg;
pub(crate) mod quant;
pub(crate) mod reach;
pub(crate) mod rng;
pub(crate) mod scalar;
pub(crate) mod scorer;
pub(crate) mod segment_index;
pub(crate) mod sparse_index;
pub(crate) mod topk;
pub(crate) mod vamana;
pub(crate) mod visited;
pub(crate) mod wand;

/// Most threads an index build uses, whatever it is asked for.
pub const MAX_BUILD_THREADS: usize = 1024;

/// A pool of `threads` build threads, clamped to 1..=[`MAX_BUILD_THREADS`]; one thread
/// when the system refuses that many.
pub(crate) fn build_pool(threads: usize) -> Result<rayon::ThreadPool, rayon::ThreadPoolBuildError> {
    let pool = |n| rayon::ThreadPoolBuilder::new().num_threads(n).build();
    pool(threads.clamp(1, MAX_BUILD_THREADS)).or_else(|_| pool(1))
}

pub(crate) use flat::PreparedQuery;
pub(crate) use topk::{Candidate, Sink, TopK};
