//! The kinds of vector index, one variant each: everything a kind adds to an index file
//! beside the [quantization](super::quantization) component. A kind owns its section kinds
//! (codes and names), its part of the meta ([`KindMeta`]), its build arm, how it opens and
//! checks its sections, its search route, its views for verify, inspect and repair, and its
//! memory. Every dispatch over kinds is an exhaustive match here, so a new variant is a
//! compile error wherever it must be handled; the rest of the layer is kind-agnostic.

use std::ops::Range;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::StorageError;
use crate::index::disk::layout::{Elem, Layout, PAGE};
use crate::index::disk::{self, DiskGraph};
use crate::index::graph::{BuildControl, GraphSection};
use crate::index::graph_index::{GraphIndex, GraphIndexView};
use crate::index::hnsw::{self, GraphView};
use crate::index::ivf::sketches::ListSketches;
use crate::index::ivf::{self, IvfLists, IvfView};
use crate::index::{qg, vamana};
use crate::kernels;
use crate::schema::{IndexParams, IndexType, VectorSpec};
use crate::storage::column::VectorColumn;
use crate::storage::container::{RawSection, SectionSink};
use crate::storage::disk::DiskFile;
use crate::storage::mmap::{as_bytes, cast_slice};

use super::file::{Encoded, Streamed};
use super::quantization::{Bad, Keeps};
use super::search::{Lists, Route, SearchPath};
use super::{Built, IndexMeta, Section, SegmentIndex, find};

const LEVELS: Section = Section { code: 4, name: "HNSW levels" };
const BASE: Section = Section { code: 5, name: "HNSW base layer" };
const UPPER_OFFSETS: Section = Section { code: 6, name: "HNSW upper offsets" };
const UPPER: Section = Section { code: 7, name: "HNSW upper layers" };
const ADJACENCY: Section = Section { code: 8, name: "Vamana adjacency" };
const CENTROIDS: Section = Section { code: 10, name: "IVF centroids" };
const LIST_OFFSETS: Section = Section { code: 11, name: "IVF list offsets" };
const LIST_IDS: Section = Section { code: 12, name: "IVF list entries" };
const LIST_SKETCHES: Section = Section { code: 13, name: "IVF list sketches" };
const QG_BLOCKS: Section = Section { code: 14, name: "quantized graph blocks" };
const QG_ROTATION: Section = Section { code: 15, name: "quantized graph rotation" };
/// Codes 14 and 15 are the quantized graph's.
const NODE_BLOCKS: Section = Section { code: 16, name: "disk node blocks" };

/// The section kinds of an index kind, in file order. Codes are unique across kinds (and
/// the quantization's): a file's table names its sections by code alone.
fn sections_of(kind: IndexType) -> &'static [Section] {
    match kind {
        IndexType::Flat => &[],
        IndexType::Hnsw => &[LEVELS, BASE, UPPER_OFFSETS, UPPER],
        IndexType::Vamana => &[ADJACENCY],
        IndexType::Ivf => &[CENTROIDS, LIST_OFFSETS, LIST_IDS, LIST_SKETCHES],
        IndexType::Qg => &[QG_BLOCKS, QG_ROTATION],
        IndexType::Disk => &[NODE_BLOCKS],
    }
}

/// Whether a section of `code` is checked block by block as searches read it, never in
/// full at open (the disk kind's node blocks: reading them all is what the kind avoids).
pub(super) fn checked_as_read(code: u16) -> bool {
    code == NODE_BLOCKS.code
}

/// The section kind of `code` that some index kind keeps.
pub(super) fn kind_section(code: u16) -> Option<Section> {
    IndexType::ALL.into_iter().flat_map(sections_of).find(|s| s.code == code).copied()
}

/// What an index of this kind keeps of the quantization: the graph kinds the rows'
/// sketches, to screen neighbours before reading them; IVF sketches of its entries, and
/// codes per entry rather than per row. A quantized graph's blocks hold its neighbours'
/// codes, which it screens with instead of the rows' sketches.
pub(super) fn keeps(index: &IndexParams) -> Keeps {
    let (row_sketches, entry_sketches, codes_per_row) = match index.kind() {
        IndexType::Flat | IndexType::Qg => (false, false, true),
        IndexType::Hnsw | IndexType::Vamana => (true, false, true),
        IndexType::Ivf => (false, true, false),
        // The codes rank every neighbour of an expanded node anyway: a sketch would not
        // save a read.
        IndexType::Disk => (false, false, true),
    };
    Keeps { row_sketches, entry_sketches, codes_per_row }
}

