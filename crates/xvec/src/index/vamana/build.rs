//! Vamana construction (Subramanya et al., NeurIPS 2019): the medoid as entry point, a
//! seeded random R-regular initial graph, then two passes over the nodes, the first
//! pruning with alpha = 1, the second with the configured alpha. A node's out-edges come
//! from a greedy search (candidate list `build_list`) and robust prune of the nodes it
//! expanded and its current neighbours; each new neighbour gets a backward edge and is
//! pruned again when its list overflows. In the second pass lists may grow to 1.3 R
//! before that prune (DiskANN's slack, so a full list is not re-pruned on every backward
//! edge); a last sweep prunes them to R.
//!
//! Parallel and deterministic: nodes are inserted in batches; the first pass's batches
//! double from 1 up to 2% of the nodes (as ParlayANN's do), the second pass's are 2% from
//! the start. Within a batch, searches read the graph as the previous batch left it and
//! write their lists to a side buffer; backward edges are then grouped by target in sorted
//! order and each target is updated by one task. No step depends on thread timing, so a
//! seed builds the same graph at any concurrency.
//!
//! Searches score rotated int8 codes of the rows, made for the build and dropped after
//! it (a quarter of the FP32 bytes); the first pass prunes with them too, the second
//! re-scores what its search expanded against the rows and prunes exactly, so the final
//! lists rest on exact distances. On wordnet-minilm-384 this took the build from 52.7 s to
//! 32.1 s at the same recall. Rows are scored in place in the segment (mapped or read);
//! the large allocations are the codes and the adjacency array, which the finished graph
//! keeps. No distance outlives the prune that computed it. A build whose rows do not fit
//! its memory ([`Working::Codes`], the disk kind under a budget) prunes on the codes too,
//! so it never reads a row at random.
//!
//! The quantized graph's base is built in one pass instead ([`Plan::OnePass`]): from the
//! empty graph, its searches ranked on the rows' sketch estimates, with a longer list.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};

use rayon::prelude::*;

use super::{Graph, NONE};
use crate::index::graph::{BuildControl, BuildProgress};
use crate::index::quant::PARAMS_PER_ROW;
use crate::index::quant::rotation::Rotation;
use crate::index::quant::sketch::{Screen, SketchQuery, Sketches};
use crate::index::rng::SplitMix64;
use crate::index::scorer::{PREFETCH_AHEAD, PREFETCH_LINES, Scored};
use crate::index::visited::VisitedSet;
use crate::kernels::{self, Kernels};
use crate::schema::{Metric, VamanaParams};
use crate::storage::column::{VectorColumn, VectorData};

/// Largest batch, as a share of the nodes: small enough that a batch's nodes rarely
/// need each other's new edges, large enough to keep every thread busy.
const MAX_BATCH_FRACTION: usize = 50;
/// Growth of the occlusion level between prune rounds (DiskANN's).
const LEVEL_STEP: f32 = 1.2;

/// A row of the column made ready to be scored against the others: a query for the
/// build's searches and prunes. FP16 rows are widened once, into a reused buffer.
struct Anchor<'s> {
    data: AnchorData<'s>,
    /// The row's norm for cosine, 1 otherwise.
    norm: f32,
}

