//! Distance kernels: the inner loops that score one vector against another.
//!
//! This module owns every distance computation on raw slices: `f32` vectors, `f16` stored rows
//! scored against an `f32` query, `i8` quantised vectors, `u8` and packed 4-bit codes scored
//! against an `f32` query, `u8` codes against an `i8` query, a four-query batch form for
//! exact scans, blocks of 4-bit codes against lookup tables, and the Walsh–Hadamard transform that rotates vectors before quantization; and [`prefetch_lines`], a cache hint for the row scored next. A [`Kernels`] table is one complete set of these for one instruction set: [`scalar()`]
//! is the plain-loop oracle, [`best()`] the fastest set this CPU runs (detected once), and
//! [`available()`] every set this CPU runs.
//!
//! Score conventions, identical in every set:
//! - `dot_*` is the inner product `Σ aᵢ·bᵢ`: larger means more similar.
//! - `l2_*` is the *squared* Euclidean distance `Σ (aᵢ − bᵢ)²`: smaller means more similar;
//!   no square root is taken.
//! - `*_f16` widens the stored `f16` row exactly to `f32` and computes in `f32`.
//! - `*_i8` is exact in `i32` (for `l2_i8` and `dot_u8_i8` up to dim 20000).
//! - `dot_f32_u8` and `dot_f32_u4` take the codes as the exact integers they hold (0..=255,
//!   0..=15), converted exactly to `f32`; any scale or offset of the quantiser is the caller's.
//! - `*_f32_x4` gives each of four queries `q[j]` the single form's score (up to rounding).
//!
//! Float results of different sets differ only by rounding (summation order, fused
//! multiply-add), within the usual `n·ε·Σ|terms|` bound; integer results are identical.
//! Every function requires matching lengths (equal, or `q.len() == 2 * codes.len()` for
//! `dot_f32_u4`; debug-asserted); with other lengths a release build still reads only within
//! the slices, but the score is unspecified.

use std::sync::OnceLock;

mod scalar;
#[cfg(target_arch = "x86_64")]
mod x86_64;

