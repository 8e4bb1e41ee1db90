//! The index file codec: encoding the codes and sketches, writing the container through a
//! temp file, and opening (mapping and validating) it again.

use std::path::Path;

use super::quantization::{CODES, Keeps, PARAMS, ROTATION, SKETCHES, quantizer_for};
use super::{IndexMeta, IndexTarget, META, Section, checked_as_read, find, section_of};
use crate::error::StorageError;
use crate::index::ivf::{self, IvfLists};
use crate::index::quant::rotation::Rotation;
use crate::index::quant::sketch::{self, Sketches};
use crate::schema::VectorSpec;
use crate::storage::FileKind;
use crate::storage::column::VectorColumn;
use crate::storage::container::{self, ContainerWriter, RawSection, SectionSink};
use crate::storage::mmap::FileBytes;

/// The quantization of an index being written: the codes of every row or list entry
/// (quantized indexes only), the rows' sketches (graph indexes) and the rotation they were
/// made with.
pub(super) struct Encoded {
    /// What the kind keeps of the quantization.
    pub(super) keeps: Keeps,
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

/// A kind's section written piece by piece, of a length known up front: one too large to
/// hold in memory while writing (the disk kind's node blocks, made from the rows).
pub(super) struct Streamed<'a> {
    pub(super) section: Section,
    pub(super) len: u64,
    pub(super) fill: Box<Fill<'a>>,
}

/// What writes a [`Streamed`] section's bytes into its sink.
pub(super) type Fill<'a> = dyn Fn(&mut SectionSink) -> std::io::Result<()> + 'a;

/// Encodes the quantization of `rows` rows of `col` for `spec`, of an index kind that
/// keeps what `keeps` says.
pub(super) fn encode(spec: &VectorSpec, keeps: Keeps, col: VectorColumn, rows: usize) -> Encoded {
    let quant = spec.index.quant();
    let rotation = keeps.rotation(&spec.index).then(|| Rotation::new(spec.dim as usize, spec.index.seed()));
    // IVF codes are in list order, made once the lists are (`encode_lists`).
    let quantizer = quantizer_for(spec, rotation.clone().filter(|_| quant.rotate)).filter(|_| keeps.codes_per_row);
    let codes = quantizer.map(|qz| qz.encode_rows(col, rows));
    let sketches =
        rotation.as_ref().filter(|_| keeps.row_sketches).map(|r| sketch::encode_rows(col, rows, r, spec.metric));
    Encoded { keeps, rotation, codes, sketches }
}

/// Writes a finished index through a temp file renamed over `path`; returns its size.
pub(super) fn write_index(
    target: IndexTarget<'_>,
    meta: &IndexMeta,
    e: &Encoded,
    kind: &[(Section, &[u8])],
    streamed: Option<&Streamed>,
) -> Result<u64, StorageError> {
    let IndexTarget { path, segment_id, field, .. } = target;
    let tmp = crate::storage::disk::temp_path(path);
    let written = write(&tmp, segment_id, field, meta, e, kind, streamed)
        .and_then(|size| crate::storage::disk::rename(&tmp, path).map(|()| size));
    if written.is_err() {
        let _ = crate::storage::disk::remove_file(&tmp);
    }
    written
}

/// Writes the index file: the meta, the quantization's sections, then the kind's (its
/// `streamed` one last).
pub(super) fn write(
    path: &Path,
    segment_id: u64,
    field: u16,
    meta: &IndexMeta,
    e: &Encoded,
    kind: &[(Section, &[u8])],
    streamed: Option<&Streamed>,
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
        if !e.keeps.codes_in_sketches(&meta.params) {
            parts.push((CODES, c));
        }
        parts.push((PARAMS, as_bytes(p)));
    }
    if let Some(sk) = sketches {
        parts.push((SKETCHES, as_bytes(sk)));
    }
    parts.extend_from_slice(kind);
    let mut lens: Vec<u64> = parts.iter().map(|(_, b)| b.len() as u64).collect();
    lens.extend(streamed.map(|s| s.len));
    let mut w = ContainerWriter::create(path, FileKind::Index, segment_id, &lens)?;
    for (kind, bytes) in parts {
        w.section(kind.code, field, |s| s.put(bytes))?;
    }
    if let Some(s) = streamed {
        w.section(s.section.code, field, |sink| (s.fill)(sink))?;
    }
    w.finish()
}