enum AnchorData<'s> {
    F32(&'s [f32]),
    I8(&'s [i8]),
    /// The row's first-pass codes, shifted to i8 (`c − 128`), and its [`PassCodes`] params.
    Codes(&'s [i8], [f32; 4]),
}

/// Reused buffers an anchor may borrow: the widened FP16 row, or the shifted codes.
#[derive(Default)]
struct AnchorBuf {
    f32s: Vec<f32>,
    i8s: Vec<i8>,
}

/// Rotated int8 codes of every row, which the searches of both passes (and the first
/// pass's prunes) score instead of the originals: a quarter of the bytes and 64
/// dimensions per `vpdpbusd`. The second pass prunes with exact distances and decides the
/// final lists.
///
/// One record per row, [`PassCodes::stride`] bytes (whole cache lines): the codes, then
/// offset, scale, norm and code sum as four `f32`s. A search scores rows at random, and
/// with the parameters in arrays of their own each scored row missed the cache twice more
/// (half the samples of the distance itself on wordnet-minilm-384); the record is one
/// prefetch. The records sit on huge pages where the kernel gives them (a row's record
/// is otherwise a TLB miss and, on a virtual machine, a nested page walk).
struct PassCodes {
    dim: usize,
    stride: usize,
    records: Vec<u8>,
}

/// Bytes of the parameters after a row's codes: offset, scale, norm, code sum.
const RECORD_PARAMS: usize = 16;

impl PassCodes {
    /// Record bytes for rows of `dim` dimensions: codes and parameters, rounded up to
    /// whole cache lines.
    fn stride(dim: usize) -> usize {
        (dim + RECORD_PARAMS).next_multiple_of(64)
    }

    fn encode(col: VectorColumn, n: usize, metric: Metric, seed: u64) -> PassCodes {
        use crate::index::quant::{Quantizer, rotation::Rotation};
        use crate::schema::Quantize;
        let dim = col.dim;
        let quant = Quantizer::new(Quantize::Int8, 0, dim, metric, Some(Rotation::new(dim, seed)));
        let (codes, params) = quant.encode_rows(col, n);
        let stride = PassCodes::stride(dim);
        let mut records = vec![0u8; n * stride];
        crate::storage::mmap::advise_huge_pages(&records);
        records.par_chunks_mut(stride).enumerate().for_each(|(r, rec)| {
            let c = &codes[r * dim..(r + 1) * dim];
            let p = &params[PARAMS_PER_ROW * r..PARAMS_PER_ROW * (r + 1)];
            let sum = c.iter().map(|&x| u32::from(x)).sum::<u32>() as f32;
            rec[..dim].copy_from_slice(c);
            for (i, x) in [p[0], p[1], p[2], sum].into_iter().enumerate() {
                rec[dim + 4 * i..dim + 4 * (i + 1)].copy_from_slice(&x.to_le_bytes());
            }
        });
        PassCodes { dim, stride, records }
    }

    /// The row's codes, and its offset, scale, norm and code sum.
    #[inline]
    fn row(&self, row: u32) -> (&[u8], [f32; 4]) {
        let rec = &self.records[row as usize * self.stride..][..self.stride];
        let (codes, p) = rec.split_at(self.dim);
        let f = |i: usize| f32::from_le_bytes([p[4 * i], p[4 * i + 1], p[4 * i + 2], p[4 * i + 3]]);
        (codes, [f(0), f(1), f(2), f(3)])
    }

    /// The row's whole record, for a prefetch.
    #[inline]
    fn record(&self, row: u32) -> &[u8] {
        &self.records[row as usize * self.stride..][..self.stride]
    }
}

/// The rows being indexed and the distance construction uses: `row_distance`'s order,
/// with cosine shifted to `1 − cos` so that L2 and cosine distances are non-negative, as
/// the occlusion ratios of robust prune need.
#[derive(Clone, Copy)]
struct Rows<'a> {
    kernels: &'static Kernels,
    metric: Metric,
    col: VectorColumn<'a>,
    /// Score these codes instead of the originals (the first pass).
    codes: Option<&'a PassCodes>,
}

impl<'a> Rows<'a> {
    fn anchor<'s>(&self, row: u32, buf: &'s mut AnchorBuf) -> Anchor<'s>
    where
        'a: 's,
    {
        if let Some(codes) = self.codes {
            let (c, p) = codes.row(row);
            buf.i8s.clear();
            buf.i8s.extend(c.iter().map(|&x| (x ^ 0x80) as i8));
            return Anchor { data: AnchorData::Codes(&buf.i8s, p), norm: p[2] };
        }
        let r = row as usize * self.col.dim..(row as usize + 1) * self.col.dim;
        let data = match self.col.data {
            VectorData::Fp32(d) => AnchorData::F32(&d[r]),
            VectorData::Fp16(d) => {
                buf.f32s.clear();
                buf.f32s.extend(d[r].iter().map(|x| x.to_f32()));
                AnchorData::F32(&buf.f32s)
            }
            VectorData::Int8(d) => AnchorData::I8(&d[r]),
        };
        Anchor { data, norm: self.norm(row) }
    }

    #[inline]
    fn norm(&self, row: u32) -> f32 {
        match (self.metric, self.col.norms) {
            (Metric::Cosine, Some(n)) => n[row as usize],
            _ => 1.0,
        }
    }

    #[inline]
    fn dist(&self, a: &Anchor, row: u32) -> f32 {
        if let (AnchorData::Codes(q, pa), Some(codes)) = (&a.data, self.codes) {
            return self.code_dist(codes, q, pa, row);
        }
        let k = self.kernels;
        let r = row as usize * self.col.dim..(row as usize + 1) * self.col.dim;
        let l2 = self.metric == Metric::L2;
        let dot = match (&a.data, self.col.data) {
            (AnchorData::F32(q), VectorData::Fp32(d)) if l2 => return (k.l2_f32)(q, &d[r]),
            (AnchorData::F32(q), VectorData::Fp32(d)) => (k.dot_f32)(q, &d[r]),
            (AnchorData::F32(q), VectorData::Fp16(d)) if l2 => return (k.l2_f16)(q, &d[r]),
            (AnchorData::F32(q), VectorData::Fp16(d)) => (k.dot_f16)(q, &d[r]),
            (AnchorData::I8(q), VectorData::Int8(d)) if l2 => return (k.l2_i8)(q, &d[r]) as f32,
            (AnchorData::I8(q), VectorData::Int8(d)) => (k.dot_i8)(q, &d[r]) as f32,
            _ => unreachable!("anchors are rows of the same column"),
        };
        if self.metric == Metric::Cosine {
            let n = a.norm * self.norm(row);
            1.0 - if n > 0.0 { dot / n } else { 0.0 }
        } else {
            -dot
        }
    }

    /// [`Rows::dist`] estimated from codes: with `x ≈ m + s·c` per row,
    /// `x·y ≈ d·mx·my + mx·sy·Σcy + my·sx·Σcx + sx·sy·Σcx·cy`, and `Σcx·cy` is
    /// `Σcy·(cx − 128) + 128·Σcy`. Clamped at 0 for L2 and cosine, whose prune needs
    /// non-negative distances.
    #[inline]
    fn code_dist(&self, codes: &PassCodes, q: &[i8], pa: &[f32; 4], row: u32) -> f32 {
        let (c, py) = codes.row(row);
        let cross = (self.kernels.dot_u8_i8)(c, q) as f32 + 128.0 * py[3];
        let dot =
            codes.dim as f32 * pa[0] * py[0] + pa[0] * py[1] * py[3] + py[0] * pa[1] * pa[3] + pa[1] * py[1] * cross;
        match self.metric {
            Metric::L2 => (pa[2] * pa[2] + py[2] * py[2] - 2.0 * dot).max(0.0),
            Metric::Cosine => {
                let n = pa[2] * py[2];
                (1.0 - if n > 0.0 { dot / n } else { 0.0 }).max(0.0)
            }
            Metric::Ip => -dot,
        }
    }

    #[inline]
    fn prefetch(&self, row: u32) {
        if let Some(codes) = self.codes {
            kernels::prefetch_lines(codes.record(row), usize::MAX);
            return;
        }
        let r = row as usize * self.col.dim..(row as usize + 1) * self.col.dim;
        match self.col.data {
            VectorData::Fp32(d) => kernels::prefetch_lines(&d[r], PREFETCH_LINES),
            VectorData::Fp16(d) => kernels::prefetch_lines(&d[r], PREFETCH_LINES),
            VectorData::Int8(d) => kernels::prefetch_lines(&d[r], PREFETCH_LINES),
        }
    }
}

/// How strongly a kept neighbour `j` occludes a candidate `t` of node `p`: `t` is dropped
/// at occlusion level `a` when the factor exceeds `a`. L2 and cosine compare distances,
/// `d(p,t) / d(j,t)`. Inner product follows DiskANN's MIPS rule, `t` occluded when
/// `⟨j,t⟩ > a·⟨p,t⟩`: the factor `⟨j,t⟩ / ⟨p,t⟩` for `⟨p,t⟩ > 0`; otherwise `t` is
/// occluded at every level when `⟨j,t⟩ > ⟨p,t⟩`, and kept when not.
#[inline]
pub(crate) fn occlusion(metric: Metric, d_pt: f32, d_jt: f32) -> f32 {
    match metric {
        Metric::Ip => {
            let (x, y) = (-d_pt, -d_jt);
            if x > 0.0 {
                y / x
            } else if y > x {
                f32::INFINITY
            } else {
                0.0
            }
        }
        Metric::L2 | Metric::Cosine => {
            if d_jt > 0.0 {
                d_pt / d_jt
            } else {
                f32::INFINITY
            }
        }
    }
}

