//! Documents given column by column, the shape numpy arrays, Arrow batches and vector
//! files come in: one list of keys, and per field either its values or, for a vector
//! field, one flat array of `rows × dim` numbers. The faces hand a chunk of their input
//! here rather than building documents themselves, so the rule for turning a row of
//! numbers into a vector of the field's type lives in one place ([`Value::vector`]).

use crate::collection::{Collection, ItemResult};
use crate::error::{DocError, Error};
use crate::schema::{FieldType, Schema, VectorType};
use crate::value::{Doc, Value};

/// One field's values for every row of a [`Columns`].
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Column {
    /// A vector field's rows, one after another: `rows × dim` numbers, converted to the
    /// field's element type (fp32 as is; fp16 rounded; int8 integers only).
    Vectors(Vec<f32>),
    /// Any field's values, one per row (`Value::Null` where a row has none).
    Values(Vec<Value>),
}

/// Rows given as columns: [`Collection::insert_columns`] and its kin write them.
///
/// ```
/// use xvec::{Collection, Columns, Field, Metric, ScalarType, Schema, VectorType};
/// let dir = tempfile::tempdir()?;
/// let schema = Schema::builder("words")
///     .field(Field::scalar("pos", ScalarType::String))
///     .field(Field::vector("emb", VectorType::Fp32, 2, Metric::L2))
///     .build()?;
/// let coll = Collection::create(dir.path(), schema, Default::default())?;
/// let cols = Columns::new(vec!["dog".into(), "run".into()])
///     .values("pos", vec!["n".into(), "v".into()])
///     .vectors("emb", vec![1.0, 0.0, 0.0, 1.0]);
/// assert!(coll.insert_columns(cols)?.iter().all(|r| r.is_ok()));
/// assert_eq!(coll.count(), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Columns {
    keys: Vec<String>,
    columns: Vec<(String, Column)>,
}

impl Columns {
    /// Rows with these keys and no field yet.
    pub fn new(keys: Vec<String>) -> Columns {
        Columns { keys, columns: Vec::new() }
    }

    /// Adds a vector field's rows as one flat array (`rows × dim`).
    pub fn vectors(mut self, field: impl Into<String>, data: Vec<f32>) -> Columns {
        self.columns.push((field.into(), Column::Vectors(data)));
        self
    }

    /// Adds a field's values, one per row.
    pub fn values(mut self, field: impl Into<String>, values: Vec<Value>) -> Columns {
        self.columns.push((field.into(), Column::Values(values)));
        self
    }

    /// Rows.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The rows as documents, in order: each the row's value of every column, or the
    /// reason its vector could not be made (an int8 field given 0.5). The columns' shape
    /// is checked first: each names a field of `schema` once, holds one value per key,
    /// and a vector column `rows × dim` numbers of a vector field.
    pub fn into_docs(self, schema: &Schema) -> Result<Vec<Result<Doc, DocError>>, Error> {
        let n = self.keys.len();
        let mut fields: Vec<(String, VectorType, usize)> = Vec::new();
        for (i, (name, column)) in self.columns.iter().enumerate() {
            if self.columns[..i].iter().any(|(other, _)| other == name) {
                return Err(bad(name, "given twice".into()));
            }
            let f = schema.index_of(name).ok_or_else(|| bad(name, "not a field of the collection".into()))?;
            let field = schema.field(f);
            let (len, expected) = match (column, &field.ty) {
                (Column::Vectors(data), FieldType::Vector(spec)) => {
                    fields.push((name.clone(), spec.elem, spec.dim as usize));
                    (data.len(), n * spec.dim as usize)
                }
                (Column::Vectors(_), ty) => {
                    return Err(bad(name, format!("holds vectors, but the field is {}", ty.name())));
                }
                (Column::Values(values), _) => (values.len(), n),
            };
            if len != expected {
                return Err(bad(name, format!("holds {len} values; {n} rows need {expected}")));
            }
        }
        let mut docs: Vec<Result<Doc, DocError>> = self.keys.into_iter().map(|k| Ok(Doc::new(k))).collect();
        for (name, column) in self.columns {
            match column {
                Column::Values(values) => {
                    for (doc, v) in docs.iter_mut().zip(values) {
                        if let Ok(d) = doc {
                            d.fields.insert(name.clone(), v);
                        }
                    }
                }
                Column::Vectors(data) => {
                    let &(_, elem, dim) = fields.iter().find(|f| f.0 == name).expect("checked above");
                    for (doc, xs) in docs.iter_mut().zip(data.chunks_exact(dim.max(1))) {
                        let Ok(d) = doc else { continue };
                        match Value::vector_from_f32s(elem, xs) {
                            Ok(v) => {
                                d.fields.insert(name.clone(), v);
                            }
                            Err(e) => *doc = Err(DocError::bad_value(&d.key, &name, e)),
                        }
                    }
                }
            }
        }
        Ok(docs)
    }
}

fn bad(column: &str, what: String) -> Error {
    DocError::BadColumn { column: column.to_string(), what }.into()
}

/// Writes of [`Columns`]: each row's result in its place, as the document writes give.
impl Collection {
    /// [`Collection::insert`] of rows given as columns.
    pub fn insert_columns(&self, columns: Columns) -> Result<Vec<ItemResult>, Error> {
        self.write_columns(columns, Collection::insert)
    }

