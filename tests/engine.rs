//! Engine behaviour through the public API: round trips, reopen, batches, bad input,
//! corruption, locking and snapshots.

use std::sync::Arc;

use xvec::f16;
use xvec::{
    Collection, Doc, DocError, Error, FieldKind, FieldLookupError, Metric, OpenOptions, Query, QueryError,
    StorageError, Value, VectorType,
};

use crate::util::{every_type_schema, random_vectors, simple_schema};

fn every_doc(i: usize, elem: VectorType) -> Doc {
    let v: Value = match elem {
        VectorType::Fp32 => vec![i as f32, -1.5, 0.25, 3.0].into(),
        VectorType::Fp16 => vec![f16::from_f32(i as f32), f16::from_f32(-1.5), f16::from_f32(0.25), f16::ONE].into(),
        VectorType::Int8 => vec![(i % 100) as i8, -128, 127, 3].into(),
        other => unimplemented!("documents with {} vectors", other.name()),
    };
    let mut d = Doc::new(format!("k{i:04}"))
        .set("s", format!("str-{i} ✓"))
        .set("b", i.is_multiple_of(2))
        .set("i64", -(i as i64) * 1_000_000_000_000)
        .set("u32", u32::MAX - i as u32)
        .set("f", i as f32 * 0.5)
        .set("d", i as f64 / 3.0);
    if !i.is_multiple_of(3) {
        d = d.set("i32", i as i32 - 7).set("u64", u64::MAX - i as u64).set("v", v);
    }
    d
}

fn check_every(coll: &Collection, n: usize, elem: VectorType) {
    assert_eq!(coll.count(), n as u64);
    let keys: Vec<String> = (0..n).map(|i| format!("k{i:04}")).collect();
    let refs: Vec<&str> = keys.iter().map(|k| k.as_str()).collect();
    let docs = coll.fetch(&refs, None).unwrap();
    for (i, d) in docs.into_iter().enumerate() {
        assert_eq!(d.unwrap(), every_doc(i, elem), "doc {i}");
    }
}

#[test]
fn every_type_round_trips_through_wal_flush_and_reopen() {
    for elem in [VectorType::Fp32, VectorType::Fp16, VectorType::Int8] {
        for mmap in [true, false] {
            let dir = tempfile::tempdir().unwrap();
            let coll =
                Collection::create(dir.path(), every_type_schema(elem, 4, Metric::L2), Default::default()).unwrap();
            let res = coll.insert((0..40).map(|i| every_doc(i, elem)).collect()).unwrap();
            assert!(res.iter().all(|r| r.is_ok()), "{res:?}");
            check_every(&coll, 40, elem);
            coll.close().unwrap();

            // From the WAL alone.
            let coll = Collection::open(dir.path(), &OpenOptions::writable().mmap(mmap)).unwrap();
            check_every(&coll, 40, elem);
            coll.flush().unwrap();
            coll.insert((40..50).map(|i| every_doc(i, elem)).collect()).unwrap();
            check_every(&coll, 50, elem);
            drop(coll);

            // Segment + WAL, read-only.
            let ro = Collection::open(dir.path(), &OpenOptions::read_only().mmap(mmap)).unwrap();
            check_every(&ro, 50, elem);
            assert!(matches!(ro.insert(vec![every_doc(99, elem)]), Err(Error::ReadOnly(_))));
        }
    }
}

