//! `explain`: how a query ran, source by source: how each filter leaf found its rows (a
//! scalar index, a scan of the column, or a probe of the rows an AND had left), what
//! share of the rows it matched, and whether the vector search went through the graph
//! or scanned the allowed rows. The planner decides per segment while the query runs, so
//! explaining a query runs it; the timings are what `explain analyze` adds.

use std::time::Instant;

use super::query::{Query, SourceTrace};
use super::snapshot::Snapshot;
use crate::error::Error;
use crate::index::TopK;

/// What [`Snapshot::explain`] reports.
#[derive(Clone, Debug, PartialEq)]
pub struct Explain {
    /// The filter's leaves as written (see [`crate::LeafTrace::leaf`]); empty without a filter.
    pub leaves: Vec<String>,
    /// Ids of the snapshot's segments: a source at a position below their count is that
    /// segment, the others are memtable chunks.
    pub segment_ids: Vec<u64>,
    /// Each source, in search order (indexed segments first).
    pub sources: Vec<SourceTrace>,
    /// Hits the query returned.
    pub hits: usize,
    /// The whole query, hits' projection left out.
    pub nanos: u64,
}

impl Snapshot {
    /// Runs `q` and reports how: see the module documentation.
    pub fn explain(&self, q: &Query) -> Result<Explain, Error> {
        let start = Instant::now();
        let plan = self.plan(q, q.k, false)?;
        let mut top = TopK::new(q.k);
        let mut sources = Vec::new();
        self.run(&plan, q.k, &mut top, Some(&mut sources))?;
        let hits = top.into_sorted().len();
        let leaves = plan.filter_leaves();
        let segment_ids = self.segments.iter().map(|s| s.segment.id()).collect();
        Ok(Explain { leaves, segment_ids, sources, hits, nanos: start.elapsed().as_nanos() as u64 })
    }
}
