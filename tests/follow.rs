//! Read-only handles following a live writer: every acknowledged write and every
//! published generation is visible at the reader's next query, in this process (a reader
//! thread) and in another one (a reader process); a held snapshot never changes.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;

use rand::RngExt;
use xvec::{Collection, Doc, Metric, OpenOptions, OptimizeOptions, Query, Snapshot, Value};

use crate::util::{rng, simple_schema};

const DIM: u32 = 8;
const CHILD_ENV: &str = "XVEC_FOLLOW_CHILD_DIR";

fn vector(n: i64) -> Vec<f32> {
    (0..DIM).map(|j| ((n * 31 + j as i64) % 101) as f32 / 101.0).collect()
}

fn doc(key: &str, n: i64) -> Doc {
    Doc::new(key).set("tag", format!("t{}", n % 5)).set("n", n).set("v", vector(n))
}

/// One step of the writer, applied to the collection and to the model.
fn step(coll: &Collection, model: &mut BTreeMap<String, i64>, rng: &mut impl RngExt, next: &mut i64) {
    match rng.random_range(0..10) {
        0..=4 => {
            let docs: Vec<Doc> = (0..rng.random_range(1..60))
                .map(|_| {
                    *next += 1;
                    let key = format!("k{next:05}");
                    model.insert(key.clone(), *next);
                    doc(&key, *next)
                })
                .collect();
            assert!(coll.insert(docs).unwrap().iter().all(|r| r.is_ok()));
        }
        5 | 6 if !model.is_empty() => {
            let keys: Vec<String> = model.keys().filter(|_| rng.random_bool(0.1)).cloned().collect();
            let docs = keys.iter().map(|k| {
                *next += 1;
                model.insert(k.clone(), *next);
                doc(k, *next)
            });
            assert!(coll.upsert(docs.collect()).unwrap().iter().all(|r| r.is_ok()));
        }
        7 if !model.is_empty() => {
            let keys: Vec<String> = model.keys().filter(|_| rng.random_bool(0.1)).cloned().collect();
            let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
            assert!(coll.delete(&refs).unwrap().iter().all(|r| r.is_ok()));
            for k in &keys {
                model.remove(k);
            }
        }
        8 => coll.flush().unwrap(),
        9 if rng.random_bool(0.3) => drop(coll.optimize(&OptimizeOptions::default().concurrency(1)).unwrap()),
        _ => {}
    }
}

/// What a reader sees, in a form two processes can compare: every live key with its `n`.
fn seen(snap: &Snapshot) -> BTreeMap<String, i64> {
    let keys = snap.keys_where(None).unwrap();
    let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
    let docs = snap.fetch(&refs, Some(&["n".to_string()])).unwrap();
    keys.into_iter()
        .zip(docs)
        .map(|(k, d)| match d.unwrap().get("n") {
            Some(Value::Int64(n)) => (k, *n),
            other => panic!("{k}: n is {other:?}"),
        })
        .collect()
}

fn digest(m: &BTreeMap<String, i64>) -> String {
    let h = m.iter().fold(0u64, |h, (k, n)| {
        k.bytes().fold(h.rotate_left(5) ^ *n as u64, |h, b| h.wrapping_mul(0x100000001b3) ^ b as u64)
    });
    format!("{} {h:016x}", m.len())
}

/// Checks the reader's newest snapshot against the model: the same documents, each found
/// by key and by its vector.
fn check_reader(reader: &Collection, model: &BTreeMap<String, i64>, step: usize) {
    let snap = reader.snapshot();
    assert_eq!(snap.count(), model.len() as u64, "step {step}: count");
    assert_eq!(&seen(&snap), model, "step {step}: documents");
    if let Some((key, n)) = model.iter().nth(step % model.len().max(1)) {
        let hits = snap.query(&Query::vector(vector(*n)).k(1)).unwrap();
        assert!(hits[0].score < 1e-6, "step {step}: {key} not found by its vector");
    }
}

