//! Field changes on a collection: published in one swap, no segment rewritten, rows
//! written before a change read under the new schema (defaults, NULLs, widened values),
//! old snapshots keep their schema, and optimize rewrites what the schema no longer stores.

use crate::schema::{Field, FieldChange, FieldType, Metric, ScalarIndexKind, ScalarType, Schema, VectorType};
use crate::{Collection, Doc, OpenOptions, OptimizeOptions, Query, Value};

fn schema() -> Schema {
    Schema::builder("f")
        .field(Field::scalar("pos", ScalarType::String).scalar_index(ScalarIndexKind::Inverted))
        .field(Field::scalar("n", ScalarType::Int32).nullable(true).scalar_index(ScalarIndexKind::Range))
        .field(Field::scalar("x", ScalarType::Float))
        .field(Field::vector("v", VectorType::Fp32, 4, Metric::L2))
        .build()
        .unwrap()
}

fn doc(i: usize) -> Doc {
    let d = Doc::new(format!("k{i:04}"))
        .set("pos", ["n", "v", "a"][i % 3])
        .set("x", i as f32 * 0.5)
        .set("v", vec![i as f32, 1.0, 0.0, (i % 5) as f32]);
    if i.is_multiple_of(4) { d } else { d.set("n", i as i32 - 50) }
}

fn get(c: &Collection, key: &str) -> Doc {
    c.fetch(&[key], None).unwrap().remove(0).unwrap_or_else(|| panic!("{key} is live"))
}

fn keys(c: &Collection, filter: &str) -> Vec<String> {
    let mut k = c.snapshot().keys_where(Some(filter)).unwrap();
    k.sort();
    k
}

