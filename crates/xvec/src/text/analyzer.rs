//! The analyzer: a tokenizer splits text into words, then filters rewrite or drop each one.
//! It owns the spec's JSON form and validation; it keeps no index state.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use rust_stemmers::{Algorithm, Stemmer};
use serde::{Deserialize, Serialize};
use unicode_normalization::char::{decompose_compatible, is_combining_mark};
use unicode_segmentation::UnicodeSegmentation;

use super::TextError;
use crate::vocabulary::{UnknownName, parse_name};

/// Text beyond this many bytes is not analyzed (cut back to a char boundary, so the last
/// word may be cut too). It bounds the time and memory one document costs at index time.
pub const MAX_TEXT_BYTES: usize = 1 << 20;

/// A word or term longer than this many bytes is skipped (its position still counts): no
/// search looks for one, and it keeps every term dictionary key short.
pub const MAX_TOKEN_BYTES: usize = 255;

/// The largest `max_gram`: longer n-grams multiply the terms per word for little gain.
pub const MAX_GRAM: u32 = 8;

/// Lucene's default English stop words (`EnglishAnalyzer.ENGLISH_STOP_WORDS_SET`), sorted
/// for a binary search.
const STOP_EN: [&str; 33] = [
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no", "not", "of",
    "on", "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was", "will", "with",
];

/// How text is split into words.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", try_from = "String")]
pub enum Tokenizer {
    /// Unicode word segmentation (UAX #29), keeping the segments that hold a letter or a
    /// digit: `fox's` and `3.14` stay whole, punctuation and spaces go.
    #[default]
    Standard,
    /// Runs of non-whitespace (Unicode `White_Space`), punctuation included.
    Whitespace,
    /// The `min_gram..=max_gram` char n-grams of each standard word, shortest first; a word
    /// shorter than `min_gram` is its own only gram. Every gram of a word takes its position.
    Ngram,
}

impl Tokenizer {
    /// Every tokenizer, in the order messages list them.
    pub const ALL: [Tokenizer; 3] = [Tokenizer::Standard, Tokenizer::Whitespace, Tokenizer::Ngram];

    /// The tokenizer's name in the spec JSON.
    pub fn name(self) -> &'static str {
        match self {
            Tokenizer::Standard => "standard",
            Tokenizer::Whitespace => "whitespace",
            Tokenizer::Ngram => "ngram",
        }
    }
}

/// A rewrite of each word, applied in the spec's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", try_from = "String")]
pub enum Filter {
    /// Unicode lowercase, char by char. The final sigma `ς` becomes `σ` too: char by char
    /// cannot tell a final `Σ`, so both spellings must meet at `σ`.
    Lowercase,
    /// Latin letters to ASCII: a char whose compatibility decomposition (NFKD) is ASCII
    /// letters and marks becomes those letters (`é` → `e`, `ﬁ` → `fi`), a few letters
    /// with none become their usual spelling (`ß` → `ss`, `ł` → `l`), and marks after a
    /// folded letter go. Every other char, so every other script, stays as it is.
    AsciiFolding,
    /// Porter2 (Snowball English) stemming: `running` → `run`. It expects lowercase input.
    StemEn,
    /// Drops English stop words (Lucene's default set). It expects lowercase input. The
    /// position of a dropped word still counts, so phrases keep their gaps.
    StopEn,
}

impl Filter {
    /// Every filter, in the order messages list them.
    pub const ALL: [Filter; 4] = [Filter::Lowercase, Filter::AsciiFolding, Filter::StemEn, Filter::StopEn];

    /// The filter's name in the spec JSON.
    pub fn name(self) -> &'static str {
        match self {
            Filter::Lowercase => "lowercase",
            Filter::AsciiFolding => "ascii_folding",
            Filter::StemEn => "stem_en",
            Filter::StopEn => "stop_en",
        }
    }
}

impl FromStr for Tokenizer {
    type Err = UnknownName;

    fn from_str(s: &str) -> Result<Tokenizer, UnknownName> {
        parse_name("tokenizer", &Tokenizer::ALL, Tokenizer::name, s)
    }
}

impl TryFrom<String> for Tokenizer {
    type Error = UnknownName;

    fn try_from(s: String) -> Result<Tokenizer, UnknownName> {
        s.parse()
    }
}

impl fmt::Display for Tokenizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Filter {
    type Err = UnknownName;

