//! Searching one segment's index: the cost model that picks a graph search or an exact
//! scan, the per-thread scratch, and refinement with the originals.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

use roaring::RoaringBitmap;

use super::SegmentIndex;
use crate::error::StorageError;
use crate::index::disk::DiskGraph;
use crate::index::disk::search::{Beam as DiskBeam, DiskScratch};
use crate::index::flat::PreparedQuery;
use crate::index::graph::{Beam, SearchScratch};
use crate::index::graph_index::GraphIndexView;
use crate::index::ivf::sketches::ListSketches;
use crate::index::ivf::{self, EntryScorer, IvfScratch, IvfView, ListSearch};
use crate::index::qg::{self, QgBeam, QgQuery, QgScratch, QgView};
use crate::index::quant::QuantScratch;
use crate::index::quant::sketch::{self, Screen, SketchQuery};
use crate::index::quant::{Codes, QuantQuery, Quantizer};
use crate::index::scorer::{CodeScorer, Originals, PREFETCH_AHEAD, Scored, Scorer};
use crate::index::topk::{Candidate, Sink, TopK};
use crate::kernels;
use crate::storage::column::VectorColumn;

/// Neighbours an unfiltered graph search meets (screens or scores), per `ef × fanout`.
/// Measured on wordnet-minilm-384 (HNSW m=16, ef=64: about 0.4 × 64 × 32 ≈ 820). The
/// choice it drives was re-measured with sketches: see `docs/format.md`.
pub(super) const GRAPH_DISTANCES_PER_EF_FANOUT: f64 = 0.4;

/// The fanout that puts a quantized graph's search into [`prefer_exact`]'s terms: it reads
/// about one row per beam node (53 at ef 48 on wordnet-minilm-384, degree 32) plus the
/// node's block (2 KiB at 384-d, about a row and a half), so `0.4 × ef × 6 ≈ 2.4 ef` rows.
const QG_FANOUT: usize = 6;

/// Share of the allowed rows a screened exact scan still scores after their sketches:
/// about one in ten on wordnet-minilm-384 (see [`exact_scan`]).
pub(super) const SCREEN_PASS: f64 = 0.1;

/// What an exact scan screened with sketches costs per allowed row, in distances: it
/// reads every row's sketch and [`SCREEN_PASS`] of the rows, so against a distance that
/// reads `row_bytes` it costs `(sketch_bytes + 0.1 · row_bytes) / row_bytes`: 0.14 over
/// 384-d FP32 originals, 0.27 over INT8 codes. Measured on wordnet-minilm-384 (HNSW m=16,
/// ef 64, `xvec bench --route`): at 16.9% allowed the screened scan beats the graph over
/// FP32 and loses to it over INT8, which these crossovers (22% and 16%) reproduce.
fn screened_scan_cost(sketch_bytes: usize, row_bytes: usize) -> f64 {
    (sketch_bytes as f64 + SCREEN_PASS * row_bytes as f64) / row_bytes.max(1) as f64
}

/// Deviations a screened exact scan subtracts from a row's estimate before skipping it:
/// more than a graph's [`sketch::SCREEN_SIGMAS`], since the scan's answer is final. At 2.0
/// recall@10 fell to 0.978 on `pos = 'r'` (3%); at 3.0 it is 0.9997, for 10% more time.
pub(super) const SCAN_SCREEN_SIGMAS: f32 = 3.0;

/// Cost model of a filtered search (see `docs/format.md`, "Filtered search"). Both paths
/// are bound by reading rows, so their cost is the number of distances computed: a graph
/// search needs about `0.4 × ef × fanout` divided by the share of allowed rows it must
/// wade through; an exact scan one per allowed row, or [`screened_scan_cost`] of one with
/// sketches (`screen`: the bytes of a sketch and of a scored row).
fn prefer_exact(rows: usize, allowed: usize, ef: usize, fanout: usize, screen: Option<(usize, usize)>) -> bool {
    if fanout == 0 {
        return true;
    }
    if allowed == rows {
        return false;
    }
    let share = allowed as f64 / rows.max(1) as f64;
    let graph = GRAPH_DISTANCES_PER_EF_FANOUT * (ef * fanout) as f64 / share.max(1e-9);
    let per_row = screen.map_or(1.0, |(sketch, row)| screened_scan_cost(sketch, row));
    (allowed as f64) * per_row < graph
}

