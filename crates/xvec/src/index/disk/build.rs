//! The node blocks of a segment: Vamana's graph (built as for the in-memory kind, every
//! row linked to the entry) written with the rows' vectors in [`Layout`] order.

use super::layout::{Elem, Layout};
use crate::index::vamana::GraphView;
use crate::storage::column::VectorColumn;

/// The layout of the blocks of `rows` rows of `col` under graph `g`.
pub(crate) fn layout_of(col: &VectorColumn, rows: usize, g: &GraphView) -> Layout {
    Layout { dim: col.dim, elem: Elem::of(&col.data), degree: g.degree, nodes: rows }
}

/// Writes the blocks of `col` and `g` through `put`, block by block.
pub(crate) fn write_blocks<E>(
    col: &VectorColumn,
    rows: usize,
    g: &GraphView,
    put: impl FnMut(&[u8]) -> Result<(), E>,
) -> Result<(), E> {
    layout_of(col, rows, g).write(col, |node| g.neighbors(node), put)
}
