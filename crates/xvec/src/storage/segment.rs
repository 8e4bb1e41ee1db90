//! Immutable columnar segment files: writing them from row selections of other segments,
//! and opening them (mapped or read) with every section checked before first use.
//!
//! A segment is a [container](super::container): a meta section (`rows u64`), then the
//! key sections, then each field's sections (see `docs/format.md`).

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use half::f16;

use super::column::{
    ColumnData, ColumnSource, ScalarColumn, SegmentView, Validity, VarColumn, VectorColumn, VectorData,
};
use super::container::{self, ContainerWriter, RawSection, SectionSink};
use super::mmap::{FileBytes, cast_slice};
use super::{FileKind, read_u64};
use crate::error::StorageError;
use crate::schema::{FieldType, Metric, ScalarType, Schema, VectorType};

/// Most rows one segment may hold (row ids are u32).
pub const MAX_ROWS: u64 = u32::MAX as u64;

/// What a section holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u16)]
pub enum SectionKind {
    Meta = 0,
    KeyOffsets = 1,
    KeyBytes = 2,
    KeyOrder = 3,
    Validity = 4,
    Fixed = 5,
    VarOffsets = 6,
    VarBytes = 7,
    Vectors = 8,
    Norms = 9,
}

impl SectionKind {
    pub fn from_code(code: u16) -> Option<SectionKind> {
        use SectionKind::*;
        [Meta, KeyOffsets, KeyBytes, KeyOrder, Validity, Fixed, VarOffsets, VarBytes, Vectors, Norms]
            .into_iter()
            .find(|k| *k as u16 == code)
    }

    pub fn name(self) -> &'static str {
        match self {
            SectionKind::Meta => "meta",
            SectionKind::KeyOffsets => "key offsets",
            SectionKind::KeyBytes => "key bytes",
            SectionKind::KeyOrder => "key order",
            SectionKind::Validity => "validity",
            SectionKind::Fixed => "values",
            SectionKind::VarOffsets => "string offsets",
            SectionKind::VarBytes => "string bytes",
            SectionKind::Vectors => "vectors",
            SectionKind::Norms => "norms",
        }
    }
}

/// Field number used for the key sections, which belong to no schema field.
pub const NO_FIELD: u16 = u16::MAX;

/// Sections a schema requires, in file order: keys first, then each field's.
pub fn planned_sections(schema: &Schema) -> Vec<(SectionKind, u16)> {
    let mut out = vec![
        (SectionKind::Meta, NO_FIELD),
        (SectionKind::KeyOffsets, NO_FIELD),
        (SectionKind::KeyBytes, NO_FIELD),
        (SectionKind::KeyOrder, NO_FIELD),
    ];
    for (i, f) in schema.fields().iter().enumerate() {
        let i = i as u16;
        if f.nullable {
            out.push((SectionKind::Validity, i));
        }
        match &f.ty {
            FieldType::Scalar(ScalarType::String) => {
                out.push((SectionKind::VarOffsets, i));
                out.push((SectionKind::VarBytes, i));
            }
            FieldType::Scalar(_) => out.push((SectionKind::Fixed, i)),
            FieldType::Vector(v) => {
                out.push((SectionKind::Vectors, i));
                if v.metric == Metric::Cosine {
                    out.push((SectionKind::Norms, i));
                }
            }
        }
    }
    out
}

/// Rows taken from one source segment.
pub struct Part<'a> {
    pub source: &'a dyn SegmentView,
    pub rows: &'a [u32],
}

