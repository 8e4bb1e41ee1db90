//! Building a quantized graph: a base graph's neighbour lists (Vamana's, or HNSW's base
//! layer), each filled up to the degree with two-hop neighbours, then
//! one block per node with the neighbours' residual codes and factors.
//!
//! Filling matters because a block is scored whole: an unused slot costs the same scan
//! as a used one, so every slot should hold a useful neighbour (SymphonyQG fills them the
//! same way). The rows are rotated once (unit length first, for cosine) into a buffer the
//! build drops: `rows × dim` floats, the FP32 bytes of the column.

use rayon::prelude::*;

use super::{GROUP, Layout, NONE, QgGraph, QgView};
use crate::index::flat::row_distance;
use crate::index::graph::BuildControl;
use crate::index::quant::fastscan::transpose_into;
use crate::index::quant::normalize_for;
use crate::index::quant::rotation::Rotation;
use crate::index::quant::sketch::{self, Screen, SketchQuery, Sketches};
use crate::index::{hnsw, vamana};
use crate::kernels::Kernels;
use crate::schema::{HnswParams, Metric, QgBase, QgParams, VamanaParams};
use crate::storage::column::VectorColumn;

/// The graph whose neighbour lists a quantized graph lays out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BaseGraph {
    /// HNSW's base layer (`m = degree / 2`, so `m0 = degree`).
    Hnsw,
    /// Vamana with `R = degree`.
    Vamana,
}

/// What a build is asked for.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BuildParams {
    /// Neighbour slots per node, a positive multiple of 32.
    pub degree: usize,
    pub base: BaseGraph,
    /// The base graph's candidate list while building (HNSW's `ef_construction`,
    /// Vamana's `L`).
    pub build_list: usize,
    /// Vamana's prune relaxation.
    pub alpha: f32,
    /// Seed of the base graph and of the rotation.
    pub seed: u64,
}

impl BuildParams {
    /// What a schema's parameters ask for.
    pub(crate) fn of(p: &QgParams) -> BuildParams {
        let base = match p.graph {
            QgBase::Hnsw => BaseGraph::Hnsw,
            QgBase::Vamana => BaseGraph::Vamana,
        };
        let alpha = VamanaParams::default().alpha;
        BuildParams { degree: p.degree as usize, base, build_list: p.build_list as usize, alpha, seed: p.seed }
    }
}

/// Builds the quantized graph of rows `0..n` of `col`. `None` when cancelled.
pub(crate) fn build(
    kernels: &'static Kernels,
    metric: Metric,
    col: VectorColumn,
    n: usize,
    p: &BuildParams,
    control: &BuildControl,
) -> Option<QgGraph> {
    debug_assert!(p.degree > 0 && p.degree.is_multiple_of(GROUP));
    let rotation = Rotation::new(col.dim, p.seed);
    let pool = crate::index::build_pool(control.concurrency).expect("a thread pool of one thread");
    let words = pool.install(|| sketch::encode_rows(col, n, &rotation, metric));
    let sketches = Sketches { words: &words, dim: col.dim };
    let (lists, entry) = base_lists(kernels, metric, col, n, p, (sketches, &rotation), control)?;
    let layout = Layout { dim: col.dim, degree: p.degree };
    let (entry, blocks) = pool.install(|| {
        let rotated = rotate_rows(col, n, metric, &rotation);
        let lists = fill(kernels, metric, col, (sketches, &rotated), &lists, (p.degree, p.alpha));
        let entry = entry.unwrap_or_else(|| medoid(kernels, &rotated, col.dim));
        (entry, encode_blocks(kernels, layout, metric, &rotated, &lists))
    });
    Some(QgGraph { layout, metric, entry, blocks, rotation })
}

