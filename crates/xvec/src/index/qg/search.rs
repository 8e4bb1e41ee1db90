//! Searching a quantized graph: a beam of `ef` nodes ordered by estimated distance.
//! Expanding the best unexpanded node scores it exactly (its row, through a [`Scorer`])
//! into the results, then scores its whole neighbour block with FastScan and offers each
//! neighbour not seen yet to the beam by its estimate. The search ends when every node
//! in the beam has been expanded; the results are the `ef` best exact distances met.
//!
//! At k = 100 the beam's boundary falls where the one-bit estimates err, so true
//! neighbours are estimated past it and never scored. A search may therefore score
//! exactly, once the beam is done, the `rescore` best estimates it turned away (neighbours
//! refused at the boundary and entries pushed off the beam's end): an exact distance costs
//! a row read where an expansion costs a block and a row, so this buys recall cheaper than
//! a wider beam (the query's `refine × k`; measured in docs/benchmarks, "Session 9").
//!
//! Filters work as on the other graphs: nodes outside `allowed` are expanded (they lead
//! somewhere) but never returned. The beam keeps `ef` allowed nodes and the others that
//! rank among them, so a filter widens the search instead of starving the results.

use std::collections::BinaryHeap;

use super::{GROUP, NONE, QgView};
use crate::index::graph::Beam;
use crate::index::quant::fastscan::{ScanQuery, block_sums};
use crate::index::quant::normalize_for;
use crate::index::scorer::{PREFETCH_AHEAD, Scored, Scorer};
use crate::index::visited::VisitedSet;
use crate::kernels::{self, Kernels};
use crate::storage::mmap::as_bytes;

/// A query prepared for one quantized graph: rotated as its rows were, and tabulated for
/// FastScan. A searching thread keeps one and prepares each query into it, reusing its
/// buffers.
#[derive(Clone, Debug, Default)]
pub(crate) struct QgQuery {
    scan: ScanQuery,
    rotated: Vec<f32>,
    tmp: Vec<f32>,
}

impl QgQuery {
    #[cfg(test)]
    pub(crate) fn new(g: &QgView, q: &[f32]) -> QgQuery {
        let mut qq = QgQuery::default();
        qq.prepare(g, q);
        qq
    }

    /// Makes this the query `q` prepared for `g`.
    pub(crate) fn prepare(&mut self, g: &QgView, q: &[f32]) {
        self.rotated.resize(g.layout.dim, 0.0);
        g.rotation.apply(q, &mut self.rotated, &mut self.tmp);
        let norm_sq = normalize_for(g.metric, &mut self.rotated);
        self.scan.set_rotated(&self.rotated, norm_sq, g.metric, 0.0);
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        self.scan.heap_bytes() + (self.rotated.capacity() + self.tmp.capacity()) * 4
    }
}

/// The shape of one search: the graph beam, and how many of the neighbours it turned
/// away are scored exactly at the end (0: none).
#[derive(Clone, Copy, Debug)]
pub(crate) struct QgBeam<'a> {
    pub beam: Beam<'a>,
    pub rescore: usize,
}

/// One node of the beam (its estimate is kept apart, in [`Pool::ests`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Entry {
    pub id: u32,
    pub expanded: bool,
    pub allowed: bool,
}

/// The beam, best first: the estimates in one array and the entries beside them, so
/// that finding where a neighbour goes is one vectorized count over the estimates.
#[derive(Debug, Default)]
pub(super) struct Pool {
    pub ests: Vec<f32>,
    pub entries: Vec<Entry>,
}

impl Pool {
    fn clear(&mut self) {
        self.ests.clear();
        self.entries.clear();
    }

    pub(super) fn truncate(&mut self, len: usize) {
        self.ests.truncate(len);
        self.entries.truncate(len);
    }