/// Whether repair may encode damaged codes again and write them around the kind's own
/// structure, without a build: codes one per row (see [`Keeps::codes_per_row`]; IVF's
/// follow its lists), and not a quantized graph, whose blocks are codes only a build writes.
pub(crate) fn recodes_in_place(index: &IndexParams) -> bool {
    match index.kind() {
        IndexType::Flat | IndexType::Hnsw | IndexType::Vamana => keeps(index).codes_per_row,
        // The disk kind's graph is in its node blocks, which only a build writes.
        IndexType::Ivf | IndexType::Qg | IndexType::Disk => false,
    }
}

/// What an index kind records about its structure in the file's meta (index version 3;
/// version 2 kept `entry`, `max_level` and `recall_probes` beside the params for every
/// kind, see [`KindMeta::from_v2`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
pub(crate) enum KindMeta {
    Flat,
    /// The entry point (a node of the top level) and the top level.
    Hnsw {
        entry: u32,
        max_level: u32,
    },
    /// Where every search starts.
    Vamana {
        medoid: u32,
    },
    /// Lists to probe for each percent of recall, `0..=100` (see [`ivf::calibrate`]);
    /// empty from builds before the calibration.
    Ivf {
        #[serde(default)]
        recall_probes: Vec<u32>,
    },
    /// Where every search starts, and the blocks' degree.
    Qg {
        entry: u32,
        degree: u32,
    },
    /// Where every search of the node blocks starts.
    Disk {
        medoid: u32,
    },
}

impl KindMeta {
    /// The index type the meta is of.
    pub(super) fn index_type(&self) -> IndexType {
        match self {
            KindMeta::Flat => IndexType::Flat,
            KindMeta::Hnsw { .. } => IndexType::Hnsw,
            KindMeta::Vamana { .. } => IndexType::Vamana,
            KindMeta::Ivf { .. } => IndexType::Ivf,
            KindMeta::Qg { .. } => IndexType::Qg,
            KindMeta::Disk { .. } => IndexType::Disk,
        }
    }

    /// The meta of a version 2 file, whose fields were the same for every kind.
    pub(super) fn from_v2(params: &IndexParams, entry: u32, max_level: u32, recall_probes: Vec<u32>) -> KindMeta {
        match params {
            IndexParams::Flat(_) => KindMeta::Flat,
            IndexParams::Hnsw(_) => KindMeta::Hnsw { entry, max_level },
            IndexParams::Vamana(_) => KindMeta::Vamana { medoid: entry },
            IndexParams::Ivf(_) => KindMeta::Ivf { recall_probes },
            // No version 2 file holds one.
            IndexParams::Qg(p) => KindMeta::Qg { entry, degree: p.degree },
            // No version 2 file names it.
            IndexParams::Disk(_) => KindMeta::Disk { medoid: entry },
        }
    }

    /// The meta of a graph.
    fn of_graph(g: GraphIndexView) -> KindMeta {
        match g {
            GraphIndexView::Hnsw(g) => KindMeta::Hnsw { entry: g.entry, max_level: g.max_level as u32 },
            GraphIndexView::Vamana(g) => KindMeta::Vamana { medoid: g.medoid },
        }
    }
}

/// A kind's part of an index file to write: its meta and its sections, in file order.
pub(super) struct KindParts<'a> {
    pub(super) meta: KindMeta,
    pub(super) sections: Vec<(Section, &'a [u8])>,
    /// A last section written piece by piece (the disk kind's node blocks).
    pub(super) streamed: Option<Streamed<'a>>,
}

