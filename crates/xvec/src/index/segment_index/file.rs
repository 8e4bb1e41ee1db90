//! The index file codec: encoding the codes and sketches, writing the container through a
//! temp file, and opening (mapping and validating) it again.

use std::path::Path;

use super::{IndexMeta, Kind, SegmentIndex, codes_in_sketches, keeps_rotation, keeps_sketches, quantizer_for};
use crate::error::StorageError;
use crate::index::graph::GraphSection;
use crate::index::graph_index::GraphIndexView;
use crate::index::ivf::{self, IvfLists};
use crate::index::quant::PARAMS_PER_ROW;
use crate::index::quant::rotation::Rotation;
use crate::index::quant::sketch::{self, Sketches};
use crate::schema::{IndexParams, Quantize, VectorSpec};
use crate::storage::FileKind;
use crate::storage::column::VectorColumn;
use crate::storage::container::{self, ContainerWriter, RawSection};
use crate::storage::mmap::FileBytes;

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

/// The codes of every row (quantized indexes only), their sketches (graph indexes) and
/// the rotation they were made with.
pub(super) struct Encoded {
    pub(super) rotation: Option<Rotation>,
    pub(super) codes: Option<(Vec<u8>, Vec<f32>)>,
    pub(super) sketches: Option<Vec<u64>>,
    pub(super) lists: Option<IvfLists>,
    /// The IVF entries' sketches (see [`ivf::sketches`]).
    pub(super) list_sketches: Option<Vec<u8>>,
}

impl Encoded {
    /// Takes an IVF build's lists, with the codes of their entries (quantized indexes).
    pub(super) fn encode_lists(&mut self, spec: &VectorSpec, col: VectorColumn, lists: IvfLists) {
        let quant = spec.index.quant();
        let quantizer = quantizer_for(spec, self.rotation.clone().filter(|_| quant.rotate));
        let view = lists.view(spec.dim as usize);
        self.codes = quantizer.map(|qz| ivf::encode(&qz, spec.metric, col, view));
        let rotation = self.rotation.as_ref().expect("an IVF index keeps a rotation");
        self.list_sketches = Some(ivf::sketches::encode(rotation, spec.metric, col, view));
        self.lists = Some(lists);
    }

    /// The sketches as a build screens with them, and their rotation.
    pub(super) fn screen(&self, dim: u32) -> Option<(Sketches<'_>, &Rotation)> {
        Some((Sketches { words: self.sketches.as_ref()?, dim: dim as usize }, self.rotation.as_ref()?))
    }
}

pub(super) fn encode(spec: &VectorSpec, col: VectorColumn, rows: usize) -> Encoded {
    let quant = spec.index.quant();
    let rotation = keeps_rotation(spec).then(|| Rotation::new(spec.dim as usize, spec.index.seed()));
    // IVF codes are in list order, made once the lists are (`encode_lists`).
    let quantizer =
        quantizer_for(spec, rotation.clone().filter(|_| quant.rotate)).filter(|_| spec.index.ivf().is_none());
    let codes = quantizer.map(|qz| qz.encode_rows(col, rows));
    let sketches =
        rotation.as_ref().filter(|_| keeps_sketches(spec)).map(|r| sketch::encode_rows(col, rows, r, spec.metric));
    Encoded { rotation, codes, sketches, lists: None, list_sketches: None }
}

/// Writes a finished index through a temp file renamed over `path`; returns its size.
#[allow(clippy::too_many_arguments)]
pub(super) fn write_index(
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
        recall_probes: e.lists.as_ref().map(|l| l.recall_probes.clone()).unwrap_or_default(),
    };
    let tmp = crate::storage::disk::temp_path(path);
    let written = write(&tmp, segment_id, field, &meta, e, graph)
        .and_then(|size| crate::storage::disk::rename(&tmp, path).map(|()| size));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

