//! Parquet for `export`, in the layout Milvus `bulk_import` and VectorDBBench read: the
//! key as an `id` column (int64 when every key is a decimal integer, as VectorDBBench's
//! `train.parquet` has it, else a UTF-8 string, which Milvus takes for a VarChar primary
//! key), one `list<float>` column per vector field (`emb`), one column per scalar field
//! in its own type (uint32/uint64 as int32/int64 with the unsigned annotation), a sparse
//! field as a group of two lists, `indices` (uint32) and `values` (float), nullable
//! fields optional. One row group per export chunk, so memory stays bounded by a chunk.

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use parquet::basic::Compression;
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DataType, DoubleType, FloatType, Int32Type, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::{SerializedColumnWriter, SerializedFileWriter};
use xvec::{Doc, Field, FieldType, ScalarType, Value};

use super::{CliError, Layout, Writer, create as create_file};

pub fn create(path: &Path, layout: Layout) -> Result<Box<dyn Writer>, CliError> {
    let exportable = |t: &FieldType| {
        matches!(t, FieldType::Vector(_) | FieldType::Scalar(_) | FieldType::Array(_) | FieldType::Sparse(_))
    };
    if let Some(f) = layout.fields.iter().find(|f| !exportable(&f.ty)) {
        return Err(CliError::usage(format!(
            "field `{}` is {}: Parquet export has no column for it",
            f.name,
            f.ty.name()
        ))
        .hint("export it as jsonl, or leave it out with --fields"));
    }
    let schema = parquet::schema::parser::parse_message_type(&message_type(&layout))
        .map_err(|e| CliError::failed(format!("parquet schema: {e}")))?;
    let props = WriterProperties::builder().set_compression(Compression::SNAPPY).build();
    let file = create_file(path)?;
    let name = path.display().to_string();
    let writer = SerializedFileWriter::new(file, Arc::new(schema), Arc::new(props))
        .map_err(|e| CliError::failed(format!("{name}: {e}")))?;
    Ok(Box::new(Parquet { writer, layout, name }))
}

/// The Parquet schema of an export, e.g. `message xvec { required int64 id; required
/// group emb (LIST) { repeated group list { required float element; } } ... }`.
fn message_type(layout: &Layout) -> String {
    let id = if layout.integer_keys { "int64" } else { "binary" };
    let id_note = if layout.integer_keys { "" } else { " (UTF8)" };
    let mut s = format!("message xvec {{ required {id} {}{id_note};", layout.key_field);
    for f in &layout.fields {
        let rep = if f.nullable { "optional" } else { "required" };
        let name = &f.name;
        match &f.ty {
            FieldType::Vector(_) => s.push_str(&format!(
                " {rep} group {name} (LIST) {{ repeated group list {{ required float element; }} }}"
            )),
            FieldType::Scalar(t) => {
                let (physical, note) = physical(*t);
                s.push_str(&format!(" {rep} {physical} {name}{note};"));
            }
            FieldType::Array(t) => {
                let (physical, note) = physical(*t);
                s.push_str(&format!(
                    " {rep} group {name} (LIST) {{ repeated group list {{ required {physical} element{note}; }} }}"
                ));
            }
            FieldType::Sparse(_) => s.push_str(&format!(
                " {rep} group {name} {{ \
                 required group indices (LIST) {{ repeated group list {{ required int32 element (UINT_32); }} }} \
                 required group values (LIST) {{ repeated group list {{ required float element; }} }} }}"
            )),
            other => unreachable!("create refuses {} fields", other.name()),
        }
    }
    s.push_str(" }");
    s
}

/// The physical type and annotation of a scalar type's column.
fn physical(t: ScalarType) -> (&'static str, &'static str) {
    match t {
        ScalarType::String => ("binary", " (UTF8)"),
        ScalarType::Bool => ("boolean", ""),
        ScalarType::Int32 => ("int32", ""),
        ScalarType::Int64 => ("int64", ""),
        ScalarType::Uint32 => ("int32", " (UINT_32)"),
        ScalarType::Uint64 => ("int64", " (UINT_64)"),
        ScalarType::Float => ("float", ""),
        ScalarType::Double => ("double", ""),
        other => unimplemented!("a parquet column for {} fields", other.name()),
    }
}

