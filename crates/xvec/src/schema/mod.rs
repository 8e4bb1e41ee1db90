//! Collection schema: field names, types, vector parameters and index choice.
//!
//! A schema is validated once, when it is built or parsed; every later stage (WAL,
//! segments, filters, queries) may rely on it being well-formed. The JSON form is what
//! `xvec create --schema FILE` reads and what the manifest stores.

mod evolve;
mod index;
mod json;
mod knobs;
mod resolve;
mod spec;
#[cfg(test)]
mod tests;
mod text;
mod types;

pub use evolve::FieldChange;
pub use index::{
    DEFAULT_DISK_BITS, DEFAULT_RABITQ_BITS, DiskParams, FlatParams, HnswParams, IndexParams, IndexType, IvfParams,
    MAX_NLIST, MAX_QG_DEGREE, MAX_RABITQ_BITS, QgBase, QgParams, QuantSpec, VamanaParams,
};
pub(crate) use json::RawSchema;
pub use knobs::{Knob, MAX_BEAM_WIDTH, MAX_EF, MAX_REFINE_CANDIDATES, SearchKnob};
pub use resolve::FieldKind;
pub use text::TextIndex;
pub(crate) use types::parse_name;
pub use types::{Metric, Quantize, ScalarIndexKind, ScalarType, SparseType, UnknownName, VectorType};

use serde::{Deserialize, Serialize};

use crate::error::SchemaError;

/// Largest dimension a vector field may have.
pub const MAX_DIM: u32 = 20_000;
/// Most vector fields one collection may have.
pub const MAX_VECTOR_FIELDS: usize = 5;
/// Most fields (scalar and vector) one collection may have.
pub const MAX_FIELDS: usize = 1024;
/// Most elements one array value may hold.
pub const MAX_ARRAY_LEN: usize = 4096;
/// Most nonzero dimensions one sparse vector may have.
pub const MAX_SPARSE_LEN: usize = 16_384;
/// Name of the pseudo-field that holds the primary key in filters and projections.
pub const KEY_FIELD: &str = "_key";

/// Parameters of a vector field.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VectorSpec {
    /// How each element is stored.
    pub elem: VectorType,
    /// Elements per vector, 1..=[`MAX_DIM`].
    pub dim: u32,
    /// How vectors are compared, and so what hit scores mean.
    pub metric: Metric,
    /// The index optimize builds for the field.
    pub index: IndexParams,
}

impl VectorSpec {
    /// Bytes one stored vector takes.
    pub fn row_bytes(&self) -> usize {
        self.dim as usize * self.elem.elem_size()
    }
}

/// The type of a field.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum FieldType {
    /// A filterable, returnable column.
    Scalar(ScalarType),
    /// A list of up to [`MAX_ARRAY_LEN`] non-null values of one scalar type per row
    /// (`array_string`, ...), filtered with `CONTAIN_ANY`, `CONTAIN_ALL` and
    /// `array_length`.
    Array(ScalarType),
    /// A searchable vector column.
    Vector(VectorSpec),
    /// A sparse vector per row (up to [`crate::MAX_SPARSE_LEN`] nonzero dimensions, each
    /// below 2^32), searched by inner product.
    Sparse(SparseType),
}

