//! Quantization: vectors become compact codes (fp16, int8, int4, [`rabitq`]) scored
//! asymmetrically against an f32 query. Optionally rotated first (see [`rotation`]).
//!
//! int8/int4 keep a per-vector offset and scale: `x ≈ min + scale · c`, so
//! `q·x ≈ min · Σq + scale · (q·c)`. Every row also keeps the exact norm of its original,
//! which makes L2 (`|q|² + |x|² − 2 q·x`) and cosine (`q·x / |x|`) exact up to the code
//! error in `q·x`. int4 packs element `2j` in the low nibble of byte `j`, `2j+1` in the high.
//!
//! Graph traversal over int8 codes scores them against the query rounded to i8 (one scale
//! per query): a single `vpdpbusd` then scores 64 dimensions, and the query's rounding error
//! is no larger than the codes' own, so recall is unchanged (measured within 0.0004 on
//! wordnet-minilm-384). The candidates a search returns are re-scored against the f32
//! query ([`CodeScorer::precise`]) or, with refinement, against the originals.
//!
//! Graph indexes also keep a one-bit [`sketch`] of every rotated row, which lets a search
//! skip most neighbours without reading their codes or vectors; rows no index covers yet
//! keep the same sketches laid out for [`fastscan`] block scans.

pub(crate) mod fastscan;
pub(crate) mod rabitq;
pub(crate) mod rotation;
pub(crate) mod sketch;

use half::f16;

use crate::kernels::{self, Kernels};
use crate::schema::{Metric, Quantize};
use crate::storage::column::VectorColumn;
use crate::storage::mmap::cast_slice;
use rotation::Rotation;

/// Floats kept per row beside its codes: offset, scale, norm of the original (RaBitQ:
/// rescale, error, norm of the original).
pub(crate) const PARAMS_PER_ROW: usize = 3;

/// Encodes vectors of one field and prepares queries for its codes.
#[derive(Clone, Debug)]
pub(crate) struct Quantizer {
    kind: Quantize,
    /// RaBitQ bits per dimension; 0 for other codes.
    bits: u8,
    dim: usize,
    metric: Metric,
    rotation: Option<Rotation>,
}

/// A query prepared for a quantized field: rotated, normalized for cosine.
#[derive(Clone, Debug)]
pub(crate) struct QuantQuery {
    q: Vec<f32>,
    sum: f32,
    norm_sq: f32,
    /// int8 and byte- or bit-packed RaBitQ fields: `q` rounded to i8 with
    /// `q ≈ q8_scale · q8`; empty otherwise.
    q8: Vec<i8>,
    q8_scale: f32,
    /// `q8_scale · Σ q8`: the rounded query's own sum, which RaBitQ's centring subtracts.
    q8_sum: f32,
}

impl QuantQuery {
    /// The query as the codes see it: rotated, unit length for cosine.
    pub(crate) fn rotated(&self) -> &[f32] {
        &self.q
    }

    pub(crate) fn norm_sq(&self) -> f32 {
        self.norm_sq
    }
}

/// Per-thread buffers for encoding and query preparation.
#[derive(Default, Debug)]
pub(crate) struct QuantScratch {
    rotated: Vec<f32>,
    tmp: Vec<f32>,
    /// RaBitQ codes of one row before packing.
    unpacked: Vec<u8>,
}

impl Quantizer {
    /// A quantizer of `kind`; `bits` is RaBitQ's bits per dimension (ignored otherwise).
    pub(crate) fn new(kind: Quantize, bits: u8, dim: usize, metric: Metric, rotation: Option<Rotation>) -> Quantizer {
        debug_assert!(kind != Quantize::None);
        debug_assert!(kind != Quantize::Rabitq || (1..=rabitq::MAX_BITS).contains(&bits));
        let bits = if kind == Quantize::Rabitq { bits } else { 0 };
        Quantizer { kind, bits, dim, metric, rotation }
    }

    pub(crate) fn kind(&self) -> Quantize {
        self.kind
    }

    pub(crate) fn rotation(&self) -> Option<&Rotation> {
        self.rotation.as_ref()
    }

