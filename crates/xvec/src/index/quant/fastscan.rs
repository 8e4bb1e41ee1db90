//! One-bit sketches of rows no index covers yet, laid out to be scanned 32 rows at a time.
//!
//! Rows in the memtable and in flushed segments whose index the background has not built
//! are searched by a scan. An exact scan reads every row's vector (1.5 KiB at 384-d fp32,
//! about 90 ns a row from memory); this one first scores the rows' [`sketch`]es — the same
//! one-bit RaBitQ codes and bound the graphs screen neighbours with — and reads the vector
//! only of rows whose lower bound beats the current k-th distance. The bits of 32 rows are
//! stored transposed, byte column `p` of a block holding dimensions `8p..8p + 8` of each
//! row, so [`Kernels::scan_u4`] scores a block with two table lookups per byte (FastScan,
//! André et al., VLDB 2015): about 2 ns a row at 384-d, 48 bytes of codes and 12 of
//! factors.
//!
//! The query side splits the rotated query into groups of four dimensions and tabulates,
//! per group, `Σ qᵢ` over each of the 16 sign patterns, rounded to u8 with one step `Δ` for
//! every table. Rounding adds an error of standard deviation `Δ·√(G/12)` to the sum over
//! `G` groups, far below the sketch's own (the bound adds it anyway).
//!
//! A segment's scan codes live in memory only: a flush copies the memtable's, and a
//! segment opened without its index encodes them from its vectors (about 2 µs a row), so
//! the file format does not change.
//! Only fields whose index is approximate get them; a flat field's search stays exact.
//!
//! [`sketch`]: super::sketch

use std::sync::Arc;

use roaring::RoaringBitmap;

use super::rotation::Rotation;
use super::sketch;
use crate::index::flat::PreparedQuery;
use crate::index::topk::{Candidate, Sink};
use crate::kernels::{Kernels, SCAN_BLOCK, SCAN_MAX_PAIRS};
use crate::schema::Metric;
use crate::storage::column::{VectorColumn, VectorData};
use crate::value::Value;

/// Deviations of the sketch estimate subtracted before a row's vector is skipped. Wider
/// than a graph's screen ([`sketch::SCREEN_SIGMAS`]): a graph meets a missed neighbour's
/// neighbours again, a scan does not, and the vectors a scan reads are few either way.
pub(crate) const SCAN_SIGMAS: f32 = 2.0;

/// Seed of the rotation every field's scan codes use.
const SEED: u64 = 0x5CA4_C0DE_F2E5;

/// The scan codes of one field of one segment or memtable chunk.
#[derive(Clone, Debug)]
pub(crate) struct ScanCodes {
    dim: usize,
    metric: Metric,
    /// Byte columns per block: `dim.div_ceil(8)`.
    columns: usize,
    rows: usize,
    /// Per block of [`SCAN_BLOCK`] rows, `columns × 32` bytes: byte `32p + r` holds
    /// dimensions `8p..8p + 8` of the block's row `r` (bit `j` is dimension `8p + j`).
    codes: Vec<u8>,
    /// Per block: its rows' sketch scales, errors and squared norms.
    factors: Vec<BlockFactors>,
    rotation: Arc<Rotation>,
    /// Encoding scratch: the row widened to f32, rotated, and its sketch.
    input: Vec<f32>,
    rotated: Vec<f32>,
    tmp: Vec<f32>,
    words: Vec<u64>,
}

impl ScanCodes {
    pub(crate) fn new(dim: usize, metric: Metric) -> ScanCodes {
        ScanCodes::with_rotation(dim, metric, Arc::new(Rotation::new(dim, SEED)))
    }

    /// Empty codes of the same field (sharing the rotation).
    pub(crate) fn empty_like(&self) -> ScanCodes {
        ScanCodes::with_rotation(self.dim, self.metric, self.rotation.clone())
    }

    fn with_rotation(dim: usize, metric: Metric, rotation: Arc<Rotation>) -> ScanCodes {
        ScanCodes {
            dim,
            metric,
            columns: dim.div_ceil(8),
            rows: 0,
            codes: Vec::new(),
            factors: Vec::new(),
            rotation,
            input: Vec::new(),
            rotated: vec![0.0; dim],
            tmp: Vec::new(),
            words: vec![0; sketch::words_per_row(dim)],
        }
    }

