//! Columns a segment holds in memory because its file stores them otherwise than the
//! schema it is read under asks: a field added after the segment was written (every row
//! its default, or NULL), or one widened since (`int32` to `int64`, ...). They live until
//! optimize rewrites the segment under the current schema.

use super::super::column::{ArrayColumn, ColumnData, ScalarColumn, Validity, VarColumn, VectorColumn, VectorData};
use super::super::mmap::cast_slice;
use crate::error::StorageError;
use crate::schema::{Field, FieldType, ScalarType, VectorType};
use crate::value::Value;

/// A column made at open.
pub(super) enum Owned {
    Scalar {
        validity: Option<Vec<u8>>,
        data: OwnedData,
    },
    /// An array field the segment lacks (every row its default, or NULL), or one made
    /// from a scalar column (each value a one-element array) or an array of a narrower
    /// element type.
    Array {
        validity: Option<Vec<u8>>,
        offsets: Vec<u64>,
        elems: OwnedData,
    },
    /// A vector field the segment lacks: every row NULL. Its zeros are anonymous pages,
    /// which cost no memory until read (and a NULL row's vector is never read).
    Vector {
        validity: Vec<u8>,
        zeros: memmap2::Mmap,
        norms: bool,
    },
}

pub(super) enum OwnedData {
    Bool(Vec<u8>),
    Int32(Vec<i32>),
    Int64(Vec<i64>),
    Uint32(Vec<u32>),
    Uint64(Vec<u64>),
    Float(Vec<f32>),
    Double(Vec<f64>),
    String { offsets: Vec<u64>, bytes: Vec<u8> },
}

impl OwnedData {
    fn empty(ty: ScalarType) -> OwnedData {
        match ty {
            ScalarType::String => OwnedData::String { offsets: vec![0], bytes: Vec::new() },
            ScalarType::Bool => OwnedData::Bool(Vec::new()),
            ScalarType::Int32 => OwnedData::Int32(Vec::new()),
            ScalarType::Int64 => OwnedData::Int64(Vec::new()),
            ScalarType::Uint32 => OwnedData::Uint32(Vec::new()),
            ScalarType::Uint64 => OwnedData::Uint64(Vec::new()),
            ScalarType::Float => OwnedData::Float(Vec::new()),
            ScalarType::Double => OwnedData::Double(Vec::new()),
        }
    }

    /// Appends `v`, a value of this data's type.
    fn push(&mut self, v: &Value) {
        match (self, v) {
            (OwnedData::Bool(d), Value::Bool(x)) => d.push(*x as u8),
            (OwnedData::Int32(d), Value::Int32(x)) => d.push(*x),
            (OwnedData::Int64(d), Value::Int64(x)) => d.push(*x),
            (OwnedData::Uint32(d), Value::Uint32(x)) => d.push(*x),
            (OwnedData::Uint64(d), Value::Uint64(x)) => d.push(*x),
            (OwnedData::Float(d), Value::Float(x)) => d.push(*x),
            (OwnedData::Double(d), Value::Double(x)) => d.push(*x),
            (OwnedData::String { offsets, bytes }, Value::String(x)) => {
                bytes.extend_from_slice(x.as_bytes());
                offsets.push(bytes.len() as u64);
            }
            (d, v) => unreachable!("{} value in {} data", v.type_name(), d.view().scalar_type().name()),
        }
    }

    fn len(&self) -> usize {
        self.view().len()
    }

    /// `d` widened to `to`; `None` when that is no widening.
    fn widened(d: ColumnData, to: ScalarType) -> Option<OwnedData> {
        Some(match (d, to) {
            (ColumnData::Int32(d), ScalarType::Int64) => OwnedData::Int64(d.iter().map(|&x| x.into()).collect()),
            (ColumnData::Uint32(d), ScalarType::Uint64) => OwnedData::Uint64(d.iter().map(|&x| x.into()).collect()),
            (ColumnData::Uint32(d), ScalarType::Int64) => OwnedData::Int64(d.iter().map(|&x| x.into()).collect()),
            (ColumnData::Float(d), ScalarType::Double) => OwnedData::Double(d.iter().map(|&x| x.into()).collect()),
            _ => return None,
        })
    }

    fn heap_bytes(&self) -> usize {
        match self {
            OwnedData::Bool(d) => d.len(),
            OwnedData::Int32(d) => d.len() * 4,
            OwnedData::Uint32(d) => d.len() * 4,
            OwnedData::Float(d) => d.len() * 4,
            OwnedData::Int64(d) => d.len() * 8,
            OwnedData::Uint64(d) => d.len() * 8,
            OwnedData::Double(d) => d.len() * 8,
            OwnedData::String { offsets, bytes } => offsets.len() * 8 + bytes.len(),
        }
    }