/// One resolved set of kernels for this CPU.
///
/// All functions require `a.len() == b.len()` (`dot_f32_u4`: `q.len() == 2 * codes.len()`;
/// debug-asserted) and never read out of bounds for any lengths, including 0.
#[derive(Debug)]
pub struct Kernels {
    /// Instruction set the kernels use: `"scalar"`, `"avx2+fma+f16c"`, `"avx512f"` or
    /// `"avx512f+bw+vnni"`.
    pub isa: &'static str,
    /// Inner product.
    pub dot_f32: fn(&[f32], &[f32]) -> f32,
    /// Squared Euclidean distance.
    pub l2_f32: fn(&[f32], &[f32]) -> f32,
    /// Inner product of an `f32` query with a stored `f16` row.
    pub dot_f16: fn(&[f32], &[half::f16]) -> f32,
    /// Squared Euclidean distance of an `f32` query to a stored `f16` row.
    pub l2_f16: fn(&[f32], &[half::f16]) -> f32,
    /// Exact integer inner product.
    pub dot_i8: fn(&[i8], &[i8]) -> i32,
    /// Exact squared Euclidean distance; fits `i32` for dim <= 20000.
    pub l2_i8: fn(&[i8], &[i8]) -> i32,
    /// Four queries against one stored row in a single pass: `out[j] = dot(q[j], x)`.
    pub dot_f32_x4: fn([&[f32]; 4], &[f32]) -> [f32; 4],
    /// Four queries against one stored row in a single pass: `out[j] = l2(q[j], x)`.
    pub l2_f32_x4: fn([&[f32]; 4], &[f32]) -> [f32; 4],
    /// Asymmetric inner product of an `f32` query with unsigned 8-bit codes: `Σ qᵢ·cᵢ`, each
    /// code `cᵢ` taken as the integer 0..=255.
    pub dot_f32_u8: fn(&[f32], &[u8]) -> f32,
    /// Asymmetric inner product of an `f32` query with 4-bit codes packed two per byte:
    /// `Σ qᵢ·cᵢ`, each `cᵢ` taken as the integer 0..=15, with `q.len() == 2 * codes.len()`.
    ///
    /// Packing (the encoder must follow it): element `2j` is the low nibble of byte `j`
    /// (`codes[j] & 0x0F`) and element `2j+1` its high nibble (`codes[j] >> 4`); so byte `j` is
    /// `c[2j] | c[2j+1] << 4`, and element `i` sits in byte `i / 2` at bit `4 * (i % 2)`. An odd
    /// dimension is padded with one element: code 0 in the last high nibble, and a query of
    /// even length (the pad element's query value is irrelevant when its code is 0).
    pub dot_f32_u4: fn(&[f32], &[u8]) -> f32,
    /// Exact inner product `Σ aᵢ·bᵢ` of unsigned 8-bit codes with a signed 8-bit (quantised)
    /// query, in `i32`: `|Σ| <= 255·128·dim`, which fits for dim <= 65793 (20000 gives
    /// 652 800 000 < 2³¹).
    pub dot_u8_i8: fn(&[u8], &[i8]) -> i32,
    /// `Σ qᵢ` over the `i < q.len()` whose bit is set in `bits` (bit `i % 64` of word
    /// `i / 64`; missing words count as clear): a quantised query against a one-bit sketch.
    /// Exact in `i32` (`|Σ| <= 128·dim`).
    pub masked_sum_i8: fn(&[i8], &[u64]) -> i32,
    /// Scores one block of [`SCAN_BLOCK`] rows of 4-bit codes against per-position lookup
    /// tables: `out[r] = Σ_p lut[32p + (codes[32p + r] & 15)] + lut[32p + 16 + (codes[32p + r] >> 4)]`
    /// for the `p < codes.len() / 32` byte columns (each holds two 4-bit positions per row:
    /// byte `32p + r` is row `r`'s pair). Exact in `u16` for up to [`SCAN_MAX_PAIRS`]
    /// columns, which the caller splits longer codes into; `lut` holds 32 bytes per column.
    pub scan_u4: fn(&[u8], &[u8], &mut [u16; SCAN_BLOCK]),
    /// In-place unnormalized Walsh–Hadamard transform of a block whose length is a power
    /// of two: stages `h = 1, 2, 4, …`, each replacing every pair `(x[i], x[i + h])` (`i`
    /// with bit `h` clear) by `(x[i] + x[i + h], x[i] − x[i + h])`. Every set performs the
    /// same additions in the same order, so results are bit-identical.
    pub fwht: fn(&mut [f32]),
}

/// Rows [`Kernels::scan_u4`] scores at once.
pub const SCAN_BLOCK: usize = 32;

/// Most byte columns one [`Kernels::scan_u4`] call adds up: `2 · 255 · 128 < 2¹⁶`.
pub const SCAN_MAX_PAIRS: usize = 128;

/// The scalar oracle: plain sequential loops, available everywhere.
pub fn scalar() -> &'static Kernels {
    &scalar::KERNELS
}

/// The fastest set this CPU runs, detected on first call; or, when the environment
/// variable `XVEC_ISA` names one (`scalar`, `avx2`, `avx512`: the start of a set's
/// [`isa`](Kernels::isa)), the fastest set of that name this CPU runs, so a slower path
/// can be measured on any machine. A name no set of this CPU has is ignored.
pub fn best() -> &'static Kernels {
    static BEST: OnceLock<&'static Kernels> = OnceLock::new();
    BEST.get_or_init(|| pick(&available(), std::env::var("XVEC_ISA").ok().as_deref()))
}