#[test]
fn every_change_reads_old_rows_under_the_new_schema_and_survives_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let c = Collection::create(dir.path(), schema(), Default::default()).unwrap();
    c.insert((0..60).map(doc).collect()).unwrap();
    c.flush().unwrap();
    c.insert((60..90).map(doc).collect()).unwrap();
    let before = c.snapshot();
    let reader = Collection::open(dir.path(), &OpenOptions::read_only()).unwrap();
    let pinned = reader.snapshot();
    let segment_files = |d: &std::path::Path| {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".seg"))
            .collect();
        v.sort();
        v
    };

    c.change_field(FieldChange::Add(Field::scalar("tag", ScalarType::String).default_value("none".into()))).unwrap();
    c.change_field(FieldChange::Add(Field::scalar("w", ScalarType::Int64).nullable(true))).unwrap();
    let files = segment_files(dir.path());
    c.change_field(FieldChange::Widen { field: "n".into(), to: FieldType::Scalar(ScalarType::Int64) }).unwrap();
    c.change_field(FieldChange::Widen { field: "x".into(), to: FieldType::Scalar(ScalarType::Double) }).unwrap();
    c.change_field(FieldChange::Rename { from: "pos".into(), to: "part".into() }).unwrap();
    c.change_field(FieldChange::Drop("w".into())).unwrap();
    assert_eq!(segment_files(dir.path()), files, "no change rewrites a segment");

    // Old snapshots still read their schema, the writer's and a reader's; the reader
    // moves to the new one when it refreshes.
    assert_eq!(before.schema().fields().len(), 4);
    assert_eq!(before.schema().field(0).name, "pos");
    let old_v: Vec<String> = (0..90).filter(|i| i % 3 == 1).map(|i| format!("k{i:04}")).collect();
    let mut got = pinned.keys_where(Some("pos = 'v'")).unwrap();
    got.sort();
    assert_eq!(got, old_v);
    reader.refresh().unwrap();
    assert_eq!(reader.schema().field(0).name, "part");
    let mut got = reader.snapshot().keys_where(Some("part = 'v' AND tag = 'none'")).unwrap();
    got.sort();
    assert_eq!(got, old_v);
    let check = |c: &Collection| {
        let s = c.schema();
        let names: Vec<&str> = s.fields().iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["part", "n", "x", "v", "tag"]);
        for i in [0usize, 1, 59, 60, 89] {
            let d = get(c, &format!("k{i:04}"));
            assert_eq!(d.get("tag"), Some(&Value::String("none".into())), "row {i}");
            assert_eq!(d.get("part"), Some(&Value::String(["n", "v", "a"][i % 3].into())));
            let n = if i % 4 == 0 { Value::Null } else { Value::Int64(i as i64 - 50) };
            assert_eq!(d.get("n").cloned().unwrap_or(Value::Null), n, "row {i}");
            assert_eq!(d.get("x"), Some(&Value::Double(i as f64 * 0.5)));
            assert!(d.get("w").is_none() && d.get("pos").is_none());
        }
        let want: Vec<String> =
            (0..90).filter(|i| i % 3 == 1 && i % 4 != 0 && *i >= 40).map(|i| format!("k{i:04}")).collect();
        assert_eq!(keys(c, "part = 'v' AND n >= -10"), want);
        assert_eq!(keys(c, "tag = 'none'").len() as u64, c.count(), "every row has the default");
        assert!(c.snapshot().keys_where(Some("pos = 'v'")).is_err(), "the old name is gone");
        assert!(c.snapshot().keys_where(Some("w IS NULL")).is_err(), "the dropped field is gone");
    };
    check(&c);
    // Written after the changes: a default fills what a document leaves out.
    c.insert(vec![Doc::new("new").set("part", "r").set("x", 1.5f64).set("v", vec![0f32; 4])]).unwrap();
    assert_eq!(get(&c, "new").get("tag"), Some(&Value::String("none".into())));
    drop(c);

    let c = Collection::open(dir.path(), &OpenOptions::writable()).unwrap();
    check(&c);
    assert_eq!(get(&c, "new").get("part"), Some(&Value::String("r".into())));
    let stale: Vec<_> = c.snapshot().segments.iter().map(|s| s.segment.stores_schema()).collect();
    assert!(stale.iter().all(|&s| !s), "every segment predates the changes: {stale:?}");
    c.optimize(&OptimizeOptions::default()).unwrap();
    assert!(c.snapshot().segments.iter().all(|s| s.segment.stores_schema()), "optimize rewrote them");
    check(&c);
    let hits = c.query(&Query::vector(vec![60.0, 1.0, 0.0, 0.0]).k(1).filter("tag = 'none'")).unwrap();
    assert_eq!(hits[0].key, "k0060");
}

#[test]
fn added_vector_fields_start_null_and_are_indexed_by_optimize() {
    let dir = tempfile::tempdir().unwrap();
    let c = Collection::create(dir.path(), schema(), Default::default()).unwrap();
    c.insert((0..40).map(doc).collect()).unwrap();
    c.flush().unwrap();
    let e = Field::vector("e", VectorType::Fp16, 3, Metric::Cosine).nullable(true);
    c.change_field(FieldChange::Add(e)).unwrap();
    assert_eq!(get(&c, "k0003").get("e"), None);
    c.insert(vec![doc(100).set("e", vec![half::f16::from_f32(1.0), half::f16::ZERO, half::f16::ZERO])]).unwrap();
    let q = Query::vector(vec![1.0, 0.1, 0.0]).field("e").k(5);
    let hits = c.query(&q).unwrap();
    assert_eq!(hits.iter().map(|h| h.key.as_str()).collect::<Vec<_>>(), ["k0100"], "only rows with an `e`");
    c.optimize(&OptimizeOptions::default()).unwrap();
    assert_eq!(c.query(&q).unwrap()[0].key, "k0100");
    c.change_field(FieldChange::Drop("v".into())).unwrap();
    assert!(c.query(&Query::vector(vec![0.0; 4]).field("v").k(1)).is_err());
    assert_eq!(c.query(&q).unwrap()[0].key, "k0100");
    drop(c);
    let c = Collection::open(dir.path(), &OpenOptions::writable()).unwrap();
    assert_eq!(c.query(&q).unwrap()[0].key, "k0100");
    assert_eq!(c.count(), 41);
}

