//! `xvec bench --text FIELD`: full-text and hybrid search on a dataset whose base rows
//! carry text (`base.jsonl` beside `base.fvecs`, one object per row, in row order).
//!
//! Two collections are loaded: one holding only the text field under a full-text index
//! (what a BM25 library indexes, so its load time is the indexing throughput to compare),
//! and one with the text field, the base vectors and a sparse field `bm25`: each row's
//! BM25 term weights (the same analyzer and statistics, dimensions numbered by a
//! vocabulary of the base's terms), so a query of its terms at weight 1 scores each row
//! its BM25. Then, in `repeat` interleaved rounds, each query is run serially as a text
//! query on the first, and as a dense query, a text query, a sparse query and an RRF
//! fusion of dense and text on the second. The sparse hits are checked against brute
//! force (recall@k, ties at the k-th score counted as found). A query's text is its row's
//! `query_key` value in `queries.jsonl` (an array of strings is joined by spaces); its
//! vector is the row of `queries.fvecs`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::Value as Json;

use xvec::sparse::Bm25Vocabulary;
use xvec::{
    Branch, Collection, Doc, Field, HybridQuery, IndexParams, Metric, OpenOptions, OptimizeOptions, Query, ScalarType,
    Schema, SparseType, SparseVector, TextIndex, Value, VectorType,
};

use crate::dataset::VectorFile;
use crate::phases::{BenchError, CollectionDir};

/// What a text run does.
#[derive(Clone, Debug)]
pub struct TextConfig {
    /// Directory with base.jsonl, base.fvecs, queries.jsonl and queries.fvecs.
    pub dataset: PathBuf,
    /// The text key of base.jsonl, and the field name.
    pub field: String,
    pub text_index: TextIndex,
    /// The key of queries.jsonl holding each query's text.
    pub query_key: String,
    /// Postings each segment's sparse search scores at most (`None`: exact).
    pub sparse_budget: Option<u64>,
    pub index: IndexParams,
    pub metric: Metric,
    pub k: usize,
    pub repeat: usize,
    pub batch_size: usize,
    pub limit: Option<usize>,
}

/// Serial latencies of one kind of query over one pass, in milliseconds.
#[derive(Clone, Debug, Default)]
pub struct Pass {
    pub p50: f64,
    pub p99: f64,
    pub mean: f64,
    pub qps: f64,
}

impl Pass {
    fn of(mut ms: Vec<f64>) -> Pass {
        ms.sort_by(f64::total_cmp);
        let at = |q: f64| ms[((ms.len() as f64 * q).ceil() as usize).clamp(1, ms.len()) - 1];
        let total: f64 = ms.iter().sum();
        Pass { p50: at(0.5), p99: at(0.99), mean: total / ms.len() as f64, qps: 1000.0 * ms.len() as f64 / total }
    }
}

/// The kinds of query measured, in the order they run in each round.
pub const KINDS: [&str; 5] = ["text only", "dense", "text", "sparse", "hybrid rrf"];

/// What a text run measured.
#[derive(Clone, Debug)]
pub struct TextReport {
    pub docs: usize,
    pub queries: usize,
    /// Loading the text-only collection: inserts, then the flush that writes the segment
    /// and its full-text index.
    pub text_insert_sec: f64,
    pub text_flush_sec: f64,
    /// Loading the hybrid collection: inserts, then optimize (segment, vector and
    /// full-text indexes).
    pub hybrid_insert_sec: f64,
    pub hybrid_optimize_sec: f64,
    /// Full-text index file size.
    pub text_index_bytes: u64,
    /// Per kind (as [`KINDS`]), every round's pass.
    pub passes: Vec<Vec<Pass>>,
    /// Mean over the queries of the text hits found (up to k), a check the text matched.
    pub mean_text_hits: f64,
    /// Sparse queries' recall@k against brute force over the same vectors.
    pub sparse_recall: f64,
    /// Nonzero dimensions in all rows' sparse vectors.
    pub sparse_postings: u64,
    /// Sparse index file size of the hybrid collection.
    pub sparse_index_bytes: u64,
}

fn read_jsonl(path: &Path, limit: Option<usize>) -> Result<Vec<Json>, BenchError> {
    let bad = |what: String| BenchError::Invalid(format!("{}: {what}", path.display()));
    let text = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
    let lines = text.lines().take(limit.unwrap_or(usize::MAX));
    lines.enumerate().map(|(i, l)| serde_json::from_str(l).map_err(|e| bad(format!("line {}: {e}", i + 1)))).collect()
}

fn texts_present(rows: &[Json], key: &str) -> bool {
    rows.iter().any(|r| text_of(r, key).is_some())
}

/// `row[key]` as text: a string, or an array of strings joined by spaces.
fn text_of(row: &Json, key: &str) -> Option<String> {
    match row.get(key)? {
        Json::String(s) => Some(s.clone()),
        Json::Array(a) => Some(a.iter().filter_map(Json::as_str).collect::<Vec<_>>().join(" ")),
        _ => None,
    }
}

