//! Collection schema: field names, types, vector parameters and index choice.
//!
//! A schema is validated once, when it is built or parsed; every later stage (WAL,
//! segments, filters, queries) may rely on it being well-formed. The JSON form is what
//! `xvec create --schema FILE` reads and what the manifest stores.

use serde::{Deserialize, Serialize};

use crate::error::SchemaError;

/// Largest dimension a vector field may have.
pub const MAX_DIM: u32 = 20_000;
/// Most vector fields one collection may have.
pub const MAX_VECTOR_FIELDS: usize = 5;
/// Most fields (scalar and vector) one collection may have.
pub const MAX_FIELDS: usize = 1024;
/// Name of the pseudo-field that holds the primary key in filters and projections.
pub const KEY_FIELD: &str = "_key";

/// Scalar column types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScalarType {
    String,
    Bool,
    Int32,
    Int64,
    Uint32,
    Uint64,
    Float,
    Double,
}

impl ScalarType {
    pub fn name(self) -> &'static str {
        match self {
            ScalarType::String => "string",
            ScalarType::Bool => "bool",
            ScalarType::Int32 => "int32",
            ScalarType::Int64 => "int64",
            ScalarType::Uint32 => "uint32",
            ScalarType::Uint64 => "uint64",
            ScalarType::Float => "float",
            ScalarType::Double => "double",
        }
    }

    /// Bytes per row of the fixed-width column, `None` for strings.
    pub fn width(self) -> Option<usize> {
        match self {
            ScalarType::String => None,
            ScalarType::Bool => Some(1),
            ScalarType::Int32 | ScalarType::Uint32 | ScalarType::Float => Some(4),
            ScalarType::Int64 | ScalarType::Uint64 | ScalarType::Double => Some(8),
        }
    }

    pub fn is_numeric(self) -> bool {
        !matches!(self, ScalarType::String | ScalarType::Bool)
    }
}

/// Element type of a vector field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum VectorType {
    #[serde(rename = "vector_fp32")]
    Fp32,
    #[serde(rename = "vector_fp16")]
    Fp16,
    #[serde(rename = "vector_int8")]
    Int8,
}

impl VectorType {
    pub fn name(self) -> &'static str {
        match self {
            VectorType::Fp32 => "vector_fp32",
            VectorType::Fp16 => "vector_fp16",
            VectorType::Int8 => "vector_int8",
        }
    }

    /// Bytes per element.
    pub fn elem_size(self) -> usize {
        match self {
            VectorType::Fp32 => 4,
            VectorType::Fp16 => 2,
            VectorType::Int8 => 1,
        }
    }
}

/// Similarity metric of a vector field.
///
/// Scores reported to users: `l2` is the squared Euclidean distance (lower is better),
/// `ip` the inner product (higher is better), `cosine` the cosine similarity (higher is
/// better). Results are always ordered best first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Metric {
    L2,
    Ip,
    Cosine,
}

impl Metric {
    pub fn name(self) -> &'static str {
        match self {
            Metric::L2 => "l2",
            Metric::Ip => "ip",
            Metric::Cosine => "cosine",
        }
    }

    /// True when a larger score is a better match.
    pub fn higher_is_better(self) -> bool {
        !matches!(self, Metric::L2)
    }
}

/// Representation of vectors inside an index (the originals stay in the segment).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Quantize {
    /// Score against the original vectors.
    #[default]
    None,
    /// IEEE half floats: 2 bytes per dimension.
    Fp16,
    /// 8-bit codes with a per-vector offset and scale: 1 byte per dimension.
    Int8,
    /// 4-bit codes, two per byte, per-vector offset and scale (even dimensions only).
    Int4,
}

impl Quantize {
    pub fn name(self) -> &'static str {
        match self {
            Quantize::None => "none",
            Quantize::Fp16 => "fp16",
            Quantize::Int8 => "int8",
            Quantize::Int4 => "int4",
        }
    }
}

