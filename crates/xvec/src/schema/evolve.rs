//! Field changes: a new schema from an old one and one change, every kept field keeping
//! its id, so data written under the old schema maps onto the new one by id (see
//! `docs/format.md`, "Field ids").

use super::{Field, FieldType, IndexParams, MAX_FIELDS, Schema};
use crate::error::SchemaError;

/// One change to a schema's fields.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum FieldChange {
    /// Adds a field at the end, with a new id. A non-nullable scalar field needs a
    /// default (what existing rows read as); a vector field must be nullable.
    Add(Field),
    /// Drops the field (name) and its indexes; its id is never used again.
    Drop(String),
    /// Renames field `from` to `to`.
    Rename {
        /// The field's name now.
        from: String,
        /// Its new name.
        to: String,
    },
    /// Changes a scalar or array field's type to a wider one ([`FieldType::widens_to`]).
    Widen {
        /// The field.
        field: String,
        /// Its new type.
        to: FieldType,
    },
    /// Changes a vector field's index: its kind, parameters or quantization. Each
    /// segment's index is rebuilt in the background; until it is, the segment is searched
    /// exactly (see `Collection::change_field`).
    SetIndex {
        /// The vector field.
        field: String,
        /// Its new index, checked against the field's element type and dimension.
        index: IndexParams,
    },
}

impl FieldChange {
    /// The field the change is about (its name before the change).
    pub fn field(&self) -> &str {
        match self {
            FieldChange::Add(f) => &f.name,
            FieldChange::Drop(name)
            | FieldChange::Rename { from: name, .. }
            | FieldChange::Widen { field: name, .. }
            | FieldChange::SetIndex { field: name, .. } => name,
        }
    }
}

