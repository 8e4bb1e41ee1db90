//! Beam search over node blocks, pipelined: DiskANN's `cached_beam_search` with the
//! overlap of PipeANN (OSDI '25). A list of `list` candidates is ranked by the in-memory
//! codes. Up to `width` reads are in flight at once: whenever one is free, the best
//! candidate not yet taken is taken (expanded at once when the cache holds it, its block
//! read otherwise), and each block is handled as soon as it arrives rather than with the
//! rest of a hop, so the device always has `width` reads queued while the search scores
//! what came back. Every node of a block read is scored exactly from its vector (the
//! re-rank costs no extra read); the node asked for is expanded, its unvisited
//! neighbours ranked by their codes, and so is any other node of the block the list was
//! waiting to take. The results are the nodes scored exactly, best first. Nodes outside
//! `allowed` are traversed but never returned, as in the in-memory graphs; the list then
//! holds `list` allowed candidates and whatever others rank among them.

use std::sync::atomic::Ordering;

use roaring::RoaringBitmap;

use super::DiskGraph;
use super::layout::Node;
use crate::error::StorageError;
use crate::index::graph::NONE;
use crate::index::scorer::Scored;
use crate::index::visited::VisitedSet;
use crate::storage::block_reads::{BlockReads, MAX_IN_FLIGHT};
use crate::storage::column::VectorColumn;

/// The shape of one search.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Beam<'a> {
    /// Candidates kept (L).
    pub list: usize,
    /// Reads in flight at once (W), at most [`MAX_IN_FLIGHT`].
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
    /// Times the search waited for a read to complete.
    pub waits: u32,
}

/// Reused buffers of one searching thread.
#[derive(Debug, Default)]
pub(crate) struct DiskScratch {
    visited: VisitedSet,
    /// Candidates by code distance, best first, each with whether it was taken.
    list: Vec<(Scored, bool)>,
    /// The node each read slot is reading.
    reading: Vec<u32>,
    /// Read slots free.
    free: Vec<usize>,
    reads: BlockReads,
}

impl DiskScratch {
    pub(crate) fn heap_bytes(&self) -> usize {
        self.visited.heap_bytes()
            + self.list.capacity() * std::mem::size_of::<(Scored, bool)>()
            + self.reading.capacity() * 4
            + self.free.capacity() * 8
            + self.reads.heap_bytes()
    }
}

impl DiskGraph {
    /// Searches with `approx` (a row's distance from the codes) ranking candidates and
    /// `exact` (the distance of a vector read from a block) ranking results; leaves the
    /// up to `list` nearest allowed nodes scored in `out`, best first.
    pub(crate) fn search(
        &self,
        approx: impl Fn(u32) -> f32,
        exact: impl Fn(&VectorColumn) -> f32,
        beam: Beam,
        sc: &mut DiskScratch,
        out: &mut Vec<Scored>,
    ) -> Result<SearchCost, StorageError> {
        let found = self.pipelined(&approx, &exact, beam, sc, out);
        // A search that failed may leave reads in flight into the scratch's buffers.
        sc.reads.drain();
        let cost = found?;
        let c = &self.counters;
        c.searches.fetch_add(1, Ordering::Relaxed);
        c.blocks_read.fetch_add(cost.blocks_read as u64, Ordering::Relaxed);
        c.cache_hits.fetch_add(cost.cache_hits as u64, Ordering::Relaxed);
        Ok(cost)
    }