struct Parquet {
    writer: SerializedFileWriter<File>,
    layout: Layout,
    name: String,
}

impl Parquet {
    fn err(&self, e: parquet::errors::ParquetError) -> CliError {
        CliError::failed(format!("{}: {e}", self.name))
    }
}

/// Writes one column's values with their definition (and repetition) levels.
/// A field type this export has no parquet column for.
fn no_column(ty: &str) -> parquet::errors::ParquetError {
    parquet::errors::ParquetError::General(format!("no parquet column type for {ty} fields"))
}

fn put<T: DataType>(
    col: &mut SerializedColumnWriter,
    values: &[T::T],
    def: Option<&[i16]>,
    rep: Option<&[i16]>,
) -> Result<(), parquet::errors::ParquetError> {
    col.typed::<T>().write_batch(values, def, rep).map(|_| ())
}

/// The present values of a scalar column and, for a nullable one, its definition levels.
fn scalars<T>(docs: &[Doc], f: &Field, get: impl Fn(&Value) -> Option<T>) -> (Vec<T>, Option<Vec<i16>>) {
    let mut values = Vec::with_capacity(docs.len());
    let mut def = Vec::with_capacity(docs.len());
    for d in docs {
        match d.get(&f.name).and_then(&get) {
            Some(v) => {
                values.push(v);
                def.push(1);
            }
            None => def.push(0),
        }
    }
    (values, f.nullable.then_some(def))
}

/// The elements of an array column with their definition levels (NULL 0, an empty array
/// one below the element's, which a nullable list has at 2) and repetition levels.
fn lists<T>(docs: &[Doc], f: &Field, get: impl Fn(&Value) -> Option<T>) -> (Vec<T>, Vec<i16>, Vec<i16>) {
    let element = if f.nullable { 2 } else { 1 };
    let (mut values, mut def, mut rep) = (Vec::new(), Vec::new(), Vec::new());
    for d in docs {
        match d.get(&f.name) {
            Some(Value::Array(xs)) if !xs.is_empty() => {
                for (j, x) in xs.iter().enumerate() {
                    values.extend(get(x));
                    def.push(element);
                    rep.push(i16::from(j > 0));
                }
            }
            Some(Value::Array(_)) => {
                def.push(element - 1);
                rep.push(0);
            }
            _ => {
                def.push(0);
                rep.push(0);
            }
        }
    }
    (values, def, rep)
}

/// The dimensions and values of sparse field `f` with the definition and repetition
/// levels both of its leaf columns take (NULL 0, an empty vector one below an element's).
fn sparse_levels(docs: &[Doc], f: &Field) -> (Vec<i32>, Vec<f32>, Vec<i16>, Vec<i16>) {
    let element = if f.nullable { 2 } else { 1 };
    let (mut dims, mut values, mut def, mut rep) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for d in docs {
        match d.get(&f.name) {
            Some(Value::Sparse(v)) if !v.is_empty() => {
                dims.extend(v.indices().iter().map(|&i| i as i32));
                values.extend_from_slice(v.values());
                def.extend(std::iter::repeat_n(element, v.len()));
                rep.extend(std::iter::once(0).chain(std::iter::repeat_n(1, v.len() - 1)));
            }
            Some(Value::Sparse(_)) => {
                def.push(element - 1);
                rep.push(0);
            }
            _ => {
                def.push(0);
                rep.push(0);
            }
        }
    }
    (dims, values, def, rep)
}

/// Writes the column of scalar or array field `f`, its values (or elements) read by
/// `get`.
fn typed<T: DataType>(
    col: &mut SerializedColumnWriter,
    docs: &[Doc],
    f: &Field,
    get: impl Fn(&Value) -> Option<T::T>,
) -> Result<(), parquet::errors::ParquetError> {
    if f.as_array().is_some() {
        let (v, def, rep) = lists(docs, f, get);
        return put::<T>(col, &v, Some(&def), Some(&rep));
    }
    let (v, def) = scalars(docs, f, get);
    put::<T>(col, &v, def.as_deref(), None)
}