fn engine(phase: &'static str) -> impl Fn(xvec::Error) -> BenchError {
    move |source| BenchError::Engine { phase, source }
}

/// Runs the text benchmark in collections `text` and `hybrid` under `path` (default: a
/// temporary directory, removed afterwards).
pub fn run(cfg: &TextConfig, path: Option<&Path>) -> Result<TextReport, BenchError> {
    if cfg.k == 0 || cfg.repeat == 0 || cfg.batch_size == 0 {
        return Err(BenchError::Invalid("k, repeat and batch size must be at least 1".into()));
    }
    let base = read_jsonl(&cfg.dataset.join("base.jsonl"), cfg.limit)?;
    if !texts_present(&base, &cfg.field) {
        return Err(BenchError::Invalid(format!("base.jsonl: no row has a text under `{}`", cfg.field)));
    }
    let queries = read_jsonl(&cfg.dataset.join("queries.jsonl"), None)?;
    let texts: Vec<Option<String>> = base.iter().map(|r| text_of(r, &cfg.field)).collect();
    let query_texts: Vec<String> = queries
        .iter()
        .enumerate()
        .map(|(i, q)| {
            text_of(q, &cfg.query_key).ok_or_else(|| {
                BenchError::Invalid(format!("queries.jsonl line {}: no text under `{}`", i + 1, cfg.query_key))
            })
        })
        .collect::<Result<_, _>>()?;
    let dir = CollectionDir::new(path, false)?;
    let work = dir.path();
    let base_vectors = VectorFile::open(&cfg.dataset.join("base.fvecs"))?;
    let query_vectors = VectorFile::open(&cfg.dataset.join("queries.fvecs"))?;
    if base_vectors.len() < texts.len() || query_vectors.len() < query_texts.len() {
        return Err(BenchError::Invalid("fewer vectors than jsonl rows".into()));
    }
    let text_field = Field::scalar(&cfg.field, ScalarType::String).nullable(true).text_index(cfg.text_index.clone());
    let weights = Bm25Weights::of(&cfg.text_index, &texts)?;
    let doc = |i: usize| {
        let d = Doc::new(format!("r{i}"));
        match &texts[i] {
            Some(t) => d.set(&cfg.field, t.as_str()),
            None => d,
        }
    };

    // The text-only collection: what a BM25 library indexes.
    let text_dir = work.join("text");
    let schema = Schema::builder("text").field(text_field.clone()).build().map_err(|e| engine("create")(e.into()))?;
    let coll = Collection::create(&text_dir, schema, Default::default()).map_err(engine("create"))?;
    let start = Instant::now();
    for chunk in (0..texts.len()).collect::<Vec<_>>().chunks(cfg.batch_size) {
        coll.insert(chunk.iter().map(|&i| doc(i)).collect()).map_err(engine("insert"))?;
    }
    let text_insert_sec = start.elapsed().as_secs_f64();
    let start = Instant::now();
    coll.flush().map_err(engine("flush"))?;
    let text_flush_sec = start.elapsed().as_secs_f64();
    let text_index_bytes = coll.memory().text_indexes;
    drop(coll);

    // The hybrid collection: the text and the vectors.
    let hybrid_dir = work.join("hybrid");
    let vector = Field::vector("emb", VectorType::Fp32, base_vectors.dim() as u32, cfg.metric).index(cfg.index.clone());
    let sparse = Field::sparse("bm25", SparseType::Fp32).nullable(true);
    let schema = Schema::builder("hybrid")
        .field(text_field)
        .field(vector)
        .field(sparse)
        .build()
        .map_err(|e| engine("create")(e.into()))?;
    let coll = Collection::create(&hybrid_dir, schema, Default::default()).map_err(engine("create"))?;
    let mut row = Vec::new();
    let start = Instant::now();
    for chunk in (0..texts.len()).collect::<Vec<_>>().chunks(cfg.batch_size) {
        let docs = chunk
            .iter()
            .map(|&i| {
                base_vectors.read_row(i, &mut row);
                let d = doc(i).set("emb", row.clone());
                match &weights.rows[i] {
                    Some(v) => d.set("bm25", Value::Sparse(v.clone())),
                    None => d,
                }
            })
            .collect();
        coll.insert(docs).map_err(engine("insert"))?;
    }
    let hybrid_insert_sec = start.elapsed().as_secs_f64();
    let start = Instant::now();
    coll.optimize(&OptimizeOptions::default()).map_err(engine("optimize"))?;
    let hybrid_optimize_sec = start.elapsed().as_secs_f64();
    drop(coll);

    let text_coll = Collection::open(&text_dir, &OpenOptions::read_only()).map_err(engine("open"))?;
    let hybrid_coll = Collection::open(&hybrid_dir, &OpenOptions::read_only()).map_err(engine("open"))?;
    let (text_snap, hybrid_snap) = (text_coll.snapshot(), hybrid_coll.snapshot());
    let sparse_index_bytes = hybrid_coll.memory().sparse_indexes;
    let vectors: Vec<Vec<f32>> = (0..query_texts.len())
        .map(|i| {
            let mut v = Vec::new();
            query_vectors.read_row(i, &mut v);
            v
        })
        .collect();
    let k = cfg.k;
    let dense = |i: usize| Query::vector(vectors[i].clone()).k(k).field("emb").fields(Vec::<String>::new());
    let hybrid = |branches: Vec<Branch>| HybridQuery::new(branches).k(k).fields_opt(Some(Vec::new()));
    let text = |i: usize| Branch::text(query_texts[i].as_str(), k);
    let sparse_queries: Vec<SparseVector> = query_texts.iter().map(|t| weights.vocabulary.query(t)).collect();
    let budget = cfg.sparse_budget;
    let sparse_branch = |q: &SparseVector| Branch::Sparse { field: None, vector: q.clone(), k, budget };
    let sparse = |i: usize| sparse_branch(&sparse_queries[i]);
    let sparse_recall = weights.recall(&hybrid_snap, &sparse_queries, &sparse_branch, k).map_err(engine("search"))?;
    let mut passes: Vec<Vec<Pass>> = vec![Vec::new(); KINDS.len()];
    let mut text_hits = 0usize;
    for _ in 0..cfg.repeat {
        for (kind, out) in passes.iter_mut().enumerate() {
            let mut ms = Vec::with_capacity(query_texts.len());
            for i in 0..query_texts.len() {
                let start = Instant::now();
                let found = match kind {
                    0 => text_snap.hybrid(&hybrid(vec![text(i)])).map(|h| h.len()),
                    1 => hybrid_snap.query(&dense(i)).map(|h| h.len()),
                    2 => hybrid_snap.hybrid(&hybrid(vec![text(i)])).map(|h| h.len()),
                    3 => hybrid_snap.hybrid(&hybrid(vec![sparse(i)])).map(|h| h.len()),
                    _ => hybrid_snap.hybrid(&hybrid(vec![Branch::Dense(dense(i)), text(i)])).map(|h| h.len()),
                }
                .map_err(engine("search"))?;
                ms.push(start.elapsed().as_secs_f64() * 1000.0);
                if kind == 0 {
                    text_hits += found;
                }
            }
            out.push(Pass::of(ms));
        }
    }
    Ok(TextReport {
        docs: texts.len(),
        queries: query_texts.len(),
        text_insert_sec,
        text_flush_sec,
        hybrid_insert_sec,
        hybrid_optimize_sec,
        text_index_bytes,
        passes,
        mean_text_hits: text_hits as f64 / (cfg.repeat * query_texts.len()) as f64,
        sparse_recall,
        sparse_postings: weights.rows.iter().flatten().map(|v| v.len() as u64).sum(),
        sparse_index_bytes,
    })
}

