//! Getting data and schemas back out: `schema` → `create --schema` gives the same
//! collection, every `export` format imports back to the same documents and query
//! results, `dump` recreates a collection, and every text output mode prints f32s that
//! read back to the same bits.

use std::path::Path;

use rand::RngExt;
use xvec::{Collection, Doc, OpenOptions, Query, Schema, Value};

use crate::harness::xvec;
use crate::util::{random_vectors, rng};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Every scalar and array type, nullable and not, and fp32/fp16/int8 vector fields (some
/// nullable).
const SCHEMA: &str = r#"{"name": "every", "fields": [
    {"name": "s", "type": "string"},
    {"name": "s_null", "type": "string", "nullable": true},
    {"name": "b", "type": "bool"},
    {"name": "i32", "type": "int32", "nullable": true},
    {"name": "i64", "type": "int64"},
    {"name": "u32", "type": "uint32"},
    {"name": "u64", "type": "uint64", "nullable": true},
    {"name": "f", "type": "float"},
    {"name": "d", "type": "double"},
    {"name": "as", "type": "array_string", "nullable": true},
    {"name": "ab", "type": "array_bool"},
    {"name": "ai", "type": "array_int32", "nullable": true},
    {"name": "al", "type": "array_int64"},
    {"name": "au", "type": "array_uint32"},
    {"name": "aw", "type": "array_uint64", "nullable": true},
    {"name": "af", "type": "array_float"},
    {"name": "ad", "type": "array_double"},
    {"name": "sp", "type": "sparse_fp32", "nullable": true},
    {"name": "sh", "type": "sparse_fp16"},
    {"name": "emb", "type": "vector_fp32", "dim": 16, "metric": "cosine",
     "index": {"type": "hnsw", "m": 8, "ef_construction": 64, "quantize": "int8", "refine": 4}},
    {"name": "half", "type": "vector_fp16", "dim": 4, "metric": "l2", "nullable": true},
    {"name": "small", "type": "vector_int8", "dim": 3, "metric": "ip"}]}"#;

/// More rows than one export chunk (4096), so chunks and row groups are crossed.
const ROWS: usize = 4500;

/// Seeded documents with edge values: empty strings, text that looks like JSON or CSV,
/// extreme integers, tiny and huge floats, nulls.
fn every_docs(integer_keys: bool) -> Vec<Doc> {
    let mut r = rng(7);
    let embs = random_vectors(8, ROWS, 16);
    embs.into_iter()
        .enumerate()
        .map(|(i, emb)| {
            let key = if integer_keys { format!("{}", i as i64 * 7919 - 1000) } else { format!("k,\"{i}\" é") };
            let text = ["", "plain", "[1, 2]", "a,b\n\"c\"", "42", "ünï"][i % 6];
            let mut d = Doc::new(key)
                .set("s", text)
                .set("b", i % 3 == 0)
                .set("i64", if i == 1 { i64::MIN } else { r.random_range(-1_000_000_000_000i64..1_000_000_000_000) })
                .set("u32", if i == 2 { u32::MAX } else { r.random_range(0..1000u32) })
                .set("f", f32::from_bits(r.random_range(0x0000_0001u32..0x7f7f_ffff)))
                .set("d", if i == 3 { 1e-300 } else { r.random_range(-1e6f64..1e6) })
                .set("emb", emb)
                .set("small", vec![-128i8, (i % 100) as i8, 127]);
            // Arrays of 0..=3 elements, edge values among them; the nullable ones NULL
            // in every seventh row.
            let n = i % 4;
            let list = |f: &dyn Fn(usize) -> Value| Value::Array((0..n).map(f).collect());
            d = d
                .set("ab", list(&|j| Value::Bool((i + j) % 2 == 0)))
                .set("al", list(&|j| Value::Int64(if j == 1 { i64::MIN } else { i as i64 * 1_000_003 - j as i64 })))
                .set("au", list(&|j| Value::Uint32(if j == 2 { u32::MAX } else { (i * 3 + j) as u32 })))
                .set("af", list(&|j| Value::Float(f32::from_bits(0x3f80_0000 + (i * 31 + j) as u32 * 977))))
                .set("ad", list(&|j| Value::Double(if j == 0 { 1e-300 } else { i as f64 / 7.0 })));
            if i % 7 != 0 {
                let texts = ["", "a,b", "[\"x\"]", "ünï \"q\"", "null"];
                d = d
                    .set("as", list(&|j| Value::String(texts[(i + j) % 5].to_string())))
                    .set("ai", list(&|j| Value::Int32(if j == 0 { i32::MIN } else { i as i32 })))
                    .set("aw", list(&|j| Value::Uint64(u64::MAX - (i + j) as u64)));
            }
            if i % 4 != 0 {
                d = d.set("s_null", format!("n{i}")).set("i32", i as i32 - 2000).set("u64", u64::MAX - i as u64);
            }
            if i % 5 != 0 {
                let h: Vec<xvec::f16> = (0..4).map(|j| xvec::f16::from_f32(j as f32 * 0.1 - i as f32 * 1e-3)).collect();
                d = d.set("half", h);
            }
            // Sparse vectors of 0..=4 dimensions (up to 2^32 - 1), NULL in every sixth row;
            // the fp16 one's values exact in half precision.
            let sparse = |n: usize, value: &dyn Fn(usize) -> f32| {
                let dims = (0..n).map(|j| if j == 3 { u32::MAX } else { (i * 13 + j * 7) as u32 });
                Value::Sparse(xvec::SparseVector::new(dims.zip((0..n).map(value))).unwrap())
            };
            d = d.set("sh", sparse(i % 4, &|j| j as f32 * 0.25 - 1.0));
            if i % 6 != 0 {
                d = d.set("sp", sparse(i % 5, &|j| f32::from_bits(0x3f80_0000 + (i * 17 + j) as u32 * 4099)));
            }
            d
        })
        .collect()
}

