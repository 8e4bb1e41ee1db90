//! argv commands: what each does and the exit code it ends with.

use crate::harness::{data, wordnet, wordnet_hybrid, xvec};

#[test]
fn quickstart_builds_and_queries_the_sample() {
    let dir = tempfile::tempdir().unwrap();
    let coll = dir.path().join("wn");
    let run = xvec(&["quickstart", coll.to_str().unwrap()]).run();
    run.ok();
    assert!(run.stdout.contains("imported 2500 WordNet synsets"), "{run}");
    let animals = run.stdout.split("\n== nearest animals").nth(1).unwrap();
    let animals = animals.split("\n== ").next().unwrap();
    assert_eq!(animals.matches("\tnoun.animal\t").count(), 5, "{animals}");
    assert!(!animals.contains("n.01317391\t"), "{animals}");
}

#[test]
fn query_count_fetch_describe_stats_on_the_sample() {
    let c = wordnet().to_str().unwrap();
    let run = xvec(&["count", c, "--filter", "pos = 'v'"]).run();
    assert_eq!(run.ok().stdout, "count\n296\n");

    let run = xvec(&["query", c, "--pk", "n.07580359", "-k", "3", "--fields", "lemma", "--mode", "csv"]).run();
    let mut lines = run.ok().stdout.lines();
    assert_eq!(lines.next(), Some("_key,score,lemma"));
    assert!(lines.next().unwrap().starts_with("n.07580359,1,casserole"), "{run}");
    assert_eq!(lines.count(), 2);
    let neighbours: Vec<String> = run.stdout.lines().skip(2).map(String::from).collect();
    // --exclude-self: the same neighbours, k of them, without the document itself; also fused
    // with a text branch, where it could come from either.
    let run =
        xvec(&["query", c, "--pk", "n.07580359", "--exclude-self", "-k", "2", "--fields", "lemma", "--mode", "csv"])
            .run();
    assert_eq!(run.ok().stdout.lines().skip(1).map(String::from).collect::<Vec<_>>(), neighbours, "{run}");
    let run = xvec(&["query", c, "--pk", "n.07580359", "--exclude-self", "--keys", "n.07580359", "-k", "3"]).run();
    assert!(!run.ok().stdout.contains("n.07580359"), "{run}");
    assert_eq!(run.stdout.lines().count(), 4, "{run}");
    xvec(&["query", c, "--exclude-self", "[1]"]).run().code(2);

    let run = xvec(&["query", c, "--vector-file", &data("queries.fvecs"), "--row", "0", "-k", "1"]).run();
    assert_eq!(run.ok().stdout.lines().count(), 2, "{run}");

    let run = xvec(&["fetch", c, "n.07580359", "nope", "--fields", "lemma"]).run();
    run.code(1);
    assert_eq!(run.stdout, "_key\tlemma\nn.07580359\tcasserole\n");
    assert_eq!(run.stderr, "error: key not found: nope\n");

    let run = xvec(&["describe", c, "--mode", "line"]).run();
    assert!(run.ok().stdout.contains("(collection wordnet: 2500 documents (0 deleted), 1 segment"), "{run}");
    let run = xvec(&["stats", c]).run();
    assert!(run.ok().stdout.contains("documents\t2500\n"), "{run}");
}

