//! Hybrid queries: several ranked branches (dense vectors, full text, keys) under one
//! shared filter, fused into one ranking by reciprocal rank fusion or a weighted sum of
//! normalised scores.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::Instant;

use roaring::RoaringBitmap;

use super::query::{MAX_K, Query, SourceTrace, resolve_projection};
use super::snapshot::Snapshot;
use super::text_search::{PostingsTrace, TextField, resolve_text_fields};
use super::text_stats::TextStats;
use crate::error::{Error, QueryError};
use crate::filter::{Filter, Params};
use crate::index::{Candidate, TopK};
use crate::schema::{FieldKind, Metric};
use crate::sparse::SparseVector;
use crate::storage::column::SegmentView;
use crate::value::Value;

/// Reciprocal rank fusion's constant when none is given (Cormack et al., SIGIR 2009).
pub const DEFAULT_RRF_K: f32 = 60.0;

/// Most branches one hybrid query may have.
pub const MAX_BRANCHES: usize = 16;

/// One ranked list a [`HybridQuery`] fuses.
#[derive(Clone, Debug, PartialEq)]
pub enum Branch {
    /// Nearest neighbours of a vector query, with its field, `k` and search settings; its
    /// own filter, parameters and projection are ignored (the hybrid query's apply).
    Dense(Query),
    /// BM25 over full-text fields, best `k` first: a row scores the sum over the fields
    /// of the field's boost × its BM25 there.
    Text {
        /// The full-text fields with their boosts; empty for the schema's only one.
        fields: Vec<TextField>,
        /// The query text, analysed like the field's text.
        text: String,
        /// Most hits the branch ranks.
        k: usize,
        /// The BM25 statistics to score with (see [`Snapshot::text_stats`]); `None`: this
        /// snapshot's own. Shards of one dataset pass the sum of theirs.
        stats: Option<TextStats>,
    },
    /// The documents with these keys, in this order (keys not found, or filtered out,
    /// are skipped).
    Keys(Vec<String>),
    /// Inner product with a sparse vector over a sparse field (`None`: the schema's only
    /// one), exact, best `k` first; rows sharing no dimension with it are not ranked.
    Sparse {
        /// The sparse field, or `None` for the schema's only one.
        field: Option<String>,
        /// The query vector.
        vector: SparseVector,
        /// Most hits the branch ranks.
        k: usize,
        /// `None`: exact. `Some(n)`: each segment's index search stops after scoring `n`
        /// postings, trading recall for time.
        budget: Option<u64>,
    },
}

/// Which kind of ranking a branch is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BranchKind {
    /// [`Branch::Dense`].
    Dense,
    /// [`Branch::Text`].
    Text,
    /// [`Branch::Keys`].
    Keys,
    /// [`Branch::Sparse`].
    Sparse,
}

impl BranchKind {
    /// `dense`, `text` or `keys`, as errors name the branch.
    pub fn name(self) -> &'static str {
        match self {
            BranchKind::Dense => "dense",
            BranchKind::Text => "text",
            BranchKind::Keys => "keys",
            BranchKind::Sparse => "sparse",
        }
    }
}

impl Branch {
    /// A text branch over the schema's only full-text field, ranking its best `k`.
    pub fn text(text: impl Into<String>, k: usize) -> Branch {
        Branch::Text { fields: Vec::new(), text: text.into(), k, stats: None }
    }

    /// An exact sparse branch over the schema's only sparse field, ranking the best `k`.
    pub fn sparse(vector: SparseVector, k: usize) -> Branch {
        Branch::Sparse { field: None, vector, k, budget: None }
    }

    /// A text branch over `fields`, each with its boost, ranking the best `k`.
    pub fn text_in(fields: Vec<TextField>, text: impl Into<String>, k: usize) -> Branch {
        Branch::Text { fields, text: text.into(), k, stats: None }
    }

    /// Which kind of ranking this is.
    pub fn kind(&self) -> BranchKind {
        match self {
            Branch::Dense(_) => BranchKind::Dense,
            Branch::Text { .. } => BranchKind::Text,
            Branch::Keys(_) => BranchKind::Keys,
            Branch::Sparse { .. } => BranchKind::Sparse,
        }
    }
}

