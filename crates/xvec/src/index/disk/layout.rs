//! The node blocks of a disk-resident index: every node's full vector, its norm and its
//! neighbours, packed into 4 KiB-aligned blocks so that one hop of a search reads one
//! block per node it expands (DiskANN's sector layout).
//!
//! A node is `[vector][norm f32][count u32][neighbours u32 × degree]`, the vector in the
//! column's own element type (fp32, fp16 or int8, padded to 4 bytes), unused neighbour
//! slots [`NONE`]. A block holds `per_block` nodes in id order from its first byte, zeros
//! after them, and ends with the CRC32C of everything before it, seeded with the block's
//! number, so a flipped byte and a block read from the wrong place are both caught when
//! the block is read. A node longer than one page takes a block of as many whole pages as
//! it needs, alone.

use crate::index::graph::NONE;
use crate::storage::column::{Validity, VectorColumn, VectorData};
use crate::storage::mmap::cast_slice;

/// The page the blocks are aligned to and sized in.
pub(crate) const PAGE: usize = 4096;
/// Bytes of the checksum ending each block.
const TRAILER: usize = 4;

/// The element type of the stored vectors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Elem {
    Fp32,
    Fp16,
    Int8,
}

impl Elem {
    pub(crate) fn of(data: &VectorData) -> Elem {
        match data {
            VectorData::Fp32(_) => Elem::Fp32,
            VectorData::Fp16(_) => Elem::Fp16,
            VectorData::Int8(_) => Elem::Int8,
        }
    }

    /// The element type of a field's vectors.
    pub(crate) fn of_type(t: crate::schema::VectorType) -> Elem {
        use crate::schema::VectorType;
        match t {
            VectorType::Fp32 => Elem::Fp32,
            VectorType::Fp16 => Elem::Fp16,
            VectorType::Int8 => Elem::Int8,
        }
    }

    /// The element's schema name (`fp32`, `fp16`, `int8`).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Elem::Fp32 => "fp32",
            Elem::Fp16 => "fp16",
            Elem::Int8 => "int8",
        }
    }

    fn bytes(self) -> usize {
        match self {
            Elem::Fp32 => 4,
            Elem::Fp16 => 2,
            Elem::Int8 => 1,
        }
    }
}

/// Where each node lies: the sizes every reader and writer derive from the dimension,
/// the element type and the degree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    pub dim: usize,
    pub elem: Elem,
    pub degree: usize,
    pub nodes: usize,
}

/// A block that failed its checks: the byte of the section at fault and what is wrong.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct BlockError {
    pub offset: u64,
    pub what: String,
}

impl Layout {
    /// Bytes of a node's vector, padded so the norm after it is aligned.
    fn vector_bytes(&self) -> usize {
        (self.dim * self.elem.bytes()).next_multiple_of(4)
    }

    /// Bytes of one node.
    pub(crate) fn node_bytes(&self) -> usize {
        self.vector_bytes() + 8 + 4 * self.degree
    }

    /// Bytes of one block: a page, or the whole pages one node needs.
    pub(crate) fn block_len(&self) -> usize {
        (self.node_bytes() + TRAILER).next_multiple_of(PAGE)
    }

    /// Nodes one block holds.
    pub(crate) fn per_block(&self) -> usize {
        (self.block_len() - TRAILER) / self.node_bytes()
    }

    pub(crate) fn blocks(&self) -> usize {
        self.nodes.div_ceil(self.per_block())
    }

    /// Bytes of all the blocks.
    pub(crate) fn bytes(&self) -> u64 {
        (self.blocks() * self.block_len()) as u64
    }

    /// Bytes of the section holding the blocks in an index file: the blocks and a page,
    /// split between the padding that puts the first block on a page boundary and the
    /// rest after the last (so the length is known before the section's offset is).
    pub(crate) fn section_bytes(&self) -> u64 {
        self.bytes() + PAGE as u64
    }

    /// The block holding `node`.
    pub(crate) fn block_of(&self, node: u32) -> usize {
        node as usize / self.per_block()
    }

    /// Where in its block `node` starts.
    pub(crate) fn slot_of(&self, node: u32) -> usize {
        node as usize % self.per_block() * self.node_bytes()
    }

    /// Writes every node of `col` with the neighbours `links` gives, block by block,
    /// through `put` (the section writer: one block in memory at a time).
    pub(crate) fn write<'g, E>(
        &self,
        col: &VectorColumn,
        links: impl Fn(u32) -> &'g [u32],
        mut put: impl FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<(), E> {
        let (nb, vb) = (self.node_bytes(), self.vector_bytes());
        let mut block = vec![0u8; self.block_len()];
        for b in 0..self.blocks() {
            block.fill(0);
            let first = b * self.per_block();
            for (i, node) in (first..(first + self.per_block()).min(self.nodes)).enumerate() {
                let out = &mut block[i * nb..(i + 1) * nb];
                let raw = row_bytes(col, node);
                out[..raw.len()].copy_from_slice(raw);
                out[vb..vb + 4].copy_from_slice(&row_norm(col, node).to_le_bytes());
                let ids = links(node as u32);
                debug_assert!(ids.len() <= self.degree);
                out[vb + 4..vb + 8].copy_from_slice(&(ids.len() as u32).to_le_bytes());
                for s in 0..self.degree {
                    let id = ids.get(s).copied().unwrap_or(NONE);
                    out[vb + 8 + 4 * s..vb + 12 + 4 * s].copy_from_slice(&id.to_le_bytes());
                }
            }
            let end = block.len() - TRAILER;
            let crc = block_crc(b, &block[..end]);
            block[end..].copy_from_slice(&crc.to_le_bytes());
            put(&block)?;
        }
        Ok(())
    }

