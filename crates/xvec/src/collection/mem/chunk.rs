//! One chunk of the memtable: rows held in memory in the same columnar shape as a segment
//! file, so flush writes slices and search reads them alike.

use half::f16;

use std::sync::Arc;

use crate::index::quant::fastscan::ScanCodes;
use crate::schema::{FieldType, ScalarType, Schema, VectorType};
use crate::storage::column::{
    ArrayColumn, ColumnData, ColumnSource, ScalarColumn, SegmentView, Validity, VarColumn, VectorColumn, VectorData,
};
use crate::value::{Row, Value};

#[derive(Clone, Debug)]
struct VarBuf {
    offsets: Vec<u64>,
    bytes: Vec<u8>,
}

impl VarBuf {
    fn new() -> VarBuf {
        VarBuf { offsets: vec![0], bytes: Vec::new() }
    }

    fn push(&mut self, b: &[u8]) {
        self.bytes.extend_from_slice(b);
        self.offsets.push(self.bytes.len() as u64);
    }

    fn view(&self) -> VarColumn<'_> {
        VarColumn { offsets: &self.offsets, bytes: &self.bytes }
    }

    fn heap_bytes(&self) -> usize {
        self.offsets.capacity() * 8 + self.bytes.capacity()
    }
}

#[derive(Clone, Debug)]
enum Data {
    Bool(Vec<u8>),
    Int32(Vec<i32>),
    Int64(Vec<i64>),
    Uint32(Vec<u32>),
    Uint64(Vec<u64>),
    Float(Vec<f32>),
    Double(Vec<f64>),
    String(VarBuf),
    Fp32(Vec<f32>),
    Fp16(Vec<f16>),
    Int8(Vec<i8>),
    /// Row `r` holds elements `offsets[r]..offsets[r + 1]` of `elems`, a scalar `Data`.
    Array {
        offsets: Vec<u64>,
        elems: Box<Data>,
    },
}

impl Data {
    fn scalar(ty: ScalarType) -> Data {
        match ty {
            ScalarType::String => Data::String(VarBuf::new()),
            ScalarType::Bool => Data::Bool(Vec::new()),
            ScalarType::Int32 => Data::Int32(Vec::new()),
            ScalarType::Int64 => Data::Int64(Vec::new()),
            ScalarType::Uint32 => Data::Uint32(Vec::new()),
            ScalarType::Uint64 => Data::Uint64(Vec::new()),
            ScalarType::Float => Data::Float(Vec::new()),
            ScalarType::Double => Data::Double(Vec::new()),
        }
    }

    /// Appends scalar value `v`; a null (or a value of another type) appends a zero.
    fn push_scalar(&mut self, v: &Value) {
        match (self, v) {
            (Data::Bool(d), Value::Bool(x)) => d.push(*x as u8),
            (Data::Int32(d), Value::Int32(x)) => d.push(*x),
            (Data::Int64(d), Value::Int64(x)) => d.push(*x),
            (Data::Uint32(d), Value::Uint32(x)) => d.push(*x),
            (Data::Uint64(d), Value::Uint64(x)) => d.push(*x),
            (Data::Float(d), Value::Float(x)) => d.push(*x),
            (Data::Double(d), Value::Double(x)) => d.push(*x),
            (Data::String(d), Value::String(x)) => d.push(x.as_bytes()),
            (Data::Bool(d), _) => d.push(0),
            (Data::Int32(d), _) => d.push(0),
            (Data::Int64(d), _) => d.push(0),
            (Data::Uint32(d), _) => d.push(0),
            (Data::Uint64(d), _) => d.push(0),
            (Data::Float(d), _) => d.push(0.0),
            (Data::Double(d), _) => d.push(0.0),
            (Data::String(d), _) => d.push(b""),
            (Data::Fp32(_) | Data::Fp16(_) | Data::Int8(_) | Data::Array { .. }, _) => {
                unreachable!("only scalar data takes scalar values")
            }
        }
    }

    /// Scalar values held.
    fn len(&self) -> usize {
        self.view().map_or(0, |d| d.len())
    }

