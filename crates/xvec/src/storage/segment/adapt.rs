//! Columns a segment holds in memory because its file stores them otherwise than the
//! schema it is read under asks: a field added after the segment was written (every row
//! its default, or NULL), or one widened since (`int32` to `int64`, ...). They live until
//! optimize rewrites the segment under the current schema. A default of variable length
//! (a string, an array) is kept once and repeated by the column's offsets, never copied
//! into every row: its cost does not grow with the segment.

use super::super::column::{ArrayColumn, ColumnBuf, ColumnData, Offsets, ScalarColumn, Validity, VarColumn};
use super::super::column::{VectorColumn, VectorData};
use super::super::mmap::cast_slice;
use crate::error::StorageError;
use crate::schema::{Field, FieldType, ScalarType, VectorType};
use crate::value::Value;

/// A column made at open.
pub(super) enum Owned {
    Scalar {
        validity: Option<Vec<u8>>,
        data: ColumnBuf,
    },
    /// An array field the segment lacks (every row its default, or NULL), or one made
    /// from a scalar column (each value a one-element array) or an array of a narrower
    /// element type.
    Array {
        validity: Option<Vec<u8>>,
        offsets: Vec<u64>,
        elems: ColumnBuf,
    },
    /// A string field the segment lacks: every row `bytes` (its default), or NULL.
    RepeatString {
        validity: Option<Vec<u8>>,
        rows: usize,
        bytes: Vec<u8>,
    },
    /// An array or sparse field the segment lacks: every row the elements `elems` (its
    /// default), or NULL.
    RepeatArray {
        validity: Option<Vec<u8>>,
        rows: usize,
        elems: ColumnBuf,
    },
    /// A vector field the segment lacks: every row NULL. Its zeros are anonymous pages,
    /// which cost no memory until read (and a NULL row's vector is never read).
    Vector {
        validity: Vec<u8>,
        zeros: memmap2::Mmap,
        norms: bool,
    },
}

impl Owned {
    /// The column of `field` for a segment of `rows` rows that does not store it.
    pub(super) fn missing(field: &Field, rows: usize) -> Result<Owned, StorageError> {
        let default = field.default.as_ref().and_then(|d| Value::from_json(&field.ty, d).ok());
        let validity = default.is_none().then(|| vec![0; rows.div_ceil(8)]);
        let value = default.unwrap_or(Value::Null);
        Ok(match &field.ty {
            FieldType::Scalar(ScalarType::String) => {
                let bytes = match value {
                    Value::String(s) => s.into_bytes(),
                    _ => Vec::new(),
                };
                Owned::RepeatString { validity, rows, bytes }
            }
            // Fixed width: a value per row, as the column will hold once optimize rewrites
            // the segment (at most 8 bytes a row).
            FieldType::Scalar(ty) => {
                let mut data = ColumnBuf::new(*ty);
                (0..rows).for_each(|_| data.push(&value));
                Owned::Scalar { validity, data }
            }
            FieldType::Array(ty) => {
                let mut elems = ColumnBuf::new(*ty);
                if let Value::Array(xs) = value {
                    xs.iter().for_each(|x| elems.push(x));
                }
                Owned::RepeatArray { validity, rows, elems }
            }
            // No default: every row null.
            FieldType::Sparse(_) => Owned::RepeatArray {
                validity: Some(vec![0; rows.div_ceil(8)]),
                rows,
                elems: ColumnBuf::new(ScalarType::Uint64),
            },
            FieldType::Vector(v) => {
                // Room for the vectors and for the norms, whole 8-byte words.
                let len = (rows * v.row_bytes().max(4)).next_multiple_of(8).max(8);
                let zeros = memmap2::MmapOptions::new()
                    .len(len)
                    .map_anon()
                    .and_then(|m| m.make_read_only())
                    .map_err(|e| StorageError::io(std::path::Path::new("(anonymous zero pages)"), e))?;
                let norms = v.metric == crate::schema::Metric::Cosine;
                Owned::Vector { validity: vec![0; rows.div_ceil(8)], zeros, norms }
            }
        })
    }

    /// `stored` widened to `to`; `None` when `to` is not a widening of its type.
    pub(super) fn widened(stored: ScalarColumn, to: ScalarType) -> Option<Owned> {
        let data = ColumnBuf::widened(stored.data, to)?;
        Some(Owned::Scalar { validity: stored.validity.0.map(<[u8]>::to_vec), data })
    }