    /// Inserts `e` with estimate `est` after every entry whose estimate is at most `est`
    /// (as `partition_point` then `insert` would) and returns its position. The count of
    /// such entries compares eight estimates an instruction with no branch, where a walk
    /// from the back (the version before) stalled on every step's compare, and a
    /// binary search on its chain of dependent loads.
    #[inline]
    pub(super) fn insert(&mut self, est: f32, e: Entry) -> usize {
        let pos = self.ests.iter().fold(0u32, |n, &x| n + u32::from(x <= est)) as usize;
        self.ests.insert(pos, est);
        self.entries.insert(pos, e);
        pos
    }
}

/// Reused buffers of one searching thread.
#[derive(Debug, Default)]
pub(crate) struct QgScratch {
    visited: VisitedSet,
    /// Best first: `ef` allowed nodes and the others that rank among them.
    beam: Pool,
    results: BinaryHeap<Scored>,
    estimates: Vec<f32>,
    /// Neighbours turned away with the best estimates.
    turned_away: Best,
    /// The turned-away ones to score: by id, once each, none already in the results.
    to_score: Vec<Scored>,
    result_ids: Vec<u32>,
    /// Exact distances computed since the scratch was made (work counter for reports).
    pub distances: u64,
}

impl QgScratch {
    pub(crate) fn heap_bytes(&self) -> usize {
        self.visited.heap_bytes()
            + self.beam.entries.capacity() * size_of::<Entry>()
            + self.beam.ests.capacity() * 4
            + self.results.capacity() * size_of::<Scored>()
            + self.estimates.capacity() * 4
            + (self.turned_away.items.capacity() + self.to_score.capacity()) * size_of::<Scored>()
            + self.result_ids.capacity() * 4
    }
}