/// The fastest of `sets` (slowest first, as [`available`] lists them) whose name starts
/// with `wanted`, or the fastest of all.
fn pick(sets: &[&'static Kernels], wanted: Option<&str>) -> &'static Kernels {
    let named = wanted.and_then(|w| sets.iter().rev().find(|k| !w.is_empty() && k.isa.starts_with(w)));
    named.or(sets.last()).copied().unwrap_or(scalar())
}

/// Every set this CPU runs, scalar first, then from slowest to fastest.
pub fn available() -> Vec<&'static Kernels> {
    #[cfg(target_arch = "x86_64")]
    let simd = x86_64::detected();
    #[cfg(not(target_arch = "x86_64"))]
    let simd: [&'static Kernels; 0] = [];
    std::iter::once(scalar()).chain(simd).collect()
}

/// Size of the cache line [`prefetch_lines`] steps by.
const CACHE_LINE: usize = 64;

/// Hints the CPU to fetch into all cache levels (x86-64 `prefetcht0`) the first `lines`
/// 64-byte cache lines of `data`: the line holding its first byte and the `lines − 1` after it,
/// but never a line past the one holding its last byte.
///
/// A hint only: it has no effect on results, may be ignored by the CPU, and never faults, so it
/// is harmless for any slice and any `lines`. It does nothing for an empty (or zero-sized)
/// slice, for `lines == 0`, and on targets other than x86-64. Issue it for the next row of a
/// scan while scoring the current one.
#[inline]
pub fn prefetch_lines<T>(data: &[T], lines: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let start = data.as_ptr().cast::<i8>();
        // The slice ends within the address space, so `start + len` does not overflow.
        let (offset, len) = (start.addr() % CACHE_LINE, size_of_val(data));
        let count = if len == 0 { 0 } else { (offset + len).div_ceil(CACHE_LINE).min(lines) };
        for i in 0..count {
            // `start + i·64` lies in the `i`-th line of the slice, which holds a byte of it.
            let line = start.wrapping_byte_add(i * CACHE_LINE);
            // SAFETY: a prefetch reads nothing observable and never faults, for any address; the
            // pointer is not dereferenced. SSE, which `_mm_prefetch` needs, is baseline x86-64.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(line) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (data, lines);
}

#[cfg(test)]
mod tests {
    use half::f16;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;

    const DIMS: [usize; 11] = [0, 1, 7, 15, 16, 17, 65, 383, 384, 768, 1536];

    /// Exact score in f64 and `Σ|terms|`, the scale of the rounding error of any f32
    /// evaluation order.
    fn reference(a: &[f32], b: &[f32], l2: bool) -> (f64, f64) {
        let terms = a.iter().zip(b).map(|(&x, &y)| {
            let (x, y) = (f64::from(x), f64::from(y));
            if l2 { (x - y) * (x - y) } else { x * y }
        });
        terms.fold((0.0, 0.0), |(s, m), t| (s + t, m + t.abs()))
    }

    fn reference_i8(a: &[i8], b: &[i8], l2: bool) -> i64 {
        let terms = a.iter().zip(b).map(|(&x, &y)| {
            let (x, y) = (i64::from(x), i64::from(y));
            if l2 { (x - y) * (x - y) } else { x * y }
        });
        terms.sum()
    }

    /// Checks `got` against the exact `(value, Σ|terms|)` of a dim-`n` score.
    ///
    /// Bound: any summation order of `n` rounded products (or rounded differences squared)
    /// is within `γ_{n+2}·Σ|terms|` of the exact value, `γ_k = k·u/(1−k·u)`, `u = 2⁻²⁴`
    /// (Higham, *Accuracy and Stability of Numerical Algorithms*, §3.1; FMA only tightens
    /// it). `(n+2)·f32::EPSILON = 2·(n+2)·u` exceeds `γ_{n+2}` for these dims and leaves
    /// room for the f64 reference's own rounding, so the check cannot flake: a relative
    /// tolerance of about 1e-5 at dim 80, 1.8e-4 at dim 1536. It is relative to `Σ|terms|`,
    /// not to the score, which cancellation can bring arbitrarily close to 0. With `exact`,
    /// all partial sums are small integers, so every evaluation order must hit the value.
    fn check(got: f32, (value, magnitude): (f64, f64), n: usize, exact: bool, what: &str) {
        let got = f64::from(got);
        let tol = if exact { 0.0 } else { (n + 2) as f64 * f64::from(f32::EPSILON) * magnitude };
        assert!((got - value).abs() <= tol, "{what}: got {got}, want {value} ± {tol}");
    }

    /// Checks every float kernel of `k`: each query of `q` against the row `x`.
    fn check_floats(k: &Kernels, q: [&[f32]; 4], x: &[f32], exact: bool) {
        let n = x.len();
        let x16: Vec<f16> = x.iter().map(|&v| f16::from_f32(v)).collect();
        // The f16 kernels see the rounded row; the reference uses exactly those values.
        let x16_wide: Vec<f32> = x16.iter().map(|v| v.to_f32()).collect();
        let dot4 = (k.dot_f32_x4)(q, x);
        let l24 = (k.l2_f32_x4)(q, x);
        for (j, q) in q.into_iter().enumerate() {
            let what = |f: &str| format!("{} {f} dim {n} query {j}", k.isa);
            let (dot, l2) = (reference(q, x, false), reference(q, x, true));
            check((k.dot_f32)(q, x), dot, n, exact, &what("dot_f32"));
            check((k.l2_f32)(q, x), l2, n, exact, &what("l2_f32"));
            check(dot4[j], dot, n, exact, &what("dot_f32_x4"));
            check(l24[j], l2, n, exact, &what("l2_f32_x4"));
            let (dot, l2) = (reference(q, &x16_wide, false), reference(q, &x16_wide, true));
            check((k.dot_f16)(q, &x16), dot, n, exact, &what("dot_f16"));
            check((k.l2_f16)(q, &x16), l2, n, exact, &what("l2_f16"));
        }
    }

    fn check_i8(k: &Kernels, a: &[i8], b: &[i8]) {
        let what = |f: &str| format!("{} {f} dim {}", k.isa, a.len());
        let dot = (k.dot_i8)(a, b);
        let l2 = (k.l2_i8)(a, b);
        assert_eq!(i64::from(dot), reference_i8(a, b, false), "{}", what("dot_i8"));
        assert_eq!(i64::from(l2), reference_i8(a, b, true), "{}", what("l2_i8"));
    }

    /// `XVEC_ISA` picks a set by the start of its name; a name no set has, or none, the fastest.
    #[test]
    fn an_isa_name_picks_its_set() {
        let sets = available();
        let fastest = sets.last().expect("scalar at least").isa;
        assert_eq!(pick(&sets, None).isa, fastest);
        assert_eq!(pick(&sets, Some("scalar")).isa, "scalar");
        assert_eq!(pick(&sets, Some("neon")).isa, fastest);
        assert_eq!(pick(&sets, Some("")).isa, fastest);
        for k in &sets {
            assert!(pick(&sets, Some(k.isa)).isa.starts_with(k.isa));
        }
        if sets.iter().any(|k| k.isa.starts_with("avx512")) {
            assert!(pick(&sets, Some("avx2")).isa.starts_with("avx2"));
        }
    }

    #[test]
    fn floats_match_reference_within_rounding_bound() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for k in available() {
            for n in DIMS {
                let mut vec = || -> Vec<f32> { (0..n).map(|_| rng.random_range(-1.0..1.0)).collect() };
                let (x, q0, q1, q2) = (vec(), vec(), vec(), vec());
                // The row itself as a query: l2 must be exactly 0.
                check_floats(k, [&q0, &q1, &q2, &x], &x, false);
            }
        }
    }

    #[test]
    fn floats_are_exact_on_small_integers() {
        // |terms| <= 32² and n <= 1536 keep every partial sum an integer below 2²⁴, so any
        // dropped, repeated or misplaced element shows up as an exact mismatch.
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        for k in available() {
            for n in DIMS {
                let mut vec = || -> Vec<f32> { (0..n).map(|_| rng.random_range(-16i8..=16).into()).collect() };
                let (x, q0, q1, q2, q3) = (vec(), vec(), vec(), vec(), vec());
                check_floats(k, [&q0, &q1, &q2, &q3], &x, true);
            }
        }
    }

    #[test]
    fn i8_is_exact() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for k in available() {
            for n in DIMS {
                let mut vec = || -> Vec<i8> { (0..n).map(|_| rng.random()).collect() };
                let (a, b) = (vec(), vec());
                check_i8(k, &a, &b);
                check_i8(k, &a, &a);
            }
        }
    }

    #[test]
    fn i8_extremes_do_not_overflow() {
        // -128 · -128 and (127 − -128)² are the largest products; the kernels widen to i16
        // and must not saturate or wrap there, nor in i32 up to the documented dim 20000.
        for k in available() {
            for n in DIMS.into_iter().chain([20_000]) {
                let lo = vec![i8::MIN; n];
                let hi = vec![i8::MAX; n];
                let alt: Vec<i8> = (0..n).map(|i| if i % 2 == 0 { i8::MIN } else { i8::MAX }).collect();
                let alt_rev: Vec<i8> = alt.iter().map(|&v| if v == i8::MIN { i8::MAX } else { i8::MIN }).collect();
                check_i8(k, &lo, &lo);
                check_i8(k, &lo, &hi);
                check_i8(k, &hi, &lo);
                check_i8(k, &alt, &alt_rev);
            }
            assert_eq!((k.dot_i8)(&[i8::MIN; 1536], &[i8::MIN; 1536]), 1536 * 16384, "{}", k.isa);
            assert_eq!((k.l2_i8)(&[i8::MIN; 20_000], &[i8::MAX; 20_000]), 20_000 * 255 * 255, "{}", k.isa);
        }
    }

    /// The elements of 4-bit codes, unpacked by the documented layout: element `2j` is the low
    /// nibble of byte `j`, element `2j+1` its high nibble.
    fn unpack_u4(c: &[u8]) -> Vec<f32> {
        c.iter().flat_map(|&b| [b & 0x0F, b >> 4]).map(f32::from).collect()
    }

    /// Checks both asymmetric float kernels of `k` for the query `q` against the codes `c`:
    /// `dot_f32_u8` on `c` as bytes, and `dot_f32_u4` on `c` as packed nibbles (against the
    /// query `q` repeated twice, so every dim gets an even length).
    fn check_codes(k: &Kernels, q: &[f32], c: &[u8], exact: bool) {
        let n = c.len();
        let what = |f: &str| format!("{} {f} dim {n} codes {:?}..", k.isa, &c[..n.min(4)]);
        let wide: Vec<f32> = c.iter().map(|&c| f32::from(c)).collect();
        check((k.dot_f32_u8)(q, c), reference(q, &wide, false), n, exact, &what("dot_f32_u8"));
        let q2 = [q, q].concat();
        let what = |f: &str| format!("{} {f} dim {} codes {:?}..", k.isa, 2 * n, &c[..n.min(4)]);
        let got = (k.dot_f32_u4)(&q2, c);
        check(got, reference(&q2, &unpack_u4(c), false), 2 * n, exact, &what("dot_f32_u4"));
        // And an even dim that is not a doubled one: the first half of the query.
        let (h, q_h) = (n / 2, &q[..n / 2 * 2]);
        let what = |f: &str| format!("{} {f} dim {} codes {:?}..", k.isa, 2 * h, &c[..h.min(4)]);
        let got = (k.dot_f32_u4)(q_h, &c[..h]);
        check(got, reference(q_h, &unpack_u4(&c[..h]), false), 2 * h, exact, &what("dot_f32_u4"));
    }

    /// Code rows with every extreme: all 0, all 255, alternating 0/255 (as nibbles: low 15
    /// high 0, low 0 high 15), and random.
    fn code_rows(n: usize, rng: &mut ChaCha8Rng) -> [Vec<u8>; 6] {
        [
            vec![0; n],
            vec![u8::MAX; n],
            (0..n).map(|i| if i % 2 == 0 { 0 } else { u8::MAX }).collect(),
            vec![0x0F; n],
            vec![0xF0; n],
            (0..n).map(|_| rng.random()).collect(),
        ]
    }

    #[test]
    fn codes_match_reference_within_rounding_bound() {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        for k in available() {
            for n in DIMS {
                let q: Vec<f32> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
                for c in code_rows(n, &mut rng) {
                    check_codes(k, &q, &c, false);
                }
            }
        }
    }

    #[test]
    fn codes_are_exact_on_small_integers() {
        // |terms| <= 16·255 and dim <= 2·1536 keep every partial sum an integer below 2²⁴.
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for k in available() {
            for n in DIMS {
                let q: Vec<f32> = (0..n).map(|_| rng.random_range(-16i8..=16).into()).collect();
                for c in code_rows(n, &mut rng) {
                    check_codes(k, &q, &c, true);
                }
            }
        }
    }

    #[test]
    fn u4_layout_is_low_nibble_first() {
        for k in available() {
            // Elements 1, 2, 3, 4: byte 0 = 1 | 2 << 4, byte 1 = 3 | 4 << 4.
            assert_eq!((k.dot_f32_u4)(&[1000.0, 100.0, 10.0, 1.0], &[0x21, 0x43]), 1234.0, "{}", k.isa);
            assert_eq!((k.dot_f32_u4)(&[1.0, 0.0], &[0xF0]), 0.0, "{}", k.isa);
            assert_eq!((k.dot_f32_u4)(&[0.0, 1.0], &[0xF0]), 15.0, "{}", k.isa);
            // One element set at a time, over SIMD blocks and the tail: element `i` of a row
            // of 2·n must meet query value `i + 1`, nothing else.
            for n in [17, 65] {
                let q: Vec<f32> = (1..=2 * n).map(|i| i as f32).collect();
                for i in 0..2 * n {
                    let mut c = vec![0u8; n];
                    c[i / 2] = 0x0F << (4 * (i % 2));
                    let want = 15.0 * (i + 1) as f32;
                    assert_eq!((k.dot_f32_u4)(&q, &c), want, "{} dim {} element {i}", k.isa, 2 * n);
                    c[i / 2] = 0xFF;
                    let pair = 15.0 * (4 * (i / 2) + 3) as f32;
                    assert_eq!((k.dot_f32_u4)(&q, &c), pair, "{} dim {} byte {}", k.isa, 2 * n, i / 2);
                }
            }
        }
    }

    fn check_u8_i8(k: &Kernels, a: &[u8], b: &[i8]) {
        let want: i64 = a.iter().zip(b).map(|(&x, &y)| i64::from(x) * i64::from(y)).sum();
        assert_eq!(i64::from((k.dot_u8_i8)(a, b)), want, "{} dot_u8_i8 dim {}", k.isa, a.len());
    }

    #[test]
    fn fwht_matches_the_oracle_bit_for_bit() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for k in available() {
            for bits in 0..=11 {
                let n = 1usize << bits;
                let x: Vec<f32> = (0..n).map(|_| rng.random::<f32>() * 2.0 - 1.0).collect();
                let (mut want, mut got) = (x.clone(), x.clone());
                (scalar().fwht)(&mut want);
                (k.fwht)(&mut got);
                assert_eq!(got, want, "{} fwht of {n}", k.isa);
                // Applied twice, the transform scales by n.
                (k.fwht)(&mut got);
                for (g, v) in got.iter().zip(&x) {
                    assert!((g / n as f32 - v).abs() <= 1e-5 * n as f32, "{} fwht of {n} twice", k.isa);
                }
            }
        }
    }

    #[test]
    fn u8_i8_is_exact() {
        let mut rng = ChaCha8Rng::seed_from_u64(6);
        for k in available() {
            for n in DIMS {
                let a: Vec<u8> = (0..n).map(|_| rng.random()).collect();
                let b: Vec<i8> = (0..n).map(|_| rng.random()).collect();
                check_u8_i8(k, &a, &b);
            }
        }
    }

    #[test]
    fn u8_i8_extremes_do_not_overflow() {
        // 255 · -128 is the largest product: two of them overflow i16 (`maddubs` saturates),
        // and 20000 of them must still fit i32.
        for k in available() {
            for n in DIMS.into_iter().chain([20_000]) {
                let alt_a: Vec<u8> = (0..n).map(|i| if i % 2 == 0 { u8::MAX } else { 0 }).collect();
                let alt_b: Vec<i8> = (0..n).map(|i| if i % 2 == 0 { i8::MIN } else { i8::MAX }).collect();
                for a in [vec![u8::MAX; n], vec![0; n], alt_a] {
                    for b in [vec![i8::MIN; n], vec![i8::MAX; n], alt_b.clone()] {
                        check_u8_i8(k, &a, &b);
                    }
                }
            }
            assert_eq!((k.dot_u8_i8)(&[u8::MAX; 20_000], &[i8::MIN; 20_000]), -652_800_000, "{}", k.isa);
            assert_eq!((k.dot_u8_i8)(&[u8::MAX; 20_000], &[i8::MAX; 20_000]), 647_700_000, "{}", k.isa);
        }
    }

    #[test]
    fn masked_sum_matches_the_oracle() {
        let mut rng = ChaCha8Rng::seed_from_u64(8);
        for k in available() {
            for n in DIMS {
                let q: Vec<i8> = (0..n).map(|_| rng.random()).collect();
                for density in [0.0, 0.1, 0.5, 1.0] {
                    let mut bits = vec![0u64; n.div_ceil(64) + 1];
                    // Bits past the query (and a spare word) must be ignored.
                    for i in 0..bits.len() * 64 {
                        if i >= n || rng.random::<f64>() < density {
                            bits[i / 64] |= 1 << (i % 64);
                        }
                    }
                    let want: i32 =
                        (0..n).filter(|&i| bits[i / 64] >> (i % 64) & 1 == 1).map(|i| i32::from(q[i])).sum();
                    assert_eq!((k.masked_sum_i8)(&q, &bits), want, "{} masked_sum_i8 dim {n}", k.isa);
                    let short = &bits[..n / 64];
                    let want: i32 = (0..n.min(64 * short.len()))
                        .filter(|&i| short[i / 64] >> (i % 64) & 1 == 1)
                        .map(|i| i32::from(q[i]))
                        .sum();
                    assert_eq!((k.masked_sum_i8)(&q, short), want, "{} masked_sum_i8 dim {n}, short bits", k.isa);
                }
            }
            let q = vec![i8::MIN; 20_000];
            assert_eq!((k.masked_sum_i8)(&q, &vec![u64::MAX; 313]), -2_560_000, "{}", k.isa);
        }
    }

    #[test]
    fn scan_u4_matches_the_oracle() {
        let mut rng = ChaCha8Rng::seed_from_u64(41);
        for k in available() {
            for pairs in [0, 1, 2, 7, 48, SCAN_MAX_PAIRS] {
                let codes: Vec<u8> = (0..pairs * 32).map(|_| rng.random()).collect();
                let mut lut: Vec<u8> = (0..pairs * 32).map(|_| rng.random()).collect();
                let want = |lut: &[u8]| -> [u16; SCAN_BLOCK] {
                    std::array::from_fn(|r| {
                        (0..pairs)
                            .map(|p| {
                                let b = codes[32 * p + r] as usize;
                                u16::from(lut[32 * p + (b & 15)]) + u16::from(lut[32 * p + 16 + (b >> 4)])
                            })
                            .sum()
                    })
                };
                let mut out = [7u16; SCAN_BLOCK];
                (k.scan_u4)(&codes, &lut, &mut out);
                assert_eq!(out, want(&lut), "{} scan_u4 pairs {pairs}", k.isa);
                // The largest sums the bound allows.
                lut.fill(255);
                (k.scan_u4)(&codes, &lut, &mut out);
                assert_eq!(out, [(510 * pairs) as u16; SCAN_BLOCK], "{} scan_u4 saturated, pairs {pairs}", k.isa);
            }
        }
    }

    #[test]
    fn prefetch_is_harmless() {
        let empty: [f32; 0] = [];
        for lines in [0, 1, 4, usize::MAX] {
            prefetch_lines(&empty, lines);
            prefetch_lines(&Vec::<u8>::new(), lines);
            prefetch_lines(&[(); 1000], lines);
            prefetch_lines(&[7u8], lines);
            prefetch_lines(&[1.0f32, 2.0, 3.0], lines);
        }
        // Every start offset within a line, lengths across line ends, and a whole buffer.
        let buf = vec![1.0f32; 4096];
        for start in 0..32 {
            for len in [0, 1, 15, 16, 17, 100] {
                prefetch_lines(&buf[start..start + len], 4);
            }
        }
        prefetch_lines(&buf, usize::MAX);
        prefetch_lines(&buf[4095..], usize::MAX);
        assert!(buf.iter().all(|&v| v == 1.0));
    }

    #[test]
    fn best_is_simd_when_the_cpu_has_it() {
        let sets = available();
        assert_eq!(sets[0].isa, "scalar");
        assert!(sets.iter().any(|&k| std::ptr::eq(k, best())));
        #[cfg(target_arch = "x86_64")]
        if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") && is_x86_feature_detected!("f16c") {
            assert_ne!(best().isa, "scalar");
            assert!(sets.iter().any(|k| k.isa == "avx2+fma+f16c"));
        }
    }

    #[test]
    #[cfg(debug_assertions)]
    fn unequal_lengths_panic_in_debug() {
        use std::panic::catch_unwind;
        let (a, b) = ([1.0f32; 9], [1.0f32; 8]);
        let b16 = [f16::ONE; 8];
        let (a8, b8) = ([1i8; 17], [1i8; 16]);
        let (c8, c9) = ([1u8; 8], [1u8; 9]);
        let c4 = [1u8; 4];
        for k in available() {
            let results = [
                catch_unwind(|| (k.dot_f32)(&a, &b)).is_err(),
                catch_unwind(|| (k.l2_f32)(&a, &b)).is_err(),
                catch_unwind(|| (k.dot_f16)(&a, &b16)).is_err(),
                catch_unwind(|| (k.l2_f16)(&a, &b16)).is_err(),
                catch_unwind(|| (k.dot_i8)(&a8, &b8)).is_err(),
                catch_unwind(|| (k.l2_i8)(&a8, &b8)).is_err(),
                catch_unwind(|| (k.dot_f32_x4)([&b, &b, &a, &b], &b)).is_err(),
                catch_unwind(|| (k.l2_f32_x4)([&b, &b, &b, &a], &b)).is_err(),
                catch_unwind(|| (k.dot_f32_u8)(&a, &c8)).is_err(),
                catch_unwind(|| (k.dot_f32_u8)(&b, &c9)).is_err(),
                catch_unwind(|| (k.dot_f32_u4)(&a, &c4)).is_err(),
                catch_unwind(|| (k.dot_f32_u4)(&b, &c8)).is_err(),
                catch_unwind(|| (k.dot_u8_i8)(&c9, &b8)).is_err(),
            ];
            assert_eq!(results, [true; 13], "{}", k.isa);
            assert_eq!((k.dot_f32_u4)(&b, &c4), 4.0, "{}", k.isa);
        }
    }
}
