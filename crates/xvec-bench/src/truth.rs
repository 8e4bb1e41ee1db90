//! Exact ground truth by brute force, for datasets that ship none (or whose ground truth
//! does not hold for a `--limit` prefix): every query scored against every base vector
//! with the engine's fastest kernels, four queries per pass over the base, in parallel.
//!
//! Order: best score first, ties broken by the lower base row, like the shipped files.

use rayon::prelude::*;

use super::dataset::GroundTruth;
use super::source::{Dataset, Vectors};
use xvec::Metric;
use xvec::kernels::{self, Kernels};

/// Computes the `k` nearest base rows of each query (as dataset ids) on `threads` threads.
pub fn exact(ds: &Dataset, queries: &[Vec<f32>], metric: Metric, k: usize, threads: usize) -> GroundTruth {
    let all: Vec<u32> = (0..ds.base.len() as u32).collect();
    exact_among(ds, queries, metric, k, threads, &all)
}

/// [`exact`] among the base rows `rows` only (ascending), as a filter allows them.
pub fn exact_among(
    ds: &Dataset,
    queries: &[Vec<f32>],
    metric: Metric,
    k: usize,
    threads: usize,
    rows: &[u32],
) -> GroundTruth {
    let kern = kernels::best();
    let k = k.min(rows.len());
    let run = || {
        let norms = (metric == Metric::Cosine).then(|| base_norms(kern, &ds.base));
        let prepared: Vec<Vec<f32>> = queries.iter().map(|q| prepare(metric, q)).collect();
        prepared
            .par_chunks(4)
            .flat_map_iter(|chunk| nearest(kern, &ds.base, rows, norms.as_deref(), metric, chunk, k))
            .collect::<Vec<Vec<u32>>>()
    };
    let rows = match rayon::ThreadPoolBuilder::new().num_threads(threads.clamp(1, xvec::MAX_BUILD_THREADS)).build() {
        Ok(pool) => pool.install(run),
        // No pool (thread creation refused): the caller's thread does the work.
        Err(_) => run(),
    };
    let ids = rows.into_iter().flat_map(|r| r.into_iter().map(|row| ds.id(row as usize))).collect();
    GroundTruth::from_rows(k, ids)
}

/// Unit length for cosine (so a dot product with a unit row is the cosine).
pub(crate) fn prepare(metric: Metric, q: &[f32]) -> Vec<f32> {
    let mut q = q.to_vec();
    if metric == Metric::Cosine {
        let n = q.iter().map(|&x| f64::from(x) * f64::from(x)).sum::<f64>().sqrt() as f32;
        if n > 0.0 {
            q.iter_mut().for_each(|x| *x /= n);
        }
    }
    q
}

pub(crate) fn base_norms(kern: &Kernels, base: &Vectors) -> Vec<f32> {
    (0..base.len())
        .into_par_iter()
        .map_init(Vec::new, |scratch, i| {
            let r = base.row(i, scratch);
            (kern.dot_f32)(r, r).sqrt()
        })
        .collect()
}

/// The k best rows for each of up to four queries, in one pass over the base.
fn nearest(
    kern: &Kernels,
    base: &Vectors,
    rows: &[u32],
    norms: Option<&[f32]>,
    metric: Metric,
    queries: &[Vec<f32>],
    k: usize,
) -> Vec<Vec<u32>> {
    let mut tops: Vec<Top> = queries.iter().map(|_| Top::new(k)).collect();
    let pad = [queries[0].as_slice(); 4];
    let mut q4 = pad;
    for (slot, q) in q4.iter_mut().zip(queries) {
        *slot = q;
    }
    let mut scratch = Vec::new();
    for &row in rows {
        let row = row as usize;
        let x = base.row(row, &mut scratch);
        let dists = distances4(kern, metric, q4, x, norms.map_or(1.0, |n| n[row]));
        for (top, d) in tops.iter_mut().zip(dists) {
            top.push(d, row as u32);
        }
    }
    tops.into_iter().map(Top::into_rows).collect()
}

/// Distances (smaller is nearer) of four prepared queries to base row `x`, whose norm is
/// `norm` (used by cosine only).
pub(crate) fn distances4(kern: &Kernels, metric: Metric, q4: [&[f32]; 4], x: &[f32], norm: f32) -> [f32; 4] {
    match metric {
        Metric::L2 => (kern.l2_f32_x4)(q4, x),
        Metric::Ip => (kern.dot_f32_x4)(q4, x).map(|d| -d),
        Metric::Cosine => (kern.dot_f32_x4)(q4, x).map(|d| if norm > 0.0 { -d / norm } else { 0.0 }),
        other => unimplemented!("exact distances for the {other} metric"),
    }
}

