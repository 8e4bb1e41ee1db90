//! Rows no index covers yet are scanned through their sketches: in the memtable, in a
//! flushed segment, with deletes and filters; the codes go once the index is built.

use crate::collection::SearchKind;
use crate::index::rng::SplitMix64;
use crate::schema::{Field, HnswParams, IndexParams, Metric, ScalarType, Schema, VectorType};
use crate::{Collection, Doc, OptimizeOptions, Query, SearchPath, SearchRoute, Value};

const DIM: usize = 64;

fn schema() -> Schema {
    let hnsw = IndexParams::Hnsw(HnswParams::default().m(8));
    Schema::builder("s")
        .field(Field::scalar("n", ScalarType::Int64))
        .field(Field::vector("v", VectorType::Fp32, DIM as u32, Metric::Cosine).index(hnsw))
        .build()
        .unwrap()
}

/// Clustered vectors, as embeddings are.
fn vectors(n: usize, seed: u64) -> Vec<Vec<f32>> {
    let mut rng = SplitMix64::new(seed);
    let mut gauss = move || -> f32 {
        let (u, v) = (rng.next_unit().max(1e-12), rng.next_unit());
        ((-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()) as f32
    };
    let centres: Vec<Vec<f32>> = (0..12).map(|_| (0..DIM).map(|_| gauss()).collect()).collect();
    (0..n).map(|i| centres[i % 12].iter().map(|&c| c + 0.8 * gauss()).collect()).collect()
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let n = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (n(a) * n(b))
}

/// Recall of the collection's top 10 against an exact search of the rows `live` keeps;
/// every hit must be one of them.
fn recall(coll: &Collection, rows: &[Vec<f32>], live: &dyn Fn(usize) -> bool, filter: Option<&str>) -> f64 {
    recall_by(coll, rows, live, filter, SearchRoute::Auto)
}

fn recall_by(
    coll: &Collection,
    rows: &[Vec<f32>],
    live: &dyn Fn(usize) -> bool,
    filter: Option<&str>,
    route: SearchRoute,
) -> f64 {
    let (mut found, mut total) = (0, 0);
    for q in vectors(30, 99) {
        let mut exact: Vec<(f32, usize)> =
            (0..rows.len()).filter(|&i| live(i)).map(|i| (cosine(&q, &rows[i]), i)).collect();
        exact.sort_by(|a, b| b.0.total_cmp(&a.0));
        let want: Vec<String> = exact.iter().take(10).map(|&(_, i)| format!("k{i:05}")).collect();
        let hits = coll.query(&Query::vector(q).k(10).filter_opt(filter.map(String::from)).route(route)).unwrap();
        assert_eq!(hits.len(), want.len());
        for h in &hits {
            let i: usize = h.key[1..].parse().unwrap();
            assert!(live(i), "{} is deleted or filtered out", h.key);
        }
        found += hits.iter().filter(|h| want.contains(&h.key)).count();
        total += want.len();
    }
    found as f64 / total as f64
}

/// A collection of 3,000 rows `k00000`.. with `n` = the row, unflushed.
fn loaded(dir: &std::path::Path, seed: u64) -> (Collection, Vec<Vec<f32>>) {
    let coll = Collection::create(dir, schema(), Default::default()).unwrap();
    let rows = vectors(3_000, seed);
    let docs =
        rows.iter().enumerate().map(|(i, v)| Doc::new(format!("k{i:05}")).set("n", i as i64).set("v", v.clone()));
    coll.insert(docs.collect()).unwrap();
    (coll, rows)
}

#[test]
fn unindexed_rows_are_scanned_with_sketches_until_indexed() {
    let dir = tempfile::tempdir().unwrap();
    let (coll, rows) = loaded(dir.path(), 1);
    let all = |_: usize| true;

    // In the memtable: made by the first search, not by the writes.
    assert_eq!(coll.memory().scan_codes, 0);
    let r = recall(&coll, &rows, &all, None);
    assert!(r >= 0.98, "memtable recall {r}");
    assert!(coll.memory().scan_codes > 0);

    // In a flushed segment, with deletes and a filter.
    let gone: Vec<String> = (0..3_000).step_by(7).map(|i| format!("k{i:05}")).collect();
    coll.delete(&gone.iter().map(String::as_str).collect::<Vec<_>>()).unwrap();
    coll.flush().unwrap();
    assert_eq!(coll.stats().unindexed_rows, 3_000 - gone.len() as u64);
    assert!(coll.memory().scan_codes > 0);
    let live = |i: usize| !i.is_multiple_of(7);
    let r = recall(&coll, &rows, &live, None);
    assert!(r >= 0.98, "segment recall {r}");
    let upper = |i: usize| !i.is_multiple_of(7) && i >= 2_000;
    let r = recall(&coll, &rows, &upper, Some("n >= 2000"));
    assert!(r >= 0.98, "filtered recall {r}");

    // Built: the codes are gone, the index answers.
    coll.optimize(&OptimizeOptions::default()).unwrap();
    assert_eq!(coll.memory().scan_codes, 0);
    assert_eq!(coll.snapshot().count(), 3_000 - gone.len() as u64);
    let hit = coll.query(&Query::vector(rows[1].clone()).k(1)).unwrap();
    assert_eq!(hit[0].fields.get("n"), Some(&Value::Int64(1)));
}

/// A memtable flushed before any search has no codes to copy: the flush makes the
/// segment's, so its first search scans with them as after a searched memtable's flush.
#[test]
fn a_memtable_never_searched_is_flushed_with_scan_codes() {
    let dir = tempfile::tempdir().unwrap();
    let (coll, rows) = loaded(dir.path(), 3);
    assert_eq!(coll.memory().scan_codes, 0);
    coll.flush().unwrap();
    assert!(coll.memory().scan_codes > 0);
    let ex = coll.snapshot().explain(&Query::vector(rows[5].clone()).k(10)).unwrap();
    assert_eq!(ex.sources.len(), 1, "one flushed segment");
    assert_eq!(ex.sources[0].search, SearchKind::ScanCodes);
    let r = recall(&coll, &rows, &|_| true, None);
    assert!(r >= 0.98, "segment recall {r}");
}

#[test]
fn a_forced_route_searches_every_segment_that_way() {
    let dir = tempfile::tempdir().unwrap();
    let (coll, rows) = loaded(dir.path(), 2);
    coll.optimize(&OptimizeOptions::default()).unwrap();
    // 1% of the rows: the cost model scans them; 90%: it takes the graph.
    let hundredths: Vec<String> = (0..3_000).step_by(100).map(|i| i.to_string()).collect();
    let sparse = format!("n IN ({})", hundredths.join(", "));
    type Live<'a> = &'a dyn Fn(usize) -> bool;
    let cases: [(&str, Live, bool); 2] =
        [(&sparse, &|i: usize| i.is_multiple_of(100), true), ("n < 2700", &|i: usize| i < 2700, false)];
    for (filter, live, auto_exact) in cases {
        for route in SearchRoute::ALL {
            let q = Query::vector(rows[5].clone()).k(10).filter(filter).route(route);
            let ex = coll.snapshot().explain(&q).unwrap();
            assert_eq!(ex.sources.len(), 1, "one optimized segment");
            let exact = matches!(ex.sources[0].search, SearchKind::Index(SearchPath::Exact { .. }));
            let want = match route {
                SearchRoute::Auto => auto_exact,
                SearchRoute::Graph => false,
                SearchRoute::Exact => true,
            };
            assert_eq!(exact, want, "{route:?} over {filter}: {:?}", ex.sources[0].search);
            let r = recall_by(&coll, &rows, live, Some(filter), route);
            // An exact scan is exact. The graph (m 8, ef 64) over these noisy clusters finds
            // 0.86 of the true top 10; a route that searched the wrong rows would find none.
            let floor = if exact { 1.0 } else { 0.8 };
            assert!(r >= floor, "{route:?} over {filter}: recall {r}");
        }
    }
}
