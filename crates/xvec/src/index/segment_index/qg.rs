//! The quantized graph's part of an index file: its blocks and its rotation (see
//! [`crate::index::qg`]), checked at open, where the rotation is decoded once.

use std::ops::Range;

use super::IndexMeta;
use super::KindMeta;
use super::quantization::Bad;
use crate::error::StorageError;
use crate::index::qg::{Layout, QgView};
use crate::index::quant::rotation::Rotation;
use crate::storage::mmap::cast_slice;

/// The sections of a quantized graph, and the rotation open decodes from its own.
pub(crate) struct QgSections {
    blocks: Range<usize>,
    rotation_bytes: Range<usize>,
    /// Decoded by [`QgSections::validate`].
    rotation: Option<Rotation>,
}

impl QgSections {
    pub(super) fn new(blocks: Range<usize>, rotation_bytes: Range<usize>) -> QgSections {
        QgSections { blocks, rotation_bytes, rotation: None }
    }

    /// The graph, once open has decoded the rotation.
    pub(super) fn view<'a>(&'a self, b: &'a [u8], meta: &IndexMeta) -> Option<QgView<'a>> {
        let KindMeta::Qg { entry, degree } = meta.kind else { return None };
        Some(QgView {
            layout: Layout { dim: meta.dim as usize, degree: degree as usize },
            metric: meta.metric,
            entry,
            blocks: cast_slice(&b[self.blocks.clone()])?,
            rotation: self.rotation.as_ref()?,
        })
    }

    /// Bytes of the blocks and the rotation.
    pub(super) fn bytes(&self) -> u64 {
        (self.blocks.len() + self.rotation_bytes.len()) as u64
    }

    /// Decodes the rotation and checks the blocks against `rows` (see
    /// [`QgView::validate`]).
    pub(super) fn validate(
        &mut self,
        b: &[u8],
        meta: &IndexMeta,
        rows: usize,
        meta_offset: u64,
        bad: Bad,
    ) -> Result<(), StorageError> {
        let r = &self.rotation_bytes;
        let rotation = Rotation::decode(&b[r.clone()], meta.dim as usize).map_err(|e| {
            bad(r.start as u64 + e.at.unwrap_or(0) as u64, format!("quantized graph rotation: {}", e.what))
        })?;
        self.rotation = Some(rotation);
        let start = self.blocks.start as u64;
        let g =
            self.view(b, meta).ok_or_else(|| bad(start, "quantized graph blocks are not whole u32 words".into()))?;
        g.validate(rows).map_err(|e| {
            let at = e.at.map_or(meta_offset, |(_, word)| start + 4 * word as u64);
            bad(at, format!("quantized graph: {}", e.what))
        })
    }
}