/// Quantization settings shared by every index type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuantSpec {
    pub quantize: Quantize,
    /// Apply the seeded random orthogonal rotation before encoding.
    pub rotate: bool,
    /// Default re-rank factor: `refine × k` candidates are re-scored with the originals.
    pub refine: u32,
}

fn default_m() -> u32 {
    16
}
fn default_ef_construction() -> u32 {
    200
}
fn default_ef() -> u32 {
    64
}
fn default_seed() -> u64 {
    42
}
fn default_degree() -> u32 {
    64
}
fn default_build_list() -> u32 {
    100
}
fn default_query_list() -> u32 {
    200
}
fn default_alpha() -> f32 {
    1.2
}
fn default_occlusion() -> u32 {
    750
}

/// Exact search, over the originals or over quantized codes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct FlatParams {
    #[serde(default)]
    pub quantize: Quantize,
    /// Defaults to true for int8 and int4.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotate: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refine: Option<u32>,
}

/// Hierarchical navigable small world graph.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HnswParams {
    /// Edges per node on the upper layers; the base layer keeps `2 m`.
    #[serde(default = "default_m")]
    pub m: u32,
    /// Candidate list size while building.
    #[serde(default = "default_ef_construction")]
    pub ef_construction: u32,
    /// Default candidate list size while searching (a query may override it).
    #[serde(default = "default_ef")]
    pub ef: u32,
    /// Seed of level assignment and rotation: one thread + one seed = one graph.
    #[serde(default = "default_seed")]
    pub seed: u64,
    #[serde(default)]
    pub quantize: Quantize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotate: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refine: Option<u32>,
}

impl Default for HnswParams {
    fn default() -> Self {
        HnswParams {
            m: default_m(),
            ef_construction: default_ef_construction(),
            ef: default_ef(),
            seed: default_seed(),
            quantize: Quantize::None,
            rotate: None,
            refine: None,
        }
    }
}

/// Vamana (DiskANN) graph: one layer of bounded degree, built by greedy search and
/// alpha-relaxed robust prune.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VamanaParams {
    /// Most neighbours per node (R).
    #[serde(default = "default_degree")]
    pub degree: u32,
    /// Candidate list size while building (L).
    #[serde(default = "default_build_list")]
    pub build_list: u32,
    /// Default candidate list size while searching (a query's `ef` overrides it).
    #[serde(default = "default_query_list")]
    pub query_list: u32,
    /// Prune relaxation: a candidate survives unless a kept neighbour is `alpha` times
    /// closer to it than the node is (for L2 and cosine distances).
    #[serde(default = "default_alpha")]
    pub alpha: f32,
    /// Most candidates robust prune considers per node.
    #[serde(default = "default_occlusion")]
    pub occlusion: u32,
    /// Seed of the initial graph, insertion order and rotation: one seed = one graph.
    #[serde(default = "default_seed")]
    pub seed: u64,
    #[serde(default)]
    pub quantize: Quantize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotate: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refine: Option<u32>,
}

impl Default for VamanaParams {
    fn default() -> Self {
        VamanaParams {
            degree: default_degree(),
            build_list: default_build_list(),
            query_list: default_query_list(),
            alpha: default_alpha(),
            occlusion: default_occlusion(),
            seed: default_seed(),
            quantize: Quantize::None,
            rotate: None,
            refine: None,
        }
    }
}

/// Index built over a vector field. Grows with each index type the engine learns.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum IndexParams {
    /// Exact search over every stored vector (or its codes).
    Flat(FlatParams),
    /// Approximate search over an HNSW graph.
    Hnsw(HnswParams),
    /// Approximate search over a Vamana (DiskANN) graph.
    Vamana(VamanaParams),
}

impl Default for IndexParams {
    fn default() -> Self {
        IndexParams::Flat(FlatParams::default())
    }
}

