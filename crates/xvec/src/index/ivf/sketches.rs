//! One-bit sketches of the list entries' residuals, 32 entries a block (FastScan), so a
//! probe scores a whole block's lower bounds with two table lookups per byte and reads an
//! entry's codes, or its vector, only when its bound beats the current k-th distance.
//!
//! An entry's sketch is the sign code of its rotated residual `R(x − c)` with the factors
//! of [`sketch::encode`] (as for an inner product: the residual is not normalized), and
//! `|x|²` for L2. Its estimate of `⟨q, x⟩` is `⟨q, c⟩ + a · Σ ±(Rq)ᵢ`, so the bound of
//! [`ScanQuery::bounds`] applies with the list's `⟨q, c⟩` added. Each list starts a new
//! block; the last block of a list is padded with zero entries the search never reads.
//!
//! Storage, one section: every block's `32 × columns` sign bytes (`columns = ⌈dim / 8⌉`,
//! byte `32p + r` holding dimensions `8p..8p + 8` of the block's entry `r`), then every
//! block's factors, `a`, `e` and `n2` for its 32 entries (96 f32).

use rayon::prelude::*;

use super::{IvfView, kmeans};
use crate::index::quant::fastscan;
use crate::index::quant::rotation::Rotation;
use crate::index::quant::sketch;
use crate::kernels::SCAN_BLOCK;
use crate::schema::Metric;
use crate::storage::column::VectorColumn;

/// Deviations of the sketch estimate subtracted before an entry is skipped: wider than a
/// flat scan's ([`fastscan::SCAN_SIGMAS`]), since a probe bounds tens of thousands of
/// entries and a true neighbour skipped is lost to the list search for good.
pub(crate) const LIST_SIGMAS: f32 = 3.0;

/// f32 factors per block: `a`, `e`, `n2` of 32 entries.
const FACTORS_PER_BLOCK: usize = 3 * SCAN_BLOCK;

/// Byte columns of a block at `dim` dimensions.
pub(crate) fn columns(dim: usize) -> usize {
    dim.div_ceil(8)
}

/// The first block of every list, and the total at the end (`lists + 1` values).
pub(crate) fn block_starts(ivf: &IvfView) -> Vec<usize> {
    let mut starts = Vec::with_capacity(ivf.lists() + 1);
    let mut at = 0;
    starts.push(0);
    for l in 0..ivf.lists() {
        at += ivf.list(l).len().div_ceil(SCAN_BLOCK);
        starts.push(at);
    }
    starts
}

/// Bytes of the section for `blocks` blocks at `dim`.
pub(crate) fn section_bytes(blocks: usize, dim: usize) -> usize {
    blocks * (SCAN_BLOCK * columns(dim) + 4 * FACTORS_PER_BLOCK)
}

/// The stored sketches of one index's lists.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ListSketches<'a> {
    pub columns: usize,
    /// Every block's sign bytes.
    pub bits: &'a [u8],
    /// Every block's factors.
    pub factors: &'a [f32],
    /// [`block_starts`].
    pub starts: &'a [usize],
}

impl<'a> ListSketches<'a> {
    /// Splits a section of `blocks` blocks; `None` when it is not `section_bytes` long or
    /// its factors are misaligned.
    pub(crate) fn new(section: &'a [u8], dim: usize, starts: &'a [usize]) -> Option<ListSketches<'a>> {
        let blocks = *starts.last()?;
        if section.len() != section_bytes(blocks, dim) {
            return None;
        }
        let (bits, factors) = section.split_at(blocks * SCAN_BLOCK * columns(dim));
        let factors = crate::storage::mmap::cast_slice(factors)?;
        Some(ListSketches { columns: columns(dim), bits, factors, starts })
    }

    /// Sign bytes of block `b`.
    #[inline]
    pub(crate) fn block(&self, b: usize) -> &'a [u8] {
        let size = SCAN_BLOCK * self.columns;
        &self.bits[b * size..(b + 1) * size]
    }

    /// Factors `[a, e, n2]` of block `b`, in place.
    #[inline]
    pub(crate) fn block_factors(&self, b: usize) -> [&'a [f32; SCAN_BLOCK]; 3] {
        let f = &self.factors[b * FACTORS_PER_BLOCK..(b + 1) * FACTORS_PER_BLOCK];
        std::array::from_fn(|i| f[i * SCAN_BLOCK..(i + 1) * SCAN_BLOCK].try_into().expect("32 factors"))
    }

    /// The sign bits and factors of entry `e` of list `l` (for `verify`): its byte
    /// column values and `[a, e, n2]`.
    pub(crate) fn entry(&self, ivf: &IvfView, l: usize, e: usize) -> (Vec<u8>, [f32; 3]) {
        let i = e - ivf.list(l).start;
        let (b, r) = (self.starts[l] + i / SCAN_BLOCK, i % SCAN_BLOCK);
        let bits = (0..self.columns).map(|p| self.block(b)[32 * p + r]).collect();
        let [a, err, n2] = self.block_factors(b);
        (bits, [a[r], err[r], n2[r]])
    }
}