/// Writes a new segment file holding the selected rows of `parts`, in order, and fsyncs it.
/// The bytes go to `<path>.tmp` first, renamed to `path` once whole, so a file under a
/// segment's name is never partial. Returns the file's size.
pub fn write(path: &Path, id: u64, schema: &Schema, parts: &[Part]) -> Result<u64, StorageError> {
    let rows: u64 = parts.iter().map(|p| p.rows.len() as u64).sum();
    if rows > MAX_ROWS {
        return Err(StorageError::corrupted(path, 0, format!("{rows} rows exceed the segment limit")));
    }
    let tmp = super::disk::temp_path(path);
    let written = (|| {
        let plan = planned_sections(schema);
        let lens: Vec<u64> = plan.iter().map(|&(kind, field)| section_len(schema, kind, field, rows, parts)).collect();
        let mut w = ContainerWriter::create(&tmp, FileKind::Segment, id, &lens)?;
        for &(kind, field) in &plan {
            w.section(kind as u16, field, |sink| write_section(sink, schema, kind, field, rows, parts))?;
        }
        let size = w.finish()?;
        super::disk::rename(&tmp, path)?;
        Ok(size)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// Byte length of a section of the selected rows (what [`write_section`] puts).
fn section_len(schema: &Schema, kind: SectionKind, field: u16, rows: u64, parts: &[Part]) -> u64 {
    let f = field as usize;
    match kind {
        SectionKind::Meta => 8,
        SectionKind::KeyOffsets | SectionKind::VarOffsets => 8 * (rows + 1),
        SectionKind::KeyBytes => each_row(parts).map(|(s, r)| s.keys().get(r).len() as u64).sum(),
        SectionKind::KeyOrder | SectionKind::Norms => 4 * rows,
        SectionKind::Validity => rows.div_ceil(8),
        SectionKind::Fixed => match &schema.field(f).ty {
            FieldType::Scalar(s) => s.width().unwrap_or(0) as u64 * rows,
            FieldType::Vector(_) => 0,
        },
        SectionKind::VarBytes => each_row(parts)
            .map(|(s, r)| match s.scalar(f).data {
                ColumnData::String(v) => v.get(r).len() as u64,
                _ => 0,
            })
            .sum(),
        SectionKind::Vectors => match &schema.field(f).ty {
            FieldType::Vector(v) => v.row_bytes() as u64 * rows,
            FieldType::Scalar(_) => 0,
        },
    }
}

fn each_row<'a>(parts: &'a [Part<'a>]) -> impl Iterator<Item = (&'a dyn SegmentView, usize)> + 'a {
    parts.iter().flat_map(|p| p.rows.iter().map(move |&r| (p.source, r as usize)))
}

fn write_offsets<'a>(w: &mut SectionSink, values: impl Iterator<Item = &'a [u8]>) -> std::io::Result<()> {
    let mut at = 0u64;
    w.put(&at.to_le_bytes())?;
    for v in values {
        at += v.len() as u64;
        w.put(&at.to_le_bytes())?;
    }
    Ok(())
}

fn write_section(
    w: &mut SectionSink,
    schema: &Schema,
    kind: SectionKind,
    field: u16,
    rows: u64,
    parts: &[Part],
) -> std::io::Result<()> {
    let f = field as usize;
    let string_of = |src: &dyn SegmentView, row: usize| match src.scalar(f).data {
        ColumnData::String(v) => v.get(row).to_vec(),
        _ => unreachable!("planned only for string fields"),
    };
    match kind {
        SectionKind::Meta => w.put(&rows.to_le_bytes()),
        SectionKind::KeyOffsets => {
            let keys: Vec<Vec<u8>> = each_row(parts).map(|(s, r)| s.keys().get(r).to_vec()).collect();
            write_offsets(w, keys.iter().map(|k| k.as_slice()))
        }
        SectionKind::KeyBytes => {
            for (s, r) in each_row(parts) {
                w.put(s.keys().get(r))?;
            }
            Ok(())
        }
        SectionKind::KeyOrder => {
            let keys: Vec<(&dyn SegmentView, usize)> = each_row(parts).collect();
            let mut order: Vec<u32> = (0..keys.len() as u32).collect();
            order.sort_by(|&a, &b| {
                let (sa, ra) = keys[a as usize];
                let (sb, rb) = keys[b as usize];
                sa.keys().get(ra).cmp(sb.keys().get(rb)).then(a.cmp(&b))
            });
            w.put(super::mmap::as_bytes(&order))
        }
        SectionKind::Validity => {
            let mut bits = Vec::new();
            for (i, (s, r)) in each_row(parts).enumerate() {
                if i % 8 == 0 {
                    bits.push(0u8);
                }
                let valid = match &schema.field(f).ty {
                    FieldType::Vector(_) => s.vector(f).validity.is_valid(r),
                    FieldType::Scalar(_) => s.scalar(f).validity.is_valid(r),
                };
                if valid {
                    *bits.last_mut().expect("pushed") |= 1 << (i % 8);
                }
            }
            w.put(&bits)
        }
        SectionKind::Fixed => {
            let mut buf = Vec::with_capacity(64 * 1024);
            for (s, r) in each_row(parts) {
                match s.scalar(f).data {
                    ColumnData::Bool(d) => buf.push(d[r]),
                    ColumnData::Int32(d) => buf.extend_from_slice(&d[r].to_le_bytes()),
                    ColumnData::Int64(d) => buf.extend_from_slice(&d[r].to_le_bytes()),
                    ColumnData::Uint32(d) => buf.extend_from_slice(&d[r].to_le_bytes()),
                    ColumnData::Uint64(d) => buf.extend_from_slice(&d[r].to_le_bytes()),
                    ColumnData::Float(d) => buf.extend_from_slice(&d[r].to_le_bytes()),
                    ColumnData::Double(d) => buf.extend_from_slice(&d[r].to_le_bytes()),
                    ColumnData::String(_) => unreachable!("strings use var sections"),
                }
                if buf.len() >= 60 * 1024 {
                    w.put(&buf)?;
                    buf.clear();
                }
            }
            w.put(&buf)
        }
        SectionKind::VarOffsets => {
            let values: Vec<Vec<u8>> = each_row(parts).map(|(s, r)| string_of(s, r)).collect();
            write_offsets(w, values.iter().map(|v| v.as_slice()))
        }
        SectionKind::VarBytes => {
            for (s, r) in each_row(parts) {
                w.put(&string_of(s, r))?;
            }
            Ok(())
        }
        SectionKind::Vectors => {
            let zeros = vec![0u8; schema.field(f).as_vector().map_or(0, |v| v.row_bytes())];
            for (s, r) in each_row(parts) {
                let col = s.vector(f);
                if !col.validity.is_valid(r) {
                    // Null rows are zeros, whatever the source holds (a salvaged row
                    // whose vector was unreadable becomes null).
                    w.put(&zeros)?;
                    continue;
                }
                let range = r * col.dim..(r + 1) * col.dim;
                match col.data {
                    VectorData::Fp32(d) => w.put(super::mmap::as_bytes(&d[range]))?,
                    VectorData::Fp16(d) => w.put(super::mmap::as_bytes(&d[range]))?,
                    VectorData::Int8(d) => w.put(super::mmap::as_bytes(&d[range]))?,
                }
            }
            Ok(())
        }
        SectionKind::Norms => {
            for (s, r) in each_row(parts) {
                let col = s.vector(f);
                let norm = match col.norms {
                    _ if !col.validity.is_valid(r) => 0.0,
                    Some(n) => n[r],
                    None => norm_of(&col, r),
                };
                w.put(&norm.to_le_bytes())?;
            }
            Ok(())
        }
    }
}

/// Euclidean norm of row `r` of a vector column.
pub fn norm_of(col: &VectorColumn, r: usize) -> f32 {
    let range = r * col.dim..(r + 1) * col.dim;
    let sq: f64 = match col.data {
        VectorData::Fp32(d) => d[range].iter().map(|&x| (x as f64) * (x as f64)).sum(),
        VectorData::Fp16(d) => d[range].iter().map(|x| x.to_f64() * x.to_f64()).sum(),
        VectorData::Int8(d) => d[range].iter().map(|&x| (x as f64) * (x as f64)).sum(),
    };
    sq.sqrt() as f32
}

/// Where one field's sections sit in the file.
#[derive(Clone, Debug, Default)]
struct FieldSections {
    validity: Option<Range<usize>>,
    data: Range<usize>,
    var_bytes: Option<Range<usize>>,
    norms: Option<Range<usize>>,
}

/// An open immutable segment.
pub struct Segment {
    id: u64,
    path: PathBuf,
    bytes: FileBytes,
    rows: usize,
    sections: Vec<RawSection>,
    keys: (Range<usize>, Range<usize>),
    key_order: Range<usize>,
    fields: Vec<FieldSections>,
    schema: Arc<Schema>,
}

impl std::fmt::Debug for Segment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Segment").field("path", &self.path).field("rows", &self.rows).finish()
    }
}

