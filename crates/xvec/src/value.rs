//! Field values and documents, and their validation against a schema.
//!
//! Validation happens here, before anything is logged: a [`Row`] only exists for a
//! document that matches its schema, so the WAL and segments never see invalid data.

use std::collections::BTreeMap;

use half::f16;

use crate::error::{DocError, truncate_key};
use crate::schema::{FieldType, MAX_ARRAY_LEN, ScalarType, Schema, VectorType};

/// Longest primary key, in bytes.
pub const MAX_KEY_BYTES: usize = 64 * 1024;

/// Longest string value (a string field's, or one element of a string array), in bytes.
/// Far below the WAL's frame bound, so every acknowledged document can be read back.
pub const MAX_STRING_BYTES: usize = 16 << 20;

/// Largest document, as the bytes of its WAL record (key, field ids and values; a put
/// record's size is `Row::logged_len`). A sixteenth of the WAL's frame bound (2^30
/// bytes): a write is refused at validation, never logged as a frame no reader would take.
pub const MAX_DOC_BYTES: usize = 64 << 20;

/// Largest squared Euclidean norm of an `fp32` vector. A quarter of `f32::MAX`, so every
/// distance between two accepted vectors (`|a - b|^2 <= 4 max(|a|^2, |b|^2)`) and every
/// dot product is finite: a vector past it would score `inf` or NaN, ranked arbitrarily.
pub const MAX_SQUARED_NORM: f64 = f32::MAX as f64 / 4.0;

/// One field value.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Value {
    /// No value; allowed only in nullable fields.
    Null,
    /// A `string` field's value.
    String(String),
    /// A `bool` field's value.
    Bool(bool),
    /// An `int32` field's value.
    Int32(i32),
    /// An `int64` field's value.
    Int64(i64),
    /// A `uint32` field's value.
    Uint32(u32),
    /// A `uint64` field's value.
    Uint64(u64),
    /// A `float` field's value.
    Float(f32),
    /// A `double` field's value.
    Double(f64),
    /// A `vector_fp32` field's value; finite, of the field's dimension.
    VectorFp32(Vec<f32>),
    /// A `vector_fp16` field's value; finite, of the field's dimension.
    VectorFp16(Vec<f16>),
    /// A `vector_int8` field's value, of the field's dimension.
    VectorInt8(Vec<i8>),
    /// An array field's value: up to [`crate::MAX_ARRAY_LEN`] values of its element type,
    /// none of them null.
    Array(Vec<Value>),
    /// A sparse field's value: ascending dimensions with finite values.
    Sparse(crate::sparse::SparseVector),
}

