//! `xvec bench` end to end on generated data: the real binary, real dataset files in every
//! supported layout, the report checked field by field and against the committed JSON
//! Schema, and the CSV, plot and compare outputs. Plus the parquet reader on malformed
//! files, which only this test can write (the parquet crate's writer).

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;
use xvec::Metric;
use xvec_io::dataset::{GroundTruth, VectorFile};

use crate::util::{brute_force, random_vectors};

const DIM: usize = 24;
const ROWS: usize = 3000;
const QUERIES: usize = 40;

/// Runs the binary in `cwd` with a scrubbed environment; dumps everything on request.
pub(crate) fn xvec(cwd: &Path, args: &[&str]) -> Output {
    crate::harness::command(args).current_dir(cwd).output().expect("run xvec")
}

pub(crate) fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

pub(crate) fn ok(out: &Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what}: exit {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

fn write_vecs<T: Copy>(path: &Path, rows: &[Vec<T>], enc: impl Fn(T) -> [u8; 4]) {
    let mut b = Vec::new();
    for r in rows {
        b.extend_from_slice(&(r.len() as i32).to_le_bytes());
        r.iter().for_each(|&x| b.extend_from_slice(&enc(x)));
    }
    std::fs::write(path, b).unwrap();
}

fn fvecs(path: &Path, rows: &[Vec<f32>]) {
    write_vecs(path, rows, f32::to_le_bytes);
}

/// Base, queries and their exact cosine top-20 (rows of the base).
struct Data {
    base: Vec<Vec<f32>>,
    queries: Vec<Vec<f32>>,
    gt: Vec<Vec<i32>>,
}

fn data() -> Data {
    let base = random_vectors(7, ROWS, DIM);
    let queries = random_vectors(8, QUERIES, DIM);
    let gt =
        queries.iter().map(|q| brute_force(Metric::Cosine, &base, q, 20).iter().map(|&i| i as i32).collect()).collect();
    Data { base, queries, gt }
}

/// A dataset directory in the wordnet layout.
pub(crate) fn wordnet_dir(root: &Path) -> PathBuf {
    let dir = root.join("synthetic");
    std::fs::create_dir_all(&dir).unwrap();
    let Data { base, queries, gt } = data();
    fvecs(&dir.join("base.fvecs"), &base);
    fvecs(&dir.join("queries.fvecs"), &queries);
    write_vecs(&dir.join("gt_cosine_20.ivecs"), &gt, i32::to_le_bytes);
    dir
}

/// Fields of one CSV line (RFC 4180 quoting, no line breaks inside fields).
pub(crate) fn split_csv(line: &str) -> Vec<String> {
    let (mut fields, mut cur, mut quoted) = (Vec::new(), String::new(), false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                cur.push('"');
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    fields.push(cur);
    fields
}

pub(crate) fn at<'a>(v: &'a Value, pointer: &str) -> &'a Value {
    v.pointer(pointer).unwrap_or_else(|| panic!("report has no {pointer}"))
}

pub(crate) fn f(v: &Value, pointer: &str) -> f64 {
    at(v, pointer).as_f64().unwrap_or_else(|| panic!("{pointer} is not a number: {}", at(v, pointer)))
}

/// The figures every report must have, sane.
fn check_sane(r: &Value) {
    let recall = f(r, "/serial/recall");
    assert!((0.0..=1.0).contains(&recall), "recall {recall}");
    assert!((0.0..=1.0).contains(&f(r, "/serial/ndcg")));
    assert!(f(r, "/serial/qps") > 0.0);
    assert!(f(r, "/peak_rss_mib") > 0.0);
    assert!(f(r, "/query_peak_rss_mib") > 0.0 && f(r, "/query_peak_rss_mib") <= f(r, "/peak_rss_mib"));
    for p in ["latency_avg_ms", "latency_p50_ms", "latency_p95_ms", "latency_p99_ms", "duration_sec"] {
        assert!(f(r, &format!("/serial/{p}")) >= 0.0, "{p}");
    }
    let p50 = f(r, "/serial/latency_p50_ms");
    assert!(p50 <= f(r, "/serial/latency_p99_ms") && f(r, "/serial/latency_p99_ms") <= f(r, "/serial/latency_max_ms"));
    for c in at(r, "/concurrent").as_array().unwrap() {
        assert!(f(c, "/qps") > 0.0 && f(c, "/queries") > 0.0 && f(c, "/duration_sec") > 0.0, "{c}");
    }
    for p in at(r, "/phases").as_array().unwrap() {
        assert!(f(p, "/duration_sec") >= 0.0, "{p}");
        assert!(p["rss_end_mib"].as_f64().is_some_and(|v| v > 0.0), "{p}");
    }
    if !at(r, "/load/skipped").as_bool().unwrap() {
        for p in ["insert_duration_sec", "optimize_duration_sec", "load_duration_sec"] {
            assert!(f(r, &format!("/load/{p}")) >= 0.0, "{p}");
        }
        assert!(f(r, "/load/rows_per_second") > 0.0);
    }
    assert!(f(r, "/disk_bytes") > 0.0 && f(r, "/engine_memory/total") > 0.0);
    assert!(f(r, "/cpu/user_sec") >= 0.0 && f(r, "/cpu/sys_sec") >= 0.0);
    assert_eq!(at(r, "/serial"), at(r, "/searches/0/serial"));
    schema::validate(r);
}

