//! `field MATCH 'text'`: whether a row's text holds every clause of a text query, both
//! analysed by the field's full-text analyzer: row by row, or through a segment's
//! full-text index (postings intersected, phrases then checked on the rows left).

use roaring::RoaringBitmap;

use crate::index::fulltext::{END, FullTextIndex};
use crate::schema::TextIndex;
use crate::storage::column::{ColumnData, ScalarColumn};
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

impl TextMatch {
    /// The rows of a segment whose text holds every clause, from its full-text index
    /// `index` over `column`: each clause's postings (a word's any term, a prefix's every
    /// term, a phrase's all terms), intersected; rows a phrase clause selects are then
    /// checked for the terms' positions against their text. `None` when the index was
    /// made by another analyzer or the query has no clause (a scan answers those).
    pub(crate) fn index_hits(&self, index: &FullTextIndex, column: ScalarColumn) -> Option<RoaringBitmap> {
        if index.analyzer() != self.analyzer.spec() || self.clauses.is_empty() {
            return None;
        }
        let rows_of = |t: usize| {
            let mut p = index.postings(t);
            let mut rows = Vec::with_capacity(index.doc_freq(t) as usize);
            while p.doc() != END {
                rows.push(p.doc());
                p.advance(p.doc() + 1);
            }
            RoaringBitmap::from_sorted_iter(rows).expect("postings ascend")
        };
        let any_of = |terms: &mut dyn Iterator<Item = usize>| -> RoaringBitmap {
            use roaring::MultiOps;
            terms.map(rows_of).union()
        };
        let mut hits: Option<RoaringBitmap> = None;
        for c in &self.clauses {
            let rows = match c {
                Clause::Terms(ts) => any_of(&mut ts.iter().filter_map(|t| index.find(t))),
                Clause::Prefix(p) => any_of(&mut index.with_prefix(p)),
                Clause::Phrase(ph) => {
                    let mut all = ph.iter().map(|pt| index.find(&pt.term).map(rows_of).unwrap_or_default());
                    let first = all.next().unwrap_or_default();
                    all.fold(first, |acc, r| acc & r)
                }
            };
            let hits = hits.get_or_insert(rows.clone());
            *hits &= rows;
        }
        let mut hits = hits.unwrap_or_default();
        if self.clauses.iter().any(|c| matches!(c, Clause::Phrase(_))) {
            let ColumnData::String(strings) = column.data else { return None };
            hits = hits.into_iter().filter(|&r| self.matches(strings.get(r as usize))).collect();
        }
        Some(hits)
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