#[test]
fn batches_report_per_item_and_modes_behave() {
    let dir = tempfile::tempdir().unwrap();
    let coll = Collection::create(dir.path(), simple_schema(2, Metric::L2), Default::default()).unwrap();
    let doc = |k: &str, n: i64| Doc::new(k).set("tag", "t").set("n", n).set("v", vec![n as f32, 0.0]);
    let res =
        coll.insert(vec![doc("a", 1), doc("b", 2), Doc::new("c").set("tag", "x"), doc("a", 3), doc("d", 4)]).unwrap();
    assert!(res[0].is_ok() && res[1].is_ok() && res[4].is_ok());
    assert!(matches!(&res[2], Err(DocError::NullNotAllowed { field, .. }) if field == "n"));
    assert!(matches!(&res[3], Err(DocError::DuplicateKey(k)) if k == "a"));
    assert_eq!(coll.count(), 3);

    // update: given fields only; missing key fails.
    let res = coll.update(vec![Doc::new("a").set("tag", "new"), Doc::new("zz").set("n", 1i64)]).unwrap();
    assert!(res[0].is_ok());
    assert!(matches!(&res[1], Err(DocError::NotFound(_))));
    let a = coll.fetch(&["a"], None).unwrap().remove(0).unwrap();
    assert_eq!(a.get("tag"), Some(&Value::String("new".into())));
    assert_eq!(a.get("n"), Some(&Value::Int64(1)));

    // upsert merges into existing, inserts new; works across a flush.
    coll.flush().unwrap();
    let res = coll.upsert(vec![Doc::new("b").set("n", 20i64), doc("e", 5)]).unwrap();
    assert!(res.iter().all(|r| r.is_ok()));
    let b = coll.fetch(&["b"], None).unwrap().remove(0).unwrap();
    assert_eq!(b.get("n"), Some(&Value::Int64(20)));
    assert_eq!(b.get("v"), Some(&Value::VectorFp32(vec![2.0, 0.0])));
    assert_eq!(coll.count(), 4);

    // delete by key and by filter.
    let res = coll.delete(&["a", "nope", "a"]).unwrap();
    assert!(res[0].is_ok() && res[1].is_err() && res[2].is_err());
    assert_eq!(coll.delete_where("n >= 5").unwrap(), 2);
    assert_eq!(coll.count(), 1);
    coll.flush().unwrap();
    drop(coll);
    let ro = Collection::open(dir.path(), &OpenOptions::read_only()).unwrap();
    assert_eq!(ro.count(), 1);
    assert!(ro.fetch(&["d"], None).unwrap()[0].is_some());
    assert!(ro.fetch(&["b"], None).unwrap()[0].is_none());
}

#[test]
fn bad_queries_get_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let coll = Collection::create(dir.path(), simple_schema(3, Metric::Cosine), Default::default()).unwrap();
    coll.insert(vec![Doc::new("a").set("tag", "t").set("n", 1i64).set("v", vec![1.0f32, 0.0, 0.0])]).unwrap();
    let err = |q: Query| coll.query(&q).unwrap_err();
    assert!(matches!(
        err(Query::vector(vec![1.0, 2.0])),
        Error::Query(QueryError::BadDimension { expected: 3, found: 2, .. })
    ));
    assert!(matches!(err(Query::vector(vec![1.0, f32::NAN, 0.0])), Error::Query(QueryError::NotFinite(1))));
    assert!(matches!(err(Query::vector(vec![1.0, 0.0, 0.0]).k(100_001)), Error::Query(QueryError::BadLimit(100_001))));
    assert!(matches!(err(Query::vector(vec![1.0, 0.0, 0.0]).k(0)), Error::Query(QueryError::BadLimit(0))));
    assert!(matches!(err(Query::key("zz")), Error::Query(QueryError::KeyNotFound(_))));
    assert!(matches!(
        err(Query::vector(vec![1.0, 0.0, 0.0]).field("tag")),
        Error::Query(QueryError::Field(FieldLookupError::NoSuchField { wanted: FieldKind::Vector, .. }))
    ));
    assert!(matches!(
        err(Query::vector(vec![1.0, 0.0, 0.0]).fields(["nope"])),
        Error::Query(QueryError::UnknownField(_))
    ));
    match err(Query::vector(vec![1.0, 0.0, 0.0]).filter("tag = ")) {
        Error::Filter(f) => assert_eq!((f.line, f.column), (1, 7)),
        other => panic!("{other:?}"),
    }
    assert_eq!(coll.query(&Query::vector(vec![1.0, 0.0, 0.0]).k(100_000)).unwrap().len(), 1);
}

#[test]
fn second_writer_is_refused_and_readers_coexist() {
    let dir = tempfile::tempdir().unwrap();
    let w = Collection::create(dir.path(), simple_schema(2, Metric::L2), Default::default()).unwrap();
    let e = Collection::open(dir.path(), &OpenOptions::writable()).unwrap_err();
    assert!(matches!(e, Error::Storage(StorageError::Locked { .. })), "{e}");
    assert!(e.to_string().contains("locked by another writer"));
    let r = Collection::open(dir.path(), &OpenOptions::read_only()).unwrap();
    assert_eq!(r.count(), 0);
    drop(w);
    Collection::open(dir.path(), &OpenOptions::writable()).unwrap();
}

