//! k-means for IVF lists: a seeded sample of the rows as the initial centroids, then a
//! few Lloyd rounds on at most [`MAX_POINTS_PER_LIST`] points per list (faiss caps it too),
//! and the final assignment of every row, with an optional SOAR spill.
//!
//! Rows are scored against all centroids a block at a time as one matrix product
//! (`matrixmultiply`'s sgemm), which is what makes training minutes instead of hours:
//! `|x − c|² = |x|² + |c|² − 2 ⟨x, c⟩`, and only `|c|² − 2 ⟨x, c⟩` orders the lists.
//! Blocks run in parallel on the build's pool. For cosine the points are the rows scaled
//! to unit length and the centroids are kept unit length (spherical k-means).

use rayon::prelude::*;

use crate::index::rng::SplitMix64;
use crate::storage::column::VectorColumn;

/// Lloyd rounds of training.
pub(crate) const TRAIN_ROUNDS: usize = 10;

/// Most training points per list. faiss samples 256 (and warns below 39); on
/// wordnet-minilm-384 at nlist 1024, 64 built in 5.6–6.0 s instead of 7.7–8.0 s with
/// recall@10 within 0.003 at every nprobe from 32 to 128 (`docs/benchmarks/ivf.csv`).
pub(crate) const MAX_POINTS_PER_LIST: usize = 64;

/// Rows scored against the centroids in one matrix product.
const BLOCK: usize = 256;

/// The rows k-means reads, by row number.
pub(crate) struct Points<'a> {
    pub col: VectorColumn<'a>,
    pub rows: &'a [u32],
    /// Scale every point to unit length (cosine).
    pub spherical: bool,
}

impl Points<'_> {
    fn dim(&self) -> usize {
        self.col.dim
    }

    /// Points `range` into `out`, one after another.
    pub(crate) fn gather(&self, range: std::ops::Range<usize>, out: &mut Vec<f32>) {
        out.clear();
        for &r in &self.rows[range] {
            let start = out.len();
            self.col.extend_f32(r as usize, out);
            if self.spherical {
                unit(&mut out[start..]);
            }
        }
    }
}

/// Scales `v` to unit length, unless it is zero.
pub(crate) fn unit(v: &mut [f32]) {
    let n = v.iter().map(|&x| x as f64 * x as f64).sum::<f64>().sqrt();
    if n > 0.0 {
        let inv = (1.0 / n) as f32;
        v.iter_mut().for_each(|x| *x *= inv);
    }
}

/// `out[i · n + j] = ⟨a_i, b_j⟩` for the `m` rows of `a` and the `n` rows of `b`.
pub(crate) fn dot_matrix(a: &[f32], b: &[f32], dim: usize, out: &mut Vec<f32>) {
    let (m, n) = (a.len() / dim, b.len() / dim);
    out.clear();
    out.resize(m * n, 0.0);
    if m == 0 || n == 0 || dim == 0 {
        return;
    }
    // SAFETY: `a` holds m × dim floats (row stride dim), `b` n × dim read as its
    // transpose (dim × n: row stride 1, column stride dim), `out` m × n (row stride n);
    // every index sgemm forms lies within those bounds.
    unsafe {
        matrixmultiply::sgemm(
            m,
            dim,
            n,
            1.0,
            a.as_ptr(),
            dim as isize,
            1,
            b.as_ptr(),
            1,
            dim as isize,
            0.0,
            out.as_mut_ptr(),
            n as isize,
            1,
        );
    }
}

fn norms_sq(v: &[f32], dim: usize) -> Vec<f32> {
    v.chunks_exact(dim).map(|c| c.iter().map(|x| x * x).sum()).collect()
}

/// Trains `lists` centroids on `points` (at least `lists` of them); `None` when `cancel`
/// says stop. `round` is told each finished round.
pub(crate) fn train(
    points: &Points,
    lists: usize,
    seed: u64,
    round: &(dyn Fn(usize) + Sync),
    cancel: &(dyn Fn() -> bool + Sync),
) -> Option<Vec<f32>> {
    let dim = points.dim();
    let mut rng = SplitMix64::new(seed ^ 0x6b6d_6561_6e73);
    let n = points.rows.len();
    debug_assert!(n >= lists && lists > 0);
    let mut order: Vec<u32> = (0..n as u32).collect();
    let take = n.min(lists * MAX_POINTS_PER_LIST);
    // A partial Fisher–Yates shuffle: the first `take` are a uniform sample, the first
    // `lists` of them the initial centroids.
    for i in 0..take {
        let j = i + rng.below((n - i) as u64) as usize;
        order.swap(i, j);
    }
    let sample: Vec<u32> = order[..take].iter().map(|&i| points.rows[i as usize]).collect();
    let sample = Points { rows: &sample, ..*points };
    let mut centroids = Vec::with_capacity(lists * dim);
    sample.gather(0..lists, &mut centroids);
    for r in 0..TRAIN_ROUNDS {
        if cancel() {
            return None;
        }
        let (sums, counts) = accumulate(&sample, &centroids, lists);
        for (l, c) in centroids.chunks_exact_mut(dim).enumerate() {
            if counts[l] > 0 {
                let inv = 1.0 / counts[l] as f64;
                for (x, s) in c.iter_mut().zip(&sums[l * dim..(l + 1) * dim]) {
                    *x = (*s * inv) as f32;
                }
                if points.spherical {
                    unit(c);
                }
            }
        }
        split_empty(&mut centroids, counts, dim, &mut rng);
        round(r + 1);
    }
    Some(centroids)
}