/// Which way a query may search a segment with a graph index. `Auto` lets the cost model
/// (`prefer_exact`) choose per segment; the others force a way, to measure one against
/// the other (`xvec bench --route`). A forced graph search still finishes with an exact
/// scan when it runs out of its budget or falls short of `k`, so every route returns the
/// same kind of answer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SearchRoute {
    /// The cheaper way by the cost model, per segment.
    #[default]
    Auto,
    /// The graph (an exact scan only where the graph cannot finish).
    Graph,
    /// An exact scan of the allowed rows (screened with sketches where kept).
    Exact,
}

impl SearchRoute {
    /// Every route, in the order help texts list them.
    pub const ALL: [SearchRoute; 3] = [SearchRoute::Auto, SearchRoute::Graph, SearchRoute::Exact];

    /// The route's name in flags and reports.
    pub fn name(self) -> &'static str {
        match self {
            SearchRoute::Auto => "auto",
            SearchRoute::Graph => "graph",
            SearchRoute::Exact => "exact",
        }
    }
}

impl std::str::FromStr for SearchRoute {
    type Err = crate::schema::UnknownName;

    fn from_str(s: &str) -> Result<SearchRoute, Self::Err> {
        crate::schema::parse_name("search route", &SearchRoute::ALL, SearchRoute::name, s)
    }
}

/// Which way a segment's search went (what `explain` shows).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchPath {
    /// The graph, through the allowed rows when there is a filter.
    Graph,
    /// The graph ran out of its budget or fell short of `k`; an exact scan finished.
    GraphThenExact,
    /// An exact scan of the allowed rows, screened with sketches when `screened`.
    Exact {
        /// Whether rows were screened with one-bit sketches before being read.
        screened: bool,
    },
    /// The rows of the nearest IVF lists.
    Lists {
        /// Lists probed.
        probed: u32,
        /// Lists of the segment.
        lists: u32,
    },
    /// The IVF lists found fewer than `k` allowed rows; an exact scan finished.
    ListsThenExact,
    /// A disk index's graph: up to `beam_width` reads in flight, `hops` round trips to
    /// the device, `blocks_read` node blocks read from the file (the cache served the
    /// others).
    Disk {
        /// Reads in flight at once: the query's beam width, or the index's.
        beam_width: u32,
        /// Round trips: times the search slept on its reads (fewer than the blocks read
        /// when reads complete together).
        hops: u32,
        /// Node blocks read from the file.
        blocks_read: u32,
    },
}

/// Originals being loaded while one is re-ranked.
const REFINE_AHEAD: usize = 2;

/// Per-query options an index search needs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SearchParams<'a> {
    pub k: usize,
    pub ef: usize,
    /// Re-rank `refine × k` candidates with the originals (quantized indexes only).
    pub refine: usize,
    pub allowed: Option<&'a RoaringBitmap>,
    /// Position of the segment in the snapshot, for the merged top-k.
    pub position: u32,
    pub route: SearchRoute,
    /// IVF lists to probe, of the index's `nlist` (scaled to a segment's own lists).
    pub nprobe: usize,
    /// IVF: probe the lists the segment measured as reaching this recall, not `nprobe`.
    pub target_recall: Option<f32>,
    /// Disk: nodes expanded, and so blocks read, per hop (the query's, or the index's).
    pub beam_width: usize,
}

thread_local! {
    static SCRATCH: RefCell<ThreadScratch> = RefCell::default();
    /// What this thread last added to [`SCRATCH_BYTES`].
    static COUNTED: Counted = const { Counted(std::cell::Cell::new(0)) };
}