#[test]
fn snapshots_are_consistent_while_the_writer_flushes() {
    let dir = tempfile::tempdir().unwrap();
    let w = Collection::create(dir.path(), simple_schema(4, Metric::L2), Default::default()).unwrap();
    let vs = random_vectors(1, 600, 4);
    let doc = |i: usize| Doc::new(format!("k{i}")).set("tag", "t").set("n", i as i64).set("v", vs[i].clone());
    w.insert((0..200).map(doc).collect()).unwrap();
    w.flush().unwrap();
    // A handle that does not follow stays as it opened (following ones: tests/follow.rs).
    let reader = Collection::open(dir.path(), &OpenOptions::read_only().follow(false)).unwrap();
    let pinned = w.snapshot();
    let q = Query::vector(vs[7].clone()).k(5);
    let before = pinned.query(&q).unwrap();
    std::thread::scope(|s| {
        s.spawn(|| {
            for round in 0..4 {
                w.insert((200 + round * 100..300 + round * 100).map(doc).collect()).unwrap();
                w.delete(&[&format!("k{}", round * 3)]).unwrap();
                w.flush().unwrap();
            }
        });
        for _ in 0..50 {
            assert_eq!(pinned.query(&q).unwrap(), before);
            assert_eq!(pinned.count(), 200);
            assert_eq!(reader.count(), 200);
        }
    });
    assert_eq!(w.count(), 600 - 4);
    let fresh = Collection::open(dir.path(), &OpenOptions::read_only()).unwrap();
    assert_eq!(fresh.count(), 600 - 4);
}

#[test]
fn queries_outlive_a_closed_handle() {
    let dir = tempfile::tempdir().unwrap();
    let w = Collection::create(dir.path(), simple_schema(8, Metric::Ip), Default::default()).unwrap();
    let vs = random_vectors(2, 2000, 8);
    w.insert(
        (0..2000)
            .map(|i| Doc::new(format!("k{i}")).set("tag", "t").set("n", i as i64).set("v", vs[i].clone()))
            .collect(),
    )
    .unwrap();
    w.flush().unwrap();
    drop(w);
    let coll = Collection::open(dir.path(), &OpenOptions::read_only()).unwrap();
    let snap: Arc<xvec::Snapshot> = coll.snapshot();
    let expected: Vec<_> = (0..20).map(|i| snap.query(&Query::vector(vs[i].clone()).k(10)).unwrap()).collect();
    let (tx, rx) = std::sync::mpsc::channel();
    let handles: Vec<_> = (0..2)
        .map(|t| {
            let snap = snap.clone();
            let vs = vs.clone();
            let expected = expected.clone();
            let tx = tx.clone();
            std::thread::spawn(move || {
                tx.send(()).unwrap();
                for round in 0..30 {
                    let i = (round + t) % 20;
                    assert_eq!(snap.query(&Query::vector(vs[i].clone()).k(10)).unwrap(), expected[i]);
                }
            })
        })
        .collect();
    rx.recv().unwrap();
    drop(snap);
    coll.close().unwrap();
    for h in handles {
        h.join().unwrap();
    }
}

/// Flips bytes in each kind of file and expects a clear `Corrupted` error, never a panic.
#[test]
fn corrupted_bytes_in_every_file_kind_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let w = Collection::create(dir.path(), every_type_schema(VectorType::Fp32, 4, Metric::Cosine), Default::default())
        .unwrap();
    w.insert((0..30).map(|i| every_doc(i, VectorType::Fp32)).collect()).unwrap();
    w.flush().unwrap();
    w.delete(&["k0001"]).unwrap();
    w.flush().unwrap();
    w.insert((30..35).map(|i| every_doc(i, VectorType::Fp32)).collect()).unwrap();
    drop(w);

    let files: Vec<String> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    for kind in ["MANIFEST-", "SEG-000001.xseg", ".del", "WAL-", "CURRENT"] {
        let name = files.iter().find(|f| f.contains(kind)).unwrap_or_else(|| panic!("no {kind} file in {files:?}"));
        let path = dir.path().join(name);
        let original = std::fs::read(&path).unwrap();
        let step = (original.len() / 97).max(1);
        let mut detected = 0;
        let mut tried = 0;
        for at in (0..original.len()).step_by(step) {
            let mut bad = original.clone();
            bad[at] ^= 0x55;
            std::fs::write(&path, &bad).unwrap();
            tried += 1;
            match Collection::open(dir.path(), &OpenOptions::read_only()) {
                Err(e) => {
                    detected += 1;
                    let msg = e.to_string();
                    assert!(msg.contains(name.as_str()) || msg.contains("CURRENT"), "{name} byte {at}: {msg}");
                }
                // A flip in a segment's data block opens degraded: the rows it covers are
                // left out and stats names them (a degraded read, not a dead collection).
                Ok(c) if kind == "SEG-000001.xseg" && !c.stats().degraded().is_empty() => {
                    detected += 1;
                    assert!(c.stats().degraded()[0].contains(name.as_str()), "{:?}", c.stats().degraded());
                    assert!(c.count() <= 34, "{name} byte {at}: no row appears from damage");
                }
                Ok(c) => {
                    // Only a WAL tail flip may pass (it reads as a torn last record).
                    assert!(kind == "WAL-", "{name} byte {at} went unnoticed");
                    assert!(c.count() >= 33);
                }
            }
        }
        std::fs::write(&path, &original).unwrap();
        assert!(detected * 10 >= tried * 8 || kind == "WAL-", "{name}: {detected}/{tried}");
        for cut in [0, 1, original.len() / 2, original.len() - 1] {
            std::fs::write(&path, &original[..cut]).unwrap();
            let r = Collection::open(dir.path(), &OpenOptions::read_only());
            if kind != "WAL-" {
                assert!(r.is_err(), "{name} cut at {cut} went unnoticed");
            }
        }
        std::fs::write(&path, &original).unwrap();
    }
    assert_eq!(Collection::open(dir.path(), &OpenOptions::read_only()).unwrap().count(), 34);
}

