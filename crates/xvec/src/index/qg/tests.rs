use std::sync::atomic::AtomicBool;

use roaring::RoaringBitmap;

use super::search::{Best, Entry, Pool, below, estimate};
use super::*;
use crate::index::flat::{PreparedQuery, row_distance};
use crate::index::graph::{Beam, BuildControl};
use crate::index::quant::sketch;
use crate::index::rng::SplitMix64;
use crate::index::scorer::{Originals, Scored};
use crate::kernels::{self, Kernels};
use crate::storage::column::{Validity, VectorColumn, VectorData};

const METRICS: [Metric; 3] = [Metric::L2, Metric::Cosine, Metric::Ip];

/// Clustered rows, as embeddings are, with lengths that vary (so inner product and cosine
/// rank differently).
fn rows(n: usize, dim: usize, seed: u64) -> Vec<f32> {
    let mut rng = SplitMix64::new(seed);
    let mut gauss = move || -> f32 {
        let (u, v) = (rng.next_unit().max(1e-12), rng.next_unit());
        ((-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()) as f32
    };
    let centres: Vec<Vec<f32>> = (0..24).map(|_| (0..dim).map(|_| gauss()).collect()).collect();
    (0..n)
        .flat_map(|i| {
            let scale = 1.0 + 0.3 * gauss().abs();
            centres[i * 7 % 24].iter().map(|&c| scale * (c + 0.8 * gauss())).collect::<Vec<_>>()
        })
        .collect()
}

struct Fixture {
    data: Vec<f32>,
    /// Rows of the same clusters that are not in the data.
    queries: Vec<f32>,
    norms: Vec<f32>,
    dim: usize,
    metric: Metric,
}

impl Fixture {
    fn new(n: usize, dim: usize, metric: Metric) -> Fixture {
        let mut data = rows(n + 40, dim, 1);
        let queries = data.split_off(n * dim);
        let norms = data.chunks(dim).map(|r| r.iter().map(|x| x * x).sum::<f32>().sqrt()).collect();
        Fixture { data, queries, norms, dim, metric }
    }

    fn col(&self) -> VectorColumn<'_> {
        VectorColumn {
            dim: self.dim,
            validity: Validity(None),
            data: VectorData::Fp32(&self.data),
            norms: (self.metric == Metric::Cosine).then_some(&self.norms[..]),
        }
    }

    fn n(&self) -> usize {
        self.data.len() / self.dim
    }

    fn build(&self, base: BaseGraph, degree: usize) -> QgGraph {
        let cancel = AtomicBool::new(false);
        let control = BuildControl { concurrency: 1, progress: &|_| {}, cancel: &cancel };
        let p = BuildParams { degree, base, build_list: 64, alpha: 1.2, seed: 7 };
        build(kernels::best(), self.metric, self.col(), self.n(), &p, &control).expect("not cancelled")
    }

    /// The `k` nearest allowed rows by brute force.
    fn exact(&self, q: &PreparedQuery, k: usize, allowed: Option<&RoaringBitmap>) -> Vec<u32> {
        let col = self.col();
        let mut all: Vec<Scored> = (0..self.n() as u32)
            .filter(|r| allowed.is_none_or(|a| a.contains(*r)))
            .map(|r| Scored { dist: q.distance(kernels::scalar(), &col, r as usize), id: r })
            .collect();
        all.sort_unstable();
        all.iter().take(k).map(|s| s.id).collect()
    }

    /// Recall@10 of the graph's search at `ef` over `queries`, against brute force.
    fn recall(&self, g: &QgGraph, k: &'static Kernels, ef: usize, allowed: Option<&RoaringBitmap>) -> f64 {
        self.recall_at(g, k, Shape { k: 10, ef, rescore: 0 }, allowed)
    }

    /// Recall@`shape.k` of the graph's search at `shape.ef`, scoring `shape.rescore`
    /// turned-away neighbours, over `queries`, against brute force.
    fn recall_at(&self, g: &QgGraph, kern: &'static Kernels, shape: Shape, allowed: Option<&RoaringBitmap>) -> f64 {
        let Shape { k, ef, rescore } = shape;
        let queries = &self.queries;
        let (mut sc, mut out, mut found) = (QgScratch::default(), Vec::new(), 0);
        for qv in queries.chunks(self.dim) {
            let pq = PreparedQuery::float(self.metric, qv.to_vec());
            let exact = Originals { kernels: kern, col: self.col(), query: &pq, screen: None };
            let qq = QgQuery::new(&g.view(), qv);
            let beam = Beam { ef, allowed, budget: usize::MAX };
            assert!(search(&g.view(), kern, &qq, &exact, QgBeam { beam, rescore }, &mut sc, &mut out));
            assert!(out.windows(2).all(|w| w[0] <= w[1]), "results are sorted");
            assert!(out.len() <= ef, "at most ef results");
            let mut ids: Vec<u32> = out.iter().map(|s| s.id).collect();
            ids.sort_unstable();
            ids.dedup();
            assert_eq!(ids.len(), out.len(), "each row once");
            assert!(out.iter().all(|s| allowed.is_none_or(|a| a.contains(s.id))), "only allowed rows");
            let want = self.exact(&pq, k, allowed);
            found += out.iter().take(k).filter(|s| want.contains(&s.id)).count();
        }
        found as f64 / (queries.len() / self.dim * k) as f64
    }
}

