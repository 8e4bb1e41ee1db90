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
use super::text_stats::{TextFieldStats, TextStats};
use crate::error::{Error, QueryError};
use crate::filter::Filter;
use crate::index::field_indexes::FieldIndexes;
use crate::index::fulltext::wand::{self, Term};
use crate::index::fulltext::{END, FullTextIndex};
use crate::index::{Candidate, Sink, TopK};
use crate::schema::{FieldKind, Schema, TextIndex};
use crate::storage::column::ColumnData;
use crate::text::{Analyzer, Bm25};

/// Most distinct terms a text query may hold.
pub const MAX_QUERY_TERMS: usize = 64;

/// A full-text field a text branch searches, and what its scores are multiplied by.
#[derive(Clone, Debug, PartialEq)]
pub struct TextField {
    /// The field's name.
    pub name: String,
    /// Finite and above 0; 1 leaves the field's BM25 as it is.
    pub boost: f32,
}

impl std::str::FromStr for TextField {
    type Err = String;

    /// `name` or `name^boost`, the boost a number above 0.
    fn from_str(s: &str) -> Result<TextField, String> {
        match s.rsplit_once('^') {
            None => Ok(TextField::new(s)),
            Some((name, boost)) => {
                let b: f32 = boost.parse().map_err(|_| format!("boost {boost:?} of `{name}` is not a number"))?;
                if !(b.is_finite() && b > 0.0) {
                    return Err(format!("boost {boost} of `{name}`; expected a number above 0"));
                }
                Ok(TextField::new(name).boost(b))
            }
        }
    }
}

impl TextField {
    /// Field `name` with boost 1.
    pub fn new(name: impl Into<String>) -> TextField {
        TextField { name: name.into(), boost: 1.0 }
    }

    /// The same field with boost `boost`.
    pub fn boost(mut self, boost: f32) -> TextField {
        self.boost = boost;
        self
    }
}

/// The schema positions and boosts of a text branch's `fields` (none: the schema's only
/// full-text field, boost 1); each must be a full-text field, named once, its boost
/// finite and above 0.
pub(crate) fn resolve_text_fields(schema: &Schema, fields: &[TextField]) -> Result<Vec<(usize, f32)>, QueryError> {
    if fields.is_empty() {
        return Ok(vec![(schema.resolve(FieldKind::FullText, None)?, 1.0)]);
    }
    let mut out: Vec<(usize, f32)> = Vec::with_capacity(fields.len());
    for f in fields {
        let pos = schema.resolve(FieldKind::FullText, Some(&f.name))?;
        if out.iter().any(|&(p, _)| p == pos) {
            return Err(QueryError::BadHybrid(format!("full-text field `{}` is named twice", f.name)));
        }
        if !(f.boost.is_finite() && f.boost > 0.0) {
            return Err(QueryError::BadHybrid(format!("boost {} of `{}`; expected a number above 0", f.boost, f.name)));
        }
        out.push((pos, f.boost));
    }
    Ok(out)
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

/// How a text or sparse branch ran, for `explain`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PostingsTrace {
    /// Segments searched through their full-text or sparse index, by block-max WAND.
    pub indexed: u64,
    /// Sources whose rows were read one by one (memtable chunks, segments whose index is
    /// not built).
    pub scanned: u64,
    /// Rows scored: every matching row of a scanned source, the rows WAND scored in full.
    pub scored: u64,
    /// Times WAND moved past rows on a block's bound alone.
    pub skips: u64,
    /// Rows a sparse index scored exactly from the column, their impact bounds having
    /// reached the k-th score (0 for text, whose postings hold exact scores).
    pub rescored: u64,
}

/// One field a text query searches: its position, boost, index declaration and
/// analyzer, and the query's terms as that analyzer makes them, which take the query
/// slots `slots` (the fields' terms one after another).
struct FieldQuery<'s> {
    pos: usize,
    boost: f32,
    index: &'s TextIndex,
    analyzer: Analyzer,
    terms: Vec<String>,
    slots: std::ops::Range<usize>,
}

/// A row with at least one query term, kept until the statistics are known.
struct Matched {
    candidate: Candidate,
    /// Offsets of its length in each field and of its term frequency in each slot, in
    /// the shared arrays.
    lens: usize,
    tfs: usize,
}

/// Collection-wide counts BM25 needs: documents and total length per field, document
/// frequency per slot.
struct Counts {
    docs: Vec<u64>,
    total_len: Vec<u64>,
    doc_freq: Vec<u64>,
}

