//! `shard_ids`: the shard of each value of an Arrow string array, `crc32c(UTF-8 bytes) mod
//! shards`. `xvec.ray` routes rows with it; the rule is written in a sharded collection's
//! root manifest so any language can reproduce it, and it reads the array's buffers in
//! place (no Python object per row).

use arrow_array::cast::AsArray;
use arrow_array::{Array, make_array};
use arrow_schema::DataType;
use numpy::{IntoPyArray, PyArray1};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::arrow_io::import_array;

/// Most shards a collection is split into.
pub const MAX_SHARDS: u32 = 65_536;

/// The shard (0..shards) of each value of `values`, an Arrow string array (pyarrow
/// `string`, `large_string` or `string_view`; anything with `__arrow_c_array__`), as a
/// numpy uint32 array: `crc32c(value's UTF-8 bytes) % shards`. A null value is an error
/// naming its row.
#[pyfunction]
pub fn shard_ids<'py>(py: Python<'py>, values: &Bound<'py, PyAny>, shards: u32) -> PyResult<Bound<'py, PyArray1<u32>>> {
    if shards == 0 || shards > MAX_SHARDS {
        return Err(PyValueError::new_err(format!("shards is {shards}; expected 1..={MAX_SHARDS}")));
    }
    let array = make_array(import_array(values)?);
    if let Some(row) = (0..array.len()).find(|&i| array.is_null(i)) {
        return Err(PyValueError::new_err(format!("the shard key at row {row} is null; every row needs one")));
    }
    let of = |bytes: &[u8]| crc32c::crc32c(bytes) % shards;
    let ids: Vec<u32> = match array.data_type() {
        DataType::Utf8 => array.as_string::<i32>().iter().map(|v| of(v.unwrap_or_default().as_bytes())).collect(),
        DataType::LargeUtf8 => array.as_string::<i64>().iter().map(|v| of(v.unwrap_or_default().as_bytes())).collect(),
        DataType::Utf8View => array.as_string_view().iter().map(|v| of(v.unwrap_or_default().as_bytes())).collect(),
        other => {
            return Err(PyTypeError::new_err(format!(
                "shard keys are {other}; expected strings (cast other types to string first)"
            )));
        }
    };
    Ok(ids.into_pyarray(py))
}

#[cfg(test)]
mod tests {
    /// The rule written in the root manifest, pinned: changing it would move rows of every
    /// existing sharded collection to the wrong shard.
    #[test]
    fn the_rule_is_crc32c_of_the_utf8_bytes() {
        assert_eq!(crc32c::crc32c(b"123456789"), 0xE306_9283);
        assert_eq!(crc32c::crc32c("dog".as_bytes()) % 4, crc32c::crc32c(b"dog") % 4);
    }
}