/// The base graph's neighbour lists (at most `degree` each) and its entry point, when it
/// has one a single layer should start from. HNSW's construction screens its searches
/// with the rows' sketches (made with `rotation`), as an HNSW index's does:
/// 81.6 s without them on wordnet-minilm-384 (degree 32, build list 200, 2 threads),
/// where the HNSW index builds in 15. Vamana's is built in one pass whose searches rank on
/// the same sketches' estimates ([`vamana::Plan::OnePass`]), with a candidate list 1.5
/// times the build list to make up for the second pass it skips.
fn base_lists(
    kernels: &'static Kernels,
    metric: Metric,
    col: VectorColumn,
    n: usize,
    p: &BuildParams,
    screen: (Sketches, &Rotation),
    control: &BuildControl,
) -> Option<(Vec<Vec<u32>>, Option<u32>)> {
    if n == 0 {
        return Some((Vec::new(), Some(0)));
    }
    match p.base {
        BaseGraph::Vamana => {
            let params = VamanaParams {
                degree: p.degree as u32,
                build_list: (p.build_list * 3 / 2) as u32,
                alpha: p.alpha,
                seed: p.seed,
                ..VamanaParams::default()
            };
            let plan = vamana::Plan::OnePass { screen };
            let g = vamana::build_with(kernels, metric, col, n, &params, vamana::Working::Exact, plan, control)?;
            let v = g.view();
            Some(((0..n as u32).map(|r| v.neighbors(r).to_vec()).collect(), Some(g.medoid)))
        }
        BaseGraph::Hnsw => {
            let params = HnswParams {
                m: (p.degree / 2) as u32,
                ef_construction: p.build_list as u32,
                seed: p.seed,
                ..HnswParams::default()
            };
            let g = hnsw::build(kernels, metric, col, n, &params, Some(screen), control)?;
            let v = g.view();
            // HNSW enters from its top layer; a single layer searches better from the middle.
            Some(((0..n as u32).map(|r| v.base_neighbors(r).to_vec()).collect(), None))
        }
    }
}

