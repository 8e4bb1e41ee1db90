//! BM25 weights as sparse vectors: a corpus's vocabulary, with its document frequencies and
//! lengths, turns a text into the vector whose inner product with a query's term vector is
//! the text's BM25 score, so a sparse field ranks like a full-text index with statistics
//! frozen at the time the vocabulary was made.
//!
//! The vocabulary is a text file made to be committed beside the data it came from: a JSON
//! header line, then one `term<TAB>document frequency` line per term, sorted by term. A
//! term's dimension is its line's number among the term lines, from 0:
//!
//! ```text
//! {"format":"xvec-bm25-vocabulary","version":1,"documents":3,"total_length":9,"k1":1.2,"b":0.75,"analyzer":{...}}
//! cat<TAB>2
//! dog<TAB>1
//! ```

use std::collections::HashMap;
use std::io::Write;

use serde_json::{Value as Json, json};

use super::{MAX_SPARSE_LEN, SparseVector};
use crate::text::{Analyzer, AnalyzerSpec, Bm25, MAX_TOKEN_BYTES, TextError};

/// The header's `format`.
const FORMAT: &str = "xvec-bm25-vocabulary";
/// The header's `version`.
const VERSION: u64 = 1;

/// A vocabulary file that cannot be read: the line (1-based) and what is wrong with it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("line {line}: {what}")]
#[non_exhaustive]
pub struct VocabularyError {
    /// 1-based line number; the header is line 1.
    pub line: usize,
    /// What is wrong, and what was expected.
    pub what: String,
}

fn bad(line: usize, what: impl Into<String>) -> VocabularyError {
    VocabularyError { line, what: what.into() }
}

/// A corpus's terms with their document frequencies, its size and average length, and
/// the analyzer and BM25 parameters that made them.
#[derive(Clone, Debug)]
pub struct Bm25Vocabulary {
    analyzer: Analyzer,
    bm25: Bm25,
    documents: u64,
    total_length: u64,
    /// Term → dimension; `terms[dimension]` is the term and its document frequency.
    ids: HashMap<String, u32>,
    terms: Vec<(String, u64)>,
}