impl<'a> KindParts<'a> {
    /// An exact index: nothing beyond the quantization.
    pub(super) fn flat() -> KindParts<'a> {
        KindParts { meta: KindMeta::Flat, sections: Vec::new(), streamed: None }
    }

    /// A disk index: Vamana's graph `g` and the rows of `col`, written into node blocks one
    /// block at a time (never the whole section in memory). The blocks start on the first
    /// page boundary inside the section: padding before them and the rest of a page after,
    /// so the section's length is known before its offset.
    pub(super) fn disk(col: VectorColumn<'a>, rows: usize, g: vamana::GraphView<'a>) -> KindParts<'a> {
        let layout = disk::build::layout_of(&col, rows, &g);
        let fill = move |s: &mut SectionSink| {
            let pad = (s.offset().next_multiple_of(PAGE as u64) - s.offset()) as usize;
            s.put(&vec![0u8; pad])?;
            disk::build::write_blocks(&col, rows, &g, |b| s.put(b))?;
            s.put(&vec![0u8; PAGE - pad])
        };
        let streamed = Streamed { section: NODE_BLOCKS, len: layout.section_bytes(), fill: Box::new(fill) };
        KindParts { meta: KindMeta::Disk { medoid: g.medoid }, sections: Vec::new(), streamed: Some(streamed) }
    }

    /// A graph, straight from its arrays: the writer checksums and writes them through its
    /// bounded buffer, so saving holds no second copy of the graph.
    pub(super) fn graph(g: GraphIndexView<'a>) -> KindParts<'a> {
        let sections = match g {
            GraphIndexView::Hnsw(g) => vec![
                (LEVELS, g.levels),
                (BASE, as_bytes(g.base)),
                (UPPER_OFFSETS, as_bytes(g.upper_offsets)),
                (UPPER, as_bytes(g.upper)),
            ],
            GraphIndexView::Vamana(g) => vec![(ADJACENCY, as_bytes(g.adjacency))],
        };
        KindParts { meta: KindMeta::of_graph(g), sections, streamed: None }
    }

    /// IVF lists and their entries' sketches.
    fn lists(l: &'a IvfLists, sketches: &'a [u8]) -> KindParts<'a> {
        let sections = vec![
            (CENTROIDS, as_bytes(&l.centroids)),
            (LIST_OFFSETS, as_bytes(&l.offsets)),
            (LIST_IDS, as_bytes(&l.ids)),
            (LIST_SKETCHES, sketches),
        ];
        KindParts { meta: KindMeta::Ivf { recall_probes: l.recall_probes.clone() }, sections, streamed: None }
    }

    /// A quantized graph's blocks and its rotation (encoded).
    pub(super) fn qg(g: &'a qg::QgGraph, rotation: &'a [u8]) -> KindParts<'a> {
        let meta = KindMeta::Qg { entry: g.entry, degree: g.layout.degree as u32 };
        KindParts { meta, sections: vec![(QG_BLOCKS, as_bytes(&g.blocks)), (QG_ROTATION, rotation)], streamed: None }
    }
}

/// How a built index is written: the quantization made so far and the kind's parts.
pub(super) type Write<'w> = &'w dyn Fn(&Encoded, KindParts) -> Result<u64, StorageError>;

/// Builds the kind's structure of `spec` over `col` (with the quantization `encode`
/// makes) and writes the index through `write`: its size, and the disk kind's build plan
/// under `budget`. `None` when cancelled.
pub(super) fn build(
    spec: &VectorSpec,
    col: VectorColumn,
    rows: usize,
    encode: &dyn Fn() -> Encoded,
    budget: Option<u64>,
    control: &BuildControl,
    write: Write,
) -> Result<Option<Built>, StorageError> {
    let k = kernels::best();
    let built = |size| Some(Built { size, plan: None });
    let (mut graph, e, plan) = match &spec.index {
        IndexParams::Ivf(p) => {
            let mut e = encode();
            let Some(lists) = ivf::build(spec.metric, col, rows, p, control) else { return Ok(None) };
            let sketches = e.encode_lists(spec, col, &lists);
            return write(&e, KindParts::lists(&lists, &sketches)).map(built);
        }
        IndexParams::Hnsw(p) => {
            let e = encode();
            match hnsw::build(k, spec.metric, col, rows, p, e.screen(spec.dim), control) {
                Some(g) => (GraphIndex::Hnsw(g), Some(e), None),
                None => return Ok(None),
            }
        }
        IndexParams::Vamana(p) => {
            let e = encode();
            match vamana::build(k, spec.metric, col, rows, p, control) {
                Some(g) => (GraphIndex::Vamana(g), Some(e), None),
                None => return Ok(None),
            }
        }
        // Vamana's graph, built as the budget allows, then written into node blocks with
        // the rows' vectors. Its codes are encoded after the graph, not beside it.
        IndexParams::Disk(p) => {
            let plan = disk::build::BuildPlan::choose(budget, &col, rows, p.degree as usize);
            match vamana::build_with(
                k,
                spec.metric,
                col,
                rows,
                &p.vamana(),
                plan.working,
                vamana::Plan::TwoPasses,
                control,
            ) {
                Some(g) => (GraphIndex::Vamana(g), None, Some(plan)),
                None => return Ok(None),
            }
        }
        IndexParams::Flat(_) => {
            (control.progress)(crate::index::graph::BuildProgress { done: rows, total: rows });
            return write(&encode(), KindParts::flat()).map(built);
        }
        IndexParams::Qg(p) => {
            let e = encode();
            let Some(g) = qg::build(k, spec.metric, col, rows, &qg::BuildParams::of(p), control) else {
                return Ok(None);
            };
            let rotation = g.rotation.encode();
            return write(&e, KindParts::qg(&g, &rotation)).map(built);
        }
    };
    // Every row with a vector must be reachable from the entry point, or no search finds it.
    // `None` (no reachable node with room) leaves the rest for verify to report.
    let _ = graph.base_layer().link_unreachable(k, spec.metric, &col, |u| !col.validity.is_valid(u as usize));
    let e = e.unwrap_or_else(encode);
    let parts = match graph.view() {
        // The disk kind's graph (a Vamana one) goes into its node blocks.
        GraphIndexView::Vamana(g) if spec.index.kind() == IndexType::Disk => KindParts::disk(col, rows, g),
        g => KindParts::graph(g),
    };
    write(&e, parts).map(|size| Some(Built { size, plan }))
}

