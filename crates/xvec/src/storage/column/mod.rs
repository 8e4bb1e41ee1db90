//! Borrowed views of one segment's columns, the same for the in-memory mutable segment
//! and a mapped immutable one. Filters and projections read through these.

mod buf;

pub(crate) use buf::{ColumnBuf, VarBuf};

/// Validity bitmap: bit `i % 8` of byte `i / 8` set means row `i` has a value.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Validity<'a>(pub Option<&'a [u8]>);

impl Validity<'_> {
    /// True when row `row` holds a value (not null).
    #[inline]
    pub(crate) fn is_valid(&self, row: usize) -> bool {
        match self.0 {
            None => true,
            Some(bits) => bits[row / 8] >> (row % 8) & 1 == 1,
        }
    }
}

/// Where each row of a variable-length column lies in its values.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Offsets<'a> {
    /// Row `r` is values `o[r]..o[r + 1]`: what a segment file or a memtable holds.
    Stored(&'a [u64]),
    /// Every one of `rows` rows is values `0..len`: a default of a field the segment does
    /// not store, kept once however many rows repeat it (a 100 KB default over a million
    /// rows is 100 KB, not 100 GB).
    Repeat { rows: usize, len: u64 },
}

impl Offsets<'_> {
    /// The values of row `row`.
    #[inline]
    pub(crate) fn range(&self, row: usize) -> std::ops::Range<usize> {
        match *self {
            Offsets::Stored(o) => o[row] as usize..o[row + 1] as usize,
            Offsets::Repeat { rows, len } => {
                assert!(row < rows, "row {row} of a column of {rows}");
                0..len as usize
            }
        }
    }

    /// Rows held.
    pub(crate) fn rows(&self) -> usize {
        match *self {
            Offsets::Stored(o) => o.len().saturating_sub(1),
            Offsets::Repeat { rows, .. } => rows,
        }
    }
}

/// Variable-length values: row `i` is `bytes[offsets.range(i)]`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct VarColumn<'a> {
    pub offsets: Offsets<'a>,
    pub bytes: &'a [u8],
}

impl<'a> VarColumn<'a> {
    /// Over stored offsets.
    pub(crate) fn stored(offsets: &'a [u64], bytes: &'a [u8]) -> VarColumn<'a> {
        VarColumn { offsets: Offsets::Stored(offsets), bytes }
    }

    #[inline]
    pub(crate) fn get(&self, row: usize) -> &'a [u8] {
        &self.bytes[self.offsets.range(row)]
    }

    /// Hints that the offsets of rows `rows` are read next (see [`VarColumn::prefetch_bytes`]).
    pub(crate) fn prefetch_offsets(&self, rows: impl Iterator<Item = usize>) {
        if let Offsets::Stored(o) = self.offsets {
            for r in rows {
                crate::kernels::prefetch_lines(&o[r..r + 2], 2);
            }
        }
    }

    /// Hints that the values of rows `rows` are read next. Their offsets are read here, so
    /// prefetch those first: a handful of random rows then costs two rounds of misses, not
    /// two per row.
    pub(crate) fn prefetch_bytes(&self, rows: impl Iterator<Item = usize>) {
        for r in rows {
            crate::kernels::prefetch_lines(self.get(r), 2);
        }
    }

    /// Row `row` as text; segment validation guarantees UTF-8, so a failure yields "".
    #[inline]
    pub(crate) fn get_str(&self, row: usize) -> &'a str {
        std::str::from_utf8(self.get(row)).unwrap_or("")
    }
}