/// What one thread's searches reuse.
#[derive(Default)]
struct ThreadScratch {
    graph: SearchScratch,
    qg: QgScratch,
    qg_query: QgQuery,
    quant: QuantScratch,
    found: Vec<Scored>,
    /// The rotated query of the sketches.
    rotated: Vec<f32>,
    bounds: Vec<Scored>,
    ivf: IvfScratch,
    disk: DiskScratch,
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
pub(crate) fn scratch_bytes() -> u64 {
    SCRATCH_BYTES.load(Ordering::Relaxed)
}

/// What the IVF route reads of an IVF index: its lists, what open derived from them, the
/// entries' sketches and the lists to probe per percent of recall.
pub(super) struct Lists<'a> {
    pub(super) view: IvfView<'a>,
    pub(super) centroid_norms: &'a [f32],
    pub(super) coarse: Option<(&'a Quantizer, Codes<'a>)>,
    pub(super) sketches: ListSketches<'a>,
    pub(super) table: &'a [u32],
}

/// One search of one segment as a kind's route sees it: the query in its forms, the
/// per-query options and the thread's scratch; the route leaves its candidates in `found`.
pub(super) struct Route<'q> {
    orig: Originals<'q>,
    raw_query: &'q [f32],
    /// Candidates to find: `k`, or `refine × k` when they are refined.
    want: usize,
    p: SearchParams<'q>,
    /// Re-rank the candidates with the originals (a route that answered from the originals
    /// already turns it off).
    refine: bool,
    /// The merged top-k's threshold when the search began.
    bound: f32,
    scratch: Scratch<'q>,
    quant: &'q mut QuantScratch,
    rotated: &'q mut Vec<f32>,
    qg_query: &'q mut QgQuery,
    ivf: &'q mut IvfScratch,
    found: &'q mut Vec<Scored>,
}

impl SegmentIndex {
    /// Searches this segment's field by its kind's route (a graph or an exact scan, over
    /// codes or originals, or the nearest lists), then refines with the originals; pushes
    /// candidates into `top`.
    pub(crate) fn search(
        &self,
        originals: VectorColumn,
        query: &PreparedQuery,
        raw_query: &[f32],
        p: SearchParams,
        top: &mut impl Sink,
    ) -> Result<SearchPath, StorageError> {
        let k = kernels::best();
        SCRATCH.with(|cell| {
            let ThreadScratch { graph, qg, qg_query, quant, found, rotated, bounds, ivf, disk } =
                &mut *cell.borrow_mut();
            let orig = Originals { kernels: k, col: originals, query, screen: None };
            let refine = self.quant.quantizer.is_some() && p.refine > 0;
            let want = if refine { p.k.saturating_mul(p.refine) } else { p.k };
            let scratch = Scratch { graph, qg, bounds, disk };
            let bound = top.threshold();
            let mut r =
                Route { orig, raw_query, want, p, refine, bound, scratch, quant, rotated, qg_query, ivf, found };
            let path = self.kind.search(self, &mut r)?;
            let Route { orig, refine, found, scratch, ivf, qg_query, .. } = r;
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
            let scored = (found.capacity() + scratch.bounds.capacity()) * std::mem::size_of::<Scored>();
            let now = (scratch.graph.heap_bytes()
                + scratch.qg.heap_bytes()
                + qg_query.heap_bytes()
                + scored
                + ivf.heap_bytes()
                + scratch.disk.heap_bytes()) as u64;
            let before = COUNTED.with(|c| c.0.replace(now));
            if now != before {
                SCRATCH_BYTES.fetch_add(now.wrapping_sub(before), Ordering::Relaxed);
            }
            Ok(path)
        })
    }

