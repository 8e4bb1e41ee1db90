//! Owned, growable columns: the memtable appends rows to them, and a segment read under
//! a newer schema than it was written with builds its added or widened columns in them.
//! Each lends the same borrowed views ([`VarColumn`], [`ColumnData`]) a mapped segment
//! does, so every reader sees one shape.

use super::{ColumnData, VarColumn};
use crate::schema::ScalarType;
use crate::value::Value;

/// Variable-length values, appended: offsets start at 0 and end at `bytes.len()`.
#[derive(Clone, Debug)]
pub(crate) struct VarBuf {
    offsets: Vec<u64>,
    bytes: Vec<u8>,
}

impl VarBuf {
    pub(crate) fn new() -> VarBuf {
        VarBuf { offsets: vec![0], bytes: Vec::new() }
    }

    pub(crate) fn push(&mut self, b: &[u8]) {
        self.bytes.extend_from_slice(b);
        self.offsets.push(self.bytes.len() as u64);
    }

    /// Values held.
    pub(crate) fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    pub(crate) fn view(&self) -> VarColumn<'_> {
        VarColumn::stored(&self.offsets, &self.bytes)
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        self.offsets.capacity() * 8 + self.bytes.capacity()
    }
}

/// The values of one scalar column (or the elements of an array column), owned.
#[derive(Clone, Debug)]
pub(crate) enum ColumnBuf {
    /// One byte per value, 0 or 1.
    Bool(Vec<u8>),
    Int32(Vec<i32>),
    Int64(Vec<i64>),
    Uint32(Vec<u32>),
    Uint64(Vec<u64>),
    Float(Vec<f32>),
    Double(Vec<f64>),
    String(VarBuf),
}

impl ColumnBuf {
    pub(crate) fn new(ty: ScalarType) -> ColumnBuf {
        match ty {
            ScalarType::String => ColumnBuf::String(VarBuf::new()),
            ScalarType::Bool => ColumnBuf::Bool(Vec::new()),
            ScalarType::Int32 => ColumnBuf::Int32(Vec::new()),
            ScalarType::Int64 => ColumnBuf::Int64(Vec::new()),
            ScalarType::Uint32 => ColumnBuf::Uint32(Vec::new()),
            ScalarType::Uint64 => ColumnBuf::Uint64(Vec::new()),
            ScalarType::Float => ColumnBuf::Float(Vec::new()),
            ScalarType::Double => ColumnBuf::Double(Vec::new()),
        }
    }

    /// Appends `v`, a value of this column's type; a null appends the zero value a null
    /// row holds. Rows are validated against the schema before they get here.
    pub(crate) fn push(&mut self, v: &Value) {
        match (self, v) {
            (ColumnBuf::Bool(d), Value::Bool(x)) => d.push(*x as u8),
            (ColumnBuf::Int32(d), Value::Int32(x)) => d.push(*x),
            (ColumnBuf::Int64(d), Value::Int64(x)) => d.push(*x),
            (ColumnBuf::Uint32(d), Value::Uint32(x)) => d.push(*x),
            (ColumnBuf::Uint64(d), Value::Uint64(x)) => d.push(*x),
            (ColumnBuf::Float(d), Value::Float(x)) => d.push(*x),
            (ColumnBuf::Double(d), Value::Double(x)) => d.push(*x),
            (ColumnBuf::String(d), Value::String(x)) => d.push(x.as_bytes()),
            (ColumnBuf::Bool(d), Value::Null) => d.push(0),
            (ColumnBuf::Int32(d), Value::Null) => d.push(0),
            (ColumnBuf::Int64(d), Value::Null) => d.push(0),
            (ColumnBuf::Uint32(d), Value::Null) => d.push(0),
            (ColumnBuf::Uint64(d), Value::Null) => d.push(0),
            (ColumnBuf::Float(d), Value::Null) => d.push(0.0),
            (ColumnBuf::Double(d), Value::Null) => d.push(0.0),
            (ColumnBuf::String(d), Value::Null) => d.push(b""),
            (d, v) => unreachable!("{} value in a {} column", v.type_name(), d.view().scalar_type().name()),
        }
    }

    /// `d` widened to `to`; `None` when that is no widening.
    pub(crate) fn widened(d: ColumnData, to: ScalarType) -> Option<ColumnBuf> {
        Some(match (d, to) {
            (ColumnData::Int32(d), ScalarType::Int64) => ColumnBuf::Int64(d.iter().map(|&x| x.into()).collect()),
            (ColumnData::Uint32(d), ScalarType::Uint64) => ColumnBuf::Uint64(d.iter().map(|&x| x.into()).collect()),
            (ColumnData::Uint32(d), ScalarType::Int64) => ColumnBuf::Int64(d.iter().map(|&x| x.into()).collect()),
            (ColumnData::Float(d), ScalarType::Double) => ColumnBuf::Double(d.iter().map(|&x| x.into()).collect()),
            _ => return None,
        })
    }

    /// Values held.
    pub(crate) fn len(&self) -> usize {
        self.view().len()
    }

    pub(crate) fn view(&self) -> ColumnData<'_> {
        match self {
            ColumnBuf::Bool(d) => ColumnData::Bool(d),
            ColumnBuf::Int32(d) => ColumnData::Int32(d),
            ColumnBuf::Int64(d) => ColumnData::Int64(d),
            ColumnBuf::Uint32(d) => ColumnData::Uint32(d),
            ColumnBuf::Uint64(d) => ColumnData::Uint64(d),
            ColumnBuf::Float(d) => ColumnData::Float(d),
            ColumnBuf::Double(d) => ColumnData::Double(d),
            ColumnBuf::String(d) => ColumnData::String(d.view()),
        }
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        match self {
            ColumnBuf::Bool(d) => d.capacity(),
            ColumnBuf::Int32(d) => d.capacity() * 4,
            ColumnBuf::Uint32(d) => d.capacity() * 4,
            ColumnBuf::Float(d) => d.capacity() * 4,
            ColumnBuf::Int64(d) => d.capacity() * 8,
            ColumnBuf::Uint64(d) => d.capacity() * 8,
            ColumnBuf::Double(d) => d.capacity() * 8,
            ColumnBuf::String(d) => d.heap_bytes(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nulls_hold_zeros_and_widening_keeps_values() {
        let mut b = ColumnBuf::new(ScalarType::Uint32);
        b.push(&Value::Uint32(u32::MAX));
        b.push(&Value::Null);
        assert_eq!(b.len(), 2);
        let wide = ColumnBuf::widened(b.view(), ScalarType::Int64).unwrap();
        assert!(matches!(wide.view(), ColumnData::Int64(&[x, 0]) if x == u32::MAX as i64));
        assert!(ColumnBuf::widened(b.view(), ScalarType::Int32).is_none());
        let mut s = ColumnBuf::new(ScalarType::String);
        s.push(&Value::String("ab".into()));
        s.push(&Value::Null);
        let ColumnData::String(v) = s.view() else { panic!("a string column") };
        assert_eq!((v.get_str(0), v.get_str(1), v.offsets.rows()), ("ab", "", 2));
    }
}
