//! Reading what is still good in a damaged segment: each column on its own, from the
//! section table, checked like `Segment::open` checks it (length, offsets, UTF-8), so
//! one damaged section costs its column and not the segment, and one damaged block of a
//! section (see the container's block checksums) costs the rows whose bytes lie in it.
//!
//! Derived sections are never needed: the key order and norms are recomputed when the
//! salvaged rows are written again, and the row count comes from the manifest. A damaged
//! column reads as all null here, and a row whose value lies in a damaged block reads as
//! null in that field; repair writes such nulls only for a nullable field (for any other
//! field those rows have lost required data and are not written). A row whose key is
//! unreadable is never written.

use std::ops::Range;
use std::sync::Arc;

use half::f16;
use roaring::RoaringBitmap;

use crate::schema::{Field, FieldType, ScalarType, Schema, VectorSpec, VectorType};
use crate::storage::column::{
    ArrayColumn, ColumnData, ColumnSource, Offsets, ScalarColumn, SegmentView, Validity, VarColumn, VectorColumn,
    VectorData,
};
use crate::storage::container::RawSection;
use crate::storage::mmap::{Plain, as_bytes, cast_slice};
use crate::storage::segment::damage::{rows_hit, var_rows_hit};
use crate::storage::segment::{NO_FIELD, SectionKind};

/// The fields a segment file stores, as a schema (see
/// [`Layout::schema_for`](crate::storage::segment::layout::Layout::schema_for)), and how its
/// section entries name them: by id (version 3 on) or by position.
#[derive(Clone, Debug)]
pub(crate) struct FileFields {
    pub schema: Arc<Schema>,
    pub by_id: bool,
}

impl FileFields {
    /// What the section entries of the field at `pos` carry.
    pub(crate) fn tag(&self, pos: usize) -> u16 {
        if self.by_id { self.schema.field_id(pos) } else { pos as u16 }
    }

    /// The position of the field a section entry names.
    pub(crate) fn position(&self, tag: u16) -> Option<usize> {
        match self.by_id {
            true => self.schema.position_of_id(tag),
            false => (usize::from(tag) < self.schema.fields().len()).then_some(tag as usize),
        }
    }
}

/// One readable column.
#[derive(Clone, Copy)]
enum Col<'a> {
    Scalar(ScalarColumn<'a>),
    Array(ArrayColumn<'a>),
    Vector(VectorColumn<'a>),
}

/// Variable-length values, as stored or rebuilt without the unreadable rows (empty).
enum Var<'a> {
    Stored(VarColumn<'a>),
    Rebuilt { offsets: Vec<u64>, bytes: Vec<u8> },
}

impl Var<'_> {
    fn view(&self) -> VarColumn<'_> {
        match self {
            Var::Stored(v) => *v,
            Var::Rebuilt { offsets, bytes } => VarColumn::stored(offsets, bytes),
        }
    }
}

/// What could be read of one field.
struct FieldRead<'a> {
    /// `None`: the whole column is unreadable.
    col: Option<Col<'a>>,
    /// A string column's values (an array's elements).
    var: Option<Var<'a>>,
    /// Validity with the unreadable rows cleared (a nullable field with damaged blocks).
    validity: Option<Vec<u8>>,
    /// Rows whose value lies in a damaged block.
    lost: RoaringBitmap,
}

/// The readable parts of a damaged segment, viewable like a segment.
pub(crate) struct Salvage<'a> {
    schema: &'a Schema,
    rows: usize,
    keys: Option<Var<'a>>,
    /// Rows whose key is unreadable (all of them when `keys` is `None`).
    key_lost: RoaringBitmap,
    fields: Vec<FieldRead<'a>>,
    /// Zeros for the columns that read as null: data words, an all-clear validity
    /// bitmap, and string offsets.
    zeros: Vec<u64>,
}

/// Offsets of a variable-length column: start at 0, never fall, end at the byte count,
/// every value UTF-8.
fn check_var(col: &VarColumn, rows: usize) -> bool {
    let Offsets::Stored(offsets) = col.offsets else { return false };
    offsets.len() == rows + 1
        && offsets.first() == Some(&0)
        && offsets.last() == Some(&(col.bytes.len() as u64))
        && offsets.windows(2).all(|w| {
            w[0] <= w[1] && col.bytes.get(w[0] as usize..w[1] as usize).is_some_and(|b| std::str::from_utf8(b).is_ok())
        })
}

