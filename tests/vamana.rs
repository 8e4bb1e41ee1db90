//! Vamana (DiskANN) index: recall against brute force for every representation and
//! metric, determinism of construction, persistence, snapshot isolation, a corrupted
//! graph on open, and filters at several selectivities.

use std::path::{Path, PathBuf};

use xvec::{Collection, Doc, Hit, Metric, OpenOptions, OptimizeOptions, Query, Schema};

use crate::index::clustered;
use crate::util::brute_force;

/// Small graphs keep the debug build quick; recall stays high on clustered data.
const PARAMS: &str = r#""type":"vamana","degree":16,"build_list":32"#;

fn schema(metric: Metric, dim: usize, extra: &str) -> Schema {
    let text = format!(
        r#"{{"name":"vm","fields":[{{"name":"g","type":"int32"}},{{"name":"v","type":"vector_fp32","dim":{dim},"metric":"{}","index":{{{PARAMS}{extra}}}}}]}}"#,
        metric.name()
    );
    Schema::from_json(&text).unwrap()
}

fn docs(data: &[Vec<f32>], from: usize) -> Vec<Doc> {
    data.iter()
        .enumerate()
        .map(|(i, v)| Doc::new(format!("{}", from + i)).set("g", ((from + i) % 1000) as i32).set("v", v.clone()))
        .collect()
}

/// Creates a collection (segments mapped or read into memory), loads `data` and optimizes
/// it with `threads` build threads.
fn build(dir: &Path, schema: Schema, data: &[Vec<f32>], threads: usize, mmap: bool) -> Collection {
    drop(Collection::create(dir, schema, Default::default()).unwrap());
    let coll = Collection::open(dir, &OpenOptions::writable().mmap(mmap)).unwrap();
    coll.insert(docs(data, 0)).unwrap();
    coll.optimize(&OptimizeOptions::default().concurrency(threads)).unwrap();
    coll
}

fn index_file(dir: &Path) -> PathBuf {
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "idx"))
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
    names.pop().unwrap()
}

fn keys(hits: &[Hit]) -> Vec<usize> {
    hits.iter().map(|h| h.key.parse().unwrap()).collect()
}

fn recall(coll: &Collection, metric: Metric, data: &[Vec<f32>], queries: &[Vec<f32>], k: usize, list: usize) -> f64 {
    let mut hit = 0;
    for q in queries {
        let got = keys(&coll.query(&Query::vector(q.clone()).k(k).ef(list)).unwrap());
        let want = brute_force(metric, data, q, k);
        hit += got.iter().filter(|g| want.contains(g)).count();
    }
    hit as f64 / (queries.len() * k) as f64
}

