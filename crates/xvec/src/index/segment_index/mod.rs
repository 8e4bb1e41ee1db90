//! The index of one vector field in one segment: build it from the segment's rows,
//! persist it as an index file, open it (mapped, validated) and search it.
//!
//! An index file is a [container](crate::storage::container) holding a JSON meta section,
//! the [quantization](quantization)'s sections (rotation, codes and their per-row params,
//! the rows' sketches) as the parameters ask, and the sections of its [kind](kinds) (the
//! HNSW layers, the Vamana adjacency, the IVF lists). Originals
//! are never copied in: an FP32 graph scores against the segment's mapped vectors, and
//! refinement reads them too. Files are written as `NAME.tmp`, fsynced, then renamed, so
//! a half-written file never carries an index file's name.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use serde::{Deserialize, Serialize};

use crate::error::StorageError;
use crate::index::graph::{BuildControl, BuildProgress};
use crate::index::graph_index::GraphIndexView;
#[cfg(test)]
use crate::index::hnsw;
use crate::index::ivf::IvfView;
use crate::index::quant::rotation::Rotation;
use crate::index::quant::sketch::Sketches;
use crate::index::quant::{Codes, Quantizer};
use crate::schema::{IndexParams, Metric, VectorSpec};
use crate::storage::column::VectorColumn;
use crate::storage::container::RawSection;
use crate::storage::mmap::FileBytes;

mod file;
mod kinds;
mod qg;
mod quantization;
mod search;
#[cfg(test)]
mod tests;

use file::{encode, write_index};
pub(crate) use kinds::{Encodes, KindMeta, recodes_in_place};
use kinds::{KindParts, NodeReads, VectorIndex};
use quantization::{CODES, PARAMS, Quantization, ROTATION, SKETCHES};
pub(crate) use search::{SearchParams, scratch_bytes};
pub use search::{SearchPath, SearchRoute};

/// A section kind of an index file: its code in the section table and its name in
/// reports. The meta is every file's; the quantization's are in
/// [`quantization`], each index kind's in [`kinds`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Section {
    code: u16,
    name: &'static str,
}

const META: Section = Section { code: 0, name: "meta" };

/// Section kinds holding codes, their per-row params and sketches: damage confined to
/// these can be repaired by re-encoding the originals, keeping the graph.
pub(crate) const CODE_SECTIONS: [u16; 3] = [CODES.code, PARAMS.code, SKETCHES.code];

/// The section kind of `code`, if any kind of the layer keeps it.
fn section_of(code: u16) -> Option<Section> {
    [META, ROTATION, CODES, PARAMS, SKETCHES].into_iter().find(|s| s.code == code).or_else(|| kinds::kind_section(code))
}

/// Whether a section of `code` is checked as a kind's search reads it, not at open (see
/// [`kinds::checked_as_read`]); verify opens an index whose damage lies only there to
/// name the node blocks at fault.
pub(crate) fn checked_as_read(code: u16) -> bool {
    kinds::checked_as_read(code)
}

/// Name of an index file's section kind, for reports (`verify`, `inspect`).
pub(crate) fn section_name(kind: u16) -> Option<&'static str> {
    section_of(kind).map(|s| s.name)
}

/// The section of `kind` in an index file's table.
fn find(sections: &[RawSection], kind: Section) -> Option<&RawSection> {
    sections.iter().find(|s| s.kind == kind.code)
}

/// What an index file describes about itself (index version 3; see [`MetaV2`] for 2).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct IndexMeta {
    pub params: IndexParams,
    pub rows: u64,
    pub dim: u32,
    pub metric: Metric,
    /// What the index kind records about its structure.
    pub kind: KindMeta,
}

/// The meta of an index file of version 2: the graph's entry point and top level and the
/// IVF calibration beside the params, for every kind (0 and empty where they do not apply).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MetaV2 {
    params: IndexParams,
    rows: u64,
    dim: u32,
    metric: Metric,
    #[serde(default)]
    entry: u32,
    #[serde(default)]
    max_level: u32,
    #[serde(default)]
    recall_probes: Vec<u32>,
}

impl IndexMeta {
    /// The meta of an index file of `version`.
    fn decode(bytes: &[u8], version: u32) -> Result<IndexMeta, serde_json::Error> {
        if version >= 3 {
            return serde_json::from_slice(bytes);
        }
        let m: MetaV2 = serde_json::from_slice(bytes)?;
        let kind = KindMeta::from_v2(&m.params, m.entry, m.max_level, m.recall_probes);
        Ok(IndexMeta { params: m.params, rows: m.rows, dim: m.dim, metric: m.metric, kind })
    }
}

