//! Reading what is still good in a damaged segment: each column on its own, from the
//! section table, checked like `Segment::open` checks it (length, offsets, UTF-8), so
//! one damaged section costs its column and not the segment.
//!
//! Derived sections are never needed: the key order and norms are recomputed when the
//! salvaged rows are written again, and the row count comes from the manifest. A damaged
//! column reads as all null here; repair only writes such a column for a nullable field
//! (for any other field those rows have lost required data and are not written).

use std::ops::Range;

use half::f16;

use crate::schema::{FieldType, ScalarType, Schema, VectorType};
use crate::storage::column::{
    ColumnData, ColumnSource, ScalarColumn, SegmentView, Validity, VarColumn, VectorColumn, VectorData,
};
use crate::storage::container::RawSection;
use crate::storage::mmap::{Plain, as_bytes, cast_slice};
use crate::storage::segment::{NO_FIELD, SectionKind};

/// One readable column.
#[derive(Clone, Copy)]
enum Col<'a> {
    Scalar(ScalarColumn<'a>),
    Vector(VectorColumn<'a>),
}

/// The readable parts of a damaged segment, viewable like a segment.
pub(crate) struct Salvage<'a> {
    schema: &'a Schema,
    rows: usize,
    keys: Option<VarColumn<'a>>,
    columns: Vec<Option<Col<'a>>>,
    /// Zeros for the columns that read as null: data words, an all-clear validity
    /// bitmap, and string offsets.
    zeros: Vec<u64>,
}

/// Offsets of a variable-length column: start at 0, never fall, end at the byte count,
/// every value UTF-8.
fn check_var(col: &VarColumn, rows: usize) -> bool {
    col.offsets.len() == rows + 1
        && col.offsets.first() == Some(&0)
        && col.offsets.last() == Some(&(col.bytes.len() as u64))
        && col.offsets.windows(2).all(|w| {
            w[0] <= w[1] && col.bytes.get(w[0] as usize..w[1] as usize).is_some_and(|b| std::str::from_utf8(b).is_ok())
        })
}