/// The k smallest (distance, row) pairs seen, kept sorted; ties go to the lower row,
/// which arrives first, so a later equal distance never displaces it.
pub(crate) struct Top {
    k: usize,
    items: Vec<(f32, u32)>,
}

impl Top {
    pub(crate) fn new(k: usize) -> Top {
        Top { k, items: Vec::with_capacity(k + 1) }
    }

    /// Offers a row; true when it entered the k best.
    pub(crate) fn push(&mut self, d: f32, row: u32) -> bool {
        if self.k == 0 || d.is_nan() || (self.items.len() == self.k && d >= self.items[self.k - 1].0) {
            return false;
        }
        let at = self.items.partition_point(|&(x, _)| x <= d);
        self.items.insert(at, (d, row));
        self.items.truncate(self.k);
        true
    }

    fn into_rows(self) -> Vec<u32> {
        self.items.into_iter().map(|(_, r)| r).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::VectorFile;

    fn dataset(rows: &[Vec<f32>]) -> (tempfile::TempDir, Dataset) {
        let dir = tempfile::tempdir().unwrap();
        let mut bytes = Vec::new();
        for r in rows {
            bytes.extend_from_slice(&(r.len() as i32).to_le_bytes());
            r.iter().for_each(|x| bytes.extend_from_slice(&x.to_le_bytes()));
        }
        let p = dir.path().join("base.fvecs");
        std::fs::write(&p, bytes).unwrap();
        let v = || Vectors::Mapped(VectorFile::open(&p).unwrap());
        let ds = Dataset {
            name: "t".into(),
            base: v(),
            base_file: "base.fvecs".into(),
            base_ids: None,
            queries: v(),
            queries_file: "base.fvecs".into(),
            truth: None,
            truth_file: None,
            attributes: None,
        };
        (dir, ds)
    }

    /// The slow twin: f64 scores, full sort, ties by row.
    fn oracle(rows: &[Vec<f32>], q: &[f32], metric: Metric, k: usize) -> Vec<u32> {
        let dot = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| f64::from(*x) * f64::from(*y)).sum::<f64>();
        let mut d: Vec<(f64, u32)> = rows
            .iter()
            .enumerate()
            .map(|(i, x)| {
                let s = match metric {
                    Metric::L2 => x.iter().zip(q).map(|(a, b)| (f64::from(*a) - f64::from(*b)).powi(2)).sum(),
                    Metric::Ip => -dot(q, x),
                    Metric::Cosine => -dot(q, x) / (dot(q, q).sqrt() * dot(x, x).sqrt()),
                    other => unimplemented!("the oracle has no {other} metric"),
                };
                (s, i as u32)
            })
            .collect();
        d.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        d.into_iter().take(k).map(|(_, i)| i).collect()
    }

    #[test]
    fn matches_the_oracle_for_every_metric() {
        // Integer-valued coordinates in a small range: distinct scores are far apart, so
        // f32 rounding cannot reorder them, and exact ties exercise the row tie-break.
        let mut state = 12345u64;
        let mut next = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((state >> 33) % 11) as f32 - 5.0
        };
        let rows: Vec<Vec<f32>> = (0..203).map(|_| (0..17).map(|_| next()).collect()).collect();
        let (_dir, ds) = dataset(&rows);
        let queries: Vec<Vec<f32>> = rows.iter().step_by(29).cloned().collect();
        for metric in [Metric::L2, Metric::Ip] {
            let gt = exact(&ds, &queries, metric, 7, 2);
            assert_eq!((gt.k, gt.len()), (7, queries.len()));
            for (qi, q) in queries.iter().enumerate() {
                assert_eq!(gt.row(qi), oracle(&rows, q, metric, 7), "{metric:?} query {qi}");
            }
        }
        // Cosine: compare the recall, since f32 and f64 may order near-equal cosines differently.
        let gt = exact(&ds, &queries, Metric::Cosine, 7, 1);
        for (qi, q) in queries.iter().enumerate() {
            let want = oracle(&rows, q, Metric::Cosine, 7);
            assert!(crate::dataset::recall_at(gt.row(qi), &want, 7) >= 6.0 / 7.0, "query {qi}");
        }
        // k larger than the base keeps every row.
        assert_eq!(exact(&ds, &queries[..1], Metric::L2, 1000, 1).k, rows.len());
    }
}
