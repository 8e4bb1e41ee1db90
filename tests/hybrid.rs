//! Hybrid search through the public API: BM25 over a full-text field against a reference
//! written here, the same scores whatever the segments, deletes left out of the
//! statistics, and fusion against hand-computed RRF and weighted sums.

use std::collections::HashMap;

use xvec::{
    Branch, Collection, CollectionOptions, Doc, Error, Field, Fusion, HybridQuery, Metric, OptimizeOptions, Query,
    Ranked, Ranking, ScalarType, Schema, TextIndex, TextStats, VectorType,
};

const CORPUS: [&str; 8] = [
    "the quick brown fox jumps over the lazy dog",
    "a dog is a loyal companion and a good dog",
    "foxes are wild animals related to dogs",
    "the cat sat on the mat",
    "quick quick quick",
    "brown bears and brown dogs",
    "nothing to see here",
    "a lazy afternoon with a lazy cat",
];

fn schema() -> Schema {
    let fts: TextIndex =
        TextIndex::new(serde_json::from_str(r#"{"tokenizer":"standard","filters":["lowercase"]}"#).unwrap());
    Schema::builder("h")
        .field(Field::scalar("text", ScalarType::String).text_index(fts).nullable(true))
        .field(Field::scalar("n", ScalarType::Int32))
        .field(Field::vector("v", VectorType::Fp32, 2, Metric::L2))
        .build()
        .unwrap()
}

fn doc(i: usize) -> Doc {
    Doc::new(format!("d{i}")).set("text", CORPUS[i]).set("n", i as i32).set("v", vec![i as f32, 0.0])
}

/// BM25 as Lucene defines it (k1 1.2, b 0.75), over the live documents' lowercase words.
fn reference(docs: &[&str], query: &str) -> Vec<(String, f64)> {
    let words = |t: &str| t.split_whitespace().map(str::to_lowercase).collect::<Vec<_>>();
    let n = docs.len() as f64;
    let avg = docs.iter().map(|d| words(d).len()).sum::<usize>() as f64 / n;
    let mut terms = words(query);
    terms.dedup();
    let dfs: Vec<f64> = terms.iter().map(|t| docs.iter().filter(|d| words(d).contains(t)).count() as f64).collect();
    let mut out: Vec<(String, f64)> = Vec::new();
    for (i, d) in docs.iter().enumerate() {
        let w = words(d);
        let mut score = 0.0;
        for (t, &df) in terms.iter().zip(&dfs) {
            let tf = w.iter().filter(|x| *x == t).count() as f64;
            if tf == 0.0 {
                continue;
            }
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            score += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * w.len() as f64 / avg));
        }
        if score > 0.0 {
            out.push((format!("d{i}"), score));
        }
    }
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    out
}

fn text_hits(coll: &Collection, text: &str, k: usize) -> Vec<(String, f32)> {
    let q = HybridQuery::new(vec![Branch::text(text, k)]).k(k);
    coll.hybrid(&q).unwrap().into_iter().map(|h| (h.key, h.branches[0].unwrap().score)).collect()
}

fn assert_scores(got: &[(String, f32)], want: &[(String, f64)], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: {got:?} vs {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert_eq!(g.0, w.0, "{what}: {got:?} vs {want:?}");
        assert!((g.1 as f64 - w.1).abs() < 1e-5 * w.1.max(1.0), "{what}: {} scores {} vs {}", g.0, g.1, w.1);
    }
}

