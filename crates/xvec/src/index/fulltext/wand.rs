//! Full-text cursors for block-max WAND (`index/wand.rs`): a query term's postings in
//! one segment's index, scored by BM25 with the collection's statistics and the field's
//! boost.

use super::{FullTextIndex, Postings};
use crate::index::Sink;
use crate::index::wand::{self, WandStats};
use crate::text::Bm25;

/// One query term present in the segment, in the full-text index of one of its fields
/// (a query over several fields has terms from several indexes of the same rows).
pub(crate) struct Term<'a> {
    pub index: &'a FullTextIndex,
    /// The term's number in the index's dictionary.
    pub id: usize,
    /// Its idf over the whole collection.
    pub idf: f32,
    /// Its position in the query: scores are summed in this order.
    pub slot: usize,
    /// The field's BM25 parameters, its average length over the collection, and its boost
    /// (each term's score is multiplied by it).
    pub bm25: Bm25,
    pub avg_len: f32,
    pub boost: f32,
}

/// A term's postings as a WAND cursor.
struct TextCursor<'a, 't> {
    postings: Postings<'a>,
    term: &'t Term<'a>,
    /// The term's largest score in any row.
    bound: f32,
}

impl TextCursor<'_, '_> {
    /// The largest score of the term seen at most `max_tf` times in a row of at least
    /// `min_len` terms.
    fn bound_of(&self, max_tf: u32, min_len: u32) -> f32 {
        let t = self.term;
        t.boost * t.bm25.max_term_score(t.idf, max_tf, min_len, t.avg_len)
    }
}

impl wand::Cursor for TextCursor<'_, '_> {
    fn doc(&self) -> u32 {
        self.postings.doc()
    }

    fn advance(&mut self, target: u32) {
        self.postings.advance(target)
    }

    fn shallow(&mut self, target: u32) -> bool {
        self.postings.shallow(target)
    }

    fn block_last(&self) -> u32 {
        self.postings.block().last_doc
    }

    fn block_bound(&self) -> f32 {
        self.bound_of(self.postings.block().max_tf, self.postings.block().min_len)
    }

    fn bound(&self) -> f32 {
        self.bound
    }

    fn slot(&self) -> usize {
        self.term.slot
    }

    fn score(&self) -> f32 {
        let t = self.term;
        let row = self.postings.doc();
        t.boost * t.bm25.term_score(t.idf, self.postings.tf(), t.index.doc_len(row), t.avg_len)
    }
}

/// Pushes into `top` the rows (of the segment at position `segment`) that `allowed`
/// keeps and whose BM25 score over `terms` (`slots` query terms in all) can enter it, as
/// candidates whose `dist` is the negated score (see [`wand::search`]).
pub(crate) fn search(
    terms: &[Term],
    slots: usize,
    segment: u32,
    allowed: impl Fn(u32) -> bool,
    top: &mut impl Sink,
) -> WandStats {
    let cursors: Vec<TextCursor> = terms
        .iter()
        .map(|t| {
            let tb = t.index.term_blocks();
            let mut c = TextCursor { postings: t.index.postings(t.id), term: t, bound: 0.0 };
            c.bound = (tb[t.id] as usize..tb[t.id + 1] as usize)
                .map(|b| t.index.record(b))
                .map(|r| c.bound_of(r.max_tf, r.min_len))
                .fold(0f32, f32::max);
            c
        })
        .collect();
    wand::search(cursors, slots, segment, allowed, (None, None), top)
}
