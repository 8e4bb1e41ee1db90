//! `xvec tui` (issue 9): the headless run prints every panel value with sane numbers, the
//! dashboard refuses to start without a terminal, and under a real terminal (tmux) every
//! view shows, the controls act, and quitting restores the terminal.

use crate::cli::pty::Tmux;
use crate::harness::{data, wordnet, wordnet_hybrid, xvec};

#[test]
fn headless_json_has_every_panel_value() {
    let coll = wordnet().to_str().unwrap();
    let run =
        xvec(&["tui", coll, "--headless", "--duration", "1500ms", "--json", "--concurrency", "1", "-k", "5"]).run();
    run.ok();
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {run}"));
    let num = |path: &str| {
        v.pointer(path).and_then(|x| x.as_f64()).unwrap_or_else(|| panic!("{path} missing or not a number: {v}"))
    };
    assert!(num("/qps") > 0.0 && num("/qps_avg") > 0.0 && num("/queries") > 0.0, "{v}");
    assert_eq!(num("/errors"), 0.0);
    let recall = num("/recall");
    assert!((0.0..=1.0).contains(&recall) && num("/recall_queries") > 0.0, "{v}");
    // A flat index is exact: recall against exact search is perfect, the queries' own rows
    // left out of both.
    assert!(recall > 0.99, "{v}");
    assert!(num("/latency_ms/p50") > 0.0 && num("/latency_ms/p99") >= num("/latency_ms/p50"), "{v}");
    assert!(num("/latency_ms_all/max") >= num("/latency_ms_all/p99"), "{v}");
    assert!(num("/rss_mib") > 0.0 && num("/rss_peak_mib") >= num("/rss_mib"), "{v}");
    assert!(num("/engine_total_bytes") > 0.0 && num("/engine_peak_bytes") >= num("/engine_total_bytes"), "{v}");
    assert!(num("/cpu_user") >= 0.0 && num("/cpu_sys") >= 0.0, "{v}");
    assert!(num("/elapsed_s") >= 1.0, "{v}");
    let kinds = v["engine_bytes"].as_array().unwrap();
    assert!(kinds.iter().any(|k| k["kind"] == "mapped vectors" && k["bytes"].as_u64() > Some(0)), "{v}");
    assert_eq!(v["settings"]["k"], 5);
    assert_eq!(v["settings"]["concurrency"], 1);
    assert_eq!(v["recall_source"], "exact search, 100 queries");
    assert_eq!(v["queries_source"], "sampled, own row excluded");
}

#[test]
fn headless_with_a_query_file_a_filter_and_a_table() {
    let coll = wordnet().to_str().unwrap();
    let filter = "lexname = 'noun.animal'";
    let run = xvec(&[
        "tui",
        coll,
        "--headless",
        "--duration",
        "500ms",
        "--queries",
        &data("wordnet.fvecs"),
        "--max-queries",
        "50",
        "--filter",
        filter,
    ])
    .run();
    run.ok();
    for name in ["qps\t", "latency_ms.p99\t", "recall\t", "engine_bytes.mapped vectors\t", "settings.filter\t"] {
        assert!(run.stdout.contains(name), "{name}: {run}");
    }
    assert!(run.stdout.contains(&format!("queries_source\tfrom {}", data("wordnet.fvecs"))), "{run}");
}

/// `--param` binds the filter's `$name` in the workload and in the exact reference alike.
#[test]
fn headless_filter_binds_parameters() {
    let coll = wordnet().to_str().unwrap();
    let args = ["tui", coll, "--headless", "--json", "--duration", "500ms", "--concurrency", "1"];
    let run = xvec(&[&args[..], &["--filter", "lexname = $lex", "--param", "lex=noun.animal"]].concat()).run();
    run.ok();
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {run}"));
    assert_eq!(v["errors"], 0, "{v}");
    assert!(v["queries"].as_u64() > Some(0) && v["recall_queries"].as_u64() > Some(0), "{v}");
    assert!(v["recall"].as_f64() > Some(0.99), "a flat index with the bound filter is exact: {v}");
    let run = xvec(&[&args[..], &["--filter", "lexname = $lex"]].concat()).run();
    run.code(2);
    assert!(run.stderr.contains("parameter `$lex` is not bound"), "{run}");
}

#[test]
fn errors_are_one_line_with_a_hint() {
    let coll = wordnet().to_str().unwrap();
    let run = xvec(&["tui", coll]).run();
    run.code(2);
    assert_eq!(
        run.stderr, "error: the dashboard needs a terminal\nhint: run it headless: --headless --json\n",
        "{run}"
    );
    let run = xvec(&["tui", coll, "--headless", "--filter", "nope = 1"]).run();
    run.code(2);
    assert!(run.stderr.starts_with("error: ") && run.stderr.contains("nope"), "{run}");
    let run = xvec(&["tui", coll, "--headless", "--gt", "gt.ivecs"]).run();
    run.code(2);
}

