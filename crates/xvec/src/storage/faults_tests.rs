//! I/O faults at every file operation of a workload, SQLite-style: for each fault class
//! (ENOSPC, a short write, EIO, a failed fsync, and a disk that stays full) and each N up to
//! the number of operations the class applies to, the Nth one fails; then the collection is
//! reopened without faults and checked against a model of what was acknowledged.
//!
//! Every acknowledged write must be there, no acknowledged delete may come back, a failed
//! batch is there whole or not at all, nothing panics, and after one writable open verify
//! finds nothing, and a sparse query over the reopened indexes ranks as brute force over the
//! documents found. The workload writes array and sparse vector fields, scalar, full-text and
//! sparse indexes, and changes the schema (a field added, a range and a full-text index added) between its
//! writes; a disk index and a quantized graph are optimized and searched under the same faults. The table the sweep prints
//! is `docs/durability.md`'s.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

use xvec::storage::faults::{self, Fault};
use xvec::verify::{Repair, RepairOptions};
use xvec::{Branch, Collection, Doc, HybridQuery, OpenOptions, Query, Schema, SparseVector, SyncPolicy, Value};

const KEYS: usize = 25;
const DIM: usize = 8;

fn schema() -> Schema {
    Schema::from_json(
        r#"{"name":"f","fields":[{"name":"tag","type":"string","index":[{"type":"inverted"},{"type":"fts"}]},{"name":"n","type":"int64"},
            {"name":"labels","type":"array_string","nullable":true,"index":{"type":"inverted"}},
            {"name":"sp","type":"sparse_fp32","nullable":true},
            {"name":"v","type":"vector_fp32","dim":8,"metric":"l2","index":{"type":"hnsw","m":4,"ef_construction":16}}]}"#,
    )
    .unwrap()
}

fn key(i: usize) -> String {
    format!("k{i:03}")
}

fn doc(i: usize, version: u32) -> Doc {
    let v: Vec<f32> = (0..DIM).map(|j| ((i * DIM + j) as f32 * 0.37 + version as f32).sin()).collect();
    let d = Doc::new(key(i)).set("tag", format!("v{version}")).set("n", i as i64).set("v", v);
    let d = if i.is_multiple_of(3) { d } else { d.set("sp", Value::Sparse(sparse(i, version))) };
    if i.is_multiple_of(4) {
        return d;
    }
    let labels = vec![Value::String(format!("v{version}")), Value::String(format!("l{}", i % 3))];
    d.set("labels", Value::Array(labels))
}

/// Up to five of twelve dimensions, weights that differ by key and version.
fn sparse(i: usize, version: u32) -> SparseVector {
    let pairs = (0..12u32).filter(|d| (i + *d as usize + version as usize).is_multiple_of(3)).take(5);
    SparseVector::new(pairs.map(|d| (d, 1.0 + ((i * 7 + d as usize * 3 + version as usize) % 11) as f32 / 8.0)))
        .unwrap()
}

