//! Full-text ranking by BM25 over a string field with a full-text index, exact. A segment
//! with its index file is searched by block-max WAND over its postings; the memtable (and
//! a segment whose index is not built yet) is scanned, every live row's text analysed at
//! query time. The statistics (live documents with text, their average length, each
//! term's document frequency) are the whole snapshot's, never a segment's: each index's
//! counts minus its deleted rows', plus what the scans count. So a collection ranks the
//! same however its rows are split into segments, and deleted rows never count.

use std::collections::HashMap;

use roaring::RoaringBitmap;

use super::query::candidates;
use super::snapshot::{Snapshot, Source};
use crate::error::{Error, QueryError};
use crate::filter::Filter;
use crate::index::fulltext::wand::{self, Term};
use crate::index::fulltext::{END, FullTextIndex};
use crate::index::{Candidate, Sink, TopK};
use crate::schema::{Schema, TextIndex};
use crate::storage::column::ColumnData;
use crate::text::{Analyzer, Bm25};

/// Most distinct terms a text query may hold.
pub const MAX_QUERY_TERMS: usize = 64;

/// Resolves the full-text field a text query searches: `name`, or the schema's only one.
pub(crate) fn resolve_text_field(schema: &Schema, name: Option<&str>) -> Result<usize, QueryError> {
    match name {
        Some(n) => schema
            .index_of(n)
            .filter(|&i| schema.field(i).text.is_some())
            .ok_or_else(|| QueryError::NoSuchTextField(n.to_string())),
        None => {
            let mut it = (0..schema.fields().len()).filter(|&i| schema.field(i).text.is_some());
            match (it.next(), it.next()) {
                (Some(i), None) => Ok(i),
                (None, _) => Err(QueryError::NoTextField),
                (Some(_), Some(_)) => Err(QueryError::AmbiguousTextField),
            }
        }
    }
}

/// A text query's distinct terms, as the field's analyzer makes them.
pub(crate) fn query_terms(analyzer: &Analyzer, text: &str) -> Result<Vec<String>, QueryError> {
    let mut terms: Vec<String> = Vec::new();
    analyzer.for_each_term(text, |t, _| {
        if !terms.iter().any(|x| x == t) {
            terms.push(t.to_string());
        }
    });
    if terms.len() > MAX_QUERY_TERMS {
        return Err(QueryError::TooManyTerms { found: terms.len(), limit: MAX_QUERY_TERMS });
    }
    Ok(terms)
}

/// How a text branch ran, for `explain`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TextTrace {
    /// Segments searched through their full-text index, by block-max WAND.
    pub indexed: u64,
    /// Sources whose rows were analysed one by one (memtable chunks, segments whose
    /// index is not built).
    pub scanned: u64,
    /// Rows scored: every matching row of a scanned source, the rows WAND scored in full.
    pub scored: u64,
    /// Times WAND moved past rows on a block's bound alone.
    pub skips: u64,
}

/// A row with at least one query term, kept until the statistics are known.
struct Matched {
    candidate: Candidate,
    len: u32,
    /// Offset of its term frequencies (one per query term) in the shared array.
    tfs: usize,
}

/// Collection-wide counts BM25 needs.
struct Counts {
    docs: u64,
    total_len: u64,
    doc_freq: Vec<u64>,
}

/// A segment searched through its index, with the query terms it holds.
struct Indexed<'a> {
    src: Source<'a>,
    index: &'a FullTextIndex,
    /// (query slot, term number) of the terms the segment holds.
    terms: Vec<(usize, usize)>,
}

impl Counts {
    /// Adds segment `src`'s counts from its index, less those of its deleted rows.
    fn add_indexed(&mut self, src: &Source, index: &FullTextIndex, field: usize, terms: &[(usize, usize)]) {
        let validity = src.view.scalar(field).validity;
        let deleted = src.deleted;
        self.docs += index.docs() - deleted.iter().filter(|&r| validity.is_valid(r as usize)).count() as u64;
        self.total_len += index.total_len() - deleted.iter().map(|r| index.doc_len(r) as u64).sum::<u64>();
        for &(slot, t) in terms {
            let mut p = index.postings(t);
            let mut gone = 0;
            for r in deleted {
                p.advance(r);
                if p.doc() == END {
                    break;
                }
                gone += u64::from(p.doc() == r);
            }
            self.doc_freq[slot] += index.doc_freq(t) - gone;
        }
    }
}