    /// The route of a kind that scores rows: through `graph` when there is one (and the
    /// cost model or the route asks for it), else an exact scan; over the codes when there
    /// are, else the originals.
    pub(super) fn search_rows(&self, graph: Option<GraphIndexView>, r: &mut Route) -> SearchPath {
        let (want, p) = (r.want, r.p);
        let scratch = &mut r.scratch;
        match (&self.quant.quantizer, self.codes()) {
            (Some(qz), Some(codes)) => {
                let qq = qz.prepare(r.raw_query, r.quant);
                // Rotated codes share the sketches' rotation: the query is rotated once.
                let sq = match qz.rotation() {
                    Some(_) => self.quant.sketches.as_ref().map(|_| SketchQuery::new(qq.rotated(), qq.norm_sq())),
                    None => self.sketch_query(r.raw_query, r.rotated),
                };
                let screen = self.screen(sq.as_ref());
                let scorer =
                    CodeScorer { kernels: r.orig.kernels, codes, screen, query: &qq, metric: self.meta.metric };
                let path = self.candidates(graph, &scorer, want, p, scratch, r.found);
                if !r.refine && scorer.rounds_query() {
                    // The beam's candidates, not just the first `want`: the full-precision
                    // query may order them differently.
                    r.found.iter_mut().for_each(|c| c.dist = scorer.precise(c.id));
                    r.found.sort_unstable();
                }
                path
            }
            // Without codes: the originals.
            (None, _) | (Some(_), None) => {
                let sq = self.sketch_query(r.raw_query, r.rotated);
                let scorer = Originals { screen: self.screen(sq.as_ref()), ..r.orig };
                self.candidates(graph, &scorer, want, p, scratch, r.found)
            }
        }
    }

    /// The IVF route: the lists' entries (scored on their codes, or on the originals
    /// without codes), or an exact scan of the originals when a filter leaves fewer
    /// rows than the probed lists hold; `found` ends with rows, best first.
    pub(super) fn search_lists(&self, lists: Lists, r: &mut Route) -> SearchPath {
        let qq = self.quant.quantizer.as_ref().map(|qz| qz.prepare(r.raw_query, r.quant));
        let codes = self.codes().zip(qq.as_ref());
        let path = self.probe_lists(lists, codes, r);
        // An exact scan's answer is the originals' already.
        r.refine &= !matches!(path, SearchPath::ListsThenExact | SearchPath::Exact { .. });
        path
    }

    fn probe_lists(&self, index: Lists, codes: Option<(Codes, &QuantQuery)>, r: &mut Route) -> SearchPath {
        let Lists { view: lists, centroid_norms, coarse, sketches, table } = index;
        let (orig, raw_query, want, p, bound) = (&r.orig, r.raw_query, r.want, r.p, r.bound);
        let (sc, iscratch, found) = (&mut r.scratch, &mut *r.ivf, &mut *r.found);
        let rows = self.meta.rows as usize;
        let ip = self.meta.params.ivf().expect("an IVF index has IVF params");
        let probes = p
            .target_recall
            .and_then(|r| ivf::calibrate::probes_for_recall(table, r, lists.lists()))
            .unwrap_or_else(|| ivf::probes_for(p.nprobe, ip.nlist, lists.lists()));
        let allowed_rows = p.allowed.map_or(rows, |a| a.len() as usize);
        let exact = match p.route {
            SearchRoute::Auto => allowed_rows <= ivf::entries_scanned(&lists, probes),
            SearchRoute::Graph => false,
            SearchRoute::Exact => true,
        };
        if exact {
            exact_scan(orig, rows, want, p.allowed, sc.bounds, found);
            return SearchPath::Exact { screened: false };
        }
        let ls = ListSearch {
            kernels: orig.kernels,
            metric: self.meta.metric,
            centroid_norms,
            probes,
            want,
            allowed: p.allowed,
            spilled: ip.soar,
            sketches: (sketches, self.rotation().expect("an IVF index keeps a rotation (checked on open)")),
            coarse,
            bound,
        };
        match codes {
            Some((codes, qq)) => {
                let s = EntryCodes { codes, query: qq, metric: self.meta.metric, precise: !codes.rounds_query() };
                ivf::search(&lists, &s, raw_query, &ls, iscratch, found);
                if p.refine == 0 && codes.rounds_query() {
                    let precise = EntryCodes { precise: true, ..s };
                    for c in found.iter_mut() {
                        let e = c.id as usize;
                        c.dist = precise.dist(e, lists.ids[e], ivf::centroid_dot(&lists, iscratch, e));
                    }
                    found.sort_unstable();
                }
            }
            None => ivf::search(&lists, &EntryOriginals(orig), raw_query, &ls, iscratch, found),
        }
        found.iter_mut().for_each(|c| c.id = lists.ids[c.id as usize]);
        let enough = want.min(allowed_rows);
        if found.len() < enough && ivf::allowed_in_probed(&lists, iscratch, p.allowed, enough) < enough {
            exact_scan(orig, rows, want, p.allowed, sc.bounds, found);
            return SearchPath::ListsThenExact;
        }
        SearchPath::Lists { probed: probes as u32, lists: lists.lists() as u32 }
    }