impl IndexParams {
    pub fn name(&self) -> &'static str {
        match self {
            IndexParams::Flat(_) => "flat",
            IndexParams::Hnsw(_) => "hnsw",
            IndexParams::Vamana(_) => "vamana",
        }
    }

    /// Quantization with defaults resolved.
    pub fn quant(&self) -> QuantSpec {
        let (quantize, rotate, refine) = match self {
            IndexParams::Flat(p) => (p.quantize, p.rotate, p.refine),
            IndexParams::Hnsw(p) => (p.quantize, p.rotate, p.refine),
            IndexParams::Vamana(p) => (p.quantize, p.rotate, p.refine),
        };
        QuantSpec {
            quantize,
            rotate: rotate.unwrap_or(matches!(quantize, Quantize::Int8 | Quantize::Int4)),
            refine: refine.unwrap_or(0),
        }
    }

    /// True when optimize builds something for this field (a graph or codes).
    pub fn builds_index(&self) -> bool {
        !matches!(self, IndexParams::Flat(p) if p.quantize == Quantize::None)
    }

    /// Seed for randomized parts of the index (rotation, levels).
    pub fn seed(&self) -> u64 {
        match self {
            IndexParams::Flat(_) => default_seed(),
            IndexParams::Hnsw(p) => p.seed,
            IndexParams::Vamana(p) => p.seed,
        }
    }

    /// A compact description, e.g. `hnsw m=16 efc=200 ef=64 int8+rot refine=4`.
    pub fn describe(&self) -> String {
        let q = self.quant();
        let quant = match q.quantize {
            Quantize::None => String::new(),
            other => format!(" {}{}", other.name(), if q.rotate { "+rot" } else { "" }),
        };
        let refine = if q.refine > 0 { format!(" refine={}", q.refine) } else { String::new() };
        match self {
            IndexParams::Flat(_) => format!("flat{quant}{refine}"),
            IndexParams::Hnsw(p) => format!("hnsw m={} efc={} ef={}{quant}{refine}", p.m, p.ef_construction, p.ef),
            IndexParams::Vamana(p) => format!(
                "vamana degree={} build_list={} query_list={} alpha={} occlusion={}{quant}{refine}",
                p.degree, p.build_list, p.query_list, p.alpha, p.occlusion
            ),
        }
    }
}

/// Parameters of a vector field.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VectorSpec {
    pub elem: VectorType,
    pub dim: u32,
    pub metric: Metric,
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
pub enum FieldType {
    Scalar(ScalarType),
    Vector(VectorSpec),
}

impl FieldType {
    pub fn name(&self) -> &'static str {
        match self {
            FieldType::Scalar(s) => s.name(),
            FieldType::Vector(v) => v.elem.name(),
        }
    }
}

/// One field of a schema.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub name: String,
    pub ty: FieldType,
    pub nullable: bool,
}

impl Field {
    pub fn scalar(name: impl Into<String>, ty: ScalarType) -> Field {
        Field { name: name.into(), ty: FieldType::Scalar(ty), nullable: false }
    }

    pub fn vector(name: impl Into<String>, elem: VectorType, dim: u32, metric: Metric) -> Field {
        Field {
            name: name.into(),
            ty: FieldType::Vector(VectorSpec { elem, dim, metric, index: IndexParams::default() }),
            nullable: false,
        }
    }

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

    pub fn as_vector(&self) -> Option<&VectorSpec> {
        match &self.ty {
            FieldType::Vector(v) => Some(v),
            FieldType::Scalar(_) => None,
        }
    }