fn build(dir: &Path, schema: &str, docs: Vec<Doc>) {
    let c = Collection::create(dir, Schema::from_json(schema).unwrap(), Default::default()).unwrap();
    for r in c.insert(docs).unwrap() {
        r.unwrap();
    }
    c.flush().unwrap();
    c.close().unwrap();
}

/// Every live document, by key.
fn all_docs(dir: &Path) -> Vec<Doc> {
    let c = Collection::open(dir, &OpenOptions::read_only()).unwrap();
    let mut keys = c.snapshot().keys_where(None).unwrap();
    keys.sort();
    let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
    c.fetch(&refs, None).unwrap().into_iter().map(Option::unwrap).collect()
}

/// Exact top-10 keys and score bits of a few queries on `field`.
fn answers(dir: &Path, field: &str, dim: usize) -> Vec<Vec<(String, u32)>> {
    let c = Collection::open(dir, &OpenOptions::read_only()).unwrap();
    // A graph searched with ef = every row is exact; a flat index takes no ef.
    let schema = c.schema();
    let index = &schema.field(schema.index_of(field).unwrap()).as_vector().unwrap().index;
    let ef = index.search_knob(xvec::Knob::Ef).map(|_| ROWS);
    random_vectors(99, 5, dim)
        .into_iter()
        .map(|v| {
            let q = Query::vector(v).k(10).field(field).ef(ef);
            c.query(&q).unwrap().into_iter().map(|h| (h.key, h.score.to_bits())).collect()
        })
        .collect()
}

/// The same documents, field for field, with f32s compared by their bits.
fn assert_same_docs(a: &[Doc], b: &[Doc], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: document count");
    for (x, y) in a.iter().zip(b) {
        assert_eq!(x, y, "{what}");
        for (name, v) in &x.fields {
            if let (Value::Float(p), Some(Value::Float(q))) = (v, y.fields.get(name)) {
                assert_eq!(p.to_bits(), q.to_bits(), "{what}: {} {name}", x.key);
            }
            if let (Value::VectorFp32(p), Some(Value::VectorFp32(q))) = (v, y.fields.get(name)) {
                assert!(p.iter().zip(q).all(|(p, q)| p.to_bits() == q.to_bits()), "{what}: {} {name}", x.key);
            }
        }
    }
}

