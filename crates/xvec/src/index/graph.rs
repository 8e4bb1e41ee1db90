//! Graph primitives shared by HNSW and Vamana: neighbour-list access, the best-first beam
//! search of one layer (construction and queries, over a graph being built or a mapped
//! one), its per-thread scratch, build control and the validation error. Scratch is
//! reused; nothing is allocated per visited node.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::AtomicBool;

use roaring::RoaringBitmap;

use crate::index::scorer::{PREFETCH_AHEAD, Scored, Scorer};
use crate::index::visited::VisitedSet;

/// Unused neighbour slot.
pub(crate) const NONE: u32 = u32::MAX;

/// Read access to neighbour lists, for the search shared by build and queries.
pub(crate) trait Links {
    /// Copies the neighbours of `node` at `level` into `out` (cleared first).
    fn neighbors(&self, node: u32, level: usize, out: &mut Vec<u32>);
    /// Hints that the neighbours of `node` at `level` are read next.
    fn prefetch(&self, _node: u32, _level: usize) {}
}

/// How a build runs: its threads, where it reports, and what stops it.
#[derive(Clone, Copy)]
pub(crate) struct BuildControl<'a> {
    /// Worker threads (1 = deterministic).
    pub concurrency: usize,
    pub progress: &'a (dyn Fn(BuildProgress) + Sync),
    pub cancel: &'a AtomicBool,
}

/// What a running build reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BuildProgress {
    pub done: usize,
    pub total: usize,
}

/// The arrays a graph is stored in, each one section of an index file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GraphSection {
    /// HNSW: one `u8` level per node.
    Levels,
    /// HNSW: the base layer, `m0 + 1` words per node.
    Base,
    /// HNSW: one `u32` offset into the upper layers per node.
    UpperOffsets,
    /// HNSW: the upper layers' blocks.
    Upper,
    /// Vamana: `degree + 1` words per node.
    Adjacency,
    /// Quantized graph: one block per node.
    QgBlocks,
}

/// What a graph's validation found wrong, and where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{what}")]
pub(crate) struct GraphError {
    /// The array holding the offending element, and the element's index in it; `None` for
    /// a problem with the graph's shape (its arrays' sizes, the entry point).
    pub at: Option<(GraphSection, usize)>,
    pub what: String,
}

/// Most visited-set entries reserved before a search (16 MB of slots); a wider beam grows
/// the set as it visits, so its memory follows the nodes actually visited.
const MAX_VISITED_RESERVE: usize = 1 << 21;

/// Reused buffers of one searching thread.
#[derive(Debug, Default)]
pub(crate) struct SearchScratch {
    pub(in crate::index) visited: VisitedSet,
    frontier: Frontier,
    pub(in crate::index) links: Vec<u32>,
    /// Distances computed since the scratch was made (work counter for reports).
    pub distances: u64,
}

impl SearchScratch {
    pub(crate) fn heap_bytes(&self) -> usize {
        self.visited.heap_bytes()
            + self.frontier.candidates.capacity() * std::mem::size_of::<Scored>()
            + self.frontier.results.capacity() * std::mem::size_of::<Scored>()
            + self.links.capacity() * 4
    }
}

/// The nodes still to expand and the best `ef` found, with the distance a node must beat
/// to enter once the results are full.
#[derive(Debug, Default)]
struct Frontier {
    candidates: BinaryHeap<Reverse<Scored>>,
    results: BinaryHeap<Scored>,
}

impl Frontier {
    /// Offers a scored node: kept for expansion when it beats `bound` (or the results are
    /// not full yet), and among the results when `returnable`; tightens `bound`.
    #[inline]
    fn offer(&mut self, n: Scored, returnable: bool, ef: usize, bound: &mut f32) {
        if n.dist < *bound || self.results.len() < ef {
            self.candidates.push(Reverse(n));
            if returnable {
                self.results.push(n);
                if self.results.len() > ef {
                    self.results.pop();
                }
                if self.results.len() >= ef {
                    *bound = self.results.peek().map_or(f32::INFINITY, |r| r.dist);
                }
            }
        }
    }
}