/// Inserts `s` into the candidate list (sorted, at most `l` long) unless the list is
/// full of better ones; returns where it went.
#[inline]
fn admit(list: &mut Vec<Cand>, s: Scored, l: usize) -> Option<usize> {
    if list.len() >= l && list.last().is_some_and(|w| s >= w.at) {
        return None;
    }
    let pos = list.partition_point(|x| x.at < s);
    list.insert(pos, Cand { at: s, expanded: false });
    list.truncate(l);
    Some(pos)
}

/// Moves the unvisited ids of `b.links` to its front (marking them visited) and returns
/// how many there are.
#[inline]
fn keep_unvisited(b: &mut Bufs) -> usize {
    let mut fresh = 0;
    for i in 0..b.links.len() {
        let nb = b.links[i];
        if b.visited.insert(nb) {
            b.links[fresh] = nb;
            fresh += 1;
        }
    }
    fresh
}

/// The first position at or after `from` whose candidate is not expanded yet.
#[inline]
fn first_unexpanded(list: &[Cand], from: usize) -> usize {
    list[from.min(list.len())..].iter().position(|x| !x.expanded).map_or(list.len(), |at| from + at)
}

/// The graph under construction: `cap + 1` words per node (count, then up to `cap`
/// neighbours). Atomics let tasks of one phase update different nodes through a shared
/// reference; phases never read a node another task of the same phase writes, and
/// rayon's joins order one phase before the next, so relaxed accesses suffice.
struct Adjacency {
    cap: usize,
    words: Vec<AtomicU32>,
}

impl Adjacency {
    fn load(&self, node: u32, out: &mut Vec<u32>) {
        let at = node as usize * (self.cap + 1);
        let n = (self.words[at].load(Ordering::Relaxed) as usize).min(self.cap);
        out.clear();
        out.extend(self.words[at + 1..at + 1 + n].iter().map(|w| w.load(Ordering::Relaxed)));
    }

    fn store(&self, node: u32, ids: &[u32]) {
        let at = node as usize * (self.cap + 1);
        debug_assert!(ids.len() <= self.cap);
        for (w, &id) in self.words[at + 1..].iter().zip(ids) {
            w.store(id, Ordering::Relaxed);
        }
        self.words[at].store(ids.len() as u32, Ordering::Relaxed);
    }

    fn prefetch(&self, node: u32) {
        let at = node as usize * (self.cap + 1);
        kernels::prefetch_lines(&self.words[at..at + self.cap + 1], (self.cap + 1).div_ceil(16));
    }

    fn count(&self, node: u32) -> usize {
        self.words[node as usize * (self.cap + 1)].load(Ordering::Relaxed) as usize
    }
}

/// An entry of the greedy search's candidate list.
#[derive(Clone, Copy)]
struct Cand {
    at: Scored,
    expanded: bool,
}

/// Per-thread buffers, reused for every node.
#[derive(Default)]
struct Scratch {
    /// The node being linked, as an anchor.
    anchor: AnchorBuf,
    /// The node's row, for its sketch query.
    row: Vec<f32>,
    rotated: Vec<f32>,
    /// The same node for the search when the search scores codes.
    search_anchor: AnchorBuf,
    bufs: Bufs,
}

#[derive(Default)]
struct Bufs {
    visited: VisitedSet,
    member: VisitedSet,
    list: Vec<Cand>,
    /// Prune candidates with their distance to the node, sorted before pruning.
    pool: Vec<Scored>,
    links: Vec<u32>,
    factor: Vec<f32>,
    /// The neighbour a prune scores against, as an anchor.
    prune_anchor: AnchorBuf,
    out: Vec<u32>,
}

struct Builder<'a> {
    /// What prunes score.
    rows: Rows<'a>,
    /// What searches score: the same rows, or their codes.
    search: Rows<'a>,
    graph: Adjacency,
    degree: usize,
    build_list: usize,
    occlusion: usize,
    medoid: u32,
    /// The rows' sketches and their rotation: searches screen with them.
    screen: Option<(Sketches<'a>, &'a Rotation)>,
    /// Prunes score a kept neighbour against the later candidates on the codes (their
    /// distances to the node stay exact): [`Plan::OnePass`].
    pair_codes: bool,
}