#[test]
fn end_to_end_with_sweep_csv_plot_and_compare() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let dir = wordnet_dir(root);
    let d = dir.to_str().unwrap();
    let out = xvec(
        root,
        &[
            "bench",
            "--dataset",
            d,
            "--index",
            "flat",
            "--quantize",
            "int8",
            "--metric",
            "cosine",
            "-k",
            "10",
            "--concurrency",
            "1,2",
            "--duration",
            "0.2s",
            "--cooldown",
            "0s",
            "--warmup",
            "10",
            "--sweep",
            "refine=16,32",
            "--output",
            "flat.json",
            "--csv",
            "runs.csv",
            "--plot",
            "curve.svg",
            "--mode",
            "tsv",
        ],
    );
    let stdout = ok(&out, "bench");
    let stderr = text(&out.stderr);
    assert!(stdout.starts_with("setting\trecall@10\tndcg@10\tserial QPS\t"), "{stdout}");
    assert!(stdout.contains("\nrefine=16\t1\t1\t") && stdout.contains("\nrefine=32\t1\t1\t"), "{stdout}");
    assert!(stdout.contains("\nphase\tseconds\tRSS MiB\t") && stdout.contains("\ninsert\t"), "{stdout}");
    // The engine's accounting beside the RSS: 3000 × 24 f32 mapped vectors.
    assert!(stdout.contains("\nmemory\tMiB\npeak RSS, whole process\t"), "{stdout}");
    assert!(
        stdout
            .contains(&format!("\nengine: mapped vectors\t{}\n", (3000.0 * 96.0 / 1048576.0 * 10.0f64).round() / 10.0)),
        "{stdout}"
    );
    assert!(stderr.contains("bench: inserted 3000 rows") && stderr.contains("appended 2 rows to runs.csv"), "{stderr}");

    let r: Value = serde_json::from_str(&std::fs::read_to_string(root.join("flat.json")).unwrap()).unwrap();
    check_sane(&r);
    // Flat search re-ranking 160 int8 candidates with the originals finds every neighbour.
    assert_eq!(f(&r, "/serial/recall"), 1.0);
    assert_eq!(at(&r, "/dataset/ground_truth"), "file");
    assert_eq!(at(&r, "/dataset/ground_truth_k"), 20);
    assert_eq!((f(&r, "/dataset/rows"), f(&r, "/dataset/dim"), f(&r, "/dataset/queries")), (3000.0, 24.0, 40.0));
    assert_eq!((f(&r, "/load/rows"), at(&r, "/load/skipped")), (3000.0, &Value::Bool(false)));
    assert_eq!(at(&r, "/searches").as_array().unwrap().len(), 2);
    assert_eq!(at(&r, "/searches/1/refine"), 32);
    assert_eq!(at(&r, "/concurrent").as_array().unwrap().len(), 2);
    assert_eq!(
        at(&r, "/config/schema_index"),
        &serde_json::json!({"type": "flat", "quantize": "int8", "rotate": true, "refine": 0})
    );
    assert_eq!((at(&r, "/schema_version"), at(&r, "/config/index")), (&Value::from(2), &Value::from("flat")));
    assert!(at(&r, "/command").as_str().unwrap().starts_with("xvec bench --dataset "));
    let names: Vec<&str> = at(&r, "/phases").as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    for want in ["dataset", "create", "insert", "optimize", "close", "open", "refine=16 warmup", "refine=32 serial"] {
        assert!(names.contains(&want), "{names:?}");
    }
    assert!(names.contains(&"refine=16 concurrent c=2"), "{names:?}");

    let csv = std::fs::read_to_string(root.join("runs.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 3, "{csv}");
    let header: Vec<&str> = lines[0].split(',').collect();
    assert_eq!(header, xvec_bench::export::COLUMNS);
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    assert!(lines[1].contains(",xvec,") && lines[2].contains(",synthetic,"), "{csv}");
    let row = split_csv(lines[2]);
    assert_eq!(row.len(), header.len());
    assert_eq!((&*row[col("ef")], &*row[col("recall")], &*row[col("conc_num_list")]), ("", "1.0000", "1;2"));
    assert!(row[col("command")].contains("--concurrency 1,2"), "{row:?}");

    let svg = std::fs::read_to_string(root.join("curve.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.matches("<circle").count() == 2, "{svg}");

    // A second run without ground truth on a prefix: computed, exact, and appended in
    // the existing file's column order.
    let base = dir.join("base.fvecs");
    let queries = dir.join("queries.fvecs");
    let out = xvec(
        root,
        &[
            "bench",
            "--base",
            base.to_str().unwrap(),
            "--queries",
            queries.to_str().unwrap(),
            "--limit",
            "1000",
            "--metric",
            "l2",
            "--concurrency",
            "1",
            "--duration",
            "0.1s",
            "--cooldown",
            "0s",
            "-o",
            "limit.json",
            "--csv",
            "runs.csv",
        ],
    );
    ok(&out, "bench --limit");
    let r2: Value = serde_json::from_str(&std::fs::read_to_string(root.join("limit.json")).unwrap()).unwrap();
    check_sane(&r2);
    assert_eq!((at(&r2, "/dataset/ground_truth"), f(&r2, "/dataset/rows")), (&Value::from("computed"), 1000.0));
    assert_eq!(f(&r2, "/dataset/total_rows"), 3000.0);
    assert_eq!(f(&r2, "/serial/recall"), 1.0);
    assert!(at(&r2, "/notes/0").as_str().unwrap().contains("ground truth computed"), "{}", at(&r2, "/notes"));
    assert_eq!(std::fs::read_to_string(root.join("runs.csv")).unwrap().lines().count(), 4);

    // Compare only: no dataset, two reports side by side with ratios.
    let out = xvec(root, &["bench", "--compare", "flat.json", "limit.json", "--plot", "both.svg", "--mode", "tsv"]);
    let stdout = ok(&out, "bench --compare");
    assert!(stdout.starts_with("figure\tbetter\tflat\tlimit\tlimit / flat\n"), "{stdout}");
    let rows_line = stdout.lines().find(|l| l.starts_with("rows\t")).unwrap();
    assert_eq!(rows_line, "rows\t\t3000\t1000\t");
    assert!(stdout.lines().any(|l| l.starts_with("serial QPS\thigher\t") && l.ends_with('x')), "{stdout}");
    let svg = std::fs::read_to_string(root.join("both.svg")).unwrap();
    assert_eq!(svg.matches("<polyline").count(), 2);
}

/// A graph index through the schema's JSON form: optimize builds it, the engine accounts
/// for its graph, and a wider search finds more.
/// `--filter`: the base rows' attributes come from base.jsonl, every query carries the
/// filter, and the ground truth is the exact top-k among the rows it allows, which an
/// exact (flat) search under the filter finds whole; the report and the CSV row name the
/// filter and its rows. Without the attribute file the run fails naming it.
#[test]
fn filter_runs_every_query_under_it_against_filtered_ground_truth() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let dir = wordnet_dir(root);
    let d = dir.to_str().unwrap();
    let common = ["--concurrency", "1", "--duration", "0.1s", "--cooldown", "0s"];
    let filter = "pos = 'v' AND n_lemmas >= 2";
    let missing = xvec(root, &[&["bench", "--dataset", d, "--filter", filter][..], &common].concat());
    assert_eq!(missing.status.code(), Some(1));
    assert!(text(&missing.stderr).contains("--filter needs the base rows' attributes"), "{}", text(&missing.stderr));
    assert!(text(&missing.stderr).contains("base.jsonl"), "{}", text(&missing.stderr));

    // pos cycles n, v, a; row 7 has none; n_lemmas is the row modulo 5.
    let lines: String = (0..ROWS)
        .map(|i| match i {
            7 => format!("{{\"row\":{i},\"n_lemmas\":{}}}\n", i % 5),
            _ => format!("{{\"row\":{i},\"pos\":\"{}\",\"n_lemmas\":{}}}\n", ["n", "v", "a"][i % 3], i % 5),
        })
        .collect();
    std::fs::write(dir.join("base.jsonl"), lines).unwrap();
    let args = [&["bench", "--dataset", d, "--filter", filter, "-o", "f.json", "--csv", "f.csv"][..], &common].concat();
    ok(&xvec(root, &args), "filtered bench");
    let r: Value = serde_json::from_str(&std::fs::read_to_string(root.join("f.json")).unwrap()).unwrap();
    check_sane(&r);
    let allowed = (0..ROWS).filter(|&i| i != 7 && i % 3 == 1 && i % 5 >= 2).count();
    assert_eq!(f(&r, "/dataset/filter_rows"), allowed as f64);
    assert_eq!(at(&r, "/config/filter"), filter);
    assert_eq!(at(&r, "/dataset/ground_truth"), "computed");
    assert_eq!(f(&r, "/serial/recall"), 1.0, "an exact search under the filter is the filtered ground truth");
    let csv = std::fs::read_to_string(root.join("f.csv")).unwrap();
    let row = split_csv(csv.lines().nth(1).unwrap());
    let params = row.iter().find(|c| c.starts_with("index=")).unwrap();
    assert!(
        params.contains(&format!("filter={filter:?}")) && params.contains(&format!("filter_rows={allowed}")),
        "{params}"
    );
}

#[test]
fn hnsw_sweep_builds_the_index_and_reports_its_memory() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let dir = wordnet_dir(root);
    let out = xvec(
        root,
        &[
            "bench",
            "--dataset",
            dir.to_str().unwrap(),
            "--index",
            "hnsw",
            "--m",
            "8",
            "--ef-construction",
            "64",
            "--sweep",
            "ef=10,80",
            "--repeat",
            "2",
            "--concurrency",
            "1",
            "--duration",
            "0.1s",
            "--cooldown",
            "0s",
            "-o",
            "hnsw.json",
        ],
    );
    ok(&out, "hnsw");
    let r: Value = serde_json::from_str(&std::fs::read_to_string(root.join("hnsw.json")).unwrap()).unwrap();
    check_sane(&r);
    assert_eq!(
        at(&r, "/config/schema_index"),
        &serde_json::json!({"type": "hnsw", "m": 8, "ef_construction": 64, "ef": 64, "seed": 42,
            "quantize": "none", "rotate": false, "refine": 0})
    );
    assert_eq!(at(&r, "/load/indexes_built"), 1);
    assert!(f(&r, "/engine_memory/graph") > 0.0);
    let (narrow, wide) = (f(&r, "/searches/0/serial/recall"), f(&r, "/searches/1/serial/recall"));
    assert!(wide > 0.8 && wide >= narrow, "recall {narrow} at ef=10, {wide} at ef=80");
    // --repeat 2: both settings ran in two interleaved rounds; each reports a round it ran.
    for s in 0..2 {
        let rounds = at(&r, &format!("/searches/{s}/serial_qps_rounds")).as_array().unwrap();
        let qps = f(&r, &format!("/searches/{s}/serial/qps"));
        assert_eq!(rounds.len(), 2, "{rounds:?}");
        assert!(rounds.iter().any(|q| q.as_f64() == Some(qps)), "{qps} not among {rounds:?}");
    }
    let phases: Vec<&str> = at(&r, "/phases").as_array().unwrap().iter().filter_map(|p| p["name"].as_str()).collect();
    let serial: Vec<&&str> = phases.iter().filter(|p| p.ends_with("serial")).collect();
    assert_eq!(
        serial,
        [&"round 1 ef=10 serial", &"round 1 ef=80 serial", &"round 2 ef=10 serial", &"round 2 ef=80 serial"]
    );
}

/// `--index ivf` builds RaBitQ-coded lists, `--sweep nprobe` searches them at each breadth
/// (recall rising with it), and the report counts the lists' and codes' bytes.
#[test]
fn ivf_sweep_probes_more_lists_and_reports_their_memory() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let dir = wordnet_dir(root);
    let args = [
        "bench",
        "--dataset",
        dir.to_str().unwrap(),
        "--index",
        "ivf",
        "--nlist",
        "16",
        "--quantize",
        "rabitq",
        "--bits",
        "4",
        "--refine",
        "4",
        "--sweep",
        "nprobe=1,16",
        "--concurrency",
        "1",
        "--duration",
        "0.1s",
        "--cooldown",
        "0s",
        "-o",
        "ivf.json",
    ];
    ok(&xvec(root, &args), "ivf");
    let r: Value = serde_json::from_str(&std::fs::read_to_string(root.join("ivf.json")).unwrap()).unwrap();
    check_sane(&r);
    let index = at(&r, "/config/schema_index");
    assert_eq!((&index["type"], &index["nlist"], &index["bits"]), (&"ivf".into(), &16.into(), &4.into()), "{index}");
    assert!(f(&r, "/engine_memory/lists") > 0.0 && f(&r, "/engine_memory/codes") > 0.0);
    let (narrow, wide) = (f(&r, "/searches/0/serial/recall"), f(&r, "/searches/1/serial/recall"));
    assert!(wide > 0.9 && wide > narrow, "recall {narrow} at nprobe=1, {wide} at nprobe=16");
}