/// The workload's steps.
enum Step {
    Insert(std::ops::Range<usize>),
    Upsert(std::ops::Range<usize>, u32),
    Delete(&'static [usize]),
    Flush,
    Optimize,
    /// Adds a nullable field (no document changes: fetch leaves NULLs out).
    AddField(&'static str),
    /// Adds a range index to `n`.
    AddIndex,
    /// Adds a full-text index to `note`.
    AddTextIndex,
}

const WORKLOAD: &[Step] = &[
    Step::Insert(0..10),
    Step::Insert(10..20),
    Step::Delete(&[3, 12]),
    Step::Flush,
    Step::Upsert(5..15, 1),
    Step::AddField("note"),
    Step::AddTextIndex,
    Step::Optimize,
    Step::Delete(&[0, 7]),
    Step::Insert(20..25),
    Step::AddIndex,
    Step::Flush,
    Step::Upsert(18..22, 2),
];

type State = BTreeMap<String, Doc>;

fn apply(state: &mut State, step: &Step) {
    match step {
        Step::Insert(r) => state.extend(r.clone().map(|i| (key(i), doc(i, 0)))),
        Step::Upsert(r, v) => state.extend(r.clone().map(|i| (key(i), doc(i, *v)))),
        Step::Delete(keys) => keys.iter().for_each(|&i| drop(state.remove(&key(i)))),
        Step::Flush | Step::Optimize | Step::AddField(_) | Step::AddIndex | Step::AddTextIndex => {}
    }
}

/// Runs the workload; returns the acknowledged state and, for each failed write, the state
/// it would leave had it reached the disk after all.
fn run_workload(dir: &Path, sync: SyncPolicy) -> (State, Vec<State>, u64) {
    let mut acked = State::new();
    let mut alternatives = Vec::new();
    let mut failed = 0;
    let Ok(coll) = Collection::open(dir, &OpenOptions::writable().sync(sync)) else {
        return (acked, alternatives, 1);
    };
    for step in WORKLOAD {
        let outcome = match step {
            Step::Insert(r) => coll.insert(r.clone().map(|i| doc(i, 0)).collect()).map(drop),
            Step::Upsert(r, v) => coll.upsert(r.clone().map(|i| doc(i, *v)).collect()).map(drop),
            Step::Delete(keys) => {
                let keys: Vec<String> = keys.iter().map(|&i| key(i)).collect();
                coll.delete(&keys.iter().map(String::as_str).collect::<Vec<_>>()).map(drop)
            }
            Step::Flush => coll.flush(),
            Step::Optimize => coll.optimize(&xvec::OptimizeOptions::default().concurrency(1)).map(drop),
            Step::AddField(name) => {
                let field = xvec::Field::scalar(*name, xvec::ScalarType::String).nullable(true);
                coll.change_field(xvec::FieldChange::Add(field))
            }
            Step::AddIndex => coll.add_scalar_index("n", xvec::ScalarIndexKind::Range),
            Step::AddTextIndex => coll.add_text_index("note", xvec::TextIndex::new(Default::default())),
        };
        match outcome {
            Ok(()) => apply(&mut acked, step),
            // Refused up front by a stopped writer: nothing of it reached the disk.
            Err(xvec::Error::Storage(xvec::StorageError::FailStop { .. })) => failed += 1,
            Err(_) => {
                failed += 1;
                let mut alt = acked.clone();
                apply(&mut alt, step);
                if alt != acked {
                    alternatives.push(alt);
                }
            }
        }
    }
    // A following reader in the same directory: its open lists nothing, but its refresh
    // stats `CURRENT` and the WAL, and `stats` lists the directory; a fault there fails
    // the reader's call (or leaves it on the state it has), never a write.
    if let Ok(reader) = Collection::open(dir, &OpenOptions::read_only()) {
        let _ = reader.refresh();
        let _ = reader.stats();
    }
    let _ = coll.close();
    (acked, alternatives, failed)
}

/// What one injection point ended in.
#[derive(Default, Debug, Clone, Copy)]
struct Tally {
    points: u64,
    fired: u64,
    failed_calls: u64,
    lost: u64,
    resurrected: u64,
    partial: u64,
    panics: u64,
    reopen_failures: u64,
    verify_findings: u64,
}

impl Tally {
    fn bad(&self) -> u64 {
        self.lost + self.resurrected + self.partial + self.panics + self.reopen_failures + self.verify_findings
    }
}

/// Reopens `dir` without faults and compares it with the model; counts into `t`.
fn check(dir: &Path, acked: &State, alternatives: &[State], t: &mut Tally, what: &str) {
    let reopened = catch_unwind(AssertUnwindSafe(|| Collection::open(dir, &OpenOptions::writable())));
    let coll = match reopened {
        Ok(Ok(c)) => c,
        Ok(Err(e)) => {
            eprintln!("{what}: reopen failed: {e}");
            t.reopen_failures += 1;
            return;
        }
        Err(_) => {
            t.panics += 1;
            return;
        }
    };
    let keys: Vec<String> = (0..KEYS).map(key).collect();
    let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
    let found: State = coll.fetch(&refs, None).unwrap().into_iter().flatten().map(|d| (d.key.clone(), d)).collect();
    if coll.count() as usize != found.len() {
        eprintln!("{what}: {} documents, {} of them known", coll.count(), found.len());
        t.lost += 1;
    }
    if &found != acked && !alternatives.contains(&found) {
        eprintln!("{what}: state matches neither the acknowledged one nor a failed call applied whole");
        let explained = |k: &String| {
            let f = found.get(k);
            f == acked.get(k) || alternatives.iter().any(|a| f == a.get(k))
        };
        let unexplained: Vec<&String> = keys.iter().filter(|k| !explained(k)).collect();
        for k in &unexplained {
            match (acked.get(*k), found.get(*k)) {
                (Some(_), _) => t.lost += 1,
                (None, Some(_)) => t.resurrected += 1,
                (None, None) => {}
            }
        }
        if unexplained.is_empty() {
            t.partial += 1;
        }
    }
    if !sparse_ranks_as_brute_force(&coll, &found) {
        eprintln!("{what}: the sparse index disagrees with the documents");
        t.partial += 1;
    }
    // The writer recovered: it can write, and verify finds nothing afterwards.
    coll.flush().unwrap();
    drop(coll);
    let report = xvec::verify::run(dir, &xvec::verify::VerifyOptions::default().code_sample(4)).unwrap();
    let findings =
        report.findings.iter().filter(|f| f.severity.is_problem() || f.severity == xvec::verify::Severity::Warning);
    let n = findings.count() as u64;
    if n > 0 {
        eprintln!("{what}: verify: {:?}", report.findings);
    }
    t.verify_findings += n;
}

/// Whether a sparse query over `coll` scores what brute force over `found` scores.
fn sparse_ranks_as_brute_force(coll: &Collection, found: &State) -> bool {
    let q = SparseVector::new([(0, 1.0), (2, 0.5), (3, 2.0), (7, 1.5), (11, 0.25)]).unwrap();
    let mut want: Vec<f32> = found
        .values()
        .filter_map(|d| match d.get("sp") {
            Some(Value::Sparse(s)) => Some(s.dot(&q)),
            _ => None,
        })
        .filter(|&s| s > 0.0)
        .collect();
    want.sort_by(|a, b| b.total_cmp(a));
    want.truncate(8);
    let Ok(hits) = coll.hybrid(&HybridQuery::new(vec![Branch::sparse(q, 8)])) else { return false };
    hits.len() == want.len()
        && hits.iter().zip(&want).all(|(h, w)| h.branches[0].as_ref().is_some_and(|b| (b.score - w).abs() < 1e-5))
}

/// A fresh collection holding rows 0..12 in one optimized segment (indexes built), and
/// its writable handle.
fn optimized(root: &Path) -> (std::path::PathBuf, Collection) {
    let dir = fresh(root, 0);
    let coll = Collection::open(&dir, &OpenOptions::writable()).unwrap();
    coll.insert((0..12).map(|i| doc(i, 0)).collect()).unwrap();
    coll.flush().unwrap();
    coll.optimize(&Default::default()).unwrap();
    (dir, coll)
}

fn fresh(root: &Path, n: u64) -> std::path::PathBuf {
    let dir = root.join(format!("c{n}"));
    Collection::create(&dir, schema(), Default::default()).unwrap().close().unwrap();
    dir
}

/// Sweeps one fault class over the write workload.
fn sweep(fault: Fault, persistent: bool, sync: SyncPolicy) -> Tally {
    let root = tempfile::tempdir().unwrap();
    let dir = fresh(root.path(), 0);
    let ops = {
        let g = faults::inject(&dir, fault, 0, false);
        let (acked, _, failed) = run_workload(&dir, sync);
        assert_eq!(failed, 0);
        assert_eq!(acked.len(), 22);
        g.ops()
    };
    assert!(ops > 5, "{fault:?}: only {ops} operations");
    let mut t = Tally { points: ops, ..Tally::default() };
    for n in 1..=ops {
        let dir = fresh(root.path(), n);
        let what = format!("{} at op {n}/{ops}{}", fault.name(), if persistent { " (persistent)" } else { "" });
        let g = faults::inject(&dir, fault, n, persistent);
        let run = catch_unwind(AssertUnwindSafe(|| run_workload(&dir, sync)));
        t.fired += g.fired().min(1);
        drop(g);
        match run {
            Ok((acked, alternatives, failed)) => {
                t.failed_calls += failed;
                check(&dir, &acked, &alternatives, &mut t, &what);
            }
            Err(_) => t.panics += 1,
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    t
}

/// Repair under faults: a collection with one damaged WAL frame is repaired with the Nth
/// operation failing; a second repair without faults must then restore every other record.
fn sweep_repair(fault: Fault) -> Tally {
    let root = tempfile::tempdir().unwrap();
    let make = |n: u64| {
        let dir = fresh(root.path(), n);
        let coll = Collection::open(&dir, &OpenOptions::writable()).unwrap();
        coll.insert((0..10).map(|i| doc(i, 0)).collect()).unwrap();
        coll.flush().unwrap();
        for i in 10..20 {
            coll.insert(vec![doc(i, 0)]).unwrap();
        }
        drop(coll);
        let m = xvec::storage::manifest::load(&dir).unwrap();
        let wal = dir.join(xvec::storage::wal_name(m.wal_seq));
        let mut bytes = std::fs::read(&wal).unwrap();
        // The payload of the fourth record frame (k013): each record frame and its sync mark.
        let frames = crate::testutil::wal_frames(&bytes);
        bytes[frames[6] + 40] ^= 0xff;
        std::fs::write(&wal, bytes).unwrap();
        dir
    };
    let mut expected: State = (0..20).map(|i| (key(i), doc(i, 0))).collect();
    expected.remove(&key(13));
    let repair = |dir: &Path| -> Result<(), xvec::StorageError> {
        Repair::begin(dir, RepairOptions::default().concurrency(1))?.apply().map(drop)
    };
    let dir = make(0);
    let ops = {
        let g = faults::inject(&dir, fault, 0, false);
        repair(&dir).unwrap();
        g.ops()
    };
    let mut t = Tally { points: ops, ..Tally::default() };
    for n in 1..=ops {
        let dir = make(n);
        let g = faults::inject(&dir, fault, n, false);
        let first = catch_unwind(AssertUnwindSafe(|| repair(&dir)));
        t.fired += g.fired().min(1);
        drop(g);
        match first {
            Err(_) => t.panics += 1,
            Ok(r) => {
                t.failed_calls += r.is_err() as u64;
                if let Err(e) = repair(&dir) {
                    eprintln!("repair {} at op {n}: second repair failed: {e}", fault.name());
                    t.reopen_failures += 1;
                    continue;
                }
                check(&dir, &expected, &[], &mut t, &format!("repair {} at op {n}/{ops}", fault.name()));
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    t
}

/// Verify and inspect under faults: a collection with a segment, its indexes, a WAL and a
/// `lost+found` file is examined (verify, then inspect's segments, graphs and WAL) with the
/// Nth operation failing. Nothing panics, every injection point fires, and verify without
/// faults afterwards finds nothing: a read-only pass changes nothing.
fn sweep_read(fault: Fault) -> Tally {
    let root = tempfile::tempdir().unwrap();
    let (dir, coll) = optimized(root.path());
    coll.insert((12..15).map(|i| doc(i, 0)).collect()).unwrap();
    drop(coll);
    std::fs::create_dir_all(dir.join("lost+found/old")).unwrap();
    std::fs::write(dir.join("lost+found/old/SEG-000009.xseg"), b"kept").unwrap();
    let pass = |dir: &Path| -> bool {
        let verified = xvec::verify::run(dir, &xvec::verify::VerifyOptions::default().code_sample(4)).is_ok();
        let Ok(c) = Collection::open(dir, &OpenOptions::read_only()) else { return false };
        let _ = xvec::inspect::segments(&c);
        let graphs = xvec::inspect::graphs(&c, "v").is_ok();
        verified && graphs && xvec::inspect::wal(&c).is_ok()
    };
    let ops = {
        let g = faults::inject(&dir, fault, 0, false);
        assert!(pass(&dir));
        g.ops()
    };
    let mut t = Tally { points: ops, ..Tally::default() };
    for n in 1..=ops {
        let g = faults::inject(&dir, fault, n, false);
        let run = catch_unwind(AssertUnwindSafe(|| pass(&dir)));
        t.fired += g.fired().min(1);
        drop(g);
        match run {
            Ok(ok) => t.failed_calls += !ok as u64,
            Err(_) => t.panics += 1,
        }
        let report = xvec::verify::run(&dir, &xvec::verify::VerifyOptions::default().code_sample(4)).unwrap();
        let n = report.findings.iter().filter(|f| f.severity.is_problem()).count() as u64;
        if n > 0 {
            eprintln!("read {} at op {n}/{ops}: verify: {:?}", fault.name(), report.findings);
        }
        t.verify_findings += n;
    }
    t
}

/// A graph kind with files of its own under faults: a flushed segment of 40 rows is
/// optimized into the index, then searched by a reader, with the Nth operation failing.
/// The disk kind streams its node blocks into the index file and is searched without a
/// node cache (every hop a batch of block reads); the quantized graph writes its blocks
/// and rotation. Reopened without faults, every row is there and its own nearest
/// neighbour, and verify, which walks the graph, finds nothing.
fn sweep_index(fault: Fault, kind: GraphKind) -> Tally {
    const ROWS: usize = 40;
    let root = tempfile::tempdir().unwrap();
    let index = match kind {
        GraphKind::Disk => r#"{"type":"disk","degree":8,"build_list":16}"#,
        GraphKind::Qg => r#"{"type":"qg","build_list":16}"#,
    };
    let schema = Schema::from_json(&format!(
        r#"{{"name":"d","fields":[{{"name":"v","type":"vector_fp32","dim":8,"metric":"l2","index":{index}}}]}}"#
    ))
    .unwrap();
    let reader = match kind {
        GraphKind::Disk => OpenOptions::read_only().memory_budget(0),
        GraphKind::Qg => OpenOptions::read_only(),
    };
    let vector = |i: usize| doc(i, 0).get("v").and_then(Value::vector_f32).unwrap();
    let make = |n: u64| {
        let dir = root.path().join(format!("d{n}"));
        let coll = Collection::create(&dir, schema.clone(), Default::default()).unwrap();
        coll.insert((0..ROWS).map(|i| Doc::new(key(i)).set("v", vector(i))).collect()).unwrap();
        coll.flush().unwrap();
        coll.close().unwrap();
        dir
    };
    let workload = |dir: &Path| -> u64 {
        let mut failed = 0;
        match Collection::open(dir, &OpenOptions::writable()) {
            Ok(c) => {
                failed += c.optimize(&xvec::OptimizeOptions::default().concurrency(1)).is_err() as u64;
                failed += c.close().is_err() as u64;
            }
            Err(_) => failed += 1,
        }
        match Collection::open(dir, &reader) {
            Ok(r) => failed += r.query(&Query::vector(vector(5)).k(3)).is_err() as u64,
            Err(_) => failed += 1,
        }
        failed
    };
    let dir = make(0);
    let ops = {
        let g = faults::inject(&dir, fault, 0, false);
        assert_eq!(workload(&dir), 0);
        g.ops()
    };
    let built = Collection::open(&dir, &OpenOptions::read_only()).unwrap().snapshot().index_completeness(0);
    assert_eq!(built, 1.0, "the workload builds the {} index", kind.name());
    let mut t = Tally { points: ops, ..Tally::default() };
    for n in 1..=ops {
        let dir = make(n);
        let what = format!("{} {} at op {n}/{ops}", kind.name(), fault.name());
        let g = faults::inject(&dir, fault, n, false);
        let run = catch_unwind(AssertUnwindSafe(|| workload(&dir)));
        t.fired += g.fired().min(1);
        drop(g);
        match run {
            Ok(failed) => t.failed_calls += failed,
            Err(_) => t.panics += 1,
        }
        let coll = match catch_unwind(AssertUnwindSafe(|| Collection::open(&dir, &OpenOptions::writable()))) {
            Ok(Ok(c)) => c,
            Ok(Err(e)) => {
                eprintln!("{what}: reopen failed: {e}");
                t.reopen_failures += 1;
                continue;
            }
            Err(_) => {
                t.panics += 1;
                continue;
            }
        };
        for i in 0..ROWS {
            let hits = coll.query(&Query::vector(vector(i)).k(1));
            if !hits.is_ok_and(|h| h.first().is_some_and(|h| h.key == key(i))) {
                eprintln!("{what}: row {i} is not its own nearest neighbour");
                t.lost += 1;
            }
        }
        coll.close().unwrap();
        let report = xvec::verify::run(&dir, &xvec::verify::VerifyOptions::default().code_sample(4)).unwrap();
        let n = report.findings.iter().filter(|f| f.severity <= xvec::verify::Severity::Warning).count() as u64;
        if n > 0 {
            eprintln!("{what}: verify: {:?}", report.findings);
        }
        t.verify_findings += n;
        let _ = std::fs::remove_dir_all(&dir);
    }
    t
}

/// The kinds [`sweep_index`] runs.
#[derive(Clone, Copy)]
enum GraphKind {
    Disk,
    Qg,
}

impl GraphKind {
    fn name(self) -> &'static str {
        match self {
            GraphKind::Disk => "disk",
            GraphKind::Qg => "qg",
        }
    }
}

fn table(rows: &[(String, Tally)]) -> String {
    let mut s = String::from(
        "| workload | fault | injection points | fired | failed calls | acknowledged writes lost | deletes resurrected | partial batches | panics | reopen failures | verify findings |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for (name, t) in rows {
        s.push_str(&format!(
            "| {name} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            t.points,
            t.fired,
            t.failed_calls,
            t.lost,
            t.resurrected,
            t.partial,
            t.panics,
            t.reopen_failures,
            t.verify_findings
        ));
    }
    s
}

fn run_table(policies: &[(SyncPolicy, &str)]) {
    let mut rows = Vec::new();
    for &(sync, policy) in policies {
        for fault in Fault::ALL {
            rows.push((format!("writes ({policy}) | {}", fault.name()), sweep(fault, false, sync)));
        }
        rows.push((format!("writes ({policy}) | ENOSPC, persistent"), sweep(Fault::NoSpace, true, sync)));
    }
    for fault in Fault::ALL {
        rows.push((format!("repair | {}", fault.name()), sweep_repair(fault)));
    }
    for kind in [GraphKind::Disk, GraphKind::Qg] {
        for fault in Fault::ALL {
            rows.push((
                format!("optimize, query ({} index) | {}", kind.name(), fault.name()),
                sweep_index(fault, kind),
            ));
        }
    }
    // The faults a read can meet: a failed read, open or listing, a file it may not open,
    // no descriptor left.
    for fault in [Fault::Io, Fault::Denied, Fault::NoDescriptors] {
        rows.push((format!("verify, inspect | {}", fault.name()), sweep_read(fault)));
    }
    let text = table(&rows);
    eprintln!("{text}");
    for (name, t) in &rows {
        assert_eq!(t.bad(), 0, "{name}: {t:?}\n{text}");
        assert_eq!(t.fired, t.points, "{name}: every injection point must fire: {t:?}");
    }
}

/// Listing the directory and reading a file's metadata by path go through the seam, so the
/// sweep reaches them: a reader's refresh stats `CURRENT` (an EIO there fails it, naming
/// the file) and `stats` lists the directory (a failed listing counts no bytes).
#[test]
fn listing_and_stat_go_through_the_seam() {
    let root = tempfile::tempdir().unwrap();
    let dir = fresh(root.path(), 0);
    let coll = Collection::open(&dir, &OpenOptions::writable()).unwrap();
    coll.insert((0..3).map(|i| doc(i, 0)).collect()).unwrap();
    assert!(coll.stats().disk_bytes > 0);
    {
        let _g = faults::inject(&dir, Fault::Io, 1, true);
        assert_eq!((coll.stats().disk_bytes, coll.stats().wal_bytes), (0, 0));
    }
    let reader = Collection::open(&dir, &OpenOptions::read_only()).unwrap();
    let _g = faults::inject(&dir.join("CURRENT"), Fault::Io, 1, true);
    let err = reader.refresh().unwrap_err().to_string();
    assert!(err.contains("CURRENT"), "{err}");
}

/// The read-only listings of verify and inspect go through the seam, so the sweep fails
/// them: verify's listing of the directory, its look at whether a file is gone and its size
/// of `lost+found`, and the sizes and times `inspect::segments` reads.
#[test]
fn verify_and_inspect_listings_go_through_the_seam() {
    use crate::verify::exam;
    let root = tempfile::tempdir().unwrap();
    let (dir, coll) = optimized(root.path());
    let lost = dir.join("lost+found");
    std::fs::create_dir_all(lost.join("old")).unwrap();
    std::fs::write(lost.join("old/x"), b"kept").unwrap();
    {
        let _g = faults::inject(&dir, Fault::Io, 1, true);
        let err = exam::list_dir(&dir).unwrap_err().to_string();
        assert!(err.contains(&*dir.to_string_lossy()), "{err}");
    }
    assert_eq!(exam::orphans::lost_found_size(&lost), Some((1, 4)));
    {
        let _g = faults::inject(&lost, Fault::Io, 1, true);
        assert_eq!(exam::orphans::lost_found_size(&lost), None);
    }
    let missing = dir.join("SEG-000099.xseg");
    let enoent = xvec::StorageError::io(&missing, std::io::Error::from(std::io::ErrorKind::NotFound));
    assert!(exam::gone(&missing, &enoent));
    {
        // Whether it is gone cannot be told: repair must keep what the manifest names.
        let _g = faults::inject(&missing, Fault::Io, 1, true);
        assert!(!exam::gone(&missing, &enoent));
    }
    let seg = &xvec::inspect::segments(&coll)[0];
    let (index, size) = seg.indexes[0].clone();
    assert!(size > 0 && seg.created.is_some());
    let _a = faults::inject(&dir.join(&index), Fault::Io, 1, true);
    let _b = faults::inject(&dir.join(&seg.file), Fault::Io, 1, true);
    let seg = &xvec::inspect::segments(&coll)[0];
    assert_eq!((seg.indexes[0].1, seg.created), (0, None));
}

/// The CI sweep: every fault class at every operation of the workload, default sync policy.
#[test]
fn every_io_fault_at_every_operation_loses_nothing_acknowledged() {
    run_table(&[(SyncPolicy::EveryBatch, "EveryBatch")]);
}

/// The longer sweep over every sync policy. Run with
/// `cargo test --release -p xvec --lib storage::faults_tests::every_sync_policy -- --ignored --nocapture`.
#[test]
#[ignore]
fn every_sync_policy() {
    run_table(&[
        (SyncPolicy::EveryBatch, "EveryBatch"),
        (SyncPolicy::EveryRecords(15), "EveryRecords(15)"),
        (SyncPolicy::OnFlush, "OnFlush"),
    ]);
}
