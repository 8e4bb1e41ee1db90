//! Exact ground truth for every prefix of the base at once, for `--streaming`: while rows
//! arrive in dataset order, a query run against the first `n` rows is scored against the
//! exact top-k of those `n` rows, whatever `n` it saw.
//!
//! One brute-force pass per query over the base in insert order keeps the running top-k
//! and records every row that ever enters it (about `k · (1 + ln(n/k))` rows). The top-k
//! of the first `n` rows is the running top-k after row `n - 1`, and each of its rows was
//! recorded when it entered; any other recorded row before `n` was pushed out by a better
//! one. So it is the `k` best recorded rows with position below `n`.
//!
//! Order and ties as in [`super::truth`]: best first, ties to the lower row.

use rayon::prelude::*;

use super::source::Vectors;
use super::truth::{Top, base_norms, distances4, prepare};
use xvec::Metric;
use xvec::kernels;

/// Every row that entered each query's running top-k, with its distance, in row order.
#[derive(Clone, Debug)]
pub struct PrefixTruth {
    pub k: usize,
    entrants: Vec<Vec<(u32, f32)>>,
}

impl PrefixTruth {
    /// Scans `base` once per four queries on `threads` threads with the engine's kernels.
    pub fn compute(base: &Vectors, queries: &[Vec<f32>], metric: Metric, k: usize, threads: usize) -> PrefixTruth {
        let kern = kernels::best();
        let run = || {
            let norms = (metric == Metric::Cosine).then(|| base_norms(kern, base));
            let prepared: Vec<Vec<f32>> = queries.iter().map(|q| prepare(metric, q)).collect();
            prepared
                .par_chunks(4)
                .flat_map_iter(|chunk| {
                    let mut tops: Vec<Top> = chunk.iter().map(|_| Top::new(k)).collect();
                    let mut entrants: Vec<Vec<(u32, f32)>> = chunk.iter().map(|_| Vec::new()).collect();
                    let mut q4 = [chunk[0].as_slice(); 4];
                    for (slot, q) in q4.iter_mut().zip(chunk) {
                        *slot = q;
                    }
                    let mut scratch = Vec::new();
                    for row in 0..base.len() {
                        let x = base.row(row, &mut scratch);
                        let d4 = distances4(kern, metric, q4, x, norms.as_ref().map_or(1.0, |n| n[row]));
                        for ((top, seen), d) in tops.iter_mut().zip(&mut entrants).zip(d4) {
                            if top.push(d, row as u32) {
                                seen.push((row as u32, d));
                            }
                        }
                    }
                    entrants
                })
                .collect::<Vec<_>>()
        };
        let entrants =
            match rayon::ThreadPoolBuilder::new().num_threads(threads.clamp(1, xvec::MAX_BUILD_THREADS)).build() {
                Ok(pool) => pool.install(run),
                // No pool (thread creation refused): the caller's thread does the work.
                Err(_) => run(),
            };
        PrefixTruth { k, entrants }
    }

    /// Number of queries.
    pub fn len(&self) -> usize {
        self.entrants.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entrants.is_empty()
    }

    /// Rows recorded over all queries: what the method keeps instead of a top-k per prefix.
    pub fn recorded(&self) -> usize {
        self.entrants.iter().map(Vec::len).sum()
    }

    /// The exact top-k rows of query `q` among the first `n` base rows, best first (fewer
    /// than k when `n < k`).
    ///
    /// # Panics
    /// If `q >= self.len()`.
    pub fn top_k(&self, q: usize, n: u64) -> Vec<u32> {
        let seen = &self.entrants[q];
        let before = seen.partition_point(|&(row, _)| u64::from(row) < n);
        let mut best = seen[..before].to_vec();
        best.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        best.truncate(self.k);
        best.into_iter().map(|(row, _)| row).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::VectorFile;

    fn vectors(dir: &std::path::Path, rows: &[Vec<f32>]) -> Vectors {
        let mut bytes = Vec::new();
        for r in rows {
            bytes.extend_from_slice(&(r.len() as i32).to_le_bytes());
            r.iter().for_each(|x| bytes.extend_from_slice(&x.to_le_bytes()));
        }
        let p = dir.join("base.fvecs");
        std::fs::write(&p, bytes).unwrap();
        Vectors::Mapped(VectorFile::open(&p).unwrap())
    }

    /// Brute force over exactly the first `n` rows with the same kernels, sorted fully.
    fn explicit(base: &Vectors, q: &[f32], metric: Metric, k: usize, n: usize) -> Vec<u32> {
        let kern = kernels::best();
        let q = prepare(metric, q);
        let mut scratch = Vec::new();
        let mut d: Vec<(f32, u32)> = (0..n)
            .map(|row| {
                let x = base.row(row, &mut scratch);
                let norm = (kern.dot_f32)(x, x).sqrt();
                (distances4(kern, metric, [&q; 4], x, norm)[0], row as u32)
            })
            .collect();
        d.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        d.into_iter().take(k).map(|(_, r)| r).collect()
    }

    #[test]
    fn every_prefix_matches_brute_force_over_that_prefix() {
        let mut state = 99u64;
        let mut next = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((state >> 33) % 2001) as f32 / 1000.0 - 1.0
        };
        let rows: Vec<Vec<f32>> = (0..1500).map(|_| (0..12).map(|_| next()).collect()).collect();
        let queries: Vec<Vec<f32>> = (0..9).map(|_| (0..12).map(|_| next()).collect()).collect();
        let dir = tempfile::tempdir().unwrap();
        let base = vectors(dir.path(), &rows);
        for metric in [Metric::L2, Metric::Ip, Metric::Cosine] {
            let k = 10;
            let t = PrefixTruth::compute(&base, &queries, metric, k, 2);
            assert_eq!(t.len(), queries.len());
            // About k (1 + ln(n/k)) rows per query, far fewer than n.
            let per_query = t.recorded() as f64 / queries.len() as f64;
            assert!(per_query > k as f64 && per_query < 200.0, "{metric:?}: {per_query}");
            for n in [0, 1, 5, 10, 11, 97, 500, 1499, 1500] {
                for (qi, q) in queries.iter().enumerate() {
                    assert_eq!(t.top_k(qi, n as u64), explicit(&base, q, metric, k, n), "{metric:?} n={n} q={qi}");
                }
            }
        }
        // Ties: equal rows keep the lower position, in every prefix.
        let same = vec![vec![1.0f32, 0.0]; 30];
        let base = vectors(dir.path(), &same);
        let t = PrefixTruth::compute(&base, &[vec![1.0, 0.0]], Metric::L2, 3, 1);
        assert_eq!((t.top_k(0, 30), t.top_k(0, 2), t.recorded()), (vec![0, 1, 2], vec![0, 1], 3));
    }
}