/// What a recall measurement asks of a search.
#[derive(Clone, Copy)]
struct Shape {
    k: usize,
    ef: usize,
    rescore: usize,
}

/// Where the beam is as wide as `k`, its boundary is where the one-bit estimates err;
/// scoring the neighbours it turned away finds more of the true `k`, with and without a
/// filter (and [`Fixture::recall_at`] checks the results stay sorted, distinct, allowed).
#[test]
fn scoring_turned_away_neighbours_raises_recall_at_a_tight_beam() {
    let f = Fixture::new(3_000, 128, Metric::Cosine);
    let g = f.build(BaseGraph::Vamana, 32);
    let mut third = RoaringBitmap::new();
    third.extend((0..f.n() as u32).filter(|r| (r / 24) % 3 == 0));
    for allowed in [None, Some(&third)] {
        let tight = f.recall_at(&g, kernels::best(), Shape { k: 50, ef: 50, rescore: 0 }, allowed);
        let rescored = f.recall_at(&g, kernels::best(), Shape { k: 50, ef: 50, rescore: 100 }, allowed);
        eprintln!("filtered {}: recall@50 {tight} -> {rescored}", allowed.is_some());
        assert!(rescored >= tight + 0.02, "filtered {}: {tight} -> {rescored}", allowed.is_some());
    }
}

/// Recall@10 against brute force, for every metric and both base graphs, with and without
/// a filter.
#[test]
fn recall_matches_brute_force_per_metric() {
    for metric in METRICS {
        let f = Fixture::new(3_000, 128, metric);
        for base in [BaseGraph::Hnsw, BaseGraph::Vamana] {
            let g = f.build(base, 32);
            assert_eq!(g.view().validate(f.n()), Ok(()));
            let recall = f.recall(&g, kernels::best(), 96, None);
            eprintln!("{metric:?} {base:?}: recall {recall}");
            assert!(recall >= 0.95, "{metric:?} {base:?}: recall {recall}");
            let mut allowed = RoaringBitmap::new();
            // Every cluster keeps a third of its rows.
            allowed.extend((0..f.n() as u32).filter(|r| (r / 24) % 3 == 0));
            // A third of the rows allowed: a wider beam finds as many of them.
            let recall = f.recall(&g, kernels::best(), 160, Some(&allowed));
            eprintln!("{metric:?} {base:?} filtered: recall {recall}");
            assert!(recall >= 0.95, "{metric:?} {base:?} filtered: recall {recall}");
        }
    }
}

/// Every kernel set scores a block exactly as the scalar oracle does (the table sums are
/// integers), and searches equally well with it.
#[test]
fn kernel_paths_match_the_scalar_oracle() {
    let f = Fixture::new(600, 100, Metric::L2);
    let g = f.build(BaseGraph::Vamana, 64);
    let view = g.view();
    let q = QgQuery::new(&view, &rows(1, 100, 9));
    let mut want = vec![0f32; 64];
    let mut got = vec![0f32; 64];
    for node in [0, 17, 599] {
        estimate(&view, kernels::scalar(), &q, node, 3.5, &mut want);
        for k in kernels::available() {
            estimate(&view, k, &q, node, 3.5, &mut got);
            assert_eq!(got, want, "{} node {node}", k.isa);
        }
    }
    let oracle = f.recall(&g, kernels::scalar(), 48, None);
    for k in kernels::available() {
        let recall = f.recall(&g, k, 48, None);
        assert!((recall - oracle).abs() <= 0.02, "{}: {recall} vs scalar {oracle}", k.isa);
    }
}

