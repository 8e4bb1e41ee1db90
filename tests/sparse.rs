//! Sparse vector fields through the public API: exact inner-product search against brute
//! force over the memtable, segments and deletes, under a filter; values kept across a
//! reopen (WAL replay) and a flush, rounded for `sparse_fp16`; bad values refused; fusion
//! with a dense branch.

use std::collections::HashMap;

use xvec::{
    Branch, Collection, CollectionOptions, Doc, Field, HybridQuery, Metric, OpenOptions, Query, ScalarType, Schema,
    SparseType, SparseVector, Value, VectorType,
};

fn schema(ty: SparseType) -> Schema {
    Schema::builder("s")
        .field(Field::scalar("n", ScalarType::Int64))
        .field(Field::sparse("sv", ty).nullable(true))
        .field(Field::vector("v", VectorType::Fp32, 2, Metric::L2))
        .build()
        .unwrap()
}

/// A deterministic sparse vector: up to 24 of 500 dimensions, some rows empty.
fn vector(i: usize) -> SparseVector {
    let mut seed = i as u64 * 2_654_435_761 + 1;
    let mut next = |n: u64| {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) % n
    };
    let len = next(25);
    let mut pairs: HashMap<u32, f32> = HashMap::new();
    for _ in 0..len {
        pairs.insert(next(500) as u32, (next(2000) as f32 - 500.0) / 1000.0);
    }
    SparseVector::new(pairs).unwrap()
}

fn doc(i: usize) -> Doc {
    let d = Doc::new(format!("d{i}")).set("n", i as i64).set("v", vec![i as f32, 0.0]);
    if i.is_multiple_of(13) { d } else { d.set("sv", Value::Sparse(vector(i))) }
}

fn sparse_hits(coll: &Collection, q: &SparseVector, k: usize, filter: Option<&str>) -> Vec<(String, f32)> {
    let branch = Branch::sparse(q.clone(), k);
    let q = HybridQuery::new(vec![branch]).k(k).filter_opt(filter.map(String::from));
    coll.hybrid(&q).unwrap().into_iter().map(|h| (h.key, h.branches[0].unwrap().score)).collect()
}

#[test]
fn exact_search_equals_brute_force_over_segments_memtable_and_deletes() {
    let dir = tempfile::tempdir().unwrap();
    let coll = Collection::create(
        dir.path(),
        schema(SparseType::Fp32),
        CollectionOptions::default().max_docs_per_segment(400),
    )
    .unwrap();
    coll.insert((0..1000).map(doc).collect()).unwrap();
    coll.flush().unwrap();
    coll.optimize(&Default::default()).unwrap();
    coll.insert((1000..1300).map(doc).collect()).unwrap();
    let deleted: Vec<String> = (0..1300).step_by(7).map(|i| format!("d{i}")).collect();
    coll.delete(&deleted.iter().map(String::as_str).collect::<Vec<_>>()).unwrap();
    assert!(coll.stats().segments.len() >= 2);
    for (case, k) in [1usize, 10, 50].into_iter().cycle().take(30).enumerate() {
        let q = vector(5000 + case);
        let filter = (case % 2 == 1).then_some("n >= 300");
        let mut want: Vec<(String, f32)> = (0..1300)
            .filter(|i| i % 7 != 0 && i % 13 != 0 && (filter.is_none() || *i >= 300))
            .filter(|&i| vector(i).indices().iter().any(|d| q.indices().contains(d)))
            .map(|i| (format!("d{i}"), vector(i).dot(&q)))
            .collect();
        want.sort_by(|a, b| b.1.total_cmp(&a.1));
        let got = sparse_hits(&coll, &q, k, filter);
        assert_eq!(got.len(), want.len().min(k), "case {case}");
        for (i, (key, score)) in got.iter().enumerate() {
            assert_eq!(*score, want[i].1, "case {case}: rank {i} scores {score}, brute force {}", want[i].1);
            assert_eq!(*score, vector(key[1..].parse().unwrap()).dot(&q), "case {case}: {key}");
        }
    }
}

