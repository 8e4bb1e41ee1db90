//! `xvec versions`, `tag`, `checkout`, `vacuum` and `--as-of` on the reading commands:
//! what each prints in every output mode, exits with and refuses (issue 41, item 2).

use crate::harness::xvec;

fn last_line(args: &[&str]) -> String {
    xvec(args).run().ok().stdout.lines().last().unwrap_or("").to_string()
}

#[test]
fn versions_tags_as_of_checkout_and_vacuum() {
    let tmp = tempfile::tempdir().unwrap();
    let c = tmp.path().join("c").to_str().unwrap().to_string();
    xvec(&["create", &c, "--field", "n:int64", "--vector", "emb:2:l2", "--keep-versions", "3"]).run().ok();
    let rows: String = (0..10).map(|i| format!("{{\"id\":\"k{i}\",\"n\":{i},\"emb\":[{i},1]}}\n")).collect();
    let file = tmp.path().join("rows.jsonl");
    std::fs::write(&file, rows).unwrap();
    xvec(&["import", &c, file.to_str().unwrap(), "--flush"]).run().ok();
    let r = xvec(&["tag", &c, "full"]).run();
    r.ok();
    assert!(r.stderr.starts_with("tagged version "), "{}", r.stderr);
    xvec(&["delete", &c, "k1", "k2"]).run().ok();
    xvec(&["flush", &c]).run().ok();
    xvec(&["optimize", &c]).run().ok();

    // Every output mode lists the same versions; the live one last.
    let json: serde_json::Value =
        serde_json::from_str(&xvec(&["versions", &c, "--mode", "json"]).run().ok().stdout).unwrap();
    let list = json.as_array().unwrap();
    let last = list.last().unwrap();
    assert_eq!(
        (last["operation"].as_str(), last["rows"].as_u64(), last["current"].as_bool()),
        (Some("optimize"), Some(8), Some(true))
    );
    let tagged = list.iter().find(|v| v["tags"] == "full").expect("the tagged version is kept");
    assert_eq!(tagged["rows"].as_u64(), Some(10));
    let csv = xvec(&["versions", &c, "--mode", "csv"]).run().ok().stdout.clone();
    assert!(csv.starts_with("version,time,operation,rows,bytes,tags,current\n"), "{csv}");
    assert_eq!(csv.lines().count(), list.len() + 1);
    let table = xvec(&["versions", &c, "--mode", "table"]).run().ok().stdout.clone();
    assert!(table.contains("optimize") && table.contains("full"), "{table}");

    // Time travel by tag and by number, on each reading command.
    let v = tagged["version"].as_u64().unwrap().to_string();
    assert_eq!(last_line(&["count", &c, "--as-of", "full"]), "10");
    assert_eq!(last_line(&["count", &c, "--as-of", &v, "--filter", "n < 3"]), "3");
    assert_eq!(last_line(&["count", &c]), "8");
    assert!(xvec(&["fetch", &c, "k1", "--as-of", "full"]).run().ok().stdout.contains("k1"));
    xvec(&["fetch", &c, "k1"]).run().code(1);
    let hits = xvec(&["query", &c, "[1,1]", "-k", "1", "--as-of", "full", "--mode", "csv"]).run().ok().stdout.clone();
    assert!(hits.lines().nth(1).unwrap().starts_with("k1,"), "{hits}");
    let out = tmp.path().join("old.jsonl");
    xvec(&["export", &c, "--as-of", "full", "-o", out.to_str().unwrap()]).run().ok();
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 10);

    // Refusals: an unknown version or tag, a bad tag name.
    let r = xvec(&["count", &c, "--as-of", "999"]).run();
    r.code(1);
    assert!(r.stderr.contains("no version 999") && r.stderr.contains("xvec versions DIR"), "{}", r.stderr);
    let r = xvec(&["count", &c, "--as-of", "nope"]).run();
    r.code(1);
    assert!(r.stderr.contains("tag \"nope\": no such tag; its tags: full"), "{}", r.stderr);
    let r = xvec(&["tag", &c, "1st"]).run();
    r.code(1);
    assert!(r.stderr.contains("starting with a letter"), "{}", r.stderr);
    assert!(xvec(&["tag", &c]).run().ok().stdout.contains("full"));

    // Checkout by tag: a new version with the old rows, verify clean, the state before kept.
    let r = xvec(&["checkout", &c, "full"]).run();
    r.ok();
    assert!(
        r.stderr.contains(&format!("checked out version {v} as version ")) && r.stderr.contains("10 rows"),
        "{}",
        r.stderr
    );
    assert_eq!(last_line(&["count", &c]), "10");
    xvec(&["verify", &c]).run().ok();

    // Vacuum: nothing while the tag keeps it; the tag deleted, its version goes.
    xvec(&["tag", &c, "full", "--delete"]).run().ok();
    let r = xvec(&["vacuum", &c]).run();
    r.ok();
    assert!(r.stderr.starts_with("vacuumed: ") && !r.stderr.starts_with("vacuumed: 0"), "{}", r.stderr);
    xvec(&["verify", &c]).run().ok();
}
