//! Arrow in and out through the C data interface: the PyCapsule protocol
//! (`__arrow_c_stream__`, `__arrow_c_array__`) that pyarrow, polars, DuckDB and pandas (via
//! pyarrow) speak, with no Python objects per row and no pyarrow on the Rust side.
//!
//! Types out: the key as `utf8`; strings `utf8`, bools, ints and floats as their Arrow
//! types; vectors as `fixed_size_list<float32>[dim]` (int8 vectors `fixed_size_list<int8>`);
//! arrays as `list<T>`; sparse vectors as `struct<indices: list<uint32>, values:
//! list<float32>>`. Types in: the same, plus any integer or float width, `large_utf8`,
//! `utf8_view`, `list`/`large_list` vectors and float64/float16 vector elements, each value
//! checked by the engine as a JSON value of that field would be.

use std::sync::Arc;

use arrow_array::builder::{
    ArrayBuilder, BooleanBuilder, FixedSizeListBuilder, Float32Builder, Float64Builder, Int8Builder, Int32Builder,
    Int64Builder, ListBuilder, StringBuilder, StructBuilder, UInt32Builder, UInt64Builder,
};
use arrow_array::cast::AsArray;
use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema, from_ffi};
use arrow_array::ffi_stream::{FFI_ArrowArrayStream, RecordBatchStreamReader};
use arrow_array::types::{
    Float16Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type,
    UInt32Type, UInt64Type,
};
use arrow_array::{Array, RecordBatch, RecordBatchReader, StructArray};
use arrow_schema::{ArrowError, DataType, Field as ArrowField, Fields, Schema as ArrowSchema, SchemaRef};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyCapsuleMethods, PyTuple};
use serde_json::Value as Json;
use xvec::{Doc, DocError, Field, FieldType, ScalarType, Scan, Schema, Value, VectorType};

use crate::input::{Row, field_names};

// ---------------------------------------------------------------------------------------
// In

/// The array behind an object's `__arrow_c_array__` (a pyarrow Array or RecordBatch).
pub fn import_array(data: &Bound<'_, PyAny>) -> PyResult<arrow_data::ArrayData> {
    if !data.hasattr("__arrow_c_array__")? {
        return Err(PyTypeError::new_err(format!(
            "expected an Arrow array (an object with __arrow_c_array__, e.g. pyarrow.array(...)), got {}",
            data.get_type().name()?
        )));
    }
    let pair = data.call_method0("__arrow_c_array__")?;
    let pair = pair.cast::<PyTuple>().map_err(|_| PyTypeError::new_err("__arrow_c_array__ did not return a tuple"))?;
    let schema_capsule = pair.get_item(0)?;
    let array_capsule = pair.get_item(1)?;
    let schema_capsule = schema_capsule.cast::<PyCapsule>()?;
    let array_capsule = array_capsule.cast::<PyCapsule>()?;
    let sp = schema_capsule.pointer_checked(Some(c"arrow_schema"))?.as_ptr() as *mut FFI_ArrowSchema;
    let ap = array_capsule.pointer_checked(Some(c"arrow_array"))?.as_ptr() as *mut FFI_ArrowArray;
    // SAFETY: the capsules hold an `ArrowSchema` and an `ArrowArray` (their names say so);
    // the array is moved out (a released one left behind), the schema borrowed.
    unsafe { from_ffi(std::ptr::replace(ap, FFI_ArrowArray::empty()), &*sp) }.map_err(arrow_err)
}

/// Rows of an Arrow stream (or one record batch), a chunk at a time: every row in order,
/// or only the rows picked by position.
pub struct ArrowRows {
    reader: Box<dyn RecordBatchReader + Send>,
    batch: Option<Batch>,
    key: String,
    picked: Option<Picked>,
}

/// Rows picked by their position in the input (`insert(data, rows=...)`): every batch of
/// the input, held as it came (no copy), and the positions still to write.
struct Picked {
    batches: Vec<RecordBatch>,
    /// The position of each batch's first row in the input.
    starts: Vec<usize>,
    key: usize,
    cols: Vec<(usize, String)>,
    rows: Vec<usize>,
    next: usize,
}

/// The batch being read: its key column, its field columns (position, name), and the
/// next row to read.
struct Batch {
    batch: RecordBatch,
    key: usize,
    cols: Vec<(usize, String)>,
    next: usize,
}

