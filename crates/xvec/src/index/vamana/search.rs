//! Query-time search of a Vamana graph: the best-first beam shared with HNSW's base layer
//! ([`search_layer`]), started at the medoid, with the same per-thread scratch and the same
//! filter semantics (non-matching nodes are traversed, never returned). The beam width is
//! the query list size; construction runs its own greedy search (see `build.rs`).

use roaring::RoaringBitmap;

use super::GraphView;
use crate::index::graph::{Beam, SearchScratch, search_layer};
use crate::index::scorer::{Scored, Scorer};

/// Searches a finished graph with a candidate list of `list` nodes: leaves up to `list`
/// nearest allowed nodes in `out`, best first. False when `budget` distance computations
/// did not suffice (see [`search_layer`]).
pub(crate) fn search<S: Scorer>(
    g: &GraphView,
    s: &S,
    list: usize,
    allowed: Option<&RoaringBitmap>,
    budget: usize,
    sc: &mut SearchScratch,
    out: &mut Vec<Scored>,
) -> bool {
    out.clear();
    if g.nodes() == 0 {
        return true;
    }
    let entry = Scored { dist: s.dist(g.medoid), id: g.medoid };
    sc.distances += 1;
    search_layer(g, s, entry, 0, Beam { ef: list, allowed, budget }, sc, out)
}