impl Value {
    /// Short name of the value's type, for error messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::String(_) => "string",
            Value::Bool(_) => "bool",
            Value::Int32(_) => "int32",
            Value::Int64(_) => "int64",
            Value::Uint32(_) => "uint32",
            Value::Uint64(_) => "uint64",
            Value::Float(_) => "float",
            Value::Double(_) => "double",
            Value::VectorFp32(_) => "vector_fp32",
            Value::VectorFp16(_) => "vector_fp16",
            Value::VectorInt8(_) => "vector_int8",
            Value::Array(_) => "array",
            Value::Sparse(_) => "sparse vector",
        }
    }

    /// Whether the value is one of type `ty` (`Null` is of every type).
    pub fn fits(&self, ty: &FieldType) -> bool {
        match (self, ty) {
            (Value::Null, _) => true,
            (Value::Array(xs), FieldType::Array(e)) => xs.iter().all(|x| scalar_fits(x, *e)),
            (v, FieldType::Scalar(s)) => scalar_fits(v, *s),
            (v, FieldType::Vector(spec)) => v.type_name() == spec.elem.name(),
            (Value::Sparse(_), FieldType::Sparse(_)) => true,
            _ => false,
        }
    }

    /// The vector as f32, for vector values.
    pub fn vector_f32(&self) -> Option<Vec<f32>> {
        match self {
            Value::VectorFp32(v) => Some(v.clone()),
            Value::VectorFp16(v) => Some(v.iter().map(|x| x.to_f32()).collect()),
            Value::VectorInt8(v) => Some(v.iter().map(|&x| x as f32).collect()),
            _ => None,
        }
    }

    /// Converts a JSON value to the type the schema asks for.
    pub fn from_json(ty: &FieldType, v: &serde_json::Value) -> Result<Value, ValueError> {
        if v.is_null() {
            return Ok(Value::Null);
        }
        Ok(match ty {
            FieldType::Scalar(s) => scalar_from_json(*s, v)?,
            FieldType::Sparse(_) => Value::Sparse(
                crate::sparse::SparseVector::from_json(v).map_err(|e| ValueError::new("a sparse vector", e))?,
            ),
            FieldType::Array(elem) => {
                let xs = v
                    .as_array()
                    .ok_or_else(|| ValueError::new(format!("an array of {} values", elem.name()), json_kind(v)))?;
                if xs.len() > MAX_ARRAY_LEN {
                    return Err(ValueError::new(
                        format!("at most {MAX_ARRAY_LEN} elements"),
                        format!("an array of {}", xs.len()),
                    ));
                }
                let mut out = Vec::with_capacity(xs.len());
                for (i, x) in xs.iter().enumerate() {
                    if x.is_null() {
                        return Err(ValueError::new(format!("a {} at index {i}", elem.name()), "null"));
                    }
                    out.push(scalar_from_json(*elem, x).map_err(|e| ValueError {
                        expected: format!("{} at index {i}", e.expected),
                        found: e.found,
                    })?);
                }
                Value::Array(out)
            }
            FieldType::Vector(spec) => {
                let arr = v.as_array().ok_or_else(|| ValueError::new("an array of numbers", json_kind(v)))?;
                let mut nums = Vec::with_capacity(arr.len());
                for (i, x) in arr.iter().enumerate() {
                    nums.push(
                        x.as_f64().ok_or_else(|| ValueError::new(format!("a number at index {i}"), json_kind(x)))?,
                    );
                }
                Value::vector(spec.elem, nums)?
            }
        })
    }

    /// [`Value::vector`] from float32s, copied as they are for an fp32 field.
    pub fn vector_from_f32s(elem: VectorType, xs: &[f32]) -> Result<Value, ValueError> {
        match elem == VectorType::Fp32 {
            true => Ok(Value::VectorFp32(xs.to_vec())),
            false => Value::vector(elem, xs.iter().map(|&x| x as f64)),
        }
    }

    /// A vector of element type `elem` from numbers (JSON's, or a numpy or Arrow column's):
    /// fp32 and fp16 round to nearest; int8 takes only integers in -128..=127. Length and
    /// finiteness are checked with the document, against the field.
    pub fn vector(elem: VectorType, nums: impl IntoIterator<Item = f64>) -> Result<Value, ValueError> {
        let nums = nums.into_iter();
        Ok(match elem {
            VectorType::Fp32 => Value::VectorFp32(nums.map(|x| x as f32).collect()),
            VectorType::Fp16 => Value::VectorFp16(nums.map(f16::from_f64).collect()),
            VectorType::Int8 => {
                let mut out = Vec::with_capacity(nums.size_hint().0);
                for (i, x) in nums.enumerate() {
                    if x.fract() != 0.0 || !(-128.0..=127.0).contains(&x) {
                        return Err(ValueError::new(format!("an integer in -128..=127 at index {i}"), x.to_string()));
                    }
                    out.push(x as i8);
                }
                Value::VectorInt8(out)
            }
        })
    }

    /// The value as JSON (vectors whole).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match self {
            Value::Null => J::Null,
            Value::String(s) => J::String(s.clone()),
            Value::Bool(b) => J::Bool(*b),
            Value::Int32(x) => J::from(*x),
            Value::Int64(x) => J::from(*x),
            Value::Uint32(x) => J::from(*x),
            Value::Uint64(x) => J::from(*x),
            Value::Float(x) => json_f32(*x),
            Value::Double(x) => json_f64(*x),
            Value::VectorFp32(v) => J::Array(v.iter().map(|&x| json_f32(x)).collect()),
            Value::VectorFp16(v) => J::Array(v.iter().map(|x| json_f32(x.to_f32())).collect()),
            Value::VectorInt8(v) => J::Array(v.iter().map(|&x| J::from(x)).collect()),
            Value::Array(xs) => J::Array(xs.iter().map(Value::to_json).collect()),
            Value::Sparse(v) => serde_json::json!({
                "indices": v.indices(),
                "values": J::Array(v.values().iter().map(|&x| json_f32(x)).collect()),
            }),
        }
    }
}

