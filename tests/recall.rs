//! Exact search must equal brute force: recall@10 = 1.0 for every metric and element type.

use xvec::f16;
use xvec::{Collection, Doc, Field, Metric, OpenOptions, Query, Schema, Value, VectorType};

use crate::util::{brute_force, random_vectors, rng};

fn schema(elem: VectorType, dim: u32, metric: Metric) -> Schema {
    Schema::builder("r")
        .field(Field::scalar("g", xvec::ScalarType::Int32))
        .field(Field::vector("v", elem, dim, metric))
        .build()
        .unwrap()
}

/// Stored vectors as the engine sees them (after fp16/int8 conversion), and the docs.
fn data(elem: VectorType, n: usize, dim: usize, seed: u64) -> (Vec<Vec<f32>>, Vec<Doc>) {
    use rand::RngExt;
    let mut r = rng(seed);
    let raw = random_vectors(seed, n, dim);
    let mut stored = Vec::new();
    let mut docs = Vec::new();
    for (i, v) in raw.into_iter().enumerate() {
        let (s, value): (Vec<f32>, Value) = match elem {
            VectorType::Fp32 => (v.clone(), v.into()),
            VectorType::Fp16 => {
                let h: Vec<f16> = v.iter().map(|&x| f16::from_f32(x)).collect();
                (h.iter().map(|x| x.to_f32()).collect(), h.into())
            }
            VectorType::Int8 => {
                let q: Vec<i8> = (0..dim).map(|_| r.random_range(-128i32..=127) as i8).collect();
                (q.iter().map(|&x| x as f32).collect(), q.into())
            }
            other => unimplemented!("documents with {} vectors", other.name()),
        };
        stored.push(s);
        docs.push(Doc::new(format!("{i}")).set("g", (i % 10) as i32).set("v", value));
    }
    (stored, docs)
}

#[test]
fn flat_recall_is_exact_for_every_metric_and_type() {
    let (n, dim, k) = (1500, 33, 10);
    for elem in [VectorType::Fp32, VectorType::Fp16, VectorType::Int8] {
        for metric in [Metric::L2, Metric::Ip, Metric::Cosine] {
            let dir = tempfile::tempdir().unwrap();
            let coll = Collection::create(dir.path(), schema(elem, dim as u32, metric), Default::default()).unwrap();
            let (stored, docs) = data(elem, n, dim, 11);
            // Half in a segment, a quarter in a second segment, the rest unflushed.
            let mut docs = docs.into_iter();
            coll.insert(docs.by_ref().take(n / 2).collect()).unwrap();
            coll.flush().unwrap();
            coll.insert(docs.by_ref().take(n / 4).collect()).unwrap();
            coll.flush().unwrap();
            coll.insert(docs.collect()).unwrap();
            let snapshot_sources = coll.stats().segments.len();
            assert_eq!(snapshot_sources, 2);
            let queries = match elem {
                VectorType::Int8 => data(elem, 20, dim, 99).0,
                _ => random_vectors(99, 20, dim),
            };
            for (qi, q) in queries.iter().enumerate() {
                let hits = coll.query(&Query::vector(q.clone()).k(k)).unwrap();
                let got: Vec<usize> = hits.iter().map(|h| h.key.parse().unwrap()).collect();
                let want = brute_force(metric, &stored, q, k);
                let mut a = got.clone();
                let mut b = want.clone();
                a.sort();
                b.sort();
                assert_eq!(a, b, "{elem:?} {metric:?} query {qi}: recall@{k} below 1.0");
                // Scores are in the metric's unit and best first.
                for w in hits.windows(2) {
                    if metric.higher_is_better() {
                        assert!(w[0].score >= w[1].score);
                    } else {
                        assert!(w[0].score <= w[1].score);
                    }
                }
                // Filtered: only g = 3 rows, still exact.
                let hits = coll.query(&Query::vector(q.clone()).k(k).filter("g = 3")).unwrap();
                let idx: Vec<usize> = (0..n).filter(|i| i % 10 == 3).collect();
                let sub: Vec<Vec<f32>> = idx.iter().map(|&i| stored[i].clone()).collect();
                let mut want: Vec<usize> = brute_force(metric, &sub, q, k).into_iter().map(|j| idx[j]).collect();
                let mut got: Vec<usize> = hits.iter().map(|h| h.key.parse().unwrap()).collect();
                want.sort();
                got.sort();
                assert_eq!(got, want, "{elem:?} {metric:?} filtered query {qi}");
            }
            drop(coll);
            let ro = Collection::open(dir.path(), &OpenOptions::read_only()).unwrap();
            let q = &queries[0];
            let mut got: Vec<usize> =
                ro.query(&Query::vector(q.clone()).k(k)).unwrap().iter().map(|h| h.key.parse().unwrap()).collect();
            let mut want = brute_force(metric, &stored, q, k);
            got.sort();
            want.sort();
            assert_eq!(got, want);
        }
    }
}

#[test]
fn ties_are_broken_by_internal_id() {
    let dir = tempfile::tempdir().unwrap();
    let coll = Collection::create(dir.path(), schema(VectorType::Fp32, 2, Metric::L2), Default::default()).unwrap();
    let docs: Vec<Doc> = (0..50).map(|i| Doc::new(format!("{i:02}")).set("g", 0).set("v", vec![1.0f32, 1.0])).collect();
    coll.insert(docs).unwrap();
    let hits = coll.query(&Query::vector(vec![0.0, 0.0]).k(5)).unwrap();
    let keys: Vec<&str> = hits.iter().map(|h| h.key.as_str()).collect();
    assert_eq!(keys, ["00", "01", "02", "03", "04"]);
}
