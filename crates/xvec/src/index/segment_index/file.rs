//! The index file codec: encoding the codes and sketches, writing the container through a
//! temp file, and opening (mapping and validating) it again.

use std::path::Path;

use super::kinds::{KindParts, VectorIndex, codes_per_row, keeps_sketches};
use super::quantization::{
    CODES, PARAMS, Quantization, ROTATION, SKETCHES, codes_in_sketches, keeps_rotation, quantizer_for,
};
use super::{IndexMeta, META, Section, SegmentIndex, find, section_of};
use crate::error::StorageError;
use crate::index::graph_index::GraphIndexView;
use crate::index::ivf::{self, IvfLists};
use crate::index::quant::rotation::Rotation;
use crate::index::quant::sketch::{self, Sketches};
use crate::schema::VectorSpec;
use crate::storage::FileKind;
use crate::storage::column::VectorColumn;
use crate::storage::container::{self, ContainerWriter};
use crate::storage::mmap::FileBytes;

/// Writes the index of `col` for `spec` around a graph that already exists, with the codes
/// encoded afresh from the originals: how `verify`'s repair replaces damaged codes, or
/// saves a graph whose unreachable nodes it reconnected, without a graph build.
pub(crate) fn write_with_graph_index(
    path: &Path,
    segment_id: u64,
    field: u16,
    spec: &VectorSpec,
    col: VectorColumn,
    rows: usize,
    graph: Option<GraphIndexView>,
) -> Result<u64, StorageError> {
    let kind = graph.map_or_else(KindParts::flat, KindParts::graph);
    write_index(path, segment_id, field, spec, rows, &encode(spec, col, rows), kind)
}

/// The quantization of an index being written: the codes of every row or list entry
/// (quantized indexes only), the rows' sketches (graph indexes) and the rotation they were
/// made with.
pub(super) struct Encoded {
    pub(super) rotation: Option<Rotation>,
    pub(super) codes: Option<(Vec<u8>, Vec<f32>)>,
    pub(super) sketches: Option<Vec<u64>>,
}

impl Encoded {
    /// Encodes the entries of an IVF build's lists (quantized indexes); returns their
    /// sketches (see [`ivf::sketches`]), which the lists keep.
    pub(super) fn encode_lists(&mut self, spec: &VectorSpec, col: VectorColumn, lists: &IvfLists) -> Vec<u8> {
        let quant = spec.index.quant();
        let quantizer = quantizer_for(spec, self.rotation.clone().filter(|_| quant.rotate));
        let view = lists.view(spec.dim as usize);
        self.codes = quantizer.map(|qz| ivf::encode(&qz, spec.metric, col, view));
        let rotation = self.rotation.as_ref().expect("an IVF index keeps a rotation");
        ivf::sketches::encode(rotation, spec.metric, col, view)
    }

    /// The sketches as a build screens with them, and their rotation.
    pub(super) fn screen(&self, dim: u32) -> Option<(Sketches<'_>, &Rotation)> {
        Some((Sketches { words: self.sketches.as_ref()?, dim: dim as usize }, self.rotation.as_ref()?))
    }
}

pub(super) fn encode(spec: &VectorSpec, col: VectorColumn, rows: usize) -> Encoded {
    let quant = spec.index.quant();
    let rotation = keeps_rotation(&spec.index).then(|| Rotation::new(spec.dim as usize, spec.index.seed()));
    // IVF codes are in list order, made once the lists are (`encode_lists`).
    let quantizer =
        quantizer_for(spec, rotation.clone().filter(|_| quant.rotate)).filter(|_| codes_per_row(&spec.index));
    let codes = quantizer.map(|qz| qz.encode_rows(col, rows));
    let sketches = rotation
        .as_ref()
        .filter(|_| keeps_sketches(&spec.index))
        .map(|r| sketch::encode_rows(col, rows, r, spec.metric));
    Encoded { rotation, codes, sketches }
}