#[test]
fn bm25_matches_the_reference_in_one_segment_or_five_and_without_deleted_rows() {
    for query in ["quick dog", "lazy cat", "brown", "the", "zebra"] {
        let want = reference(&CORPUS, query);
        let mut scores: Vec<Vec<(String, f32)>> = Vec::new();
        for per_segment in [100, 2] {
            let dir = tempfile::tempdir().unwrap();
            let options = CollectionOptions::default().max_docs_per_segment(per_segment);
            let coll = Collection::create(dir.path(), schema(), options).unwrap();
            coll.insert((0..CORPUS.len()).map(doc).collect()).unwrap();
            // The memtable is searched exactly as well: before the flush, then in segments.
            assert_scores(&text_hits(&coll, query, 10), &want, &format!("{query}: memtable"));
            coll.flush().unwrap();
            coll.optimize(&OptimizeOptions::default()).unwrap();
            let got = text_hits(&coll, query, 10);
            assert_scores(&got, &want, &format!("{query}: {per_segment} rows a segment"));
            scores.push(got);
        }
        for (a, b) in scores[0].iter().zip(&scores[1]) {
            assert!((a.1 - b.1).abs() <= 1e-6 * a.1.max(1.0), "{query}: one segment {a:?}, five {b:?}");
        }
    }
    // Deleted and null texts count in no statistic.
    let dir = tempfile::tempdir().unwrap();
    let coll = Collection::create(dir.path(), schema(), Default::default()).unwrap();
    coll.insert((0..CORPUS.len()).map(doc).collect()).unwrap();
    coll.insert(vec![Doc::new("empty").set("n", 99).set("v", vec![0.0f32, 0.0])]).unwrap();
    coll.flush().unwrap();
    coll.delete(&["d1", "d5"]).unwrap();
    let live: Vec<&str> = CORPUS.iter().enumerate().filter(|(i, _)| ![1, 5].contains(i)).map(|(_, t)| *t).collect();
    let want: Vec<(String, f64)> = reference(&live, "brown dog")
        .into_iter()
        .map(|(k, s)| {
            let i: usize = k[1..].parse().unwrap();
            let original = CORPUS.iter().position(|t| *t == live[i]).unwrap();
            (format!("d{original}"), s)
        })
        .collect();
    assert_scores(&text_hits(&coll, "brown dog", 10), &want, "after deletes");
}