    pub fn as_scalar(&self) -> Option<ScalarType> {
        match &self.ty {
            FieldType::Scalar(s) => Some(*s),
            FieldType::Vector(_) => None,
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
    pub fn field(mut self, field: Field) -> SchemaBuilder {
        self.fields.push(field);
        self
    }

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

fn check_index(field: &str, v: &VectorSpec) -> Result<(), SchemaError> {
    let bad = |what: String| Err(SchemaError::BadIndex { field: field.to_string(), what });
    let q = v.index.quant();
    if q.quantize != Quantize::None && v.elem != VectorType::Fp32 {
        return bad(format!("quantize = {} needs a vector_fp32 field, not {}", q.quantize.name(), v.elem.name()));
    }
    if q.quantize == Quantize::Int4 && !v.dim.is_multiple_of(2) {
        return bad(format!("quantize = int4 needs an even dimension, not {}", v.dim));
    }
    if q.refine > 1000 {
        return bad(format!("refine {} is out of range; expected 0..=1000", q.refine));
    }
    if let IndexParams::Hnsw(p) = &v.index {
        if !(2..=512).contains(&p.m) {
            return bad(format!("m {} is out of range; expected 2..=512", p.m));
        }
        if !(1..=100_000).contains(&p.ef_construction) {
            return bad(format!("ef_construction {} is out of range; expected 1..=100000", p.ef_construction));
        }
        if !(1..=100_000).contains(&p.ef) {
            return bad(format!("ef {} is out of range; expected 1..=100000", p.ef));
        }
    }
    if let IndexParams::Vamana(p) = &v.index {
        if !(2..=1024).contains(&p.degree) {
            return bad(format!("degree {} is out of range; expected 2..=1024", p.degree));
        }
        if !(1..=100_000).contains(&p.build_list) {
            return bad(format!("build_list {} is out of range; expected 1..=100000", p.build_list));
        }
        if !(1..=100_000).contains(&p.query_list) {
            return bad(format!("query_list {} is out of range; expected 1..=100000", p.query_list));
        }
        if !(1.0..=4.0).contains(&p.alpha) {
            return bad(format!("alpha {} is out of range; expected 1.0..=4.0", p.alpha));
        }
        if !(p.degree..=100_000).contains(&p.occlusion) {
            return bad(format!(
                "occlusion {} is out of range; expected degree ({})..=100000 candidates",
                p.occlusion, p.degree
            ));
        }
    }
    Ok(())
}

impl Schema {
    pub fn builder(name: impl Into<String>) -> SchemaBuilder {
        SchemaBuilder { name: name.into(), fields: Vec::new() }
    }

    /// Validates and builds a schema.
    pub fn new(name: impl Into<String>, fields: Vec<Field>) -> Result<Schema, SchemaError> {
        let name = name.into();
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
            if let FieldType::Vector(v) = &f.ty {
                vectors += 1;
                if v.dim == 0 || v.dim > MAX_DIM {
                    return Err(SchemaError::BadDimension { field: f.name.clone(), dim: v.dim });
                }
                check_index(&f.name, v)?;
            }
        }
        if vectors > MAX_VECTOR_FIELDS {
            return Err(SchemaError::TooManyVectorFields(vectors));
        }
        let ids: Vec<u16> = (0..fields.len() as u16).collect();
        Ok(Schema { name, next_field_id: ids.len() as u16, fields, ids })
    }

    /// A schema whose fields carry stored ids (from a manifest).
    fn with_ids(name: String, fields: Vec<Field>, ids: Vec<u16>, next_field_id: u16) -> Result<Schema, SchemaError> {
        let mut s = Schema::new(name, fields)?;
        for (i, &id) in ids.iter().enumerate() {
            if id >= next_field_id || ids[..i].contains(&id) {
                return Err(SchemaError::BadFieldId { field: s.fields[i].name.clone(), id, next: next_field_id });
            }
        }
        s.ids = ids;
        s.next_field_id = next_field_id;
        Ok(s)
    }

    /// Stable id of the field at `pos`.
    pub fn field_id(&self, pos: usize) -> u16 {
        self.ids[pos]
    }

    /// Position of the field with stable id `id`, if the schema has it.
    pub fn position_of_id(&self, id: u16) -> Option<usize> {
        self.ids.iter().position(|&i| i == id)
    }

    /// The stored form, with field ids (what manifests hold).
    pub fn to_stored(&self) -> RawSchema {
        let mut raw = RawSchema::from(self);
        for (f, &id) in raw.fields.iter_mut().zip(&self.ids) {
            f.id = Some(id);
        }
        raw.next_field_id = Some(self.next_field_id);
        raw
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn fields(&self) -> &[Field] {
        &self.fields
    }

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

    /// Parses the JSON schema form (see `docs/format.md`).
    pub fn from_json(text: &str) -> Result<Schema, SchemaError> {
        let raw: RawSchema = serde_json::from_str(text).map_err(|e| SchemaError::Json(e.to_string()))?;
        raw.into_schema()
    }

    /// The JSON schema form, pretty-printed.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(&RawSchema::from(self)).expect("schema serializes")
    }

    pub fn to_raw(&self) -> RawSchema {
        RawSchema::from(self)
    }
}

/// Serialized schema, as written in schema files and manifests; [`RawSchema::into_schema`]
/// validates it.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawSchema {
    pub name: String,
    pub fields: Vec<RawField>,
    /// Stored schemas only: the id the next added field takes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_field_id: Option<u16>,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawField {
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<IndexParams>,
}

impl RawSchema {
    pub fn into_schema(self) -> Result<Schema, SchemaError> {
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
                    FieldType::Vector(VectorSpec { elem, dim, metric, index: f.index.unwrap_or_default() })
                }
                None => {
                    let scalar = match f.ty.as_str() {
                        "string" => ScalarType::String,
                        "bool" => ScalarType::Bool,
                        "int32" => ScalarType::Int32,
                        "int64" => ScalarType::Int64,
                        "uint32" => ScalarType::Uint32,
                        "uint64" => ScalarType::Uint64,
                        "float" => ScalarType::Float,
                        "double" => ScalarType::Double,
                        other => {
                            return Err(SchemaError::UnknownType { field: f.name, ty: other.to_string() });
                        }
                    };
                    if f.dim.is_some() || f.metric.is_some() || f.index.is_some() {
                        return Err(SchemaError::VectorOptionOnScalar(f.name));
                    }
                    FieldType::Scalar(scalar)
                }
            };
            fields.push(Field { name: f.name, ty, nullable: f.nullable });
        }
        match self.next_field_id {
            Some(next) => Schema::with_ids(self.name, fields, ids, next),
            None if ids.is_empty() => Schema::new(self.name, fields),
            None => Err(SchemaError::Json("field ids need `next_field_id`".into())),
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
                    let (dim, metric, index) = match &f.ty {
                        FieldType::Vector(v) => (Some(v.dim), Some(v.metric), Some(v.index.clone())),
                        FieldType::Scalar(_) => (None, None, None),
                    };
                    RawField {
                        id: None,
                        name: f.name.clone(),
                        ty: f.ty.name().to_string(),
                        nullable: f.nullable,
                        dim,
                        metric,
                        index,
                    }
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_round_trip() {
        let text = r#"{"name":"w","fields":[
            {"name":"lemma","type":"string"},
            {"name":"n","type":"int32","nullable":true},
            {"name":"emb","type":"vector_fp16","dim":8,"metric":"ip","index":{"type":"flat"}}]}"#;
        let s = Schema::from_json(text).unwrap();
        assert_eq!(s.fields().len(), 3);
        assert!(s.field(1).nullable);
        assert_eq!(Schema::from_json(&s.to_json()).unwrap(), s);
    }

    #[test]
    fn rejects_bad_schemas() {
        let bad = [
            (r#"{"name":"w","fields":[{"name":"v","type":"vector_fp32","dim":0,"metric":"l2"}]}"#, "dimension"),
            (r#"{"name":"w","fields":[{"name":"v","type":"vector_fp32","dim":20001,"metric":"l2"}]}"#, "dimension"),
            (r#"{"name":"w","fields":[{"name":"v","type":"vector_fp32","metric":"l2"}]}"#, "dim"),
            (r#"{"name":"w","fields":[{"name":"v","type":"text"}]}"#, "unknown type"),
            (r#"{"name":"w","fields":[{"name":"a","type":"bool"},{"name":"a","type":"bool"}]}"#, "twice"),
            (r#"{"name":"w","fields":[{"name":"_key","type":"bool"}]}"#, "field name"),
            (r#"{"name":"w","fields":[{"name":"a","type":"bool","dim":3}]}"#, "scalar"),
            (r#"{"name":"w","fields":[{"name":"a","type":"bool","extra":3}]}"#, "unknown field"),
        ];
        for (text, needle) in bad {
            let err = Schema::from_json(text).unwrap_err().to_string();
            assert!(err.contains(needle), "{text}: {err}");
        }
        let idx = |index: &str| {
            format!(
                r#"{{"name":"w","fields":[{{"name":"v","type":"vector_fp32","dim":3,"metric":"l2","index":{index}}}]}}"#
            )
        };
        for (index, needle) in [
            (r#"{"type":"hnsw","m":1}"#, "m 1 is out of range"),
            (r#"{"type":"hnsw","quantize":"int4"}"#, "even dimension"),
            (r#"{"type":"hnsw","bogus":1}"#, "unknown field"),
            (r#"{"type":"ivf"}"#, "unknown variant"),
            (r#"{"type":"flat","quantize":"int9"}"#, "unknown variant"),
        ] {
            let err = Schema::from_json(&idx(index)).unwrap_err().to_string();
            assert!(err.contains(needle), "{index}: {err}");
        }
        let s = Schema::from_json(&idx(r#"{"type":"hnsw","quantize":"int8"}"#)).unwrap();
        let spec = s.field(0).as_vector().unwrap();
        assert!(spec.index.quant().rotate);
        assert_eq!(spec.index.describe(), "hnsw m=16 efc=200 ef=64 int8+rot");
        assert_eq!(Schema::from_json(&s.to_json()).unwrap(), s);
        for (index, needle) in [
            (r#"{"type":"vamana","degree":1}"#, "degree 1 is out of range"),
            (r#"{"type":"vamana","build_list":0}"#, "build_list 0 is out of range"),
            (r#"{"type":"vamana","query_list":0}"#, "query_list 0 is out of range"),
            (r#"{"type":"vamana","alpha":0.9}"#, "alpha 0.9 is out of range"),
            (r#"{"type":"vamana","degree":32,"occlusion":16}"#, "occlusion 16 is out of range; expected degree (32)"),
            (r#"{"type":"vamana","quantize":"int4"}"#, "even dimension"),
            (r#"{"type":"vamana","m":16}"#, "unknown field"),
        ] {
            let err = Schema::from_json(&idx(index)).unwrap_err().to_string();
            assert!(err.contains(needle), "{index}: {err}");
        }
        let s = Schema::from_json(&idx(r#"{"type":"vamana","quantize":"int8","refine":4}"#)).unwrap();
        let spec = s.field(0).as_vector().unwrap();
        assert_eq!(
            spec.index,
            IndexParams::Vamana(VamanaParams { quantize: Quantize::Int8, refine: Some(4), ..Default::default() })
        );
        assert!(spec.index.builds_index());
        assert_eq!(
            spec.index.describe(),
            "vamana degree=64 build_list=100 query_list=200 alpha=1.2 occlusion=750 int8+rot refine=4"
        );
        assert_eq!(Schema::from_json(&s.to_json()).unwrap(), s);
        let six: Vec<Field> = (0..6).map(|i| Field::vector(format!("v{i}"), VectorType::Fp32, 4, Metric::L2)).collect();
        assert!(matches!(Schema::new("w", six), Err(SchemaError::TooManyVectorFields(6))));
    }
}