/// Fills every list up to `degree` with two-hop neighbours not in it yet (fewer when the
/// two hops hold fewer). A node has hundreds of two-hop neighbours and needs a few: their
/// sketches (a line each, against the node's rotated row in `rows`) pick the
/// [`FILL_SCREEN`]` × need + `[`FILL_SCREEN_MIN`] likeliest, and only those rows are read
/// and scored exactly. They are taken nearest first, each unless a neighbour already in
/// the list occludes it at `alpha` (robust prune's rule, [`vamana::occlusion`]); slots
/// still free then take the nearest of the rest. HNSW's base lists come from its
/// heuristic at alpha 1 and hold 16 to 32 neighbours: filled with the nearest, the added
/// slots crowd the node's own cluster; filled this way they reach out as Vamana's lists
/// do (`docs/benchmarks/README.md`, "Session 13").
pub(super) fn fill(
    kernels: &'static Kernels,
    metric: Metric,
    col: VectorColumn,
    (sketches, rows): (Sketches, &[f32]),
    lists: &[Vec<u32>],
    (degree, alpha): (usize, f32),
) -> Vec<Vec<u32>> {
    let dim = col.dim;
    let row = |v: usize| &rows[v * dim..(v + 1) * dim];
    // On the rotated rows, in the prune's terms: squared L2 (cosine rows are unit length,
    // where it is twice `1 − cos`: the same ratios), or the negated inner product.
    let pair = |a: usize, b: usize| match metric {
        Metric::Ip => -(kernels.dot_f32)(row(a), row(b)),
        Metric::L2 | Metric::Cosine => (kernels.l2_f32)(row(a), row(b)),
    };
    (0..lists.len())
        .into_par_iter()
        .map(|node| {
            let mut list = lists[node].clone();
            list.truncate(degree);
            if list.len() == degree {
                return list;
            }
            let mut more: Vec<u32> = list
                .iter()
                .flat_map(|&nb| &lists[nb as usize])
                .copied()
                .filter(|&x| x as usize != node && !list.contains(&x))
                .collect();
            more.sort_unstable();
            more.dedup();
            let keep = (degree - list.len()) * FILL_SCREEN + FILL_SCREEN_MIN;
            if more.len() > keep {
                let mut y = row(node).to_vec();
                let norm_sq = normalize_for(metric, &mut y);
                let query = SketchQuery::new(&y, norm_sq);
                let screen = Screen { kernels, sketches, query: &query, metric, sigmas: 0.0 };
                let mut est: Vec<(f32, u32)> = more.iter().map(|&x| (screen.lower_bound(x), x)).collect();
                est.select_nth_unstable_by(keep, |a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                more.clear();
                more.extend(est[..keep].iter().map(|&(_, x)| x));
            }
            let mut scored: Vec<(f32, u32)> =
                more.into_iter().map(|x| (row_distance(kernels, metric, &col, node, x as usize), x)).collect();
            scored.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            let mut rest = Vec::new();
            for &(_, k) in &scored {
                if list.len() == degree {
                    break;
                }
                let d_nk = pair(node, k as usize);
                if list.iter().any(|&j| vamana::occlusion(metric, d_nk, pair(j as usize, k as usize)) > alpha) {
                    rest.push(k);
                } else {
                    list.push(k);
                }
            }
            let free = degree - list.len();
            list.extend(rest.into_iter().take(free));
            list
        })
        .collect()
}

/// Two-hop candidates a fill scores exactly per slot it fills, beyond [`FILL_SCREEN_MIN`]:
/// 8 gave the HNSW base's lists recall@10 0.9776 at ef 48 on wordnet-minilm-384, 4 gave
/// 0.9760 and 16 0.9770 (the nearest fill: 0.9733).
const FILL_SCREEN: usize = 8;
/// Two-hop candidates a fill scores exactly at least (when it has as many).
const FILL_SCREEN_MIN: usize = 8;

/// Rows `0..n` rotated (scaled to unit length first for cosine), one after another.
pub(super) fn rotate_rows(col: VectorColumn, n: usize, metric: Metric, rotation: &Rotation) -> Vec<f32> {
    let dim = col.dim;
    let mut out = vec![0f32; n * dim];
    out.par_chunks_mut(dim).enumerate().for_each_init(
        || (Vec::with_capacity(dim), Vec::new()),
        |(row, tmp), (r, y)| rotate_row(col, r, metric, rotation, y, row, tmp),
    );
    out
}

/// Row `r` rotated into `y` (scaled to unit length first for cosine); `row` and `tmp`
/// are scratch.
fn rotate_row(
    col: VectorColumn,
    r: usize,
    metric: Metric,
    rotation: &Rotation,
    y: &mut [f32],
    row: &mut Vec<f32>,
    tmp: &mut Vec<f32>,
) {
    row.clear();
    col.extend_f32(r, row);
    if metric == Metric::Cosine {
        let norm = row.iter().map(|&x| f64::from(x) * f64::from(x)).sum::<f64>().sqrt() as f32;
        if norm > 0.0 {
            row.iter_mut().for_each(|x| *x /= norm);
        }
    }
    rotation.apply(row, y, tmp);
}

/// The row nearest the mean of the (rotated) rows.
fn medoid(kernels: &Kernels, rotated: &[f32], dim: usize) -> u32 {
    let n = rotated.len() / dim;
    let mut mean = vec![0f64; dim];
    for y in rotated.chunks_exact(dim) {
        mean.iter_mut().zip(y).for_each(|(m, &x)| *m += f64::from(x));
    }
    let mean: Vec<f32> = mean.iter().map(|&m| (m / n.max(1) as f64) as f32).collect();
    let dist = |r: usize| (kernels.l2_f32)(&mean, &rotated[r * dim..(r + 1) * dim]);
    (0..n).min_by(|&a, &b| dist(a).total_cmp(&dist(b))).unwrap_or(0) as u32
}

/// Largest error factor stored: a single dimension has an unbounded one (its estimate
/// then never excludes anything), and blocks hold finite factors only.
const MAX_ERROR: f32 = 1e30;

/// The blocks of every node (see the module's layout).
fn encode_blocks(kernels: &Kernels, layout: Layout, metric: Metric, rotated: &[f32], lists: &[Vec<u32>]) -> Vec<u32> {
    let (dim, stride) = (layout.dim, layout.stride());
    let mut blocks = vec![0u32; lists.len() * stride];
    blocks.par_chunks_mut(stride.max(1)).enumerate().for_each_init(
        || BlockScratch::new(layout),
        |scratch, (node, block)| {
            let row = |v: u32| &rotated[v as usize * dim..(v as usize + 1) * dim];
            encode_block(kernels, layout, metric, row(node as u32), &lists[node], row, scratch, block);
        },
    );
    blocks
}

/// Buffers of [`encode_block`]: a residual, its sketch words and one group's codes.
struct BlockScratch {
    residual: Vec<f32>,
    words: Vec<u64>,
    codes: Vec<u8>,
}

impl BlockScratch {
    fn new(layout: Layout) -> BlockScratch {
        let (dim, group_bytes) = (layout.dim, layout.group_bytes());
        BlockScratch {
            residual: vec![0f32; dim],
            words: vec![0u64; sketch::words_per_row(dim)],
            codes: vec![0u8; group_bytes],
        }
    }
}

/// Fills `block` (zeroed, [`Layout::stride`] words) for a node whose rotated row is `c`
/// and whose neighbours are `list` (at most the degree), `row` giving their rotated rows.
#[allow(clippy::too_many_arguments)]
fn encode_block<'a>(
    kernels: &Kernels,
    layout: Layout,
    metric: Metric,
    c: &[f32],
    list: &[u32],
    row: impl Fn(u32) -> &'a [f32],
    scratch: &mut BlockScratch,
    block: &mut [u32],
) {
    let degree = layout.degree;
    let BlockScratch { residual: r, words, codes } = scratch;
    for g in 0..degree / GROUP {
        codes.fill(0);
        for j in 0..GROUP {
            let slot = g * GROUP + j;
            let [t, a, e] = match list.get(slot) {
                None => {
                    block[layout.ids() + slot] = NONE;
                    [f32::INFINITY, 0.0, 0.0]
                }
                Some(&nb) => {
                    block[layout.ids() + slot] = nb;
                    r.iter_mut().zip(row(nb).iter().zip(c)).for_each(|(r, (x, c))| *r = x - c);
                    sketch::encode(r, Metric::L2, words);
                    transpose_into(words, layout.columns(), j, codes);
                    factors(kernels, metric, Sketches { words, dim: layout.dim }, r, c)
                }
            };
            let f = layout.factors(0) + slot;
            (block[f], block[f + degree], block[f + 2 * degree]) = (t.to_bits(), a.to_bits(), e.to_bits());
        }
        let at = g * layout.group_bytes() / 4;
        for (w, b) in block[at..at + layout.group_bytes() / 4].iter_mut().zip(codes.as_chunks::<4>().0) {
            *w = u32::from_le_bytes(*b);
        }
    }
}