/// A segment searched through its indexes: per field, the index and the query terms it
/// holds as (slot, term number).
struct Indexed<'a> {
    src: Source<'a>,
    fields: Vec<(&'a FullTextIndex, Vec<(usize, usize)>)>,
}

impl Counts {
    /// Adds the counts of field number `fi` (at schema position `pos`) in segment `src`
    /// from its index, less those of its deleted rows.
    fn add_indexed(&mut self, src: &Source, fi: usize, pos: usize, index: &FullTextIndex, terms: &[(usize, usize)]) {
        let validity = src.view.scalar(pos).validity;
        let deleted: &RoaringBitmap = &src.deleted;
        self.docs[fi] += index.docs() - deleted.iter().filter(|&r| validity.is_valid(r as usize)).count() as u64;
        self.total_len[fi] += index.total_len() - deleted.iter().map(|r| index.doc_len(r) as u64).sum::<u64>();
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

/// What a pass over the snapshot's sources finds: the counts, the scanned rows with a
/// query term, and the segments to search through their indexes.
struct Gathered<'a> {
    counts: Counts,
    scanned: Scanned,
    indexed: Vec<Indexed<'a>>,
    trace: PostingsTrace,
}

impl Counts {
    /// The counts of `stats` (given from outside: the sums over shards) for `queries`; a
    /// field or term they lack is an error naming it.
    fn given(stats: &TextStats, schema: &Schema, queries: &[FieldQuery]) -> Result<Counts, QueryError> {
        let n_slots = queries.last().map_or(0, |q| q.slots.end);
        let mut counts =
            Counts { docs: vec![0; queries.len()], total_len: vec![0; queries.len()], doc_freq: vec![0; n_slots] };
        for (fi, q) in queries.iter().enumerate() {
            let name = &schema.field(q.pos).name;
            let missing = |what: String| QueryError::BadHybrid(format!("the given text statistics lack {what}"));
            let f = stats.fields.get(name).ok_or_else(|| missing(format!("field `{name}`")))?;
            counts.docs[fi] = f.docs;
            counts.total_len[fi] = f.total_len;
            for (t, slot) in q.terms.iter().zip(q.slots.clone()) {
                counts.doc_freq[slot] = *f.doc_freq.get(t).ok_or_else(|| missing(format!("term {t:?} of `{name}`")))?;
            }
        }
        Ok(counts)
    }

    /// As [`TextStats`], by field name and term.
    fn stats(&self, schema: &Schema, queries: &[FieldQuery]) -> TextStats {
        let mut out = TextStats::default();
        for (fi, q) in queries.iter().enumerate() {
            let doc_freq = q.terms.iter().zip(q.slots.clone()).map(|(t, s)| (t.clone(), self.doc_freq[s])).collect();
            let f = TextFieldStats { docs: self.docs[fi], total_len: self.total_len[fi], doc_freq };
            out.fields.insert(schema.field(q.pos).name.clone(), f);
        }
        out
    }
}

impl Snapshot {
    /// The BM25 statistics a text query over `fields` (none: the schema's only full-text
    /// field) is scored with in this snapshot: per field, its live documents with text and
    /// their total length; per query term, the live documents holding it. Shards of one
    /// dataset sum theirs ([`TextStats::add`]) and each scores with the sum (a text
    /// branch's `stats`), so their hits score as one collection's would.
    pub fn text_stats(&self, fields: &[TextField], text: &str) -> Result<TextStats, Error> {
        let resolved = resolve_text_fields(&self.schema, fields)?;
        let queries = field_queries(&self.schema, &resolved, text)?;
        // No rows are kept: only the counts are wanted.
        let none = RoaringBitmap::new();
        Ok(self.gather(&queries, None, Some(&none)).counts.stats(&self.schema, &queries))
    }

