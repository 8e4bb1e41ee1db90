//! The short form of a field, as the admin tool's `create --field/--vector` and
//! `alter add-field` take it: `NAME:TYPE[:nullable]`, or `NAME:DIM:METRIC[:ELEM][:nullable]`
//! for a vector field. Parsed here, once, so every command reads a spec the same way.

use super::{Field, FieldType, Metric, SparseType, UnknownName, VectorType};
use crate::error::SchemaError;

/// Both forms, as error messages name them.
const FORMS: &str = "NAME:TYPE[:nullable] or NAME:DIM:METRIC[:fp32|fp16|int8][:nullable]";

impl Field {
    /// A field from its short form: `NAME:TYPE[:nullable]` (a scalar, array or sparse
    /// type as schema JSON names it) or `NAME:DIM:METRIC[:fp32|fp16|int8][:nullable]` (a
    /// vector field with the default index; the element type defaults to fp32). The
    /// field is not validated beyond its spec: [`Schema::new`](super::Schema::new) checks
    /// the name, the dimension's range and any default.
    ///
    /// ```
    /// use xvec::{Field, Metric, ScalarType};
    /// assert_eq!(Field::from_spec("note:string:nullable")?, Field::scalar("note", ScalarType::String).nullable(true));
    /// assert_eq!(Field::from_spec("emb:384:cosine")?.as_vector().map(|v| v.metric), Some(Metric::Cosine));
    /// assert!(Field::from_spec("emb:384").is_err());
    /// # Ok::<(), xvec::SchemaError>(())
    /// ```
    pub fn from_spec(spec: &str) -> Result<Field, SchemaError> {
        let bad = |what: String| SchemaError::BadFieldSpec { spec: spec.to_string(), what };
        let mut parts: Vec<&str> = spec.split(':').collect();
        let nullable = parts.len() > 2 && parts.last() == Some(&"nullable");
        if nullable {
            parts.pop();
        }
        let field = match parts.as_slice() {
            [name, dim, rest @ ..] if dim.starts_with(|c: char| c.is_ascii_digit()) => vector(name, dim, rest),
            [name, ty] => typed(name, ty),
            [_, ty, modifier, ..] if FieldType::scalar_or_array(ty).is_some() => {
                Err(format!("unknown modifier {modifier:?}; expected nullable"))
            }
            _ => Err(format!("expected {FORMS}")),
        };
        Ok(field.map_err(bad)?.nullable(nullable))
    }
}

/// `NAME:TYPE`: a scalar, array or sparse field.
fn typed(name: &str, ty: &str) -> Result<Field, String> {
    match FieldType::scalar_or_array(ty) {
        Some(FieldType::Array(elem)) => return Ok(Field::array(name, elem)),
        Some(FieldType::Scalar(ty)) => return Ok(Field::scalar(name, ty)),
        _ => {}
    }
    if let Some(ty) = SparseType::from_name(ty) {
        return Ok(Field::sparse(name, ty));
    }
    if ty.starts_with("vector_") {
        return Err(format!("a vector field needs a dimension and a metric: NAME:DIM:METRIC, e.g. {name}:384:cosine"));
    }
    Err(format!(
        "unknown type {ty:?}; expected string, bool, int32, int64, uint32, uint64, float, double, array_<one of those>, sparse_fp32, sparse_fp16, or DIM:METRIC for a vector field"
    ))
}

/// `NAME:DIM:METRIC[:ELEM]`: a vector field with the default index.
fn vector(name: &str, dim: &str, rest: &[&str]) -> Result<Field, String> {
    let (metric, elem) = match rest {
        [metric] => (metric, "fp32"),
        [metric, elem] => (metric, *elem),
        _ => {
            return Err(format!(
                "expected NAME:DIM:METRIC[:fp32|fp16|int8][:nullable], found {} parts",
                rest.len() + 2
            ));
        }
    };
    let dim: u32 = dim.parse().map_err(|_| format!("dimension {dim:?} is not a number"))?;
    let metric: Metric = metric.parse().map_err(|e: UnknownName| e.to_string())?;
    let elem = match elem {
        "fp32" => VectorType::Fp32,
        "fp16" => VectorType::Fp16,
        "int8" => VectorType::Int8,
        other => return Err(format!("unknown element type {other:?}; expected fp32, fp16 or int8")),
    };
    Ok(Field::vector(name, elem, dim, metric))
}

#[cfg(test)]
mod tests {
    use super::super::{ScalarType, VectorSpec};
    use super::*;

    fn what(spec: &str) -> String {
        match Field::from_spec(spec) {
            Err(SchemaError::BadFieldSpec { spec: s, what }) if s == spec => what,
            other => panic!("{spec}: {other:?}"),
        }
    }

    #[test]
    fn short_forms_parse_to_fields() {
        assert_eq!(Field::from_spec("n:int32").unwrap(), Field::scalar("n", ScalarType::Int32));
        assert_eq!(Field::from_spec("n:int32:nullable").unwrap(), Field::scalar("n", ScalarType::Int32).nullable(true));
        assert_eq!(Field::from_spec("tags:array_string").unwrap(), Field::array("tags", ScalarType::String));
        assert_eq!(Field::from_spec("s:sparse_fp16").unwrap(), Field::sparse("s", SparseType::Fp16));
        let v = Field::from_spec("emb:384:cosine:fp16:nullable").unwrap();
        assert_eq!(v, Field::vector("emb", VectorType::Fp16, 384, Metric::Cosine).nullable(true));
        let v = Field::from_spec("e:3:l2").unwrap();
        assert!(matches!(
            v.ty,
            FieldType::Vector(VectorSpec { elem: VectorType::Fp32, dim: 3, metric: Metric::L2, .. })
        ));
        assert!(Field::from_spec("e:3:ip:nullable").unwrap().nullable);
    }

    #[test]
    fn bad_specs_say_what_was_expected() {
        assert!(what("note").contains("expected NAME:TYPE[:nullable] or NAME:DIM:METRIC"));
        assert!(what("").contains("expected NAME:TYPE"));
        assert!(what("a:b:c").contains("expected NAME:TYPE"));
        assert!(what("note:string:maybe").contains("unknown modifier \"maybe\"; expected nullable"));
        assert!(what("n:text").contains("unknown type \"text\"; expected string, bool"));
        assert!(what("e:vector_fp32").contains("needs a dimension and a metric: NAME:DIM:METRIC, e.g. e:384:cosine"));
        assert!(what("e:3x:l2").contains("dimension \"3x\" is not a number"));
        assert!(what("e:99999999999:l2").contains("is not a number"));
        assert!(what("e:3:hamming").contains("unknown metric \"hamming\""));
        assert!(what("e:3:l2:fp64").contains("unknown element type \"fp64\"; expected fp32, fp16 or int8"));
        assert!(what("e:3:l2:fp32:extra").contains("found 5 parts"));
        assert!(what("e:3").contains("found 2 parts"));
        let e = Field::from_spec("n:text").unwrap_err().to_string();
        assert!(e.starts_with("field spec \"n:text\": unknown type"), "{e}");
    }
}