    fn from_str(s: &str) -> Result<Filter, UnknownName> {
        parse_name("filter", &Filter::ALL, Filter::name, s)
    }
}

impl TryFrom<String> for Filter {
    type Error = UnknownName;

    fn try_from(s: String) -> Result<Filter, UnknownName> {
        s.parse()
    }
}

impl fmt::Display for Filter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What an analyzer does, as stored with a full-text index:
/// `{"tokenizer": "standard", "filters": ["lowercase"], "min_gram": 2, "max_gram": 3}`.
/// A missing key takes the value shown; the gram sizes matter only to `ngram`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AnalyzerSpec {
    /// How text is split into words.
    pub tokenizer: Tokenizer,
    /// Applied to each word in this order, each at most once.
    pub filters: Vec<Filter>,
    /// The shortest n-gram, in chars.
    pub min_gram: u32,
    /// The longest n-gram, in chars.
    pub max_gram: u32,
}

impl Default for AnalyzerSpec {
    fn default() -> AnalyzerSpec {
        AnalyzerSpec { tokenizer: Tokenizer::Standard, filters: vec![Filter::Lowercase], min_gram: 2, max_gram: 3 }
    }
}

impl AnalyzerSpec {
    /// Checks `1 <= min_gram <= max_gram <= MAX_GRAM` and that no filter repeats.
    pub fn validate(&self) -> Result<(), TextError> {
        if !(1..=self.max_gram).contains(&self.min_gram) || self.max_gram > MAX_GRAM {
            return Err(TextError::GramSizes { min_gram: self.min_gram, max_gram: self.max_gram });
        }
        for (i, &f) in self.filters.iter().enumerate() {
            if self.filters[..i].contains(&f) {
                return Err(TextError::DuplicateFilter(f));
            }
        }
        Ok(())
    }
}

/// One term of analyzed text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// The term, after the filters.
    pub text: String,
    /// The word's number in the text, from 0. Dropped and skipped words count too.
    pub position: u32,
    /// Byte offset in the input where the term's word (or n-gram) starts.
    pub start: usize,
    /// Byte offset in the input where it ends.
    pub end: usize,
}

/// Turns text into terms with positions, as a validated [`AnalyzerSpec`] says.
#[derive(Clone, Debug)]
pub struct Analyzer {
    spec: AnalyzerSpec,
}

impl Analyzer {
    /// Validates `spec` and builds its analyzer.
    pub fn new(spec: &AnalyzerSpec) -> Result<Analyzer, TextError> {
        spec.validate()?;
        Ok(Analyzer { spec: spec.clone() })
    }

    /// The spec this analyzer was built from.
    pub fn spec(&self) -> &AnalyzerSpec {
        &self.spec
    }

    /// Every term of `text` with its position and byte span.
    pub fn tokens(&self, text: &str) -> Vec<Token> {
        let mut out = Vec::new();
        self.run(text, |term, position, start, end| {
            out.push(Token { text: term.to_string(), position, start, end });
        });
        out
    }

    /// Calls `f(term, position)` for every term of `text`. One buffer serves every term,
    /// so nothing is allocated per term except by a stem that differs from its word.
    pub fn for_each_term(&self, text: &str, mut f: impl FnMut(&str, u32)) {
        self.run(text, |term, position, _, _| f(term, position));
    }

    /// `word` through only the case and accent filters, in the spec's order: a query prefix
    /// must match the start of indexed terms, and a stem of a prefix is no prefix of stems.
    pub(super) fn normalize(&self, word: &str) -> String {
        let mut term = word.to_string();
        let mut spare = String::new();
        for &f in &self.spec.filters {
            match f {
                Filter::Lowercase => lowercase(&mut term, &mut spare),
                Filter::AsciiFolding => fold_ascii(&mut term, &mut spare),
                Filter::StemEn | Filter::StopEn => {}
            }
        }
        term
    }

