//! RaBitQ codes: `B` bits per dimension of a rotated row, with an unbiased estimator of the
//! inner product and a bound on its error (Gao & Long, SIGMOD 2024; the `B`-bit extension
//! of Gao et al., SIGMOD 2025).
//!
//! A row `y` (already rotated) is coded as the grid point `ū` closest in angle to it,
//! where every `ūᵢ` is a half-integer in `±{½, 3⁄2, …, (2^B − 1)/2}`: the top bit of the
//! stored code `uᵢ = ūᵢ + (2^B − 1)/2` is the sign of `yᵢ`, the bits below it the
//! magnitude. With `o = y / |y|` the estimate is
//!
//! `⟨y, q⟩ ≈ |y|² / ⟨ū, y⟩ · ⟨ū, q⟩ = rescale · (Σ uᵢ qᵢ − (2^B − 1)/2 · Σ qᵢ)`
//!
//! so a query scores a row with the same `Σ uᵢ qᵢ` kernels as INT8 and INT4 codes, plus
//! one multiply-add. The estimate's standard deviation, per `|y| |q|`, is about
//! `√((1 − α²) / (α² (D − 1)))` with `α = ⟨ū, o⟩ / |ū|` (0.80 at one bit, 0.9998 at 8);
//! [`RowFactors::error`] keeps it times `|y|`.
//!
//! The magnitudes come from one scale `t` per row: `|ūᵢ| = min(⌊t |oᵢ|⌋, 2^(B−1) − 1) + ½`,
//! with `t` picked on a coarse-then-fine grid to maximize `α` (within 1e-3 of an
//! exhaustive search). One bit needs no search: `ū = sign(y) / 2`.
//!
//! Storage (see [`Packing`]): one bit per dimension in u64 words (the layout of a
//! [`super::sketch`]'s sign bits, and the same bits: a graph index reads its one-bit codes
//! from its sketches), two dimensions per byte for 2–4 bits (the INT4 layout), or a byte
//! per dimension for 5–8 bits.

/// Most bits per dimension, sign included.
pub(crate) const MAX_BITS: u8 = crate::schema::MAX_RABITQ_BITS;

/// How a row's codes are laid out, by its bits per dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Packing {
    /// One bit: bit `i % 64` of u64 word `i / 64`, the words padded to whole ones.
    Bits,
    /// 2–4 bits: element `2j` in the low nibble of byte `j`, `2j + 1` in the high one.
    Nibbles,
    /// 5–8 bits: one byte per dimension.
    Bytes,
}

impl Packing {
    pub(crate) fn of(bits: u8) -> Packing {
        match bits {
            1 => Packing::Bits,
            2..=4 => Packing::Nibbles,
            _ => Packing::Bytes,
        }
    }
}

/// Bytes of one row's codes.
pub(crate) fn code_bytes(dim: usize, bits: u8) -> usize {
    match Packing::of(bits) {
        Packing::Bits => dim.div_ceil(64) * 8,
        Packing::Nibbles => dim.div_ceil(2),
        Packing::Bytes => dim,
    }
}

/// The offset between stored codes and the half-integer grid: `(2^B − 1) / 2`.
pub(crate) fn centre(bits: u8) -> f32 {
    ((1u32 << bits) - 1) as f32 / 2.0
}

/// What a row keeps beside its codes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct RowFactors {
    /// `|y|² / ⟨ū, y⟩`: turns `⟨ū, q⟩` into the estimate of `⟨y, q⟩`.
    pub rescale: f32,
    /// Standard deviation of the estimate per `|q|`: `|y| √((1 − α²) / (α² (D − 1)))`.
    pub error: f32,
}

/// Codes the rotated row `y` with `bits` per dimension into `u` (one code per dimension,
/// `0..2^bits`), and returns its factors.
pub(crate) fn encode(y: &[f32], bits: u8, u: &mut [u8]) -> RowFactors {
    debug_assert!((1..=MAX_BITS).contains(&bits) && u.len() == y.len());
    let norm_sq: f64 = y.iter().map(|&v| v as f64 * v as f64).sum();
    let half = 1u32 << (bits - 1);
    if norm_sq == 0.0 {
        // One bit: all clear, as the row's sketch.
        u.fill(if bits == 1 { 0 } else { half as u8 });
        return RowFactors { rescale: 0.0, error: 0.0 };
    }
    let norm = norm_sq.sqrt();
    let inv = (1.0 / norm) as f32;
    let t = if bits == 1 { 0.0 } else { best_scale(y, inv, bits) };
    let top = half - 1;
    // ⟨ū, y⟩ and |ū|² of the chosen codes.
    let (mut dot, mut len_sq) = (0f64, 0f64);
    for (c, &v) in u.iter_mut().zip(y) {
        let k = magnitude(t * v.abs() * inv, top);
        let m = k as f64 + 0.5;
        dot += m * v.abs() as f64;
        len_sq += m * m;
        // The sign a sketch keeps (`yᵢ > 0`) at one bit; a zero element's sign is free (it
        // adds nothing to `⟨ū, y⟩`).
        let positive = if bits == 1 { v > 0.0 } else { v >= 0.0 };
        *c = if positive { (half + k) as u8 } else { (top - k) as u8 };
    }
    let d = y.len() as f64;
    let alpha = dot / (len_sq.sqrt() * norm);
    let error =
        if d > 1.0 { norm * ((1.0 - alpha * alpha).max(0.0) / (alpha * alpha * (d - 1.0))).sqrt() } else { norm };
    RowFactors { rescale: (norm_sq / dot) as f32, error: error as f32 }
}

