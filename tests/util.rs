#![allow(dead_code)]
//! Shared test helpers: seeded data, schemas, brute-force ground truth.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use xvec::{Field, Metric, ScalarType, Schema, VectorType};

/// The repository's root: the tests run from a crate two levels below it.
pub(crate) fn repo_root() -> std::path::PathBuf {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root)
}

pub(crate) fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

pub(crate) fn random_vectors(seed: u64, n: usize, dim: usize) -> Vec<Vec<f32>> {
    let mut r = rng(seed);
    (0..n).map(|_| (0..dim).map(|_| r.random_range(-1.0f32..1.0)).collect()).collect()
}

/// A schema with every scalar type (nullable where noted) and one vector field.
pub(crate) fn every_type_schema(elem: VectorType, dim: u32, metric: Metric) -> Schema {
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

pub(crate) fn simple_schema(dim: u32, metric: Metric) -> Schema {
    Schema::builder("simple")
        .field(Field::scalar("tag", ScalarType::String))
        .field(Field::scalar("n", ScalarType::Int64))
        .field(Field::vector("v", VectorType::Fp32, dim, metric))
        .build()
        .unwrap()
}

/// Exact distance in f64 with the metric's "lower is better" orientation.
pub(crate) fn reference_distance(metric: Metric, q: &[f32], x: &[f32]) -> f64 {
    let dot: f64 = q.iter().zip(x).map(|(a, b)| *a as f64 * *b as f64).sum();
    // `Metric` is non-exhaustive outside the engine; inside it (the unit tests share this
    // file) the last arm is unreachable.
    #[allow(unreachable_patterns)]
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
pub(crate) fn brute_force(metric: Metric, data: &[Vec<f32>], q: &[f32], k: usize) -> Vec<usize> {
    let mut d: Vec<(f64, usize)> =
        data.iter().enumerate().map(|(i, x)| (reference_distance(metric, q, x), i)).collect();
    d.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    d.into_iter().take(k).map(|(_, i)| i).collect()
}

/// Copies the files (not the folders, not `LOCK`) of a collection directory.
pub(crate) fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().map(|e| e.unwrap()) {
        if e.file_type().unwrap().is_file() && e.file_name() != "LOCK" {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// Offsets of the frames of a WAL file, read by their length fields alone (pristine files
/// only); the last one is the sync mark after the last fsync.
pub(crate) fn wal_frames(bytes: &[u8]) -> Vec<usize> {
    use xvec::format::{FRAME_HEADER, WAL_HEADER_LEN};
    let mut at = WAL_HEADER_LEN;
    let mut out = Vec::new();
    while at + FRAME_HEADER <= bytes.len() {
        out.push(at);
        at += FRAME_HEADER + u32::from_le_bytes(bytes[at + 16..at + 20].try_into().unwrap()) as usize;
    }
    assert_eq!(at, bytes.len(), "frames tile the WAL");
    out
}

/// A small collection with every file kind, for the verify and repair tests (engine and
/// binary alike).
pub(crate) mod verify_fixture {
    use std::collections::BTreeMap;
    use std::path::Path;

    use xvec::{
        Collection, Doc, Field, HnswParams, IndexParams, Metric, OpenOptions, OptimizeOptions, Quantize,
        ScalarIndexKind, ScalarType, Schema, TextIndex, Value, VamanaParams, VectorType,
    };

    use super::random_vectors;

    pub(crate) const DIM: usize = 4;

    pub(crate) fn schema() -> Schema {
        let hnsw = HnswParams::default().m(4).ef_construction(16).ef(16).quantize(Quantize::Int8);
        let vamana =
            VamanaParams::default().degree(4).build_list(8).query_list(16).quantize(Quantize::Rabitq).bits(1).refine(4);
        Schema::builder("v")
            .field(Field::scalar("tag", ScalarType::String).scalar_index(ScalarIndexKind::Inverted))
            .field(Field::scalar("n", ScalarType::Int64).nullable(true).scalar_index(ScalarIndexKind::Range))
            .field(Field::vector("v", VectorType::Fp32, DIM as u32, Metric::Cosine).index(IndexParams::Hnsw(hnsw)))
            .field(
                Field::vector("w", VectorType::Fp32, DIM as u32, Metric::L2)
                    .nullable(true)
                    .index(IndexParams::Vamana(vamana)),
            )
            .field(Field::array("labels", ScalarType::String).nullable(true).scalar_index(ScalarIndexKind::Inverted))
            .field(Field::array("ns", ScalarType::Int32))
            .field(
                Field::scalar("note", ScalarType::String).nullable(true).text_index(TextIndex::new(Default::default())),
            )
            .field(Field::sparse("sp", xvec::SparseType::Fp16).nullable(true))
            .build()
            .unwrap()
    }

    pub(crate) fn doc(i: usize) -> Doc {
        let vs = random_vectors(i as u64, 2, DIM);
        let ns = Value::Array((0..i % 3).map(|j| Value::Int32((i * 10 + j) as i32)).collect());
        let mut d =
            Doc::new(format!("k{i:03}")).set("tag", format!("t{}", i % 3)).set("v", vs[0].clone()).set("ns", ns);
        if !i.is_multiple_of(4) {
            d = d.set("n", i as i64).set("w", vs[1].clone());
        }
        if !i.is_multiple_of(5) {
            let labels = (0..1 + i % 2).map(|j| Value::String(format!("l{}", (i + j) % 4))).collect();
            d = d.set("labels", Value::Array(labels));
        }
        if !i.is_multiple_of(6) {
            d = d.set("note", format!("note {} of row {i} in word{}", i % 7, i % 3));
        }
        if !i.is_multiple_of(5) {
            let pairs = (0..1 + i % 4).map(|j| ((i * 7 + j * 31) as u32 % 97, 0.25 * (j as f32 + 1.0)));
            d = d.set("sp", Value::Sparse(xvec::SparseVector::new(pairs).expect("distinct dimensions")));
        }
        d
    }

    /// A small collection with every file kind: an optimized segment with HNSW, Vamana,
    /// inverted, range and full-text index files and a delete file, a flushed segment
    /// (with its scalar and full-text indexes), and a WAL holding puts and a delete.
    pub(crate) fn build(dir: &Path, rows: usize) {
        let c = Collection::create(dir, schema(), Default::default()).unwrap();
        c.insert((0..rows).map(doc).collect()).unwrap();
        c.optimize(&OptimizeOptions::default().concurrency(1)).unwrap();
        c.insert((rows..rows + rows / 2).map(doc).collect()).unwrap();
        c.delete(&["k001", "k002"]).unwrap();
        c.flush().unwrap();
        c.insert((rows + rows / 2..rows * 2).map(doc).collect()).unwrap();
        c.delete(&[&format!("k{:03}", rows)]).unwrap();
        c.close().unwrap();
    }

    /// Every live document, by key.
    pub(crate) fn contents(dir: &Path) -> BTreeMap<String, Doc> {
        let c = Collection::open(dir, &OpenOptions::read_only()).unwrap();
        let keys = c.snapshot().keys_where(None).unwrap();
        let refs: Vec<&str> = keys.iter().map(|k| k.as_str()).collect();
        c.fetch(&refs, None).unwrap().into_iter().map(|d| d.unwrap()).map(|d| (d.key.clone(), d)).collect()
    }
}

/// Collections of 384-d rows that live in their WAL only, for the WAL damage and recovery
/// tests (engine and binary alike).
pub(crate) mod wal_fixture {
    use std::path::Path;

    use xvec::{Collection, Doc, Field, Metric, ScalarType, Schema, Value, VectorType};

    use super::random_vectors;

    pub(crate) const DIM: usize = 384;

    /// Row `i`: a string, an integer, an array of 0 to 4 integers (NULL in one row of 11)
    /// and its vector.
    pub(crate) fn doc(i: usize, v: &[f32]) -> Doc {
        let d = Doc::new(format!("k{i:06}")).set("tag", format!("tag-{}", i % 7)).set("n", i as i64);
        let d = match i % 11 {
            0 => d,
            _ => d.set("ns", Value::Array((0..i % 5).map(|j| Value::Int32((i * j) as i32)).collect())),
        };
        d.set("v", v.to_vec())
    }

    fn schema() -> Schema {
        Schema::builder("wal")
            .field(Field::scalar("tag", ScalarType::String))
            .field(Field::scalar("n", ScalarType::Int64))
            .field(Field::array("ns", ScalarType::Int32).nullable(true))
            .field(Field::vector("v", VectorType::Fp32, DIM as u32, Metric::L2))
            .build()
            .unwrap()
    }

    /// A collection whose data lives in its WAL only: `rows` rows in batches of `batch`.
    pub(crate) fn wal_collection(dir: &Path, rows: usize, batch: usize) -> Vec<Vec<f32>> {
        let vectors = random_vectors(7, rows, DIM);
        let coll = Collection::create(dir, schema(), Default::default()).unwrap();
        for start in (0..rows).step_by(batch) {
            let docs = (start..(start + batch).min(rows)).map(|i| doc(i, &vectors[i])).collect();
            assert!(coll.insert(docs).unwrap().iter().all(Result::is_ok));
        }
        coll.close().unwrap();
        vectors
    }
}
