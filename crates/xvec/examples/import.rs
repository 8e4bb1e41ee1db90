//! Imports a JSON Lines file (one object a line: `{"_key": ..., field: value, ...}`) into
//! an existing collection in batches of 1,000, reporting each rejected line by number.
//!
//!     cargo run -p xvec --example import [DIR [FILE.jsonl]]
//!
//! Without DIR, a temporary collection is created from `data/schema.json`; without FILE,
//! `data/sample.jsonl` is read. The sample holds five deliberately bad lines (a wrong
//! type, an unknown field, broken JSON, a wrong dimension, a duplicate key), so the
//! default run shows every kind of per-line error. `create`'s collection has the same
//! schema: `cargo run -p xvec --example create /tmp/items` then
//! `cargo run -p xvec --example import /tmp/items`.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use xvec::{Collection, Doc, KEY_FIELD, OpenOptions, Schema};

const BATCH: usize = 1_000;

/// Counts over the whole file.
#[derive(Default)]
struct Tally {
    imported: u64,
    rejected: u64,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/data");
    let mut args = std::env::args_os().skip(1).map(PathBuf::from);
    let temp = tempfile::tempdir()?;
    let coll = match args.next() {
        Some(dir) => Collection::open(dir, &OpenOptions::writable())?,
        None => {
            let schema = Schema::from_json(&std::fs::read_to_string(data.join("schema.json"))?)?;
            Collection::create(temp.path().join("items"), schema, Default::default())?
        }
    };
    let file = args.next().unwrap_or_else(|| data.join("sample.jsonl"));
    println!("importing {} into {}", file.display(), coll.dir().display());

    let mut tally = Tally::default();
    // (line number, document): the insert results come back in the batch's order.
    let mut batch: Vec<(usize, Doc)> = Vec::with_capacity(BATCH);
    for (i, line) in BufReader::new(File::open(&file)?).lines().enumerate() {
        let (lineno, line) = (i + 1, line?);
        if line.trim().is_empty() {
            continue;
        }
        match parse(&coll.schema(), &line) {
            Ok(doc) => batch.push((lineno, doc)),
            Err(e) => reject(&mut tally, lineno, &e),
        }
        if batch.len() == BATCH {
            insert(&coll, &mut batch, &mut tally)?;
        }
    }
    insert(&coll, &mut batch, &mut tally)?;
    coll.flush()?;
    println!("{} imported, {} rejected; the collection holds {}", tally.imported, tally.rejected, coll.count());
    coll.close()?;
    Ok(())
}

/// One line into a document, checked against the schema (field names and value types;
/// the vector dimension is checked by `insert`).
fn parse(schema: &Schema, line: &str) -> Result<Doc, String> {
    match serde_json::from_str(line) {
        Ok(serde_json::Value::Object(obj)) => Doc::from_json(schema, &obj, KEY_FIELD).map_err(|e| e.to_string()),
        Ok(other) => Err(format!("expected a JSON object, found {other}")),
        Err(e) => Err(format!("bad JSON: {e}")),
    }
}

/// Inserts and empties the batch. Only a failure of the whole call (I/O, a read-only
/// handle) is an `Err`; each document's own rejection is in its item result.
fn insert(coll: &Collection, batch: &mut Vec<(usize, Doc)>, tally: &mut Tally) -> xvec::Result<()> {
    if batch.is_empty() {
        return Ok(());
    }
    let (lines, docs): (Vec<usize>, Vec<Doc>) = batch.drain(..).unzip();
    for (lineno, result) in lines.into_iter().zip(coll.insert(docs)?) {
        match result {
            Ok(()) => tally.imported += 1,
            Err(e) => reject(tally, lineno, &e),
        }
    }
    Ok(())
}

fn reject(tally: &mut Tally, lineno: usize, what: &dyn std::fmt::Display) {
    tally.rejected += 1;
    eprintln!("line {lineno}: {what}");
}
