//! "The named field of this kind, or the only one": how a vector, text or sparse search,
//! inspect, the admin tool and the dashboard find the field they work on, with one error
//! family ([`FieldLookupError`]) naming the kind wanted and the fields there are.

use super::{Field, FieldType, Schema};
pub use crate::error::FieldKind;
use crate::error::FieldLookupError;

impl FieldKind {
    /// Whether `field` is of the kind.
    pub fn holds(self, field: &Field) -> bool {
        match self {
            FieldKind::Vector => matches!(field.ty, FieldType::Vector(_)),
            FieldKind::FullText => field.text.is_some(),
            FieldKind::Sparse => matches!(field.ty, FieldType::Sparse(_)),
        }
    }
}

impl Schema {
    /// The position of field `name` if it is of `kind`; without a name, the position of
    /// the schema's only field of `kind`.
    ///
    /// ```
    /// use xvec::{Field, FieldKind, FieldLookupError, Metric, ScalarType, Schema, VectorType};
    /// let schema = Schema::builder("w")
    ///     .field(Field::scalar("lemma", ScalarType::String))
    ///     .field(Field::vector("emb", VectorType::Fp32, 3, Metric::L2))
    ///     .build()?;
    /// assert_eq!(schema.resolve(FieldKind::Vector, None), Ok(1));
    /// let err = schema.resolve(FieldKind::Vector, Some("lemma")).unwrap_err();
    /// assert!(matches!(err, FieldLookupError::NoSuchField { ref candidates, .. } if candidates == &["emb"]));
    /// # Ok::<(), xvec::SchemaError>(())
    /// ```
    pub fn resolve(&self, kind: FieldKind, name: Option<&str>) -> Result<usize, FieldLookupError> {
        let of_kind = || (0..self.fields.len()).filter(move |&i| kind.holds(&self.fields[i]));
        let candidates = || of_kind().map(|i| self.fields[i].name.clone()).collect();
        match name {
            Some(n) => self.index_of(n).filter(|&i| kind.holds(&self.fields[i])).ok_or_else(|| {
                FieldLookupError::NoSuchField { name: n.to_string(), wanted: kind, candidates: candidates() }
            }),
            None => match (of_kind().next(), of_kind().nth(1)) {
                (Some(i), None) => Ok(i),
                (None, _) => Err(FieldLookupError::NoField { wanted: kind }),
                (Some(_), Some(_)) => Err(FieldLookupError::Ambiguous { wanted: kind, candidates: candidates() }),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Metric, ScalarType, SparseType, TextIndex, VectorType};
    use super::*;

    fn schema(fields: Vec<Field>) -> Schema {
        Schema::new("s", fields).unwrap()
    }

    #[test]
    fn the_named_field_or_the_only_one() {
        let text = Field::scalar("gloss", ScalarType::String).text_index(TextIndex::new(Default::default()));
        let s = schema(vec![
            Field::scalar("lemma", ScalarType::String),
            Field::vector("a", VectorType::Fp32, 2, Metric::L2),
            text,
            Field::sparse("sp", SparseType::Fp32),
            Field::vector("b", VectorType::Fp16, 2, Metric::Ip),
        ]);
        assert_eq!(s.resolve(FieldKind::Vector, Some("b")), Ok(4));
        assert_eq!(s.resolve(FieldKind::FullText, None), Ok(2));
        assert_eq!(s.resolve(FieldKind::Sparse, None), Ok(3));
        let ambiguous = s.resolve(FieldKind::Vector, None).unwrap_err();
        let both = vec!["a".to_string(), "b".to_string()];
        assert_eq!(ambiguous, FieldLookupError::Ambiguous { wanted: FieldKind::Vector, candidates: both.clone() });
        assert_eq!(ambiguous.to_string(), "the collection has 2 vector fields (a, b); name one");
        let wrong = s.resolve(FieldKind::Vector, Some("lemma")).unwrap_err();
        let expected =
            FieldLookupError::NoSuchField { name: "lemma".into(), wanted: FieldKind::Vector, candidates: both };
        assert_eq!(wrong, expected);
        assert_eq!(wrong.to_string(), "no vector field named `lemma`; the vector fields are a, b");
        let e = s.resolve(FieldKind::Sparse, Some("nope")).unwrap_err().to_string();
        assert_eq!(e, "no sparse vector field named `nope`; the sparse vector field is sp");
    }

    #[test]
    fn a_schema_without_the_kind_says_what_the_kind_needs() {
        let s = schema(vec![Field::scalar("lemma", ScalarType::String)]);
        let none = s.resolve(FieldKind::FullText, None).unwrap_err();
        assert_eq!(none, FieldLookupError::NoField { wanted: FieldKind::FullText });
        assert_eq!(none.to_string(), "the collection has no full-text field (a string field with an fts index)");
        let named = s.resolve(FieldKind::FullText, Some("lemma")).unwrap_err().to_string();
        assert_eq!(
            named,
            "no full-text field named `lemma`; the collection has none (a string field with an fts index)"
        );
    }
}