#[test]
fn a_reader_thread_sees_every_acknowledged_write_at_its_next_query() {
    let dir = tempfile::tempdir().unwrap();
    let coll = Collection::create(dir.path(), simple_schema(DIM, Metric::L2), Default::default()).unwrap();
    let reader = Collection::open(dir.path(), &OpenOptions::read_only()).unwrap();
    let (to_reader, from_writer) = mpsc::channel::<(usize, BTreeMap<String, i64>)>();
    let (to_writer, from_reader) = mpsc::channel::<()>();
    std::thread::scope(|s| {
        s.spawn(move || {
            for (i, model) in from_writer {
                check_reader(&reader, &model, i);
                to_writer.send(()).unwrap();
            }
            let gens = reader.stats();
            assert_eq!(gens.follow_error, None);
        });
        let (mut model, mut next, mut rng) = (BTreeMap::new(), 0, rng(7));
        for i in 0..300 {
            step(&coll, &mut model, &mut rng, &mut next);
            to_reader.send((i, model.clone())).unwrap();
            from_reader.recv().unwrap();
        }
        drop(to_reader);
    });
}

#[test]
fn a_held_snapshot_stays_as_it_was_while_the_writer_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let coll = Collection::create(dir.path(), simple_schema(DIM, Metric::L2), Default::default()).unwrap();
    let reader = Collection::open(dir.path(), &OpenOptions::read_only()).unwrap();
    let (mut model, mut next, mut rng) = (BTreeMap::new(), 0, rng(11));
    let mut held: Vec<(Snapshot, BTreeMap<String, i64>)> = Vec::new();
    for i in 0..200 {
        step(&coll, &mut model, &mut rng, &mut next);
        if i % 20 == 0 {
            held.push(((*coll.snapshot()).clone(), model.clone()));
            held.push(((*reader.snapshot()).clone(), model.clone()));
        }
    }
    for (snap, model) in &held {
        assert_eq!(&seen(snap), model);
    }
}

#[test]
fn a_handle_that_does_not_follow_moves_only_on_refresh() {
    let dir = tempfile::tempdir().unwrap();
    let coll = Collection::create(dir.path(), simple_schema(DIM, Metric::L2), Default::default()).unwrap();
    coll.insert(vec![doc("a", 1)]).unwrap();
    let pinned = Collection::open(dir.path(), &OpenOptions::read_only().follow(false)).unwrap();
    coll.insert(vec![doc("b", 2)]).unwrap();
    coll.flush().unwrap();
    coll.insert(vec![doc("c", 3)]).unwrap();
    assert_eq!((pinned.count(), pinned.stats().generation), (1, 1));
    let r = pinned.refresh().unwrap();
    assert!(r.changed);
    // Generation 3: the flush published its freeze, then its segment.
    assert_eq!((r.generation, r.wal_records, pinned.count()), (3, 1, 3));
    assert!(!pinned.refresh().unwrap().changed);
    assert_eq!(coll.refresh().unwrap().generation, 3, "a writer is always current");
}

/// The reader process: on each line `check` on stdin, prints the digest of what its next
/// query sees.
#[test]
#[ignore = "a child process of a_reader_process_sees_every_acknowledged_write, which starts it with --ignored --exact"]
fn follow_child() {
    let dir = std::env::var_os(CHILD_ENV).expect("started by a_reader_process_sees_every_acknowledged_write");
    let reader = Collection::open(&dir, &OpenOptions::read_only()).unwrap();
    let mut out = std::io::stdout();
    for line in std::io::stdin().lines() {
        assert_eq!(line.unwrap(), "check");
        writeln!(out, "seen {}", digest(&seen(&reader.snapshot()))).unwrap();
        out.flush().unwrap();
    }
}

#[test]
fn a_reader_process_sees_every_acknowledged_write() {
    let dir = tempfile::tempdir().unwrap();
    let coll = Collection::create(dir.path(), simple_schema(DIM, Metric::L2), Default::default()).unwrap();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["follow::follow_child", "--exact", "--ignored", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let (mut model, mut next, mut rng) = (BTreeMap::new(), 0, rng(5));
    for i in 0..150 {
        step(&coll, &mut model, &mut rng, &mut next);
        writeln!(stdin, "check").unwrap();
        let line = loop {
            let line = lines.next().expect("the reader process exited").unwrap();
            if let Some(seen) = line.rsplit(" ... ").next().and_then(|l| l.strip_prefix("seen ")) {
                break seen.to_string();
            }
        };
        assert_eq!(line, digest(&model), "step {i}");
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
}