/// A memory budget opens without reading the vectors whole: a flipped vector byte that the
/// default open's checksum catches (the open is degraded: the block's rows are left out)
/// goes unread under a budget, and `verify` still finds it.
#[test]
fn a_memory_budget_opens_without_checksumming_the_vectors() {
    let dir = tempfile::tempdir().unwrap();
    let w = Collection::create(dir.path(), simple_schema(4, Metric::L2), Default::default()).unwrap();
    let marker = [1234.5f32, 1234.5, 1234.5, 1234.5];
    w.insert(
        (0..50)
            .map(|i| {
                Doc::new(format!("k{i}"))
                    .set("tag", "t")
                    .set("n", i as i64)
                    .set("v", if i == 7 { marker.to_vec() } else { vec![i as f32; 4] })
            })
            .collect(),
    )
    .unwrap();
    w.flush().unwrap();
    drop(w);
    let seg = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "xseg"))
        .unwrap_or_else(|| {
            panic!(
                "no segment in {:?}",
                std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect::<Vec<_>>()
            )
        });
    let mut bytes = std::fs::read(&seg).unwrap();
    let needle: Vec<u8> = marker.iter().flat_map(|x| x.to_le_bytes()).collect();
    let at = bytes.windows(needle.len()).position(|w| w == needle).expect("the marker row's vector is in the segment");
    bytes[at + 1] ^= 0x40;
    std::fs::write(&seg, &bytes).unwrap();

    let checked = Collection::open(dir.path(), &OpenOptions::read_only()).unwrap();
    let degraded = checked.stats().degraded();
    assert!(degraded.len() == 1 && degraded[0].contains(seg.file_name().unwrap().to_str().unwrap()), "{degraded:?}");
    assert!(checked.count() < 50);
    drop(checked);
    let budgeted = Collection::open(dir.path(), &OpenOptions::read_only().memory_budget(1 << 20)).unwrap();
    assert_eq!(budgeted.count(), 50);
    assert!(budgeted.stats().degraded().is_empty(), "the vectors were not read at open");
    let got = budgeted.fetch(&["k3"], None).unwrap().remove(0).expect("k3 is live");
    assert_eq!(got.get("v"), Some(&Value::from(vec![3.0f32; 4])));
    drop(budgeted);
    let report = xvec::verify::run(dir.path(), &xvec::verify::VerifyOptions::default()).unwrap();
    assert!(!report.is_clean(), "verify finds the flipped vector byte: {report:?}");
}