impl Builder<'_> {
    /// Starts a search for `node`: the medoid in the list (its neighbours when `node` is
    /// the medoid), scored on what searches score.
    fn start(&self, a: &Anchor, node: u32, b: &mut Bufs) {
        b.visited.clear(self.build_list * 16);
        b.list.clear();
        b.pool.clear();
        b.visited.insert(node);
        if self.medoid != node {
            b.visited.insert(self.medoid);
            b.list
                .push(Cand { at: Scored { dist: self.search.dist(a, self.medoid), id: self.medoid }, expanded: false });
        } else {
            self.graph.load(node, &mut b.links);
            for &nb in &b.links {
                if b.visited.insert(nb) {
                    b.list.push(Cand { at: Scored { dist: self.search.dist(a, nb), id: nb }, expanded: false });
                }
            }
            b.list.sort_unstable_by_key(|x| x.at);
            b.list.truncate(self.build_list);
        }
    }

    /// Greedy search for `node` from the medoid with a candidate list of `build_list`:
    /// leaves every expanded node, with its distance, in `b.pool` (unsorted).
    fn greedy(&self, a: &Anchor, node: u32, b: &mut Bufs) {
        self.start(a, node, b);
        let mut cursor = 0;
        while cursor < b.list.len() {
            b.list[cursor].expanded = true;
            let c = b.list[cursor].at;
            b.pool.push(c);
            self.graph.load(c.id, &mut b.links);
            // The likely next node to expand: its list loads while this one's are scored.
            if let Some(next) = b.list[cursor + 1..].iter().find(|x| !x.expanded) {
                self.graph.prefetch(next.at.id);
            }
            // Keep the unvisited neighbours, and score them while the next few load, so
            // that their cache misses overlap.
            let fresh = keep_unvisited(b);
            for &nb in &b.links[..fresh.min(PREFETCH_AHEAD)] {
                self.search.prefetch(nb);
            }
            let mut next = cursor + 1;
            for i in 0..fresh {
                let nb = b.links[i];
                if let Some(&ahead) = b.links[..fresh].get(i + PREFETCH_AHEAD) {
                    self.search.prefetch(ahead);
                }
                if let Some(pos) = admit(&mut b.list, Scored { dist: self.search.dist(a, nb), id: nb }, self.build_list)
                {
                    next = next.min(pos);
                }
            }
            cursor = first_unexpanded(&b.list, next);
        }
    }

    /// [`Builder::greedy`] with its list ranked on the rows' sketch estimates (`est`, at
    /// no deviation) and only the nodes it expands scored on what searches score, as a
    /// quantized-graph query ranks its beam on one-bit estimates and scores what it
    /// expands: a sketch is one line where a row's codes are seven, and most neighbours a
    /// search meets it never expands. On wordnet-minilm-384 (degree 32, list 300, 2
    /// threads) the qg index's base built in about 0.85 of the time of a search scoring
    /// every neighbour on the codes, for the same recall at ef 48 (docs/benchmarks,
    /// "Session 13").
    fn greedy_estimated(&self, a: &Anchor, node: u32, est: &Screen, b: &mut Bufs) {
        self.start(a, node, b);
        // The build's cosine distance is `1 − cos`, the sketches' `−cos`.
        let shift = if self.search.metric == Metric::Cosine { 1.0 } else { 0.0 };
        let mut cursor = 0;
        while cursor < b.list.len() {
            b.list[cursor].expanded = true;
            let c = b.list[cursor].at;
            self.graph.load(c.id, &mut b.links);
            // The likely next node to expand: its list and codes load while this one's
            // neighbours are estimated.
            if let Some(next) = b.list[cursor + 1..].iter().find(|x| !x.expanded) {
                self.graph.prefetch(next.at.id);
                self.search.prefetch(next.at.id);
            }
            b.pool.push(Scored { dist: self.search.dist(a, c.id), id: c.id });
            let fresh = keep_unvisited(b);
            for &nb in &b.links[..fresh] {
                est.prefetch(nb);
            }
            let mut next = cursor + 1;
            for &nb in &b.links[..fresh] {
                if let Some(pos) =
                    admit(&mut b.list, Scored { dist: est.lower_bound(nb) + shift, id: nb }, self.build_list)
                {
                    next = next.min(pos);
                }
            }
            cursor = first_unexpanded(&b.list, next);
        }
    }

    /// Robust prune of `b.pool` (sorted, distinct, without the node itself) into `b.out`:
    /// at most `degree` neighbours, each occluding the later candidates it is much closer
    /// to; the occlusion level rises from 1 by [`LEVEL_STEP`] up to `alpha` while room is
    /// left.
    fn prune(&self, alpha: f32, b: &mut Bufs) {
        let Bufs { pool, factor, prune_anchor, out, .. } = b;
        let pool = &pool[..pool.len().min(self.occlusion)];
        out.clear();
        factor.clear();
        factor.resize(pool.len(), 0.0);
        let mut level = 1.0f32;
        loop {
            for i in 0..pool.len() {
                if out.len() >= self.degree {
                    break;
                }
                if factor[i] > level {
                    continue;
                }
                factor[i] = f32::INFINITY;
                out.push(pool[i].id);
                if out.len() == self.degree {
                    break;
                }
                let pr = if self.pair_codes { &self.search } else { &self.rows };
                let a = pr.anchor(pool[i].id, prune_anchor);
                for t in i + 1..pool.len() {
                    if let Some(ahead) = pool.get(t + PREFETCH_AHEAD) {
                        pr.prefetch(ahead.id);
                    }
                    if factor[t] > alpha {
                        continue;
                    }
                    let d = pr.dist(&a, pool[t].id);
                    factor[t] = factor[t].max(occlusion(self.rows.metric, pool[t].dist, d));
                }
            }
            if level >= alpha || out.len() >= self.degree {
                break;
            }
            level = (level * LEVEL_STEP).min(alpha);
        }
    }

    /// New out-edges of `node`: search, then prune what it expanded together with the
    /// node's current neighbours. Leaves them in `sc.bufs.out`.
    fn link(&self, node: u32, alpha: f32, sc: &mut Scratch) {
        let Scratch { anchor, search_anchor, row, rotated, bufs: b } = sc;
        let query = self.screen.map(|(sketches, rotation)| {
            row.clear();
            self.rows.col.extend_f32(node as usize, row);
            (sketches, SketchQuery::prepare(row, rotation, self.rows.metric, rotated))
        });
        let est = query.as_ref().map(|(sketches, query)| Screen {
            kernels: self.rows.kernels,
            sketches: *sketches,
            query,
            metric: self.rows.metric,
            sigmas: 0.0,
        });
        let a = self.rows.anchor(node, anchor);
        let search = |a: &Anchor, b: &mut Bufs| match &est {
            Some(est) => self.greedy_estimated(a, node, est, b),
            None => self.greedy(a, node, b),
        };
        if self.search.codes.is_some() && self.rows.codes.is_none() {
            let s = self.search.anchor(node, search_anchor);
            search(&s, b);
            // The prune decides the lists: it gets exact distances.
            for i in 0..b.pool.len() {
                if let Some(ahead) = b.pool.get(i + PREFETCH_AHEAD) {
                    self.rows.prefetch(ahead.id);
                }
                b.pool[i].dist = self.rows.dist(&a, b.pool[i].id);
            }
        } else {
            search(&a, b);
        }
        b.member.clear(b.pool.len() + self.graph.cap);
        for s in &b.pool {
            b.member.insert(s.id);
        }
        self.graph.load(node, &mut b.links);
        for &nb in &b.links {
            if nb != node && b.member.insert(nb) {
                b.pool.push(Scored { dist: self.rows.dist(&a, nb), id: nb });
            }
        }
        b.pool.sort_unstable();
        self.prune(alpha, b);
    }

    /// Re-prunes the neighbour list in `sc.bufs.links` of `node` to at most `degree` and
    /// stores it.
    fn reprune(&self, node: u32, alpha: f32, sc: &mut Scratch) {
        let Scratch { anchor, bufs: b, .. } = sc;
        let a = self.rows.anchor(node, anchor);
        b.pool.clear();
        for (i, &nb) in b.links.iter().enumerate() {
            if let Some(&ahead) = b.links.get(i + PREFETCH_AHEAD) {
                self.rows.prefetch(ahead);
            }
            b.pool.push(Scored { dist: self.rows.dist(&a, nb), id: nb });
        }
        b.pool.sort_unstable();
        self.prune(alpha, b);
        self.graph.store(node, &b.out);
    }

    /// Adds backward edges `sources → target` (sorted, distinct), re-pruning the target's
    /// list when it would grow past `limit`.
    fn back_link(&self, target: u32, sources: &[(u32, u32)], alpha: f32, limit: usize, sc: &mut Scratch) {
        let links = &mut sc.bufs.links;
        self.graph.load(target, links);
        let before = links.len();
        for &(_, s) in sources {
            if !links[..before].contains(&s) {
                links.push(s);
            }
        }
        if links.len() > limit {
            self.reprune(target, alpha, sc);
        } else if links.len() > before {
            self.graph.store(target, links);
        }
    }
}