impl ArrowRows {
    pub fn new(_py: Python<'_>, schema: &Schema, data: &Bound<'_, PyAny>, key: &str) -> PyResult<ArrowRows> {
        let reader: Box<dyn RecordBatchReader + Send> = if data.hasattr("__arrow_c_stream__")? {
            let capsule = data.call_method0("__arrow_c_stream__")?;
            let capsule = capsule
                .cast::<PyCapsule>()
                .map_err(|_| PyTypeError::new_err("__arrow_c_stream__ did not return a capsule"))?;
            let name = c"arrow_array_stream";
            let ptr = capsule.pointer_checked(Some(name))?.as_ptr() as *mut FFI_ArrowArrayStream;
            // SAFETY: the capsule holds an `ArrowArrayStream` (its name says so); `from_raw`
            // moves it out and leaves a released stream behind, so the capsule's destructor
            // does not release it a second time.
            let reader = unsafe { RecordBatchStreamReader::from_raw(ptr) }.map_err(arrow_err)?;
            Box::new(reader)
        } else {
            let data = import_array(data)?;
            if !matches!(data.data_type(), DataType::Struct(_)) {
                return Err(PyTypeError::new_err(format!(
                    "__arrow_c_array__ gave a {} array; expected a record batch (a struct array of columns)",
                    data.data_type()
                )));
            }
            let batch = RecordBatch::from(StructArray::from(data));
            Box::new(arrow_array::RecordBatchIterator::new(vec![Ok(batch.clone())], batch.schema()))
        };
        let arrow_schema = reader.schema();
        if arrow_schema.index_of(key).is_err() {
            return Err(PyValueError::new_err(format!(
                "the Arrow data has no key column {key:?} (columns: {}); name it with key=\"...\"",
                arrow_schema.fields().iter().map(|f| f.name().as_str()).collect::<Vec<_>>().join(", ")
            )));
        }
        for f in arrow_schema.fields() {
            if f.name() != key && schema.index_of(f.name()).is_none() {
                return Err(PyValueError::new_err(format!(
                    "Arrow column {:?} is not a field of the collection (fields: {})",
                    f.name(),
                    field_names(schema)
                )));
            }
        }
        Ok(ArrowRows { reader, batch: None, key: key.to_string(), picked: None })
    }

    /// Reads only the rows at `rows` (positions in the input, in this order), each looked
    /// up in the batch that holds it: a caller routing rows to several collections (the
    /// shards of `xvec.ray`) hands each its positions instead of a gathered copy.
    pub fn pick(&mut self, py: Python<'_>, rows: Vec<usize>) -> PyResult<()> {
        let mut batches = Vec::new();
        let mut starts = Vec::new();
        let mut total = 0usize;
        loop {
            let next = py.detach(|| self.reader.next());
            let Some(batch) = next else { break };
            let batch = batch.map_err(arrow_err)?;
            starts.push(total);
            total += batch.num_rows();
            batches.push(batch);
        }
        if let Some((i, r)) = rows.iter().enumerate().find(|(_, r)| **r >= total) {
            return Err(PyValueError::new_err(format!("rows[{i}] is {r}; the data has {total} rows")));
        }
        let stream = self.reader.schema();
        let key = stream.index_of(&self.key).map_err(arrow_err)?;
        let cols = (stream.fields().iter().enumerate())
            .filter(|(i, _)| *i != key)
            .map(|(i, f)| (i, f.name().clone()))
            .collect();
        self.picked = Some(Picked { batches, starts, key, cols, rows, next: 0 });
        Ok(())
    }

    /// The position in the input of the `i`th row handed out.
    pub fn position(&self, i: usize) -> usize {
        self.picked.as_ref().map_or(i, |p| p.rows[i])
    }

    pub fn next_chunk(&mut self, py: Python<'_>, schema: &Schema, max: usize) -> PyResult<Vec<Row>> {
        if let Some(p) = &mut self.picked {
            let end = p.next.saturating_add(max).min(p.rows.len());
            let mut out = Vec::with_capacity(end - p.next);
            for &at in &p.rows[p.next..end] {
                let b = p.starts.partition_point(|&s| s <= at) - 1;
                out.push(row(schema, &p.batches[b], p.key, &p.cols, at - p.starts[b])?);
            }
            p.next = end;
            return Ok(out);
        }
        loop {
            if self.batch.is_none() {
                // Reading the next batch may call back into the producer (pyarrow, polars).
                let next = py.detach(|| self.reader.next());
                let Some(batch) = next else { return Ok(Vec::new()) };
                let batch = batch.map_err(arrow_err)?;
                let key = batch.schema().index_of(&self.key).map_err(arrow_err)?;
                let cols = (batch.schema().fields().iter().enumerate())
                    .filter(|(i, _)| *i != key)
                    .map(|(i, f)| (i, f.name().clone()))
                    .collect();
                self.batch = Some(Batch { batch, key, cols, next: 0 });
            }
            let b = self.batch.as_mut().expect("set above");
            if b.next == b.batch.num_rows() {
                self.batch = None;
                continue;
            }
            let end = b.next.saturating_add(max).min(b.batch.num_rows());
            let mut out = Vec::with_capacity(end - b.next);
            for i in b.next..end {
                out.push(row(schema, &b.batch, b.key, &b.cols, i)?);
            }
            b.next = end;
            return Ok(out);
        }
    }
}