    /// Bytes of one row's codes.
    pub(crate) fn code_bytes(&self) -> usize {
        match self.kind {
            Quantize::Fp16 => self.dim * 2,
            Quantize::Int8 => self.dim,
            Quantize::Int4 => self.dim / 2,
            Quantize::Rabitq => rabitq::code_bytes(self.dim, self.bits),
            Quantize::None => 0,
        }
    }

    /// A view of codes and params made by this quantizer.
    pub(crate) fn view<'a>(&self, codes: &'a [u8], params: &'a [f32]) -> Codes<'a> {
        let code_bytes = self.code_bytes();
        Codes { kind: self.kind, bits: self.bits, code_bytes, stride: code_bytes, codes, params }
    }

    /// A view of one-bit codes read in place from the rows' sketches (`words_per_row`
    /// words a row, the sign bits first), and their params.
    pub(crate) fn view_in_sketches<'a>(&self, sketches: &'a [u8], params: &'a [f32]) -> Codes<'a> {
        debug_assert!(self.kind == Quantize::Rabitq && self.bits == 1 && self.rotation.is_some());
        let stride = sketch::words_per_row(self.dim) * 8;
        Codes { kind: self.kind, bits: self.bits, code_bytes: self.code_bytes(), stride, codes: sketches, params }
    }

    fn rotate<'s>(&self, x: &'s [f32], s: &'s mut QuantScratch) -> &'s [f32] {
        match &self.rotation {
            Some(r) => {
                s.rotated.resize(self.dim, 0.0);
                r.apply(x, &mut s.rotated, &mut s.tmp);
                &s.rotated
            }
            None => x,
        }
    }

    /// Encodes one original vector into `codes` (`code_bytes` long) and its params.
    pub(crate) fn encode(&self, x: &[f32], codes: &mut [u8], params: &mut [f32], s: &mut QuantScratch) {
        let norm = x.iter().map(|&v| v as f64 * v as f64).sum::<f64>().sqrt() as f32;
        let y = self.rotate(x, s);
        let (min, scale) = match self.kind {
            Quantize::Fp16 => {
                for (c, &v) in codes.chunks_exact_mut(2).zip(y) {
                    c.copy_from_slice(&f16::from_f32(v).to_le_bytes());
                }
                (0.0, 0.0)
            }
            Quantize::Int8 | Quantize::Int4 => {
                let levels = if self.kind == Quantize::Int8 { 255.0 } else { 15.0 };
                let min = y.iter().copied().fold(f32::INFINITY, f32::min);
                let max = y.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                let scale = if max > min { (max - min) / levels } else { 0.0 };
                let code = |v: f32| if scale > 0.0 { ((v - min) / scale).round().clamp(0.0, levels) as u8 } else { 0 };
                if self.kind == Quantize::Int8 {
                    for (c, &v) in codes.iter_mut().zip(y) {
                        *c = code(v);
                    }
                } else {
                    for (c, pair) in codes.iter_mut().zip(y.chunks_exact(2)) {
                        *c = code(pair[0]) | (code(pair[1]) << 4);
                    }
                }
                (min, scale)
            }
            Quantize::Rabitq => {
                let mut u = std::mem::take(&mut s.unpacked);
                u.resize(self.dim, 0);
                let y = self.rotate(x, s);
                let f = rabitq::encode(y, self.bits, &mut u);
                rabitq::pack(&u, self.bits, codes);
                s.unpacked = u;
                (f.rescale, f.error)
            }
            Quantize::None => unreachable!("no codes without quantization"),
        };
        params.copy_from_slice(&[min, scale, norm]);
    }