/// How branch rankings become one.
#[derive(Clone, Debug, PartialEq)]
pub enum Fusion {
    /// Reciprocal rank fusion: a document scores `Σ 1 / (k + rank)` over the branches
    /// that rank it (ranks from 1).
    Rrf {
        /// The constant `k` (60 by default), above 0.
        k: f32,
    },
    /// A weighted sum of each branch's scores scaled to `[0, 1]` by its own best and
    /// worst hit (min-max; the best is 1 whether the branch's scores rise or fall with
    /// quality, and a branch whose hits all score the same gives each 1); one weight per
    /// branch, each finite and at least 0.
    Weighted(Vec<f32>),
}

impl Default for Fusion {
    fn default() -> Fusion {
        Fusion::Rrf { k: DEFAULT_RRF_K }
    }
}

/// A query of several branches under one filter, fused into one ranking.
///
/// ```
/// use xvec::{Branch, Fusion, HybridQuery, Query};
/// let q = HybridQuery::new(vec![Branch::Dense(Query::vector(vec![0.1, 0.2]).k(20)), Branch::text("dog", 20)])
///     .k(10)
///     .filter("pos = 'n'")
///     .fusion(Fusion::Rrf { k: 60.0 });
/// assert_eq!(q.branches().len(), 2);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct HybridQuery {
    branches: Vec<Branch>,
    k: usize,
    filter: Option<String>,
    params: Params,
    fields: Option<Vec<String>>,
    fusion: Fusion,
}

impl HybridQuery {
    /// Fuses `branches` by RRF (k = 60) into the best 10, every scalar field returned.
    pub fn new(branches: Vec<Branch>) -> HybridQuery {
        HybridQuery { branches, k: 10, filter: None, params: Params::new(), fields: None, fusion: Fusion::default() }
    }

    /// Most fused hits to return, 1..=[`MAX_K`].
    pub fn k(mut self, k: usize) -> HybridQuery {
        self.k = k;
        self
    }

    /// The filter every branch searches under.
    pub fn filter(mut self, filter: impl Into<String>) -> HybridQuery {
        self.filter = Some(filter.into());
        self
    }

    /// [`HybridQuery::filter`] when `Some`.
    pub fn filter_opt(mut self, filter: Option<String>) -> HybridQuery {
        self.filter = filter;
        self
    }

    /// Binds the filter's `$name` placeholders.
    pub fn params(mut self, params: Params) -> HybridQuery {
        self.params = params;
        self
    }

    /// The fields hits carry (default: every scalar field).
    pub fn fields_opt(mut self, fields: Option<Vec<String>>) -> HybridQuery {
        self.fields = fields;
        self
    }

    /// How the branches' rankings are fused.
    pub fn fusion(mut self, fusion: Fusion) -> HybridQuery {
        self.fusion = fusion;
        self
    }

    /// The fields hits carry (`None`: every scalar field).
    pub fn projection(&self) -> Option<&[String]> {
        self.fields.as_deref()
    }

    /// The branches, in order: [`HybridHit::branches`] follows it.
    pub fn branches(&self) -> &[Branch] {
        &self.branches
    }
}

/// Where one branch ranked a fused hit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BranchHit {
    /// 1 for the branch's best.
    pub rank: u32,
    /// The branch's own score: the metric's for dense branches, BM25 for text, 1 for keys.
    pub score: f32,
}

/// One fused result, best first.
#[derive(Clone, Debug, PartialEq)]
pub struct HybridHit {
    /// The document's key.
    pub key: String,
    /// The fused score (higher is better); with one branch there is nothing to fuse and
    /// this is that branch's own score (BM25, the metric's score, the sparse dot product),
    /// in the branch's order.
    pub score: f32,
    /// The fields the query asked for, by name; a null value is left out.
    pub fields: BTreeMap<String, Value>,
    /// Per branch, in the query's order: where it ranked this document, if it did.
    pub branches: Vec<Option<BranchHit>>,
}

/// A document's fused score so far, where each branch ranked it, and its fields.
struct Fused<'r> {
    score: f32,
    branches: Vec<Option<BranchHit>>,
    fields: &'r BTreeMap<String, Value>,
}

impl Fused<'_> {
    fn best_rank(&self) -> u32 {
        self.branches.iter().flatten().map(|h| h.rank).min().unwrap_or(u32::MAX)
    }
}

