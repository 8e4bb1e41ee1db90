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
//! A list is kept packed ([`Packed`]): its ids sorted, the first one whole and each next
//! one as its gap from the one before, every gap in the bits the largest needs. Ids are
//! rows, which a graph's neighbours scatter over, so a gap takes about `log2(rows /
//! degree)` bits: 17 instead of 32 over 643,493 rows and 44 neighbours, which is what
//! lets every list of such an index sit beside its codes in a budget of a fifth of the
//! vectors. The order of a list does not matter to a search, which ranks the neighbours
//! it reads by their codes.
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
    /// Lists, packed ([`Packed`]).
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

    /// The neighbours of `node`, when cached, in ascending order.
    #[inline]
    pub(crate) fn get(&self, node: u32) -> Option<Unpack<'_>> {
        let at = self.start.get(node as usize)?.load(Ordering::Acquire);
        if at == ABSENT {
            return None;
        }
        Some(Unpack::new(&self.words[at as usize..]))
    }

    /// Keeps the neighbours of `node` (checked ids, read from its block) while the
    /// budget lasts.
    pub(crate) fn insert(&self, node: u32, neighbors: &[u32]) {
        let Some(slot) = self.start.get(node as usize) else { return };
        if slot.load(Ordering::Relaxed) != ABSENT || self.used.load(Ordering::Relaxed) >= self.words.len() {
            return;
        }
        let Some(packed) = Packed::of(neighbors) else { return };
        let len = packed.words();
        let at = self.used.fetch_add(len, Ordering::Relaxed);
        if at + len > self.words.len() {
            return;
        }
        packed.write(&self.words[at..at + len]);
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

/// The longest list the cache keeps: the largest degree a graph is built with.
const MAX_LIST: usize = 1024;

/// A list of ids to pack: a header word (the count in the low 16 bits, the width of a gap
/// above), the smallest id, then the gaps between the sorted ids, `width` bits each,
/// from the low bits of a word up and across into the next.
struct Packed {
    sorted: [u32; MAX_LIST],
    count: usize,
    width: u32,
}

impl Packed {
    /// `neighbors` packed, or `None` when there are more than [`MAX_LIST`].
    fn of(neighbors: &[u32]) -> Option<Packed> {
        let count = neighbors.len();
        if count > MAX_LIST {
            return None;
        }
        let mut p = Packed { sorted: [0; MAX_LIST], count, width: 0 };
        p.sorted[..count].copy_from_slice(neighbors);
        p.sorted[..count].sort_unstable();
        let largest = p.ids().windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
        p.width = u32::BITS - largest.leading_zeros();
        Some(p)
    }

    fn ids(&self) -> &[u32] {
        &self.sorted[..self.count]
    }

    /// Words the list takes.
    fn words(&self) -> usize {
        match self.count {
            0 => 1,
            n => 2 + gap_words(n, self.width),
        }
    }

    /// Writes the list into `out`, exactly [`Packed::words`] long.
    fn write(&self, out: &[AtomicU32]) {
        out[0].store(self.count as u32 | self.width << 16, Ordering::Relaxed);
        let ids = self.ids();
        let Some(&first) = ids.first() else { return };
        out[1].store(first, Ordering::Relaxed);
        let gaps = &out[2..];
        let mut acc = 0u64;
        let (mut bits, mut w) = (0, 0);
        for pair in ids.windows(2) {
            acc |= u64::from(pair[1] - pair[0]) << bits;
            bits += self.width;
            if bits >= 32 {
                gaps[w].store(acc as u32, Ordering::Relaxed);
                (acc, bits, w) = (acc >> 32, bits - 32, w + 1);
            }
        }
        if bits > 0 {
            gaps[w].store(acc as u32, Ordering::Relaxed);
        }
    }
}

/// Words the gaps of a packed list of `count` ids (at least one) take, `width` bits each.
fn gap_words(count: usize, width: u32) -> usize {
    ((count - 1) * width as usize).div_ceil(32)
}

/// The ids of a packed list, ascending.
pub(crate) struct Unpack<'a> {
    gaps: &'a [AtomicU32],
    /// The id handed out last (or to hand out first).
    id: u32,
    left: usize,
    width: u32,
    mask: u64,
    /// Bits read ahead of the next gap, and how many.
    acc: u64,
    bits: u32,
    first: bool,
}

