//! Crash safety, tested by killing a real writer process: every write acknowledged after a
//! WAL sync must be present after reopening, and a torn tail must be dropped cleanly.
//!
//! A child process is an `#[ignore]`d test of this binary, started with `--ignored --exact`
//! and its environment variable; run without them it fails (it is no test of its own).

mod kill_loop;
mod set_index;

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};

use xvec::{Collection, Doc, Metric, OpenOptions, Value};

use crate::util::simple_schema;

const CHILD_ENV: &str = "XVEC_CRASH_CHILD_DIR";
const BATCH: usize = 40;

fn doc(i: usize) -> Doc {
    let v: Vec<f32> = (0..16).map(|j| (i * 16 + j) as f32 * 0.001).collect();
    Doc::new(format!("k{i:06}")).set("tag", format!("tag-{}", i % 7)).set("n", i as i64).set("v", v)
}

/// Starts the `#[ignore]`d child test `name` of this binary with `env` set to `value`,
/// its stdout piped.
fn spawn_child(name: &str, env: &str, value: &OsStr) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args([name, "--exact", "--ignored", "--nocapture", "--test-threads=1"])
        .env(env, value)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// A line the child printed: the harness prints `test <name> ... ` before the first one.
pub(super) fn child_line(line: &str) -> &str {
    line.rsplit(" ... ").next().unwrap_or_default()
}

/// The writer process: inserts batches, flushing now and then, and reports each
/// acknowledged batch on stdout.
#[test]
#[ignore = "a child process of killed_writer_loses_no_acknowledged_write, which starts it with --ignored --exact"]
fn crash_child() {
    let dir = std::env::var_os(CHILD_ENV)
        .expect("started by killed_writer_loses_no_acknowledged_write with XVEC_CRASH_CHILD_DIR set");
    let coll = Collection::open(&dir, &OpenOptions::writable()).unwrap();
    let start = coll.count() as usize;
    let mut out = std::io::stdout();
    for b in 0.. {
        let first = start + b * BATCH;
        let res = coll.insert((first..first + BATCH).map(doc).collect()).unwrap();
        assert!(res.iter().all(|r| r.is_ok()));
        writeln!(out, "acked {}", first + BATCH).unwrap();
        out.flush().unwrap();
        if b % 5 == 4 {
            coll.flush().unwrap();
        }
    }
}

#[test]
fn killed_writer_loses_no_acknowledged_write() {
    let dir = tempfile::tempdir().unwrap();
    Collection::create(dir.path(), simple_schema(16, Metric::L2), Default::default()).unwrap().close().unwrap();
    let mut acked_total = 0;
    for (round, kill_after) in [3usize, 7, 12, 5].into_iter().enumerate() {
        let mut child = spawn_child("crash::crash_child", CHILD_ENV, dir.path().as_os_str());
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut seen = 0;
        for line in stdout.lines() {
            let line = line.unwrap();
            let line = child_line(&line);
            if let Some(n) = line.strip_prefix("acked ") {
                acked_total = n.parse().unwrap();
                seen += 1;
                if seen == kill_after {
                    break;
                }
            }
        }
        child.kill().unwrap();
        child.wait().unwrap();

        let coll = Collection::open(dir.path(), &OpenOptions::writable()).unwrap();
        let count = coll.count() as usize;
        assert!(count >= acked_total, "round {round}: {count} documents, {acked_total} acknowledged");
        // The child may have finished more batches before the kill landed; whatever
        // survived must be a prefix of the writes, each document whole (checked below).
        let keys: Vec<String> = (0..count).map(|i| format!("k{i:06}")).collect();
        let refs: Vec<&str> = keys.iter().map(|k| k.as_str()).collect();
        for (i, d) in coll.fetch(&refs, None).unwrap().into_iter().enumerate() {
            let d = d.unwrap_or_else(|| panic!("round {round}: k{i:06} missing of {count}"));
            assert_eq!(d.get("n"), Some(&Value::Int64(i as i64)));
            assert_eq!(d, doc(i));
        }
        // The next round continues from what survived.
        acked_total = count;
    }
}

const OPTIMIZE_ENV: &str = "XVEC_CRASH_OPTIMIZE_DIR";

/// The optimizing process: announces itself, then optimizes (HNSW + int8) until killed.
#[test]
#[ignore = "a child process of the killed_optimize tests, which start it with --ignored --exact"]
fn crash_optimize_child() {
    let dir =
        std::env::var_os(OPTIMIZE_ENV).expect("started by a killed_optimize test with XVEC_CRASH_OPTIMIZE_DIR set");
    let coll = Collection::open(&dir, &OpenOptions::writable()).unwrap();
    println!("ready");
    std::io::stdout().flush().unwrap();
    let progress = |p: &xvec::OptimizeProgress| {
        let mut out = std::io::stdout();
        writeln!(out, "progress {} {}", p.segments_done, p.vectors_indexed).unwrap();
        out.flush().unwrap();
    };
    coll.optimize(&xvec::OptimizeOptions::default().concurrency(1).progress(Some(&progress))).unwrap();
    println!("optimized");
    std::io::stdout().flush().unwrap();
}

/// Killing optimize at any point leaves either the old or the new generation, whole. The
/// collection is cut into five segments so the kill can land between any two of them.
#[test]
fn killed_optimize_leaves_old_or_new_never_a_mix() {
    killed_optimize(700, 7, 3);
}

