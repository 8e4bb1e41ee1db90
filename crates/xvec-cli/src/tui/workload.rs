//! The search workload: worker threads run queries against the collection and only
//! publish counters (atomics, and a latency histogram per thread merged by whoever
//! collects). They never touch the terminal; the dashboard and the headless loop read
//! them at their own pace through [`Workload::collect`].
//!
//! Settings (running, concurrency, k, ef, refine, filter) are atomics the workers read
//! before each query, so a change takes effect on the next query without a lock.
//!
//! A hybrid workload ([`Hybrid`]) adds a BM25 branch over a full-text field and a sparse
//! branch over a sparse field to each vector query, their queries the sampled row's own
//! text and sparse vector, fused by RRF.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use xvec::{
    Branch, Collection, FieldKind, FieldLookupError, HybridQuery, Metric, Params, Query, Snapshot, SparseVector,
    TextField, Value,
};
use xvec_io::dataset::{GroundTruth, recall_at};

use super::metrics::{Tick, latency_histogram};

/// Most workload threads.
pub const MAX_THREADS: usize = 64;
/// Largest k the controls allow; the exact reference keeps this many neighbours.
pub const MAX_K: usize = 100;
/// How often a worker hands its latencies over.
const FLUSH_EVERY: Duration = Duration::from_millis(50);
/// How long an idle (paused or surplus) worker sleeps between looks at the settings.
const IDLE: Duration = Duration::from_millis(20);
const RECALL_SCALE: f64 = 1e6;

/// What the workload runs, as the controls change it.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub running: bool,
    pub concurrency: usize,
    pub k: usize,
    /// `None`: the field's default.
    pub ef: Option<usize>,
    /// `None`: the field's default.
    pub nprobe: Option<usize>,
    /// `None`: the field's default; `Some(0)` searches the quantized codes only.
    pub refine: Option<usize>,
    pub filter: bool,
}

/// Per-thread counters, on their own cache lines.
#[repr(align(128))]
#[derive(Default)]
struct Slot {
    queries: AtomicU64,
    errors: AtomicU64,
    recall_micros: AtomicU64,
    recall_n: AtomicU64,
    latency: Mutex<Option<Histogram<u64>>>,
}

/// Where recall comes from.
pub enum Truth {
    /// Dataset ground truth (`--gt`): neighbour ids per query, for unfiltered search.
    Given(GroundTruth),
    /// Exact search over the collection for the first `sample` queries, computed in the
    /// background: index 0 without the filter, 1 with it.
    Exact { sample: usize, keys: [OnceLock<Result<Vec<Vec<String>>, String>>; 2] },
}

/// The branches a hybrid workload adds to the vector query.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Hybrid {
    /// A full-text field: a BM25 branch, its query the sampled row's text.
    pub text_field: Option<String>,
    /// A sparse field: an exact sparse branch, its query the sampled row's vector.
    pub sparse_field: Option<String>,
}

impl Hybrid {
    pub fn is_some(&self) -> bool {
        self.text_field.is_some() || self.sparse_field.is_some()
    }

    /// The branches, as the dashboard names them: `vector + text gloss + sparse bm25`.
    pub fn describe(&self) -> String {
        let mut parts = vec!["vector".to_string()];
        parts.extend(self.text_field.as_ref().map(|f| format!("text {f}")));
        parts.extend(self.sparse_field.as_ref().map(|f| format!("sparse {f}")));
        parts.join(" + ")
    }
}

/// The queries a workload cycles through.
pub struct Queries {
    pub vectors: Vec<Vec<f32>>,
    /// Per query, the text of the hybrid text branch (empty without one).
    pub texts: Vec<String>,
    /// Per query, the vector of the hybrid sparse branch (empty without one; `None` where
    /// the row has none, and the branch is left out).
    pub sparse: Vec<Option<SparseVector>>,
    /// For queries sampled from the collection, the key of the row each one is: a query
    /// finds itself at distance zero, so its own row is left out of both its answer and
    /// its exact reference (else recall counts a free hit per query).
    pub own_keys: Option<Vec<String>>,
}