#[test]
fn skip_load_reuses_the_collection_and_refuses_to_overwrite() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let dir = wordnet_dir(root);
    let common = ["--dataset", dir.to_str().unwrap(), "--concurrency", "1", "--duration", "0.1s", "--cooldown", "0s"];
    let run = |extra: &[&str]| xvec(root, &[&["bench"], &common[..], extra].concat());
    ok(&run(&["--path", "coll"]), "first run");
    assert!(root.join("coll/CURRENT").exists());
    let again = run(&["--path", "coll"]);
    assert_eq!(again.status.code(), Some(1));
    let err = text(&again.stderr);
    assert!(err.contains("error: create: ") && err.contains("hint: pass --skip-load"), "{err}");
    ok(&run(&["--path", "coll", "--skip-load", "--mmap", "false", "-o", "reuse.json"]), "skip-load");
    let r: Value = serde_json::from_str(&std::fs::read_to_string(root.join("reuse.json")).unwrap()).unwrap();
    check_sane(&r);
    assert_eq!(at(&r, "/load/skipped"), true);
    assert_eq!((f(&r, "/load/rows"), at(&r, "/load/insert_duration_sec")), (3000.0, &Value::Null));
    assert_eq!(at(&r, "/config/mmap"), false);
    assert!(f(&r, "/engine_memory/owned_segments") > 0.0 && f(&r, "/engine_memory/mapped_vectors") == 0.0);
    // --skip-load without --path is a usage error.
    assert_eq!(run(&["--skip-load"]).status.code(), Some(2));
}