pub(super) fn write(
    path: &Path,
    segment_id: u64,
    field: u16,
    meta: &IndexMeta,
    e: &Encoded,
    graph: Option<GraphIndexView>,
) -> Result<u64, StorageError> {
    use crate::storage::mmap::as_bytes;
    let json = serde_json::to_vec(meta).expect("index meta serializes");
    let rotation = e.rotation.as_ref().map(|r| r.encode());
    let (codes, sketches) = (e.codes.as_ref(), e.sketches.as_ref());
    // Sections in file order, so the writer knows every length up front.
    let mut parts: Vec<(Kind, &[u8])> = vec![(Kind::Meta, &json)];
    if let Some(r) = &rotation {
        parts.push((Kind::Rotation, r));
    }
    if let Some((c, p)) = codes {
        if !codes_in_sketches(&meta.params) {
            parts.push((Kind::Codes, c));
        }
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
    if let Some(l) = &e.lists {
        parts.push((Kind::Centroids, as_bytes(&l.centroids)));
        parts.push((Kind::ListOffsets, as_bytes(&l.offsets)));
        parts.push((Kind::ListIds, as_bytes(&l.ids)));
    }
    if let Some(s) = &e.list_sketches {
        parts.push((Kind::ListSketches, s));
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
        let (b, crcs) = (bytes.as_slice(), bytes.checksummer()?);
        let small = |k: u16| k == Kind::Meta as u16 || k == Kind::Rotation as u16;
        let (id, sections) = container::read_with(
            path,
            b,
            FileKind::Index,
            |k| verify_data || small(k),
            |r, block| crcs.block_crcs(r, block),
        )?;
        let bad = |offset: u64, what: String| StorageError::corrupted(path, offset, what);
        if id != segment_id {
            return Err(bad(16, format!("index of segment {id}, expected segment {segment_id}")));
        }
        let find = |kind: Kind| -> Option<&RawSection> { sections.iter().find(|s| s.kind == kind as u16) };
        for s in &sections {
            if s.field != field || s.kind > Kind::ListSketches as u16 {
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
        let wants_rotation =
            (quant.quantize != Quantize::None && quant.rotate) || sketches.is_some() || spec.index.ivf().is_some();
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
        let ivf = match (&spec.index, find(Kind::Centroids), find(Kind::ListOffsets), find(Kind::ListIds)) {
            (IndexParams::Ivf(_), Some(c), Some(o), Some(i)) => Some([c.range(), o.range(), i.range()]),
            (IndexParams::Ivf(_), ..) => return Err(bad(32, "IVF list sections missing".into())),
            (_, None, None, None) => None,
            _ => return Err(bad(32, "IVF list sections in an index that is not IVF".into())),
        };
        let list_sketches = match (&ivf, find(Kind::ListSketches)) {
            (Some(_), Some(s)) => Some(s),
            (Some(_), None) => return Err(bad(32, "IVF list sketch section missing".into())),
            (None, Some(s)) => return Err(bad(s.offset, "IVF list sketches in an index that is not IVF".into())),
            (None, None) => None,
        };
        // Codes of an IVF index are per list entry, of the others per row.
        let entries = match &ivf {
            Some([.., i]) => i.len() / 4,
            None => rows,
        };
        let params_fit = |p: &RawSection| {
            if p.len == (PARAMS_PER_ROW * 4 * entries) as u64 {
                Ok(())
            } else {
                Err(bad(p.offset, format!("code params of {} bytes do not fit {entries} entries", p.len)))
            }
        };
        let codes = match (&quantizer, find(Kind::Codes), find(Kind::Params)) {
            (Some(qz), Some(c), Some(p)) => {
                if c.len != (qz.code_bytes() * entries) as u64 {
                    return Err(bad(c.offset, format!("codes of {} bytes do not fit {entries} entries", c.len)));
                }
                params_fit(p)?;
                Some((c.range(), p.range()))
            }
            // One-bit codes read from the sketches.
            (Some(_), None, Some(p)) if codes_in_sketches(&spec.index) => {
                params_fit(p)?;
                let s = sketches.clone().ok_or_else(|| bad(p.offset, "one-bit codes without sketches".into()))?;
                Some((s, p.range()))
            }
            (None, None, None) => None,
            _ => return Err(bad(32, "code sections do not match the quantization".into())),
        };
        let graph =
            match (&spec.index, find(Kind::Levels), find(Kind::Base), find(Kind::UpperOffsets), find(Kind::Upper)) {
                (IndexParams::Hnsw(_), Some(l), Some(bs), Some(o), Some(u)) => {
                    Some([l.range(), bs.range(), o.range(), u.range()])
                }
                (IndexParams::Flat(_) | IndexParams::Vamana(_) | IndexParams::Ivf(_), None, None, None, None) => None,
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
                + find(Kind::Codes).is_some() as usize
                + find(Kind::Params).is_some() as usize
                + sketches.is_some() as usize
                + 4 * graph.is_some() as usize
                + adjacency.is_some() as usize
                + 4 * ivf.is_some() as usize
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
            ivf,
            centroid_norms: Vec::new(),
            coarse: None,
            list_sketches: list_sketches.map(|s| s.range()),
            list_blocks: Vec::new(),
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
        if index.ivf.is_some() {
            let view = index.ivf().ok_or_else(|| bad(32, "IVF sections are not whole, aligned arrays".into()))?;
            view.validate(rows).map_err(|(what, section, i)| {
                let [c, o, e] = index.ivf.as_ref().expect("ivf");
                let (range, width) = [(c, 4), (o, 8), (e, 4)][section as usize];
                bad((range.start + width * i) as u64, format!("IVF lists: {what}"))
            })?;
        }
        let mut index = index;
        let derived = index.ivf().map(|view| {
            let norms = view.centroids.chunks_exact(view.dim.max(1)).map(|c| c.iter().map(|x| x * x).sum()).collect();
            let coarse = ivf::CoarseCodes::of(&view, spec.metric);
            (norms, coarse, ivf::sketches::block_starts(&view), view.lists())
        });
        if let Some((norms, coarse, blocks, lists)) = derived {
            index.centroid_norms = norms;
            index.coarse = coarse;
            index.list_blocks = blocks;
            let probes = &index.meta.recall_probes;
            let rising = probes.windows(2).all(|w| w[0] <= w[1]);
            let in_range = probes.iter().all(|&p| (1..=lists as u32).contains(&p));
            if !probes.is_empty() && (probes.len() != ivf::calibrate::STEPS + 1 || !rising || !in_range) {
                let what =
                    format!("recall_probes must be {} rising list counts in 1..={}", ivf::calibrate::STEPS + 1, lists);
                return Err(bad(meta_s.offset, what));
            }
        }
        if let Some(s) = list_sketches {
            let blocks = index.list_blocks.last().copied().unwrap_or(0);
            let want = ivf::sketches::section_bytes(blocks, spec.dim as usize);
            if s.len != want as u64 {
                return Err(bad(
                    s.offset,
                    format!("IVF list sketches of {} bytes, expected {want} ({blocks} blocks)", s.len),
                ));
            }
            let sk = index.list_sketches().ok_or_else(|| bad(s.offset, "IVF list sketches are misaligned".into()))?;
            if let Some(i) = sk.factors.iter().position(|f| f.is_nan()) {
                let at = s.offset + (sk.bits.len() + 4 * i) as u64;
                return Err(bad(at, "an IVF list sketch factor is not a number".into()));
            }
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
}
