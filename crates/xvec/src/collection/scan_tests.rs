//! Rows no index covers yet are scanned through their sketches: in the memtable, in a
//! flushed segment, with deletes and filters; the codes go once the index is built.

use crate::index::rng::SplitMix64;
use crate::schema::{Field, HnswParams, IndexParams, Metric, ScalarType, Schema, VectorType};
use crate::{Collection, Doc, OptimizeOptions, Query, Value};

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
    let (mut found, mut total) = (0, 0);
    for q in vectors(30, 99) {
        let mut exact: Vec<(f32, usize)> =
            (0..rows.len()).filter(|&i| live(i)).map(|i| (cosine(&q, &rows[i]), i)).collect();
        exact.sort_by(|a, b| b.0.total_cmp(&a.0));
        let want: Vec<String> = exact.iter().take(10).map(|&(_, i)| format!("k{i:05}")).collect();
        let hits = coll.query(&Query::vector(q).k(10).filter_opt(filter.map(String::from))).unwrap();
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

#[test]
fn unindexed_rows_are_scanned_with_sketches_until_indexed() {
    let dir = tempfile::tempdir().unwrap();
    let coll = Collection::create(dir.path(), schema(), Default::default()).unwrap();
    let rows = vectors(3_000, 1);
    let docs =
        rows.iter().enumerate().map(|(i, v)| Doc::new(format!("k{i:05}")).set("n", i as i64).set("v", v.clone()));
    coll.insert(docs.collect()).unwrap();
    let all = |_: usize| true;

    // In the memtable.
    assert!(coll.memory().scan_codes > 0);
    let r = recall(&coll, &rows, &all, None);
    assert!(r >= 0.98, "memtable recall {r}");

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
