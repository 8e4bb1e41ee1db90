//! What a write takes: a list of dicts, a dict of columns (numpy arrays read in place), or
//! Arrow data (anything with `__arrow_c_stream__` or `__arrow_c_array__`). Each becomes a
//! [`Rows`] source that hands out documents a chunk at a time, so a write of millions of
//! rows holds one chunk of converted documents, never a second copy of the input.

use numpy::{PyReadonlyArray2, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use xvec::{Doc, DocError, FieldType, Schema, Value};

use crate::arrow_io::ArrowRows;
use crate::convert::{as_f32_array, key_from_py, to_json, value_from_py};
use crate::errors::IntoPy;

/// One input row: its document, or why it could not become one (reported in its place).
pub type Row = Result<Doc, DocError>;

/// A source of rows to write.
pub enum Rows {
    /// A list (or any sequence) of dicts.
    Dicts { items: Py<PyAny>, len: usize, next: usize, key: String },
    /// Columns by name, all of one length.
    Columns(Box<Columns>),
    /// An Arrow stream, a record batch at a time.
    Arrow(Box<ArrowRows>),
}

impl Rows {
    /// Recognises the input form of `data`.
    pub fn new(py: Python<'_>, schema: &Schema, data: &Bound<'_, PyAny>, key: &str) -> PyResult<Rows> {
        if data.hasattr("__arrow_c_stream__")? || data.hasattr("__arrow_c_array__")? {
            return Ok(Rows::Arrow(Box::new(ArrowRows::new(py, schema, data, key)?)));
        }
        if let Ok(d) = data.cast::<PyDict>() {
            return Ok(Rows::Columns(Box::new(Columns::new(schema, d, key)?)));
        }
        if data.is_instance_of::<PyString>() || !data.hasattr("__len__")? || !data.hasattr("__getitem__")? {
            return Err(PyTypeError::new_err(format!(
                "cannot write a {}: expected a list of dicts, a dict of columns, or Arrow data (a pyarrow Table or RecordBatch, a polars DataFrame, anything with __arrow_c_stream__)",
                data.get_type().name()?
            )));
        }
        Ok(Rows::Dicts { items: data.clone().unbind(), len: data.len()?, next: 0, key: key.to_string() })
    }

    /// Reads only the rows at these positions of the input, in this order (Arrow data
    /// only).
    pub fn pick(&mut self, py: Python<'_>, rows: Vec<usize>) -> PyResult<()> {
        match self {
            Rows::Arrow(a) => a.pick(py, rows),
            _ => Err(PyTypeError::new_err(
                "rows= picks rows of Arrow data (a pyarrow Table or RecordBatch, any __arrow_c_stream__)",
            )),
        }
    }

    /// The position in the input of the `i`th row handed out.
    pub fn position(&self, i: usize) -> usize {
        match self {
            Rows::Arrow(a) => a.position(i),
            _ => i,
        }
    }

    /// Up to `max` more rows (none at the end).
    pub fn next_chunk(&mut self, py: Python<'_>, schema: &Schema, max: usize) -> PyResult<Vec<Row>> {
        match self {
            Rows::Dicts { items, len, next, key } => {
                let items = items.bind(py);
                let end = next.saturating_add(max).min(*len);
                let mut out = Vec::with_capacity(end - *next);
                for i in *next..end {
                    out.push(dict_row(schema, &items.get_item(i)?, key, i)?);
                }
                *next = end;
                Ok(out)
            }
            Rows::Columns(c) => c.next_chunk(py, schema, max),
            Rows::Arrow(a) => a.next_chunk(py, schema, max),
        }
    }
}

/// One dict as a document: vectors given as numpy arrays converted directly, the rest
/// through the engine's JSON document form.
fn dict_row(schema: &Schema, item: &Bound<'_, PyAny>, key: &str, i: usize) -> PyResult<Row> {
    let d = item.cast::<PyDict>().map_err(|_| {
        PyTypeError::new_err(format!(
            "row {i}: expected a dict, found {}",
            item.get_type().name().map(|n| n.to_string()).unwrap_or_default()
        ))
    })?;
    let mut json = serde_json::Map::new();
    let mut fast = Vec::new();
    for (name, value) in d.iter() {
        let name: String =
            name.extract().map_err(|_| PyTypeError::new_err(format!("row {i}: dict keys must be strings")))?;
        let what = || format!("row {i}, field {name:?}");
        match schema.index_of(&name).map(|f| &schema.field(f).ty) {
            Some(ty @ FieldType::Vector(_)) if value.is_instance_of::<PyUntypedArray>() => {
                fast.push((name.clone(), ty, value))
            }
            _ => {
                json.insert(name.clone(), to_json(&value, &what)?);
            }
        }
    }
    let mut doc = match Doc::from_json(schema, &json, key) {
        Ok(doc) => doc,
        Err(e) => return Ok(Err(e)),
    };
    for (name, ty, value) in fast {
        match value_from_py(ty, &value, &|| format!("row {i}, field {name:?}"))? {
            Ok(v) => {
                doc.fields.insert(name, v);
            }
            Err(e) => return Ok(Err(DocError::bad_value(&doc.key, &name, e))),
        }
    }
    Ok(Ok(doc))
}

/// A dict of columns: keys under the key name, one column per field.
pub struct Columns {
    keys: Vec<String>,
    columns: Vec<(String, Column)>,
    next: usize,
}

enum Column {
    /// An (n, dim) float32 array, read in place.
    Matrix { array: Py<PyAny> },
    /// Anything else, one Python object per row.
    Items { items: Py<PyAny>, ty: FieldType },
}

impl Columns {
    fn new(schema: &Schema, d: &Bound<'_, PyDict>, key: &str) -> PyResult<Columns> {
        let keys_obj = d.get_item(key)?.ok_or_else(|| {
            PyValueError::new_err(format!("the columns hold no key column {key:?}; name it with key=\"...\""))
        })?;
        let keys_list = match keys_obj.is_instance_of::<PyUntypedArray>() {
            true => keys_obj.call_method0("tolist")?,
            false => keys_obj,
        };
        let mut keys = Vec::with_capacity(keys_list.len()?);
        for (i, k) in keys_list.try_iter()?.enumerate() {
            keys.push(key_from_py(&k?, &|| format!("key column {key:?}, row {i}"))?);
        }
        let n = keys.len();
        let mut columns = Vec::new();
        for (name, col) in d.iter() {
            let name: String = name.extract().map_err(|_| PyTypeError::new_err("column names must be strings"))?;
            if name == key {
                continue;
            }
            let f = schema.index_of(&name).ok_or_else(|| {
                PyValueError::new_err(format!(
                    "column {name:?} is not a field of the collection (fields: {})",
                    field_names(schema)
                ))
            })?;
            let ty = schema.field(f).ty.clone();
            let column = match (&ty, col.cast::<PyUntypedArray>()) {
                (FieldType::Vector(spec), Ok(arr)) if arr.ndim() == 2 => {
                    let shape = arr.shape();
                    if shape[1] != spec.dim as usize {
                        return Err(PyValueError::new_err(format!(
                            "column {name:?}: field {name} has dimension {}, the array has shape ({}, {})",
                            spec.dim, shape[0], shape[1]
                        )));
                    }
                    let array = as_f32_array(arr, &|| format!("column {name:?}"))?;
                    Column::Matrix { array: array.unbind() }
                }
                (_, Ok(arr)) if arr.ndim() != 1 => {
                    return Err(PyValueError::new_err(format!(
                        "column {name:?}: expected a 1-D array{}, found shape {:?}",
                        if matches!(ty, FieldType::Vector(_)) { " of vectors or a 2-D array" } else { "" },
                        arr.shape()
                    )));
                }
                (_, Ok(arr)) => Column::Items { items: arr.call_method0("tolist")?.unbind(), ty },
                (_, Err(_)) => Column::Items { items: col.clone().unbind(), ty },
            };
            let len = match &column {
                Column::Matrix { array, .. } => array.bind(d.py()).len()?,
                Column::Items { items, .. } => items.bind(d.py()).len()?,
            };
            if len != n {
                return Err(PyValueError::new_err(format!(
                    "column {name:?} has {len} rows, the key column {key:?} has {n}"
                )));
            }
            columns.push((name, column));
        }
        Ok(Columns { keys, columns, next: 0 })
    }

    /// The next chunk as the engine's [`xvec::Columns`]: a vector array's rows copied
    /// once into one flat buffer, the engine making each row's vector of the field's type.
    fn next_chunk(&mut self, py: Python<'_>, schema: &Schema, max: usize) -> PyResult<Vec<Row>> {
        let end = self.next.saturating_add(max).min(self.keys.len());
        let mut cols = xvec::Columns::new(self.keys[self.next..end].to_vec());
        // Rows whose Python value had the wrong shape: reported in their place.
        let mut bad: Vec<(usize, &str, xvec::ValueError)> = Vec::new();
        for (name, column) in &self.columns {
            match column {
                Column::Matrix { array } => {
                    let ro: PyReadonlyArray2<f32> = array.bind(py).extract()?;
                    let all = ro.as_slice().map_err(|e| PyValueError::new_err(format!("column {name:?}: {e}")))?;
                    let dim = ro.shape()[1];
                    cols = cols.vectors(name.as_str(), all[self.next * dim..end * dim].to_vec());
                }
                Column::Items { items, ty } => {
                    let items = items.bind(py);
                    let mut values = Vec::with_capacity(end - self.next);
                    for i in self.next..end {
                        let item = items.get_item(i)?;
                        match value_from_py(ty, &item, &|| format!("column {name:?}, row {i}"))? {
                            Ok(v) => values.push(v),
                            Err(e) => {
                                bad.push((i - self.next, name, e));
                                values.push(Value::Null);
                            }
                        }
                    }
                    cols = cols.values(name.as_str(), values);
                }
            }
        }
        let mut rows = cols.into_docs(schema).py_err()?;
        for (j, field, e) in bad {
            let key = &self.keys[self.next + j];
            rows[j] = Err(DocError::bad_value(key, field, e));
        }
        self.next = end;
        Ok(rows)
    }
}

/// The schema's field names, for an error.
pub fn field_names(schema: &Schema) -> String {
    schema.fields().iter().map(|f| f.name.as_str()).collect::<Vec<_>>().join(", ")
}

/// Keys given as one str or int, or a sequence of them.
pub fn keys_from_py(keys: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if keys.is_instance_of::<PyString>() {
        return Ok(vec![key_from_py(keys, &|| "key".into())?]);
    }
    let list = match keys.is_instance_of::<PyUntypedArray>() {
        true => keys.call_method0("tolist")?,
        false => keys.clone(),
    };
    if list.is_instance_of::<PyList>() || list.hasattr("__iter__")? {
        let mut out = Vec::new();
        for (i, k) in list.try_iter()?.enumerate() {
            out.push(key_from_py(&k?, &|| format!("keys[{i}]"))?);
        }
        return Ok(out);
    }
    Ok(vec![key_from_py(keys, &|| "key".into())?])
}