/// A non-null JSON value as a value of scalar type `s`.
fn scalar_from_json(s: ScalarType, v: &serde_json::Value) -> Result<Value, ValueError> {
    let int = |v: &serde_json::Value| -> Result<i128, ValueError> {
        if let Some(i) = v.as_i64() {
            Ok(i as i128)
        } else if let Some(u) = v.as_u64() {
            Ok(u as i128)
        } else if v.as_f64().is_some_and(|x| x == 0.0 && x.is_sign_negative()) {
            // JSON reads `-0` as a float (negative zero); as an integer it is 0.
            Ok(0)
        } else {
            Err(ValueError::new("an integer", json_kind(v)))
        }
    };
    let range = |x: i128, name: &str| ValueError::new(format!("{name} in range"), x.to_string());
    let number = || v.as_f64().ok_or_else(|| ValueError::new("a number", json_kind(v)));
    Ok(match s {
        ScalarType::String => {
            Value::String(v.as_str().ok_or_else(|| ValueError::new("a string", json_kind(v)))?.to_string())
        }
        ScalarType::Bool => Value::Bool(v.as_bool().ok_or_else(|| ValueError::new("a bool", json_kind(v)))?),
        ScalarType::Int32 => {
            let x = int(v)?;
            Value::Int32(i32::try_from(x).map_err(|_| range(x, "int32"))?)
        }
        ScalarType::Int64 => {
            let x = int(v)?;
            Value::Int64(i64::try_from(x).map_err(|_| range(x, "int64"))?)
        }
        ScalarType::Uint32 => {
            let x = int(v)?;
            Value::Uint32(u32::try_from(x).map_err(|_| range(x, "uint32"))?)
        }
        ScalarType::Uint64 => {
            let x = int(v)?;
            Value::Uint64(u64::try_from(x).map_err(|_| range(x, "uint64"))?)
        }
        ScalarType::Float => Value::Float(number()? as f32),
        ScalarType::Double => Value::Double(number()?),
    })
}

/// Whether `v` is a (non-null) value of scalar type `s`.
pub(crate) fn scalar_fits(v: &Value, s: ScalarType) -> bool {
    matches!(
        (s, v),
        (ScalarType::String, Value::String(_))
            | (ScalarType::Bool, Value::Bool(_))
            | (ScalarType::Int32, Value::Int32(_))
            | (ScalarType::Int64, Value::Int64(_))
            | (ScalarType::Uint32, Value::Uint32(_))
            | (ScalarType::Uint64, Value::Uint64(_))
            | (ScalarType::Float, Value::Float(_))
            | (ScalarType::Double, Value::Double(_))
    )
}

/// An f32 as the shortest decimal that reads back as the same f32 (`-0.259`), not as the
/// digits of its f64 widening (`-0.2590000033378601`): the f64 nearest that decimal, which
/// serde_json prints as the decimal again. Every text format goes through here.
pub fn json_f32(x: f32) -> serde_json::Value {
    if !x.is_finite() {
        return serde_json::Value::Null;
    }
    json_f64(x.to_string().parse::<f64>().expect("an f32's decimal is a valid f64"))
}

fn json_f64(x: f64) -> serde_json::Value {
    serde_json::Number::from_f64(x).map(serde_json::Value::Number).unwrap_or(serde_json::Value::Null)
}

/// A JSON value that does not fit a field's type: what the type needs, and what was there.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("expected {expected}, found {found}")]
#[non_exhaustive]
pub struct ValueError {
    /// What the type takes, e.g. `an integer`, `int32 in range`, `a number at index 3`.
    pub expected: String,
    /// What the JSON held, e.g. `a string` or the out-of-range number.
    pub found: String,
}

impl ValueError {
    fn new(expected: impl Into<String>, found: impl Into<String>) -> ValueError {
        ValueError { expected: expected.into(), found: found.into() }
    }
}

fn json_kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a bool",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

macro_rules! value_from {
    ($($t:ty => $v:ident),* $(,)?) => {$(
        impl From<$t> for Value {
            fn from(x: $t) -> Value { Value::$v(x.into()) }
        }
    )*};
}
value_from!(
    String => String, &str => String, bool => Bool, i32 => Int32, i64 => Int64, u32 => Uint32,
    u64 => Uint64, f32 => Float, f64 => Double, Vec<f32> => VectorFp32, Vec<f16> => VectorFp16,
    Vec<i8> => VectorInt8,
);