/// `⌊x⌋` capped at `top`, with a little slack so a value a rounding error below an
/// integer lands on it.
#[inline]
fn magnitude(x: f32, top: u32) -> u32 {
    ((x + 1e-5) as u32).min(top)
}

/// The scale `t` that maximizes `⟨ū, o⟩ / |ū|`, on a 48-point grid over the useful range
/// of `t · max |oᵢ|` (½ to the top magnitude plus 10, past which every large element is
/// clipped), refined on 24 points around the best.
fn best_scale(y: &[f32], inv: f32, bits: u8) -> f32 {
    let top = (1u32 << (bits - 1)) - 1;
    let max = y.iter().fold(0f32, |m, v| m.max(v.abs())) * inv;
    let cosine = |t: f32| {
        let (mut dot, mut len_sq) = (0f32, 0f32);
        for &v in y {
            let a = v.abs() * inv;
            let m = magnitude(t * a, top) as f32 + 0.5;
            dot += m * a;
            len_sq += m * m;
        }
        dot / len_sq.sqrt()
    };
    let (lo, hi) = (0.5 / max, (top as f32 + 10.0) / max);
    let search = |lo: f32, hi: f32, steps: usize| {
        let step = (hi - lo) / steps as f32;
        (0..=steps)
            .map(|i| lo + step * i as f32)
            .map(|t| (cosine(t), t))
            .fold((f32::MIN, lo), |b, c| if c.0 > b.0 { c } else { b })
    };
    let coarse = (hi - lo) / 48.0;
    let (_, t) = search(lo, hi, 48);
    search((t - coarse).max(lo), t + coarse, 24).1
}

/// Packs the codes `u` (`bits` each) into `out` (`code_bytes(u.len(), bits)` bytes).
pub(crate) fn pack(u: &[u8], bits: u8, out: &mut [u8]) {
    out.fill(0);
    match Packing::of(bits) {
        Packing::Bits => {
            for (i, &c) in u.iter().enumerate() {
                out[i / 8] |= c << (i % 8);
            }
        }
        Packing::Nibbles => {
            for (o, pair) in out.iter_mut().zip(u.chunks(2)) {
                *o = pair[0] | pair.get(1).map_or(0, |&h| h << 4);
            }
        }
        Packing::Bytes => out[..u.len()].copy_from_slice(u),
    }
}

/// `Σ qᵢ` over the dimensions whose bit is set (one-bit codes, full-precision query).
pub(crate) fn masked_sum_f32(q: &[f32], words: &[u64]) -> f32 {
    let mut sum = 0f32;
    for (w, chunk) in words.iter().zip(q.chunks(64)) {
        let mut bits = *w;
        while bits != 0 {
            let i = bits.trailing_zeros() as usize;
            sum += chunk.get(i).copied().unwrap_or(0.0);
            bits &= bits - 1;
        }
    }
    sum
}

