//! `xvec alter DIR set-index FIELD JSON` on the committed WordNet sample: flat to HNSW
//! and back, each built before the command returns, the same nearest neighbours
//! throughout; bad parameters and a scalar field are refused naming the field; and
//! `add-index` given a vector index type points at set-index.

use crate::harness::{wordnet, xvec};

#[test]
fn set_index_switches_a_vector_field_and_refuses_what_does_not_fit() {
    let dir = tempfile::tempdir().unwrap();
    let coll = dir.path().join("wn");
    crate::util::copy_dir(wordnet(), &coll);
    let c = coll.to_str().unwrap();
    let neighbours = || {
        let run = xvec(&["query", c, "--pk", "n.07580359", "-k", "5", "--fields", "lemma", "--mode", "csv"]).run();
        run.ok().stdout.lines().map(|l| l.split(',').next().unwrap().to_string()).collect::<Vec<_>>()
    };
    let exact = neighbours();
    assert_eq!(exact.len(), 6, "a header and 5 hits: {exact:?}");

    let hnsw = r#"{"type": "hnsw", "m": 8, "ef_construction": 64, "ef": 100}"#;
    let run = xvec(&["alter", c, "set-index", "emb", hnsw]).run();
    assert_eq!(run.ok().stderr, "set: emb index is hnsw m=8 efc=64 ef=100, built for 1 segment\n");
    assert_eq!(neighbours(), exact);
    let run = xvec(&["describe", c, "--mode", "csv"]).run();
    assert!(run.ok().stdout.contains(r#"""type"":""hnsw"""#), "{run}");
    assert!(!run.stdout.contains("building"), "{run}");
    assert!(coll.join("SEG-000001-f005-vec.idx").exists());

    let run = xvec(&["alter", c, "set-index", "emb", "flat"]).run();
    assert_eq!(run.ok().stderr, "set: emb index is flat, nothing to build: searches scan the vectors\n");
    assert_eq!(neighbours(), exact);
    assert!(!coll.join("SEG-000001-f005-vec.idx").exists(), "the HNSW file went with the swap");

    let run = xvec(&["alter", c, "set-index", "emb", r#"{"type": "hnsw", "m": 1}"#]).run();
    run.code(1);
    assert_eq!(run.stderr, "error: field `emb`: index: m 1 is out of range; expected 2..=512\n");
    let run = xvec(&["alter", c, "set-index", "emb", r#"{"type": "hnsw", "mm": 8}"#]).run();
    run.code(2);
    assert!(run.stderr.starts_with("error: set-index emb: index JSON: unknown field `mm`"), "{run}");
    let run = xvec(&["alter", c, "set-index", "emb", "btree"]).run();
    run.code(2);
    assert!(run.stderr.contains("set-index emb: unknown index type \"btree\""), "{run}");
    let run = xvec(&["alter", c, "set-index", "pos", "hnsw"]).run();
    run.code(1);
    assert!(run.stderr.contains("field `pos`: set-index takes a vector field, not a string field"), "{run}");
    let run = xvec(&["alter", c, "add-index", "emb", "hnsw"]).run();
    run.code(2);
    assert!(run.stderr.contains("a vector field's index changes with set-index FIELD"), "{run}");
    xvec(&["verify", c]).run().ok();
}
