//! Parallel HNSW construction over a segment's vector column (read in place, never
//! copied). Nodes are inserted in row order; with one thread and a seed the graph is
//! deterministic. Links live in preallocated atomic arrays guarded by per-node locks, so
//! a concurrent reader sees some valid neighbour list, never a torn id.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

use rayon::prelude::*;

use super::search::greedy;
use super::{Graph, MAX_LEVEL, NO_UPPER, NONE};
use crate::index::flat::{PreparedQuery, row_distance};
use crate::index::graph::{Beam, BuildControl, BuildProgress, Links, SearchScratch, search_layer};
use crate::index::quant::rotation::Rotation;
use crate::index::quant::sketch::{BUILD_SCREEN_SIGMAS, Screen, SketchQuery, Sketches};
use crate::index::rng::SplitMix64;
use crate::index::scorer::{Originals, Scored, Scorer};
use crate::kernels::Kernels;
use crate::schema::{HnswParams, Metric};
use crate::storage::column::VectorColumn;

struct BuildGraph {
    m: usize,
    m0: usize,
    levels: Vec<u8>,
    base: Vec<AtomicU32>,
    upper_offsets: Vec<u32>,
    upper: Vec<AtomicU32>,
    locks: Vec<Mutex<()>>,
}

impl BuildGraph {
    fn block(&self, node: u32, level: usize) -> (&[AtomicU32], usize) {
        if level == 0 {
            let at = node as usize * (self.m0 + 1);
            (&self.base[at..at + self.m0 + 1], self.m0)
        } else {
            let at = self.upper_offsets[node as usize] as usize + (level - 1) * (self.m + 1);
            (&self.upper[at..at + self.m + 1], self.m)
        }
    }

    /// Replaces a neighbour list; the caller holds the node's lock.
    fn set(&self, node: u32, level: usize, ids: &[u32]) {
        let (block, cap) = self.block(node, level);
        debug_assert!(ids.len() <= cap);
        for (slot, &id) in block[1..].iter().zip(ids) {
            slot.store(id, Ordering::Relaxed);
        }
        block[0].store(ids.len() as u32, Ordering::Release);
    }

    /// The finished graph, unused slots set to [`NONE`].
    fn into_graph(self, entry: u32, max_level: usize) -> Graph {
        let words = |v: Vec<AtomicU32>, stride: usize| -> Vec<u32> {
            let mut w: Vec<u32> = v.into_iter().map(AtomicU32::into_inner).collect();
            for block in w.chunks_exact_mut(stride) {
                let n = block[0] as usize;
                block[1 + n..].fill(NONE);
            }
            w
        };
        Graph {
            m: self.m,
            m0: self.m0,
            entry,
            max_level,
            base: words(self.base, self.m0 + 1),
            upper: words(self.upper, self.m + 1),
            levels: self.levels,
            upper_offsets: self.upper_offsets,
        }
    }
}

impl Links for BuildGraph {
    fn neighbors(&self, node: u32, level: usize, out: &mut Vec<u32>) {
        let (block, cap) = self.block(node, level);
        let n = (block[0].load(Ordering::Acquire) as usize).min(cap);
        out.clear();
        out.extend(block[1..1 + n].iter().map(|a| a.load(Ordering::Relaxed)).filter(|&id| id != NONE));
    }
}

/// Levels drawn from the seed: `floor(-ln(u) / ln(m))`, capped at [`MAX_LEVEL`].
fn draw_levels(n: usize, m: usize, seed: u64) -> Vec<u8> {
    let ml = 1.0 / (m.max(2) as f64).ln();
    let mut rng = SplitMix64::new(seed);
    (0..n).map(|_| ((-rng.next_unit().ln() * ml) as u64).min(MAX_LEVEL as u64) as u8).collect()
}

/// Per-thread build buffers.
#[derive(Default)]
struct BuildScratch {
    search: SearchScratch,
    found: Vec<Scored>,
    selected: Vec<u32>,
    pool: Vec<Scored>,
    kept: Vec<Scored>,
    links: Vec<u32>,
    rotated: Vec<f32>,
}

struct Builder<'a> {
    kernels: &'static Kernels,
    metric: Metric,
    col: VectorColumn<'a>,
    graph: BuildGraph,
    /// The rows' sketches and their rotation: construction searches screen with them.
    sketches: Option<(Sketches<'a>, &'a Rotation)>,
    ef_construction: usize,
    /// Entry point and top level; held for a whole insertion that raises the top level.
    top: Mutex<(u32, usize)>,
}