/// Rows of section `i` whose bytes lie in `range` (file offsets): what one damaged block
/// costs. For string and key bytes, judged by the offsets section before it. `None` for
/// sections that hold no rows (meta) or an unknown kind.
pub(crate) fn block_rows(
    fields: &FileFields,
    table: &[RawSection],
    i: usize,
    range: Range<u64>,
    bytes: &[u8],
    rows: usize,
) -> Option<RoaringBitmap> {
    let s = table.get(i)?;
    let kind = SectionKind::from_code(s.kind)?;
    let rel = range.start.saturating_sub(s.offset) as usize..range.end.saturating_sub(s.offset) as usize;
    let field = fields.position(s.field).map(|p| fields.schema.field(p));
    if field.is_some_and(|f| f.ty.is_array()) {
        // An array column is read whole or not at all (see `Salvage::read`).
        let mut all = RoaringBitmap::new();
        all.insert_range(0..rows as u32);
        return Some(all);
    }
    let width = match kind {
        SectionKind::Meta => return None,
        SectionKind::KeyOrder | SectionKind::Norms => 4,
        SectionKind::Fixed => fields.schema.field(fields.position(s.field)?).as_scalar()?.width()?,
        SectionKind::Vectors => fields.schema.field(fields.position(s.field)?).as_vector()?.row_bytes(),
        SectionKind::KeyBytes | SectionKind::VarBytes => {
            let offs = table.get(i.checked_sub(1)?)?;
            let end = offs.offset.checked_add(offs.len)?;
            let offsets: &[u64] = cast_slice(bytes.get(offs.offset as usize..end as usize)?)?;
            return Some(var_rows_hit(offsets, &[rel], rows));
        }
        _ => 1,
    };
    Some(rows_hit(kind, width, &[rel], rows))
}

/// Reads a variable-length column from its offsets and bytes sections, skipping the
/// damaged ranges of each (relative to the section). Rows whose value cannot be read are
/// `lost` and read as empty.
fn read_var<'a>(
    offsets: &'a [u8],
    bad_offsets: &[Range<usize>],
    data: &'a [u8],
    bad_data: &[Range<usize>],
    rows: usize,
) -> Option<(Var<'a>, RoaringBitmap)> {
    let offs: &[u64] = cast_slice::<u64>(offsets).filter(|o| o.len() == rows + 1)?;
    if bad_offsets.is_empty() && bad_data.is_empty() {
        let col = VarColumn::stored(offs, data);
        return check_var(&col, rows).then_some((Var::Stored(col), RoaringBitmap::new()));
    }
    let mut lost = rows_hit(SectionKind::VarOffsets, 8, bad_offsets, rows);
    lost |= var_rows_hit(offs, bad_data, rows);
    let (mut out_offs, mut out_bytes) = (Vec::with_capacity(rows + 1), Vec::new());
    out_offs.push(0u64);
    for r in 0..rows {
        let value = (!lost.contains(r as u32))
            .then(|| data.get(offs[r] as usize..offs[r + 1] as usize))
            .flatten()
            .filter(|v| std::str::from_utf8(v).is_ok());
        match value {
            Some(v) => out_bytes.extend_from_slice(v),
            None => {
                lost.insert(r as u32);
            }
        }
        out_offs.push(out_bytes.len() as u64);
    }
    Some((Var::Rebuilt { offsets: out_offs, bytes: out_bytes }, lost))
}

/// The sections of a damaged segment as a salvage reads them: the table, the sections
/// lost whole (`bad`), and the damaged file byte ranges within the others.
struct Sections<'s, 'a> {
    table: &'s [RawSection],
    bad: &'s [usize],
    bad_ranges: &'s dyn Fn(usize) -> Vec<Range<u64>>,
    bytes: &'a [u8],
}

