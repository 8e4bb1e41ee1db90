//! Sparse vectors at realistic sizes: damage in a WAL of SPLADE-sized sparse rows is found
//! at its frame; a segment's sparse index, with bytes flipped anywhere, is reported by
//! verify and refused on open, and repair rebuilds it so search is exact again.

use std::os::unix::fs::FileExt;
use std::path::Path;

use rand::RngExt;
use xvec::format::WAL_HEADER_LEN;
use xvec::verify::{self, Repair, RepairOptions, Severity, VerifyOptions};
use xvec::{
    Branch, Collection, Doc, Field, HybridQuery, OpenOptions, ScalarType, Schema, SparseType, SparseVector, Value,
};

use crate::util::{rng, wal_frames};

/// Dimensions a row's vector draws from (a SPLADE vocabulary is about 30,000 word pieces).
const DIMS: u32 = 30_000;

/// How big a run is.
struct Scale {
    /// Rows written to the WAL before its flips.
    wal_rows: usize,
    /// Nonzero dimensions per row (SPLADE documents average about 100 to 200).
    nonzeros: usize,
    wal_flips: usize,
    wal_bytes_at_least: usize,
    /// Rows of the segment whose sparse index is damaged.
    segment_rows: usize,
    index_flips: usize,
}

fn vector(i: usize, nonzeros: usize) -> SparseVector {
    let mut r = rng(i as u64 ^ 0x5ba5e);
    let mut pairs = std::collections::BTreeMap::new();
    while pairs.len() < nonzeros {
        // Skewed towards low dimensions, as frequent word pieces are.
        let d = (r.random_range(0.0f64..1.0).powi(2) * DIMS as f64) as u32;
        pairs.insert(d, r.random_range(0.01f32..3.0));
    }
    SparseVector::new(pairs).unwrap()
}

fn doc(i: usize, nonzeros: usize) -> Doc {
    Doc::new(format!("k{i:07}")).set("tag", format!("t{}", i % 5)).set("sp", Value::Sparse(vector(i, nonzeros)))
}

fn schema() -> Schema {
    Schema::builder("sparse")
        .field(Field::scalar("tag", ScalarType::String))
        .field(Field::sparse("sp", SparseType::Fp32))
        .build()
        .unwrap()
}

fn quick() -> VerifyOptions {
    VerifyOptions::default().code_sample(8)
}

fn live_wal(dir: &Path) -> std::path::PathBuf {
    let coll = Collection::open(dir, &OpenOptions::read_only()).unwrap();
    let wal = xvec::inspect::wal(&coll).unwrap();
    dir.join(&wal.files.iter().find(|f| f.live).expect("a live WAL").file)
}

/// Sparse top 10 of a few random queries equal brute force over rows `0..rows`.
fn search_is_exact(dir: &Path, rows: usize, nonzeros: usize, what: &str) {
    let coll = Collection::open(dir, &OpenOptions::read_only()).unwrap();
    let all: Vec<SparseVector> = (0..rows).map(|i| vector(i, nonzeros)).collect();
    for q in 0..8 {
        let query = vector(10_000_000 + q, 24);
        let mut want: Vec<f32> = all.iter().map(|v| v.dot(&query)).filter(|&s| s != 0.0).collect();
        want.sort_by(|a, b| b.total_cmp(a));
        want.truncate(10);
        let hits = coll.hybrid(&HybridQuery::new(vec![Branch::sparse(query, 10)])).unwrap();
        let got: Vec<f32> = hits.iter().map(|h| h.branches[0].expect("a sparse hit").score).collect();
        assert_eq!(got.len(), want.len(), "{what}: query {q}");
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() <= 1e-4 * w.abs().max(1.0), "{what}: query {q}: {got:?} vs {want:?}");
        }
    }
}

