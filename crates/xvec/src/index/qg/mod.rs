//! The quantized graph (SymphonyQG, Gao et al., SIGMOD 2025): a single-layer proximity
//! graph whose every node keeps, in one block, its neighbours' one-bit RaBitQ codes in
//! FastScan layout beside their ids. Expanding a node reads that one block and scores all
//! of its neighbours with [`Kernels::scan_u4`] (two table lookups per byte for 32
//! neighbours at once) instead of reading each neighbour's vector: a beam search over
//! estimated distances. Only the nodes the beam expands are scored exactly, from the
//! segment's own rows (the index holds no copy of the vectors).
//!
//! Each neighbour is coded as its residual `r = x − c` to the node `c` it hangs off (after
//! the rotation, and for cosine after scaling rows to unit length): neighbours are close to
//! their node, so the residuals are short and their estimates tight. Once the expanded
//! node's exact distance `d_c` is known, a neighbour's distance is estimated as
//! `d_c + t − A · S`, where `S = Σ bᵢ qᵢ` is what FastScan sums (`bᵢ = ±1` the residual's
//! signs, `q` the rotated query) and `t`, `A` are the neighbour's stored factors; its
//! error has a standard deviation of `E · |q − c|`, `E` its third factor (RaBitQ's bound;
//! see [`sketch`](crate::index::quant::sketch)).
//!
//! Layout: one `u32` array, [`Layout::stride`] words per node (a multiple of 64 bytes):
//! per group of 32 neighbour slots, `dim.div_ceil(8) × 32` bytes of transposed sign bits
//! (byte `32p + j` holds dimensions `8p..8p + 8` of slot `j`); then the factors `t`, `A`
//! and `E` as `degree` f32 each; then the `degree` neighbour ids, unused slots [`NONE`]
//! (their `t` is +∞). The degree is a multiple of 32.
//!
//! [`Kernels::scan_u4`]: crate::kernels::Kernels::scan_u4

mod build;
mod search;
#[cfg(test)]
mod tests;

#[cfg(test)]
pub(crate) use build::BaseGraph;
pub(crate) use build::{BuildParams, build, reencode_block, same_block};
pub(crate) use search::{QgBeam, QgQuery, QgScratch, search};

pub(crate) use crate::index::graph::NONE;
use crate::index::graph::{GraphError, GraphSection};
use crate::index::quant::rotation::Rotation;
use crate::kernels::SCAN_BLOCK;
use crate::schema::Metric;

/// Neighbour slots per FastScan group: the rows one [`Kernels::scan_u4`] call scores.
///
/// [`Kernels::scan_u4`]: crate::kernels::Kernels::scan_u4
pub(crate) const GROUP: usize = SCAN_BLOCK;

/// Words of a node block's parts, from the dimension and the degree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    pub dim: usize,
    pub degree: usize,
}

impl Layout {
    /// Byte columns of one group's codes: eight dimensions each.
    pub(crate) fn columns(&self) -> usize {
        self.dim.div_ceil(8)
    }

    /// Bytes of one group's codes.
    pub(crate) fn group_bytes(&self) -> usize {
        self.columns() * GROUP
    }

    /// Words of a block's codes (all groups).
    pub(crate) fn code_words(&self) -> usize {
        self.degree / GROUP * self.group_bytes() / 4
    }

    /// Word offset of factor `f` (0 = `t`, 1 = `A`, 2 = `E`) in a block.
    pub(crate) fn factors(&self, f: usize) -> usize {
        self.code_words() + f * self.degree
    }

    /// Word offset of the neighbour ids in a block.
    pub(crate) fn ids(&self) -> usize {
        self.code_words() + 3 * self.degree
    }

    /// Words per node: the parts, padded to a whole number of 64-byte lines.
    pub(crate) fn stride(&self) -> usize {
        (self.ids() + self.degree).next_multiple_of(16)
    }
}

/// A finished quantized graph, borrowed from an index file (mapped) or from a build.
#[derive(Clone, Copy, Debug)]
pub(crate) struct QgView<'a> {
    pub layout: Layout,
    pub metric: Metric,
    /// Where every search starts: the medoid.
    pub entry: u32,
    /// [`Layout::stride`] words per node.
    pub blocks: &'a [u32],
    pub rotation: &'a Rotation,
}

impl<'a> QgView<'a> {
    pub(crate) fn nodes(&self) -> usize {
        self.blocks.len() / self.layout.stride()
    }

    /// The block of `node`.
    #[inline]
    pub(crate) fn block(&self, node: u32) -> &'a [u32] {
        let s = self.layout.stride();
        &self.blocks[node as usize * s..(node as usize + 1) * s]
    }

    /// The neighbour ids of `node`, unused slots included.
    #[inline]
    pub(crate) fn neighbors(&self, node: u32) -> &'a [u32] {
        let at = self.layout.ids();
        &self.block(node)[at..at + self.layout.degree]
    }

    /// Checks everything search relies on, for a graph over `rows` rows: the degree, the
    /// array's size, ids in range (unused slots [`NONE`] with an infinite `t`), finite
    /// factors elsewhere, a valid entry. A hostile file ends here, never in an
    /// out-of-bounds read or a search that runs on NaN.
    pub(crate) fn validate(&self, rows: usize) -> Result<(), GraphError> {
        let whole = |what: String| Err(GraphError { at: None, what });
        let Layout { dim, degree } = self.layout;
        if degree == 0 || !degree.is_multiple_of(GROUP) || dim == 0 {
            return whole(format!("degree {degree} is not a positive multiple of {GROUP} (dimension {dim})"));
        }
        let stride = self.layout.stride();
        if rows.checked_mul(stride) != Some(self.blocks.len()) {
            return whole(format!("blocks hold {} words, expected {rows} nodes × {stride}", self.blocks.len()));
        }
        if rows > 0 && self.entry as usize >= rows {
            return whole(format!("entry {} is out of range for {rows} nodes", self.entry));
        }
        let (ids, t) = (self.layout.ids(), self.layout.factors(0));
        for (node, block) in self.blocks.chunks_exact(stride).enumerate() {
            // `word`: the offending word of the block.
            let bad = |slot: usize, word: usize, what: String| {
                let at = Some((GraphSection::QgBlocks, node * stride + word));
                Err(GraphError { at, what: format!("node {node}, neighbour slot {slot}: {what}") })
            };
            for slot in 0..degree {
                let id = block[ids + slot];
                let factors = [0, 1, 2].map(|f| f32::from_bits(block[t + f * degree + slot]));
                if id == NONE {
                    if factors[0] != f32::INFINITY {
                        return bad(slot, t + slot, format!("unused, but its factor t is {}, not +∞", factors[0]));
                    }
                } else if id as usize >= rows {
                    return bad(slot, ids + slot, format!("neighbour {id} is out of range for {rows} nodes"));
                } else if let Some(f) = (0..3).find(|&f| !factors[f].is_finite()) {
                    return bad(slot, t + f * degree + slot, format!("factor {} is not finite", factors[f]));
                }
            }
        }
        Ok(())
    }
}

/// An owned quantized graph, as a build produces it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct QgGraph {
    pub layout: Layout,
    pub metric: Metric,
    pub entry: u32,
    pub blocks: Vec<u32>,
    pub rotation: Rotation,
}

impl QgGraph {
    #[cfg(test)]
    pub(crate) fn view(&self) -> QgView<'_> {
        QgView {
            layout: self.layout,
            metric: self.metric,
            entry: self.entry,
            blocks: &self.blocks,
            rotation: &self.rotation,
        }
    }
}
