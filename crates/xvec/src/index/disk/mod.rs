//! The disk-resident index (DiskANN): a Vamana graph whose nodes live in 4 KiB-aligned
//! blocks of the index file together with their full vectors ([`layout`]), read as a
//! search needs them (through the searching thread's io_uring, many at once, and past the
//! page cache under a memory budget), never mapped. What stays in memory is small: the
//! rows' RaBitQ codes (from the index's quantization), which rank the neighbours of every
//! node a search expands, and a cache of neighbour lists ([`cache`]), which lets a search
//! expand a node without reading its block. A search keeps `width` reads in flight,
//! scores every node it reads exactly from the vector in its block, and reads the blocks
//! of the best candidates it expanded from the cache at the end ([`search`]).
//!
//! The graph is Vamana's own build ([`build`]); only where it is kept differs.

pub(crate) mod build;
pub(crate) mod cache;
pub(crate) mod layout;
pub(crate) mod search;
#[cfg(test)]
mod tests;

use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::StorageError;
use crate::storage::block_reads::{self, BlockReads, MAX_IN_FLIGHT};
use crate::storage::disk::DiskFile;
use cache::NodeCache;
use layout::Layout;

/// Blocks [`DiskGraph::walk`] reads at once (one read of consecutive blocks).
const WALK_BATCH: usize = 64;

/// An open set of node blocks: the file they are read from, where they start, and the
/// cache of neighbour lists.
#[derive(Debug)]
pub(crate) struct DiskGraph {
    layout: Layout,
    medoid: u32,
    file: DiskFile,
    /// File offset of block 0 (a multiple of [`layout::PAGE`]).
    base: u64,
    cache: NodeCache,
    counters: Counters,
}

/// What searches of one graph have read, for `stats` and the benchmark.
#[derive(Debug, Default)]
struct Counters {
    searches: AtomicU64,
    blocks_read: AtomicU64,
    cache_hits: AtomicU64,
}

/// What one graph holds and has done.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct DiskStats {
    /// Nodes in the cache, and its bytes.
    pub cached_nodes: u64,
    pub cache_bytes: u64,
    /// Bytes of node blocks on disk.
    pub block_bytes: u64,
    pub searches: u64,
    /// Blocks read from the file by those searches (each one `pread`).
    pub blocks_read: u64,
    /// Expanded nodes the cache served instead.
    pub cache_hits: u64,
}

impl DiskGraph {
    /// Opens the blocks of `layout` at `base` in `file`, with a cache of up to
    /// `cache_budget` bytes filled from the medoid outwards (the reads it takes happen
    /// now).
    pub(crate) fn open(
        file: DiskFile,
        base: u64,
        layout: Layout,
        medoid: u32,
        cache_budget: u64,
    ) -> Result<DiskGraph, StorageError> {
        if !base.is_multiple_of(layout::PAGE as u64) {
            return Err(StorageError::corrupted(file.path(), base, "node blocks are not page aligned"));
        }
        if layout.nodes > 0 && medoid as usize >= layout.nodes {
            let what = format!("entry node {medoid} is out of range for {} nodes", layout.nodes);
            return Err(StorageError::corrupted(file.path(), base, what));
        }
        let mut g =
            DiskGraph { layout, medoid, file, base, cache: NodeCache::default(), counters: Counters::default() };
        g.cache = NodeCache::fill(&g, cache_budget)?;
        Ok(g)
    }

    pub(crate) fn layout(&self) -> &Layout {
        &self.layout
    }

    pub(crate) fn medoid(&self) -> u32 {
        self.medoid
    }

    /// Reads `blocks` (block numbers), many at once through `reads`, checks each and
    /// hands it to `visit` in the order of `blocks` (the order reads come back in): its
    /// index in `blocks` and its bytes. A read or a check that fails ends it, with every
    /// read in flight waited out.
    pub(crate) fn read_each(
        &self,
        blocks: &[usize],
        reads: &mut BlockReads,
        mut visit: impl FnMut(usize, &[u8]),
    ) -> Result<(), StorageError> {
        let r = self.read_each_inner(blocks, reads, &mut visit);
        if r.is_err() {
            reads.drain();
        }
        r
    }