/// The nearest centroid of every sample point, summed per list (f64 sums: a list may
/// hold a quarter of a million points).
fn accumulate(sample: &Points, centroids: &[f32], lists: usize) -> (Vec<f64>, Vec<u64>) {
    let dim = sample.dim();
    let cn = norms_sq(centroids, dim);
    let blocks = sample.rows.len().div_ceil(BLOCK);
    (0..blocks)
        .into_par_iter()
        .fold(
            || (vec![0f64; lists * dim], vec![0u64; lists], Vec::new(), Vec::new()),
            |(mut sums, mut counts, mut x, mut s), b| {
                let range = b * BLOCK..((b + 1) * BLOCK).min(sample.rows.len());
                sample.gather(range, &mut x);
                dot_matrix(&x, centroids, dim, &mut s);
                for (row, scores) in x.chunks_exact(dim).zip(s.chunks_exact(lists)) {
                    let best = nearest(scores, &cn);
                    counts[best] += 1;
                    for (a, v) in sums[best * dim..(best + 1) * dim].iter_mut().zip(row) {
                        *a += *v as f64;
                    }
                }
                (sums, counts, x, s)
            },
        )
        .map(|(sums, counts, _, _)| (sums, counts))
        .reduce(
            || (vec![0f64; lists * dim], vec![0u64; lists]),
            |(mut s1, mut c1), (s2, c2)| {
                s1.iter_mut().zip(&s2).for_each(|(a, b)| *a += b);
                c1.iter_mut().zip(&c2).for_each(|(a, b)| *a += b);
                (s1, c1)
            },
        )
}

/// The list whose `|c|² − 2 ⟨x, c⟩` is least.
#[inline]
fn nearest(scores: &[f32], cn: &[f32]) -> usize {
    let mut best = (f32::INFINITY, 0);
    for (l, (&s, &n)) in scores.iter().zip(cn).enumerate() {
        let d = n - 2.0 * s;
        if d < best.0 {
            best = (d, l);
        }
    }
    best.1
}

/// faiss's remedy for a list no point chose: split a large list in two, picked with odds
/// in proportion to its size, by nudging its centroid apart in opposite directions.
fn split_empty(centroids: &mut [f32], mut counts: Vec<u64>, dim: usize, rng: &mut SplitMix64) {
    const EPS: f32 = 1.0 / 1024.0;
    let n: u64 = counts.iter().sum();
    let lists = counts.len() as u64;
    for empty in 0..counts.len() {
        if counts[empty] > 0 || n <= lists {
            continue;
        }
        let mut r = rng.next_unit() * (n - lists) as f64;
        let mut big = 0;
        while big + 1 < counts.len() && r >= counts[big].saturating_sub(1) as f64 {
            r -= counts[big].saturating_sub(1) as f64;
            big += 1;
        }
        let src = centroids[big * dim..(big + 1) * dim].to_vec();
        for (j, &v) in src.iter().enumerate() {
            let (up, down) = (v * (1.0 + EPS), v * (1.0 - EPS));
            let (e, b) = if j % 2 == 0 { (up, down) } else { (down, up) };
            centroids[empty * dim + j] = e;
            centroids[big * dim + j] = b;
        }
        counts[empty] = counts[big] / 2;
        counts[big] -= counts[empty];
    }
}

