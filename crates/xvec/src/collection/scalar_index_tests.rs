//! Scalar indexes in a collection: built beside every segment a flush or optimize writes,
//! listed by the manifest, opened again, and answering filters exactly as column scans do.

use crate::schema::{Field, Metric, ScalarIndexKind, ScalarType, Schema, VectorType};
use crate::{Collection, Doc, OpenOptions, OptimizeOptions, Query};

fn schema(indexed: bool) -> Schema {
    let with = |f: Field, kinds: &[ScalarIndexKind]| {
        if indexed { kinds.iter().fold(f, |f, &k| f.scalar_index(k)) } else { f }
    };
    use ScalarIndexKind::{Inverted, Range};
    Schema::builder("s")
        .field(with(Field::scalar("pos", ScalarType::String), &[Inverted]))
        .field(with(Field::scalar("n", ScalarType::Int32).nullable(true), &[Inverted, Range]))
        .field(with(Field::scalar("x", ScalarType::Double), &[Range]))
        .field(with(Field::scalar("flag", ScalarType::Bool), &[Inverted]))
        .field(Field::vector("v", VectorType::Fp32, 4, Metric::L2))
        .build()
        .unwrap()
}

fn doc(i: usize) -> Doc {
    let pos = ["n", "v", "a", "r", "noun.animal"][i % 5];
    let mut d = Doc::new(format!("k{i:05}"))
        .set("pos", pos)
        .set("x", (i as f64 * 0.37).sin())
        .set("flag", i.is_multiple_of(7))
        .set("v", vec![i as f32, (i % 13) as f32, 1.0, (i % 3) as f32]);
    if !i.is_multiple_of(4) {
        d = d.set("n", (i % 23) as i32 - 5);
    }
    d
}

const FILTERS: [&str; 9] = [
    "pos = 'r'",
    "pos IN ('a', 'noun.animal') AND n >= 3",
    "pos LIKE 'noun%' OR flag = TRUE",
    "n BETWEEN_PLACEHOLDER",
    "x > 0.5 AND NOT (pos = 'v')",
    "n IS NULL AND x < -0.9",
    "NOT (n IN (1, 2, 3)) AND pos != 'n'",
    "flag = FALSE AND n < 0",
    "pos LIKE '%n%' AND x >= 0",
];

fn filters() -> Vec<String> {
    FILTERS.iter().map(|f| f.replace("BETWEEN_PLACEHOLDER", ">= -2 AND n <= 4")).collect()
}

fn keys(c: &Collection, filter: &str) -> Vec<String> {
    let mut k = c.snapshot().keys_where(Some(filter)).unwrap();
    k.sort();
    k
}

#[test]
fn indexes_are_built_listed_reopened_and_agree_with_scans() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let indexed = Collection::create(a.path(), schema(true), Default::default()).unwrap();
    let plain = Collection::create(b.path(), schema(false), Default::default()).unwrap();
    for c in [&indexed, &plain] {
        c.insert((0..3000).map(doc).collect()).unwrap();
        c.flush().unwrap();
        c.insert((3000..4500).map(doc).collect()).unwrap();
        c.delete(&["k00007", "k03001", "k00100"]).unwrap();
    }
    let files = |c: &Collection| -> usize { c.snapshot().segments.iter().map(|s| s.index_files.len()).sum() };
    // pos, n twice, x, flag: five files for the one flushed segment.
    assert_eq!(files(&indexed), 5);
    assert_eq!(files(&plain), 0);
    assert!(a.path().join("SEG-000001-f001-rng.idx").exists());
    let same = |indexed: &Collection, plain: &Collection, when: &str| {
        for f in filters() {
            assert_eq!(keys(indexed, &f), keys(plain, &f), "{f} {when}");
            let q = Query::vector(vec![10.0, 3.0, 1.0, 1.0]).k(7).filter(f.clone());
            let hits = |c: &Collection| c.query(&q).unwrap().into_iter().map(|h| h.key).collect::<Vec<_>>();
            assert_eq!(hits(indexed), hits(plain), "{f} {when}");
        }
    };
    same(&indexed, &plain, "after a flush");
    for c in [&indexed, &plain] {
        c.flush().unwrap();
        c.optimize(&OptimizeOptions::default()).unwrap();
    }
    assert_eq!(indexed.snapshot().segments.len(), 1);
    assert_eq!(files(&indexed), 5);
    same(&indexed, &plain, "after optimize");
    drop(indexed);
    let reopened = Collection::open(a.path(), &OpenOptions::default()).unwrap();
    assert_eq!(reopened.snapshot().segments[0].scalar[0].inverted.as_ref().map(|i| i.entries()), Some(5));
    same(&reopened, &plain, "reopened");
    // Superseded index files go with their segments.
    let idx: Vec<String> = std::fs::read_dir(a.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".idx"))
        .collect();
    assert_eq!(idx.len(), 5, "{idx:?}");
}