/// `node`'s block encoded again from the rows of `col` and the neighbours its stored
/// block names (used slots, in slot order), as a build encodes it: what verify compares
/// the stored block with. `None` when a stored id is past the graph's nodes (`col` holds
/// a row per node: open checks the blocks against the segment's rows).
pub(crate) fn reencode_block(kernels: &Kernels, g: &QgView, col: VectorColumn, node: u32) -> Option<Vec<u32>> {
    let (layout, dim) = (g.layout, g.layout.dim);
    let list: Vec<u32> = g.neighbors(node).iter().copied().filter(|&v| v != NONE).collect();
    if col.dim != dim || std::iter::once(node).chain(list.iter().copied()).any(|v| v as usize >= g.nodes()) {
        return None;
    }
    // The node's rotated row, then its neighbours' in list order.
    let mut rotated = vec![0f32; (list.len() + 1) * dim];
    let (mut row, mut tmp) = (Vec::with_capacity(dim), Vec::new());
    for (i, &v) in std::iter::once(&node).chain(&list).enumerate() {
        rotate_row(col, v as usize, g.metric, g.rotation, &mut rotated[i * dim..(i + 1) * dim], &mut row, &mut tmp);
    }
    let at = |v: u32| list.iter().position(|&x| x == v).map_or(0, |i| i + 1);
    let row = |v: u32| &rotated[at(v) * dim..(at(v) + 1) * dim];
    let mut block = vec![0u32; layout.stride()];
    encode_block(kernels, layout, g.metric, &rotated[..dim], &list, row, &mut BlockScratch::new(layout), &mut block);
    Some(block)
}

