//! Indexes of one segment: vector indexes over a vector column (each takes a prepared
//! query and a candidate restriction and feeds a bounded top-k; none holds a copy of the
//! vectors), and scalar indexes that answer filters without scanning a column.

pub mod bitpack;
pub mod flat;
pub mod fulltext;
pub mod graph;
pub mod graph_index;
pub mod hnsw;
pub mod ivf;
pub mod quant;
pub mod reach;
pub mod rng;
pub mod scalar;
pub mod scorer;
pub mod segment_index;
pub mod sparse_index;
pub mod topk;
pub mod vamana;
pub mod visited;
pub mod wand;

/// Most threads an index build uses, whatever it is asked for.
pub const MAX_BUILD_THREADS: usize = 1024;

/// A pool of `threads` build threads, clamped to 1..=[`MAX_BUILD_THREADS`]; one thread
/// when the system refuses that many.
pub(crate) fn build_pool(threads: usize) -> Result<rayon::ThreadPool, rayon::ThreadPoolBuildError> {
    let pool = |n| rayon::ThreadPoolBuilder::new().num_threads(n).build();
    pool(threads.clamp(1, MAX_BUILD_THREADS)).or_else(|_| pool(1))
}

pub use flat::PreparedQuery;
pub use topk::{Candidate, Sink, TopK};
