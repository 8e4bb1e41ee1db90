//! Hostile query sizes through the library. `ef = 1e9` used to reserve a 128 GiB visited
//! set and `per_group = 1e9` a 12 GB heap per group, aborting the process: one request
//! could take an embedding server down. Every size now has a bound checked before
//! anything is allocated.
//!
//! The checks run in a child copy of this test binary whose address space is capped
//! (RLIMIT_AS), so an allocation of that size aborts the child and fails the test instead
//! of passing on a machine with enough swap.

use std::os::unix::process::CommandExt;
use std::process::Command;
use std::time::{Duration, Instant};

use xvec::{
    Collection, Doc, Error, GroupBy, MAX_EF, MAX_GROUP_HITS, MAX_K, MAX_REFINE_CANDIDATES, OptimizeOptions, Query,
    QueryError, Schema,
};

use crate::util::random_vectors;

const CHILD_ENV: &str = "XVEC_BOUNDS_CHILD";
const CHILD_TEST: &str = "bounds::hostile_sizes_child";
/// The child's address space: room for the test harness and a small collection, far from
/// what an unbounded query would reserve.
const ADDRESS_SPACE: u64 = 768 << 20;
/// Peak resident memory the child may reach, hostile queries and queries at the bounds
/// included.
const MAX_RSS: u64 = 100 << 20;

const HUGE: [usize; 2] = [usize::MAX, 1 << 40];

#[test]
fn hostile_query_sizes_fail_fast_in_a_small_address_space() {
    let exe = std::env::current_exe().unwrap();
    let mut cmd = Command::new(exe);
    cmd.args([CHILD_TEST, "--exact", "--test-threads=1", "--nocapture"]).env(CHILD_ENV, "1");
    // SAFETY: setrlimit is async-signal-safe and touches no state of the parent.
    unsafe {
        cmd.pre_exec(|| {
            let lim = libc::rlimit { rlim_cur: ADDRESS_SPACE, rlim_max: ADDRESS_SPACE };
            if libc::setrlimit(libc::RLIMIT_AS, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = cmd.output().unwrap();
    let text = format!("{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "child failed ({:?}):\n{text}", out.status);
    assert!(text.contains("1 passed"), "the child test did not run:\n{text}");
}

fn schema(index: &str) -> Schema {
    Schema::from_json(&format!(
        r#"{{"name":"b","fields":[{{"name":"g","type":"int32"}},{{"name":"v","type":"vector_fp32","dim":16,"metric":"l2","index":{index}}}]}}"#
    ))
    .unwrap()
}

fn build(dir: &std::path::Path, index: &str) -> Collection {
    let coll = Collection::create(dir, schema(index), Default::default()).unwrap();
    let docs = random_vectors(7, 3000, 16)
        .into_iter()
        .enumerate()
        .map(|(i, v)| Doc::new(format!("{i}")).set("g", (i % 1500) as i32).set("v", v))
        .collect();
    coll.insert(docs).unwrap();
    coll.optimize(&OptimizeOptions::default().concurrency(1)).unwrap();
    coll
}

/// Runs `f`, which must fail fast with `TooLarge` naming `param` and `limit`.
fn too_large<T: std::fmt::Debug>(what: &str, param: &str, limit: usize, f: impl FnOnce() -> Result<T, Error>) {
    let t = Instant::now();
    let r = f();
    assert!(t.elapsed() < Duration::from_secs(1), "{what}: took {:?}", t.elapsed());
    match r {
        Err(Error::Query(QueryError::TooLarge { param: p, limit: l, .. })) if p == param && l == limit => {}
        other => panic!("{what}: expected TooLarge {{ {param}, {limit} }}, got {other:?}"),
    }
}

fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() * 1024
}

#[test]
fn hostile_sizes_child() {
    if std::env::var_os(CHILD_ENV).is_none() {
        return;
    }
    let q = || Query::key("5").k(10);
    for index in [
        r#"{"type":"hnsw","quantize":"int8","refine":40}"#,
        r#"{"type":"vamana","quantize":"int8","refine":40}"#,
        r#"{"type":"flat","quantize":"int8","refine":40}"#,
    ] {
        let dir = tempfile::tempdir().unwrap();
        let coll = build(dir.path(), index);
        let by = |groups, per_group| GroupBy::new("g", groups, per_group);
        for huge in HUGE.into_iter().chain([MAX_EF + 1]) {
            too_large(&format!("{index} ef {huge}"), "ef", MAX_EF, || coll.query(&q().ef(huge)));
            too_large(&format!("{index} grouped ef {huge}"), "ef", MAX_EF, || {
                coll.query_groups(&q().ef(huge), &by(2, 2))
            });
        }
        for huge in HUGE.into_iter().chain([MAX_REFINE_CANDIDATES / 10 + 1]) {
            too_large(&format!("{index} refine {huge}"), "refine × k", MAX_REFINE_CANDIDATES, || {
                coll.query(&q().refine(huge))
            });
        }
        // The field's default refine (40) counts too.
        let k = MAX_REFINE_CANDIDATES / 40 + 1;
        assert!(k <= MAX_K);
        too_large(&format!("{index} k {k}"), "refine × k", MAX_REFINE_CANDIDATES, || coll.query(&q().k(k)));
        too_large(&format!("{index} grouped refine"), "refine × ef", MAX_REFINE_CANDIDATES, || {
            coll.query_groups(&q().refine(1000), &by(MAX_K, 1))
        });
        for (groups, per_group) in [
            (1, usize::MAX),
            (usize::MAX, 1),
            (usize::MAX, usize::MAX),
            (3, 1_000_000_000),
            (1, MAX_GROUP_HITS + 1),
            (MAX_GROUP_HITS + 1, 1),
            (1001, 1000),
        ] {
            too_large(
                &format!("{index} groups {groups} × {per_group}"),
                "groups × per_group",
                MAX_GROUP_HITS,
                || coll.query_groups(&q(), &by(groups, per_group)),
            );
        }
        // At the bounds a query works, within the same memory.
        // A flat index takes no ef (the query would fail naming it).
        let ef = (!index.contains("flat")).then_some(MAX_EF);
        assert_eq!(coll.query(&q().k(MAX_K).refine(MAX_REFINE_CANDIDATES / MAX_K).ef(ef)).unwrap().len(), 3000);
        assert_eq!(coll.query(&q().k(1).refine(MAX_REFINE_CANDIDATES)).unwrap().len(), 1);
        // 1500 distinct values, each allowed a million hits: groups grow with their hits.
        let groups = coll.query_groups(&q().refine(1), &by(1, MAX_GROUP_HITS)).unwrap();
        assert_eq!(groups.len(), 1);
        let groups = coll.query_groups(&q().refine(1), &by(MAX_GROUP_HITS, 1)).unwrap();
        assert!(!groups.is_empty() && groups.len() <= 1500);
        assert!(peak_rss() < MAX_RSS, "{index}: peak RSS {} MiB", peak_rss() >> 20);
    }
}