impl<'a> Sections<'_, 'a> {
    /// A readable section's bytes and its damaged ranges, relative to its start.
    fn find(&self, kind: SectionKind, field: u16) -> Option<(&'a [u8], Vec<Range<usize>>)> {
        let i = self.table.iter().position(|s| s.kind == kind as u16 && s.field == field)?;
        let s = self.table.get(i).filter(|_| !self.bad.contains(&i))?;
        let end = s.offset.checked_add(s.len).filter(|&e| e <= self.bytes.len() as u64)?;
        let rel = (self.bad_ranges)(i)
            .into_iter()
            .map(|r| r.start.saturating_sub(s.offset) as usize..r.end.min(end).saturating_sub(s.offset) as usize)
            .collect();
        Some((&self.bytes[s.offset as usize..end as usize], rel))
    }

    /// The `rows` variable-length values of `field` in sections `off` and `data`, and the
    /// rows lost to damage (see [`read_var`]).
    fn var(&self, off: SectionKind, data: SectionKind, field: u16, rows: usize) -> Option<(Var<'a>, RoaringBitmap)> {
        let (o, bad_o) = self.find(off, field)?;
        let (d, bad_d) = self.find(data, field)?;
        read_var(o, &bad_o, d, &bad_d, rows)
    }

    /// The keys, and the rows whose key is lost (all of them when the key sections are).
    fn keys(&self, rows: usize) -> (Option<Var<'a>>, RoaringBitmap) {
        match self.var(SectionKind::KeyOffsets, SectionKind::KeyBytes, NO_FIELD, rows) {
            Some((k, mut lost)) => {
                let view = k.view();
                lost.extend((0..rows).filter(|&r| view.get(r).is_empty()).map(|r| r as u32));
                (Some(k), lost)
            }
            None => (None, (0..rows as u32).collect()),
        }
    }

    /// What can be read of field `f`, whose sections carry `field`.
    fn field(&self, f: &Field, field: u16, rows: usize) -> FieldRead<'a> {
        let mut lost = RoaringBitmap::new();
        let validity = if f.nullable {
            match self.find(SectionKind::Validity, field) {
                Some((v, bad_v)) if v.len() == rows.div_ceil(8) => {
                    lost |= rows_hit(SectionKind::Validity, 1, &bad_v, rows);
                    Some(Validity(Some(v)))
                }
                _ => None,
            }
        } else {
            Some(Validity(None))
        };
        let read = validity.and_then(|validity| match &f.ty {
            FieldType::Scalar(s) => self.scalar(*s, field, rows, validity, &mut lost),
            FieldType::Array(_) | FieldType::Sparse(_) => self.array(&f.ty, field, rows, validity),
            FieldType::Vector(v) => self.vector(v, field, rows, validity, &mut lost).map(|c| (c, None)),
        });
        let (col, var) = read.map_or((None, None), |(c, v)| (Some(c), v));
        if col.is_none() {
            lost.clear();
        }
        let validity = if f.nullable { nulled(col.as_ref(), &lost) } else { None };
        FieldRead { col, var, validity, lost }
    }

    /// A scalar column (a string one's values beside it); rows in damaged blocks go to `lost`.
    fn scalar(
        &self,
        s: ScalarType,
        field: u16,
        rows: usize,
        validity: Validity<'a>,
        lost: &mut RoaringBitmap,
    ) -> Option<(Col<'a>, Option<Var<'a>>)> {
        let (data, string) = match s {
            ScalarType::String => {
                let (v, l) = self.var(SectionKind::VarOffsets, SectionKind::VarBytes, field, rows)?;
                *lost |= l;
                // Replaced by the values beside it when read.
                (ColumnData::String(VarColumn::stored(&[], &[])), Some(v))
            }
            _ => {
                let w = s.width().unwrap_or(1);
                let (b, bad) = self.find(SectionKind::Fixed, field).filter(|(b, _)| b.len() == rows * w)?;
                *lost |= rows_hit(SectionKind::Fixed, w, &bad, rows);
                (ColumnData::from_bytes(s, b, &[])?, None)
            }
        };
        Some((Col::Scalar(ScalarColumn { validity, data }), string))
    }

    /// An array or sparse column (a string array's elements beside it), read whole or not
    /// at all: an element's row is known only through offsets that are all intact.
    fn array(
        &self,
        ty: &FieldType,
        field: u16,
        rows: usize,
        validity: Validity<'a>,
    ) -> Option<(Col<'a>, Option<Var<'a>>)> {
        let (s, most) = ty.array_storage().expect("an array-shaped field");
        let (o, bad_o) = self.find(SectionKind::ArrayOffsets, field).filter(|(_, b)| b.is_empty())?;
        let offsets: &[u64] = cast_slice(o).filter(|x| x.len() == rows + 1)?;
        let rising = offsets.windows(2).all(|w| w[0] <= w[1] && w[1] - w[0] <= most as u64);
        if offsets[0] != 0 || !rising || !bad_o.is_empty() {
            return None;
        }
        let n = offsets[rows] as usize;
        let (elems, string) = match s {
            ScalarType::String => {
                let (v, l) = self.var(SectionKind::VarOffsets, SectionKind::VarBytes, field, n)?;
                if !l.is_empty() {
                    return None;
                }
                (ColumnData::String(VarColumn::stored(&[], &[])), Some(v))
            }
            _ => {
                let w = s.width().unwrap_or(1);
                let fixed = self.find(SectionKind::Fixed, field).filter(|(b, bad)| b.len() == n * w && bad.is_empty());
                (ColumnData::from_bytes(s, fixed?.0, &[])?, None)
            }
        };
        Some((Col::Array(ArrayColumn { validity, offsets: Offsets::Stored(offsets), elems }), string))
    }

    /// A vector column; rows in damaged blocks go to `lost`.
    fn vector(
        &self,
        v: &VectorSpec,
        field: u16,
        rows: usize,
        validity: Validity<'a>,
        lost: &mut RoaringBitmap,
    ) -> Option<Col<'a>> {
        fn typed<T: Plain>(section: Option<(&[u8], Vec<Range<usize>>)>, n: usize) -> Option<&[T]> {
            cast_slice::<T>(section?.0).filter(|s| s.len() == n)
        }
        let dim = v.dim as usize;
        let r = self.find(SectionKind::Vectors, field);
        let bad = r.as_ref().map(|(_, b)| b.clone()).unwrap_or_default();
        let data = match v.elem {
            VectorType::Fp32 => VectorData::Fp32(typed(r, rows * dim)?),
            VectorType::Fp16 => VectorData::Fp16(typed::<f16>(r, rows * dim)?),
            VectorType::Int8 => VectorData::Int8(typed(r, rows * dim)?),
        };
        *lost |= rows_hit(SectionKind::Vectors, v.row_bytes(), &bad, rows);
        Some(Col::Vector(VectorColumn { dim, validity, data, norms: None }))
    }
}

