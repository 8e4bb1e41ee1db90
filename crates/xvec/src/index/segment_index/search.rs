//! Searching one segment's index: the cost model that picks a graph search or an exact
//! scan, the per-thread scratch, and refinement with the originals.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

use roaring::RoaringBitmap;

use super::SegmentIndex;
use crate::index::flat::PreparedQuery;
use crate::index::graph::{Beam, SearchScratch};
use crate::index::quant::QuantScratch;
use crate::index::quant::sketch::{self, Screen, SketchQuery};
use crate::index::scorer::{CodeScorer, Originals, Scored, Scorer};
use crate::index::topk::{Candidate, Sink, TopK};
use crate::kernels;
use crate::storage::column::VectorColumn;

/// Neighbours an unfiltered graph search meets (screens or scores), per `ef × fanout`.
/// Measured on wordnet-minilm-384 (HNSW m=16, ef=64: about 0.4 × 64 × 32 ≈ 820). The
/// choice it drives was re-measured with sketches: see `docs/format.md`.
pub const GRAPH_DISTANCES_PER_EF_FANOUT: f64 = 0.4;

/// Cost model of a filtered search (see `docs/format.md`, "Filtered search"). Both paths
/// are bound by reading rows, so their cost is the number of distances computed: a graph
/// search needs about `0.4 × ef × fanout` divided by the share of allowed rows it must
/// wade through; an exact scan one per allowed row.
fn prefer_exact(rows: usize, allowed: usize, ef: usize, fanout: usize) -> bool {
    if fanout == 0 {
        return true;
    }
    if allowed == rows {
        return false;
    }
    let share = allowed as f64 / rows.max(1) as f64;
    let graph = GRAPH_DISTANCES_PER_EF_FANOUT * (ef * fanout) as f64 / share.max(1e-9);
    (allowed as f64) < graph
}

/// Originals being loaded while one is re-ranked.
const REFINE_AHEAD: usize = 2;

/// Per-query options an index search needs.
#[derive(Clone, Copy, Debug)]
pub struct SearchParams<'a> {
    pub k: usize,
    pub ef: usize,
    /// Re-rank `refine × k` candidates with the originals (quantized indexes only).
    pub refine: usize,
    pub allowed: Option<&'a RoaringBitmap>,
    /// Position of the segment in the snapshot, for the merged top-k.
    pub position: u32,
}

thread_local! {
    static SCRATCH: RefCell<(SearchScratch, QuantScratch, Vec<Scored>, Vec<f32>)> = RefCell::default();
    /// What this thread last added to [`SCRATCH_BYTES`].
    static COUNTED: Counted = const { Counted(std::cell::Cell::new(0)) };
}

/// A thread's share of [`SCRATCH_BYTES`], given back when the thread ends.
struct Counted(std::cell::Cell<u64>);

impl Drop for Counted {
    fn drop(&mut self) {
        SCRATCH_BYTES.fetch_sub(self.0.get(), Ordering::Relaxed);
    }
}

/// Heap bytes of every thread's search scratch, kept current after each search.
static SCRATCH_BYTES: AtomicU64 = AtomicU64::new(0);

/// Heap bytes of the search scratch of all threads that searched an index.
pub fn scratch_bytes() -> u64 {
    SCRATCH_BYTES.load(Ordering::Relaxed)
}