    /// Calls `emit(term, position, start, end)` for every term of `text`.
    fn run(&self, text: &str, mut emit: impl FnMut(&str, u32, usize, usize)) {
        let text = &text[..text.floor_char_boundary(MAX_TEXT_BYTES)];
        let mut work = Work { term: String::new(), spare: String::new(), stemmer: Stemmer::create(Algorithm::English) };
        let mut bounds = Vec::new();
        let mut position = 0u32;
        for_each_word(self.spec.tokenizer, text, |start, word| {
            if word.len() <= MAX_TOKEN_BYTES {
                if self.spec.tokenizer == Tokenizer::Ngram {
                    let (min, max) = (self.spec.min_gram as usize, self.spec.max_gram as usize);
                    for_each_gram(word, min, max, &mut bounds, |from, to| {
                        if work.filter(&self.spec.filters, &word[from..to]) {
                            emit(&work.term, position, start + from, start + to);
                        }
                    });
                } else if work.filter(&self.spec.filters, word) {
                    emit(&work.term, position, start, start + word.len());
                }
            }
            // At most MAX_TEXT_BYTES words, so this cannot overflow.
            position += 1;
        });
    }
}

/// Calls `f(start, word)` for each word `tokenizer` finds in `text` (n-grams come later).
fn for_each_word(tokenizer: Tokenizer, text: &str, mut f: impl FnMut(usize, &str)) {
    match tokenizer {
        Tokenizer::Standard | Tokenizer::Ngram => {
            for (start, word) in text.split_word_bound_indices() {
                if word.chars().any(char::is_alphanumeric) {
                    f(start, word);
                }
            }
        }
        Tokenizer::Whitespace => {
            let mut start = None;
            for (i, c) in text.char_indices() {
                match (c.is_whitespace(), start) {
                    (true, Some(s)) => {
                        f(s, &text[s..i]);
                        start = None;
                    }
                    (false, None) => start = Some(i),
                    _ => {}
                }
            }
            if let Some(s) = start {
                f(s, &text[s..]);
            }
        }
    }
}

/// Calls `f(from, to)` with the byte span of each `min..=max` char n-gram of `word`,
/// shortest first, or of the whole word when it has fewer than `min` chars. `bounds` is
/// scratch for the char boundaries.
fn for_each_gram(word: &str, min: usize, max: usize, bounds: &mut Vec<usize>, mut f: impl FnMut(usize, usize)) {
    bounds.clear();
    bounds.extend(word.char_indices().map(|(i, _)| i));
    bounds.push(word.len());
    let chars = bounds.len() - 1;
    if chars < min {
        f(0, word.len());
        return;
    }
    for n in min..=max.min(chars) {
        for w in bounds.windows(n + 1) {
            f(w[0], w[n]);
        }
    }
}

/// The per-call buffers of [`Analyzer::run`]: the term being built and a second buffer a
/// filter writes into before the two swap.
struct Work {
    term: String,
    spare: String,
    stemmer: Stemmer,
}

impl Work {
    /// Runs `filters` over `word` into `self.term`; false if a filter dropped it or it
    /// ended empty or longer than [`MAX_TOKEN_BYTES`].
    fn filter(&mut self, filters: &[Filter], word: &str) -> bool {
        self.term.clear();
        self.term.push_str(word);
        for &f in filters {
            match f {
                Filter::Lowercase => lowercase(&mut self.term, &mut self.spare),
                Filter::AsciiFolding => fold_ascii(&mut self.term, &mut self.spare),
                Filter::StemEn => {
                    // rust-stemmers returns the input borrowed when the stem is the word.
                    let stem = match self.stemmer.stem(&self.term) {
                        Cow::Owned(stem) => stem,
                        Cow::Borrowed(_) => continue,
                    };
                    self.term.clear();
                    self.term.push_str(&stem);
                }
                Filter::StopEn => {
                    if STOP_EN.binary_search(&self.term.as_str()).is_ok() {
                        return false;
                    }
                }
            }
        }
        !self.term.is_empty() && self.term.len() <= MAX_TOKEN_BYTES
    }
}

/// [`Filter::Lowercase`] of `term`, using `spare` as scratch.
fn lowercase(term: &mut String, spare: &mut String) {
    if term.is_ascii() {
        term.make_ascii_lowercase();
        return;
    }
    spare.clear();
    for c in term.chars() {
        match c {
            'ς' => spare.push('σ'),
            c => spare.extend(c.to_lowercase()),
        }
    }
    std::mem::swap(term, spare);
}