impl Snapshot {
    /// The best `k` rows for `text` by BM25 over the full-text field `field` among the live
    /// rows `filter` keeps, best first, each with its score (higher is better; `dist` is
    /// its negation). Rows without any query term are not hits.
    pub(crate) fn text_candidates(
        &self,
        field: usize,
        text: &str,
        k: usize,
        filter: Option<&Filter>,
    ) -> Result<(Vec<(Candidate, f32)>, TextTrace), Error> {
        let index: &TextIndex = self.schema.field(field).text.as_ref().expect("resolved to a full-text field");
        let analyzer = Analyzer::new(&index.analyzer).map_err(|e| QueryError::BadText(e.to_string()))?;
        let terms = query_terms(&analyzer, text)?;
        let slot: HashMap<&str, usize> = terms.iter().enumerate().map(|(i, t)| (t.as_str(), i)).collect();
        let mut counts = Counts { docs: 0, total_len: 0, doc_freq: vec![0; terms.len()] };
        let (mut matched, mut tfs, mut indexed) = (Vec::new(), Vec::new(), Vec::new());
        let mut row_tf = vec![0u32; terms.len()];
        let mut trace = TextTrace::default();
        for src in self.sources() {
            let file = src.scalar.get(field).and_then(|f| f.text.as_deref());
            if let Some(ix) = file.filter(|ix| *ix.analyzer() == index.analyzer) {
                let held: Vec<(usize, usize)> =
                    terms.iter().enumerate().filter_map(|(slot, t)| Some((slot, ix.find(t)?))).collect();
                counts.add_indexed(&src, ix, field, &held);
                indexed.push(Indexed { src, index: ix, terms: held });
                trace.indexed += 1;
                continue;
            }
            trace.scanned += 1;
            let column = src.view.scalar(field);
            let ColumnData::String(strings) = column.data else { continue };
            let allowed: Option<RoaringBitmap> = filter.map(|_| candidates(&src, filter).unwrap_or_default());
            for row in 0..src.view.rows() {
                if !column.validity.is_valid(row) || src.deleted.contains(row as u32) {
                    continue;
                }
                row_tf.fill(0);
                let mut len = 0u32;
                analyzer.for_each_term(strings.get_str(row), |t, _| {
                    len += 1;
                    if let Some(&i) = slot.get(t) {
                        row_tf[i] += 1;
                    }
                });
                counts.docs += 1;
                counts.total_len += len as u64;
                let mut any = false;
                for (df, &tf) in counts.doc_freq.iter_mut().zip(&row_tf) {
                    *df += u64::from(tf > 0);
                    any |= tf > 0;
                }
                if any && allowed.as_ref().is_none_or(|a| a.contains(row as u32)) {
                    let candidate = Candidate { dist: 0.0, segment: src.position, row: row as u32 };
                    matched.push(Matched { candidate, len, tfs: tfs.len() });
                    tfs.extend_from_slice(&row_tf);
                }
            }
        }
        let avg_len = if counts.docs > 0 { counts.total_len as f32 / counts.docs as f32 } else { 0.0 };
        let idf: Vec<f32> = counts.doc_freq.iter().map(|&df| Bm25::idf(counts.docs, df)).collect();
        let mut top = TopK::new(k);
        for m in &matched {
            let row_tfs = &tfs[m.tfs..m.tfs + terms.len()];
            let score: f32 = row_tfs
                .iter()
                .zip(&idf)
                .filter(|(tf, _)| **tf > 0)
                .map(|(&tf, &idf)| index.bm25.term_score(idf, tf, m.len, avg_len))
                .sum();
            top.push(Candidate { dist: -score, ..m.candidate });
        }
        for ix in &indexed {
            let allowed = candidates(&ix.src, filter);
            let term = |&(slot, id): &(usize, usize)| Term {
                index: ix.index,
                id,
                idf: idf[slot],
                slot,
                bm25: index.bm25,
                avg_len,
                boost: 1.0,
            };
            let held: Vec<Term> = ix.terms.iter().map(term).collect();
            let keep = |r: u32| allowed.as_ref().is_none_or(|a| a.contains(r));
            let stats = wand::search(&held, terms.len(), ix.src.position, keep, &mut top);
            trace.scored += stats.scored;
            trace.skips += stats.skipped;
        }
        trace.scored += matched.len() as u64;
        Ok((top.into_sorted().into_iter().map(|c| (c, -c.dist)).collect(), trace))
    }
}