/// Writes a finished index through a temp file renamed over `path`; returns its size.
pub(super) fn write_index(
    path: &Path,
    segment_id: u64,
    field: u16,
    spec: &VectorSpec,
    rows: usize,
    e: &Encoded,
    kind: KindParts,
) -> Result<u64, StorageError> {
    let meta = IndexMeta {
        params: spec.index.clone(),
        rows: rows as u64,
        dim: spec.dim,
        metric: spec.metric,
        kind: kind.meta,
    };
    let tmp = crate::storage::disk::temp_path(path);
    let written = write(&tmp, segment_id, field, &meta, e, &kind.sections)
        .and_then(|size| crate::storage::disk::rename(&tmp, path).map(|()| size));
    if written.is_err() {
        let _ = crate::storage::disk::remove_file(&tmp);
    }
    written
}

/// Writes the index file: the meta, the quantization's sections, then the kind's.
pub(super) fn write(
    path: &Path,
    segment_id: u64,
    field: u16,
    meta: &IndexMeta,
    e: &Encoded,
    kind: &[(Section, &[u8])],
) -> Result<u64, StorageError> {
    use crate::storage::mmap::as_bytes;
    let json = serde_json::to_vec(meta).expect("index meta serializes");
    let rotation = e.rotation.as_ref().map(|r| r.encode());
    let (codes, sketches) = (e.codes.as_ref(), e.sketches.as_ref());
    // Sections in file order, so the writer knows every length up front.
    let mut parts: Vec<(Section, &[u8])> = vec![(META, &json)];
    if let Some(r) = &rotation {
        parts.push((ROTATION, r));
    }
    if let Some((c, p)) = codes {
        if !codes_in_sketches(&meta.params) {
            parts.push((CODES, c));
        }
        parts.push((PARAMS, as_bytes(p)));
    }
    if let Some(sk) = sketches {
        parts.push((SKETCHES, as_bytes(sk)));
    }
    parts.extend_from_slice(kind);
    let lens: Vec<u64> = parts.iter().map(|(_, b)| b.len() as u64).collect();
    let mut w = ContainerWriter::create(path, FileKind::Index, segment_id, &lens)?;
    for (kind, bytes) in parts {
        w.section(kind.code, field, |s| s.put(bytes))?;
    }
    w.finish()
}

impl SegmentIndex {
    /// Opens and validates an index file for `field` of segment `segment_id` with `rows`
    /// rows, built for `spec`. With `verify_data`, code and graph CRCs are checked too.
    pub(crate) fn open(
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
        let small = |k: u16| k == META.code || k == ROTATION.code;
        let (id, sections) = container::read_with(
            path,
            b,
            FileKind::Index,
            |k| verify_data || small(k),
            |r, block| crcs.block_crcs(r, block),
        )?;
        let (_, version) = crate::storage::decode_header_version(path, b, FileKind::Index)?;
        let bad = |offset: u64, what: String| StorageError::corrupted(path, offset, what);
        if id != segment_id {
            return Err(bad(16, format!("index of segment {id}, expected segment {segment_id}")));
        }
        for s in &sections {
            if s.field != field || section_of(s.kind).is_none() {
                return Err(bad(
                    s.offset,
                    format!("section kind {} of field {}, expected field {field}", s.kind, s.field),
                ));
            }
        }
        let meta_s = find(&sections, META).ok_or_else(|| bad(32, "no meta section".into()))?;
        let meta = IndexMeta::decode(&b[meta_s.range()], version)
            .map_err(|e| bad(meta_s.offset, format!("index meta: {e}")))?;
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
        let bad: &dyn Fn(u64, String) -> StorageError = &bad;
        let mut quant = Quantization::open_rotation(spec, rows, b, &sections, bad)?;
        let mut kind = VectorIndex::open(&spec.index, &sections, bad)?;
        quant.open_codes(spec, kind.code_entries(rows), &sections, bad)?;
        if sections.len() != 1 + quant.sections(&sections) + kind.sections() {
            return Err(bad(32, "duplicate sections".into()));
        }
        kind.validate(b, &meta, rows, meta_s.offset, bad)?;
        quant.validate(b, bad)?;
        Ok(SegmentIndex { path: path.to_path_buf(), bytes, meta, kind, quant })
    }
}