/// Buffers of [`encode_entry`].
#[derive(Default)]
pub(crate) struct SketchScratch {
    x: Vec<f32>,
    rotated: Vec<f32>,
    tmp: Vec<f32>,
    words: Vec<u64>,
}

impl SketchScratch {
    /// The sign words of the last [`encode_entry`].
    pub(crate) fn words(&self) -> &[u64] {
        &self.words
    }
}

/// The sketch of entry `e`: its sign words (as [`sketch::encode`] lays them out) and
/// `[a, e, n2]`.
pub(crate) fn encode_entry(
    rotation: &Rotation,
    metric: Metric,
    col: VectorColumn,
    ivf: &IvfView,
    e: usize,
    s: &mut SketchScratch,
) -> [f32; 3] {
    let dim = ivf.dim;
    s.x.clear();
    col.extend_f32(ivf.ids[e] as usize, &mut s.x);
    if metric == Metric::Cosine {
        kmeans::unit(&mut s.x);
    }
    let n2 = if metric == Metric::L2 { s.x.iter().map(|v| v * v).sum() } else { 0.0 };
    s.x.iter_mut().zip(ivf.centroid(ivf.list_of(e))).for_each(|(v, c)| *v -= c);
    s.rotated.resize(dim, 0.0);
    s.words.resize(sketch::words_per_row(dim), 0);
    rotation.apply(&s.x, &mut s.rotated, &mut s.tmp);
    sketch::encode(&s.rotated, Metric::Ip, &mut s.words);
    let [a, err, _] = sketch::Sketches { words: &s.words, dim }.row(0).factors();
    [a, err, n2]
}

/// The section of every list's sketches (see the module doc), lists encoded in parallel.
pub(crate) fn encode(rotation: &Rotation, metric: Metric, col: VectorColumn, ivf: IvfView) -> Vec<u8> {
    let (dim, columns) = (ivf.dim, columns(ivf.dim));
    let starts = block_starts(&ivf);
    let per_list: Vec<(Vec<u8>, Vec<f32>)> = (0..ivf.lists())
        .into_par_iter()
        .map(|l| {
            let range = ivf.list(l);
            let blocks = starts[l + 1] - starts[l];
            let (mut bits, mut factors) =
                (vec![0u8; blocks * SCAN_BLOCK * columns], vec![0f32; blocks * FACTORS_PER_BLOCK]);
            let mut s = SketchScratch::default();
            for (i, e) in range.enumerate() {
                let [a, err, n2] = encode_entry(rotation, metric, col, &ivf, e, &mut s);
                let (b, r) = (i / SCAN_BLOCK, i % SCAN_BLOCK);
                let size = SCAN_BLOCK * columns;
                fastscan::transpose_into(&s.words, columns, r, &mut bits[b * size..(b + 1) * size]);
                let f = &mut factors[b * FACTORS_PER_BLOCK..(b + 1) * FACTORS_PER_BLOCK];
                (f[r], f[SCAN_BLOCK + r], f[2 * SCAN_BLOCK + r]) = (a, err, n2);
            }
            (bits, factors)
        })
        .collect();
    let mut out = Vec::with_capacity(section_bytes(starts[ivf.lists()], dim));
    per_list.iter().for_each(|(bits, _)| out.extend_from_slice(bits));
    per_list.iter().for_each(|(_, f)| out.extend(f.iter().flat_map(|x| x.to_le_bytes())));
    out
}
