//! The index of one vector field in one segment: build it from the segment's rows,
//! persist it as an index file, open it (mapped, validated) and search it.
//!
//! An index file is a [container](crate::storage::container) holding a JSON meta section
//! and, as the parameters ask: the rotation, the codes and their per-row params, the rows'
//! sketches (graph indexes), the HNSW levels, base layer, upper offsets
//! and upper layers, or the Vamana adjacency. Originals
//! are never copied in: an FP32 graph scores against the segment's mapped vectors, and
//! refinement reads them too. Files are written as `NAME.tmp`, fsynced, then renamed, so
//! a half-written file never carries an index file's name.

use std::cell::RefCell;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use roaring::RoaringBitmap;
use serde::{Deserialize, Serialize};

use super::flat::PreparedQuery;
use super::graph::{Beam, BuildControl, BuildProgress, GraphSection, SearchScratch};
use super::graph_index::{GraphIndex, GraphIndexView};
use super::hnsw::{self, GraphView};
use super::quant::rotation::Rotation;
use super::quant::sketch::{self, Screen, SketchQuery, Sketches};
use super::quant::{Codes, PARAMS_PER_ROW, QuantScratch, Quantizer};
use super::scorer::{CodeScorer, Originals, Scored, Scorer};
use super::topk::{Candidate, Sink, TopK};
use super::vamana;
use crate::error::StorageError;
use crate::kernels;
use crate::schema::{HnswParams, IndexParams, Metric, Quantize, VectorSpec};
use crate::storage::FileKind;
use crate::storage::column::VectorColumn;
use crate::storage::container::{self, ContainerWriter, RawSection};
use crate::storage::mmap::{FileBytes, cast_slice};

/// Neighbours an unfiltered graph search meets (screens or scores), per `ef × fanout`.
/// Measured on wordnet-minilm-384 (HNSW m=16, ef=64: about 0.4 × 64 × 32 ≈ 820). The
/// choice it drives was re-measured with sketches: see `docs/format.md`.
pub const GRAPH_DISTANCES_PER_EF_FANOUT: f64 = 0.4;

/// Cost model of a filtered search (see `docs/format.md`, "Filtered search"). Both paths
/// are bound by reading rows, so their cost is the number of distances computed: a graph
/// search needs about `0.4 × ef × fanout` divided by the share of allowed rows it must
/// wade through; an exact scan one per allowed row.
fn prefer_exact(rows: usize, allowed: usize, ef: usize, fanout: usize) -> bool {
    if fanout == 0 {
        return true;
    }
    if allowed == rows {
        return false;
    }
    let share = allowed as f64 / rows.max(1) as f64;
    let graph = GRAPH_DISTANCES_PER_EF_FANOUT * (ef * fanout) as f64 / share.max(1e-9);
    (allowed as f64) < graph
}

/// Originals being loaded while one is re-ranked.
const REFINE_AHEAD: usize = 2;

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
}

/// Section kinds holding codes, their per-row params and sketches: damage confined to
/// these can be repaired by re-encoding the originals, keeping the graph.
pub const CODE_SECTIONS: [u16; 3] = [Kind::Codes as u16, Kind::Params as u16, Kind::Sketches as u16];

/// Name of an index file's section kind, for reports (`verify`, `inspect`).
pub fn section_name(kind: u16) -> Option<&'static str> {
    use Kind::*;
    [Meta, Rotation, Codes, Params, Levels, Base, UpperOffsets, Upper, Adjacency, Sketches]
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
}

/// Per-query options an index search needs.
#[derive(Clone, Copy, Debug)]
pub struct SearchParams<'a> {
    pub k: usize,
    pub ef: usize,
    /// Re-rank `refine × k` candidates with the originals (quantized indexes only).
    pub refine: usize,
    pub allowed: Option<&'a RoaringBitmap>,
    /// Position of the segment in the snapshot, for the merged top-k.
    pub position: u32,
}

