//! The kill loop: writer, optimizer and `xvec` child processes take turns on one
//! collection, and most are killed with SIGKILL at a random moment. Half the optimizers
//! go on inserting, upserting, deleting and flushing while their optimize builds, so kills
//! also land between a write acknowledged during the build and the publish that must
//! carry it. After every kill:
//!
//! - verify finds no corruption, and every leftover it reports is rolled back by the next
//!   writable open, which must succeed (never "locked", never "File exists");
//! - the documents are the acknowledged writes plus a prefix of the killed children's
//!   unacknowledged batches, whole batches only: no acknowledged write lost, no
//!   acknowledged delete undone, no unknown key, every document exactly one of its
//!   attempted versions;
//! - verify after that open finds nothing at all, not even a warning.
//!
//! The seed fixes the children, their writes and the kill choices, not the moments the
//! kills land: `XVEC_KILL_SEED=<seed>` replays a run's plan (see docs/crash-testing.md).

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use xvec::verify::Severity;
use xvec::{
    Branch, Collection, CollectionOptions, Doc, HybridQuery, OpenOptions, OptimizeOptions, OptimizeProgress, Query,
    Schema, SparseVector, SyncPolicy, Value,
};

const DIR_ENV: &str = "XVEC_KILL_DIR";
const PLAN_ENV: &str = "XVEC_KILL_PLAN";
const SEED_ENV: &str = "XVEC_KILL_SEED";
const KILLS_ENV: &str = "XVEC_KILLS";

/// Keys are `k00000` up to this: the loop writes no other, so any other key is unknown.
const KEYS: u32 = 3000;
const DIM: usize = 16;
/// Dimension of `d`, the head of `v` under a disk index: kills land in its builds too,
/// and verify after each one walks its node blocks.
const DISK_DIM: usize = 8;
/// Dimension of `g`, the tail of `v` under a quantized graph: kills land in its builds,
/// and verify walks its blocks.
const QG_DIM: usize = 8;
/// Documents the collection starts with.
const INITIAL: u32 = 2500;
/// A child still running after this long is hung.
const CHILD_DEADLINE: Duration = Duration::from_secs(120);

/// 150 kills, about 15 s on two cores; the `#[ignore]`d `kill_loop_long` does 1,000.
#[test]
fn kill_loop() {
    run(kills_wanted(150));
}

#[test]
#[ignore = "long: 1,000 kills in a few minutes; the command is in docs/crash-testing.md"]
fn kill_loop_long() {
    run(kills_wanted(1000));
}

fn kills_wanted(default: usize) -> usize {
    std::env::var(KILLS_ENV).ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}

/// Key → version of each live document. Versions are unique across the run.
type State = BTreeMap<u32, u64>;

/// One write call: applied whole or not at all.
#[derive(Clone, Debug)]
enum Batch {
    Insert(Vec<(u32, u64)>),
    Upsert(Vec<(u32, u64)>),
    Delete(Vec<u32>),
}

/// What the library child does, one step per plan line.
#[derive(Clone, Debug)]
enum Step {
    Write(Batch),
    Flush,
    Optimize,
    /// Starts an optimize on another thread; the steps after it run while it builds.
    OptimizeBehind,
    /// Waits for the optimize started behind.
    Join,
}

fn key(k: u32) -> String {
    format!("k{k:05}")
}

/// The live documents of `coll`, each checked to be whole: a known key, listed once,
/// with exactly the values of the version it names.
fn documents(coll: &Collection) -> State {
    let snap = coll.snapshot();
    let keys = snap.keys_where(None).unwrap();
    let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
    let mut out = State::new();
    for (name, d) in keys.iter().zip(snap.fetch(&refs, None).unwrap()) {
        let k = name
            .strip_prefix('k')
            .and_then(|n| n.parse::<u32>().ok())
            .filter(|&k| k < KEYS && key(k) == *name)
            .unwrap_or_else(|| panic!("unknown key {name:?}"));
        let d = d.unwrap_or_else(|| panic!("{name}: listed but not fetched"));
        let Some(&Value::Int64(ver)) = d.get("n") else { panic!("{name}: no version in {d:?}") };
        assert_eq!(d, doc(k, ver as u64), "{name}: the values of no version");
        assert!(out.insert(k, ver as u64).is_none(), "{name}: listed twice");
    }
    assert_eq!(snap.count() as usize, out.len(), "count disagrees with the keys listed");
    out
}

fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// Version `ver` of key `k`: every field follows from the two. Vector elements are
/// multiples of 1/256, exact in f32 and in decimal, so JSON round-trips them.
fn doc(k: u32, ver: u64) -> Doc {
    let mut h = splitmix(((k as u64) << 40) ^ ver);
    let v: Vec<f32> = (0..DIM)
        .map(|_| {
            h = splitmix(h);
            ((h >> 40) % 2048) as f32 / 256.0 - 4.0
        })
        .collect();
    let disk = v[..DISK_DIM].to_vec();
    let qg = v[DIM - QG_DIM..].to_vec();
    let d = Doc::new(key(k)).set("tag", format!("t{}", ver % 7)).set("n", ver as i64).set("d", disk).set("g", qg);
    let d = d.set("v", v);
    let d = match sparse(k, ver) {
        Some(s) => d.set("sp", Value::Sparse(s)),
        None => d,
    };
    match labels(ver) {
        Some(l) => d.set("labels", Value::Array(l.into_iter().map(Value::String).collect())),
        None => d,
    }
}

