//! Writing a segment file from row selections of other segments, under a schema: the
//! file stores every field of the schema as the schema types it (layout version 3).

use std::path::Path;

use super::layout::{Layout, PlannedSection};
use super::{MAX_ROWS, SectionKind, norm_of};
use crate::error::StorageError;
use crate::schema::{FieldType, Schema};
use crate::storage::FileKind;
use crate::storage::column::{ColumnData, SegmentView, VectorData};
use crate::storage::container::{ContainerWriter, SectionSink};

/// Rows taken from one source segment.
pub(crate) struct Part<'a> {
    pub source: &'a dyn SegmentView,
    pub rows: &'a [u32],
}

/// Writes a new segment file holding the selected rows of `parts`, in order, and fsyncs it.
/// The bytes go to `<path>.tmp` first, renamed to `path` once whole, so a file under a
/// segment's name is never partial. Returns the file's size.
pub(crate) fn write(path: &Path, id: u64, schema: &Schema, parts: &[Part]) -> Result<u64, StorageError> {
    let rows: u64 = parts.iter().map(|p| p.rows.len() as u64).sum();
    if rows > MAX_ROWS {
        return Err(StorageError::corrupted(path, 0, format!("{rows} rows exceed the segment limit")));
    }
    let tmp = crate::storage::disk::temp_path(path);
    let written = (|| {
        let layout = Layout::of(schema);
        let fields = layout.encode();
        let plan = layout.sections(true);
        let lens: Vec<u64> = plan.iter().map(|&s| section_len(schema, s, &fields, rows, parts)).collect();
        let mut w = ContainerWriter::create(&tmp, FileKind::Segment, id, &lens)?;
        for &s in &plan {
            w.section(s.kind as u16, s.tag, |sink| write_section(sink, schema, s, &fields, rows, parts))?;
        }
        let size = w.finish()?;
        crate::storage::disk::rename(&tmp, path)?;
        Ok(size)
    })();
    if written.is_err() {
        let _ = crate::storage::disk::remove_file(&tmp);
    }
    written
}

/// Byte length of a section of the selected rows (what [`write_section`] puts).
fn section_len(schema: &Schema, sec: PlannedSection, fields: &[u8], rows: u64, parts: &[Part]) -> u64 {
    // A layout of the schema: its positions are the schema's.
    let f = sec.field.unwrap_or(usize::MAX);
    match sec.kind {
        SectionKind::Meta => 8,
        SectionKind::Fields => fields.len() as u64,
        SectionKind::KeyOffsets | SectionKind::ArrayOffsets => 8 * (rows + 1),
        SectionKind::VarOffsets => 8 * (each_value(parts, schema, f).count() as u64 + 1),
        SectionKind::KeyBytes => each_row(parts).map(|(s, r)| s.keys().get(r).len() as u64).sum(),
        SectionKind::KeyOrder | SectionKind::Norms => 4 * rows,
        SectionKind::Validity => rows.div_ceil(8),
        SectionKind::Fixed => {
            let ty = &schema.field(f).ty;
            let elem = ty.element().or(ty.array_storage().map(|(s, _)| s));
            let width = elem.and_then(|s| s.width()).unwrap_or(0);
            width as u64 * each_value(parts, schema, f).count() as u64
        }
        SectionKind::VarBytes => each_value(parts, schema, f)
            .map(|(d, i)| match d {
                ColumnData::String(v) => v.get(i).len() as u64,
                _ => 0,
            })
            .sum(),
        SectionKind::Vectors => schema.field(f).as_vector().map_or(0, |v| v.row_bytes() as u64 * rows),
    }
}

fn each_row<'a>(parts: &'a [Part<'a>]) -> impl Iterator<Item = (&'a dyn SegmentView, usize)> + 'a {
    parts.iter().flat_map(|p| p.rows.iter().map(move |&r| (p.source, r as usize)))
}