/// Searches the graph: leaves up to `beam.ef` nearest allowed nodes in `out`, best first,
/// with their distances as `exact` scores them. False when `beam.budget` exact distances
/// did not suffice (`out` then holds what was found).
pub(crate) fn search<S: Scorer>(
    g: &QgView,
    k: &Kernels,
    q: &QgQuery,
    exact: &S,
    shape: QgBeam,
    sc: &mut QgScratch,
    out: &mut Vec<Scored>,
) -> bool {
    out.clear();
    let QgBeam { beam: Beam { ef, allowed, budget }, rescore } = shape;
    if g.nodes() == 0 || ef == 0 {
        return true;
    }
    let ok = |id: u32| allowed.is_none_or(|a| a.contains(id));
    sc.visited.clear(ef.saturating_mul(8).min(1 << 21));
    sc.beam.clear();
    sc.results.clear();
    sc.turned_away.clear(rescore);
    sc.estimates.resize(g.layout.degree, 0.0);
    sc.visited.insert(g.entry);
    sc.beam.insert(f32::NEG_INFINITY, Entry { id: g.entry, expanded: false, allowed: ok(g.entry) });
    let (mut cursor, mut spent, mut finished) = (0, 0usize, true);
    // Allowed entries in the beam; once `ef`, the last of them is the worst estimate kept.
    let mut kept = usize::from(ok(g.entry));
    let mut worst = f32::INFINITY;
    while let Some(at) = sc.beam.entries[cursor..].iter().position(|e| !e.expanded) {
        cursor += at;
        if spent >= budget {
            finished = false;
            break;
        }
        sc.beam.entries[cursor].expanded = true;
        let node = sc.beam.entries[cursor].id;
        // The likely next node: its block and row load while this one is scored.
        if let Some(next) = sc.beam.entries[cursor + 1..].iter().find(|e| !e.expanded) {
            kernels::prefetch_lines(g.block(next.id), PREFETCH_BLOCK_LINES);
            exact.prefetch(next.id);
        }
        let d = exact.dist(node);
        spent += 1;
        if sc.beam.entries[cursor].allowed {
            sc.results.push(Scored { dist: d, id: node });
            if sc.results.len() > ef {
                sc.results.pop();
            }
        }
        estimate(g, k, q, node, d, &mut sc.estimates);
        let groups = g.neighbors(node).as_chunks::<GROUP>().0.iter().zip(sc.estimates.as_chunks::<GROUP>().0);
        for (ids, ests) in groups {
            // The slots whose estimate beats the worst kept as this node's turn began, found
            // for all 32 at once: the others are refused whatever the offers below do
            // (`worst` only falls), and unused slots, estimated +∞, never beat it.
            let below = below(ests, worst);
            if rescore > 0 {
                for j in (0..GROUP).filter(|&j| below >> j & 1 == 0 && ids[j] != NONE) {
                    offer_turned_away(&mut sc.turned_away, &sc.visited, &ok, Scored { dist: ests[j], id: ids[j] });
                }
            }
            let mut left = below;
            while left != 0 {
                let j = left.trailing_zeros() as usize;
                left &= left - 1;
                let (id, est) = (ids[j], ests[j]);
                if est >= worst {
                    if rescore > 0 {
                        offer_turned_away(&mut sc.turned_away, &sc.visited, &ok, Scored { dist: est, id });
                    }
                    continue;
                }
                if !sc.visited.insert(id) {
                    continue;
                }
                let allowed = ok(id);
                let pos = sc.beam.insert(est, Entry { id, expanded: false, allowed });
                cursor = cursor.min(pos);
                kept += usize::from(allowed);
                if kept > ef {
                    // Drop the last allowed entry and whatever ranks after it.
                    let last = sc.beam.entries.iter().rposition(|e| e.allowed).expect("kept counts allowed entries");
                    if rescore > 0 {
                        let dropped = sc.beam.entries[last..].iter().zip(&sc.beam.ests[last..]);
                        for (e, &est) in dropped.filter(|(e, _)| e.allowed && !e.expanded) {
                            sc.turned_away.offer(Scored { dist: est, id: e.id });
                        }
                    }
                    sc.beam.truncate(last);
                    kept -= 1;
                }
                if kept == ef {
                    let last = sc.beam.entries.iter().rposition(|e| e.allowed).expect("kept counts allowed entries");
                    sc.beam.truncate(last + 1);
                    worst = sc.beam.ests[last];
                }
            }
        }
    }
    if finished && rescore > 0 {
        spent += score_turned_away(exact, ef, budget.saturating_sub(spent), sc);
    }
    sc.distances += spent as u64;
    out.extend(sc.results.drain());
    out.sort_unstable();
    finished
}

/// Bit `j` set when `ests[j] < bound`: 32 compares the compiler does a vector at a time,
/// where a branch per neighbour mispredicted on the few that pass.
#[inline]
pub(super) fn below(ests: &[f32; GROUP], bound: f32) -> u32 {
    ests.iter().enumerate().fold(0, |mask, (j, &e)| mask | u32::from(e < bound) << j)
}

/// A neighbour the beam refused: kept among the best estimates turned away unless it is
/// in the beam already or outside the filter. It stays unvisited, so the beam may still
/// take it from another node.
#[inline]
fn offer_turned_away(best: &mut Best, visited: &VisitedSet, ok: &impl Fn(u32) -> bool, s: Scored) {
    if s < best.bar && !visited.contains(s.id) && ok(s.id) {
        best.offer(s);
    }
}

/// The `cap` best of many offers, kept lazily: offers pile up until there are twice
/// `cap`, then a selection keeps the best `cap`, whose worst becomes the bar a later
/// offer must beat. An offer costs a comparison and, when it passes, a push, where a
/// heap of the best `cap` paid a sift for every offer it took (at k = 100 with `refine`
/// 3 that heap was an eighth of a query, by `perf`).
#[derive(Debug)]
pub(super) struct Best {
    items: Vec<Scored>,
    cap: usize,
    /// Offers at or past it would not be kept.
    bar: Scored,
}

