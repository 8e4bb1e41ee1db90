//! The JSON form of a schema: what schema files and manifests hold, and its
//! validation into a [`Schema`].

use serde::{Deserialize, Serialize};

use super::{
    Field, FieldType, IndexParams, Metric, ScalarIndexKind, Schema, SparseType, TextIndex, VectorSpec, VectorType,
};
use crate::error::SchemaError;

impl Schema {
    /// The stored form, with field ids (what manifests hold).
    pub(crate) fn to_stored(&self) -> RawSchema {
        let mut raw = RawSchema::from(self);
        for (f, &id) in raw.fields.iter_mut().zip(&self.ids) {
            f.id = Some(id);
        }
        raw.next_field_id = Some(self.next_field_id);
        raw
    }

    /// Parses the JSON schema form (see `docs/format.md`).
    ///
    /// ```
    /// use xvec::{Metric, Schema};
    /// let schema = Schema::from_json(
    ///     r#"{"name": "words", "fields": [
    ///         {"name": "pos", "type": "string", "nullable": true},
    ///         {"name": "emb", "type": "vector_fp32", "dim": 3, "metric": "cosine"}
    ///     ]}"#,
    /// )?;
    /// assert_eq!(schema.field(1).as_vector().map(|v| v.metric), Some(Metric::Cosine));
    /// assert!(Schema::from_json(r#"{"name": "w", "fields": [{"name": "e", "type": "vector_fp32"}]}"#).is_err());
    /// # Ok::<(), xvec::SchemaError>(())
    /// ```
    pub fn from_json(text: &str) -> Result<Schema, SchemaError> {
        let raw: RawSchema = serde_json::from_str(text).map_err(|e| SchemaError::Json(e.to_string()))?;
        raw.into_schema()
    }

    /// The JSON schema form, pretty-printed; [`Schema::from_json`] reads it back.
    ///
    /// ```
    /// use xvec::{Field, Metric, Schema, VectorType};
    /// let schema = Schema::builder("docs").field(Field::vector("emb", VectorType::Fp16, 8, Metric::Ip)).build()?;
    /// let json = schema.to_json();
    /// assert!(json.contains(r#""type": "vector_fp16""#));
    /// assert_eq!(Schema::from_json(&json)?, schema);
    /// # Ok::<(), xvec::SchemaError>(())
    /// ```
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(&RawSchema::from(self)).expect("schema serializes")
    }
}

/// Serialized schema, as written in schema files and manifests; [`RawSchema::into_schema`]
/// validates it.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawSchema {
    pub name: String,
    pub fields: Vec<RawField>,
    /// Stored schemas only: the id the next added field takes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_field_id: Option<u16>,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawField {
    /// Stable field id; stored schemas carry it, schema files leave it out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<u16>,
    pub name: String,
    #[serde(rename = "type")]
    pub ty: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub nullable: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dim: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric: Option<Metric>,
    /// A vector field's index object; a scalar field's index object, or a list of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<serde_json::Value>,
    /// A scalar field's default value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<serde_json::Value>,
}

/// A scalar field's `index`: `{"type": "inverted"}`, `{"type": "range"}`,
/// `{"type": "fts", ...}` (string fields; see [`TextIndex`]), or a list of such objects.
fn scalar_indexes(
    field: &str,
    index: &serde_json::Value,
) -> Result<(Vec<ScalarIndexKind>, Option<TextIndex>), SchemaError> {
    let bad = |what: String| SchemaError::BadIndex { field: field.to_string(), what };
    let (mut kinds, mut text) = (Vec::new(), None);
    let mut one = |v: &serde_json::Value| {
        let obj = v
            .as_object()
            .ok_or_else(|| bad(format!("expected an object like {{\"type\": \"inverted\"}}, found {v}")))?;
        let name = obj.get("type").and_then(|t| t.as_str()).ok_or_else(|| bad("`type` is missing".into()))?;
        if name == "fts" {
            if text.is_some() {
                return Err(bad("a field takes one full-text (fts) index".into()));
            }
            text = Some(TextIndex::from_json(obj).map_err(bad)?);
            return Ok(());
        }
        if let Some(key) = obj.keys().find(|k| *k != "type") {
            return Err(bad(format!("unknown key `{key}`; a {name} index takes only `type`")));
        }
        let kind = ScalarIndexKind::from_name(name)
            .ok_or_else(|| bad(format!("unknown scalar index type {name:?}; expected inverted, range or fts")))?;
        kinds.push(kind);
        Ok(())
    };
    match index {
        serde_json::Value::Array(xs) => xs.iter().try_for_each(&mut one)?,
        v => one(v)?,
    }
    let n = kinds.len();
    kinds.sort_unstable();
    kinds.dedup();
    if kinds.len() != n {
        return Err(bad("each scalar index kind may appear once".into()));
    }
    Ok((kinds, text))
}