/// What a kind keeps of one field of one segment, as ranges of the index file's bytes
/// (and what it derives from them at open).
pub(super) enum VectorIndex {
    /// Exact search: nothing beyond the quantization (codes, or nothing at all).
    Flat,
    /// The HNSW levels, base layer, upper offsets and upper layers.
    Hnsw([Range<usize>; 4]),
    /// The Vamana adjacency.
    Vamana(Range<usize>),
    /// The IVF lists.
    Ivf(IvfSections),
    /// The quantized graph's blocks and rotation.
    Qg(QgSections),
    /// The node blocks of a disk-resident graph.
    Disk(DiskSections),
}

/// The node section of a disk index, and the blocks opened from it.
pub(super) struct DiskSections {
    /// The section (page padding, then the blocks, then the rest of a page).
    blocks: Range<usize>,
    /// Opened by [`VectorIndex::open_reader`], once the meta is known.
    graph: Option<DiskGraph>,
}

pub(super) use super::qg::QgSections;

/// The sections of an IVF index, and what open derives from them.
pub(super) struct IvfSections {
    /// The centroids, list offsets and list entries.
    lists: [Range<usize>; 3],
    /// The entries' sketches.
    list_sketches: Range<usize>,
    /// `|c|²` of every centroid, computed at open (a float per list).
    pub(super) centroid_norms: Vec<f32>,
    /// The centroids as int8 codes, made at open for a segment with many lists.
    pub(super) coarse: Option<ivf::CoarseCodes>,
    /// The first block of every list (computed at open).
    list_blocks: Vec<usize>,
}

/// What a kind's codes and sketches encode, for verify to encode again and compare.
pub(crate) enum Encodes<'a> {
    /// Every row, in row order (the codes and the rows' sketches).
    Rows,
    /// The entries of IVF lists, in list order: codes of their residuals, and sketches of
    /// their own.
    ListEntries { lists: IvfView<'a>, sketches: ListSketches<'a> },
}

impl VectorIndex {
    /// The kind's sections of an index file built for `index`: each of its own present,
    /// and none of another kind's.
    pub(super) fn open(index: &IndexParams, sections: &[RawSection], bad: Bad) -> Result<VectorIndex, StorageError> {
        let own = sections_of(index.kind());
        for s in sections {
            if let Some(k) = kind_section(s.kind).filter(|k| !own.contains(k)) {
                return Err(bad(s.offset, format!("{} section in a {} index", k.name, index.name())));
            }
        }
        let mut ranges = Vec::with_capacity(own.len());
        for k in own {
            let s = find(sections, *k).ok_or_else(|| bad(32, format!("{} section missing", k.name)))?;
            ranges.push(s.range());
        }
        let mut ranges = ranges.into_iter();
        let mut next = || ranges.next().expect("one range per own section");
        Ok(match index {
            IndexParams::Flat(_) => VectorIndex::Flat,
            IndexParams::Hnsw(_) => VectorIndex::Hnsw([next(), next(), next(), next()]),
            IndexParams::Vamana(_) => VectorIndex::Vamana(next()),
            IndexParams::Ivf(_) => VectorIndex::Ivf(IvfSections {
                lists: [next(), next(), next()],
                list_sketches: next(),
                centroid_norms: Vec::new(),
                coarse: None,
                list_blocks: Vec::new(),
            }),
            IndexParams::Qg(_) => VectorIndex::Qg(QgSections::new(next(), next())),
            IndexParams::Disk(_) => VectorIndex::Disk(DiskSections { blocks: next(), graph: None }),
        })
    }