impl Queries {
    pub fn len(&self) -> usize {
        self.vectors.len()
    }

    pub fn is_empty(&self) -> bool {
        self.vectors.is_empty()
    }
}

/// The queries and what they run against.
pub struct Workload<'c> {
    coll: &'c Collection,
    field: Option<String>,
    hybrid: Hybrid,
    filter: Option<String>,
    /// Values of the filter's `$name` parameters.
    params: Params,
    queries: Queries,
    pub truth: Truth,
    settings: Mutex<Settings>,
    version: AtomicU64,
    stop: AtomicBool,
    slots: Vec<Slot>,
    spawned: AtomicUsize,
    last_error: Mutex<Option<String>>,
    started: Instant,
    collected: Mutex<[u64; 4]>,
}

impl<'c> Workload<'c> {
    pub fn new(
        coll: &'c Collection,
        (field, hybrid): (Option<String>, Hybrid),
        filter: Option<String>,
        params: Params,
        queries: Queries,
        truth: Truth,
        settings: Settings,
    ) -> Workload<'c> {
        Workload {
            coll,
            field,
            hybrid,
            filter,
            params,
            queries,
            truth,
            settings: Mutex::new(settings),
            version: AtomicU64::new(0),
            stop: AtomicBool::new(false),
            slots: (0..MAX_THREADS).map(|_| Slot::default()).collect(),
            spawned: AtomicUsize::new(0),
            last_error: Mutex::new(None),
            started: Instant::now(),
            collected: Mutex::new([0; 4]),
        }
    }

    pub fn settings(&self) -> Settings {
        self.settings.lock().expect("settings lock").clone()
    }

    /// Changes the settings; workers pick them up before their next query.
    pub fn set(&self, s: Settings) {
        *self.settings.lock().expect("settings lock") = s;
        self.version.fetch_add(1, Ordering::Release);
    }

    /// Asks every worker to finish its current query and return.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Release);
    }

    /// Spawns workers up to the current concurrency (they never exit before [`stop`]).
    ///
    /// [`stop`]: Workload::stop
    pub fn spawn_workers<'s>(&'s self, scope: &'s std::thread::Scope<'s, '_>) {
        let want = self.settings().concurrency.clamp(1, MAX_THREADS);
        while self.spawned.load(Ordering::Acquire) < want {
            let id = self.spawned.fetch_add(1, Ordering::AcqRel);
            scope.spawn(move || self.worker(id));
        }
    }

    /// The most recent query error, if any.
    pub fn last_error(&self) -> Option<String> {
        self.last_error.lock().expect("error lock").clone()
    }

    /// The query the workload runs with these settings; one neighbour more than k when
    /// the query's own row is dropped from the answer.
    pub(super) fn query_for(&self, s: &Settings) -> Query {
        let k = s.k + usize::from(self.queries.own_keys.is_some());
        // A graph search needs ef >= k, and k is one more here.
        Query::vector(Vec::new())
            .k(k)
            .fields(Vec::<String>::new())
            .field_opt(self.field.clone())
            .ef(s.ef.map(|ef| ef.max(k)))
            .nprobe(s.nprobe)
            .refine(s.refine)
            .filter_opt(if s.filter { self.filter.clone() } else { None })
            .params(self.params.clone())
    }

    fn worker(&self, id: usize) {
        let slot = &self.slots[id];
        let mut local = latency_histogram();
        let mut version = u64::MAX;
        let mut settings = self.settings();
        let mut q = self.query_for(&settings);
        // Threads start at different queries so they do not walk the same cache lines.
        let mut next = id.wrapping_mul(7919);
        let mut flushed = Instant::now();
        let flush = |local: &mut Histogram<u64>| {
            let mut shared = slot.latency.lock().expect("latency lock");
            match shared.as_mut() {
                Some(h) => {
                    let _ = h.add(&*local);
                }
                None => *shared = Some(local.clone()),
            }
            local.reset();
        };
        while !self.stop.load(Ordering::Acquire) {
            let v = self.version.load(Ordering::Acquire);
            if v != version {
                version = v;
                settings = self.settings();
                q = self.query_for(&settings);
            }
            if !settings.running || id >= settings.concurrency || self.queries.is_empty() {
                flush(&mut local);
                std::thread::sleep(IDLE);
                continue;
            }
            let qi = next % self.queries.len();
            next = next.wrapping_add(1);
            let start = Instant::now();
            let result = self.run_query(qi, &settings, &mut q);
            let end = Instant::now();
            match result {
                Ok(recall) => {
                    let _ = local.record((end - start).as_micros().max(1) as u64);
                    slot.queries.fetch_add(1, Ordering::Relaxed);
                    if let Some(r) = recall {
                        slot.recall_micros.fetch_add((r * RECALL_SCALE).round() as u64, Ordering::Relaxed);
                        slot.recall_n.fetch_add(1, Ordering::Relaxed);
                    }
                }
                Err(e) => {
                    slot.errors.fetch_add(1, Ordering::Relaxed);
                    *self.last_error.lock().expect("error lock") = Some(e.to_string());
                    std::thread::sleep(IDLE);
                }
            }
            if end - flushed >= FLUSH_EVERY {
                flush(&mut local);
                flushed = end;
            }
        }
        flush(&mut local);
    }

    /// Runs query `qi` with `q` (from [`Workload::query_for`] for `s`): its own row
    /// dropped and the answer cut to k, then recall@k when the query has a reference.
    pub(super) fn run_query(&self, qi: usize, s: &Settings, q: &mut Query) -> Result<Option<f64>, xvec::Error> {
        q.set_vector(self.queries.vectors[qi].clone());
        if self.hybrid.is_some() {
            return self.run_hybrid(qi, s, q).map(|()| None);
        }
        let mut hits = self.coll.query(q)?;
        if let Some(own) = &self.queries.own_keys {
            hits.retain(|h| h.key != own[qi]);
        }
        hits.truncate(s.k);
        Ok(self.recall(qi, s.filter, s.k, &hits))
    }

    /// Query `qi` as a hybrid query: the vector query `q`, then the text and sparse
    /// branches of the sampled row, each ranking as many as `q`, fused by RRF. It has no
    /// exact reference, so no recall.
    fn run_hybrid(&self, qi: usize, s: &Settings, q: &Query) -> Result<(), xvec::Error> {
        let k = s.k + usize::from(self.queries.own_keys.is_some());
        let mut branches = vec![Branch::Dense(q.clone())];
        if let Some(field) = &self.hybrid.text_field {
            branches.push(Branch::text_in(vec![TextField::new(field)], self.queries.texts[qi].clone(), k));
        }
        if let (Some(field), Some(vector)) = (&self.hybrid.sparse_field, &self.queries.sparse[qi]) {
            branches.push(Branch::Sparse { field: Some(field.clone()), vector: vector.clone(), k, budget: None });
        }
        let hq = HybridQuery::new(branches)
            .k(k)
            .fields_opt(Some(Vec::new()))
            .filter_opt(if s.filter { self.filter.clone() } else { None })
            .params(self.params.clone());
        self.coll.hybrid(&hq).map(drop)
    }

    /// recall@k of one answer, when the query has a reference for this filter setting.
    fn recall(&self, qi: usize, filter: bool, k: usize, hits: &[xvec::Hit]) -> Option<f64> {
        let filter = filter && self.filter.is_some();
        match &self.truth {
            Truth::Given(gt) if !filter && qi < gt.len() => {
                let ids: Vec<u32> = hits.iter().filter_map(|h| h.key.parse().ok()).collect();
                Some(recall_at(&ids, gt.row(qi), k))
            }
            Truth::Given(_) => None,
            Truth::Exact { sample, keys } if qi < *sample => {
                let truth = keys[filter as usize].get()?.as_ref().ok()?.get(qi)?;
                let want: HashSet<&str> = truth.iter().take(k).map(String::as_str).collect();
                if want.is_empty() {
                    return None;
                }
                Some(hits.iter().take(k).filter(|h| want.contains(h.key.as_str())).count() as f64 / want.len() as f64)
            }
            Truth::Exact { .. } => None,
        }
    }

    /// Computes the exact references this workload needs (both filter settings when a
    /// filter is given); runs on a background thread, or before the clock starts.
    pub fn compute_reference(&self) {
        let Truth::Exact { sample, keys } = &self.truth else { return };
        let snap = self.coll.snapshot();
        let n = (*sample).min(self.queries.len());
        let queries = &self.queries.vectors[..n];
        let own = self.queries.own_keys.as_deref().map(|o| &o[..n]);
        let filters = [None, self.filter.as_deref()];
        for (slot, filter) in keys.iter().zip(filters).take(if self.filter.is_some() { 2 } else { 1 }) {
            if self.stop.load(Ordering::Acquire) {
                return;
            }
            let _ =
                slot.set(exact(&snap, self.field.as_deref(), queries, own, (filter, &self.params), MAX_K, &self.stop));
        }
    }

    /// Whether the exact reference for this filter setting is ready.
    pub fn reference_ready(&self, filter: bool) -> bool {
        match &self.truth {
            Truth::Given(_) => true,
            Truth::Exact { keys, .. } => keys[(filter && self.filter.is_some()) as usize].get().is_some(),
        }
    }

    /// What the workload did since the previous call (counters are cumulative; this
    /// keeps the last totals and returns the difference).
    pub fn collect(&self) -> Tick {
        let mut tick = Tick::at(self.started.elapsed().as_secs_f64());
        let mut totals = [0u64; 4];
        for slot in &self.slots[..self.spawned.load(Ordering::Acquire).min(MAX_THREADS)] {
            totals[0] += slot.queries.load(Ordering::Relaxed);
            totals[1] += slot.errors.load(Ordering::Relaxed);
            totals[2] += slot.recall_micros.load(Ordering::Relaxed);
            totals[3] += slot.recall_n.load(Ordering::Relaxed);
            if let Some(h) = slot.latency.lock().expect("latency lock").take() {
                let _ = tick.latency.add(&h);
            }
        }
        let mut last = self.collected.lock().expect("collected lock");
        tick.queries = totals[0] - last[0];
        tick.errors = totals[1] - last[1];
        tick.recall_sum = (totals[2] - last[2]) as f64 / RECALL_SCALE;
        tick.recall_n = totals[3] - last[3];
        *last = totals;
        tick
    }

    /// Seconds since the workload was made (the time base of its ticks).
    pub fn elapsed(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }
}

