//! Beam search over node blocks, pipelined: DiskANN's `cached_beam_search` with the
//! overlap of PipeANN (OSDI '25). A list of `list` candidates is ranked by the in-memory
//! codes. The best candidate not yet taken is expanded at once when the cache holds its
//! neighbours, even while reads are in flight; otherwise its block is read, up to `width`
//! reads at once, and when none is free the search waits for the oldest. Each block is
//! handled as soon as it (and the reads submitted before it: the search takes the same
//! path every time) arrives rather than with the rest of a hop, so the device always has
//! reads queued while the search scores what came back: every node of the block is
//! scored exactly from its vector, the node asked for is expanded (its unvisited
//! neighbours ranked by their codes, its list kept in the cache), and so is any other node
//! of the block the list was waiting to take. When no candidate is left, the best
//! `rerank` candidates that were expanded from the cache, and so never scored, have their
//! blocks read and scored too. The results are the nodes scored exactly, best first.
//! Nodes outside `allowed` are traversed but never returned, as in the in-memory graphs;
//! the list then holds `list` allowed candidates and whatever others rank among them.

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
    /// Reads in flight at once while walking the graph (W), at most [`MAX_IN_FLIGHT`].
    pub width: usize,
    /// The best candidates by code that are scored exactly, read if they must be (at
    /// most `list`; the results a query wants, and some more for the codes' error).
    pub rerank: usize,
    /// Rows that may be returned; `None` for all.
    pub allowed: Option<&'a RoaringBitmap>,
}

/// What one search read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct SearchCost {
    /// Blocks read from the file.
    pub blocks_read: u32,
    /// Nodes expanded from the cache's neighbour lists, without a read.
    pub cache_hits: u32,
    /// Of the blocks read, those read at the end to score candidates expanded from the
    /// cache.
    pub rerank_reads: u32,
    /// Times the search slept on the device (its round trips): fewer than the blocks
    /// read when reads complete together.
    pub waits: u32,
}

/// Reused buffers of one searching thread.
#[derive(Debug, Default)]
pub(crate) struct DiskScratch {
    visited: VisitedSet,
    /// Candidates by code distance, best first, each with how far it got.
    list: Vec<(Scored, Mark)>,
    /// The node each read slot is reading.
    reading: Vec<u32>,
    /// Read slots free.
    free: Vec<usize>,
    /// Candidates read at the end to be scored.
    rerank: Vec<u32>,
    reads: BlockReads,
}

/// How far a candidate got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mark {
    /// Not taken yet.
    Waiting,
    /// Its block is read or being read: it is scored.
    Read,
    /// Expanded from the cache: not scored unless its block is read later.
    Cached,
}

impl DiskScratch {
    pub(crate) fn heap_bytes(&self) -> usize {
        self.visited.heap_bytes()
            + self.list.capacity() * std::mem::size_of::<(Scored, Mark)>()
            + self.reading.capacity() * 4
            + self.free.capacity() * 8
            + self.rerank.capacity() * 4
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
        // The walk keeps `width` reads in flight; the reads at the end, all at once.
        let width = beam.width.clamp(1, MAX_IN_FLIGHT);
        let slots = width.max(beam.rerank.min(MAX_IN_FLIGHT));
        let DiskScratch { visited, list, reading, free, rerank, reads } = sc;
        reads.prepare(slots, layout.block_len());
        free.clear();
        free.extend((0..width).rev());
        reading.clear();
        reading.resize(slots, NONE);
        visited.clear(beam.list.max(1) * 8);
        list.clear();
        let mut f = Frontier { list, visited, out, cap: beam.list.max(1), allowed: beam.allowed, returnable: 0 };
        f.visit(self.medoid, approx);
        loop {
            // Cached candidates are expanded while reads are in flight; a candidate to
            // read waits for a free slot.
            while let Some(at) = f.waiting() {
                let n = f.list[at].0.id;
                if let Some(neighbors) = self.cache.get(n) {
                    cost.cache_hits += 1;
                    f.list[at].1 = Mark::Cached;
                    for nb in neighbors {
                        f.visit(nb, approx);
                    }
                    continue;
                }
                let Some(slot) = free.pop() else { break };
                f.list[at].1 = Mark::Read;
                reads.submit(&self.file, self.offset(layout.block_of(n)), slot)?;
                reading[slot] = n;
                cost.blocks_read += 1;
            }
            let Some((slot, n)) = self.arrived(reads, reading, &mut cost)? else { break };
            let block = reads.slot(slot);
            for (m, node) in layout.nodes_of(layout.block_of(n), block) {
                f.score(m, &node, exact);
                if m == n || f.take_waiting(m) {
                    self.cache.insert(m, node.neighbors());
                    for &nb in node.neighbors() {
                        f.visit(nb, approx);
                    }
                }
            }
            free.push(slot);
        }
        // The best candidates never scored: their blocks, all at once.
        f.unscored(beam.rerank.clamp(1, f.cap), rerank);
        free.extend(width..slots);
        let mut next = 0;
        loop {
            while next < rerank.len()
                && let Some(slot) = free.pop()
            {
                reads.submit(&self.file, self.offset(layout.block_of(rerank[next])), slot)?;
                reading[slot] = rerank[next];
                next += 1;
                cost.blocks_read += 1;
                cost.rerank_reads += 1;
            }
            let Some((slot, n)) = self.arrived(reads, reading, &mut cost)? else { break };
            for (_, node) in layout.nodes_of(layout.block_of(n), reads.slot(slot)).filter(|(m, _)| *m == n) {
                f.score(n, &node, exact);
            }
            free.push(slot);
        }
        Ok(cost)
    }

    /// Waits for the next read and hands back its slot and the node it was for, once its
    /// block read whole and passed its check; `None` when no read is in flight.
    fn arrived(
        &self,
        reads: &mut BlockReads,
        reading: &[u32],
        cost: &mut SearchCost,
    ) -> Result<Option<(usize, u32)>, StorageError> {
        let slept = reads.sleeps();
        let landed = self.landed(reads, |slot| self.layout.block_of(reading[slot]));
        cost.waits += (reads.sleeps() - slept) as u32;
        Ok(landed?.map(|slot| (slot, reading[slot])))
    }
}

/// The candidates and results one search builds up.
struct Frontier<'s, 'a> {
    list: &'s mut Vec<(Scored, Mark)>,
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

    /// Where the best candidate not yet taken is in the list (until the next visit).
    fn waiting(&self) -> Option<usize> {
        self.list.iter().position(|(_, m)| *m == Mark::Waiting)
    }

    /// Takes `n` (marked read) when it waits in the list; whether it did.
    fn take_waiting(&mut self, n: u32) -> bool {
        match self.list.iter_mut().find(|(c, _)| c.id == n) {
            Some((_, mark)) if *mark == Mark::Waiting => {
                *mark = Mark::Read;
                true
            }
            _ => false,
        }
    }

    /// Fills `into` with the candidates among the best `rerank` that may be returned
    /// which were expanded from the cache and have not been scored since.
    fn unscored(&self, rerank: usize, into: &mut Vec<u32>) {
        into.clear();
        let best = self.list.iter().filter(|(c, _)| self.ok(c.id)).take(rerank);
        for (c, _) in best.filter(|(_, m)| *m == Mark::Cached) {
            if !self.out.iter().any(|x| x.id == c.id) {
                into.push(c.id);
            }
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
            self.list.insert(at, (c, Mark::Waiting));
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