#[test]
fn indexed_segments_the_memtable_and_deletes_rank_as_the_reference() {
    // 1,500 texts over a skewed vocabulary: three segments searched through their
    // full-text index files, 300 rows in the memtable scanned, 150 rows deleted from both.
    let mut seed = 7u64;
    let mut next = move |n: u64| {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) % n
    };
    let texts: Vec<String> = (0..1500)
        .map(|_| {
            let len = 1 + next(30);
            (0..len)
                .map(|_| {
                    let spread = 1 + next(80);
                    format!("w{}", next(spread))
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let doc = |i: usize| {
        Doc::new(format!("d{i}")).set("text", texts[i].as_str()).set("n", i as i32).set("v", vec![0.0f32, 0.0])
    };
    let dir = tempfile::tempdir().unwrap();
    let coll =
        Collection::create(dir.path(), schema(), CollectionOptions::default().max_docs_per_segment(400)).unwrap();
    coll.insert((0..1200).map(doc).collect()).unwrap();
    coll.flush().unwrap();
    coll.optimize(&OptimizeOptions::default()).unwrap();
    coll.insert((1200..1500).map(doc).collect()).unwrap();
    let deleted: Vec<String> = (0..1500).step_by(10).map(|i| format!("d{i}")).collect();
    coll.delete(&deleted.iter().map(String::as_str).collect::<Vec<_>>()).unwrap();
    let files = std::fs::read_dir(dir.path())
        .unwrap()
        .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().ends_with("-fts.idx"));
    assert_eq!(files.count(), 3, "each segment has its full-text index");
    let live: Vec<usize> = (0..1500).filter(|i| i % 10 != 0).collect();
    let live_texts: Vec<&str> = live.iter().map(|&i| texts[i].as_str()).collect();
    for q in 0..40 {
        let query: Vec<String> = (0..1 + q % 4).map(|j| format!("w{}", (q * 7 + j * 13) % 90)).collect();
        let query = query.join(" ");
        let want: HashMap<String, f64> = reference(&live_texts, &query)
            .into_iter()
            .map(|(k, s)| (format!("d{}", live[k[1..].parse::<usize>().unwrap()]), s))
            .collect();
        let mut best: Vec<f64> = want.values().copied().collect();
        best.sort_by(|a, b| b.total_cmp(a));
        let got = text_hits(&coll, &query, 20);
        assert_eq!(got.len(), best.len().min(20), "{query}");
        for ((key, score), w) in got.iter().zip(&best) {
            let close = |x: f64| (*score as f64 - x).abs() < 1e-5 * x.max(1.0);
            assert!(close(*w), "{query}: {key} scores {score}, the reference's rank holds {w}");
            assert!(close(want[key]), "{query}: {key} scores {score}, the reference {}", want[key]);
        }
    }
}

#[test]
fn a_filter_narrows_the_hits_but_not_the_statistics() {
    let dir = tempfile::tempdir().unwrap();
    let coll = Collection::create(dir.path(), schema(), Default::default()).unwrap();
    coll.insert((0..CORPUS.len()).map(doc).collect()).unwrap();
    let all: HashMap<String, f64> = reference(&CORPUS, "lazy cat").into_iter().collect();
    let q = HybridQuery::new(vec![Branch::text("lazy cat", 10)]).filter("n >= 2");
    let hits = coll.hybrid(&q).unwrap();
    assert_eq!(hits.iter().map(|h| h.key.as_str()).collect::<Vec<_>>(), ["d7", "d3"]);
    for h in hits {
        let n: usize = h.key[1..].parse().unwrap();
        assert!(n >= 2, "{} is filtered out", h.key);
        let score = h.branches[0].unwrap().score as f64;
        assert!((score - all[&h.key]).abs() < 1e-5, "{}: {score} vs {}", h.key, all[&h.key]);
    }
}

#[test]
fn fusion_equals_hand_computed_rrf_and_weighted_sums() {
    let dir = tempfile::tempdir().unwrap();
    let coll = Collection::create(dir.path(), schema(), Default::default()).unwrap();
    coll.insert((0..CORPUS.len()).map(doc).collect()).unwrap();
    // Dense: nearest to (4.2, 0) under L2: d4, d5, d3, d6, d2 (distances 0.04, 0.64, 1.44, 3.24, 4.84).
    let dense = Branch::Dense(Query::vector(vec![4.2, 0.0]).k(5).field("v"));
    let text = Branch::text("quick dog", 5);
    let keys = Branch::Keys(vec!["d6".into(), "missing".into(), "d0".into()]);
    let text_rank: Vec<String> = reference(&CORPUS, "quick dog").into_iter().take(5).map(|(k, _)| k).collect();
    let dense_rank = ["d4", "d5", "d3", "d6", "d2"];
    let key_rank = ["d6", "d0"];
    let rrf = |key: &str, k: f64| -> f64 {
        [&dense_rank[..], &text_rank.iter().map(String::as_str).collect::<Vec<_>>()[..], &key_rank[..]]
            .iter()
            .filter_map(|r| r.iter().position(|x| *x == key))
            .map(|p| 1.0 / (k + p as f64 + 1.0))
            .sum()
    };
    let q = HybridQuery::new(vec![dense.clone(), text.clone(), keys.clone()]).k(20);
    let hits = coll.hybrid(&q).unwrap();
    let mut want: Vec<(String, f64)> = (0..CORPUS.len())
        .map(|i| format!("d{i}"))
        .map(|k| {
            let s = rrf(&k, 60.0);
            (k, s)
        })
        .filter(|(_, s)| *s > 0.0)
        .collect();
    want.sort_by(|a, b| b.1.total_cmp(&a.1));
    assert_eq!(hits.len(), want.len());
    for (h, (key, score)) in hits.iter().zip(&want) {
        assert!((h.score as f64 - score).abs() < 1e-6, "{}: {} vs {key} {score}", h.key, h.score);
    }
    // Keys: in the order given, once each, under the filter.
    let keys = Branch::Keys(["d6", "d0", "d6", "missing", "d3"].map(String::from).to_vec());
    let got: Vec<String> =
        coll.hybrid(&HybridQuery::new(vec![keys]).filter("n >= 3")).unwrap().into_iter().map(|h| h.key).collect();
    assert_eq!(got, ["d6", "d3"]);
    let d4 = hits.iter().find(|h| h.key == "d4").unwrap();
    assert_eq!(d4.branches[0].map(|b| b.rank), Some(1));
    assert_eq!(d4.branches[2], None, "d4 is not among the keys");
    assert!((d4.branches[0].unwrap().score - 0.04).abs() < 1e-5, "L2 distance kept as the dense score");

    // Weighted: each branch min-max scaled (L2: the nearest is 1), then 0.7 · dense + 0.3 · text.
    let q = HybridQuery::new(vec![dense, text]).k(20).fusion(Fusion::Weighted(vec![0.7, 0.3]));
    let hits = coll.hybrid(&q).unwrap();
    let dist = |k: &str| -> Option<f64> {
        let i: f64 = k[1..].parse().unwrap();
        dense_rank.contains(&k).then_some((i - 4.2) * (i - 4.2))
    };
    let text_scores: HashMap<String, f64> = reference(&CORPUS, "quick dog").into_iter().take(5).collect();
    let (tlo, thi) = text_scores.values().fold((f64::MAX, f64::MIN), |(l, h), &s| (l.min(s), h.max(s)));
    for h in &hits {
        let d = dist(&h.key).map_or(0.0, |d| (4.84 - d) / (4.84 - 0.04));
        let t = text_scores.get(&h.key).map_or(0.0, |s| (s - tlo) / (thi - tlo));
        let want = 0.7 * d + 0.3 * t;
        assert!((h.score as f64 - want).abs() < 1e-5, "{}: {} vs {want}", h.key, h.score);
    }
    assert!(hits.windows(2).all(|w| w[0].score >= w[1].score));
}

#[test]
fn bad_hybrid_queries_are_refused_with_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let coll = Collection::create(dir.path(), schema(), Default::default()).unwrap();
    coll.insert((0..3).map(doc).collect()).unwrap();
    let err = |q: HybridQuery| -> String {
        let e: Error = coll.hybrid(&q).unwrap_err();
        e.to_string()
    };
    assert!(err(HybridQuery::new(vec![])).contains("0 branches"));
    let text = || Branch::text("dog", 5);
    assert!(err(HybridQuery::new(vec![text()]).fusion(Fusion::Weighted(vec![1.0, 2.0]))).contains("2 weights for 1"));
    assert!(err(HybridQuery::new(vec![text()]).fusion(Fusion::Weighted(vec![f32::NAN]))).contains("finite"));
    assert!(err(HybridQuery::new(vec![text()]).fusion(Fusion::Rrf { k: 0.0 })).contains("RRF k 0"));
    let q = HybridQuery::new(vec![Branch::text_in(vec![xvec::TextField::new("n")], "x", 5)]);
    assert!(err(q).contains("no full-text field named `n`"));
    let q = HybridQuery::new(vec![Branch::Dense(Query::vector(vec![1.0]).field("v"))]);
    assert!(err(q).contains("dense branch"));
    assert!(err(HybridQuery::new(vec![text()]).filter("nope = 1")).contains("nope"));
    let many = (0..100).map(|i| format!("w{i}")).collect::<Vec<_>>().join(" ");
    assert!(err(HybridQuery::new(vec![Branch::text(many, 5)])).contains("at most 64"));
    let no_text = Schema::builder("p").field(Field::vector("v", VectorType::Fp32, 2, Metric::L2)).build().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let plain = Collection::create(dir.path(), no_text, Default::default()).unwrap();
    let e = plain.hybrid(&HybridQuery::new(vec![text()])).unwrap_err().to_string();
    assert!(e.contains("no full-text field"), "{e}");
    let bad = Schema::builder("b")
        .field(Field::scalar("n", ScalarType::Int32).text_index(TextIndex::new(Default::default())))
        .build()
        .unwrap_err()
        .to_string();
    assert!(bad.contains("needs a string field"), "{bad}");
}

#[test]
fn match_keeps_rows_holding_every_word_phrase_and_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let coll = Collection::create(dir.path(), schema(), Default::default()).unwrap();
    coll.insert((0..CORPUS.len()).map(doc).collect()).unwrap();
    let keys = |filter: &str| -> Vec<String> {
        let mut k = coll.snapshot().keys_where(Some(filter)).unwrap();
        k.sort();
        k
    };
    // Scanned in the memtable, then read from the segment's full-text index.
    for flushed in [false, true] {
        if flushed {
            coll.flush().unwrap();
            let q = Query::vector(vec![0.0, 0.0]).k(8).filter("text MATCH '\"lazy dog\" dog*'");
            let access: Vec<xvec::Access> =
                coll.snapshot().explain(&q).unwrap().sources.iter().flat_map(|s| &s.leaves).map(|l| l.access).collect();
            assert_eq!(access, [xvec::Access::FullText], "MATCH reads the segment's postings");
        }
        assert_eq!(keys("text MATCH 'dog'"), ["d0", "d1"]);
        assert_eq!(keys("text MATCH 'DOG lazy'"), ["d0"], "every word, analysed (lowercased)");
        assert_eq!(keys("text MATCH 'dog*'"), ["d0", "d1", "d2", "d5"], "a prefix");
        assert_eq!(keys("text MATCH '\"lazy dog\"'"), ["d0"]);
        assert_eq!(keys("text MATCH '\"dog lazy\"'"), Vec::<String>::new(), "a phrase keeps its order");
        assert_eq!(keys("text MATCH '\"a dog\" dog*'"), ["d1"], "a phrase and a prefix");
        assert_eq!(keys("text NOT MATCH 'the' AND n < 4"), ["d1", "d2"]);
        assert_eq!(keys("text MATCH 'zebra' OR n = 6"), ["d6"]);
        assert_eq!(keys("text MATCH 'zebra*'"), Vec::<String>::new());
    }
    let err = |filter: &str| coll.snapshot().keys_where(Some(filter)).unwrap_err().to_string();
    assert!(err("n MATCH 'x'").contains("MATCH needs a field with a full-text (fts) index"), "{}", err("n MATCH 'x'"));
    assert!(err("text MATCH 3").contains("a 'quoted' text or a $parameter after MATCH"), "{}", err("text MATCH 3"));
    assert!(err("text MATCH '\"open'").contains("unterminated quote"), "{}", err("text MATCH '\"open'"));
    assert!(err("text MATCH").contains("after MATCH"), "{}", err("text MATCH"));
    // The shared filter of a hybrid query takes MATCH too.
    let q = HybridQuery::new(vec![Branch::Dense(Query::vector(vec![0.0, 0.0]).k(8))]).k(8).filter("text MATCH 'lazy'");
    let got: Vec<String> = coll.hybrid(&q).unwrap().into_iter().map(|h| h.key).collect();
    assert_eq!(got, ["d0", "d7"]);
}