impl SegmentIndex {
    /// Searches this segment's field: graph or exact scan (over codes or originals), then
    /// refinement with the originals; pushes candidates into `top`.
    pub fn search(
        &self,
        originals: VectorColumn,
        query: &PreparedQuery,
        raw_query: &[f32],
        p: SearchParams,
        top: &mut impl Sink,
    ) {
        let k = kernels::best();
        SCRATCH.with(|cell| {
            let (scratch, qscratch, found, tmp) = &mut *cell.borrow_mut();
            let orig = Originals { kernels: k, col: originals, query, screen: None };
            let refine = self.quantizer.is_some() && p.refine > 0;
            let want = if refine { p.k.saturating_mul(p.refine) } else { p.k };
            match (&self.quantizer, self.codes()) {
                (Some(qz), Some(codes)) => {
                    let qq = qz.prepare(raw_query, qscratch);
                    // Rotated codes share the sketches' rotation: the query is rotated once.
                    let sq = match qz.rotation() {
                        Some(_) => self.sketches.as_ref().map(|_| SketchQuery::new(qq.rotated(), qq.norm_sq())),
                        None => self.sketch_query(raw_query, tmp),
                    };
                    let screen = self.screen(sq.as_ref());
                    let scorer = CodeScorer { kernels: k, codes, screen, query: &qq, metric: self.meta.metric };
                    self.candidates(&scorer, want, p, scratch, found);
                    if !refine && scorer.rounds_query() {
                        // The beam's candidates, not just the first `want`: the full-precision
                        // query may order them differently.
                        found.iter_mut().for_each(|c| c.dist = scorer.precise(c.id));
                        found.sort_unstable();
                    }
                }
                _ => {
                    let sq = self.sketch_query(raw_query, tmp);
                    let scorer = Originals { screen: self.screen(sq.as_ref()), ..orig };
                    self.candidates(&scorer, want, p, scratch, found);
                }
            }
            let best = &found[..want.min(found.len())];
            if refine {
                best.iter().take(REFINE_AHEAD).for_each(|c| orig.prefetch(c.id));
            }
            for (i, c) in best.iter().enumerate() {
                let dist = if refine {
                    if let Some(ahead) = best.get(i + REFINE_AHEAD) {
                        orig.prefetch(ahead.id);
                    }
                    orig.dist(c.id)
                } else {
                    c.dist
                };
                top.push(Candidate { dist, segment: p.position, row: c.id });
            }
            let now = (scratch.heap_bytes() + found.capacity() * std::mem::size_of::<Scored>()) as u64;
            let before = COUNTED.with(|c| c.0.replace(now));
            if now != before {
                SCRATCH_BYTES.fetch_add(now.wrapping_sub(before), Ordering::Relaxed);
            }
        });
    }

    /// The query for this index's sketches, if it keeps them.
    pub(super) fn sketch_query(&self, raw_query: &[f32], tmp: &mut Vec<f32>) -> Option<SketchQuery> {
        self.sketches.as_ref()?;
        Some(SketchQuery::prepare(raw_query, self.rotation.as_ref()?, self.meta.metric, tmp))
    }

    pub(super) fn screen<'a>(&'a self, query: Option<&'a SketchQuery>) -> Option<Screen<'a>> {
        let (kernels, metric, sigmas) = (kernels::best(), self.meta.metric, sketch::SCREEN_SIGMAS);
        Some(Screen { kernels, sketches: self.sketches()?, query: query?, metric, sigmas })
    }

    fn candidates<S: Scorer>(
        &self,
        s: &S,
        want: usize,
        p: SearchParams,
        sc: &mut SearchScratch,
        out: &mut Vec<Scored>,
    ) {
        let rows = self.meta.rows as usize;
        let allowed_rows = p.allowed.map_or(rows, |a| a.len() as usize);
        let graph = self.graph_index();
        let fanout = graph.map_or(0, |g| g.fanout());
        if prefer_exact(rows, allowed_rows, p.ef.max(want), fanout) {
            return exact_scan(s, rows, want, p.allowed, out);
        }
        // With a filter, the graph may spend at most what the exact scan would.
        let budget = if p.allowed.is_some() { allowed_rows } else { usize::MAX };
        let beam = Beam { ef: p.ef.max(want), allowed: p.allowed, budget };
        let done = graph.is_some_and(|g| g.search(s, beam, sc, out));
        // A graph part cut off from the allowed rows (e.g. duplicates or null vectors, all
        // zeros, linked only among themselves) can end a search short of `want`.
        if !done || out.len() < want.min(allowed_rows) {
            exact_scan(s, rows, want, p.allowed, out);
        }
    }
}

/// Bounded exact scan: the `want` best rows (of `allowed`, or all), best first.
fn exact_scan<S: Scorer>(s: &S, rows: usize, want: usize, allowed: Option<&RoaringBitmap>, out: &mut Vec<Scored>) {
    let mut top = TopK::new(want);
    let mut visit = |r: u32| {
        let dist = s.dist(r);
        if dist <= top.threshold() {
            top.push(Candidate { dist, segment: 0, row: r });
        }
    };
    match allowed {
        Some(a) => a.iter().for_each(&mut visit),
        None => (0..rows as u32).for_each(&mut visit),
    }
    out.clear();
    out.extend(top.into_sorted().into_iter().map(|c| Scored { dist: c.dist, id: c.row }));
}
