//! What graph traversal and exact scans score against: the originals in the segment, or
//! an index's quantized codes. Both answer "distance of the query to row r" (lower is
//! better) and can prefetch a row before it is scored.

use std::cmp::Ordering;

use super::flat::PreparedQuery;
use super::quant::sketch::Screen;
use super::quant::{Codes, QuantQuery};
use crate::kernels::{self, Kernels};
use crate::schema::Metric;
use crate::storage::column::{VectorColumn, VectorData};

/// A node and its distance to the query, ordered by distance then id.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Scored {
    pub dist: f32,
    pub id: u32,
}

impl Eq for Scored {}

impl Ord for Scored {
    fn cmp(&self, other: &Self) -> Ordering {
        self.dist.total_cmp(&other.dist).then(self.id.cmp(&other.id))
    }
}

impl PartialOrd for Scored {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Cache lines prefetched per row: the hardware prefetcher streams the rest, and more
/// would exhaust the line-fill buffers when a whole neighbour list is prefetched at once.
pub(crate) const PREFETCH_LINES: usize = 2;

/// Rows being loaded while one is scored, when a search scores a list of rows (the fresh
/// neighbours of a node). Prefetching a whole list at once (20 × 7 lines for int8 at dim
/// 384) overflows the CPU's miss buffers and stalls on the prefetches themselves; a window
/// of 4 keeps loads overlapped without that (13–15% more QPS for int8 HNSW, 5% for fp32 on
/// wordnet-minilm-384, m=16).
pub(crate) const PREFETCH_AHEAD: usize = 4;

/// Distance of one prepared query to any row of a segment.
pub(crate) trait Scorer {
    fn dist(&self, row: u32) -> f32;
    /// Bytes of a row that [`Scorer::dist`] reads (what the search cost model weighs).
    fn row_bytes(&self) -> usize;
    /// Hints the CPU to load row `row`'s data; no effect on results.
    fn prefetch(&self, row: u32);

    /// The screen a search may consult before scoring a row (when the rows have sketches).
    fn screen(&self) -> Option<&Screen<'_>> {
        None
    }
}

/// Scores against the segment's original vectors (mapped, used in place).
pub(crate) struct Originals<'a> {
    pub kernels: &'static Kernels,
    pub col: VectorColumn<'a>,
    pub query: &'a PreparedQuery,
    /// The rows' sketches, when a graph search should screen with them.
    pub screen: Option<Screen<'a>>,
}

impl Scorer for Originals<'_> {
    #[inline]
    fn dist(&self, row: u32) -> f32 {
        self.query.distance(self.kernels, &self.col, row as usize)
    }

    fn row_bytes(&self) -> usize {
        let elem = match self.col.data {
            VectorData::Fp32(_) => 4,
            VectorData::Fp16(_) => 2,
            VectorData::Int8(_) => 1,
        };
        self.col.dim * elem
    }

    fn screen(&self) -> Option<&Screen<'_>> {
        self.screen.as_ref()
    }

    #[inline]
    fn prefetch(&self, row: u32) {
        self.prefetch_lines(row, PREFETCH_LINES);
    }
}

impl Originals<'_> {
    /// Prefetches the first `lines` cache lines of row `row` (`usize::MAX`: all of it).
    #[inline]
    pub(crate) fn prefetch_lines(&self, row: u32, lines: usize) {
        let r = row as usize * self.col.dim..(row as usize + 1) * self.col.dim;
        match self.col.data {
            VectorData::Fp32(d) => kernels::prefetch_lines(&d[r], lines),
            VectorData::Fp16(d) => kernels::prefetch_lines(&d[r], lines),
            VectorData::Int8(d) => kernels::prefetch_lines(&d[r], lines),
        }
    }
}

/// Scores a prepared query against an index's quantized codes.
pub(crate) struct CodeScorer<'a> {
    pub kernels: &'static Kernels,
    pub codes: Codes<'a>,
    /// The rows' sketches, when the index keeps them: searches then screen neighbours.
    pub screen: Option<Screen<'a>>,
    pub query: &'a QuantQuery,
    pub metric: Metric,
}

