//! Creates a collection with scalar fields and an HNSW-indexed vector field, inserts
//! seeded random documents, flushes, optimizes and prints the collection's stats.
//!
//!     cargo run -p xvec --example create [DIR]
//!
//! DIR must be empty or missing; without it the collection lives in a temporary
//! directory that is removed at exit. Another example can then read DIR:
//! `cargo run -p xvec --example query_filter DIR`.

mod common;

use std::path::PathBuf;

use xvec::{Collection, CollectionOptions, OptimizeOptions};

const DOCS: u64 = 3_000;
const BATCH: u64 = 500;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let temp = tempfile::tempdir()?;
    let dir = std::env::args_os().nth(1).map_or_else(|| temp.path().join("items"), PathBuf::from);

    let options = CollectionOptions::default().max_docs_per_segment(100_000);
    let coll = Collection::create(&dir, common::schema()?, options)?;
    println!("created {}", dir.display());

    let mut rng = common::Rng::new(42);
    for first in (0..DOCS).step_by(BATCH as usize) {
        let results = coll.insert(common::random_docs(&mut rng, first, BATCH))?;
        // The outer `?` is for the whole call; each document has its own result.
        for err in results.iter().filter_map(|r| r.as_ref().err()) {
            eprintln!("rejected: {err}");
        }
        // One segment per flush, so that optimize has segments to merge.
        coll.flush()?;
    }
    println!("inserted {} documents in {} segments", coll.count(), coll.stats().segments.len());

    // Options structs are `#[non_exhaustive]`: defaults, then setters (or field assignments).
    let report = coll.optimize(&OptimizeOptions::default().concurrency(2))?;
    println!(
        "optimized: {} -> {} segments, {} rows, {} indexes built in {:.2}s",
        report.segments_before, report.segments_after, report.rows, report.indexes_built, report.seconds
    );

    let stats = coll.stats();
    println!(
        "stats: generation {}, {} live, {} deleted, {} unflushed rows, WAL {} bytes, disk {} bytes",
        stats.generation, stats.live_docs, stats.deleted_docs, stats.mem_rows, stats.wal_bytes, stats.disk_bytes
    );
    for seg in &stats.segments {
        println!("  segment {} {}: {} rows, {} deleted, {} bytes", seg.id, seg.file, seg.rows, seg.deleted, seg.bytes);
    }
    let emb = coll.schema().index_of("emb").expect("the schema has emb");
    println!("index completeness of emb: {:.0}%", coll.snapshot().index_completeness(emb) * 100.0);
    coll.close()?;
    Ok(())
}