impl FieldType {
    /// The type's name in schema JSON (`int32`, `vector_fp32`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            FieldType::Scalar(s) => s.name(),
            FieldType::Array(s) => s.array_name(),
            FieldType::Vector(v) => v.elem.name(),
            FieldType::Sparse(s) => s.name(),
        }
    }

    /// Whether this is an array type.
    pub fn is_array(&self) -> bool {
        matches!(self, FieldType::Array(_))
    }

    /// How a column of this type is stored when it is stored as an array (offsets, then
    /// elements): an array's element type and most elements per row, or a sparse field's
    /// `uint64` words, one per nonzero dimension.
    pub(crate) fn array_storage(&self) -> Option<(ScalarType, usize)> {
        match self {
            FieldType::Array(s) => Some((*s, MAX_ARRAY_LEN)),
            FieldType::Sparse(_) => Some((ScalarType::Uint64, MAX_SPARSE_LEN)),
            _ => None,
        }
    }

    /// The scalar type of a scalar field's values or an array field's elements.
    pub fn element(&self) -> Option<ScalarType> {
        match self {
            FieldType::Scalar(s) | FieldType::Array(s) => Some(*s),
            FieldType::Vector(_) | FieldType::Sparse(_) => None,
        }
    }

    /// Whether a column of this type can change to `to` without rewriting: a scalar
    /// widening ([`ScalarType::widens_to`]), a scalar to its array type (each value a
    /// one-element array), or an array to the array of a widened element type.
    pub fn widens_to(&self, to: &FieldType) -> bool {
        match (self, to) {
            (FieldType::Scalar(a), FieldType::Scalar(b)) | (FieldType::Array(a), FieldType::Array(b)) => {
                a.widens_to(*b)
            }
            (FieldType::Scalar(a), FieldType::Array(b)) => a == b,
            _ => false,
        }
    }

    /// Default `json` of a field of this type, as the default of the field widened to
    /// `to` ([`FieldType::widens_to`]): a float becomes the double nearest the float it
    /// was, a scalar a one-element array.
    pub fn widen_default(&self, to: &FieldType, json: serde_json::Value) -> serde_json::Value {
        use serde_json::Value as Json;
        let to_double = self.element() == Some(ScalarType::Float) && to.element() == Some(ScalarType::Double);
        let widen = |x: Json| match x.as_f64() {
            Some(x) if to_double => serde_json::Number::from_f64(x as f32 as f64).map_or(Json::Null, Json::Number),
            _ => x,
        };
        match (self, json) {
            (FieldType::Scalar(_), d) if to.is_array() => Json::Array(vec![widen(d)]),
            (_, Json::Array(xs)) => Json::Array(xs.into_iter().map(widen).collect()),
            (_, d) => widen(d),
        }
    }

    /// The type named `name` in schema JSON and the admin tool, if it is a scalar or
    /// array type (vector types need a dimension and a metric besides).
    pub fn scalar_or_array(name: &str) -> Option<FieldType> {
        ScalarType::from_name(name)
            .map(FieldType::Scalar)
            .or_else(|| ScalarType::from_array_name(name).map(FieldType::Array))
    }
}

/// One field of a schema.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// `[A-Za-z_][A-Za-z0-9_]*`, at most 128 bytes, unique in the schema, not `_key`.
    pub name: String,
    /// What the field holds.
    pub ty: FieldType,
    /// Whether documents may leave the field unset (null).
    pub nullable: bool,
    /// The scalar indexes of a scalar field, sorted, each kind at most once; empty for a
    /// vector field (its index is [`VectorSpec::index`]).
    pub scalar_indexes: Vec<ScalarIndexKind>,
    /// The full-text index of a string field, searched by text queries and `MATCH`.
    pub text: Option<TextIndex>,
    /// A scalar field's value in documents that leave it unset, and in rows written
    /// before the field was added (JSON, checked against the type by [`Schema::new`]).
    pub default: Option<serde_json::Value>,
}

impl Field {
    /// A non-nullable scalar field.
    pub fn scalar(name: impl Into<String>, ty: ScalarType) -> Field {
        Field {
            name: name.into(),
            ty: FieldType::Scalar(ty),
            nullable: false,
            scalar_indexes: Vec::new(),
            text: None,
            default: None,
        }
    }

    /// A non-nullable array field of `elem` values.
    pub fn array(name: impl Into<String>, elem: ScalarType) -> Field {
        Field { ty: FieldType::Array(elem), ..Field::scalar(name, elem) }
    }

    /// A non-nullable sparse vector field (`sparse_fp32`, `sparse_fp16`).
    pub fn sparse(name: impl Into<String>, ty: SparseType) -> Field {
        Field { ty: FieldType::Sparse(ty), ..Field::scalar(name, ScalarType::Uint64) }
    }

    /// A non-nullable vector field with the default index ([`IndexParams::default`]).
    pub fn vector(name: impl Into<String>, elem: VectorType, dim: u32, metric: Metric) -> Field {
        Field {
            name: name.into(),
            ty: FieldType::Vector(VectorSpec { elem, dim, metric, index: IndexParams::default() }),
            nullable: false,
            scalar_indexes: Vec::new(),
            text: None,
            default: None,
        }
    }

    /// Sets [`Field::default`] (validated by [`Schema::new`]).
    pub fn default_value(mut self, default: serde_json::Value) -> Field {
        self.default = Some(default);
        self
    }

    /// Sets [`Field::nullable`].
    pub fn nullable(mut self, nullable: bool) -> Field {
        self.nullable = nullable;
        self
    }

    /// Sets the index of a vector field; no effect on scalar fields.
    pub fn index(mut self, index: IndexParams) -> Field {
        if let FieldType::Vector(v) = &mut self.ty {
            v.index = index;
        }
        self
    }

    /// Adds a scalar index of `kind` (validated by [`Schema::new`]: [`ScalarIndexKind::Range`]
    /// needs a numeric field, and vector fields take none).
    pub fn scalar_index(mut self, kind: ScalarIndexKind) -> Field {
        if let Err(at) = self.scalar_indexes.binary_search(&kind) {
            self.scalar_indexes.insert(at, kind);
        }
        self
    }

    /// Gives a string field a full-text index (validated by [`Schema::new`]: only string
    /// fields take one).
    pub fn text_index(mut self, index: TextIndex) -> Field {
        self.text = Some(index);
        self
    }