/// The blocks decode to what was encoded: each used slot's id is a neighbour, its code
/// bits are the signs of the rotated residual, its factors give estimates within the
/// error bound of the exact distance (most of them, as a bound of a few deviations does);
/// unused slots hold the sentinel and an infinite `t`.
/// The scale of an estimate's error (`|q − c|`, or `|q|` for inner product; see the
/// factors in `build.rs`), for a query of norm `q_norm` and a node at distance `d`.
fn error_scale(metric: Metric, q_norm: f32, d: f32) -> f32 {
    match metric {
        Metric::L2 => d.max(0.0).sqrt(),
        // Unit rows and query: |q − c|² = 2 − 2⟨q, c⟩ = 2 + 2 d.
        Metric::Cosine => (2.0 + 2.0 * d).max(0.0).sqrt(),
        Metric::Ip => q_norm,
    }
}

#[test]
fn blocks_round_trip() {
    for metric in METRICS {
        let f = Fixture::new(500, 40, metric);
        let g = f.build(BaseGraph::Hnsw, 32);
        let view = g.view();
        let layout = view.layout;
        assert_eq!(layout.stride() % 16, 0);
        let rotate = |r: u32| {
            let mut x: Vec<f32> = f.data[r as usize * 40..(r as usize + 1) * 40].to_vec();
            if metric == Metric::Cosine {
                let n = f.norms[r as usize];
                x.iter_mut().for_each(|v| *v /= n);
            }
            let mut y = vec![0f32; 40];
            g.rotation.apply(&x, &mut y, &mut Vec::new());
            y
        };
        let qv = rows(1, 40, 5);
        let pq = PreparedQuery::float(metric, qv.clone());
        let q = QgQuery::new(&view, &qv);
        let (mut within, mut total) = (0, 0);
        let mut est = vec![0f32; 32];
        for node in 0..500u32 {
            let block = view.block(node);
            let codes = crate::storage::mmap::as_bytes(&block[..layout.code_words()]);
            let d = pq.distance(kernels::best(), &f.col(), node as usize);
            estimate(&view, kernels::best(), &q, node, d, &mut est);
            let (c, ids) = (rotate(node), view.neighbors(node));
            for (slot, &id) in ids.iter().enumerate() {
                let t = f32::from_bits(block[layout.factors(0) + slot]);
                if id == NONE {
                    assert_eq!(t, f32::INFINITY);
                    continue;
                }
                assert_ne!(id, node);
                let x = rotate(id);
                for i in 0..40 {
                    let bit = codes[32 * (i / 8) + slot] >> (i % 8) & 1;
                    assert_eq!(bit == 1, x[i] - c[i] > 0.0, "{metric:?} node {node} slot {slot} dim {i}");
                }
                let e = f32::from_bits(block[layout.factors(2) + slot]);
                let truth = pq.distance(kernels::best(), &f.col(), id as usize);
                let q_norm = qv.iter().map(|x| x * x).sum::<f32>().sqrt();
                let bound = sketch::SCREEN_SIGMAS * 2.0 * e * error_scale(metric, q_norm, d);
                within += usize::from((est[slot] - truth).abs() <= bound + 1e-3);
                total += 1;
            }
        }
        assert!(total >= 500 * 24, "lists are filled: {total} neighbours");
        let share = within as f64 / total as f64;
        assert!(share >= 0.9, "{metric:?}: {share} of estimates within 2.6 deviations");
        // The lists hold distinct neighbours; the first ones are the nearest of them.
        let d = |a: u32, b: u32| row_distance(kernels::best(), metric, &f.col(), a as usize, b as usize);
        let ids = view.neighbors(3);
        let mut sorted = ids.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), ids.len() - ids.iter().filter(|&&i| i == NONE).count().saturating_sub(1));
        assert!(d(3, ids[0]).is_finite());
    }
}