/// A disk index searched under `--memory-budget`: the budget reaches the search phases'
/// open (the node cache it leaves is smaller than the default's) and the load's optimize,
/// and the serial pass reports the node blocks read per query (mean, p99) beside the beam
/// width, the device's bytes per query and the open's time, in the JSON, the table and
/// the CSV.
#[test]
fn a_disk_index_under_a_memory_budget_reports_its_reads_per_query() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let dir = wordnet_dir(root);
    let common = ["--dataset", dir.to_str().unwrap(), "--concurrency", "1", "--duration", "0.1s", "--cooldown", "0s"];
    let run = |extra: &[&str]| xvec(root, &[&["bench"], &common[..], extra].concat());
    let disk = ["--index", "disk", "--degree", "16", "--build-list", "32", "--path", "coll", "-o", "default.json"];
    ok(&run(&disk), "default cache");
    let out = run(&[
        "--memory-budget",
        "64KiB",
        "--path",
        "coll",
        "--skip-load",
        "-o",
        "budget.json",
        "--csv",
        "runs.csv",
        "--mode",
        "tsv",
    ]);
    let table = ok(&out, "budget");
    let read =
        |name: &str| -> Value { serde_json::from_str(&std::fs::read_to_string(root.join(name)).unwrap()).unwrap() };
    let (default, budget) = (read("default.json"), read("budget.json"));
    check_sane(&default);
    check_sane(&budget);
    assert_eq!(
        (at(&default, "/config/memory_budget"), at(&budget, "/config/memory_budget")),
        (&Value::Null, &65536.into())
    );
    // The default open caches the whole small graph; 64 KiB does not even hold its codes,
    // so nothing is cached and every expanded node is a read.
    let cache = |r: &Value| f(r, "/engine_memory/disk_cache");
    assert!(cache(&default) > 0.0 && cache(&budget) == 0.0, "{} {}", cache(&default), cache(&budget));
    let (mean, p99) = (f(&budget, "/serial/blocks_read_mean"), f(&budget, "/serial/blocks_read_p99"));
    assert!(mean > 0.0 && p99 >= mean, "mean {mean}, p99 {p99}");
    assert!(f(&default, "/serial/blocks_read_mean") < mean);
    assert_eq!(at(&budget, "/serial/beam_width"), 4);
    assert!(f(&budget, "/serial/read_bytes_per_query") >= 0.0);
    let open = at(&budget, "/phases").as_array().unwrap().iter().find(|p| p["name"] == "open").unwrap();
    // The tsv tables: the reads beside the latencies, the open's time among the phases.
    assert!(table.contains("\tblocks/query\tp99 blocks\tbeam\tKiB read/query\n"), "{table}");
    assert!(table.lines().any(|l| l.starts_with("open\t")), "{table}");
    let csv = std::fs::read_to_string(root.join("runs.csv")).unwrap();
    let lines: Vec<Vec<String>> = csv.lines().map(split_csv).collect();
    let cell = |name: &str| lines[1][lines[0].iter().position(|h| h == name).unwrap()].clone();
    assert_eq!((cell("memory_budget"), cell("beam_width")), ("65536".into(), "4".into()));
    assert_eq!(cell("blocks_read_mean"), format!("{mean:.2}"));
    assert_eq!(cell("open_duration"), format!("{:.3}", f(open, "/duration_sec")));
}

