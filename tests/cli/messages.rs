//! Messages that must not mislead: search flags an index would ignore are refused, import
//! errors come in line order with real positions, counts agree in number, and graph
//! statistics print whole in one vocabulary (edges).

use crate::harness::{wordnet, xvec};

/// A small collection with vector field `v` (dim 4) under `index`, 60 rows, optimized.
fn collection(dir: &std::path::Path, index: &str) -> String {
    let c = dir.join("c").display().to_string();
    xvec(&["create", &c, "--field", "t:string", "--vector", "v:4:l2", "--index", index]).run().ok();
    let rows: String = (0..60)
        .map(|i: u32| {
            let x = |k: u32| ((i * 7 + k * 13) % 17) as f32 / 17.0;
            format!("{{\"id\":\"k{i}\",\"t\":\"x\",\"v\":[{},{},{},{}]}}\n", x(0), x(1), x(2), x(3))
        })
        .collect();
    let file = dir.join("rows.jsonl");
    std::fs::write(&file, rows).unwrap();
    xvec(&["import", &c, file.to_str().unwrap()]).run().ok();
    xvec(&["optimize", &c, "--concurrency", "1"]).run().ok();
    c
}

#[test]
fn ef_and_refine_are_refused_where_the_index_ignores_them() {
    let c = wordnet().to_str().unwrap();
    let run = xvec(&["query", c, "--pk", "n.07580359", "--ef", "20"]).run();
    run.code(2);
    assert_eq!(
        run.stderr,
        "error: --ef does not apply to field `emb`: its index is flat; --ef sets the search breadth of hnsw, \
         vamana and disk indexes (at least k; more is slower, higher recall)\nhint: neither --ef, --nprobe, \
         --target-recall, --refine nor --beam-width applies to this index (see `describe`)\n"
    );
    let run = xvec(&["query", c, "--pk", "n.07580359", "--beam-width", "8"]).run();
    run.code(2);
    assert!(
        run.stderr
            .starts_with("error: --beam-width does not apply to field `emb`: its index is flat; --beam-width sets"),
        "{run}"
    );
    let run = xvec(&["query", c, "--pk", "n.07580359", "--refine", "2"]).run();
    run.code(2);
    assert!(
        run.stderr.starts_with("error: --refine does not apply to field `emb`: its index is flat with no quantization"),
        "{run}"
    );

    let dir = tempfile::tempdir().unwrap();
    let hnsw = collection(&dir.path().join("h"), "hnsw");
    xvec(&["query", &hnsw, "--pk", "k1", "-k", "3", "--ef", "20"]).run().ok();
    let run = xvec(&["query", &hnsw, "--pk", "k1", "--refine", "2"]).run();
    run.code(2);
    assert!(run.stderr.contains("its index is hnsw with no quantization"), "{run}");
    assert!(run.stderr.ends_with("hint: --ef applies to this index (see `describe`)\n"), "{run}");

    let flat8 = collection(&dir.path().join("f"), r#"{"type": "flat", "quantize": "int8"}"#);
    xvec(&["query", &flat8, "--pk", "k1", "-k", "3", "--refine", "2"]).run().ok();
    let run = xvec(&["query", &flat8, "--pk", "k1", "--ef", "20"]).run();
    run.code(2);
    assert!(run.stderr.ends_with("hint: --refine applies to this index (see `describe`)\n"), "{run}");

    let vamana = collection(&dir.path().join("v"), "vamana");
    xvec(&["query", &vamana, "--pk", "k1", "-k", "3", "--ef", "20"]).run().ok();
}

#[test]
fn import_errors_come_in_line_order_with_real_positions() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c").display().to_string();
    xvec(&["create", &c, "--field", "cat:string", "--field", "n:int32", "--vector", "v:2:l2"]).run().ok();
    let rows = [
        r#"{"id":"a","cat":"x","n":1,"v":[1,0]}"#,
        r#"{"id":"b","cat":"x","n":"two","v":[1,0]}"#,
        r#"{"id":"c","cat":"x","n":1,"v":[1,0"#,
        r#"{"id":"a","cat":"x","n":1,"v":[1,0]}"#,
        r#"[1, 2]"#,
        r#"{"id":"d","cat":"x","n":1,"v":[1,0,3]}"#,
        r#"{"id":"e" "cat":"x"}"#,
        "",
        r#"{"cat":"x"}"#,
    ];
    let file = dir.path().join("bad.jsonl");
    let mut bytes = (rows.join("\n") + "\n").into_bytes();
    bytes.extend(b"{\"id\": \"\xff\"}\n");
    std::fs::write(&file, bytes).unwrap();
    let run = xvec(&["import", &c, file.to_str().unwrap()]).run();
    run.code(1);
    let f = file.display();
    assert_eq!(
        run.stderr,
        format!(
            "{f}:2: error: key \"b\": field `n` expects an integer, found a string\n\
             {f}:3: error: the line ends inside a JSON value: EOF while parsing a list\n\
             {f}:4: error: key \"a\" already exists\n\
             {f}:5: error: expected one JSON object per line, found an array\n\
             {f}:6: error: key \"d\": field `v` expects dimension 2, found 3\n\
             {f}:7: error: column 11: invalid JSON: expected `,` or `}}`\n\
             {f}:9: error: missing primary key member `id`\n\
             {f}:10: error: not valid UTF-8 at byte 9 of the line\n\
             imported 1 of 9 documents from {f} (8 failed)\nerror: 8 documents were not imported\n"
        )
    );
}