/// How one branch of a hybrid query ran (see [`Snapshot::explain_hybrid`]).
#[derive(Clone, Debug, PartialEq)]
pub struct BranchTrace {
    /// Which kind of branch it was.
    pub kind: BranchKind,
    /// Documents the branch ranked.
    pub hits: usize,
    /// Time the branch took, its filter included.
    pub nanos: u64,
    /// A dense branch's sources in search order (as [`Explain::sources`]); empty for the
    /// others, which read every source's rows in one pass.
    ///
    /// [`Explain::sources`]: crate::Explain::sources
    pub sources: Vec<SourceTrace>,
    /// A text or sparse branch's search: sources through their index or scanned, rows
    /// scored.
    pub postings: Option<PostingsTrace>,
}

/// How a hybrid query ran, branch by branch.
#[derive(Clone, Debug, PartialEq)]
pub struct HybridExplain {
    /// The shared filter's leaves as written; empty without a filter.
    pub leaves: Vec<String>,
    /// Ids of the snapshot's segments (a source position below their count is a segment).
    pub segment_ids: Vec<u64>,
    /// Each branch, in the query's order.
    pub branches: Vec<BranchTrace>,
    /// Fused hits returned.
    pub hits: usize,
    /// The whole query.
    pub nanos: u64,
}

/// One branch's ranking (see [`Snapshot::rankings`]): documents best first, and whether
/// a higher score is better.
#[derive(Clone, Debug, PartialEq)]
pub struct Ranking {
    /// Best first.
    pub hits: Vec<Ranked>,
    /// Whether the branch's scores rise with quality (all but an L2 dense branch's).
    pub higher_is_better: bool,
}

/// One document a branch ranked.
#[derive(Clone, Debug, PartialEq)]
pub struct Ranked {
    /// The document's key.
    pub key: String,
    /// The branch's own score (as [`BranchHit::score`]).
    pub score: f32,
    /// The fields the query asked for (empty inside [`Snapshot::hybrid`], which projects
    /// only the fused hits).
    pub fields: BTreeMap<String, Value>,
}

impl Ranked {
    fn new(key: String, score: f32) -> Ranked {
        Ranked { key, score, fields: BTreeMap::new() }
    }
}

/// Checks what a hybrid query asks before it runs: its branch count, `k` and fusion.
fn check(q: &HybridQuery) -> Result<(), Error> {
    let bad = |what: String| Error::from(QueryError::BadHybrid(what));
    if q.branches.is_empty() || q.branches.len() > MAX_BRANCHES {
        return Err(bad(format!("{} branches; expected 1..={MAX_BRANCHES}", q.branches.len())));
    }
    if q.k == 0 || q.k > MAX_K {
        return Err(QueryError::BadLimit(q.k).into());
    }
    match &q.fusion {
        Fusion::Rrf { k } if !(k.is_finite() && *k > 0.0) => {
            Err(bad(format!("RRF k {k} is out of range; expected a number above 0")))
        }
        Fusion::Weighted(w) if w.len() != q.branches.len() => {
            Err(bad(format!("{} weights for {} branches; give one per branch", w.len(), q.branches.len())))
        }
        Fusion::Weighted(w) if w.iter().any(|x| !(x.is_finite() && *x >= 0.0)) => {
            Err(bad("weights must be finite and at least 0".into()))
        }
        _ => Ok(()),
    }
}