/// Whether a stored block is the block [`reencode_block`] made again: codes, ids and
/// padding bit for bit, the factors `t`, `A`, `E` to within [`FACTOR_TOLERANCE`]. The
/// factors are sums over the dimensions, and the kernel that sums them (AVX-512, AVX2 or
/// scalar, [`Kernels::dot_f32`]) rounds in its own order: a block built on one machine
/// and checked on another differs in the last bits of its factors, which is not damage.
/// (Damaged bytes are the block CRCs' to find; this check finds blocks that do not
/// describe the rows.)
pub(crate) fn same_block(layout: Layout, stored: &[u32], encoded: &[u32]) -> bool {
    let factors = layout.factors(0)..layout.ids();
    let close = |(&a, &b): (&u32, &u32)| {
        let (x, y) = (f32::from_bits(a), f32::from_bits(b));
        a == b || (x.is_finite() && y.is_finite() && (x - y).abs() <= FACTOR_TOLERANCE * (1.0 + x.abs().max(y.abs())))
    };
    stored.len() == encoded.len()
        && stored[..factors.start] == encoded[..factors.start]
        && stored[factors.end..] == encoded[factors.end..]
        && stored[factors.clone()].iter().zip(&encoded[factors]).all(close)
}

/// How far a factor may lie from its value encoded again (relative, plus as much
/// absolute): the kernels' rounding of a 384-dimension sum is about 1e-6 of it.
const FACTOR_TOLERANCE: f32 = 1e-4;

/// `⟨b, c⟩` with `bᵢ = +1` where bit `i` of `bits` is set, −1 elsewhere: each `cᵢ`'s sign
/// flipped by its bit, summed in eight lanes. One running sum with a branch per bit, as
/// before, made every addition wait on the one before and was most of the block encoding:
/// a build of wordnet-minilm-384 with the HNSW base took 48.6 s before, 38.6 s after
/// (medians of three alternating builds on 2 threads, Zen 3).
pub(super) fn signed_sum(bits: &[u64], c: &[f32]) -> f32 {
    let flip = |i: usize, x: f32| f32::from_bits(x.to_bits() ^ (!(bits[i / 64] >> (i % 64)) as u32 & 1) << 31);
    let mut lanes = [0f32; 8];
    let (chunks, tail) = c.as_chunks::<8>();
    for (k, chunk) in chunks.iter().enumerate() {
        for j in 0..8 {
            lanes[j] += flip(8 * k + j, chunk[j]);
        }
    }
    let tail: f32 = tail.iter().enumerate().map(|(j, &x)| flip(8 * chunks.len() + j, x)).sum();
    lanes.iter().sum::<f32>() + tail
}

/// The factors `[t, A, E]` of a neighbour whose residual to the node `c` is `r` (both
/// rotated), `sk` its sketch as [`sketch::encode`] makes it for L2 (`a = |r|² / Σ|rᵢ|`,
/// `e = |r| σ`). With `S = Σ bᵢ qᵢ`, RaBitQ estimates `⟨q − c, r⟩ ≈ a (S − ⟨b, c⟩)`
/// within `e |q − c|`, so (`d_c` the node's distance):
/// - L2: `|q − c − r|² = d_c + |r|² − 2 ⟨q − c, r⟩`: `t = |r|² + 2a⟨b, c⟩`, `A = 2a`, `E = 2e`;
/// - cosine (unit rows): `−⟨q, c + r⟩ = d_c − ⟨q − c, r⟩ − ⟨c, r⟩`:
///   `t = a⟨b, c⟩ − ⟨c, r⟩`, `A = a`, `E = e`;
/// - inner product: `−⟨q, c + r⟩ = d_c − ⟨q, r⟩` with `⟨q, r⟩ ≈ a S` within `e |q|`
///   (no unit length to bound `|q − c|` by): `t = 0`, `A = a`, `E = e`.
fn factors(kernels: &Kernels, metric: Metric, sk: Sketches, r: &[f32], c: &[f32]) -> [f32; 3] {
    let row = sk.row(0);
    let (a, e, n2) = (row.a, row.e.min(MAX_ERROR), row.n2);
    let bc = signed_sum(row.bits, c);
    match metric {
        Metric::L2 => [n2 + 2.0 * a * bc, 2.0 * a, 2.0 * e],
        Metric::Cosine => [a * bc - (kernels.dot_f32)(c, r), a, e],
        Metric::Ip => [0.0, a, e],
    }
}