/// The sparse field of version `ver` of key `k`: NULL for one version in five, else one to
/// six of 64 dimensions with weights that are multiples of 1/64.
fn sparse(k: u32, ver: u64) -> Option<SparseVector> {
    if ver.is_multiple_of(5) {
        return None;
    }
    let mut h = splitmix(((k as u64) << 40) ^ ver ^ 0x5eed);
    let mut pairs = BTreeMap::new();
    for _ in 0..=h % 6 {
        h = splitmix(h);
        pairs.insert((h % 64) as u32, ((h >> 40) % 256) as f32 / 64.0 + 0.25);
    }
    Some(SparseVector::new(pairs).unwrap())
}

/// Version `ver` of key `k` as written: [`doc`] with a NULL array given explicitly, since
/// an upsert keeps the fields a document leaves out.
fn written(k: u32, ver: u64) -> Doc {
    let d = doc(k, ver);
    let d = if sparse(k, ver).is_none() { d.set("sp", Value::Null) } else { d };
    if labels(ver).is_none() { d.set("labels", Value::Null) } else { d }
}

/// The array field of version `ver`: NULL for one version in nine, else 0 to 3 labels.
fn labels(ver: u64) -> Option<Vec<String>> {
    (!ver.is_multiple_of(9)).then(|| (0..ver % 4).map(|i| format!("l{}", (ver + i) % 5)).collect())
}

fn doc_json(k: u32, ver: u64) -> String {
    let d = doc(k, ver);
    let v = d.get("v").and_then(Value::vector_f32).expect("vector");
    let v: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    let (disk, qg) = (v[..DISK_DIM].join(","), v[DIM - QG_DIM..].join(","));
    let labels = format!(r#","labels":{}"#, serde_json::json!(labels(ver)));
    let sp = sparse(k, ver).map(|s| serde_json::json!({"indices": s.indices(), "values": s.values()}));
    let sp = format!(r#","sp":{}"#, serde_json::json!(sp));
    let v = v.join(",");
    format!(r#"{{"id":"{}","tag":"t{}","n":{ver}{labels}{sp},"v":[{v}],"d":[{disk}],"g":[{qg}]}}"#, key(k), ver % 7)
}

fn schema() -> Schema {
    Schema::from_json(&format!(
        r#"{{"name":"kill","fields":[{{"name":"tag","type":"string"}},{{"name":"n","type":"int64"}},
            {{"name":"labels","type":"array_string","nullable":true,"index":{{"type":"inverted"}}}},
            {{"name":"sp","type":"sparse_fp32","nullable":true}},
            {{"name":"v","type":"vector_fp32","dim":{DIM},"metric":"l2","index":{{"type":"hnsw","m":8,"quantize":"int8"}}}},
            {{"name":"d","type":"vector_fp32","dim":{DISK_DIM},"metric":"l2","index":{{"type":"disk","degree":16,"build_list":32}}}},
            {{"name":"g","type":"vector_fp32","dim":{QG_DIM},"metric":"l2","index":{{"type":"qg","build_list":32}}}}]}}"#
    ))
    .unwrap()
}

fn apply(state: &mut State, b: &Batch) {
    match b {
        Batch::Insert(items) => {
            for &(k, v) in items {
                state.entry(k).or_insert(v);
            }
        }
        Batch::Upsert(items) => state.extend(items.iter().copied()),
        Batch::Delete(keys) => {
            for k in keys {
                state.remove(k);
            }
        }
    }
}

// ---- plans: the library child's steps, as text ----

fn encode_plan(sync: SyncPolicy, steps: &[Step]) -> String {
    let mut out = match sync {
        SyncPolicy::EveryBatch => "sync every-batch\n".to_string(),
        SyncPolicy::EveryRecords(n) => format!("sync every-records {n}\n"),
        SyncPolicy::OnFlush => "sync on-flush\n".to_string(),
        other => unimplemented!("a plan for {other:?}"),
    };
    let items = |items: &[(u32, u64)]| items.iter().map(|(k, v)| format!(" {k}:{v}")).collect::<String>();
    for s in steps {
        match s {
            Step::Write(Batch::Insert(i)) => out.push_str(&format!("insert{}\n", items(i))),
            Step::Write(Batch::Upsert(i)) => out.push_str(&format!("upsert{}\n", items(i))),
            Step::Write(Batch::Delete(keys)) => {
                out.push_str("delete");
                for k in keys {
                    out.push_str(&format!(" {k}"));
                }
                out.push('\n');
            }
            Step::Flush => out.push_str("flush\n"),
            Step::Optimize => out.push_str("optimize\n"),
            Step::OptimizeBehind => out.push_str("optimize-behind\n"),
            Step::Join => out.push_str("join\n"),
        }
    }
    out
}