/// The validity of a nullable field's readable column `col` with the `lost` rows cleared
/// (their unreadable values become null); `None` when nothing is lost.
fn nulled(col: Option<&Col>, lost: &RoaringBitmap) -> Option<Vec<u8>> {
    let v = match col? {
        Col::Scalar(ScalarColumn { validity: Validity(Some(v)), .. })
        | Col::Array(ArrayColumn { validity: Validity(Some(v)), .. })
        | Col::Vector(VectorColumn { validity: Validity(Some(v)), .. }) => v,
        _ => return None,
    };
    if lost.is_empty() {
        return None;
    }
    let mut bits = v.to_vec();
    for r in lost {
        bits[r as usize / 8] &= !(1 << (r % 8));
    }
    Some(bits)
}

/// Bytes per row of field `f`'s column, for the zeros that stand in for it when it is
/// unreadable.
fn unreadable_width(f: &Field) -> usize {
    match &f.ty {
        FieldType::Scalar(s) => s.width().unwrap_or(8),
        FieldType::Array(_) | FieldType::Sparse(_) => 8,
        FieldType::Vector(v) => v.row_bytes(),
    }
}

impl<'a> Salvage<'a> {
    /// Reads every column of `schema` from `bytes` with the given table, skipping the
    /// sections listed in `bad` and, within the others, the damaged file byte ranges that
    /// `bad_ranges(i)` gives for section `i`. `rows` is the row count the manifest records.
    pub(crate) fn read(
        file: &'a FileFields,
        table: &[RawSection],
        bad: &[usize],
        bad_ranges: &dyn Fn(usize) -> Vec<Range<u64>>,
        bytes: &'a [u8],
        rows: usize,
    ) -> Salvage<'a> {
        let sections = Sections { table, bad, bad_ranges, bytes };
        let (keys, key_lost) = sections.keys(rows);
        let schema = &*file.schema;
        let fields: Vec<FieldRead> =
            schema.fields().iter().enumerate().map(|(i, f)| sections.field(f, file.tag(i), rows)).collect();
        let unreadable = schema.fields().iter().zip(&fields).filter(|(_, r)| r.col.is_none());
        let zero_words = unreadable
            .map(|(f, _)| (rows * unreadable_width(f)).div_ceil(8))
            .fold((rows + 1).max(rows.div_ceil(64)), usize::max);
        let zeros =
            if keys.is_none() || fields.iter().any(|f| f.col.is_none()) { vec![0u64; zero_words] } else { Vec::new() };
        Salvage { schema, rows, keys, key_lost, fields, zeros }
    }

    /// Key of row `r`, when readable.
    pub(crate) fn key(&self, r: usize) -> Option<&str> {
        let k = self.keys.as_ref()?.view();
        (!self.key_lost.contains(r as u32)).then(|| k.get_str(r))
    }

    /// Whether the key sections are readable at all.
    pub(crate) fn has_keys(&self) -> bool {
        self.keys.is_some()
    }

    /// Rows whose key is unreadable.
    pub(crate) fn key_lost(&self) -> &RoaringBitmap {
        &self.key_lost
    }

    /// Fields whose whole column could not be read.
    pub(crate) fn damaged_fields(&self) -> Vec<usize> {
        self.fields.iter().enumerate().filter(|(_, f)| f.col.is_none()).map(|(i, _)| i).collect()
    }

    /// Rows whose value of `field` lies in a damaged block (the column is otherwise read).
    pub(crate) fn lost_rows(&self, field: usize) -> Option<&RoaringBitmap> {
        self.fields.get(field).map(|f| &f.lost)
    }

    fn zero_bytes(&self, n: usize) -> &[u8] {
        &as_bytes(&self.zeros)[..n]
    }

    fn null_validity(&self) -> Validity<'_> {
        Validity(Some(self.zero_bytes(self.rows.div_ceil(8))))
    }

    /// `n` zero values of `ty` (empty strings for a string column); the readers of an
    /// unreadable column see these beside a validity of nulls.
    fn zero_column(&self, ty: Option<ScalarType>, n: usize) -> ColumnData<'_> {
        let ty = ty.unwrap_or(ScalarType::Double);
        let bytes = match ty.width() {
            Some(w) => self.zero_bytes(n * w),
            None => self.zero_bytes((n + 1) * 8),
        };
        ColumnData::from_bytes(ty, bytes, &[]).expect("u64 words are aligned for every element type")
    }

    fn zeros_as<T: Plain>(&self, n: usize) -> &[T] {
        cast_slice(self.zero_bytes(n * std::mem::size_of::<T>())).expect("u64 words are aligned for every element type")
    }
}

