//! Scalar attributes of the base rows, for `--filter`: the JSON Lines file beside the base
//! vectors (`base.jsonl` beside `base.fvecs`), one object per base row, in row order.
//!
//! Each key whose values are strings, integers, floats or booleans becomes a nullable
//! field of that type (integers and floats under one key: double); a row that lacks the
//! key or holds `null` has no value there. Arrays and objects are left out (the engine
//! has no array fields yet), and so is `row`, the row number some files carry.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value as Json;
use xvec::{Doc, Field, ScalarType, Value};

use crate::dataset::DatasetError;

/// The attribute file of a base vector file: the same path with the extension `jsonl`.
pub fn path_for(base_file: &Path) -> PathBuf {
    base_file.with_extension("jsonl")
}

/// The attributes of the first rows of a dataset, by field.
#[derive(Debug)]
pub struct Attributes {
    fields: Vec<(String, ScalarType)>,
    /// Per row, one value per field (`Value::Null` when absent).
    rows: Vec<Vec<Value>>,
}

/// One key's type as seen so far.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    String,
    Bool,
    Int,
    Float,
    /// Arrays or objects: not a field.
    Skipped,
}

impl Kind {
    fn of(v: &Json) -> Option<Kind> {
        match v {
            Json::Null => None,
            Json::String(_) => Some(Kind::String),
            Json::Bool(_) => Some(Kind::Bool),
            Json::Number(n) if n.is_i64() => Some(Kind::Int),
            Json::Number(_) => Some(Kind::Float),
            Json::Array(_) | Json::Object(_) => Some(Kind::Skipped),
        }
    }

    /// Both kinds under one key: numbers widen to float; anything else is a conflict.
    fn join(self, other: Kind) -> Option<Kind> {
        match (self, other) {
            (a, b) if a == b => Some(a),
            (Kind::Int, Kind::Float) | (Kind::Float, Kind::Int) => Some(Kind::Float),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Kind::String => "a string",
            Kind::Bool => "a boolean",
            Kind::Int => "an integer",
            Kind::Float => "a number",
            Kind::Skipped => "an array or object",
        }
    }
}

