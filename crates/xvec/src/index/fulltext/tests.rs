//! Full-text index files: what they hold against a naive count of the column, block-max
//! WAND against scoring every row, and what opening refuses.

use std::collections::BTreeMap;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::wand::{self, Term};
use super::*;
use crate::index::{Candidate, Sink, TopK};
use crate::storage::column::{ColumnData, ScalarColumn, Validity, VarColumn};
use crate::text::{Analyzer, Bm25};

/// A random corpus over a Zipf-like vocabulary of `vocab` words: some rows long enough to
/// fill several blocks of a common term, some empty, every 17th null.
fn corpus(rows: usize, vocab: usize, seed: u64) -> (Vec<String>, Vec<u8>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let texts = (0..rows)
        .map(|_| {
            let n = if rng.random_bool(0.05) { rng.random_range(0..3) } else { rng.random_range(3..40) };
            let words: Vec<String> = (0..n)
                .map(|_| {
                    let x: f64 = rng.random();
                    format!("w{}", ((vocab as f64).powf(x * x) as usize).min(vocab - 1))
                })
                .collect();
            words.join(" ")
        })
        .collect();
    let mut validity = vec![0xffu8; rows.div_ceil(8)];
    for r in (0..rows).step_by(17) {
        validity[r / 8] &= !(1 << (r % 8));
    }
    (texts, validity)
}

struct Built {
    _dir: tempfile::TempDir,
    index: FullTextIndex,
    /// Per row (None when null), term -> frequency.
    rows: Vec<Option<BTreeMap<String, u32>>>,
}

fn build_corpus(texts: &[String], validity: &[u8]) -> Built {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.idx");
    let (mut offsets, mut bytes) = (vec![0u64], Vec::new());
    for t in texts {
        bytes.extend_from_slice(t.as_bytes());
        offsets.push(bytes.len() as u64);
    }
    let col = ScalarColumn {
        validity: Validity(Some(validity)),
        data: ColumnData::String(VarColumn::stored(&offsets, &bytes)),
    };
    let analyzer = Analyzer::new(&AnalyzerSpec::default()).unwrap();
    build(&path, 9, 2, &AnalyzerSpec::default(), &col).unwrap();
    let index = FullTextIndex::open(&path, 9, 2, &AnalyzerSpec::default(), texts.len(), true).unwrap();
    let rows = (0..texts.len())
        .map(|r| {
            col.validity.is_valid(r).then(|| {
                let mut m = BTreeMap::new();
                analyzer.for_each_term(&texts[r], |t, _| *m.entry(t.to_string()).or_insert(0) += 1);
                m
            })
        })
        .collect();
    Built { _dir: dir, index, rows }
}

#[test]
fn postings_and_lengths_equal_a_count_of_the_column() {
    let (texts, validity) = corpus(3000, 400, 1);
    let b = build_corpus(&texts, &validity);
    let ix = &b.index;
    let mut naive: BTreeMap<&str, Vec<(u32, u32)>> = BTreeMap::new();
    for (r, m) in b.rows.iter().enumerate() {
        for (t, &tf) in m.iter().flatten() {
            naive.entry(t).or_default().push((r as u32, tf));
        }
        let len = m.as_ref().map_or(0, |m| m.values().sum());
        assert_eq!(ix.doc_len(r as u32), len, "row {r}");
    }
    assert_eq!(ix.docs(), b.rows.iter().flatten().count() as u64);
    assert_eq!(ix.term_count(), naive.len());
    assert!(naive.values().any(|p| p.len() > 3 * BLOCK), "some term spans several blocks");
    for (t, want) in &naive {
        let id = ix.find(t).unwrap();
        assert_eq!(ix.doc_freq(id), want.len() as u64);
        let mut got = Vec::new();
        let mut p = ix.postings(id);
        while p.doc() != END {
            got.push((p.doc(), p.tf()));
            p.advance(p.doc() + 1);
        }
        assert_eq!(&got, want, "term {t}");
        // Jumps land on the first row at or after the target.
        let mut p = ix.postings(id);
        for target in (0..3000).step_by(97) {
            p.advance(target);
            let first = want.iter().find(|x| x.0 >= target).map_or(END, |x| x.0);
            assert_eq!(p.doc(), first, "term {t} from {target}");
        }
    }
    assert_eq!(ix.find("nothing"), None);
    let w1: Vec<&str> = naive.keys().copied().filter(|t| t.starts_with("w1")).collect();
    let range = ix.with_prefix("w1");
    assert_eq!(range.len(), w1.len());
    assert!(range.clone().all(|t| ix.term(t).starts_with(b"w1")));
    assert!(ix.with_prefix("x").is_empty());
}

