//! One chunk of the memtable: rows held in memory in the same columnar shape as a segment
//! file, so flush writes slices and search reads them alike.

use half::f16;

use std::sync::{Arc, OnceLock};

use crate::index::quant::fastscan::ScanCodes;
use crate::schema::{FieldType, Metric, Schema, VectorType};
use crate::storage::column::{
    ArrayColumn, ColumnBuf, ColumnSource, Offsets, ScalarColumn, SegmentView, Validity, VarBuf, VarColumn,
    VectorColumn, VectorData,
};
use crate::value::{Row, Value};

/// One column's values. Scalars and array elements are [`ColumnBuf`]s, the same owned
/// column a segment builds for a field it stores otherwise than the schema.
#[derive(Clone, Debug)]
enum Data {
    Scalar(ColumnBuf),
    Fp32(Vec<f32>),
    Fp16(Vec<f16>),
    Int8(Vec<i8>),
    /// Row `r` holds elements `offsets[r]..offsets[r + 1]` of `elems`.
    Array {
        offsets: Vec<u64>,
        elems: ColumnBuf,
    },
}

impl Data {
    fn heap_bytes(&self) -> usize {
        match self {
            Data::Scalar(d) => d.heap_bytes(),
            Data::Fp32(d) => d.capacity() * 4,
            Data::Fp16(d) => d.capacity() * 2,
            Data::Int8(d) => d.capacity(),
            Data::Array { offsets, elems } => offsets.capacity() * 8 + elems.heap_bytes(),
        }
    }
}

#[derive(Clone, Debug)]
struct Column {
    /// Present for nullable fields only.
    validity: Option<Vec<u8>>,
    data: Data,
    dim: usize,
    /// Norms, for cosine vector fields.
    norms: Option<Vec<f32>>,
    /// A sparse field's type: its rows are stored as an array of `u64` words.
    sparse: Option<crate::schema::SparseType>,
}

impl Column {
    fn new(schema: &Schema, idx: usize) -> Column {
        let f = schema.field(idx);
        let (data, dim, norms) = match &f.ty {
            FieldType::Scalar(s) => (Data::Scalar(ColumnBuf::new(*s)), 0, None),
            FieldType::Array(s) => (Data::Array { offsets: vec![0], elems: ColumnBuf::new(*s) }, 0, None),
            FieldType::Sparse(_) => {
                (Data::Array { offsets: vec![0], elems: ColumnBuf::new(crate::schema::ScalarType::Uint64) }, 0, None)
            }
            FieldType::Vector(v) => (
                match v.elem {
                    VectorType::Fp32 => Data::Fp32(Vec::new()),
                    VectorType::Fp16 => Data::Fp16(Vec::new()),
                    VectorType::Int8 => Data::Int8(Vec::new()),
                },
                v.dim as usize,
                (v.metric == crate::schema::Metric::Cosine).then(Vec::new),
            ),
        };
        let sparse = match f.ty {
            FieldType::Sparse(t) => Some(t),
            _ => None,
        };
        Column { validity: f.nullable.then(Vec::new), data, dim, norms, sparse }
    }

    /// Appends row `row`'s value; the row was validated against the schema.
    fn push(&mut self, row: usize, v: &Value) {
        if let Some(bits) = &mut self.validity {
            if row.is_multiple_of(8) {
                bits.push(0);
            }
            if *v != Value::Null {
                *bits.last_mut().expect("pushed") |= 1 << (row % 8);
            }
        }
        let dim = self.dim;
        match (&mut self.data, v) {
            (Data::Fp32(d), Value::VectorFp32(x)) => d.extend_from_slice(x),
            (Data::Fp16(d), Value::VectorFp16(x)) => d.extend_from_slice(x),
            (Data::Int8(d), Value::VectorInt8(x)) => d.extend_from_slice(x),
            (Data::Fp32(d), _) => d.resize(d.len() + dim, 0.0),
            (Data::Fp16(d), _) => d.resize(d.len() + dim, f16::ZERO),
            (Data::Int8(d), _) => d.resize(d.len() + dim, 0),
            (Data::Array { offsets, elems }, v) => {
                match (v, self.sparse) {
                    (Value::Array(xs), _) => xs.iter().for_each(|x| elems.push(x)),
                    (Value::Sparse(x), Some(ty)) => {
                        x.clone().stored_as(ty).words().for_each(|w| elems.push(&Value::Uint64(w)))
                    }
                    _ => {}
                }
                offsets.push(elems.len() as u64);
            }
            (Data::Scalar(d), v) => d.push(v),
        }
        if let Some(norms) = &mut self.norms {
            let sq: f64 = match v {
                Value::VectorFp32(x) => x.iter().map(|&a| (a as f64) * (a as f64)).sum(),
                Value::VectorFp16(x) => x.iter().map(|a| a.to_f64() * a.to_f64()).sum(),
                Value::VectorInt8(x) => x.iter().map(|&a| (a as f64) * (a as f64)).sum(),
                _ => 0.0,
            };
            norms.push(sq.sqrt() as f32);
        }
    }

