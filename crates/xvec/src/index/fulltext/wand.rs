//! Block-max WAND (Ding and Suel, 2011): the exact top k by BM25 of one segment's rows
//! without scoring every row that holds a query term.
//!
//! Cursors over the query terms' postings are kept sorted by row. The *pivot* is the first
//! row where the terms' upper bounds, summed in that order, reach the k-th score so far:
//! no row before it can enter the top k. The pivot's block records then give a tighter
//! bound, the sum of each term's largest score in the block holding the pivot; when that
//! falls short too, every row up to the first block end is skipped, blocks undecoded.
//! Bounds are compared with a relative slack of 1e-5 against the rounding of f32 sums, so
//! a skip is never wrong, and ties are never skipped: the result equals scoring every row.

use super::{END, FullTextIndex, Postings};
use crate::index::{Candidate, Sink};
use crate::text::Bm25;

/// Slack on every bound comparison: bounds and scores are summed in different orders.
const SLACK: f64 = 1.0 + 1e-5;

/// One query term present in the segment, in the full-text index of one of its fields
/// (a query over several fields has terms from several indexes of the same rows).
pub struct Term<'a> {
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

/// How the search went, for `explain`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WandStats {
    /// Rows scored in full.
    pub scored: u64,
    /// Moves past rows on a block bound alone.
    pub skipped: u64,
}

struct Cursor<'a, 't> {
    postings: Postings<'a>,
    term: &'t Term<'a>,
    /// The term's largest score in any row.
    bound: f32,
}

impl Cursor<'_, '_> {
    /// The largest score of the term seen at most `max_tf` times in a row of at least
    /// `min_len` terms.
    fn bound(&self, max_tf: u32, min_len: u32) -> f32 {
        let t = self.term;
        t.boost * t.bm25.max_term_score(t.idf, max_tf, min_len, t.avg_len)
    }

    /// The term's score in row `row`, where the cursor stands.
    fn score(&self, row: u32) -> f32 {
        let t = self.term;
        t.boost * t.bm25.term_score(t.idf, self.postings.tf(), t.index.doc_len(row), t.avg_len)
    }
}

/// Pushes into `top` the rows (of the segment at position `segment`) that `allowed`
/// keeps and whose BM25 score over `terms` (`slots` query terms in all) can enter it, as
/// candidates whose `dist` is the negated score. `top` may already hold other segments'
/// rows: its threshold prunes from the start.
pub fn search(
    terms: &[Term],
    slots: usize,
    segment: u32,
    allowed: impl Fn(u32) -> bool,
    top: &mut impl Sink,
) -> WandStats {
    let block_bound = |c: &Cursor| c.bound(c.postings.block().max_tf, c.postings.block().min_len);
    let mut cs: Vec<Cursor> = terms
        .iter()
        .map(|t| {
            let tb = t.index.term_blocks();
            let mut c = Cursor { postings: t.index.postings(t.id), term: t, bound: 0.0 };
            c.bound = (tb[t.id] as usize..tb[t.id + 1] as usize)
                .map(|b| t.index.record(b))
                .map(|r| c.bound(r.max_tf, r.min_len))
                .fold(0f32, f32::max);
            c
        })
        .collect();
    let mut stats = WandStats::default();
    let mut contrib: Vec<Option<f32>> = vec![None; slots];
    loop {
        cs.retain(|c| c.postings.doc() != END);
        cs.sort_unstable_by_key(|c| c.postings.doc());
        let theta = -(top.threshold() as f64);
        let mut acc = 0f64;
        let Some(p) = cs.iter().position(|c| {
            acc += c.bound as f64;
            acc * SLACK >= theta
        }) else {
            break;
        };
        let d = cs[p].postings.doc();
        let q = p + cs[p + 1..].iter().take_while(|c| c.postings.doc() == d).count();
        let mut bound = 0f64;
        let mut next = u64::from(END);
        for c in &mut cs[..=q] {
            if c.postings.shallow(d) {
                bound += block_bound(c) as f64;
                next = next.min(u64::from(c.postings.block().last_doc) + 1);
            }
        }
        if bound * SLACK >= theta {
            if cs[0].postings.doc() == d {
                if allowed(d) {
                    contrib.fill(None);
                    for c in &cs[..=q] {
                        contrib[c.term.slot] = Some(c.score(d));
                    }
                    let score: f32 = contrib.iter().flatten().sum();
                    top.push(Candidate { dist: -score, segment, row: d });
                    stats.scored += 1;
                }
                for c in &mut cs[..=q] {
                    c.postings.advance(d + 1);
                }
            } else {
                // A term behind the pivot catches up to it; the one that may skip most.
                let i =
                    (0..p).filter(|&i| cs[i].postings.doc() < d).max_by(|&a, &b| cs[a].bound.total_cmp(&cs[b].bound));
                cs[i.expect("the first cursor is behind the pivot")].postings.advance(d);
            }
        } else {
            if let Some(c) = cs.get(q + 1) {
                next = next.min(u64::from(c.postings.doc()));
            }
            let next = next.max(u64::from(d) + 1).min(u64::from(END)) as u32;
            let i = (0..=q).max_by(|&a, &b| cs[a].bound.total_cmp(&cs[b].bound)).expect("the pivot is a cursor");
            cs[i].postings.advance(next);
            stats.skipped += 1;
        }
    }
    stats
}