/// BM25 parameters and the average length the tests score with.
#[derive(Clone, Copy)]
struct Scoring {
    bm25: Bm25,
    avg_len: f32,
}

fn terms_of<'a>(ix: &'a FullTextIndex, terms: &[(&str, f32)], s: Scoring, boost: f32) -> Vec<Term<'a>> {
    let term = |(slot, (t, idf)): (usize, &(&str, f32))| -> Option<Term<'a>> {
        Some(Term { index: ix, id: ix.find(t)?, idf: *idf, slot, bm25: s.bm25, avg_len: s.avg_len, boost })
    };
    terms.iter().enumerate().filter_map(term).collect()
}

/// Every allowed row's score, as a top-k of all of them.
fn exhaustive(
    b: &Built,
    terms: &[(&str, f32)],
    scoring: Scoring,
    allowed: &dyn Fn(u32) -> bool,
    k: usize,
) -> Vec<Candidate> {
    let mut top = TopK::new(k);
    for (r, m) in b.rows.iter().enumerate() {
        let Some(m) = m else { continue };
        let len: u32 = m.values().sum();
        let hits: Vec<f32> = terms
            .iter()
            .filter_map(|(t, idf)| m.get(*t).map(|&tf| scoring.bm25.term_score(*idf, tf, len, scoring.avg_len)))
            .collect();
        if !hits.is_empty() && allowed(r as u32) {
            top.push(Candidate { dist: -hits.iter().sum::<f32>(), segment: 0, row: r as u32 });
        }
    }
    top.into_sorted()
}

#[test]
fn block_max_wand_equals_scoring_every_row() {
    let (texts, validity) = corpus(6000, 300, 2);
    let b = build_corpus(&texts, &validity);
    let ix = &b.index;
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let avg_len = ix.total_len() as f32 / ix.docs() as f32;
    let mut skipped = 0;
    for case in 0..300 {
        let n = rng.random_range(1..6);
        let words: Vec<String> = (0..n).map(|_| format!("w{}", rng.random_range(0..320))).collect();
        let mut terms: Vec<(&str, f32)> = Vec::new();
        for w in &words {
            if !terms.iter().any(|(t, _)| t == w) {
                terms.push((w, rng.random_range(0.05..4.0)));
            }
        }
        let bm25 = Bm25 { k1: [1.2, 0.0, 2.0][case % 3], b: [0.75, 1.0, 0.0][case % 3] };
        let scoring = Scoring { bm25, avg_len };
        let k = [1, 10, 100][case % 3];
        let modulus = [1, 2, 7][case % 3];
        let allowed = |r: u32| r.is_multiple_of(modulus);
        let want = exhaustive(&b, &terms, scoring, &allowed, k);
        let present = terms_of(ix, &terms, scoring, 1.0);
        let mut top = TopK::new(k);
        let stats = wand::search(&present, terms.len(), 0, allowed, &mut top);
        skipped += stats.skipped;
        assert_eq!(top.into_sorted(), want, "case {case}: {terms:?} k {k}");
    }
    assert!(skipped > 0, "some block was skipped on its bound");
}