/// An in-memory index under a budget smaller than it wants: `stats` says what searches
/// want in memory (the graph and the vectors it reads) and how far that is over the budget;
/// queries still answer, exactly as without the budget.
#[test]
fn stats_say_how_far_an_in_memory_collection_is_over_its_memory_budget() {
    let dir = tempfile::tempdir().unwrap();
    let hnsw = xvec::IndexParams::Hnsw(xvec::HnswParams::default().m(8));
    let field = xvec::Field::vector("v", VectorType::Fp32, 8, Metric::L2).index(hnsw);
    let w =
        Collection::create(dir.path(), xvec::Schema::builder("b").field(field).build().unwrap(), Default::default())
            .unwrap();
    let row = |i: usize| (0..8).map(|j| ((i * 31 + j * 7) % 97) as f32).collect::<Vec<f32>>();
    w.insert((0..400).map(|i| Doc::new(format!("k{i}")).set("v", row(i))).collect()).unwrap();
    w.optimize(&Default::default()).unwrap();
    drop(w);
    let open = |budget: u64| Collection::open(dir.path(), &OpenOptions::read_only().memory_budget(budget)).unwrap();
    let (tight, roomy) = (open(4096), open(1 << 30));
    let s = tight.stats();
    let graph = tight.memory().graph;
    assert!(graph > 0 && s.memory_wanted >= 400 * 8 * 4 + graph, "{} wanted, graph {graph}", s.memory_wanted);
    assert_eq!(s.over_budget(), Some(s.memory_wanted - 4096));
    assert_eq!((roomy.stats().memory_wanted, roomy.stats().over_budget()), (s.memory_wanted, None));
    assert_eq!(Collection::open(dir.path(), &OpenOptions::read_only()).unwrap().stats().over_budget(), None);
    for i in (0..400).step_by(23) {
        let q = Query::vector(row(i)).k(1);
        assert_eq!(tight.query(&q).unwrap()[0].key, roomy.query(&q).unwrap()[0].key, "row {i}");
    }
}

#[test]
fn not_a_collection_and_existing_collection_errors() {
    let dir = tempfile::tempdir().unwrap();
    let e = Collection::open(dir.path(), &OpenOptions::read_only()).unwrap_err();
    assert!(matches!(e, Error::Storage(StorageError::NotACollection { .. })), "{e}");
    Collection::create(dir.path(), simple_schema(2, Metric::L2), Default::default()).unwrap();
    let e = Collection::create(dir.path(), simple_schema(2, Metric::L2), Default::default()).unwrap_err();
    assert!(e.to_string().contains("already exists") || e.to_string().contains("locked"), "{e}");
}

/// A path that cannot be a collection gets its own error, and nothing is written there.
#[test]
fn paths_that_are_no_collection_fail_before_touching_anything() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("items.jsonl");
    std::fs::write(&file, "{}\n").unwrap();
    for write in [false, true] {
        let options = if write { OpenOptions::writable() } else { OpenOptions::read_only() };
        let e = Collection::open(&file, &options).unwrap_err();
        assert!(matches!(&e, Error::Storage(StorageError::NotADirectory { path }) if path == &file), "{e}");
        assert!(e.to_string().ends_with("items.jsonl: a file, not a collection directory"), "{e}");
        let e = Collection::open(file.join("sub"), &options).unwrap_err();
        assert!(matches!(&e, Error::Storage(StorageError::NotADirectory { path }) if path == &file), "{e}");
        let missing = dir.path().join("missing");
        let e = Collection::open(&missing, &options).unwrap_err();
        assert!(matches!(e, Error::Storage(StorageError::NoDirectory { .. })), "{e}");
        assert!(!missing.exists());
        let e = Collection::open(dir.path(), &options).unwrap_err();
        assert!(matches!(e, Error::Storage(StorageError::NotACollection { .. })), "{e}");
        assert!(!dir.path().join("LOCK").exists(), "a failed open left a LOCK file");
    }
    let e = Collection::create(&file, simple_schema(2, Metric::L2), Default::default()).unwrap_err();
    assert!(matches!(e, Error::Storage(StorageError::NotADirectory { .. })), "{e}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "{}\n");
}

/// A writable open waits for the writer lock as long as asked, then names the wait.
#[test]
fn writable_open_waits_for_the_lock_up_to_its_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let first = Collection::create(dir.path(), simple_schema(2, Metric::L2), Default::default()).unwrap();
    let wait = OpenOptions::writable().lock_timeout(std::time::Duration::from_millis(250));
    let started = std::time::Instant::now();
    let e = Collection::open(dir.path(), &wait).unwrap_err();
    assert!(started.elapsed() >= std::time::Duration::from_millis(250));
    assert!(
        matches!(e, Error::Storage(StorageError::Locked { .. })) && e.to_string().ends_with("(waited 250 ms for it)"),
        "{e}"
    );
    std::thread::scope(|s| {
        s.spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(100));
            first.close().unwrap();
        });
        let long = OpenOptions::writable().lock_timeout(std::time::Duration::from_secs(20));
        Collection::open(dir.path(), &long).unwrap();
    });
}