#[test]
fn a_text_branch_over_two_fields_sums_their_boosted_scores() {
    let fts = || TextIndex::new(serde_json::from_str(r#"{"filters":["lowercase"]}"#).unwrap());
    let schema = Schema::builder("two")
        .field(Field::scalar("text", ScalarType::String).text_index(fts()).nullable(true))
        .field(Field::scalar("title", ScalarType::String).text_index(fts()).nullable(true))
        .field(Field::vector("v", VectorType::Fp32, 2, Metric::L2))
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let coll = Collection::create(dir.path(), schema, CollectionOptions::default().max_docs_per_segment(300)).unwrap();
    let doc = |i: usize| {
        let d = Doc::new(format!("d{i}")).set("v", vec![0.0f32, 0.0]).set("text", CORPUS[i % 8]);
        if i.is_multiple_of(3) { d } else { d.set("title", CORPUS[(i * 5 + 1) % 8]) }
    };
    // Two indexed segments, then rows in the memtable, some deleted from each.
    coll.insert((0..600).map(doc).collect()).unwrap();
    coll.flush().unwrap();
    coll.insert((600..800).map(doc).collect()).unwrap();
    coll.delete(&["d5", "d650", "d299"]).unwrap();
    let scores = |fields: Vec<xvec::TextField>, text: &str, k: usize| -> HashMap<String, f32> {
        let q = HybridQuery::new(vec![Branch::text_in(fields, text, k)]).k(k);
        coll.hybrid(&q).unwrap().into_iter().map(|h| (h.key, h.branches[0].unwrap().score)).collect()
    };
    for text in ["quick dog", "lazy cat", "brown bears", "the"] {
        let text_only = scores(vec![xvec::TextField::new("text")], text, 1000);
        let title_only = scores(vec![xvec::TextField::new("title")], text, 1000);
        let fields = vec![xvec::TextField::new("text").boost(2.0), xvec::TextField::new("title").boost(0.5)];
        let both = scores(fields, text, 1000);
        assert!(!both.is_empty());
        for (key, s) in &both {
            let want =
                2.0 * text_only.get(key).copied().unwrap_or(0.0) + 0.5 * title_only.get(key).copied().unwrap_or(0.0);
            assert!((s - want).abs() < 1e-5 * want.max(1.0), "{text}: {key} scores {s}, boosted sum {want}");
        }
        let keys: std::collections::BTreeSet<&String> = text_only.keys().chain(title_only.keys()).collect();
        assert_eq!(keys.len(), both.len(), "{text}: a row matching either field is a hit");
        let mut all: Vec<f32> = keys.iter().map(|k| both[*k]).collect();
        all.sort_by(|a, b| b.total_cmp(a));
        let top =
            scores(vec![xvec::TextField::new("text").boost(2.0), xvec::TextField::new("title").boost(0.5)], text, 10);
        let mut got: Vec<f32> = top.values().copied().collect();
        got.sort_by(|a, b| b.total_cmp(a));
        assert!(got.iter().zip(&all).all(|(a, b)| (a - b).abs() < 1e-6), "{text}: top 10 {got:?}, best {all:?}");
    }
    let err = |fields: Vec<xvec::TextField>| {
        let q = HybridQuery::new(vec![Branch::text_in(fields, "dog", 5)]);
        coll.hybrid(&q).unwrap_err().to_string()
    };
    assert!(err(vec![xvec::TextField::new("text"), xvec::TextField::new("text")]).contains("named twice"));
    assert!(err(vec![xvec::TextField::new("text").boost(0.0)]).contains("above 0"));
    assert!(err(vec![]).contains("full-text"), "two full-text fields: one must be named");
}

#[test]
fn shards_summing_their_text_stats_and_fusing_once_rank_as_one_collection() {
    // 60 texts, each of a different length (so no two rows tie on BM25), split over three
    // shards by i % 3: one optimized (searched through its index), one flushed, one all
    // in its memtable; the whole collection holds them in one segment plus a memtable.
    let words = ["fox", "dog", "quick", "cat", "mat", "lazy", "brown", "bear"];
    let text = |i: usize| (0..4 + i).map(|j| words[(i * 7 + j * j * 3 + j) % 8]).collect::<Vec<_>>().join(" ");
    let doc = |i: usize| {
        Doc::new(format!("d{i}")).set("text", text(i).as_str()).set("n", i as i32).set("v", vec![i as f32, 0.5])
    };
    let dir = tempfile::tempdir().unwrap();
    let whole = Collection::create(dir.path().join("whole"), schema(), Default::default()).unwrap();
    whole.insert((0..40).map(doc).collect()).unwrap();
    whole.flush().unwrap();
    whole.optimize(&OptimizeOptions::default()).unwrap();
    whole.insert((40..60).map(doc).collect()).unwrap();
    let shards: Vec<Collection> = (0..3)
        .map(|s| Collection::create(dir.path().join(format!("s{s}")), schema(), Default::default()).unwrap())
        .collect();
    for (s, shard) in shards.iter().enumerate() {
        shard.insert((0..60).filter(|i| i % 3 == s).map(doc).collect()).unwrap();
    }
    shards[0].flush().unwrap();
    shards[0].optimize(&OptimizeOptions::default()).unwrap();
    shards[1].flush().unwrap();
    for c in shards.iter().chain([&whole]) {
        c.delete(&["d3", "d4", "d5"]).unwrap();
    }
    let query = "quick brown bear";
    let mut sum = TextStats::default();
    for shard in &shards {
        sum.add(&shard.snapshot().text_stats(&[], query).unwrap());
    }
    let whole_stats = whole.snapshot().text_stats(&[], query).unwrap();
    assert_eq!(sum, whole_stats);
    assert_eq!(whole_stats.fields["text"].docs, 57, "deleted rows count in no statistic");
    assert_eq!(whole_stats.fields["text"].doc_freq.len(), 3);

    for fusion in [Fusion::Rrf { k: 60.0 }, Fusion::Weighted(vec![1.0, 0.5])] {
        let branches = |stats: Option<TextStats>| {
            let text = Branch::Text { fields: vec![], text: query.into(), k: 15, stats };
            vec![Branch::Dense(Query::vector(vec![20.3, 0.0]).k(15)), text]
        };
        let q = |stats| HybridQuery::new(branches(stats)).k(8).filter("n != 7").fusion(fusion.clone());
        let want = whole.hybrid(&q(None)).unwrap();
        // Each branch's best over every shard, then one fusion.
        let ranked: Vec<Vec<Ranking>> =
            shards.iter().map(|s| s.snapshot().rankings(&q(Some(sum.clone()))).unwrap()).collect();
        let merged: Vec<Ranking> = (0..2)
            .map(|b| {
                let higher_is_better = ranked[0][b].higher_is_better;
                let mut hits: Vec<Ranked> = ranked.iter().flat_map(|r| r[b].hits.clone()).collect();
                let sign = if higher_is_better { -1.0 } else { 1.0 };
                hits.sort_by(|x, y| (sign * x.score).total_cmp(&(sign * y.score)).then(x.key.cmp(&y.key)));
                hits.truncate(15);
                Ranking { hits, higher_is_better }
            })
            .collect();
        let got = xvec::fuse(&q(None), &merged).unwrap();
        assert_eq!(got, want, "{fusion:?}");
        // Without the summed statistics, a shard scores by its own and the answer differs.
        let own: Vec<Vec<Ranking>> = shards.iter().map(|s| s.snapshot().rankings(&q(None)).unwrap()).collect();
        assert_ne!(own[0][1].hits[0].score, ranked[0][1].hits[0].score, "shard 0 scores with its own statistics");
    }

    // Statistics that lack a term of the query are refused, naming it.
    let mut partial = sum.clone();
    partial.fields.get_mut("text").unwrap().doc_freq.remove("bear");
    let q = HybridQuery::new(vec![Branch::Text { fields: vec![], text: query.into(), k: 5, stats: Some(partial) }]);
    let err = whole.hybrid(&q).unwrap_err().to_string();
    assert!(err.contains(r#"lack term "bear" of `text`"#), "{err}");
}
