//! The fields a segment stores, as it stores them: each field's id, type and nullability
//! when the segment was written. A segment is read under a later schema through its
//! layout: a field the layout lacks reads as its default or NULL, one stored narrower is
//! widened, one the schema dropped is skipped (see `docs/format.md`, "Segment").

use super::SectionKind;
use crate::schema::{Field, FieldType, Metric, ScalarType, Schema, SparseType, VectorType};

/// A field's type as a segment stores it (a vector field's index is not part of it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StoredType {
    Scalar(ScalarType),
    /// Array offsets, then the elements as a scalar column of this type.
    Array(ScalarType),
    /// `norms`: the field keeps a norms section (cosine fields).
    Vector {
        elem: VectorType,
        dim: u32,
        norms: bool,
    },
    /// Array offsets, then one `u64` word per nonzero dimension (`index << 32 | value`).
    Sparse(SparseType),
}

impl StoredType {
    /// The stored form of a schema field's type.
    pub(crate) fn of(ty: &FieldType) -> StoredType {
        match ty {
            FieldType::Scalar(s) => StoredType::Scalar(*s),
            FieldType::Array(s) => StoredType::Array(*s),
            FieldType::Sparse(s) => StoredType::Sparse(*s),
            FieldType::Vector(v) => StoredType::Vector { elem: v.elem, dim: v.dim, norms: v.metric == Metric::Cosine },
        }
    }

    /// The type's code in the fields section (the WAL's value tags).
    fn code(self) -> u8 {
        let scalar = |s| ScalarType::ALL.iter().position(|&t| t == s).expect("every scalar type listed") as u8;
        match self {
            StoredType::Scalar(s) => scalar(s) + 1,
            StoredType::Vector { elem, .. } => {
                VECTORS.iter().position(|&t| t == elem).expect("every vector type listed") as u8 + 9
            }
            StoredType::Array(s) => scalar(s) + 12,
            StoredType::Sparse(s) => {
                SparseType::ALL.iter().position(|&t| t == s).expect("every sparse type listed") as u8 + 20
            }
        }
    }

    /// The element type of a column stored as offsets and elements: an array's, or a
    /// sparse field's words.
    pub(crate) fn array_elem(self) -> Option<ScalarType> {
        match self {
            StoredType::Array(s) => Some(s),
            StoredType::Sparse(_) => Some(ScalarType::Uint64),
            _ => None,
        }
    }
}

const VECTORS: [VectorType; 3] = [VectorType::Fp32, VectorType::Fp16, VectorType::Int8];

/// One stored field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StoredField {
    pub id: u16,
    pub ty: StoredType,
    pub nullable: bool,
}

/// Bytes of one fields-section entry: `id u16, type u8, flags u8, dim u32`.
pub(crate) const ENTRY_LEN: usize = 8;
const NULLABLE: u8 = 1;
const NORMS: u8 = 2;

/// The stored fields of one segment, in file order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    pub fields: Vec<StoredField>,
}

impl Layout {
    /// The layout a segment written under `schema` has: every field, in schema order.
    pub(crate) fn of(schema: &Schema) -> Layout {
        let fields = schema
            .fields()
            .iter()
            .enumerate()
            .map(|(pos, f)| StoredField { id: schema.field_id(pos), ty: StoredType::of(&f.ty), nullable: f.nullable })
            .collect();
        Layout { fields }
    }