#[test]
fn refused_changes_leave_the_collection_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let c = Collection::create(dir.path(), schema(), Default::default()).unwrap();
    c.insert((0..10).map(doc).collect()).unwrap();
    let generation = c.snapshot().generation();
    for bad in [
        FieldChange::Add(Field::scalar("pos", ScalarType::Bool).nullable(true)),
        FieldChange::Add(Field::scalar("z", ScalarType::Int32)),
        FieldChange::Widen { field: "x".into(), to: FieldType::Scalar(ScalarType::Int64) },
        FieldChange::Drop("nope".into()),
    ] {
        assert!(c.change_field(bad.clone()).is_err(), "{bad:?}");
    }
    assert_eq!(c.snapshot().generation(), generation, "refused before anything is flushed");
    assert_eq!(*c.schema(), schema());
    let ro = Collection::open(dir.path(), &OpenOptions::read_only()).unwrap();
    assert!(ro.change_field(FieldChange::Drop("x".into())).is_err());
}

/// A long default of an added field is kept once per segment, not copied into every row:
/// a 100 KB string default over 5,000 rows made a plain open hold 500 MB, and the next
/// change aborted allocating 800 MB. Reads, filters, full-text-free LIKE, a reopen, a
/// rewrite by optimize and a later drop all see the one value.
#[test]
fn a_long_default_is_held_once_however_many_rows_repeat_it() {
    let dir = tempfile::tempdir().unwrap();
    let c = Collection::create(dir.path(), schema(), Default::default()).unwrap();
    c.insert((0..2_000).map(doc).collect()).unwrap();
    c.flush().unwrap();
    let big: String = (0..20_000).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
    let tags: Vec<i64> = (0..1_000).collect();
    let before = c.memory().owned_segments;
    c.change_field(FieldChange::Add(Field::scalar("big", ScalarType::String).default_value(big.clone().into())))
        .unwrap();
    c.change_field(FieldChange::Add(Field::array("tags", ScalarType::Int64).default_value(tags.clone().into())))
        .unwrap();
    c.change_field(FieldChange::Add(Field::array("none", ScalarType::String).nullable(true))).unwrap();
    c.insert(vec![doc(5_000).set("big", "short").set("tags", Value::Array(vec![Value::Int64(7)]))]).unwrap();
    drop(c);

    let c = Collection::open(dir.path(), &OpenOptions::writable()).unwrap();
    // Per row, the two defaults would be 2,000 × (20,000 + 8,000) bytes = 56 MB.
    let held = c.memory().owned_segments - before;
    assert!(held < 64 << 10, "the added columns hold {held} bytes");
    let d = get(&c, "k1234");
    assert_eq!(d.get("big"), Some(&Value::String(big.clone())));
    assert_eq!(d.get("tags"), Some(&Value::Array(tags.iter().map(|&t| Value::Int64(t)).collect())));
    assert_eq!(d.get("none"), None, "null fields are left out of a fetched document");
    assert_eq!(keys(&c, "big LIKE 'abc%'").len(), 2_000);
    assert_eq!(keys(&c, "tags CONTAIN_ANY (999) AND array_length(tags) = 1000").len(), 2_000);
    assert_eq!(keys(&c, "big = 'short' AND tags CONTAIN_ALL (7)"), ["k5000"]);
    assert_eq!(keys(&c, "none IS NULL").len(), 2_001);

    c.change_field(FieldChange::Drop("tags".into())).unwrap();
    c.optimize(&OptimizeOptions::default()).unwrap();
    assert_eq!(c.memory().owned_segments, 0, "optimize stores every column");
    assert_eq!(get(&c, "k0007").get("big"), Some(&Value::String(big)));
    assert_eq!(keys(&c, "big LIKE 'abc%'").len(), 2_000);
}