impl Segment {
    /// Opens and validates a segment. With `verify_data`, every section's CRC is checked
    /// (vectors included); without, only the sections whose content is interpreted.
    pub fn open(path: &Path, schema: Arc<Schema>, mmap: bool, verify_data: bool) -> Result<Segment, StorageError> {
        let bytes = FileBytes::open(path, mmap)?;
        let b = bytes.as_slice();
        let vectors = SectionKind::Vectors as u16;
        let (id, raw) = container::read_with(
            path,
            b,
            FileKind::Segment,
            |k| verify_data || k != vectors,
            |r, block| bytes.block_crcs(r, block),
        )?;
        let bad = |offset: u64, what: String| StorageError::corrupted(path, offset, what);
        let plan = planned_sections(&schema);
        if raw.len() != plan.len() {
            return Err(bad(32, format!("{} sections, the schema needs {}", raw.len(), plan.len())));
        }
        let meta = raw[0];
        if meta.kind != SectionKind::Meta as u16 || meta.len != 8 {
            return Err(bad(meta.offset, "first section is not the 8-byte meta section".into()));
        }
        let rows = read_u64(b, meta.offset as usize);
        if rows > MAX_ROWS {
            return Err(bad(meta.offset, format!("row count {rows} exceeds {MAX_ROWS}")));
        }
        let rows = rows as usize;
        let mut sections: Vec<RawSection> = Vec::with_capacity(raw.len());
        for (i, (s, &(want_kind, want_field))) in raw.iter().zip(&plan).enumerate() {
            if s.kind != want_kind as u16 || s.field != want_field {
                return Err(bad(
                    s.offset,
                    format!(
                        "section {i} has kind {} of field {}, expected {} of field {want_field}",
                        s.kind,
                        s.field,
                        want_kind.name()
                    ),
                ));
            }
            if let Some(expected) = expected_len(&schema, want_kind, s.field, rows, b, &sections)
                && expected != s.len
            {
                return Err(bad(
                    s.offset,
                    format!("{} section is {} bytes, expected {expected} for {rows} rows", want_kind.name(), s.len),
                ));
            }
            sections.push(*s);
        }
        let mut seg = Segment {
            id,
            path: path.to_path_buf(),
            bytes,
            rows,
            keys: (sections[1].range(), sections[2].range()),
            key_order: sections[3].range(),
            fields: vec![FieldSections::default(); schema.fields().len()],
            sections,
            schema,
        };
        for s in seg.sections.clone() {
            if s.field == NO_FIELD {
                continue;
            }
            let fs = &mut seg.fields[s.field as usize];
            match SectionKind::from_code(s.kind).expect("checked against the plan") {
                SectionKind::Validity => fs.validity = Some(s.range()),
                SectionKind::Vectors => {
                    seg.bytes.advise_random_access(s.range());
                    fs.data = s.range()
                }
                SectionKind::Fixed | SectionKind::VarOffsets => fs.data = s.range(),
                SectionKind::VarBytes => fs.var_bytes = Some(s.range()),
                SectionKind::Norms => fs.norms = Some(s.range()),
                _ => {}
            }
        }
        seg.check_var_columns()?;
        Ok(seg)
    }

