//! Block-max WAND (Ding and Suel, 2011): the exact top k by a sum of per-list scores,
//! without scoring every row that is in some list. Shared by the full-text index (BM25
//! per term) and the sparse vector index (query weight × value per dimension).
//!
//! Cursors over the lists are kept sorted by row. The *pivot* is the first row where the
//! lists' upper bounds, summed in that order, reach the k-th score so far: no row before
//! it can enter the top k. The pivot's blocks then give a tighter bound, the sum of each
//! list's largest score in the block holding the pivot; when that falls short too, every
//! row up to the first block end is skipped, blocks undecoded. Bounds are compared with a
//! relative slack of 1e-5 against the rounding of f32 sums, so a skip is never wrong, and
//! ties are never skipped: the result equals scoring every row.
//!
//! Lists may score with bounds rather than exact scores (the sparse index stores quantized
//! impacts): each row then has an upper and a lower bound. The k best lower bounds so far
//! prune like scores do (k rows score at least that much); a row whose upper bound reaches
//! the k-th score is kept, and at the end the kept rows whose upper bound still reaches
//! it are scored exactly by the caller (in row order) and only those scores enter the top
//! k: the result is exact, and few rows beyond the k best are scored exactly.

use crate::index::{Candidate, Sink, TopK};

/// Sentinel row of an exhausted cursor.
pub(crate) const END: u32 = u32::MAX;

/// Slack on every bound comparison: bounds and scores are summed in different orders.
const SLACK: f64 = 1.0 + 1e-5;

/// One list a search sums over: rows ascending, each with a score, in blocks with bounds.
pub(crate) trait Cursor {
    /// The current row, or [`END`].
    fn doc(&self) -> u32;
    /// Moves to the first row at or after `target` (never backwards).
    fn advance(&mut self, target: u32);
    /// Moves the block pointer (not the row) to the block holding the first row at or
    /// after `target`; false when no block does.
    fn shallow(&mut self, target: u32) -> bool;
    /// The last row of the block [`Cursor::shallow`] stands on.
    fn block_last(&self) -> u32;
    /// At least the score of every row of that block, and at least 0.
    fn block_bound(&self) -> f32;
    /// At least the score of every row of the list, and at least 0.
    fn bound(&self) -> f32;
    /// The list's position in the query: scores are summed in this order.
    fn slot(&self) -> usize;
    /// The current row's score (an upper bound of it, for lists of bounds).
    fn score(&self) -> f32;
    /// A lower bound of the current row's score: [`Cursor::score`] for exact lists.
    fn floor(&self) -> f32 {
        self.score()
    }
}

/// How a search over lists of bounds scores a row exactly, and how many rows it ranks.
#[derive(Clone, Copy)]
pub(crate) struct Exact<'a> {
    pub score: &'a dyn Fn(u32) -> f32,
    pub k: usize,
}

/// How the search went, for `explain`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct WandStats {
    /// Rows scored in full.
    pub scored: u64,
    /// Moves past rows on a block bound alone.
    pub skipped: u64,
    /// Rows scored exactly, their upper bounds reaching the k-th score at the end.
    pub rescored: u64,
    /// Scores computed, one per list per row scored.
    pub postings: u64,
}

/// Pushes into `top` the rows (of the segment at position `segment`) that `allowed`
/// keeps and whose summed score over `cursors` (`slots` lists in the whole query) can
/// enter it, as candidates whose `dist` is the negated score. `top` may already hold
/// other segments' rows: its threshold prunes from the start. With `budget`, the search
/// stops once it has computed that many scores (an approximate top k). With `exact`, the
/// cursors score bounds and `exact.score(row)` is a row's score.
pub(crate) fn search<C: Cursor>(
    mut cs: Vec<C>,
    slots: usize,
    segment: u32,
    allowed: impl Fn(u32) -> bool,
    (budget, exact): (Option<u64>, Option<Exact>),
    top: &mut impl Sink,
) -> WandStats {
    let mut stats = WandStats::default();
    let mut contrib: Vec<Option<f32>> = vec![None; slots];
    // With bounds: the k best lower bounds, and each kept row with its upper bound.
    let mut floors = TopK::unreserved(exact.map_or(0, |e| e.k));
    let mut kept: Vec<(u32, f64)> = Vec::new();
    // The k-th score so far: the top's, or the k-th lower bound when that is higher.
    let threshold = |top: f32, floors: &TopK| -> f64 {
        let t = -(top as f64);
        if exact.is_some() { t.max(-(floors.threshold() as f64)) } else { t }
    };
    loop {
        if budget.is_some_and(|b| stats.postings >= b) {
            break;
        }
        cs.retain(|c| c.doc() != END);
        cs.sort_unstable_by_key(|c| c.doc());
        let theta = threshold(top.threshold(), &floors);
        let mut acc = 0f64;
        let Some(p) = cs.iter().position(|c| {
            acc += c.bound() as f64;
            acc * SLACK >= theta
        }) else {
            break;
        };
        let d = cs[p].doc();
        let q = p + cs[p + 1..].iter().take_while(|c| c.doc() == d).count();
        let mut bound = 0f64;
        let mut next = u64::from(END);
        for c in &mut cs[..=q] {
            if c.shallow(d) {
                bound += c.block_bound() as f64;
                next = next.min(u64::from(c.block_last()) + 1);
            }
        }
        if bound * SLACK >= theta {
            if cs[0].doc() == d {
                if allowed(d) {
                    contrib.fill(None);
                    for c in &cs[..=q] {
                        contrib[c.slot()] = Some(c.score());
                    }
                    stats.scored += 1;
                    stats.postings += q as u64 + 1;
                    match exact {
                        None => {
                            let score: f32 = contrib.iter().flatten().sum();
                            top.push(Candidate { dist: -score, segment, row: d });
                        }
                        Some(_) => {
                            // Bounds summed in f32 are within 1e-5 of their magnitude.
                            let (mut upper, mut slack) = (0f64, 0f64);
                            for x in contrib.iter().flatten() {
                                (upper, slack) = (upper + f64::from(*x), slack + f64::from(x.abs()) * 1e-5);
                            }
                            if upper + slack >= theta {
                                let floor: f64 = cs[..=q].iter().map(|c| f64::from(c.floor())).sum();
                                kept.push((d, upper + slack));
                                floors.push(Candidate { dist: -(floor - 2.0 * slack) as f32, segment, row: d });
                            }
                        }
                    }
                }
                for c in &mut cs[..=q] {
                    c.advance(d + 1);
                }
            } else {
                // A list behind the pivot catches up to it; the one that may skip most.
                let i = (0..p).filter(|&i| cs[i].doc() < d).max_by(|&a, &b| cs[a].bound().total_cmp(&cs[b].bound()));
                cs[i.expect("the first cursor is behind the pivot")].advance(d);
            }
        } else {
            if let Some(c) = cs.get(q + 1) {
                next = next.min(u64::from(c.doc()));
            }
            let next = next.max(u64::from(d) + 1).min(u64::from(END)) as u32;
            let i = (0..=q).max_by(|&a, &b| cs[a].bound().total_cmp(&cs[b].bound())).expect("the pivot is a cursor");
            cs[i].advance(next);
            stats.skipped += 1;
        }
    }
    if let Some(exact) = exact {
        let theta = threshold(top.threshold(), &floors);
        for (row, _) in kept.into_iter().filter(|&(_, upper)| upper >= theta) {
            stats.rescored += 1;
            top.push(Candidate { dist: -(exact.score)(row), segment, row });
        }
    }
    stats
}