impl ColumnSource for Salvage<'_> {
    fn rows(&self) -> usize {
        self.rows
    }

    fn keys(&self) -> VarColumn<'_> {
        match &self.keys {
            Some(k) => k.view(),
            None => VarColumn::stored(self.zeros_as(self.rows + 1), &[]),
        }
    }

    fn scalar(&self, field: usize) -> ScalarColumn<'_> {
        if let Some(FieldRead { col: Some(Col::Scalar(c)), var, validity, .. }) = self.fields.get(field) {
            let mut c = *c;
            if let Some(v) = var {
                c.data = ColumnData::String(v.view());
            }
            if let Some(v) = validity {
                c.validity = Validity(Some(v));
            }
            return c;
        }
        let data = self.zero_column(self.schema.field(field).as_scalar(), self.rows);
        ScalarColumn { validity: self.null_validity(), data }
    }

    fn array(&self, field: usize) -> ArrayColumn<'_> {
        if let Some(FieldRead { col: Some(Col::Array(c)), var, validity, .. }) = self.fields.get(field) {
            let mut c = *c;
            if let Some(v) = var {
                c.elems = ColumnData::String(v.view());
            }
            if let Some(v) = validity {
                c.validity = Validity(Some(v));
            }
            return c;
        }
        // Unreadable: every row null, no elements.
        let elems = self.zero_column(self.schema.field(field).as_array(), 0);
        ArrayColumn { validity: self.null_validity(), offsets: Offsets::Stored(self.zeros_as(self.rows + 1)), elems }
    }
}

