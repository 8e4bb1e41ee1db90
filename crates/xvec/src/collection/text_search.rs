//! Full-text ranking by BM25 over a string field with a full-text index, exact: every
//! live row's text is analysed at query time. The statistics (live documents with text,
//! their average length, each term's document frequency) are the whole snapshot's, never
//! a segment's, so a collection ranks the same however its rows are split into segments
//! and deleted rows never count.

use std::collections::HashMap;

use roaring::RoaringBitmap;

use super::query::candidates;
use super::snapshot::Snapshot;
use crate::error::{Error, QueryError};
use crate::filter::Filter;
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

/// A row with at least one query term, kept until the statistics are known.
struct Matched {
    candidate: Candidate,
    len: u32,
    /// Offset of its term frequencies (one per query term) in the shared array.
    tfs: usize,
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
    ) -> Result<Vec<(Candidate, f32)>, Error> {
        let index: &TextIndex = self.schema.field(field).text.as_ref().expect("resolved to a full-text field");
        let analyzer = Analyzer::new(&index.analyzer).map_err(|e| QueryError::BadText(e.to_string()))?;
        let terms = query_terms(&analyzer, text)?;
        let slot: HashMap<&str, usize> = terms.iter().enumerate().map(|(i, t)| (t.as_str(), i)).collect();
        let (mut docs, mut total_len) = (0u64, 0u64);
        let mut doc_freq = vec![0u64; terms.len()];
        let (mut matched, mut tfs) = (Vec::new(), Vec::new());
        let mut row_tf = vec![0u32; terms.len()];
        for src in self.sources() {
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
                docs += 1;
                total_len += len as u64;
                let mut any = false;
                for (df, &tf) in doc_freq.iter_mut().zip(&row_tf) {
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
        let avg_len = if docs > 0 { total_len as f32 / docs as f32 } else { 0.0 };
        let idf: Vec<f32> = doc_freq.iter().map(|&df| Bm25::idf(docs, df)).collect();
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
        Ok(top.into_sorted().into_iter().map(|c| (c, -c.dist)).collect())
    }
}