    /// Writes in a vector index's defaults that may change between builds.
    fn pin_defaults(&mut self) {
        if let FieldType::Vector(v) = &mut self.ty {
            v.index.pin_defaults();
        }
    }

    /// Whether the field carries a scalar index of `kind`.
    pub fn has_scalar_index(&self, kind: ScalarIndexKind) -> bool {
        self.scalar_indexes.contains(&kind)
    }

    /// The vector parameters, `None` for a scalar or array field.
    pub fn as_vector(&self) -> Option<&VectorSpec> {
        match &self.ty {
            FieldType::Vector(v) => Some(v),
            _ => None,
        }
    }

    /// The scalar type, `None` for a vector or array field.
    pub fn as_scalar(&self) -> Option<ScalarType> {
        match &self.ty {
            FieldType::Scalar(s) => Some(*s),
            _ => None,
        }
    }

    /// The element type of an array field, `None` for other fields.
    pub fn as_array(&self) -> Option<ScalarType> {
        match &self.ty {
            FieldType::Array(s) => Some(*s),
            _ => None,
        }
    }
}

/// A validated collection schema.
///
/// ```
/// use xvec::{Schema, Field, ScalarType, VectorType, Metric};
/// let schema = Schema::builder("words")
///     .field(Field::scalar("lemma", ScalarType::String))
///     .field(Field::scalar("n_lemmas", ScalarType::Int32).nullable(true))
///     .field(Field::vector("emb", VectorType::Fp32, 384, Metric::Cosine))
///     .build()
///     .unwrap();
/// assert_eq!(schema.vector_fields().count(), 1);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Schema {
    name: String,
    fields: Vec<Field>,
    /// Stable id of each field, beside it: WAL records, sections and index files name
    /// fields by id, so a field renamed or dropped later never shifts another's data.
    ids: Vec<u16>,
    /// The id the next added field takes; ids are never reused.
    next_field_id: u16,
}

/// Builds a [`Schema`]; [`SchemaBuilder::build`] validates it.
pub struct SchemaBuilder {
    name: String,
    fields: Vec<Field>,
}

impl SchemaBuilder {
    /// Appends a field; fields keep this order in the schema.
    pub fn field(mut self, field: Field) -> SchemaBuilder {
        self.fields.push(field);
        self
    }

    /// Validates the schema ([`Schema::new`]).
    pub fn build(self) -> Result<Schema, SchemaError> {
        Schema::new(self.name, self.fields)
    }
}

fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && name.len() <= 128
}

impl Schema {
    /// Starts a schema for a collection named `name` (1..=255 bytes, no `/`, `\`, NUL).
    pub fn builder(name: impl Into<String>) -> SchemaBuilder {
        SchemaBuilder { name: name.into(), fields: Vec::new() }
    }

    /// Validates and builds a schema, writing in the index defaults that may change
    /// between builds ([`IndexParams::pin_defaults`]).
    pub fn new(name: impl Into<String>, mut fields: Vec<Field>) -> Result<Schema, SchemaError> {
        fields.iter_mut().for_each(Field::pin_defaults);
        Schema::validated(name.into(), fields)
    }

    /// Validates and builds a schema as it is: stored schemas keep what they stored.
    fn validated(name: String, fields: Vec<Field>) -> Result<Schema, SchemaError> {
        if name.is_empty() || name.len() > 255 || name.contains(['/', '\\', '\0']) {
            return Err(SchemaError::BadCollectionName(name));
        }
        if fields.len() > MAX_FIELDS {
            return Err(SchemaError::TooManyFields(fields.len()));
        }
        let mut vectors = 0;
        for (i, f) in fields.iter().enumerate() {
            if !valid_name(&f.name) || f.name == KEY_FIELD {
                return Err(SchemaError::BadFieldName(f.name.clone()));
            }
            if fields[..i].iter().any(|g| g.name == f.name) {
                return Err(SchemaError::DuplicateField(f.name.clone()));
            }
            let sorted = f.scalar_indexes.windows(2).all(|w| w[0] < w[1]);
            for &kind in &f.scalar_indexes {
                let fits = kind.fits(&f.ty);
                if !fits || !sorted {
                    let what = match (&f.ty, sorted) {
                        (_, false) => "each scalar index kind may appear once".to_string(),
                        (FieldType::Vector(_), _) => "vector fields take a vector index, not a scalar one".into(),
                        (ty, _) => format!("a {} index needs a numeric scalar field, not {}", kind.name(), ty.name()),
                    };
                    return Err(SchemaError::BadIndex { field: f.name.clone(), what });
                }
            }
            if f.text.is_some() && f.ty != FieldType::Scalar(ScalarType::String) {
                let what = format!("a full-text (fts) index needs a string field, not {}", f.ty.name());
                return Err(SchemaError::BadIndex { field: f.name.clone(), what });
            }
            if let Some(d) = &f.default {
                let fits = match &f.ty {
                    FieldType::Scalar(ty) => ty.admits_json(d),
                    FieldType::Array(ty) => ty.admits_json_array(d),
                    FieldType::Vector(_) | FieldType::Sparse(_) => Err("vector fields take no default".to_string()),
                };
                fits.map_err(|what| SchemaError::BadDefault { field: f.name.clone(), what })?;
            }
            if let FieldType::Vector(v) = &f.ty {
                vectors += 1;
                if v.dim == 0 || v.dim > MAX_DIM {
                    return Err(SchemaError::BadDimension { field: f.name.clone(), dim: v.dim });
                }
                v.index.validate(&f.name, v)?;
            }
        }
        if vectors > MAX_VECTOR_FIELDS {
            return Err(SchemaError::TooManyVectorFields(vectors));
        }
        let ids: Vec<u16> = (0..fields.len() as u16).collect();
        Ok(Schema { name, next_field_id: ids.len() as u16, fields, ids })
    }

