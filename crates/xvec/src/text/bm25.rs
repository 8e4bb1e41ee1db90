//! BM25 relevance, as Lucene computes it: the idf of a term, one term's score in one
//! document, and the upper bound block-max WAND skips blocks with.

use super::TextError;

/// BM25 parameters: `k1` is how fast repeats of a term stop adding to the score, `b` how
/// much a long document is penalized (0: not at all, 1: fully).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bm25 {
    /// Term-frequency saturation, finite and >= 0.
    pub k1: f32,
    /// Length normalization, in 0..=1.
    pub b: f32,
}

impl Default for Bm25 {
    /// Lucene's defaults, `k1 = 1.2`, `b = 0.75`.
    fn default() -> Bm25 {
        Bm25 { k1: 1.2, b: 0.75 }
    }
}

impl Bm25 {
    /// `k1` and `b` as JSON members, each the number of its shortest decimal (1.2, not
    /// 1.2000000476837158), as a full-text index declaration and a vocabulary file hold them.
    pub(crate) fn json_members(&self) -> [(&'static str, serde_json::Value); 2] {
        let shortest =
            |x: f32| serde_json::from_str(&x.to_string()).expect("a validated parameter prints as a JSON number");
        [("k1", shortest(self.k1)), ("b", shortest(self.b))]
    }

    /// Checks that `k1` is finite and >= 0 and `b` is in 0..=1.
    pub fn validate(&self) -> Result<(), TextError> {
        if !self.k1.is_finite() || self.k1 < 0.0 {
            return Err(TextError::K1(self.k1));
        }
        if !(0.0..=1.0).contains(&self.b) {
            return Err(TextError::B(self.b));
        }
        Ok(())
    }

    /// Lucene's idf, `ln(1 + (docs - doc_freq + 0.5) / (doc_freq + 0.5))`: always above 0,
    /// so a common term still adds a little. A `doc_freq` above `docs` counts as `docs`
    /// (a stale count must not make a NaN).
    pub fn idf(docs: u64, doc_freq: u64) -> f32 {
        let n = doc_freq.min(docs) as f64;
        (1.0 + (docs as f64 - n + 0.5) / (n + 0.5)).ln() as f32
    }

    /// The score `idf · tf·(k1+1) / (tf + k1·(1 − b + b·doc_len/avg_len))` of a term seen
    /// `tf` times in a document of `doc_len` terms, where documents average `avg_len` (0 or
    /// less counts as `doc_len/avg_len = 1`, as in an empty corpus).
    pub fn term_score(&self, idf: f32, tf: u32, doc_len: u32, avg_len: f32) -> f32 {
        if tf == 0 {
            // With k1 = 0 the formula would be 0/0.
            return 0.0;
        }
        let tf = tf as f32;
        let ratio = if avg_len > 0.0 { doc_len as f32 / avg_len } else { 1.0 };
        idf * tf * (self.k1 + 1.0) / (tf + self.k1 * (1.0 - self.b + self.b * ratio))
    }

    /// At least [`Bm25::term_score`] for every `tf <= max_tf` and `doc_len >= min_doc_len`
    /// (for `idf >= 0`): the score rises with `tf` and falls with `doc_len`, so this is the
    /// score at (`max_tf`, `min_doc_len`), raised by 16 f32 epsilons because rounding can
    /// break that order by an ulp or two, and a block-max WAND skip must never be wrong.
    pub fn max_term_score(&self, idf: f32, max_tf: u32, min_doc_len: u32, avg_len: f32) -> f32 {
        self.term_score(idf, max_tf, min_doc_len, avg_len) * (1.0 + 16.0 * f32::EPSILON)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(got: f32, want: f64) {
        assert!((got as f64 - want).abs() < 1e-6, "got {got}, want {want}");
    }

    #[test]
    fn scores_a_three_document_corpus_by_hand() {
        // d0 = "cat dog" (2 terms), d1 = "cat cat mouse" (3), d2 = "dog" (1): avg_len 2.
        // k1 = 1.2, b = 0.75, so k1·(1 − b + b·len/2) is 1.2 for len 2, 1.65 for 3, 0.75 for 1.
        let bm = Bm25::default();
        let (cat, mouse) = (Bm25::idf(3, 2), Bm25::idf(3, 1));
        close(cat, 0.470_003_629); // ln(1 + 1.5/2.5) = ln 1.6
        close(mouse, 0.980_829_253); // ln(1 + 2.5/1.5) = ln(8/3)
        close(Bm25::idf(3, 3), 0.133_531_393); // ln(1 + 0.5/3.5) = ln(8/7)
        close(bm.term_score(cat, 1, 2, 2.0), 0.470_003_629); // idf · 2.2/(1 + 1.2) = idf
        close(bm.term_score(cat, 2, 3, 2.0), 0.566_579_717); // idf · 4.4/(2 + 1.65)
        close(bm.term_score(mouse, 1, 3, 2.0), 0.814_273_342); // idf · 2.2/(1 + 1.65)
        close(bm.term_score(Bm25::idf(3, 2), 1, 1, 2.0), 0.590_861_705); // dog in d2: idf · 2.2/1.75
        // "cat mouse" ranks d1 (0.5666 + 0.8143) over d0 (0.4700).
        assert!(bm.term_score(cat, 2, 3, 2.0) + bm.term_score(mouse, 1, 3, 2.0) > bm.term_score(cat, 1, 2, 2.0));
    }

    #[test]
    fn edge_parameters_and_inputs() {
        let idf = Bm25::idf(10, 3);
        // k1 = 0: any tf scores idf. b = 0: length does not matter. avg_len 0: ratio 1.
        close(Bm25 { k1: 0.0, b: 0.75 }.term_score(idf, 7, 100, 2.0), idf as f64);
        let flat = Bm25 { k1: 1.2, b: 0.0 };
        assert_eq!(flat.term_score(idf, 2, 1, 5.0), flat.term_score(idf, 2, 1000, 5.0));
        let bm = Bm25::default();
        assert_eq!(bm.term_score(idf, 3, 40, 0.0), bm.term_score(idf, 3, 7, 7.0));
        assert_eq!(Bm25 { k1: 0.0, b: 0.0 }.term_score(idf, 0, 5, 5.0), 0.0);
        assert_eq!(Bm25::idf(5, 9), Bm25::idf(5, 5));
        assert!(Bm25::idf(0, 0).is_finite());
    }

    #[test]
    fn idf_falls_as_doc_freq_rises() {
        for docs in [1u64, 2, 10, 1000, 1_000_000_000] {
            let mut freqs: Vec<u64> = (0..=docs.min(3000)).chain([docs / 2, docs - 1, docs]).collect();
            freqs.sort_unstable();
            let idfs: Vec<f32> = freqs.iter().map(|&n| Bm25::idf(docs, n)).collect();
            assert!(idfs.iter().all(|&idf| idf > 0.0), "docs {docs}: {idfs:?}");
            assert!(idfs.windows(2).all(|w| w[1] <= w[0]), "docs {docs}: not falling");
        }
        assert!(Bm25::idf(100, 1) > Bm25::idf(100, 2));
    }

    #[test]
    fn max_term_score_bounds_every_tf_and_length() {
        for (k1, b) in [(1.2, 0.75), (0.0, 0.5), (0.5, 0.0), (3.0, 1.0), (2.0, 0.3)] {
            let bm = Bm25 { k1, b };
            for avg_len in [0.0, 1.0, 7.3, 250.0] {
                for (max_tf, min_len) in [(1, 0), (1, 1), (3, 5), (40, 2), (100_000, 50)] {
                    let idf = Bm25::idf(1000, 17);
                    let bound = bm.max_term_score(idf, max_tf, min_len, avg_len);
                    let corner = bm.term_score(idf, max_tf, min_len, avg_len);
                    assert!(bound <= corner * 1.00001, "bound {bound} is loose over {corner}");
                    let tfs = (0..=max_tf.min(200)).chain(max_tf.saturating_sub(200)..=max_tf);
                    for tf in tfs {
                        for len in (min_len..min_len + 300).chain([min_len + 10_000, u32::MAX]) {
                            let s = bm.term_score(idf, tf, len, avg_len);
                            assert!(s <= bound, "k1 {k1} b {b} avg {avg_len}: tf {tf} len {len} scores {s} > {bound}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn validation_errors_name_the_value() {
        Bm25::default().validate().unwrap();
        Bm25 { k1: 0.0, b: 0.0 }.validate().unwrap();
        Bm25 { k1: 10.0, b: 1.0 }.validate().unwrap();
        let err = |k1, b| Bm25 { k1, b }.validate().unwrap_err().to_string();
        assert_eq!(err(-0.5, 0.75), "BM25 k1 must be a finite number >= 0; got -0.5");
        assert_eq!(err(f32::INFINITY, 0.75), "BM25 k1 must be a finite number >= 0; got inf");
        assert_eq!(err(f32::NAN, 0.75), "BM25 k1 must be a finite number >= 0; got NaN");
        assert_eq!(err(1.2, 1.5), "BM25 b must be between 0 and 1; got 1.5");
        assert_eq!(err(1.2, -0.1), "BM25 b must be between 0 and 1; got -0.1");
        assert_eq!(err(1.2, f32::NAN), "BM25 b must be between 0 and 1; got NaN");
    }
}
