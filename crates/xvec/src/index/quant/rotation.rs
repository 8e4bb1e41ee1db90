//! A seeded random orthogonal rotation: rounds of (permute, flip signs, block Hadamard).
//!
//! Quantizing rotated vectors spreads each vector's energy evenly over the dimensions, so
//! one offset and scale per vector fit every coordinate. Each round is orthogonal, so
//! norms and inner products are preserved exactly (up to rounding). The signs and
//! permutations are stored in the index file; the seed only makes them reproducible.

use super::super::rng::SplitMix64;

const ROUNDS: usize = 3;

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Rotation {
    dim: usize,
    /// Per round: a permutation of 0..dim.
    perms: Vec<Vec<u32>>,
    /// Per round: +1 or -1 per dimension.
    signs: Vec<Vec<f32>>,
}

impl Rotation {
    pub(crate) fn new(dim: usize, seed: u64) -> Rotation {
        let mut rng = SplitMix64::new(seed ^ 0x0007_07A7_1000);
        let mut perms = Vec::with_capacity(ROUNDS);
        let mut signs = Vec::with_capacity(ROUNDS);
        for _ in 0..ROUNDS {
            let mut p: Vec<u32> = (0..dim as u32).collect();
            for i in (1..dim).rev() {
                p.swap(i, rng.below(i as u64 + 1) as usize);
            }
            perms.push(p);
            signs.push((0..dim).map(|_| if rng.next_u64() & 1 == 0 { 1.0 } else { -1.0 }).collect());
        }
        Rotation { dim, perms, signs }
    }

    /// Rotates `x` into `out` (both `dim` long); `tmp` is scratch.
    ///
    /// Rounds alternate between `out` and `tmp` rather than copying back: a round's
    /// scattered loads right after a bulk copy of the same bytes stall on store forwarding
    /// (it was a sixth of an insert's time).
    pub(crate) fn apply(&self, x: &[f32], out: &mut [f32], tmp: &mut Vec<f32>) {
        tmp.clear();
        tmp.resize(self.dim, 0.0);
        let permute = |src: &[f32], dst: &mut [f32], perm: &[u32], signs: &[f32]| {
            for ((o, &p), &s) in dst.iter_mut().zip(perm).zip(signs) {
                *o = src[p as usize] * s;
            }
            block_hadamard(dst);
        };
        for (r, (perm, signs)) in self.perms.iter().zip(&self.signs).enumerate() {
            match r {
                0 => permute(x, out, perm, signs),
                _ if !r.is_multiple_of(2) => permute(out, tmp, perm, signs),
                _ => permute(tmp, out, perm, signs),
            }
        }
        if self.perms.len().is_multiple_of(2) {
            out.copy_from_slice(tmp);
        }
    }

    /// Serialized form: for each round, `dim` u32 permutation entries then `dim` sign bytes.
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(ROUNDS * self.dim * 5 + 8);
        out.extend_from_slice(&(ROUNDS as u32).to_le_bytes());
        out.extend_from_slice(&(self.dim as u32).to_le_bytes());
        for (perm, signs) in self.perms.iter().zip(&self.signs) {
            perm.iter().for_each(|p| out.extend_from_slice(&p.to_le_bytes()));
            out.extend(signs.iter().map(|&s| if s > 0.0 { 1u8 } else { 0u8 }));
        }
        out
    }

    /// Parses and checks the serialized form (every round a permutation, signs 0/1).
    pub(crate) fn decode(bytes: &[u8], dim: usize) -> Result<Rotation, RotationError> {
        let err = |at: Option<usize>, what: String| Err(RotationError { at, what });
        if bytes.len() < 8 {
            return err(None, "rotation section shorter than its 8-byte header".into());
        }
        let rounds = u32::from_le_bytes(bytes[0..4].try_into().expect("4")) as usize;
        let d = u32::from_le_bytes(bytes[4..8].try_into().expect("4")) as usize;
        if d != dim || rounds == 0 || rounds > 16 || bytes.len() != 8 + rounds * dim * 5 {
            return err(
                Some(0),
                format!(
                    "rotation header says {rounds} rounds of dimension {d}; expected dimension {dim} and {} bytes",
                    8 + rounds * dim * 5
                ),
            );
        }
        let mut perms = Vec::with_capacity(rounds);
        let mut signs = Vec::with_capacity(rounds);
        let mut at = 8;
        for r in 0..rounds {
            let mut seen = vec![false; dim];
            let mut perm = Vec::with_capacity(dim);
            for i in 0..dim {
                let p = u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4")) as usize;
                if p >= dim || std::mem::replace(&mut seen[p], true) {
                    return err(Some(at), format!("rotation round {r}: entry {i} ({p}) breaks the permutation"));
                }
                at += 4;
                perm.push(p as u32);
            }
            let mut sg = Vec::with_capacity(dim);
            for i in 0..dim {
                sg.push(match bytes[at] {
                    1 => 1.0,
                    0 => -1.0,
                    other => return err(Some(at), format!("rotation round {r}: sign {i} is {other}, expected 0 or 1")),
                });
                at += 1;
            }
            perms.push(perm);
            signs.push(sg);
        }
        Ok(Rotation { dim, perms, signs })
    }
}