    /// A schema whose fields carry stored ids (from a manifest).
    pub(crate) fn with_ids(
        name: String,
        fields: Vec<Field>,
        ids: Vec<u16>,
        next_field_id: u16,
    ) -> Result<Schema, SchemaError> {
        let mut s = Schema::validated(name, fields)?;
        for (i, &id) in ids.iter().enumerate() {
            if id >= next_field_id || ids[..i].contains(&id) {
                return Err(SchemaError::BadFieldId { field: s.fields[i].name.clone(), id, next: next_field_id });
            }
        }
        s.ids = ids;
        s.next_field_id = next_field_id;
        Ok(s)
    }

    /// This schema with a scalar index of `kind` added to (or, with `add` false, dropped
    /// from) field `name`; every field keeps its id.
    pub(crate) fn with_scalar_index(
        &self,
        name: &str,
        kind: ScalarIndexKind,
        add: bool,
    ) -> Result<Schema, SchemaError> {
        let pos = self.index_of(name).ok_or_else(|| SchemaError::NoSuchField(name.to_string()))?;
        let mut fields = self.fields.clone();
        let f = &mut fields[pos];
        match (add, f.has_scalar_index(kind)) {
            (true, true) => return Err(SchemaError::IndexExists { field: f.name.clone(), kind: kind.name() }),
            (false, false) => return Err(SchemaError::NoSuchIndex { field: f.name.clone(), kind: kind.name() }),
            (true, false) => *f = f.clone().scalar_index(kind),
            (false, true) => f.scalar_indexes.retain(|&k| k != kind),
        }
        Schema::with_ids(self.name.clone(), fields, self.ids.clone(), self.next_field_id)
    }

    /// This schema with full-text index `text` added to field `name` (with `None`, its
    /// full-text index dropped); every field keeps its id.
    pub(crate) fn with_text_index(&self, name: &str, text: Option<TextIndex>) -> Result<Schema, SchemaError> {
        let pos = self.index_of(name).ok_or_else(|| SchemaError::NoSuchField(name.to_string()))?;
        let mut fields = self.fields.clone();
        let f = &mut fields[pos];
        match (&text, &f.text) {
            (Some(_), Some(_)) => return Err(SchemaError::IndexExists { field: f.name.clone(), kind: "fts" }),
            (None, None) => return Err(SchemaError::NoSuchIndex { field: f.name.clone(), kind: "fts" }),
            _ => f.text = text,
        }
        Schema::with_ids(self.name.clone(), fields, self.ids.clone(), self.next_field_id)
    }

    /// Stable id of the field at `pos`.
    pub fn field_id(&self, pos: usize) -> u16 {
        self.ids[pos]
    }

    /// The id the next added field takes.
    pub fn next_field_id(&self) -> u16 {
        self.next_field_id
    }

    /// Position of the field with stable id `id`, if the schema has it.
    pub fn position_of_id(&self, id: u16) -> Option<usize> {
        self.ids.iter().position(|&i| i == id)
    }

    /// The collection name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Every field, in schema order (the order positions count in).
    pub fn fields(&self) -> &[Field] {
        &self.fields
    }

    /// The field at position `idx`; panics when out of range.
    pub fn field(&self, idx: usize) -> &Field {
        &self.fields[idx]
    }

    /// Position of a field by name.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|f| f.name == name)
    }

    /// Vector fields with their positions.
    pub fn vector_fields(&self) -> impl Iterator<Item = (usize, &Field, &VectorSpec)> {
        self.fields.iter().enumerate().filter_map(|(i, f)| f.as_vector().map(|v| (i, f, v)))
    }
}