impl<'a> Salvage<'a> {
    /// Reads every column of `schema` from `bytes` with the given table, skipping the
    /// sections listed in `bad`. `rows` is the row count the manifest records.
    pub fn read(schema: &'a Schema, table: &[RawSection], bad: &[usize], bytes: &'a [u8], rows: usize) -> Salvage<'a> {
        let good = |i: usize| -> Option<Range<usize>> {
            let s = table.get(i).filter(|_| !bad.contains(&i))?;
            let end = s.offset.checked_add(s.len)?;
            (end <= bytes.len() as u64).then_some(s.offset as usize..end as usize)
        };
        let find = |kind: SectionKind, field: u16| -> Option<Range<usize>> {
            let i = table.iter().position(|s| s.kind == kind as u16 && s.field == field)?;
            good(i)
        };
        fn typed<T: Plain>(bytes: &[u8], r: Option<Range<usize>>, n: usize) -> Option<&[T]> {
            cast_slice::<T>(&bytes[r?]).filter(|s| s.len() == n)
        }
        let var = |off: SectionKind, data: SectionKind, field: u16| -> Option<VarColumn<'a>> {
            let col =
                VarColumn { offsets: typed(bytes, find(off, field), rows + 1)?, bytes: &bytes[find(data, field)?] };
            check_var(&col, rows).then_some(col)
        };
        let keys = var(SectionKind::KeyOffsets, SectionKind::KeyBytes, NO_FIELD)
            .filter(|k| (0..rows).all(|r| !k.get(r).is_empty()));
        let mut columns = Vec::with_capacity(schema.fields().len());
        let mut zero_words = (rows + 1).max(rows.div_ceil(64));
        for (i, f) in schema.fields().iter().enumerate() {
            let field = i as u16;
            let validity = if f.nullable {
                match find(SectionKind::Validity, field) {
                    Some(r) if r.len() == rows.div_ceil(8) => Some(Validity(Some(&bytes[r]))),
                    _ => None,
                }
            } else {
                Some(Validity(None))
            };
            let fixed = || find(SectionKind::Fixed, field);
            let col = validity.and_then(|validity| match &f.ty {
                FieldType::Scalar(s) => {
                    let data = match s {
                        ScalarType::String => {
                            ColumnData::String(var(SectionKind::VarOffsets, SectionKind::VarBytes, field)?)
                        }
                        ScalarType::Bool => ColumnData::Bool(typed(bytes, fixed(), rows)?),
                        ScalarType::Int32 => ColumnData::Int32(typed(bytes, fixed(), rows)?),
                        ScalarType::Int64 => ColumnData::Int64(typed(bytes, fixed(), rows)?),
                        ScalarType::Uint32 => ColumnData::Uint32(typed(bytes, fixed(), rows)?),
                        ScalarType::Uint64 => ColumnData::Uint64(typed(bytes, fixed(), rows)?),
                        ScalarType::Float => ColumnData::Float(typed(bytes, fixed(), rows)?),
                        ScalarType::Double => ColumnData::Double(typed(bytes, fixed(), rows)?),
                    };
                    Some(Col::Scalar(ScalarColumn { validity, data }))
                }
                FieldType::Vector(v) => {
                    let dim = v.dim as usize;
                    let r = find(SectionKind::Vectors, field);
                    let data = match v.elem {
                        VectorType::Fp32 => VectorData::Fp32(typed(bytes, r, rows * dim)?),
                        VectorType::Fp16 => VectorData::Fp16(typed::<f16>(bytes, r, rows * dim)?),
                        VectorType::Int8 => VectorData::Int8(typed(bytes, r, rows * dim)?),
                    };
                    Some(Col::Vector(VectorColumn { dim, validity, data, norms: None }))
                }
            });
            if col.is_none() {
                let width = match &f.ty {
                    FieldType::Scalar(s) => s.width().unwrap_or(8),
                    FieldType::Vector(v) => v.row_bytes(),
                };
                zero_words = zero_words.max((rows * width).div_ceil(8));
            }
            columns.push(col);
        }
        let zeros =
            if keys.is_none() || columns.iter().any(Option::is_none) { vec![0u64; zero_words] } else { Vec::new() };
        Salvage { schema, rows, keys, columns, zeros }
    }

    /// The keys, when their sections are intact.
    pub fn keys(&self) -> Option<VarColumn<'a>> {
        self.keys
    }

    /// Fields whose column could not be read.
    pub fn damaged_fields(&self) -> Vec<usize> {
        self.columns.iter().enumerate().filter(|(_, c)| c.is_none()).map(|(i, _)| i).collect()
    }

    fn zero_bytes(&self, n: usize) -> &[u8] {
        &as_bytes(&self.zeros)[..n]
    }

    fn null_validity(&self) -> Validity<'_> {
        Validity(Some(self.zero_bytes(self.rows.div_ceil(8))))
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
        self.keys.unwrap_or_else(|| VarColumn { offsets: self.zeros_as(self.rows + 1), bytes: &[] })
    }

    fn scalar(&self, field: usize) -> ScalarColumn<'_> {
        if let Some(Some(Col::Scalar(c))) = self.columns.get(field) {
            return *c;
        }
        let n = self.rows;
        let data = match self.schema.field(field).as_scalar() {
            Some(ScalarType::String) => ColumnData::String(VarColumn { offsets: self.zeros_as(n + 1), bytes: &[] }),
            Some(ScalarType::Bool) => ColumnData::Bool(self.zeros_as(n)),
            Some(ScalarType::Int32) => ColumnData::Int32(self.zeros_as(n)),
            Some(ScalarType::Int64) => ColumnData::Int64(self.zeros_as(n)),
            Some(ScalarType::Uint32) => ColumnData::Uint32(self.zeros_as(n)),
            Some(ScalarType::Uint64) => ColumnData::Uint64(self.zeros_as(n)),
            Some(ScalarType::Float) => ColumnData::Float(self.zeros_as(n)),
            Some(ScalarType::Double) | None => ColumnData::Double(self.zeros_as(n)),
        };
        ScalarColumn { validity: self.null_validity(), data }
    }
}

impl SegmentView for Salvage<'_> {
    fn vector(&self, field: usize) -> VectorColumn<'_> {
        if let Some(Some(Col::Vector(c))) = self.columns.get(field) {
            return *c;
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
            .build()
            .unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        /// Any table over any bytes: every column reads or is reported damaged, and every
        /// view the segment writer takes of it is in bounds.
        #[test]
        fn any_table_over_any_bytes_reads_without_panic(
            entries in proptest::collection::vec((0u16..11, prop_oneof![Just(NO_FIELD), 0u16..4], 0u64..600, 0u64..200), 0..16),
            words in proptest::collection::vec(any::<u64>(), 0..80),
            rows in 0usize..12,
            bad in proptest::collection::vec(0usize..16, 0..3),
        ) {
            let s = schema();
            let table: Vec<RawSection> = entries
                .iter()
                .map(|&(kind, field, offset, len)| RawSection { kind, field, offset: offset & !7, len, crc: 0 })
                .collect();
            let bytes = as_bytes(&words);
            let v = Salvage::read(&s, &table, &bad, bytes, rows);
            if let Some(k) = v.keys() {
                (0..rows).for_each(|r| assert!(!k.get(r).is_empty()));
            }
            let _ = v.damaged_fields();
            for (i, f) in s.fields().iter().enumerate() {
                if f.as_vector().is_some() {
                    let c = v.vector(i);
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
