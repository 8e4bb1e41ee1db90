//! The kinds of vector index, one variant each: the sections a kind keeps in an index file
//! beside the [quantization](super::quantization) component, how it opens and checks
//! them, its views for search and verify, and its memory. Every dispatch over kinds is an
//! exhaustive match here, so a new variant is a compile error wherever it must be handled.

use std::ops::Range;

use crate::error::StorageError;
use crate::index::graph::GraphSection;
use crate::index::graph_index::GraphIndexView;
use crate::index::hnsw::GraphView;
use crate::index::ivf::sketches::ListSketches;
use crate::index::ivf::{self, IvfView};
use crate::index::vamana;
use crate::schema::IndexParams;
use crate::storage::container::RawSection;
use crate::storage::mmap::cast_slice;

use super::quantization::Bad;
use super::{IndexMeta, Kind, find};

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
}

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

const HNSW: [Kind; 4] = [Kind::Levels, Kind::Base, Kind::UpperOffsets, Kind::Upper];
const LISTS: [Kind; 3] = [Kind::Centroids, Kind::ListOffsets, Kind::ListIds];

impl VectorIndex {
    /// The kind's sections of an index file built for `index`: each present exactly when
    /// the kind keeps it.
    pub(super) fn open(index: &IndexParams, sections: &[RawSection], bad: Bad) -> Result<VectorIndex, StorageError> {
        let hnsw = HNSW.map(|k| find(sections, k).map(RawSection::range));
        let lists = LISTS.map(|k| find(sections, k).map(RawSection::range));
        let (adjacency, list_sketches) = (find(sections, Kind::Adjacency), find(sections, Kind::ListSketches));
        let no_hnsw = || match hnsw.iter().all(Option::is_none) {
            true => Ok(()),
            false => Err(bad(32, "graph sections do not match the index type".into())),
        };
        let no_adjacency = || match adjacency {
            None => Ok(()),
            Some(a) => Err(bad(a.offset, "adjacency section in an index that is not Vamana".into())),
        };
        let no_lists = || match (lists.iter().all(Option::is_none), list_sketches) {
            (true, None) => Ok(()),
            (false, _) => Err(bad(32, "IVF list sections in an index that is not IVF".into())),
            (true, Some(s)) => Err(bad(s.offset, "IVF list sketches in an index that is not IVF".into())),
        };
        match index {
            IndexParams::Flat(_) => {
                no_lists()?;
                no_hnsw()?;
                no_adjacency()?;
                Ok(VectorIndex::Flat)
            }
            IndexParams::Hnsw(_) => {
                no_lists()?;
                let [Some(l), Some(b), Some(o), Some(u)] = hnsw else {
                    return Err(bad(32, "graph sections do not match the index type".into()));
                };
                no_adjacency()?;
                Ok(VectorIndex::Hnsw([l, b, o, u]))
            }
            IndexParams::Vamana(_) => {
                no_lists()?;
                no_hnsw()?;
                let a = adjacency.ok_or_else(|| bad(32, "Vamana adjacency section missing".into()))?;
                Ok(VectorIndex::Vamana(a.range()))
            }
            IndexParams::Ivf(_) => {
                let [Some(c), Some(o), Some(i)] = lists else {
                    return Err(bad(32, "IVF list sections missing".into()));
                };
                let s = list_sketches.ok_or_else(|| bad(32, "IVF list sketch section missing".into()))?;
                no_hnsw()?;
                no_adjacency()?;
                let lists = [c, o, i];
                let (centroid_norms, list_blocks) = (Vec::new(), Vec::new());
                Ok(VectorIndex::Ivf(IvfSections {
                    lists,
                    list_sketches: s.range(),
                    centroid_norms,
                    coarse: None,
                    list_blocks,
                }))
            }
        }
    }

    /// Sections of the file the kind holds.
    pub(super) fn sections(&self) -> usize {
        match self {
            VectorIndex::Flat => 0,
            VectorIndex::Hnsw(_) => HNSW.len(),
            VectorIndex::Vamana(_) => 1,
            VectorIndex::Ivf(_) => LISTS.len() + 1,
        }
    }

    /// What the codes are of: one per row, or (IVF) one per list entry.
    pub(super) fn code_entries(&self, rows: usize) -> usize {
        match self {
            VectorIndex::Ivf(s) => s.lists[2].len() / 4,
            VectorIndex::Flat | VectorIndex::Hnsw(_) | VectorIndex::Vamana(_) => rows,
        }
    }