/// Fuses `rankings` (one per branch of `q`, in its order) by `q`'s fusion into its best
/// `k`, each hit with the fields of its first ranking entry. [`Snapshot::hybrid`] is
/// [`Snapshot::rankings`] then this; shards of one dataset merge each branch's rankings
/// (best `k` of the branch over every shard) and fuse them once here, so their answer is
/// one collection's.
pub fn fuse(q: &HybridQuery, rankings: &[Ranking]) -> Result<Vec<HybridHit>, Error> {
    check(q)?;
    if rankings.len() != q.branches.len() {
        let what = format!("{} rankings for {} branches; give one per branch", rankings.len(), q.branches.len());
        return Err(QueryError::BadHybrid(what).into());
    }
    // By key: a document is one live row, whichever branch found it.
    let mut fused: HashMap<&str, Fused> = HashMap::new();
    for (b, ranking) in rankings.iter().enumerate() {
        let (lo, hi) = ranking
            .hits
            .iter()
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), h| (lo.min(h.score), hi.max(h.score)));
        for (i, hit) in ranking.hits.iter().enumerate() {
            let score = hit.score;
            let rank = i as u32 + 1;
            let part = match &q.fusion {
                Fusion::Rrf { k } => 1.0 / (k + rank as f32),
                Fusion::Weighted(w) => {
                    let unit = if hi > lo {
                        if ranking.higher_is_better { (score - lo) / (hi - lo) } else { (hi - score) / (hi - lo) }
                    } else {
                        1.0
                    };
                    w[b] * unit
                }
            };
            let entry = fused.entry(hit.key.as_str()).or_insert_with(|| Fused {
                score: 0.0,
                branches: vec![None; rankings.len()],
                fields: &hit.fields,
            });
            entry.score += part;
            entry.branches[b] = Some(BranchHit { rank, score });
        }
    }
    let mut order: Vec<(&str, Fused)> = fused.into_iter().collect();
    // Best fused score first; ties to the better best rank, then to the lesser key.
    order
        .sort_by(|a, b| b.1.score.total_cmp(&a.1.score).then(a.1.best_rank().cmp(&b.1.best_rank())).then(a.0.cmp(b.0)));
    order.truncate(q.k);
    let alone = rankings.len() == 1;
    Ok(order
        .into_iter()
        .map(|(key, Fused { score, branches, fields })| {
            let score = match &branches[..] {
                [Some(hit)] if alone => hit.score,
                _ => score,
            };
            HybridHit { key: key.to_string(), score, fields: fields.clone(), branches }
        })
        .collect())
}

impl Snapshot {
    /// The key of a candidate row.
    fn key_of(&self, c: Candidate) -> String {
        self.source(c.segment).keys().get_str(c.row as usize).to_string()
    }

    /// Runs a hybrid query: every branch under the shared filter, then the fusion.
    pub fn hybrid(&self, q: &HybridQuery) -> Result<Vec<HybridHit>, Error> {
        self.hybrid_traced(q, None)
    }

    /// Runs a hybrid query and says how each branch ran: its hits and time, and for a
    /// dense branch each segment's filter and search (as [`Snapshot::explain`] does).
    pub fn explain_hybrid(&self, q: &HybridQuery) -> Result<HybridExplain, Error> {
        let start = Instant::now();
        let mut branches = Vec::new();
        let hits = self.hybrid_traced(q, Some(&mut branches))?.len();
        let leaves = match q.filter.as_deref() {
            Some(t) => Filter::compile_with(t, &self.schema, &q.params)?.leaves().to_vec(),
            None => Vec::new(),
        };
        let segment_ids = self.segments.iter().map(|s| s.segment.id()).collect();
        Ok(HybridExplain { leaves, segment_ids, branches, hits, nanos: start.elapsed().as_nanos() as u64 })
    }

    fn hybrid_traced(&self, q: &HybridQuery, trace: Option<&mut Vec<BranchTrace>>) -> Result<Vec<HybridHit>, Error> {
        check(q)?;
        let projection = resolve_projection(&self.schema, q.fields.as_deref(), false)?;
        let rankings = self.rank_branches(q, trace)?;
        let mut hits = fuse(q, &rankings)?;
        for hit in &mut hits {
            let loc = self.locate(&hit.key).expect("a ranked key is live in the snapshot");
            let (src, row) = self.view(loc);
            hit.fields = self.project(src, row, &projection).1;
        }
        Ok(hits)
    }

    /// Each branch's ranking of a hybrid query, its hits with the fields the query asks
    /// for, before any fusion: what [`fuse`] takes. Shards of one dataset each give
    /// theirs, to be merged branch by branch and fused once.
    pub fn rankings(&self, q: &HybridQuery) -> Result<Vec<Ranking>, Error> {
        check(q)?;
        let projection = resolve_projection(&self.schema, q.fields.as_deref(), false)?;
        let mut rankings = self.rank_branches(q, None)?;
        for hit in rankings.iter_mut().flat_map(|r| &mut r.hits) {
            let loc = self.locate(&hit.key).expect("a ranked key is live in the snapshot");
            let (src, row) = self.view(loc);
            hit.fields = self.project(src, row, &projection).1;
        }
        Ok(rankings)
    }