    fn view(&self) -> Option<ColumnData<'_>> {
        Some(match self {
            Data::Bool(d) => ColumnData::Bool(d),
            Data::Int32(d) => ColumnData::Int32(d),
            Data::Int64(d) => ColumnData::Int64(d),
            Data::Uint32(d) => ColumnData::Uint32(d),
            Data::Uint64(d) => ColumnData::Uint64(d),
            Data::Float(d) => ColumnData::Float(d),
            Data::Double(d) => ColumnData::Double(d),
            Data::String(d) => ColumnData::String(d.view()),
            Data::Fp32(_) | Data::Fp16(_) | Data::Int8(_) | Data::Array { .. } => return None,
        })
    }

    fn heap_bytes(&self) -> usize {
        match self {
            Data::Bool(d) => d.capacity(),
            Data::Int32(d) => d.capacity() * 4,
            Data::Int64(d) => d.capacity() * 8,
            Data::Uint32(d) => d.capacity() * 4,
            Data::Uint64(d) => d.capacity() * 8,
            Data::Float(d) => d.capacity() * 4,
            Data::Double(d) => d.capacity() * 8,
            Data::String(d) => d.heap_bytes(),
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
}

impl Column {
    fn new(schema: &Schema, idx: usize) -> Column {
        let f = schema.field(idx);
        let (data, dim, norms) = match &f.ty {
            FieldType::Scalar(s) => (Data::scalar(*s), 0, None),
            FieldType::Array(s) => (Data::Array { offsets: vec![0], elems: Box::new(Data::scalar(*s)) }, 0, None),
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
        Column { validity: f.nullable.then(Vec::new), data, dim, norms }
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
                if let Value::Array(xs) = v {
                    xs.iter().for_each(|x| elems.push_scalar(x));
                }
                offsets.push(elems.len() as u64);
            }
            (d, v) => d.push_scalar(v),
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

/// Up to a chunk's worth of unflushed rows, in the columnar shape of a segment file.
/// Immutable once a snapshot can see it: the memtable appends only to a chunk it holds
/// alone, and copies or seals one that a snapshot shares.
#[derive(Clone, Debug)]
pub(super) struct Chunk {
    keys: VarBuf,
    columns: Vec<Column>,
    /// Scan codes per field, for vector fields with an approximate index (see
    /// [`ScanCodes`]); shared with a copy of the chunk until either appends.
    scan: Vec<Option<Arc<ScanCodes>>>,
}

impl Chunk {
    pub(super) fn new(schema: &Schema) -> Chunk {
        let scan = (schema.fields().iter())
            .map(|f| match &f.ty {
                FieldType::Vector(v) if v.index.is_approximate() => {
                    Some(Arc::new(ScanCodes::new(v.dim as usize, v.metric)))
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
        self.keys.offsets.len() - 1
    }

    /// Appends a validated row.
    pub(super) fn push(&mut self, row: &Row) {
        let n = self.len();
        self.keys.push(row.key.as_bytes());
        for (c, v) in self.columns.iter_mut().zip(&row.values) {
            c.push(n, v);
        }
        for (scan, v) in self.scan.iter_mut().zip(&row.values) {
            if let Some(scan) = scan {
                Arc::make_mut(scan).push_value(v);
            }
        }
    }

    /// Scan codes per schema field (see [`ScanCodes`]).
    pub(super) fn scan_codes(&self) -> &[Option<Arc<ScanCodes>>] {
        &self.scan
    }

    /// Heap bytes, scan codes included.
    pub(super) fn heap_bytes(&self) -> usize {
        self.keys.heap_bytes() + self.columns.iter().map(Column::heap_bytes).sum::<usize>() + self.scan_bytes()
    }

    /// Heap bytes of scan codes alone.
    pub(super) fn scan_bytes(&self) -> usize {
        self.scan.iter().flatten().map(|s| s.heap_bytes()).sum()
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
        let data = c.data.view().unwrap_or_else(|| panic!("field {field} is not a scalar field"));
        ScalarColumn { validity: Validity(c.validity.as_deref()), data }
    }

    fn array(&self, field: usize) -> ArrayColumn<'_> {
        let c = &self.columns[field];
        let Data::Array { offsets, elems } = &c.data else { panic!("field {field} is not an array field") };
        let elems = elems.view().expect("array elements are scalars");
        ArrayColumn { validity: Validity(c.validity.as_deref()), offsets, elems }
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
