//! The text of a text search (or a filter's MATCH), parsed into clauses of analyzed terms:
//! `cat "hot dog" pre*` is a word, a phrase and a prefix. Scoring and matching happen
//! elsewhere; this only parses, analyzes and bounds.

use super::{Analyzer, TextError};

/// The most words, phrases and prefixes one query may hold: each costs a postings walk.
pub const MAX_CLAUSES: usize = 64;

/// The longest query text, in bytes.
pub const MAX_QUERY_BYTES: usize = 1024;

/// A parsed text query: its clauses in the order written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextQuery {
    clauses: Vec<Clause>,
}

/// One part of a text query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Clause {
    /// A bare word's terms (one word may analyze to several, as `quick-brown` or n-grams
    /// do): any may match, and each that does adds to the score.
    Terms(Vec<String>),
    /// A quoted phrase: terms that must appear at these positions relative to each other.
    Phrase(Vec<PhraseTerm>),
    /// A word ending in `*`: matches every term that starts with this text. It went through
    /// the analyzer's lowercase and ascii_folding filters only, never a stemmer.
    Prefix(String),
}

/// A term of a phrase and where it must sit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PhraseTerm {
    /// The analyzed term.
    pub term: String,
    /// Its position minus that of the phrase's first term, so dropped stop words leave gaps.
    pub offset: u32,
}

impl TextQuery {
    /// Parses `text` as whitespace-separated words, `"quoted phrases"` and `prefix*`es,
    /// analyzing each with `analyzer`, the one the searched index was built with. A word or
    /// phrase that analyzes to nothing (a stop word) adds no clause.
    pub fn parse(text: &str, analyzer: &Analyzer) -> Result<TextQuery, TextError> {
        if text.len() > MAX_QUERY_BYTES {
            return Err(TextError::QueryTooLong { len: text.len(), max: MAX_QUERY_BYTES });
        }
        let mut clauses = Vec::new();
        let mut seen = 0;
        let mut at = 0;
        while let Some(skip) = text[at..].find(|c: char| !c.is_whitespace()) {
            let start = at + skip;
            let column = start + 1;
            seen += 1;
            if seen > MAX_CLAUSES {
                return Err(TextError::TooManyClauses { column, max: MAX_CLAUSES });
            }
            let clause = if let Some(rest) = text[start..].strip_prefix('"') {
                let len = rest.find('"').ok_or(TextError::UnterminatedQuote { column })?;
                at = start + len + 2;
                let body = &rest[..len];
                if body.trim().is_empty() {
                    return Err(TextError::EmptyPhrase { column });
                }
                phrase(body, analyzer)
            } else {
                let len = text[start..].find(|c: char| c.is_whitespace() || c == '"').unwrap_or(text.len() - start);
                at = start + len;
                word(&text[start..at], column, analyzer)?
            };
            clauses.extend(clause);
        }
        Ok(TextQuery { clauses })
    }

    /// The clauses, in the order written. Empty when every word was a stop word.
    pub fn clauses(&self) -> &[Clause] {
        &self.clauses
    }
}

/// A bare word (no whitespace or `"`), `column` being where it starts.
fn word(raw: &str, column: usize, analyzer: &Analyzer) -> Result<Option<Clause>, TextError> {
    if raw.ends_with('*') {
        let prefix = raw.trim_end_matches('*');
        if prefix.is_empty() {
            return Err(TextError::LonePrefix { column });
        }
        return Ok(Some(Clause::Prefix(analyzer.normalize(prefix))));
    }
    let mut terms = Vec::new();
    analyzer.for_each_term(raw, |term, _| terms.push(term.to_string()));
    Ok((!terms.is_empty()).then_some(Clause::Terms(terms)))
}