impl Builder<'_> {
    /// The neighbour-selection heuristic of the HNSW paper (hnswlib's
    /// `getNeighborsByHeuristic2`): keep a candidate only if it is closer to the base node
    /// than to every neighbour already kept. `cands` is sorted, best first.
    fn select(&self, cands: &[Scored], keep: usize, kept: &mut Vec<Scored>, out: &mut Vec<u32>) {
        out.clear();
        if cands.len() <= keep {
            out.extend(cands.iter().map(|c| c.id));
            return;
        }
        kept.clear();
        for c in cands {
            if kept
                .iter()
                .all(|r| row_distance(self.kernels, self.metric, &self.col, c.id as usize, r.id as usize) >= c.dist)
            {
                kept.push(*c);
                if kept.len() >= keep {
                    break;
                }
            }
        }
        out.extend(kept.iter().map(|c| c.id));
    }

    fn insert(&self, node: u32, sc: &mut BuildScratch) {
        let level = self.graph.levels[node as usize] as usize;
        let query = PreparedQuery::from_row(self.metric, &self.col, node as usize);
        let sq = self
            .sketches
            .map(|(_, r)| SketchQuery::prepare(&self.col.row_f32(node as usize), r, self.metric, &mut sc.rotated));
        let screen = self.sketches.zip(sq.as_ref()).map(|((sketches, _), query)| Screen {
            kernels: self.kernels,
            sketches,
            query,
            metric: self.metric,
            sigmas: BUILD_SCREEN_SIGMAS,
        });
        let scorer = Originals { kernels: self.kernels, col: self.col, query: &query, screen };
        let guard = self.top.lock().expect("top lock");
        let (entry, top_level) = *guard;
        // Raising the top level: hold the entry point until this node is linked.
        let hold = (level > top_level).then_some(guard);
        let mut cur = Scored { dist: scorer.dist(entry), id: entry };
        for l in (level + 1..=top_level).rev() {
            cur = greedy(&self.graph, &scorer, cur, l, &mut sc.search);
        }
        for l in (0..=level.min(top_level)).rev() {
            let beam = Beam { ef: self.ef_construction, allowed: None, budget: usize::MAX };
            search_layer(&self.graph, &scorer, cur, l, beam, &mut sc.search, &mut sc.found);
            self.select(&sc.found, self.graph.m, &mut sc.kept, &mut sc.selected);
            {
                let _lock = self.graph.locks[node as usize].lock().expect("node lock");
                self.graph.set(node, l, &sc.selected);
            }
            let cap = if l == 0 { self.graph.m0 } else { self.graph.m };
            for &e in &sc.selected {
                let _lock = self.graph.locks[e as usize].lock().expect("node lock");
                self.graph.neighbors(e, l, &mut sc.links);
                if sc.links.len() < cap {
                    sc.links.push(node);
                    self.graph.set(e, l, &sc.links);
                } else {
                    sc.pool.clear();
                    sc.pool.extend(sc.links.iter().chain(std::iter::once(&node)).map(|&x| Scored {
                        dist: row_distance(self.kernels, self.metric, &self.col, e as usize, x as usize),
                        id: x,
                    }));
                    sc.pool.sort_unstable();
                    self.select(&sc.pool, cap, &mut sc.kept, &mut sc.links);
                    self.graph.set(e, l, &sc.links);
                }
            }
            if let Some(best) = sc.found.first() {
                cur = *best;
            }
        }
        if let Some(mut g) = hold {
            *g = (node, level);
        }
    }
}

/// Builds the graph of all rows of `col`. `concurrency` threads (1 = deterministic);
/// `progress` is called now and then; `cancel` stops the build early (`None` returned).
/// With the rows' `sketches` (and their rotation), construction searches screen
/// neighbours as queries do.
pub(crate) fn build(
    kernels: &'static Kernels,
    metric: Metric,
    col: VectorColumn,
    rows: usize,
    params: &HnswParams,
    sketches: Option<(Sketches, &Rotation)>,
    ctl: &BuildControl,
) -> Option<Graph> {
    let BuildControl { concurrency, progress, cancel } = *ctl;
    let m = params.m as usize;
    let m0 = 2 * m;
    let levels = draw_levels(rows, m, params.seed);
    let mut upper_offsets = Vec::with_capacity(rows);
    let mut upper_words = 0usize;
    for &l in &levels {
        if l == 0 {
            upper_offsets.push(NO_UPPER);
        } else {
            upper_offsets.push(upper_words as u32);
            upper_words += l as usize * (m + 1);
        }
    }
    let graph = BuildGraph {
        m,
        m0,
        base: (0..rows * (m0 + 1)).map(|_| AtomicU32::new(0)).collect(),
        upper: (0..upper_words).map(|_| AtomicU32::new(0)).collect(),
        upper_offsets,
        locks: (0..rows).map(|_| Mutex::new(())).collect(),
        levels,
    };
    if rows == 0 {
        return Some(graph.into_graph(0, 0));
    }
    let first_level = graph.levels[0] as usize;
    let b = Builder {
        kernels,
        metric,
        col,
        graph,
        sketches,
        ef_construction: (params.ef_construction as usize).max(m),
        top: Mutex::new((0, first_level)),
    };
    let done = AtomicUsize::new(1);
    let step = |node: u32, sc: &mut BuildScratch| {
        if cancel.load(Ordering::Relaxed) {
            return;
        }
        b.insert(node, sc);
        let d = done.fetch_add(1, Ordering::Relaxed) + 1;
        if d.is_multiple_of(4096) || d == rows {
            progress(BuildProgress { done: d, total: rows });
        }
    };
    let pool = if concurrency > 1 { crate::index::build_pool(concurrency).ok() } else { None };
    match pool {
        Some(pool) => pool.install(|| {
            (1..rows as u32).into_par_iter().for_each_init(BuildScratch::default, |sc, node| step(node, sc))
        }),
        // One thread asked for, or none to be had: build on this one.
        None => {
            let mut sc = BuildScratch::default();
            (1..rows as u32).for_each(|node| step(node, &mut sc));
        }
    }
    if cancel.load(Ordering::Relaxed) {
        return None;
    }
    let (entry, top) = *b.top.lock().expect("top lock");
    Some(b.graph.into_graph(entry, top))
}