    /// `stored` as an array column of element type `to` (its own type): each value a
    /// one-element array, each null a null.
    pub(super) fn as_arrays(stored: ScalarColumn, to: ScalarType) -> Option<Owned> {
        if stored.data.scalar_type() != to {
            return None;
        }
        let rows = stored.data.len();
        let mut offsets = Vec::with_capacity(rows + 1);
        let mut elems = ColumnBuf::new(to);
        offsets.push(0);
        for r in 0..rows {
            if stored.validity.is_valid(r) {
                elems.push(&stored.data.value(r));
            }
            offsets.push(elems.len() as u64);
        }
        Some(Owned::Array { validity: stored.validity.0.map(<[u8]>::to_vec), offsets, elems })
    }

    /// `stored` with its elements widened to `to`; `None` when that is no widening.
    pub(super) fn widened_array(stored: ArrayColumn, to: ScalarType) -> Option<Owned> {
        let elems = ColumnBuf::widened(stored.elems, to)?;
        let validity = stored.validity.0.map(<[u8]>::to_vec);
        let offsets = match stored.offsets {
            Offsets::Stored(o) => o.to_vec(),
            Offsets::Repeat { .. } => return None,
        };
        Some(Owned::Array { validity, offsets, elems })
    }

    pub(super) fn heap_bytes(&self) -> usize {
        match self {
            Owned::Vector { validity, .. } => validity.len(),
            Owned::Scalar { validity, data } => validity.as_ref().map_or(0, Vec::len) + data.heap_bytes(),
            Owned::Array { validity, offsets, elems } => {
                validity.as_ref().map_or(0, Vec::len) + offsets.len() * 8 + elems.heap_bytes()
            }
            Owned::RepeatString { validity, bytes, .. } => validity.as_ref().map_or(0, Vec::len) + bytes.len(),
            Owned::RepeatArray { validity, elems, .. } => validity.as_ref().map_or(0, Vec::len) + elems.heap_bytes(),
        }
    }

    pub(super) fn scalar(&self) -> Option<ScalarColumn<'_>> {
        match self {
            Owned::Scalar { validity, data } => {
                Some(ScalarColumn { validity: Validity(validity.as_deref()), data: data.view() })
            }
            Owned::RepeatString { validity, rows, bytes } => {
                let offsets = Offsets::Repeat { rows: *rows, len: bytes.len() as u64 };
                let data = ColumnData::String(VarColumn { offsets, bytes });
                Some(ScalarColumn { validity: Validity(validity.as_deref()), data })
            }
            Owned::Array { .. } | Owned::RepeatArray { .. } | Owned::Vector { .. } => None,
        }
    }

    pub(super) fn array(&self) -> Option<ArrayColumn<'_>> {
        let (validity, offsets, elems) = match self {
            Owned::Array { validity, offsets, elems } => (validity, Offsets::Stored(offsets), elems),
            Owned::RepeatArray { validity, rows, elems } => {
                (validity, Offsets::Repeat { rows: *rows, len: elems.len() as u64 }, elems)
            }
            Owned::Scalar { .. } | Owned::RepeatString { .. } | Owned::Vector { .. } => return None,
        };
        Some(ArrayColumn { validity: Validity(validity.as_deref()), offsets, elems: elems.view() })
    }

    pub(super) fn vector(&self, elem: VectorType, dim: usize, rows: usize) -> Option<VectorColumn<'_>> {
        let Owned::Vector { validity, zeros, norms } = self else { return None };
        let bytes = |n: usize| &zeros[..n];
        let data = match elem {
            VectorType::Fp32 => VectorData::Fp32(cast_slice(bytes(rows * dim * 4)).expect("page aligned")),
            VectorType::Fp16 => VectorData::Fp16(cast_slice(bytes(rows * dim * 2)).expect("page aligned")),
            VectorType::Int8 => VectorData::Int8(cast_slice(bytes(rows * dim)).expect("page aligned")),
        };
        let norms = norms.then(|| cast_slice::<f32>(bytes(rows * 4)).expect("page aligned"));
        Some(VectorColumn { dim, validity: Validity(Some(validity)), data, norms })
    }
}
