//! Issue 41: one flipped byte in one block of a segment made `query`, `count` and even
//! `fetch` of unaffected keys fail with `corrupted at offset …` until repair ran. Now the
//! rows of the damaged block are left out: every query, count and fetch that does not
//! touch them answers as before the damage (answers saved then), a fetch of one of them
//! fails naming it and `xvec repair`, stats say how many rows are unreadable, a writable
//! open works and optimize refuses to rewrite the segment.

use std::collections::BTreeSet;
use std::path::Path;

use crate::storage::FileKind;
use crate::storage::container::{self, RawSection};
use crate::storage::segment::{NO_FIELD, SectionKind};
use crate::testutil::{copy_dir, random_vectors};
use crate::{Collection, Doc, Error, Field, Metric, OpenOptions, Query, ScalarType, Schema, StorageError, VectorType};

/// 3,000 rows of 64-d fp32 in the damaged segment (256 bytes a row: 16 to a block), and
/// 200 more in a second one that stays sound.
const ROWS: usize = 3_000;
const DIM: usize = 64;

fn key(i: usize) -> String {
    format!("key-{i:05}")
}

fn docs(range: std::ops::Range<usize>) -> Vec<Doc> {
    let vs = random_vectors(41, range.end, DIM);
    range
        .map(|i| {
            let d = Doc::new(key(i)).set("tag", format!("tag number {}", i % 7)).set("v", vs[i].clone());
            if i % 5 == 0 { d } else { d.set("n", i as i64) }
        })
        .collect()
}

/// What the test asks, and the answers.
#[derive(Debug, PartialEq)]
struct Answers {
    count: u64,
    filtered: u64,
    /// Keys of each query's top 10, in order.
    hits: Vec<Vec<String>>,
    /// Each key's document as fetched (as JSON text).
    docs: Vec<String>,
}

fn queries() -> Vec<Vec<f32>> {
    random_vectors(7, 12, DIM)
}

fn doc_text(c: &Collection, k: &str) -> Result<String, Error> {
    let got = c.fetch(&[k], None)?;
    Ok(format!("{:?}", got[0]))
}

fn ask(c: &Collection) -> Answers {
    let hits = queries()
        .into_iter()
        .map(|q| c.query(&Query::vector(q).k(10)).unwrap().into_iter().map(|h| h.key).collect())
        .collect();
    Answers {
        count: c.count(),
        filtered: c.count_where(Some("n > 1000 AND tag = 'tag number 3'"), &crate::Params::new()).unwrap(),
        hits,
        docs: (0..ROWS + 200).map(|i| doc_text(c, &key(i)).unwrap()).collect(),
    }
}