/// `xvec schema` of a collection made from flags, and of one with HNSW and quantized
/// index parameters, makes an identical collection through `create --schema`; the
/// shell's `.schema` prints the same.
#[test]
fn schema_round_trips_through_create() {
    let tmp = tempfile::tempdir().unwrap();
    let flags: [&[&str]; 2] = [
        &["--field", "lemma:string", "--field", "n:int32:nullable", "--vector", "emb:8:cosine:fp16:nullable"],
        &[
            "--field",
            "pos:string",
            "--vector",
            "emb:8:l2",
            "--vector",
            "alt:6:ip",
            "--index",
            r#"{"type": "hnsw", "m": 12, "ef": 80, "seed": 7, "quantize": "int4", "rotate": false, "refine": 3}"#,
        ],
    ];
    for (i, flags) in flags.iter().enumerate() {
        let a = tmp.path().join(format!("a{i}"));
        let b = tmp.path().join(format!("b{i}"));
        let mut args = vec!["create", s(&a)];
        args.extend_from_slice(flags);
        xvec(&args).run().ok();
        let schema = xvec(&["schema", s(&a)]).run().ok().stdout.clone();
        assert!(!schema.contains("\"id\""), "no internal field ids: {schema}");
        if i == 1 {
            for part in [r#""m": 12"#, r#""ef_construction": 200"#, r#""quantize": "int4""#, r#""rotate": false"#] {
                assert!(schema.contains(part), "{part} in {schema}");
            }
        }
        let file = tmp.path().join(format!("schema{i}.json"));
        std::fs::write(&file, &schema).unwrap();
        xvec(&["create", s(&b), "--schema", s(&file)]).run().ok();
        assert_eq!(xvec(&["schema", s(&b)]).run().ok().stdout, schema);
        // The fields and counts; bytes on disk may differ by a file's few bytes.
        let describe = |d: &Path| {
            let text = xvec(&["describe", s(d), "--mode", "line"]).run().ok().stdout.clone();
            text.rsplit_once(", generation").map(|(head, _)| head.to_string()).unwrap_or(text)
        };
        assert_eq!(describe(&b), describe(&a));
        assert_eq!(xvec(&["shell", s(&a), "-c", ".schema"]).run().ok().stdout, schema);
    }
}

/// `repair --schema` takes `xvec schema`'s output: with the only manifest cut inside its
/// schema, the saved schema brings back every document.
#[test]
fn repair_reads_the_schema_output() {
    let tmp = tempfile::tempdir().unwrap();
    let c = tmp.path().join("c");
    build(&c, SCHEMA, every_docs(false).into_iter().take(50).collect());
    let want = all_docs(&c);
    let file = tmp.path().join("schema.json");
    std::fs::write(&file, xvec(&["schema", s(&c)]).run().ok().stdout.as_bytes()).unwrap();
    let manifests: Vec<_> = std::fs::read_dir(&c)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_str().unwrap().starts_with("MANIFEST-"))
        .collect();
    assert_eq!(manifests.len(), 1, "{manifests:?}");
    let bytes = std::fs::read(&manifests[0]).unwrap();
    std::fs::write(&manifests[0], &bytes[..40]).unwrap();
    let run = xvec(&["repair", s(&c), "--yes"]).run();
    assert!(run.stderr.contains("give the schema"), "{run}");
    xvec(&["repair", s(&c), "--yes", "--schema", s(&file)]).run().ok();
    assert_same_docs(&all_docs(&c), &want, "repaired");
    assert_eq!(xvec(&["schema", s(&c)]).run().ok().stdout, std::fs::read_to_string(&file).unwrap());
}

/// jsonl, csv and parquet carry every field; export → import into a new collection gives
/// the same documents (f32s to the bit) and the same query results, with string keys
/// and with integer ones (an int64 `id` column in parquet).
#[test]
fn every_export_format_imports_back() {
    let tmp = tempfile::tempdir().unwrap();
    let schema_file = tmp.path().join("schema.json");
    for integer_keys in [false, true] {
        let src = tmp.path().join(format!("src{integer_keys}"));
        build(&src, SCHEMA, every_docs(integer_keys));
        xvec(&["optimize", s(&src), "--concurrency", "1"]).run().ok();
        std::fs::write(&schema_file, xvec(&["schema", s(&src)]).run().ok().stdout.as_bytes()).unwrap();
        let want = all_docs(&src);
        let want_answers = answers(&src, "emb", 16);
        let formats: &[&str] = if cfg!(feature = "parquet") { &["jsonl", "csv", "parquet"] } else { &["jsonl", "csv"] };
        for &format in formats {
            let file = tmp.path().join(format!("out{integer_keys}.{format}"));
            let dst = tmp.path().join(format!("{format}{integer_keys}"));
            let run = xvec(&["export", s(&src), "--format", format, "-o", s(&file)]).run();
            assert!(run.ok().stderr.contains(&format!("exported {ROWS} documents")), "{run}");
            xvec(&["create", s(&dst), "--schema", s(&schema_file)]).run().ok();
            xvec(&["import", s(&dst), s(&file)]).run().ok();
            assert_same_docs(&all_docs(&dst), &want, format);
            xvec(&["optimize", s(&dst), "--concurrency", "1"]).run().ok();
            assert_eq!(answers(&dst, "emb", 16), want_answers, "{format}");
        }
    }
}