    /// The codes of rows `0..rows` of `col` (null rows are encoded as zeros; the scan
    /// skips them).
    pub(crate) fn of_column(col: &VectorColumn, rows: usize, metric: Metric) -> ScanCodes {
        let mut codes = ScanCodes::new(col.dim, metric);
        codes.codes.reserve(rows.div_ceil(SCAN_BLOCK) * codes.columns * 32);
        codes.factors.reserve(rows.div_ceil(SCAN_BLOCK));
        let dim = col.dim;
        for r in 0..rows {
            match col.data {
                VectorData::Fp32(d) => codes.push(&d[r * dim..(r + 1) * dim]),
                VectorData::Fp16(d) => codes.push_converted(&d[r * dim..(r + 1) * dim], |v| v.to_f32()),
                VectorData::Int8(d) => codes.push_converted(&d[r * dim..(r + 1) * dim], f32::from),
            }
        }
        codes
    }

    /// Appends a copy of row `row` of `other` (codes of the same field): what a flush
    /// does with the memtable's codes instead of encoding the rows again.
    pub(crate) fn push_copy(&mut self, other: &ScanCodes, row: usize) {
        debug_assert_eq!((self.dim, self.metric), (other.dim, other.metric));
        let (block, r) = (self.rows / SCAN_BLOCK, self.rows % SCAN_BLOCK);
        let (from, fr) = (row / SCAN_BLOCK, row % SCAN_BLOCK);
        let size = self.columns * 32;
        if r == 0 {
            self.codes.resize(self.codes.len() + size, 0);
            self.factors.push(BlockFactors::default());
        }
        let src = &other.codes[from * size..(from + 1) * size];
        let dst = &mut self.codes[block * size..(block + 1) * size];
        for p in 0..self.columns {
            dst[32 * p + r] = src[32 * p + fr];
        }
        let (f, g) = (&other.factors[from], self.factors.last_mut().expect("pushed with the block"));
        (g.a[r], g.e[r], g.n2[r]) = (f.a[fr], f.e[fr], f.n2[fr]);
        self.rows += 1;
    }

    /// Appends the codes of one value of the field (a null one as zeros).
    pub(crate) fn push_value(&mut self, v: &Value) {
        match v {
            Value::VectorFp32(x) => self.push(x),
            Value::VectorFp16(x) => self.push_converted(x, |v| v.to_f32()),
            Value::VectorInt8(x) => self.push_converted(x, f32::from),
            _ => self.push_converted(&[], |v: f32| v),
        }
    }

    /// Appends `x` widened to f32 (padded with zeros to `dim`).
    fn push_converted<T: Copy>(&mut self, x: &[T], widen: impl Fn(T) -> f32) {
        let mut input = std::mem::take(&mut self.input);
        input.clear();
        input.extend(x.iter().map(|&v| widen(v)));
        input.resize(self.dim, 0.0);
        self.push(&input);
        self.input = input;
    }

    /// Appends the codes of one row (`dim` values).
    pub(crate) fn push(&mut self, x: &[f32]) {
        debug_assert_eq!(x.len(), self.dim);
        self.rotation.apply(x, &mut self.rotated, &mut self.tmp);
        sketch::encode(&self.rotated, self.metric, &mut self.words);
        let (block, r) = (self.rows / SCAN_BLOCK, self.rows % SCAN_BLOCK);
        let size = self.columns * 32;
        if r == 0 {
            self.codes.resize(self.codes.len() + size, 0);
            self.factors.push(BlockFactors::default());
        }
        transpose_into(&self.words, self.columns, r, &mut self.codes[block * size..(block + 1) * size]);
        let [a, e, n2] = sketch::Sketches { words: &self.words, dim: self.dim }.row(0).factors();
        let f = self.factors.last_mut().expect("pushed with the block");
        (f.a[r], f.e[r], f.n2[r]) = (a, e, n2);
        self.rows += 1;
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        self.codes.capacity() + self.factors.capacity() * size_of::<BlockFactors>()
    }
}