impl Attributes {
    /// Reads the attributes of rows `0..rows` from `path`, which must hold at least that
    /// many lines.
    pub fn read(path: &Path, rows: usize) -> Result<Attributes, DatasetError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| DatasetError::Io { file: file.clone(), source })?;
        let bad = |line: usize, message: String| DatasetError::Attributes { file: file.clone(), line, message };
        let mut objects = Vec::with_capacity(rows);
        let mut kinds: BTreeMap<String, Kind> = BTreeMap::new();
        for (i, text) in text.lines().take(rows).enumerate() {
            let line = i + 1;
            let object = match serde_json::from_str::<Json>(text) {
                Ok(Json::Object(o)) => o,
                Ok(_) => return Err(bad(line, "expected a JSON object".into())),
                Err(e) => return Err(bad(line, format!("column {}: {e}", e.column()))),
            };
            if let Some(row) = object.get("row").and_then(Json::as_u64)
                && row != i as u64
            {
                return Err(bad(line, format!("\"row\" is {row}, expected {i} (one line per base row, in order)")));
            }
            for (key, v) in object.iter().filter(|(k, _)| k.as_str() != "row") {
                let Some(kind) = Kind::of(v) else { continue };
                match kinds.get(key).copied() {
                    None => {
                        kinds.insert(key.clone(), kind);
                    }
                    Some(seen) => match seen.join(kind) {
                        Some(joined) => {
                            kinds.insert(key.clone(), joined);
                        }
                        None => {
                            let (seen, kind) = (seen.name(), kind.name());
                            return Err(bad(line, format!("\"{key}\" is {kind} here, {seen} on earlier lines")));
                        }
                    },
                }
            }
            objects.push(object);
        }
        if objects.len() < rows {
            return Err(bad(objects.len() + 1, format!("{} lines for {rows} base rows", objects.len())));
        }
        let fields: Vec<(String, ScalarType)> = (kinds.into_iter())
            .filter_map(|(key, kind)| {
                let ty = match kind {
                    Kind::String => ScalarType::String,
                    Kind::Bool => ScalarType::Bool,
                    Kind::Int => ScalarType::Int64,
                    Kind::Float => ScalarType::Double,
                    Kind::Skipped => return None,
                };
                Some((key, ty))
            })
            .collect();
        let rows = objects
            .into_iter()
            .map(|o| {
                let value = |(key, ty): &(String, ScalarType)| match (o.get(key), ty) {
                    (Some(Json::String(s)), ScalarType::String) => Value::String(s.clone()),
                    (Some(Json::Bool(b)), ScalarType::Bool) => Value::Bool(*b),
                    (Some(Json::Number(n)), ScalarType::Int64) => n.as_i64().map_or(Value::Null, Value::Int64),
                    (Some(Json::Number(n)), ScalarType::Double) => n.as_f64().map_or(Value::Null, Value::Double),
                    _ => Value::Null,
                };
                fields.iter().map(value).collect()
            })
            .collect();
        Ok(Attributes { fields, rows })
    }

    /// The schema fields the attributes fill, all nullable.
    pub fn schema_fields(&self) -> impl Iterator<Item = Field> + '_ {
        self.fields.iter().map(|(name, ty)| Field::scalar(name.as_str(), *ty).nullable(true))
    }

    /// Names and types, in field order.
    pub fn fields(&self) -> &[(String, ScalarType)] {
        &self.fields
    }

    /// `doc` with row `row`'s attribute values set.
    pub fn set(&self, row: usize, mut doc: Doc) -> Doc {
        for ((name, _), v) in self.fields.iter().zip(&self.rows[row]) {
            if *v != Value::Null {
                doc = doc.set(name.as_str(), v.clone());
            }
        }
        doc
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str, rows: usize) -> Result<Attributes, DatasetError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("base.jsonl");
        std::fs::write(&path, text).unwrap();
        Attributes::read(&path, rows)
    }

    #[test]
    fn types_are_inferred_and_missing_values_are_null() {
        let a = read(
            concat!(
                r#"{"row":0,"pos":"n","n":1,"w":0.5,"ok":true,"lemmas":["a"]}"#,
                "\n",
                r#"{"row":1,"pos":"v","n":2.5,"ok":null}"#,
                "\n",
                r#"{"row":2,"pos":"a"}"#,
                "\n"
            ),
            2,
        )
        .unwrap();
        let names: Vec<(&str, ScalarType)> = a.fields().iter().map(|(n, t)| (n.as_str(), *t)).collect();
        assert_eq!(
            names,
            [
                ("n", ScalarType::Double),
                ("ok", ScalarType::Bool),
                ("pos", ScalarType::String),
                ("w", ScalarType::Double)
            ]
        );
        assert_eq!(a.rows[1], [Value::Double(2.5), Value::Null, Value::String("v".into()), Value::Null]);
        let doc = a.set(1, Doc::new("1"));
        assert_eq!(doc.get("pos"), Some(&Value::String("v".into())));
        assert_eq!(doc.get("ok"), None);
    }

    #[test]
    fn bad_files_name_the_line() {
        let e = read("{\"pos\":\"n\"}\n{\"pos\":3}\n", 2).unwrap_err().to_string();
        assert!(e.ends_with("line 2: \"pos\" is an integer here, a string on earlier lines"), "{e}");
        let e = read("{\"pos\":\"n\"}\n{\"pos\":\n", 2).unwrap_err().to_string();
        assert!(e.contains("line 2: column"), "{e}");
        let e = read("[1]\n", 1).unwrap_err().to_string();
        assert!(e.ends_with("line 1: expected a JSON object"), "{e}");
        let e = read("{\"row\":0}\n{\"row\":5}\n", 2).unwrap_err().to_string();
        assert!(e.contains("line 2: \"row\" is 5, expected 1"), "{e}");
        let e = read("{\"row\":0}\n", 3).unwrap_err().to_string();
        assert!(e.ends_with("line 2: 1 lines for 3 base rows"), "{e}");
    }
}
