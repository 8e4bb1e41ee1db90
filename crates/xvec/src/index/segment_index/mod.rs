//! The index of one vector field in one segment: build it from the segment's rows,
//! persist it as an index file, open it (mapped, validated) and search it.
//!
//! An index file is a [container](crate::storage::container) holding a JSON meta section
//! and, as the parameters ask: the rotation, the codes and their per-row params, the rows'
//! sketches (graph indexes), the HNSW levels, base layer, upper offsets
//! and upper layers, the Vamana adjacency, or the IVF centroids, list offsets and list
//! entries (whose codes are in entry order). Originals
//! are never copied in: an FP32 graph scores against the segment's mapped vectors, and
//! refinement reads them too. Files are written as `NAME.tmp`, fsynced, then renamed, so
//! a half-written file never carries an index file's name.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use serde::{Deserialize, Serialize};

use crate::error::StorageError;
use crate::index::graph::{BuildControl, BuildProgress};
use crate::index::graph_index::{GraphIndex, GraphIndexView};
use crate::index::hnsw;
use crate::index::ivf::sketches::ListSketches;
use crate::index::ivf::{self, IvfView};
use crate::index::quant::rotation::Rotation;
use crate::index::quant::sketch::Sketches;
use crate::index::quant::{Codes, Quantizer};
use crate::index::vamana;
use crate::kernels;
use crate::schema::{IndexParams, Metric, VectorSpec};
use crate::storage::column::VectorColumn;
use crate::storage::container::RawSection;
use crate::storage::mmap::FileBytes;

mod file;
mod kinds;
mod quantization;
mod search;
#[cfg(test)]
mod tests;

pub(crate) use file::write_with_graph_index;
use file::{encode, write_index};
use kinds::VectorIndex;
use quantization::Quantization;
pub(crate) use quantization::codes_per_row;
pub(crate) use search::{SearchParams, scratch_bytes};
pub use search::{SearchPath, SearchRoute};

#[repr(u16)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Meta = 0,
    Rotation = 1,
    Codes = 2,
    Params = 3,
    Levels = 4,
    Base = 5,
    UpperOffsets = 6,
    Upper = 7,
    Adjacency = 8,
    Sketches = 9,
    Centroids = 10,
    ListOffsets = 11,
    ListIds = 12,
    ListSketches = 13,
}

/// Section kinds holding codes, their per-row params and sketches: damage confined to
/// these can be repaired by re-encoding the originals, keeping the graph.
pub(crate) const CODE_SECTIONS: [u16; 3] = [Kind::Codes as u16, Kind::Params as u16, Kind::Sketches as u16];

/// Name of an index file's section kind, for reports (`verify`, `inspect`).
pub(crate) fn section_name(kind: u16) -> Option<&'static str> {
    use Kind::*;
    [
        Meta,
        Rotation,
        Codes,
        Params,
        Levels,
        Base,
        UpperOffsets,
        Upper,
        Adjacency,
        Sketches,
        Centroids,
        ListOffsets,
        ListIds,
        ListSketches,
    ]
    .into_iter()
    .find(|k| *k as u16 == kind)
    .map(|k| match k {
        Meta => "meta",
        Rotation => "rotation",
        Codes => "codes",
        Params => "code params",
        Levels => "HNSW levels",
        Base => "HNSW base layer",
        UpperOffsets => "HNSW upper offsets",
        Upper => "HNSW upper layers",
        Adjacency => "Vamana adjacency",
        Sketches => "sketches",
        Centroids => "IVF centroids",
        ListOffsets => "IVF list offsets",
        ListIds => "IVF list entries",
        ListSketches => "IVF list sketches",
    })
}

/// The section of `kind` in an index file's table.
fn find(sections: &[RawSection], kind: Kind) -> Option<&RawSection> {
    sections.iter().find(|s| s.kind == kind as u16)
}

/// What an index file describes about itself.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct IndexMeta {
    pub params: IndexParams,
    pub rows: u64,
    pub dim: u32,
    pub metric: Metric,
    /// Graph entry point (HNSW: a node of the top level; Vamana: the medoid) and top
    /// level (HNSW only).
    #[serde(default)]
    pub entry: u32,
    #[serde(default)]
    pub max_level: u32,
    /// IVF: lists to probe for each percent of recall, `0..=100` (see
    /// [`ivf::calibrate`]); empty for other indexes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub recall_probes: Vec<u32>,
}

/// An open index of one field of one segment: the file, its kind's sections
/// ([`VectorIndex`]) and its quantization ([`Quantization`]).
pub(crate) struct SegmentIndex {
    path: PathBuf,
    bytes: FileBytes,
    meta: IndexMeta,
    kind: VectorIndex,
    quant: Quantization,
}

impl std::fmt::Debug for SegmentIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SegmentIndex").field("path", &self.path).field("meta", &self.meta).finish()
    }
}

