//! Approximate indexes against brute force: HNSW, the quantized graph and quantized flat, every metric and
//! quantization, filters at several selectivities, determinism, persistence, optimize.

use std::sync::atomic::AtomicBool;

use xvec::{Collection, Doc, Metric, OpenOptions, OptimizeOptions, Query, Schema};

use crate::util::{brute_force, random_vectors};

fn schema(metric: Metric, dim: u32, index: &str) -> Schema {
    let text = format!(
        r#"{{"name":"ix","fields":[{{"name":"g","type":"int32"}},{{"name":"v","type":"vector_fp32","dim":{dim},"metric":"{}","index":{index}}}]}}"#,
        metric.name()
    );
    Schema::from_json(&text).unwrap()
}

/// Clustered data around 20 fixed centers (queries share them with the data): closer to
/// real embeddings than uniform noise.
pub fn clustered(seed: u64, n: usize, dim: usize) -> Vec<Vec<f32>> {
    let centers = random_vectors(77, 20, dim);
    let noise = random_vectors(seed, n, dim);
    noise
        .into_iter()
        .enumerate()
        .map(|(i, v)| v.iter().zip(&centers[i % 20]).map(|(a, c)| c + 0.35 * a).collect())
        .collect()
}

fn build(dir: &std::path::Path, metric: Metric, index: &str, data: &[Vec<f32>], threads: usize) -> Collection {
    let coll = Collection::create(dir, schema(metric, data[0].len() as u32, index), Default::default()).unwrap();
    let docs: Vec<Doc> = data
        .iter()
        .enumerate()
        .map(|(i, v)| Doc::new(format!("{i}")).set("g", (i % 1000) as i32).set("v", v.clone()))
        .collect();
    coll.insert(docs).unwrap();
    coll.optimize(&OptimizeOptions::default().concurrency(threads)).unwrap();
    coll
}

fn recall(coll: &Collection, metric: Metric, data: &[Vec<f32>], queries: &[Vec<f32>], k: usize, ef: usize) -> f64 {
    // An index without a search breadth (flat) refuses an ef.
    let index = coll.schema().fields()[1].as_vector().unwrap().index.clone();
    let ef = index.search_knob(xvec::Knob::Ef).map(|_| ef);
    recall_of(coll, metric, data, queries, k, |q| Query::vector(q.to_vec()).k(k).ef(ef))
}

/// Recall@`k` of the query `query` makes of each of `queries`, against brute force.
fn recall_of(
    coll: &Collection,
    metric: Metric,
    data: &[Vec<f32>],
    queries: &[Vec<f32>],
    k: usize,
    query: impl Fn(&[f32]) -> Query,
) -> f64 {
    let mut hit = 0;
    for q in queries {
        let got: Vec<usize> = coll.query(&query(q)).unwrap().iter().map(|h| h.key.parse().unwrap()).collect();
        let want = brute_force(metric, data, q, k);
        hit += got.iter().filter(|g| want.contains(g)).count();
    }
    hit as f64 / (queries.len() * k) as f64
}