#[test]
fn values_survive_replay_and_flush_and_fp16_rounds() {
    let dir = tempfile::tempdir().unwrap();
    let coll = Collection::create(dir.path(), schema(SparseType::Fp16), Default::default()).unwrap();
    coll.insert((0..50).map(doc).collect()).unwrap();
    drop(coll);
    let coll = Collection::open(dir.path(), &OpenOptions::writable()).unwrap();
    let fetch = |coll: &Collection, key: &str| coll.fetch(&[key], None).unwrap().remove(0).unwrap();
    let rounded = |v: &SparseVector| v.values().iter().map(|&x| xvec::f16::from_f32(x).to_f32()).collect::<Vec<_>>();
    for stage in ["replayed", "flushed"] {
        for i in [1usize, 2, 13, 49] {
            let d = fetch(&coll, &format!("d{i}"));
            match d.get("sv") {
                Some(Value::Sparse(v)) => {
                    assert_eq!(v.indices(), vector(i).indices(), "{stage} d{i}");
                    assert_eq!(v.values(), rounded(&vector(i)), "{stage} d{i}: half precision");
                }
                other => {
                    assert!(i.is_multiple_of(13) && other.is_none_or(|v| *v == Value::Null), "{stage} d{i}: {other:?}")
                }
            }
        }
        coll.flush().unwrap();
    }
}

#[test]
fn bad_values_and_queries_are_refused_with_what_is_wrong() {
    assert!(SparseVector::new([(3, 1.0), (3, 2.0)]).unwrap_err().contains("dimension 3 appears twice"));
    assert!(SparseVector::new([(3, f32::INFINITY)]).unwrap_err().contains("finite"));
    let dir = tempfile::tempdir().unwrap();
    let coll = Collection::create(dir.path(), schema(SparseType::Fp32), Default::default()).unwrap();
    let items = coll.insert(vec![Doc::new("x").set("n", 1i64).set("v", vec![0.0f32, 0.0]).set("sv", 5i64)]).unwrap();
    let err = items[0].as_ref().unwrap_err().to_string();
    assert!(err.contains("sparse_fp32") && err.contains("sv"), "{err}");
    let json = serde_json::json!({"indices": [1, 2], "values": [1.0]});
    let err = Value::from_json(&xvec::FieldType::Sparse(SparseType::Fp32), &json).unwrap_err();
    assert!(err.to_string().contains("2 indices but 1 values") || format!("{err:?}").contains("2 indices"), "{err:?}");
    let q = HybridQuery::new(vec![Branch::Sparse { field: Some("n".into()), vector: vector(1), k: 5, budget: None }]);
    assert!(coll.hybrid(&q).unwrap_err().to_string().contains("no sparse vector field named `n`"));
    let err = coll.snapshot().keys_where(Some("sv = 1")).unwrap_err().to_string();
    assert!(err.contains("sparse vector field"), "{err}");
    let bad = Schema::from_json(r#"{"name":"b","fields":[{"name":"s","type":"sparse_fp32","dim":3}]}"#).unwrap_err();
    assert!(bad.to_string().contains("takes no dim"), "{bad}");
}

#[test]
fn a_sparse_branch_fuses_with_a_dense_one() {
    let dir = tempfile::tempdir().unwrap();
    let coll = Collection::create(dir.path(), schema(SparseType::Fp32), Default::default()).unwrap();
    coll.insert((0..200).map(doc).collect()).unwrap();
    let q = vector(777);
    let dense = Branch::Dense(Query::vector(vec![10.0, 0.0]).k(10));
    let hybrid = HybridQuery::new(vec![
        dense,
        Branch::Sparse { field: Some("sv".into()), vector: q.clone(), k: 10, budget: None },
    ])
    .k(10);
    let hits = coll.hybrid(&hybrid).unwrap();
    assert_eq!(hits.len(), 10);
    let sparse: Vec<String> = sparse_hits(&coll, &q, 10, None).into_iter().map(|h| h.0).collect();
    for h in &hits {
        if let Some(b) = h.branches[1] {
            assert_eq!(sparse[b.rank as usize - 1], h.key, "the sparse branch's rank is its rank alone");
        }
    }
    assert!(hits.iter().any(|h| h.branches[1].is_some()) && hits.iter().any(|h| h.branches[0].is_some()));
}