    fn view(&self) -> ColumnData<'_> {
        match self {
            OwnedData::Bool(d) => ColumnData::Bool(d),
            OwnedData::Int32(d) => ColumnData::Int32(d),
            OwnedData::Int64(d) => ColumnData::Int64(d),
            OwnedData::Uint32(d) => ColumnData::Uint32(d),
            OwnedData::Uint64(d) => ColumnData::Uint64(d),
            OwnedData::Float(d) => ColumnData::Float(d),
            OwnedData::Double(d) => ColumnData::Double(d),
            OwnedData::String { offsets, bytes } => ColumnData::String(VarColumn { offsets, bytes }),
        }
    }
}

impl Owned {
    /// The column of `field` for a segment of `rows` rows that does not store it.
    pub(super) fn missing(field: &Field, rows: usize) -> Result<Owned, StorageError> {
        let ty = match &field.ty {
            FieldType::Scalar(ty) => *ty,
            FieldType::Array(ty) => {
                let default = field.default.as_ref().and_then(|d| Value::from_json(&field.ty, d).ok());
                let (validity, one) = match default {
                    Some(Value::Array(xs)) => (None, xs),
                    _ => (Some(vec![0; rows.div_ceil(8)]), Vec::new()),
                };
                let mut elems = OwnedData::empty(*ty);
                for _ in 0..rows {
                    one.iter().for_each(|x| elems.push(x));
                }
                let offsets = (0..=rows as u64).map(|i| i * one.len() as u64).collect();
                return Ok(Owned::Array { validity, offsets, elems });
            }
            FieldType::Vector(v) => {
                // Room for the vectors and for the norms, whole 8-byte words.
                let len = (rows * v.row_bytes().max(4)).next_multiple_of(8).max(8);
                let zeros = memmap2::MmapOptions::new()
                    .len(len)
                    .map_anon()
                    .and_then(|m| m.make_read_only())
                    .map_err(|e| StorageError::io(std::path::Path::new("(anonymous zero pages)"), e))?;
                let norms = v.metric == crate::schema::Metric::Cosine;
                return Ok(Owned::Vector { validity: vec![0; rows.div_ceil(8)], zeros, norms });
            }
        };
        let default = field.default.as_ref().and_then(|d| Value::from_json(&field.ty, d).ok());
        let validity = match default {
            Some(_) => None,
            None => Some(vec![0; rows.div_ceil(8)]),
        };
        let data = match (ty, default.unwrap_or(Value::Null)) {
            (ScalarType::String, v) => {
                let s = match v {
                    Value::String(s) => s,
                    _ => String::new(),
                };
                let offsets = (0..=rows as u64).map(|i| i * s.len() as u64).collect();
                OwnedData::String { offsets, bytes: s.as_bytes().repeat(rows) }
            }
            (ScalarType::Bool, v) => OwnedData::Bool(vec![matches!(v, Value::Bool(true)) as u8; rows]),
            (ScalarType::Int32, v) => OwnedData::Int32(vec![if let Value::Int32(x) = v { x } else { 0 }; rows]),
            (ScalarType::Int64, v) => OwnedData::Int64(vec![if let Value::Int64(x) = v { x } else { 0 }; rows]),
            (ScalarType::Uint32, v) => OwnedData::Uint32(vec![if let Value::Uint32(x) = v { x } else { 0 }; rows]),
            (ScalarType::Uint64, v) => OwnedData::Uint64(vec![if let Value::Uint64(x) = v { x } else { 0 }; rows]),
            (ScalarType::Float, v) => OwnedData::Float(vec![if let Value::Float(x) = v { x } else { 0.0 }; rows]),
            (ScalarType::Double, v) => OwnedData::Double(vec![if let Value::Double(x) = v { x } else { 0.0 }; rows]),
        };
        Ok(Owned::Scalar { validity, data })
    }

    /// `stored` widened to `to`; `None` when `to` is not a widening of its type.
    pub(super) fn widened(stored: ScalarColumn, to: ScalarType) -> Option<Owned> {
        let data = OwnedData::widened(stored.data, to)?;
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
        let mut elems = OwnedData::empty(to);
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
        let elems = OwnedData::widened(stored.elems, to)?;
        let validity = stored.validity.0.map(<[u8]>::to_vec);
        Some(Owned::Array { validity, offsets: stored.offsets.to_vec(), elems })
    }

    pub(super) fn heap_bytes(&self) -> usize {
        match self {
            Owned::Vector { validity, .. } => validity.len(),
            Owned::Scalar { validity, data } => validity.as_ref().map_or(0, Vec::len) + data.heap_bytes(),
            Owned::Array { validity, offsets, elems } => {
                validity.as_ref().map_or(0, Vec::len) + offsets.len() * 8 + elems.heap_bytes()
            }
        }
    }

    pub(super) fn scalar(&self) -> Option<ScalarColumn<'_>> {
        let Owned::Scalar { validity, data } = self else { return None };
        Some(ScalarColumn { validity: Validity(validity.as_deref()), data: data.view() })
    }

    pub(super) fn array(&self) -> Option<ArrayColumn<'_>> {
        let Owned::Array { validity, offsets, elems } = self else { return None };
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
