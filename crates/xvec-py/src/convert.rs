//! Python values to the engine's and back. Vectors take the fast road: a numpy array is
//! read in place (float32, C-contiguous) or converted once; everything else goes through
//! the engine's JSON forms (`Value::from_json`, `Doc::from_json`), so the binding applies
//! no typing rule of its own and every error is the engine's, naming key and field.

use numpy::{PyArray1, PyArrayDescrMethods, PyReadonlyArray1, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::Value as Json;
use xvec::{FieldType, Value, VectorType};

/// How deep [`to_json`] follows nested lists and dicts: as deep as serde_json parses, and
/// a list that contains itself is an error rather than a stack overflow.
const MAX_DEPTH: usize = 128;

/// A Python object as JSON: `None`, bools, ints, floats, strings, lists, tuples, dicts with
/// string keys, numpy scalars and arrays. `what` names the object in an error.
pub fn to_json(obj: &Bound<'_, PyAny>, what: &dyn Fn() -> String) -> PyResult<Json> {
    nested_json(obj, what, 0)
}

fn nested_json(obj: &Bound<'_, PyAny>, what: &dyn Fn() -> String, depth: usize) -> PyResult<Json> {
    if depth > MAX_DEPTH {
        return Err(PyValueError::new_err(format!("{}: nested deeper than {MAX_DEPTH} levels", what())));
    }
    if obj.is_none() {
        Ok(Json::Null)
    } else if let Ok(b) = obj.cast::<PyBool>() {
        Ok(Json::Bool(b.is_true()))
    } else if obj.is_instance_of::<PyInt>() {
        if let Ok(i) = obj.extract::<i64>() {
            Ok(Json::from(i))
        } else if let Ok(u) = obj.extract::<u64>() {
            Ok(Json::from(u))
        } else {
            Err(PyValueError::new_err(format!("{}: integer {obj} does not fit 64 bits", what())))
        }
    } else if let Ok(f) = obj.cast::<PyFloat>() {
        let x = f.value();
        serde_json::Number::from_f64(x)
            .map(Json::Number)
            .ok_or_else(|| PyValueError::new_err(format!("{}: {x} is not a finite number", what())))
    } else if let Ok(s) = obj.cast::<PyString>() {
        Ok(Json::String(s.extract()?))
    } else if let Ok(d) = obj.cast::<PyDict>() {
        let mut map = serde_json::Map::new();
        for (k, v) in d.iter() {
            let k: String =
                k.extract().map_err(|_| PyTypeError::new_err(format!("{}: dict keys must be strings", what())))?;
            let v = nested_json(&v, &|| format!("{} [{k:?}]", what()), depth + 1)?;
            map.insert(k, v);
        }
        Ok(Json::Object(map))
    } else if obj.is_instance_of::<PyList>()
        || obj.is_instance_of::<PyTuple>()
        || obj.is_instance_of::<PyUntypedArray>()
    {
        let items = if obj.is_instance_of::<PyUntypedArray>() { obj.call_method0("tolist")? } else { obj.clone() };
        let mut out = Vec::new();
        for (i, x) in items.try_iter()?.enumerate() {
            out.push(nested_json(&x?, &|| format!("{}[{i}]", what()), depth + 1)?);
        }
        Ok(Json::Array(out))
    } else if obj.hasattr("item")? && obj.hasattr("dtype")? {
        // A numpy scalar (np.float32(1.5), np.int64(3)): its Python value.
        nested_json(&obj.call_method0("item")?, what, depth + 1)
    } else {
        Err(PyTypeError::new_err(format!(
            "{}: a {} cannot be stored; expected None, bool, int, float, str, list, dict or a numpy array",
            what(),
            obj.get_type().name()?
        )))
    }
}

/// JSON as Python objects.
pub fn from_json<'py>(py: Python<'py>, v: &Json) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Json::Null => py.None().into_bound(py),
        Json::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Json::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_pyobject(py)?.into_any(),
            (None, Some(u)) => u.into_pyobject(py)?.into_any(),
            _ => n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any(),
        },
        Json::String(s) => PyString::new(py, s).into_any(),
        Json::Array(xs) => {
            PyList::new(py, xs.iter().map(|x| from_json(py, x)).collect::<PyResult<Vec<_>>>()?)?.into_any()
        }
        Json::Object(map) => {
            let d = PyDict::new(py);
            for (k, x) in map {
                d.set_item(k, from_json(py, x)?)?;
            }
            d.into_any()
        }
    })
}