/// What [`Rotation::decode`] found wrong, and where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{what}")]
pub(crate) struct RotationError {
    /// Byte offset of the offending field in the serialized form; `None` when the bytes
    /// are too short to hold a header.
    pub at: Option<usize>,
    pub what: String,
}

/// Orthonormal Walsh-Hadamard transform on consecutive power-of-two blocks covering the
/// slice (largest first: 384 = 256 + 128).
fn block_hadamard(x: &mut [f32]) {
    let fwht = crate::kernels::best().fwht;
    let mut start = 0;
    while start < x.len() {
        let rest = x.len() - start;
        let block = 1usize << (usize::BITS - 1 - rest.leading_zeros());
        let b = &mut x[start..start + block];
        fwht(b);
        let norm = 1.0 / (block as f32).sqrt();
        b.iter_mut().for_each(|v| *v *= norm);
        start += block;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dot(a: &[f32], b: &[f32]) -> f64 {
        a.iter().zip(b).map(|(x, y)| *x as f64 * *y as f64).sum()
    }

    #[test]
    fn preserves_norms_and_inner_products() {
        for dim in [1, 2, 7, 33, 384, 1000] {
            let r = Rotation::new(dim, 5);
            let mut rng = SplitMix64::new(dim as u64);
            let x: Vec<f32> = (0..dim).map(|_| rng.next_unit() as f32 - 0.5).collect();
            let y: Vec<f32> = (0..dim).map(|_| rng.next_unit() as f32 - 0.5).collect();
            let (mut rx, mut ry, mut tmp) = (vec![0.0; dim], vec![0.0; dim], Vec::new());
            r.apply(&x, &mut rx, &mut tmp);
            r.apply(&y, &mut ry, &mut tmp);
            assert!((dot(&rx, &rx) - dot(&x, &x)).abs() < 1e-4 * dot(&x, &x), "dim {dim}");
            assert!((dot(&rx, &ry) - dot(&x, &y)).abs() < 1e-4 * (dot(&x, &x) * dot(&y, &y)).sqrt(), "dim {dim}");
            if dim >= 33 {
                assert!(rx != x, "dim {dim}: the rotation should move the vector");
            }
        }
    }

    /// Any number of rounds (a decoded rotation may have up to 16) applies them in order,
    /// each a signed permutation then the block Hadamard transform.
    #[test]
    fn applies_every_round_in_order() {
        let full = Rotation::new(100, 9);
        let x: Vec<f32> = (0..100).map(|i| (i as f32 * 0.37).sin()).collect();
        for rounds in 1..=ROUNDS {
            let r = Rotation { dim: 100, perms: full.perms[..rounds].to_vec(), signs: full.signs[..rounds].to_vec() };
            let mut want = x.clone();
            for (perm, signs) in r.perms.iter().zip(&r.signs) {
                let mut next: Vec<f32> = perm.iter().zip(signs).map(|(&p, &s)| want[p as usize] * s).collect();
                block_hadamard(&mut next);
                want = next;
            }
            let (mut got, mut tmp) = (vec![0.0; 100], vec![1.0; 7]);
            r.apply(&x, &mut got, &mut tmp);
            assert_eq!(got, want, "{rounds} rounds");
        }
    }

    #[test]
    fn spreads_a_spike() {
        let r = Rotation::new(384, 1);
        let mut x = vec![0.0; 384];
        x[7] = 1.0;
        let (mut out, mut tmp) = (vec![0.0; 384], Vec::new());
        r.apply(&x, &mut out, &mut tmp);
        let max = out.iter().fold(0.0f32, |m, v| m.max(v.abs()));
        assert!(max < 0.2, "largest coordinate {max} after rotating a unit spike");
    }

    #[test]
    fn encode_round_trip_and_rejects_damage() {
        let r = Rotation::new(33, 9);
        let bytes = r.encode();
        assert_eq!(Rotation::decode(&bytes, 33).unwrap(), r);
        assert!(Rotation::decode(&bytes, 32).is_err());
        let mut bad = bytes.clone();
        bad[8..12].copy_from_slice(&40u32.to_le_bytes());
        assert!(Rotation::decode(&bad, 33).unwrap_err().what.contains("permutation"));
        let mut bad = bytes.clone();
        let last = bad.len() - 1;
        bad[last] = 7;
        assert!(Rotation::decode(&bad, 33).unwrap_err().what.contains("sign"));
        for cut in 0..bytes.len() {
            assert!(Rotation::decode(&bytes[..cut], 33).is_err());
        }
    }
}