/// The values of one scalar column (null rows hold an unspecified value).
#[derive(Clone, Copy, Debug)]
pub(crate) enum ColumnData<'a> {
    /// One byte per row, 0 or 1.
    Bool(&'a [u8]),
    Int32(&'a [i32]),
    Int64(&'a [i64]),
    Uint32(&'a [u32]),
    Uint64(&'a [u64]),
    Float(&'a [f32]),
    Double(&'a [f64]),
    String(VarColumn<'a>),
}

impl<'a> ColumnData<'a> {
    /// A column of type `ty` over stored little-endian bytes: `values` holds the values,
    /// or for strings the `u64` offsets into `var_bytes`. `None` when `values` is no
    /// whole, aligned run of its type.
    pub(crate) fn from_bytes(ty: crate::schema::ScalarType, values: &'a [u8], var_bytes: &'a [u8]) -> Option<Self> {
        use super::mmap::cast_slice;
        use crate::schema::ScalarType;
        Some(match ty {
            ScalarType::Bool => ColumnData::Bool(values),
            ScalarType::Int32 => ColumnData::Int32(cast_slice(values)?),
            ScalarType::Int64 => ColumnData::Int64(cast_slice(values)?),
            ScalarType::Uint32 => ColumnData::Uint32(cast_slice(values)?),
            ScalarType::Uint64 => ColumnData::Uint64(cast_slice(values)?),
            ScalarType::Float => ColumnData::Float(cast_slice(values)?),
            ScalarType::Double => ColumnData::Double(cast_slice(values)?),
            ScalarType::String => ColumnData::String(VarColumn::stored(cast_slice(values)?, var_bytes)),
        })
    }
}

impl ColumnData<'_> {
    /// Value `i` (a row of a scalar column, an element of an array column).
    pub(crate) fn value(&self, i: usize) -> crate::value::Value {
        use crate::value::Value;
        match self {
            ColumnData::Bool(d) => Value::Bool(d[i] != 0),
            ColumnData::Int32(d) => Value::Int32(d[i]),
            ColumnData::Int64(d) => Value::Int64(d[i]),
            ColumnData::Uint32(d) => Value::Uint32(d[i]),
            ColumnData::Uint64(d) => Value::Uint64(d[i]),
            ColumnData::Float(d) => Value::Float(d[i]),
            ColumnData::Double(d) => Value::Double(d[i]),
            ColumnData::String(v) => Value::String(v.get_str(i).to_string()),
        }
    }

    /// Values held.
    pub(crate) fn len(&self) -> usize {
        match self {
            ColumnData::Bool(d) => d.len(),
            ColumnData::Int32(d) => d.len(),
            ColumnData::Int64(d) => d.len(),
            ColumnData::Uint32(d) => d.len(),
            ColumnData::Uint64(d) => d.len(),
            ColumnData::Float(d) => d.len(),
            ColumnData::Double(d) => d.len(),
            ColumnData::String(v) => v.offsets.rows(),
        }
    }

    /// The type of the values.
    pub(crate) fn scalar_type(&self) -> crate::schema::ScalarType {
        use crate::schema::ScalarType;
        match self {
            ColumnData::Bool(_) => ScalarType::Bool,
            ColumnData::Int32(_) => ScalarType::Int32,
            ColumnData::Int64(_) => ScalarType::Int64,
            ColumnData::Uint32(_) => ScalarType::Uint32,
            ColumnData::Uint64(_) => ScalarType::Uint64,
            ColumnData::Float(_) => ScalarType::Float,
            ColumnData::Double(_) => ScalarType::Double,
            ColumnData::String(_) => ScalarType::String,
        }
    }
}

/// One scalar column of a segment.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ScalarColumn<'a> {
    pub validity: Validity<'a>,
    pub data: ColumnData<'a>,
}

/// One array column of a segment: row `r` holds elements `offsets.range(r)` of `elems`
/// (none for a null row).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ArrayColumn<'a> {
    pub validity: Validity<'a>,
    pub offsets: Offsets<'a>,
    pub elems: ColumnData<'a>,
}

impl ArrayColumn<'_> {
    /// The element indexes of row `row`.
    #[inline]
    pub(crate) fn range(&self, row: usize) -> std::ops::Range<usize> {
        self.offsets.range(row)
    }

    /// Rows held.
    pub(crate) fn rows(&self) -> usize {
        self.offsets.rows()
    }

    /// Row `row` as a typed value.
    pub(crate) fn value(&self, row: usize) -> crate::value::Value {
        use crate::value::Value;
        if !self.validity.is_valid(row) {
            return Value::Null;
        }
        Value::Array(self.range(row).map(|i| self.elems.value(i)).collect())
    }

    /// The stored words of a sparse field's row `row` (empty for a null).
    #[inline]
    pub(crate) fn sparse_words(&self, row: usize) -> &[u64] {
        match self.elems {
            ColumnData::Uint64(words) => &words[self.range(row)],
            _ => &[],
        }
    }

    /// Row `row` of a sparse field as a typed value.
    pub(crate) fn sparse_value(&self, row: usize) -> crate::value::Value {
        use crate::value::Value;
        if !self.validity.is_valid(row) {
            return Value::Null;
        }
        Value::Sparse(crate::sparse::SparseVector::from_words(self.sparse_words(row)))
    }
}

/// Access to the columns of one segment, for filter evaluation.
pub(crate) trait ColumnSource {
    /// Number of rows (live or not) in the segment.
    fn rows(&self) -> usize;
    /// The primary keys, as a string column without nulls.
    fn keys(&self) -> VarColumn<'_>;
    /// Scalar column of schema field `field`; the caller guarantees it is a scalar field.
    fn scalar(&self, field: usize) -> ScalarColumn<'_>;
    /// Array column of schema field `field`; the caller guarantees it is an array field.
    fn array(&self, field: usize) -> ArrayColumn<'_>;
}

/// The stored elements of one vector column, row-major, `dim` per row.
#[derive(Clone, Copy, Debug)]
pub(crate) enum VectorData<'a> {
    Fp32(&'a [f32]),
    Fp16(&'a [half::f16]),
    Int8(&'a [i8]),
}

/// One vector column of a segment. Null rows hold zeros.
#[derive(Clone, Copy, Debug)]
pub(crate) struct VectorColumn<'a> {
    pub dim: usize,
    pub validity: Validity<'a>,
    pub data: VectorData<'a>,
    /// Euclidean norm of each row, kept for cosine fields only.
    pub norms: Option<&'a [f32]>,
}

impl VectorColumn<'_> {
    /// Row `row` as f32 (a copy; for projections and refinement, not for scans).
    pub(crate) fn row_f32(&self, row: usize) -> Vec<f32> {
        let mut v = Vec::with_capacity(self.dim);
        self.extend_f32(row, &mut v);
        v
    }

    /// Appends row `row` as f32 to `out`: a copy into a buffer the caller reuses.
    pub(crate) fn extend_f32(&self, row: usize, out: &mut Vec<f32>) {
        let r = row * self.dim..(row + 1) * self.dim;
        match self.data {
            VectorData::Fp32(d) => out.extend_from_slice(&d[r]),
            VectorData::Fp16(d) => out.extend(d[r].iter().map(|x| x.to_f32())),
            VectorData::Int8(d) => out.extend(d[r].iter().map(|&x| x as f32)),
        }
    }

    /// Row `row` as a typed value.
    pub(crate) fn value(&self, row: usize) -> crate::value::Value {
        use crate::value::Value;
        if !self.validity.is_valid(row) {
            return Value::Null;
        }
        let r = row * self.dim..(row + 1) * self.dim;
        match self.data {
            VectorData::Fp32(d) => Value::VectorFp32(d[r].to_vec()),
            VectorData::Fp16(d) => Value::VectorFp16(d[r].to_vec()),
            VectorData::Int8(d) => Value::VectorInt8(d[r].to_vec()),
        }
    }
}

impl ScalarColumn<'_> {
    /// Row `row` as a typed value.
    pub(crate) fn value(&self, row: usize) -> crate::value::Value {
        use crate::value::Value;
        if !self.validity.is_valid(row) {
            return Value::Null;
        }
        self.data.value(row)
    }
}

/// Every column of a segment: what flush, optimize, fetch and search read.
pub(crate) trait SegmentView: ColumnSource {
    /// Vector column of schema field `field`; the caller guarantees it is a vector field.
    fn vector(&self, field: usize) -> VectorColumn<'_>;
}