    /// Codes and params of rows `0..rows` of `col`, one after another.
    /// RaBitQ's scale search makes its encoding about 70 times the work of INT8's, so rows
    /// are encoded in parallel chunks.
    pub(crate) fn encode_rows(&self, col: VectorColumn, rows: usize) -> (Vec<u8>, Vec<f32>) {
        use rayon::prelude::*;
        const CHUNK: usize = 1024;
        let cb = self.code_bytes();
        let mut codes = vec![0u8; cb * rows];
        let mut params = vec![0f32; PARAMS_PER_ROW * rows];
        codes.par_chunks_mut(cb * CHUNK).zip(params.par_chunks_mut(PARAMS_PER_ROW * CHUNK)).enumerate().for_each(
            |(chunk, (codes, params))| {
                let mut s = QuantScratch::default();
                let pairs = codes.chunks_exact_mut(cb).zip(params.chunks_exact_mut(PARAMS_PER_ROW));
                for (i, (c, p)) in pairs.enumerate() {
                    self.encode(&col.row_f32(chunk * CHUNK + i), c, p, &mut s);
                }
            },
        );
        (codes, params)
    }

    /// Prepares a query vector (already checked for dimension and finiteness).
    pub(crate) fn prepare(&self, q: &[f32], s: &mut QuantScratch) -> QuantQuery {
        let mut v = self.rotate(q, s).to_vec();
        let norm_sq = normalize_for(self.metric, &mut v);
        let (q8, q8_scale) = if rounds_query(self.kind, self.bits) { round_to_i8(&v) } else { (Vec::new(), 0.0) };
        let q8_sum = q8_scale * q8.iter().map(|&x| x as i32).sum::<i32>() as f32;
        QuantQuery { sum: sum(&v), q: v, norm_sq, q8, q8_scale, q8_sum }
    }
}

/// Whether codes of `kind` are scored against the query rounded to i8 on the fast path:
/// int8, and RaBitQ codes of one bit or of a byte per dimension, whose kernels take an i8
/// query; nibble codes are scored against the f32 query.
fn rounds_query(kind: Quantize, bits: u8) -> bool {
    match kind {
        Quantize::Int8 => true,
        Quantize::Rabitq => rabitq::Packing::of(bits) != rabitq::Packing::Nibbles,
        _ => false,
    }
}

/// Scales a (rotated) query to unit length for cosine, unless it is zero; returns its
/// squared norm after that (1 for a non-zero cosine query).
pub(crate) fn normalize_for(metric: Metric, v: &mut [f32]) -> f32 {
    let norm_sq = (kernels::best().dot_f32)(v, v);
    if metric == Metric::Cosine && norm_sq > 0.0 {
        let inv = 1.0 / norm_sq.sqrt();
        v.iter_mut().for_each(|x| *x *= inv);
        return 1.0;
    }
    norm_sq
}

/// `Σ v` in 8 independent lanes, so the compiler vectorizes it.
fn sum(v: &[f32]) -> f32 {
    let (chunks, tail) = v.as_chunks::<8>();
    let mut acc = [0f32; 8];
    for c in chunks {
        for (a, x) in acc.iter_mut().zip(c) {
            *a += x;
        }
    }
    acc.iter().chain(tail).sum()
}

/// `v ≈ scale · q` with `q` in -127..=127 (symmetric, so the kernel needs no offset).
fn round_to_i8(v: &[f32]) -> (Vec<i8>, f32) {
    let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
    let scale = if max > 0.0 { max / 127.0 } else { 1.0 };
    let inv = 1.0 / scale;
    // Half away from zero by hand: `f32::round` is a libm call on baseline x86-64. `as`
    // truncates toward zero and saturates; |x · inv| <= 127 by the choice of scale.
    let round = |x: f32| (x * inv + 0.5f32.copysign(x)) as i8;
    (v.iter().map(|&x| round(x)).collect(), scale)
}

/// The codes of one segment's field: `code_bytes` per row and [`PARAMS_PER_ROW`] floats.
/// Made by [`Quantizer::view`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Codes<'a> {
    pub kind: Quantize,
    /// RaBitQ bits per dimension; 0 for other codes.
    pub bits: u8,
    pub code_bytes: usize,
    /// Bytes from one row's codes to the next: `code_bytes`, or a sketch row when one-bit
    /// codes are read from the sketches.
    pub stride: usize,
    pub codes: &'a [u8],
    pub params: &'a [f32],
}