/// A stored vector value as f32.
fn to_f32(v: &Value) -> Option<Vec<f32>> {
    match v {
        Value::VectorFp32(x) => Some(x.clone()),
        Value::VectorFp16(x) => Some(x.iter().map(|h| h.to_f32()).collect()),
        Value::VectorInt8(x) => Some(x.iter().map(|&b| f32::from(b)).collect()),
        _ => None,
    }
}

/// The vector field a workload searches: the named one or the only one.
pub fn vector_field(snap: &Snapshot, field: Option<&str>) -> Result<(String, Metric), String> {
    let schema = snap.schema();
    let pos = schema.resolve(FieldKind::Vector, field).map_err(|e| match e {
        FieldLookupError::Ambiguous { .. } => format!("{e} with --field"),
        e => e.to_string(),
    })?;
    let f = schema.field(pos);
    Ok((f.name.clone(), f.as_vector().expect("resolved to a vector field").metric))
}

/// Up to `n` stored vectors of `field`, evenly spaced over the live documents, with
/// their keys, and the text and sparse vector of each row that `hybrid` names.
pub fn sample_queries(snap: &Snapshot, field: &str, hybrid: &Hybrid, n: usize) -> Result<Queries, String> {
    let keys = snap.keys_where(None).map_err(|e| e.to_string())?;
    let step = (keys.len() / n.max(1)).max(1);
    let picked: Vec<&str> = keys.iter().step_by(step).take(n).map(String::as_str).collect();
    let mut fields = vec![field.to_string()];
    fields.extend(hybrid.text_field.iter().chain(&hybrid.sparse_field).cloned());
    let docs = snap.fetch(&picked, Some(&fields)).map_err(|e| e.to_string())?;
    let mut q = Queries { vectors: Vec::new(), texts: Vec::new(), sparse: Vec::new(), own_keys: None };
    let mut own = Vec::new();
    for d in docs.into_iter().flatten() {
        let Some(v) = d.get(field).and_then(to_f32) else { continue };
        q.vectors.push(v);
        if let Some(f) = &hybrid.text_field {
            q.texts.push(match d.get(f) {
                Some(Value::String(t)) => query_text(t),
                _ => String::new(),
            });
        }
        if let Some(f) = &hybrid.sparse_field {
            q.sparse.push(match d.get(f) {
                Some(Value::Sparse(v)) => Some(v.clone()),
                _ => None,
            });
        }
        own.push(d.key);
    }
    q.own_keys = Some(own);
    Ok(q)
}