/// An open index of one field of one segment: the file, its kind's sections
/// ([`VectorIndex`]) and its quantization ([`Quantization`]).
pub(crate) struct SegmentIndex {
    path: PathBuf,
    /// The file, or without a mapping all of it but the disk kind's node blocks.
    bytes: FileBytes,
    file_len: u64,
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
    /// A disk index's node cache.
    pub disk_cache: u64,
    /// IVF centroids, list offsets and entries.
    pub lists: u64,
}

/// Which index file, and what it must hold: the file of vector field `field` of segment
/// `segment_id` at `path`, built for `spec` over the segment's `rows` rows. Build, write,
/// read and open all take it, so the five travel together.
#[derive(Clone, Copy, Debug)]
pub(crate) struct IndexTarget<'a> {
    pub path: &'a Path,
    pub segment_id: u64,
    pub field: u16,
    pub spec: &'a VectorSpec,
    pub rows: usize,
}

/// What a disk index may keep in memory beside its file (other kinds ignore it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MemoryShare {
    /// Its share of the handle's memory budget: its codes first, then a node cache in
    /// what is left.
    Budget(u64),
    /// No budget: a node cache of this many bytes, beside the codes.
    Cache(u64),
}

/// Builds the index of `col` for `target` and writes it. Returns the file size, or `None`
/// when cancelled.
pub(crate) fn build(
    target: IndexTarget<'_>,
    col: VectorColumn,
    concurrency: usize,
    progress: &(dyn Fn(BuildProgress) + Sync),
    cancel: &AtomicBool,
) -> Result<Option<u64>, StorageError> {
    Ok(build_within(target, col, concurrency, None, progress, cancel)?.map(|b| b.size))
}

/// A written index: its file's size, and how a disk index's graph was built.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Built {
    pub size: u64,
    pub plan: Option<crate::index::disk::build::BuildPlan>,
}

/// [`build`] within a memory budget of `budget` bytes, which decides how a disk index
/// builds its graph (other kinds build as always). `None` when cancelled.
pub(crate) fn build_within(
    target: IndexTarget<'_>,
    col: VectorColumn,
    concurrency: usize,
    budget: Option<u64>,
    progress: &(dyn Fn(BuildProgress) + Sync),
    cancel: &AtomicBool,
) -> Result<Option<Built>, StorageError> {
    let control = BuildControl { concurrency, progress, cancel };
    let write = |e: &file::Encoded, kind: KindParts| write_parts(target, e, kind);
    let (spec, rows) = (target.spec, target.rows);
    let encode = || encode(spec, kinds::keeps(&spec.index), col, rows);
    kinds::build(spec, col, rows, &encode, budget, &control, &write)
}

/// Writes the index of `col` for `target` around a graph that already exists, with the
/// codes encoded afresh from the originals: how `verify`'s repair replaces damaged codes,
/// or saves a graph whose unreachable nodes it reconnected, without a graph build. `None`
/// writes an index without a graph (Flat).
pub(crate) fn write_with_graph_index(
    target: IndexTarget<'_>,
    col: VectorColumn,
    graph: Option<GraphIndexView>,
) -> Result<u64, StorageError> {
    let kind = graph.map_or_else(KindParts::flat, KindParts::graph);
    let encoded = encode(target.spec, kinds::keeps(&target.spec.index), col, target.rows);
    write_parts(target, &encoded, kind)
}

/// Writes a qg index of `col` for `target` around the graph `g` (as a build made it, or
/// changed): how tests give verify blocks whose CRCs hold but whose content is wrong.
#[cfg(test)]
pub(crate) fn write_qg(
    target: IndexTarget<'_>,
    col: VectorColumn,
    g: &crate::index::qg::QgGraph,
) -> Result<u64, StorageError> {
    let rotation = g.rotation.encode();
    let encoded = encode(target.spec, kinds::keeps(&target.spec.index), col, target.rows);
    write_parts(target, &encoded, KindParts::qg(g, &rotation))
}

/// Writes a disk index for `target` with codes of `col` and node blocks holding graph `g`
/// and the rows of `blocks` (`col`, or rows changed): how tests give verify blocks whose
/// CRCs hold but whose content is wrong.
#[cfg(test)]
pub(crate) fn write_disk(
    target: IndexTarget<'_>,
    col: VectorColumn,
    blocks: VectorColumn,
    g: crate::index::vamana::GraphView,
) -> Result<u64, StorageError> {
    let encoded = encode(target.spec, kinds::keeps(&target.spec.index), col, target.rows);
    write_parts(target, &encoded, KindParts::disk(blocks, target.rows, g))
}

/// Writes the index of `target`: the quantization `e` and the kind's parts.
fn write_parts(target: IndexTarget<'_>, e: &file::Encoded, kind: KindParts) -> Result<u64, StorageError> {
    let spec = target.spec;
    let meta = IndexMeta {
        params: spec.index.clone(),
        rows: target.rows as u64,
        dim: spec.dim,
        metric: spec.metric,
        kind: kind.meta,
    };
    write_index(target, &meta, e, &kind.sections, kind.streamed.as_ref())
}