impl Writer for Parquet {
    fn write(&mut self, docs: &[Doc]) -> Result<(), CliError> {
        if docs.is_empty() {
            return Ok(());
        }
        for (f, d) in self.layout.fields.iter().flat_map(|f| docs.iter().map(move |d| (f, d))) {
            if !f.nullable && d.get(&f.name).is_none_or(|v| *v == Value::Null) {
                return Err(CliError::failed(format!("document {:?} has no value for `{}`", d.key, f.name)));
            }
        }
        let result = (|| {
            let mut rg = self.writer.next_row_group()?;
            let mut col = rg.next_column()?.expect("the key column");
            if self.layout.integer_keys {
                let ids: Vec<i64> = docs.iter().map(|d| d.key.parse().expect("checked integer keys")).collect();
                put::<Int64Type>(&mut col, &ids, None, None)?;
            } else {
                let ids: Vec<ByteArray> = docs.iter().map(|d| ByteArray::from(d.key.as_str())).collect();
                put::<ByteArrayType>(&mut col, &ids, None, None)?;
            }
            col.close()?;
            for f in &self.layout.fields {
                if let FieldType::Sparse(_) = f.ty {
                    let (dims, values, def, rep) = sparse_levels(docs, f);
                    let mut col = rg.next_column()?.expect("the indices column");
                    put::<Int32Type>(&mut col, &dims, Some(&def), Some(&rep))?;
                    col.close()?;
                    let mut col = rg.next_column()?.expect("the values column");
                    put::<FloatType>(&mut col, &values, Some(&def), Some(&rep))?;
                    col.close()?;
                    continue;
                }
                let mut col = rg.next_column()?.expect("one column per field");
                match &f.ty {
                    FieldType::Vector(spec) => {
                        let n = docs.len() * spec.dim as usize;
                        let (mut values, mut def, mut rep) =
                            (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
                        let present = if f.nullable { 2 } else { 1 };
                        for d in docs {
                            match d.get(&f.name).and_then(Value::vector_f32) {
                                Some(v) => {
                                    rep.extend(std::iter::once(0).chain(std::iter::repeat_n(1, v.len() - 1)));
                                    def.extend(std::iter::repeat_n(present, v.len()));
                                    values.extend(v);
                                }
                                None => {
                                    rep.push(0);
                                    def.push(0);
                                }
                            }
                        }
                        put::<FloatType>(&mut col, &values, Some(&def), Some(&rep))?;
                    }
                    FieldType::Scalar(t) | FieldType::Array(t) => match t {
                        ScalarType::String => typed::<ByteArrayType>(&mut col, docs, f, |v| match v {
                            Value::String(s) => Some(ByteArray::from(s.as_str())),
                            _ => None,
                        })?,
                        ScalarType::Bool => typed::<BoolType>(&mut col, docs, f, |v| match v {
                            Value::Bool(b) => Some(*b),
                            _ => None,
                        })?,
                        ScalarType::Int32 | ScalarType::Uint32 => typed::<Int32Type>(&mut col, docs, f, |v| match v {
                            Value::Int32(x) => Some(*x),
                            Value::Uint32(x) => Some(*x as i32),
                            _ => None,
                        })?,
                        ScalarType::Int64 | ScalarType::Uint64 => typed::<Int64Type>(&mut col, docs, f, |v| match v {
                            Value::Int64(x) => Some(*x),
                            Value::Uint64(x) => Some(*x as i64),
                            _ => None,
                        })?,
                        ScalarType::Float => typed::<FloatType>(&mut col, docs, f, |v| match v {
                            Value::Float(x) => Some(*x),
                            _ => None,
                        })?,
                        ScalarType::Double => typed::<DoubleType>(&mut col, docs, f, |v| match v {
                            Value::Double(x) => Some(*x),
                            _ => None,
                        })?,
                        other => return Err(no_column(other.name())),
                    },
                    other => return Err(no_column(other.name())),
                }
                col.close()?;
            }
            rg.close().map(|_| ())
        })();
        result.map_err(|e| self.err(e))
    }

    fn finish(self: Box<Self>) -> Result<(), CliError> {
        let name = self.name;
        self.writer.close().map(|_| ()).map_err(|e| CliError::failed(format!("{name}: {e}")))
    }
}