/// Words of a query text taken from a row.
const QUERY_WORDS: usize = 32;

/// A row's text as a plain query of its first [`QUERY_WORDS`] words: quotes and `*` would
/// make phrases and prefixes of it (or an unterminated quote, an error).
fn query_text(text: &str) -> String {
    let words = text.split_whitespace().map(|w| w.replace(['"', '*'], "")).filter(|w| !w.is_empty());
    words.take(QUERY_WORDS).collect::<Vec<_>>().join(" ")
}

/// Exact top-`k` keys of each query by brute force over the live documents (matching
/// `filter`, without the query's own row when `own` names it), reading the stored
/// vectors a chunk at a time so none is held twice.
fn exact(
    snap: &Snapshot,
    field: Option<&str>,
    queries: &[Vec<f32>],
    own: Option<&[String]>,
    (filter, params): (Option<&str>, &Params),
    k: usize,
    stop: &AtomicBool,
) -> Result<Vec<Vec<String>>, String> {
    let (field, metric) = vector_field(snap, field)?;
    let kern = xvec::kernels::best();
    let norm = |v: &[f32]| (kern.dot_f32)(v, v).sqrt();
    let qnorms: Vec<f32> = queries.iter().map(|q| norm(q)).collect();
    let keys = snap.keys_where_with(filter, params).map_err(|e| e.to_string())?;
    let mut tops: Vec<Vec<(f32, String)>> = vec![Vec::with_capacity(k + 1); queries.len()];
    let fields = [field.clone()];
    for chunk in keys.chunks(1024) {
        if stop.load(Ordering::Acquire) {
            return Err("stopped".into());
        }
        let refs: Vec<&str> = chunk.iter().map(String::as_str).collect();
        for doc in snap.fetch(&refs, Some(&fields)).map_err(|e| e.to_string())?.into_iter().flatten() {
            let Some(x) = doc.get(&field).and_then(to_f32) else { continue };
            let xn = norm(&x);
            for (qi, ((q, &qn), top)) in queries.iter().zip(&qnorms).zip(&mut tops).enumerate() {
                if own.is_some_and(|own| own[qi] == doc.key) {
                    continue;
                }
                let d = match metric {
                    Metric::L2 => (kern.l2_f32)(q, &x),
                    Metric::Ip => -(kern.dot_f32)(q, &x),
                    Metric::Cosine if qn > 0.0 && xn > 0.0 => -(kern.dot_f32)(q, &x) / (qn * xn),
                    Metric::Cosine => 0.0,
                    other => return Err(format!("no exact search for the {other} metric")),
                };
                if top.len() == k && d >= top[k - 1].0 {
                    continue;
                }
                let at = top.partition_point(|(e, _)| *e <= d);
                top.insert(at, (d, doc.key.clone()));
                top.truncate(k);
            }
        }
    }
    Ok(tops.into_iter().map(|t| t.into_iter().map(|(_, key)| key).collect()).collect())
}