/// A document as given by a caller: a primary key and some fields.
///
/// ```
/// use xvec::Doc;
/// let doc = Doc::new("dog").set("lemma", "dog").set("emb", vec![0.1f32, 0.2]);
/// assert_eq!(doc.fields.len(), 2);
/// ```
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Doc {
    /// The primary key: 1..=65536 bytes of UTF-8, unique among live documents.
    pub key: String,
    /// Field values by name; fields left out are null (or, for `upsert`/`update`, kept).
    pub fields: BTreeMap<String, Value>,
}

impl Doc {
    /// A document with this key and no fields yet.
    pub fn new(key: impl Into<String>) -> Doc {
        Doc { key: key.into(), fields: BTreeMap::new() }
    }

    /// Sets `field` (replacing an earlier value); checked against the schema on write.
    pub fn set(mut self, field: impl Into<String>, value: impl Into<Value>) -> Doc {
        self.fields.insert(field.into(), value.into());
        self
    }

    /// The value set for `field`, `None` when it is not set.
    pub fn get(&self, field: &str) -> Option<&Value> {
        self.fields.get(field)
    }
}

/// A validated document: one value per schema field, in schema order (absent = `Null`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Row {
    pub key: String,
    pub values: Vec<Value>,
}

/// Checks a primary key.
pub(crate) fn check_key(key: &str) -> Result<(), DocError> {
    if key.is_empty() {
        return Err(DocError::EmptyKey);
    }
    if key.len() > MAX_KEY_BYTES {
        return Err(DocError::KeyTooLong { key: truncate_key(key), len: key.len() });
    }
    Ok(())
}

/// Checks one value against its field; `Null` is checked by the caller.
pub(crate) fn check_value(schema: &Schema, idx: usize, key: &str, value: &Value) -> Result<(), DocError> {
    let field = schema.field(idx);
    let bad = |expected: String| DocError::BadValue {
        key: truncate_key(key),
        field: field.name.clone(),
        expected,
        found: value.type_name().to_string(),
    };
    match (&field.ty, value) {
        (_, Value::Null) => {
            if !field.nullable {
                return Err(DocError::NullNotAllowed { key: truncate_key(key), field: field.name.clone() });
            }
        }
        (FieldType::Scalar(s), v) => {
            if !scalar_fits(v, *s) {
                return Err(bad(s.name().to_string()));
            }
        }
        (FieldType::Array(s), Value::Array(xs)) => {
            if xs.len() > MAX_ARRAY_LEN {
                return Err(DocError::ArrayTooLong {
                    key: truncate_key(key),
                    field: field.name.clone(),
                    len: xs.len(),
                });
            }
            if let Some(i) = xs.iter().position(|x| !scalar_fits(x, *s)) {
                return Err(DocError::BadValue {
                    key: truncate_key(key),
                    field: field.name.clone(),
                    expected: format!("{} elements", s.name()),
                    found: format!("{} at index {i}", xs[i].type_name()),
                });
            }
        }
        (FieldType::Array(s), _) => return Err(bad(format!("an array of {} values", s.name()))),
        (FieldType::Sparse(_), Value::Sparse(_)) => {}
        (FieldType::Sparse(t), _) => return Err(bad(format!("a {} value", t.name()))),
        (FieldType::Vector(spec), v) => {
            let (len, bad_at) = match (spec.elem, v) {
                (VectorType::Fp32, Value::VectorFp32(x)) => (x.len(), first_not_finite(x, f32::is_finite)),
                (VectorType::Fp16, Value::VectorFp16(x)) => (x.len(), first_not_finite(x, f16::is_finite)),
                (VectorType::Int8, Value::VectorInt8(x)) => (x.len(), None),
                _ => return Err(bad(format!("{} of dimension {}", spec.elem.name(), spec.dim))),
            };
            if len != spec.dim as usize {
                return Err(DocError::BadDimension {
                    key: truncate_key(key),
                    field: field.name.clone(),
                    expected: spec.dim,
                    found: len,
                });
            }
            if let Some(i) = bad_at {
                return Err(DocError::NotFinite { key: truncate_key(key), field: field.name.clone(), index: i });
            }
        }
    }
    Ok(())
}