#[test]
fn create_from_flags_then_insert_upsert_update_delete() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("small");
    let c = c.to_str().unwrap();
    let run =
        xvec(&["create", c, "--field", "title:string", "--field", "n:int32:nullable", "--vector", "v:3:l2"]).run();
    assert_eq!(run.ok().stderr, format!("created {c}\n"));
    let doc = |id: &str, x: f32| format!(r#"{{"id": "{id}", "title": "t{id}", "v": [{x}, 0, 0]}}"#);
    let run = xvec(&["insert", c, &doc("a", 1.0), &doc("b", 2.0)]).run();
    assert_eq!(run.ok().stderr, "inserted 2 documents\n");
    let run = xvec(&["insert", c, &doc("a", 1.0), &doc("c", 3.0)]).run();
    run.code(1);
    assert_eq!(run.stderr, "inserted 1 document\nerror: 1 of 2 documents was not inserted: key \"a\" already exists\n");
    xvec(&["upsert", c, r#"{"id": "a", "n": 7}"#]).run().ok();
    xvec(&["update", c, r#"{"id": "b", "title": "bee"}"#]).run().ok();
    xvec(&["update", c, r#"{"id": "zz", "title": "x"}"#]).run().code(1);
    let run = xvec(&["fetch", c, "a", "b", "--fields", "title,n"]).run();
    assert_eq!(run.ok().stdout, "_key\ttitle\tn\na\tta\t7\nb\tbee\t\n");
    let run = xvec(&["delete", c, "--where", "title = 'bee'"]).run();
    assert_eq!(run.ok().stderr, "deleted 1 document\n");
    xvec(&["delete", c, "c"]).run().ok();
    assert_eq!(xvec(&["count", c]).run().ok().stdout, "count\n1\n");
    let run = xvec(&["query", c, "[0.9, 0, 0]", "--mode", "jsonl"]).run();
    assert_eq!(run.ok().stdout, "{\"_key\":\"a\",\"score\":0.010000004,\"title\":\"ta\",\"n\":7}\n");

    let run = xvec(&["insert", c, "{not json"]).run();
    run.code(2);
    assert!(run.stderr.starts_with("error: document 1: expected a JSON object"), "{run}");
    let run = xvec(&["create", dir.path().join("bad").to_str().unwrap(), "--vector", "v:3:hamming"]).run();
    run.code(2);
    assert!(run.stderr.contains("unknown metric \"hamming\""), "{run}");
    let run = xvec(&["create", dir.path().join("bad").to_str().unwrap(), "--vector", "n:int32"]).run();
    run.code(2);
    assert!(run.stderr.contains("--vector \"n:int32\": expected NAME:DIM:METRIC"), "{run}");
    // A field the query cannot resolve is the data's answer, not a usage mistake: exit 1.
    let run = xvec(&["query", c, "[0.9, 0, 0]", "--field", "title"]).run();
    run.code(1);
    assert!(run.stderr.contains("no vector field named `title`; the vector field is v"), "{run}");
}

#[test]
fn import_csv_raw_vectors_and_export_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c");
    let c = c.to_str().unwrap();
    xvec(&[
        "create",
        c,
        "--field",
        "lemma:string:nullable",
        "--field",
        "n:int32:nullable",
        "--vector",
        "emb:384:cosine",
    ])
    .run()
    .ok();
    let ids = dir.path().join("ids.txt");
    let keys: Vec<String> = (0..100).map(|i| format!("q{i}")).collect();
    std::fs::write(&ids, keys.join("\n")).unwrap();
    let run = xvec(&["import", c, &data("queries.fvecs"), "--ids", ids.to_str().unwrap()]).run();
    assert_eq!(run.ok().stderr, format!("imported 100 of 100 documents from {}\n", data("queries.fvecs")));

    let csv = dir.path().join("more.csv");
    std::fs::write(&csv, "id,lemma,n\nq0,first,1\nq1,\"with, comma\",\nq2,bad,x\n").unwrap();
    let run = xvec(&["import", c, csv.to_str().unwrap(), "--upsert"]).run();
    run.code(1);
    let name = csv.display();
    assert_eq!(
        run.stderr,
        format!(
            "{name}:4: error: key \"q2\": field `n` expects an integer, found a string\n\
             imported 2 of 3 documents from {name} (1 failed)\nerror: 1 document was not imported\n"
        )
    );
    let run = xvec(&["fetch", c, "q1", "--fields", "lemma", "--mode", "csv"]).run();
    assert_eq!(run.ok().stdout, "_key,lemma\nq1,\"with, comma\"\n");

    let out = dir.path().join("out.jsonl");
    xvec(&["export", c, "-o", out.to_str().unwrap()]).run().ok();
    let copy = dir.path().join("copy");
    let copy = copy.to_str().unwrap();
    xvec(&[
        "create",
        copy,
        "--field",
        "lemma:string:nullable",
        "--field",
        "n:int32:nullable",
        "--vector",
        "emb:384:cosine",
    ])
    .run()
    .ok();
    xvec(&["import", copy, out.to_str().unwrap()]).run().ok();
    let export = |dir: &str| xvec(&["export", dir]).run().ok().stdout.clone();
    assert_eq!(export(c), export(copy));
    assert!(
        export(c).lines().any(|l| l.starts_with(r#"{"id":"q0","lemma":"first","n":1,"emb":[0.02"#)),
        "{}",
        export(c)
    );
}

#[test]
fn exit_codes_of_argv_commands() {
    let dir = tempfile::tempdir().unwrap();
    let c = wordnet().to_str().unwrap();
    // Usage errors exit 2: no command, unknown command, bad flag, bad value.
    xvec(&[]).run().code(2);
    xvec(&["frobnicate"]).run().code(2);
    xvec(&["query", c, "--bogus"]).run().code(2);
    xvec(&["query", c, "-k", "many"]).run().code(2);
    xvec(&["query", c]).run().code(2);
    // Help and version succeed.
    assert!(xvec(&["--help"]).run().ok().stdout.contains("Exit status:"));
    xvec(&["--version"]).run().ok();
    // Runtime failures exit 1 with one error line and maybe a hint.
    let run = xvec(&["query", c, "[1, 2]"]).run();
    run.code(1);
    assert_eq!(run.stderr, "error: field `emb` expects a query vector of dimension 384, found 2\n");
    let run = xvec(&["count", dir.path().join("missing").to_str().unwrap()]).run();
    run.code(1);
    assert!(run.stderr.contains("no such directory, so no collection") && run.stderr.contains(" makes one"), "{run}");
    let run = xvec(&["import", c, "/nonexistent.jsonl"]).run();
    run.code(1);
    // A filter error shows where: position, the text, a caret. A filter that does not
    // compile is a usage error.
    let run = xvec(&["query", c, "--pk", "n.07580359", "--filter", "pos = "]).run();
    run.code(2);
    xvec(&["count", c, "--filter", "price >> 3"]).run().code(2);
    xvec(&["count", c, "--filter", "nosuchfield = 3"]).run().code(2);
    assert_eq!(
        run.stderr,
        "error: filter: line 1, column 7: expected a literal ('string', number, TRUE or FALSE) or a $parameter after `=`, found end of input\npos = \n      ^\n"
    );
}

#[test]
fn busy_collection_exits_4() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c");
    xvec(&["create", c.to_str().unwrap(), "--schema", &data("schema.json")]).run().ok();
    let _writer = xvec::Collection::open(&c, &xvec::OpenOptions::writable()).unwrap();
    let run = xvec(&["flush", c.to_str().unwrap()]).run();
    run.code(4);
    assert!(run.stderr.contains("locked by another writer"), "{run}");
    // The shell takes the lock for writing statements only.
    let run = xvec(&["shell", c.to_str().unwrap(), "--write", "-c", "count --no-headers", "-c", "flush"]).run();
    run.code(4);
    assert_eq!(run.stdout, "0\n");
}

#[test]
fn closed_pipe_exits_quietly() {
    let c = wordnet().to_str().unwrap();
    let bin = crate::harness::bin();
    for cmd in [
        format!("'{bin}' export '{c}' | head -n 1"),
        format!("'{bin}' shell '{c}' -c 'export' -c count | head -c 10"),
        format!("'{bin}' completions bash | head -n 1"),
    ] {
        let out = std::process::Command::new("bash").args(["-c", &format!("set -o pipefail; {cmd}")]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{cmd}: {}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{cmd}");
    }
}

/// A create that stopped before publishing CURRENT (killed, power loss) leaves a WAL and
/// temporary files; `xvec create` reuses such a directory and refuses any other by name.
#[test]
fn create_after_an_unfinished_create() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c");
    let cs = c.to_str().unwrap();
    xvec(&["create", cs, "--schema", &data("schema.json")]).run().ok();
    std::fs::remove_file(c.join("CURRENT")).unwrap();
    std::fs::write(c.join("CURRENT.tmp"), "MANIFEST-").unwrap();
    xvec(&["create", cs, "--schema", &data("schema.json")]).run().ok();
    assert_eq!(xvec(&["count", cs]).run().ok().stdout, "count\n0\n");
    std::fs::remove_file(c.join("CURRENT")).unwrap();
    std::fs::write(c.join("notes.txt"), "mine").unwrap();
    let run = xvec(&["create", cs, "--schema", &data("schema.json")]).run();
    run.code(1);
    assert_eq!(
        run.stderr,
        format!("error: {cs}: not empty and not a collection; remove these or pick another directory: notes.txt\n")
    );
}

/// `create --auto-flush-rows` makes a collection that keeps itself indexed; `describe`
/// and `stats` say so and show the backlog.
#[test]
fn create_with_background_maintenance_and_describe_shows_it() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("live");
    let c = c.to_str().unwrap();
    let flags = ["--vector", "emb:4:l2", "--index", "hnsw", "--auto-flush-rows", "100", "--merge-factor", "4"];
    xvec(&[&["create", c][..], &flags].concat()).run().ok();
    let run = xvec(&["describe", c, "--mode", "table"]).run();
    let out = run.ok().stdout.clone();
    assert!(
        out.contains("background maintenance: flush at 100 rows, merge factor 4, at most 4194304 rows a segment"),
        "{out}"
    );
    let run = xvec(&["stats", c]).run();
    assert!(run.ok().stdout.contains("unindexed rows\t0\n"), "{run}");
    xvec(&["create", "x", "--vector", "e:4:l2", "--merge-factor", "1"]).run().code(2);
}

/// `alter` adds and drops scalar indexes on a live collection; `explain` shows the
/// filters going through them; `verify` finds a damaged index file and `repair` rebuilds
/// it; counts never change along the way.
#[test]
fn alter_explain_verify_and_repair_scalar_indexes() {
    let dir = tempfile::tempdir().unwrap();
    let coll = dir.path().join("wn");
    crate::util::copy_dir(wordnet(), &coll);
    let c = coll.to_str().unwrap();
    let filter = "lexname = 'noun.animal' AND n_lemmas >= 2";
    let count = || xvec(&["count", c, "--filter", filter]).run().ok().stdout.clone();
    let before = count();
    let explain = |analyze: bool| {
        let mut args = vec!["explain"];
        if analyze {
            args.push("analyze");
        }
        args.extend(["query", c, "--pk", "n.01317391", "--filter", filter, "-k", "3", "--mode", "csv"]);
        xvec(&args).run().ok().stdout.clone()
    };
    assert!(
        explain(false).contains("SEG-000001,lexname = 'noun.animal',column scan,2500,,162,6.48%"),
        "{}",
        explain(false)
    );
    let run = xvec(&["alter", c, "add-index", "lexname", r#"{"type": "inverted"}"#]).run();
    assert_eq!(run.ok().stderr, "added: inverted index on lexname, built for 1 segment\n");
    xvec(&["alter", c, "add-index", "n_lemmas", "range"]).run().ok();
    let run = xvec(&["alter", c, "add-index", "n_lemmas", "range"]).run();
    run.code(1);
    assert_eq!(run.stderr, "error: field `n_lemmas` already has a range index\n");
    let run = xvec(&["alter", c, "add-index", "lemma", "btree"]).run();
    run.code(2);
    assert!(run.stderr.contains("unknown index type \"btree\"; expected inverted, range or fts"), "{run}");
    let out = explain(false);
    assert!(out.contains(",lexname = 'noun.animal',inverted index,2500,162,162,"), "{out}");
    assert!(out.contains(",n_lemmas >= 2,range index,"), "{out}");
    assert!(explain(true).lines().next().unwrap().ends_with(",time"));
    assert_eq!(count(), before);
    let run = xvec(&["describe", c, "--mode", "csv"]).run();
    assert!(run.ok().stdout.contains("n_lemmas,int32,false,,,,\"{\"\"type\"\":\"\"range\"\"}\""), "{run}");

    // A flipped byte in the inverted index: verify names the file, repair rebuilds it.
    let idx = coll.join("SEG-000001-f002-inv.idx");
    let mut bytes = std::fs::read(&idx).unwrap();
    let at = bytes.len() - 3;
    bytes[at] ^= 0x20;
    std::fs::write(&idx, &bytes).unwrap();
    let run = xvec(&["verify", c]).run();
    assert_ne!(run.code, Some(0), "{run}");
    assert!(run.stdout.contains("SEG-000001-f002-inv.idx"), "{run}");
    let run = xvec(&["repair", c, "--yes"]).run();
    assert!(run.ok().stdout.contains("rebuild from the segment's column"), "{run}");
    xvec(&["verify", c]).run().ok();
    assert!(explain(false).contains("inverted index"));
    assert_eq!(count(), before);

    xvec(&["alter", c, "drop-index", "lexname", "inverted"]).run().ok();
    assert!(!coll.join("SEG-000001-f002-inv.idx").exists());
    assert!(explain(false).contains("lexname = 'noun.animal',column scan"));
    assert_eq!(count(), before);
}

#[test]
fn alter_fields_maps_old_segments_verifies_repairs_and_optimizes() {
    let dir = tempfile::tempdir().unwrap();
    let coll = dir.path().join("wn");
    crate::util::copy_dir(wordnet(), &coll);
    let c = coll.to_str().unwrap();
    let count = |filter: &str| {
        let mut args = vec!["count", c];
        if !filter.is_empty() {
            args.extend(["--filter", filter]);
        }
        let run = xvec(&args).run();
        run.ok().stdout.lines().last().and_then(|l| l.parse::<u64>().ok()).unwrap_or_else(|| panic!("{run}"))
    };
    let live = || count("");
    let total = live();
    let (nouns, many) = (count("pos = 'n'"), count("n_lemmas >= 3"));
    let segments = |d: &std::path::Path| {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".xseg"))
            .collect();
        v.sort();
        v
    };
    let before = segments(&coll);

    let run = xvec(&["alter", c, "add-field", "note:string:nullable"]).run();
    assert_eq!(run.ok().stderr, "added: field note; rows already written read NULL; no segment rewritten\n");
    let run = xvec(&["alter", c, "add-field", "rank:int32", "--default", "3"]).run();
    assert_eq!(run.ok().stderr, "added: field rank; rows already written read 3; no segment rewritten\n");
    let run = xvec(&["alter", c, "add-field", "bad:int32"]).run();
    run.code(1);
    assert!(run.stderr.contains("needs a default or must be nullable"), "{run}");
    xvec(&["alter", c, "rename-field", "pos", "part"]).run().ok();
    let run = xvec(&["alter", c, "alter-field", "n_lemmas", "--type", "int64"]).run();
    assert_eq!(run.ok().stderr, "altered: field n_lemmas is int64; no segment rewritten\n");
    let run = xvec(&["alter", c, "alter-field", "lemma", "--type", "int64"]).run();
    run.code(1);
    assert!(run.stderr.contains("string does not widen to int64"), "{run}");
    xvec(&["alter", c, "drop-field", "note"]).run().ok();
    assert_eq!(segments(&coll), before, "no segment was rewritten");

    let check = || {
        assert_eq!(count("rank = 3"), total);
        assert_eq!(count("part = 'n'"), nouns);
        assert_eq!(count("n_lemmas >= 3"), many);
        let run = xvec(&["count", c, "--filter", "pos = 'n'"]).run();
        run.code(2);
        assert!(run.stderr.contains("pos"), "{run}");
        let run = xvec(&["describe", c, "--mode", "csv"]).run();
        let out = &run.ok().stdout;
        assert!(out.contains("\npart,string,") && out.contains("\nn_lemmas,int64,"), "{out}");
        assert!(out.contains("\nrank,int32,") && !out.contains("\nnote,"), "{out}");
        let run = xvec(&["fetch", c, "n.00001740", "--mode", "json"]).run();
        let out = &run.ok().stdout;
        assert!(out.contains(r#""rank": 3"#) && out.contains(r#""part": "n""#) && !out.contains("note"), "{out}");
    };
    check();
    xvec(&["verify", c, "--deep"]).run().ok();

    // A flipped byte in the segment's text: verify finds it, repair salvages the rows into
    // a segment that keeps the stored fields, read under the new schema like the old.
    let seg = coll.join(&before[0]);
    let mut bytes = std::fs::read(&seg).unwrap();
    let last = std::fs::read_to_string(crate::util::repo_root().join("commands/data/wordnet.jsonl")).unwrap();
    let last: serde_json::Value = serde_json::from_str(last.lines().last().unwrap()).unwrap();
    let gloss = last["gloss"].as_str().unwrap().as_bytes();
    let at = bytes.windows(gloss.len()).position(|w| w == gloss).unwrap();
    bytes[at] ^= 0x01;
    std::fs::write(&seg, &bytes).unwrap();
    let run = xvec(&["verify", c]).run();
    assert_ne!(run.code, Some(0), "{run}");
    let run = xvec(&["repair", c, "--yes"]).run();
    run.code(1);
    assert!(run.stdout.contains("readable live rows into a new segment"), "{run}");
    assert!(run.stdout.contains("their required field `gloss` lies in a damaged block"), "{run}");
    xvec(&["verify", c]).run().ok();
    assert!(live() < total, "the rows whose lemma lay in the damaged block are gone");
    assert_eq!(count("rank = 3"), live());

    // Optimize rewrites the segment under the current schema.
    xvec(&["optimize", c]).run().ok();
    assert_ne!(segments(&coll), before);
    xvec(&["verify", c, "--deep"]).run().ok();
    assert_eq!(count("rank = 3"), live());
}

/// An IVF field through the binary: `describe` shows its parameters, `inspect lists` the
/// lists' sizes and SOAR duplicates, `query --nprobe` and `explain` the lists probed,
/// `--ef` is refused, and `verify` passes.
#[test]
fn ivf_index_describe_inspect_query_explain_verify() {
    let dir = tempfile::tempdir().unwrap();
    let coll = dir.path().join("ivf");
    let schema = std::fs::read_to_string(data("schema.json")).unwrap();
    let schema = schema.replace(
        r#""index": {"type": "flat"}"#,
        r#""index": {"type": "ivf", "nlist": 32, "nprobe": 8, "soar": true, "quantize": "rabitq", "bits": 4}"#,
    );
    std::fs::write(dir.path().join("schema.json"), schema).unwrap();
    let c = coll.to_str().unwrap();
    xvec(&["create", c, "--schema", dir.path().join("schema.json").to_str().unwrap()]).run().ok();
    xvec(&["import", c, &data("wordnet.jsonl"), "--vectors", &format!("emb={}", data("wordnet.fvecs"))]).run().ok();
    xvec(&["optimize", c, "--concurrency", "2"]).run().ok();

    let run = xvec(&["describe", c, "--mode", "csv"]).run();
    assert!(run.ok().stdout.contains(r#"""type"":""ivf"",""nlist"":32,""nprobe"":8,""soar"":true"#), "{run}");
    let run = xvec(&["inspect", c, "lists", "emb", "--mode", "json"]).run();
    let rows: serde_json::Value = serde_json::from_str(&run.ok().stdout).unwrap();
    let row = &rows.as_array().unwrap()[0];
    let num = |k: &str| row[k].as_f64().unwrap_or_else(|| panic!("{k}: {row}"));
    // 2,500 rows: min(32, 2500 / 32) lists; SOAR puts nearly every row in a second list.
    assert_eq!(num("lists"), 32.0, "{row}");
    assert_eq!(num("entries"), 2500.0 + num("soar duplicates"), "{row}");
    assert!(num("soar duplicates") > 2000.0 && num("deleted entries") == 0.0, "{row}");
    assert!(num("smallest") <= num("median") && num("median") <= num("largest") && num("imbalance") >= 1.0, "{row}");
    let run = xvec(&["inspect", c, "lists", "lemma"]).run();
    run.code(1);
    assert!(run.stderr.contains("lemma"), "{run}");

    let run = xvec(&["query", c, "--pk", "n.01317391", "-k", "5", "--nprobe", "32", "--mode", "jsonl"]).run();
    assert_eq!(run.ok().stdout.lines().count(), 5, "{run}");
    let run = xvec(&["explain", "query", c, "--pk", "n.01317391", "-k", "5", "--nprobe", "4", "--mode", "csv"]).run();
    assert!(run.ok().stdout.contains("IVF lists, 4 of 32 probed"), "{run}");
    let explain = ["explain", "query", c, "--pk", "n.01317391", "-k", "5", "--mode", "csv", "--target-recall"];
    let probed = |target: &str| -> u32 {
        let run = xvec(&[&explain[..], &[target]].concat()).run();
        let out = run.ok().stdout.clone();
        let at = out.find("IVF lists, ").unwrap_or_else(|| panic!("{out}")) + "IVF lists, ".len();
        out[at..].split(' ').next().unwrap().parse().unwrap()
    };
    // The sample's neighbours are in a few lists: more than half the lists would cost more
    // than the exact scan the cost model then picks.
    let (low, high) = (probed("0.5"), probed("0.95"));
    assert!(1 <= low && low < high && high <= 32, "{low} {high}");
    let run = xvec(&["query", c, "--pk", "n.01317391", "--target-recall", "1.5"]).run();
    run.code(2);
    assert!(run.stderr.contains("above 0 and at most 1"), "{run}");
    let run = xvec(&["query", c, "--pk", "n.01317391", "--ef", "40"]).run();
    run.code(2);
    assert!(
        run.stderr.contains("its index is ivf") && run.stderr.contains("--nprobe, --target-recall and --refine apply"),
        "{run}"
    );
    xvec(&["verify", c]).run().ok();
}

/// A full-text field through the tool: `describe` shows its index, `analyze` its terms,
/// `count --filter MATCH` the rows holding every clause, `query --text` ranks by BM25
/// alone or fused with the vector query, and the fusion's flags are checked.
#[test]
fn full_text_field_analyze_match_and_hybrid_query() {
    let dir = tempfile::tempdir().unwrap();
    let coll = dir.path().join("fts");
    let schema = std::fs::read_to_string(data("schema.json")).unwrap().replace(
        r#"{"name": "gloss", "type": "string"}"#,
        r#"{"name": "gloss", "type": "string", "index": {"type": "fts", "filters": ["lowercase", "stem_en"]}}"#,
    );
    assert!(schema.contains("fts"), "the sample schema's gloss field moved");
    std::fs::write(dir.path().join("schema.json"), schema).unwrap();
    let c = coll.to_str().unwrap();
    xvec(&["create", c, "--schema", dir.path().join("schema.json").to_str().unwrap()]).run().ok();
    xvec(&["import", c, &data("wordnet.jsonl"), "--vectors", &format!("emb={}", data("wordnet.fvecs"))]).run().ok();

    let run = xvec(&["describe", c, "--mode", "csv"]).run();
    assert!(run.ok().stdout.contains(r#"""type"":""fts"",""tokenizer"":""standard"""#), "{run}");
    let run = xvec(&["analyze", c, "gloss", "Running dogs", "--mode", "csv"]).run();
    assert_eq!(run.ok().stdout, "term,position,start,end\nrun,0,0,7\ndog,1,8,12\n", "{run}");
    let run = xvec(&["analyze", c, "lemma", "x"]).run();
    run.code(1);
    assert!(run.stderr.contains("field `lemma` has no full-text (fts) index") && run.stderr.contains("gloss"), "{run}");

    let count = |filter: &str| -> u64 {
        let run = xvec(&["count", c, "--filter", filter, "--mode", "csv"]).run();
        run.ok().stdout.lines().nth(1).unwrap().parse().unwrap()
    };
    let (plants, flowers) = (count("gloss MATCH 'plant'"), count("gloss MATCH 'plant flower'"));
    assert!(plants > flowers && flowers > 0, "plant {plants}, plant and flower {flowers}");
    assert_eq!(count("gloss MATCH 'plant' AND NOT gloss MATCH 'flower'"), plants - flowers);
    assert!(count("gloss MATCH 'plant*'") >= plants);

    let run = xvec(&["query", c, "--text", "plant flower", "-k", "3", "--fields", "lemma", "--mode", "jsonl"]).run();
    let hits: Vec<serde_json::Value> = run.ok().stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(hits.len(), 3, "{run}");
    assert_eq!(hits[0]["text_rank"], 1, "{run}");
    assert!(hits[0]["text_score"].as_f64().unwrap() >= hits[1]["text_score"].as_f64().unwrap(), "{run}");
    // One branch: nothing to fuse, the score is the branch's BM25, not a reciprocal rank.
    for h in &hits {
        assert_eq!(h["score"], h["text_score"], "{run}");
    }
    let run = xvec(&["query", c, "--pk", "n.01317391", "--text", "dog", "-k", "5", "--mode", "csv"]).run();
    let out = run.ok().stdout.clone();
    assert!(out.starts_with("_key,score,vector_rank,vector_score,text_rank,text_score,"), "{run}");
    assert_eq!(out.lines().count(), 6, "{run}");
    let explain = ["explain", "analyze", "query", c, "--pk", "n.01317391", "--text", "dog", "--filter", "pos = 'n'"];
    let run = xvec(&[&explain[..], &["--mode", "csv"]].concat()).run();
    let out = run.ok().stdout.clone();
    assert!(out.starts_with("branch,source,step,via,rows,estimated,matched,share,time\n"), "{run}");
    assert!(out.contains("branch 1 (vector),memtable chunk 0,pos = 'n',column scan"), "{run}");
    assert!(out.contains("branch 1 (vector),memtable chunk 0,vector search,exact scan"), "{run}");
    assert!(
        out.contains("branch 2 (text),all sources,text search,BM25 over every live row of 3 unindexed sources; "),
        "{run}"
    );
    let run = xvec(&["query", c, "--pk", "n.01317391", "--text", "dog", "--fusion", "weighted"]).run();
    run.code(2);
    assert!(run.stderr.contains("one weight per branch (vector, text), found 0"), "{run}");
    let run = xvec(&["query", c, "--text", "dog", "--weights", "1"]).run();
    run.code(2);
    assert!(run.stderr.contains("--weights needs --fusion weighted"), "{run}");
    let run = xvec(&["query", c, "--text", "dog", "--text-field", "lemma"]).run();
    run.code(1);
    assert!(run.stderr.contains("no full-text field named `lemma`"), "{run}");

    let score = |args: &[&str]| -> f64 {
        let run = xvec(&[&["query", c, "--text", "plant flower", "-k", "1", "--mode", "jsonl"], args].concat()).run();
        serde_json::from_str::<serde_json::Value>(run.ok().stdout.trim()).unwrap()["text_score"].as_f64().unwrap()
    };
    let (plain, boosted) = (score(&[]), score(&["--text-field", "gloss^2"]));
    assert!((boosted - 2.0 * plain).abs() < 1e-4 * plain, "a boost of 2 doubles the score: {plain} {boosted}");
    let run = xvec(&["query", c, "--text", "dog", "--text-field", "gloss^x"]).run();
    run.code(2);
    assert!(run.stderr.contains("boost \"x\" of `gloss` is not a number"), "{run}");

    // In a segment, the text branch runs over its full-text index, and ranks the same.
    let top =
        |c: &str| xvec(&["query", c, "--text", "plant flower", "-k", "5", "--mode", "csv"]).run().ok().stdout.clone();
    let before = top(c);
    xvec(&["optimize", c]).run().ok();
    assert_eq!(top(c), before);
    let run = xvec(&["explain", "query", c, "--text", "plant flower", "--mode", "csv"]).run();
    assert!(run.ok().stdout.contains("BM25 block-max WAND over 1 indexed segment ("), "{run}");
    assert_eq!(count("gloss MATCH 'plant' AND NOT gloss MATCH 'flower'"), plants - flowers, "MATCH through postings");
    // Dropped, the index takes text queries with it; added again, it is built for the segment.
    xvec(&["alter", c, "drop-index", "gloss", "fts"]).run().ok();
    let run = xvec(&["query", c, "--text", "plant"]).run();
    run.code(1);
    assert!(run.stderr.contains("full-text"), "{run}");
    let run =
        xvec(&["alter", c, "add-index", "gloss", r#"{"type": "fts", "filters": ["lowercase", "stem_en"]}"#]).run();
    assert!(run.ok().stderr.contains("added: fts index on gloss, built for 1 segment"), "{run}");
    assert_eq!(top(c), before);
    assert!(
        dir.path().join("fts").read_dir().unwrap().any(|e| e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .ends_with("-fts.idx"))
    );
    let run = xvec(&["verify", c, "--deep"]).run();
    run.ok();
}

/// A sparse vector field from schema to import, query, fetch, optimize and verify, with
/// the errors a user meets.
#[test]
fn sparse_field_imports_queries_and_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("sp");
    let c = c.to_str().unwrap();
    let schema = dir.path().join("schema.json");
    std::fs::write(
        &schema,
        r#"{"name": "sp", "fields": [{"name": "t", "type": "string"}, {"name": "sv", "type": "sparse_fp32", "nullable": true}]}"#,
    )
    .unwrap();
    let docs = dir.path().join("docs.jsonl");
    let rows = [
        r#"{"id": "a", "t": "x", "sv": {"indices": [1, 5], "values": [1.0, 2.0]}}"#,
        r#"{"id": "b", "t": "y", "sv": {"5": 0.5, "9": 4.0}}"#,
        r#"{"id": "c", "t": "z"}"#,
        r#"{"id": "d", "t": "w", "sv": {"indices": [2], "values": [3.0]}}"#,
    ];
    std::fs::write(&docs, rows.join("\n")).unwrap();
    xvec(&["create", c, "--schema", schema.to_str().unwrap()]).run().ok();
    xvec(&["import", c, docs.to_str().unwrap()]).run().ok();
    let query = |extra: &[&str]| {
        let run = xvec(
            &[&["query", c, "--sparse", r#"{"5": 1.0, "9": 0.25}"#, "--mode", "csv", "--fields", "t"], extra].concat(),
        )
        .run();
        run.ok().stdout.clone()
    };
    let before = query(&[]);
    assert_eq!(before.lines().next().unwrap(), "_key,score,sparse_rank,sparse_score,t", "{before}");
    let ranked: Vec<&str> = before.lines().skip(1).map(|l| l.split(',').next().unwrap()).collect();
    assert_eq!(ranked, ["a", "b"], "a: 2.0, b: 0.5 + 1.0 = 1.5; c and d share no dimension: {before}");
    let explain = |c: &str| {
        let run = xvec(&["explain", "query", c, "--sparse", r#"{"5": 1.0}"#, "--mode", "csv"]).run();
        run.ok().stdout.clone()
    };
    assert!(
        explain(c).contains("inner product over every live row of 1 unindexed source; 2 rows scored"),
        "{}",
        explain(c)
    );
    xvec(&["optimize", c]).run().ok();
    assert_eq!(query(&[]), before, "the same from a segment");
    assert!(explain(c).contains("inner product block-max WAND over 1 indexed segment ("), "{}", explain(c));
    assert_eq!(query(&["--sparse-budget", "1"]).lines().count(), 2, "a budget of one posting scores one row");
    let run = xvec(&["fetch", c, "b", "--mode", "jsonl"]).run();
    assert!(run.ok().stdout.contains(r#""sv":{"indices":[5,9],"values":[0.5,4.0]}"#), "{run}");
    xvec(&["verify", c, "--deep"]).run().ok();
    let run = xvec(&["query", c, "--sparse", r#"{"indices": [1, 1], "values": [1, 2]}"#]).run();
    run.code(2);
    assert!(run.stderr.contains("dimension 1 appears twice"), "{run}");
    let run = xvec(&["query", c, "--sparse", r#"{"1": 1}"#, "--sparse-field", "t"]).run();
    run.code(1);
    assert!(run.stderr.contains("no sparse vector field named `t`"), "{run}");
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, r#"{"id": "e", "t": "v", "sv": {"indices": [1], "values": ["x"]}}"#).unwrap();
    let run = xvec(&["import", c, bad.to_str().unwrap()]).run();
    assert!(run.stderr.contains("sv") && run.stderr.contains("values[0]"), "{run}");
}

/// `vocabulary` writes a field's BM25 vocabulary; `import --sparse-bm25` fills a sparse
/// field from it; `query --sparse-text` then ranks and scores as `--text` does over the
/// same corpus. Bad specs, files and rows are named.
#[test]
fn bm25_vocabulary_fills_a_sparse_field_that_ranks_like_the_text_index() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    std::fs::write(
        path("schema.json"),
        r#"{"name": "v", "fields": [
            {"name": "t", "type": "string", "nullable": true, "index": {"type": "fts", "filters": ["lowercase", "stem_en"]}},
            {"name": "n", "type": "int64", "nullable": true},
            {"name": "sv", "type": "sparse_fp32", "nullable": true}]}"#,
    )
    .unwrap();
    let rows = [
        r#"{"id": "a", "t": "The cat sat on the mat"}"#,
        r#"{"id": "b", "t": "Dogs chase cats and cats chase mice"}"#,
        r#"{"id": "c", "t": "a dog, a cat and a bird"}"#,
        r#"{"id": "d"}"#,
        r#"{"id": "e", "t": "birds sing at dawn"}"#,
        r#"{"id": "f", "t": "the old dog sleeps on the warm mat all day long"}"#,
    ];
    std::fs::write(path("docs.jsonl"), rows.join("\n")).unwrap();
    let (first, second, vocab) = (path("first"), path("second"), path("vocab.tsv"));
    for c in [&first, &second] {
        xvec(&["create", c, "--schema", &path("schema.json")]).run().ok();
    }
    xvec(&["import", &first, &path("docs.jsonl")]).run().ok();
    let run = xvec(&["vocabulary", &first, "t", "-o", &vocab]).run();
    assert!(run.ok().stderr.contains("terms from 5 documents to"), "{run}");
    let text = std::fs::read_to_string(&vocab).unwrap();
    assert!(text.lines().any(|l| l == "cat\t3"), "cat, cats: three documents, stemmed: {text}");
    let run =
        xvec(&["import", &second, &path("docs.jsonl"), "--sparse-bm25", &format!("sv=t:{vocab}"), "--flush"]).run();
    assert!(run.ok().stderr.contains("imported 6 of 6"), "{run}");
    let run = xvec(&["inspect", &second, "fields", "--mode", "csv"]).run();
    let out = &run.ok().stdout;
    assert!(out.contains("\nt,string,yes,,,fts,,100.0% (1/1 segments)\n"), "{out}");
    assert!(out.contains("\nsv,sparse_fp32,yes,,,sparse,,100.0% (1/1 segments)\n"), "{out}");

    let ranked = |flags: &[&str]| -> Vec<(String, String)> {
        let run = xvec(&[&["query", &second, "--mode", "csv", "--fields", "n"], flags].concat()).run();
        let out = run.ok().stdout.clone();
        out.lines().skip(1).map(|l| l.split(',').collect::<Vec<_>>()).map(|f| (f[0].into(), f[3].into())).collect()
    };
    for q in ["cat", "dog mat", "birds chasing cats", "unknown"] {
        let text = ranked(&["--text", q]);
        let sparse = ranked(&["--sparse-text", q, "--vocabulary", &vocab]);
        assert_eq!(sparse, text, "{q:?}: the sparse branch ranks and scores as BM25 does");
        assert!(!text.is_empty() || q == "unknown");
    }

    // Usage and file errors name what is wrong.
    let import = |spec: &str| xvec(&["import", &second, &path("docs.jsonl"), "--upsert", "--sparse-bm25", spec]).run();
    let run = import("sv=t");
    assert!(run.code(2).stderr.contains("expected TARGET=SOURCE:VOCAB"), "{run}");
    let run = import(&format!("t=t:{vocab}"));
    assert!(run.code(2).stderr.contains("`t` is not a sparse vector field"), "{run}");
    let run = import(&format!("sv=n:{vocab}"));
    assert!(run.code(2).stderr.contains("`n` is not a string field"), "{run}");
    let run = import(&format!("sv=t:{}", path("missing.tsv")));
    assert!(run.code(1).stderr.contains("missing.tsv"), "{run}");
    let broken = path("broken.tsv");
    std::fs::write(&broken, text.replacen("cat\t3", "cat\tthree", 1)).unwrap();
    let run = import(&format!("sv=t:{broken}"));
    let line = text.lines().position(|l| l == "cat\t3").unwrap() + 1;
    assert!(run.code(1).stderr.contains(&format!("broken.tsv: line {line}: document frequency \"three\"")), "{run}");
    let given = path("given.jsonl");
    std::fs::write(&given, r#"{"id": "g", "t": "cat", "sv": {"1": 1.0}}"#).unwrap();
    let run = xvec(&["import", &second, &given, "--sparse-bm25", &format!("sv=t:{vocab}")]).run();
    assert!(run.stderr.contains("given.jsonl:1: error: `sv` is given in the row and by --sparse-bm25"), "{run}");
    let run = xvec(&["query", &second, "--text", "cat", "--sparse-budget", "3"]).run();
    assert!(run.code(2).stderr.contains("need --sparse or --sparse-text"), "{run}");
    let run = xvec(&["query", &second, "--sparse-text", "cat"]).run();
    assert!(run.code(2).stderr.contains("--vocabulary"), "{run}");
    let run = xvec(&["vocabulary", &first, "n"]).run();
    assert!(run.code(2).stderr.contains("`n` is not a string field"), "{run}");
}

/// `query --json` runs the hybrid query the flags would, given as one JSON object (inline
/// or `@FILE`); a bad member is named by its path, and the flags it replaces are refused.
#[test]
fn query_json_runs_the_hybrid_query_the_flags_would() {
    let dir = tempfile::tempdir().unwrap();
    let c = wordnet_hybrid().to_str().unwrap();
    let flags = [
        "--pk",
        "n.01317391",
        "--text",
        "small flowering plant",
        "--text-field",
        "gloss^2",
        "--sparse",
        r#"{"3": 1.0, "977": 0.5}"#,
        "--keys",
        "n.00001740",
        "-k",
        "7",
        "--filter",
        "pos = 'n'",
        "--fields",
        "lemma",
        "--fusion",
        "weighted",
        "--weights",
        "1,0.5,2,0.1",
    ];
    let by_flags = xvec(&[&["query", c, "--mode", "jsonl"], &flags[..]].concat()).run();
    let json = r#"{"k": 7, "filter": "pos = 'n'", "fields": ["lemma"], "fusion": {"weighted": [1, 0.5, 2, 0.1]},
        "branches": [{"key": "n.01317391"}, {"text": "small flowering plant", "fields": ["gloss^2"]},
                     {"sparse": {"3": 1.0, "977": 0.5}}, {"keys": ["n.00001740"]}]}"#;
    let by_json = xvec(&["query", c, "--mode", "jsonl", "--json", json]).run();
    assert_eq!(by_json.ok().stdout, by_flags.ok().stdout);
    assert_eq!(by_json.stdout.lines().count(), 7, "{by_json}");
    let file = dir.path().join("q.json");
    std::fs::write(&file, json).unwrap();
    let from_file = xvec(&["query", c, "--mode", "jsonl", "--json", &format!("@{}", file.display())]).run();
    assert_eq!(from_file.ok().stdout, by_json.stdout);

    let run = xvec(&["query", c, "--json", r#"{"branches": [{"text": "x", "fields": ["gloss^0"]}]}"#]).run();
    assert!(run.code(2).stderr.contains("--json: branches[0].fields[0]: boost 0 of `gloss`"), "{run}");
    let run = xvec(&["query", c, "--json", r#"{"branches": [{"text": "x"}]}"#, "--text", "y"]).run();
    assert!(run.code(2).stderr.contains("cannot be used with"), "{run}");
    let run = xvec(&["query", c, "--json", "@/nonexistent/q.json"]).run();
    assert!(run.code(1).stderr.contains("/nonexistent/q.json"), "{run}");
    let run = xvec(&["query", c, "--json", "{"]).run();
    assert!(run.code(2).stderr.contains("--json: EOF"), "{run}");
    // A branch's own knob out of range is a usage mistake, as the flag's would be; what only
    // the data decides (a key that is not there) is a failed command.
    let run = xvec(&["query", c, "--json", r#"{"branches": [{"key": "n.01317391", "nprobe": 0}]}"#]).run();
    assert!(run.code(2).stderr.contains("hybrid query: dense branch: nprobe 0 is out of range"), "{run}");
    let run = xvec(&["query", c, "--json", r#"{"branches": [{"key": "n.99999999"}]}"#]).run();
    assert!(run.code(1).stderr.contains("hybrid query: dense branch: key \"n.99999999\" not found"), "{run}");
}

/// A collection `d` in `dir` of 300 rows on a 17 × 18 grid, its vector field under a
/// disk-resident index not built yet; returns its path.
fn disk_collection(dir: &std::path::Path) -> String {
    let c = dir.join("d").to_str().unwrap().to_string();
    xvec(&["create", &c, "--vector", "v:4:l2", "--index", "disk"]).run().ok();
    let docs: Vec<String> =
        (0..300).map(|i| format!(r#"{{"id": "k{i}", "v": [{}, {}, 1, 0]}}"#, i % 17, i / 17)).collect();
    let args: Vec<&str> = ["insert", &c].into_iter().chain(docs.iter().map(String::as_str)).collect();
    xvec(&args).run().ok();
    c
}

/// An in-memory index under a budget it does not fit: `stats` and `describe` say what it
/// wants and how far over the budget it is, and a query still answers.
#[test]
fn an_in_memory_index_over_its_memory_budget_in_stats_and_describe() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("h").to_str().unwrap().to_string();
    let c = c.as_str();
    xvec(&["create", c, "--vector", "v:4:l2", "--index", "hnsw"]).run().ok();
    let docs: Vec<String> =
        (0..300).map(|i| format!(r#"{{"id": "k{i}", "v": [{}, {}, 1, 0]}}"#, i % 17, i / 17)).collect();
    let args: Vec<&str> = ["insert", c].into_iter().chain(docs.iter().map(String::as_str)).collect();
    xvec(&args).run().ok();
    xvec(&["optimize", c]).run().ok();
    let run = xvec(&["--memory-budget", "1KiB", "query", c, "[3, 2, 1, 0]", "-k", "1"]).run();
    assert!(run.ok().stdout.contains("k37\t"), "{run}");
    let run = xvec(&["--memory-budget", "1KiB", "stats", c]).run();
    let out = run.ok().stdout.clone();
    let value = |name: &str| -> u64 {
        let line =
            out.lines().find(|l| l.starts_with(&format!("{name}\t"))).unwrap_or_else(|| panic!("{name} in {out}"));
        line.split('\t').nth(1).unwrap().parse().unwrap()
    };
    let (wanted, over) = (value("memory wanted"), value("memory over budget"));
    assert!(wanted > 300 * 16 && over == wanted - 1024, "{out}");
    let run = xvec(&["--memory-budget", "1KiB", "describe", c, "--mode", "line"]).run();
    assert!(run.ok().stdout.contains("memory budget 1.0 KiB, over budget by "), "{run}");
    assert!(run.ok().stdout.contains("queries read the rest from disk, slower"), "{run}");
}

/// `query --beam-width` sets a disk index's beam for the query (and a `--json` branch's
/// `beam_width`; `explain` shows it); out of 1..=64 it is a usage error naming the flag
/// and the range.
#[test]
fn query_beam_width_on_a_disk_index() {
    let dir = tempfile::tempdir().unwrap();
    let c = disk_collection(dir.path());
    let c = c.as_str();
    xvec(&["optimize", c]).run().ok();
    for width in ["1", "16", "64"] {
        let run = xvec(&["--memory-budget", "0", "query", c, "[3, 2, 1, 0]", "-k", "1", "--beam-width", width]).run();
        assert!(run.ok().stdout.contains("k37\t"), "{width}: {run}");
    }
    // explain shows the width searched with, the hops and the blocks read.
    let run = xvec(&["--memory-budget", "0", "explain", "query", c, "[3, 2, 1, 0]", "--beam-width", "8"]).run();
    let out = &run.ok().stdout;
    let at = out.find("disk graph, beam 8: ").unwrap_or_else(|| panic!("{run}"));
    assert!(out[at..].split('\n').next().unwrap().contains(" hops, ") && out[at..].contains(" blocks read"), "{run}");
    let json = r#"{"branches": [{"vector": [3, 2, 1, 0], "beam_width": 8}], "k": 1}"#;
    assert!(xvec(&["query", c, "--json", json]).run().ok().stdout.contains("k37\t"));
    for width in ["0", "65"] {
        let run = xvec(&["query", c, "[3, 2, 1, 0]", "--beam-width", width]).run();
        assert!(
            run.code(2)
                .stderr
                .contains(&format!("invalid value '{width}' for '--beam-width <N>': {width} is not in 1..=64")),
            "{run}"
        );
    }
    let json = r#"{"branches": [{"vector": [3, 2, 1, 0], "beam_width": 0}]}"#;
    // A branch's knob out of range is a usage mistake there too (exit code 2).
    let run = xvec(&["query", c, "--json", json]).run();
    assert!(run.code(2).stderr.contains("dense branch: beam_width 0 is out of range; expected 1..=64"), "{run}");
}

/// A disk-resident index from the tool's flags: `--memory-budget` opens it with that
/// budget, and `stats` and `describe` show the budget, the blocks and the reads.
#[test]
fn memory_budget_and_a_disk_index_in_stats_and_describe() {
    let dir = tempfile::tempdir().unwrap();
    let c = disk_collection(dir.path());
    let c = c.as_str();
    xvec(&["optimize", c]).run().ok();
    let run = xvec(&["--memory-budget", "1MiB", "query", c, "[3, 2, 1, 0]", "-k", "1"]).run();
    assert!(run.ok().stdout.contains("k37\t"), "{run}");
    let run = xvec(&["--memory-budget", "1MiB", "stats", c]).run();
    let out = run.ok().stdout.clone();
    for row in ["memory budget\t1048576\n", "disk indexes\t1\n", "disk block bytes\t"] {
        assert!(out.contains(row), "{row:?} in {out}");
    }
    let run = xvec(&["--memory-budget", "1MiB", "describe", c, "--mode", "line"]).run();
    let out = run.ok().stdout.clone();
    assert!(out.contains("memory budget 1.0 MiB (") && out.contains(" wanted); 1 index disk-resident"), "{run}");

    // inspect: the blocks' layout, one node as its block holds it, the graph's topology.
    let json = |args: &[&str]| -> serde_json::Value {
        let run = xvec(args).run();
        serde_json::from_str(&run.ok().stdout).unwrap_or_else(|e| panic!("{e}: {run}"))
    };
    let rows = json(&["inspect", c, "disk", "v", "--mode", "json"]);
    let row = &rows.as_array().unwrap()[0];
    let num = |k: &str| row[k].as_u64().unwrap_or_else(|| panic!("{k}: {row}"));
    // 4 fp32 elements, a norm, a count and 64 neighbour slots: 280 bytes, 14 a block.
    assert_eq!((num("dim"), row["elem"].as_str(), num("degree"), num("nodes")), (4, Some("fp32"), 64, 300), "{row}");
    assert_eq!((num("node bytes"), num("block bytes"), num("nodes per block"), num("blocks")), (280, 4096, 14, 22));
    assert!(num("first block at").is_multiple_of(4096) && num("medoid") < 300, "{row}");
    // Without a budget, an index gets the default cache: here every node fits.
    assert_eq!(num("cached nodes"), 300, "{row}");
    let rows = json(&["inspect", c, "disk", "v", "--node", "37", "--mode", "json"]);
    let node = &rows.as_array().unwrap()[0];
    assert_eq!((node["node"].as_u64(), node["block"].as_u64()), (Some(37), Some(2)), "{node}");
    assert_eq!(node["vector head"].as_str(), Some("3 2 1 0"), "{node}");
    assert!(node["offset"].as_u64().unwrap() == num("first block at") + 4096 * 2 + 9 * 280, "{node}");
    assert!(!node["neighbours"].as_str().unwrap().is_empty(), "{node}");
    let run = xvec(&["inspect", c, "disk", "v", "--node", "300"]).run();
    run.code(1);
    assert!(run.stderr.contains("no segment's disk index of `v` has node 300"), "{run}");
    let rows = json(&["inspect", c, "graph", "v", "--mode", "json"]);
    let g = &rows.as_array().unwrap()[0];
    assert_eq!((g["kind"].as_str(), g["nodes"].as_u64(), g["defects"].as_u64()), (Some("disk"), Some(300), Some(0)));
}

/// The filter forms users bring from SQL and Python: `==`, BETWEEN, ILIKE and TRUE/FALSE
/// alone, counted against the sample (the expected counts come from its JSONL file).
#[test]
fn filters_take_double_equals_between_ilike_and_constants() {
    let c = wordnet().to_str().unwrap();
    let count = |filter: &str| -> u64 {
        let run = xvec(&["count", c, "--filter", filter, "--mode", "csv"]).run();
        run.ok().stdout.lines().nth(1).unwrap().parse().unwrap()
    };
    assert_eq!(count("pos == 'v'"), 296);
    assert_eq!(count("n_lemmas BETWEEN 2 AND 3"), count("n_lemmas >= 2 AND n_lemmas <= 3"));
    assert_eq!(count("n_lemmas BETWEEN 2 AND 3 AND pos = 'v'"), count("n_lemmas >= 2 AND n_lemmas <= 3 AND pos = 'v'"));
    assert_eq!(count("n_lemmas NOT BETWEEN 2 AND 3") + count("n_lemmas BETWEEN 2 AND 3"), 2500);
    assert_eq!(count("lemma ILIKE 'A%'"), 172);
    assert_eq!(count("lemma LIKE 'a%'") + count("lemma LIKE 'A%'"), 172);
    assert_eq!(count("lemma NOT ILIKE 'a%'"), 2500 - 172);
    assert_eq!((count("TRUE"), count("FALSE"), count("NOT FALSE AND pos = 'v'")), (2500, 0, 296));
    let run = xvec(&["count", c, "--filter", "n_lemmas BETWEEN 2 OR 3"]).run();
    run.code(2);
    assert!(run.stderr.contains("expected AND between the two ends of BETWEEN, found `OR`"), "{run}");

    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("c");
    let cs = copy.to_str().unwrap();
    xvec(&["create", cs, "--schema", &data("schema.json")]).run().ok();
    let vectors = format!("emb={}", data("wordnet.fvecs"));
    xvec(&["import", cs, &data("wordnet.jsonl"), "--vectors", &vectors]).run().ok();
    xvec(&["delete", cs, "--where", "TRUE"]).run().ok();
    assert_eq!(xvec(&["count", cs]).run().ok().stdout, "count\n0\n");
}

/// `optimize` under a budget the rows do not fit builds the disk index from int8 codes
/// and says so, with the working set it planned; the index answers as before.
#[test]
fn optimize_under_a_memory_budget_builds_from_codes() {
    let dir = tempfile::tempdir().unwrap();
    let c = disk_collection(dir.path());
    let c = c.as_str();
    let run = xvec(&["--memory-budget", "100KiB", "optimize", c]).run();
    assert!(
        run.ok().stderr.contains("1 disk index built from int8 codes within the memory budget (working set 94.9 KiB)"),
        "{run}"
    );
    let run = xvec(&["query", c, "[3, 2, 1, 0]", "-k", "1"]).run();
    assert!(run.ok().stdout.contains("k37\t"), "{run}");
}

/// `verify --deep` encodes codes, sketches and quantized-graph blocks again with this
/// machine's kernels: a collection built under one kernel set (AVX2 or AVX-512, whose sums
/// round in their own order) checks clean under another, here the scalar set.
#[test]
fn verify_takes_codes_another_kernel_set_encoded() {
    let dir = tempfile::tempdir().unwrap();
    let rows: String = (crate::util::random_vectors(9, 600, 48).iter().enumerate())
        .map(|(i, v)| {
            let v: Vec<String> = v.iter().map(|x| format!("{x:.5}")).collect();
            format!(r#"{{"id": "k{i}", "v": [{}]}}"#, v.join(", ")) + "\n"
        })
        .collect();
    let file = dir.path().join("rows.jsonl");
    std::fs::write(&file, rows).unwrap();
    let indexes = [
        r#"{"type": "qg", "build_list": 32}"#,
        r#"{"type": "hnsw", "quantize": "int8", "refine": 2}"#,
        r#"{"type": "ivf", "nlist": 8, "nprobe": 4, "quantize": "rabitq"}"#,
    ];
    for (i, index) in indexes.iter().enumerate() {
        let c = dir.path().join(format!("c{i}"));
        let c = c.to_str().unwrap();
        xvec(&["create", c, "--vector", "v:48:cosine", "--index", index]).run().ok();
        xvec(&["import", c, file.to_str().unwrap()]).run().ok();
        xvec(&["optimize", c]).run().ok();
        xvec(&["verify", c, "--deep"]).run().ok();
        let scalar = xvec(&["verify", c, "--deep"]).env("XVEC_ISA", std::path::Path::new("scalar")).run();
        assert!(scalar.ok().stderr.contains(" 0 corrupt,"), "{index}: {scalar}");
    }
}