/// A CSV error that stops the import comes after the errors of the rows before it.
#[test]
fn a_fatal_csv_error_comes_after_earlier_row_errors() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c").display().to_string();
    xvec(&["create", &c, "--field", "n:int32", "--vector", "v:2:l2"]).run().ok();
    let file = dir.path().join("bad.csv");
    std::fs::write(&file, "id,n,v\na,1,\"[1,0]\"\nb,two,\"[1,0]\"\nc,3\n").unwrap();
    let run = xvec(&["import", &c, file.to_str().unwrap()]).run();
    run.code(1);
    let f = file.display();
    assert_eq!(
        run.stderr,
        format!(
            "{f}:3: error: key \"b\": field `n` expects an integer, found a string\n\
             {f}: import stopped: 1 row committed (lines 2–3); resume with --skip-existing or --upsert\n\
             error: {f}:4: the row has 2 fields, the header 3; every row needs one cell per column\n"
        )
    );
    let run = xvec(&["count", &c, "--mode", "tsv", "--no-headers"]).run();
    assert_eq!(run.ok().stdout, "1\n", "the row before the error is written");
}

#[test]
fn counts_agree_in_number() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c").display().to_string();
    xvec(&["create", &c, "--field", "t:string", "--vector", "v:2:l2"]).run().ok();
    let run = xvec(&["insert", &c, r#"{"id": "a", "t": "x", "v": [1, 0]}"#]).run();
    assert_eq!(run.ok().stderr, "inserted 1 document\n");
    let file = dir.path().join("one.jsonl");
    std::fs::write(&file, "{\"id\": \"b\", \"t\": \"x\", \"v\": [0, 1]}\n{\"id\": \"b\"}\n").unwrap();
    let run = xvec(&["import", &c, file.to_str().unwrap(), "--flush"]).run();
    run.code(1);
    assert!(
        run.stderr.ends_with(
            "imported 1 of 2 documents from {} (1 failed); flushed\nerror: 1 document was not imported\n"
                .replace("{}", &file.display().to_string())
                .as_str()
        ),
        "{run}"
    );
    let run = xvec(&["describe", &c, "--mode", "table"]).run();
    assert!(run.ok().stdout.contains("2 documents (0 deleted), 1 segment, 0 unflushed rows"), "{run}");
    let run = xvec(&["delete", &c, "--where", "_key = 'a'"]).run();
    assert_eq!(run.ok().stderr, "deleted 1 document\n");
    let run = xvec(&["optimize", &c]).run();
    assert!(
        run.ok().stderr.starts_with("optimized: 1 row in 1 segment (from 1), 1 deleted row dropped, 0 indexes built"),
        "{run}"
    );
}

/// Optimize drops a segment whose rows are all deleted and says so, rather than calling
/// the collection already compact.
#[test]
fn optimize_reports_dropping_an_all_deleted_segment() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("two").display().to_string();
    xvec(&["create", &c, "--field", "lemma:string", "--vector", "emb:4:l2"]).run().ok();
    let (a, b) = (r#"{"id":"a","lemma":"x","emb":[1,0,0,0]}"#, r#"{"id":"b","lemma":"y","emb":[0,1,0,0]}"#);
    xvec(&["insert", &c, a, b]).run().ok();
    xvec(&["flush", &c]).run().ok();
    xvec(&["delete", &c, "a"]).run().ok();
    xvec(&["optimize", &c]).run().ok();
    xvec(&["delete", &c, "b"]).run().ok();
    let run = xvec(&["optimize", &c]).run();
    assert!(
        run.ok().stderr.starts_with("optimized: 0 rows in 0 segments (from 1), 1 deleted row dropped, 0 indexes built"),
        "{run}"
    );
    let run = xvec(&["describe", &c, "--mode", "table"]).run();
    assert!(run.ok().stdout.contains("0 documents (0 deleted), 0 segments, 0 unflushed rows"), "{run}");
    let run = xvec(&["optimize", &c]).run();
    assert_eq!(run.ok().stderr, "optimized: 0 rows in 0 segments, already compact with every index built\n");
}

#[test]
fn graph_statistics_print_whole_and_say_edges() {
    let dir = tempfile::tempdir().unwrap();
    let c = collection(dir.path(), r#"{"type": "hnsw", "m": 4}"#);
    for mode in ["table", "tsv", "json"] {
        let run = xvec(&["inspect", &c, "graph", "v", "--mode", mode]).run();
        assert!(!run.ok().stdout.contains("dims"), "{run}");
        assert!(run.stdout.contains("edges") && run.stdout.contains("degree histogram (degree:nodes)"), "{run}");
    }
    let run = xvec(&["inspect", &c, "graph", "v", "--mode", "tsv", "--no-headers"]).run();
    for line in run.ok().stdout.lines() {
        let cols: Vec<&str> = line.split('\t').collect();
        let (nodes, edges): (u64, u64) = (cols[3].parse().unwrap(), cols[4].parse().unwrap());
        let pairs: Vec<(u64, u64)> = cols[6]
            .split(' ')
            .map(|p| p.split_once(':').map(|(d, n)| (d.parse().unwrap(), n.parse().unwrap())).unwrap())
            .collect();
        assert_eq!(pairs.iter().map(|p| p.1).sum::<u64>(), nodes, "{line}");
        assert_eq!(pairs.iter().map(|p| p.0 * p.1).sum::<u64>(), edges, "{line}");
    }
    let run = xvec(&["verify", &c]).run();
    assert!(run.ok().stderr.contains(" edges, ") && !run.stderr.contains("links"), "{run}");
}