fn row(schema: &Schema, batch: &RecordBatch, key: usize, cols: &[(usize, String)], i: usize) -> PyResult<Row> {
    let key_col = batch.column(key);
    let k = match json_at(key_col.as_ref(), i) {
        Some(Json::String(s)) => s,
        Some(Json::Number(n)) if n.is_i64() || n.is_u64() => n.to_string(),
        Some(Json::Null) => return Ok(Err(missing_key(schema, batch, key))),
        _ => {
            return Err(PyTypeError::new_err(format!(
                "key column {:?}: keys must be strings or integers, found {}",
                batch.schema().field(key).name(),
                key_col.data_type()
            )));
        }
    };
    let mut doc = Doc::new(k);
    for (c, name) in cols {
        let f = schema.index_of(name).expect("columns are checked against the schema at the start");
        let ty = &schema.field(f).ty;
        if let Some(x) = non_finite(batch.column(*c).as_ref(), i) {
            // As for a dict's value: JSON has no NaN, and null would be a silent change.
            return Err(PyValueError::new_err(format!(
                "Arrow column {name:?}, key {:?}: {x} is not a finite number",
                doc.key
            )));
        }
        match value_at(ty, batch.column(*c).as_ref(), i) {
            Some(Ok(v)) => {
                doc.fields.insert(name.clone(), v);
            }
            Some(Err(e)) => return Ok(Err(DocError::bad_value(&doc.key, name, e))),
            None => {
                return Err(PyTypeError::new_err(format!(
                    "Arrow column {name:?} of type {} cannot hold field {name} ({})",
                    batch.column(*c).data_type(),
                    ty.name()
                )));
            }
        }
    }
    Ok(Ok(doc))
}

fn missing_key(schema: &Schema, batch: &RecordBatch, key: usize) -> DocError {
    let _ = schema;
    let name = batch.schema().field(key).name().clone();
    match Doc::from_json(schema, &serde_json::Map::new(), &name) {
        Err(e) => e,
        Ok(_) => unreachable!("a document without its key member is refused"),
    }
}

/// The value at row `i` for a field of type `ty`; `None` when the column's type cannot
/// hold such a field at all.
fn value_at(ty: &FieldType, arr: &dyn Array, i: usize) -> Option<Result<Value, xvec::ValueError>> {
    if arr.is_null(i) {
        return Some(Ok(Value::Null));
    }
    if let FieldType::Vector(spec) = ty {
        let child = match arr.data_type() {
            DataType::FixedSizeList(..) => arr.as_fixed_size_list().value(i),
            DataType::List(_) => arr.as_list::<i32>().value(i),
            DataType::LargeList(_) => arr.as_list::<i64>().value(i),
            _ => return None,
        };
        if spec.elem == VectorType::Fp32
            && let Some(xs) = child.as_primitive_opt::<Float32Type>()
            && xs.null_count() == 0
        {
            return Some(Ok(Value::VectorFp32(xs.values().to_vec())));
        }
        let nums = floats(child.as_ref())?;
        return Some(Value::vector(spec.elem, nums));
    }
    let json = json_at(arr, i)?;
    Some(Value::from_json(ty, &json))
}

/// Row `i` of a float column when it is NaN or infinite.
fn non_finite(arr: &dyn Array, i: usize) -> Option<f64> {
    let x = if let Some(p) = arr.as_primitive_opt::<Float64Type>() {
        p.value(i)
    } else if let Some(p) = arr.as_primitive_opt::<Float32Type>() {
        p.value(i) as f64
    } else if let Some(p) = arr.as_primitive_opt::<Float16Type>() {
        p.value(i).to_f64()
    } else {
        return None;
    };
    (!arr.is_null(i) && !x.is_finite()).then_some(x)
}