/// The node nearest the centroid of all rows (of the unit rows, for cosine), by L2 (by
/// cosine for cosine fields): the entry point of every search.
fn medoid(rows: Rows, n: usize) -> u32 {
    let dim = rows.col.dim;
    let mut sum = vec![0f64; dim];
    for r in 0..n {
        let norm = rows.norm(r as u32);
        let scale = if norm > 0.0 { 1.0 / norm as f64 } else { 0.0 };
        let range = r * dim..(r + 1) * dim;
        match rows.col.data {
            VectorData::Fp32(d) => sum.iter_mut().zip(&d[range]).for_each(|(s, &x)| *s += x as f64 * scale),
            VectorData::Fp16(d) => sum.iter_mut().zip(&d[range]).for_each(|(s, x)| *s += x.to_f64() * scale),
            VectorData::Int8(d) => sum.iter_mut().zip(&d[range]).for_each(|(s, &x)| *s += x as f64 * scale),
        }
    }
    let centroid: Vec<f32> = sum.iter().map(|&s| (s / n.max(1) as f64) as f32).collect();
    let rounded: Vec<i8> = centroid.iter().map(|&x| x.round().clamp(-128.0, 127.0) as i8).collect();
    let data = match rows.col.data {
        VectorData::Int8(_) => AnchorData::I8(&rounded),
        _ => AnchorData::F32(&centroid),
    };
    let norm = match &data {
        AnchorData::F32(c) => c.iter().map(|&x| x * x).sum::<f32>().sqrt(),
        AnchorData::I8(c) => c.iter().map(|&x| (x as f32) * (x as f32)).sum::<f32>().sqrt(),
        AnchorData::Codes(..) => unreachable!("the centroid is a vector, not codes"),
    };
    let center = Anchor { data, norm: if rows.metric == Metric::Cosine { norm } else { 1.0 } };
    // Inner product has no "nearest to the centroid"; L2 picks a central node.
    let by = Rows { metric: if rows.metric == Metric::Ip { Metric::L2 } else { rows.metric }, ..rows };
    (0..n as u32).into_par_iter().map(|r| Scored { dist: by.dist(&center, r), id: r }).min().map_or(0, |s| s.id)
}

/// Seeded random out-neighbours of every node: `min(degree, n − 1)` distinct other nodes.
fn random_graph(graph: &Adjacency, n: usize, degree: usize, seed: u64) {
    let want = degree.min(n.saturating_sub(1));
    (0..n as u32).into_par_iter().for_each_init(
        || (VisitedSet::default(), Vec::with_capacity(want)),
        |(member, ids), node| {
            let mut rng = SplitMix64::new(seed ^ (node as u64 + 1).wrapping_mul(0xD1B5_4A32_D192_ED03));
            member.clear(want);
            ids.clear();
            while ids.len() < want {
                let id = rng.below(n as u64) as u32;
                if id != node && member.insert(id) {
                    ids.push(id);
                }
            }
            graph.store(node, ids);
        },
    );
}

/// Breadth-first order of the graph from the medoid; nodes it cannot reach follow, each
/// starting a walk of its own, in row order.
fn bfs_order(graph: &Adjacency, n: usize, medoid: u32) -> Vec<u32> {
    let mut seen = vec![false; n];
    let mut order = Vec::with_capacity(n);
    let mut links = Vec::new();
    let mut roots = std::iter::once(medoid).chain(0..n as u32);
    while order.len() < n {
        let Some(root) = roots.find(|&r| !seen[r as usize]) else { break };
        seen[root as usize] = true;
        let mut at = order.len();
        order.push(root);
        while at < order.len() {
            graph.load(order[at], &mut links);
            for &x in &links {
                if !std::mem::replace(&mut seen[x as usize], true) {
                    order.push(x);
                }
            }
            at += 1;
        }
    }
    order
}

/// A seeded permutation of `0..n` (Fisher–Yates).
fn permutation(n: usize, seed: u64) -> Vec<u32> {
    let mut rng = SplitMix64::new(seed);
    let mut order: Vec<u32> = (0..n as u32).collect();
    for i in (1..n).rev() {
        order.swap(i, rng.below(i as u64 + 1) as usize);
    }
    order
}

/// What a build scores its distances on, which decides its working set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Working {
    /// Searches score the int8 codes; the second pass and the last sweep prune on the
    /// rows themselves, reading them at random (fast while the column is in memory).
    Exact,
    /// Every distance from the int8 codes: the column is read once, in order, to encode
    /// them and find the medoid, and never again, so the build's memory is the codes and
    /// the adjacency, whatever the rows' size. With `slack` false the lists stay at the
    /// degree during the second pass (its adjacency a quarter smaller, more re-prunes).
    Codes { slack: bool },
}

impl Working {
    /// Neighbour slots per node while building: 1.3 R with slack (DiskANN's), else R.
    pub(crate) fn cap(self, degree: usize) -> usize {
        match self {
            Working::Exact | Working::Codes { slack: true } => (degree * 13).div_ceil(10),
            Working::Codes { slack: false } => degree,
        }
    }
}