/// Checks the bounds a new write must keep (string lengths, the fp32 norm): apart from
/// [`check_value`], which WAL replay also applies, so a record logged before these bounds
/// existed still replays rather than reading as corruption.
fn check_limits(schema: &Schema, idx: usize, key: &str, value: &Value) -> Result<(), DocError> {
    let field = &schema.field(idx).name;
    match value {
        Value::String(_) => check_string(key, field, value, None),
        Value::Array(xs) => xs.iter().enumerate().try_for_each(|(i, x)| check_string(key, field, x, Some(i))),
        Value::VectorFp32(x) => match norm_overflow(x) {
            Some(index) => Err(DocError::NormTooLarge { key: truncate_key(key), field: field.clone(), index }),
            None => Ok(()),
        },
        _ => Ok(()),
    }
}

/// Refuses a string value over [`MAX_STRING_BYTES`]; `index` is its place in an array.
fn check_string(key: &str, field: &str, v: &Value, index: Option<usize>) -> Result<(), DocError> {
    match v {
        Value::String(s) if s.len() > MAX_STRING_BYTES => {
            Err(DocError::StringTooLong { key: truncate_key(key), field: field.to_string(), index, len: s.len() })
        }
        _ => Ok(()),
    }
}

/// The first element at which the running sum of squares passes [`MAX_SQUARED_NORM`]
/// (f64 sums: no f32 overflow on the way), if it does.
///
/// The squares are first summed in eight lanes, which vectorizes; only a total above half
/// the bound (or NaN) runs the element-by-element sum. That is exact: each square is exact
/// in f64 and none is negative, so no prefix of the running sum exceeds the whole sum by
/// more than rounding, nor the lanes' total falls short of it by more than rounding.
fn norm_overflow(x: &[f32]) -> Option<usize> {
    let mut lanes = [0.0f64; 8];
    for c in x.chunks(8) {
        lanes.iter_mut().zip(c).for_each(|(l, &f)| *l += f as f64 * f as f64);
    }
    if lanes.iter().sum::<f64>() <= MAX_SQUARED_NORM / 2.0 {
        return None;
    }
    let mut sum = 0.0f64;
    x.iter().position(|&f| {
        sum += f as f64 * f as f64;
        sum > MAX_SQUARED_NORM
    })
}

/// The first element of `x` that is NaN or infinite, if any: every element tested at once
/// (vectorized), the position searched for only when one fails.
fn first_not_finite<T: Copy>(x: &[T], finite: impl Fn(T) -> bool) -> Option<usize> {
    if x.iter().fold(true, |ok, &f| ok & finite(f)) {
        return None;
    }
    x.iter().position(|&f| !finite(f))
}

impl Value {
    /// Bytes of the value in a WAL record: a tag, then its encoding (docs/format.md, "WAL").
    pub(crate) fn logged_len(&self) -> usize {
        1 + match self {
            Value::Null => 0,
            Value::Bool(_) => 1,
            Value::Int32(_) | Value::Uint32(_) | Value::Float(_) => 4,
            Value::Int64(_) | Value::Uint64(_) | Value::Double(_) => 8,
            Value::String(s) => 4 + s.len(),
            Value::VectorFp32(x) => 4 + 4 * x.len(),
            Value::VectorFp16(x) => 4 + 2 * x.len(),
            Value::VectorInt8(x) => 4 + x.len(),
            Value::Array(xs) => 4 + xs.iter().map(Value::logged_len).sum::<usize>(),
            Value::Sparse(x) => 4 + 8 * x.len(),
        }
    }
}

impl Row {
    /// Bytes of the row's put record in the WAL: op, key, value count, then each non-null
    /// value with its field id.
    pub(crate) fn logged_len(&self) -> usize {
        let values: usize = self.values.iter().filter(|v| !matches!(v, Value::Null)).map(|v| 2 + v.logged_len()).sum();
        1 + 4 + self.key.len() + 4 + values
    }

    /// Refuses a row whose record would pass [`MAX_DOC_BYTES`].
    fn check_size(self) -> Result<Row, DocError> {
        let bytes = self.logged_len();
        if bytes > MAX_DOC_BYTES {
            return Err(DocError::DocTooLarge { key: truncate_key(&self.key), bytes });
        }
        Ok(self)
    }