/// `--sweep beam=` searches the disk index once per beam width: each setting's row
/// reports the width its queries used (JSON, table and CSV), and with no cache a wider
/// beam reads more blocks a query; `--beam-width` is refused for another index.
#[test]
fn a_beam_sweep_reports_each_width_and_its_reads() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let dir = wordnet_dir(root);
    let common = ["--dataset", dir.to_str().unwrap(), "--concurrency", "1", "--duration", "0.1s", "--cooldown", "0s"];
    let run = |extra: &[&str]| xvec(root, &[&["--memory-budget", "64KiB", "bench"], &common[..], extra].concat());
    let disk = ["--index", "disk", "--degree", "16", "--build-list", "32", "--ef", "40", "--sweep", "beam=1,4,16"];
    let out = run(&[&disk[..], &["-o", "beam.json", "--csv", "beam.csv", "--mode", "tsv"]].concat());
    let table = ok(&out, "beam sweep");
    let r: Value = serde_json::from_str(&std::fs::read_to_string(root.join("beam.json")).unwrap()).unwrap();
    check_sane(&r);
    assert_eq!(at(&r, "/config/sweep"), &serde_json::json!({"param": "beam", "values": [1, 4, 16]}));
    let searches = at(&r, "/searches").as_array().unwrap();
    let widths: Vec<&Value> = searches.iter().map(|s| at(s, "/serial/beam_width")).collect();
    assert_eq!(widths, [1, 4, 16]);
    assert_eq!(searches.iter().map(|s| at(s, "/beam_width")).collect::<Vec<_>>(), widths);
    let blocks: Vec<f64> = searches.iter().map(|s| f(s, "/serial/blocks_read_mean")).collect();
    assert!(blocks[0] > 0.0 && blocks[0] < blocks[1] && blocks[1] < blocks[2], "{blocks:?}");
    let header = table.lines().find(|l| l.starts_with("setting\t")).unwrap();
    let beam = header.split('\t').position(|h| h == "beam").unwrap();
    for w in ["1", "4", "16"] {
        let label = format!("ef=40 beam={w}\t");
        let row = table.lines().find(|l| l.starts_with(&label)).unwrap_or_else(|| panic!("{label} in {table}"));
        assert_eq!(row.split('\t').nth(beam), Some(w), "{row}");
    }
    let csv = std::fs::read_to_string(root.join("beam.csv")).unwrap();
    let lines: Vec<Vec<String>> = csv.lines().map(split_csv).collect();
    let col = lines[0].iter().position(|h| h == "beam_width").unwrap();
    assert_eq!(lines[1..].iter().map(|l| l[col].as_str()).collect::<Vec<_>>(), ["1", "4", "16"]);
    let out = xvec(root, &[&["bench"], &common[..], &["--index", "hnsw", "--beam-width", "8"]].concat());
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--beam-width does not apply to --index hnsw"), "{}", text(&out.stderr));
}

