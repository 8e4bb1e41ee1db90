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

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use serde::{Deserialize, Serialize};

use crate::error::StorageError;
use crate::index::graph::{BuildControl, BuildProgress};
use crate::index::graph_index::{GraphIndex, GraphIndexView};
use crate::index::hnsw::{self, GraphView};
use crate::index::ivf::sketches::ListSketches;
use crate::index::ivf::{self, IvfView};
use crate::index::quant::rotation::Rotation;
use crate::index::quant::sketch::Sketches;
use crate::index::quant::{Codes, Quantizer};
use crate::index::vamana;
use crate::kernels;
use crate::schema::{HnswParams, IndexParams, Metric, Quantize, VectorSpec};
use crate::storage::column::VectorColumn;
use crate::storage::mmap::{FileBytes, cast_slice};

mod file;
mod search;
#[cfg(test)]
mod tests;

pub use file::write_with_graph_index;
use file::{encode, write_index};
pub use search::{SearchParams, SearchPath, SearchRoute, scratch_bytes};

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
pub const CODE_SECTIONS: [u16; 3] = [Kind::Codes as u16, Kind::Params as u16, Kind::Sketches as u16];

/// Name of an index file's section kind, for reports (`verify`, `inspect`).
pub fn section_name(kind: u16) -> Option<&'static str> {
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

/// What an index file describes about itself.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndexMeta {
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

/// An open index of one field of one segment.
pub struct SegmentIndex {
    path: PathBuf,
    bytes: FileBytes,
    meta: IndexMeta,
    quantizer: Option<Quantizer>,
    /// The stored rotation: of the codes (when rotated) and of the sketches.
    rotation: Option<Rotation>,
    codes: Option<(Range<usize>, Range<usize>)>,
    sketches: Option<Range<usize>>,
    graph: Option<[Range<usize>; 4]>,
    /// The Vamana adjacency section.
    adjacency: Option<Range<usize>>,
    /// The IVF centroids, list offsets and list entries.
    ivf: Option<[Range<usize>; 3]>,
    /// `|c|²` of every IVF centroid, computed at open (a float per list).
    centroid_norms: Vec<f32>,
    /// The IVF centroids as int8 codes, made at open for a segment with many lists.
    coarse: Option<ivf::CoarseCodes>,
    /// The IVF entries' sketches, and the first block of every list (computed at open).
    list_sketches: Option<Range<usize>>,
    list_blocks: Vec<usize>,
}

impl std::fmt::Debug for SegmentIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SegmentIndex").field("path", &self.path).field("meta", &self.meta).finish()
    }
}

/// Bytes of an index by kind, for memory accounting.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IndexBytes {
    /// Codes and their params.
    pub codes: u64,
    pub sketches: u64,
    pub graph: u64,
    /// IVF centroids, list offsets and entries.
    pub lists: u64,
}

fn quantizer_for(spec: &VectorSpec, rotation: Option<Rotation>) -> Option<Quantizer> {
    let q = spec.index.quant();
    (q.quantize != Quantize::None).then(|| Quantizer::new(q.quantize, q.bits, spec.dim as usize, spec.metric, rotation))
}

/// Whether an index of `spec` keeps sketches: graph indexes do.
fn keeps_sketches(spec: &VectorSpec) -> bool {
    matches!(spec.index, IndexParams::Hnsw(_) | IndexParams::Vamana(_))
}

/// Whether the index's codes are the sign bits of its sketches (one-bit RaBitQ of the
/// rotated rows of a graph index), read in place from the sketches section: the bits are
/// stored once, and a code row is one aligned 64-byte line at d = 384 (not 48 bytes
/// straddling two).
fn codes_in_sketches(index: &IndexParams) -> bool {
    let q = index.quant();
    matches!(index, IndexParams::Hnsw(_) | IndexParams::Vamana(_))
        && q.quantize == Quantize::Rabitq
        && q.bits == 1
        && q.rotate
}

/// Whether an index of `spec` stores a rotation: for rotated codes, or for sketches (of
/// rows, or of IVF entries).
fn keeps_rotation(spec: &VectorSpec) -> bool {
    let quant = spec.index.quant();
    (quant.quantize != Quantize::None && quant.rotate) || keeps_sketches(spec) || spec.index.ivf().is_some()
}