    /// Offsets must rise and stay within their bytes, text must be UTF-8, key order
    /// must be a permutation: checked once here so readers can index without checks.
    fn check_var_columns(&self) -> Result<(), StorageError> {
        let b = self.bytes.as_slice();
        let check = |offsets: Range<usize>, bytes: Range<usize>, what: &str| -> Result<(), StorageError> {
            let offs: &[u64] = cast_slice(&b[offsets.clone()]).expect("aligned and sized at open");
            let data = &b[bytes.clone()];
            let mut prev = 0u64;
            for (i, &o) in offs.iter().enumerate() {
                if o < prev || o > data.len() as u64 || (i == 0 && o != 0) {
                    return Err(StorageError::corrupted(
                        &self.path,
                        (offsets.start + i * 8) as u64,
                        format!("{what} offset {i} is {o}, expected {prev}..={}", data.len()),
                    ));
                }
                if i > 0 && std::str::from_utf8(&data[prev as usize..o as usize]).is_err() {
                    return Err(StorageError::corrupted(
                        &self.path,
                        bytes.start as u64 + prev,
                        format!("{what} of row {} is not UTF-8", i - 1),
                    ));
                }
                prev = o;
            }
            if prev != data.len() as u64 {
                return Err(StorageError::corrupted(
                    &self.path,
                    offsets.end as u64 - 8,
                    format!("{what} end offset {prev} differs from the {} bytes stored", data.len()),
                ));
            }
            Ok(())
        };
        check(self.keys.0.clone(), self.keys.1.clone(), "key")?;
        for (i, f) in self.fields.iter().enumerate() {
            if let Some(bytes) = &f.var_bytes {
                check(f.data.clone(), bytes.clone(), &format!("field `{}`", self.schema.field(i).name))?;
            }
        }
        let order: &[u32] = cast_slice(&b[self.key_order.clone()]).expect("aligned and sized at open");
        let mut seen = vec![false; self.rows];
        for (i, &r) in order.iter().enumerate() {
            if r as usize >= self.rows || std::mem::replace(&mut seen[r as usize], true) {
                return Err(StorageError::corrupted(
                    &self.path,
                    (self.key_order.start + i * 4) as u64,
                    format!("key order entry {i} is {r}: not a permutation of 0..{}", self.rows),
                ));
            }
        }
        Ok(())
    }