#[test]
fn bad_datasets_and_flags_fail_with_clear_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let dir = wordnet_dir(root);
    let d = dir.to_str().unwrap();
    let err = |args: &[&str], code: i32| {
        let out = xvec(root, args);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {}", text(&out.stderr));
        text(&out.stderr)
    };
    // A truncated base file names the file, the row and the byte offset.
    let bytes = std::fs::read(dir.join("base.fvecs")).unwrap();
    std::fs::write(dir.join("base.fvecs"), &bytes[..bytes.len() - 7]).unwrap();
    let msg = err(&["bench", "--dataset", d], 1);
    assert!(msg.contains("base.fvecs: truncated: 93 bytes left at byte") && msg.contains("(row 2999)"), "{msg}");
    std::fs::write(dir.join("base.fvecs"), &bytes).unwrap();
    // Queries of another dimension.
    fvecs(&root.join("q8.fvecs"), &random_vectors(1, 3, 8));
    let base = dir.join("base.fvecs");
    let msg = err(&["bench", "--base", base.to_str().unwrap(), "--queries", "q8.fvecs"], 1);
    assert!(msg.contains("q8.fvecs: queries have dimension 8, the base vectors") && msg.contains(" 24"), "{msg}");
    // Ground truth with fewer neighbours than k is replaced by computed ground truth.
    let out = xvec(
        root,
        &["bench", "--dataset", d, "-k", "30", "--concurrency", "1", "--duration", "0.05s", "-o", "k30.json"],
    );
    ok(&out, "k above the file's");
    assert!(text(&out.stderr).contains("fewer than k = 30"), "{}", text(&out.stderr));
    // An empty directory, an index the engine does not know, a parameter flat does not take.
    std::fs::create_dir(root.join("empty")).unwrap();
    assert!(err(&["bench", "--dataset", "empty"], 1).contains("empty: no dataset found: expected base.fvecs"));
    let msg = err(&["bench", "--dataset", d, "--index", "hnsw", "--m", "1"], 1);
    assert!(msg.contains(r#"index {"type":"hnsw","m":1,"ef_construction":200,"ef":64,"seed":42,"#), "{msg}");
    assert!(msg.contains("m 1 is out of range"), "{msg}");
    assert!(err(&["bench", "--dataset", d, "--m", "8"], 2).contains("--m applies to --index hnsw"));
    // Parser-checked flags.
    assert!(err(&["bench", "--dataset", d, "--index", "ivfpq"], 2).contains("invalid value 'ivfpq'"));
    assert!(err(&["bench", "--dataset", d, "--nprobe", "8"], 2).contains("--nprobe does not apply to --index flat;"));
    assert!(
        err(&["bench", "--dataset", d, "--index", "hnsw", "--sweep", "nprobe=8"], 2)
            .contains("--nprobe does not apply to --index hnsw;")
    );
    assert!(err(&["bench", "--dataset", d, "--duration", "soon"], 2).contains("'soon' is not a duration"));
    assert!(err(&["bench", "--dataset", d, "--sweep", "m=4"], 2).contains("'m' is not a parameter that can be swept"));
    assert!(err(&["bench", "--dataset", d, "--base", "x.fvecs"], 2).contains("cannot be used with"));
    assert!(err(&["bench"], 2).contains("bench needs --dataset DIR"));
    assert!(err(&["bench", "--compare", "nope.json"], 1).contains("nope.json: "));
    // A CSV file of another layout is refused, not mixed.
    std::fs::write(root.join("old.csv"), "date,db\n").unwrap();
    let msg = err(&["bench", "--dataset", d, "--concurrency", "1", "--duration", "0.05s", "--csv", "old.csv"], 1);
    assert!(msg.contains("old.csv: line 1: the header lacks the columns db_version, commit,"), "{msg}");
}

#[test]
fn npy_dataset_and_ground_truth_read_as_fvecs() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let dir = wordnet_dir(root);
    let npy = |path: &Path, rows: usize, cols: usize, descr: &str, data: &[u8]| {
        let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': ({rows}, {cols}), }}");
        let mut header = dict.into_bytes();
        while (10 + header.len() + 1) % 64 != 0 {
            header.push(b' ');
        }
        header.push(b'\n');
        let mut b = b"\x93NUMPY\x01\x00".to_vec();
        b.extend_from_slice(&(header.len() as u16).to_le_bytes());
        b.extend_from_slice(&header);
        b.extend_from_slice(data);
        std::fs::write(path, b).unwrap();
    };
    let v = VectorFile::open(&dir.join("queries.fvecs")).unwrap();
    let mut q = Vec::new();
    let mut row = Vec::new();
    for i in 0..v.len() {
        v.read_row(i, &mut row);
        row.iter().for_each(|x| q.extend_from_slice(&x.to_le_bytes()));
    }
    npy(&root.join("q.npy"), QUERIES, DIM, "<f4", &q);
    let gt = GroundTruth::open(&dir.join("gt_cosine_20.ivecs")).unwrap();
    let ids: Vec<u8> =
        (0..gt.len()).flat_map(|i| gt.row(i).to_vec()).flat_map(|id| i64::from(id).to_le_bytes()).collect();
    npy(&root.join("gt.npy"), QUERIES, 20, "<i8", &ids);
    let base = dir.join("base.fvecs");
    let out = xvec(
        root,
        &[
            "bench",
            "--base",
            base.to_str().unwrap(),
            "--queries",
            "q.npy",
            "--gt",
            "gt.npy",
            "--concurrency",
            "1",
            "--duration",
            "0.05s",
            "--cooldown",
            "0s",
            "-o",
            "npy.json",
        ],
    );
    ok(&out, "npy");
    let r: Value = serde_json::from_str(&std::fs::read_to_string(root.join("npy.json")).unwrap()).unwrap();
    check_sane(&r);
    assert_eq!((at(&r, "/dataset/ground_truth"), f(&r, "/serial/recall")), (&Value::from("file"), 1.0));
}

#[cfg(feature = "parquet")]
mod parquet_files {
    use std::fs::File;
    use std::sync::Arc;

    use parquet::basic::Compression;
    use parquet::data_type::{DataType, DoubleType, FloatType, Int64Type};
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    use parquet::schema::parser::parse_message_type;
    use xvec_bench::parquet::{read_neighbors, read_vectors};

    use super::*;

    /// One list column as pyarrow writes it: values with definition and repetition levels.
    pub struct ListColumn<T: DataType> {
        pub values: Vec<T::T>,
        pub def: Vec<i16>,
        pub rep: Vec<i16>,
    }

    impl<T: DataType> ListColumn<T> {
        /// Every row a full list of non-null values.
        pub fn dense(rows: &[Vec<T::T>]) -> ListColumn<T>
        where
            T::T: Clone,
        {
            let mut c = ListColumn { values: Vec::new(), def: Vec::new(), rep: Vec::new() };
            for r in rows {
                for (i, v) in r.iter().enumerate() {
                    c.values.push(v.clone());
                    c.def.push(3);
                    c.rep.push(i16::from(i > 0));
                }
            }
            c
        }
    }