    /// The HNSW graph.
    pub(super) fn hnsw<'a>(&self, b: &'a [u8], meta: &IndexMeta) -> Option<GraphView<'a>> {
        let (VectorIndex::Hnsw([l, bs, o, u]), IndexParams::Hnsw(p)) = (self, &meta.params) else { return None };
        Some(GraphView {
            m: p.m as usize,
            m0: 2 * p.m as usize,
            entry: meta.entry,
            max_level: meta.max_level as usize,
            levels: &b[l.clone()],
            base: cast_slice(&b[bs.clone()])?,
            upper_offsets: cast_slice(&b[o.clone()])?,
            upper: cast_slice(&b[u.clone()])?,
        })
    }

    /// The Vamana graph.
    pub(super) fn vamana<'a>(&self, b: &'a [u8], meta: &IndexMeta) -> Option<vamana::GraphView<'a>> {
        let (VectorIndex::Vamana(r), IndexParams::Vamana(p)) = (self, &meta.params) else { return None };
        Some(vamana::GraphView { degree: p.degree as usize, medoid: meta.entry, adjacency: cast_slice(&b[r.clone()])? })
    }

    /// The graph of a graph kind.
    pub(super) fn graph<'a>(&self, b: &'a [u8], meta: &IndexMeta) -> Option<GraphIndexView<'a>> {
        match self {
            VectorIndex::Hnsw(_) => self.hnsw(b, meta).map(GraphIndexView::Hnsw),
            VectorIndex::Vamana(_) => self.vamana(b, meta).map(GraphIndexView::Vamana),
            VectorIndex::Flat | VectorIndex::Ivf(_) => None,
        }
    }

    /// The IVF sections.
    pub(super) fn ivf_sections(&self) -> Option<&IvfSections> {
        match self {
            VectorIndex::Ivf(s) => Some(s),
            VectorIndex::Flat | VectorIndex::Hnsw(_) | VectorIndex::Vamana(_) => None,
        }
    }

    /// The IVF sections, to derive what open computes (tests drop the coarse codes).
    pub(super) fn ivf_sections_mut(&mut self) -> Option<&mut IvfSections> {
        match self {
            VectorIndex::Ivf(s) => Some(s),
            VectorIndex::Flat | VectorIndex::Hnsw(_) | VectorIndex::Vamana(_) => None,
        }
    }

    /// Checks the kind's sections against `rows` and derives what search needs from them.
    /// `meta_offset` is where an error about the meta is reported.
    pub(super) fn validate(
        &mut self,
        b: &[u8],
        meta: &IndexMeta,
        rows: usize,
        meta_offset: u64,
        bad: Bad,
    ) -> Result<(), StorageError> {
        let label = match &*self {
            VectorIndex::Flat => return Ok(()),
            VectorIndex::Hnsw(_) => "HNSW",
            VectorIndex::Vamana(r) => {
                if self.vamana(b, meta).is_none() {
                    let what = format!("Vamana adjacency of {} bytes is not a whole number of u32 words", r.len());
                    return Err(bad(r.start as u64, what));
                }
                "Vamana"
            }
            VectorIndex::Ivf(s) => {
                let derived = s.validate(b, meta, rows, meta_offset, bad)?;
                if let Some(s) = self.ivf_sections_mut() {
                    (s.centroid_norms, s.coarse, s.list_blocks) = derived;
                }
                return Ok(());
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
    pub(super) fn offset_of(&self, section: GraphSection, i: usize) -> u64 {
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
                | GraphSection::Adjacency,
                VectorIndex::Flat | VectorIndex::Hnsw(_) | VectorIndex::Vamana(_) | VectorIndex::Ivf(_),
            ) => return 0,
        };
        (range.start + width * i) as u64
    }

    /// Bytes of the graph, and of the IVF lists (coarse codes made at open included).
    pub(super) fn bytes(&self) -> (u64, u64) {
        match self {
            VectorIndex::Flat => (0, 0),
            VectorIndex::Hnsw(g) => (g.iter().map(|r| r.len() as u64).sum(), 0),
            VectorIndex::Vamana(a) => (a.len() as u64, 0),
            VectorIndex::Ivf(s) => {
                let coarse = s.coarse.as_ref().map_or(0, |c| c.heap_bytes() as u64);
                (0, s.lists.iter().map(|r| r.len() as u64).sum::<u64>() + coarse)
            }
        }
    }

    /// Bytes of sketches the kind keeps itself (the IVF entries').
    pub(super) fn sketch_bytes(&self) -> u64 {
        self.ivf_sections().map_or(0, |s| s.list_sketches.len() as u64)
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
        let probes = &meta.recall_probes;
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
