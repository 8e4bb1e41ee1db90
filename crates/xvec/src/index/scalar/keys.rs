//! Order-preserving `u64` keys of fixed-width values: what inverted and range indexes sort
//! numbers and bools by, so one binary search serves every numeric type.

use crate::schema::ScalarType;
use crate::storage::column::{ColumnData, ScalarColumn};

const SIGN: u64 = 1 << 63;

/// The key of an integer inside its column type's range (signed types are offset by
/// 2^63 so that order is kept across zero).
pub(crate) fn int_key(ty: ScalarType, v: i128) -> u64 {
    match ty {
        ScalarType::Int32 | ScalarType::Int64 => (v as i64 as u64) ^ SIGN,
        _ => v as u64,
    }
}

/// The key of a float: IEEE bits with negatives reversed, so keys order as the values do;
/// `-0.0` takes `+0.0`'s key (they compare equal). `None` for NaN, which no comparison
/// matches and no index holds.
pub(crate) fn float_key(x: f64) -> Option<u64> {
    if x.is_nan() {
        return None;
    }
    let bits = if x == 0.0 { 0 } else { x.to_bits() };
    Some(if bits & SIGN != 0 { !bits } else { bits | SIGN })
}

/// Keys of the smallest and largest non-NaN floats (−∞ and +∞).
pub(crate) fn float_extremes() -> (u64, u64) {
    (float_key(f64::NEG_INFINITY).expect("not NaN"), float_key(f64::INFINITY).expect("not NaN"))
}

/// The value whose key is `key` in a column of type `ty` (not a string): what a facet of
/// an inverted index reads its values back from. A float's `-0.0` comes back `+0.0`.
pub(crate) fn value_of_key(ty: ScalarType, key: u64) -> crate::value::Value {
    use crate::value::Value;
    let float = || f64::from_bits(if key & SIGN != 0 { key & !SIGN } else { !key });
    match ty {
        ScalarType::Bool => Value::Bool(key != 0),
        ScalarType::Int32 => Value::Int32((key ^ SIGN) as i64 as i32),
        ScalarType::Int64 => Value::Int64((key ^ SIGN) as i64),
        ScalarType::Uint32 => Value::Uint32(key as u32),
        ScalarType::Uint64 => Value::Uint64(key),
        ScalarType::Float => Value::Float(float() as f32),
        ScalarType::Double => Value::Double(float()),
        ScalarType::String => Value::Null,
    }
}

/// The key of row `row` of a fixed-width column (`None` for a null, a NaN or a string).
#[inline]
pub(super) fn key_of(col: &ScalarColumn, row: usize) -> Option<u64> {
    if !col.validity.is_valid(row) {
        return None;
    }
    match col.data {
        ColumnData::Bool(d) => Some(u64::from(d[row] != 0)),
        ColumnData::Int32(d) => Some(int_key(ScalarType::Int32, d[row].into())),
        ColumnData::Int64(d) => Some(int_key(ScalarType::Int64, d[row].into())),
        ColumnData::Uint32(d) => Some(u64::from(d[row])),
        ColumnData::Uint64(d) => Some(d[row]),
        ColumnData::Float(d) => float_key(d[row].into()),
        ColumnData::Double(d) => float_key(d[row]),
        ColumnData::String(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_order_as_values() {
        let ints: Vec<i128> = vec![i64::MIN.into(), -5, -1, 0, 1, 7, i64::MAX.into()];
        let keys: Vec<u64> = ints.iter().map(|&v| int_key(ScalarType::Int64, v)).collect();
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "{keys:?}");
        let u: Vec<u64> = [0u64, 1, u64::MAX].iter().map(|&v| int_key(ScalarType::Uint64, v.into())).collect();
        assert!(u.windows(2).all(|w| w[0] < w[1]));
        let floats = [f64::NEG_INFINITY, -1e300, -2.5, -1e-300, 0.0, 1e-300, 3.0, f64::MAX, f64::INFINITY];
        let keys: Vec<u64> = floats.iter().map(|&x| float_key(x).unwrap()).collect();
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "{keys:?}");
        assert_eq!(float_key(-0.0), float_key(0.0));
        assert_eq!(float_key(f64::NAN), None);
        assert_eq!(float_extremes(), (keys[0], keys[keys.len() - 1]));
        for (&x, &k) in floats.iter().zip(&keys) {
            assert_eq!(value_of_key(ScalarType::Double, k), crate::value::Value::Double(x));
        }
        for v in [i64::MIN, -5, 0, 7, i64::MAX] {
            assert_eq!(
                value_of_key(ScalarType::Int64, int_key(ScalarType::Int64, v.into())),
                crate::value::Value::Int64(v)
            );
        }
        assert_eq!(value_of_key(ScalarType::Float, float_key(-2.5).unwrap()), crate::value::Value::Float(-2.5));
    }
}