    /// The schema this layout is the layout of, named after `current`: each stored field
    /// under its current name (a dropped one as `_dropped_<id>`), typed as stored. What
    /// verify and repair read a file under, so a repaired segment keeps its layout.
    pub(crate) fn schema_for(&self, current: &Schema) -> Result<Schema, crate::error::SchemaError> {
        let mut fields = Vec::with_capacity(self.fields.len());
        for f in &self.fields {
            let now = current.position_of_id(f.id).map(|p| current.field(p));
            let name = now.map_or_else(|| format!("_dropped_{}", f.id), |n| n.name.clone());
            let field = match f.ty {
                StoredType::Scalar(ty) => Field::scalar(name, ty),
                StoredType::Array(ty) => Field::array(name, ty),
                StoredType::Sparse(ty) => Field::sparse(name, ty),
                StoredType::Vector { elem, dim, norms } => {
                    let spec = now.and_then(|n| n.as_vector()).filter(|v| v.elem == elem && v.dim == dim);
                    let metric = match spec {
                        Some(v) if (v.metric == Metric::Cosine) == norms => v.metric,
                        _ if norms => Metric::Cosine,
                        _ => Metric::L2,
                    };
                    let field = Field::vector(name, elem, dim, metric);
                    match spec.filter(|v| v.metric == metric) {
                        Some(v) => field.index(v.index.clone()),
                        None => field,
                    }
                }
            };
            fields.push(field.nullable(f.nullable));
        }
        let ids: Vec<u16> = self.fields.iter().map(|f| f.id).collect();
        let next = ids.iter().map(|&i| i + 1).max().unwrap_or(0).max(current.next_field_id());
        Schema::with_ids(current.name().to_string(), fields, ids, next)
    }

    /// Position in the layout of the field with id `id`.
    pub(crate) fn position_of_id(&self, id: u16) -> Option<usize> {
        self.fields.iter().position(|f| f.id == id)
    }

    /// The fields section's bytes.
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.fields.len() * ENTRY_LEN);
        for f in &self.fields {
            let (flags, dim) = match f.ty {
                StoredType::Scalar(_) | StoredType::Array(_) | StoredType::Sparse(_) => (0, 0),
                StoredType::Vector { dim, norms, .. } => (if norms { NORMS } else { 0 }, dim),
            };
            out.extend_from_slice(&f.id.to_le_bytes());
            out.push(f.ty.code());
            out.push(flags | if f.nullable { NULLABLE } else { 0 });
            out.extend_from_slice(&dim.to_le_bytes());
        }
        out
    }

    /// Reads a fields section; the error names the entry and what is wrong with it.
    pub(crate) fn decode(bytes: &[u8]) -> Result<Layout, String> {
        if !bytes.len().is_multiple_of(ENTRY_LEN) {
            return Err(format!("fields section is {} bytes, not a multiple of {ENTRY_LEN}", bytes.len()));
        }
        let mut fields: Vec<StoredField> = Vec::with_capacity(bytes.len() / ENTRY_LEN);
        for (i, e) in bytes.chunks_exact(ENTRY_LEN).enumerate() {
            let id = u16::from_le_bytes([e[0], e[1]]);
            let (code, flags) = (e[2], e[3]);
            let dim = u32::from_le_bytes([e[4], e[5], e[6], e[7]]);
            let bad = |what: String| format!("fields entry {i} (field id {id}): {what}");
            if flags & !(NULLABLE | NORMS) != 0 {
                return Err(bad(format!("unknown flags {flags:#x}")));
            }
            let ty = match code {
                1..=8 if dim == 0 && flags & NORMS == 0 => StoredType::Scalar(ScalarType::ALL[code as usize - 1]),
                9..=11 if (1..=crate::schema::MAX_DIM).contains(&dim) => {
                    StoredType::Vector { elem: VECTORS[code as usize - 9], dim, norms: flags & NORMS != 0 }
                }
                12..=19 if dim == 0 && flags & NORMS == 0 => StoredType::Array(ScalarType::ALL[code as usize - 12]),
                20..=21 if dim == 0 && flags & NORMS == 0 => StoredType::Sparse(SparseType::ALL[code as usize - 20]),
                1..=21 => return Err(bad(format!("type {code} with dimension {dim} and flags {flags:#x}"))),
                other => return Err(bad(format!("unknown type code {other}; expected 1..=21"))),
            };
            if id == super::NO_FIELD || fields.iter().any(|f| f.id == id) {
                return Err(bad("id is repeated or reserved".into()));
            }
            fields.push(StoredField { id, ty, nullable: flags & NULLABLE != 0 });
        }
        Ok(Layout { fields })
    }

    /// Sections a segment of this layout holds, in file order, each with the field tag
    /// its entry carries and the layout position of its field. `by_id`: tags are field
    /// ids (version 3); version 1 and 2 files tag a field by its position.
    pub(crate) fn sections(&self, by_id: bool) -> Vec<PlannedSection> {
        let mut out = vec![PlannedSection::keys(SectionKind::Meta)];
        if by_id {
            out.push(PlannedSection::keys(SectionKind::Fields));
        }
        out.extend([SectionKind::KeyOffsets, SectionKind::KeyBytes, SectionKind::KeyOrder].map(PlannedSection::keys));
        for (pos, f) in self.fields.iter().enumerate() {
            let tag = if by_id { f.id } else { pos as u16 };
            let mut push = |kind| out.push(PlannedSection { kind, tag, field: Some(pos) });
            if f.nullable {
                push(SectionKind::Validity);
            }
            if f.ty.array_elem().is_some() {
                push(SectionKind::ArrayOffsets);
            }
            match f.ty {
                StoredType::Scalar(ScalarType::String) | StoredType::Array(ScalarType::String) => {
                    push(SectionKind::VarOffsets);
                    push(SectionKind::VarBytes);
                }
                StoredType::Scalar(_) | StoredType::Array(_) | StoredType::Sparse(_) => push(SectionKind::Fixed),
                StoredType::Vector { norms, .. } => {
                    push(SectionKind::Vectors);
                    if norms {
                        push(SectionKind::Norms);
                    }
                }
            }
        }
        out
    }
}

