//! A read-only handle beside a writer in another process: the reader sees the data as of
//! its open, and opening again sees the writer's newer generations.
//!
//!     cargo run -p xvec --example reader
//!
//! The example re-executes itself as the writer (`reader --writer DIR`), so the two
//! handles are in two processes, as in a real deployment.
//!
//! Today a read-only handle does not follow the writer: it holds the generation it
//! opened (plus the WAL it replayed then) until it is dropped, and a reader that wants
//! newer writes opens the collection again. Issue 17 adds read-only handles that follow
//! the writer's new generations; until then, reopening is the way.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use xvec::{Collection, Error, OpenOptions, StorageError};

/// Documents written before the reader opens, flushed by the writer, and left unflushed.
const BEFORE: u64 = 1_000;
const FLUSHED: u64 = 500;
const UNFLUSHED: u64 = 250;

/// What the writer prints once its writes are acknowledged and it holds the lock.
const READY: &str = "ready";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [flag, dir] if flag == "--writer" => writer(Path::new(dir)),
        [] => reader(),
        _ => Err("usage: reader (the --writer DIR form is the example's own child process)".into()),
    }
}

fn reader() -> Result<(), Box<dyn std::error::Error>> {
    let temp = tempfile::tempdir()?;
    let dir = temp.path().join("items");
    let coll = Collection::create(&dir, common::schema()?, Default::default())?;
    coll.insert(common::random_docs(&mut common::Rng::new(1), 0, BEFORE))?;
    coll.flush()?;
    coll.close()?;

    let first = Collection::open(&dir, &OpenOptions::read_only())?;
    report("reader opened", &first)?;

    let mut child = Command::new(std::env::current_exe()?)
        .arg("--writer")
        .arg(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()?;
    let mut lines = BufReader::new(child.stdout.take().expect("stdout is piped")).lines();
    loop {
        match lines.next().transpose()? {
            Some(line) if line == READY => break,
            Some(line) => println!("{line}"),
            None => return Err(format!("the writer exited before it was ready: {}", child.wait()?).into()),
        }
    }

    // The writer process still runs and holds the lock.
    report("first reader, unchanged", &first)?;
    let second = Collection::open(&dir, &OpenOptions::read_only())?;
    report("reader reopened", &second)?;
    match Collection::open(&dir, &OpenOptions::writable()) {
        Err(Error::Storage(e @ StorageError::Locked { .. })) => println!("a second writer is refused: {e}"),
        Err(e) => return Err(e.into()),
        Ok(_) => return Err("a second writer opened beside the first".into()),
    }

    // Closing the writer's stdin tells it to close the collection and exit.
    drop(child.stdin.take());
    for line in lines {
        println!("{}", line?);
    }
    let status = child.wait()?;
    if !status.success() {
        return Err(format!("the writer failed: {status}").into());
    }
    report("first reader, still unchanged", &first)?;
    Ok(())
}

/// The child process: writes, flushes, writes more without flushing, says it is ready,
/// then holds the collection open until its stdin closes.
fn writer(dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let coll = Collection::open(dir, &OpenOptions::writable())?;
    let mut rng = common::Rng::new(2);
    coll.insert(common::random_docs(&mut rng, BEFORE, FLUSHED))?;
    coll.flush()?;
    // Acknowledged once in the WAL; a reader that opens now replays it.
    coll.insert(common::random_docs(&mut rng, BEFORE + FLUSHED, UNFLUSHED))?;
    let stats = coll.stats();
    println!(
        "writer (pid {}): flushed {FLUSHED}, then {UNFLUSHED} more left in the WAL: generation {}, {} documents",
        std::process::id(),
        stats.generation,
        stats.live_docs
    );
    let mut stdout = std::io::stdout();
    writeln!(stdout, "{READY}")?;
    stdout.flush()?;
    std::io::stdin().lines().for_each(drop);
    coll.close()?;
    println!("writer: closed");
    Ok(())
}

/// The handle's generation and counts, and whether it sees the writer's first document.
fn report(what: &str, coll: &Collection) -> xvec::Result<()> {
    let stats = coll.stats();
    let probe = format!("doc-{BEFORE:05}");
    let seen = coll.fetch(&[&probe], None)?[0].is_some();
    println!(
        "{what}: generation {}, {} documents ({} in segments, {} replayed from the WAL); {probe} {}",
        stats.generation,
        coll.count(),
        stats.segments.iter().map(|s| s.rows - s.deleted).sum::<u64>(),
        stats.mem_live,
        if seen { "found" } else { "not found" }
    );
    Ok(())
}