    /// The quantized graph's route: a beam over its blocks whose expanded nodes are scored
    /// on the codes when there are (then refined, as other kinds' candidates), else on the
    /// originals; an exact scan where the cost model, the route or the budget says so.
    pub(super) fn search_qg(&self, g: QgView, r: &mut Route) -> SearchPath {
        r.qg_query.prepare(&g, r.raw_query);
        let qq: &QgQuery = r.qg_query;
        let (want, p) = (r.want, r.p);
        match (&self.quant.quantizer, self.codes()) {
            (Some(qz), Some(codes)) => {
                let cq = qz.prepare(r.raw_query, r.quant);
                let metric = self.meta.metric;
                let scorer = CodeScorer { kernels: r.orig.kernels, codes, screen: None, query: &cq, metric };
                let path = self.qg_candidates(g, qq, &scorer, want, p, &mut r.scratch, r.found);
                if !r.refine && scorer.rounds_query() {
                    r.found.iter_mut().for_each(|c| c.dist = scorer.precise(c.id));
                    r.found.sort_unstable();
                }
                path
            }
            (None, _) | (Some(_), None) => self.qg_candidates(g, qq, &r.orig, want, p, &mut r.scratch, r.found),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn qg_candidates<S: Scorer>(
        &self,
        g: QgView,
        qq: &QgQuery,
        s: &S,
        want: usize,
        p: SearchParams,
        sc: &mut Scratch,
        out: &mut Vec<Scored>,
    ) -> SearchPath {
        let rows = self.meta.rows as usize;
        let allowed_rows = p.allowed.map_or(rows, |a| a.len() as usize);
        let exact = match p.route {
            SearchRoute::Auto => prefer_exact(rows, allowed_rows, p.ef.max(want), QG_FANOUT, None),
            SearchRoute::Graph => false,
            SearchRoute::Exact => true,
        };
        if exact {
            exact_scan(s, rows, want, p.allowed, sc.bounds, out);
            return SearchPath::Exact { screened: false };
        }
        let budget = if p.allowed.is_some() { allowed_rows } else { usize::MAX };
        let beam = Beam { ef: p.ef.max(want), allowed: p.allowed, budget };
        // With codes, `refine` widens the candidates the codes rank, as for every kind;
        // on the originals it scores `refine × want` neighbours the beam turned away.
        let rescore = if self.quant.quantizer.is_none() { p.refine.saturating_mul(want) } else { 0 };
        let done = qg::search(&g, kernels::best(), qq, s, QgBeam { beam, rescore }, sc.qg, out);
        if !done || out.len() < want.min(allowed_rows) {
            exact_scan(s, rows, want, p.allowed, sc.bounds, out);
            return SearchPath::GraphThenExact;
        }
        SearchPath::Graph
    }

    /// The disk kind's route: a beam over node blocks `g` (candidates ranked by the codes,
    /// results by the vectors in the blocks read), or, where the cost model (the degree as
    /// the fanout) or the route says so, an exact scan of the allowed rows' originals;
    /// `found` ends with rows by exact distance, best first.
    pub(super) fn search_disk(&self, g: &DiskGraph, r: &mut Route) -> Result<SearchPath, StorageError> {
        let (want, p) = (r.want, r.p);
        // Scored on the full vectors already (of the blocks, or of the column).
        r.refine = false;
        let (Some(qz), Some(codes), Some(params)) = (&self.quant.quantizer, self.codes(), self.meta.params.disk())
        else {
            return Err(StorageError::corrupted(&self.path, 32, "a disk index without its codes"));
        };
        let rows = self.meta.rows as usize;
        let allowed_rows = p.allowed.map_or(rows, |a| a.len() as usize);
        let list = p.ef.max(want);
        let exact = match p.route {
            SearchRoute::Auto => prefer_exact(rows, allowed_rows, list, params.degree as usize, None),
            SearchRoute::Graph => false,
            SearchRoute::Exact => true,
        };
        if exact {
            exact_scan(&r.orig, rows, want, p.allowed, r.scratch.bounds, r.found);
            return Ok(SearchPath::Exact { screened: false });
        }
        let qq = qz.prepare(r.raw_query, r.quant);
        let (k, metric, orig) = (r.orig.kernels, self.meta.metric, &r.orig);
        let beam = DiskBeam { list, width: p.beam_width, rerank: disk_rerank(&p, want, list), allowed: p.allowed };
        let approx = |row: u32| codes.distance(k, &qq, metric, row, false);
        let cost = g.search(approx, |v: &VectorColumn| orig.query.distance(k, v, 0), beam, r.scratch.disk, r.found)?;
        if r.found.len() < want.min(allowed_rows) {
            exact_scan(&r.orig, rows, want, p.allowed, r.scratch.bounds, r.found);
            return Ok(SearchPath::GraphThenExact);
        }
        Ok(SearchPath::Disk { beam_width: p.beam_width as u32, hops: cost.waits, blocks_read: cost.blocks_read })
    }

    /// The query for this index's sketches, if it keeps them.
    pub(super) fn sketch_query(&self, raw_query: &[f32], tmp: &mut Vec<f32>) -> Option<SketchQuery> {
        self.quant.sketches.as_ref()?;
        Some(SketchQuery::prepare(raw_query, self.quant.rotation.as_ref()?, self.meta.metric, tmp))
    }

    pub(super) fn screen<'a>(&'a self, query: Option<&'a SketchQuery>) -> Option<Screen<'a>> {
        let (kernels, metric, sigmas) = (kernels::best(), self.meta.metric, sketch::SCREEN_SIGMAS);
        Some(Screen { kernels, sketches: self.sketches()?, query: query?, metric, sigmas })
    }

    fn candidates<S: Scorer>(
        &self,
        graph: Option<GraphIndexView>,
        s: &S,
        want: usize,
        p: SearchParams,
        sc: &mut Scratch,
        out: &mut Vec<Scored>,
    ) -> SearchPath {
        let rows = self.meta.rows as usize;
        let allowed_rows = p.allowed.map_or(rows, |a| a.len() as usize);
        let fanout = graph.map_or(0, |g| g.fanout());
        let exact = match p.route {
            SearchRoute::Auto => {
                let screen = s.screen().map(|sc| (sc.sketches.row_bytes(), s.row_bytes()));
                prefer_exact(rows, allowed_rows, p.ef.max(want), fanout, screen)
            }
            SearchRoute::Graph => fanout == 0,
            SearchRoute::Exact => true,
        };
        if exact {
            exact_scan(s, rows, want, p.allowed, sc.bounds, out);
            return SearchPath::Exact { screened: s.screen().is_some() };
        }
        // With a filter, the graph may spend at most what the exact scan would.
        let budget = if p.allowed.is_some() { allowed_rows } else { usize::MAX };
        let beam = Beam { ef: p.ef.max(want), allowed: p.allowed, budget };
        let done = graph.is_some_and(|g| g.search(s, beam, sc.graph, out));
        // A graph part cut off from the allowed rows (e.g. duplicates or null vectors, all
        // zeros, linked only among themselves) can end a search short of `want`.
        if !done || out.len() < want.min(allowed_rows) {
            exact_scan(s, rows, want, p.allowed, sc.bounds, out);
            return SearchPath::GraphThenExact;
        }
        SearchPath::Graph
    }
}

/// IVF entries scored on their residual codes.
struct EntryCodes<'a> {
    codes: Codes<'a>,
    query: &'a QuantQuery,
    metric: crate::schema::Metric,
    precise: bool,
}

impl EntryScorer for EntryCodes<'_> {
    #[inline]
    fn dist(&self, e: usize, _row: u32, centroid_dot: f32) -> f32 {
        self.codes.distance_from(kernels::best(), self.query, self.metric, e as u32, self.precise, centroid_dot)
    }