    /// Writes `REQUIRED INT64 id` and `OPTIONAL group <list> (LIST)` of `<elem>`, split
    /// into row groups of `group` rows (the list column's levels split accordingly).
    pub fn write<T: DataType>(path: &Path, ids: &[i64], list: &str, elem: &str, col: &ListColumn<T>, group: usize) {
        let schema = parse_message_type(&format!(
            "message schema {{ REQUIRED INT64 id; OPTIONAL group {list} (LIST) {{ REPEATED group list {{ OPTIONAL {elem} element; }} }} }}"
        ))
        .unwrap();
        let props = Arc::new(WriterProperties::builder().set_compression(Compression::SNAPPY).build());
        let mut w = SerializedFileWriter::new(File::create(path).unwrap(), Arc::new(schema), props).unwrap();
        let starts: Vec<usize> = col.rep.iter().enumerate().filter(|(_, r)| **r == 0).map(|(i, _)| i).collect();
        let (mut level, mut value) = (0, 0);
        for first in (0..ids.len()).step_by(group) {
            let last = (first + group).min(ids.len());
            let end_level = starts.get(last).copied().unwrap_or(col.rep.len());
            let present = col.def[level..end_level].iter().filter(|d| **d == 3).count();
            let mut rg = w.next_row_group().unwrap();
            let mut c = rg.next_column().unwrap().unwrap();
            c.typed::<Int64Type>().write_batch(&ids[first..last], None, None).unwrap();
            c.close().unwrap();
            let mut c = rg.next_column().unwrap().unwrap();
            c.typed::<T>()
                .write_batch(
                    &col.values[value..value + present],
                    Some(&col.def[level..end_level]),
                    Some(&col.rep[level..end_level]),
                )
                .unwrap();
            c.close().unwrap();
            rg.close().unwrap();
            (level, value) = (end_level, value + present);
        }
        w.close().unwrap();
    }

    /// A VectorDBBench directory whose ids are not row numbers, in several row groups,
    /// with double-precision queries: ids, levels and both element types are exercised.
    #[test]
    fn vectordbbench_layout_end_to_end() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        let dir = root.join("vdb");
        std::fs::create_dir(&dir).unwrap();
        let Data { base, queries, gt } = data();
        let id_of = |row: i64| row * 3 + 7;
        let ids: Vec<i64> = (0..ROWS as i64).map(id_of).collect();
        write::<FloatType>(&dir.join("train.parquet"), &ids, "emb", "FLOAT", &ListColumn::dense(&base), 700);
        let q64: Vec<Vec<f64>> = queries.iter().map(|q| q.iter().map(|&x| f64::from(x)).collect()).collect();
        // Query ids in reverse, neighbours listed in another order: matched by id.
        let qids: Vec<i64> = (0..QUERIES as i64).rev().collect();
        write::<DoubleType>(&dir.join("test.parquet"), &qids, "emb", "DOUBLE", &ListColumn::dense(&q64), 1000);
        // Neighbors row j is for query id j, which is test row QUERIES-1-j.
        let nb_ids: Vec<i64> = (0..QUERIES as i64).collect();
        let nb_rows: Vec<Vec<i64>> =
            (0..QUERIES).map(|j| gt[QUERIES - 1 - j].iter().map(|&r| id_of(i64::from(r))).collect()).collect();
        write::<Int64Type>(
            &dir.join("neighbors.parquet"),
            &nb_ids,
            "neighbors_id",
            "INT64",
            &ListColumn::dense(&nb_rows),
            1000,
        );

        let v = read_vectors(&dir.join("train.parquet")).unwrap();
        assert_eq!((v.ids.len(), v.dim, v.ids[2]), (ROWS, DIM, 13));
        assert_eq!(&v.data[DIM..2 * DIM], &base[1][..]);
        let n = read_neighbors(&dir.join("neighbors.parquet")).unwrap();
        assert_eq!((n.k, n.ids.as_ref().unwrap().len()), (20, QUERIES));