/// A block encoded again with another kernel set (what verify does on a machine other
/// than the one that built it) matches the stored one, though the cosine factors' sums
/// round differently; a changed code bit, id or factor does not.
#[test]
fn blocks_encoded_again_by_any_kernels_match() {
    let f = Fixture::new(400, 96, Metric::Cosine);
    let g = f.build(BaseGraph::Vamana, 32);
    let view = g.view();
    let layout = view.layout;
    let mut rounded = 0;
    for k in kernels::available() {
        for node in 0..f.n() as u32 {
            let again = reencode_block(k, &view, f.col(), node).expect("ids in range");
            assert!(same_block(layout, view.block(node), &again), "{} node {node}", k.isa);
            rounded += usize::from(again[..] != *view.block(node));
        }
    }
    eprintln!("blocks whose factors rounded differently: {rounded}");
    let block = view.block(7).to_vec();
    let same_with = |at: usize, to: u32| {
        let mut b = block.clone();
        b[at] = to;
        same_block(layout, &b, &block)
    };
    assert!(!same_with(0, block[0] ^ 1), "a code bit");
    assert!(!same_with(layout.ids(), block[layout.ids()] ^ 1), "an id");
    let t = f32::from_bits(block[layout.factors(0)]);
    assert!(!same_with(layout.factors(0), (t * 1.01 + 0.01).to_bits()), "a factor off by 1%");
    assert!(!same_with(layout.factors(1), f32::NAN.to_bits()), "a factor that is not a number");
    assert!(same_with(layout.factors(0), block[layout.factors(0)] ^ 1), "the last bit of a factor");
}

/// The lane-wise signed sum is the sum over the bits, for any length.
#[test]
fn signed_sum_matches_a_sum_over_the_bits() {
    let mut rng = SplitMix64::new(3);
    for dim in [1usize, 7, 8, 9, 63, 64, 65, 384, 385] {
        let c: Vec<f32> = (0..dim).map(|_| rng.next_unit() as f32 - 0.5).collect();
        let bits: Vec<u64> = (0..dim.div_ceil(64)).map(|_| rng.next_u64()).collect();
        let want: f64 =
            (0..dim).map(|i| if bits[i / 64] >> (i % 64) & 1 == 1 { c[i] as f64 } else { -c[i] as f64 }).sum();
        let got = super::build::signed_sum(&bits, &c);
        assert!((got as f64 - want).abs() <= 1e-5 * (1.0 + want.abs()), "dim {dim}: {got} against {want}");
    }
}

/// Validation accepts a built graph and names what is wrong with a damaged one.
#[test]
fn validation_names_the_damage() {
    let f = Fixture::new(200, 16, Metric::L2);
    let g = f.build(BaseGraph::Vamana, 32);
    let v = g.view();
    assert_eq!(v.validate(200), Ok(()));
    assert!(v.validate(201).unwrap_err().what.contains("expected 201 nodes"));
    let ids = v.layout.ids();
    let stride = v.layout.stride();
    let damage = |f: &dyn Fn(&mut QgGraph)| {
        let mut bad = g.clone();
        f(&mut bad);
        bad.view().validate(200).unwrap_err().what
    };
    let what = damage(&|b| b.blocks[stride * 5 + ids + 2] = 200);
    assert!(what.contains("node 5, neighbour slot 2") && what.contains("out of range"), "{what}");
    let what = damage(&|b| b.blocks[stride * 7 + v.layout.factors(1) + 4] = f32::NAN.to_bits());
    assert!(what.contains("node 7, neighbour slot 4") && what.contains("not finite"), "{what}");
    let what = damage(&|b| {
        b.blocks[stride * 9 + ids + 1] = NONE;
    });
    assert!(what.contains("node 9, neighbour slot 1") && what.contains("not +∞"), "{what}");
    let what = damage(&|b| b.entry = 200);
    assert!(what.contains("entry 200"), "{what}");
    let what = damage(&|b| b.layout.degree = 48);
    assert!(what.contains("degree 48"), "{what}");
}

/// A search stops at its budget of exact distances and says so; rescoring what the beam
/// turned away spends within the same budget, and nothing when the beam itself ran out.
#[test]
fn a_spent_budget_stops_the_search() {
    let f = Fixture::new(1_000, 24, Metric::L2);
    let g = f.build(BaseGraph::Vamana, 32);
    let qv = rows(1, 24, 3);
    let pq = PreparedQuery::float(Metric::L2, qv.clone());
    let exact = Originals { kernels: kernels::best(), col: f.col(), query: &pq, screen: None };
    let q = QgQuery::new(&g.view(), &qv);
    let run = |ef, budget, rescore| {
        let (mut sc, mut out) = (QgScratch::default(), Vec::new());
        let beam = QgBeam { beam: Beam { ef, allowed: None, budget }, rescore };
        let done = search(&g.view(), kernels::best(), &q, &exact, beam, &mut sc, &mut out);
        (done, out.len(), sc.distances as usize)
    };
    assert_eq!(run(64, 5, 0), (false, 5, 5));
    assert_eq!(run(64, usize::MAX, 0).1, 64);
    let (done, _, plain) = run(16, usize::MAX, 0);
    assert!(done);
    let (done, _, with) = run(16, usize::MAX, 40);
    assert!(done && with > plain && with <= plain + 40, "{plain} -> {with}");
    assert_eq!(run(16, plain + 3, 40), (true, 16, plain + 3));
    assert_eq!(run(16, 5, 40), (false, 5, 5));
}