    pub fn id(&self) -> u64 {
        self.id
    }

    /// Rows in the segment, deleted ones included.
    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn file_len(&self) -> u64 {
        self.bytes.as_slice().len() as u64
    }

    pub fn is_mapped(&self) -> bool {
        self.bytes.is_mapped()
    }

    pub fn heap_bytes(&self) -> usize {
        self.bytes.heap_bytes()
    }

    /// Bytes of all vector sections (what exact search reads).
    pub fn vector_bytes(&self) -> usize {
        self.sections.iter().filter(|s| s.kind == SectionKind::Vectors as u16).map(|s| s.len as usize).sum()
    }

    /// Rows whose key starts with `prefix`, in key order: a binary search to the first,
    /// then a walk that stops at the first key past the prefix.
    pub fn rows_with_key_prefix<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = u32> + 'a {
        let order: &[u32] = self.slice(self.key_order.clone());
        let keys = self.keys();
        let first = order.partition_point(|&r| keys.get(r as usize) < prefix.as_bytes());
        order[first..].iter().copied().take_while(move |&r| keys.get(r as usize).starts_with(prefix.as_bytes()))
    }

    /// Row holding `key`, by binary search over the key order.
    pub fn find_key(&self, key: &str) -> Option<u32> {
        let order: &[u32] = self.slice(self.key_order.clone());
        let keys = self.keys();
        order.binary_search_by(|&r| keys.get(r as usize).cmp(key.as_bytes())).ok().map(|i| order[i])
    }

    fn slice<T: super::mmap::Plain>(&self, r: Range<usize>) -> &[T] {
        cast_slice(&self.bytes.as_slice()[r]).expect("section aligned and sized at open")
    }

    fn validity(&self, field: usize) -> Validity<'_> {
        Validity(self.fields[field].validity.clone().map(|r| &self.bytes.as_slice()[r]))
    }
}

