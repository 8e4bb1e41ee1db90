//! Queries under a real memory cap: a cgroup v1 memory cgroup set up and torn down by
//! `docs/benchmarks/cgroup-cap.sh`, which counts the page cache the process brings in as
//! well as its own memory. The test needs root and the cgroup v1 hierarchy, so `cargo
//! test` skips it (`#[ignore]`) and `.ci/capped-test` runs it by name, unless
//! `XVEC_NO_CGROUP=1` leaves it out (which that script prints).

use std::io::Write;
use std::path::Path;
use std::process::Command;

use rand::RngExt;

use crate::harness::{bin, xvec};
use crate::util::{repo_root, rng};

const ROWS: usize = 8000;
const DIM: usize = 256;
const QUERIES: usize = 200;
/// The cap of the capped run: below what the uncapped run uses by more than the vector
/// bytes (asserted below), so neither the vectors nor the node blocks stay cached.
const CAP: u64 = 20 << 20;

/// Writes `n` rows of clustered data (64 centres, noise around them) as `.fvecs`.
fn write_fvecs(path: &Path, seed: u64, n: usize) {
    let mut r = rng(seed);
    let centres: Vec<Vec<f32>> = (0..64).map(|_| (0..DIM).map(|_| r.random_range(-1.0f32..1.0)).collect()).collect();
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    for _ in 0..n {
        let c = &centres[r.random_range(0..centres.len())];
        out.write_all(&(DIM as i32).to_le_bytes()).unwrap();
        for &x in c {
            out.write_all(&(x + r.random_range(-0.3f32..0.3)).to_le_bytes()).unwrap();
        }
    }
    out.flush().unwrap();
}

/// What `cgroup-cap.sh --stats` wrote: `key=value` lines.
struct CapStats(Vec<(String, i64)>);

impl CapStats {
    fn get(&self, key: &str) -> i64 {
        self.0.iter().find(|(k, _)| k == key).unwrap_or_else(|| panic!("no {key} in the cgroup stats")).1
    }
}

/// Runs the shell script `script` over `dir` with `--memory-budget 1MiB`, inside a memory
/// cgroup of `limit` bytes, with the collection evicted from the page cache first.
fn capped_shell(dir: &Path, script: &Path, limit: u64) -> (String, CapStats) {
    let stats = dir.with_extension("stats");
    let out = Command::new("bash")
        .arg(repo_root().join("docs/benchmarks/cgroup-cap.sh"))
        .args(["--evict", dir.to_str().unwrap(), "--stats", stats.to_str().unwrap(), &limit.to_string(), "--"])
        .args([bin(), "--memory-budget", "1MiB", "shell", dir.to_str().unwrap(), "-f", script.to_str().unwrap()])
        .env("HOME", std::env::temp_dir())
        .env("XVEC_HISTORY", "/dev/null")
        .output()
        .expect("run cgroup-cap.sh");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code() != Some(125),
        "the memory cgroup could not be set up (XVEC_NO_CGROUP=1 leaves this test out): {stderr}"
    );
    let text = std::fs::read_to_string(&stats).unwrap_or_else(|e| panic!("{}: {e}; stderr: {stderr}", stats.display()));
    let pairs = text
        .lines()
        .map(|l| {
            let (k, v) = l.split_once('=').unwrap_or_else(|| panic!("bad stats line {l:?}"));
            (k.to_string(), v.parse().unwrap_or_else(|_| panic!("bad stats value {l:?}")))
        })
        .collect();
    let stats = CapStats(pairs);
    assert_eq!(stats.get("oom_kill"), 0, "the cap's OOM killer ended the query process; stderr: {stderr}");
    assert_eq!(out.status.code(), Some(0), "stderr: {stderr}");
    (String::from_utf8(out.stdout).unwrap(), stats)
}

/// A disk-resident index queried from a process whose cgroup cannot hold its vectors:
/// the answers are the uncapped run's, the cap was hit (memory reclaimed, `failcnt` > 0)
/// and nothing was OOM-killed.
#[test]
#[ignore = "needs root and cgroup v1's memory controller: run by .ci/capped-test"]
fn disk_index_answers_the_same_under_a_memory_cgroup() {
    let tmp = tempfile::tempdir().unwrap();
    let (base, queries) = (tmp.path().join("base.fvecs"), tmp.path().join("q.fvecs"));
    write_fvecs(&base, 1, ROWS);
    write_fvecs(&queries, 2, QUERIES);
    let script = tmp.path().join("queries.xvec");
    let lines: String =
        (0..QUERIES).map(|i| format!("query --vector-file {} --row {i} -k 10\n", queries.display())).collect();
    std::fs::write(&script, lines).unwrap();
    let c = tmp.path().join("c");
    let cs = c.to_str().unwrap();
    xvec(&["create", cs, "--vector", &format!("v:{DIM}:l2"), "--index", "disk"]).run().ok();
    xvec(&["import", cs, base.to_str().unwrap(), "--field", "v", "--flush"]).run().ok();
    xvec(&["optimize", cs]).run().ok();

    let (want, free) = capped_shell(&c, &script, 1 << 30);
    assert_eq!(free.get("failcnt"), 0, "the uncapped run hit its 1 GiB limit");
    assert_eq!(want.lines().filter(|l| l.starts_with("_key\t")).count(), QUERIES, "{want}");
    let vector_bytes = (ROWS * DIM * 4) as i64;
    let need = free.get("max_usage_bytes");
    assert!(
        need > CAP as i64 + vector_bytes,
        "the uncapped run used {need} bytes: a cap of {CAP} would hold the {vector_bytes} bytes of vectors"
    );

    let (got, capped) = capped_shell(&c, &script, CAP);
    assert_eq!(capped.get("limit_bytes"), CAP as i64);
    assert!(capped.get("failcnt") > 0, "the cap never bound: {}", capped.get("max_usage_bytes"));
    assert!(capped.get("evicted_cached_bytes") < 1 << 20, "the collection was not evicted before the run");
    assert_eq!(got, want, "answers under the cap differ from the uncapped run's");
}