/// A numeric column's values as f64 (nulls as NaN, which the engine refuses by index).
fn floats(arr: &dyn Array) -> Option<Vec<f64>> {
    macro_rules! each {
        ($($t:ty),*) => {
            $(if let Some(p) = arr.as_primitive_opt::<$t>() {
                return Some((0..p.len()).map(|j| if p.is_null(j) { f64::NAN } else { num(p.value(j)) }).collect());
            })*
        };
    }
    each!(
        Float32Type,
        Float64Type,
        Int8Type,
        Int16Type,
        Int32Type,
        Int64Type,
        UInt8Type,
        UInt16Type,
        UInt32Type,
        UInt64Type
    );
    if let Some(p) = arr.as_primitive_opt::<Float16Type>() {
        return Some((0..p.len()).map(|j| if p.is_null(j) { f64::NAN } else { p.value(j).to_f64() }).collect());
    }
    None
}

fn num<T: Into<NumF64>>(x: T) -> f64 {
    x.into().0
}

/// A number of any Arrow primitive width as f64.
struct NumF64(f64);

macro_rules! num_from {
    ($($t:ty),*) => { $(impl From<$t> for NumF64 { fn from(x: $t) -> NumF64 { NumF64(x as f64) } })* };
}
num_from!(f32, f64, i8, i16, i32, i64, u8, u16, u32, u64);

/// The JSON form of row `i` of a scalar, string or list column; `None` for other types.
fn json_at(arr: &dyn Array, i: usize) -> Option<Json> {
    if arr.is_null(i) {
        return Some(Json::Null);
    }
    macro_rules! ints {
        ($($t:ty),*) => { $(if let Some(p) = arr.as_primitive_opt::<$t>() { return Some(Json::from(p.value(i))); })* };
    }
    ints!(Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type, UInt32Type, UInt64Type);
    if let Some(p) = arr.as_primitive_opt::<Float32Type>() {
        return Some(serde_json::Number::from_f64(p.value(i) as f64).map_or(Json::Null, Json::Number));
    }
    if let Some(p) = arr.as_primitive_opt::<Float64Type>() {
        return Some(serde_json::Number::from_f64(p.value(i)).map_or(Json::Null, Json::Number));
    }
    if let Some(p) = arr.as_primitive_opt::<Float16Type>() {
        return Some(serde_json::Number::from_f64(p.value(i).to_f64()).map_or(Json::Null, Json::Number));
    }
    Some(match arr.data_type() {
        DataType::Boolean => Json::Bool(arr.as_boolean().value(i)),
        DataType::Utf8 => Json::String(arr.as_string::<i32>().value(i).to_string()),
        DataType::LargeUtf8 => Json::String(arr.as_string::<i64>().value(i).to_string()),
        DataType::Utf8View => Json::String(arr.as_string_view().value(i).to_string()),
        DataType::List(_) | DataType::LargeList(_) | DataType::FixedSizeList(..) => {
            let child = match arr.data_type() {
                DataType::List(_) => arr.as_list::<i32>().value(i),
                DataType::LargeList(_) => arr.as_list::<i64>().value(i),
                _ => arr.as_fixed_size_list().value(i),
            };
            Json::Array((0..child.len()).map(|j| json_at(child.as_ref(), j)).collect::<Option<Vec<_>>>()?)
        }
        DataType::Struct(_) => {
            let s = arr.as_struct();
            let mut map = serde_json::Map::new();
            for (name, col) in s.column_names().iter().zip(s.columns()) {
                map.insert(name.to_string(), json_at(col.as_ref(), i)?);
            }
            Json::Object(map)
        }
        _ => return None,
    })
}

pub fn arrow_err(e: ArrowError) -> PyErr {
    PyValueError::new_err(format!("Arrow: {e}"))
}

// ---------------------------------------------------------------------------------------
// Out

/// The Arrow schema of documents with these fields, the key first under `key`.
pub fn arrow_schema(fields: &[Field], key: &str) -> Result<SchemaRef, ArrowError> {
    let mut out = vec![ArrowField::new(key, DataType::Utf8, false)];
    for f in fields {
        out.push(ArrowField::new(&f.name, data_type(&f.ty)?, true));
    }
    Ok(Arc::new(ArrowSchema::new(out)))
}