    /// The best `k` rows for `text` by BM25 over the full-text fields `fields` (schema
    /// position and boost; a row's score is the sum over fields of boost × its BM25 in
    /// that field) among the live rows `filter` keeps, best first, each with its score
    /// (higher is better; `dist` is its negation), weighed with `given` statistics or,
    /// without, the snapshot's own. Rows without any query term are not hits.
    pub(crate) fn text_candidates(
        &self,
        fields: &[(usize, f32)],
        text: &str,
        k: usize,
        filter: Option<&Filter>,
        given: Option<&TextStats>,
    ) -> Result<(Vec<(Candidate, f32)>, PostingsTrace), Error> {
        let queries = field_queries(&self.schema, fields, text)?;
        let n_slots = queries.last().map_or(0, |q| q.slots.end);
        let Gathered { counts, scanned, indexed, mut trace } = self.gather(&queries, filter, None);
        let counts = match given {
            Some(stats) => Counts::given(stats, &self.schema, &queries)?,
            None => counts,
        };
        let weights = Weights::of(&counts, &queries, n_slots);
        let mut top = TopK::new(k);
        scanned.score(&queries, &weights, &mut top);
        for ix in &indexed {
            let allowed = candidates(&ix.src, filter);
            let mut held: Vec<Term> = Vec::new();
            for (fi, (index, terms)) in ix.fields.iter().enumerate() {
                let q = &queries[fi];
                held.extend(terms.iter().map(|&(slot, id)| Term {
                    index,
                    id,
                    idf: weights.idf[slot],
                    slot,
                    bm25: q.index.bm25,
                    avg_len: weights.avg_len[fi],
                    boost: q.boost,
                }));
            }
            let keep = |r: u32| allowed.as_ref().is_none_or(|a| a.contains(r));
            let stats = wand::search(&held, n_slots, ix.src.position, keep, &mut top);
            trace.scored += stats.scored;
            trace.skips += stats.skipped;
        }
        trace.scored += scanned.matched.len() as u64;
        Ok((top.into_sorted().into_iter().map(|c| (c, -c.dist)).collect(), trace))
    }

    /// One pass over the sources: the snapshot's counts, the scanned rows with a query
    /// term that `filter` keeps (none when `keep` is given: only those it holds, for every
    /// source), and the segments to search through their indexes.
    fn gather(&self, queries: &[FieldQuery], filter: Option<&Filter>, keep: Option<&RoaringBitmap>) -> Gathered<'_> {
        let n_slots = queries.last().map_or(0, |q| q.slots.end);
        let counts =
            Counts { docs: vec![0; queries.len()], total_len: vec![0; queries.len()], doc_freq: vec![0; n_slots] };
        let mut g = Gathered { counts, scanned: Scanned::new(queries), indexed: Vec::new(), trace: Default::default() };
        for src in self.sources() {
            // Through the indexes when every field has one made by its analyzer.
            if let Some(files) = text_indexes(queries, &src) {
                let mut held = Vec::with_capacity(queries.len());
                for (fi, (q, ix)) in queries.iter().zip(files).enumerate() {
                    let terms: Vec<(usize, usize)> =
                        q.terms.iter().zip(q.slots.clone()).filter_map(|(t, slot)| Some((slot, ix.find(t)?))).collect();
                    g.counts.add_indexed(&src, fi, q.pos, ix, &terms);
                    held.push((ix, terms));
                }
                g.indexed.push(Indexed { src, fields: held });
                g.trace.indexed += 1;
                continue;
            }
            g.trace.scanned += 1;
            let allowed: Option<RoaringBitmap> = match keep {
                Some(k) => Some(k.clone()),
                None => filter.map(|_| candidates(&src, filter).unwrap_or_default()),
            };
            g.scanned.scan(&src, queries, &mut g.counts, allowed.as_ref());
        }
        g
    }
}

/// The query of each field of `fields` (schema position and boost): its analyzer, the
/// terms it makes of `text`, and their slots, one field's after another's.
fn field_queries<'s>(schema: &'s Schema, fields: &[(usize, f32)], text: &str) -> Result<Vec<FieldQuery<'s>>, Error> {
    let mut queries: Vec<FieldQuery> = Vec::with_capacity(fields.len());
    for &(pos, boost) in fields {
        let index: &TextIndex = schema.field(pos).text.as_ref().expect("resolved to a full-text field");
        let analyzer = Analyzer::new(&index.analyzer).map_err(|e| QueryError::BadText(e.to_string()))?;
        let terms = query_terms(&analyzer, text)?;
        let start = queries.last().map_or(0, |q| q.slots.end);
        let slots = start..start + terms.len();
        queries.push(FieldQuery { pos, boost, index, analyzer, terms, slots });
    }
    Ok(queries)
}

/// The full-text index of each queried field of `src`, when every one has one made by
/// the field's analyzer.
fn text_indexes<'a>(queries: &[FieldQuery], src: &Source<'a>) -> Option<Vec<&'a FullTextIndex>> {
    let scalar: &'a [FieldIndexes] = src.scalar;
    queries
        .iter()
        .map(|q| {
            let file = scalar.get(q.pos).and_then(|f| f.text.as_deref());
            file.filter(|ix| *ix.analyzer() == q.index.analyzer)
        })
        .collect()
}