/// [`Filter::AsciiFolding`] of `term`, using `spare` as scratch. One char at a time, so a
/// char of another script is never half-folded: a whole NFKD pass would also decompose
/// Hangul and kana, which have no ASCII form.
fn fold_ascii(term: &mut String, spare: &mut String) {
    if term.is_ascii() {
        return;
    }
    spare.clear();
    // Whether the last base char folded: its marks go with it, others' marks stay.
    let mut folded = false;
    for c in term.chars() {
        if c.is_ascii() {
            spare.push(c);
            folded = true;
        } else if is_combining_mark(c) {
            if !folded {
                spare.push(c);
            }
        } else {
            let undo = spare.len();
            let mut ascii = true;
            decompose_compatible(c, |d| {
                if d.is_ascii() {
                    spare.push(d);
                } else if let Some(s) = fold_letter(d) {
                    spare.push_str(s);
                } else if !is_combining_mark(d) {
                    ascii = false;
                }
            });
            if !ascii {
                spare.truncate(undo);
                spare.push(c);
            }
            folded = ascii;
        }
    }
    std::mem::swap(term, spare);
}

/// The ASCII spelling of a Latin letter that has no decomposition.
fn fold_letter(c: char) -> Option<&'static str> {
    Some(match c {
        'ß' => "ss",
        'æ' => "ae",
        'Æ' => "AE",
        'œ' => "oe",
        'Œ' => "OE",
        'ø' => "o",
        'Ø' => "O",
        'đ' => "d",
        'Đ' => "D",
        'ł' => "l",
        'Ł' => "L",
        'þ' => "th",
        'Þ' => "TH",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn analyzer(tokenizer: Tokenizer, filters: &[Filter]) -> Analyzer {
        Analyzer::new(&AnalyzerSpec { tokenizer, filters: filters.to_vec(), ..AnalyzerSpec::default() }).unwrap()
    }

    fn terms(a: &Analyzer, text: &str) -> Vec<String> {
        a.tokens(text).into_iter().map(|t| t.text).collect()
    }

    fn tok(text: &str, position: u32, start: usize, end: usize) -> Token {
        Token { text: text.to_string(), position, start, end }
    }

    #[test]
    fn standard_tokenizer_keeps_words_and_numbers() {
        let a = analyzer(Tokenizer::Standard, &[]);
        let text = "The quick-brown fox's 2 jumps, café!";
        assert_eq!(
            a.tokens(text),
            vec![
                tok("The", 0, 0, 3),
                tok("quick", 1, 4, 9),
                tok("brown", 2, 10, 15),
                tok("fox's", 3, 16, 21),
                tok("2", 4, 22, 23),
                tok("jumps", 5, 24, 29),
                tok("café", 6, 31, 36),
            ]
        );
        for t in a.tokens(text) {
            assert_eq!(&text[t.start..t.end], t.text);
        }
    }

    #[test]
    fn default_spec_lowercases_standard_words() {
        let a = Analyzer::new(&AnalyzerSpec::default()).unwrap();
        assert_eq!(
            terms(&a, "The quick-brown fox's 2 jumps, café!"),
            ["the", "quick", "brown", "fox's", "2", "jumps", "café"]
        );
    }

    #[test]
    fn whitespace_tokenizer_splits_on_unicode_whitespace() {
        let a = analyzer(Tokenizer::Whitespace, &[]);
        assert_eq!(
            a.tokens("  quick-brown fox's\u{3000}café! "),
            vec![tok("quick-brown", 0, 2, 13), tok("fox's", 1, 14, 19), tok("café!", 2, 22, 28)]
        );
        assert!(a.tokens(" \t\n ").is_empty());
    }

    #[test]
    fn ngram_tokenizer_emits_grams_of_each_word_at_its_position() {
        let a = analyzer(Tokenizer::Ngram, &[Filter::Lowercase]);
        assert_eq!(
            a.tokens("a Cat"),
            vec![tok("a", 0, 0, 1), tok("ca", 1, 2, 4), tok("at", 1, 3, 5), tok("cat", 1, 2, 5)]
        );
        let spec = AnalyzerSpec { tokenizer: Tokenizer::Ngram, filters: vec![], min_gram: 2, max_gram: 2 };
        let a = Analyzer::new(&spec).unwrap();
        // Grams are cut at char boundaries, not bytes.
        assert_eq!(a.tokens("café"), vec![tok("ca", 0, 0, 2), tok("af", 0, 1, 3), tok("fé", 0, 2, 5)]);
    }

    #[test]
    fn lowercase_is_unicode_and_meets_final_sigma() {
        let a = analyzer(Tokenizer::Whitespace, &[Filter::Lowercase]);
        assert_eq!(terms(&a, "ÉCOLE MiXeD ΣΊΣΥΦΟΣ Σίσυφος"), ["école", "mixed", "σίσυφοσ", "σίσυφοσ"]);
    }

    #[test]
    fn ascii_folding_folds_latin_and_leaves_other_scripts() {
        let a = analyzer(Tokenizer::Whitespace, &[Filter::AsciiFolding]);
        assert_eq!(terms(&a, "Crème Brûlée Straße Łódź"), ["Creme", "Brulee", "Strasse", "Lodz"]);
        assert_eq!(terms(&a, "Ærø þing œuvre ǽ ﬁne Ａ e\u{301}"), ["AEro", "thing", "oeuvre", "ae", "fine", "A", "e"]);
        let others = "Москва Йогурт 東京 한국어 がぎ हिन्दी ελληνικά";
        assert_eq!(terms(&a, others), others.split(' ').collect::<Vec<_>>());
    }

    #[test]
    fn stem_en_is_porter2() {
        let a = analyzer(Tokenizer::Standard, &[Filter::Lowercase, Filter::StemEn]);
        assert_eq!(terms(&a, "running Jumps happiness cat"), ["run", "jump", "happi", "cat"]);
    }

    #[test]
    fn stop_en_drops_words_but_keeps_their_positions() {
        let a = analyzer(Tokenizer::Standard, &[Filter::Lowercase, Filter::StopEn]);
        let got: Vec<(String, u32)> =
            a.tokens("The cat is on the mat").into_iter().map(|t| (t.text, t.position)).collect();
        assert_eq!(got, [("cat".to_string(), 1), ("mat".to_string(), 5)]);
        // Filters run in the spec's order: before lowercase, "The" is no stop word.
        let a = analyzer(Tokenizer::Standard, &[Filter::StopEn, Filter::Lowercase]);
        assert_eq!(terms(&a, "The cat"), ["the", "cat"]);
        assert!(STOP_EN.is_sorted());
    }

    #[test]
    fn text_past_one_mib_is_not_analyzed() {
        let a = analyzer(Tokenizer::Whitespace, &[]);
        let text = format!("{}beyond", "w ".repeat(MAX_TEXT_BYTES / 2));
        let tokens = a.tokens(&text);
        assert_eq!(tokens.len(), MAX_TEXT_BYTES / 2);
        assert!(tokens.iter().all(|t| t.text == "w"));
        // The cut backs off to a char boundary: 'é' straddling the limit goes whole.
        assert!(a.tokens(&format!("{}é", " ".repeat(MAX_TEXT_BYTES - 1))).is_empty());
        assert_eq!(terms(&a, &format!("{}éa", " ".repeat(MAX_TEXT_BYTES - 2))), ["é"]);
    }

    #[test]
    fn tokens_over_255_bytes_are_skipped() {
        let a = analyzer(Tokenizer::Whitespace, &[Filter::Lowercase]);
        let (fits, over) = ("a".repeat(MAX_TOKEN_BYTES), "b".repeat(MAX_TOKEN_BYTES + 1));
        let got: Vec<(String, u32)> =
            a.tokens(&format!("{fits} {over} next")).into_iter().map(|t| (t.text, t.position)).collect();
        assert_eq!(got, [(fits, 0), ("next".to_string(), 2)]);
        // 'İ' lowercases to 3 bytes: 254 bytes in, 381 out, so the term is skipped.
        assert_eq!(terms(&a, &format!("{} x", "İ".repeat(127))), ["x"]);
    }

    #[test]
    fn for_each_term_matches_tokens() {
        let a = analyzer(Tokenizer::Standard, &[Filter::Lowercase, Filter::StopEn, Filter::StemEn]);
        let text = "The runners were running to the Café";
        let mut seen = Vec::new();
        a.for_each_term(text, |t, p| seen.push((t.to_string(), p)));
        let want: Vec<(String, u32)> = a.tokens(text).into_iter().map(|t| (t.text, t.position)).collect();
        assert_eq!(seen, want);
        assert_eq!(terms(&a, text), ["runner", "were", "run", "café"]);
    }

    #[test]
    fn prefix_normalization_folds_but_never_stems() {
        let a = analyzer(Tokenizer::Standard, &[Filter::Lowercase, Filter::AsciiFolding, Filter::StemEn]);
        assert_eq!(a.normalize("Running-Pré"), "running-pre");
        assert_eq!(analyzer(Tokenizer::Standard, &[]).normalize("Pré"), "Pré");
    }

    #[test]
    fn spec_json_round_trips_with_defaults() {
        let spec: AnalyzerSpec = serde_json::from_str("{}").unwrap();
        assert_eq!(spec, AnalyzerSpec::default());
        assert_eq!(
            serde_json::to_string(&spec).unwrap(),
            r#"{"tokenizer":"standard","filters":["lowercase"],"min_gram":2,"max_gram":3}"#
        );
        let text = r#"{"tokenizer":"ngram","filters":["ascii_folding","lowercase","stem_en","stop_en"],"min_gram":1,"max_gram":8}"#;
        let spec: AnalyzerSpec = serde_json::from_str(text).unwrap();
        assert_eq!(spec.tokenizer, Tokenizer::Ngram);
        assert_eq!(spec.filters, [Filter::AsciiFolding, Filter::Lowercase, Filter::StemEn, Filter::StopEn]);
        assert_eq!(serde_json::to_string(&spec).unwrap(), text);
        spec.validate().unwrap();
    }

    #[test]
    fn spec_json_names_unknown_values() {
        let err = |text: &str| serde_json::from_str::<AnalyzerSpec>(text).unwrap_err().to_string();
        assert!(
            err(r#"{"tokenizer":"icu"}"#)
                .starts_with(r#"unknown tokenizer "icu"; expected standard, whitespace, ngram"#)
        );
        assert!(
            err(r#"{"filters":["lowercase","snowball"]}"#)
                .starts_with(r#"unknown filter "snowball"; expected lowercase, ascii_folding, stem_en, stop_en"#)
        );
        assert!(err(r#"{"stemmer":"en"}"#).starts_with("unknown field `stemmer`"));
        assert_eq!("whitespace".parse::<Tokenizer>(), Ok(Tokenizer::Whitespace));
        assert_eq!("stop_en".parse::<Filter>(), Ok(Filter::StopEn));
    }

    #[test]
    fn validation_errors_say_what_is_wrong() {
        let err = |spec: AnalyzerSpec| Analyzer::new(&spec).unwrap_err().to_string();
        let grams = |min_gram, max_gram| AnalyzerSpec { min_gram, max_gram, ..AnalyzerSpec::default() };
        assert_eq!(
            err(grams(0, 3)),
            "n-gram sizes must satisfy 1 <= min_gram <= max_gram <= 8; got min_gram 0, max_gram 3"
        );
        assert_eq!(
            err(grams(4, 3)),
            "n-gram sizes must satisfy 1 <= min_gram <= max_gram <= 8; got min_gram 4, max_gram 3"
        );
        assert_eq!(
            err(grams(2, 9)),
            "n-gram sizes must satisfy 1 <= min_gram <= max_gram <= 8; got min_gram 2, max_gram 9"
        );
        grams(1, 1).validate().unwrap();
        grams(8, 8).validate().unwrap();
        let filters = vec![Filter::Lowercase, Filter::StemEn, Filter::Lowercase];
        assert_eq!(
            err(AnalyzerSpec { filters, ..AnalyzerSpec::default() }),
            "filter lowercase is listed twice; each filter applies once"
        );
    }

    fn any_text() -> impl Strategy<Value = String> {
        let c = prop_oneof![
            any::<char>(),
            proptest::char::range('a', 'z'),
            proptest::sample::select(vec![' ', '\'', '-', 'é', 'ß', 'İ', 'Σ', '\u{301}', '\u{94d}', '한', 'ﬁ', 'ς']),
        ];
        proptest::collection::vec(c, 0..80).prop_map(|cs| cs.into_iter().collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        /// Any text analyzes without a panic (rust-stemmers has panicked on non-ASCII
        /// words in other languages), into bounded terms whose spans slice the input.
        #[test]
        fn any_text_gives_sound_tokens(text in any_text(), tokenizer in proptest::sample::select(Tokenizer::ALL.to_vec())) {
            let spec = AnalyzerSpec { tokenizer, filters: Filter::ALL.to_vec(), min_gram: 1, max_gram: 3 };
            let mut last = 0;
            for t in Analyzer::new(&spec).unwrap().tokens(&text) {
                prop_assert!(!t.text.is_empty() && t.text.len() <= MAX_TOKEN_BYTES);
                prop_assert!(t.start < t.end && text.get(t.start..t.end).is_some());
                prop_assert!(t.position >= last);
                last = t.position;
            }
        }
    }
}