/// The JSON of a scalar field's indexes: one object, or a list for several.
fn scalar_indexes_json(kinds: &[ScalarIndexKind], text: Option<&TextIndex>) -> Option<serde_json::Value> {
    let mut all: Vec<serde_json::Value> = kinds.iter().map(|k| serde_json::json!({ "type": k.name() })).collect();
    all.extend(text.map(TextIndex::to_json));
    match all.len() {
        0 => None,
        1 => all.pop(),
        _ => Some(serde_json::Value::Array(all)),
    }
}

impl RawSchema {
    pub(crate) fn into_schema(self) -> Result<Schema, SchemaError> {
        let mut fields = Vec::with_capacity(self.fields.len());
        let ids: Vec<u16> = self.fields.iter().filter_map(|f| f.id).collect();
        if !ids.is_empty() && ids.len() != self.fields.len() {
            return Err(SchemaError::Json("either every field has an `id` or none has".into()));
        }
        for f in self.fields {
            let elem = match f.ty.as_str() {
                "vector_fp32" => Some(VectorType::Fp32),
                "vector_fp16" => Some(VectorType::Fp16),
                "vector_int8" => Some(VectorType::Int8),
                _ => None,
            };
            let ty = match elem {
                Some(elem) => {
                    let dim = f.dim.ok_or_else(|| SchemaError::Missing { field: f.name.clone(), what: "dim" })?;
                    let metric =
                        f.metric.ok_or_else(|| SchemaError::Missing { field: f.name.clone(), what: "metric" })?;
                    let index = match f.index {
                        None => IndexParams::default(),
                        Some(v) => serde_json::from_value(v)
                            .map_err(|e| SchemaError::BadIndex { field: f.name.clone(), what: e.to_string() })?,
                    };
                    (FieldType::Vector(VectorSpec { elem, dim, metric, index }), (Vec::new(), None))
                }
                None if SparseType::from_name(&f.ty).is_some() => {
                    if f.dim.is_some() || f.metric.is_some() || f.index.is_some() {
                        return Err(SchemaError::BadIndex {
                            field: f.name.clone(),
                            what: "a sparse field takes no dim, metric or index: it is searched by inner product"
                                .into(),
                        });
                    }
                    (FieldType::Sparse(SparseType::from_name(&f.ty).expect("checked")), (Vec::new(), None))
                }
                None => {
                    let Some(ty) = FieldType::scalar_or_array(&f.ty) else {
                        return Err(SchemaError::UnknownType { field: f.name, ty: f.ty });
                    };
                    if f.dim.is_some() || f.metric.is_some() {
                        return Err(SchemaError::VectorOptionOnScalar(f.name));
                    }
                    let indexes = f.index.as_ref().map(|v| scalar_indexes(&f.name, v)).transpose()?;
                    (ty, indexes.unwrap_or_default())
                }
            };
            let (ty, (scalar_indexes, text)) = ty;
            let nullable = f.nullable;
            fields.push(Field { name: f.name, ty, nullable, scalar_indexes, text, default: f.default });
        }
        match self.next_field_id {
            Some(next) => Schema::with_ids(self.name, fields, ids, next),
            None if ids.is_empty() => Schema::new(self.name, fields),
            None => Err(SchemaError::Json("field ids need `next_field_id`".into())),
        }
    }
}

impl Field {
    /// The field's `index` as schema JSON writes it: a vector field's index object, a
    /// scalar field's index object (or a list of them), or `None`.
    pub fn index_json(&self) -> Option<serde_json::Value> {
        match &self.ty {
            FieldType::Vector(v) => Some(serde_json::to_value(&v.index).expect("index params serialize")),
            FieldType::Scalar(_) | FieldType::Array(_) => scalar_indexes_json(&self.scalar_indexes, self.text.as_ref()),
            FieldType::Sparse(_) => None,
        }
    }
}

impl From<&Schema> for RawSchema {
    fn from(s: &Schema) -> RawSchema {
        RawSchema {
            next_field_id: None,
            name: s.name.clone(),
            fields: s
                .fields
                .iter()
                .map(|f| {
                    let (dim, metric) = match &f.ty {
                        FieldType::Vector(v) => (Some(v.dim), Some(v.metric)),
                        FieldType::Scalar(_) | FieldType::Array(_) | FieldType::Sparse(_) => (None, None),
                    };
                    let index = f.index_json();
                    RawField {
                        id: None,
                        name: f.name.clone(),
                        ty: f.ty.name().to_string(),
                        nullable: f.nullable,
                        dim,
                        metric,
                        index,
                        default: f.default.clone(),
                    }
                })
                .collect(),
        }
    }
}
