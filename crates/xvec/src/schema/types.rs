//! Element, scalar, metric and quantization types: the small closed vocabularies a
//! schema is spelled in.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

pub use crate::vocabulary::UnknownName;
pub(crate) use crate::vocabulary::parse_name;

/// Scalar column types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ScalarType {
    /// UTF-8 text of any length, stored with offsets.
    String,
    /// True or false, one byte per row.
    Bool,
    /// Signed 32-bit integer.
    Int32,
    /// Signed 64-bit integer.
    Int64,
    /// Unsigned 32-bit integer.
    Uint32,
    /// Unsigned 64-bit integer.
    Uint64,
    /// 32-bit IEEE float.
    Float,
    /// 64-bit IEEE float.
    Double,
}

impl ScalarType {
    /// The type's name in schema JSON and filters (`int32`, `string`, ...).
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

    /// The name of the array field of this element type (`array_int32`, ...).
    pub fn array_name(self) -> &'static str {
        match self {
            ScalarType::String => "array_string",
            ScalarType::Bool => "array_bool",
            ScalarType::Int32 => "array_int32",
            ScalarType::Int64 => "array_int64",
            ScalarType::Uint32 => "array_uint32",
            ScalarType::Uint64 => "array_uint64",
            ScalarType::Float => "array_float",
            ScalarType::Double => "array_double",
        }
    }

    /// Every scalar type, in the order help texts list them. The order is also
    /// the on-disk one: a type's position + 1 is its WAL value tag and segment
    /// type code (`docs/format.md`), so it never changes.
    pub const ALL: [ScalarType; 8] = [
        ScalarType::String,
        ScalarType::Bool,
        ScalarType::Int32,
        ScalarType::Int64,
        ScalarType::Uint32,
        ScalarType::Uint64,
        ScalarType::Float,
        ScalarType::Double,
    ];

    /// Bytes per row of the fixed-width column, `None` for strings.
    pub fn width(self) -> Option<usize> {
        match self {
            ScalarType::String => None,
            ScalarType::Bool => Some(1),
            ScalarType::Int32 | ScalarType::Uint32 | ScalarType::Float => Some(4),
            ScalarType::Int64 | ScalarType::Uint64 | ScalarType::Double => Some(8),
        }
    }

    /// Whether `to` holds every value of this type exactly, so a column can change to it
    /// without rewriting: `int32` and `uint32` to `int64`, `uint32` to `uint64`, `float`
    /// to `double`.
    pub fn widens_to(self, to: ScalarType) -> bool {
        use ScalarType::*;
        matches!((self, to), (Int32, Int64) | (Uint32, Uint64) | (Uint32, Int64) | (Float, Double))
    }

    /// Whether a scalar index built over a column of this type answers for the column
    /// widened to `to`: every value keeps its index key (all widenings but `uint32` to
    /// `int64`, whose keys differ in the sign bit).
    pub fn keeps_index_keys(self, to: ScalarType) -> bool {
        self.widens_to(to) && !(self == ScalarType::Uint32 && to == ScalarType::Int64)
    }

    /// The type named `name` (`int32`, `string`, ...).
    pub fn from_name(name: &str) -> Option<ScalarType> {
        ScalarType::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The element type of the array type named `name` (`array_int32`, ...).
    pub fn from_array_name(name: &str) -> Option<ScalarType> {
        ScalarType::ALL.into_iter().find(|t| t.array_name() == name)
    }

    /// Checks that JSON value `v` is a value of this type (a default); the error says what
    /// the type takes.
    pub fn admits_json(self, v: &serde_json::Value) -> Result<(), String> {
        let int = v.as_i64().map(i128::from).or_else(|| v.as_u64().map(i128::from));
        let fits = match self {
            ScalarType::String => v.is_string(),
            ScalarType::Bool => v.is_boolean(),
            ScalarType::Int32 => int.is_some_and(|x| i32::try_from(x).is_ok()),
            ScalarType::Int64 => int.is_some_and(|x| i64::try_from(x).is_ok()),
            ScalarType::Uint32 => int.is_some_and(|x| u32::try_from(x).is_ok()),
            ScalarType::Uint64 => int.is_some_and(|x| u64::try_from(x).is_ok()),
            ScalarType::Float | ScalarType::Double => v.is_number(),
        };
        match fits {
            true => Ok(()),
            false => Err(format!("default {v} is not a {} value", self.name())),
        }
    }

    /// Checks that JSON value `v` is an array of values of this type (an array field's
    /// default), of at most [`crate::schema::MAX_ARRAY_LEN`] elements.
    pub fn admits_json_array(self, v: &serde_json::Value) -> Result<(), String> {
        let Some(xs) = v.as_array() else {
            return Err(format!("default {v} is not an array of {} values", self.name()));
        };
        if xs.len() > super::MAX_ARRAY_LEN {
            return Err(format!("default has {} elements; an array holds at most {}", xs.len(), super::MAX_ARRAY_LEN));
        }
        xs.iter().try_for_each(|x| self.admits_json(x))
    }

    /// Whether values compare as numbers (every type but `string` and `bool`).
    pub fn is_numeric(self) -> bool {
        !matches!(self, ScalarType::String | ScalarType::Bool)
    }
}

