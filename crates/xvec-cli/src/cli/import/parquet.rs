//! Parquet for `import`: one document per row, one field per top-level column (the key in
//! `--key-field`, an integer or a string), vectors from list columns, sparse vectors from
//! groups of `indices` and `values` lists. What `export
//! --format parquet` writes, and what Milvus bulk_import and VectorDBBench files hold.
//! Rows are read row group by row group, so memory stays bounded by one.

use std::path::Path;

use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;

use super::{CliError, Place, Sink, open};

pub fn rows(sink: &mut Sink, path: &Path) -> Result<(), CliError> {
    let reader = SerializedFileReader::new(open(path)?)
        .map_err(|e| CliError::failed(format!("{}: not a readable parquet file: {e}", sink.name)))?;
    let meta = reader.metadata();
    let total_rows = meta.file_metadata().num_rows().max(1) as u64;
    let file_bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let rows = reader.get_row_iter(None).map_err(|e| CliError::failed(format!("{}: {e}", sink.name)))?;
    for (i, row) in rows.enumerate() {
        let row = row.map_err(|e| CliError::failed(format!("{}: row {i}: {e}", sink.name)))?;
        let obj: Result<serde_json::Map<String, serde_json::Value>, String> = row
            .get_column_iter()
            .map(|(name, value)| {
                json(value).map(|v| (name.clone(), v)).map_err(|why| format!("column `{name}`: {why}"))
            })
            .collect();
        let doc = sink.doc(obj)?;
        let bytes = (i as u64 + 1) * file_bytes / total_rows;
        sink.push(Place::Row(i as u64), doc, bytes)?;
    }
    Ok(())
}

/// A Parquet value as the JSON a JSON Lines row would hold; `Value::from_json` then checks
/// it against the field's type. f32s widen to f64 exactly, so they narrow back to the same
/// bits.
fn json(value: &Field) -> Result<serde_json::Value, String> {
    use serde_json::Value as J;
    let float = |x: f64| serde_json::Number::from_f64(x).map(J::Number).ok_or_else(|| format!("{x} is not finite"));
    Ok(match value {
        Field::Null => J::Null,
        Field::Bool(b) => J::Bool(*b),
        Field::Byte(x) => J::from(*x),
        Field::Short(x) => J::from(*x),
        Field::Int(x) => J::from(*x),
        Field::Long(x) => J::from(*x),
        Field::UByte(x) => J::from(*x),
        Field::UShort(x) => J::from(*x),
        Field::UInt(x) => J::from(*x),
        Field::ULong(x) => J::from(*x),
        Field::Float16(x) => float(x.to_f64())?,
        Field::Float(x) => float(*x as f64)?,
        Field::Double(x) => float(*x)?,
        Field::Str(s) => J::String(s.clone()),
        Field::ListInternal(list) => J::Array(list.elements().iter().map(json).collect::<Result<_, _>>()?),
        // A group (a sparse vector's `indices` and `values`) as an object of its members.
        Field::Group(row) => J::Object(
            row.get_column_iter().map(|(name, v)| json(v).map(|v| (name.clone(), v))).collect::<Result<_, String>>()?,
        ),
        other => {
            return Err(format!(
                "{other} is of a type xvec has no field for (expected a number, string, bool, list or group)"
            ));
        }
    })
}
