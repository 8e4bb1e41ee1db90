//! Text analysis for full-text search: text → terms with positions, BM25 scoring, and the
//! text of a text search parsed into clauses.
//!
//! The full-text index and a filter's MATCH share one [`Analyzer`], built from the
//! [`AnalyzerSpec`] stored with the index, so the terms a query looks up are made the same
//! way as the terms the index holds. A document matches only if both sides agree, so
//! nothing here may depend on anything but the spec and the input text.

mod analyzer;
mod bm25;
mod query;

pub use analyzer::{Analyzer, AnalyzerSpec, Filter, MAX_GRAM, MAX_TEXT_BYTES, MAX_TOKEN_BYTES, Token, Tokenizer};
pub use bm25::Bm25;
pub use query::{Clause, MAX_CLAUSES, MAX_QUERY_BYTES, PhraseTerm, TextQuery};

/// An analyzer spec, BM25 parameters or a text query that is not valid.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum TextError {
    /// The n-gram sizes are out of order or range (`min_gram`, `max_gram`).
    #[error("n-gram sizes must satisfy 1 <= min_gram <= max_gram <= {max}; got min_gram {min_gram}, max_gram {max_gram}", max = MAX_GRAM)]
    GramSizes {
        /// The `min_gram` given.
        min_gram: u32,
        /// The `max_gram` given.
        max_gram: u32,
    },
    /// A filter appears twice in an analyzer's list (the filter).
    #[error("filter {0} is listed twice; each filter applies once")]
    DuplicateFilter(Filter),
    /// BM25 `k1` is negative, infinite or NaN (the value).
    #[error("BM25 k1 must be a finite number >= 0; got {0}")]
    K1(f32),
    /// BM25 `b` is outside 0..=1 or NaN (the value).
    #[error("BM25 b must be between 0 and 1; got {0}")]
    B(f32),
    /// A `"` with no closing `"` after it.
    #[error("text query, column {column}: unterminated quote")]
    UnterminatedQuote {
        /// 1-based byte column of the opening quote.
        column: usize,
    },
    /// `""`, or quotes around only whitespace.
    #[error("text query, column {column}: empty phrase")]
    EmptyPhrase {
        /// 1-based byte column of the opening quote.
        column: usize,
    },
    /// A word that is only `*`: a prefix needs at least one character.
    #[error("text query, column {column}: '*' needs at least one character before it")]
    LonePrefix {
        /// 1-based byte column of the `*`.
        column: usize,
    },
    /// More words, phrases and prefixes than [`MAX_CLAUSES`].
    #[error("text query, column {column}: more than {max} words, phrases and prefixes")]
    TooManyClauses {
        /// 1-based byte column of the first clause over the limit.
        column: usize,
        /// The limit, [`MAX_CLAUSES`].
        max: usize,
    },
    /// Query text longer than [`MAX_QUERY_BYTES`].
    #[error("text query of {len} bytes; at most {max} are allowed")]
    QueryTooLong {
        /// The query's length in bytes.
        len: usize,
        /// The limit, [`MAX_QUERY_BYTES`].
        max: usize,
    },
}
