//! The lists a query must probe to reach a target recall, measured when a segment's lists
//! are built, so a query can ask for a recall instead of an `nprobe`.
//!
//! A seeded sample of [`SAMPLE_QUERIES`] of the segment's rows serve as queries. Each
//! one's [`NEIGHBOURS`] true nearest rows (itself left out) are found by brute force (one
//! sgemm per block of rows), and each neighbour's rank among the lists as that query
//! orders them (the better of its two lists with SOAR). `probes[p]` is then the fewest
//! lists that hold `p`% of all those neighbours. It measures where the neighbours are, not
//! how well the codes rank them: a quantized index without refinement reaches a little
//! less, and queries unlike the rows (another model, another language) may need more.

use rayon::prelude::*;

use super::kmeans::{Points, dot_matrix};
use crate::index::rng::SplitMix64;
use crate::schema::Metric;

/// Rows used as queries.
pub(crate) const SAMPLE_QUERIES: usize = 100;

/// True neighbours per sampled query.
pub(crate) const NEIGHBOURS: usize = 10;

/// Steps of the table: one per percent, `probes[0..=100]`.
pub(crate) const STEPS: usize = 100;

/// Rows scored against the sampled queries in one matrix product.
const BLOCK: usize = 512;

/// `probes[p]` for `p` in `0..=100` (see the module doc); empty when the segment has too
/// few rows for a sample with neighbours.
pub(crate) fn recall_probes(
    points: &Points,
    centroids: &[f32],
    assigned: &[[u32; 2]],
    metric: Metric,
    seed: u64,
) -> Vec<u32> {
    let (n, dim) = (points.rows.len(), points.col.dim);
    let lists = centroids.len() / dim.max(1);
    if n <= NEIGHBOURS || lists == 0 {
        return Vec::new();
    }
    let samples = SAMPLE_QUERIES.min(n);
    let mut rng = SplitMix64::new(seed ^ 0xCA11_B7A7E);
    let mut picked: Vec<usize> = (0..n).collect();
    for i in 0..samples {
        let j = i + (rng.next_u64() % (n - i) as u64) as usize;
        picked.swap(i, j);
    }
    picked.truncate(samples);
    let sample_rows: Vec<u32> = picked.iter().map(|&i| points.rows[i]).collect();
    let sample = Points { col: points.col, rows: &sample_rows, spherical: points.spherical };
    let mut queries = Vec::new();
    sample.gather(0..samples, &mut queries);

    let l2 = metric == Metric::L2;
    let norms = |v: &[f32]| -> Vec<f32> { v.chunks_exact(dim).map(|c| c.iter().map(|x| x * x).sum()).collect() };
    // The NEIGHBOURS + 1 best points of every query in each block, merged after.
    let blocks = n.div_ceil(BLOCK);
    let found: Vec<Vec<Vec<(f32, u32)>>> = (0..blocks)
        .into_par_iter()
        .map_init(
            || (Vec::new(), Vec::new()),
            |(x, s), b| {
                let range = b * BLOCK..((b + 1) * BLOCK).min(n);
                points.gather(range.clone(), x);
                dot_matrix(&queries, x, dim, s);
                let xn = if l2 { norms(x) } else { Vec::new() };
                let width = range.len();
                (0..samples)
                    .map(|q| {
                        let mut best: Vec<(f32, u32)> = s[q * width..(q + 1) * width]
                            .iter()
                            .enumerate()
                            .filter(|&(i, _)| range.start + i != picked[q])
                            .map(|(i, &d)| (if l2 { xn[i] - 2.0 * d } else { -d }, (range.start + i) as u32))
                            .collect();
                        keep_best(&mut best, NEIGHBOURS);
                        best
                    })
                    .collect()
            },
        )
        .collect();
    let mut scores = Vec::new();
    dot_matrix(&queries, centroids, dim, &mut scores);
    let cn = if l2 { norms(centroids) } else { Vec::new() };
    let mut ranks: Vec<u32> = Vec::with_capacity(samples * NEIGHBOURS);
    let mut rank_of = vec![0u32; lists];
    let mut order: Vec<u32> = Vec::with_capacity(lists);
    for q in 0..samples {
        let mut near: Vec<(f32, u32)> = found.iter().flat_map(|b| b[q].iter().copied()).collect();
        keep_best(&mut near, NEIGHBOURS);
        let dist = |l: usize| if l2 { cn[l] - 2.0 * scores[q * lists + l] } else { -scores[q * lists + l] };
        order.clear();
        order.extend(0..lists as u32);
        order.sort_unstable_by(|&a, &b| dist(a as usize).total_cmp(&dist(b as usize)));
        for (rank, &l) in order.iter().enumerate() {
            rank_of[l as usize] = rank as u32;
        }
        for &(_, i) in &near {
            let rank = assigned[i as usize].iter().filter(|&&l| l != u32::MAX).map(|&l| rank_of[l as usize]).min();
            ranks.push(rank.unwrap_or(lists as u32 - 1));
        }
    }
    ranks.sort_unstable();
    (0..=STEPS)
        .map(|p| match (p * ranks.len()).div_ceil(STEPS) {
            0 => 1,
            at => ranks[at - 1] + 1,
        })
        .collect()
}

/// Keeps the `k` least of `v`, in ascending order.
fn keep_best(v: &mut Vec<(f32, u32)>, k: usize) {
    if v.len() > k {
        v.select_nth_unstable_by(k, |a, b| a.0.total_cmp(&b.0));
        v.truncate(k);
    }
    v.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
}

/// The lists to probe for `target` recall (in `(0, 1]`) from a [`recall_probes`] table,
/// at most `lists`.
pub(crate) fn probes_for_recall(table: &[u32], target: f32, lists: usize) -> Option<usize> {
    // Less a hair, so a target given in f32 (0.99 is 0.99000001) keeps its percent.
    let step = ((target as f64 * STEPS as f64 - 1e-4).ceil().max(0.0) as usize).min(STEPS);
    table.get(step).map(|&p| (p as usize).clamp(1, lists.max(1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_target_keeps_its_percent_through_f32() {
        let table: Vec<u32> = (0..=STEPS as u32).map(|p| p + 1).collect();
        for (target, want) in [(0.99f32, 100), (0.5, 51), (0.951, 97), (1.0, 101), (0.001, 2)] {
            assert_eq!(probes_for_recall(&table, target, 1000), Some(want), "{target}");
        }
        assert_eq!(probes_for_recall(&table, 1.0, 7), Some(7));
        assert_eq!(probes_for_recall(&[], 0.9, 7), None);
    }
}