/// The sketch factors of one block's rows, by kind, so a block's bounds vectorize.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct BlockFactors {
    pub a: [f32; SCAN_BLOCK],
    pub e: [f32; SCAN_BLOCK],
    pub n2: [f32; SCAN_BLOCK],
}

/// The table sums of one block's 32 rows: `columns` byte columns of transposed sign bits
/// (byte `32p + r` is row `r`'s dimensions `8p..8p + 8`) against the query's tables.
#[inline]
pub(crate) fn block_sums(k: &Kernels, block: &[u8], lut: &[u8], columns: usize) -> [u32; SCAN_BLOCK] {
    let (mut sums, mut part) = ([0u32; SCAN_BLOCK], [0u16; SCAN_BLOCK]);
    for c in (0..columns).step_by(SCAN_MAX_PAIRS) {
        let bytes = 32 * c..32 * (c + SCAN_MAX_PAIRS).min(columns);
        (k.scan_u4)(&block[bytes.clone()], &lut[bytes], &mut part);
        sums.iter_mut().zip(part).for_each(|(s, p)| *s += u32::from(p));
    }
    sums
}

/// Writes a sketch's sign bits (`words`, as [`sketch::encode`] makes them) as row `r` of
/// a transposed block of `columns` byte columns.
pub(crate) fn transpose_into(words: &[u64], columns: usize, r: usize, block: &mut [u8]) {
    for p in 0..columns {
        block[32 * p + r] = (words[p / 8] >> (8 * (p % 8))) as u8;
    }
}

/// `ENTRY_BITS[j][m]`: 1 when table entry `m` includes dimension `j` of its group.
const ENTRY_BITS: [[f32; 16]; 4] = {
    let mut bits = [[0f32; 16]; 4];
    let mut m = 0;
    while m < 16 {
        let mut j = 0;
        while j < 4 {
            bits[j][m] = ((m >> j) & 1) as f32;
            j += 1;
        }
        m += 1;
    }
    bits
};

/// A query prepared for scan codes: its per-group lookup tables, and the sketch bound
/// ([`sketch::lower_bound`]) of a row with table sum `t` unrolled into one linear form,
/// `base + norm · n2 − scale · (a · (step · t + shift) + spread · e)`, that a block
/// evaluates for its 32 rows at once.
#[derive(Clone, Debug, Default)]
pub(crate) struct ScanQuery {
    /// 16 entries per group of four dimensions, two groups per byte column.
    lut: Vec<u8>,
    /// `Σ ±qᵢ = step · t + shift`: twice the tables' step `Δ` (an entry `t` of group `g`
    /// stands for `low_g + Δ · t`), and `2 Σ_g low_g − Σ qᵢ` plus a slack that covers
    /// the tables' rounding ([`SCAN_SIGMAS`] of its deviation).
    step: f32,
    shift: f32,
    base: f32,
    norm: f32,
    scale: f32,
    /// [`SCAN_SIGMAS`] × the query norm the error scales with.
    spread: f32,
    /// Scratch: the query's groups of four dimensions, padded.
    values: Vec<[f32; 4]>,
}

impl ScanQuery {
    /// Prepares `q` (the query as the caller gave it) for `codes` and every other field's
    /// codes of the same dimension and metric (they share the rotation).
    pub(crate) fn new(codes: &ScanCodes, q: &[f32]) -> ScanQuery {
        let mut y = vec![0f32; codes.dim];
        codes.rotation.apply(q, &mut y, &mut Vec::new());
        let norm_sq = super::normalize_for(codes.metric, &mut y);
        ScanQuery::rotated(&y, norm_sq, codes.metric, SCAN_SIGMAS)
    }

    /// Prepares a query already rotated (and of unit length for cosine), of squared norm
    /// `norm_sq`, with bounds `sigmas` deviations below the estimate.
    pub(crate) fn rotated(y: &[f32], norm_sq: f32, metric: Metric, sigmas: f32) -> ScanQuery {
        let mut q = ScanQuery::default();
        q.set_rotated(y, norm_sq, metric, sigmas);
        q
    }

