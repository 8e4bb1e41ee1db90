//! The bulk reads (`bulk.rs`) against their one-at-a-time twins: `keys_where`, `fetch` and
//! `query`, over segments, deletes and the memtable.

use crate::schema::{Field, FlatParams, IndexParams, Metric, ScalarType, Schema, VectorType};
use crate::{Collection, Doc, Error, Params, Query, QueryError};

const DIM: usize = 8;

fn vector(i: usize) -> Vec<f32> {
    (0..DIM).map(|j| (((i * 7919 + j * 104729) % 1009) as f32) / 1009.0).collect()
}

/// 300 rows in two segments and the memtable, 30 deleted, one overwritten.
fn collection() -> (tempfile::TempDir, Collection) {
    let dir = tempfile::tempdir().unwrap();
    let schema = Schema::builder("bulk")
        .field(Field::scalar("n", ScalarType::Int64))
        .field(Field::scalar("tag", ScalarType::String).nullable(true))
        .field(
            Field::vector("v", VectorType::Fp32, DIM as u32, Metric::L2)
                .index(IndexParams::Flat(FlatParams::default())),
        )
        .build()
        .unwrap();
    let coll = Collection::create(dir.path(), schema, Default::default()).unwrap();
    for part in 0..3 {
        let docs = (part * 100..part * 100 + 100).map(|i| {
            Doc::new(format!("k{i:03}"))
                .set("n", i as i64)
                .set("tag", if i % 3 == 0 { "a" } else { "b" })
                .set("v", vector(i))
        });
        coll.insert(docs.collect()).unwrap();
        if part < 2 {
            coll.flush().unwrap();
        }
    }
    let gone: Vec<String> = (0..300).step_by(10).map(|i| format!("k{i:03}")).collect();
    coll.delete(&gone.iter().map(String::as_str).collect::<Vec<_>>()).unwrap();
    coll.upsert(vec![Doc::new("k001").set("n", 1001i64).set("v", vector(1))]).unwrap();
    (dir, coll)
}

#[test]
fn count_where_agrees_with_the_keys_a_filter_keeps() {
    let (_dir, coll) = collection();
    let none = Params::new();
    for filter in [None, Some("tag = 'a'"), Some("n >= 150"), Some("n < 0"), Some("tag IS NULL")] {
        let keys = coll.snapshot().keys_where(filter).unwrap();
        assert_eq!(coll.count_where(filter, &none).unwrap(), keys.len() as u64, "{filter:?}");
    }
    assert_eq!(coll.count_where(None, &none).unwrap(), coll.count());
    let bound = coll.count_where(Some("n > $min"), &Params::new().set("min", 200i64)).unwrap();
    assert_eq!(bound, coll.snapshot().keys_where(Some("n > 200")).unwrap().len() as u64);
    assert!(matches!(coll.count_where(Some("nope = 1"), &none), Err(Error::Filter(_))));
}

#[test]
fn a_scan_returns_what_fetch_returns_in_batches_of_any_size() {
    let (_dir, coll) = collection();
    let none = Params::new();
    for filter in [None, Some("tag = 'b' AND n > 40")] {
        let keys = coll.snapshot().keys_where(filter).unwrap();
        let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
        let fetched: Vec<Doc> = coll.fetch(&refs, None).unwrap().into_iter().map(Option::unwrap).collect();
        for batch in [1, 7, 100, 1000] {
            let mut scan = coll.scan(filter, &none, None).unwrap();
            let mut got = Vec::new();
            while let Some(b) = scan.next_batch(batch) {
                assert!(!b.is_empty() && b.len() <= batch);
                got.extend(b);
            }
            assert_eq!(got, fetched, "{filter:?}, batches of {batch}");
        }
    }
    // The upserted row comes once, its new value merged over the old ones.
    let k001: Vec<Doc> = coll.scan(Some("n = 1001"), &none, None).unwrap().collect();
    assert_eq!(k001.len(), 1);
    assert_eq!(k001[0].key, "k001");
    assert_eq!(k001[0].get("tag"), Some(&"b".into()));
}