/// `create` publishes CURRENT last; a create killed before that left a directory that
/// every later `create` refused ("WAL-000001.log: File exists"). Its leftovers are now
/// removed, and anything else is refused by name.
#[test]
fn create_reuses_what_an_unfinished_create_left_and_refuses_other_files() {
    let fresh = tempfile::tempdir().unwrap();
    Collection::create(fresh.path(), simple_schema(3, Metric::L2), Default::default()).unwrap().close().unwrap();
    let leftovers = |dir: &std::path::Path, with_manifest: bool| {
        std::fs::copy(fresh.path().join("WAL-000001.log"), dir.join("WAL-000001.log")).unwrap();
        std::fs::copy(fresh.path().join("LOCK"), dir.join("LOCK")).unwrap();
        if with_manifest {
            std::fs::copy(fresh.path().join("MANIFEST-000001"), dir.join("MANIFEST-000001")).unwrap();
        }
        std::fs::write(dir.join("CURRENT.tmp"), "MANIFEST-0").unwrap();
        std::fs::write(dir.join("MANIFEST-000001.tmp"), b"torn").unwrap();
        std::fs::copy(fresh.path().join("WAL.sync"), dir.join("WAL.sync")).unwrap();
    };
    for with_manifest in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        leftovers(dir.path(), with_manifest);
        let coll = Collection::create(dir.path(), simple_schema(3, Metric::L2), Default::default()).unwrap();
        coll.insert(vec![Doc::new("a").set("tag", "t").set("n", 1i64).set("v", vec![1.0f32, 0.0, 0.0])]).unwrap();
        coll.close().unwrap();
        let coll = Collection::open(dir.path(), &OpenOptions::read_only()).unwrap();
        assert_eq!(coll.count(), 1);
        let mut names: Vec<String> =
            std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        names.sort();
        assert_eq!(names, ["CURRENT", "LOCK", "MANIFEST-000001", "WAL-000001.log", "WAL.sync"]);
    }
    // Files no unfinished create leaves: refused, named, and left alone. A WAL with
    // records is not a create's (it may hold acknowledged writes).
    let dir = tempfile::tempdir().unwrap();
    leftovers(dir.path(), true);
    std::fs::write(dir.path().join("notes.txt"), "mine").unwrap();
    std::fs::write(dir.path().join("SEG-000001.xseg"), "x").unwrap();
    std::fs::write(dir.path().join("WAL-000002.log"), "x").unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let mut wal = std::fs::read(dir.path().join("WAL-000001.log")).unwrap();
    wal.extend_from_slice(&[0; 40]);
    std::fs::write(dir.path().join("WAL-000001.log"), &wal).unwrap();
    let e = Collection::create(dir.path(), simple_schema(3, Metric::L2), Default::default()).unwrap_err();
    match &e {
        Error::Storage(StorageError::NotEmpty { files, .. }) => {
            assert_eq!(files, &["SEG-000001.xseg", "WAL-000001.log", "WAL-000002.log", "notes.txt", "sub"]);
        }
        other => panic!("expected NotEmpty, got {other:?}"),
    }
    assert!(e.to_string().contains("remove these or pick another directory: SEG-000001.xseg, WAL-000001.log"), "{e}");
    assert!(dir.path().join("CURRENT.tmp").exists() && dir.path().join("MANIFEST-000001").exists());
    assert_eq!(std::fs::read(dir.path().join("WAL-000001.log")).unwrap(), wal);
}