    fn heap_bytes(&self) -> usize {
        self.data.heap_bytes()
            + self.validity.as_ref().map_or(0, |v| v.capacity())
            + self.norms.as_ref().map_or(0, |n| n.capacity() * 4)
    }

    fn is_vector(&self) -> bool {
        matches!(self.data, Data::Fp32(_) | Data::Fp16(_) | Data::Int8(_))
    }
}

/// The scan codes of one vector field of a chunk, made when a search or a flush first
/// asks for them ([`Chunk::scan_codes`]), then kept up to date as rows are appended.
#[derive(Clone, Debug)]
struct ScanSlot {
    metric: Metric,
    /// Shared with a copy of the chunk until either appends.
    codes: OnceLock<Arc<ScanCodes>>,
}

/// Up to a chunk's worth of unflushed rows, in the columnar shape of a segment file.
/// Immutable once a snapshot can see it: the memtable appends only to a chunk it holds
/// alone, and copies or seals one that a snapshot shares.
#[derive(Clone, Debug)]
pub(super) struct Chunk {
    keys: VarBuf,
    columns: Vec<Column>,
    /// Scan codes per field, for vector fields with an approximate index (see
    /// [`ScanCodes`]). A write does not make them: rows a bulk load writes and flushes
    /// before any search never need them, and encoding them was a fifth of a write's CPU.
    scan: Vec<Option<ScanSlot>>,
}

impl Chunk {
    pub(super) fn new(schema: &Schema) -> Chunk {
        let scan = (schema.fields().iter())
            .map(|f| match &f.ty {
                FieldType::Vector(v) if v.index.is_approximate() => {
                    Some(ScanSlot { metric: v.metric, codes: OnceLock::new() })
                }
                _ => None,
            })
            .collect();
        Chunk {
            keys: VarBuf::new(),
            columns: (0..schema.fields().len()).map(|i| Column::new(schema, i)).collect(),
            scan,
        }
    }

    pub(super) fn len(&self) -> usize {
        self.keys.len()
    }

    /// Appends a validated row.
    pub(super) fn push(&mut self, row: &Row) {
        let n = self.len();
        self.keys.push(row.key.as_bytes());
        for (c, v) in self.columns.iter_mut().zip(&row.values) {
            c.push(n, v);
        }
        // Codes a search or flush already made are kept whole; none are made here.
        for (slot, v) in self.scan.iter_mut().zip(&row.values) {
            if let Some(codes) = slot.as_mut().and_then(|s| s.codes.get_mut()) {
                Arc::make_mut(codes).push_value(v);
            }
        }
    }

    /// The scan codes of field `field` (see [`ScanCodes`]), encoded from the chunk's rows
    /// on the first call; `None` for a field that has none.
    pub(super) fn scan_codes(&self, field: usize) -> Option<&Arc<ScanCodes>> {
        let slot = self.scan.get(field)?.as_ref()?;
        Some(slot.codes.get_or_init(|| Arc::new(ScanCodes::of_column(&self.vector(field), self.len(), slot.metric))))
    }

    /// Fields with scan codes (made or not yet).
    pub(super) fn scan_fields(&self) -> usize {
        self.scan.len()
    }

    /// Heap bytes, scan codes included.
    pub(super) fn heap_bytes(&self) -> usize {
        self.keys.heap_bytes() + self.columns.iter().map(Column::heap_bytes).sum::<usize>() + self.scan_bytes()
    }

    /// Heap bytes of scan codes alone.
    pub(super) fn scan_bytes(&self) -> usize {
        self.scan.iter().flatten().filter_map(|s| s.codes.get()).map(|c| c.heap_bytes()).sum()
    }

    /// Heap bytes of vector data alone.
    pub(super) fn vector_bytes(&self) -> usize {
        self.columns.iter().filter(|c| c.is_vector()).map(Column::heap_bytes).sum()
    }
}

impl ColumnSource for Chunk {
    fn rows(&self) -> usize {
        self.len()
    }

    fn keys(&self) -> VarColumn<'_> {
        self.keys.view()
    }

    fn scalar(&self, field: usize) -> ScalarColumn<'_> {
        let c = &self.columns[field];
        let Data::Scalar(d) = &c.data else { panic!("field {field} is not a scalar field") };
        ScalarColumn { validity: Validity(c.validity.as_deref()), data: d.view() }
    }

    fn array(&self, field: usize) -> ArrayColumn<'_> {
        let c = &self.columns[field];
        let Data::Array { offsets, elems } = &c.data else { panic!("field {field} is not an array field") };
        ArrayColumn {
            validity: Validity(c.validity.as_deref()),
            offsets: Offsets::Stored(offsets),
            elems: elems.view(),
        }
    }
}

impl SegmentView for Chunk {
    fn vector(&self, field: usize) -> VectorColumn<'_> {
        let c = &self.columns[field];
        let data = match &c.data {
            Data::Fp32(d) => VectorData::Fp32(d),
            Data::Fp16(d) => VectorData::Fp16(d),
            Data::Int8(d) => VectorData::Int8(d),
            _ => panic!("field {field} is not a vector field"),
        };
        VectorColumn { dim: c.dim, validity: Validity(c.validity.as_deref()), data, norms: c.norms.as_deref() }
    }
}
