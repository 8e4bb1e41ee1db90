//! `xvec bench --fresh` end to end on generated data: a baseline and a fresh collection
//! with background maintenance (small flushes, merges of two), the three states in the
//! report against the committed JSON Schema, the drain, the comparison at the target
//! recall, the CSV rows and the plot; and its flags' errors.

use serde_json::Value;

use crate::bench::{at, f, ok, schema, split_csv, text, wordnet_dir, xvec};

#[test]
fn fresh_reports_three_states_the_drain_and_the_ratios_at_the_target() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let dir = wordnet_dir(root);
    let d = dir.to_str().unwrap();
    let args = ["bench", "--dataset", d, "--index", "hnsw", "--m", "8", "--fresh", "0.3", "--sweep", "ef=10,40"];
    let rest = [
        "--auto-flush-rows",
        "200",
        "--merge-factor",
        "2",
        "--batch",
        "100",
        "--warmup",
        "5",
        "--repeat",
        "2",
        "--target-recall",
        "0.5",
        "-o",
        "fresh.json",
        "--csv",
        "fresh.csv",
        "--plot",
        "fresh.svg",
        "--mode",
        "tsv",
    ];
    let out = xvec(root, &[&args[..], &rest].concat());
    let stdout = ok(&out, "bench --fresh");
    let stderr = text(&out.stderr);
    assert!(stdout.starts_with("state\tsetting\trecall@10\tQPS\tp50 ms\tp99 ms\tunindexed start\t"), "{stdout}");
    assert!(
        stdout.contains("\nstate\tsetting at recall@10 >= 0.5\trecall@10\tp50 ms\tp50 / baseline p50\n"),
        "{stdout}"
    );
    assert!(stdout.contains("\nfresh rows\t900\n") && stdout.contains("\nload and drain\tvalue\n"), "{stdout}");
    assert!(stderr.contains("inserted 900 fresh rows") && stderr.contains("appended 6 rows to fresh.csv"), "{stderr}");

    let r: Value = serde_json::from_str(&std::fs::read_to_string(root.join("fresh.json")).unwrap()).unwrap();
    schema::validate(&r);
    assert!(r.get("serial").is_none() && r.get("streaming").is_none());
    let c = at(&r, "/fresh/config");
    assert_eq!((&c["indexed_rows"], &c["fresh_rows"], &c["auto_flush_rows"]), (&2100.into(), &900.into(), &200.into()));
    assert_eq!((&c["merge_factor"], &c["repeat"], &c["fraction"]), (&2.into(), &2.into(), &0.3.into()));

    let states = at(&r, "/fresh/states").as_array().unwrap();
    let names: Vec<&str> = states.iter().map(|s| s["state"].as_str().unwrap()).collect();
    assert_eq!(names, ["baseline", "after", "drained"]);
    for s in states {
        let searches = s["searches"].as_array().unwrap();
        assert_eq!(searches.iter().map(|x| x["ef"].as_u64().unwrap()).collect::<Vec<_>>(), [10, 40], "{s}");
        let passes = if s["state"] == "after" { 1 } else { 2 };
        for x in searches {
            let recall = f(x, "/recall");
            assert!((0.0..=1.0).contains(&recall) && f(x, "/qps") > 0.0, "{x}");
            assert!(f(x, "/latency_p50_ms") <= f(x, "/latency_p99_ms"), "{x}");
            assert_eq!((x["passes"].as_u64(), x["runs"].as_array().unwrap().len()), (Some(passes), passes as usize));
        }
    }
    // The baseline is fully indexed; the drained state has nothing left for the background.
    for (state, pointer) in [(0, "start"), (0, "end"), (2, "start"), (2, "end")] {
        for x in states[state]["searches"].as_array().unwrap() {
            assert_eq!(x[pointer]["unindexed_rows"], 0, "{}: {x}", names[state]);
        }
    }
    let drain = at(&r, "/fresh/drain");
    assert!(f(drain, "/drain_sec") >= 0.0 && f(drain, "/idle_sec") >= f(drain, "/drain_sec"), "{drain}");
    assert_eq!(drain["at_idle"]["unindexed_rows"], 0);
    // 900 fresh rows in flushes of 200: indexed, then merged pairwise.
    assert!(f(drain, "/jobs") >= 1.0, "{drain}");
    let load = at(&r, "/fresh/fresh_load");
    assert!(f(load, "/insert_sec") > 0.0 && f(load, "/flush_sec") >= 0.0, "{load}");
    assert_eq!(at(&r, "/fresh/baseline_load/rows"), 3000);
    assert_eq!(load["indexed"]["rows"], 2100);

    let target = at(&r, "/fresh/at_target");
    assert_eq!(target["target_recall"], 0.5);
    let t = target["states"].as_array().unwrap();
    assert_eq!(t.iter().map(|s| s["state"].as_str().unwrap()).collect::<Vec<_>>(), names);
    assert_eq!((t[0]["reached"].as_bool(), t[0]["p50_over_baseline"].as_f64()), (Some(true), Some(1.0)));
    for s in &t[1..] {
        assert!(s["reached"] == false || s["p50_over_baseline"].as_f64().is_some_and(|v| v > 0.0), "{s}");
    }
    let phases: Vec<&str> = at(&r, "/phases").as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(
        phases,
        [
            "dataset",
            "baseline create",
            "baseline insert",
            "baseline optimize",
            "baseline search 1",
            "fresh create",
            "fresh insert",
            "fresh optimize",
            "fresh rows insert",
            "flush",
            "after search 1",
            "drain",
            "drained search 1",
            "baseline search 2",
            "drained search 2",
            "close"
        ]
    );

    let csv = std::fs::read_to_string(root.join("fresh.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    let header: Vec<&str> = lines[0].split(',').collect();
    assert_eq!((header.as_slice(), lines.len()), (xvec_bench::fresh::export::COLUMNS, 7), "{csv}");
    let rows: Vec<Vec<String>> = lines[1..].iter().map(|l| split_csv(l)).collect();
    let col = |row: &[String], name: &str| row[header.iter().position(|h| *h == name).unwrap()].clone();
    let states: Vec<String> = rows.iter().map(|r| col(r, "state")).collect();
    assert_eq!(states, ["baseline", "baseline", "after", "after", "drained", "drained"]);
    assert_eq!(
        (col(&rows[0], "ef"), col(&rows[1], "ef"), col(&rows[0], "rows")),
        ("10".into(), "40".into(), "3000".into())
    );
    assert_eq!((col(&rows[4], "unindexed_start"), col(&rows[5], "unindexed_end")), ("0".into(), "0".into()));
    assert!(col(&rows[0], "command").contains("--fresh 0.3") && col(&rows[0], "params").contains("batch=100"));
    assert_eq!(col(&rows[0], "p50_ratio_at_target"), "1.000");

    let svg = std::fs::read_to_string(root.join("fresh.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("drained"), "{svg}");
}

#[test]
fn fresh_flags_fail_with_clear_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let dir = wordnet_dir(root);
    let d = dir.to_str().unwrap();
    let err = |extra: &[&str], code: i32| {
        let out = xvec(root, &[&["bench", "--dataset", d], extra].concat());
        assert_eq!(out.status.code(), Some(code), "{extra:?}: {}", text(&out.stderr));
        text(&out.stderr)
    };
    let msg = err(&["--fresh", "1"], 2);
    assert!(msg.contains("'1' is not a fraction; expected a number between 0 and 1"), "{msg}");
    assert!(err(&["--fresh", "0.3", "--streaming"], 2).contains("cannot be used with"));
    assert!(err(&["--fresh", "0.3", "--concurrency", "2"], 2).contains("cannot be used with"));
    assert!(err(&["--repeat", "3", "--streaming"], 2).contains("cannot be used with"));
    assert!(err(&["--fresh", "0.3", "--target-recall", "0"], 2).contains("is not a recall"));
    let msg = err(&["--fresh", "0.3", "--auto-flush-rows", "0", "--limit", "100"], 1);
    assert!(msg.contains("--auto-flush-rows must be at least 1 with --fresh"), "{msg}");
    let msg = err(&["--fresh", "0.001", "--limit", "100"], 1);
    assert!(msg.contains("--fresh 0.001 of 100 base rows leaves one of the two parts empty"), "{msg}");
    // A CSV file of the search rows is refused, not mixed.
    std::fs::write(root.join("runs.csv"), format!("{}\n", xvec_bench::export::COLUMNS.join(","))).unwrap();
    let msg = err(&["--fresh", "0.3", "--limit", "300", "--warmup", "1", "--csv", "runs.csv"], 1);
    assert!(msg.contains("runs.csv: line 1: the header lacks the columns state, fraction,"), "{msg}");
}
