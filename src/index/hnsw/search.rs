//! Graph search, shared by construction (over the graph being built) and queries (over a
//! mapped graph): greedy descent through the upper layers, then a best-first beam of
//! width `ef` on the base layer. Scratch is per thread and reused; nothing is allocated
//! per visited node.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use roaring::RoaringBitmap;

use super::{GraphView, Links};
use crate::index::scorer::{PREFETCH_AHEAD, Scored, Scorer};
use crate::index::visited::VisitedSet;

/// Reused buffers of one searching thread.
#[derive(Debug, Default)]
pub struct SearchScratch {
    pub(super) visited: VisitedSet,
    candidates: BinaryHeap<Reverse<Scored>>,
    results: BinaryHeap<Scored>,
    pub(super) links: Vec<u32>,
    /// Distances computed since the scratch was made (work counter for reports).
    pub distances: u64,
}

impl SearchScratch {
    pub fn heap_bytes(&self) -> usize {
        self.visited.heap_bytes()
            + self.candidates.capacity() * std::mem::size_of::<Scored>()
            + self.results.capacity() * std::mem::size_of::<Scored>()
            + self.links.capacity() * 4
    }
}

/// Moves from `cur` to ever closer neighbours on one layer until none is closer.
pub(super) fn greedy<L: Links, S: Scorer>(
    g: &L,
    s: &S,
    mut cur: Scored,
    level: usize,
    sc: &mut SearchScratch,
) -> Scored {
    loop {
        let mut changed = false;
        g.neighbors(cur.id, level, &mut sc.links);
        sc.distances += sc.links.len() as u64;
        for &nb in &sc.links {
            let d = s.dist(nb);
            if d < cur.dist {
                cur = Scored { dist: d, id: nb };
                changed = true;
            }
        }
        if !changed {
            return cur;
        }
    }
}

/// The shape of one best-first search.
#[derive(Clone, Copy, Debug)]
pub struct Beam<'a> {
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
    sc.visited.clear(ef * 16);
    sc.candidates.clear();
    sc.results.clear();
    sc.visited.insert(entry.id);
    sc.candidates.push(Reverse(entry));
    if ok(entry.id) {
        sc.results.push(entry);
    }
    let mut bound = if sc.results.len() >= ef { entry.dist } else { f32::INFINITY };
    while let Some(Reverse(c)) = sc.candidates.pop() {
        if c.dist > bound {
            break;
        }
        // Keep only unvisited neighbours, and score them while the next few load: the
        // misses overlap instead of queueing one after another.
        g.neighbors(c.id, level, &mut sc.links);
        // The likely next candidate: its links load while this one's neighbours are scored.
        if let Some(Reverse(next)) = sc.candidates.peek() {
            g.prefetch(next.id, level);
        }
        let mut fresh = 0;
        for i in 0..sc.links.len() {
            let nb = sc.links[i];
            if sc.visited.insert(nb) {
                if fresh < PREFETCH_AHEAD {
                    s.prefetch(nb);
                }
                sc.links[fresh] = nb;
                fresh += 1;
            }
        }
        spent += fresh;
        if spent > budget {
            sc.distances += spent as u64;
            return false;
        }
        for i in 0..fresh {
            let nb = sc.links[i];
            if let Some(&ahead) = sc.links[..fresh].get(i + PREFETCH_AHEAD) {
                s.prefetch(ahead);
            }
            let d = s.dist(nb);
            if d < bound || sc.results.len() < ef {
                sc.candidates.push(Reverse(Scored { dist: d, id: nb }));
                if ok(nb) {
                    sc.results.push(Scored { dist: d, id: nb });
                    if sc.results.len() > ef {
                        sc.results.pop();
                    }
                    if sc.results.len() >= ef {
                        bound = sc.results.peek().map_or(f32::INFINITY, |r| r.dist);
                    }
                }
            }
        }
        if let Some(Reverse(next)) = sc.candidates.peek() {
            g.prefetch(next.id, level);
        }
    }
    sc.distances += spent as u64;
    out.clear();
    out.extend(sc.results.drain());
    out.sort_unstable();
    true
}

/// Searches a finished graph: leaves up to `beam.ef` nearest allowed nodes in `out`, best
/// first. False when the beam's budget did not suffice (see [`search_layer`]).
pub fn search<S: Scorer>(g: &GraphView, s: &S, beam: Beam, sc: &mut SearchScratch, out: &mut Vec<Scored>) -> bool {
    out.clear();
    if g.nodes() == 0 {
        return true;
    }
    let mut cur = Scored { dist: s.dist(g.entry), id: g.entry };
    sc.distances += 1;
    for level in (1..=g.max_level).rev() {
        cur = greedy(g, s, cur, level, sc);
    }
    search_layer(g, s, cur, 0, beam, sc, out)
}
