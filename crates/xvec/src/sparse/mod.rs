//! Sparse vectors: a few nonzero dimensions out of up to 2^32 (SPLADE, BM25 weights),
//! sorted by dimension, compared by inner product.
//!
//! A row of a sparse field is stored as one `u64` per nonzero dimension, `index << 32 |
//! value bits`, in an array column (offsets, then the words): dimensions ascend within a
//! row, so a stored row is already in the order the inner product merges in.

mod bm25_vocabulary;

use serde_json::Value as Json;

pub use bm25_vocabulary::{Bm25Vocabulary, VocabularyError};

pub use crate::schema::MAX_SPARSE_LEN;
use crate::schema::SparseType;

/// A sparse vector: strictly ascending dimensions, each with a finite value.
#[derive(Clone, Debug, PartialEq)]
pub struct SparseVector {
    indices: Vec<u32>,
    values: Vec<f32>,
}

impl SparseVector {
    /// The vector of `pairs` (dimension, value) in any order; refused when a dimension
    /// repeats, a value is not finite, or there are more than [`MAX_SPARSE_LEN`].
    pub fn new(pairs: impl IntoIterator<Item = (u32, f32)>) -> Result<SparseVector, String> {
        let mut pairs: Vec<(u32, f32)> = pairs.into_iter().collect();
        if pairs.len() > MAX_SPARSE_LEN {
            return Err(format!("{} nonzero dimensions; at most {MAX_SPARSE_LEN}", pairs.len()));
        }
        if let Some(&(i, v)) = pairs.iter().find(|p| !p.1.is_finite()) {
            return Err(format!("dimension {i} has the value {v}; values must be finite"));
        }
        pairs.sort_unstable_by_key(|p| p.0);
        if let Some(w) = pairs.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(format!("dimension {} appears twice", w[0].0));
        }
        Ok(SparseVector { indices: pairs.iter().map(|p| p.0).collect(), values: pairs.iter().map(|p| p.1).collect() })
    }

    /// Its dimensions, ascending.
    pub fn indices(&self) -> &[u32] {
        &self.indices
    }

    /// The value of each dimension, in the order of [`SparseVector::indices`].
    pub fn values(&self) -> &[f32] {
        &self.values
    }

    /// Nonzero dimensions.
    pub fn len(&self) -> usize {
        self.indices.len()
    }

    /// Whether it has no dimension.
    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }

    /// The inner product with `other`, summed in ascending dimension order.
    pub fn dot(&self, other: &SparseVector) -> f32 {
        dot_words(self, other.indices.iter().copied().zip(other.values.iter().copied())).unwrap_or(0.0)
    }

    /// This vector with its values as `ty` stores them (rounded to half precision for
    /// [`SparseType::Fp16`]).
    pub(crate) fn stored_as(mut self, ty: SparseType) -> SparseVector {
        if ty == SparseType::Fp16 {
            self.values.iter_mut().for_each(|v| *v = half::f16::from_f32(*v).to_f32());
        }
        self
    }

    /// Reads `{"indices": [...], "values": [...]}` or `{"<dimension>": value, ...}`.
    pub fn from_json(v: &Json) -> Result<SparseVector, String> {
        let obj = v.as_object().ok_or("a sparse vector: {\"indices\": [...], \"values\": [...]}")?;
        let index = |x: &Json, at: String| -> Result<u32, String> {
            x.as_u64().and_then(|i| u32::try_from(i).ok()).ok_or(format!("{at}: a dimension is an integer in 0..2^32"))
        };
        let value = |x: &Json, at: String| -> Result<f32, String> {
            let v = x.as_f64().ok_or(format!("{at}: a value is a number"))?;
            Ok(v as f32)
        };
        if obj.contains_key("indices") || obj.contains_key("values") {
            if let Some(k) = obj.keys().find(|k| *k != "indices" && *k != "values") {
                return Err(format!("unknown key `{k}`; a sparse vector has `indices` and `values`"));
            }
            let list = |k: &str| obj.get(k).and_then(Json::as_array).ok_or(format!("`{k}` must be an array"));
            let (is, vs) = (list("indices")?, list("values")?);
            if is.len() != vs.len() {
                return Err(format!("{} indices but {} values", is.len(), vs.len()));
            }
            if is.len() > MAX_SPARSE_LEN {
                return Err(format!("{} nonzero dimensions; at most {MAX_SPARSE_LEN}", is.len()));
            }
            let pairs = is
                .iter()
                .zip(vs)
                .enumerate()
                .map(|(n, (i, v))| Ok((index(i, format!("indices[{n}]"))?, value(v, format!("values[{n}]"))?)));
            return SparseVector::new(pairs.collect::<Result<Vec<_>, String>>()?);
        }
        if obj.len() > MAX_SPARSE_LEN {
            return Err(format!("{} nonzero dimensions; at most {MAX_SPARSE_LEN}", obj.len()));
        }
        let pairs = obj.iter().map(|(k, v)| {
            let i = k.parse::<u32>().map_err(|_| format!("key {k:?}: a dimension is an integer in 0..2^32"))?;
            Ok((i, value(v, format!("key {k:?}"))?))
        });
        SparseVector::new(pairs.collect::<Result<Vec<_>, String>>()?)
    }

    /// Its stored words, one per dimension.
    pub(crate) fn words(&self) -> impl Iterator<Item = u64> + '_ {
        self.indices.iter().zip(&self.values).map(|(&i, v)| (i as u64) << 32 | v.to_bits() as u64)
    }

    /// The vector stored as `words` (validated when the segment was opened or written).
    pub(crate) fn from_words(words: &[u64]) -> SparseVector {
        SparseVector {
            indices: words.iter().map(|&w| (w >> 32) as u32).collect(),
            values: words.iter().map(|&w| unpack_value(w)).collect(),
        }
    }
}