/// The estimate of `⟨y, q⟩` from unpacked codes: the reference the packed kernels match.
#[cfg(test)]
pub(crate) fn estimate(u: &[u8], bits: u8, f: RowFactors, q: &[f32]) -> f32 {
    let c = centre(bits);
    f.rescale * u.iter().zip(q).map(|(&u, &q)| (u as f32 - c) * q).sum::<f32>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::rng::SplitMix64;

    fn gaussian(rng: &mut SplitMix64, dim: usize) -> Vec<f32> {
        // Sum of uniforms: close enough to normal for the estimator's statistics.
        (0..dim).map(|_| (0..6).map(|_| rng.next_unit() as f32 - 0.5).sum::<f32>()).collect()
    }

    fn dot(a: &[f32], b: &[f32]) -> f64 {
        a.iter().zip(b).map(|(x, y)| *x as f64 * *y as f64).sum()
    }

    #[test]
    fn codes_keep_the_sign_and_stay_in_range() {
        let mut rng = SplitMix64::new(1);
        let y = gaussian(&mut rng, 100);
        for bits in 1..=MAX_BITS {
            let mut u = vec![0u8; y.len()];
            encode(&y, bits, &mut u);
            let half = 1u16 << (bits - 1);
            for (&c, &v) in u.iter().zip(&y) {
                assert!((c as u16) < 2 * half, "bits {bits}: code {c}");
                if v != 0.0 {
                    assert_eq!(c as u16 >= half, v > 0.0, "bits {bits}: code {c} for {v}");
                }
            }
        }
    }

    /// The estimate is unbiased, its error shrinks by about half per bit, and the stored
    /// bound covers it about as often as a normal deviate's 1.9 σ would.
    #[test]
    fn estimates_are_unbiased_and_within_their_bound() {
        let (dim, rows) = (128, 300);
        let mut rng = SplitMix64::new(7);
        let q = gaussian(&mut rng, dim);
        let nq = dot(&q, &q).sqrt();
        let ys: Vec<Vec<f32>> = (0..rows).map(|_| gaussian(&mut rng, dim)).collect();
        let mut last_rms = f64::INFINITY;
        for bits in 1..=MAX_BITS {
            let (mut bias, mut sq, mut outside) = (0f64, 0f64, 0);
            for y in &ys {
                let mut u = vec![0u8; dim];
                let f = encode(y, bits, &mut u);
                let exact = dot(y, &q);
                let err = estimate(&u, bits, f, &q) as f64 - exact;
                let unit = dot(y, y).sqrt() * nq;
                bias += err / unit;
                sq += (err / unit).powi(2);
                outside += usize::from(err.abs() > 1.9 * f.error as f64 * nq);
            }
            let rms = (sq / rows as f64).sqrt();
            assert!((bias / rows as f64).abs() < 0.3 * rms, "bits {bits}: bias {bias} rms {rms}");
            assert!(rms < last_rms * 0.65, "bits {bits}: rms {rms} after {last_rms}");
            assert!(outside < rows / 8, "bits {bits}: {outside} of {rows} outside the bound");
            last_rms = rms;
        }
        assert!(last_rms < 0.002, "8 bits: rms {last_rms}");
    }

    /// The grid finds a scale within 1e-3 of the best over a fine exhaustive sweep.
    #[test]
    fn the_grid_scale_is_close_to_the_best() {
        let mut rng = SplitMix64::new(9);
        for bits in 2..=MAX_BITS {
            let y = gaussian(&mut rng, 96);
            let inv = 1.0 / dot(&y, &y).sqrt() as f32;
            let top = (1u32 << (bits - 1)) - 1;
            let alpha = |t: f32| {
                let ms: Vec<f32> = y.iter().map(|v| magnitude(t * v.abs() * inv, top) as f32 + 0.5).collect();
                let d: f32 = ms.iter().zip(&y).map(|(m, v)| m * v.abs() * inv).sum();
                d / ms.iter().map(|m| m * m).sum::<f32>().sqrt()
            };
            let max = y.iter().fold(0f32, |m, v| m.max(v.abs())) * inv;
            let best =
                (1..=20_000).map(|i| alpha(i as f32 * (top as f32 + 10.0) / max / 20_000.0)).fold(0f32, f32::max);
            let got = alpha(best_scale(&y, inv, bits));
            assert!(got > best - 1e-3, "bits {bits}: {got} vs {best}");
        }
    }

    #[test]
    fn packed_codes_hold_the_codes() {
        let u: Vec<u8> = (0..70).map(|i| (i * 37 % 256) as u8).collect();
        for bits in [1u8, 3, 4, 7] {
            let u: Vec<u8> = u.iter().map(|c| c & ((1u16 << bits) - 1) as u8).collect();
            let mut out = vec![0u8; code_bytes(u.len(), bits)];
            pack(&u, bits, &mut out);
            for (i, &c) in u.iter().enumerate() {
                let got = match Packing::of(bits) {
                    Packing::Bits => out[i / 8] >> (i % 8) & 1,
                    Packing::Nibbles => out[i / 2] >> (4 * (i % 2)) & 15,
                    Packing::Bytes => out[i],
                };
                assert_eq!(got, c, "bits {bits} element {i}");
            }
        }
        let q: Vec<f32> = (0..70).map(|i| i as f32 * 0.5 - 9.0).collect();
        let mut words = vec![0u64; 2];
        words[0] = 0b1011;
        words[1] = 1 << 5;
        assert_eq!(masked_sum_f32(&q, &words), q[0] + q[1] + q[3] + q[69]);
    }
}