/// `$name` placeholders bind typed values in every filter path: query, keys and delete.
#[test]
fn filter_parameters_bind_by_value() {
    use xvec::{FilterErrorKind, Params};
    let dir = tempfile::tempdir().unwrap();
    let coll = Collection::create(dir.path(), simple_schema(2, Metric::L2), Default::default()).unwrap();
    let doc = |k: &str, tag: &str, n: i64| Doc::new(k).set("tag", tag).set("n", n).set("v", vec![n as f32, 0.0]);
    coll.insert(vec![doc("a", "fruit", 1), doc("b", "veg", 2), doc("c", "$cat", 3), doc("d", "fruit", 4)]).unwrap();
    let snap = coll.snapshot();
    let keys = |f: &str, p: &Params| snap.keys_where_with(Some(f), p).unwrap();
    let p = Params::new().set("cat", "fruit").set("n", 2).set("ids", vec![1, 3, 99]).set("big", 2.5);
    assert_eq!(keys("tag = $cat", &p), ["a", "d"]);
    assert_eq!(keys("tag = '$cat'", &p), ["c"], "a quoted $name is literal text");
    assert_eq!(keys("n > $n AND tag != $cat", &p), ["c"]);
    assert_eq!(keys("n IN $ids", &p), ["a", "c"]);
    assert_eq!(keys("n NOT IN ($ids, $n)", &p), ["d"]);
    assert_eq!(keys("n < $big", &p), ["a", "b"]);
    assert_eq!(keys("n IN $none", &Params::new().set("none", Vec::<i64>::new())), Vec::<String>::new());
    assert_eq!(keys("tag LIKE $p", &Params::new().set("p", "f%")), ["a", "d"]);
    // An injection attempt is one string value and matches nothing.
    for evil in ["x' OR 1=1 OR tag = 'fruit", "'; drop", "fruit' OR 'a' = 'a"] {
        assert_eq!(keys("tag = $cat", &Params::new().set("cat", evil)), Vec::<String>::new(), "{evil}");
    }
    let hits = coll.query(&Query::vector(vec![0.0, 0.0]).k(4).filter("tag = $cat").params(p.clone())).unwrap();
    assert_eq!(hits.iter().map(|h| h.key.as_str()).collect::<Vec<_>>(), ["a", "d"]);
    match coll.query(&Query::vector(vec![0.0, 0.0]).filter("n = 1 OR tag = $nope")).unwrap_err() {
        Error::Filter(f) => {
            assert_eq!((f.kind, f.column, f.len), (FilterErrorKind::UnboundParam("nope".into()), 16, 5));
            assert_eq!(f.message, "parameter `$nope` is not bound");
        }
        other => panic!("{other:?}"),
    }
    match snap.keys_where_with(Some("n = $cat"), &p).unwrap_err() {
        Error::Filter(f) => {
            assert_eq!(f.message, "field `n` is int64 but `$cat` is a string ('fruit'); expected a number")
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(coll.delete_where_with("tag = $cat", &p).unwrap(), 2);
    assert_eq!(coll.count(), 2);
}

/// A schema with an HNSW-indexed vector field, so optimize writes index files.
fn indexed_schema() -> xvec::Schema {
    xvec::Schema::from_json(
        r#"{"name":"ix","fields":[{"name":"g","type":"int32"},
            {"name":"v","type":"vector_fp32","dim":2,"metric":"l2","index":{"type":"hnsw","m":8}}]}"#,
    )
    .unwrap()
}

/// The files of a collection directory whose names end in `ext`, sorted.
fn files_ending(dir: &std::path::Path, ext: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(ext))
        .collect();
    v.sort();
    v
}

fn optimize_once(coll: &Collection) -> xvec::OptimizeReport {
    coll.optimize(&xvec::OptimizeOptions::default().concurrency(1)).unwrap()
}

fn assert_verifies_clean(dir: &std::path::Path) {
    use xvec::verify::{self, Severity, VerifyOptions};
    let r = verify::run(dir, &VerifyOptions::default().deep(true)).unwrap();
    assert!(r.is_clean() && r.count(Severity::Warning) == 0, "{:?}", r.findings);
}

/// A segment whose rows are all deleted is dropped by optimize with its delete file and its
/// index, also when it is the only one: the collection ends with no segments at all.
#[test]
fn optimize_drops_the_only_segment_once_all_its_rows_are_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let coll = Collection::create(dir.path(), indexed_schema(), Default::default()).unwrap();
    let doc = |k: &str, x: f32| Doc::new(k).set("g", 0).set("v", vec![x, 0.0]);
    coll.insert(vec![doc("a", 1.0), doc("b", 2.0)]).unwrap();
    coll.flush().unwrap();
    coll.delete(&["a"]).unwrap();
    let r = optimize_once(&coll);
    assert_eq!((r.rows, r.dropped, r.segments_after, r.indexes_built), (1, 1, 1, 1), "{r:?}");
    coll.delete(&["b"]).unwrap();
    coll.flush().unwrap();
    assert_eq!(coll.stats().segments.iter().map(|s| (s.rows, s.deleted)).collect::<Vec<_>>(), [(1, 1)]);
    assert_eq!(files_ending(dir.path(), ".del").len(), 1);

    let r = optimize_once(&coll);
    assert!(r.changed, "{r:?}");
    assert_eq!((r.rows, r.dropped, r.segments_before, r.segments_after, r.indexes_built), (0, 1, 1, 0, 0), "{r:?}");
    let stats = coll.stats();
    assert!(stats.segments.is_empty(), "{:?}", stats.segments);
    assert_eq!((stats.live_docs, stats.deleted_docs), (0, 0));
    for ext in [".xseg", ".del", ".idx"] {
        assert_eq!(files_ending(dir.path(), ext), Vec::<String>::new(), "{ext}");
    }
    assert!(coll.query(&Query::vector(vec![1.0, 0.0]).k(3)).unwrap().is_empty());
    assert!(!optimize_once(&coll).changed, "an empty collection is already compact");
    coll.close().unwrap();
    assert_verifies_clean(dir.path());
    let coll = Collection::open(dir.path(), &OpenOptions::writable()).unwrap();
    assert_eq!((coll.count(), coll.stats().segments.len()), (0, 0));
}