        let out = xvec(
            root,
            &[
                "bench",
                "--dataset",
                dir.to_str().unwrap(),
                "--concurrency",
                "1",
                "--duration",
                "0.05s",
                "--cooldown",
                "0s",
                "-o",
                "vdb.json",
            ],
        );
        ok(&out, "parquet dataset");
        let r: Value = serde_json::from_str(&std::fs::read_to_string(root.join("vdb.json")).unwrap()).unwrap();
        check_sane(&r);
        assert_eq!(at(&r, "/dataset/base_format"), "parquet");
        assert_eq!((at(&r, "/dataset/ground_truth"), f(&r, "/serial/recall")), (&Value::from("file"), 1.0));
        // --limit on ids that are not row numbers: the file's ground truth does not hold.
        let out = xvec(
            root,
            &[
                "bench",
                "--dataset",
                dir.to_str().unwrap(),
                "--limit",
                "500",
                "--concurrency",
                "1",
                "--duration",
                "0.05s",
                "--cooldown",
                "0s",
                "-o",
                "vdb500.json",
            ],
        );
        ok(&out, "parquet --limit");
        let r: Value = serde_json::from_str(&std::fs::read_to_string(root.join("vdb500.json")).unwrap()).unwrap();
        assert_eq!((at(&r, "/dataset/ground_truth"), f(&r, "/serial/recall")), (&Value::from("computed"), 1.0));
    }

    #[test]
    fn malformed_parquet_files_name_file_row_and_expectation() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("t.parquet");
        let err = |p: &Path| read_vectors(p).unwrap_err().to_string();
        let rows = vec![vec![1.0f32, 2.0], vec![3.0, 4.0], vec![5.0, 6.0]];
        // Ragged: row 2 has one value.
        let mut c = ListColumn::<FloatType>::dense(&rows);
        c.values.pop();
        c.def.pop();
        c.rep.pop();
        write(&p, &[0, 1, 2], "emb", "FLOAT", &c, 10);
        let msg = err(&p);
        assert!(msg.contains("t.parquet: column 'emb' row 2: 1 values, expected 2 (as in row 0)"), "{msg}");
        // A null element (definition level 2) in row 1, and an empty list in row 0.
        let mut c = ListColumn::<FloatType>::dense(&rows);
        c.def[3] = 2;
        c.values.remove(3);
        write(&p, &[0, 1, 2], "emb", "FLOAT", &c, 10);
        assert!(err(&p).contains("column 'emb' row 1: null or empty value (definition level 2 of 3)"), "{}", err(&p));
        let c = ListColumn::<FloatType> { values: vec![3.0, 4.0], def: vec![1, 3, 3], rep: vec![0, 0, 1] };
        write(&p, &[0, 1], "emb", "FLOAT", &c, 10);
        assert!(err(&p).contains("row 0: null or empty value (definition level 1 of 3)"), "{}", err(&p));
        // Wrong column name and wrong element type.
        write(&p, &[0, 1, 2], "vec", "FLOAT", &ListColumn::<FloatType>::dense(&rows), 10);
        assert!(err(&p).contains("no column 'emb'; the file has id, vec.list.element"), "{}", err(&p));
        let ints = vec![vec![1i64, 2], vec![3, 4]];
        write(&p, &[0, 1], "emb", "INT64", &ListColumn::<Int64Type>::dense(&ints), 10);
        assert!(err(&p).contains("column 'emb' holds INT64, expected list<float or double>"), "{}", err(&p));
        // Not parquet at all, cut short, empty.
        std::fs::write(&p, b"PAR1 nonsense").unwrap();
        assert!(err(&p).contains("t.parquet: not a readable parquet file"), "{}", err(&p));
        write(&p, &[0, 1, 2], "emb", "FLOAT", &ListColumn::<FloatType>::dense(&rows), 10);
        let bytes = std::fs::read(&p).unwrap();
        std::fs::write(&p, &bytes[..bytes.len() - 9]).unwrap();
        assert!(err(&p).contains("not a readable parquet file"), "{}", err(&p));
        std::fs::write(&p, b"").unwrap();
        assert!(err(&p).contains("not a readable parquet file"), "{}", err(&p));
        // Every prefix and byte flip: an error or a result, never a panic.
        for n in (0..bytes.len()).step_by(7) {
            std::fs::write(&p, &bytes[..n]).unwrap();
            let _ = read_vectors(&p);
        }
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x5a;
            std::fs::write(&p, &b).unwrap();
            let _ = read_vectors(&p);
        }
    }
}

pub(crate) mod schema;

/// `--text` on the committed WordNet sample: both collections load, the five query kinds
/// run in rounds, the text queries find glosses, the sparse BM25 queries are exact
/// against brute force, and one CSV row per kind lands in the columns
/// `docs/benchmarks/fts_peers.py` writes.
#[test]
fn text_runs_fulltext_dense_and_hybrid_queries_on_glosses() {
    let dir = tempfile::tempdir().unwrap();
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../commands/data");
    for (from, to) in [
        ("wordnet.jsonl", "base.jsonl"),
        ("wordnet.fvecs", "base.fvecs"),
        ("queries.jsonl", "queries.jsonl"),
        ("queries.fvecs", "queries.fvecs"),
    ] {
        std::fs::copy(data.join(from), dir.path().join(to)).unwrap();
    }
    let d = dir.path().to_str().unwrap();
    let args = ["bench", "--dataset", d, "--index", "hnsw", "--text", "gloss", "--text-query-key", "lemma"];
    let out = xvec(dir.path(), &[&args[..], &["--repeat", "2", "--csv", "fts.csv"]].concat());
    let stdout = ok(&out, "bench --text");
    assert!(stdout.contains("text only\t2500\t"), "{stdout}");
    for kind in ["text only", "dense", "text", "sparse", "hybrid rrf"] {
        assert!(stdout.lines().any(|l| l.starts_with(&format!("{kind}\t"))), "{kind}: {stdout}");
    }
    let err = text(&out.stderr);
    let hits: f64 = err.split(" text hits per query").next().unwrap().rsplit(' ').next().unwrap().parse().unwrap();
    assert!(hits > 1.0, "the lemmas find their glosses: {err}");
    assert!(err.contains("sparse recall@10 against brute force 1.0000"), "exact sparse search: {err}");
    let csv = std::fs::read_to_string(dir.path().join("fts.csv")).unwrap();
    let mut lines = csv.lines();
    assert!(lines.next().unwrap().starts_with("date,db,db_version,command,machine,cores,"), "{csv}");
    assert_eq!(lines.count(), 5, "{csv}");
    let bad = xvec(dir.path(), &[&args[..], &["--text-index", r#"{"type": "fts", "tokenizer": "words"}"#]].concat());
    assert_eq!(bad.status.code(), Some(2), "{}", text(&bad.stderr));
    assert!(text(&bad.stderr).contains("--text-index"), "{}", text(&bad.stderr));
    let missing = xvec(dir.path(), &[&args[..5], &["--text", "nothing"]].concat());
    assert!(
        text(&missing.stderr).contains("base.jsonl: no row has a text under `nothing`"),
        "{}",
        text(&missing.stderr)
    );
}
