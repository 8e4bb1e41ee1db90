//! Exact search: score every candidate row of a vector column with the field's kernel.

use roaring::RoaringBitmap;

use super::topk::{Candidate, Sink};
use crate::kernels::Kernels;
use crate::schema::Metric;
use crate::storage::column::{VectorColumn, VectorData};

/// A query vector converted once for the field it searches.
#[derive(Clone, Debug)]
pub(crate) struct PreparedQuery {
    metric: Metric,
    data: QueryData,
}

#[derive(Clone, Debug)]
enum QueryData {
    /// For fp32 and fp16 fields; unit length for cosine.
    Float(Vec<f32>),
    /// For int8 fields, with the query's norm for cosine.
    Int8(Vec<i8>, f32),
}

impl PreparedQuery {
    /// The metric the query's distances are in.
    pub(crate) fn metric(&self) -> Metric {
        self.metric
    }

    /// Prepares a float query (fp32/fp16 fields). The caller checked dimension and finiteness.
    pub(crate) fn float(metric: Metric, mut q: Vec<f32>) -> PreparedQuery {
        if metric == Metric::Cosine {
            let norm = q.iter().map(|&x| (x as f64) * (x as f64)).sum::<f64>().sqrt() as f32;
            if norm > 0.0 {
                q.iter_mut().for_each(|x| *x /= norm);
            }
        }
        PreparedQuery { metric, data: QueryData::Float(q) }
    }

    /// Prepares an int8 query (int8 fields).
    pub(crate) fn int8(metric: Metric, q: Vec<i8>) -> PreparedQuery {
        let norm = q.iter().map(|&x| (x as f64) * (x as f64)).sum::<f64>().sqrt() as f32;
        PreparedQuery { metric, data: QueryData::Int8(q, norm) }
    }

    /// A query for row `row` of `col` itself (graph construction scores nodes this way).
    pub(crate) fn from_row(metric: Metric, col: &VectorColumn, row: usize) -> PreparedQuery {
        match col.data {
            VectorData::Int8(d) => PreparedQuery::int8(metric, d[row * col.dim..(row + 1) * col.dim].to_vec()),
            _ => PreparedQuery::float(metric, col.row_f32(row)),
        }
    }

    /// Turns an internal distance back into the metric's user-facing score. A cosine is
    /// clamped to [-1, 1]: an estimate from quantized codes (no re-ranking) or the rounding
    /// of a normalised dot product can overshoot by a few ulps, and a score of 1.0001 reads
    /// as a bug.
    pub(crate) fn score(&self, dist: f32) -> f32 {
        match self.metric {
            Metric::L2 => dist,
            Metric::Ip => -dist,
            Metric::Cosine => (-dist).clamp(-1.0, 1.0),
        }
    }

    /// Internal distance (lower is better) of row `row` of `col`.
    #[inline]
    pub(crate) fn distance(&self, k: &Kernels, col: &VectorColumn, row: usize) -> f32 {
        let r = row * col.dim..(row + 1) * col.dim;
        let raw = match (&self.data, col.data) {
            (QueryData::Float(q), VectorData::Fp32(d)) => match self.metric {
                Metric::L2 => return (k.l2_f32)(q, &d[r]),
                _ => (k.dot_f32)(q, &d[r]),
            },
            (QueryData::Float(q), VectorData::Fp16(d)) => match self.metric {
                Metric::L2 => return (k.l2_f16)(q, &d[r]),
                _ => (k.dot_f16)(q, &d[r]),
            },
            (QueryData::Int8(q, qn), VectorData::Int8(d)) => match self.metric {
                Metric::L2 => return (k.l2_i8)(q, &d[r]) as f32,
                Metric::Ip => (k.dot_i8)(q, &d[r]) as f32,
                Metric::Cosine => {
                    let denom = qn * col.norms.map_or(1.0, |n| n[row]);
                    let dot = (k.dot_i8)(q, &d[r]) as f32;
                    return -(if denom > 0.0 { dot / denom } else { 0.0 });
                }
            },
            _ => unreachable!("queries are prepared for their field's element type"),
        };
        match self.metric {
            Metric::Cosine => {
                let n = col.norms.map_or(1.0, |n| n[row]);
                -(if n > 0.0 { raw / n } else { 0.0 })
            }
            _ => -raw,
        }
    }
}

/// Internal distance between two rows of one column (lower is better), as
/// [`PreparedQuery::distance`] would score row `a` used as a query against row `b`.
pub(crate) fn row_distance(k: &Kernels, metric: Metric, col: &VectorColumn, a: usize, b: usize) -> f32 {
    let ra = a * col.dim..(a + 1) * col.dim;
    let rb = b * col.dim..(b + 1) * col.dim;
    let dot = match col.data {
        VectorData::Fp32(d) => match metric {
            Metric::L2 => return (k.l2_f32)(&d[ra], &d[rb]),
            _ => (k.dot_f32)(&d[ra], &d[rb]),
        },
        VectorData::Fp16(d) => {
            let x: Vec<f32> = d[ra].iter().map(|v| v.to_f32()).collect();
            match metric {
                Metric::L2 => return (k.l2_f16)(&x, &d[rb]),
                _ => (k.dot_f16)(&x, &d[rb]),
            }
        }
        VectorData::Int8(d) => match metric {
            Metric::L2 => return (k.l2_i8)(&d[ra], &d[rb]) as f32,
            _ => (k.dot_i8)(&d[ra], &d[rb]) as f32,
        },
    };
    match metric {
        Metric::Cosine => {
            let n = col.norms.map_or(1.0, |n| n[a] * n[b]);
            -(if n > 0.0 { dot / n } else { 0.0 })
        }
        _ => -dot,
    }
}

/// Scores the rows of `col` (all, or only `candidates`) into `top`. Null rows are skipped.
pub(crate) fn scan(
    k: &Kernels,
    col: &VectorColumn,
    rows: usize,
    q: &PreparedQuery,
    candidates: Option<&RoaringBitmap>,
    segment: u32,
    top: &mut impl Sink,
) {
    let mut visit = |row: usize| {
        if col.validity.is_valid(row) {
            let dist = q.distance(k, col, row);
            if dist <= top.threshold() {
                top.push(Candidate { dist, segment, row: row as u32 });
            }
        }
    };
    match candidates {
        Some(c) => c.iter().for_each(|r| visit(r as usize)),
        None => (0..rows).for_each(visit),
    }
}