/// The beam's insertion keeps the order `partition_point` and `insert` kept: after every
/// entry with an estimate at most its own (ties in arrival order), at the front, the back
/// and in between, the estimates and the entries side by side.
#[test]
fn beam_insertion_matches_a_binary_search() {
    let mut rng = SplitMix64::new(9);
    let (mut fast, mut slow) = (Pool::default(), Vec::<(f32, Entry)>::new());
    for id in 0..500u32 {
        // Few distinct values, so ties are common.
        let est = (rng.next_u64() % 40) as f32 - 20.0;
        let e = Entry { id, expanded: false, allowed: id % 3 != 0 };
        let pos = slow.partition_point(|x| x.0 <= est);
        slow.insert(pos, (est, e));
        assert_eq!(fast.insert(est, e), pos, "entry {id}");
        assert!(fast.ests.iter().copied().eq(slow.iter().map(|x| x.0)), "entry {id}");
        assert!(fast.entries.iter().copied().eq(slow.iter().map(|x| x.1)), "entry {id}");
        if id % 7 == 0 {
            let half = slow.len() / 2;
            fast.truncate(half);
            slow.truncate(half);
        }
    }
}

/// Each row's list for a fill: every `step`-th of its `nearest` nearest rows.
fn spaced_lists(f: &Fixture, nearest: usize, step: usize) -> Vec<Vec<u32>> {
    let (n, col, kern) = (f.n(), f.col(), kernels::best());
    let d = |a: usize, b: u32| row_distance(kern, f.metric, &col, a, b as usize);
    (0..n)
        .map(|a| {
            let mut all: Vec<u32> = (0..n as u32).filter(|&b| b as usize != a).collect();
            all.sort_unstable_by(|&x, &y| d(a, x).total_cmp(&d(a, y)).then(x.cmp(&y)));
            all[..nearest].iter().step_by(step).copied().collect()
        })
        .collect()
}

/// What a fill reads besides the lists: the rows' sketches and the rotated rows.
fn fill_inputs(f: &Fixture) -> (Vec<u64>, Vec<f32>) {
    let rotation = Rotation::new(f.dim, 7);
    let words = sketch::encode_rows(f.col(), f.n(), &rotation, f.metric);
    (words, build::rotate_rows(f.col(), f.n(), f.metric, &rotation))
}

/// With more two-hop neighbours than it scores, the fill keeps the base list first and
/// adds distinct two-hop neighbours until the list is full.
#[test]
fn a_screened_fill_adds_two_hop_neighbours_after_the_base_list() {
    let f = Fixture::new(1_500, 64, Metric::Cosine);
    let (col, kern) = (f.col(), kernels::best());
    let lists = spaced_lists(&f, 112, 4);
    let (words, rotated) = fill_inputs(&f);
    let sketches = sketch::Sketches { words: &words, dim: f.dim };
    let filled = build::fill(kern, f.metric, col, (sketches, &rotated), &lists, (32, 1.2));
    for (node, (base, got)) in lists.iter().zip(&filled).enumerate() {
        assert_eq!(&got[..28], &base[..], "node {node}: the base list stays first");
        let mut two_hop: Vec<u32> = base.iter().flat_map(|&b| &lists[b as usize]).copied().collect();
        two_hop.retain(|&x| x as usize != node && !base.contains(&x));
        two_hop.sort_unstable();
        two_hop.dedup();
        assert!(two_hop.len() > 4 * 8 + 8, "node {node}: the screen has something to skip");
        assert_eq!(got.len(), 32, "node {node}");
        let mut added = got[28..].to_vec();
        added.sort_unstable();
        added.dedup();
        assert_eq!(added.len(), 4, "node {node}: {got:?}");
        assert!(added.iter().all(|x| two_hop.binary_search(x).is_ok()), "node {node}: {got:?}");
    }
}