/// One section a layout plans.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PlannedSection {
    pub kind: SectionKind,
    /// What the section entry's field slot holds: [`super::NO_FIELD`], an id or a position.
    pub tag: u16,
    /// Layout position of the section's field; `None` for the meta, fields and key sections.
    pub field: Option<usize>,
}

impl PlannedSection {
    fn keys(kind: SectionKind) -> PlannedSection {
        PlannedSection { kind, tag: super::NO_FIELD, field: None }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_round_trip_and_bad_entries_are_named() {
        let schema = Schema::builder("t")
            .field(Field::scalar("s", ScalarType::String).nullable(true))
            .field(Field::scalar("d", ScalarType::Double))
            .field(Field::array("tags", ScalarType::String).nullable(true))
            .field(Field::array("ns", ScalarType::Uint64))
            .field(Field::vector("v", VectorType::Fp16, 12, Metric::Cosine).nullable(true))
            .build()
            .unwrap();
        let layout = Layout::of(&schema);
        let bytes = layout.encode();
        assert_eq!(bytes.len(), 5 * ENTRY_LEN);
        assert_eq!((bytes[2 * ENTRY_LEN + 2], bytes[3 * ENTRY_LEN + 2]), (12, 17));
        assert_eq!(Layout::decode(&bytes).unwrap(), layout);
        let mut bad = bytes.clone();
        bad[2] = 20;
        assert_eq!(Layout::decode(&bad).unwrap().fields[0].ty, StoredType::Sparse(SparseType::Fp32));
        bad[2] = 22;
        assert!(Layout::decode(&bad).unwrap_err().contains("unknown type code 22"));
        let mut bad = bytes.clone();
        bad[8..10].copy_from_slice(&0u16.to_le_bytes());
        assert!(Layout::decode(&bad).unwrap_err().contains("entry 1 (field id 0): id is repeated"));
        let mut bad = bytes.clone();
        bad[36..40].copy_from_slice(&0u32.to_le_bytes());
        assert!(Layout::decode(&bad).unwrap_err().contains("type 10 with dimension 0"));
        assert!(Layout::decode(&bytes[..7]).is_err());
    }

    #[test]
    fn type_codes_are_the_wal_value_tags() {
        // On disk: reordering `ScalarType::ALL` would change every stored code.
        let names: Vec<_> = ScalarType::ALL.iter().map(|s| (StoredType::Scalar(*s).code(), s.name())).collect();
        let expected = ["string", "bool", "int32", "int64", "uint32", "uint64", "float", "double"];
        assert_eq!(names, expected.iter().enumerate().map(|(i, n)| (i as u8 + 1, *n)).collect::<Vec<_>>());
        assert_eq!(StoredType::Array(ScalarType::String).code(), 12);
        assert_eq!(StoredType::Array(ScalarType::Double).code(), 19);
    }
}