fn decode_plan(text: &str) -> (SyncPolicy, Vec<Step>) {
    let mut lines = text.lines();
    let sync = match lines.next().expect("sync line").split(' ').collect::<Vec<_>>().as_slice() {
        ["sync", "every-batch"] => SyncPolicy::EveryBatch,
        ["sync", "every-records", n] => SyncPolicy::EveryRecords(n.parse().unwrap()),
        ["sync", "on-flush"] => SyncPolicy::OnFlush,
        other => panic!("bad sync line {other:?}"),
    };
    let items = |words: std::str::SplitWhitespace| -> Vec<(u32, u64)> {
        words
            .map(|w| {
                let (k, v) = w.split_once(':').unwrap();
                (k.parse().unwrap(), v.parse().unwrap())
            })
            .collect()
    };
    let steps = lines
        .map(|line| {
            let mut words = line.split_whitespace();
            match words.next() {
                Some("insert") => Step::Write(Batch::Insert(items(words))),
                Some("upsert") => Step::Write(Batch::Upsert(items(words))),
                Some("delete") => Step::Write(Batch::Delete(words.map(|w| w.parse().unwrap()).collect())),
                Some("flush") => Step::Flush,
                Some("optimize") => Step::Optimize,
                Some("optimize-behind") => Step::OptimizeBehind,
                Some("join") => Step::Join,
                other => panic!("bad plan line {other:?}"),
            }
        })
        .collect();
    (sync, steps)
}

fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{line}").unwrap();
    out.flush().unwrap();
}

/// The library child: runs the plan in `XVEC_KILL_PLAN` against `XVEC_KILL_DIR`, saying
/// `opened`, then `acked <i>` once step `i` returned Ok (and `progress ...` during an
/// optimize), then `done`.
#[test]
#[ignore = "a child process of kill_loop, which starts it with --ignored --exact"]
fn child_writer() {
    let dir = std::env::var_os(DIR_ENV).expect("kill_loop starts this child with XVEC_KILL_DIR set");
    let plan = std::env::var_os(PLAN_ENV).expect("kill_loop starts this child with XVEC_KILL_PLAN set");
    let (sync, steps) = decode_plan(&std::fs::read_to_string(plan).unwrap());
    let coll = Collection::open(&dir, &OpenOptions::writable().sync(sync)).unwrap();
    say("opened");
    let progress = |p: &OptimizeProgress| say(&format!("progress {} {}", p.segments_done, p.vectors_indexed));
    let optimize = || coll.optimize(&OptimizeOptions::default().concurrency(1).progress(Some(&progress))).unwrap();
    std::thread::scope(|s| {
        let mut behind = None;
        for (i, step) in steps.iter().enumerate() {
            match step {
                Step::Write(Batch::Insert(items)) => {
                    coll.insert(items.iter().map(|&(k, v)| written(k, v)).collect()).unwrap();
                }
                Step::Write(Batch::Upsert(items)) => {
                    coll.upsert(items.iter().map(|&(k, v)| written(k, v)).collect()).unwrap();
                }
                Step::Write(Batch::Delete(keys)) => {
                    let keys: Vec<String> = keys.iter().map(|&k| key(k)).collect();
                    coll.delete(&keys.iter().map(String::as_str).collect::<Vec<_>>()).unwrap();
                }
                Step::Flush => coll.flush().unwrap(),
                Step::Optimize => drop(optimize()),
                // Content-neutral, so acknowledged once started; the writes after it are
                // acknowledged as they return, while it builds.
                Step::OptimizeBehind => behind = Some(s.spawn(optimize)),
                Step::Join => drop(behind.take().expect("an optimize behind to join").join().unwrap()),
            }
            say(&format!("acked {i}"));
        }
    });
    coll.close().unwrap();
    say("done");
}

// ---- the loop ----

/// The write calls of one child; the first `acked` were acknowledged. Of the rest, a
/// prefix may have been applied (the WAL holds batches in order, each whole or not at all).
struct Run {
    batches: Vec<Batch>,
    acked: usize,
}

/// Every state the collection may be in: `model`, then each run's acknowledged batches and
/// a prefix of its unacknowledged ones.
fn candidates(model: &State, runs: &[Run]) -> Vec<State> {
    let mut states = vec![model.clone()];
    for run in runs {
        let mut next = Vec::new();
        for mut s in states {
            for b in &run.batches[..run.acked] {
                apply(&mut s, b);
            }
            next.push(s.clone());
            for b in &run.batches[run.acked..] {
                apply(&mut s, b);
                next.push(s.clone());
            }
        }
        next.sort();
        next.dedup();
        states = next;
    }
    states
}

/// When the parent kills a child.
#[derive(Clone, Copy, Debug)]
enum Kill {
    Never,
    /// After this many lines of its stdout.
    AfterLines(usize),
    /// After this fraction (up to 1.2) of the time its kind of child took when not killed.
    AtFraction(f64),
}

/// A child to run.
struct Spawn {
    /// `writer`, `optimizer`, `xvec import`, ...: kills are timed and counted per kind.
    kind: &'static str,
    what: String,
    cmd: Command,
    batches: Vec<Batch>,
    /// A library child says `acked <i>` after step `i`; this is each step's kind
    /// (`write`, `flush`, `optimize`). None for a CLI command, which acknowledges by exiting 0.
    steps: Option<Vec<&'static str>>,
    kill: Kill,
}

#[derive(Default, Debug)]
struct Tally {
    children: usize,
    kills: usize,
    completed: usize,
    /// Kills by child kind and where they landed.
    kills_by_place: BTreeMap<String, usize>,
    observations: usize,
    /// Unacknowledged batches that a kill left applied / not applied.
    unacked_applied: usize,
    unacked_lost: usize,
    /// What the writable opens after kills did.
    torn_tails_cut: usize,
    leftovers_rolled_back: usize,
    /// `xvec backup` children that left a whole backup / none under DEST.
    backups_whole: usize,
    backups_none: usize,
}