/// The values a field's value sections hold, in order, each as its column and index: a
/// scalar field's rows, an array field's elements (none for a null row).
fn each_value<'a>(
    parts: &'a [Part<'a>],
    schema: &Schema,
    f: usize,
) -> impl Iterator<Item = (ColumnData<'a>, usize)> + 'a {
    let array = schema.field(f).ty.array_storage().is_some();
    each_row(parts).flat_map(move |(s, r)| {
        let (data, range) = if array {
            let a = s.array(f);
            (a.elems, if a.validity.is_valid(r) { a.range(r) } else { 0..0 })
        } else {
            (s.scalar(f).data, r..r + 1)
        };
        range.map(move |i| (data, i))
    })
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
    sec: PlannedSection,
    fields: &[u8],
    rows: u64,
    parts: &[Part],
) -> std::io::Result<()> {
    let f = sec.field.unwrap_or(usize::MAX);
    let string_of = |d: ColumnData<'_>, i: usize| match d {
        ColumnData::String(v) => v.get(i).to_vec(),
        _ => unreachable!("planned only for string fields"),
    };
    match sec.kind {
        SectionKind::Meta => w.put(&rows.to_le_bytes()),
        SectionKind::Fields => w.put(fields),
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
        SectionKind::KeyOrder => write_key_order(w, parts),
        SectionKind::Validity => write_validity(w, schema, f, parts),
        SectionKind::Fixed => write_fixed(w, schema, f, parts),
        SectionKind::VarOffsets => {
            let values: Vec<Vec<u8>> = each_value(parts, schema, f).map(|(d, i)| string_of(d, i)).collect();
            write_offsets(w, values.iter().map(|v| v.as_slice()))
        }
        SectionKind::VarBytes => {
            for (d, i) in each_value(parts, schema, f) {
                w.put(&string_of(d, i))?;
            }
            Ok(())
        }
        SectionKind::ArrayOffsets => write_array_offsets(w, f, parts),
        SectionKind::Vectors => write_vectors(w, schema, f, parts),
        SectionKind::Norms => write_norms(w, f, parts),
    }
}

/// The rows in key order (ties in row order), as row numbers.
fn write_key_order(w: &mut SectionSink, parts: &[Part]) -> std::io::Result<()> {
    let keys: Vec<(&dyn SegmentView, usize)> = each_row(parts).collect();
    let mut order: Vec<u32> = (0..keys.len() as u32).collect();
    order.sort_by(|&a, &b| {
        let (sa, ra) = keys[a as usize];
        let (sb, rb) = keys[b as usize];
        sa.keys().get(ra).cmp(sb.keys().get(rb)).then(a.cmp(&b))
    });
    w.put(crate::storage::mmap::as_bytes(&order))
}

/// One bit a row of field `f`, set when the row has a value.
fn write_validity(w: &mut SectionSink, schema: &Schema, f: usize, parts: &[Part]) -> std::io::Result<()> {
    let mut bits = Vec::new();
    for (i, (s, r)) in each_row(parts).enumerate() {
        if i % 8 == 0 {
            bits.push(0u8);
        }
        let valid = match &schema.field(f).ty {
            FieldType::Vector(_) => s.vector(f).validity.is_valid(r),
            FieldType::Scalar(_) => s.scalar(f).validity.is_valid(r),
            FieldType::Array(_) | FieldType::Sparse(_) => s.array(f).validity.is_valid(r),
        };
        if valid {
            *bits.last_mut().expect("pushed") |= 1 << (i % 8);
        }
    }
    w.put(&bits)
}

/// The fixed-width values of field `f` (an array's elements), little-endian, in chunks.
fn write_fixed(w: &mut SectionSink, schema: &Schema, f: usize, parts: &[Part]) -> std::io::Result<()> {
    let mut buf = Vec::with_capacity(64 * 1024);
    for (d, r) in each_value(parts, schema, f) {
        match d {
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

/// Where each row's elements of array field `f` start, and the end of the last.
fn write_array_offsets(w: &mut SectionSink, f: usize, parts: &[Part]) -> std::io::Result<()> {
    let mut at = 0u64;
    w.put(&at.to_le_bytes())?;
    for (s, r) in each_row(parts) {
        let a = s.array(f);
        if a.validity.is_valid(r) {
            at += a.range(r).len() as u64;
        }
        w.put(&at.to_le_bytes())?;
    }
    Ok(())
}

/// The vectors of field `f`, row after row; zeros for a null row.
fn write_vectors(w: &mut SectionSink, schema: &Schema, f: usize, parts: &[Part]) -> std::io::Result<()> {
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
            VectorData::Fp32(d) => w.put(crate::storage::mmap::as_bytes(&d[range]))?,
            VectorData::Fp16(d) => w.put(crate::storage::mmap::as_bytes(&d[range]))?,
            VectorData::Int8(d) => w.put(crate::storage::mmap::as_bytes(&d[range]))?,
        }
    }
    Ok(())
}

/// The norm of each vector of field `f` (0 for a null row), as stored or computed.
fn write_norms(w: &mut SectionSink, f: usize, parts: &[Part]) -> std::io::Result<()> {
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
