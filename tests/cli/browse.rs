//! Browsing and aggregates (issue 43, items 1-3): `scan`/`select` pages, `count
//! --group-by` and `--stats`, `explain count` and `explain scan`, read back with real JSON
//! and CSV parsers.

use serde_json::Value as J;

use crate::harness::{wordnet, xvec};

fn json(stdout: &str) -> Vec<serde_json::Map<String, J>> {
    let v: J = serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    v.as_array().unwrap().iter().map(|r| r.as_object().unwrap().clone()).collect()
}

fn csv_rows(stdout: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::Reader::from_reader(stdout.as_bytes());
    let headers = r.headers().unwrap().iter().map(String::from).collect();
    (headers, r.records().map(|rec| rec.unwrap().iter().map(String::from).collect()).collect())
}

/// The cursor a page's stderr note gives (`note: … --after CURSOR`), unquoted.
fn cursor(stderr: &str) -> Option<String> {
    let c = stderr.lines().find_map(|l| l.split_once("--after ").map(|(_, c)| c.to_string()))?;
    Some(c.strip_prefix('\'').and_then(|c| c.strip_suffix('\'')).map_or(c.clone(), String::from))
}

#[test]
fn scan_pages_by_cursor_and_offset_give_the_whole_ordered_scan() {
    let c = wordnet().to_str().unwrap();
    let all = xvec(&["scan", c, "--all", "--fields", "lemma,n_lemmas", "--where", "pos = 'v'", "--mode", "json"]).run();
    let all = json(&all.ok().stdout);
    assert_eq!(all.len(), 296);
    let keys: Vec<&str> = all.iter().map(|r| r["_key"].as_str().unwrap()).collect();
    assert!(keys.windows(2).all(|w| w[0] < w[1]), "key order");
    assert!(all.iter().all(|r| r.len() == 3 && r["n_lemmas"].is_i64()));

    for order in [&["--order-by", "n_lemmas", "desc"][..], &["--order-by", "lemma"][..], &[][..]] {
        let mut args = vec!["select", c, "--fields", "lemma,n_lemmas", "--where", "pos = 'v'"];
        args.extend(order);
        let whole = xvec(&[&args[..], &["--all", "--mode", "csv"]].concat()).run();
        let (headers, whole) = csv_rows(&whole.ok().stdout);
        assert_eq!(headers, ["_key", "lemma", "n_lemmas"]);
        assert_eq!(whole.len(), 296, "{order:?}");
        // By cursor, 100 rows a page: the note on stderr gives the next one.
        let (mut paged, mut after) = (Vec::new(), None::<String>);
        for _ in 0..4 {
            let mut page = args.clone();
            page.extend(["--limit", "100", "--mode", "csv"]);
            if let Some(a) = &after {
                page.extend(["--after", a.as_str()]);
            }
            let run = xvec(&page).run();
            paged.extend(csv_rows(&run.ok().stdout).1);
            after = cursor(&run.stderr);
            if after.is_none() {
                break;
            }
        }
        assert_eq!(paged, whole, "{order:?}");
        // By offset, in jsonl.
        let run = xvec(&[&args[..], &["--offset", "290", "--mode", "jsonl"]].concat()).run();
        let tail: Vec<J> = run.ok().stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(tail.len(), 6);
        assert_eq!(tail[0]["_key"].as_str(), Some(whole[290][0].as_str()), "{order:?}");
        assert!(run.stderr.is_empty(), "no more rows, no note: {run}");
    }
    // Descending by n_lemmas: the values never rise; ties in key order.
    let run = xvec(&[
        "scan",
        c,
        "--order-by",
        "n_lemmas",
        "--desc",
        "--fields",
        "n_lemmas",
        "--limit",
        "50",
        "--mode",
        "json",
    ])
    .run();
    let rows = json(&run.ok().stdout);
    let pairs: Vec<(i64, &str)> =
        rows.iter().map(|r| (r["n_lemmas"].as_i64().unwrap(), r["_key"].as_str().unwrap())).collect();
    assert!(pairs.windows(2).all(|w| w[0].0 > w[1].0 || (w[0].0 == w[1].0 && w[0].1 < w[1].1)), "{pairs:?}");
    assert_eq!(pairs[0].0, 21);
}

#[test]
fn a_table_page_says_how_to_get_the_next_and_vectors_are_abbreviated() {
    let c = wordnet().to_str().unwrap();
    let run = xvec(&["scan", c, "--limit", "2", "--mode", "table"]).run();
    let out = &run.ok().stdout;
    assert!(out.contains("… 384 dims]"), "{out}");
    assert!(out.contains("(2 rows shown; more follow: --after a.00118238)"), "{out}");
    // The key cursor can be typed: the page after it.
    let run = xvec(&["scan", c, "--limit", "1", "--fields", "lemma", "--after", "a.00118238"]).run();
    assert_eq!(run.ok().stdout, "_key\tlemma\na.00142270\targillaceous\n");
    assert_eq!(run.stderr, "note: 1 row shown; more follow: --after a.00142270\n");
    let run = xvec(&["shell", c, "-c", "select --limit 1 --fields lemma --order-by n_lemmas desc"]).run();
    assert!(run.ok().stdout.contains("s.00798103\tbesotted\n"), "{run}");
}