    #[inline]
    fn prefetch(&self, e: usize, _row: u32) {
        self.codes.prefetch(e as u32);
    }
}

/// IVF entries scored on the segment's originals, by row.
struct EntryOriginals<'a, 'b>(&'b Originals<'a>);

impl EntryScorer for EntryOriginals<'_, '_> {
    #[inline]
    fn dist(&self, _e: usize, row: u32, _centroid_dot: f32) -> f32 {
        self.0.dist(row)
    }

    #[inline]
    fn prefetch(&self, _e: usize, row: u32) {
        self.0.prefetch_lines(row, usize::MAX);
    }
}

/// A search's reusable buffers: the graph's, and the screened scan's bounds.
pub(super) struct Scratch<'a> {
    graph: &'a mut SearchScratch,
    qg: &'a mut QgScratch,
    disk: &'a mut DiskScratch,
    bounds: &'a mut Vec<Scored>,
}

/// Bounded exact scan: the `want` best rows (of `allowed`, or all), best first. With
/// sketches it is screened: every row's lower bound first (64 bytes a row instead of the
/// row itself), the rows of the best `2 · want` bounds scored in bound order to set the
/// k-th distance, then only the rows whose bound beats it. At 3% of wordnet-minilm-384
/// (384-d fp32) that scores about one allowed row in ten.
pub(super) fn exact_scan<S: Scorer>(
    s: &S,
    rows: usize,
    want: usize,
    allowed: Option<&RoaringBitmap>,
    bounds: &mut Vec<Scored>,
    out: &mut Vec<Scored>,
) {
    let mut top = TopK::new(want);
    let score = |r: u32, top: &mut TopK| {
        let dist = s.dist(r);
        if dist <= top.threshold() {
            top.push(Candidate { dist, segment: 0, row: r });
        }
    };
    match s.screen() {
        Some(screen) => {
            let screen = Screen { sigmas: SCAN_SCREEN_SIGMAS, ..*screen };
            bounds.clear();
            let mut bound = |r: u32| bounds.push(Scored { dist: screen.lower_bound(r), id: r });
            match allowed {
                Some(a) => a.iter().for_each(&mut bound),
                None => (0..rows as u32).for_each(&mut bound),
            }
            let seed = want.saturating_mul(2).min(bounds.len());
            if seed < bounds.len() {
                bounds.select_nth_unstable(seed);
            }
            let (head, tail) = bounds.split_at_mut(seed);
            head.sort_unstable();
            for (i, c) in head.iter().enumerate() {
                if c.dist > top.threshold() {
                    break;
                }
                if let Some(ahead) = head.get(i + PREFETCH_AHEAD) {
                    s.prefetch(ahead.id);
                }
                score(c.id, &mut top);
            }
            for c in tail.iter() {
                if c.dist <= top.threshold() {
                    score(c.id, &mut top);
                }
            }
        }
        None => match allowed {
            Some(a) => a.iter().for_each(|r| score(r, &mut top)),
            None => (0..rows as u32).for_each(|r| score(r, &mut top)),
        },
    }
    out.clear();
    out.extend(top.into_sorted().into_iter().map(|c| Scored { dist: c.dist, id: c.row }));
}

/// Candidates a disk search scores exactly at the end, of a list of `list`, for a query
/// that wants `want`: twice `k` and at least [`RERANK_MIN`] (the codes' ranking errs among
/// near neighbours, the more so the fewer the results). `refine` is refused for the disk
/// kind, so it does not say.
fn disk_rerank(p: &SearchParams, want: usize, list: usize) -> usize {
    (2 * p.k).max(RERANK_MIN).clamp(want.min(list), list)
}

/// Fewest candidates scored at the end.
const RERANK_MIN: usize = 20;