    /// [`rotated`](ScanQuery::rotated) into `self`, reusing its tables' buffer: a search
    /// that prepares one query after another allocates nothing (the allocations were half
    /// of preparing a quantized graph's query, counted by callgrind).
    pub(crate) fn set_rotated(&mut self, y: &[f32], norm_sq: f32, metric: Metric, sigmas: f32) {
        let groups = y.len().div_ceil(8) * 2;
        // The query's groups of four dimensions, padded with zeros to a whole number of
        // byte columns.
        self.values.clear();
        self.values.resize(groups, [0.0; 4]);
        self.values.as_flattened_mut()[..y.len()].copy_from_slice(y);
        let low = |v: &[f32; 4]| v.iter().map(|x| x.min(0.0)).sum::<f32>();
        let (mut low_sum, mut span) = (0f32, 0f32);
        for v in &self.values {
            low_sum += low(v);
            span = span.max(v.iter().map(|x| x.abs()).sum());
        }
        let delta = if span > 0.0 { span / 255.0 } else { 1.0 };
        self.lut.clear();
        self.lut.resize(groups * 16, 0);
        for (out, v) in self.lut.as_chunks_mut::<16>().0.iter_mut().zip(&self.values) {
            // Entry `m` sums the dimensions whose bits `m` has, in ascending order (a
            // dimension left out adds an exact zero): sixteen sums of four products,
            // which the compiler turns into vector instructions.
            let e: [f32; 16] = std::array::from_fn(|m| {
                ENTRY_BITS[0][m] * v[0] + ENTRY_BITS[1][m] * v[1] + ENTRY_BITS[2][m] * v[2] + ENTRY_BITS[3][m] * v[3]
            });
            // The 16 entries sharing a `low` subtract and divide in a few vector
            // instructions. `max` and `min` map NaN to 0 and keep the value in 0..=255, so
            // it converts without `as`'s saturating checks, which kept the loop one entry
            // at a time.
            let lo = low(v);
            for (o, x) in out.iter_mut().zip(e) {
                #[allow(clippy::manual_clamp, reason = "clamp keeps NaN, which the conversion below must not see")]
                let v = ((x - lo) / delta + 0.5).max(0.0).min(255.0);
                // SAFETY: `v` is finite and within 0..=255 (NaN became 0 above).
                *o = unsafe { v.to_int_unchecked::<i32>() } as u8;
            }
        }
        let slack = sigmas * 2.0 * delta * (groups as f32 / 12.0).sqrt();
        let shift = 2.0 * low_sum - y.iter().sum::<f32>() + slack;
        let (base, norm, scale, q_norm) = match metric {
            Metric::Cosine => (0.0, 0.0, 1.0, 1.0),
            Metric::Ip => (0.0, 0.0, 1.0, norm_sq.sqrt()),
            Metric::L2 => (norm_sq, 1.0, 2.0, norm_sq.sqrt()),
        };
        (self.step, self.shift, self.base, self.norm, self.scale) = (2.0 * delta, shift, base, norm, scale);
        self.spread = sigmas * q_norm;
    }

    /// The query's tables, 16 entries per group of four dimensions.
    pub(crate) fn lut(&self) -> &[u8] {
        &self.lut
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        self.lut.capacity() + self.values.capacity() * size_of::<[f32; 4]>()
    }

    /// `Σ ±qᵢ` of each row of a block from its table sum `t` (with the slack of the
    /// bound, none when prepared with 0 sigmas): a quantized graph's estimates of
    /// `Σ bᵢ qᵢ`. A table sum is far below 2³¹ (each byte column adds at most 510), so it
    /// converts through `i32`, one vector instruction where `u32` takes several.
    #[inline]
    pub(crate) fn signed_sums(&self, sums: &[u32; SCAN_BLOCK]) -> [f32; SCAN_BLOCK] {
        std::array::from_fn(|i| self.step * sums[i] as i32 as f32 + self.shift)
    }