fn data_type(ty: &FieldType) -> Result<DataType, ArrowError> {
    Ok(match ty {
        FieldType::Scalar(s) => scalar_type(*s)?,
        FieldType::Array(s) => DataType::List(Arc::new(ArrowField::new("item", scalar_type(*s)?, true))),
        FieldType::Vector(spec) => {
            let elem = match spec.elem == VectorType::Int8 {
                true => DataType::Int8,
                false => DataType::Float32,
            };
            DataType::FixedSizeList(Arc::new(ArrowField::new("item", elem, true)), spec.dim as i32)
        }
        FieldType::Sparse(_) => DataType::Struct(sparse_fields()),
        other => return Err(unsupported(other.name())),
    })
}

fn unsupported(name: &str) -> ArrowError {
    ArrowError::NotYetImplemented(format!("fields of type {name} in Arrow"))
}

fn sparse_fields() -> Fields {
    Fields::from(vec![
        ArrowField::new("indices", DataType::List(Arc::new(ArrowField::new("item", DataType::UInt32, true))), true),
        ArrowField::new("values", DataType::List(Arc::new(ArrowField::new("item", DataType::Float32, true))), true),
    ])
}

fn scalar_type(s: ScalarType) -> Result<DataType, ArrowError> {
    Ok(match s {
        ScalarType::String => DataType::Utf8,
        ScalarType::Bool => DataType::Boolean,
        ScalarType::Int32 => DataType::Int32,
        ScalarType::Int64 => DataType::Int64,
        ScalarType::Uint32 => DataType::UInt32,
        ScalarType::Uint64 => DataType::UInt64,
        ScalarType::Float => DataType::Float32,
        ScalarType::Double => DataType::Float64,
        other => return Err(unsupported(other.name())),
    })
}

/// Documents as one record batch of `schema` (from [`arrow_schema`]).
pub fn to_batch(
    schema: &SchemaRef,
    fields: &[Field],
    docs: &[(String, &std::collections::BTreeMap<String, Value>)],
) -> Result<RecordBatch, ArrowError> {
    let mut keys = StringBuilder::new();
    for (k, _) in docs {
        keys.append_value(k);
    }
    let mut columns: Vec<Arc<dyn Array>> = vec![Arc::new(keys.finish())];
    for f in fields {
        let mut b = arrow_array::builder::make_builder(&data_type(&f.ty)?, docs.len());
        for (_, values) in docs {
            append(b.as_mut(), &f.ty, values.get(&f.name).unwrap_or(&Value::Null))?;
        }
        columns.push(b.finish());
    }
    RecordBatch::try_new(schema.clone(), columns)
}

fn append(b: &mut dyn ArrayBuilder, ty: &FieldType, v: &Value) -> Result<(), ArrowError> {
    let any = b.as_any_mut();
    match (ty, v) {
        (FieldType::Scalar(_), v) => append_scalar(any, v),
        (FieldType::Array(_), Value::Array(xs)) => {
            let lb = any.downcast_mut::<ListBuilder<Box<dyn ArrayBuilder>>>().expect("list builder");
            for x in xs {
                append_scalar(lb.values().as_any_mut(), x);
            }
            lb.append(true);
        }
        (FieldType::Array(_), _) => {
            any.downcast_mut::<ListBuilder<Box<dyn ArrayBuilder>>>().expect("list builder").append(false);
        }
        (FieldType::Vector(spec), v) => match spec.elem == VectorType::Int8 {
            false => {
                let fb =
                    any.downcast_mut::<FixedSizeListBuilder<Box<dyn ArrayBuilder>>>().expect("fixed-size list builder");
                let vb = fb.values().as_any_mut().downcast_mut::<Float32Builder>().expect("float32 values");
                match v {
                    Value::VectorFp32(xs) => vb.append_slice(xs),
                    Value::VectorFp16(xs) => xs.iter().for_each(|h| vb.append_value(h.to_f32())),
                    _ => vb.append_nulls(spec.dim as usize),
                }
                fb.append(!matches!(v, Value::Null));
            }
            true => {
                let fb =
                    any.downcast_mut::<FixedSizeListBuilder<Box<dyn ArrayBuilder>>>().expect("fixed-size list builder");
                let vb = fb.values().as_any_mut().downcast_mut::<Int8Builder>().expect("int8 values");
                match v {
                    Value::VectorInt8(xs) => vb.append_slice(xs),
                    _ => vb.append_nulls(spec.dim as usize),
                }
                fb.append(!matches!(v, Value::Null));
            }
        },
        (FieldType::Sparse(_), v) => {
            let sb = any.downcast_mut::<StructBuilder>().expect("struct builder");
            let (indices, values): (&[u32], &[f32]) = match v {
                Value::Sparse(s) => (s.indices(), s.values()),
                _ => (&[], &[]),
            };
            let present = matches!(v, Value::Sparse(_));
            {
                let ib = sb.field_builder::<ListBuilder<Box<dyn ArrayBuilder>>>(0).expect("indices");
                ib.values().as_any_mut().downcast_mut::<UInt32Builder>().expect("uint32").append_slice(indices);
                ib.append(present);
            }
            {
                let fb = sb.field_builder::<ListBuilder<Box<dyn ArrayBuilder>>>(1).expect("values");
                fb.values().as_any_mut().downcast_mut::<Float32Builder>().expect("float32").append_slice(values);
                fb.append(present);
            }
            sb.append(present);
        }
        (other, _) => return Err(unsupported(other.name())),
    }
    Ok(())
}