#[test]
fn a_damaged_block_costs_its_rows_and_nothing_else() {
    let tmp = tempfile::tempdir().unwrap();
    let pristine = tmp.path().join("pristine");
    let schema = Schema::builder("degraded")
        .field(Field::scalar("tag", ScalarType::String))
        .field(Field::scalar("n", ScalarType::Int64).nullable(true))
        .field(Field::vector("v", VectorType::Fp32, DIM as u32, Metric::L2))
        .build()
        .unwrap();
    let c = Collection::create(&pristine, schema, Default::default()).unwrap();
    c.insert(docs(0..ROWS)).unwrap();
    c.flush().unwrap();
    c.insert(docs(ROWS..ROWS + 200)).unwrap();
    c.flush().unwrap();
    let before = ask(&c);
    let schema = c.schema();
    c.close().unwrap();
    let seg = "SEG-000001.xseg";
    let original = std::fs::read(pristine.join(seg)).unwrap();
    let (_, table) = container::read(Path::new(seg), &original, FileKind::Segment, |_| true).unwrap();
    let find = |kind: SectionKind, field: u16| -> RawSection {
        *table.iter().find(|s| s.kind == kind as u16 && s.field == field).unwrap()
    };
    let fields = crate::storage::segment::layout::Layout::of(&schema);
    let tag = |name: &str| fields.fields[schema.index_of(name).unwrap()].id;
    // Each block kind of the segment: (section, the block hit, rows that may be lost).
    let cases = [
        (find(SectionKind::Vectors, tag("v")), 5),
        (find(SectionKind::KeyOffsets, NO_FIELD), 1),
        (find(SectionKind::KeyBytes, NO_FIELD), 1),
        (find(SectionKind::KeyOrder, NO_FIELD), 0),
        (find(SectionKind::VarOffsets, tag("tag")), 2),
        (find(SectionKind::VarBytes, tag("tag")), 0),
        (find(SectionKind::Fixed, tag("n")), 1),
        (find(SectionKind::Validity, tag("n")), 0),
    ];
    for (n, (s, j)) in cases.into_iter().enumerate() {
        let dir = tmp.path().join(format!("c{n}"));
        copy_dir(&pristine, &dir);
        let r = s.block_range(j.min(s.block_count().saturating_sub(1)));
        let at = (r.start + (r.end - r.start) / 2) as usize;
        let mut bytes = original.clone();
        bytes[at] ^= 0x5A;
        std::fs::write(dir.join(seg), &bytes).unwrap();
        let what = format!("section kind {} byte {at}", s.kind);

        let c = Collection::open(&dir, &OpenOptions::read_only()).unwrap_or_else(|e| panic!("{what}: {e}"));
        let stats = c.stats();
        let unreadable = stats.segments[0].unreadable;
        assert!(stats.segments[0].damaged.len() == 1, "{what}: {:?}", stats.segments[0]);
        assert_eq!(stats.segments[1].unreadable, 0, "{what}");
        // The rows lost lie in the damaged block's bytes, as verify names them.
        let lost: BTreeSet<usize> = (0..ROWS + 200)
            .filter(|&i| match doc_text(&c, &key(i)) {
                Ok(doc) => {
                    assert_eq!(doc, before.docs[i], "{what}: key {i} reads otherwise");
                    false
                }
                Err(Error::Storage(StorageError::DamagedRows { path, .. })) => {
                    assert!(path.ends_with(seg), "{what}");
                    true
                }
                Err(e) => panic!("{what}: key {i}: {e}"),
            })
            .collect();
        assert_eq!(lost.len() as u64, unreadable, "{what}: {lost:?}");
        if s.kind == SectionKind::KeyOrder as u16 {
            assert_eq!(unreadable, 0, "{what}: the key order is derived, rebuilt from the keys");
        } else {
            assert!(unreadable > 0, "{what}: no row reported");
        }
        if s.kind != SectionKind::Validity as u16 {
            assert!(unreadable <= 600, "{what}: {unreadable} rows for one block");
        }
        assert!(lost.iter().all(|&i| i < ROWS), "{what}");
        let message = stats.degraded();
        assert_eq!(message, [format!("degraded: {unreadable} rows unreadable in {seg}, run `xvec repair`")], "{what}");

        let after = ask_readable(&c, &lost);
        assert_eq!(after.count, before.count - unreadable, "{what}");
        let filtered_lost = lost.iter().filter(|&&i| i % 5 != 0 && i > 1000 && i % 7 == 3).count() as u64;
        assert_eq!(after.filtered, before.filtered - filtered_lost, "{what}");
        for (q, (b, a)) in before.hits.iter().zip(&after.hits).enumerate() {
            let touched = b.iter().any(|k| lost.contains(&k[4..].parse::<usize>().unwrap()));
            if !touched {
                assert_eq!(a, b, "{what}: query {q}");
            }
            assert!(a.iter().all(|k| !lost.contains(&k[4..].parse::<usize>().unwrap())), "{what}: query {q}");
        }
        drop(c);

        // A writer opens it too; optimize refuses to rewrite the damaged segment.
        let w = Collection::open(&dir, &OpenOptions::writable()).unwrap();
        w.insert(vec![Doc::new("new").set("tag", "x").set("v", vec![0.5f32; DIM])]).unwrap();
        match w.optimize(&Default::default()) {
            Err(Error::Storage(StorageError::DamagedRows { path, what, .. })) => {
                assert!(path.ends_with(seg) && what.contains("optimize"), "{what}")
            }
            other => panic!("{what}: optimize gave {other:?}"),
        }
        assert_eq!(w.count(), before.count - unreadable + 1, "{what}");
    }
}