struct Loop {
    rng: ChaCha8Rng,
    dir: PathBuf,
    scratch: PathBuf,
    next_version: u64,
    /// The state at the last observation.
    model: State,
    /// Children since the last observation.
    pending: Vec<Run>,
    tally: Tally,
    /// Milliseconds that children of each kind took when not killed: (sum, count).
    durations: BTreeMap<&'static str, (f64, u32)>,
    log: Vec<String>,
    iteration: usize,
    /// Where the running `xvec backup` child writes, to be checked when it ends.
    backup: Option<PathBuf>,
}

fn run(kills: usize) {
    let seed = std::env::var(SEED_ENV).ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64
    });
    eprintln!("kill loop: seed {seed} ({SEED_ENV}={seed} replays the plan), {kills} kills");
    let dir = tempfile::tempdir().unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let coll =
        Collection::create(dir.path(), schema(), CollectionOptions::default().max_docs_per_segment(1500)).unwrap();
    let mut model = State::new();
    for chunk in (0..INITIAL).collect::<Vec<_>>().chunks(500) {
        coll.insert(chunk.iter().map(|&k| doc(k, k as u64 + 1)).collect()).unwrap();
        model.extend(chunk.iter().map(|&k| (k, k as u64 + 1)));
    }
    coll.flush().unwrap();
    coll.close().unwrap();
    let mut l = Loop {
        rng: crate::util::rng(seed),
        dir: dir.path().to_path_buf(),
        scratch: scratch.path().to_path_buf(),
        next_version: INITIAL as u64 + 1,
        model,
        pending: Vec::new(),
        tally: Tally::default(),
        durations: BTreeMap::new(),
        log: Vec::new(),
        iteration: 0,
        backup: None,
    };
    let start = Instant::now();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        while l.tally.kills < kills {
            l.iteration += 1;
            assert!(l.iteration <= 4 * kills + 50, "too few children were killed: {:?}", l.tally);
            l.step();
        }
        l.observe();
    }));
    if let Err(e) = result {
        let kept = dir.keep();
        let what = e
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        let recent = l.log[l.log.len().saturating_sub(12)..].join("\n  ");
        panic!(
            "kill loop failed at child {} (seed {seed}; rerun with {SEED_ENV}={seed}): {what}\n\
             recent children:\n  {recent}\ncollection kept in {}",
            l.iteration,
            kept.display()
        );
    }
    let secs = start.elapsed().as_secs_f64();
    eprintln!("kill loop: seed {seed}: {secs:.1} s, {:#?}", l.tally);
}

impl Loop {
    fn version(&mut self) -> u64 {
        self.next_version += 1;
        self.next_version
    }

    /// The state if every attempted batch so far was applied: the plan's best guess.
    fn guess(&self) -> State {
        let mut s = self.model.clone();
        for r in &self.pending {
            for b in &r.batches {
                apply(&mut s, b);
            }
        }
        s
    }

    /// A random write batch that keeps the collection between about 1,500 and 2,900 rows.
    fn batch(&mut self, state: &State) -> Batch {
        let n = self.rng.random_range(1..=60usize);
        let fill = state.len();
        let roll = self.rng.random_range(0..100);
        let delete_share = if fill < 1500 {
            5
        } else if fill > 2900 {
            80
        } else {
            30
        };
        if roll < delete_share && !state.is_empty() {
            let present: Vec<u32> = state.keys().copied().collect();
            let mut keys = BTreeSet::new();
            for _ in 0..n.min(40) {
                keys.insert(present[self.rng.random_range(0..present.len())]);
            }
            return Batch::Delete(keys.into_iter().collect());
        }
        let insert = roll < delete_share + (100 - delete_share) / 2;
        let mut keys = BTreeSet::new();
        for _ in 0..n {
            let k = self.rng.random_range(0..KEYS);
            // Inserts aim at absent keys (an existing key fails that item, harmlessly).
            if !insert || !state.contains_key(&k) {
                keys.insert(k);
            }
        }
        let items: Vec<(u32, u64)> = keys.into_iter().map(|k| (k, self.version())).collect();
        if insert { Batch::Insert(items) } else { Batch::Upsert(items) }
    }

    fn library_child(&mut self, kind: &'static str, sync: SyncPolicy, steps: Vec<Step>, kill: Kill) -> Spawn {
        let plan = self.scratch.join(format!("plan-{}", self.iteration));
        std::fs::write(&plan, encode_plan(sync, &steps)).unwrap();
        let mut cmd = Command::new(std::env::current_exe().unwrap());
        cmd.args(["crash::kill_loop::child_writer", "--exact", "--ignored", "--nocapture", "--test-threads=1"])
            .env(DIR_ENV, &self.dir)
            .env(PLAN_ENV, &plan);
        let kinds = steps
            .iter()
            .map(|s| match s {
                Step::Write(_) => "write",
                Step::Flush => "flush",
                Step::Optimize | Step::OptimizeBehind | Step::Join => "optimize",
            })
            .collect();
        let batches = steps
            .into_iter()
            .filter_map(|s| match s {
                Step::Write(b) => Some(b),
                _ => None,
            })
            .collect();
        Spawn { kind, what: format!("{kind} ({sync:?})"), cmd, batches, steps: Some(kinds), kill }
    }