/// Bytes a build over `n` rows of `dim` dimensions holds besides the rows (its codes, their
/// parameters and the adjacency), for a working mode's budget.
pub(crate) fn working_bytes(n: usize, dim: usize, degree: usize, working: Working) -> u64 {
    let codes = PassCodes::stride(dim);
    let adjacency = 4 * (working.cap(degree) + 1);
    (n * (codes + adjacency)) as u64
}

/// Builds the graph of all rows of `col` with `control.concurrency` threads (the graph
/// depends on the seed only). Progress is reported after each batch; cancelling stops
/// the build early (`None` returned).
pub(crate) fn build(
    kernels: &'static Kernels,
    metric: Metric,
    col: VectorColumn,
    n: usize,
    params: &VamanaParams,
    control: &BuildControl,
) -> Option<Graph> {
    build_with(kernels, metric, col, n, params, Working::Exact, Plan::TwoPasses, control)
}

/// How a build runs its searches.
#[derive(Clone, Copy)]
pub(crate) enum Plan<'a> {
    /// The paper's two passes from a seeded random graph (the `vamana` and disk kinds).
    TwoPasses,
    /// One pass with alpha from an empty graph, its batches doubling from one node
    /// (ParlayANN's prefix doubling: the early searches run in a small graph instead of
    /// wading through random lists), its searches ranked on the rows' sketch estimates
    /// (made with the rotation, as [`crate::index::quant::sketch::encode_rows`] makes
    /// them; [`Builder::greedy_estimated`]), its prunes scoring kept neighbours against
    /// later candidates on the codes. It needs a longer candidate list for the same graph:
    /// on wordnet-minilm-384 (degree 32, 2 threads) one pass with list 300 gave the recall
    /// of two with list 200 (the quantized graph's 0.9803 at ef 48) in about 0.9 of the
    /// build time (0.75 once its searches ranked on estimates); one pass with list 200
    /// took 0.6 of it but gave 0.976.
    OnePass { screen: (Sketches<'a>, &'a Rotation) },
}

/// [`build`] scoring on what `working` says (an int8 column is its own code: it always
/// builds exactly).
#[allow(clippy::too_many_arguments)]
pub(crate) fn build_with(
    kernels: &'static Kernels,
    metric: Metric,
    col: VectorColumn,
    n: usize,
    params: &VamanaParams,
    working: Working,
    plan: Plan,
    control: &BuildControl,
) -> Option<Graph> {
    let BuildControl { concurrency, progress, cancel } = *control;
    let degree = params.degree as usize;
    let cap = working.cap(degree);
    let rows = Rows { kernels, metric, col, codes: None };
    let pool = crate::index::build_pool(concurrency).expect("a thread pool of one thread");
    let threads = pool.current_num_threads();
    let words = vec![0u32; n * (cap + 1)];
    crate::storage::mmap::advise_huge_pages(&words);
    let words: Vec<AtomicU32> = words.into_iter().map(AtomicU32::new).collect();
    let graph = Adjacency { cap, words };
    let medoid = pool.install(|| {
        if matches!(plan, Plan::TwoPasses) {
            random_graph(&graph, n, degree, params.seed);
        }
        medoid(rows, n)
    });
    let pass_codes = matches!(col.data, VectorData::Fp32(_) | VectorData::Fp16(_))
        .then(|| PassCodes::encode(col, n, metric, params.seed));
    let mut b = Builder {
        rows,
        search: rows,
        graph,
        degree,
        build_list: params.build_list as usize,
        occlusion: params.occlusion as usize,
        medoid,
        screen: match plan {
            Plan::TwoPasses => None,
            Plan::OnePass { screen } => Some(screen),
        },
        pair_codes: !matches!(plan, Plan::TwoPasses),
    };
    let scratch: Vec<Mutex<Scratch>> = (0..threads).map(|_| Mutex::default()).collect();
    let with_scratch = |f: &mut dyn FnMut(&mut Scratch)| {
        let i = rayon::current_thread_index().unwrap_or(0) % threads;
        f(&mut scratch[i].lock().expect("build scratch"));
    };
    let max_batch = (n / MAX_BATCH_FRACTION).max(1);
    let stride = degree + 1;
    let mut buffer: Vec<u32> = Vec::new();
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    let passes = if matches!(plan, Plan::TwoPasses) { 2 } else { 1 };
    for pass in 0..passes {
        // Pass 1 prunes with alpha = 1 in a seeded random order, starting from the random
        // graph; a list overflows past the degree, as in the paper, so each random list is
        // pruned away on its first backward edge and searches soon stop wading through
        // random edges (this halved the pass's distance computations on
        // wordnet-minilm-384). Pass 2 prunes with alpha and lets lists grow to the build
        // capacity before re-pruning. It visits the nodes breadth-first through the pass-1
        // graph: consecutive nodes are neighbours whose searches find each other's vectors
        // still in cache (about 10% less build CPU there, same recall).
        b.search.codes = pass_codes.as_ref();
        // One pass (from the empty graph, batches doubling from one node) prunes with
        // alpha and exactly, as the second of two does.
        let last = pass + 1 == passes;
        b.rows.codes = if !last || working != Working::Exact { pass_codes.as_ref() } else { None };
        let (alpha, limit, order, mut size) = if passes == 1 {
            (params.alpha, cap, permutation(n, params.seed.wrapping_add(1)), 1)
        } else if pass == 0 {
            (1.0, degree, permutation(n, params.seed.wrapping_add(1)), 1)
        } else {
            (params.alpha, cap, bfs_order(&b.graph, n, medoid), max_batch)
        };
        let mut start = 0;
        while start < n {
            if cancel.load(Ordering::Relaxed) {
                return None;
            }
            let batch = &order[start..(start + size).min(n)];
            buffer.clear();
            buffer.resize(batch.len() * stride, 0);
            pool.install(|| {
                batch.par_iter().zip(buffer.par_chunks_mut(stride)).for_each(|(&node, slot)| {
                    if cancel.load(Ordering::Relaxed) {
                        return;
                    }
                    with_scratch(&mut |sc| {
                        b.link(node, alpha, sc);
                        slot[0] = sc.bufs.out.len() as u32;
                        slot[1..1 + sc.bufs.out.len()].copy_from_slice(&sc.bufs.out);
                    });
                });
            });
            pairs.clear();
            for (&node, slot) in batch.iter().zip(buffer.chunks_exact(stride)) {
                let out = &slot[1..1 + slot[0] as usize];
                b.graph.store(node, out);
                pairs.extend(out.iter().map(|&j| (j, node)));
            }
            pool.install(|| {
                pairs.par_sort_unstable();
                pairs.par_chunk_by(|x, y| x.0 == y.0).for_each(|group| {
                    with_scratch(&mut |sc| b.back_link(group[0].0, group, alpha, limit, sc));
                });
            });
            start += batch.len();
            size = (size * 2).min(max_batch);
            progress(BuildProgress { done: (pass * n + start) / passes, total: n });
        }
    }
    // Lists may have grown past the degree through backward edges: prune them to it.
    pool.install(|| {
        (0..n as u32).into_par_iter().filter(|&v| b.graph.count(v) > degree).for_each(|v| {
            with_scratch(&mut |sc| {
                b.graph.load(v, &mut sc.bufs.links);
                b.reprune(v, params.alpha, sc);
            })
        });
    });
    if cancel.load(Ordering::Relaxed) {
        return None;
    }
    // Reuse the allocation: drop the atomics, then close up the slack in place.
    let mut words: Vec<u32> = b.graph.words.into_iter().map(AtomicU32::into_inner).collect();
    for v in 0..n {
        let (from, to) = (v * (cap + 1), v * stride);
        let count = words[from] as usize;
        debug_assert!(count <= degree);
        words.copy_within(from..from + 1 + count, to);
        words[to + 1 + count..to + stride].fill(NONE);
    }
    words.truncate(n * stride);
    words.shrink_to_fit();
    Some(Graph { degree, medoid, adjacency: words })
}