/// Builds the index of `col` described by `spec` and writes it to `path`. Returns the
/// file size, or `None` when cancelled.
#[allow(clippy::too_many_arguments)]
pub fn build(
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
    if let IndexParams::Ivf(p) = &spec.index {
        let Some(lists) = ivf::build(spec.metric, col, rows, p, &control) else { return Ok(None) };
        encoded.encode_lists(spec, col, lists);
        return write_index(path, segment_id, field, spec, rows, &encoded, None).map(Some);
    }
    let mut graph = match &spec.index {
        IndexParams::Hnsw(p) => match hnsw::build(k, spec.metric, col, rows, p, encoded.screen(spec.dim), &control) {
            Some(g) => Some(GraphIndex::Hnsw(g)),
            None => return Ok(None),
        },
        IndexParams::Vamana(p) => match vamana::build(k, spec.metric, col, rows, p, &control) {
            Some(g) => Some(GraphIndex::Vamana(g)),
            None => return Ok(None),
        },
        IndexParams::Flat(_) | IndexParams::Ivf(_) => {
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
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn meta(&self) -> &IndexMeta {
        &self.meta
    }

    fn slice<T: crate::storage::mmap::Plain>(&self, r: &Range<usize>) -> Option<&[T]> {
        cast_slice(&self.bytes.as_slice()[r.clone()])
    }

    /// The graph, for HNSW indexes.
    pub fn graph(&self) -> Option<GraphView<'_>> {
        let [l, b, o, u] = self.graph.as_ref()?;
        let IndexParams::Hnsw(HnswParams { m, .. }) = self.meta.params else { return None };
        Some(GraphView {
            m: m as usize,
            m0: 2 * m as usize,
            entry: self.meta.entry,
            max_level: self.meta.max_level as usize,
            levels: &self.bytes.as_slice()[l.clone()],
            base: self.slice(b)?,
            upper_offsets: self.slice(o)?,
            upper: self.slice(u)?,
        })
    }

    /// The graph, for Vamana indexes.
    pub fn vamana(&self) -> Option<vamana::GraphView<'_>> {
        let r = self.adjacency.as_ref()?;
        let IndexParams::Vamana(p) = &self.meta.params else { return None };
        Some(vamana::GraphView { degree: p.degree as usize, medoid: self.meta.entry, adjacency: self.slice(r)? })
    }

    /// The graph, for HNSW and Vamana indexes.
    pub fn graph_index(&self) -> Option<GraphIndexView<'_>> {
        match self.graph() {
            Some(g) => Some(GraphIndexView::Hnsw(g)),
            None => self.vamana().map(GraphIndexView::Vamana),
        }
    }

    /// The quantizer the codes were made with (rotation included), for quantized indexes.
    pub fn quantizer(&self) -> Option<&Quantizer> {
        self.quantizer.as_ref()
    }

    /// The codes, for quantized indexes.
    pub fn codes(&self) -> Option<Codes<'_>> {
        let (c, p) = self.codes.as_ref()?;
        let qz = self.quantizer.as_ref()?;
        let (codes, params) = (&self.bytes.as_slice()[c.clone()], self.slice(p)?);
        Some(if self.codes_in_sketches() { qz.view_in_sketches(codes, params) } else { qz.view(codes, params) })
    }

    /// Whether the codes are read from the sketches section (see [`codes_in_sketches`]);
    /// files written before that have a codes section of their own.
    fn codes_in_sketches(&self) -> bool {
        matches!((&self.codes, &self.sketches), (Some((c, _)), Some(s)) if c == s)
    }

    /// The stored rotation (of rotated codes and of sketches).
    pub fn rotation(&self) -> Option<&Rotation> {
        self.rotation.as_ref()
    }

    /// The rows' sketches, for graph indexes.
    pub fn sketches(&self) -> Option<Sketches<'_>> {
        Some(Sketches { words: self.slice(self.sketches.as_ref()?)?, dim: self.meta.dim as usize })
    }

    /// The lists, for IVF indexes.
    pub fn ivf(&self) -> Option<IvfView<'_>> {
        let [c, o, i] = self.ivf.as_ref()?;
        Some(IvfView {
            dim: self.meta.dim as usize,
            centroids: self.slice(c)?,
            offsets: self.slice(o)?,
            ids: self.slice(i)?,
        })
    }

    /// The sketches of the IVF entries, for IVF indexes.
    pub fn list_sketches(&self) -> Option<ListSketches<'_>> {
        let r = self.list_sketches.as_ref()?;
        ListSketches::new(&self.bytes.as_slice()[r.clone()], self.meta.dim as usize, &self.list_blocks)
    }

    pub fn bytes_by_kind(&self) -> IndexBytes {
        let sketches = [&self.sketches, &self.list_sketches].into_iter().flatten().map(|r| r.len() as u64).sum();
        let own = |c: &Range<usize>| if self.codes_in_sketches() { 0 } else { c.len() };
        let codes = self.codes.as_ref().map_or(0, |(c, p)| (own(c) + p.len()) as u64);
        let hnsw = self.graph.as_ref().map_or(0, |g| g.iter().map(|r| r.len() as u64).sum());
        let vamana = self.adjacency.as_ref().map_or(0, |r| r.len() as u64);
        let coarse = self.coarse.as_ref().map_or(0, |c| c.heap_bytes() as u64);
        let lists = self.ivf.as_ref().map_or(0, |l| l.iter().map(|r| r.len() as u64).sum::<u64>()) + coarse;
        IndexBytes { codes, sketches, graph: hnsw + vamana, lists }
    }

    /// The index with its centroids ranked in f32 only, to compare with their codes.
    #[cfg(test)]
    pub fn without_coarse_codes(mut self) -> SegmentIndex {
        self.coarse = None;
        self
    }

    pub fn file_len(&self) -> u64 {
        self.bytes.as_slice().len() as u64
    }
}