    /// Lower bounds of a block's rows given their table sums, for rows whose estimated
    /// inner product with the query is `dot +` their sketch's (`dot` is 0 but for rows
    /// coded as residuals to a centroid `c`, where it is `⟨q, c⟩`).
    #[inline]
    pub(crate) fn bounds(&self, sums: &[u32; SCAN_BLOCK], f: &BlockFactors, dot: f32) -> [f32; SCAN_BLOCK] {
        self.bounds_of(sums, [&f.a, &f.e, &f.n2], dot)
    }

    /// [`bounds`](ScanQuery::bounds) from the factors `[a, e, n2]` where they are stored.
    #[inline]
    pub(crate) fn bounds_of(
        &self,
        sums: &[u32; SCAN_BLOCK],
        [a, e, n2]: [&[f32; SCAN_BLOCK]; 3],
        dot: f32,
    ) -> [f32; SCAN_BLOCK] {
        std::array::from_fn(|i| {
            let s = self.step * sums[i] as f32 + self.shift;
            self.base + self.norm * n2[i] - self.scale * (dot + a[i] * s + self.spread * e[i])
        })
    }
}

/// Scores the rows of `col` (all, or only `candidates`) into `top` as [`flat::scan`] does,
/// reading a row's vector only when its sketch's lower bound does not exceed the top's
/// threshold. Null rows are skipped.
///
/// [`flat::scan`]: crate::index::flat::scan
#[allow(clippy::too_many_arguments)]
pub(crate) fn scan(
    k: &Kernels,
    col: &VectorColumn,
    codes: &ScanCodes,
    sq: &ScanQuery,
    q: &PreparedQuery,
    candidates: Option<&RoaringBitmap>,
    segment: u32,
    top: &mut impl Sink,
) {
    let size = codes.columns * 32;
    // Scores the rows of block `b` whose bits `wanted` has.
    let score_block = |b: usize, wanted: u32, top: &mut dyn Sink| {
        let sums = block_sums(k, &codes.codes[b * size..(b + 1) * size], &sq.lut, codes.columns);
        let bounds = sq.bounds(&sums, &codes.factors[b], 0.0);
        let mut threshold = top.threshold();
        let mut left = wanted;
        while left != 0 {
            let r = left.trailing_zeros() as usize;
            left &= left - 1;
            // Checked against the threshold as it tightens inside the block.
            let row = b * SCAN_BLOCK + r;
            if bounds[r] > threshold || !col.validity.is_valid(row) {
                continue;
            }
            let dist = q.distance(k, col, row);
            if dist <= threshold {
                top.push(Candidate { dist, segment, row: row as u32 });
                threshold = top.threshold();
            }
        }
    };
    match candidates {
        Some(c) => {
            let mut it = c.iter().filter(|&r| (r as usize) < codes.rows).peekable();
            while let Some(&first) = it.peek() {
                let b = first as usize / SCAN_BLOCK;
                let mut wanted = 0u32;
                while let Some(r) = it.next_if(|&r| r as usize / SCAN_BLOCK == b) {
                    wanted |= 1 << (r as usize % SCAN_BLOCK);
                }
                score_block(b, wanted, top);
            }
        }
        None => {
            for b in 0..codes.rows.div_ceil(SCAN_BLOCK) {
                let n = (codes.rows - b * SCAN_BLOCK).min(SCAN_BLOCK);
                score_block(b, u32::MAX >> (SCAN_BLOCK - n), top);
            }
        }
    }
}