    fn cli_child(&mut self, kind: &'static str, args: &[String], batches: Vec<Batch>, kill: Kill) -> Spawn {
        let mut cmd = Command::new(crate::harness::bin());
        cmd.args(args).env_clear().env("PATH", std::env::var_os("PATH").unwrap_or_default());
        cmd.env("HOME", &self.scratch).env("XVEC_HISTORY", "/dev/null");
        let shown: Vec<&str> = args.iter().map(|a| if a.contains('/') { "…" } else { a.as_str() }).collect();
        Spawn { kind, what: format!("xvec {}", shown.join(" ")), cmd, batches, steps: None, kill }
    }

    /// Picks the next child and when to kill it.
    fn plan(&mut self) -> Spawn {
        let state = self.guess();
        let dir = self.dir.display().to_string();
        let roll = self.rng.random_range(0..100);
        let lib_kill = |rng: &mut ChaCha8Rng, lines: usize| match rng.random_range(0..20) {
            0 => Kill::Never,
            1..9 => Kill::AfterLines(rng.random_range(1..=lines)),
            _ => Kill::AtFraction(rng.random_range(0.0..1.2)),
        };
        let cli_kill = |rng: &mut ChaCha8Rng| {
            if rng.random_range(0..8) == 0 { Kill::Never } else { Kill::AtFraction(rng.random_range(0.0..1.2)) }
        };
        if roll < 40 {
            // A writer: batches with flushes between, under a random sync policy.
            let sync = match self.rng.random_range(0..4) {
                0 | 1 => SyncPolicy::EveryBatch,
                2 => SyncPolicy::EveryRecords(self.rng.random_range(1..=100)),
                _ => SyncPolicy::OnFlush,
            };
            let mut steps = Vec::new();
            let mut s = state.clone();
            for _ in 0..self.rng.random_range(2..=16) {
                if self.rng.random_range(0..6) == 0 {
                    steps.push(Step::Flush);
                } else {
                    let b = self.batch(&s);
                    apply(&mut s, &b);
                    steps.push(Step::Write(b));
                }
            }
            let lines = steps.len() + 1;
            let kill = lib_kill(&mut self.rng, lines);
            self.library_child("writer", sync, steps, kill)
        } else if roll < 62 {
            // An optimizer (HNSW + int8), after a write or two so it has rows to merge.
            let mut steps = Vec::new();
            let mut s = state.clone();
            for _ in 0..self.rng.random_range(0..=2) {
                let b = self.batch(&s);
                apply(&mut s, &b);
                steps.push(Step::Write(b));
            }
            if self.rng.random_bool(0.5) {
                steps.push(Step::Optimize);
            } else {
                // Writes, deletes and flushes go on while the optimize builds.
                steps.push(Step::OptimizeBehind);
                for _ in 0..self.rng.random_range(2..=8) {
                    if self.rng.random_range(0..5) == 0 {
                        steps.push(Step::Flush);
                    } else {
                        let b = self.batch(&s);
                        apply(&mut s, &b);
                        steps.push(Step::Write(b));
                    }
                }
                steps.push(Step::Join);
            }
            let lines = steps.len() + 30;
            let kill = lib_kill(&mut self.rng, lines);
            self.library_child("optimizer", SyncPolicy::EveryBatch, steps, kill)
        } else if roll < 82 {
            // `xvec import --upsert`: batches of --batch-size, acknowledged by exit 0.
            let size = self.rng.random_range(5..=50usize);
            let nbatches = self.rng.random_range(1..=6usize);
            let mut items: Vec<(u32, u64)> = Vec::new();
            let mut seen = BTreeSet::new();
            while items.len() < size * nbatches {
                let k = self.rng.random_range(0..KEYS);
                // Distinct keys: a key twice in one batch is not what this test is about.
                if seen.insert(k) {
                    let v = self.version();
                    items.push((k, v));
                }
            }
            let file = self.scratch.join(format!("import-{}.jsonl", self.iteration));
            let text: String = items.iter().map(|&(k, v)| doc_json(k, v) + "\n").collect();
            std::fs::write(&file, text).unwrap();
            let mut batches: Vec<Batch> = items.chunks(size).map(|c| Batch::Upsert(c.to_vec())).collect();
            let mut args = vec![
                "import".to_string(),
                dir,
                file.display().to_string(),
                "--upsert".into(),
                "--batch-size".into(),
                size.to_string(),
            ];
            let mut kind = "xvec import";
            match self.rng.random_range(0..4) {
                0 => args.push("--flush".into()),
                // All or nothing: the batches are one, published by one commit.
                1 => {
                    args.push("--atomic".into());
                    batches = vec![Batch::Upsert(items.clone())];
                    kind = "xvec import --atomic";
                }
                _ => {}
            }
            let kill = cli_kill(&mut self.rng);
            self.cli_child(kind, &args, batches, kill)
        } else if roll < 88 && self.pending.is_empty() && state.len() > 100 {
            // `xvec delete`: present keys only (a missing one makes it exit 1), so only
            // when the state is known exactly.
            let present: Vec<u32> = state.keys().copied().collect();
            let mut keys = BTreeSet::new();
            for _ in 0..self.rng.random_range(1..=30) {
                keys.insert(present[self.rng.random_range(0..present.len())]);
            }
            let mut args = vec!["delete".to_string(), dir];
            args.extend(keys.iter().map(|&k| key(k)));
            let kill = cli_kill(&mut self.rng);
            self.cli_child("xvec delete", &args, vec![Batch::Delete(keys.into_iter().collect())], kill)
        } else if roll < 90 {
            let kill = cli_kill(&mut self.rng);
            self.cli_child("xvec flush", &["flush".to_string(), dir], Vec::new(), kill)
        } else if roll < 93 {
            // `xvec alter` of a field the documents leave out: added, renamed back and
            // forth, dropped. Every kill leaves the old schema or the new one, and the
            // documents read the same under either.
            let reader = Collection::open(&self.dir, &OpenOptions::read_only()).unwrap();
            let schema = reader.schema();
            drop(reader);
            let change: Vec<&str> = match (schema.index_of("extra"), schema.index_of("extra_b")) {
                (None, None) => vec!["add-field", "extra:string:nullable"],
                (Some(_), _) if self.rng.random_bool(0.5) => vec!["rename-field", "extra", "extra_b"],
                (Some(_), _) => vec!["drop-field", "extra"],
                (None, Some(_)) if self.rng.random_bool(0.5) => vec!["rename-field", "extra_b", "extra"],
                (None, Some(_)) => vec!["drop-field", "extra_b"],
            };
            let mut args = vec!["alter".to_string(), dir];
            args.extend(change.iter().map(|s| s.to_string()));
            let kill = cli_kill(&mut self.rng);
            self.cli_child("xvec alter", &args, Vec::new(), kill)
        } else if roll < 95 {
            // `xvec alter`: a scalar index added (built for every segment, then published
            // with the schema) or dropped, whichever the schema allows.
            let (field, kind) = [("tag", "inverted"), ("n", "range"), ("n", "inverted"), ("labels", "inverted")]
                [self.rng.random_range(0..4)];
            let reader = Collection::open(&self.dir, &OpenOptions::read_only()).unwrap();
            let schema = reader.schema();
            drop(reader);
            let pos = schema.index_of(field).unwrap();
            let kind_of = xvec::ScalarIndexKind::from_name(kind).unwrap();
            let change = if schema.field(pos).has_scalar_index(kind_of) { "drop-index" } else { "add-index" };
            let args = ["alter", &dir, change, field, kind].map(String::from);
            let kill = cli_kill(&mut self.rng);
            self.cli_child("xvec alter", &args, Vec::new(), kill)
        } else if roll < 98 {
            // `xvec backup`, linked or copied: reads only, so it adds no batch; whatever
            // it leaves under DEST must be the whole collection (checked in `step`).
            let dest = self.scratch.join(format!("backup-{}", self.iteration));
            let mut args = vec!["backup".to_string(), dir, dest.display().to_string()];
            if self.rng.random_bool(0.5) {
                args.push("--copy".into());
            }
            self.backup = Some(dest);
            let kill = cli_kill(&mut self.rng);
            self.cli_child("xvec backup", &args, Vec::new(), kill)
        } else {
            let kill = cli_kill(&mut self.rng);
            self.cli_child(
                "xvec optimize",
                &["optimize".to_string(), dir, "--concurrency".into(), "1".into()],
                Vec::new(),
                kill,
            )
        }
    }

