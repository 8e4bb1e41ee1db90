//! Sparse index files: block-max WAND over their impacts against scoring every row, with
//! negative values and weights, filters and budgets; their size; what `verify` samples;
//! what opening refuses.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;
use crate::index::{Candidate, Sink, TopK};
use crate::sparse::SparseVector;
use crate::storage::column::{ColumnData, Offsets, Validity};

/// `rows` random sparse rows over `dims` dimensions (a few common, most rare), every 11th
/// null, values in -0.5..2.
fn rows(rows: usize, dims: u32, seed: u64) -> Vec<Option<SparseVector>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..rows)
        .map(|r| {
            (r % 11 != 0).then(|| {
                let n = rng.random_range(0..30);
                let pairs: std::collections::BTreeMap<u32, f32> = (0..n)
                    .map(|_| {
                        let x: f64 = rng.random();
                        (((dims as f64).powf(x * x)) as u32 % dims, rng.random_range(-0.5..2.0))
                    })
                    .collect();
                SparseVector::new(pairs).unwrap()
            })
        })
        .collect()
}

struct Built {
    _dir: tempfile::TempDir,
    index: SparseIndex,
    rows: Vec<Option<SparseVector>>,
    words: Vec<u64>,
    offsets: Vec<u64>,
}

fn build_rows(data: Vec<Option<SparseVector>>) -> Built {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.idx");
    let (mut words, mut offsets) = (Vec::new(), vec![0u64]);
    let mut validity = vec![0u8; data.len().div_ceil(8)];
    for (r, v) in data.iter().enumerate() {
        if let Some(v) = v {
            validity[r / 8] |= 1 << (r % 8);
            words.extend(v.words());
        }
        offsets.push(words.len() as u64);
    }
    let col = ArrayColumn {
        validity: Validity(Some(&validity)),
        offsets: Offsets::Stored(&offsets),
        elems: ColumnData::Uint64(&words),
    };
    build(&path, 4, 3, &col).unwrap();
    let index = SparseIndex::open(&path, 4, 3, data.len(), true).unwrap();
    Built { _dir: dir, index, rows: data, words, offsets }
}

impl Built {
    /// Row `r`'s inner product with `q`, from its stored words (0 for a null row).
    fn dot(&self, q: &SparseVector, r: u32) -> f32 {
        let words = &self.words[self.offsets[r as usize] as usize..self.offsets[r as usize + 1] as usize];
        crate::sparse::dot_words(q, words.iter().map(|&w| ((w >> 32) as u32, crate::sparse::unpack_value(w))))
            .unwrap_or(0.0)
    }

    fn search(
        &self,
        q: &SparseVector,
        allowed: impl Fn(u32) -> bool,
        budget: Option<u64>,
        k: usize,
    ) -> (Vec<Candidate>, wand::WandStats) {
        let mut top = TopK::new(k);
        let score = |r: u32| self.dot(q, r);
        let stats = self.index.search(q, 0, allowed, (budget, wand::Exact { score: &score, k }), &mut top);
        (top.into_sorted(), stats)
    }
}

fn exhaustive(b: &Built, q: &SparseVector, allowed: &dyn Fn(u32) -> bool, k: usize) -> Vec<Candidate> {
    let mut top = TopK::new(k);
    for (r, v) in b.rows.iter().enumerate() {
        let Some(v) = v else { continue };
        let pairs = v.indices().iter().copied().zip(v.values().iter().copied());
        if let Some(s) = crate::sparse::dot_words(q, pairs)
            && allowed(r as u32)
        {
            top.push(Candidate { dist: -s, segment: 0, row: r as u32 });
        }
    }
    top.into_sorted()
}

#[test]
fn block_max_wand_equals_scoring_every_row() {
    let b = build_rows(rows(5000, 400, 1));
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let (mut skipped, mut scored, mut rescored) = (0, 0, 0);
    for case in 0..200 {
        let n = rng.random_range(1..12);
        let pairs: std::collections::BTreeMap<u32, f32> = (0..n)
            .map(|_| {
                (
                    rng.random_range(0..420),
                    if case % 4 == 0 { rng.random_range(-1.0..1.0) } else { rng.random_range(0.0..3.0) },
                )
            })
            .collect();
        let q = SparseVector::new(pairs).unwrap();
        let k = [1, 10, 100][case % 3];
        let modulus = [1, 3][case % 2];
        let allowed = |r: u32| r.is_multiple_of(modulus);
        let (got, stats) = b.search(&q, allowed, None, k);
        (skipped, scored, rescored) = (skipped + stats.skipped, scored + stats.scored, rescored + stats.rescored);
        assert_eq!(got, exhaustive(&b, &q, &allowed, k), "case {case}: {q:?}");
    }
    assert!(skipped > 0, "some block was skipped on its bound");
    assert!(rescored > 0 && rescored * 3 < scored, "impact bounds spare most exact scores: {rescored} of {scored}");
}