/// [`ask`] without fetching the lost rows.
fn ask_readable(c: &Collection, lost: &BTreeSet<usize>) -> Answers {
    let hits = queries()
        .into_iter()
        .map(|q| c.query(&Query::vector(q).k(10)).unwrap().into_iter().map(|h| h.key).collect())
        .collect();
    Answers {
        count: c.count(),
        filtered: c.count_where(Some("n > 1000 AND tag = 'tag number 3'"), &crate::Params::new()).unwrap(),
        hits,
        docs: (0..ROWS + 200).filter(|i| !lost.contains(i)).map(|i| doc_text(c, &key(i)).unwrap()).collect(),
    }
}

/// A damaged or missing vector index costs speed, not answers: the open succeeds, the
/// segment is searched exactly (top 10 equal to brute force), stats name the file, and an
/// optimize builds the index again.
#[test]
fn a_damaged_vector_index_is_searched_exactly_until_rebuilt() {
    use crate::schema::{HnswParams, IndexParams};
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c");
    let schema = Schema::builder("d")
        .field(
            Field::vector("v", VectorType::Fp32, DIM as u32, Metric::L2)
                .index(IndexParams::Hnsw(HnswParams::default().m(8))),
        )
        .build()
        .unwrap();
    let vectors = random_vectors(5, 2_000, DIM);
    let coll = Collection::create(&dir, schema, Default::default()).unwrap();
    coll.insert(vectors.iter().enumerate().map(|(i, v)| Doc::new(key(i)).set("v", v.clone())).collect()).unwrap();
    coll.optimize(&Default::default()).unwrap();
    drop(coll);
    let exact = |q: &[f32]| -> Vec<String> {
        let mut d: Vec<(f32, usize)> = vectors
            .iter()
            .enumerate()
            .map(|(i, v)| (v.iter().zip(q).map(|(a, b)| (a - b) * (a - b)).sum(), i))
            .collect();
        d.sort_by(|a, b| a.0.total_cmp(&b.0));
        d[..10].iter().map(|&(_, i)| key(i)).collect()
    };
    let index = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .find(|n| FileKind::of_name(n) == Some(FileKind::Index))
        .expect("an index file");
    let path = dir.join(&index);
    let original = std::fs::read(&path).unwrap();
    let check = |what: &str| {
        let c = Collection::open(&dir, &OpenOptions::read_only()).unwrap_or_else(|e| panic!("{what}: {e}"));
        let degraded = c.stats().degraded();
        assert_eq!(degraded.len(), 1, "{what}: {degraded:?}");
        assert!(degraded[0].contains(&index) && degraded[0].contains("searched exactly"), "{what}: {degraded:?}");
        for q in queries() {
            let got: Vec<String> =
                c.query(&Query::vector(q.clone()).k(10)).unwrap().into_iter().map(|h| h.key).collect();
            assert_eq!(got, exact(&q), "{what}");
        }
        assert_eq!(c.count(), 2_000);
    };
    let mut bad = original.clone();
    bad[original.len() / 2] ^= 0x55;
    std::fs::write(&path, &bad).unwrap();
    check("a flipped byte");
    std::fs::remove_file(&path).unwrap();
    check("a missing file");

    // An optimize builds it again; the collection is whole.
    let c = Collection::open(&dir, &OpenOptions::writable()).unwrap();
    c.optimize(&Default::default()).unwrap();
    assert!(c.stats().degraded().is_empty(), "{:?}", c.stats().degraded());
    drop(c);
    let report = crate::verify::run(&dir, &Default::default()).unwrap();
    assert!(report.findings.iter().all(|f| !f.severity.is_problem()), "{:?}", report.findings);
}