thread_local! {
    static SCRATCH: RefCell<(SearchScratch, QuantScratch, Vec<Scored>, Vec<f32>)> = RefCell::default();
    /// What this thread last added to [`SCRATCH_BYTES`].
    static COUNTED: Counted = const { Counted(std::cell::Cell::new(0)) };
}

/// A thread's share of [`SCRATCH_BYTES`], given back when the thread ends.
struct Counted(std::cell::Cell<u64>);

impl Drop for Counted {
    fn drop(&mut self) {
        SCRATCH_BYTES.fetch_sub(self.0.get(), Ordering::Relaxed);
    }
}

/// Heap bytes of every thread's search scratch, kept current after each search.
static SCRATCH_BYTES: AtomicU64 = AtomicU64::new(0);

/// Heap bytes of the search scratch of all threads that searched an index.
pub fn scratch_bytes() -> u64 {
    SCRATCH_BYTES.load(Ordering::Relaxed)
}

fn quantizer_for(spec: &VectorSpec, rotation: Option<Rotation>) -> Option<Quantizer> {
    let q = spec.index.quant();
    (q.quantize != Quantize::None).then(|| Quantizer::new(q.quantize, spec.dim as usize, spec.metric, rotation))
}

/// Whether an index of `spec` keeps sketches: graph indexes do.
fn keeps_sketches(spec: &VectorSpec) -> bool {
    !matches!(spec.index, IndexParams::Flat(_))
}