    /// [`Collection::upsert`] of rows given as columns.
    pub fn upsert_columns(&self, columns: Columns) -> Result<Vec<ItemResult>, Error> {
        self.write_columns(columns, Collection::upsert)
    }

    /// [`Collection::update`] of rows given as columns.
    pub fn update_columns(&self, columns: Columns) -> Result<Vec<ItemResult>, Error> {
        self.write_columns(columns, Collection::update)
    }

    fn write_columns(
        &self,
        columns: Columns,
        write: fn(&Collection, Vec<Doc>) -> Result<Vec<ItemResult>, Error>,
    ) -> Result<Vec<ItemResult>, Error> {
        let rows = columns.into_docs(&self.schema())?;
        let mut out: Vec<ItemResult> = Vec::with_capacity(rows.len());
        let mut docs = Vec::with_capacity(rows.len());
        let mut places = Vec::with_capacity(rows.len());
        for (i, row) in rows.into_iter().enumerate() {
            match row {
                Ok(doc) => {
                    places.push(i);
                    docs.push(doc);
                    out.push(Ok(()));
                }
                Err(e) => out.push(Err(e)),
            }
        }
        for (place, r) in places.into_iter().zip(write(self, docs)?) {
            out[place] = r;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{Field, Metric, ScalarType};

    fn schema() -> Schema {
        Schema::builder("c")
            .field(Field::scalar("pos", ScalarType::String))
            .field(Field::vector("f", VectorType::Fp32, 2, Metric::L2))
            .field(Field::vector("q", VectorType::Int8, 2, Metric::L2).nullable(true))
            .build()
            .unwrap()
    }

    #[test]
    fn columns_become_the_documents_of_their_rows() {
        let cols = Columns::new(vec!["a".into(), "b".into()])
            .values("pos", vec!["n".into(), Value::Null])
            .vectors("f", vec![1.0, 2.0, 3.0, 4.0])
            .vectors("q", vec![1.0, -2.0, 0.5, 7.0]);
        let docs = cols.into_docs(&schema()).unwrap();
        let a = docs[0].as_ref().unwrap();
        assert_eq!(a.get("pos"), Some(&"n".into()));
        assert_eq!(a.get("f"), Some(&Value::VectorFp32(vec![1.0, 2.0])));
        assert_eq!(a.get("q"), Some(&Value::VectorInt8(vec![1, -2])));
        let b = docs[1].as_ref().unwrap_err();
        assert_eq!((b.key(), b.field()), (Some("b"), Some("q")), "0.5 is no int8: {b}");
    }

    #[test]
    fn a_column_of_the_wrong_shape_is_refused_by_name() {
        let two = || Columns::new(vec!["a".into(), "b".into()]);
        let cases = [
            (two().vectors("f", vec![1.0; 3]), "column `f`: holds 3 values; 2 rows need 4"),
            (two().values("pos", vec!["n".into()]), "column `pos`: holds 1 values; 2 rows need 2"),
            (two().vectors("pos", vec![1.0; 4]), "column `pos`: holds vectors, but the field is string"),
            (two().values("x", vec![]), "column `x`: not a field"),
            (two().values("pos", vec![Value::Null; 2]).values("pos", vec![Value::Null; 2]), "given twice"),
        ];
        for (cols, want) in cases {
            let err = cols.into_docs(&schema()).unwrap_err().to_string();
            assert!(err.contains(want), "{err} lacks {want}");
        }
    }

    #[test]
    fn a_write_of_columns_reports_each_row_in_its_place() {
        let dir = tempfile::tempdir().unwrap();
        let coll = Collection::create(dir.path(), schema(), Default::default()).unwrap();
        coll.insert(vec![Doc::new("b").set("pos", "v").set("f", vec![0.0f32, 0.0])]).unwrap();
        let cols = Columns::new(vec!["a".into(), "b".into(), "c".into()])
            .values("pos", vec!["n".into(), "n".into(), "n".into()])
            .vectors("f", vec![1.0, 1.0, 2.0, 2.0, 3.0, 3.0])
            .vectors("q", vec![1.0, 1.0, 2.0, 2.0, 0.5, 3.0]);
        let results = coll.insert_columns(cols).unwrap();
        assert!(results[0].is_ok());
        assert!(matches!(results[1], Err(DocError::DuplicateKey(_))), "{:?}", results[1]);
        assert!(matches!(results[2], Err(DocError::BadValue { .. })), "{:?}", results[2]);
        assert_eq!(coll.count(), 2);
        let update = Columns::new(vec!["b".into(), "zz".into()]).values("pos", vec!["x".into(), "y".into()]);
        let results = coll.update_columns(update).unwrap();
        assert!(results[0].is_ok() && matches!(results[1], Err(DocError::NotFound(_))));
        let up = Columns::new(vec!["d".into()]).values("pos", vec!["n".into()]).vectors("f", vec![4.0, 4.0]);
        assert!(coll.upsert_columns(up).unwrap()[0].is_ok());
        assert_eq!(coll.fetch(&["b"], None).unwrap()[0].as_ref().unwrap().get("pos"), Some(&"x".into()));
        assert_eq!(coll.count(), 3);
    }
}