    /// Opens what the kind reads from the file as searches go rather than through the
    /// mapping: the disk kind's node blocks, whose section must be as long as the layout of
    /// `elem` vectors under the meta says, read as `reads` says. Other kinds have nothing
    /// to open.
    pub(super) fn open_reader(
        &mut self,
        path: &Path,
        meta: &IndexMeta,
        elem: crate::schema::VectorType,
        reads: NodeReads,
        bad: Bad,
    ) -> Result<(), StorageError> {
        let (d, degree, medoid) = match (self, &meta.params, &meta.kind) {
            (VectorIndex::Disk(d), IndexParams::Disk(p), &KindMeta::Disk { medoid }) => (d, p.degree, medoid),
            (
                VectorIndex::Flat
                | VectorIndex::Hnsw(_)
                | VectorIndex::Vamana(_)
                | VectorIndex::Ivf(_)
                | VectorIndex::Qg(_),
                _,
                _,
            ) => return Ok(()),
            (VectorIndex::Disk(_), _, _) => return Err(bad(32, "disk node blocks in another kind of index".into())),
        };
        let layout = Layout {
            dim: meta.dim as usize,
            elem: Elem::of_type(elem),
            degree: degree as usize,
            nodes: meta.rows as usize,
        };
        let want = layout.section_bytes();
        if d.blocks.len() as u64 != want {
            let what =
                format!("disk node blocks of {} bytes, expected {want} ({} blocks)", d.blocks.len(), layout.blocks());
            return Err(bad(d.blocks.start as u64, what));
        }
        let base = (d.blocks.start as u64).next_multiple_of(PAGE as u64);
        let file = if reads.direct { DiskFile::open_direct(path)? } else { DiskFile::open_random(path)? };
        d.graph = Some(DiskGraph::open(file, base, layout, medoid, reads.cache)?);
        Ok(())
    }

    /// The disk kind's open node blocks.
    pub(super) fn disk(&self) -> Option<&DiskGraph> {
        match self {
            VectorIndex::Disk(d) => d.graph.as_ref(),
            VectorIndex::Flat
            | VectorIndex::Hnsw(_)
            | VectorIndex::Vamana(_)
            | VectorIndex::Ivf(_)
            | VectorIndex::Qg(_) => None,
        }
    }

    /// Sections of the file the kind holds.
    pub(super) fn sections(&self) -> usize {
        match self {
            VectorIndex::Flat => 0,
            VectorIndex::Hnsw(s) => s.len(),
            VectorIndex::Vamana(_) => 1,
            VectorIndex::Ivf(s) => s.lists.len() + 1,
            VectorIndex::Qg(_) => 2,
            VectorIndex::Disk(_) => 1,
        }
    }

    /// What the codes are of: one per row, or (IVF) one per list entry.
    pub(super) fn code_entries(&self, rows: usize) -> usize {
        match self {
            VectorIndex::Ivf(s) => s.lists[2].len() / 4,
            VectorIndex::Flat
            | VectorIndex::Hnsw(_)
            | VectorIndex::Vamana(_)
            | VectorIndex::Qg(_)
            | VectorIndex::Disk(_) => rows,
        }
    }

