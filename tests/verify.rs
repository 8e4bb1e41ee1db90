//! `verify`, `repair` and `inspect` (issue 8): a clean collection verifies clean; a flipped
//! byte or a cut anywhere in any file kind is found, in the right file and section, never
//! with a panic; repair brings every such collection back to clean without losing a row
//! that was not in the damaged part; verify tells a writer's work in progress from damage.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use xvec::storage::container;
use xvec::storage::segment::{NO_FIELD, SectionKind};
use xvec::verify::repair::{Repair, RepairOptions};
use xvec::verify::{self, Report, Severity, VerifyOptions};
use xvec::{
    Collection, Doc, Field, HnswParams, IndexParams, Metric, OpenOptions, OptimizeOptions, Quantize, ScalarType,
    Schema, VamanaParams, VectorType,
};

use crate::util::random_vectors;

const DIM: usize = 4;

pub fn schema() -> Schema {
    let hnsw = HnswParams { m: 4, ef_construction: 16, ef: 16, quantize: Quantize::Int8, ..Default::default() };
    let vamana = VamanaParams { degree: 4, build_list: 8, query_list: 16, ..Default::default() };
    Schema::builder("v")
        .field(Field::scalar("tag", ScalarType::String))
        .field(Field::scalar("n", ScalarType::Int64).nullable(true))
        .field(Field::vector("v", VectorType::Fp32, DIM as u32, Metric::Cosine).index(IndexParams::Hnsw(hnsw)))
        .field(Field::vector("w", VectorType::Fp32, DIM as u32, Metric::L2).nullable(true).index(IndexParams::Vamana(vamana)))
        .build()
        .unwrap()
}

pub fn doc(i: usize) -> Doc {
    let vs = random_vectors(i as u64, 2, DIM);
    let mut d = Doc::new(format!("k{i:03}")).set("tag", format!("t{}", i % 3)).set("v", vs[0].clone());
    if i % 4 != 0 {
        d = d.set("n", i as i64).set("w", vs[1].clone());
    }
    d
}

/// A small collection with every file kind: an optimized segment with HNSW and Vamana
/// index files and a delete file, a flushed segment, and a WAL holding puts and a delete.
pub fn build(dir: &Path, rows: usize) {
    let c = Collection::create(dir, schema(), Default::default()).unwrap();
    c.insert((0..rows).map(doc).collect()).unwrap();
    c.optimize(&OptimizeOptions { concurrency: 1, ..Default::default() }).unwrap();
    c.insert((rows..rows + rows / 2).map(doc).collect()).unwrap();
    c.delete(&["k001", "k002"]).unwrap();
    c.flush().unwrap();
    c.insert((rows + rows / 2..rows * 2).map(doc).collect()).unwrap();
    c.delete(&[&format!("k{:03}", rows)]).unwrap();
    c.close().unwrap();
}

/// Every live document, by key.
pub fn contents(dir: &Path) -> BTreeMap<String, Doc> {
    let c = Collection::open(dir, &OpenOptions::read_only()).unwrap();
    let keys = c.snapshot().keys_where(None).unwrap();
    let refs: Vec<&str> = keys.iter().map(|k| k.as_str()).collect();
    c.fetch(&refs, None).unwrap().into_iter().map(|d| d.unwrap()).map(|d| (d.key.clone(), d)).collect()
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != "LOCK")
        .collect();
    v.sort();
    v
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for n in names(from) {
        std::fs::copy(from.join(&n), to.join(&n)).unwrap();
    }
}

fn quick() -> VerifyOptions {
    VerifyOptions { threads: 1, attempts: 1, ..Default::default() }
}

fn problems(r: &Report) -> Vec<String> {
    r.findings
        .iter()
        .filter(|f| f.severity.is_problem())
        .map(|f| format!("{} [{}] @{:?}: {}", f.file, f.section, f.offset, f.what))
        .collect()
}

#[test]
fn a_fresh_collection_verifies_clean_with_graphs_codes_and_recall() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), 40);
    let r = verify::run(dir.path(), &VerifyOptions { deep: true, ..Default::default() }).unwrap();
    assert!(r.is_clean(), "{:?}", problems(&r));
    assert_eq!(r.count(Severity::Warning), 0, "{:?}", r.findings);
    let kinds: Vec<&str> = r.graphs.iter().map(|g| g.kind.as_str()).collect();
    assert_eq!(kinds, ["hnsw", "vamana"]);
    for g in &r.graphs {
        assert_eq!(g.nodes, 40, "{g:?}");
        assert_eq!(g.unreachable_live(), 0, "{g:?}");
        assert!(g.layers.iter().all(|l| l.defects() == 0), "{g:?}");
    }
    assert_eq!(r.codes.len(), 1);
    assert_eq!((r.codes[0].checked, r.codes[0].mismatched), (40, 0));
    assert_eq!(r.recall.len(), 2);
    assert!(r.recall.iter().all(|x| x.recall >= 0.9), "{:?}", r.recall);
    assert_eq!(r.wal.as_ref().map(|w| w.records), Some(12));
    assert!(r.stats.bytes_checksummed > 0 && r.stats.mb_per_s > 0.0);
}

#[test]
fn timing_probe() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), 12);
    let t = std::time::Instant::now();
    for _ in 0..100 {
        verify::run(dir.path(), &quick()).unwrap();
    }
    let per = t.elapsed() / 100;
    let total: u64 = names(dir.path()).iter().map(|n| std::fs::metadata(dir.path().join(n)).unwrap().len()).sum();
    eprintln!("per verify {per:?}, {total} bytes in {:?}", names(dir.path()));
}