#[test]
fn a_top_k_that_holds_other_rows_prunes_from_the_start() {
    let (texts, validity) = corpus(2000, 200, 4);
    let b = build_corpus(&texts, &validity);
    let ix = &b.index;
    let scoring = Scoring { bm25: Bm25::default(), avg_len: 20.0 };
    let mut top = TopK::new(5);
    for row in 0..5 {
        top.push(Candidate { dist: -1e9, segment: 7, row });
    }
    let stats = wand::search(&terms_of(ix, &[("w3", 1.0)], scoring, 1.0), 1, 0, |_| true, &mut top);
    assert_eq!(stats.scored, 0, "no row can beat a full top k of higher scores");
    assert!(top.into_sorted().iter().all(|c| c.segment == 7));
}

#[test]
fn opening_refuses_another_analyzer_row_count_or_damaged_postings() {
    let (texts, validity) = corpus(500, 50, 5);
    let b = build_corpus(&texts, &validity);
    let path = b.index.path.clone();
    let stem = AnalyzerSpec {
        filters: vec![crate::text::Filter::Lowercase, crate::text::Filter::StemEn],
        ..Default::default()
    };
    let err = FullTextIndex::open(&path, 9, 2, &stem, 500, false).unwrap_err().to_string();
    assert!(err.contains("analyzer"), "{err}");
    assert!(FullTextIndex::open(&path, 9, 2, &AnalyzerSpec::default(), 499, false).is_err());
    assert!(FullTextIndex::open(&path, 8, 2, &AnalyzerSpec::default(), 500, false).is_err());
    assert!(FullTextIndex::open(&path, 9, 3, &AnalyzerSpec::default(), 500, false).is_err());
}

#[test]
fn block_max_wand_over_two_fields_sums_their_boosted_scores() {
    // Two fields of the same 2,000 rows, each with its own index, statistics and boost.
    let (a_texts, a_valid) = corpus(2000, 200, 6);
    let (b_texts, b_valid) = corpus(2000, 40, 7);
    let (a, b) = (build_corpus(&a_texts, &a_valid), build_corpus(&b_texts, &b_valid));
    let fields = [
        (&a, Scoring { bm25: Bm25::default(), avg_len: 21.0 }, 2.0f32),
        (&b, Scoring { bm25: Bm25 { k1: 0.9, b: 0.4 }, avg_len: 19.0 }, 0.5f32),
    ];
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    for case in 0..100 {
        let words: Vec<String> = (0..rng.random_range(1..4)).map(|_| format!("w{}", rng.random_range(0..60))).collect();
        let mut words: Vec<&str> = words.iter().map(String::as_str).collect();
        words.dedup();
        let idfs: Vec<f32> = (0..2 * words.len()).map(|_| rng.random_range(0.1..3.0)).collect();
        // Slots: field a's terms, then field b's.
        let mut terms = Vec::new();
        for (f, (built, s, boost)) in fields.iter().enumerate() {
            for (i, w) in words.iter().enumerate() {
                let slot = f * words.len() + i;
                if let Some(id) = built.index.find(w) {
                    let (bm25, avg_len, boost) = (s.bm25, s.avg_len, *boost);
                    terms.push(Term { index: &built.index, id, idf: idfs[slot], slot, bm25, avg_len, boost });
                }
            }
        }
        let mut want = TopK::new(10);
        for row in 0..2000 {
            let mut contrib: Vec<Option<f32>> = vec![None; 2 * words.len()];
            for (f, (built, s, boost)) in fields.iter().enumerate() {
                let Some(m) = &built.rows[row] else { continue };
                let len: u32 = m.values().sum();
                for (i, w) in words.iter().enumerate() {
                    let slot = f * words.len() + i;
                    if let Some(&tf) = m.get(*w) {
                        contrib[slot] = Some(boost * s.bm25.term_score(idfs[slot], tf, len, s.avg_len));
                    }
                }
            }
            if contrib.iter().any(Option::is_some) {
                let score: f32 = contrib.iter().flatten().sum();
                want.push(Candidate { dist: -score, segment: 0, row: row as u32 });
            }
        }
        let mut got = TopK::new(10);
        wand::search(&terms, 2 * words.len(), 0, |_| true, &mut got);
        assert_eq!(got.into_sorted(), want.into_sorted(), "case {case}: {words:?}");
    }
}
