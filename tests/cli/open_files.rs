//! File descriptors. A mapped segment or index file used to keep its descriptor open for
//! the life of the handle: a collection with a thousand indexed fields held 7,000 after
//! seven segments, past the usual `ulimit -n` of 1,024, and neither `count` nor the
//! `optimize` that would compact it could run. A mapping now closes its file once
//! mapped, and where the limit is still hit the error says which limit and how to raise it.

use std::path::Path;

use xvec::{Collection, Doc, Field, Metric, ScalarIndexKind, ScalarType, Schema, VectorType};

use crate::harness::xvec;

const FIELDS: usize = 60;
const SEGMENTS: usize = 3;

/// `SEGMENTS` segments, each with an inverted index file for each of `FIELDS` fields.
fn many_files(dir: &Path) {
    let mut b = Schema::builder("files").field(Field::vector("v", VectorType::Fp32, 4, Metric::L2));
    for f in 0..FIELDS {
        b = b.field(Field::scalar(format!("f{f}"), ScalarType::Int32).scalar_index(ScalarIndexKind::Inverted));
    }
    let c = Collection::create(dir, b.build().unwrap(), Default::default()).unwrap();
    for s in 0..SEGMENTS {
        let docs = (0..10).map(|i| {
            let row = s * 10 + i;
            (0..FIELDS).fold(Doc::new(format!("k{row}")).set("v", vec![row as f32, 0.0, 1.0, 2.0]), |d, f| {
                d.set(format!("f{f}"), (row % 7) as i32 + f as i32)
            })
        });
        c.insert(docs.collect()).unwrap();
        c.flush().unwrap();
    }
    c.close().unwrap();
    let idx =
        std::fs::read_dir(dir).unwrap().filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "idx"));
    assert!(idx.count() >= FIELDS * SEGMENTS, "each segment has an index file per field");
}

#[test]
fn a_collection_of_many_index_files_opens_under_a_small_ulimit() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c");
    many_files(&dir);
    let d = dir.to_str().unwrap();
    // 180 index files and 3 segments, 64 descriptors.
    let out = xvec(&["count", d, "--filter", "f3 = 5"]).open_files(64).run();
    out.code(0);
    assert_eq!(out.stdout.lines().last(), Some("4"), "{out}");
    xvec(&["verify", d]).open_files(64).run().code(0);
    xvec(&["optimize", d]).open_files(64).run().code(0);
    let out = xvec(&["count", d]).open_files(64).run();
    out.code(0);
    assert_eq!(out.stdout.lines().last(), Some("30"), "{out}");
}

#[test]
fn running_out_of_descriptors_names_the_limit_and_loses_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c");
    many_files(&dir);
    let d = dir.to_str().unwrap();
    // Room for the loader, the lock and the WAL, not for a merge's new files.
    let out = xvec(&["optimize", d]).open_files(5).run();
    out.code(1);
    assert!(out.stderr.contains("Too many open files") && out.stderr.contains("ulimit -n"), "{out}");
    assert!(out.stderr.contains("(now 5)"), "{out}");
    xvec(&["verify", d]).run().code(0);
    let out = xvec(&["count", d]).run();
    assert_eq!(out.stdout.lines().last(), Some("30"), "{out}");
}