#[cfg(test)]
impl ScanCodes {
    /// Whether `other` holds the same codes and factors for the same rows of the same field.
    pub(crate) fn same_codes(&self, other: &ScanCodes) -> bool {
        (self.dim, self.metric, self.rows) == (other.dim, other.metric, other.rows)
            && self.codes == other.codes
            && self.factors == other.factors
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::flat;
    use crate::index::rng::SplitMix64;
    use crate::index::topk::TopK;
    use crate::kernels;
    use crate::storage::column::Validity;

    /// Clustered rows, as embeddings are: a query's true neighbours stand out from the rest.
    fn rows(n: usize, dim: usize, seed: u64) -> Vec<f32> {
        let mut rng = SplitMix64::new(seed);
        let mut gauss = move || -> f32 {
            let (u, v) = (rng.next_unit().max(1e-12), rng.next_unit());
            ((-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()) as f32
        };
        let centres: Vec<Vec<f32>> = (0..16).map(|_| (0..dim).map(|_| gauss()).collect()).collect();
        (0..n).flat_map(|i| centres[i % 16].iter().map(|&c| c + 0.7 * gauss()).collect::<Vec<_>>()).collect()
    }

    fn column(data: &[f32], dim: usize) -> VectorColumn<'_> {
        VectorColumn { dim, validity: Validity(None), data: VectorData::Fp32(data), norms: None }
    }

    /// Each table entry is its dimensions' sum in ascending order, so the tables are the
    /// ones a loop over each entry's bits makes, byte for byte (dimensions not a multiple
    /// of 8 pad with zeros).
    #[test]
    fn tables_match_a_sum_over_each_entrys_bits() {
        for dim in [8, 13, 384] {
            let y = rows(1, dim, 3);
            let q = ScanQuery::rotated(&y, 1.0, Metric::L2, 0.0);
            let groups = dim.div_ceil(8) * 2;
            let v = |g: usize, j: usize| y.get(4 * g + j).copied().unwrap_or(0.0);
            let entry = |g: usize, m: usize| (0..4).filter(|j| m >> j & 1 == 1).map(|j| v(g, j)).sum::<f32>();
            let low: Vec<f32> = (0..groups).map(|g| (0..4).map(|j| v(g, j).min(0.0)).sum()).collect();
            let span = (0..groups).map(|g| (0..4).map(|j| v(g, j).abs()).sum::<f32>()).fold(0f32, f32::max);
            let delta = span / 255.0;
            let want: Vec<u8> = (0..groups * 16)
                .map(|i| ((entry(i / 16, i % 16) - low[i / 16]) / delta + 0.5).clamp(0.0, 255.0) as u8)
                .collect();
            assert_eq!(q.lut(), &want[..], "dim {dim}");
        }
    }

    /// A query prepared into a reused one, after queries of other dimensions and metrics,
    /// is the query prepared afresh.
    #[test]
    fn a_reused_query_equals_a_fresh_one() {
        let mut reused = ScanQuery::default();
        for (i, (dim, metric)) in
            [(384, Metric::L2), (13, Metric::Ip), (96, Metric::Cosine), (8, Metric::L2)].into_iter().enumerate()
        {
            let y = rows(1, dim, 10 + i as u64);
            reused.set_rotated(&y, 2.5, metric, 1.5);
            let fresh = ScanQuery::rotated(&y, 2.5, metric, 1.5);
            assert_eq!(reused.lut(), fresh.lut(), "dim {dim}");
            let f = |q: &ScanQuery| [q.step, q.shift, q.base, q.norm, q.scale, q.spread];
            assert_eq!(f(&reused), f(&fresh), "dim {dim}");
        }
    }

    /// A query the engine would refuse (NaN, infinite) still makes tables without a
    /// panic: the entries' conversion to bytes never sees a NaN or an out-of-range value.
    #[test]
    fn tables_of_a_non_finite_query_are_bytes() {
        for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, f32::MAX] {
            let mut y = rows(1, 16, 5);
            y[3] = bad;
            let q = ScanQuery::rotated(&y, 1.0, Metric::Cosine, 0.0);
            assert_eq!(q.lut().len(), 4 * 16, "{bad}");
        }
    }

    /// The screened scan finds what the exact scan finds (recall ≥ 0.99 over many queries,
    /// for every metric and with candidates), while reading few vectors.
    #[test]
    fn screened_scan_matches_the_exact_scan() {
        // 1,100 dimensions take two kernel calls per block.
        for (n, dim) in [(3_000, 96), (600, 1_100)] {
            screened_scan_matches_at(n, dim);
        }
    }