#[test]
fn scan_errors_name_the_field_the_cursor_and_the_direction() {
    let c = wordnet().to_str().unwrap();
    let run = xvec(&["scan", c, "--order-by", "emb"]).run();
    run.code(1);
    assert_eq!(run.stderr, "error: cannot order by `emb`: expected a scalar field or _key\n");
    let run = xvec(&["scan", c, "--order-by", "n_lemmas", "--after", "n.1"]).run();
    run.code(2);
    assert!(
        run.stderr.contains("cursor \"n.1\" is not a position of this scan: expected [n_lemmas value, key]"),
        "{run}"
    );
    let run = xvec(&["scan", c, "--order-by", "n_lemmas", "sideways"]).run();
    run.code(2);
    assert!(run.stderr.contains("--order-by n_lemmas sideways: expected FIELD, FIELD asc or FIELD desc"), "{run}");
    let run = xvec(&["scan", c, "--where", "pos ="]).run();
    run.code(2);
    assert!(run.stderr.contains('^'), "a caret under the filter: {run}");
    xvec(&["scan", c, "--limit", "0"]).run().code(2);
}

#[test]
fn count_group_by_and_stats_agree_with_filtered_counts() {
    let c = wordnet().to_str().unwrap();
    let run = xvec(&["count", c, "--group-by", "pos", "--mode", "json"]).run();
    let rows = json(&run.ok().stdout);
    let total: u64 = rows.iter().map(|r| r["count"].as_u64().unwrap()).sum();
    assert_eq!(total, 2500);
    assert!(rows.windows(2).all(|w| w[0]["count"].as_u64() >= w[1]["count"].as_u64()));
    for r in &rows {
        let filter = format!("pos = '{}'", r["pos"].as_str().unwrap());
        let n = xvec(&["count", c, "--filter", &filter]).run().ok().stdout.clone();
        assert_eq!(n, format!("count\n{}\n", r["count"]), "{filter}");
    }
    let run = xvec(&["count", c, "--group-by", "lexname", "--where", "pos = 'n'", "--top", "2", "--mode", "csv"]).run();
    let (headers, top) = csv_rows(&run.ok().stdout);
    assert_eq!((headers, top.len()), (vec!["lexname".to_string(), "count".to_string()], 2));
    let shown: u64 = top.iter().map(|r| r[1].parse::<u64>().unwrap()).sum();
    let note = run.stderr.strip_prefix("note: ").unwrap();
    let others: u64 = note.split(" with ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
    assert_eq!(shown + others, 1771, "{run}");
    assert!(note.ends_with("rows: raise --top to see them\n"), "{run}");

    let run = xvec(&["count", c, "--stats", "n_lemmas,lemma", "--where", "pos = 'r'", "--mode", "json"]).run();
    let rows = json(&run.ok().stdout);
    assert_eq!(rows[0]["rows"], 42);
    assert_eq!(rows[0]["count"], 42);
    let sum = rows[0]["sum"].as_i64().unwrap();
    assert!((rows[0]["avg"].as_f64().unwrap() - sum as f64 / 42.0).abs() < 1e-12);
    assert!(
        rows[0]["min"].as_i64().unwrap() >= 1 && rows[0]["max"].as_i64().unwrap() >= rows[0]["min"].as_i64().unwrap()
    );
    assert!(rows[1]["min"].is_string() && rows[1]["sum"].is_null() && rows[1]["avg"].is_null());
    let run = xvec(&["count", c, "--group-by", "emb"]).run();
    run.code(1);
    assert_eq!(run.stderr, "error: cannot aggregate `emb`: expected a scalar or array field\n");
    xvec(&["count", c, "--group-by", "pos", "--stats", "n_lemmas"]).run().code(2);
    xvec(&["count", c, "--top", "3"]).run().code(2);
}

#[test]
fn explain_count_and_scan_show_the_plan_in_every_mode() {
    let c = wordnet().to_str().unwrap();
    let run = xvec(&["explain", "count", c, "--filter", "pos = 'v' AND n_lemmas > 2", "--mode", "json"]).run();
    let rows = json(&run.ok().stdout);
    let steps: Vec<&str> = rows.iter().map(|r| r["step"].as_str().unwrap()).collect();
    assert_eq!(steps, ["pos = 'v'", "n_lemmas > 2", "count"]);
    let counted = xvec(&["count", c, "--filter", "pos = 'v' AND n_lemmas > 2"]).run().ok().stdout.clone();
    assert_eq!(counted, format!("count\n{}\n", rows[2]["matched"]));
    let run = xvec(&["explain", "scan", c, "--order-by", "n_lemmas", "--limit", "3", "--mode", "csv"]).run();
    let (_, rows) = csv_rows(&run.ok().stdout);
    assert_eq!(rows.len(), 1, "{run}");
    assert_eq!((rows[0][1].as_str(), rows[0][2].as_str()), ("scan", "top rows by value, 2500 rows read"));
    let run = xvec(&["explain", "analyze", "scan", c, "--limit", "3", "--mode", "table"]).run();
    let out = &run.ok().stdout;
    assert!(out.contains("walk in key order, 5 rows read") && out.contains("(3 rows returned;"), "{out}");
    assert!(out.contains(" ms"), "{out}");
    let run = xvec(&["explain", "count", c, "--group-by", "pos", "--filter", "n_lemmas > 2", "--mode", "json"]).run();
    let rows = json(&run.ok().stdout);
    let steps: Vec<&str> = rows.iter().map(|r| r["step"].as_str().unwrap()).collect();
    assert_eq!(steps, ["n_lemmas > 2", "group by"], "{run}");
    assert_eq!(rows[1]["via"], "each kept row's value read from the column", "{run}");
    let run = xvec(&["explain", "count", c, "--stats", "n_lemmas,lemma", "--mode", "csv"]).run();
    let (_, rows) = csv_rows(&run.ok().stdout);
    assert_eq!((rows[0][1].as_str(), rows[0][5].as_str()), ("stats", "2500"), "{run}");
    let run = xvec(&["explain", "count", c, "--stats", "emb"]).run();
    assert!(run.code(1).stderr.contains("cannot aggregate `emb`: expected a scalar field"), "{run}");
}