impl<'a> Unpack<'a> {
    fn new(words: &'a [AtomicU32]) -> Unpack<'a> {
        let head = words[0].load(Ordering::Relaxed);
        let (left, width) = ((head & 0xffff) as usize, head >> 16);
        let (id, gaps) = match left {
            0 => (0, &words[..0]),
            n => (words[1].load(Ordering::Relaxed), &words[2..2 + gap_words(n, width)]),
        };
        Unpack { gaps, id, left, width, mask: (1u64 << width) - 1, acc: 0, bits: 0, first: true }
    }
}

impl Iterator for Unpack<'_> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        if self.first {
            self.first = false;
            return Some(self.id);
        }
        if self.bits < self.width {
            let (w, rest) = self.gaps.split_first().expect("a packed list holds its gaps");
            self.acc |= u64::from(w.load(Ordering::Relaxed)) << self.bits;
            self.bits += 32;
            self.gaps = rest;
        }
        self.id += (self.acc & self.mask) as u32;
        self.acc >>= self.width;
        self.bits -= self.width;
        Some(self.id)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for Unpack<'_> {}

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
        // 3 words (a header, the first id, the gaps 1 and 7 in 3 bits each), 1 word, 3,
        // then 3 more that do not fit in 9.
        let c = empty(10, 9);
        c.insert(3, &[9, 1, 2]);
        c.insert(3, &[7]);
        c.insert(5, &[]);
        c.insert(8, &[0, 4, 6]);
        c.insert(1, &[2, 3]);
        assert_eq!(c.get(3).unwrap().collect::<Vec<_>>(), [1, 2, 9]);
        assert_eq!(c.get(5).unwrap().len(), 0);
        assert_eq!(c.get(8).unwrap().collect::<Vec<_>>(), [0, 4, 6]);
        assert!(c.get(1).is_none(), "10 words do not fit in 9");
        assert!(c.get(0).is_none() && c.get(99).is_none());
        assert_eq!(c.nodes(), 3);
    }

    /// Lists of every length and gap width come back sorted, in the words predicted.
    #[test]
    fn lists_pack_and_unpack_whole() {
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let mut lists: Vec<Vec<u32>> = vec![vec![], vec![7], vec![5, 5, 5], vec![0, u32::MAX], vec![u32::MAX; 3]];
        for len in [2, 3, 31, 32, 33, 64, 100, MAX_LIST] {
            for bits in [1, 5, 16, 17, 31, 32] {
                let mask = if bits == 32 { u32::MAX } else { (1u32 << bits) - 1 };
                lists.push((0..len).map(|_| next() as u32 & mask).collect());
            }
        }
        let c = empty(lists.len(), lists.len() * (2 + MAX_LIST));
        for (n, list) in lists.iter().enumerate() {
            let words = Packed::of(list).unwrap().words();
            let before = c.used.load(Ordering::Relaxed);
            c.insert(n as u32, list);
            assert_eq!(c.used.load(Ordering::Relaxed) - before, words);
            let mut want = list.clone();
            want.sort_unstable();
            let got = c.get(n as u32).unwrap();
            assert_eq!(got.len(), want.len());
            assert_eq!(got.collect::<Vec<_>>(), want, "list {n}");
        }
        assert!(Packed::of(&vec![1; MAX_LIST + 1]).is_none());
        // 44 ids scattered over 643,493 rows take about half their 4 bytes each.
        let scattered: Vec<u32> = (0..44).map(|_| (next() % 643_493) as u32).collect();
        assert!(Packed::of(&scattered).unwrap().words() <= 26);
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
