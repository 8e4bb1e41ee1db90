//! Element, scalar, metric and quantization types: the small closed vocabularies a
//! schema is spelled in.

use serde::{Deserialize, Serialize};

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