    /// Searches one segment by the kind's route: an exact scan (Flat), a graph, the
    /// nearest lists, or node blocks read from the file; leaves the candidates in
    /// `r.found`, best first. Fails only where a node block cannot be read or is damaged.
    pub(super) fn search(&self, idx: &SegmentIndex, r: &mut Route) -> Result<SearchPath, StorageError> {
        Ok(match self {
            VectorIndex::Flat => idx.search_rows(None, r),
            VectorIndex::Hnsw(_) | VectorIndex::Vamana(_) => idx.search_rows(idx.graph_index(), r),
            VectorIndex::Disk(d) => {
                let g = d
                    .graph
                    .as_ref()
                    .ok_or_else(|| StorageError::corrupted(idx.path(), 32, "disk node blocks not open"))?;
                idx.search_disk(g, r)?
            }
            VectorIndex::Ivf(s) => {
                let (b, dim) = (idx.bytes.as_slice(), idx.meta.dim as usize);
                let table = match &idx.meta.kind {
                    KindMeta::Ivf { recall_probes } => &recall_probes[..],
                    KindMeta::Flat
                    | KindMeta::Hnsw { .. }
                    | KindMeta::Vamana { .. }
                    | KindMeta::Qg { .. }
                    | KindMeta::Disk { .. } => &[],
                };
                let lists = Lists {
                    view: s.view(b, dim).expect("IVF lists are checked on open"),
                    centroid_norms: &s.centroid_norms,
                    coarse: s.coarse.as_ref().map(ivf::CoarseCodes::view),
                    sketches: s.sketches(b, dim).expect("IVF list sketches are checked on open"),
                    table,
                };
                idx.search_lists(lists, r)
            }
            VectorIndex::Qg(s) => {
                let g = s.view(idx.bytes.as_slice(), &idx.meta).expect("quantized graph blocks are checked on open");
                idx.search_qg(g, r)
            }
        })
    }