fn append_scalar(any: &mut dyn std::any::Any, v: &Value) {
    macro_rules! put {
        ($b:ty, $x:expr) => {
            any.downcast_mut::<$b>().expect(stringify!($b)).append_option($x)
        };
    }
    if let Some(b) = any.downcast_mut::<StringBuilder>() {
        return b.append_option(match v {
            Value::String(s) => Some(s.as_str()),
            _ => None,
        });
    }
    if any.is::<BooleanBuilder>() {
        return put!(BooleanBuilder, if let Value::Bool(x) = v { Some(*x) } else { None });
    }
    if any.is::<Int32Builder>() {
        return put!(Int32Builder, if let Value::Int32(x) = v { Some(*x) } else { None });
    }
    if any.is::<Int64Builder>() {
        return put!(Int64Builder, if let Value::Int64(x) = v { Some(*x) } else { None });
    }
    if any.is::<UInt32Builder>() {
        return put!(UInt32Builder, if let Value::Uint32(x) = v { Some(*x) } else { None });
    }
    if any.is::<UInt64Builder>() {
        return put!(UInt64Builder, if let Value::Uint64(x) = v { Some(*x) } else { None });
    }
    if any.is::<Float32Builder>() {
        return put!(Float32Builder, if let Value::Float(x) = v { Some(*x) } else { None });
    }
    put!(Float64Builder, if let Value::Double(x) = v { Some(*x) } else { None })
}

/// A scan of the collection as an Arrow record batch reader.
pub struct ScanReader {
    scan: Scan,
    schema: SchemaRef,
    fields: Vec<Field>,
    batch_rows: usize,
}

impl ScanReader {
    pub fn new(scan: Scan, fields: Vec<Field>, key: &str, batch_rows: usize) -> Result<ScanReader, ArrowError> {
        Ok(ScanReader { schema: arrow_schema(&fields, key)?, scan, fields, batch_rows: batch_rows.max(1) })
    }
}

impl Iterator for ScanReader {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        let docs = self.scan.next_batch(self.batch_rows)?;
        let rows: Vec<(String, &std::collections::BTreeMap<String, Value>)> =
            docs.iter().map(|d| (d.key.clone(), &d.fields)).collect();
        Some(to_batch(&self.schema, &self.fields, &rows))
    }
}

impl RecordBatchReader for ScanReader {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}

/// `scan` as a streaming `pyarrow.RecordBatchReader`: the key column `key`, then the
/// fields `fields` names (all when `None`) in schema order, `batch_rows` rows a batch.
pub fn record_batch_reader<'py>(
    py: Python<'py>,
    scan: Scan,
    schema: &Schema,
    fields: Option<&[String]>,
    key: &str,
    batch_rows: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let pa = crate::results::import_pyarrow(py)?;
    let chosen =
        schema.fields().iter().filter(|f| fields.is_none_or(|names| names.contains(&f.name))).cloned().collect();
    let reader = ScanReader::new(scan, chosen, key, batch_rows).map_err(arrow_err)?;
    let capsule = stream_capsule(py, Box::new(reader))?;
    pa.getattr("RecordBatchReader")?.call_method1("_import_from_c_capsule", (capsule,))
}

/// A record batch reader as an `ArrowArrayStream` capsule, for `__arrow_c_stream__`.
pub fn stream_capsule<'py>(
    py: Python<'py>,
    reader: Box<dyn RecordBatchReader + Send>,
) -> PyResult<Bound<'py, PyCapsule>> {
    let stream = FFI_ArrowArrayStream::new(reader);
    // The consumer moves the stream out (leaving it released); dropping what is left
    // releases a stream nobody took.
    PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
}