    /// Every branch of `q` under its shared filter, traced into `trace` when given.
    fn rank_branches(&self, q: &HybridQuery, mut trace: Option<&mut Vec<BranchTrace>>) -> Result<Vec<Ranking>, Error> {
        check(q)?;
        let filter = q.filter.as_deref().map(|t| Filter::compile_with(t, &self.schema, &q.params)).transpose()?;
        let mut rankings = Vec::with_capacity(q.branches.len());
        for b in &q.branches {
            let start = trace.is_some().then(Instant::now);
            let mut sources = Vec::new();
            let tracing = trace.is_some().then_some(&mut sources);
            let mut postings = None;
            let ranking = self.rank_branch(b, q, filter.as_ref(), tracing, &mut postings)?;
            if let (Some(t), Some(start)) = (trace.as_deref_mut(), start) {
                let nanos = start.elapsed().as_nanos() as u64;
                t.push(BranchTrace { kind: b.kind(), hits: ranking.hits.len(), nanos, sources, postings });
            }
            rankings.push(ranking);
        }
        Ok(rankings)
    }

    /// One branch's ranking under the shared filter.
    fn rank_branch(
        &self,
        branch: &Branch,
        q: &HybridQuery,
        filter: Option<&Filter>,
        sources: Option<&mut Vec<SourceTrace>>,
        postings: &mut Option<PostingsTrace>,
    ) -> Result<Ranking, Error> {
        let context = |e: Error| match e {
            Error::Query(e) => Error::from(QueryError::InBranch { branch: branch.kind().name(), error: Box::new(e) }),
            other => other,
        };
        match branch {
            Branch::Dense(dense) => {
                let dense =
                    dense.clone().filter_opt(q.filter.clone()).params(q.params.clone()).fields_opt(Some(vec![]));
                let plan = self.plan(&dense, dense.k, false).map_err(context)?;
                let mut top = TopK::new(dense.k);
                self.run(&plan, dense.k, &mut top, sources)?;
                let hits = top.into_sorted().into_iter().map(|c| Ranked::new(self.key_of(c), plan.score(c))).collect();
                Ok(Ranking { hits, higher_is_better: plan.metric() != Metric::L2 })
            }
            Branch::Text { fields, text, k, stats } => {
                if *k == 0 || *k > MAX_K {
                    return Err(context(QueryError::BadLimit(*k).into()));
                }
                let resolved = resolve_text_fields(&self.schema, fields).map_err(|e| context(e.into()))?;
                let (found, trace) =
                    self.text_candidates(&resolved, text, *k, filter, stats.as_ref()).map_err(context)?;
                *postings = Some(trace);
                let hits = found.into_iter().map(|(c, score)| Ranked::new(self.key_of(c), score)).collect();
                Ok(Ranking { hits, higher_is_better: true })
            }
            Branch::Sparse { field, vector, k, budget } => {
                if *k == 0 || *k > MAX_K {
                    return Err(context(QueryError::BadLimit(*k).into()));
                }
                let field = self.schema.resolve(FieldKind::Sparse, field.as_deref()).map_err(|e| context(e.into()))?;
                let (found, trace) = self.sparse_candidates(field, vector, *k, *budget, filter).map_err(context)?;
                *postings = Some(trace);
                let hits = found.into_iter().map(|(c, score)| Ranked::new(self.key_of(c), score)).collect();
                Ok(Ranking { hits, higher_is_better: true })
            }
            Branch::Keys(keys) => {
                if keys.len() > MAX_K {
                    return Err(context(QueryError::BadLimit(keys.len()).into()));
                }
                let mut hits: Vec<Ranked> = Vec::new();
                let mut seen: HashSet<&str> = HashSet::new();
                // The filter's rows of each segment or memtable chunk a key lives in,
                // evaluated once per source (by its address), however many keys it holds.
                let mut allowed_rows: HashMap<*const (), RoaringBitmap> = HashMap::new();
                for key in keys {
                    let Some(loc) = self.locate(key) else { continue };
                    let allowed = filter.is_none_or(|f| {
                        let (src, row) = self.view(loc);
                        let at = src as *const dyn SegmentView as *const ();
                        allowed_rows.entry(at).or_insert_with(|| f.evaluate(src, &[])).contains(row as u32)
                    });
                    if allowed && seen.insert(key) {
                        hits.push(Ranked::new(key.clone(), 1.0));
                    }
                }
                Ok(Ranking { hits, higher_is_better: true })
            }
        }
    }
}