impl SegmentIndex {
    /// Opens and validates the index file of `target`. With `verify_data`, code and graph
    /// CRCs are checked too (a disk index's node blocks are checked as they are read). A
    /// disk index caches nodes as `memory` allows.
    pub(crate) fn open(
        target: IndexTarget<'_>,
        mmap: bool,
        verify_data: bool,
        memory: MemoryShare,
    ) -> Result<SegmentIndex, StorageError> {
        let file::Read { bytes, file_len, sections, meta, meta_offset } = file::read(target, mmap, verify_data)?;
        let IndexTarget { path, spec, rows, .. } = target;
        let b = bytes.as_slice();
        let bad = |offset: u64, what: String| StorageError::corrupted(path, offset, what);
        let bad: &dyn Fn(u64, String) -> StorageError = &bad;
        let keeps = kinds::keeps(&spec.index);
        let mut quant = Quantization::open_rotation(spec, keeps, rows, b, &sections, bad)?;
        let mut kind = VectorIndex::open(&spec.index, &sections, bad)?;
        quant.open_codes(spec, kind.code_entries(rows), &sections, bad)?;
        if sections.len() != 1 + quant.sections(&sections) + kind.sections() {
            return Err(bad(32, "duplicate sections".into()));
        }
        kind.validate(b, &meta, rows, meta_offset, bad)?;
        quant.validate(b, bad)?;
        // The codes stay in memory whatever the budget; the node cache gets what is left.
        // Under a budget node blocks are read past the page cache, which would otherwise
        // hold them outside it; without one the page cache is a second cache for free.
        let (cache, direct) = match memory {
            MemoryShare::Budget(b) => (b.saturating_sub(quant.bytes().0), true),
            MemoryShare::Cache(c) => (c, false),
        };
        kind.open_reader(path, &meta, spec.elem, NodeReads { cache, direct }, bad)?;
        Ok(SegmentIndex { path: path.to_path_buf(), bytes, file_len, meta, kind, quant })
    }

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

    /// The quantized graph, for qg indexes.
    pub(crate) fn qg_graph(&self) -> Option<crate::index::qg::QgView<'_>> {
        self.kind.qg(self.bytes.as_slice(), &self.meta)
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

    /// The lists, for IVF indexes (inspect's list report).
    pub(crate) fn ivf(&self) -> Option<IvfView<'_>> {
        self.kind.lists(self.bytes.as_slice(), self.meta.dim as usize)
    }

    /// What the codes and sketches encode, by the kind: verify encodes them again.
    pub(crate) fn encodes(&self) -> Option<Encodes<'_>> {
        self.kind.encodes(self.bytes.as_slice(), self.meta.dim as usize)
    }

    /// The sketches of the IVF entries, for IVF indexes.
    #[cfg(test)]
    pub(crate) fn list_sketches(&self) -> Option<crate::index::ivf::sketches::ListSketches<'_>> {
        match self.encodes()? {
            Encodes::ListEntries { sketches, .. } => Some(sketches),
            Encodes::Rows => None,
        }
    }

    pub(crate) fn bytes_by_kind(&self) -> IndexBytes {
        let (codes, sketches) = self.quant.bytes();
        let (graph, lists, own_sketches) = self.kind.bytes();
        let disk_cache = self.kind.disk().map_or(0, |g| g.heap_bytes() as u64);
        IndexBytes { codes, sketches: sketches + own_sketches, graph, disk_cache, lists }
    }

    /// What a disk index holds and has read; `None` for other kinds.
    pub(crate) fn disk_stats(&self) -> Option<crate::index::disk::DiskStats> {
        self.kind.disk().map(|g| g.stats())
    }

    /// The node blocks, for disk indexes (verify and inspect walk them).
    pub(crate) fn disk(&self) -> Option<&crate::index::disk::DiskGraph> {
        self.kind.disk()
    }

    /// The index with its centroids ranked in f32 only, to compare with their codes.
    #[cfg(test)]
    pub(crate) fn without_coarse_codes(mut self) -> SegmentIndex {
        if let Some(s) = self.kind.ivf_sections_mut() {
            s.coarse = None;
        }
        self
    }

    /// Reads the mapped file without read-ahead from now on ([`FileBytes::read_on_demand`]):
    /// for a handle under a memory budget.
    pub(crate) fn read_on_demand(&self) {
        self.bytes.read_on_demand();
    }

    pub(crate) fn file_len(&self) -> u64 {
        self.file_len
    }

    /// Bytes of the file held in memory when it is read rather than mapped (all of it but
    /// a disk index's node blocks); 0 when mapped.
    #[cfg(test)]
    pub(crate) fn held_bytes(&self) -> u64 {
        if self.bytes.is_mapped() { 0 } else { self.bytes.as_slice().len() as u64 }
    }
}