    fn pipelined(
        &self,
        approx: &impl Fn(u32) -> f32,
        exact: &impl Fn(&VectorColumn) -> f32,
        beam: Beam,
        sc: &mut DiskScratch,
        out: &mut Vec<Scored>,
    ) -> Result<SearchCost, StorageError> {
        out.clear();
        let mut cost = SearchCost::default();
        let layout = &self.layout;
        if layout.nodes == 0 {
            return Ok(cost);
        }
        let width = beam.width.clamp(1, MAX_IN_FLIGHT);
        let DiskScratch { visited, list, reading, free, reads } = sc;
        reads.prepare(width, layout.block_len());
        free.clear();
        free.extend((0..width).rev());
        reading.clear();
        reading.resize(width, NONE);
        visited.clear(beam.list.max(1) * 8);
        list.clear();
        let mut f = Frontier { list, visited, out, cap: beam.list.max(1), allowed: beam.allowed, returnable: 0 };
        f.visit(self.medoid, approx);
        loop {
            while let Some(&slot) = free.last() {
                let Some(n) = f.take() else { break };
                if let Some(raw) = self.cache.get(n) {
                    cost.cache_hits += 1;
                    f.expand(n, &layout.node(raw), approx, exact);
                    continue;
                }
                reads.submit(&self.file, self.offset(layout.block_of(n)), slot)?;
                free.pop();
                reading[slot] = n;
                cost.blocks_read += 1;
            }
            let Some((slot, done)) = reads.wait() else { break };
            cost.waits += 1;
            done.map_err(|e| StorageError::io(self.file.path(), e))?;
            let (n, block) = (reading[slot], reads.slot(slot));
            let b = layout.block_of(n);
            layout.check_block(b, block).map_err(|e| self.corrupt(e))?;
            let first = b * layout.per_block();
            for m in first..(first + layout.per_block()).min(layout.nodes) {
                let m = m as u32;
                let at = layout.slot_of(m);
                let node = layout.node(&block[at..at + layout.node_bytes()]);
                if m == n || f.take_waiting(m) {
                    f.expand(m, &node, approx, exact);
                } else {
                    f.score(m, &node, exact);
                }
            }
            free.push(slot);
        }
        Ok(cost)
    }
}

/// The candidates and results one search builds up.
struct Frontier<'s, 'a> {
    list: &'s mut Vec<(Scored, bool)>,
    visited: &'s mut VisitedSet,
    out: &'s mut Vec<Scored>,
    /// Candidates (allowed ones) kept, and results.
    cap: usize,
    allowed: Option<&'a RoaringBitmap>,
    /// Candidates in the list that may be returned.
    returnable: usize,
}

impl Frontier<'_, '_> {
    fn ok(&self, id: u32) -> bool {
        self.allowed.is_none_or(|a| a.contains(id))
    }

    /// The best candidate not yet taken, now taken.
    fn take(&mut self) -> Option<u32> {
        let (c, taken) = self.list.iter_mut().find(|(_, taken)| !*taken)?;
        *taken = true;
        Some(c.id)
    }

    /// Takes `n` when it waits in the list untaken; whether it did.
    fn take_waiting(&mut self, n: u32) -> bool {
        match self.list.iter_mut().find(|(c, _)| c.id == n) {
            Some((_, taken)) if !*taken => {
                *taken = true;
                true
            }
            _ => false,
        }
    }

    /// Scores `n` exactly into the results (once) and ranks its neighbours.
    fn expand(&mut self, n: u32, node: &Node, approx: &impl Fn(u32) -> f32, exact: &impl Fn(&VectorColumn) -> f32) {
        self.score(n, node, exact);
        for &nb in node.neighbors() {
            self.visit(nb, approx);
        }
    }

    /// Puts `n` among the results by its exact distance when it may be returned and is
    /// not there yet.
    fn score(&mut self, n: u32, node: &Node, exact: &impl Fn(&VectorColumn) -> f32) {
        if !self.ok(n) {
            return;
        }
        let s = Scored { dist: exact(&node.column()), id: n };
        let out = &mut *self.out;
        if out.len() >= self.cap && out.last().is_some_and(|w| *w <= s) || out.iter().any(|x| x.id == n) {
            return;
        }
        let at = out.partition_point(|x| *x < s);
        out.insert(at, s);
        out.truncate(self.cap);
    }

    /// Ranks `n` by its code into the list, the first time it is seen.
    fn visit(&mut self, n: u32, approx: &impl Fn(u32) -> f32) {
        if !self.visited.insert(n) {
            return;
        }
        let c = Scored { dist: approx(n), id: n };
        let list = self.cap;
        if self.returnable < list || self.list.last().is_some_and(|(w, _)| c < *w) {
            let at = self.list.partition_point(|(x, _)| *x < c);
            self.list.insert(at, (c, false));
            self.returnable += usize::from(self.ok(n));
            // Past `list` returnable candidates, drop from the tail down to the last
            // returnable one kept.
            while self.returnable > list
                || self.list.last().is_some_and(|(w, _)| !self.ok(w.id)) && self.returnable == list
            {
                let (w, _) = self.list.pop().expect("a candidate to drop");
                self.returnable -= usize::from(self.ok(w.id));
            }
        }
    }
}