/// npy and fvecs hold one vector field and its keys in FILE.ids; import reads them (from
/// --ids, or from FILE.ids by itself) back to the same vectors and the same query results. A parquet export of such a
/// collection is what VectorDBBench reads as `train.parquet` (`id` int64, `emb`).
#[test]
fn raw_vector_exports_import_back() {
    let tmp = tempfile::tempdir().unwrap();
    let schema = r#"{"name": "v", "fields": [{"name": "emb", "type": "vector_fp32", "dim": 24, "metric": "l2"}]}"#;
    let src = tmp.path().join("src");
    let docs: Vec<Doc> = random_vectors(3, 5000, 24)
        .into_iter()
        .enumerate()
        .map(|(i, v)| Doc::new(format!("{}", i * 3)).set("emb", v.into_iter().map(|x| x * 1e-3).collect::<Vec<_>>()))
        .collect();
    build(&src, schema, docs);
    let want = all_docs(&src);
    for format in ["npy", "fvecs"] {
        let file = tmp.path().join(format!("emb.{format}"));
        xvec(&["export", s(&src), "--format", format, "-o", s(&file)]).run().ok();
        let ids = tmp.path().join(format!("emb.{format}.ids"));
        let dst = tmp.path().join(format);
        xvec(&["create", s(&dst), "--vector", "emb:24:l2"]).run().ok();
        // npy names its keys file; fvecs finds it beside the vectors, as export wrote it.
        if format == "npy" {
            xvec(&["import", s(&dst), s(&file), "--ids", s(&ids)]).run().ok();
        } else {
            let run = xvec(&["import", s(&dst), s(&file)]).run();
            assert!(run.ok().stderr.contains(&format!("note: keys from {}", ids.display())), "{run}");
        }
        assert_same_docs(&all_docs(&dst), &want, format);
        assert_eq!(answers(&dst, "emb", 24), answers(&src, "emb", 24), "{format}");
    }
    #[cfg(feature = "parquet")]
    {
        let train = tmp.path().join("train.parquet");
        xvec(&["export", s(&src), "--format", "parquet", "-o", s(&train)]).run().ok();
        let pq = xvec_bench::parquet::read_vectors(&train).unwrap();
        assert_eq!((pq.ids.len(), pq.dim), (5000, 24));
        let first = want.iter().find(|d| d.key == pq.ids[0].to_string()).unwrap();
        assert_eq!(first.get("emb"), Some(&Value::VectorFp32(pq.data[..24].to_vec())));
    }
}

/// Export never ignores what it cannot do: `--mode` (a table mode) is refused with a hint
/// to `--format`, binary formats need a file, npy/fvecs cannot hold scalars or a missing
/// vector, and a key column may not shadow a field.
#[test]
fn export_refuses_what_a_format_cannot_hold() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    build(&src, SCHEMA, every_docs(false).into_iter().take(20).collect());
    let out = tmp.path().join("x.npy");
    let cases: [(&[&str], &str); 6] = [
        (&["--mode", "csv"], "--format"),
        (&["--format", "npy"], "pass -o FILE"),
        (&["--format", "npy", "-o", s(&out), "--fields", "s,emb"], "not the scalar fields s"),
        (&["--format", "fvecs", "-o", s(&out)], "several vector fields; pass --field"),
        (&["--format", "npy", "-o", s(&out), "--field", "half"], "has no `half`"),
        (&["--key-field", "s"], "also a field"),
    ];
    for (args, needle) in cases {
        let mut argv = vec!["export", s(&src)];
        argv.extend_from_slice(args);
        let run = xvec(&argv).run();
        assert_ne!(run.code, Some(0), "{run}");
        assert!(run.stderr.contains(needle), "{needle}: {run}");
    }
    let run = xvec(&["export", s(&src), "--format", "npy", "-o", s(&out), "--field", "small"]).run();
    assert!(run.ok().stderr.contains("note: only `small` is written; scalar fields s, s_null"), "{run}");
    assert_eq!(std::fs::read_to_string(tmp.path().join("x.npy.ids")).unwrap().lines().count(), 20);
}