/// The shape of one best-first search.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Beam<'a> {
    /// Nodes kept (the candidate list size).
    pub ef: usize,
    /// Rows that may be returned; `None` for all.
    pub allowed: Option<&'a RoaringBitmap>,
    /// Most distances to compute before giving up.
    pub budget: usize,
}

/// Best-first search of one layer from `entry`; leaves the `ef` nearest allowed nodes in
/// `out`, best first. Nodes outside `allowed` are traversed but never returned. Gives up
/// once `budget` distances have been computed (returns false): a filter correlated with
/// the vectors can otherwise send the search through most of the graph, where an exact
/// scan of the allowed rows would cost less.
pub(crate) fn search_layer<L: Links, S: Scorer>(
    g: &L,
    s: &S,
    entry: Scored,
    level: usize,
    beam: Beam,
    sc: &mut SearchScratch,
    out: &mut Vec<Scored>,
) -> bool {
    let Beam { ef, allowed, budget } = beam;
    let ok = |id: u32| allowed.is_none_or(|a| a.contains(id));
    let mut spent = 0usize;
    // A guess at the nodes a beam of `ef` visits; the set grows past it if need be.
    sc.visited.clear(ef.saturating_mul(16).min(MAX_VISITED_RESERVE));
    let f = &mut sc.frontier;
    f.candidates.clear();
    f.results.clear();
    sc.visited.insert(entry.id);
    f.candidates.push(Reverse(entry));
    if ok(entry.id) {
        f.results.push(entry);
    }
    let mut bound = if f.results.len() >= ef { entry.dist } else { f32::INFINITY };
    while let Some(Reverse(c)) = f.candidates.pop() {
        if c.dist > bound {
            break;
        }
        g.neighbors(c.id, level, &mut sc.links);
        // The likely next candidate: its links load while this one's neighbours are scored.
        if let Some(Reverse(next)) = f.candidates.peek() {
            g.prefetch(next.id, level);
        }
        // Once the results are full, a neighbour whose sketch puts it beyond the bound
        // (with high confidence) is skipped without reading its row: most would be scored
        // only to be rejected.
        let screen = s.screen().filter(|_| f.results.len() >= ef);
        let mut fresh = 0;
        for i in 0..sc.links.len() {
            let nb = sc.links[i];
            if sc.visited.insert(nb) {
                if let Some(screen) = screen {
                    screen.prefetch(nb);
                }
                sc.links[fresh] = nb;
                fresh += 1;
            }
        }
        // Rows load PREFETCH_AHEAD ahead of the one scored, so the misses overlap instead
        // of queueing one after another (and, screening, with the next sketches' checks).
        let mut kept = 0;
        for i in 0..fresh {
            let nb = sc.links[i];
            // NaN (no estimate) keeps the row.
            if screen.is_some_and(|screen| screen.lower_bound(nb) > bound) {
                continue;
            }
            s.prefetch(nb);
            sc.links[kept] = nb;
            kept += 1;
            if kept > PREFETCH_AHEAD {
                let row = sc.links[kept - 1 - PREFETCH_AHEAD];
                f.offer(Scored { dist: s.dist(row), id: row }, ok(row), ef, &mut bound);
            }
        }
        for i in kept.saturating_sub(PREFETCH_AHEAD)..kept {
            let row = sc.links[i];
            f.offer(Scored { dist: s.dist(row), id: row }, ok(row), ef, &mut bound);
        }
        spent += kept;
        if spent > budget {
            sc.distances += spent as u64;
            return false;
        }
        if let Some(Reverse(next)) = f.candidates.peek() {
            g.prefetch(next.id, level);
        }
    }
    sc.distances += spent as u64;
    out.clear();
    out.extend(f.results.drain());
    out.sort_unstable();
    true
}
