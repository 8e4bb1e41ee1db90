//! Vector indexes over one segment's vector column. Each takes a prepared query and a
//! candidate restriction and feeds a bounded top-k; none holds a copy of the vectors.

pub mod flat;
pub mod hnsw;
pub mod quant;
pub mod reach;
pub mod rng;
pub mod scorer;
pub mod segment_index;
pub mod topk;
pub mod vamana;
pub mod visited;

pub use flat::PreparedQuery;
pub use topk::{Candidate, Sink, TopK};