/// An index a scalar field may carry beside its column, one file per segment each: what
/// makes a selective filter on the field cost its matches instead of a scan of the column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ScalarIndexKind {
    /// Each distinct value with the rows holding it (`=`, `IN`, ranges over few values,
    /// `LIKE 'prefix%'`); any scalar type.
    Inverted,
    /// The rows sorted by value (ranges over many values); numeric types only.
    Range,
}

impl ScalarIndexKind {
    /// The kind's name in schema JSON (`{"type": "inverted"}`).
    pub fn name(self) -> &'static str {
        match self {
            ScalarIndexKind::Inverted => "inverted",
            ScalarIndexKind::Range => "range",
        }
    }

    /// The kind named `name` in schema JSON.
    pub fn from_name(name: &str) -> Option<ScalarIndexKind> {
        [ScalarIndexKind::Inverted, ScalarIndexKind::Range].into_iter().find(|k| k.name() == name)
    }

    /// Whether a field of type `ty` (an array's element type when `array`) can carry this
    /// index: inverted on every scalar and array type, range on numeric scalars.
    pub fn applies_to(self, ty: ScalarType, array: bool) -> bool {
        self == ScalarIndexKind::Inverted || (ty.is_numeric() && !array)
    }

    /// Whether a field of type `ty` can carry this index (no vector field can).
    pub fn fits(self, ty: &super::FieldType) -> bool {
        match ty {
            super::FieldType::Scalar(s) => self.applies_to(*s, false),
            super::FieldType::Array(s) => self.applies_to(*s, true),
            super::FieldType::Vector(_) | super::FieldType::Sparse(_) => false,
        }
    }
}

/// Element type of a vector field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub enum VectorType {
    /// 32-bit floats, 4 bytes per dimension.
    #[serde(rename = "vector_fp32")]
    Fp32,
    /// IEEE half floats, 2 bytes per dimension.
    #[serde(rename = "vector_fp16")]
    Fp16,
    /// Signed bytes, 1 byte per dimension (query vectors must be integers in -128..=127).
    #[serde(rename = "vector_int8")]
    Int8,
}

impl VectorType {
    /// The type's name in schema JSON (`vector_fp32`, ...).
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

/// Value type of a sparse vector field: `{"indices": [...], "values": [...]}` per row,
/// searched by inner product.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SparseType {
    /// 32-bit float values.
    Fp32,
    /// Values rounded to IEEE half floats on the way in.
    Fp16,
}

impl SparseType {
    /// Both types.
    pub const ALL: [SparseType; 2] = [SparseType::Fp32, SparseType::Fp16];

    /// The type's name in schema JSON.
    pub fn name(self) -> &'static str {
        match self {
            SparseType::Fp32 => "sparse_fp32",
            SparseType::Fp16 => "sparse_fp16",
        }
    }

    /// The type named `name`, if it is a sparse type.
    pub fn from_name(name: &str) -> Option<SparseType> {
        SparseType::ALL.into_iter().find(|t| t.name() == name)
    }
}

/// Similarity metric of a vector field.
///
/// Scores reported to users: `l2` is the squared Euclidean distance (lower is better),
/// `ip` the inner product (higher is better), `cosine` the cosine similarity (higher is
/// better). Results are always ordered best first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Metric {
    /// Squared Euclidean distance.
    L2,
    /// Inner product.
    Ip,
    /// Cosine similarity: the inner product of the normalized vectors.
    Cosine,
}

impl Metric {
    /// Every metric, in the order help texts list them.
    pub const ALL: [Metric; 3] = [Metric::L2, Metric::Ip, Metric::Cosine];

    /// The metric's name in schema JSON and flags (`l2`, `ip`, `cosine`).
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
#[non_exhaustive]
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
    /// RaBitQ codes of 1..=8 bits per dimension (the index's `bits`), with an unbiased
    /// distance estimate and a bound on its error.
    Rabitq,
}

impl Quantize {
    /// Every representation, in the order help texts list them.
    pub const ALL: [Quantize; 5] = [Quantize::None, Quantize::Fp16, Quantize::Int8, Quantize::Int4, Quantize::Rabitq];

    /// The representation's name in schema JSON and flags (`none`, `fp16`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Quantize::None => "none",
            Quantize::Fp16 => "fp16",
            Quantize::Int8 => "int8",
            Quantize::Int4 => "int4",
            Quantize::Rabitq => "rabitq",
        }
    }
}

impl FromStr for Metric {
    type Err = UnknownName;

    fn from_str(s: &str) -> Result<Metric, UnknownName> {
        parse_name("metric", &Metric::ALL, Metric::name, s)
    }
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Quantize {
    type Err = UnknownName;

    fn from_str(s: &str) -> Result<Quantize, UnknownName> {
        parse_name("quantization", &Quantize::ALL, Quantize::name, s)
    }
}

impl fmt::Display for Quantize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