    /// The HNSW graph.
    pub(super) fn hnsw<'a>(&self, b: &'a [u8], meta: &IndexMeta) -> Option<GraphView<'a>> {
        let (VectorIndex::Hnsw([l, bs, o, u]), IndexParams::Hnsw(p), &KindMeta::Hnsw { entry, max_level }) =
            (self, &meta.params, &meta.kind)
        else {
            return None;
        };
        Some(GraphView {
            m: p.m as usize,
            m0: 2 * p.m as usize,
            entry,
            max_level: max_level as usize,
            levels: &b[l.clone()],
            base: cast_slice(&b[bs.clone()])?,
            upper_offsets: cast_slice(&b[o.clone()])?,
            upper: cast_slice(&b[u.clone()])?,
        })
    }

    /// The Vamana graph.
    fn vamana<'a>(&self, b: &'a [u8], meta: &IndexMeta) -> Option<vamana::GraphView<'a>> {
        let (VectorIndex::Vamana(r), IndexParams::Vamana(p), &KindMeta::Vamana { medoid }) =
            (self, &meta.params, &meta.kind)
        else {
            return None;
        };
        Some(vamana::GraphView { degree: p.degree as usize, medoid, adjacency: cast_slice(&b[r.clone()])? })
    }

    /// The graph of a graph kind: what a graph search walks, verify's topology checks,
    /// inspect's graph report and repair's reconnection read.
    pub(super) fn graph<'a>(&self, b: &'a [u8], meta: &IndexMeta) -> Option<GraphIndexView<'a>> {
        match self {
            VectorIndex::Hnsw(_) => self.hnsw(b, meta).map(GraphIndexView::Hnsw),
            VectorIndex::Vamana(_) => self.vamana(b, meta).map(GraphIndexView::Vamana),
            // The disk kind's graph is in its blocks, read as searches go.
            VectorIndex::Flat | VectorIndex::Ivf(_) | VectorIndex::Qg(_) | VectorIndex::Disk(_) => None,
        }
    }

    /// The quantized graph, for verify's topology and block checks and inspect's graph
    /// report.
    pub(super) fn qg<'a>(&'a self, b: &'a [u8], meta: &IndexMeta) -> Option<qg::QgView<'a>> {
        match self {
            VectorIndex::Qg(s) => s.view(b, meta),
            VectorIndex::Flat
            | VectorIndex::Hnsw(_)
            | VectorIndex::Vamana(_)
            | VectorIndex::Ivf(_)
            | VectorIndex::Disk(_) => None,
        }
    }

    /// The IVF lists, for inspect's list report.
    pub(super) fn lists<'a>(&self, b: &'a [u8], dim: usize) -> Option<IvfView<'a>> {
        match self {
            VectorIndex::Ivf(s) => s.view(b, dim),
            VectorIndex::Flat
            | VectorIndex::Hnsw(_)
            | VectorIndex::Vamana(_)
            | VectorIndex::Qg(_)
            | VectorIndex::Disk(_) => None,
        }
    }

    /// What the codes and sketches encode (see [`Encodes`]); `None` when the lists do not
    /// read (open checked them).
    pub(super) fn encodes<'a>(&'a self, b: &'a [u8], dim: usize) -> Option<Encodes<'a>> {
        match self {
            VectorIndex::Flat
            | VectorIndex::Hnsw(_)
            | VectorIndex::Vamana(_)
            | VectorIndex::Qg(_)
            | VectorIndex::Disk(_) => Some(Encodes::Rows),
            VectorIndex::Ivf(s) => Some(Encodes::ListEntries { lists: s.view(b, dim)?, sketches: s.sketches(b, dim)? }),
        }
    }

    /// The IVF sections, to drop what open derived (tests).
    #[cfg(test)]
    pub(super) fn ivf_sections_mut(&mut self) -> Option<&mut IvfSections> {
        match self {
            VectorIndex::Ivf(s) => Some(s),
            VectorIndex::Flat
            | VectorIndex::Hnsw(_)
            | VectorIndex::Vamana(_)
            | VectorIndex::Qg(_)
            | VectorIndex::Disk(_) => None,
        }
    }

    /// Checks the kind's sections (and its meta) against `rows` and derives what search
    /// needs from them. `meta_offset` is where an error about the meta is reported.
    pub(super) fn validate(
        &mut self,
        b: &[u8],
        meta: &IndexMeta,
        rows: usize,
        meta_offset: u64,
        bad: Bad,
    ) -> Result<(), StorageError> {
        if meta.kind.index_type() != meta.params.kind() {
            let what =
                format!("meta of a {} index, parameters of a {} index", meta.kind.index_type(), meta.params.name());
            return Err(bad(meta_offset, what));
        }
        let label = match (&mut *self, &meta.kind) {
            // The disk kind's blocks are checked as they open (`open_reader`) and as each
            // is read.
            (VectorIndex::Flat | VectorIndex::Disk(_), _) => return Ok(()),
            (VectorIndex::Hnsw(_), _) => "HNSW",
            (VectorIndex::Vamana(r), _) => {
                if cast_slice::<u32>(&b[r.clone()]).is_none() {
                    let what = format!("Vamana adjacency of {} bytes is not a whole number of u32 words", r.len());
                    return Err(bad(r.start as u64, what));
                }
                "Vamana"
            }
            (VectorIndex::Ivf(s), KindMeta::Ivf { recall_probes }) => {
                (s.centroid_norms, s.coarse, s.list_blocks) =
                    s.validate(b, meta, recall_probes, rows, meta_offset, bad)?;
                return Ok(());
            }
            (VectorIndex::Qg(s), _) => return s.validate(b, meta, rows, meta_offset, bad),
            (
                VectorIndex::Ivf(_),
                KindMeta::Flat
                | KindMeta::Hnsw { .. }
                | KindMeta::Vamana { .. }
                | KindMeta::Qg { .. }
                | KindMeta::Disk { .. },
            ) => {
                return Err(bad(meta_offset, "meta of another index kind".into()));
            }
        };
        if let Some(g) = self.graph(b, meta) {
            g.validate(rows).map_err(|e| {
                let at = e.at.map_or(meta_offset, |(section, i)| self.offset_of(section, i));
                bad(at, format!("{label} graph: {}", e.what))
            })?;
        }
        Ok(())
    }

    /// The file offset of element `i` of a graph section.
    fn offset_of(&self, section: GraphSection, i: usize) -> u64 {
        let (range, width) = match (section, self) {
            (GraphSection::Levels, VectorIndex::Hnsw([l, ..])) => (l, 1),
            (GraphSection::Base, VectorIndex::Hnsw([_, b, ..])) => (b, 4),
            (GraphSection::UpperOffsets, VectorIndex::Hnsw([_, _, o, _])) => (o, 4),
            (GraphSection::Upper, VectorIndex::Hnsw([.., u])) => (u, 4),
            (GraphSection::Adjacency, VectorIndex::Vamana(a)) => (a, 4),
            (
                GraphSection::Levels
                | GraphSection::Base
                | GraphSection::UpperOffsets
                | GraphSection::Upper
                | GraphSection::Adjacency
                | GraphSection::QgBlocks,
                VectorIndex::Flat
                | VectorIndex::Hnsw(_)
                | VectorIndex::Vamana(_)
                | VectorIndex::Ivf(_)
                | VectorIndex::Qg(_)
                | VectorIndex::Disk(_),
            ) => return 0,
        };
        (range.start + width * i) as u64
    }

    /// Bytes of the graph, of the IVF lists (coarse codes made at open included), and of
    /// the sketches the kind keeps itself (the IVF entries').
    pub(super) fn bytes(&self) -> (u64, u64, u64) {
        match self {
            // The disk kind's graph stays on disk; its node cache is counted apart.
            VectorIndex::Flat | VectorIndex::Disk(_) => (0, 0, 0),
            VectorIndex::Hnsw(g) => (g.iter().map(|r| r.len() as u64).sum(), 0, 0),
            VectorIndex::Vamana(a) => (a.len() as u64, 0, 0),
            VectorIndex::Ivf(s) => {
                let coarse = s.coarse.as_ref().map_or(0, |c| c.heap_bytes() as u64);
                let lists = s.lists.iter().map(|r| r.len() as u64).sum::<u64>() + coarse;
                (0, lists, s.list_sketches.len() as u64)
            }
            VectorIndex::Qg(s) => (s.bytes(), 0, 0),
        }
    }
}