/// `dump` prints one script holding the schema and the rows as data lines: piped into a
/// writable shell it gives the same schema, description, documents and query results, the
/// index rebuilt because the source had one. `dump -o OUTDIR` writes the script beside
/// schema.json and data.jsonl, and that script runs from any directory (its paths resolve
/// against its own); `.dump -o` in the shell writes the same files.
#[test]
fn dump_recreates_the_collection() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    build(&src, SCHEMA, every_docs(false));
    xvec(&["optimize", s(&src), "--concurrency", "1"]).run().ok();
    let describe = |d: &Path| xvec(&["describe", s(d)]).run().ok().stdout.clone();
    let same = |copy: &Path, what: &str| {
        assert_eq!(xvec(&["schema", s(copy)]).run().ok().stdout, xvec(&["schema", s(&src)]).run().ok().stdout);
        assert_eq!(describe(copy), describe(&src), "{what}");
        assert_same_docs(&all_docs(copy), &all_docs(&src), what);
        assert_eq!(answers(copy, "emb", 16), answers(&src, "emb", 16), "{what}");
        let graph = Collection::open(copy, &OpenOptions::read_only()).unwrap().memory().graph;
        assert!(graph > 0, "{what}: optimize rebuilt the graph");
    };

    let script = xvec(&["dump", s(&src)]).run().ok().stdout.clone();
    assert!(script.contains("create --schema -\n{"), "{script}");
    assert!(script.contains("\n\\.\nimport - --format jsonl --key-field _key\n{"), "{script}");
    assert!(script.ends_with("\\.\nflush\n# The source had built indexes (HNSW, Vamana or quantized codes): build them again.\noptimize\n"), "{script}");
    let piped = tmp.path().join("piped");
    xvec(&["shell", s(&piped), "--write"]).stdin(&script).run().ok();
    same(&piped, "dump | shell");
    let from_file = tmp.path().join("from-file");
    std::fs::write(tmp.path().join("copy.xvec"), &script).unwrap();
    xvec(&["shell", s(&from_file), "--write", "-f", "copy.xvec"]).cwd(tmp.path()).run().ok();
    assert_same_docs(&all_docs(&from_file), &all_docs(&src), "dump > file; shell -f file");

    let out = tmp.path().join("src.dump");
    let run = xvec(&["dump", s(&src), "-o", s(&out)]).run();
    assert!(run.ok().stderr.contains(&format!("dumped {ROWS} documents")), "{run}");
    let script = std::fs::read_to_string(out.join("dump.xvec")).unwrap();
    assert!(script.contains("create --schema schema.json\nimport data.jsonl --key-field _key\nflush\n"), "{script}");
    let elsewhere = tmp.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let copy = tmp.path().join("copy");
    xvec(&["shell", "../copy", "--write", "-f", "../src.dump/dump.xvec"]).cwd(&elsewhere).run().ok();
    same(&copy, "dump -o, run from another directory");
    let again = xvec(&["dump", s(&src), "-o", s(&out)]).run();
    assert!(again.code(1).stderr.contains("already holds a dump"), "{again}");
    let shell_dump = tmp.path().join("shell.dump");
    xvec(&["shell", s(&src), "-c", &format!(".dump -o {}", s(&shell_dump))]).run().ok();
    assert_eq!(std::fs::read_to_string(shell_dump.join("schema.json")).unwrap(), {
        std::fs::read_to_string(out.join("schema.json")).unwrap()
    });
}