/// Where the screen skips nothing, the fill is robust prune's rule over the two-hop
/// neighbours, nearest first: a neighbour is added unless one already in the list
/// occludes it at alpha, and the slots left take the nearest of those occluded. An oracle
/// over every metric, with alpha 1 (HNSW's heuristic) and 1.2.
#[test]
fn a_fill_adds_the_two_hop_neighbours_robust_prune_keeps() {
    for metric in METRICS {
        let f = Fixture::new(600, 24, metric);
        let (col, kern) = (f.col(), kernels::best());
        let d = |a: usize, b: u32| row_distance(kern, metric, &col, a, b as usize);
        // Four of each node's eight nearest: at most 16 two-hop neighbours, fewer than the
        // fill scores for the 28 slots it has to fill.
        let lists = spaced_lists(&f, 8, 2);
        let (words, rotated) = fill_inputs(&f);
        let sketches = sketch::Sketches { words: &words, dim: f.dim };
        let row = |v: usize| &rotated[v * f.dim..(v + 1) * f.dim];
        let pair = |a: usize, b: usize| match metric {
            Metric::Ip => -(kern.dot_f32)(row(a), row(b)),
            _ => (kern.l2_f32)(row(a), row(b)),
        };
        for alpha in [1.0, 1.2] {
            let filled = build::fill(kern, metric, col, (sketches, &rotated), &lists, (32, alpha));
            let (mut occluded, mut total) = (0, 0);
            for (node, (base, got)) in lists.iter().zip(&filled).enumerate() {
                let mut two_hop: Vec<u32> = base.iter().flat_map(|&b| &lists[b as usize]).copied().collect();
                two_hop.retain(|&x| x as usize != node && !base.contains(&x));
                two_hop.sort_unstable();
                two_hop.dedup();
                two_hop.sort_unstable_by(|&x, &y| d(node, x).total_cmp(&d(node, y)).then(x.cmp(&y)));
                let (mut want, mut rest) = (base.clone(), Vec::new());
                for &k in &two_hop {
                    let d_nk = pair(node, k as usize);
                    let occludes = |j: u32| crate::index::vamana::occlusion(metric, d_nk, pair(j as usize, k as usize));
                    if want.iter().any(|&j| occludes(j) > alpha) {
                        rest.push(k);
                    } else {
                        want.push(k);
                    }
                }
                occluded += rest.len();
                total += two_hop.len();
                want.extend(rest);
                assert_eq!(got, &want, "{metric:?}, alpha {alpha}, node {node}");
            }
            assert!(occluded > 0 && occluded < total, "{metric:?}, alpha {alpha}: {occluded} of {total} occluded");
        }
    }
}

/// The slots a node's turn offers to the beam: bit `j` set exactly when slot `j`'s
/// estimate is below the bound (unused slots, +∞, and NaN never are).
#[test]
fn below_marks_the_slots_under_the_bound() {
    let ests: [f32; GROUP] = std::array::from_fn(|j| match j % 5 {
        0 => f32::INFINITY,
        1 => f32::NAN,
        _ => j as f32 - 10.0,
    });
    for bound in [f32::NEG_INFINITY, -5.0, 0.0, 7.5, f32::INFINITY] {
        let want = (0..GROUP).filter(|&j| ests[j] < bound).fold(0u32, |m, j| m | 1 << j);
        assert_eq!(below(&ests, bound), want, "bound {bound}");
    }
}

/// The lazy selection of turned-away neighbours keeps exactly the `cap` best of a
/// stream (ties included), whatever its length against `cap`; `cap` 0 keeps none.
#[test]
fn lazy_best_keeps_the_best_of_a_stream() {
    let mut rng = SplitMix64::new(3);
    let mut best = Best::default();
    for (cap, len) in [(0, 50), (1, 1000), (2, 3), (7, 1000), (100, 150), (100, 5000), (300, 100)] {
        // A coarse grid of distances, so ties are common, and ids in no order.
        let offers: Vec<Scored> = (0..len)
            .map(|i: u32| Scored { dist: (rng.next_unit() * 64.0).floor() as f32, id: i.wrapping_mul(0x9E37_79B9) })
            .collect();
        best.clear(cap);
        for &s in &offers {
            best.offer(s);
        }
        let mut got = best.best().to_vec();
        got.sort_unstable();
        let mut want = offers.clone();
        want.sort_unstable();
        want.truncate(cap);
        assert_eq!(got, want, "cap {cap}, {len} offers");
    }
}
