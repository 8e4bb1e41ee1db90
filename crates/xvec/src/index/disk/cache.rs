//! The nodes a disk-resident search reads from memory instead of the file: the entry's
//! neighbourhood, breadth-first from the medoid, as many whole levels (and the part of
//! the next that fits) as the byte budget holds. Every search starts at the medoid and
//! its first hops pass through these nodes, so they are the hottest there are (DiskANN's
//! `cache_bfs_levels`); filled once at open, never changed.

use std::collections::HashMap;

use super::DiskGraph;
use crate::error::StorageError;

/// Cached nodes, copied out of their blocks.
#[derive(Debug, Default)]
pub(crate) struct NodeCache {
    /// Node id to its slot in `nodes`.
    slots: HashMap<u32, u32>,
    /// `node_bytes` per slot, as in a block (words, so the node's fields are aligned).
    nodes: Vec<u64>,
    node_bytes: usize,
}

/// Blocks read per batch while filling.
const FILL_BATCH: usize = 64;

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
        let mut bytes: Vec<u8> = Vec::with_capacity(cap * node_bytes);
        // Slots are given in breadth-first order, the order the nodes' bytes are copied in.
        let mut level = vec![g.medoid()];
        cache.slots.insert(g.medoid(), 0);
        let mut buf = Vec::new();
        let mut slot = 1u32;
        // Once the budget is spoken for no node is added, so the last level read ends it.
        while !level.is_empty() {
            let mut next = Vec::new();
            for chunk in level.chunks(FILL_BATCH) {
                let blocks: Vec<usize> = chunk.iter().map(|&n| layout.block_of(n)).collect();
                g.read_blocks(&blocks, &mut buf)?;
                let all = super::as_bytes(&buf);
                for (i, &node) in chunk.iter().enumerate() {
                    let at = i * layout.block_len() + layout.slot_of(node);
                    let raw = &all[at..at + node_bytes];
                    bytes.extend_from_slice(raw);
                    for &nb in layout.node(raw).neighbors() {
                        if cache.slots.len() >= cap {
                            continue;
                        }
                        if let std::collections::hash_map::Entry::Vacant(e) = cache.slots.entry(nb) {
                            e.insert(slot);
                            slot += 1;
                            next.push(nb);
                        }
                    }
                }
            }
            level = next;
        }
        cache.nodes = vec![0u64; bytes.len().div_ceil(8)];
        super::bytes_mut(&mut cache.nodes)[..bytes.len()].copy_from_slice(&bytes);
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