    fn read_each_inner(
        &self,
        blocks: &[usize],
        reads: &mut BlockReads,
        visit: &mut impl FnMut(usize, &[u8]),
    ) -> Result<(), StorageError> {
        reads.prepare(blocks.len().min(MAX_IN_FLIGHT), self.layout.block_len());
        // Which entry of `blocks` each slot is reading.
        let mut reading = vec![0usize; reads.slots()];
        let mut next = 0;
        for (slot, at) in reading.iter_mut().enumerate().take(blocks.len()) {
            reads.submit(&self.file, self.offset(blocks[next]), slot)?;
            *at = next;
            next += 1;
        }
        while let Some(slot) = self.landed(reads, |slot| blocks[reading[slot]])? {
            let i = reading[slot];
            visit(i, reads.slot(slot));
            if next < blocks.len() {
                reads.submit(&self.file, self.offset(blocks[next]), slot)?;
                reading[slot] = next;
                next += 1;
            }
        }
        Ok(())
    }

    /// Waits for the next read and hands back its slot once the block it read (numbered
    /// by `block_in`, from the slot) came whole and passed its check; `None` when no read
    /// is in flight.
    fn landed(&self, reads: &mut BlockReads, block_in: impl Fn(usize) -> usize) -> Result<Option<usize>, StorageError> {
        let Some((slot, done)) = reads.wait() else { return Ok(None) };
        done.map_err(|e| StorageError::io(self.file.path(), e))?;
        self.layout.check_block(block_in(slot), reads.slot(slot)).map_err(|e| self.corrupt(e))?;
        Ok(Some(slot))
    }

    /// Reads every block in order, [`WALK_BATCH`] at a time, and hands each to `visit`:
    /// its number, and its bytes or what its check found (at its file offset). For verify
    /// and inspect, which look at the whole graph; a read error ends the walk.
    pub(crate) fn walk(&self, mut visit: impl FnMut(usize, Result<&[u8], StorageError>)) -> Result<(), StorageError> {
        let (len, blocks) = (self.layout.block_len(), self.layout.blocks());
        let mut buf = block_reads::pages(WALK_BATCH * len);
        for first in (0..blocks).step_by(WALK_BATCH) {
            let n = WALK_BATCH.min(blocks - first);
            let bytes = &mut block_reads::as_bytes_mut(&mut buf)[..n * len];
            self.file.read_exact_at(self.offset(first), bytes)?;
            for (i, chunk) in bytes.chunks_exact(len).enumerate() {
                let b = first + i;
                visit(b, self.layout.check_block(b, chunk).map(|()| chunk).map_err(|e| self.corrupt(e)));
            }
        }
        Ok(())
    }

    /// Reads the block of `node` (checked) and gives `f` the node: inspect's view of one.
    /// `node` must be below the layout's count (the caller checks what a user gave).
    pub(crate) fn with_node<R>(&self, node: u32, f: impl FnOnce(layout::Node) -> R) -> Result<R, StorageError> {
        let (at, len) = (self.layout.slot_of(node), self.layout.node_bytes());
        // Words, so the node's floats and ids are aligned as in a block.
        let mut words = vec![0u64; len.div_ceil(8)];
        self.read_each(&[self.layout.block_of(node)], &mut BlockReads::default(), |_, block| {
            bytes_mut(&mut words)[..len].copy_from_slice(&block[at..at + len]);
        })?;
        Ok(f(self.layout.node(&as_bytes(&words)[..len])))
    }

    /// The file offset of block `block`.
    pub(crate) fn block_offset(&self, block: usize) -> u64 {
        self.offset(block)
    }

    /// The error of a block that failed its check, at its file offset.
    fn corrupt(&self, e: layout::BlockError) -> StorageError {
        StorageError::corrupted(self.file.path(), self.base + e.offset, e.what)
    }

    fn offset(&self, block: usize) -> u64 {
        self.base + (block * self.layout.block_len()) as u64
    }

    pub(crate) fn stats(&self) -> DiskStats {
        let c = &self.counters;
        DiskStats {
            cached_nodes: self.cache.nodes() as u64,
            cache_bytes: self.cache.heap_bytes() as u64,
            block_bytes: self.layout.bytes(),
            searches: c.searches.load(Ordering::Relaxed),
            blocks_read: c.blocks_read.load(Ordering::Relaxed),
            cache_hits: c.cache_hits.load(Ordering::Relaxed),
        }
    }

    /// Bytes held in memory (the cache).
    pub(crate) fn heap_bytes(&self) -> usize {
        self.cache.heap_bytes()
    }
}

/// The bytes of a word buffer.
pub(crate) fn as_bytes(words: &[u64]) -> &[u8] {
    crate::storage::mmap::as_bytes(words)
}

fn bytes_mut(words: &mut [u64]) -> &mut [u8] {
    // SAFETY: u64 has no padding and every byte pattern is a valid u8; the length covers
    // exactly the words' bytes.
    unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), std::mem::size_of_val(words)) }
}