/// Whether an index of `spec` stores a rotation: for rotated codes, or for sketches.
fn keeps_rotation(spec: &VectorSpec) -> bool {
    let quant = spec.index.quant();
    (quant.quantize != Quantize::None && quant.rotate) || keeps_sketches(spec)
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
    let encoded = encode(spec, col, rows);
    let mut graph = match &spec.index {
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

/// Writes the index of `col` for `spec` around a graph that already exists, with the codes
/// encoded afresh from the originals: how `verify`'s repair replaces damaged codes, or
/// saves a graph whose unreachable nodes it reconnected, without a graph build.
pub fn write_with_graph_index(
    path: &Path,
    segment_id: u64,
    field: u16,
    spec: &VectorSpec,
    col: VectorColumn,
    rows: usize,
    graph: Option<GraphIndexView>,
) -> Result<u64, StorageError> {
    write_index(path, segment_id, field, spec, rows, &encode(spec, col, rows), graph)
}

/// [`write_with_graph_index`] for callers that hold the HNSW and Vamana graphs apart
/// (the HNSW one wins when both are given).
#[allow(clippy::too_many_arguments)]
pub fn write_with_graph(
    path: &Path,
    segment_id: u64,
    field: u16,
    spec: &VectorSpec,
    col: VectorColumn,
    rows: usize,
    graph: Option<&hnsw::Graph>,
    adjacency: Option<&vamana::Graph>,
) -> Result<u64, StorageError> {
    let graph = match (graph, adjacency) {
        (Some(g), _) => Some(GraphIndexView::Hnsw(g.view())),
        (None, v) => v.map(|v| GraphIndexView::Vamana(v.view())),
    };
    write_with_graph_index(path, segment_id, field, spec, col, rows, graph)
}

/// The codes of every row (quantized indexes only), their sketches (graph indexes) and
/// the rotation they were made with.
struct Encoded {
    rotation: Option<Rotation>,
    codes: Option<(Vec<u8>, Vec<f32>)>,
    sketches: Option<Vec<u64>>,
}

impl Encoded {
    /// The sketches as a build screens with them, and their rotation.
    fn screen(&self, dim: u32) -> Option<(Sketches<'_>, &Rotation)> {
        Some((Sketches { words: self.sketches.as_ref()?, dim: dim as usize }, self.rotation.as_ref()?))
    }
}

fn encode(spec: &VectorSpec, col: VectorColumn, rows: usize) -> Encoded {
    let quant = spec.index.quant();
    let rotation = keeps_rotation(spec).then(|| Rotation::new(spec.dim as usize, spec.index.seed()));
    let quantizer = quantizer_for(spec, rotation.clone().filter(|_| quant.rotate));
    let codes = quantizer.map(|qz| qz.encode_rows(col, rows));
    let sketches =
        rotation.as_ref().filter(|_| keeps_sketches(spec)).map(|r| sketch::encode_rows(col, rows, r, spec.metric));
    Encoded { rotation, codes, sketches }
}

/// Writes a finished index through a temp file renamed over `path`; returns its size.
#[allow(clippy::too_many_arguments)]
fn write_index(
    path: &Path,
    segment_id: u64,
    field: u16,
    spec: &VectorSpec,
    rows: usize,
    e: &Encoded,
    graph: Option<GraphIndexView>,
) -> Result<u64, StorageError> {
    let meta = IndexMeta {
        params: spec.index.clone(),
        rows: rows as u64,
        dim: spec.dim,
        metric: spec.metric,
        entry: graph.map_or(0, |g| g.entry()),
        max_level: graph.map_or(0, |g| g.max_level() as u32),
    };
    let tmp = crate::storage::disk::temp_path(path);
    let written =
        write(&tmp, segment_id, field, &meta, e.rotation.as_ref(), e.codes.as_ref(), e.sketches.as_ref(), graph)
            .and_then(|size| crate::storage::disk::rename(&tmp, path).map(|()| size));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

#[allow(clippy::too_many_arguments)]
fn write(
    path: &Path,
    segment_id: u64,
    field: u16,
    meta: &IndexMeta,
    rotation: Option<&Rotation>,
    codes: Option<&(Vec<u8>, Vec<f32>)>,
    sketches: Option<&Vec<u64>>,
    graph: Option<GraphIndexView>,
) -> Result<u64, StorageError> {
    use crate::storage::mmap::as_bytes;
    let json = serde_json::to_vec(meta).expect("index meta serializes");
    let rotation = rotation.map(|r| r.encode());
    // Sections in file order, so the writer knows every length up front.
    let mut parts: Vec<(Kind, &[u8])> = vec![(Kind::Meta, &json)];
    if let Some(r) = &rotation {
        parts.push((Kind::Rotation, r));
    }
    if let Some((c, p)) = codes {
        parts.push((Kind::Codes, c));
        parts.push((Kind::Params, as_bytes(p)));
    }
    if let Some(sk) = sketches {
        parts.push((Kind::Sketches, as_bytes(sk)));
    }
    // Straight from the graph's arrays: the writer checksums and writes them through its
    // bounded buffer, so saving holds no second copy of the graph.
    match graph {
        Some(GraphIndexView::Hnsw(g)) => {
            parts.push((Kind::Levels, g.levels));
            parts.push((Kind::Base, as_bytes(g.base)));
            parts.push((Kind::UpperOffsets, as_bytes(g.upper_offsets)));
            parts.push((Kind::Upper, as_bytes(g.upper)));
        }
        Some(GraphIndexView::Vamana(g)) => parts.push((Kind::Adjacency, as_bytes(g.adjacency))),
        None => {}
    }
    let lens: Vec<u64> = parts.iter().map(|(_, b)| b.len() as u64).collect();
    let mut w = ContainerWriter::create(path, FileKind::Index, segment_id, &lens)?;
    for (kind, bytes) in parts {
        w.section(kind as u16, field, |s| s.put(bytes))?;
    }
    w.finish()
}

impl SegmentIndex {
    /// Opens and validates an index file for `field` of segment `segment_id` with `rows`
    /// rows, built for `spec`. With `verify_data`, code and graph CRCs are checked too.
    pub fn open(
        path: &Path,
        segment_id: u64,
        field: u16,
        spec: &VectorSpec,
        rows: usize,
        mmap: bool,
        verify_data: bool,
    ) -> Result<SegmentIndex, StorageError> {
        let bytes = FileBytes::open(path, mmap)?;
        bytes.advise_random_access(0..bytes.as_slice().len());
        let b = bytes.as_slice();
        let small = |k: u16| k == Kind::Meta as u16 || k == Kind::Rotation as u16;
        let (id, sections) = container::read_with(
            path,
            b,
            FileKind::Index,
            |k| verify_data || small(k),
            |r, block| bytes.block_crcs(r, block),
        )?;
        let bad = |offset: u64, what: String| StorageError::corrupted(path, offset, what);
        if id != segment_id {
            return Err(bad(16, format!("index of segment {id}, expected segment {segment_id}")));
        }
        let find = |kind: Kind| -> Option<&RawSection> { sections.iter().find(|s| s.kind == kind as u16) };
        for s in &sections {
            if s.field != field || s.kind > Kind::Sketches as u16 {
                return Err(bad(
                    s.offset,
                    format!("section kind {} of field {}, expected field {field}", s.kind, s.field),
                ));
            }
        }
        let meta_s = find(Kind::Meta).ok_or_else(|| bad(32, "no meta section".into()))?;
        let meta: IndexMeta =
            serde_json::from_slice(&b[meta_s.range()]).map_err(|e| bad(meta_s.offset, format!("index meta: {e}")))?;
        if meta.params != spec.index || meta.dim != spec.dim || meta.metric != spec.metric || meta.rows != rows as u64 {
            return Err(bad(
                meta_s.offset,
                format!(
                    "built for {} dim {} {} over {} rows; the field is {} dim {} {} over {rows} rows",
                    meta.params.describe(),
                    meta.dim,
                    meta.metric.name(),
                    meta.rows,
                    spec.index.describe(),
                    spec.dim,
                    spec.metric.name()
                ),
            ));
        }
        // Index files written before sketches existed have neither sketches nor (for
        // unrotated codes) a rotation: they open, and their searches do not screen.
        let sketches = match (keeps_sketches(spec), find(Kind::Sketches)) {
            (true, Some(s)) => {
                if s.len != (sketch::words_per_row(spec.dim as usize) * 8 * rows) as u64 {
                    return Err(bad(s.offset, format!("sketches of {} bytes do not fit {rows} rows", s.len)));
                }
                Some(s.range())
            }
            (_, None) => None,
            (false, Some(s)) => return Err(bad(s.offset, "sketch section in an index that keeps none".into())),
        };
        let quant = spec.index.quant();
        let wants_rotation = (quant.quantize != Quantize::None && quant.rotate) || sketches.is_some();
        let rotation = match (find(Kind::Rotation), wants_rotation) {
            (Some(s), true) => Some(
                Rotation::decode(&b[s.range()], spec.dim as usize)
                    .map_err(|e| bad(s.offset + e.at.unwrap_or(0) as u64, e.what))?,
            ),
            (None, false) => None,
            (Some(s), false) => return Err(bad(s.offset, "rotation section in an index without rotation".into())),
            (None, true) => return Err(bad(32, "rotation section missing".into())),
        };
        let quantizer = quantizer_for(spec, rotation.clone().filter(|_| quant.rotate));
        let codes = match (&quantizer, find(Kind::Codes), find(Kind::Params)) {
            (Some(qz), Some(c), Some(p)) => {
                if c.len != (qz.code_bytes() * rows) as u64 || p.len != (PARAMS_PER_ROW * 4 * rows) as u64 {
                    return Err(bad(
                        c.offset,
                        format!("codes {} and params {} bytes do not fit {rows} rows", c.len, p.len),
                    ));
                }
                Some((c.range(), p.range()))
            }
            (None, None, None) => None,
            _ => return Err(bad(32, "code sections do not match the quantization".into())),
        };
        let graph =
            match (&spec.index, find(Kind::Levels), find(Kind::Base), find(Kind::UpperOffsets), find(Kind::Upper)) {
                (IndexParams::Hnsw(_), Some(l), Some(bs), Some(o), Some(u)) => {
                    Some([l.range(), bs.range(), o.range(), u.range()])
                }
                (IndexParams::Flat(_) | IndexParams::Vamana(_), None, None, None, None) => None,
                _ => return Err(bad(32, "graph sections do not match the index type".into())),
            };
        let adjacency = match (&spec.index, find(Kind::Adjacency)) {
            (IndexParams::Vamana(_), Some(a)) => Some(a.range()),
            (IndexParams::Vamana(_), None) => return Err(bad(32, "Vamana adjacency section missing".into())),
            (_, Some(a)) => return Err(bad(a.offset, "adjacency section in an index that is not Vamana".into())),
            (_, None) => None,
        };
        if sections.len()
            != 1 + (find(Kind::Rotation).is_some() as usize)
                + 2 * codes.is_some() as usize
                + sketches.is_some() as usize
                + 4 * graph.is_some() as usize
                + adjacency.is_some() as usize
        {
            return Err(bad(32, "duplicate sections".into()));
        }
        let index = SegmentIndex {
            path: path.to_path_buf(),
            bytes,
            meta,
            quantizer,
            rotation,
            codes,
            sketches,
            graph,
            adjacency,
        };
        if let Some(r) = &index.adjacency
            && index.vamana().is_none()
        {
            let what = format!("Vamana adjacency of {} bytes is not a whole number of u32 words", r.len());
            return Err(bad(r.start as u64, what));
        }
        if let Some(g) = index.graph_index() {
            g.validate(rows).map_err(|e| {
                let at = e.at.map_or(meta_s.offset, |(section, i)| index.offset_of(section, i));
                let kind = if matches!(g, GraphIndexView::Hnsw(_)) { "HNSW" } else { "Vamana" };
                bad(at, format!("{kind} graph: {}", e.what))
            })?;
        }
        if let Some(c) = index.codes()
            && let Some(i) = c.params.iter().position(|p| !p.is_finite())
        {
            return Err(bad(
                index.codes.as_ref().expect("codes").1.start as u64 + i as u64 * 4,
                "code params are not finite".into(),
            ));
        }
        Ok(index)
    }

    /// The file offset of element `i` of a graph section.
    fn offset_of(&self, section: GraphSection, i: usize) -> u64 {
        let (range, width) = match (section, &self.graph, &self.adjacency) {
            (GraphSection::Levels, Some([l, ..]), _) => (l, 1),
            (GraphSection::Base, Some([_, b, ..]), _) => (b, 4),
            (GraphSection::UpperOffsets, Some([_, _, o, _]), _) => (o, 4),
            (GraphSection::Upper, Some([.., u]), _) => (u, 4),
            (GraphSection::Adjacency, _, Some(a)) => (a, 4),
            _ => return 0,
        };
        (range.start + width * i) as u64
    }

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
        Some(Codes {
            kind: qz.kind(),
            code_bytes: qz.code_bytes(),
            codes: &self.bytes.as_slice()[c.clone()],
            params: self.slice(p)?,
        })
    }

    /// The stored rotation (of rotated codes and of sketches).
    pub fn rotation(&self) -> Option<&Rotation> {
        self.rotation.as_ref()
    }

    /// The rows' sketches, for graph indexes.
    pub fn sketches(&self) -> Option<Sketches<'_>> {
        Some(Sketches { words: self.slice(self.sketches.as_ref()?)?, dim: self.meta.dim as usize })
    }

    pub fn bytes_by_kind(&self) -> IndexBytes {
        let sketches = self.sketches.as_ref().map_or(0, |r| r.len() as u64);
        let codes = self.codes.as_ref().map_or(0, |(c, p)| (c.len() + p.len()) as u64);
        let hnsw = self.graph.as_ref().map_or(0, |g| g.iter().map(|r| r.len() as u64).sum());
        let vamana = self.adjacency.as_ref().map_or(0, |r| r.len() as u64);
        IndexBytes { codes, sketches, graph: hnsw + vamana }
    }

    pub fn file_len(&self) -> u64 {
        self.bytes.as_slice().len() as u64
    }

    /// Searches this segment's field: graph or exact scan (over codes or originals), then
    /// refinement with the originals; pushes candidates into `top`.
    pub fn search(
        &self,
        originals: VectorColumn,
        query: &PreparedQuery,
        raw_query: &[f32],
        p: SearchParams,
        top: &mut impl Sink,
    ) {
        let k = kernels::best();
        SCRATCH.with(|cell| {
            let (scratch, qscratch, found, tmp) = &mut *cell.borrow_mut();
            let orig = Originals { kernels: k, col: originals, query, screen: None };
            let refine = self.quantizer.is_some() && p.refine > 0;
            let want = if refine { p.k.saturating_mul(p.refine) } else { p.k };
            match (&self.quantizer, self.codes()) {
                (Some(qz), Some(codes)) => {
                    let qq = qz.prepare(raw_query, qscratch);
                    // Rotated codes share the sketches' rotation: the query is rotated once.
                    let sq = match qz.rotation() {
                        Some(_) => self.sketches.as_ref().map(|_| SketchQuery::new(qq.rotated(), qq.norm_sq())),
                        None => self.sketch_query(raw_query, tmp),
                    };
                    let screen = self.screen(sq.as_ref());
                    let scorer = CodeScorer { kernels: k, codes, screen, query: &qq, metric: self.meta.metric };
                    self.candidates(&scorer, want, p, scratch, found);
                    if !refine && scorer.rounds_query() {
                        // The beam's candidates, not just the first `want`: the full-precision
                        // query may order them differently.
                        found.iter_mut().for_each(|c| c.dist = scorer.precise(c.id));
                        found.sort_unstable();
                    }
                }
                _ => {
                    let sq = self.sketch_query(raw_query, tmp);
                    let scorer = Originals { screen: self.screen(sq.as_ref()), ..orig };
                    self.candidates(&scorer, want, p, scratch, found);
                }
            }
            let best = &found[..want.min(found.len())];
            if refine {
                best.iter().take(REFINE_AHEAD).for_each(|c| orig.prefetch(c.id));
            }
            for (i, c) in best.iter().enumerate() {
                let dist = if refine {
                    if let Some(ahead) = best.get(i + REFINE_AHEAD) {
                        orig.prefetch(ahead.id);
                    }
                    orig.dist(c.id)
                } else {
                    c.dist
                };
                top.push(Candidate { dist, segment: p.position, row: c.id });
            }
            let now = (scratch.heap_bytes() + found.capacity() * std::mem::size_of::<Scored>()) as u64;
            let before = COUNTED.with(|c| c.0.replace(now));
            if now != before {
                SCRATCH_BYTES.fetch_add(now.wrapping_sub(before), Ordering::Relaxed);
            }
        });
    }

    /// The query for this index's sketches, if it keeps them.
    fn sketch_query(&self, raw_query: &[f32], tmp: &mut Vec<f32>) -> Option<SketchQuery> {
        self.sketches.as_ref()?;
        Some(SketchQuery::prepare(raw_query, self.rotation.as_ref()?, self.meta.metric, tmp))
    }

    fn screen<'a>(&'a self, query: Option<&'a SketchQuery>) -> Option<Screen<'a>> {
        let (kernels, metric, sigmas) = (kernels::best(), self.meta.metric, sketch::SCREEN_SIGMAS);
        Some(Screen { kernels, sketches: self.sketches()?, query: query?, metric, sigmas })
    }

    fn candidates<S: Scorer>(
        &self,
        s: &S,
        want: usize,
        p: SearchParams,
        sc: &mut SearchScratch,
        out: &mut Vec<Scored>,
    ) {
        let rows = self.meta.rows as usize;
        let allowed_rows = p.allowed.map_or(rows, |a| a.len() as usize);
        let graph = self.graph_index();
        let fanout = graph.map_or(0, |g| g.fanout());
        if prefer_exact(rows, allowed_rows, p.ef.max(want), fanout) {
            return exact_scan(s, rows, want, p.allowed, out);
        }
        // With a filter, the graph may spend at most what the exact scan would.
        let budget = if p.allowed.is_some() { allowed_rows } else { usize::MAX };
        let beam = Beam { ef: p.ef.max(want), allowed: p.allowed, budget };
        let done = graph.is_some_and(|g| g.search(s, beam, sc, out));
        // A graph part cut off from the allowed rows (e.g. duplicates or null vectors, all
        // zeros, linked only among themselves) can end a search short of `want`.
        if !done || out.len() < want.min(allowed_rows) {
            exact_scan(s, rows, want, p.allowed, out);
        }
    }
}

/// Bounded exact scan: the `want` best rows (of `allowed`, or all), best first.
fn exact_scan<S: Scorer>(s: &S, rows: usize, want: usize, allowed: Option<&RoaringBitmap>, out: &mut Vec<Scored>) {
    let mut top = TopK::new(want);
    let mut visit = |r: u32| {
        let dist = s.dist(r);
        if dist <= top.threshold() {
            top.push(Candidate { dist, segment: 0, row: r });
        }
    };
    match allowed {
        Some(a) => a.iter().for_each(&mut visit),
        None => (0..rows as u32).for_each(&mut visit),
    }
    out.clear();
    out.extend(top.into_sorted().into_iter().map(|c| Scored { dist: c.dist, id: c.row }));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::rng::SplitMix64;
    use crate::schema::VectorType;
    use crate::storage::column::{Validity, VectorData};

    /// A graph search screens neighbours with their sketches, over int8 codes and over
    /// FP32 originals: it scores fewer rows than without them, and finds the same
    /// neighbours.
    #[test]
    fn sketches_skip_most_rows_and_keep_recall() {
        let (n, dim, k, ef) = (4000, 256, 10, 40);
        let mut rng = SplitMix64::new(21);
        let mut unit = || rng.next_unit() as f32 * 2.0 - 1.0;
        let centers: Vec<Vec<f32>> = (0..20).map(|_| (0..dim).map(|_| unit()).collect()).collect();
        let mut point = |i: usize| -> Vec<f32> { centers[i % 20].iter().map(|c| c + unit()).collect() };
        let data: Vec<f32> = (0..n).flat_map(&mut point).collect();
        let norms: Vec<f32> = data.chunks_exact(dim).map(|r| r.iter().map(|v| v * v).sum::<f32>().sqrt()).collect();
        let queries: Vec<Vec<f32>> = (0..100).map(|i| point(i * 7)).collect();
        let dir = tempfile::tempdir().unwrap();
        let kern = kernels::best();
        for quantize in ["int8", "none"] {
            for metric in [Metric::Cosine, Metric::L2, Metric::Ip] {
                let col = VectorColumn {
                    dim,
                    validity: Validity(None),
                    data: VectorData::Fp32(&data),
                    norms: (metric == Metric::Cosine).then_some(&norms[..]),
                };
                let json = format!(r#"{{"type":"hnsw","m":12,"ef_construction":100,"quantize":"{quantize}"}}"#);
                let index: IndexParams = serde_json::from_str(&json).unwrap();
                let spec = VectorSpec { elem: VectorType::Fp32, dim: dim as u32, metric, index };
                let path = dir.path().join(format!("{quantize}-{}.idx", metric.name()));
                build(&path, 1, 0, &spec, col, n, 1, &|_| {}, &AtomicBool::new(false)).unwrap();
                let idx = SegmentIndex::open(&path, 1, 0, &spec, n, true, true).unwrap();
                assert_eq!(idx.sketches().map(|s| s.rows()), Some(n));
                let g = idx.graph().unwrap();
                let (mut hits, mut scored) = ([0usize; 2], [0u64; 2]);
                for q in &queries {
                    let exact = PreparedQuery::float(metric, q.clone());
                    let orig = Originals { kernels: kern, col, query: &exact, screen: None };
                    let mut truth: Vec<Scored> = (0..n as u32).map(|r| Scored { dist: orig.dist(r), id: r }).collect();
                    truth.sort_unstable();
                    let sq = idx.sketch_query(q, &mut Vec::new());
                    let qq = idx.quantizer().map(|qz| qz.prepare(q, &mut QuantScratch::default()));
                    for (i, screen) in [None, idx.screen(sq.as_ref())].into_iter().enumerate() {
                        let beam = Beam { ef, allowed: None, budget: usize::MAX };
                        let (mut sc, mut out) = (SearchScratch::default(), Vec::new());
                        match &qq {
                            Some(qq) => {
                                let s = CodeScorer {
                                    kernels: kern,
                                    codes: idx.codes().unwrap(),
                                    screen,
                                    query: qq,
                                    metric,
                                };
                                assert!(hnsw::search(&g, &s, beam, &mut sc, &mut out));
                            }
                            None => assert!(hnsw::search(&g, &Originals { screen, ..orig }, beam, &mut sc, &mut out)),
                        }
                        hits[i] += out.iter().take(k).filter(|c| truth[..k].iter().any(|t| t.id == c.id)).count();
                        scored[i] += sc.distances;
                    }
                }
                let recall = hits.map(|h| h as f64 / (queries.len() * k) as f64);
                let case = format!("{quantize} {metric:?}");
                assert!(recall[1] >= recall[0] - 0.015 && recall[1] > 0.9, "{case}: recall {recall:?}");
                // Spread-out clusters; on real embeddings (wordnet-minilm-384) seven in ten go.
                assert!(scored[1] * 10 < scored[0] * 8, "{case}: scored {scored:?} rows without and with sketches");
            }
        }
    }

    /// Index files written before sketches existed (no sketches; no rotation unless the
    /// codes are rotated) still open, and search without screening.
    #[test]
    fn indexes_without_sketches_still_open() {
        let (n, dim) = (300, 16);
        let mut rng = SplitMix64::new(4);
        let data: Vec<f32> = (0..n * dim).map(|_| rng.next_unit() as f32).collect();
        let col = VectorColumn { dim, validity: Validity(None), data: VectorData::Fp32(&data), norms: None };
        let dir = tempfile::tempdir().unwrap();
        for quantize in ["none", "int8"] {
            let json = format!(r#"{{"type":"hnsw","m":8,"ef_construction":32,"quantize":"{quantize}"}}"#);
            let spec = VectorSpec {
                elem: VectorType::Fp32,
                dim: dim as u32,
                metric: Metric::L2,
                index: serde_json::from_str(&json).unwrap(),
            };
            let path = dir.path().join(format!("{quantize}.idx"));
            build(&path, 1, 0, &spec, col, n, 1, &|_| {}, &AtomicBool::new(false)).unwrap();
            let new = SegmentIndex::open(&path, 1, 0, &spec, n, true, true).unwrap();
            assert!(new.sketches().is_some() && new.rotation().is_some(), "{quantize}");
            let graph = new.graph_index().unwrap();
            let codes = new.codes().map(|c| (c.codes.to_vec(), c.params.to_vec()));
            let rotation = new.quantizer().and_then(|q| q.rotation()).cloned();
            let old = dir.path().join(format!("{quantize}-old.idx"));
            write(&old, 1, 0, new.meta(), rotation.as_ref(), codes.as_ref(), None, Some(graph)).unwrap();
            let idx = SegmentIndex::open(&old, 1, 0, &spec, n, true, true).unwrap();
            assert!(idx.sketches().is_none(), "{quantize}");
            assert_eq!(idx.rotation().is_some(), quantize == "int8");
            let q = &data[..dim];
            let (mut a, mut b) = (TopK::new(5), TopK::new(5));
            let p = SearchParams { k: 5, ef: 32, refine: 0, allowed: None, position: 0 };
            let exact = PreparedQuery::float(Metric::L2, q.to_vec());
            idx.search(col, &exact, q, p, &mut a);
            new.search(col, &exact, q, p, &mut b);
            let ids = |t: TopK| t.into_sorted().into_iter().map(|c| c.row).collect::<Vec<_>>();
            assert_eq!(ids(a)[0], 0, "{quantize}: a row is its own nearest neighbour");
            assert_eq!(ids(b)[0], 0, "{quantize}");
        }
    }
}