#[cfg(test)]
pub(super) mod tests {
    use std::sync::atomic::AtomicBool;

    use super::*;
    use crate::index::flat::row_distance;
    use crate::storage::column::Validity;

    fn column<'a>(data: VectorData<'a>, norms: Option<&'a [f32]>, dim: usize) -> VectorColumn<'a> {
        VectorColumn { dim, validity: Validity(None), data, norms }
    }

    /// The build's distance is `row_distance` (the search's), shifted by 1 for cosine.
    #[test]
    fn build_distance_matches_row_distance() {
        let (n, dim) = (12, 19);
        let mut rng = SplitMix64::new(5);
        let f: Vec<f32> = (0..n * dim).map(|_| rng.next_unit() as f32 * 2.0 - 1.0).collect();
        let h: Vec<half::f16> = f.iter().map(|&x| half::f16::from_f32(x)).collect();
        let i: Vec<i8> = f.iter().map(|&x| (x * 100.0) as i8).collect();
        let norms =
            |v: Vec<f32>| -> Vec<f32> { v.chunks(dim).map(|r| r.iter().map(|x| x * x).sum::<f32>().sqrt()).collect() };
        let nf = norms(f.clone());
        let nh = norms(h.iter().map(|x| x.to_f32()).collect());
        let ni = norms(i.iter().map(|&x| x as f32).collect());
        let k = kernels::best();
        for metric in [Metric::L2, Metric::Ip, Metric::Cosine] {
            let cols = [
                column(VectorData::Fp32(&f), Some(&nf), dim),
                column(VectorData::Fp16(&h), Some(&nh), dim),
                column(VectorData::Int8(&i), Some(&ni), dim),
            ];
            for col in cols {
                let rows = Rows { kernels: k, metric, col, codes: None };
                let mut buf = AnchorBuf::default();
                for a in 0..n {
                    let anchor = rows.anchor(a as u32, &mut buf);
                    for b in 0..n {
                        let want =
                            row_distance(k, metric, &col, a, b) + if metric == Metric::Cosine { 1.0 } else { 0.0 };
                        let got = rows.dist(&anchor, b as u32);
                        assert!(
                            (got - want).abs() <= 1e-4 * want.abs().max(1.0),
                            "{metric:?} {a} {b}: {got} vs {want}"
                        );
                    }
                }
            }
        }
    }

    /// The first pass's code distances track the exact build distances.
    #[test]
    fn code_distances_track_build_distances() {
        let (n, dim) = (40, 64);
        let mut rng = SplitMix64::new(9);
        let f: Vec<f32> = (0..n * dim).map(|_| rng.next_unit() as f32 * 2.0 - 1.0).collect();
        let norms: Vec<f32> = f.chunks(dim).map(|r| r.iter().map(|x| x * x).sum::<f32>().sqrt()).collect();
        for k in kernels::available() {
            for (metric, tol) in [(Metric::L2, 0.3), (Metric::Ip, 0.15), (Metric::Cosine, 0.01)] {
                let col = column(VectorData::Fp32(&f), Some(&norms), dim);
                let codes = PassCodes::encode(col, n, metric, 3);
                let exact = Rows { kernels: k, metric, col, codes: None };
                let coded = Rows { codes: Some(&codes), ..exact };
                let (mut ea, mut ca) = (AnchorBuf::default(), AnchorBuf::default());
                for a in 0..n as u32 {
                    let (x, y) = (exact.anchor(a, &mut ea), coded.anchor(a, &mut ca));
                    for b in 0..n as u32 {
                        let (want, got) = (exact.dist(&x, b), coded.dist(&y, b));
                        assert!((got - want).abs() <= tol, "{} {metric:?} {a} {b}: {got} vs {want}", k.isa);
                        assert!(metric == Metric::Ip || got >= 0.0);
                    }
                }
            }
        }
    }

    /// Clustered rows (16 centres) and queries like them: `n` rows of `dim`, their norms,
    /// and `q` queries. The disk kind's tests build on them too.
    pub(crate) fn clustered(n: usize, q: usize, dim: usize, seed: u64) -> (Vec<f32>, Vec<f32>, Vec<Vec<f32>>) {
        let mut rng = SplitMix64::new(seed);
        let mut unit = || rng.next_unit() as f32 * 2.0 - 1.0;
        let centres: Vec<Vec<f32>> = (0..16).map(|_| (0..dim).map(|_| unit()).collect()).collect();
        let mut point = |i: usize| -> Vec<f32> { centres[i % 16].iter().map(|c| c + 0.6 * unit()).collect() };
        let rows: Vec<f32> = (0..n).flat_map(&mut point).collect();
        let norms = rows.chunks_exact(dim).map(|r| r.iter().map(|v| v * v).sum::<f32>().sqrt()).collect();
        let queries = (0..q).map(|i| point(i * 7 + 3)).collect();
        (rows, norms, queries)
    }