/// Expected byte length of a section, given the rows; `None` for variable-length bytes.
fn expected_len(
    schema: &Schema,
    kind: SectionKind,
    field: u16,
    rows: usize,
    file: &[u8],
    before: &[RawSection],
) -> Option<u64> {
    let rows = rows as u64;
    let ty = (field != NO_FIELD).then(|| &schema.field(field as usize).ty);
    match kind {
        SectionKind::Meta => Some(8),
        SectionKind::KeyOffsets | SectionKind::VarOffsets => Some((rows + 1) * 8),
        SectionKind::KeyOrder | SectionKind::Norms => Some(rows * 4),
        SectionKind::Validity => Some(rows.div_ceil(8)),
        SectionKind::Fixed => match ty {
            Some(FieldType::Scalar(s)) => s.width().map(|w| w as u64 * rows),
            _ => None,
        },
        SectionKind::Vectors => match ty {
            Some(FieldType::Vector(v)) => Some(v.row_bytes() as u64 * rows),
            _ => None,
        },
        SectionKind::KeyBytes | SectionKind::VarBytes => {
            // Must equal the last offset of the section just before it.
            let offs = before.last()?;
            let end = offs.offset + offs.len;
            (offs.len >= 8).then(|| read_u64(file, end as usize - 8))
        }
    }
}

impl ColumnSource for Segment {
    fn rows(&self) -> usize {
        self.rows
    }

    fn keys(&self) -> VarColumn<'_> {
        VarColumn { offsets: self.slice(self.keys.0.clone()), bytes: &self.bytes.as_slice()[self.keys.1.clone()] }
    }

    fn scalar(&self, field: usize) -> ScalarColumn<'_> {
        let fs = &self.fields[field];
        let b = self.bytes.as_slice();
        let data = match self.schema.field(field).ty {
            FieldType::Scalar(ScalarType::Bool) => ColumnData::Bool(&b[fs.data.clone()]),
            FieldType::Scalar(ScalarType::Int32) => ColumnData::Int32(self.slice(fs.data.clone())),
            FieldType::Scalar(ScalarType::Int64) => ColumnData::Int64(self.slice(fs.data.clone())),
            FieldType::Scalar(ScalarType::Uint32) => ColumnData::Uint32(self.slice(fs.data.clone())),
            FieldType::Scalar(ScalarType::Uint64) => ColumnData::Uint64(self.slice(fs.data.clone())),
            FieldType::Scalar(ScalarType::Float) => ColumnData::Float(self.slice(fs.data.clone())),
            FieldType::Scalar(ScalarType::Double) => ColumnData::Double(self.slice(fs.data.clone())),
            FieldType::Scalar(ScalarType::String) => ColumnData::String(VarColumn {
                offsets: self.slice(fs.data.clone()),
                bytes: &b[fs.var_bytes.clone().expect("string field has bytes")],
            }),
            FieldType::Vector(_) => panic!("field {field} is a vector field"),
        };
        ScalarColumn { validity: self.validity(field), data }
    }
}

impl SegmentView for Segment {
    fn vector(&self, field: usize) -> VectorColumn<'_> {
        let fs = &self.fields[field];
        let FieldType::Vector(spec) = &self.schema.field(field).ty else {
            panic!("field {field} is not a vector field");
        };
        let data = match spec.elem {
            VectorType::Fp32 => VectorData::Fp32(self.slice(fs.data.clone())),
            VectorType::Fp16 => VectorData::Fp16(self.slice::<f16>(fs.data.clone())),
            VectorType::Int8 => VectorData::Int8(self.slice(fs.data.clone())),
        };
        VectorColumn {
            dim: spec.dim as usize,
            validity: self.validity(field),
            data,
            norms: fs.norms.clone().map(|r| self.slice(r)),
        }
    }
}