/// The text between a phrase's quotes.
fn phrase(body: &str, analyzer: &Analyzer) -> Option<Clause> {
    let mut terms = Vec::new();
    let mut first = None;
    analyzer.for_each_term(body, |term, position| {
        let first = *first.get_or_insert(position);
        terms.push(PhraseTerm { term: term.to_string(), offset: position - first });
    });
    (!terms.is_empty()).then_some(Clause::Phrase(terms))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{AnalyzerSpec, Filter, Tokenizer};

    fn analyzer(filters: &[Filter]) -> Analyzer {
        Analyzer::new(&AnalyzerSpec { filters: filters.to_vec(), ..AnalyzerSpec::default() }).unwrap()
    }

    fn parse(text: &str) -> Result<Vec<Clause>, String> {
        let a = analyzer(&[Filter::Lowercase]);
        TextQuery::parse(text, &a).map(|q| q.clauses().to_vec()).map_err(|e| e.to_string())
    }

    fn terms(ts: &[&str]) -> Clause {
        Clause::Terms(ts.iter().map(|t| t.to_string()).collect())
    }

    fn phrase(ts: &[(&str, u32)]) -> Clause {
        Clause::Phrase(ts.iter().map(|&(t, offset)| PhraseTerm { term: t.to_string(), offset }).collect())
    }

    #[test]
    fn parses_words_phrases_and_prefixes() {
        let want = vec![terms(&["cat"]), phrase(&[("hot", 0), ("dog", 1)]), Clause::Prefix("pre".into())];
        assert_eq!(parse(r#"cat "hot dog" pre* "#), Ok(want.clone()));
        assert_eq!(parse("\tCat\"Hot  DOG\"PRE*"), Ok(want));
        assert_eq!(parse("quick-brown"), Ok(vec![terms(&["quick", "brown"])]));
        assert_eq!(parse("  "), Ok(vec![]));
    }

    #[test]
    fn stop_words_leave_gaps_and_prefixes_are_not_stemmed() {
        let a = analyzer(&[Filter::Lowercase, Filter::AsciiFolding, Filter::StopEn, Filter::StemEn]);
        let q = TextQuery::parse(r#"The Running "the hot and spicy dogs" "to be" Pré* Running*"#, &a).unwrap();
        assert_eq!(
            q.clauses(),
            [
                terms(&["run"]),
                phrase(&[("hot", 0), ("spici", 2), ("dog", 3)]),
                Clause::Prefix("pre".into()),
                Clause::Prefix("running".into()),
            ]
        );
        // Without case filters a prefix is taken as written.
        let a = analyzer(&[]);
        let q = TextQuery::parse("Pré**", &a).unwrap();
        assert_eq!(q.clauses(), [Clause::Prefix("Pré".into())]);
    }

    #[test]
    fn ngram_words_give_every_gram() {
        let spec = AnalyzerSpec { tokenizer: Tokenizer::Ngram, ..AnalyzerSpec::default() };
        let q = TextQuery::parse("Cat", &Analyzer::new(&spec).unwrap()).unwrap();
        assert_eq!(q.clauses(), [terms(&["ca", "at", "cat"])]);
    }

    #[test]
    fn errors_give_the_byte_column() {
        assert_eq!(parse(r#"cat "hot dog"#), Err("text query, column 5: unterminated quote".into()));
        assert_eq!(parse("é \"x"), Err("text query, column 4: unterminated quote".into()));
        assert_eq!(parse(r#"cat """#), Err("text query, column 5: empty phrase".into()));
        assert_eq!(parse("cat \" \t \""), Err("text query, column 5: empty phrase".into()));
        assert_eq!(parse("cat *"), Err("text query, column 5: '*' needs at least one character before it".into()));
        assert_eq!(parse("** cat"), Err("text query, column 1: '*' needs at least one character before it".into()));
    }

    #[test]
    fn bounds_clauses_and_length() {
        let words = "w ".repeat(MAX_CLAUSES);
        assert_eq!(parse(&words).unwrap().len(), MAX_CLAUSES);
        let over = format!("{words}\"last one\"");
        assert_eq!(
            parse(&over),
            Err(format!("text query, column {}: more than 64 words, phrases and prefixes", words.len() + 1))
        );
        let long = "x".repeat(MAX_QUERY_BYTES);
        assert_eq!(parse(&long), Ok(vec![]), "one word over 255 bytes is no term");
        assert_eq!(parse(&format!("{long}y")), Err("text query of 1025 bytes; at most 1024 are allowed".into()));
    }
}