    /// Validates a whole document (every non-nullable field present).
    pub(crate) fn from_doc(schema: &Schema, doc: Doc) -> Result<Row, DocError> {
        check_key(&doc.key)?;
        let mut values: Vec<Option<Value>> = vec![None; schema.fields().len()];
        for (name, value) in doc.fields {
            let idx = schema
                .index_of(&name)
                .ok_or_else(|| DocError::UnknownField { key: truncate_key(&doc.key), field: name.clone() })?;
            values[idx] = Some(value);
        }
        // A field left unset takes its default (an explicit null stays null).
        let values: Vec<Value> = values
            .into_iter()
            .zip(schema.fields())
            .map(|(v, f)| match (v, &f.default) {
                (Some(v), _) => v,
                (None, Some(d)) => Value::from_json(&f.ty, d).unwrap_or(Value::Null),
                (None, None) => Value::Null,
            })
            .collect();
        for (idx, value) in values.iter().enumerate() {
            check_value(schema, idx, &doc.key, value)?;
            check_limits(schema, idx, &doc.key, value)?;
        }
        Row { key: doc.key, values }.check_size()
    }

    /// Merges the given fields of `doc` over this row, validating each.
    pub(crate) fn merge(mut self, schema: &Schema, doc: Doc) -> Result<Row, DocError> {
        for (name, value) in doc.fields {
            let idx = schema
                .index_of(&name)
                .ok_or_else(|| DocError::UnknownField { key: truncate_key(&doc.key), field: name.clone() })?;
            check_value(schema, idx, &doc.key, &value)?;
            check_limits(schema, idx, &doc.key, &value)?;
            self.values[idx] = value;
        }
        self.check_size()
    }
}