#[test]
fn hnsw_and_quantized_recall_against_brute_force() {
    let (n, dim) = (3000, 32);
    let data = clustered(1, n, dim);
    let queries = clustered(2, 40, dim);
    let cases: &[(&str, f64, f64)] = &[
        (r#"{"type":"hnsw","m":12,"ef_construction":100}"#, 0.95, 0.90),
        (r#"{"type":"hnsw","m":12,"ef_construction":100,"quantize":"fp16"}"#, 0.95, 0.90),
        (r#"{"type":"hnsw","m":12,"ef_construction":100,"quantize":"int8","refine":4}"#, 0.95, 0.90),
        (r#"{"type":"hnsw","m":12,"ef_construction":100,"quantize":"int4","refine":8}"#, 0.90, 0.85),
        (r#"{"type":"qg","build_list":100}"#, 0.95, 0.90),
        (r#"{"type":"qg","graph":"hnsw","build_list":100,"quantize":"int8","refine":4}"#, 0.95, 0.90),
        (r#"{"type":"flat","quantize":"int8","refine":4}"#, 0.97, 0.95),
        (r#"{"type":"flat","quantize":"int4","refine":10}"#, 0.95, 0.90),
        (r#"{"type":"flat","quantize":"fp16"}"#, 0.99, 0.98),
    ];
    for &(index, min10, min100) in cases {
        for metric in [Metric::L2, Metric::Ip, Metric::Cosine] {
            let dir = tempfile::tempdir().unwrap();
            // One build thread: the graph, and so the recall checked here, is deterministic.
            let coll = build(dir.path(), metric, index, &data, 1);
            let r10 = recall(&coll, metric, &data, &queries, 10, 128);
            let r100 = recall(&coll, metric, &data, &queries, 100, 400);
            assert!(r10 >= min10, "{index} {metric:?}: recall@10 {r10:.3} < {min10}");
            assert!(r100 >= min100, "{index} {metric:?}: recall@100 {r100:.3} < {min100}");
            drop(coll);
            let ro = Collection::open(dir.path(), &OpenOptions::read_only()).unwrap();
            assert_eq!(
                recall(&ro, metric, &data, &queries, 10, 128),
                r10,
                "{index} {metric:?}: reopened index differs"
            );
        }
    }
}

/// A qg index takes `refine` on its originals: `refine × k` of the neighbours its beam
/// turned away are scored exactly, which finds more of the true 100 at a beam of 100 than
/// the beam alone (per query, and as the field's default).
#[test]
fn qg_refine_scores_what_the_beam_turned_away() {
    let (n, dim) = (3000, 32);
    let data = clustered(1, n, dim);
    let queries = clustered(2, 40, dim);
    let dir = tempfile::tempdir().unwrap();
    let coll = build(dir.path(), Metric::Cosine, r#"{"type":"qg","build_list":100}"#, &data, 1);
    let recall_at_100 = |coll: &Collection, refine: Option<usize>| {
        recall_of(coll, Metric::Cosine, &data, &queries, 100, |q| {
            Query::vector(q.to_vec()).k(100).ef(100).refine(refine)
        })
    };
    let (beam, rescored) = (recall_at_100(&coll, None), recall_at_100(&coll, Some(2)));
    assert!(rescored >= beam + 0.01, "recall@100 {beam:.3} -> {rescored:.3}");
    drop(coll);
    let dir = tempfile::tempdir().unwrap();
    let coll = build(dir.path(), Metric::Cosine, r#"{"type":"qg","build_list":100,"refine":2}"#, &data, 1);
    assert_eq!(recall_at_100(&coll, None), rescored, "the field's default refine is the query's");
    assert_eq!(recall_at_100(&coll, Some(0)), beam, "refine 0 scores the beam alone");
}

/// A cosine score is a cosine: estimates from codes without re-ranking can overshoot 1 by
/// a rounding error for a query's own row, and the score is clamped to [-1, 1].
#[test]
fn cosine_scores_from_codes_stay_within_one() {
    let dim = 32;
    let data = clustered(3, 600, dim);
    for index in [
        r#"{"type":"hnsw","m":8,"ef_construction":32,"quantize":"int8","refine":0}"#,
        r#"{"type":"flat","quantize":"int4","refine":0}"#,
        r#"{"type":"flat","quantize":"rabitq","bits":1,"refine":0}"#,
    ] {
        let dir = tempfile::tempdir().unwrap();
        let coll = build(dir.path(), Metric::Cosine, index, &data, 1);
        let mut top = Vec::new();
        for q in data.iter().step_by(7) {
            let hits = coll.query(&Query::vector(q.clone()).k(5)).unwrap();
            for h in &hits {
                assert!((-1.0..=1.0).contains(&h.score), "{index}: cosine score {} out of [-1, 1]", h.score);
            }
            top.push(hits[0].score);
        }
        assert!(top.iter().any(|&s| s > 0.99), "{index}: no query found its own row near 1: {top:?}");
    }
}

/// RaBitQ codes of every packing (one bit, nibbles, bytes) on HNSW and flat indexes: the
/// estimate alone ranks well at 7 and 8 bits, and re-ranking with the originals lifts the
/// coarse codes to the recall of the others.
#[test]
fn rabitq_recall_against_brute_force_on_hnsw_and_flat() {
    let (n, dim) = (3000, 32);
    let data = clustered(1, n, dim);
    let queries = clustered(2, 40, dim);
    let hnsw = r#""type":"hnsw","m":12,"ef_construction":100"#;
    let cases: &[(&str, &str, f64, f64)] = &[
        (hnsw, r#""bits":1,"refine":10"#, 0.90, 0.97),
        (hnsw, r#""bits":2,"refine":8"#, 0.94, 0.97),
        (hnsw, r#""bits":4,"refine":4"#, 0.97, 0.97),
        (hnsw, r#""bits":7,"refine":0"#, 0.94, 0.96),
        (hnsw, r#""bits":8,"refine":2"#, 0.97, 0.97),
        (r#""type":"flat""#, r#""bits":1,"refine":10"#, 0.90, 0.98),
        (r#""type":"flat""#, r#""bits":3,"refine":4"#, 0.94, 0.98),
        (r#""type":"flat""#, r#""bits":7,"refine":0"#, 0.93, 0.97),
    ];
    for &(index, bits, min10, min100) in cases {
        let index = format!(r#"{{{index},"quantize":"rabitq",{bits}}}"#);
        for metric in [Metric::L2, Metric::Ip, Metric::Cosine] {
            let dir = tempfile::tempdir().unwrap();
            let coll = build(dir.path(), metric, &index, &data, 1);
            let r10 = recall(&coll, metric, &data, &queries, 10, 128);
            let r100 = recall(&coll, metric, &data, &queries, 100, 400);
            assert!(r10 >= min10, "{index} {metric:?}: recall@10 {r10:.3} < {min10}");
            assert!(r100 >= min100, "{index} {metric:?}: recall@100 {r100:.3} < {min100}");
        }
    }
}

#[test]
fn one_thread_and_a_seed_build_the_same_graph() {
    let data = clustered(3, 1200, 16);
    let files = |dir: &std::path::Path| -> Vec<u8> {
        let mut names: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "idx"))
            .collect();
        names.sort();
        assert_eq!(names.len(), 1);
        std::fs::read(&names[0]).unwrap()
    };
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let index = r#"{"type":"hnsw","m":8,"ef_construction":64,"seed":7,"quantize":"int8"}"#;
    drop(build(a.path(), Metric::L2, index, &data, 1));
    drop(build(b.path(), Metric::L2, index, &data, 1));
    assert_eq!(files(a.path()), files(b.path()));
}

#[test]
fn filtered_search_is_correct_at_every_selectivity() {
    let (n, dim) = (5000, 24);
    let data = clustered(4, n, dim);
    let queries = clustered(5, 20, dim);
    for index in [r#"{"type":"hnsw","m":16,"ef_construction":100}"#, r#"{"type":"qg","build_list":100}"#] {
        filtered_search_at_every_selectivity(index, n, &data, &queries);
    }
}

fn filtered_search_at_every_selectivity(index: &str, n: usize, data: &[Vec<f32>], queries: &[Vec<f32>]) {
    let dir = tempfile::tempdir().unwrap();
    let coll = build(dir.path(), Metric::L2, index, data, 1);
    // g = i % 1000: "g < 5" keeps 0.5%, "g < 10" 1%, "g < 100" 10%, "g < 500" 50%.
    for (filter, modulo, min_recall) in
        [("g < 5", 5, 1.0), ("g < 10", 10, 1.0), ("g < 100", 100, 0.9), ("g < 500", 500, 0.9)]
    {
        let mut hit = 0;
        let mut total = 0;
        for q in queries {
            let hits = coll.query(&Query::vector(q.clone()).k(10).ef(100).filter(filter)).unwrap();
            let got: Vec<usize> = hits.iter().map(|h| h.key.parse().unwrap()).collect();
            assert!(got.iter().all(|&i| i % 1000 < modulo), "{filter}: result outside the filter");
            let idx: Vec<usize> = (0..n).filter(|i| i % 1000 < modulo).collect();
            let sub: Vec<Vec<f32>> = idx.iter().map(|&i| data[i].clone()).collect();
            let want: Vec<usize> = brute_force(Metric::L2, &sub, q, 10).into_iter().map(|j| idx[j]).collect();
            assert_eq!(got.len(), want.len(), "{index} {filter}");
            hit += got.iter().filter(|g| want.contains(g)).count();
            total += want.len();
        }
        let r = hit as f64 / total as f64;
        assert!(r >= min_recall, "{index} {filter}: recall {r:.3} < {min_recall}");
    }
}

#[test]
fn writes_after_optimize_are_searched_exactly_and_deletes_hide_rows() {
    let data = clustered(6, 2000, 16);
    let dir = tempfile::tempdir().unwrap();
    let coll = build(dir.path(), Metric::L2, r#"{"type":"hnsw","m":8}"#, &data, 1);
    let snap = coll.snapshot();
    assert_eq!(snap.index_completeness(1), 1.0);
    coll.insert(vec![Doc::new("new").set("g", 1).set("v", data[5].iter().map(|x| x + 1e-4).collect::<Vec<f32>>())])
        .unwrap();
    coll.delete(&["5"]).unwrap();
    let hits = coll.query(&Query::vector(data[5].clone()).k(3)).unwrap();
    assert_eq!(hits[0].key, "new");
    assert!(hits.iter().all(|h| h.key != "5"));
    assert!(coll.snapshot().index_completeness(1) < 1.0);
    // The pinned snapshot still sees the old state.
    assert_eq!(snap.query(&Query::vector(data[5].clone()).k(1)).unwrap()[0].key, "5");
    let report = coll.optimize(&OptimizeOptions::default().concurrency(1)).unwrap();
    assert!(report.changed);
    assert_eq!(report.rows, 2000);
    assert_eq!(coll.snapshot().index_completeness(1), 1.0);
    assert!(!coll.optimize(&OptimizeOptions::default()).unwrap().changed);
    let err = coll.query(&Query::vector(data[0].clone()).k(10).ef(5)).unwrap_err();
    assert!(err.to_string().contains("ef 5 is smaller than k 10"), "{err}");
}

/// Optimize keeps a flushed segment without deletes (no rewrite: same file, same bytes)
/// and only builds its index; a segment with deletes, and small ones, are merged anew.
#[test]
fn optimize_keeps_whole_segments_and_rewrites_the_rest() {
    let data = clustered(10, 3000, 16);
    let dir = tempfile::tempdir().unwrap();
    let files = |ext: &str| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(ext))
            .collect();
        v.sort();
        v
    };
    let coll =
        Collection::create(dir.path(), schema(Metric::L2, 16, r#"{"type":"hnsw","m":8}"#), Default::default()).unwrap();
    let docs = |r: std::ops::Range<usize>| -> Vec<Doc> {
        r.map(|i| Doc::new(format!("{i}")).set("g", 0).set("v", data[i].clone())).collect()
    };
    coll.insert(docs(0..2000)).unwrap();
    coll.flush().unwrap();
    let flushed = std::fs::read(dir.path().join(&files(".xseg")[0])).unwrap();
    let report = coll.optimize(&OptimizeOptions::default().concurrency(1)).unwrap();
    assert!(report.changed && report.indexes_built == 1, "{report:?}");
    assert_eq!(files(".xseg"), ["SEG-000001.xseg"]);
    assert_eq!(std::fs::read(dir.path().join("SEG-000001.xseg")).unwrap(), flushed, "a kept segment is not rewritten");
    assert_eq!(files(".idx"), ["SEG-000001-f001-vec.idx"]);
    assert!(!coll.optimize(&OptimizeOptions::default()).unwrap().changed);

    // A small flushed segment and deletes in the kept one: both are rewritten, merged.
    coll.insert(docs(2000..2100)).unwrap();
    coll.delete(&["7"]).unwrap();
    let report = coll.optimize(&OptimizeOptions::default().concurrency(1)).unwrap();
    assert_eq!((report.rows, report.dropped, report.segments_after), (2099, 1, 1), "{report:?}");
    assert_eq!(files(".xseg").len(), 1);
    assert_ne!(files(".xseg"), ["SEG-000001.xseg"]);
    assert_eq!(files(".idx").len(), 1);
    assert!(files(".del").is_empty());
    let hits = coll.query(&Query::vector(data[2050].clone()).k(1)).unwrap();
    assert_eq!(hits[0].key, "2050");
    assert!(coll.fetch(&["7"], None).unwrap()[0].is_none());
}

#[test]
fn cancelled_optimize_leaves_the_collection_unchanged() {
    let data = clustered(7, 3000, 16);
    let dir = tempfile::tempdir().unwrap();
    let coll =
        Collection::create(dir.path(), schema(Metric::L2, 16, r#"{"type":"hnsw"}"#), Default::default()).unwrap();
    coll.insert(
        data.iter().enumerate().map(|(i, v)| Doc::new(format!("{i}")).set("g", 0).set("v", v.clone())).collect(),
    )
    .unwrap();
    let cancel = AtomicBool::new(true);
    let err = coll.optimize(&OptimizeOptions::default().concurrency(1).cancel(Some(&cancel))).unwrap_err();
    assert!(matches!(err, xvec::Error::Cancelled), "{err}");
    let names: Vec<String> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert!(!names.iter().any(|n| n.ends_with(".idx")), "{names:?}");
    assert_eq!(coll.count(), 3000);
}

/// Group-by returns, per distinct value, the best hits in that group, groups ordered by
/// their best hit: exactly on flat, and matching brute force on HNSW at a generous ef.
#[test]
fn group_by_matches_brute_force_on_flat_and_hnsw() {
    use std::collections::BTreeMap;
    let data = clustered(8, 2000, 16);
    let q = clustered(9, 1, 16).remove(0);
    // Brute force: distance order, then bucket by g % 7 (the group field below).
    let order = brute_force(Metric::L2, &data, &q, data.len());
    let mut want: Vec<(i32, Vec<usize>)> = Vec::new();
    let mut seen: BTreeMap<i32, usize> = BTreeMap::new();
    for i in order {
        let g = (i % 7) as i32;
        let slot = *seen.entry(g).or_insert_with(|| {
            want.push((g, Vec::new()));
            want.len() - 1
        });
        if want[slot].1.len() < 3 {
            want[slot].1.push(i);
        }
    }
    want.truncate(4);
    for index in [r#"{"type":"flat"}"#, r#"{"type":"hnsw","m":16}"#, r#"{"type":"ivf","nlist":16,"nprobe":16}"#] {
        let dir = tempfile::tempdir().unwrap();
        let coll = Collection::create(dir.path(), schema(Metric::L2, 16, index), Default::default()).unwrap();
        coll.insert(
            data.iter()
                .enumerate()
                .map(|(i, v)| Doc::new(format!("{i}")).set("g", (i % 7) as i32).set("v", v.clone()))
                .collect(),
        )
        .unwrap();
        coll.optimize(&OptimizeOptions::default().concurrency(1)).unwrap();
        let by = xvec::GroupBy::new("g", 4, 3);
        let groups = coll.query_groups(&Query::vector(q.clone()).ef(400), &by).unwrap();
        let got: Vec<(i32, Vec<usize>)> = groups
            .iter()
            .map(|g| {
                let xvec::Value::Int32(v) = g.value else { panic!("{:?}", g.value) };
                (v, g.hits.iter().map(|h| h.key.parse().unwrap()).collect())
            })
            .collect();
        assert_eq!(got, want, "{index}");
        let err = coll.query_groups(&Query::vector(q.clone()), &xvec::GroupBy::new("v", 1, 1));
        assert!(err.unwrap_err().to_string().contains("cannot group by `v`"));
    }
}

/// IVF over segments of different sizes, each with lists in proportion to its rows:
/// probing every list is exact across segments (near exact with codes and refine); a
/// filter whose rows the probed lists hold fewer than k of is finished by an exact scan,
/// so its answer is the filtered brute force all the same.
#[test]
fn ivf_over_segments_of_different_sizes_and_lists_finished_exactly() {
    use xvec::{CollectionOptions, SearchKind, SearchPath};
    let (n, dim) = (5000, 16);
    let data = clustered(31, n, dim);
    // Queries near center 0; the filter keeps the rows of centers 5..10 (row i is near center i % 20).
    let queries: Vec<Vec<f32>> = clustered(32, 200, dim).into_iter().step_by(20).collect();
    let far: Vec<String> = (0..1000).filter(|g| (5..10).contains(&(g % 20))).map(|g| g.to_string()).collect();
    let filter = format!("g IN ({})", far.join(", "));
    let allowed: Vec<usize> = (0..n).filter(|i| (5..10).contains(&(i % 20))).collect();
    let sub: Vec<Vec<f32>> = allowed.iter().map(|&i| data[i].clone()).collect();
    for (index, exact) in [
        (r#"{"type":"ivf","nlist":64,"nprobe":8}"#, true),
        (r#"{"type":"ivf","nlist":64,"nprobe":8,"quantize":"rabitq","bits":4,"refine":4}"#, false),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let options = CollectionOptions::default().max_docs_per_segment(2000);
        let coll = Collection::create(dir.path(), schema(Metric::L2, dim as u32, index), options).unwrap();
        coll.insert(
            data.iter()
                .enumerate()
                .map(|(i, v)| Doc::new(format!("{i}")).set("g", (i % 1000) as i32).set("v", v.clone()))
                .collect(),
        )
        .unwrap();
        coll.optimize(&OptimizeOptions::default().concurrency(2)).unwrap();
        let keys =
            |q: Query| -> Vec<usize> { coll.query(&q).unwrap().iter().map(|h| h.key.parse().unwrap()).collect() };
        let explain = coll.snapshot().explain(&Query::vector(queries[0].clone())).unwrap();
        assert_eq!(explain.segment_ids.len(), 3, "{index}: 5000 rows in segments of at most 2000");
        let mut hit = 0;
        for q in &queries {
            let want = brute_force(Metric::L2, &data, q, 10);
            let got = keys(Query::vector(q.clone()).k(10).nprobe(64));
            if exact {
                assert_eq!(got, want, "{index}: every list probed");
            }
            hit += got.iter().filter(|g| want.contains(g)).count();
        }
        let r = hit as f64 / (queries.len() * 10) as f64;
        assert!(r >= 0.95, "{index}: every list probed, recall {r}");
        // Probes that found fewer than k allowed rows were finished by an exact scan.
        let (mut finished, mut hit) = (0, 0);
        for q in &queries {
            let want: Vec<usize> = brute_force(Metric::L2, &sub, q, 10).into_iter().map(|j| allowed[j]).collect();
            let got = keys(Query::vector(q.clone()).k(10).filter(filter.as_str()));
            assert!(got.iter().all(|i| (5..10).contains(&(i % 20))), "{index}: a hit outside {filter}");
            hit += got.iter().filter(|g| want.contains(g)).count();
            let explain = coll.snapshot().explain(&Query::vector(q.clone()).k(10).filter(filter.as_str())).unwrap();
            let exact = SearchKind::Index(SearchPath::ListsThenExact);
            finished += explain.sources.iter().filter(|s| s.search == exact).count();
        }
        assert!(finished > 0, "{index}: no probe was finished by an exact scan");
        let r = hit as f64 / (queries.len() * 10) as f64;
        assert!(r >= 0.8, "{index}: {filter}: recall {r}");
    }
}

/// An IVF collection: probing every list of an unquantized index is exact; fewer lists
/// lose some recall but keep every answer inside the filter; a selective filter falls back
/// to an exact scan; deleted rows never come back; rows written after the optimize are
/// searched exactly beside the lists, and the next optimize indexes them.
#[test]
fn ivf_collections_search_lists_filters_deletes_and_new_segments() {
    let (n, dim) = (4000, 16);
    // Uniform noise: no cluster structure for a few lists to cover.
    let data = random_vectors(21, n, dim);
    let queries = random_vectors(22, 20, dim);
    let dir = tempfile::tempdir().unwrap();
    let coll = build(dir.path(), Metric::L2, r#"{"type":"ivf","nlist":64,"nprobe":4,"soar":true}"#, &data, 2);
    let keys = |q: Query| -> Vec<usize> { coll.query(&q).unwrap().iter().map(|h| h.key.parse().unwrap()).collect() };
    let mut hit = 0;
    for q in &queries {
        let want = brute_force(Metric::L2, &data, q, 10);
        assert_eq!(keys(Query::vector(q.clone()).k(10).nprobe(64)), want);
        hit += keys(Query::vector(q.clone()).k(10)).iter().filter(|g| want.contains(g)).count();
    }
    let r = hit as f64 / (queries.len() * 10) as f64;
    assert!((0.5..1.0).contains(&r), "nprobe 4 of 64: recall {r}");
    let mut hit = 0;
    for q in &queries {
        let want = brute_force(Metric::L2, &data, q, 10);
        hit += keys(Query::vector(q.clone()).k(10).target_recall(0.95)).iter().filter(|g| want.contains(g)).count();
    }
    let r95 = hit as f64 / (queries.len() * 10) as f64;
    assert!(r95 >= 0.85 && r95 > r, "target 0.95: recall {r95} (nprobe 4: {r})");
    let both = coll.query(&Query::vector(queries[0].clone()).nprobe(4).target_recall(0.9)).unwrap_err();
    assert!(both.to_string().contains("give one"), "{both}");
    let bad = coll.query(&Query::vector(queries[0].clone()).target_recall(0.0)).unwrap_err();
    assert!(bad.to_string().contains("target recall 0 is out of range"), "{bad}");
    // Above the index's nlist probes every list, as faiss does; beyond any nlist is refused.
    assert_eq!(
        keys(Query::vector(queries[0].clone()).k(10).nprobe(65)),
        brute_force(Metric::L2, &data, &queries[0], 10)
    );
    for bad in [0, 1 << 20] {
        let err = coll.query(&Query::vector(queries[0].clone()).nprobe(bad)).unwrap_err().to_string();
        assert!(err.contains("nprobe"), "{err}");
    }

    for (filter, modulo) in [("g < 5", 5), ("g < 500", 500)] {
        let idx: Vec<usize> = (0..n).filter(|i| i % 1000 < modulo).collect();
        let sub: Vec<Vec<f32>> = idx.iter().map(|&i| data[i].clone()).collect();
        for q in &queries[..5] {
            let got = keys(Query::vector(q.clone()).k(10).filter(filter));
            assert!(got.iter().all(|&i| i % 1000 < modulo), "{filter}: result outside the filter");
            let want: Vec<usize> = brute_force(Metric::L2, &sub, q, 10).into_iter().map(|j| idx[j]).collect();
            if modulo == 5 {
                assert_eq!(got, want, "{filter}: a selective filter is searched exactly");
            }
            assert_eq!(keys(Query::vector(q.clone()).k(10).nprobe(64).filter(filter)), want, "{filter}");
        }
    }

    let near = brute_force(Metric::L2, &data, &queries[0], 5);
    let gone: Vec<String> = near.iter().map(|i| i.to_string()).collect();
    coll.delete(&gone.iter().map(String::as_str).collect::<Vec<_>>()).unwrap();
    let extra: Vec<Vec<f32>> = random_vectors(23, 500, dim);
    coll.insert(
        extra.iter().enumerate().map(|(i, v)| Doc::new(format!("{}", n + i)).set("g", 0).set("v", v.clone())).collect(),
    )
    .unwrap();
    coll.flush().unwrap();
    let mut all: Vec<Vec<f32>> = data.clone();
    all.extend(extra);
    let live = |i: &usize| !near.contains(i);
    for pass in ["before the optimize", "after it"] {
        for q in &queries[..5] {
            let want: Vec<usize> = brute_force(Metric::L2, &all, q, 20).into_iter().filter(live).take(10).collect();
            assert_eq!(keys(Query::vector(q.clone()).k(10).nprobe(64)), want, "{pass}");
        }
        coll.optimize(&OptimizeOptions::default().concurrency(2)).unwrap();
        assert_eq!(coll.snapshot().index_completeness(1), 1.0);
    }
}

/// Regression: null vectors are stored as zeros and linked into the graph; a graph search
/// must still never return them.
#[test]
fn graph_search_never_returns_rows_without_a_vector() {
    for index in [r#"{"type":"hnsw","m":8}"#, r#"{"type":"qg","build_list":64}"#] {
        rows_without_a_vector_are_never_returned(index);
    }
}

fn rows_without_a_vector_are_never_returned(index: &str) {
    let data = clustered(10, 1500, 8);
    let text = format!(
        r#"{{"name":"n","fields":[{{"name":"g","type":"int32"}},
        {{"name":"v","type":"vector_fp32","dim":8,"metric":"l2","nullable":true,"index":{index}}}]}}"#
    );
    let dir = tempfile::tempdir().unwrap();
    let coll = Collection::create(dir.path(), Schema::from_json(&text).unwrap(), Default::default()).unwrap();
    coll.insert(
        data.iter()
            .enumerate()
            .map(|(i, v)| {
                let d = Doc::new(format!("{i}")).set("g", i as i32);
                if i % 3 == 0 { d } else { d.set("v", v.clone()) }
            })
            .collect(),
    )
    .unwrap();
    coll.optimize(&OptimizeOptions::default()).unwrap();
    for q in [vec![0.0f32; 8], data[1].clone()] {
        for filter in [None, Some("g < 700")] {
            let mut query = Query::vector(q.clone()).k(50).ef(100);
            if let Some(f) = filter {
                query = query.filter(f);
            }
            let hits = coll.query(&query).unwrap();
            assert_eq!(hits.len(), 50);
            assert!(
                hits.iter().all(|h| h.key.parse::<usize>().unwrap() % 3 != 0),
                "{index} {filter:?}: a row without a vector"
            );
        }
    }
}

/// Duplicates and tight degrees make HNSW's pruning leave nodes no list points to; a build
/// links them back in, so every row stays findable and a fresh collection verifies
/// without warnings, for HNSW and Vamana alike.
#[test]
fn builds_leave_no_node_unreachable() {
    let dim = 8;
    let mut data = clustered(5, 1500, dim);
    let copies = random_vectors(6, 3, dim);
    data.extend((0..600).map(|i| copies[i % 3].clone()));
    for index in
        [r#"{"type":"hnsw","m":4,"ef_construction":8}"#, r#"{"type":"vamana","degree":4,"build_list":8,"alpha":1.0}"#]
    {
        let dir = tempfile::tempdir().unwrap();
        build(dir.path(), Metric::L2, index, &data, 1);
        let r = xvec::verify::run(dir.path(), &Default::default()).unwrap();
        assert_eq!(r.graphs.len(), 1, "{index}");
        assert_eq!(r.graphs[0].unreachable_live(), 0, "{index}: {:?}", r.graphs[0]);
        assert!(r.findings.is_empty(), "{index}: {:?}", r.findings);
    }
}

/// A search knob the field's index does not take fails the query (the engine used to drop
/// `ef` on IVF or flat, `nprobe` on a graph, `refine` without codes, and answer as if it
/// were not given); the knobs `search_knobs` lists are the ones a query may give.
#[test]
fn a_knob_the_index_does_not_take_is_refused() {
    use xvec::{Error, Knob, QueryError};
    for index in [
        r#"{"type":"flat"}"#,
        r#"{"type":"flat","quantize":"int8"}"#,
        r#"{"type":"hnsw"}"#,
        r#"{"type":"vamana","quantize":"int8"}"#,
        r#"{"type":"ivf","nlist":2,"nprobe":2}"#,
        r#"{"type":"qg"}"#,
        r#"{"type":"qg","quantize":"int8"}"#,
        r#"{"type":"disk"}"#,
    ] {
        let dir = tempfile::tempdir().unwrap();
        let coll = Collection::create(dir.path(), schema(Metric::L2, 4, index), Default::default()).unwrap();
        let docs = random_vectors(3, 20, 4).into_iter().enumerate();
        coll.insert(docs.map(|(i, v)| Doc::new(format!("{i}")).set("g", i as i32).set("v", v)).collect()).unwrap();
        let params = coll.schema().fields()[1].as_vector().unwrap().index.clone();
        let takes: Vec<Knob> = params.search_knobs().iter().map(|k| k.knob).collect();
        for knob in Knob::ALL {
            let q = Query::vector(vec![0.5; 4]).k(10);
            let q = match knob {
                Knob::Ef => q.ef(20),
                Knob::Nprobe => q.nprobe(1),
                Knob::TargetRecall => q.target_recall(0.9),
                Knob::Refine => q.refine(2),
                Knob::BeamWidth => q.beam_width(8),
                other => panic!("a new knob {other}: give it here"),
            };
            match coll.query(&q) {
                Ok(hits) => assert!(takes.contains(&knob) && hits.len() == 10, "{index} {knob}: {hits:?}"),
                Err(Error::Query(QueryError::KnobDoesNotApply { knob: k, ref field, .. })) => {
                    assert!(!takes.contains(&knob) && k == knob.name() && field == "v", "{index} {knob}");
                }
                Err(e) => panic!("{index} {knob}: {e}"),
            }
        }
        let want: &[Knob] = match params.kind() {
            xvec::IndexType::Flat if params.quant().quantize == xvec::Quantize::None => &[],
            xvec::IndexType::Flat => &[Knob::Refine],
            xvec::IndexType::Hnsw => &[Knob::Ef],
            xvec::IndexType::Vamana => &[Knob::Ef, Knob::Refine],
            xvec::IndexType::Ivf => &[Knob::Nprobe, Knob::TargetRecall],
            // Its beam ranks on one-bit codes even on the originals.
            xvec::IndexType::Qg => &[Knob::Ef, Knob::Refine],
            xvec::IndexType::Disk => &[Knob::Ef, Knob::BeamWidth],
            other => panic!("a new index type {other}: list its knobs here"),
        };
        assert_eq!(takes, want, "{index}");
    }
    let dir = tempfile::tempdir().unwrap();
    let coll = Collection::create(dir.path(), schema(Metric::L2, 4, r#"{"type":"ivf"}"#), Default::default()).unwrap();
    let err = coll.query(&Query::vector(vec![0.5; 4]).ef(64)).unwrap_err().to_string();
    assert!(err.starts_with("ef does not apply to field `v`: its index is ivf; ef sets the search breadth"), "{err}");
    let err = coll.query(&Query::vector(vec![0.5; 4]).beam_width(8)).unwrap_err().to_string();
    assert!(err.starts_with("beam_width does not apply to field `v`: its index is ivf; beam_width sets"), "{err}");
}

/// A query's beam width overrides the disk index's `beam_width`: with no cache every
/// expanded node is a block read, so a wider beam, which expands `width` nodes a hop,
/// reads more blocks a query in fewer hops (each a batch of reads; `explain` shows both)
/// and finds at least as many true neighbours. Widths outside 1..=64 fail the query,
/// naming the knob.
#[test]
fn a_query_beam_width_overrides_the_index_and_widens_each_hop() {
    use xvec::{Error, QueryError, SearchKind, SearchPath};
    let (n, dim) = (3000, 32);
    let data = clustered(1, n, dim);
    let queries = clustered(2, 40, dim);
    let dir = tempfile::tempdir().unwrap();
    drop(build(dir.path(), Metric::L2, r#"{"type":"disk","degree":16,"build_list":64,"beam_width":2}"#, &data, 1));
    let ro = Collection::open(dir.path(), &OpenOptions::read_only().memory_budget(0)).unwrap();
    // Recall@10 and blocks read per query at a width (`None`: the index's).
    let run = |width: Option<usize>| {
        let before = ro.stats().disk.blocks_read;
        let mut hit = 0;
        for q in &queries {
            let hits = ro.query(&Query::vector(q.clone()).k(10).ef(40).beam_width(width)).unwrap();
            let want = brute_force(Metric::L2, &data, q, 10);
            hit += hits.iter().filter(|h| want.contains(&h.key.parse().unwrap())).count();
        }
        let blocks = (ro.stats().disk.blocks_read - before) as f64 / queries.len() as f64;
        (hit as f64 / (queries.len() * 10) as f64, blocks)
    };
    let (default, two, one, sixteen) = (run(None), run(Some(2)), run(Some(1)), run(Some(16)));
    assert_eq!(default, two, "no knob searches with the index's beam_width");
    assert!(one.1 > 0.0 && one.1 < two.1 && two.1 < sixteen.1, "blocks a query: {one:?} {two:?} {sixteen:?}");
    assert!(one.0 >= 0.9 && sixteen.0 >= one.0, "recall: {one:?} {sixteen:?}");
    // Hops and blocks of one segment's search, as `explain` reports them.
    let explained = |width: Option<usize>| {
        let (mut hops, mut blocks) = (0, 0);
        for q in &queries {
            let e = ro.snapshot().explain(&Query::vector(q.clone()).k(10).ef(40).beam_width(width)).unwrap();
            let [source] = &e.sources[..] else { panic!("one segment: {e:?}") };
            let SearchKind::Index(SearchPath::Disk { beam_width, hops: h, blocks_read }) = source.search else {
                panic!("{:?}", source.search)
            };
            assert_eq!(beam_width as usize, width.unwrap_or(2));
            assert!(blocks_read <= h * beam_width && blocks_read > h.saturating_sub(1), "{:?}", source.search);
            (hops, blocks) = (hops + h, blocks + blocks_read);
        }
        (hops, blocks as f64 / queries.len() as f64)
    };
    let (wide, narrow, default) = (explained(Some(16)), explained(Some(1)), explained(None));
    assert_eq!((narrow.1, default.1, wide.1), (one.1, two.1, sixteen.1), "explain counts the same reads");
    assert!(wide.0 < default.0 && default.0 < narrow.0, "hops: {wide:?} {default:?} {narrow:?}");
    for width in [0, 65, usize::MAX] {
        let err = ro.query(&Query::vector(queries[0].clone()).beam_width(width)).unwrap_err();
        assert!(matches!(err, Error::Query(QueryError::BadBeamWidth(w)) if w == width), "{err:?}");
        assert_eq!(err.to_string(), format!("beam_width {width} is out of range; expected 1..=64"));
    }
}

/// The disk-resident kind against brute force, every metric: the codes rank the reads and
/// the blocks' vectors the results. Reopened with no memory for a cache it reads every
/// node it expands, and so scores every one: more blocks, and a recall at least that of a
/// cache of every neighbour list, whose search scores only its best candidates; `stats`
/// shows the budget, the blocks and the reads.
#[test]
fn disk_recall_against_brute_force() {
    let (n, dim) = (3000, 32);
    let data = clustered(1, n, dim);
    let queries = clustered(2, 40, dim);
    let index = r#"{"type":"disk","degree":16,"build_list":64}"#;
    for metric in [Metric::L2, Metric::Ip, Metric::Cosine] {
        let dir = tempfile::tempdir().unwrap();
        let coll = build(dir.path(), metric, index, &data, 1);
        let r10 = recall(&coll, metric, &data, &queries, 10, 64);
        let r100 = recall(&coll, metric, &data, &queries, 100, 200);
        assert!(r10 >= 0.95, "{metric:?}: recall@10 {r10:.3}");
        // Vamana's own graph reaches 0.82 for inner product on this data (measured: the
        // in-memory kind over the same graph gives the same recall).
        let min100 = if metric == Metric::Ip { 0.80 } else { 0.95 };
        assert!(r100 >= min100, "{metric:?}: recall@100 {r100:.3}");
        // The index optimize built caches what one opened without a budget does.
        let built = coll.stats().disk;
        drop(coll);
        let opened = Collection::open(dir.path(), &OpenOptions::read_only()).unwrap().stats().disk;
        assert!(built.cached_nodes > 0 && built.cache_bytes <= xvec::DEFAULT_DISK_CACHE, "{built:?}");
        assert_eq!((built.cached_nodes, built.cache_bytes), (opened.cached_nodes, opened.cache_bytes));
        let (mut reads, mut recalls) = (Vec::new(), Vec::new());
        for budget in [0, 1 << 20] {
            let ro = Collection::open(dir.path(), &OpenOptions::read_only().memory_budget(budget)).unwrap();
            recalls.push(recall(&ro, metric, &data, &queries, 10, 64));
            let s = ro.stats();
            assert_eq!((s.memory_budget, s.disk.indexes, s.disk.searches), (Some(budget), 1, queries.len() as u64));
            // 32 floats, a norm, a count and 16 ids: 200 bytes, 20 nodes to a 4 KiB block.
            assert_eq!(s.disk.block_bytes, (n as u64).div_ceil(20) * 4096, "{:?}", s.disk);
            assert!(s.disk.code_bytes > 0 && s.disk.code_bytes < s.disk.block_bytes / 4, "{:?}", s.disk);
            // The codes come out of the budget first; the cache gets the rest.
            assert_eq!(s.disk.cached_nodes == 0, budget == 0, "{:?}", s.disk);
            assert_eq!(ro.memory().disk_cache, s.disk.cache_bytes);
            reads.push(s.disk.blocks_read);
        }
        assert!(reads[1] < reads[0], "{metric:?}: a cache saves reads: {reads:?}");
        assert!(recalls[0] >= recalls[1] && recalls[1] >= 0.95, "{metric:?}: recall@10 {recalls:?}");
        assert_eq!(recalls[1], r10, "{metric:?}: a cache of every list answers as the built index's");
    }
}

/// A flipped byte in the node blocks opens (blocks are not read at open) and fails the
/// first query that reads the block with the file and the block's offset; `verify` finds
/// it by its checksum. Nothing panics and nothing is searched through the damage.
#[test]
fn damaged_disk_blocks_fail_the_query_and_verify() {
    let data = clustered(26, 1100, 8);
    let dir = tempfile::tempdir().unwrap();
    drop(build(dir.path(), Metric::L2, r#"{"type":"disk","degree":8,"build_list":32}"#, &data, 2));
    let path = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "idx"))
        .unwrap();
    let mut file = std::fs::read(&path).unwrap();
    // The node blocks: the section of kind 16 in the container's table.
    let count = u32::from_le_bytes(file[32..36].try_into().unwrap()) as usize;
    let entry = (0..count).map(|i| 40 + 32 * i).find(|&e| file[e..e + 2] == 16u16.to_le_bytes()).unwrap();
    let word = |at: usize| u64::from_le_bytes(file[at..at + 8].try_into().unwrap()) as usize;
    let (at, len) = (word(entry + 8), word(entry + 16));
    let first = at.next_multiple_of(4096);
    // A byte in every block: whichever the entry point's is, the first hop reads it.
    for block in (first..at + len - 4096).step_by(4096) {
        file[block + 100] ^= 0x40;
    }
    std::fs::write(&path, &file).unwrap();
    let ro = Collection::open(dir.path(), &OpenOptions::read_only().memory_budget(0)).unwrap();
    let err = ro.query(&Query::vector(data[3].clone()).k(5)).unwrap_err();
    let text = err.to_string();
    assert!(text.contains(&*path.to_string_lossy()) && text.contains("checksum mismatch"), "{text}");
    let offset = text.split("offset ").nth(1).and_then(|t| t.split(|c: char| !c.is_ascii_digit()).next()).unwrap();
    let offset: usize = offset.parse().unwrap();
    assert!(offset >= first && (offset - first).is_multiple_of(4096), "{text}");
    // A cache that would hold the damaged blocks finds them at open: the index is left
    // out, the segment searched exactly, and stats name the file.
    let cached = Collection::open(dir.path(), &OpenOptions::read_only()).unwrap();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    assert!(cached.stats().degraded().iter().any(|l| l.contains(&name)), "{:?}", cached.stats().degraded());
    assert_eq!(cached.query(&Query::vector(data[3].clone()).k(5)).unwrap().len(), 5);
    let report = xvec::verify::run(dir.path(), &xvec::verify::VerifyOptions::default().threads(1)).unwrap();
    assert!(!report.is_clean(), "verify must find the damaged blocks");
}