    /// Checks block `b` as read (`bytes`, `block_len` long, 4-byte aligned): its checksum,
    /// then every node's count and neighbour ids, so search never follows a bad id.
    pub(crate) fn check_block(&self, b: usize, bytes: &[u8]) -> Result<(), BlockError> {
        let at = (b * self.block_len()) as u64;
        let end = bytes.len() - TRAILER;
        let stored = u32::from_le_bytes(bytes[end..].try_into().expect("4 bytes"));
        if stored != block_crc(b, &bytes[..end]) {
            return Err(BlockError { offset: at, what: format!("node block {b}: checksum mismatch") });
        }
        let first = b * self.per_block();
        for node in first..(first + self.per_block()).min(self.nodes) {
            let slot = self.slot_of(node as u32);
            let n = self.node(&bytes[slot..slot + self.node_bytes()]);
            let bad = |i: usize, what: String| BlockError {
                offset: at + (slot + self.vector_bytes() + 4 + 4 * i) as u64,
                what: format!("node block {b}, node {node}: {what}"),
            };
            if n.count > self.degree {
                return Err(bad(0, format!("{} neighbours, more than the degree {}", n.count, self.degree)));
            }
            if let Some(i) = n.neighbors().iter().position(|&id| id as usize >= self.nodes) {
                return Err(bad(1 + i, format!("neighbour {} is out of range for {} nodes", n.links[i], self.nodes)));
            }
        }
        Ok(())
    }

    /// The nodes of block `b`, given its checked bytes, each with its id.
    pub(crate) fn nodes_of<'a>(&'a self, b: usize, block: &'a [u8]) -> impl Iterator<Item = (u32, Node<'a>)> + 'a {
        let first = b * self.per_block();
        (first..(first + self.per_block()).min(self.nodes)).map(move |m| {
            let at = self.slot_of(m as u32);
            (m as u32, self.node(&block[at..at + self.node_bytes()]))
        })
    }

    /// The node starting at `bytes` (one node's bytes of a checked block).
    pub(crate) fn node<'a>(&self, bytes: &'a [u8]) -> Node<'a> {
        let vb = self.vector_bytes();
        let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        Node {
            vector: &bytes[..self.dim * self.elem.bytes()],
            norm: [f32::from_bits(word(vb))],
            count: word(vb + 4) as usize,
            links: cast_slice(&bytes[vb + 8..vb + 8 + 4 * self.degree]).expect("node blocks are 4-byte aligned"),
            elem: self.elem,
            dim: self.dim,
        }
    }
}

/// The bytes of row `r` of `col` as a node stores them (before the padding).
pub(crate) fn row_bytes<'a>(col: &VectorColumn<'a>, r: usize) -> &'a [u8] {
    let range = r * col.dim..(r + 1) * col.dim;
    match col.data {
        VectorData::Fp32(d) => crate::storage::mmap::as_bytes(&d[range]),
        VectorData::Fp16(d) => crate::storage::mmap::as_bytes(&d[range]),
        VectorData::Int8(d) => crate::storage::mmap::as_bytes(&d[range]),
    }
}

/// The norm a node of row `r` stores: the column's, or 1 where it keeps none.
pub(crate) fn row_norm(col: &VectorColumn, r: usize) -> f32 {
    col.norms.map_or(1.0, |n| n[r])
}

/// The checksum of block `b`'s bytes before its trailer.
fn block_crc(b: usize, bytes: &[u8]) -> u32 {
    crc32c::crc32c_append(crc32c::crc32c(&(b as u64).to_le_bytes()), bytes)
}

/// One node read from a block.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Node<'a> {
    vector: &'a [u8],
    norm: [f32; 1],
    count: usize,
    links: &'a [u32],
    elem: Elem,
    dim: usize,
}

impl<'a> Node<'a> {
    /// Its neighbours (in range once the block was checked).
    pub(crate) fn neighbors(&self) -> &'a [u32] {
        &self.links[..self.count.min(self.links.len())]
    }

    /// Its vector's bytes, in the column's element type (what verify compares with the
    /// segment's row).
    pub(crate) fn vector_bytes(&self) -> &'a [u8] {
        self.vector
    }

    pub(crate) fn norm(&self) -> f32 {
        self.norm[0]
    }

    /// The neighbour count as stored (at most the degree once the block was checked).
    pub(crate) fn count(&self) -> usize {
        self.count
    }

    /// Its vector as a one-row column, for the field's own distance kernels.
    pub(crate) fn column(&self) -> VectorColumn<'_> {
        let cast = "node vectors are aligned to their element";
        let data = match self.elem {
            Elem::Fp32 => VectorData::Fp32(cast_slice(self.vector).expect(cast)),
            Elem::Fp16 => VectorData::Fp16(cast_slice(self.vector).expect(cast)),
            Elem::Int8 => VectorData::Int8(cast_slice(self.vector).expect(cast)),
        };
        VectorColumn { dim: self.dim, validity: Validity(None), data, norms: Some(&self.norm) }
    }
}