/// An index file read and checked as a container: its bytes, its sections (each of `field`
/// and of a kind the layer knows), and its meta, which must describe the target's spec
/// over its rows; where the meta is, for errors about it.
pub(super) struct Read {
    pub(super) bytes: FileBytes,
    /// The file's length (`bytes` may hold less: see [`hold`]).
    pub(super) file_len: u64,
    pub(super) sections: Vec<RawSection>,
    pub(super) meta: IndexMeta,
    pub(super) meta_offset: u64,
}

/// Reads the index file of `target` (see [`Read`]). With `verify_data`, code and graph
/// CRCs are checked too.
pub(super) fn read(target: IndexTarget<'_>, mmap: bool, verify_data: bool) -> Result<Read, StorageError> {
    let IndexTarget { path, segment_id, field, spec, rows } = target;
    let (bytes, file_len) = hold(path, mmap)?;
    bytes.advise_random_access(0..bytes.as_slice().len());
    let (b, crcs) = (bytes.as_slice(), bytes.checksummer()?);
    let small = |k: u16| k == META.code || k == ROTATION.code;
    let (id, sections) = container::read_held(
        path,
        b,
        file_len,
        FileKind::Index,
        |k| (verify_data && !checked_as_read(k)) || small(k),
        |r, block| crcs.block_crcs(r, block),
    )?;
    let (_, version) = crate::storage::decode_header_version(path, b, FileKind::Index)?;
    let bad = |offset: u64, what: String| StorageError::corrupted(path, offset, what);
    if id != segment_id {
        return Err(bad(16, format!("index of segment {id}, expected segment {segment_id}")));
    }
    for s in &sections {
        if s.field != field || section_of(s.kind).is_none() {
            return Err(bad(s.offset, format!("section kind {} of field {}, expected field {field}", s.kind, s.field)));
        }
    }
    let meta_s = find(&sections, META).ok_or_else(|| bad(32, "no meta section".into()))?;
    let meta =
        IndexMeta::decode(&b[meta_s.range()], version).map_err(|e| bad(meta_s.offset, format!("index meta: {e}")))?;
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
    let meta_offset = meta_s.offset;
    Ok(Read { bytes, file_len, sections, meta, meta_offset })
}

/// The bytes of the index file at `path` to keep, and the file's length: all of it
/// through a mapping; read into memory, all but the sections read as searches go (the
/// disk kind's node blocks, last in the file): holding them would cost the memory the
/// kind exists to save, and its searches read them with `pread` either way.
fn hold(path: &Path, mmap: bool) -> Result<(FileBytes, u64), StorageError> {
    if mmap {
        let bytes = FileBytes::open(path, true)?;
        let len = bytes.as_slice().len() as u64;
        return Ok((bytes, len));
    }
    // The header and the section table say where the sections lie.
    let mut f = crate::storage::disk::DiskFile::open_read(path)?;
    let len = f.len()?;
    let mut head = f.read_at_most(0, (container::TABLE_AT + 4 * container::ENTRY_LEN) as u64)?;
    let count = head
        .get(container::COUNT_AT..container::COUNT_AT + 4)
        .map_or(0, |c| u32::from_le_bytes(c.try_into().expect("4 bytes")) as usize);
    let table_end = (container::TABLE_AT + count.min(container::MAX_SECTIONS) * container::ENTRY_LEN) as u64;
    if table_end > head.len() as u64 {
        head = f.read_at_most(0, table_end)?;
    }
    drop(f);
    match container::held_len(&head, len, checked_as_read) {
        Some(held) => Ok((FileBytes::read_head(path, held)?, len)),
        None => Ok((FileBytes::open(path, false)?, len)),
    }
}