impl Schema {
    /// This schema with `change` applied, validated like any schema.
    ///
    /// ```
    /// use xvec::{Field, FieldChange, FieldType, ScalarType, Schema};
    /// let s = Schema::builder("w").field(Field::scalar("n", ScalarType::Int32)).build()?;
    /// let s = s.changed(&FieldChange::Widen { field: "n".into(), to: FieldType::Scalar(ScalarType::Int64) })?;
    /// let s = s.changed(&FieldChange::Add(Field::scalar("tag", ScalarType::String).nullable(true)))?;
    /// assert_eq!((s.field_id(0), s.field_id(1)), (0, 1));
    /// let s = s.changed(&FieldChange::Drop("n".into()))?;
    /// assert_eq!((s.field(0).name.as_str(), s.field_id(0)), ("tag", 1));
    /// # Ok::<(), xvec::SchemaError>(())
    /// ```
    pub fn changed(&self, change: &FieldChange) -> Result<Schema, SchemaError> {
        let refuse = |what: String| SchemaError::BadChange { field: change.field().to_string(), what };
        let (mut fields, mut ids, mut next) = (self.fields.clone(), self.ids.clone(), self.next_field_id);
        let pos = || self.index_of(change.field()).ok_or_else(|| SchemaError::NoSuchField(change.field().to_string()));
        match change {
            FieldChange::Add(f) => {
                let mut f = f.clone();
                f.pin_defaults();
                let f = &f;
                if self.index_of(&f.name).is_some() {
                    return Err(SchemaError::DuplicateField(f.name.clone()));
                }
                match &f.ty {
                    FieldType::Vector(_) if !f.nullable => {
                        return Err(refuse(
                            "an added vector field must be nullable: the rows already written have no vector".into(),
                        ));
                    }
                    FieldType::Scalar(_) | FieldType::Array(_) if !f.nullable && f.default.is_none() => {
                        return Err(refuse(
                            "an added field needs a default or must be nullable: the rows already written have no value"
                                .into(),
                        ));
                    }
                    _ => {}
                }
                if fields.len() >= MAX_FIELDS {
                    return Err(SchemaError::TooManyFields(fields.len() + 1));
                }
                let id = next;
                next = next.checked_add(1).filter(|&n| n < u16::MAX).ok_or_else(|| {
                    refuse("every field id has been used; export and import into a new collection".into())
                })?;
                fields.push(f.clone());
                ids.push(id);
            }
            FieldChange::Drop(_) => {
                let at = pos()?;
                fields.remove(at);
                ids.remove(at);
            }
            FieldChange::Rename { to, .. } => {
                let at = pos()?;
                if self.index_of(to).is_some() {
                    return Err(SchemaError::DuplicateField(to.clone()));
                }
                fields[at].name = to.clone();
            }
            FieldChange::Widen { to, .. } => {
                let at = pos()?;
                let from = fields[at].ty.clone();
                if let FieldType::Vector(_) | FieldType::Sparse(_) = from {
                    return Err(refuse("a vector field's type cannot change".into()));
                }
                if !from.widens_to(to) {
                    return Err(refuse(format!(
                        "{} does not widen to {}; the widenings are int32 and uint32 to int64, uint32 to uint64, \
                         float to double (also between arrays of them), and each scalar type to its array type",
                        from.name(),
                        to.name()
                    )));
                }
                let (a, b) = (from.element().expect("not a vector"), to.element().expect("not a vector"));
                if !fields[at].scalar_indexes.iter().all(|&k| k.applies_to(b, to.is_array()))
                    || (a != b && !a.keeps_index_keys(b) && !fields[at].scalar_indexes.is_empty())
                {
                    return Err(refuse(format!(
                        "its scalar indexes do not serve a {} field as they are: drop them, widen, then add them again",
                        to.name()
                    )));
                }
                fields[at].ty = to.clone();
                fields[at].default = fields[at].default.take().map(|d| from.widen_default(to, d));
            }
            FieldChange::SetIndex { index, .. } => {
                let at = pos()?;
                let FieldType::Vector(v) = &mut fields[at].ty else {
                    return Err(refuse(format!(
                        "set-index takes a vector field, not a {} field; a scalar or text index is added with add-index",
                        fields[at].ty.name()
                    )));
                };
                v.index = index.clone();
                // Checked against the field (element type, dimension) with the schema.
                v.index.pin_defaults();
            }
        }
        Schema::with_ids(self.name.clone(), fields, ids, next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{Metric, ScalarType, VectorType};

    fn base() -> Schema {
        Schema::builder("t")
            .field(Field::scalar("a", ScalarType::Int32))
            .field(Field::scalar("b", ScalarType::String).nullable(true))
            .field(Field::vector("v", VectorType::Fp32, 4, Metric::L2))
            .build()
            .unwrap()
    }

    #[test]
    fn ids_survive_every_change_and_are_never_reused() {
        let s = base().changed(&FieldChange::Drop("b".into())).unwrap();
        let s = s.changed(&FieldChange::Add(Field::scalar("b", ScalarType::Bool).nullable(true))).unwrap();
        assert_eq!(s.fields().iter().map(|f| f.name.as_str()).collect::<Vec<_>>(), ["a", "v", "b"]);
        assert_eq!((0..3).map(|p| s.field_id(p)).collect::<Vec<_>>(), [0, 2, 3]);
        let s = s.changed(&FieldChange::Rename { from: "a".into(), to: "n".into() }).unwrap();
        assert_eq!((s.field(0).name.as_str(), s.field_id(0)), ("n", 0));
        let back = s.to_stored().into_schema().unwrap();
        assert_eq!(back, s);
    }

    #[test]
    fn refused_changes_say_why() {
        let s = base();
        let err = |c: FieldChange| s.changed(&c).unwrap_err().to_string();
        assert!(err(FieldChange::Add(Field::scalar("c", ScalarType::Int32))).contains("needs a default"));
        assert!(err(FieldChange::Add(Field::vector("w", VectorType::Fp32, 4, Metric::L2))).contains("nullable"));
        assert!(err(FieldChange::Add(Field::scalar("a", ScalarType::Int32).nullable(true))).contains("twice"));
        assert!(
            err(FieldChange::Add(Field::scalar("c", ScalarType::Int32).default_value(serde_json::json!("x"))))
                .contains("not a int32 value")
        );
        assert!(err(FieldChange::Drop("zz".into())).contains("no field `zz`"));
        assert!(err(FieldChange::Rename { from: "a".into(), to: "b".into() }).contains("twice"));
        assert!(err(FieldChange::Rename { from: "a".into(), to: "_key".into() }).contains("bad field name"));
        assert!(
            err(FieldChange::Widen { field: "a".into(), to: FieldType::Scalar(ScalarType::Float) })
                .contains("does not widen")
        );
        assert!(
            err(FieldChange::Widen { field: "v".into(), to: FieldType::Scalar(ScalarType::Double) }).contains("vector")
        );
        let ok = s.changed(&FieldChange::Add(Field::scalar("c", ScalarType::Int32).default_value(7.into()))).unwrap();
        assert_eq!(ok.field(3).default, Some(7.into()));
        let to = |ty| FieldChange::Widen { field: "c".into(), to: ty };
        let arr = ok.changed(&to(FieldType::Array(ScalarType::Int32))).unwrap();
        assert_eq!(arr.field(3).default, Some(serde_json::json!([7])));
        let wide = arr.changed(&to(FieldType::Array(ScalarType::Int64))).unwrap();
        assert_eq!(wide.field(3).ty, FieldType::Array(ScalarType::Int64));
        // 0.1 as a float is not 0.1 as a double: the widened default is the value the
        // float column held.
        let f = s.changed(&FieldChange::Add(Field::scalar("c", ScalarType::Float).default_value(0.1.into()))).unwrap();
        let d = f.changed(&to(FieldType::Scalar(ScalarType::Double))).unwrap();
        assert_eq!(d.field(3).default, Some(serde_json::json!(0.1f32 as f64)));
        let fa = f.changed(&to(FieldType::Array(ScalarType::Float))).unwrap();
        let da = fa.changed(&to(FieldType::Array(ScalarType::Double))).unwrap();
        assert_eq!(da.field(3).default, Some(serde_json::json!([0.1f32 as f64])));
        assert!(
            arr.changed(&to(FieldType::Scalar(ScalarType::Int32))).unwrap_err().to_string().contains("does not widen")
        );
        let ranged = ok.with_scalar_index("c", crate::schema::ScalarIndexKind::Range, true).unwrap();
        let e = ranged.changed(&to(FieldType::Array(ScalarType::Int32))).unwrap_err().to_string();
        assert!(e.contains("drop them"), "{e}");
    }
}