#[test]
fn added_and_dropped_indexes_are_one_publish_each_and_readers_follow() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let coll = Collection::create(a.path(), schema(false), Default::default()).unwrap();
    let plain = Collection::create(b.path(), schema(false), Default::default()).unwrap();
    for c in [&coll, &plain] {
        c.insert((0..2000).map(doc).collect()).unwrap();
        c.flush().unwrap();
        c.insert((2000..3500).map(doc).collect()).unwrap();
        c.flush().unwrap();
        c.insert((3500..3600).map(doc).collect()).unwrap();
    }
    let reader = Collection::open(a.path(), &OpenOptions::default().follow(false)).unwrap();
    let generation = coll.snapshot().generation();
    coll.add_scalar_index("pos", ScalarIndexKind::Inverted).unwrap();
    coll.add_scalar_index("n", ScalarIndexKind::Range).unwrap();
    assert_eq!(coll.snapshot().generation(), generation + 2);
    assert!(coll.schema().field(1).has_scalar_index(ScalarIndexKind::Range));
    let err = coll.add_scalar_index("n", ScalarIndexKind::Range).unwrap_err().to_string();
    assert_eq!(err, "field `n` already has a range index");
    let err = coll.add_scalar_index("pos", ScalarIndexKind::Range).unwrap_err().to_string();
    assert_eq!(err, "field `pos`: index: a range index needs a numeric scalar field, not string");
    assert!(coll.add_scalar_index("nope", ScalarIndexKind::Inverted).is_err());
    for s in &coll.snapshot().segments {
        assert_eq!(s.index_files.len(), 2, "every segment is indexed by the publish");
    }
    for f in filters() {
        assert_eq!(keys(&coll, &f), keys(&plain, &f), "{f}");
    }
    // The reader keeps the schema of its snapshot until it refreshes.
    assert!(!reader.schema().field(0).has_scalar_index(ScalarIndexKind::Inverted));
    assert_eq!(keys(&reader, "pos = 'r'"), keys(&plain, "pos = 'r'"));
    reader.refresh().unwrap();
    assert!(reader.schema().field(0).has_scalar_index(ScalarIndexKind::Inverted));
    assert_eq!(reader.snapshot().segments[0].scalar[0].inverted.as_ref().map(|i| i.entries()), Some(5));
    // The next flush indexes its segment under the new schema.
    coll.flush().unwrap();
    assert_eq!(coll.snapshot().segments.last().unwrap().index_files.len(), 2);
    coll.drop_scalar_index("pos", ScalarIndexKind::Inverted).unwrap();
    assert_eq!(
        coll.drop_scalar_index("pos", ScalarIndexKind::Inverted).unwrap_err().to_string(),
        "field `pos` has no inverted index"
    );
    drop(reader);
    let inv = |dir: &std::path::Path| {
        std::fs::read_dir(dir)
            .unwrap()
            .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().ends_with("-inv.idx"))
            .count()
    };
    assert_eq!(inv(a.path()), 0, "dropped index files are removed");
    drop(coll);
    let reopened = Collection::open(a.path(), &OpenOptions::default()).unwrap();
    let schema = reopened.schema();
    assert!(!schema.field(0).has_scalar_index(ScalarIndexKind::Inverted));
    assert!(schema.field(1).has_scalar_index(ScalarIndexKind::Range));
    for f in filters() {
        assert_eq!(keys(&reopened, &f), keys(&plain, &f), "{f} reopened");
    }
}