    /// Runs one child, kills it as planned, and sometimes checks the collection (else the
    /// next child is the first writer after the kill).
    fn step(&mut self) {
        let Spawn { kind, what, mut cmd, batches, steps, kill } = self.plan();
        let (sum, n) = self.durations.get(kind).copied().unwrap_or((0.0, 0));
        let typical = if n == 0 { 20.0 } else { sum / n as f64 };
        let err_path = self.scratch.join(format!("stderr-{}", self.iteration));
        cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(std::fs::File::create(&err_path).unwrap());
        let started = Instant::now();
        let mut child = cmd.spawn().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let line = super::child_line(&line).to_string();
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let ours = |l: &str| l == "opened" || l == "done" || l.starts_with("acked") || l.starts_with("progress");
        // Reads the child's lines until it has said `n` (or closed its stdout); false
        // when the deadline passed first.
        let read = |lines: &mut Vec<String>, n: usize| -> bool {
            while lines.len() < n {
                match rx.recv_timeout(CHILD_DEADLINE.saturating_sub(started.elapsed())) {
                    Ok(l) if ours(&l) => lines.push(l),
                    Ok(_) => {}
                    Err(mpsc::RecvTimeoutError::Disconnected) => return true,
                    Err(mpsc::RecvTimeoutError::Timeout) => return false,
                }
            }
            true
        };
        let mut lines: Vec<String> = Vec::new();
        let mut in_time = true;
        match kill {
            Kill::Never => {}
            Kill::AfterLines(n) => in_time = read(&mut lines, n),
            Kill::AtFraction(f) => {
                std::thread::sleep(Duration::from_secs_f64(f * typical / 1000.0).saturating_sub(started.elapsed()))
            }
        }
        if !matches!(kill, Kill::Never) || !in_time {
            child.kill().unwrap();
        }
        in_time &= read(&mut lines, usize::MAX);
        if !in_time {
            child.kill().unwrap();
        }
        let status = child.wait().unwrap();
        reader.join().unwrap();
        let stderr = || std::fs::read_to_string(&err_path).unwrap_or_default();
        assert!(in_time, "{what}: still running after {CHILD_DEADLINE:?}; stdout {lines:?}; stderr:\n{}", stderr());
        let killed = status.signal() == Some(libc::SIGKILL);
        if !killed && !status.success() {
            panic!("{what}: exited with {status} (kill {kill:?}); stdout {lines:?}; stderr:\n{}", stderr());
        }
        let steps_acked = lines.iter().filter(|l| l.starts_with("acked")).count();
        let (acked, place) = match &steps {
            _ if !killed => {
                if steps.is_some() {
                    assert!(lines.iter().any(|l| l == "done"), "{what}: exited 0 without saying done: {lines:?}");
                }
                (batches.len(), "")
            }
            // Steps count flushes and optimizes too: count the acknowledged batches.
            Some(kinds) => {
                let place = if !lines.iter().any(|l| l == "opened") {
                    "before it opened"
                } else {
                    match kinds.get(steps_acked) {
                        Some(&"write") => "in a write",
                        Some(&"flush") => "in a flush",
                        Some(_) => "in an optimize",
                        None => "in close",
                    }
                };
                (kinds[..steps_acked].iter().filter(|k| **k == "write").count(), place)
            }
            None => (0, ""),
        };
        self.tally.children += 1;
        if killed {
            self.tally.kills += 1;
            *self.tally.kills_by_place.entry(format!("{kind} {place}").trim_end().to_string()).or_default() += 1;
        } else {
            self.tally.completed += 1;
            let d = self.durations.entry(kind).or_default();
            d.0 += started.elapsed().as_secs_f64() * 1000.0;
            d.1 += 1;
        }
        let line = format!(
            "{}: {what}: {} batches, kill {kill:?}: {} after {} ms, {acked} acknowledged, last line {:?}",
            self.iteration,
            batches.len(),
            if killed { "killed" } else { "finished" },
            started.elapsed().as_millis(),
            lines.last()
        );
        eprintln!("{line}");
        self.log.push(line);
        if let Some(dest) = self.backup.take() {
            self.check_backup(&dest, killed);
        }
        self.pending.push(Run { batches, acked });
        // Leave some kills to the next child to recover from; at most two runs pending.
        if self.pending.len() >= 2 || self.rng.random_range(0..4) != 0 {
            self.observe();
        }
    }