impl IvfSections {
    /// The lists.
    pub(super) fn view<'a>(&self, b: &'a [u8], dim: usize) -> Option<IvfView<'a>> {
        let [c, o, i] = &self.lists;
        Some(IvfView {
            dim,
            centroids: cast_slice(&b[c.clone()])?,
            offsets: cast_slice(&b[o.clone()])?,
            ids: cast_slice(&b[i.clone()])?,
        })
    }

    /// The entries' sketches.
    pub(super) fn sketches<'a>(&'a self, b: &'a [u8], dim: usize) -> Option<ListSketches<'a>> {
        ListSketches::new(&b[self.list_sketches.clone()], dim, &self.list_blocks)
    }

    /// Checks the lists, the calibration and the entries' sketches; returns what open
    /// derives from them: the centroid norms, coarse codes and list blocks.
    fn validate(
        &self,
        b: &[u8],
        meta: &IndexMeta,
        probes: &[u32],
        rows: usize,
        meta_offset: u64,
        bad: Bad,
    ) -> Result<Derived, StorageError> {
        let dim = meta.dim as usize;
        let view = self.view(b, dim).ok_or_else(|| bad(32, "IVF sections are not whole, aligned arrays".into()))?;
        view.validate(rows).map_err(|(what, section, i)| {
            let [c, o, e] = &self.lists;
            let (range, width) = [(c, 4), (o, 8), (e, 4)][section as usize];
            bad((range.start + width * i) as u64, format!("IVF lists: {what}"))
        })?;
        let norms = view.centroids.chunks_exact(view.dim.max(1)).map(|c| c.iter().map(|x| x * x).sum()).collect();
        let coarse = ivf::CoarseCodes::of(&view, meta.metric);
        let blocks = ivf::sketches::block_starts(&view);
        let lists = view.lists();
        let rising = probes.windows(2).all(|w| w[0] <= w[1]);
        let in_range = probes.iter().all(|&p| (1..=lists as u32).contains(&p));
        if !probes.is_empty() && (probes.len() != ivf::calibrate::STEPS + 1 || !rising || !in_range) {
            let what =
                format!("recall_probes must be {} rising list counts in 1..={}", ivf::calibrate::STEPS + 1, lists);
            return Err(bad(meta_offset, what));
        }
        let s = &self.list_sketches;
        let last = blocks.last().copied().unwrap_or(0);
        let want = ivf::sketches::section_bytes(last, dim);
        if s.len() != want {
            let what = format!("IVF list sketches of {} bytes, expected {want} ({last} blocks)", s.len());
            return Err(bad(s.start as u64, what));
        }
        let sk = ListSketches::new(&b[s.clone()], dim, &blocks)
            .ok_or_else(|| bad(s.start as u64, "IVF list sketches are misaligned".into()))?;
        if let Some(i) = sk.factors.iter().position(|f| f.is_nan()) {
            let at = s.start as u64 + (sk.bits.len() + 4 * i) as u64;
            return Err(bad(at, "an IVF list sketch factor is not a number".into()));
        }
        Ok((norms, coarse, blocks))
    }
}

/// What an IVF index derives at open: centroid norms, coarse codes, list blocks.
type Derived = (Vec<f32>, Option<ivf::CoarseCodes>, Vec<usize>);

/// How a disk index's node blocks are read.
#[derive(Clone, Copy, Debug)]
pub(super) struct NodeReads {
    /// Bytes of nodes cached in memory (filled at open).
    pub cache: u64,
    /// Past the page cache (`O_DIRECT`).
    pub direct: bool,
}
