//! Beam search over node blocks (DiskANN's `cached_beam_search`). A list of `list`
//! candidates is ranked by the in-memory codes; each hop takes the `width` best
//! candidates not yet expanded, reads the blocks of those the cache does not hold as one
//! batch, scores each expanded node exactly from the vector in its block (the re-rank
//! costs no extra read) and ranks its unvisited neighbours by their codes. The results
//! are the expanded nodes by exact distance. Nodes outside `allowed` are traversed but
//! never returned, as in the in-memory graphs; the list then holds `list` allowed
//! candidates and whatever others rank among them.

use std::sync::atomic::Ordering;

use roaring::RoaringBitmap;

use super::DiskGraph;
use crate::error::StorageError;
use crate::index::scorer::Scored;
use crate::index::visited::VisitedSet;
use crate::storage::column::VectorColumn;

/// The shape of one search.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Beam<'a> {
    /// Candidates kept (L).
    pub list: usize,
    /// Nodes expanded, and so blocks read, per hop (W).
    pub width: usize,
    /// Rows that may be returned; `None` for all.
    pub allowed: Option<&'a RoaringBitmap>,
}

/// What one search read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct SearchCost {
    /// Blocks read from the file.
    pub blocks_read: u32,
    /// Expanded nodes found in the cache.
    pub cache_hits: u32,
    /// Hops (read batches, cached ones included).
    pub hops: u32,
}

/// Reused buffers of one searching thread.
#[derive(Debug, Default)]
pub(crate) struct DiskScratch {
    visited: VisitedSet,
    /// Candidates by code distance, best first, each with whether it was expanded.
    list: Vec<(Scored, bool)>,
    frontier: Vec<u32>,
    blocks: Vec<usize>,
    buf: Vec<u64>,
}

impl DiskScratch {
    pub(crate) fn heap_bytes(&self) -> usize {
        self.visited.heap_bytes()
            + self.list.capacity() * std::mem::size_of::<(Scored, bool)>()
            + self.frontier.capacity() * 4
            + self.blocks.capacity() * 8
            + self.buf.capacity() * 8
    }
}

impl DiskGraph {
    /// Searches with `approx` (a row's distance from the codes) ranking candidates and
    /// `exact` (the distance of a vector read from a block) ranking results; leaves the
    /// up to `list` nearest allowed expanded nodes in `out`, best first.
    pub(crate) fn search(
        &self,
        approx: impl Fn(u32) -> f32,
        exact: impl Fn(&VectorColumn) -> f32,
        beam: Beam,
        sc: &mut DiskScratch,
        out: &mut Vec<Scored>,
    ) -> Result<SearchCost, StorageError> {
        out.clear();
        let mut cost = SearchCost::default();
        if self.layout.nodes == 0 {
            return Ok(cost);
        }
        let (list, width) = (beam.list.max(1), beam.width.max(1));
        let ok = |id: u32| beam.allowed.is_none_or(|a| a.contains(id));
        sc.visited.clear(list * 8);
        sc.list.clear();
        sc.visited.insert(self.medoid);
        sc.list.push((Scored { dist: approx(self.medoid), id: self.medoid }, false));
        // Candidates that may be returned: the list keeps `list` of them, and the others
        // ranked between them (a filter widens the walk rather than starving it).
        let mut returnable = usize::from(ok(self.medoid));
        let layout = &self.layout;
        let node_bytes = layout.node_bytes();
        loop {
            sc.frontier.clear();
            for (c, expanded) in sc.list.iter_mut().filter(|(_, e)| !*e).take(width) {
                *expanded = true;
                sc.frontier.push(c.id);
            }
            if sc.frontier.is_empty() {
                break;
            }
            cost.hops += 1;
            // The blocks of the uncached nodes, each once (two nodes may share one).
            sc.blocks.clear();
            for &n in &sc.frontier {
                if self.cache.get(n).is_none() {
                    sc.blocks.push(layout.block_of(n));
                }
            }
            sc.blocks.sort_unstable();
            sc.blocks.dedup();
            if !sc.blocks.is_empty() {
                self.read_blocks(&sc.blocks, &mut sc.buf)?;
            }
            cost.blocks_read += sc.blocks.len() as u32;
            let read = super::as_bytes(&sc.buf);
            for &n in &sc.frontier {
                let raw = match self.cache.get(n) {
                    Some(raw) => {
                        cost.cache_hits += 1;
                        raw
                    }
                    None => {
                        let i = sc.blocks.binary_search(&layout.block_of(n)).expect("the node's block was read");
                        let at = i * layout.block_len() + layout.slot_of(n);
                        &read[at..at + node_bytes]
                    }
                };
                let node = layout.node(raw);
                if ok(n) {
                    insert_bounded(out, Scored { dist: exact(&node.column()), id: n }, list);
                }
                for &nb in node.neighbors() {
                    if !sc.visited.insert(nb) {
                        continue;
                    }
                    let c = Scored { dist: approx(nb), id: nb };
                    if returnable < list || sc.list.last().is_some_and(|(w, _)| c < *w) {
                        let at = sc.list.partition_point(|(x, _)| *x < c);
                        sc.list.insert(at, (c, false));
                        returnable += usize::from(ok(nb));
                        // Past `list` returnable candidates, drop from the tail down to
                        // the last returnable one kept.
                        while returnable > list || sc.list.last().is_some_and(|(w, _)| !ok(w.id)) && returnable == list
                        {
                            let (w, _) = sc.list.pop().expect("a candidate to drop");
                            returnable -= usize::from(ok(w.id));
                        }
                    }
                }
            }
        }
        let c = &self.counters;
        c.searches.fetch_add(1, Ordering::Relaxed);
        c.blocks_read.fetch_add(cost.blocks_read as u64, Ordering::Relaxed);
        c.cache_hits.fetch_add(cost.cache_hits as u64, Ordering::Relaxed);
        Ok(cost)
    }
}

/// Inserts `s` into the sorted `out`, keeping its best `cap`.
fn insert_bounded(out: &mut Vec<Scored>, s: Scored, cap: usize) {
    if out.len() >= cap && out.last().is_some_and(|w| *w <= s) {
        return;
    }
    let at = out.partition_point(|x| *x < s);
    out.insert(at, s);
    out.truncate(cap);
}