    fn screened_scan_matches_at(n: usize, dim: usize) {
        let k = 10;
        let data = rows(n, dim, 1);
        let queries = rows(40, dim, 2);
        let kernels = kernels::best();
        for metric in [Metric::Cosine, Metric::Ip, Metric::L2] {
            let norms: Vec<f32> = data.chunks(dim).map(|r| r.iter().map(|x| x * x).sum::<f32>().sqrt()).collect();
            let mut col = column(&data, dim);
            if metric == Metric::Cosine {
                col.norms = Some(&norms);
            }
            let codes = ScanCodes::of_column(&col, n, metric);
            assert_eq!(codes.rows, n);
            let mut allowed = RoaringBitmap::new();
            allowed.extend((0..n as u32).filter(|r| !r.is_multiple_of(3)));
            for cands in [None, Some(&allowed)] {
                let (mut found, mut total) = (0, 0);
                for q in queries.chunks(dim) {
                    let pq = PreparedQuery::float(metric, q.to_vec());
                    let mut exact = TopK::new(k);
                    flat::scan(kernels, &col, n, &pq, cands, 0, &mut exact);
                    let sq = ScanQuery::new(&codes, q);
                    let mut screened = TopK::new(k);
                    scan(kernels, &col, &codes, &sq, &pq, cands, 0, &mut screened);
                    let want: Vec<u32> = exact.into_sorted().iter().map(|c| c.row).collect();
                    let got = screened.into_sorted();
                    assert!(got.iter().all(|c| cands.is_none_or(|a| a.contains(c.row))));
                    found += got.iter().filter(|c| want.contains(&c.row)).count();
                    total += want.len();
                }
                let recall = found as f64 / total as f64;
                assert!(recall >= 0.99, "dim {dim} {metric:?} candidates {}: recall {recall}", cands.is_some());
            }
        }
    }

    /// The bound skips most rows: a scan reads far fewer vectors than it scores sketches.
    #[test]
    fn most_vectors_are_not_read() {
        struct Counting(TopK, usize);
        impl Sink for Counting {
            fn threshold(&self) -> f32 {
                self.0.threshold()
            }
            fn push(&mut self, c: Candidate) {
                self.1 += 1;
                self.0.push(c);
            }
        }
        let (n, dim) = (4_000, 128);
        let data = rows(n, dim, 3);
        let col = column(&data, dim);
        let codes = ScanCodes::of_column(&col, n, Metric::L2);
        let q = &rows(1, dim, 4)[..];
        let pq = PreparedQuery::float(Metric::L2, q.to_vec());
        let mut top = Counting(TopK::new(10), 0);
        // Seed the threshold as the indexed segments of a query would.
        flat::scan(kernels::best(), &col, 200, &pq, None, 0, &mut top.0);
        scan(kernels::best(), &col, &codes, &ScanQuery::new(&codes, q), &pq, None, 1, &mut top);
        assert!(top.1 < n / 10, "{} of {n} rows pushed", top.1);
    }

    /// Codes appended row by row, or copied from other codes, equal codes built from the
    /// column, across block edges and dimensions that leave a partial byte column.
    #[test]
    fn pushed_and_copied_codes_equal_column_codes() {
        for dim in [1, 7, 8, 9, 100] {
            let data = rows(70, dim, 5);
            let col = column(&data, dim);
            let built = ScanCodes::of_column(&col, 70, Metric::Ip);
            let mut pushed = ScanCodes::new(dim, Metric::Ip);
            data.chunks(dim).for_each(|r| pushed.push(r));
            assert_eq!(built.codes, pushed.codes, "dim {dim}");
            assert_eq!(built.factors, pushed.factors, "dim {dim}");
            assert_eq!(built.codes.len(), 3 * dim.div_ceil(8) * 32);
            // Rows copied one by one, some skipped, equal the codes of the rows kept.
            let kept: Vec<usize> = (0..70).filter(|r| r % 3 != 1).collect();
            let mut copied = ScanCodes::new(dim, Metric::Ip);
            kept.iter().for_each(|&r| copied.push_copy(&built, r));
            let mut direct = ScanCodes::new(dim, Metric::Ip);
            kept.iter().for_each(|&r| direct.push(&data[r * dim..(r + 1) * dim]));
            assert_eq!((copied.codes, copied.factors), (direct.codes, direct.factors), "dim {dim}");
        }
    }
}