impl Doc {
    /// Parses one JSON object `{"_key": ..., field: value, ...}` into a document, checking
    /// each member against `schema`. `key_field` names the member holding the primary key.
    pub fn from_json(
        schema: &Schema,
        obj: &serde_json::Map<String, serde_json::Value>,
        key_field: &str,
    ) -> Result<Doc, DocError> {
        let key = match obj.get(key_field) {
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(serde_json::Value::Number(n)) => n.to_string(),
            Some(_) => return Err(DocError::BadKeyJson(key_field.to_string())),
            None => return Err(DocError::MissingKey(key_field.to_string())),
        };
        let mut doc = Doc::new(key);
        for (name, v) in obj {
            if name == key_field {
                continue;
            }
            let idx = schema
                .index_of(name)
                .ok_or_else(|| DocError::UnknownField { key: truncate_key(&doc.key), field: name.clone() })?;
            let value = Value::from_json(&schema.field(idx).ty, v).map_err(|e| DocError::BadValue {
                key: truncate_key(&doc.key),
                field: name.clone(),
                expected: e.expected,
                found: e.found,
            })?;
            doc.fields.insert(name.clone(), value);
        }
        Ok(doc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{Field, Metric};

    fn schema() -> Schema {
        Schema::builder("t")
            .field(Field::scalar("s", ScalarType::String))
            .field(Field::scalar("n", ScalarType::Int32).nullable(true))
            .field(Field::vector("v", VectorType::Fp32, 3, Metric::L2))
            .build()
            .unwrap()
    }

    #[test]
    fn bad_input_matrix_names_key_and_field() {
        let s = schema();
        let base = || Doc::new("k1").set("s", "x").set("v", vec![1.0f32, 2.0, 3.0]);
        let cases: Vec<(Doc, &str)> = vec![
            (base().set("s", 3i32), "field `s`"),
            (base().set("v", vec![1.0f32]), "dimension 3"),
            (base().set("v", vec![1.0f32, f32::NAN, 0.0]), "index 1"),
            (base().set("v", vec![1.0f32, f32::INFINITY, 0.0]), "not finite"),
            (Doc::new("k1").set("v", vec![1.0f32, 2.0, 3.0]), "field `s`"),
            (base().set("zzz", 1i32), "unknown field `zzz`"),
            (base().set("v", vec![1i8, 2, 3]), "vector_fp32"),
        ];
        for (doc, needle) in cases {
            let err = Row::from_doc(&s, doc).unwrap_err().to_string();
            assert!(err.contains("k1"), "{err}");
            assert!(err.contains(needle), "{err} lacks {needle}");
        }
        let mut empty = base();
        empty.key.clear();
        assert!(matches!(Row::from_doc(&s, empty), Err(DocError::EmptyKey)));
        let mut long = base();
        long.key = "x".repeat(MAX_KEY_BYTES + 1);
        assert!(matches!(Row::from_doc(&s, long), Err(DocError::KeyTooLong { .. })));
        assert!(Row::from_doc(&s, base()).is_ok());
    }

    /// f32s print as their shortest decimal and read back (as JSON, through f64) to the
    /// same bits, over a spread of bit patterns from subnormals to the largest finite.
    #[test]
    fn f32_json_is_shortest_and_round_trips() {
        assert_eq!(Value::Float(-0.259).to_json().to_string(), "-0.259");
        assert_eq!(Value::VectorFp32(vec![0.1, 1.0, -3.5e-7]).to_json().to_string(), "[0.1,1.0,-3.5e-7]");
        assert_eq!(Value::Double(0.1f32 as f64).to_json().to_string(), "0.10000000149011612");
        for bits in (0..u32::MAX).step_by(4093).chain([1, 0x7f7f_ffff, 0x8000_0001, 0x0080_0000]) {
            let x = f32::from_bits(bits);
            if !x.is_finite() {
                continue;
            }
            let text = Value::Float(x).to_json().to_string();
            let back: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert_eq!((back.as_f64().unwrap() as f32).to_bits(), x.to_bits(), "{bits:#x} printed as {text}");
        }
    }

    /// Issue 36: a 1.1 GB string was acknowledged and then unreadable. Strings and whole
    /// documents are capped at validation; each cap is tested at the bound and one past.
    #[test]
    fn strings_and_documents_are_capped_at_validation() {
        let s = Schema::builder("t")
            .field(Field::scalar("a", ScalarType::String))
            .field(Field::scalar("b", ScalarType::String).nullable(true))
            .field(Field::scalar("c", ScalarType::String).nullable(true))
            .field(Field::scalar("d", ScalarType::String).nullable(true))
            .field(Field::scalar("e", ScalarType::String).nullable(true))
            .field(Field::array("tags", ScalarType::String).nullable(true))
            .build()
            .unwrap();
        let at = "x".repeat(MAX_STRING_BYTES);
        assert!(Row::from_doc(&s, Doc::new("k").set("a", at.as_str())).is_ok());
        let past = Doc::new("k").set("a", format!("{at}y"));
        let e = Row::from_doc(&s, past).unwrap_err();
        assert!(matches!(e, DocError::StringTooLong { len, index: None, .. } if len == MAX_STRING_BYTES + 1), "{e}");
        let text = e.to_string();
        assert!(text.contains(r#"key "k""#) && text.contains("field `a`") && text.contains("16777217 bytes"), "{text}");
        assert!(text.contains("at most 16777216"), "{text}");
        let tags = Value::Array(vec![Value::from("t"), Value::String(format!("{at}y"))]);
        let e = Row::from_doc(&s, Doc::new("k").set("a", "x").set("tags", tags)).unwrap_err();
        assert!(e.to_string().contains("field `tags` holds a string of 16777217 bytes at index 1"), "{e}");

        // Five strings filled to make the record exactly MAX_DOC_BYTES, then one byte more.
        let names = ["a", "b", "c", "d", "e"];
        let doc = |total: usize| {
            let empty = Row::from_doc(&s, names.iter().fold(Doc::new("k"), |d, n| d.set(*n, ""))).unwrap();
            let mut left = total - empty.logged_len();
            names.iter().fold(Doc::new("k"), |d, n| {
                let len = left.min(MAX_STRING_BYTES);
                left -= len;
                d.set(*n, &at[..len])
            })
        };
        let row = Row::from_doc(&s, doc(MAX_DOC_BYTES)).unwrap();
        assert_eq!(row.logged_len(), MAX_DOC_BYTES);
        let e = Row::from_doc(&s, doc(MAX_DOC_BYTES + 1)).unwrap_err();
        assert!(matches!(e, DocError::DocTooLarge { bytes, .. } if bytes == MAX_DOC_BYTES + 1), "{e}");
        assert!(e.to_string().contains("67108865 bytes as logged; a document holds at most 67108864"), "{e}");
        // An update that grows a row past the cap is refused too.
        let grown = row.merge(&s, Doc::new("k").set("e", &at[..MAX_STRING_BYTES])).unwrap_err();
        assert!(matches!(grown, DocError::DocTooLarge { .. }), "{grown}");
    }

    /// Issue 36: a vector of 3.4e38s scored `inf`, ranked arbitrarily. Refused where the
    /// running sum of squares passes a quarter of f32::MAX, naming the element.
    #[test]
    fn a_vector_whose_norm_overflows_is_refused() {
        let s = schema();
        let v = |x: Vec<f32>| Row::from_doc(&s, Doc::new("k1").set("s", "x").set("v", x));
        let e = v(vec![1.0, 3.4e38, 0.0]).unwrap_err();
        assert!(matches!(e, DocError::NormTooLarge { index: 1, .. }), "{e}");
        assert!(
            e.to_string().contains("field `v` has a squared norm past") && e.to_string().contains("index 1"),
            "{e}"
        );
        // Each square fits, their sum does not: the element that tips it is named.
        let big = (MAX_SQUARED_NORM * 0.4).sqrt() as f32;
        assert!(matches!(v(vec![big, big, big]).unwrap_err(), DocError::NormTooLarge { index: 2, .. }));
        assert!(v(vec![big, big, 0.0]).is_ok());
        // Replay checks only what a record always had to be: one logged before the bound
        // still replays.
        let v_at = s.index_of("v").unwrap();
        assert!(check_value(&s, v_at, "k1", &Value::VectorFp32(vec![3.4e38, 3.4e38, 0.0])).is_ok());
        let s_at = s.index_of("s").unwrap();
        assert!(check_value(&s, s_at, "k1", &Value::String("x".repeat(MAX_STRING_BYTES + 1))).is_ok());
    }

    /// The vectorized checks find what the element-by-element ones found: the first
    /// non-finite element wherever it is, and the element where the running sum of squares
    /// passes the bound, also when the total comes near it (where the lanes' total is not
    /// trusted and the running sum decides).
    #[test]
    fn vector_checks_match_the_element_by_element_ones_at_every_length() {
        let running = |x: &[f32]| {
            let mut sum = 0.0f64;
            x.iter().position(|&f| {
                sum += f as f64 * f as f64;
                sum > MAX_SQUARED_NORM
            })
        };
        let mut rng = crate::index::rng::SplitMix64::new(7);
        for len in [1, 7, 8, 9, 63, 384, 1000] {
            let base: Vec<f32> = (0..len).map(|_| rng.next_unit() as f32 - 0.5).collect();
            assert_eq!(first_not_finite(&base, f32::is_finite), None);
            assert_eq!(norm_overflow(&base), None);
            for at in [0, len / 2, len - 1] {
                for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
                    let mut x = base.clone();
                    x[at] = bad;
                    assert_eq!(first_not_finite(&x, f32::is_finite), Some(at), "{len} {at} {bad}");
                    let h: Vec<f16> = x.iter().map(|&f| f16::from_f32(f)).collect();
                    assert_eq!(first_not_finite(&h, f16::is_finite), Some(at), "f16 {len} {at} {bad}");
                }
            }
            // Totals of 0.3 to 1.2 times the bound, spread over every element.
            for share in [0.3, 0.49, 0.51, 0.9, 0.999, 1.001, 1.2] {
                let each = ((MAX_SQUARED_NORM * share) / len as f64).sqrt() as f32;
                let x = vec![each; len];
                assert_eq!(norm_overflow(&x), running(&x), "{len} elements at {share} of the bound");
            }
        }
    }

    #[test]
    fn json_conversion_checks_ranges() {
        let s = schema();
        let obj = |t: &str| serde_json::from_str::<serde_json::Map<_, _>>(t).unwrap();
        let d = Doc::from_json(&s, &obj(r#"{"id":"a","s":"x","n":5,"v":[1,2,3]}"#), "id").unwrap();
        assert_eq!(d.get("n"), Some(&Value::Int32(5)));
        // Issue 36: `-0` was refused as "expected an integer, found a number".
        let d = Doc::from_json(&s, &obj(r#"{"id":"a","n":-0}"#), "id").unwrap();
        assert_eq!(d.get("n"), Some(&Value::Int32(0)));
        let e = Doc::from_json(&s, &obj(r#"{"id":"a","n":0.5}"#), "id").unwrap_err().to_string();
        assert!(e.contains("expects an integer, found a number"), "{e}");
        let e = Doc::from_json(&s, &obj(r#"{"id":"a","n":5000000000}"#), "id").unwrap_err().to_string();
        assert!(e.contains("int32 in range"), "{e}");
        let e = Doc::from_json(&s, &obj(r#"{"s":"x"}"#), "id").unwrap_err().to_string();
        assert!(e.contains("id"), "{e}");
    }
}