impl Default for Best {
    /// Keeps nothing until cleared with a capacity.
    fn default() -> Best {
        Best { items: Vec::new(), cap: 0, bar: Scored { dist: f32::NEG_INFINITY, id: 0 } }
    }
}

impl Best {
    pub(super) fn clear(&mut self, cap: usize) {
        self.items.clear();
        self.cap = cap;
        let dist = if cap == 0 { f32::NEG_INFINITY } else { f32::INFINITY };
        self.bar = Scored { dist, id: 0 };
    }

    #[inline]
    pub(super) fn offer(&mut self, s: Scored) {
        if s < self.bar {
            self.items.push(s);
            if self.items.len() >= 2 * self.cap {
                // The worst of the best lands last.
                let last = self.cap - 1;
                self.bar = self.best()[last];
            }
        }
    }

    /// The `cap` best offers so far, in no order.
    pub(super) fn best(&mut self) -> &mut Vec<Scored> {
        if self.items.len() > self.cap {
            self.items.select_nth_unstable(self.cap - 1);
            self.items.truncate(self.cap);
        }
        &mut self.items
    }
}

/// Scores exactly (at most `budget` of) the neighbours the search turned away and offers
/// them to the results, which keep the `ef` best; returns the distances computed. A node
/// met twice, or expanded after it was turned away, is scored once or not at all.
fn score_turned_away<S: Scorer>(exact: &S, ef: usize, budget: usize, sc: &mut QgScratch) -> usize {
    sc.to_score.clear();
    sc.to_score.append(sc.turned_away.best());
    sc.to_score.sort_unstable_by_key(|s| s.id);
    sc.to_score.dedup_by_key(|s| s.id);
    sc.result_ids.clear();
    sc.result_ids.extend(sc.results.iter().map(|s| s.id));
    sc.result_ids.sort_unstable();
    let scored = &sc.result_ids;
    sc.to_score.retain(|s| scored.binary_search(&s.id).is_err());
    sc.to_score.truncate(budget);
    for s in sc.to_score.iter().take(PREFETCH_AHEAD) {
        exact.prefetch(s.id);
    }
    for i in 0..sc.to_score.len() {
        if let Some(ahead) = sc.to_score.get(i + PREFETCH_AHEAD) {
            exact.prefetch(ahead.id);
        }
        let id = sc.to_score[i].id;
        sc.results.push(Scored { dist: exact.dist(id), id });
        if sc.results.len() > ef {
            sc.results.pop();
        }
    }
    sc.to_score.len()
}

/// Cache lines of the next node's block prefetched: the first group's codes lead, the
/// hardware prefetcher streams the rest.
const PREFETCH_BLOCK_LINES: usize = 8;

/// Estimated distances of the neighbours of `node` (whose exact distance is `d`) into
/// `out`, slot by slot; unused slots get +∞. A group's 32 estimates are one fixed-length
/// loop over arrays, which the compiler turns into vector instructions (slot by slot
/// through slices it was a third of an expansion's instructions, counted by callgrind).
#[inline]
pub(super) fn estimate(g: &QgView, k: &Kernels, q: &QgQuery, node: u32, d: f32, out: &mut [f32]) {
    let (layout, block) = (g.layout, g.block(node));
    let codes = as_bytes(&block[..layout.code_words()]);
    let factor = |f: usize| block[layout.factors(f)..layout.factors(f) + layout.degree].as_chunks::<GROUP>().0;
    let groups = codes.chunks_exact(layout.group_bytes()).zip(factor(0)).zip(factor(1));
    for (((group, t), a), out) in groups.zip(out.as_chunks_mut::<GROUP>().0) {
        let s = q.scan.signed_sums(&block_sums(k, group, q.scan.lut(), layout.columns()));
        for j in 0..GROUP {
            out[j] = d + f32::from_bits(t[j]) - f32::from_bits(a[j]) * s[j];
        }
    }
}