#[test]
fn a_scan_reads_its_snapshot_and_checks_its_projection_first() {
    let (_dir, coll) = collection();
    let none = Params::new();
    let scan = coll.scan(None, &none, Some(&["n".to_string()])).unwrap();
    coll.insert(vec![Doc::new("late").set("n", 7i64).set("v", vector(7))]).unwrap();
    let docs: Vec<Doc> = scan.collect();
    assert_eq!(docs.len() as u64, coll.count() - 1, "the write after the scan began is not seen");
    assert!(docs.iter().all(|d| d.fields.len() == 1 && d.get("n").is_some()));
    let err = coll.scan(None, &none, Some(&["nope".to_string()])).err().unwrap();
    assert!(matches!(err, Error::Query(QueryError::UnknownField(ref f)) if f == "nope"), "{err}");
}

#[test]
fn a_batch_of_queries_answers_as_each_query_alone_on_any_number_of_threads() {
    let (_dir, coll) = collection();
    let rows: Vec<usize> = (0..40).map(|i| i * 7 + 3).collect();
    let flat: Vec<f32> = rows.iter().flat_map(|&i| vector(i)).collect();
    let template = Query::vector(vec![]).k(5).filter("tag = 'b'").fields(["n"]);
    let alone: Vec<_> = rows
        .iter()
        .map(|&i| coll.query(&Query::vector(vector(i)).k(5).filter("tag = 'b'").fields(["n"])).unwrap())
        .collect();
    for threads in [1, 2, 3, 64] {
        let got = coll.query_batch(&template, &flat, threads).unwrap();
        let got: Vec<_> = got.into_iter().map(Result::unwrap).collect();
        assert_eq!(got, alone, "{threads} threads");
    }
    assert!(coll.query_batch(&template, &[], 2).unwrap().is_empty());
}

#[test]
fn a_batch_fails_per_row_or_as_a_whole_with_the_reason() {
    let (_dir, coll) = collection();
    let template = Query::vector(vec![]).k(3);
    let mut flat: Vec<f32> = (0..3).flat_map(vector).collect();
    flat[DIM + 2] = f32::NAN;
    let got = coll.query_batch(&template, &flat, 2).unwrap();
    assert!(got[0].is_ok() && got[2].is_ok());
    assert!(matches!(got[1], Err(Error::Query(QueryError::NotFinite(2)))), "{:?}", got[1]);
    let short = coll.query_batch(&template, &flat[..DIM + 3], 1).unwrap_err();
    assert!(matches!(short, Error::Query(QueryError::BadDimension { found: 3, .. })), "{short}");
    for threads in [0, crate::MAX_QUERY_THREADS + 1] {
        let err = coll.query_batch(&template, &flat, threads).unwrap_err();
        assert!(err.to_string().contains(&format!("threads is {threads}")), "{err}");
    }
}

#[test]
fn the_parts_of_a_scan_together_read_what_the_whole_scan_reads() {
    let (_dir, coll) = collection();
    let none = Params::new();
    let snap = coll.snapshot();
    let parts = snap.scan_parts();
    assert!(parts.len() >= 3, "two segments and the memtable: {parts:?}");
    assert!(parts[..2].iter().all(|p| p.segment.is_some()) && parts[2..].iter().all(|p| p.segment.is_none()));
    assert_eq!(parts.iter().map(|p| p.rows).sum::<u64>(), snap.count());
    for filter in [None, Some("tag = 'a'")] {
        let whole: Vec<Doc> = snap.scan(filter, &none, None).unwrap().collect();
        let mut pieces = Vec::new();
        for (i, part) in parts.iter().enumerate() {
            let docs: Vec<Doc> = snap.scan(filter, &none, None).unwrap().only_part(i).unwrap().collect();
            if filter.is_none() {
                assert_eq!(docs.len() as u64, part.rows, "part {i}");
            }
            pieces.extend(docs);
        }
        assert_eq!(pieces, whole, "filter {filter:?}");
    }
    let err = snap.scan(None, &none, None).unwrap().only_part(parts.len()).err().unwrap();
    let n = parts.len();
    assert!(matches!(err, Error::Query(QueryError::NoSuchPart { part, parts }) if part == n && parts == n), "{err}");
}