fn run(scale: &Scale) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c");
    let coll = Collection::create(&dir, schema(), Default::default()).unwrap();
    let batch = 500;
    for start in (0..scale.wal_rows).step_by(batch) {
        let docs = (start..(start + batch).min(scale.wal_rows)).map(|i| doc(i, scale.nonzeros)).collect();
        assert!(coll.insert(docs).unwrap().iter().all(Result::is_ok));
    }
    coll.close().unwrap();

    // Every flip before the last sync mark is reported at its frame by verify and by both opens.
    let started = std::time::Instant::now();
    let path = live_wal(&dir);
    let pristine = std::fs::read(&path).unwrap();
    let wal_bytes = pristine.len();
    assert!(wal_bytes >= scale.wal_bytes_at_least, "a WAL of {wal_bytes} bytes");
    let frames = wal_frames(&pristine);
    let last = *frames.last().unwrap();
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    let mut r = rng(17);
    for n in 0..scale.wal_flips {
        let at = r.random_range(WAL_HEADER_LEN..last);
        let frame = *frames.iter().rev().find(|&&f| f <= at).unwrap() as u64;
        file.write_at(&[pristine[at] ^ 0x04], at as u64).unwrap();
        let report = verify::run(&dir, &quick()).unwrap();
        let found = report.findings.iter().any(|f| f.severity == Severity::Corrupt && f.offset == Some(frame));
        assert!(found, "WAL flip {n} at {at}: {:?}", report.findings);
        for options in [OpenOptions::read_only(), OpenOptions::writable()] {
            let e = Collection::open(&dir, &options).unwrap_err();
            assert!(e.to_string().contains(&format!("offset {frame}")), "WAL flip {n} at {at}: {e}");
        }
        file.write_at(&[pristine[at]], at as u64).unwrap();
    }
    let wal_s = started.elapsed().as_secs_f64();

    // The WAL's rows and more in one segment, its sparse index built by optimize.
    let coll = Collection::open(&dir, &OpenOptions::writable()).unwrap();
    for start in (scale.wal_rows..scale.segment_rows).step_by(batch) {
        let docs = (start..(start + batch).min(scale.segment_rows)).map(|i| doc(i, scale.nonzeros)).collect();
        assert!(coll.insert(docs).unwrap().iter().all(Result::is_ok));
    }
    coll.optimize(&Default::default()).unwrap();
    assert_eq!(coll.stats().segments.len(), 1);
    coll.close().unwrap();
    search_is_exact(&dir, scale.segment_rows, scale.nonzeros, "after optimize");

    let index = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_str().unwrap().ends_with("-spi.idx"))
        .expect("a sparse index file");
    let name = index.file_name().unwrap().to_str().unwrap().to_string();
    let pristine = std::fs::read(&index).unwrap();
    let file = std::fs::OpenOptions::new().write(true).open(&index).unwrap();
    let started = std::time::Instant::now();
    for n in 0..scale.index_flips {
        let at = r.random_range(0..pristine.len());
        file.write_at(&[pristine[at] ^ 0x20], at as u64).unwrap();
        let report = verify::run(&dir, &quick()).unwrap();
        let found = report.findings.iter().any(|f| f.severity == Severity::Corrupt && f.file == name);
        assert!(found, "index flip {n} at {at} of {}: {:?}", pristine.len(), report.findings);
        let e = Collection::open(&dir, &OpenOptions::read_only()).unwrap_err();
        assert!(e.to_string().contains(&name), "index flip {n} at {at}: {e}");
        file.write_at(&[pristine[at]], at as u64).unwrap();
    }
    let index_s = started.elapsed().as_secs_f64();

    // Repair rebuilds a damaged index; nothing is lost and search is exact again.
    let at = pristine.len() / 2;
    file.write_at(&[pristine[at] ^ 0xff], at as u64).unwrap();
    let out = Repair::begin(&dir, RepairOptions::default()).unwrap().apply().unwrap();
    assert!(out.after.is_clean(), "{:?}", out.after.findings);
    assert!(out.losses.is_empty(), "{:?}", out.losses);
    assert_eq!(Collection::open(&dir, &OpenOptions::read_only()).unwrap().count(), scale.segment_rows as u64);
    search_is_exact(&dir, scale.segment_rows, scale.nonzeros, "after repair");
    eprintln!(
        "{:.1} MB WAL of {} sparse rows ({} nonzeros each): {} flips reported at their frame in {wal_s:.1} s; \
         {:.1} MB sparse index of {} rows: {} flips reported and refused in {index_s:.1} s; repaired",
        wal_bytes as f64 / 1e6,
        scale.wal_rows,
        scale.nonzeros,
        scale.wal_flips,
        pristine.len() as f64 / 1e6,
        scale.segment_rows,
        scale.index_flips,
    );
}

/// The CI run: a 3 MB WAL, a 6,000-row segment.
#[test]
fn sparse_wal_and_index_damage_is_found_and_repaired() {
    run(&Scale {
        wal_rows: 2_000,
        nonzeros: 190,
        wal_flips: 20,
        wal_bytes_at_least: 3_000_000,
        segment_rows: 6_000,
        index_flips: 20,
    });
}

/// The documented run at a realistic size: a 100 MB WAL (65,000 rows of 190 nonzeros),
/// 200 random flips; a 100,000-row segment, 100 flips in its sparse index. Run with
/// `cargo test -p xvec-cli --test tests durability_sparse::realistic -- --ignored --nocapture`.
#[test]
#[ignore = "long: a 100 MB WAL and a 100,000-row sparse segment; the command is in docs/durability.md"]
fn realistic_sizes() {
    run(&Scale {
        wal_rows: 65_000,
        nonzeros: 190,
        wal_flips: 200,
        wal_bytes_at_least: 100_000_000,
        segment_rows: 100_000,
        index_flips: 100,
    });
}