impl CodeScorer<'_> {
    /// The distance with the query in full precision: what a search reports when it does
    /// not refine with the originals.
    pub(crate) fn precise(&self, row: u32) -> f32 {
        self.codes.distance(self.kernels, self.query, self.metric, row, true)
    }

    /// Whether [`Scorer::dist`] is coarser than [`CodeScorer::precise`].
    pub(crate) fn rounds_query(&self) -> bool {
        self.codes.rounds_query()
    }
}

impl Scorer for CodeScorer<'_> {
    #[inline]
    fn dist(&self, row: u32) -> f32 {
        self.codes.distance(self.kernels, self.query, self.metric, row, false)
    }

    fn row_bytes(&self) -> usize {
        self.codes.code_bytes
    }

    fn screen(&self) -> Option<&Screen<'_>> {
        self.screen.as_ref()
    }

    #[inline]
    fn prefetch(&self, row: u32) {
        self.codes.prefetch(row);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::quant::rotation::Rotation;
    use crate::index::quant::{PARAMS_PER_ROW, QuantScratch, Quantizer};
    use crate::index::rng::SplitMix64;
    use crate::schema::Quantize;

    fn reference(metric: Metric, q: &[f32], x: &[f32]) -> f32 {
        let dot: f64 = q.iter().zip(x).map(|(a, b)| *a as f64 * *b as f64).sum();
        let nq: f64 = q.iter().map(|a| (*a as f64).powi(2)).sum();
        let nx: f64 = x.iter().map(|a| (*a as f64).powi(2)).sum();
        (match metric {
            Metric::L2 => nq + nx - 2.0 * dot,
            Metric::Ip => -dot,
            Metric::Cosine => -dot / (nq.sqrt() * nx.sqrt()),
        }) as f32
    }

    /// Codes approximate the exact distance within a bound that shrinks with precision.
    #[test]
    fn code_distances_track_exact_distances() {
        let dim = 64;
        let mut rng = SplitMix64::new(3);
        let mut vec = || -> Vec<f32> { (0..dim).map(|_| rng.next_unit() as f32 * 2.0 - 1.0).collect() };
        let rows: Vec<Vec<f32>> = (0..50).map(|_| vec()).collect();
        let q = vec();
        let rabitq = |bits, tol| (Quantize::Rabitq, bits, tol);
        let kinds = [
            (Quantize::Fp16, 0, 0.002),
            (Quantize::Int8, 0, 0.03),
            (Quantize::Int4, 0, 0.5),
            rabitq(1, 1.2),
            rabitq(3, 0.4),
            rabitq(4, 0.2),
            rabitq(5, 0.1),
            rabitq(8, 0.03),
        ];
        for (kind, bits, tol) in kinds {
            for rotate in [false, true] {
                for metric in [Metric::L2, Metric::Ip, Metric::Cosine] {
                    let rot = rotate.then(|| Rotation::new(dim, 1));
                    let quant = Quantizer::new(kind, bits, dim, metric, rot);
                    let mut s = QuantScratch::default();
                    let mut codes = vec![0u8; quant.code_bytes() * rows.len()];
                    let mut params = vec![0f32; PARAMS_PER_ROW * rows.len()];
                    for (i, r) in rows.iter().enumerate() {
                        let cb = quant.code_bytes();
                        let (c, p) = (&mut codes[i * cb..(i + 1) * cb], &mut params[i * 3..i * 3 + 3]);
                        quant.encode(r, c, p, &mut s);
                    }
                    let prepared = quant.prepare(&q, &mut s);
                    let scorer = CodeScorer {
                        kernels: crate::kernels::best(),
                        codes: quant.view(&codes, &params),
                        screen: None,
                        query: &prepared,
                        metric,
                    };
                    let scale = match metric {
                        Metric::Cosine => 1.0,
                        _ => dim as f32 / 3.0,
                    };
                    for (i, r) in rows.iter().enumerate() {
                        let want = reference(metric, &q, r);
                        for (how, got) in [("dist", scorer.dist(i as u32)), ("precise", scorer.precise(i as u32))] {
                            assert!(
                                (got - want).abs() <= tol * scale,
                                "{kind:?}{bits} rot={rotate} {metric:?} row {i} {how}: {got} vs {want}"
                            );
                        }
                    }
                }
            }
        }
    }
}