/// The value of a stored word.
#[inline]
pub(crate) fn unpack_value(w: u64) -> f32 {
    f32::from_bits(w as u32)
}

/// The inner product of `query` with a row given as (dimension, value) pairs in
/// ascending dimension order, summed in that order; `None` when they share no dimension.
pub(crate) fn dot_words(query: &SparseVector, row: impl Iterator<Item = (u32, f32)>) -> Option<f32> {
    let (qi, qv) = (&query.indices, &query.values);
    let (mut at, mut sum, mut shared) = (0usize, 0f32, false);
    for (i, v) in row {
        while at < qi.len() && qi[at] < i {
            at += 1;
        }
        if at == qi.len() {
            break;
        }
        if qi[at] == i {
            sum += qv[at] * v;
            shared = true;
        }
    }
    shared.then_some(sum)
}

/// Whether stored words form a valid row: dimensions strictly ascending, values finite.
pub(crate) fn valid_words(words: &[u64]) -> bool {
    words.len() <= MAX_SPARSE_LEN
        && words.windows(2).all(|w| w[0] >> 32 < w[1] >> 32)
        && words.iter().all(|&w| unpack_value(w).is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_both_json_forms_and_names_what_is_wrong() {
        let a = SparseVector::from_json(&serde_json::json!({"indices": [7, 2], "values": [0.5, 1.5]})).unwrap();
        assert_eq!((a.indices(), a.values()), (&[2, 7][..], &[1.5, 0.5][..]));
        let b = SparseVector::from_json(&serde_json::json!({"7": 0.5, "2": 1.5})).unwrap();
        assert_eq!(a, b);
        assert_eq!(SparseVector::from_json(&crate::Value::Sparse(a.clone()).to_json()).unwrap(), a);
        let err = |j| SparseVector::from_json(&j).unwrap_err();
        assert!(err(serde_json::json!({"indices": [1, 1], "values": [1, 2]})).contains("dimension 1 appears twice"));
        assert!(err(serde_json::json!({"indices": [1], "values": [1, 2]})).contains("1 indices but 2 values"));
        assert!(err(serde_json::json!({"indices": [-1], "values": [1]})).contains("indices[0]"));
        assert!(err(serde_json::json!({"indices": [4294967296u64], "values": [1]})).contains("0..2^32"));
        assert!(err(serde_json::json!({"x": 1})).contains("key \"x\""));
        assert!(err(serde_json::json!({"indices": [1], "values": [1], "w": 2})).contains("unknown key `w`"));
        assert!(err(serde_json::json!([1, 2])).contains("a sparse vector"));
        assert!(SparseVector::new([(1, f32::NAN)]).unwrap_err().contains("finite"));
        assert!(SparseVector::new((0..=MAX_SPARSE_LEN as u32).map(|i| (i, 1.0))).is_err());
    }

    #[test]
    fn inner_products_equal_a_dense_oracle_and_words_round_trip() {
        let a = SparseVector::new([(3, 2.0), (10, -1.0), (4_000_000_000, 0.5)]).unwrap();
        let b = SparseVector::new([(10, 4.0), (3, 1.0), (5, 9.0), (4_000_000_000, 2.0)]).unwrap();
        assert_eq!(a.dot(&b), 2.0 - 4.0 + 1.0, "2·1 − 1·4 + 0.5·2");
        assert_eq!(a.dot(&b), b.dot(&a));
        let words: Vec<u64> = a.words().collect();
        assert!(valid_words(&words));
        assert_eq!(SparseVector::from_words(&words), a);
        assert!(!valid_words(&[words[1], words[0]]), "dimensions must ascend");
        let half = SparseVector::new([(1, 0.1f32)]).unwrap().stored_as(SparseType::Fp16);
        assert_eq!(half.values()[0], half::f16::from_f32(0.1).to_f32());
    }
}
