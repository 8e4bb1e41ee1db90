//! `xvec bench --streaming` end to end on generated data: rows inserted while threads
//! search, the report's windows against the rows inserted and the committed JSON Schema,
//! exact recall for a flat index, the CSV row and the timeline plot; and its flags' errors.

use serde_json::Value;

use crate::bench::{at, f, ok, schema, split_csv, text, wordnet_dir, xvec};

/// The figures every streaming report must have, sane, and the schema.
fn check_stream(r: &Value, rows: u64) {
    schema::validate(r);
    let windows = at(r, "/streaming/windows").as_array().unwrap();
    let inserted: u64 = windows.iter().map(|w| w["inserted_rows"].as_u64().unwrap()).sum();
    assert_eq!((inserted, at(r, "/streaming/totals/rows").as_u64()), (rows, Some(rows)));
    assert_eq!(windows.last().unwrap()["total_rows"], rows);
    let mut before = 0.0;
    for w in windows {
        assert!(f(w, "/start_sec") == before && f(w, "/end_sec") > f(w, "/start_sec"), "{w}");
        before = f(w, "/end_sec");
        if let Some(recall) = w["recall"].as_f64() {
            assert!((0.0..=1.0).contains(&recall), "{w}");
        }
        assert!(w["visible_rows"].as_u64().is_none_or(|v| v <= w["total_rows"].as_u64().unwrap()), "{w}");
        assert!(f(w, "/rss_mib") > 0.0 && f(w, "/engine_bytes") > 0.0, "{w}");
    }
    assert!(f(r, "/streaming/totals/queries") > 0.0 && f(r, "/streaming/totals/qps") > 0.0);
    assert!(f(r, "/streaming/totals/latency_p50_ms") <= f(r, "/streaming/totals/latency_p99_ms"));
    assert!(r.get("serial").is_none() && r.get("load").is_none());
    assert!(at(r, "/notes/0").as_str().unwrap().starts_with("prefix ground truth computed"));
    let names: Vec<&str> = at(r, "/phases").as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["dataset", "ground truth", "create", "streaming", "close"]);
}