/// Several all-deleted segments are dropped in one optimize, while a whole segment between
/// them is kept as it is (same file, same index); then all-deleted segments with nothing
/// kept leave none.
#[test]
fn optimize_drops_every_all_deleted_segment_and_keeps_the_whole_ones() {
    let dir = tempfile::tempdir().unwrap();
    let options = xvec::CollectionOptions::default().max_docs_per_segment(4);
    let coll = Collection::create(dir.path(), indexed_schema(), options).unwrap();
    let keys = |p: &str| (0..4).map(|i| format!("{p}{i}")).collect::<Vec<_>>();
    let segment_of = |p: &str, x: f32| {
        let docs = keys(p).into_iter().enumerate().map(|(i, k)| Doc::new(k).set("g", 0).set("v", vec![x, i as f32]));
        coll.insert(docs.collect()).unwrap();
        coll.flush().unwrap();
    };
    let delete = |p: &str| {
        let keys = keys(p);
        coll.delete(&keys.iter().map(String::as_str).collect::<Vec<_>>()).unwrap();
    };
    segment_of("a", 0.0);
    segment_of("b", 10.0);
    segment_of("c", 20.0);
    let r = optimize_once(&coll);
    assert_eq!((r.segments_after, r.indexes_built, r.dropped), (3, 3, 0), "{r:?}");
    let kept = std::fs::read(dir.path().join("SEG-000002.xseg")).unwrap();
    delete("a");
    delete("c");
    coll.flush().unwrap();
    assert_eq!(files_ending(dir.path(), ".del").len(), 2);
    let rows = |c: &Collection| c.stats().segments.iter().map(|s| (s.rows, s.deleted)).collect::<Vec<_>>();
    assert_eq!(rows(&coll), [(4, 4), (4, 0), (4, 4)]);

    let r = optimize_once(&coll);
    assert!(r.changed, "{r:?}");
    assert_eq!((r.rows, r.dropped, r.segments_before, r.segments_after, r.indexes_built), (4, 8, 3, 1, 0), "{r:?}");
    assert_eq!(rows(&coll), [(4, 0)]);
    assert_eq!(files_ending(dir.path(), ".xseg"), ["SEG-000002.xseg"]);
    assert_eq!(std::fs::read(dir.path().join("SEG-000002.xseg")).unwrap(), kept, "a kept segment is not rewritten");
    assert_eq!(files_ending(dir.path(), ".idx"), ["SEG-000002-f001-vec.idx"]);
    assert_eq!(files_ending(dir.path(), ".del"), Vec::<String>::new());
    let hits = coll.query(&Query::vector(vec![0.0, 0.0]).k(10)).unwrap();
    assert_eq!(hits.iter().map(|h| h.key.as_str()).collect::<Vec<_>>(), ["b0", "b1", "b2", "b3"]);

    segment_of("d", 30.0);
    delete("b");
    delete("d");
    assert_eq!(rows(&coll), [(4, 4), (4, 4)]);
    let r = optimize_once(&coll);
    assert_eq!((r.rows, r.dropped, r.segments_before, r.segments_after), (0, 8, 2, 0), "{r:?}");
    assert!(coll.stats().segments.is_empty());
    for ext in [".xseg", ".del", ".idx"] {
        assert_eq!(files_ending(dir.path(), ext), Vec::<String>::new(), "{ext}");
    }
    coll.close().unwrap();
    assert_verifies_clean(dir.path());
}
