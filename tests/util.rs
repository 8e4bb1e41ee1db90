#![allow(dead_code)]
//! Shared test helpers: seeded data, schemas, brute-force ground truth.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use xvec::{Field, Metric, ScalarType, Schema, VectorType};

/// The repository's root: the tests run from a crate two levels below it.
pub fn repo_root() -> std::path::PathBuf {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root)
}

pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

pub fn random_vectors(seed: u64, n: usize, dim: usize) -> Vec<Vec<f32>> {
    let mut r = rng(seed);
    (0..n).map(|_| (0..dim).map(|_| r.random_range(-1.0f32..1.0)).collect()).collect()
}

/// A schema with every scalar type (nullable where noted) and one vector field.
pub fn every_type_schema(elem: VectorType, dim: u32, metric: Metric) -> Schema {
    Schema::builder("every")
        .field(Field::scalar("s", ScalarType::String))
        .field(Field::scalar("b", ScalarType::Bool))
        .field(Field::scalar("i32", ScalarType::Int32).nullable(true))
        .field(Field::scalar("i64", ScalarType::Int64))
        .field(Field::scalar("u32", ScalarType::Uint32))
        .field(Field::scalar("u64", ScalarType::Uint64).nullable(true))
        .field(Field::scalar("f", ScalarType::Float))
        .field(Field::scalar("d", ScalarType::Double))
        .field(Field::vector("v", elem, dim, metric).nullable(true))
        .build()
        .unwrap()
}

pub fn simple_schema(dim: u32, metric: Metric) -> Schema {
    Schema::builder("simple")
        .field(Field::scalar("tag", ScalarType::String))
        .field(Field::scalar("n", ScalarType::Int64))
        .field(Field::vector("v", VectorType::Fp32, dim, metric))
        .build()
        .unwrap()
}

/// Exact distance in f64 with the metric's "lower is better" orientation.
pub fn reference_distance(metric: Metric, q: &[f32], x: &[f32]) -> f64 {
    let dot: f64 = q.iter().zip(x).map(|(a, b)| *a as f64 * *b as f64).sum();
    match metric {
        Metric::L2 => q.iter().zip(x).map(|(a, b)| (*a as f64 - *b as f64).powi(2)).sum(),
        Metric::Ip => -dot,
        Metric::Cosine => {
            let nq: f64 = q.iter().map(|a| (*a as f64).powi(2)).sum::<f64>().sqrt();
            let nx: f64 = x.iter().map(|a| (*a as f64).powi(2)).sum::<f64>().sqrt();
            -dot / (nq * nx)
        }
        other => unimplemented!("reference distances for the {other} metric"),
    }
}

/// Indexes of the k nearest rows, brute force.
pub fn brute_force(metric: Metric, data: &[Vec<f32>], q: &[f32], k: usize) -> Vec<usize> {
    let mut d: Vec<(f64, usize)> =
        data.iter().enumerate().map(|(i, x)| (reference_distance(metric, q, x), i)).collect();
    d.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    d.into_iter().take(k).map(|(_, i)| i).collect()
}

/// Copies the files (not the folders, not `LOCK`) of a collection directory.
pub fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().map(|e| e.unwrap()) {
        if e.file_type().unwrap().is_file() && e.file_name() != "LOCK" {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// Offsets of the frames of a WAL file, read by their length fields alone (pristine files
/// only); the last one is the sync mark after the last fsync.
pub fn wal_frames(bytes: &[u8]) -> Vec<usize> {
    use xvec::storage::wal::{FRAME_HEADER, WAL_HEADER_LEN};
    let mut at = WAL_HEADER_LEN;
    let mut out = Vec::new();
    while at + FRAME_HEADER <= bytes.len() {
        out.push(at);
        at += FRAME_HEADER + u32::from_le_bytes(bytes[at + 16..at + 20].try_into().unwrap()) as usize;
    }
    assert_eq!(at, bytes.len(), "frames tile the WAL");
    out
}