impl<'a> Codes<'a> {
    /// The codes of row `row`.
    #[inline]
    pub(crate) fn row(&self, row: usize) -> &'a [u8] {
        let start = row * self.stride;
        &self.codes[start..start + self.code_bytes]
    }

    /// Offset, scale and original norm of row `row`.
    #[inline]
    fn row_params(&self, row: usize) -> &'a [f32] {
        &self.params[row * PARAMS_PER_ROW..(row + 1) * PARAMS_PER_ROW]
    }

    pub(crate) fn rows(&self) -> usize {
        self.params.len() / PARAMS_PER_ROW
    }

    /// Whether the fast distance rounds the query to i8 (and [`Codes::distance`] with
    /// `precise` is finer).
    pub(crate) fn rounds_query(&self) -> bool {
        rounds_query(self.kind, self.bits)
    }

    /// `q·x` as the codes estimate it, with the query in f32 when `precise`, else (int8)
    /// rounded to i8.
    #[inline]
    fn dot(&self, k: &Kernels, query: &QuantQuery, r: usize, p: &[f32], precise: bool) -> f32 {
        let (c, q) = (self.row(r), &query.q);
        match self.kind {
            Quantize::Fp16 => (k.dot_f16)(q, cast_slice::<f16>(c).expect("fp16 codes are 2-byte aligned")),
            Quantize::Int8 if precise => p[0] * query.sum + p[1] * (k.dot_f32_u8)(q, c),
            Quantize::Int8 => {
                let dot = (k.dot_u8_i8)(c, &query.q8) as f32;
                p[0] * query.sum + p[1] * query.q8_scale * dot
            }
            Quantize::Int4 => p[0] * query.sum + p[1] * (k.dot_f32_u4)(q, c),
            Quantize::Rabitq => {
                let centre = rabitq::centre(self.bits);
                let (raw, sum) = match rabitq::Packing::of(self.bits) {
                    rabitq::Packing::Bits => {
                        let words = cast_slice::<u64>(c).expect("one-bit codes are whole aligned words");
                        if precise {
                            (rabitq::masked_sum_f32(q, words), query.sum)
                        } else {
                            ((k.masked_sum_i8)(&query.q8, words) as f32 * query.q8_scale, query.q8_sum)
                        }
                    }
                    rabitq::Packing::Nibbles => ((k.dot_f32_u4)(q, c), query.sum),
                    rabitq::Packing::Bytes if precise => ((k.dot_f32_u8)(q, c), query.sum),
                    rabitq::Packing::Bytes => ((k.dot_u8_i8)(c, &query.q8) as f32 * query.q8_scale, query.q8_sum),
                };
                p[0] * (raw - centre * sum)
            }
            Quantize::None => unreachable!("no codes without quantization"),
        }
    }

    /// The distance of `query` to row `row` under `metric` (lower is better), with the
    /// query in full precision when `precise`.
    #[inline]
    pub(crate) fn distance(&self, k: &Kernels, query: &QuantQuery, metric: Metric, row: u32, precise: bool) -> f32 {
        self.distance_from(k, query, metric, row, precise, 0.0)
    }

    /// [`Codes::distance`] of a row coded as its residual to a centroid `c`, given
    /// `centroid_dot = ⟨q, c⟩` (IVF lists): the codes estimate `⟨q, x − c⟩`.
    #[inline]
    pub(crate) fn distance_from(
        &self,
        k: &Kernels,
        query: &QuantQuery,
        metric: Metric,
        row: u32,
        precise: bool,
        centroid_dot: f32,
    ) -> f32 {
        let r = row as usize;
        let p = self.row_params(r);
        let dot = centroid_dot + self.dot(k, query, r, p, precise);
        match metric {
            Metric::L2 => query.norm_sq + p[2] * p[2] - 2.0 * dot,
            Metric::Ip => -dot,
            Metric::Cosine => {
                if p[2] > 0.0 {
                    -dot / p[2]
                } else {
                    0.0
                }
            }
        }
    }

    /// All of the row's code lines (a handful: 6 for int8 at dim 384) and its params line,
    /// which sits in another array.
    #[inline]
    pub(crate) fn prefetch(&self, row: u32) {
        let r = row as usize;
        kernels::prefetch_lines(self.row(r), usize::MAX);
        kernels::prefetch_lines(self.row_params(r), 1);
    }
}