/// A stored value as a Python object: vectors as numpy arrays (fp32 and fp16 as float32,
/// int8 as int8), the rest as the engine's JSON form.
pub fn value_to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Int32(x) => x.into_pyobject(py)?.into_any(),
        Value::Int64(x) => x.into_pyobject(py)?.into_any(),
        Value::Uint32(x) => x.into_pyobject(py)?.into_any(),
        Value::Uint64(x) => x.into_pyobject(py)?.into_any(),
        Value::Float(x) => x.into_pyobject(py)?.into_any(),
        Value::Double(x) => x.into_pyobject(py)?.into_any(),
        Value::VectorFp32(x) => PyArray1::from_slice(py, x).into_any(),
        Value::VectorFp16(x) => PyArray1::from_iter(py, x.iter().map(|h| h.to_f32())).into_any(),
        Value::VectorInt8(x) => PyArray1::from_slice(py, x).into_any(),
        other => from_json(py, &other.to_json())?,
    })
}

/// A Python value for a field of type `ty`. A vector given as a numpy array (or a
/// sequence of numbers) becomes the field's element type here; anything else goes
/// through [`Value::from_json`]. `Err(expected, found)` is a value of the wrong shape,
/// reported by the caller as the engine reports one (key and field named).
pub fn value_from_py(
    ty: &FieldType,
    obj: &Bound<'_, PyAny>,
    what: &dyn Fn() -> String,
) -> PyResult<Result<Value, xvec::ValueError>> {
    if let (FieldType::Vector(spec), true) = (ty, obj.is_instance_of::<PyUntypedArray>()) {
        let arr = obj.cast::<PyUntypedArray>()?;
        if arr.ndim() != 1 {
            return Err(PyValueError::new_err(format!(
                "{}: a vector must be a 1-D array, found shape {:?}",
                what(),
                arr.shape()
            )));
        }
        return vector_from_array(spec.elem, arr, what);
    }
    let json = to_json(obj, what)?;
    Ok(Value::from_json(ty, &json))
}

/// A 1-D numpy array as a vector of element type `elem`: float32 read as is, other
/// numeric dtypes converted once.
fn vector_from_array(
    elem: VectorType,
    arr: &Bound<'_, PyUntypedArray>,
    what: &dyn Fn() -> String,
) -> PyResult<Result<Value, xvec::ValueError>> {
    let f32s = as_f32_array(arr, what)?;
    let ro: PyReadonlyArray1<f32> = f32s.extract()?;
    let xs = ro.as_slice().map_err(|e| PyValueError::new_err(format!("{}: {e}", what())))?;
    Ok(Value::vector_from_f32s(elem, xs))
}

/// `arr` as a C-contiguous float32 array: itself when it is one, else one conversion
/// (float64, float16, integers). Other dtypes are refused by name.
pub fn as_f32_array<'py>(arr: &Bound<'py, PyUntypedArray>, what: &dyn Fn() -> String) -> PyResult<Bound<'py, PyAny>> {
    let dtype = arr.dtype();
    let kind = dtype.kind();
    if !matches!(kind, b'f' | b'i' | b'u') {
        return Err(PyTypeError::new_err(format!(
            "{}: vectors must be a numeric array (float32, float64, float16 or integers); found dtype {}",
            what(),
            dtype.str()?
        )));
    }
    let py = arr.py();
    let np = py.import("numpy")?;
    let is_f32 = dtype.is_equiv_to(&numpy::dtype::<f32>(py));
    if is_f32 && arr.is_c_contiguous() {
        return Ok(arr.clone().into_any());
    }
    np.call_method1("ascontiguousarray", (arr, "float32"))
}

/// A key given as a Python str or int.
pub fn key_from_py(obj: &Bound<'_, PyAny>, what: &dyn Fn() -> String) -> PyResult<String> {
    if let Ok(s) = obj.cast::<PyString>() {
        return s.extract();
    }
    if obj.is_instance_of::<PyInt>() || (obj.hasattr("dtype")? && obj.hasattr("item")?) {
        let v = to_json(obj, what)?;
        if let Json::Number(n) = v
            && (n.is_i64() || n.is_u64())
        {
            return Ok(n.to_string());
        }
    }
    Err(PyTypeError::new_err(format!("{}: a key must be a str or an int, found {}", what(), obj.get_type().name()?)))
}