    /// A backup killed or not leaves nothing under DEST or the whole collection as a
    /// reader sees it (no writer ran meanwhile), verifying clean; its temp directory is
    /// the only other trace a kill may leave.
    fn check_backup(&mut self, dest: &std::path::Path, killed: bool) {
        if dest.exists() {
            let report = xvec::verify::run(dest, &Default::default()).unwrap();
            assert!(report.is_clean(), "backup (killed: {killed}): {:#?}", report.findings);
            let backup = documents(&Collection::open(dest, &OpenOptions::read_only()).unwrap());
            let live = documents(&Collection::open(&self.dir, &OpenOptions::read_only()).unwrap());
            assert!(backup == live, "the backup holds other documents than the collection");
            self.tally.backups_whole += 1;
            std::fs::remove_dir_all(dest).unwrap();
        } else {
            assert!(killed, "xvec backup exited 0 without a backup at {}", dest.display());
            self.tally.backups_none += 1;
        }
        let _ = std::fs::remove_dir_all(dest.with_extension("tmp"));
    }

    /// Checks the collection after the children since the last check; the state found
    /// becomes the model.
    fn observe(&mut self) {
        self.tally.observations += 1;
        let dir = self.dir.clone();
        let before = xvec::verify::run(&dir, &Default::default()).unwrap();
        // Before recovery, leftovers are warnings (pending rollback), never problems.
        assert!(before.is_clean(), "verify after the kill found problems: {:#?}", before.findings);
        let orphans: BTreeSet<&str> = before
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Warning && f.what.starts_with("pending rollback"))
            .map(|f| f.file.as_str())
            .collect();
        // A reader sees the same documents before recovery as the writer after it.
        let reader = Collection::open(&dir, &OpenOptions::read_only())
            .unwrap_or_else(|e| panic!("the read-only open after the kill failed: {e}"));
        let read = documents(&reader);
        drop(reader);

        let coll = Collection::open(&dir, &OpenOptions::writable())
            .unwrap_or_else(|e| panic!("the writable open after the kill failed: {e}"));
        let recovered: BTreeSet<&str> = coll.recovered().iter().map(|r| r.file.as_str()).collect();
        let not_rolled_back: Vec<_> = orphans.difference(&recovered).collect();
        assert!(
            not_rolled_back.is_empty(),
            "verify reported leftovers {not_rolled_back:?} that the writable open did not roll back; it did: {:?}",
            coll.recovered()
        );
        for r in coll.recovered() {
            if r.what.contains("torn tail") {
                self.tally.torn_tails_cut += 1;
            } else {
                self.tally.leftovers_rolled_back += 1;
            }
        }