impl Bm25Vocabulary {
    /// The vocabulary of `texts`, each one document, analyzed by `analyzer`.
    pub fn build<'a>(
        analyzer: &AnalyzerSpec,
        bm25: Bm25,
        texts: impl IntoIterator<Item = &'a str>,
    ) -> Result<Bm25Vocabulary, TextError> {
        let analyzer = Analyzer::new(analyzer)?;
        bm25.validate()?;
        let mut doc_freq: HashMap<String, u64> = HashMap::new();
        let (mut documents, mut total_length) = (0u64, 0u64);
        let mut seen: Vec<String> = Vec::new();
        for text in texts {
            documents += 1;
            seen.clear();
            analyzer.for_each_term(text, |t, _| {
                total_length += 1;
                seen.push(t.to_string());
            });
            seen.sort_unstable();
            seen.dedup();
            for t in seen.drain(..) {
                *doc_freq.entry(t).or_default() += 1;
            }
        }
        let mut terms: Vec<(String, u64)> = doc_freq.into_iter().collect();
        terms.sort_unstable();
        Ok(Bm25Vocabulary::assemble(analyzer, bm25, documents, total_length, terms))
    }

    fn assemble(
        analyzer: Analyzer,
        bm25: Bm25,
        documents: u64,
        total_length: u64,
        terms: Vec<(String, u64)>,
    ) -> Bm25Vocabulary {
        let ids = terms.iter().enumerate().map(|(i, (t, _))| (t.clone(), i as u32)).collect();
        Bm25Vocabulary { analyzer, bm25, documents, total_length, ids, terms }
    }

    /// Terms in the vocabulary.
    pub fn len(&self) -> usize {
        self.terms.len()
    }

    /// Whether it has no terms.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// Documents in the corpus it was made from.
    pub fn documents(&self) -> u64 {
        self.documents
    }

    /// The corpus's average document length in terms (0 for an empty corpus).
    pub fn average_length(&self) -> f32 {
        if self.documents > 0 { self.total_length as f32 / self.documents as f32 } else { 0.0 }
    }

    /// The analyzer terms are made with.
    pub fn analyzer(&self) -> &AnalyzerSpec {
        self.analyzer.spec()
    }

    /// BM25's `k1` and `b`.
    pub fn bm25(&self) -> Bm25 {
        self.bm25
    }

    /// The dimension of `term`, if the vocabulary has it.
    pub fn dimension(&self, term: &str) -> Option<u32> {
        self.ids.get(term).copied()
    }

    /// `text`'s BM25 weights: per vocabulary term in it, the term's BM25 score in a
    /// document of `text`'s length. Terms outside the vocabulary count toward the length
    /// but get no dimension. Refused when more than [`MAX_SPARSE_LEN`] terms remain.
    pub fn document(&self, text: &str) -> Result<SparseVector, String> {
        let mut ids: Vec<u32> = Vec::new();
        let mut length = 0u32;
        self.analyzer.for_each_term(text, |t, _| {
            length += 1;
            ids.extend(self.ids.get(t));
        });
        ids.sort_unstable();
        let runs: Vec<(u32, u32)> = ids.chunk_by(|a, b| a == b).map(|r| (r[0], r.len() as u32)).collect();
        if runs.len() > MAX_SPARSE_LEN {
            return Err(format!("{} distinct terms; a sparse vector holds at most {MAX_SPARSE_LEN}", runs.len()));
        }
        let avg = self.average_length();
        SparseVector::new(runs.into_iter().map(|(id, tf)| {
            let idf = Bm25::idf(self.documents, self.terms[id as usize].1);
            (id, self.bm25.term_score(idf, tf, length, avg))
        }))
    }

    /// A query's vector: each distinct vocabulary term of `text` at weight 1, so its inner
    /// product with [`Bm25Vocabulary::document`] is BM25 with OR semantics. Terms beyond the
    /// first [`MAX_SPARSE_LEN`] distinct ones are dropped.
    pub fn query(&self, text: &str) -> SparseVector {
        let mut ids: Vec<u32> = Vec::new();
        self.analyzer.for_each_term(text, |t, _| ids.extend(self.ids.get(t)));
        ids.sort_unstable();
        ids.dedup();
        ids.truncate(MAX_SPARSE_LEN);
        SparseVector::new(ids.into_iter().map(|i| (i, 1.0))).expect("distinct dimensions, finite values")
    }

    /// Writes the vocabulary file.
    pub fn write_to(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let mut header = serde_json::Map::new();
        header.insert("format".into(), FORMAT.into());
        header.insert("version".into(), VERSION.into());
        header.insert("documents".into(), self.documents.into());
        header.insert("total_length".into(), self.total_length.into());
        header.extend(self.bm25.json_members().map(|(k, v)| (k.to_string(), v)));
        header.insert("analyzer".into(), json!(self.analyzer.spec()));
        let header = Json::Object(header);
        writeln!(out, "{header}")?;
        for (term, df) in &self.terms {
            writeln!(out, "{term}\t{df}")?;
        }
        Ok(())
    }

    /// Reads a vocabulary file's text; an error names the line and what it expected.
    pub fn parse(text: &str) -> Result<Bm25Vocabulary, VocabularyError> {
        let mut lines = text.lines();
        let header: Json = serde_json::from_str(lines.next().unwrap_or_default())
            .map_err(|e| bad(1, format!("the header is not JSON ({e}); expected {{\"format\":\"{FORMAT}\",...}}")))?;
        let obj = header.as_object().ok_or_else(|| bad(1, "the header is not a JSON object"))?;
        if obj.get("format").and_then(Json::as_str) != Some(FORMAT) {
            return Err(bad(1, format!("`format` is not \"{FORMAT}\"; is this a vocabulary file?")));
        }
        if obj.get("version").and_then(Json::as_u64) != Some(VERSION) {
            return Err(bad(1, format!("`version` {} is not {VERSION}", obj.get("version").unwrap_or(&Json::Null))));
        }
        let count =
            |key: &str| obj.get(key).and_then(Json::as_u64).ok_or_else(|| bad(1, format!("`{key}` is not a count")));
        let (documents, total_length) = (count("documents")?, count("total_length")?);
        let number = |key: &str| {
            obj.get(key)
                .and_then(Json::as_f64)
                .map(|x| x as f32)
                .ok_or_else(|| bad(1, format!("`{key}` is not a number")))
        };
        let bm25 = Bm25 { k1: number("k1")?, b: number("b")? };
        bm25.validate().map_err(|e| bad(1, e.to_string()))?;
        let spec: AnalyzerSpec = serde_json::from_value(obj.get("analyzer").cloned().unwrap_or(Json::Null))
            .map_err(|e| bad(1, format!("`analyzer`: {e}")))?;
        let analyzer = Analyzer::new(&spec).map_err(|e| bad(1, format!("`analyzer`: {e}")))?;
        if let Some(k) = obj
            .keys()
            .find(|k| !["format", "version", "documents", "total_length", "k1", "b", "analyzer"].contains(&k.as_str()))
        {
            return Err(bad(1, format!("unknown header key `{k}`")));
        }

        let mut terms: Vec<(String, u64)> = Vec::new();
        for (n, line) in lines.enumerate() {
            let at = n + 2;
            let (term, df) = line.split_once('\t').ok_or_else(|| bad(at, "expected TERM<TAB>DOCUMENT FREQUENCY"))?;
            if term.is_empty() || term.len() > MAX_TOKEN_BYTES {
                return Err(bad(at, format!("a term is 1 to {MAX_TOKEN_BYTES} bytes; got {}", term.len())));
            }
            let df: u64 = df.parse().map_err(|_| bad(at, format!("document frequency {df:?} is not a count")))?;
            if df == 0 || df > documents {
                return Err(bad(at, format!("document frequency {df} of `{term}` is outside 1..={documents}")));
            }
            if let Some((prev, _)) = terms.last()
                && prev.as_str() >= term
            {
                return Err(bad(at, format!("`{term}` is not after `{prev}`; terms are sorted and unique")));
            }
            if terms.len() > u32::MAX as usize {
                return Err(bad(at, "more than 2^32 terms"));
            }
            terms.push((term.to_string(), df));
        }
        Ok(Bm25Vocabulary::assemble(analyzer, bm25, documents, total_length, terms))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{Filter, Tokenizer};

    const CORPUS: [&str; 4] = ["The cat sat on the mat", "Dogs chase cats", "a cat, a dog and a bird", ""];

    fn spec() -> AnalyzerSpec {
        AnalyzerSpec {
            tokenizer: Tokenizer::Standard,
            filters: vec![Filter::Lowercase, Filter::StemEn],
            ..Default::default()
        }
    }

    /// BM25 written out from its definition, over the analyzed corpus.
    fn reference_score(query: &str, doc: usize) -> f32 {
        let a = Analyzer::new(&spec()).unwrap();
        let terms = |t: &str| a.tokens(t).into_iter().map(|t| t.text).collect::<Vec<_>>();
        let docs: Vec<Vec<String>> = CORPUS.iter().map(|t| terms(t)).collect();
        let avg = docs.iter().map(Vec::len).sum::<usize>() as f32 / docs.len() as f32;
        let mut q = terms(query);
        q.sort();
        q.dedup();
        q.iter()
            .map(|t| {
                let n = docs.iter().filter(|d| d.contains(t)).count() as f32;
                let idf = (1.0 + (docs.len() as f32 - n + 0.5) / (n + 0.5)).ln();
                let tf = docs[doc].iter().filter(|d| *d == t).count() as f32;
                let len = docs[doc].len() as f32;
                idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * len / avg))
            })
            .sum()
    }

    #[test]
    fn document_times_query_is_bm25() {
        let v = Bm25Vocabulary::build(&spec(), Bm25::default(), CORPUS).unwrap();
        assert_eq!(v.documents(), 4);
        assert_eq!(v.dimension("cat"), Some(3), "terms sorted: a, and, bird, cat, chase, ...");
        for query in ["cat", "cats and dogs", "bird mat", "unknown words", "the"] {
            let q = v.query(query);
            for (i, text) in CORPUS.iter().enumerate() {
                let got = v.document(text).unwrap().dot(&q);
                let want = reference_score(query, i);
                assert!((got - want).abs() < 1e-5, "{query:?} on doc {i}: {got} vs {want}");
            }
        }
        assert!(v.document("").unwrap().is_empty());
    }

    #[test]
    fn reads_what_it_writes() {
        let v = Bm25Vocabulary::build(&spec(), Bm25 { k1: 0.9, b: 0.4 }, CORPUS).unwrap();
        let mut text = Vec::new();
        v.write_to(&mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        let again = Bm25Vocabulary::parse(&text).unwrap();
        assert_eq!((again.documents(), again.len(), again.bm25()), (4, v.len(), v.bm25()));
        assert_eq!(again.analyzer(), v.analyzer());
        assert_eq!(again.document(CORPUS[2]).unwrap(), v.document(CORPUS[2]).unwrap());
        assert_eq!(text.lines().nth(1), Some("a\t1"), "the first term, sorted, with its document frequency");
    }

    #[test]
    fn a_bad_file_names_its_line() {
        let v = Bm25Vocabulary::build(&spec(), Bm25::default(), CORPUS).unwrap();
        let mut good = Vec::new();
        v.write_to(&mut good).unwrap();
        let good = String::from_utf8(good).unwrap();
        let header = good.lines().next().unwrap();
        let cases = [
            (String::new(), 1, "not JSON"),
            ("[]".to_string(), 1, "not a JSON object"),
            (header.replace(FORMAT, "other"), 1, "format"),
            (header.replace("\"version\":1", "\"version\":2"), 1, "version"),
            (header.replace("\"documents\":4", "\"documents\":-4"), 1, "`documents`"),
            (header.replace("\"k1\":1.2", "\"k1\":-1"), 1, "k1"),
            (header.replace("stem_en", "stem_xx"), 1, "analyzer"),
            (header.replace("{\"format\"", "{\"extra\":1,\"format\""), 1, "unknown header key `extra`"),
            (format!("{header}\ncat 2"), 2, "TAB"),
            (format!("{header}\n\t2"), 2, "1 to 255 bytes"),
            (format!("{header}\ncat\tmany"), 2, "not a count"),
            (format!("{header}\ncat\t5"), 2, "outside 1..=4"),
            (format!("{header}\ncat\t0"), 2, "outside 1..=4"),
            (format!("{header}\ncat\t1\nbird\t1"), 3, "not after `cat`"),
            (format!("{header}\ncat\t1\ncat\t1"), 3, "not after `cat`"),
        ];
        for (text, line, what) in cases {
            let e = Bm25Vocabulary::parse(&text).unwrap_err();
            assert_eq!(e.line, line, "{text:?}: {e}");
            assert!(e.to_string().contains(what), "{text:?}: {e}");
        }
    }

    #[test]
    fn a_document_with_too_many_terms_is_refused() {
        let text: String = (0..MAX_SPARSE_LEN + 1).map(|i| format!("w{i} ")).collect();
        let v = Bm25Vocabulary::build(&AnalyzerSpec::default(), Bm25::default(), [text.as_str()]).unwrap();
        assert!(v.document(&text).unwrap_err().contains("at most 16384"));
        assert_eq!(v.query(&text).len(), MAX_SPARSE_LEN);
    }
}