#[test]
fn streaming_reports_windows_exact_recall_csv_and_plot() {
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
            "--streaming",
            "--index",
            "flat",
            "-k",
            "10",
            "--rate",
            "6000",
            "--batch",
            "200",
            "--window",
            "0.1s",
            "--search-threads",
            "2",
            "--flush-every",
            "1000",
            "-o",
            "stream.json",
            "--csv",
            "stream.csv",
            "--plot",
            "stream.svg",
            "--mode",
            "tsv",
        ],
    );
    let stdout = ok(&out, "bench --streaming");
    let stderr = text(&out.stderr);
    assert!(
        stdout.starts_with("t s\trows\tvisible\trows/s\tQPS\tp50 ms\tp99 ms\trecall@10\tRSS MiB\tengine MiB\n"),
        "{stdout}"
    );
    assert!(stdout.contains("\ntotal\tvalue\nrows\t3000\n") && stdout.contains("\nflushes\t3\n"), "{stdout}");
    assert!(
        stderr.contains("bench: streamed 3000 rows") && stderr.contains("appended 1 row to stream.csv"),
        "{stderr}"
    );

    let r: Value = serde_json::from_str(&std::fs::read_to_string(root.join("stream.json")).unwrap()).unwrap();
    check_stream(&r, 3000);
    // 3000 rows at 6000 rows/s: about half a second, so several 0.1 s windows.
    let windows = at(&r, "/streaming/windows").as_array().unwrap();
    assert!(windows.len() >= 4 && f(&r, "/streaming/totals/duration_sec") >= 0.45, "{}", windows.len());
    // Flat search is exact: every query finds the exact top-k of the rows it saw.
    assert_eq!(f(&r, "/streaming/totals/recall"), 1.0);
    assert!(windows.iter().all(|w| w["recall"].is_null() || w["recall"] == 1.0), "{windows:?}");
    assert_eq!(
        at(&r, "/streaming/config"),
        &serde_json::json!({"rate_rows_per_sec": 6000.0, "batch_size": 200, "search_threads": 2, "window_sec": 0.1,
            "flush_every": 1000, "hold_snapshot": false, "auto_flush_rows": 0, "optimize_at": null, "truth_rows_per_query": f(&r, "/streaming/config/truth_rows_per_query")})
    );
    assert_eq!((f(&r, "/streaming/totals/flushes"), at(&r, "/dataset/ground_truth")), (3.0, &Value::from("computed")));

    let csv = std::fs::read_to_string(root.join("stream.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 2, "{csv}");
    let header: Vec<&str> = lines[0].split(',').collect();
    assert_eq!(header, xvec_bench::stream::export::COLUMNS);
    let row = split_csv(lines[1]);
    let col = |name: &str| &*row[header.iter().position(|h| *h == name).unwrap()];
    assert_eq!(
        (col("rows"), col("recall"), col("search_threads"), col("rate_target")),
        ("3000", "1.0000", "2", "6000")
    );
    assert!(col("command").contains("--streaming") && col("db") == "xvec", "{row:?}");

    let svg = std::fs::read_to_string(root.join("stream.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.matches("<polyline").count() == 4, "{svg}");
    assert!(svg.contains("ingest, rows/s") && svg.contains("recall@10"), "{svg}");

    // A graph index (fresh rows are searched by brute force until optimize builds it),
    // appended to the same file; recall stays a fraction.
    let out = xvec(
        root,
        &[
            "bench",
            "--dataset",
            d,
            "--streaming",
            "--index",
            "hnsw",
            "--m",
            "8",
            "--limit",
            "1000",
            "--rate",
            "4000",
            "--batch",
            "100",
            "-o",
            "hnsw.json",
            "--csv",
            "stream.csv",
        ],
    );
    ok(&out, "bench --streaming hnsw");
    let r: Value = serde_json::from_str(&std::fs::read_to_string(root.join("hnsw.json")).unwrap()).unwrap();
    check_stream(&r, 1000);
    assert_eq!(at(&r, "/streaming/config/flush_every"), 0);
    assert_eq!(std::fs::read_to_string(root.join("stream.csv")).unwrap().lines().count(), 3);

    // Ingest only, the insert thread holding snapshots, background indexing on.
    let args = ["--index", "hnsw", "--m", "8", "--limit", "1500", "--batch", "100", "--search-threads", "0"];
    let rest = ["--hold-snapshot", "--auto-flush-rows", "400", "--optimize-at", "500", "-o", "ingest.json"];
    let out = xvec(root, &[&["bench", "--dataset", d, "--streaming"][..], &args, &rest].concat());
    ok(&out, "bench --streaming ingest only");
    let r: Value = serde_json::from_str(&std::fs::read_to_string(root.join("ingest.json")).unwrap()).unwrap();
    assert_eq!(at(&r, "/streaming/totals/rows"), 1500);
    assert_eq!(at(&r, "/streaming/totals/queries"), 0);
    assert_eq!(at(&r, "/streaming/config/hold_snapshot"), true);
    assert_eq!(at(&r, "/streaming/config/auto_flush_rows"), 400);
    let optimize = at(&r, "/streaming/totals/optimize");
    assert!(optimize["end_sec"].as_f64() >= optimize["start_sec"].as_f64(), "{optimize}");
}

#[test]
fn streaming_flags_fail_with_clear_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let dir = wordnet_dir(root);
    let d = dir.to_str().unwrap();
    let err = |extra: &[&str], code: i32| {
        let out = xvec(root, &[&["bench", "--dataset", d], extra].concat());
        assert_eq!(out.status.code(), Some(code), "{extra:?}: {}", text(&out.stderr));
        text(&out.stderr)
    };
    let msg = err(&["--streaming", "--rate", "0"], 2);
    assert!(msg.contains("'0' is not a rate; expected rows per second above 0"), "{msg}");
    assert!(err(&["--streaming", "--rate=-5"], 2).contains("is not a rate"));
    assert!(err(&["--streaming", "--window", "0"], 2).contains("'0' is not a duration above 0"));
    assert!(
        err(&["--streaming", "--search-threads", "1025"], 2)
            .contains("invalid value '1025' for '--search-threads <N>'")
    );
    assert!(err(&["--streaming", "--batch", "0"], 2).contains("invalid value '0' for '--batch-size <N>'"));
    // Streaming flags need --streaming; phases it does not run conflict with it.
    assert!(err(&["--rate", "100"], 2).contains("--streaming"));
    assert!(err(&["--streaming", "--sweep", "ef=16"], 2).contains("cannot be used with"));
    assert!(err(&["--streaming", "--skip-load", "--path", "c"], 2).contains("cannot be used with"));
    // A CSV file of the search rows is refused, not mixed.
    std::fs::write(root.join("runs.csv"), format!("{}\n", xvec_bench::export::COLUMNS.join(","))).unwrap();
    let msg = err(&["--streaming", "--limit", "300", "--csv", "runs.csv"], 1);
    assert!(msg.contains("runs.csv: line 1: the header lacks the columns rate_target, batch,"), "{msg}");
}