/// Each point's list, and with `soar` (λ) a second list for it chosen by SOAR's
/// spilled loss (Sun et al., NeurIPS 2023): with `r = x − c₁` the residual to its own
/// centroid, the list `c ≠ c₁` least in `|x − c|² + λ ⟨x − c, r⟩² / |r|²`, which prefers
/// a centroid whose residual is orthogonal to `r`, so the query that misses `x` through
/// one list finds it through the other. `u32::MAX` marks no second list (a point on its
/// centroid, or a single list).
pub(crate) fn assign(points: &Points, centroids: &[f32], soar: Option<f32>) -> Vec<[u32; 2]> {
    let dim = points.dim();
    let lists = centroids.len() / dim;
    let cn = norms_sq(centroids, dim);
    // ⟨c, c₁⟩ for every pair: the spilled loss from the block's scores alone.
    let gram = soar.filter(|_| lists > 1).map(|_| {
        let mut g = Vec::new();
        dot_matrix(centroids, centroids, dim, &mut g);
        g
    });
    let blocks = points.rows.len().div_ceil(BLOCK);
    let per_block: Vec<Vec<[u32; 2]>> = (0..blocks)
        .into_par_iter()
        .map_init(
            || (Vec::new(), Vec::new()),
            |(x, s), b| {
                let range = b * BLOCK..((b + 1) * BLOCK).min(points.rows.len());
                points.gather(range, x);
                dot_matrix(x, centroids, dim, s);
                x.chunks_exact(dim)
                    .zip(s.chunks_exact(lists))
                    .map(|(row, scores)| {
                        let first = nearest(scores, &cn);
                        let second = match (&gram, soar) {
                            (Some(g), Some(lambda)) => spill(row, scores, &cn, &g[first * lists..], first, lambda),
                            _ => u32::MAX,
                        };
                        [first as u32, second]
                    })
                    .collect()
            },
        )
        .collect();
    per_block.concat()
}

/// The second list of SOAR's loss for a point `x` in list `first` (see [`assign`]);
/// `gram_row[c] = ⟨c, c₁⟩`.
fn spill(x: &[f32], scores: &[f32], cn: &[f32], gram_row: &[f32], first: usize, lambda: f32) -> u32 {
    let xn: f32 = x.iter().map(|v| v * v).sum();
    let s1 = scores[first];
    let r_sq = xn + cn[first] - 2.0 * s1;
    if r_sq <= 1e-12 * xn.max(1e-30) {
        return u32::MAX;
    }
    let x_dot_r = xn - s1;
    let mut best = (f32::INFINITY, u32::MAX);
    for (c, (&s, &n)) in scores.iter().zip(cn).enumerate() {
        if c == first {
            continue;
        }
        let along = x_dot_r - (s - gram_row[c]);
        let loss = xn + n - 2.0 * s + lambda * along * along / r_sq;
        if loss < best.0 {
            best = (loss, c as u32);
        }
    }
    best.1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::column::{Validity, VectorData};

    fn column(data: &[f32], dim: usize) -> VectorColumn<'_> {
        VectorColumn { dim, data: VectorData::Fp32(data), validity: Validity(None), norms: None }
    }

    #[test]
    fn the_matrix_product_matches_dot_products() {
        let mut rng = SplitMix64::new(3);
        let dim = 13;
        let a: Vec<f32> = (0..5 * dim).map(|_| rng.next_unit() as f32 - 0.5).collect();
        let b: Vec<f32> = (0..7 * dim).map(|_| rng.next_unit() as f32 - 0.5).collect();
        let mut out = Vec::new();
        dot_matrix(&a, &b, dim, &mut out);
        for i in 0..5 {
            for j in 0..7 {
                let want: f32 =
                    a[i * dim..(i + 1) * dim].iter().zip(&b[j * dim..(j + 1) * dim]).map(|(x, y)| x * y).sum();
                assert!((out[i * 7 + j] - want).abs() < 1e-5, "{i},{j}");
            }
        }
    }

    /// Well-separated blobs, twice as many lists: every list holds points of one blob
    /// only, every blob is found, and a spilled list is never the point's own.
    #[test]
    fn blobs_are_found_and_spills_go_elsewhere() {
        let (dim, blobs, per) = (8, 6, 200);
        let mut rng = SplitMix64::new(11);
        let centres: Vec<Vec<f32>> =
            (0..blobs).map(|_| (0..dim).map(|_| (rng.next_unit() as f32 - 0.5) * 100.0).collect()).collect();
        let mut data = Vec::new();
        for i in 0..blobs * per {
            data.extend(centres[i % blobs].iter().map(|c| c + rng.next_unit() as f32 - 0.5));
        }
        let rows: Vec<u32> = (0..(blobs * per) as u32).collect();
        let points = Points { col: column(&data, dim), rows: &rows, spherical: false };
        let centroids = train(&points, 2 * blobs, 5, &|_| {}, &|| false).unwrap();
        let lists = assign(&points, &centroids, Some(1.0));
        let mut blob_of_list = std::collections::HashMap::new();
        for (i, [first, second]) in lists.iter().enumerate() {
            assert_eq!(*blob_of_list.entry(*first).or_insert(i % blobs), i % blobs, "point {i}");
            assert_ne!(*second, *first);
            assert!(*second < 2 * blobs as u32);
        }
        let found: std::collections::HashSet<usize> = blob_of_list.values().copied().collect();
        assert_eq!(found.len(), blobs);
    }
}
