//! The nodes a disk-resident search reads from memory instead of the file: the entry's
//! neighbourhood, breadth-first from the medoid, as many whole levels (and the part of
//! the next that fits) as the byte budget holds. Every search starts at the medoid and
//! its first hops pass through these nodes, so they are the hottest there are (DiskANN's
//! `cache_bfs_levels`); filled once at open, never changed.

use std::collections::HashMap;

use super::DiskGraph;
use crate::error::StorageError;
use crate::storage::block_reads::BlockReads;

/// Cached nodes, copied out of their blocks.
#[derive(Debug, Default)]
pub(crate) struct NodeCache {
    /// Node id to its slot in `nodes`.
    slots: HashMap<u32, u32>,
    /// `node_bytes` per slot, as in a block (words, so the node's fields are aligned).
    nodes: Vec<u64>,
    node_bytes: usize,
}

impl NodeCache {
    /// The medoid's neighbourhood of `g`, up to `budget` bytes of nodes.
    pub(crate) fn fill(g: &DiskGraph, budget: u64) -> Result<NodeCache, StorageError> {
        let layout = g.layout();
        let node_bytes = layout.node_bytes();
        let cap = usize::try_from(budget / node_bytes as u64).unwrap_or(usize::MAX).min(layout.nodes);
        let mut cache = NodeCache { slots: HashMap::with_capacity(cap), nodes: Vec::new(), node_bytes };
        if cap == 0 {
            return Ok(cache);
        }
        cache.nodes = vec![0u64; (cap * node_bytes).div_ceil(8)];
        cache.slots.insert(g.medoid(), 0);
        let mut level = vec![g.medoid()];
        let mut reads = BlockReads::default();
        // Once the budget is spoken for no node is added, so the last level read ends it.
        while !level.is_empty() {
            let blocks: Vec<usize> = level.iter().map(|&n| layout.block_of(n)).collect();
            let mut next = Vec::new();
            let NodeCache { slots, nodes, .. } = &mut cache;
            g.read_each(&blocks, &mut reads, |i, block| {
                let node = level[i];
                let at = layout.slot_of(node);
                let raw = &block[at..at + node_bytes];
                let slot = slots[&node] as usize;
                super::bytes_mut(nodes)[slot * node_bytes..(slot + 1) * node_bytes].copy_from_slice(raw);
                for &nb in layout.node(raw).neighbors() {
                    let n = slots.len();
                    if n < cap
                        && let std::collections::hash_map::Entry::Vacant(e) = slots.entry(nb)
                    {
                        e.insert(n as u32);
                        next.push(nb);
                    }
                }
            })?;
            level = next;
        }
        // A graph whose nodes the medoid does not all reach fills fewer slots.
        cache.nodes.truncate((cache.slots.len() * node_bytes).div_ceil(8));
        cache.nodes.shrink_to_fit();
        Ok(cache)
    }

    /// The bytes of `node`, when cached.
    #[inline]
    pub(crate) fn get(&self, node: u32) -> Option<&[u8]> {
        let slot = *self.slots.get(&node)? as usize;
        Some(&super::as_bytes(&self.nodes)[slot * self.node_bytes..(slot + 1) * self.node_bytes])
    }

    pub(crate) fn nodes(&self) -> usize {
        self.slots.len()
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        self.nodes.capacity() * 8 + self.slots.capacity() * 12
    }
}
