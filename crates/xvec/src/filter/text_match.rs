//! `field MATCH 'text'`: whether a row's text holds every clause of a text query, both
//! analysed by the field's full-text analyzer.

use crate::schema::TextIndex;
use crate::text::{Analyzer, Clause, TextQuery};

/// A compiled `MATCH`: the analyzer and the query's clauses, all of which a row's text
/// must hold.
#[derive(Debug)]
pub(crate) struct TextMatch {
    analyzer: Analyzer,
    clauses: Vec<Clause>,
}

impl TextMatch {
    /// Parses `text` with the analyzer of `index`; the error says what is wrong and where.
    pub(crate) fn compile(index: &TextIndex, text: &str) -> Result<TextMatch, String> {
        let analyzer = Analyzer::new(&index.analyzer).map_err(|e| e.to_string())?;
        let query = TextQuery::parse(text, &analyzer).map_err(|e| e.to_string())?;
        Ok(TextMatch { clauses: query.clauses().to_vec(), analyzer })
    }

    /// Whether `text` holds every clause: a word (any of its terms), a phrase (its terms at
    /// their offsets from one start) or a prefix (some term starting with it). A query of
    /// stop words only has no clause, and matches every text, as it constrains nothing.
    pub(crate) fn matches(&self, text: &[u8]) -> bool {
        let text = String::from_utf8_lossy(text);
        // Only the terms some clause can use are kept: most of a row's terms are none.
        let mut terms: Vec<(String, u32)> = Vec::new();
        self.analyzer.for_each_term(&text, |t, pos| {
            if self.clauses.iter().any(|c| uses(c, t)) {
                terms.push((t.to_string(), pos));
            }
        });
        let has = |t: &str, pos: u32| terms.iter().any(|(x, p)| x == t && *p == pos);
        self.clauses.iter().all(|c| match c {
            Clause::Terms(ts) => ts.iter().any(|t| terms.iter().any(|(x, _)| x == t)),
            Clause::Prefix(p) => terms.iter().any(|(x, _)| x.starts_with(p.as_str())),
            Clause::Phrase(ph) => {
                // Offsets count from the first term, which sits at 0.
                let Some(first) = ph.first() else { return true };
                terms
                    .iter()
                    .filter(|(x, _)| *x == first.term)
                    .any(|&(_, start)| ph.iter().all(|pt| has(&pt.term, start + pt.offset)))
            }
        })
    }
}

/// Whether `clause` can hold because of the term `t`.
fn uses(clause: &Clause, t: &str) -> bool {
    match clause {
        Clause::Terms(ts) => ts.iter().any(|x| x == t),
        Clause::Prefix(p) => t.starts_with(p.as_str()),
        Clause::Phrase(ph) => ph.iter().any(|pt| pt.term == t),
    }
}
