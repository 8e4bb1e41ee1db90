//! Crash safety, tested by killing a real writer process: every write acknowledged after a
//! WAL sync must be present after reopening, and a torn tail must be dropped cleanly.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use xvec::{Collection, Doc, Metric, OpenOptions, Value};

use crate::util::simple_schema;

const CHILD_ENV: &str = "XVEC_CRASH_CHILD_DIR";
const BATCH: usize = 40;

fn doc(i: usize) -> Doc {
    let v: Vec<f32> = (0..16).map(|j| (i * 16 + j) as f32 * 0.001).collect();
    Doc::new(format!("k{i:06}")).set("tag", format!("tag-{}", i % 7)).set("n", i as i64).set("v", v)
}

/// The writer process: inserts batches, flushing now and then, and reports each
/// acknowledged batch on stdout. Does nothing unless started by the test below.
#[test]
fn crash_child() {
    let Some(dir) = std::env::var_os(CHILD_ENV) else { return };
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
    let exe = std::env::current_exe().unwrap();
    let mut acked_total = 0;
    for (round, kill_after) in [3usize, 7, 12, 5].into_iter().enumerate() {
        let mut child = Command::new(&exe)
            .args(["crash::crash_child", "--exact", "--nocapture", "--test-threads=1"])
            .env(CHILD_ENV, dir.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut seen = 0;
        for line in stdout.lines() {
            let line = line.unwrap();
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
        assert!(count <= acked_total + BATCH, "round {round}: {count} documents after {acked_total} acked");
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