/// The same when optimize keeps both flushed segments (no deletes, at least half full) and
/// only builds their indexes: a kill may leave an unpublished index file of a kept segment,
/// which the next optimize writes over.
#[test]
fn killed_optimize_of_kept_segments_leaves_old_or_new() {
    killed_optimize(2000, usize::MAX, 1);
}

/// [`doc`] with a sparse vector: one of dimensions 0-49 and one of 50-109, weights from
/// the row number.
fn sparse_doc(i: usize) -> Doc {
    let sp = xvec::SparseVector::new([((i % 50) as u32, 1.0 + (i % 13) as f32), ((50 + i / 50) as u32, 0.5)]);
    doc(i).set("sp", Value::Sparse(sp.unwrap()))
}

/// Builds two flushed segments of 1,500 rows (with key `deleted` deleted, if any) under
/// `max_docs_per_segment = max_docs`, kills an optimizing child at progress points, and
/// checks what reopens; at least `min_old` kills must land before the publish.
fn killed_optimize(max_docs: u64, deleted: usize, min_old: usize) {
    let schema = xvec::Schema::from_json(
        r#"{"name":"c","fields":[{"name":"tag","type":"string","index":{"type":"fts"}},{"name":"n","type":"int64"},
            {"name":"sp","type":"sparse_fp32"},
            {"name":"v","type":"vector_fp32","dim":16,"metric":"l2","index":{"type":"hnsw","m":8,"quantize":"int8"}}]}"#,
    )
    .unwrap();
    let mut outcomes = [0usize; 2];
    let options = xvec::CollectionOptions::default().max_docs_per_segment(max_docs);
    let live = if deleted < 3000 { 2999 } else { 3000 };
    for (round, after) in [0usize, 1, 2, 3, 4, 5, 6].into_iter().enumerate() {
        let dir = tempfile::tempdir().unwrap();
        let coll = Collection::create(dir.path(), schema.clone(), options.clone()).unwrap();
        coll.insert((0..1500).map(sparse_doc).collect()).unwrap();
        coll.flush().unwrap();
        coll.insert((1500..3000).map(sparse_doc).collect()).unwrap();
        if deleted < 3000 {
            coll.delete(&[&format!("k{deleted:06}")]).unwrap();
        }
        drop(coll);
        let mut child = spawn_child("crash::crash_optimize_child", OPTIMIZE_ENV, dir.path().as_os_str());
        // Kill after the `after`-th progress report (0: as soon as optimize starts).
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut seen = 0;
        while let Some(Ok(line)) = lines.next() {
            let line = child_line(&line);
            if line == "ready" && after == 0 {
                break;
            }
            if line.starts_with("progress") {
                seen += 1;
                if seen == after {
                    break;
                }
            }
        }
        child.kill().unwrap();
        child.wait().unwrap();

        let coll = Collection::open(dir.path(), &OpenOptions::writable()).unwrap();
        assert_eq!(coll.count(), live, "round {round}");
        let complete = coll.snapshot().index_completeness(3);
        assert!(complete == 0.0 || complete == 1.0, "round {round}: index completeness {complete}");
        outcomes[(complete == 1.0) as usize] += 1;
        let keys: Vec<String> = (0..3000).map(|i| format!("k{i:06}")).collect();
        let refs: Vec<&str> = keys.iter().map(|k| k.as_str()).collect();
        for (i, d) in coll.fetch(&refs, None).unwrap().into_iter().enumerate() {
            if i == deleted {
                assert!(d.is_none(), "round {round}: deleted key came back");
            } else {
                assert_eq!(d.unwrap(), sparse_doc(i), "round {round}");
            }
        }
        let hit = coll.query(&xvec::Query::vector(doc(42).get("v").unwrap().vector_f32().unwrap()).k(1)).unwrap();
        assert_eq!(hit[0].key, "k000042", "round {round}");
        let q = xvec::SparseVector::new([(7, 1.0), (11, 2.0), (61, 3.0)]).unwrap();
        let hits = coll.hybrid(&xvec::HybridQuery::new(vec![xvec::Branch::sparse(q.clone(), 20)]).k(20)).unwrap();
        let got: Vec<f32> = hits.iter().map(|h| h.branches[0].expect("a sparse hit").score).collect();
        let mut want: Vec<f32> = (0..3000)
            .filter(|&i| i != deleted)
            .map(|i| match sparse_doc(i).get("sp") {
                Some(Value::Sparse(s)) => s.dot(&q),
                _ => unreachable!(),
            })
            .collect();
        want.sort_by(|a, b| b.total_cmp(a));
        assert_eq!(got, want[..20], "round {round}: the sparse index after the kill");
        coll.optimize(&xvec::OptimizeOptions::default()).unwrap();
        assert_eq!(coll.snapshot().index_completeness(3), 1.0);
        assert_eq!(coll.count(), live);
        let report = xvec::verify::run(dir.path(), &Default::default()).unwrap();
        assert!(report.is_clean(), "round {round}: {:?}", report.findings);
    }
    eprintln!("optimize kill outcomes: {} old, {} new", outcomes[0], outcomes[1]);
    assert!(outcomes[0] >= min_old, "too few kills landed before the publish: {outcomes:?}");
}