/// Bytes of an index by kind, for memory accounting.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct IndexBytes {
    /// Codes and their params.
    pub codes: u64,
    pub sketches: u64,
    pub graph: u64,
    /// IVF centroids, list offsets and entries.
    pub lists: u64,
}

/// Builds the index of `col` described by `spec` and writes it to `path`. Returns the
/// file size, or `None` when cancelled.
#[allow(clippy::too_many_arguments)]
pub(crate) fn build(
    path: &Path,
    segment_id: u64,
    field: u16,
    spec: &VectorSpec,
    col: VectorColumn,
    rows: usize,
    concurrency: usize,
    progress: &(dyn Fn(BuildProgress) + Sync),
    cancel: &AtomicBool,
) -> Result<Option<u64>, StorageError> {
    let k = kernels::best();
    let control = BuildControl { concurrency, progress, cancel };
    let mut encoded = encode(spec, col, rows);
    let mut graph = match &spec.index {
        IndexParams::Ivf(p) => {
            let Some(lists) = ivf::build(spec.metric, col, rows, p, &control) else { return Ok(None) };
            encoded.encode_lists(spec, col, lists);
            return write_index(path, segment_id, field, spec, rows, &encoded, None).map(Some);
        }
        IndexParams::Hnsw(p) => match hnsw::build(k, spec.metric, col, rows, p, encoded.screen(spec.dim), &control) {
            Some(g) => Some(GraphIndex::Hnsw(g)),
            None => return Ok(None),
        },
        IndexParams::Vamana(p) => match vamana::build(k, spec.metric, col, rows, p, &control) {
            Some(g) => Some(GraphIndex::Vamana(g)),
            None => return Ok(None),
        },
        IndexParams::Flat(_) => {
            progress(BuildProgress { done: rows, total: rows });
            None
        }
    };
    // Every row with a vector must be reachable from the entry point, or no search finds it.
    if let Some(g) = &mut graph {
        // `None` (no reachable node with room) leaves the rest for verify to report.
        let _ = g.base_layer().link_unreachable(k, spec.metric, &col, |u| !col.validity.is_valid(u as usize));
    }
    write_index(path, segment_id, field, spec, rows, &encoded, graph.as_ref().map(GraphIndex::view)).map(Some)
}

impl SegmentIndex {
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn meta(&self) -> &IndexMeta {
        &self.meta
    }

    /// The graph, for HNSW indexes (tests look at its levels).
    #[cfg(test)]
    pub(crate) fn graph(&self) -> Option<hnsw::GraphView<'_>> {
        self.kind.hnsw(self.bytes.as_slice(), &self.meta)
    }

    /// The graph, for HNSW and Vamana indexes.
    pub(crate) fn graph_index(&self) -> Option<GraphIndexView<'_>> {
        self.kind.graph(self.bytes.as_slice(), &self.meta)
    }

    /// The quantizer the codes were made with (rotation included), for quantized indexes.
    pub(crate) fn quantizer(&self) -> Option<&Quantizer> {
        self.quant.quantizer.as_ref()
    }

    /// The codes, for quantized indexes.
    pub(crate) fn codes(&self) -> Option<Codes<'_>> {
        self.quant.codes(self.bytes.as_slice())
    }

    /// The stored rotation (of rotated codes and of sketches).
    pub(crate) fn rotation(&self) -> Option<&Rotation> {
        self.quant.rotation.as_ref()
    }

    /// The rows' sketches, for graph indexes.
    pub(crate) fn sketches(&self) -> Option<Sketches<'_>> {
        self.quant.sketches(self.bytes.as_slice(), self.meta.dim as usize)
    }

    /// The lists, for IVF indexes.
    pub(crate) fn ivf(&self) -> Option<IvfView<'_>> {
        self.kind.ivf_sections()?.view(self.bytes.as_slice(), self.meta.dim as usize)
    }

    /// The sketches of the IVF entries, for IVF indexes.
    pub(crate) fn list_sketches(&self) -> Option<ListSketches<'_>> {
        self.kind.ivf_sections()?.sketches(self.bytes.as_slice(), self.meta.dim as usize)
    }

    pub(crate) fn bytes_by_kind(&self) -> IndexBytes {
        let (codes, sketches) = self.quant.bytes();
        let (graph, lists) = self.kind.bytes();
        IndexBytes { codes, sketches: sketches + self.kind.sketch_bytes(), graph, lists }
    }

    /// The index with its centroids ranked in f32 only, to compare with their codes.
    #[cfg(test)]
    pub(crate) fn without_coarse_codes(mut self) -> SegmentIndex {
        if let Some(s) = self.kind.ivf_sections_mut() {
            s.coarse = None;
        }
        self
    }

    pub(crate) fn file_len(&self) -> u64 {
        self.bytes.as_slice().len() as u64
    }
}