/// BM25 term weights of every row, as sparse vectors over the vocabulary of the rows'
/// terms.
struct Bm25Weights {
    vocabulary: Bm25Vocabulary,
    rows: Vec<Option<SparseVector>>,
}

impl Bm25Weights {
    fn of(index: &TextIndex, texts: &[Option<String>]) -> Result<Bm25Weights, BenchError> {
        let invalid = |e: String| BenchError::Invalid(format!("--text-index: {e}"));
        let vocabulary = Bm25Vocabulary::build(&index.analyzer, index.bm25, texts.iter().flatten().map(String::as_str))
            .map_err(|e| invalid(e.to_string()))?;
        let rows = texts.iter().map(|t| t.as_deref().map(|t| vocabulary.document(t)).transpose());
        Ok(Bm25Weights { rows: rows.collect::<Result<_, _>>().map_err(invalid)?, vocabulary })
    }

    /// Recall@k of the engine's sparse search against brute force: a hit counts when its
    /// score reaches the exact k-th score (ties there are any of them).
    fn recall(
        &self,
        snap: &xvec::Snapshot,
        queries: &[SparseVector],
        branch: &dyn Fn(&SparseVector) -> Branch,
        k: usize,
    ) -> Result<f64, xvec::Error> {
        let (mut found, mut wanted) = (0usize, 0usize);
        for q in queries {
            let shares = |v: &&SparseVector| v.indices().iter().any(|i| q.indices().binary_search(i).is_ok());
            let mut exact: Vec<f32> = self.rows.iter().flatten().filter(shares).map(|v| v.dot(q)).collect();
            exact.sort_by(|a, b| b.total_cmp(a));
            exact.truncate(k);
            let Some(&kth) = exact.last() else { continue };
            let hits = snap.hybrid(&HybridQuery::new(vec![branch(q)]).k(k))?;
            wanted += exact.len();
            found += hits.iter().filter(|h| h.branches[0].is_some_and(|b| b.score >= kth)).count().min(exact.len());
        }
        Ok(if wanted == 0 { 1.0 } else { found as f64 / wanted as f64 })
    }
}