    /// Exact distance of a query to a row, in the build's order.
    fn exact(metric: Metric, q: &[f32], r: &[f32]) -> f32 {
        let dot: f32 = q.iter().zip(r).map(|(a, b)| a * b).sum();
        match metric {
            Metric::L2 => q.iter().zip(r).map(|(a, b)| (a - b) * (a - b)).sum(),
            Metric::Ip => -dot,
            Metric::Cosine => {
                let n = q.iter().map(|x| x * x).sum::<f32>().sqrt() * r.iter().map(|x| x * x).sum::<f32>().sqrt();
                1.0 - dot / n
            }
        }
    }

    /// Recall@10 of a best-first search (list 64, exact distances) from the medoid,
    /// against brute force.
    fn recall(g: &Graph, rows: &[f32], dim: usize, metric: Metric, queries: &[Vec<f32>]) -> f64 {
        let (k, list) = (10, 64);
        let dist = |q: &[f32], id: u32| exact(metric, q, &rows[id as usize * dim..(id as usize + 1) * dim]);
        let mut found = 0;
        for q in queries {
            let mut truth: Vec<Scored> =
                (0..(rows.len() / dim) as u32).map(|id| Scored { dist: dist(q, id), id }).collect();
            truth.sort_unstable();
            let mut seen = std::collections::HashSet::from([g.medoid]);
            let mut beam = vec![(Scored { dist: dist(q, g.medoid), id: g.medoid }, false)];
            while let Some(i) = beam.iter().position(|c| !c.1) {
                beam[i].1 = true;
                for &nb in g.view().neighbors(beam[i].0.id) {
                    if seen.insert(nb) {
                        beam.push((Scored { dist: dist(q, nb), id: nb }, false));
                    }
                }
                beam.sort_unstable_by_key(|c| c.0);
                beam.truncate(list);
            }
            let got: Vec<u32> = beam.iter().take(k).map(|c| c.0.id).collect();
            found += truth[..k].iter().filter(|t| got.contains(&t.id)).count();
        }
        found as f64 / (k * queries.len()) as f64
    }

    /// A build from codes alone (what a disk index does when its rows do not fit the
    /// memory budget), with the lists' slack and without, finds what the exact build finds.
    #[test]
    fn builds_from_codes_alone_keep_the_exact_builds_recall() {
        let (n, dim) = (3000, 48);
        let (rows, norms, queries) = clustered(n, 100, dim, 11);
        let params = VamanaParams { degree: 24, build_list: 48, ..VamanaParams::default() };
        let control = BuildControl { concurrency: 2, progress: &|_| {}, cancel: &AtomicBool::new(false) };
        for metric in [Metric::L2, Metric::Cosine, Metric::Ip] {
            let col = column(VectorData::Fp32(&rows), Some(&norms), dim);
            let build = |w| build_with(kernels::best(), metric, col, n, &params, w, Plan::TwoPasses, &control).unwrap();
            let exact_graph = build(Working::Exact);
            let want = recall(&exact_graph, &rows, dim, metric, &queries);
            for working in [Working::Codes { slack: true }, Working::Codes { slack: false }] {
                let g = build(working);
                assert_ne!(g, exact_graph, "{metric:?} {working:?} built the exact graph");
                let got = recall(&g, &rows, dim, metric, &queries);
                assert!(got >= 0.9 && got >= want - 0.02, "{metric:?} {working:?}: recall {got} vs exact {want}");
            }
        }
    }

    /// One pass from the empty graph, its searches ranked on sketch estimates, with a list
    /// 1.5 times as long, finds what the two passes find, and builds the same graph at any
    /// concurrency.
    #[test]
    fn one_estimated_pass_keeps_the_two_passes_recall() {
        use crate::index::quant::sketch;
        let (n, dim) = (3000, 48);
        let (rows, norms, queries) = clustered(n, 100, dim, 13);
        let rotation = Rotation::new(dim, 7);
        let cancel = AtomicBool::new(false);
        let control = |threads| BuildControl { concurrency: threads, progress: &|_| {}, cancel: &cancel };
        for metric in [Metric::L2, Metric::Cosine, Metric::Ip] {
            let col = column(VectorData::Fp32(&rows), Some(&norms), dim);
            let params = VamanaParams { degree: 24, build_list: 48, ..VamanaParams::default() };
            let two = build(kernels::best(), metric, col, n, &params, &control(2)).unwrap();
            let want = recall(&two, &rows, dim, metric, &queries);
            let words = sketch::encode_rows(col, n, &rotation, metric);
            let plan = Plan::OnePass { screen: (Sketches { words: &words, dim }, &rotation) };
            let params = VamanaParams { build_list: 72, ..params };
            let one = |threads| {
                build_with(kernels::best(), metric, col, n, &params, Working::Exact, plan, &control(threads)).unwrap()
            };
            let g = one(2);
            assert_ne!(g, two, "{metric:?}: one pass built the two passes' graph");
            let got = recall(&g, &rows, dim, metric, &queries);
            assert!(got >= 0.9 && got >= want - 0.02, "{metric:?}: one pass {got} vs two {want}");
            assert!(g == one(1), "{metric:?}: one pass depends on the threads");
        }
    }

    #[test]
    fn occlusion_orders_like_diskann() {
        // L2: t is occluded by j at level a when d(p,t) > a·d(j,t).
        assert_eq!(occlusion(Metric::L2, 2.0, 1.0), 2.0);
        assert_eq!(occlusion(Metric::L2, 1.0, 0.0), f32::INFINITY);
        // IP: t is occluded at level a when <j,t> > a·<p,t>.
        assert_eq!(occlusion(Metric::Ip, -2.0, -3.0), 1.5);
        assert_eq!(occlusion(Metric::Ip, 1.0, 0.5), f32::INFINITY);
        assert_eq!(occlusion(Metric::Ip, 1.0, 2.0), 0.0);
    }

    #[test]
    fn permutations_are_seeded() {
        let a = permutation(100, 3);
        let mut sorted = a.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..100).collect::<Vec<u32>>());
        assert_eq!(a, permutation(100, 3));
        assert_ne!(a, permutation(100, 4));
    }
}