/// Data lines in a script: a bad row is named by the script's line, a statement that
/// fails before reading its data has the data skipped (not run as statements), statements
/// after the terminator run, `-c` reads standard input, and `create --schema` takes JSON
/// inline or from `-`.
#[test]
fn scripts_carry_their_data_inline() {
    let tmp = tempfile::tempdir().unwrap();
    let script = "create --field lemma:string --vector emb:2:l2\n\
                  import - --format jsonl\n\
                  {\"id\": \"a\", \"lemma\": \"x\", \"emb\": [1, 0]}\n\
                  {\"id\": \"b\", \"lemma\": 7, \"emb\": [0, 1]}\n\
                  \\.\n\
                  count\n";
    std::fs::write(tmp.path().join("bad.xvec"), script).unwrap();
    let run = xvec(&["shell", "c", "--write", "-f", "bad.xvec", "--keep-going"]).cwd(tmp.path()).run();
    assert!(run.code(1).stderr.contains("bad.xvec:4: error: key \"b\": field `lemma` expects a string"), "{run}");
    assert_eq!(run.stdout, "count\n1\n", "the count after the data ran: {run}");

    let skipped = "import - --format jsonl\n{\"id\": \"c\"}\ncount\n\\.\ncount\n";
    let run = xvec(&["shell", s(&tmp.path().join("none")), "--write", "--keep-going"]).stdin(skipped).run();
    assert_eq!(run.code, Some(1), "{run}");
    assert!(!run.stderr.contains("<stdin>:2") && !run.stderr.contains("<stdin>:3"), "data ran as statements: {run}");
    assert!(run.stderr.contains("<stdin>:5: error"), "the statement after the data ran: {run}");

    let c = tmp.path().join("c");
    let run = xvec(&["shell", s(&c), "--write", "-c", "import - --format jsonl", "-c", "count"])
        .stdin("{\"id\": \"z\", \"lemma\": \"q\", \"emb\": [1, 1]}\n")
        .run();
    assert_eq!(run.ok().stdout, "count\n2\n", "{run}");

    let inline = r#"{"name": "d", "fields": [{"name": "v", "type": "vector_fp32", "dim": 2, "metric": "l2"}]}"#;
    let d = tmp.path().join("d");
    xvec(&["create", s(&d), "--schema", inline]).run().ok();
    let e = tmp.path().join("e");
    xvec(&["create", s(&e), "--schema", "-"]).stdin(inline).run().ok();
    assert_eq!(xvec(&["schema", s(&d)]).run().ok().stdout, xvec(&["schema", s(&e)]).run().ok().stdout);
    let run = xvec(&["create", s(&tmp.path().join("f")), "--schema", r#"{"name": "f", "fields": ["#]).run();
    assert!(run.code(1).stderr.contains("--schema: schema JSON: EOF while parsing a list at line 1 column"), "{run}");
}

/// Every text output mode prints stored f32s (vectors and float fields) as decimals that
/// read back to the same bits, and shortest: a 16-d vector stays short.
#[test]
fn text_modes_print_f32_that_read_back_exactly() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    let docs = every_docs(false);
    let key = docs[7].key.clone();
    build(&src, SCHEMA, docs);
    let stored = all_docs(&src).into_iter().find(|d| d.key == key).unwrap();
    let (Some(Value::VectorFp32(emb)), Some(Value::Float(f))) = (stored.get("emb"), stored.get("f")) else {
        panic!("stored doc")
    };
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    let parse = |text: &str| -> Vec<f32> {
        text.trim_matches(|c| c == '[' || c == ']' || c == '"')
            .split(',')
            .map(|x| x.trim().parse::<f64>().unwrap() as f32)
            .collect()
    };
    for mode in ["jsonl", "json", "csv", "tsv", "line"] {
        let run = xvec(&["fetch", s(&src), &key, "--fields", "f,emb", "--mode", mode]).run();
        let text = run.ok().stdout.clone();
        let (f_text, emb_text) = match mode {
            "jsonl" | "json" => {
                let v: serde_json::Value = serde_json::from_str(&text).unwrap();
                let row = if mode == "json" { v[0].clone() } else { v };
                (row["f"].to_string(), row["emb"].to_string())
            }
            "line" => {
                let get = |name: &str| {
                    text.lines().find_map(|l| l.trim().strip_prefix(&format!("{name} = "))).unwrap().to_string()
                };
                (get("f"), String::new())
            }
            _ => {
                let mut reader = csv::ReaderBuilder::new()
                    .delimiter(if mode == "csv" { b',' } else { b'\t' })
                    .quoting(mode == "csv")
                    .from_reader(text.as_bytes());
                let row = reader.records().next().unwrap().unwrap();
                (row[1].to_string(), row[2].to_string())
            }
        };
        assert_eq!((f_text.parse::<f64>().unwrap() as f32).to_bits(), f.to_bits(), "{mode}: {f_text}");
        if !emb_text.is_empty() {
            assert_eq!(bits(&parse(&emb_text)), bits(emb), "{mode}: {emb_text}");
            assert!(emb_text.len() < 16 * 14, "{mode}: not shortest: {emb_text}");
        }
    }
}