#[test]
fn vamana_recall_against_brute_force_for_every_representation_and_metric() {
    let (n, dim) = (1500, 32);
    let data = clustered(21, n, dim);
    let queries = clustered(22, 30, dim);
    // A list of k = 10 keeps the search narrow (a graph that was never built scores ~0.1).
    let cases: &[(&str, f64)] = &[
        ("", 0.95),
        (r#","quantize":"fp16""#, 0.95),
        (r#","quantize":"int8","refine":4"#, 0.95),
        (r#","quantize":"int4","refine":8"#, 0.93),
        (r#","quantize":"rabitq","bits":1,"refine":10"#, 0.93),
        (r#","quantize":"rabitq","bits":4,"refine":4"#, 0.93),
        (r#","quantize":"rabitq","bits":7,"refine":2"#, 0.95),
    ];
    for &(extra, min) in cases {
        for metric in [Metric::L2, Metric::Ip, Metric::Cosine] {
            let dir = tempfile::tempdir().unwrap();
            let coll = build(dir.path(), schema(metric, dim, extra), &data, 2, true);
            let r = recall(&coll, metric, &data, &queries, 10, 10);
            assert!(r >= min, "vamana{extra} {metric:?}: recall@10 {r:.3} < {min}");
            // The index saved by optimize, reopened read-only, answers the same.
            let before: Vec<Vec<Hit>> =
                queries.iter().map(|q| coll.query(&Query::vector(q.clone()).k(10).ef(48)).unwrap()).collect();
            drop(coll);
            let ro = Collection::open(dir.path(), &OpenOptions::read_only()).unwrap();
            for (q, want) in queries.iter().zip(&before) {
                assert_eq!(
                    &ro.query(&Query::vector(q.clone()).k(10).ef(48)).unwrap(),
                    want,
                    "vamana{extra} {metric:?}"
                );
            }
        }
    }
}

/// One seed builds one graph: at one thread and at two (the batches do not depend on
/// thread timing), and from mapped or owned segment rows.
#[test]
fn one_seed_builds_one_index_file() {
    let data = clustered(23, 1200, 16);
    let bytes = |threads: usize, mmap: bool| {
        let dir = tempfile::tempdir().unwrap();
        drop(build(dir.path(), schema(Metric::Cosine, 16, r#","quantize":"int8","seed":11"#), &data, threads, mmap));
        std::fs::read(index_file(dir.path())).unwrap()
    };
    let first = bytes(1, true);
    assert_eq!(first, bytes(1, true), "one thread, mapped");
    assert_eq!(first, bytes(1, false), "one thread, owned rows");
    assert_eq!(first, bytes(2, true), "two threads");
    let other = {
        let dir = tempfile::tempdir().unwrap();
        drop(build(dir.path(), schema(Metric::Cosine, 16, r#","quantize":"int8","seed":12"#), &data, 1, true));
        std::fs::read(index_file(dir.path())).unwrap()
    };
    assert_ne!(first, other, "another seed, another graph");
}

/// Writes, deletes and a new optimize after a query pinned a snapshot leave what that
/// snapshot answers unchanged; the live collection sees the new state.
#[test]
fn mutation_after_build_does_not_change_an_open_snapshot() {
    let data = clustered(24, 1200, 16);
    let dir = tempfile::tempdir().unwrap();
    let coll = build(dir.path(), schema(Metric::L2, 16, ""), &data, 2, true);
    let queries = clustered(25, 10, 16);
    let snap = coll.snapshot();
    let ask = |q: &Vec<f32>| Query::vector(q.clone()).k(10);
    let before: Vec<Vec<Hit>> = queries.iter().map(|q| snap.query(&ask(q)).unwrap()).collect();
    // Near-copies of each query's best hit, and the best hits deleted.
    let best: Vec<String> = before.iter().map(|h| h[0].key.clone()).collect();
    let near: Vec<Vec<f32>> = queries.iter().map(|q| q.iter().map(|x| x + 1e-4).collect()).collect();
    coll.insert(docs(&near, 5000)).unwrap();
    coll.delete(&best.iter().map(String::as_str).collect::<Vec<_>>()).unwrap();
    for (q, want) in queries.iter().zip(&before) {
        assert_eq!(&snap.query(&ask(q)).unwrap(), want);
        let live = coll.query(&ask(q)).unwrap();
        assert!(live[0].key.parse::<usize>().unwrap() >= 5000, "the live view sees the new rows");
        assert!(!live.iter().any(|h| best.contains(&h.key)), "the live view hides deleted rows");
    }
    assert!(coll.optimize(&OptimizeOptions::default()).unwrap().changed);
    for (q, want) in queries.iter().zip(&before) {
        assert_eq!(&snap.query(&ask(q)).unwrap(), want, "after a new optimize");
    }
}

/// The section table entry of section kind `kind`: (entry offset, data offset, length).
fn section(file: &[u8], kind: u16) -> (usize, usize, usize) {
    let count = u32::from_le_bytes(file[32..36].try_into().unwrap()) as usize;
    (0..count)
        .map(|i| 40 + 32 * i)
        .find(|&e| u16::from_le_bytes([file[e], file[e + 1]]) == kind)
        .map(|e| {
            let word = |at: usize| u64::from_le_bytes(file[at..at + 8].try_into().unwrap()) as usize;
            (e, word(e + 8), word(e + 16))
        })
        .expect("adjacency section")
}

/// Recomputes the checksums of the section whose table entry is at `entry` (its block
/// CRCs and their list's CRC when it is blocked, else its one CRC), then the table's.
fn reseal(file: &mut [u8], entry: usize) {
    let u32_at = |f: &[u8], at: usize| u32::from_le_bytes(f[at..at + 4].try_into().unwrap());
    let u64_at = |f: &[u8], at: usize| u64::from_le_bytes(f[at..at + 8].try_into().unwrap()) as usize;
    let count = u32_at(file, 32) as usize;
    let (block, at, len) = (u32_at(file, entry + 4) as usize, u64_at(file, entry + 8), u64_at(file, entry + 16));
    let crc = if block == 0 {
        crc32c::crc32c(&file[at..at + len])
    } else {
        // The block table follows the section table, lists in table order.
        let mut list_at = 40 + 32 * count;
        for e in (40..entry).step_by(32) {
            let b = u32_at(file, e + 4) as usize;
            if b > 0 {
                list_at += 4 * u64_at(file, e + 16).div_ceil(b);
            }
        }
        let crcs: Vec<u32> = file[at..at + len].chunks(block).map(crc32c::crc32c).collect();
        let mut list = Vec::new();
        for (j, c) in crcs.iter().enumerate() {
            file[list_at + 4 * j..list_at + 4 * j + 4].copy_from_slice(&c.to_le_bytes());
            list.extend_from_slice(&c.to_le_bytes());
        }
        crc32c::crc32c(&list)
    };
    file[entry + 24..entry + 28].copy_from_slice(&crc.to_le_bytes());
    let table = crc32c::crc32c(&file[40..40 + 32 * count]);
    file[36..40].copy_from_slice(&table.to_le_bytes());
}

/// A neighbour id out of range, with checksums made to match, is found at open — not a
/// panic at query time: the index is left out (the segment is searched exactly, stats
/// name the file), and verify reports the file, the offset of the bad word and what is
/// wrong.
#[test]
fn corrupted_adjacency_entry_is_reported_on_open() {
    let data = clustered(26, 1100, 8);
    let dir = tempfile::tempdir().unwrap();
    drop(build(dir.path(), schema(Metric::L2, 8, ""), &data, 2, true));
    let path = index_file(dir.path());
    let mut file = std::fs::read(&path).unwrap();
    let (entry, at, len) = section(&file, 8);
    let stride = 17;
    assert_eq!(len, 1100 * stride * 4, "1100 nodes × (count + 16 slots)");
    // Node 7's first neighbour.
    let word = at + (7 * stride + 1) * 4;
    assert!(u32::from_le_bytes(file[at + 7 * stride * 4..][..4].try_into().unwrap()) > 0);
    file[word..word + 4].copy_from_slice(&5000u32.to_le_bytes());
    reseal(&mut file, entry);
    std::fs::write(&path, &file).unwrap();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    for mmap in [true, false] {
        let c = Collection::open(dir.path(), &OpenOptions::read_only().mmap(mmap)).unwrap();
        let degraded = c.stats().degraded();
        assert!(degraded.len() == 1 && degraded[0].contains(&name), "{degraded:?}");
        let hits = c.query(&Query::vector(data[7].clone()).k(5)).unwrap();
        assert_eq!(hits[0].key, format!("{}", 7), "an exact search finds the row itself first");
    }
    let report = xvec::verify::run(dir.path(), &xvec::verify::VerifyOptions::default()).unwrap();
    let text = format!("{:?}", report.findings);
    assert!(!report.is_clean() && text.contains(&name), "{text}");
    assert!(text.contains("node 7: neighbour 5000 is out of range for 1100 nodes"), "{text}");
}

#[test]
fn filtered_search_is_correct_at_every_selectivity() {
    let (n, dim) = (3000, 16);
    let data = clustered(27, n, dim);
    let queries = clustered(28, 15, dim);
    let dir = tempfile::tempdir().unwrap();
    let coll = build(dir.path(), schema(Metric::Cosine, dim, ""), &data, 2, true);
    // g = i % 1000: "g < 1" keeps 0.1%, "g < 10" 1%, "g < 100" 10%, "g < 500" 50%. The
    // cost model answers the sparse ones exactly; 50% walks the graph through
    // non-matching nodes.
    for (filter, modulo, min_recall) in
        [("g < 1", 1, 1.0), ("g < 10", 10, 1.0), ("g < 100", 100, 0.9), ("g < 500", 500, 0.9)]
    {
        let idx: Vec<usize> = (0..n).filter(|i| i % 1000 < modulo).collect();
        let sub: Vec<Vec<f32>> = idx.iter().map(|&i| data[i].clone()).collect();
        let (mut hit, mut total) = (0, 0);
        for q in &queries {
            let got = keys(&coll.query(&Query::vector(q.clone()).k(10).ef(64).filter(filter)).unwrap());
            assert!(got.iter().all(|&i| i % 1000 < modulo), "{filter}: result outside the filter");
            let want: Vec<usize> = brute_force(Metric::Cosine, &sub, q, 10).into_iter().map(|j| idx[j]).collect();
            assert_eq!(got.len(), want.len(), "{filter}");
            hit += got.iter().filter(|g| want.contains(g)).count();
            total += want.len();
        }
        let r = hit as f64 / total as f64;
        assert!(r >= min_recall, "{filter}: recall {r:.3} < {min_recall}");
    }
}

/// The query list is the Vamana `ef`: the index default when not given, at least k when
/// given, and a clear error below k. Tiny segments (one node, two) build and search.
#[test]
fn query_list_rules_and_tiny_segments() {
    let data = clustered(29, 3, 8);
    let dir = tempfile::tempdir().unwrap();
    let coll = build(dir.path(), schema(Metric::L2, 8, r#","query_list":2"#), &data[..1], 1, true);
    let hits = coll.query(&Query::vector(data[0].clone()).k(5)).unwrap();
    assert_eq!(keys(&hits), [0], "the default query list is raised to k");
    let err = coll.query(&Query::vector(data[0].clone()).k(10).ef(4)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "query list 4 is smaller than k 10; a Vamana query list (the query's ef) must be at least k"
    );
    coll.insert(docs(&data[1..], 1)).unwrap();
    coll.optimize(&OptimizeOptions::default().concurrency(1)).unwrap();
    let hits = coll.query(&Query::vector(data[2].clone()).k(3)).unwrap();
    assert_eq!(keys(&hits), brute_force(Metric::L2, &data, &data[2], 3));
}

/// Fields stored as FP16 or INT8 build (FP16 rows widened once per anchor, INT8 scored in
/// integers) and search their own stored values.
#[test]
fn fp16_and_int8_fields_build_and_search() {
    use xvec::f16;
    let (n, dim) = (1200, 16);
    let floats = clustered(30, n, dim);
    let queries = clustered(31, 20, dim);
    for (ty, metric) in [("vector_fp16", Metric::L2), ("vector_fp16", Metric::Cosine), ("vector_int8", Metric::Ip)] {
        let stored = |v: &Vec<f32>| -> Vec<f32> {
            match ty {
                "vector_fp16" => v.iter().map(|&x| f16::from_f32(x).to_f32()).collect(),
                _ => v.iter().map(|&x| (x * 60.0).round().clamp(-128.0, 127.0)).collect(),
            }
        };
        let data: Vec<Vec<f32>> = floats.iter().map(stored).collect();
        let text = format!(
            r#"{{"name":"vm","fields":[{{"name":"v","type":"{ty}","dim":{dim},"metric":"{}","index":{{{PARAMS}}}}}]}}"#,
            metric.name()
        );
        let dir = tempfile::tempdir().unwrap();
        drop(Collection::create(dir.path(), Schema::from_json(&text).unwrap(), Default::default()).unwrap());
        let coll = Collection::open(dir.path(), &OpenOptions::writable()).unwrap();
        let docs: Vec<Doc> = data
            .iter()
            .enumerate()
            .map(|(i, v)| match ty {
                "vector_fp16" => {
                    Doc::new(format!("{i}")).set("v", v.iter().map(|&x| f16::from_f32(x)).collect::<Vec<_>>())
                }
                _ => Doc::new(format!("{i}")).set("v", v.iter().map(|&x| x as i8).collect::<Vec<i8>>()),
            })
            .collect();
        coll.insert(docs).unwrap();
        coll.optimize(&OptimizeOptions::default().concurrency(2)).unwrap();
        let queries: Vec<Vec<f32>> = queries.iter().map(stored).collect();
        let r = recall(&coll, metric, &data, &queries, 10, 10);
        assert!(r >= 0.9, "{ty} {metric:?}: recall@10 {r:.3} < 0.9");
    }
}