/// The rows of scanned segments with a query term, and their lengths and term
/// frequencies, kept until the collection-wide statistics are known.
struct Scanned {
    matched: Vec<Matched>,
    lens: Vec<u32>,
    tfs: Vec<u32>,
    /// Each field's terms and their slots.
    slot_of: Vec<HashMap<String, usize>>,
    n_slots: usize,
}

impl Scanned {
    fn new(queries: &[FieldQuery]) -> Scanned {
        let slot_of = queries
            .iter()
            .map(|q| q.terms.iter().enumerate().map(|(i, t)| (t.clone(), q.slots.start + i)).collect())
            .collect();
        let n_slots = queries.last().map_or(0, |q| q.slots.end);
        Scanned { matched: Vec::new(), lens: Vec::new(), tfs: Vec::new(), slot_of, n_slots }
    }

    /// Analyses every live row of `src` (a segment without the indexes): adds it to the
    /// counts, and keeps it when it holds a query term and `allowed` (the filter's rows) has it.
    fn scan(&mut self, src: &Source, queries: &[FieldQuery], counts: &mut Counts, allowed: Option<&RoaringBitmap>) {
        let (mut row_tf, mut row_len) = (vec![0u32; self.n_slots], vec![0u32; queries.len()]);
        for row in 0..src.view.rows() {
            if src.deleted.contains(row as u32) {
                continue;
            }
            row_tf.fill(0);
            row_len.fill(0);
            for (fi, q) in queries.iter().enumerate() {
                let column = src.view.scalar(q.pos);
                let ColumnData::String(strings) = column.data else { continue };
                if !column.validity.is_valid(row) {
                    continue;
                }
                let mut len = 0u32;
                q.analyzer.for_each_term(strings.get_str(row), |t, _| {
                    len += 1;
                    if let Some(&i) = self.slot_of[fi].get(t) {
                        row_tf[i] += 1;
                    }
                });
                row_len[fi] = len;
                counts.docs[fi] += 1;
                counts.total_len[fi] += len as u64;
            }
            let mut any = false;
            for (df, &tf) in counts.doc_freq.iter_mut().zip(&row_tf) {
                *df += u64::from(tf > 0);
                any |= tf > 0;
            }
            if any && allowed.is_none_or(|a| a.contains(row as u32)) {
                let candidate = Candidate { dist: 0.0, segment: src.position, row: row as u32 };
                self.matched.push(Matched { candidate, lens: self.lens.len(), tfs: self.tfs.len() });
                self.lens.extend_from_slice(&row_len);
                self.tfs.extend_from_slice(&row_tf);
            }
        }
    }

    /// Scores every kept row by BM25 with the collection's `weights` into `top`.
    fn score(&self, queries: &[FieldQuery], weights: &Weights, top: &mut TopK) {
        for m in &self.matched {
            let row_tfs = &self.tfs[m.tfs..m.tfs + self.n_slots];
            let score: f32 = row_tfs
                .iter()
                .enumerate()
                .filter(|(_, tf)| **tf > 0)
                .map(|(s, &tf)| {
                    let fi = weights.field_of[s];
                    let q = &queries[fi];
                    q.boost * q.index.bm25.term_score(weights.idf[s], tf, self.lens[m.lens + fi], weights.avg_len[fi])
                })
                .sum();
            top.push(Candidate { dist: -score, ..m.candidate });
        }
    }
}

/// What BM25 weighs with, from the collection-wide counts: each field's average length,
/// each slot's field and inverse document frequency.
struct Weights {
    avg_len: Vec<f32>,
    field_of: Vec<usize>,
    idf: Vec<f32>,
}

impl Weights {
    fn of(counts: &Counts, queries: &[FieldQuery], n_slots: usize) -> Weights {
        let avg_len: Vec<f32> = (0..queries.len())
            .map(|fi| if counts.docs[fi] > 0 { counts.total_len[fi] as f32 / counts.docs[fi] as f32 } else { 0.0 })
            .collect();
        let mut field_of = vec![0usize; n_slots];
        for (fi, q) in queries.iter().enumerate() {
            field_of[q.slots.clone()].fill(fi);
        }
        let idf: Vec<f32> = (0..n_slots).map(|s| Bm25::idf(counts.docs[field_of[s]], counts.doc_freq[s])).collect();
        Weights { avg_len, field_of, idf }
    }
}
