//! The neighbour lists a disk-resident search reads from memory instead of the file.
//!
//! A search needs a node's block for two things: its neighbours, to go on from it, and
//! its vector, to score it exactly. Only the few nodes that end up among the results need
//! the second, so the cache keeps neighbour lists alone: a node's list is about a tenth of
//! its block (44 ids on average against 1,800 bytes at 384 fp32 dimensions), so a budget
//! holds ten times as many nodes as whole blocks would, and a search expands a cached node
//! without a read, reading only the blocks of the best candidates at the end to score them
//! ([`super::search`]).
//!
//! The cache starts with the medoid's neighbourhood, breadth first ([`FILL_AT_OPEN`] nodes
//! at most, so opening stays quick), and then keeps the list of every node a search reads,
//! until its budget is spent: the nodes searches pass through most are the first it holds
//! (a buffer pool that never evicts). Searches on several threads add to it at once: a
//! node's list is written first and published after, with one atomic store of where it
//! starts, so a reader sees a whole list or none.

use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

use super::DiskGraph;
use crate::error::StorageError;
use crate::storage::block_reads::BlockReads;

/// Nodes the cache reads at open, breadth first from the medoid: a few thousand reads.
const FILL_AT_OPEN: usize = 8192;

/// Where a node not cached starts.
const ABSENT: u32 = u32::MAX;

/// Cached neighbour lists.
#[derive(Debug, Default)]
pub(crate) struct NodeCache {
    /// Per node, the word of `words` its list starts at, or [`ABSENT`]; empty when the
    /// budget does not cover this index.
    start: Vec<AtomicU32>,
    /// Lists: a count, then that many neighbour ids.
    words: Vec<AtomicU32>,
    /// Words of `words` handed out (may pass its length once it is full).
    used: AtomicUsize,
    /// Nodes cached.
    nodes: AtomicUsize,
}

impl NodeCache {
    /// An empty cache of `budget` bytes for the nodes of `g`, then the medoid's
    /// neighbourhood put in it (the reads this takes happen now).
    pub(crate) fn fill(g: &DiskGraph, budget: u64) -> Result<NodeCache, StorageError> {
        let layout = g.layout();
        let index = 4 * layout.nodes as u64;
        // The index of starts costs 4 bytes a node; a budget below twice that caches none.
        if layout.nodes == 0 || budget < 2 * index {
            return Ok(NodeCache::default());
        }
        let words = usize::try_from((budget - index) / 4).unwrap_or(usize::MAX).min(u32::MAX as usize - 1);
        let cache = NodeCache {
            start: (0..layout.nodes).map(|_| AtomicU32::new(ABSENT)).collect(),
            words: (0..words).map(|_| AtomicU32::new(0)).collect(),
            used: AtomicUsize::new(0),
            nodes: AtomicUsize::new(0),
        };
        let mut level = vec![g.medoid()];
        let mut seen = std::collections::HashSet::from([g.medoid()]);
        let mut reads = BlockReads::default();
        while !level.is_empty() {
            let blocks: Vec<usize> = level.iter().map(|&n| layout.block_of(n)).collect();
            let mut next = Vec::new();
            g.read_each(&blocks, &mut reads, |i, block| {
                let at = layout.slot_of(level[i]);
                let node = layout.node(&block[at..at + layout.node_bytes()]);
                cache.insert(level[i], node.neighbors());
                for &nb in node.neighbors() {
                    if seen.len() < FILL_AT_OPEN && seen.insert(nb) {
                        next.push(nb);
                    }
                }
            })?;
            level = next;
        }
        Ok(cache)
    }

    /// The neighbours of `node`, when cached.
    #[inline]
    pub(crate) fn get(&self, node: u32) -> Option<impl ExactSizeIterator<Item = u32> + '_> {
        let at = self.start.get(node as usize)?.load(Ordering::Acquire);
        if at == ABSENT {
            return None;
        }
        let at = at as usize;
        let count = self.words[at].load(Ordering::Relaxed) as usize;
        Some(self.words[at + 1..at + 1 + count].iter().map(|w| w.load(Ordering::Relaxed)))
    }

    /// Keeps the neighbours of `node` (checked ids, read from its block) while the
    /// budget lasts.
    pub(crate) fn insert(&self, node: u32, neighbors: &[u32]) {
        let Some(slot) = self.start.get(node as usize) else { return };
        if slot.load(Ordering::Relaxed) != ABSENT {
            return;
        }
        let len = 1 + neighbors.len();
        let at = self.used.fetch_add(len, Ordering::Relaxed);
        if at + len > self.words.len() {
            return;
        }
        self.words[at].store(neighbors.len() as u32, Ordering::Relaxed);
        for (w, &id) in self.words[at + 1..at + len].iter().zip(neighbors) {
            w.store(id, Ordering::Relaxed);
        }
        // Published once written; a node another search put in meanwhile keeps its list
        // (these words are then spent for nothing).
        if slot.compare_exchange(ABSENT, at as u32, Ordering::Release, Ordering::Relaxed).is_ok() {
            self.nodes.fetch_add(1, Ordering::Relaxed);
        }
    }

    pub(crate) fn nodes(&self) -> usize {
        self.nodes.load(Ordering::Relaxed)
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        (self.start.capacity() + self.words.capacity()) * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn empty(nodes: usize, words: usize) -> NodeCache {
        NodeCache {
            start: (0..nodes).map(|_| AtomicU32::new(ABSENT)).collect(),
            words: (0..words).map(|_| AtomicU32::new(0)).collect(),
            used: AtomicUsize::new(0),
            nodes: AtomicUsize::new(0),
        }
    }

    /// Lists come back as put in, once each, until the words run out; later ones are
    /// not kept and nothing earlier is disturbed.
    #[test]
    fn lists_are_kept_until_the_budget_is_spent() {
        let c = empty(10, 11);
        c.insert(3, &[1, 2, 9]);
        c.insert(3, &[7]);
        c.insert(5, &[]);
        c.insert(8, &[0, 4, 6]);
        c.insert(1, &[2, 3]);
        assert_eq!(c.get(3).unwrap().collect::<Vec<_>>(), [1, 2, 9]);
        assert_eq!(c.get(5).unwrap().count(), 0);
        assert_eq!(c.get(8).unwrap().collect::<Vec<_>>(), [0, 4, 6]);
        assert!(c.get(1).is_none(), "12 words do not fit in 11");
        assert!(c.get(0).is_none() && c.get(99).is_none());
        assert_eq!(c.nodes(), 3);
    }

    /// Threads adding at once: every list read back is the whole list put in.
    #[test]
    fn threads_add_at_once() {
        let c = empty(1000, 40_000);
        let list = |m: u32| -> Vec<u32> { (0..m % 7).map(|i| m * 10 + i).collect() };
        std::thread::scope(|s| {
            for t in 0..4u32 {
                let (c, list) = (&c, &list);
                s.spawn(move || {
                    for n in 0..1000u32 {
                        let m = (n * 7 + t) % 1000;
                        c.insert(m, &list(m));
                        if let Some(got) = c.get(n) {
                            assert_eq!(got.collect::<Vec<_>>(), list(n));
                        }
                    }
                });
            }
        });
        assert_eq!(c.nodes(), 1000);
    }
}