#[test]
fn a_budget_bounds_the_postings_scored_and_recall_grows_with_it() {
    let b = build_rows(rows(20_000, 300, 3));
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let queries: Vec<SparseVector> = (0..30)
        .map(|_| {
            SparseVector::new(
                (0..8)
                    .map(|_| (rng.random_range(0..300u32), rng.random_range(0.1..2.0)))
                    .collect::<std::collections::BTreeMap<_, _>>(),
            )
            .unwrap()
        })
        .collect();
    let mut recalls = Vec::new();
    for budget in [50u64, 500, 5_000, u64::MAX] {
        let mut found = 0usize;
        let mut wanted = 0usize;
        for q in &queries {
            let want: Vec<u32> = exhaustive(&b, q, &|_| true, 10).iter().map(|c| c.row).collect();
            let (got, stats) = b.search(q, |_| true, Some(budget), 10);
            assert!(stats.postings < budget.saturating_add(q.len() as u64), "budget {budget}: {stats:?}");
            found += got.iter().filter(|c| want.contains(&c.row)).count();
            wanted += want.len();
        }
        recalls.push(found as f64 / wanted as f64);
    }
    assert!(recalls.windows(2).all(|w| w[0] <= w[1]), "recall grows with the budget: {recalls:?}");
    assert_eq!(recalls[3], 1.0, "an unbounded budget is exact");
    assert!(recalls[0] < 1.0, "a budget of 50 postings cannot be exact: {recalls:?}");
}

#[test]
fn verify_samples_and_opening_refuses_a_wrong_segment() {
    let b = build_rows(rows(800, 100, 5));
    for r in 0..800 {
        let words = &b.words[b.offsets[r] as usize..b.offsets[r + 1] as usize];
        assert!(b.index.holds_row(r as u32, words), "row {r}");
    }
    let other: Vec<u64> = vec![(7u64 << 32) | 1.5f32.to_bits() as u64];
    assert!(!b.index.holds_row(0, &other), "row 0 (null) holds nothing");
    // A value moved to another impact step (or outside its block) is not what the index holds.
    let r = (1..800).find(|&r| b.offsets[r + 1] > b.offsets[r]).unwrap();
    let mut words = b.words[b.offsets[r] as usize..b.offsets[r + 1] as usize].to_vec();
    let v = crate::sparse::unpack_value(words[0]);
    words[0] = (words[0] >> 32 << 32) | (v + 1.0).to_bits() as u64;
    assert!(!b.index.holds_row(r as u32, &words), "row {r} with {v} + 1");
    let path = b.index.path.clone();
    assert!(SparseIndex::open(&path, 4, 3, 799, false).unwrap_err().to_string().contains("800 rows"));
    assert!(SparseIndex::open(&path, 5, 3, 800, false).is_err());
    assert!(SparseIndex::open(&path, 4, 2, 800, false).is_err());
}

/// Rows as bit-packed gaps and one-byte impacts: a SPLADE-like index takes a fraction of
/// the 8 bytes per posting exact rows and values would.
#[test]
fn postings_take_under_three_bytes() {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let data: Vec<Option<SparseVector>> = (0..4000)
        .map(|_| {
            let pairs: std::collections::BTreeMap<u32, f32> =
                (0..120).map(|_| ((rng.random_range(0.0f64..1.0).powi(2) * 3000.0) as u32, rng.random())).collect();
            Some(SparseVector::new(pairs).unwrap())
        })
        .collect();
    let b = build_rows(data);
    let per_posting = b.index.file_len() as f64 / b.index.postings() as f64;
    assert!(per_posting < 3.0, "{per_posting:.2} bytes per posting");
}

/// A file whose checksums are right but whose block records lie (a count past the block
/// size, a gap width past 32 bits) is refused on open with the record's offset, never a
/// panic.
#[test]
fn records_that_lie_under_good_checksums_are_refused() {
    let b = build_rows(rows(600, 40, 6));
    let path = b.index.path.clone();
    let bytes = FileBytes::open(&path, false).unwrap();
    let kinds = SECTIONS.map(|k| k as u16);
    let sections = container::read_sections(&path, &bytes, 4, 3, &kinds, "a sparse index").unwrap();
    let parts: Vec<Vec<u8>> = sections.iter().map(|s| bytes.as_slice()[s.range()].to_vec()).collect();
    for (case, word3) in [("a count of 256", 0xffu32), ("a 40-bit width", 40 << 8)] {
        let mut parts = parts.clone();
        parts[Kind::Records as usize][12..16].copy_from_slice(&word3.to_le_bytes());
        let damaged = path.with_extension(format!("{}.idx", word3));
        let secs: Vec<(u16, u16, &[u8])> = kinds.iter().zip(&parts).map(|(&k, p)| (k, 3, p.as_slice())).collect();
        container::write_file(&damaged, FileKind::Index, 4, &secs).unwrap();
        let e = SparseIndex::open(&damaged, 4, 3, 600, false).unwrap_err().to_string();
        assert!(e.contains("block 0 of dimension"), "{case}: {e}");
    }
}