        let observed = documents(&coll);
        assert!(read == observed, "a reader before the writable open saw other documents than the writer after it");
        // Filters agree with the documents whichever scalar indexes the schema has now.
        let ver = self.rng.random_range(0..7u64);
        for (filter, keep) in [
            (format!("tag = 't{ver}'"), Box::new(move |v: u64| v % 7 == ver) as Box<dyn Fn(u64) -> bool>),
            (
                format!("n >= {} AND tag != 't0'", ver * 40),
                Box::new(move |v: u64| v >= ver * 40 && !v.is_multiple_of(7)),
            ),
            (
                format!("labels CONTAIN_ANY ('l{}') OR labels IS NULL", ver % 5),
                Box::new(move |v: u64| labels(v).is_none_or(|l| l.contains(&format!("l{}", ver % 5)))),
            ),
            (
                format!("array_length(labels) >= 2 AND NOT labels CONTAIN_ALL ('l{}', 'l{}')", ver % 5, (ver + 1) % 5),
                Box::new(move |v: u64| {
                    labels(v).is_some_and(|l| {
                        l.len() >= 2
                            && !(l.contains(&format!("l{}", ver % 5)) && l.contains(&format!("l{}", (ver + 1) % 5)))
                    })
                }),
            ),
        ] {
            let mut got: Vec<String> = coll.snapshot().keys_where(Some(&filter)).unwrap();
            got.sort();
            let want: Vec<String> = observed.iter().filter(|&(_, &v)| keep(v)).map(|(&k, _)| key(k)).collect();
            assert!(got == want, "{filter}: {} keys, the documents say {}", got.len(), want.len());
        }
        if let Some((&k, &v)) = observed.iter().nth(self.rng.random_range(0..observed.len().max(1))) {
            // The HNSW field, the disk one (its node blocks read as the search goes) and
            // the quantized graph.
            for field in ["v", "d", "g"] {
                let q = doc(k, v).get(field).and_then(Value::vector_f32).unwrap();
                let hits = coll.query(&Query::vector(q).field(field).k(10)).unwrap();
                assert_eq!(hits.len(), observed.len().min(10), "{field}: {hits:?}");
                for hit in hits {
                    let live = hit
                        .key
                        .strip_prefix('k')
                        .and_then(|n| n.parse().ok())
                        .is_some_and(|k| observed.contains_key(&k));
                    assert!(live, "query on {field} found {}, which is not live", hit.key);
                }
            }
        }
        // The sparse indexes and the memtable rank as brute force over the documents does.
        let q = sparse(self.rng.random_range(0..KEYS), self.rng.random_range(1..5)).unwrap();
        let mut want: Vec<f32> =
            observed.iter().filter_map(|(&k, &v)| sparse(k, v)).map(|s| s.dot(&q)).filter(|&s| s > 0.0).collect();
        want.sort_by(|a, b| b.total_cmp(a));
        want.truncate(10);
        let got: Vec<f32> = coll
            .hybrid(&HybridQuery::new(vec![Branch::sparse(q, 10)]))
            .unwrap()
            .iter()
            .map(|h| h.branches[0].as_ref().expect("a sparse hit").score)
            .collect();
        assert!(got == want, "sparse top 10 scores {got:?}, brute force over the documents {want:?}");

        let cands = candidates(&self.model, &self.pending);
        if !cands.contains(&observed) {
            panic!("{}", self.explain(&observed, &cands));
        }
        // How many unacknowledged batches a kill left applied (when that is unambiguous).
        if let [run] = self.pending.as_slice()
            && run.acked < run.batches.len()
        {
            let mut s = self.model.clone();
            run.batches[..run.acked].iter().for_each(|b| apply(&mut s, b));
            let mut prefixes = vec![s.clone()];
            for b in &run.batches[run.acked..] {
                apply(&mut s, b);
                prefixes.push(s.clone());
            }
            if let Some(applied) = prefixes.iter().position(|p| *p == observed)
                && !prefixes[applied + 1..].contains(&observed)
            {
                self.tally.unacked_applied += applied;
                self.tally.unacked_lost += prefixes.len() - 1 - applied;
            }
        }
        coll.close().unwrap();

        let after = xvec::verify::run(&dir, &Default::default()).unwrap();
        let bad: Vec<_> = after.findings.iter().filter(|f| f.severity <= Severity::Warning).collect();
        assert!(bad.is_empty(), "verify after the writable open is not clean: {bad:#?}");
        self.model = observed;
        self.pending.clear();
    }

    /// Why `observed` is none of the candidate states: its difference from the closest.
    fn explain(&self, observed: &State, cands: &[State]) -> String {
        let diff = |c: &State| -> Vec<String> {
            let mut d = Vec::new();
            for (k, v) in c {
                match observed.get(k) {
                    None => d.push(format!("{} lost (expected version {v})", key(*k))),
                    Some(o) if o != v => d.push(format!("{} has version {o}, expected {v}", key(*k))),
                    _ => {}
                }
            }
            for (k, v) in observed {
                if !c.contains_key(k) {
                    d.push(format!("{} present (version {v}), expected absent", key(*k)));
                }
            }
            d
        };
        let best = cands.iter().map(diff).min_by_key(Vec::len).unwrap_or_default();
        let runs: Vec<String> =
            self.pending.iter().map(|r| format!("{} batches, {} acknowledged", r.batches.len(), r.acked)).collect();
        format!(
            "the documents are none of the {} states the writes allow (runs since the last check: {runs:?}); \
             closest differs in {} keys: {:?}",
            cands.len(),
            best.len(),
            &best[..best.len().min(12)]
        )
    }
}