/// Quitting leaves no alternate screen and a cooked terminal, after every view, an ef
/// change, a pause and an optimize.
#[test]
fn dashboard_under_a_terminal_restores_it_on_quit() {
    let dir = tempfile::tempdir().unwrap();
    let coll = sample_with_index(dir.path(), "ann", r#"{"type": "hnsw", "quantize": "int8", "refine": 2}"#);
    let c = coll.to_str().unwrap();
    let t = terminal(dir.path());
    t.keys(&[&format!("{} tui {c} --write --concurrency 1", crate::harness::bin()), "Enter"]);
    // It opens on the first view.
    t.wait("the overview", |s| s.contains("1 Overview") && s.contains("on disk") && s.contains("hnsw m="));
    t.keys(&["2"]);
    t.wait("the search view", |s| s.contains("QPS") && s.contains("recall@10") && s.contains("own row excluded"));
    t.keys(&["3"]);
    t.wait("the optimize view", |s| s.contains("press o to optimize"));
    t.keys(&["o"]);
    t.wait("the optimize to finish", |s| s.contains("done in") && s.contains("indexes built"));
    t.keys(&["4"]);
    t.wait("the graph of the segment", |s| s.contains("layers: L0") && s.contains("reachable from entry"));
    t.keys(&["2"]);
    t.keys(&["]"]);
    t.wait("ef raised", |s| s.contains("| ef 80 |"));
    t.keys(&["Space"]);
    t.wait("the pause", |s| s.contains("paused |"));
    t.keys(&["?"]);
    t.wait("the key map", |s| s.contains("keys (? to close)"));
    t.keys(&["?"]);
    t.wait("the key map closed", |s| !s.contains("keys (? to close)"));
    t.keys(&["q"]);
    t.wait("the prompt back", |s| !s.contains("1 Overview") && s.contains("tui-test$"));
    assert_eq!(t.run(&["display", "-p", "-t", "t", "#{alternate_on}"]).trim(), "0");
    t.keys(&[
        "echo \"STTY:$(stty -a | tr ' ;' '\\n\\n' | grep -x -e echo -e icanon -e -echo -e -icanon | tr '\\n' ' ')\"",
        "Enter",
    ]);
    let screen = t.wait("stty's answer", |s| s.contains("STTY:i") || s.contains("STTY:e") || s.contains("STTY:-"));
    assert!(screen.contains("STTY:icanon echo\n"), "{screen}");
}

/// A read-only dashboard on a collection another handle writes to follows it: the live
/// count grows under it, and it reports the ingest rate and the rows not indexed yet.
#[test]
fn headless_on_a_live_collection_reports_ingest_and_backlog() {
    use xvec::{Collection, Doc, Field, Metric, Schema, VectorType};
    let dir = tempfile::tempdir().unwrap();
    let schema = Schema::builder("live").field(Field::vector("emb", VectorType::Fp32, 8, Metric::L2)).build().unwrap();
    let coll = Collection::create(dir.path(), schema, Default::default()).unwrap();
    let doc =
        |i: usize| Doc::new(format!("k{i}")).set("emb", (0..8).map(|j| ((i * 8 + j) % 97) as f32).collect::<Vec<_>>());
    coll.insert((0..200).map(doc).collect()).unwrap();
    coll.flush().unwrap();
    let stop = std::sync::atomic::AtomicBool::new(false);
    let run = std::thread::scope(|s| {
        s.spawn(|| {
            let mut i = 200;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                coll.insert((i..i + 50).map(doc).collect()).unwrap();
                i += 50;
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        });
        let d = dir.path().to_str().unwrap();
        let run = xvec(&["tui", d, "--headless", "--duration", "1500ms", "--json", "--concurrency", "1"]).run();
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        run
    });
    run.ok();
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {run}"));
    assert!(v["ingest_docs_per_s"].as_f64().unwrap() > 0.0, "{v}");
    assert!(v["live_docs"].as_u64().unwrap() > 200 && v["wal_records"].as_u64().unwrap() > 0, "{v}");
    assert_eq!(v["live_docs"].as_u64().unwrap() - 200, v["unindexed_rows"].as_u64().unwrap(), "{v}");
}

/// On an IVF index the breadth keys step nprobe, the footer shows it, and a headless run
/// reports the nprobe it searched with.
#[test]
fn on_an_ivf_index_the_breadth_keys_step_nprobe() {
    let dir = tempfile::tempdir().unwrap();
    let coll = sample_with_index(dir.path(), "ivf", r#"{"type": "ivf", "nlist": 32, "nprobe": 8, "soar": true}"#);
    let c = coll.to_str().unwrap();
    xvec(&["optimize", c, "--concurrency", "1"]).run().ok();

    let run =
        xvec(&["tui", c, "--headless", "--duration", "1s", "--json", "--concurrency", "1", "--nprobe", "4"]).run();
    run.ok();
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {run}"));
    assert_eq!(v["settings"]["nprobe"], 4, "{v}");
    assert_eq!(v["settings"]["ef"], serde_json::Value::Null, "{v}");
    let recall = v["recall"].as_f64().unwrap();
    assert!(recall > 0.5 && recall <= 1.0, "{v}");

    let t = terminal(dir.path());
    t.keys(&[&format!("{} tui {c} --concurrency 1", crate::harness::bin()), "Enter"]);
    t.keys(&["2"]);
    t.wait("the search view at the index's nprobe", |s| s.contains("| nprobe 8 |"));
    t.keys(&["]"]);
    t.wait("nprobe raised", |s| s.contains("| nprobe 10 |"));
    t.keys(&["["]);
    t.keys(&["["]);
    t.wait("nprobe lowered", |s| s.contains("| nprobe 7 |"));
    t.keys(&["q"]);
    t.wait("the prompt back", |s| !s.contains("1 Overview") && s.contains("tui-test$"));
}

/// `--text-field` and `--sparse-field` make every query hybrid: the sampled row's gloss and
/// BM25 vector rank beside its vector. Recall has no reference then; a field of the wrong
/// kind, or a query file (which has no texts), is refused.
#[test]
fn headless_hybrid_queries_run_text_and_sparse_branches() {
    let c = wordnet_hybrid().to_str().unwrap();
    let args = ["tui", c, "--headless", "--json", "--duration", "1s", "--concurrency", "1"];
    let run = xvec(&[&args[..], &["--text-field", "gloss", "--sparse-field", "bm25"]].concat()).run();
    run.ok();
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {run}"));
    assert!(v["queries"].as_u64() > Some(0) && v["errors"] == 0, "{v}");
    assert_eq!(v["branches"], "vector + text gloss + sparse bm25");
    assert_eq!(v["recall_source"], "none: hybrid vector + text gloss + sparse bm25, RRF");
    assert!(v["recall"].is_null(), "{v}");
    assert!(v["engine_bytes"].as_array().unwrap().iter().any(|k| k["kind"] == "sparse indexes"), "{v}");

    let run = xvec(&[&args[..], &["--text-field", "lemma"]].concat()).run();
    assert!(
        run.code(2)
            .stderr
            .contains("--text-field lemma: no full-text field named `lemma`; the full-text field is gloss"),
        "{run}"
    );
    let run = xvec(&[&args[..], &["--sparse-field", "gloss"]].concat()).run();
    assert!(
        run.code(2)
            .stderr
            .contains("--sparse-field gloss: no sparse vector field named `gloss`; the sparse vector field is bm25"),
        "{run}"
    );
    let run = xvec(&[&args[..], &["--text-field", "gloss", "--queries", &data("queries.fvecs")]].concat()).run();
    assert!(run.code(2).stderr.contains("leave out --queries"), "{run}");
}

/// The committed WordNet sample in collection `name` under `dir`, its vectors indexed by
/// `index` (schema JSON), flushed.
fn sample_with_index(dir: &std::path::Path, name: &str, index: &str) -> std::path::PathBuf {
    let coll = dir.join(name);
    let schema = std::fs::read_to_string(data("schema.json")).unwrap();
    let schema = schema.replace(r#""index": {"type": "flat"}"#, &format!(r#""index": {index}"#));
    let file = dir.join(format!("{name}-schema.json"));
    std::fs::write(&file, schema).unwrap();
    let c = coll.to_str().unwrap();
    xvec(&["create", c, "--schema", file.to_str().unwrap()]).run().ok();
    xvec(&["import", c, &data("wordnet.jsonl"), "--vectors", &format!("emb={}", data("wordnet.fvecs")), "--flush"])
        .run()
        .ok();
    coll
}

/// An 80×24 tmux terminal at a shell prompt, in `dir`.
fn terminal(dir: &std::path::Path) -> Tmux {
    let shell = format!(
        "env -i PATH=/usr/bin:/bin TERM=xterm HOME={home} NO_COLOR=1 PS1='tui-test$ ' sh",
        home = dir.display()
    );
    let t = Tmux::start(dir, &shell);
    t.run(&["resize-window", "-t", "t", "-x", "80", "-y", "24"]);
    t.wait("the shell prompt", |s| s.contains("tui-test$"));
    t
}
