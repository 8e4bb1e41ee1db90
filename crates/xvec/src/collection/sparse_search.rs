//! Sparse vector search by inner product: rows sharing no dimension with the query are
//! not hits. A segment is searched through its sparse index by block-max WAND over
//! quantized impacts, rows that may enter the top k scored exactly from the column (exact,
//! or stopped after a budget of postings scored); the memtable, and a segment whose index is
//! not built, by merging every live row's stored words with the query's dimensions (both
//! ascend).

use super::query::candidates;
use super::snapshot::Snapshot;
use super::text_search::PostingsTrace;
use crate::error::Error;
use crate::filter::Filter;
use crate::index::{Candidate, Sink, TopK};

use crate::sparse::{SparseVector, dot_words, unpack_value};

impl Snapshot {
    /// The best `k` rows of sparse field `field` by inner product with `query` among the
    /// live rows `filter` keeps, best first, each with its inner product (`dist` is its
    /// negation). Rows sharing no dimension with the query are not hits. With `budget`,
    /// each indexed segment's search stops after scoring that many postings.
    pub(crate) fn sparse_candidates(
        &self,
        field: usize,
        query: &SparseVector,
        k: usize,
        budget: Option<u64>,
        filter: Option<&Filter>,
    ) -> Result<(Vec<(Candidate, f32)>, PostingsTrace), Error> {
        let mut top = TopK::new(k);
        let mut trace = PostingsTrace::default();
        for src in self.sources() {
            let allowed = candidates(&src, filter);
            let column = src.view.array(field);
            let dot = |row: u32| {
                let words = column.sparse_words(row as usize).iter();
                dot_words(query, words.map(|&w| ((w >> 32) as u32, unpack_value(w))))
            };
            if let Some(index) = src.scalar.get(field).and_then(|f| f.sparse.as_deref()) {
                let keep = |r: u32| allowed.as_ref().is_none_or(|a| a.contains(r));
                let score = |row: u32| dot(row).unwrap_or(0.0);
                let exact = crate::index::wand::Exact { score: &score, k };
                let stats = index.search(query, src.position, keep, (budget, exact), &mut top);
                trace.indexed += 1;
                trace.scored += stats.scored;
                trace.skips += stats.skipped;
                trace.rescored += stats.rescored;
                continue;
            }
            trace.scanned += 1;
            let rows: Box<dyn Iterator<Item = u32>> = match &allowed {
                Some(a) => Box::new(a.iter()),
                None => Box::new(0..src.view.rows() as u32),
            };
            for row in rows {
                if let Some(s) = dot(row) {
                    top.push(Candidate { dist: -s, segment: src.position, row });
                    trace.scored += 1;
                }
            }
        }
        Ok((top.into_sorted().into_iter().map(|c| (c, -c.dist)).collect(), trace))
    }
}