impl SegmentView for Salvage<'_> {
    fn vector(&self, field: usize) -> VectorColumn<'_> {
        if let Some(FieldRead { col: Some(Col::Vector(c)), validity, .. }) = self.fields.get(field) {
            let mut c = *c;
            if let Some(v) = validity {
                c.validity = Validity(Some(v));
            }
            return c;
        }
        let spec = self.schema.field(field).as_vector();
        let dim = spec.map_or(0, |v| v.dim as usize);
        let n = self.rows * dim;
        let data = match spec.map(|v| v.elem) {
            Some(VectorType::Fp16) => VectorData::Fp16(self.zeros_as(n)),
            Some(VectorType::Int8) => VectorData::Int8(self.zeros_as(n)),
            Some(VectorType::Fp32) | None => VectorData::Fp32(self.zeros_as(n)),
        };
        VectorColumn { dim, validity: self.null_validity(), data, norms: None }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::schema::{Field, Metric};

    fn schema() -> Schema {
        Schema::builder("s")
            .field(Field::scalar("name", ScalarType::String).nullable(true))
            .field(Field::scalar("n", ScalarType::Int64))
            .field(Field::vector("v", VectorType::Fp16, 3, Metric::L2).nullable(true))
            .field(Field::array("tags", ScalarType::String).nullable(true))
            .field(Field::array("ns", ScalarType::Int32))
            .build()
            .unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        /// Any table over any bytes: every column reads or is reported damaged, and every
        /// view the segment writer takes of it is in bounds.
        #[test]
        fn any_table_over_any_bytes_reads_without_panic(
            entries in proptest::collection::vec((0u16..12, prop_oneof![Just(NO_FIELD), 0u16..6], 0u64..600, 0u64..200), 0..16),
            words in proptest::collection::vec(any::<u64>(), 0..80),
            rows in 0usize..12,
            bad in proptest::collection::vec(0usize..16, 0..3),
            blocks in proptest::collection::vec((0usize..16, 0u64..700, 0u64..200), 0..4),
        ) {
            let s = FileFields { schema: Arc::new(schema()), by_id: false };
            let table: Vec<RawSection> = entries
                .iter()
                .map(|&(kind, field, offset, len)| RawSection {
                    kind,
                    field,
                    offset: offset & !7,
                    len,
                    crc: 0,
                    block: 0,
                    blocks_at: 0,
                })
                .collect();
            let bytes = as_bytes(&words);
            let ranges = |i: usize| -> Vec<Range<u64>> {
                blocks.iter().filter(|b| b.0 == i).map(|&(_, at, n)| at..at + n).collect()
            };
            let v = Salvage::read(&s, &table, &bad, &ranges, bytes, rows);
            for r in 0..rows {
                if let Some(k) = v.key(r) {
                    assert!(!k.is_empty());
                }
            }
            for i in 0..table.len() {
                for r in ranges(i) {
                    let _ = block_rows(&s, &table, i, r, bytes, rows);
                }
            }
            let _ = v.damaged_fields();
            for (i, f) in s.schema.fields().iter().enumerate() {
                if f.as_vector().is_some() {
                    let c = v.vector(i);
                    (0..rows).for_each(|r| { let _ = c.value(r); });
                } else if f.as_array().is_some() {
                    let c = v.array(i);
                    (0..rows).for_each(|r| { let _ = c.value(r); });
                } else {
                    let c = v.scalar(i);
                    (0..rows).for_each(|r| { let _ = c.value(r); });
                }
            }
            let k = ColumnSource::keys(&v);
            (0..rows).for_each(|r| { let _ = k.get(r); });
        }
    }
}
