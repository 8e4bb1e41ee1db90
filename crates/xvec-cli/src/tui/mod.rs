//! `xvec tui`: the live dashboard (ratatui over crossterm), and its headless twin that
//! runs the same workload and prints the panel values.
//!
//! Threads: workload threads run queries and publish counters ([`workload`]); the UI
//! thread polls keys with a timeout, folds the counters into [`metrics`] four times a
//! second and draws [`render::render`] of the [`state::State`]; a sampler thread reads
//! the engine's memory accounting (which waits for the writer during an optimize); an
//! optimize and the graph reading run on threads of their own. Nothing here is engine
//! code: the engine never imports it.

pub mod metrics;
pub mod render;
pub mod search_view;
pub mod state;
pub mod style;
#[cfg(test)]
mod tests;
pub mod workload;

use std::io::Stdout;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use ratatui::crossterm::{cursor, execute, terminal};
use xvec::verify::GraphReport;
use xvec::{Collection, FieldKind, MemoryUsage, OptimizeOptions, OptimizeProgress, OptimizeReport};
use xvec_io::dataset::{GroundTruth, VectorFile};

use metrics::{Metrics, Tick};
use state::{IndexDefaults, Load, OptimizeStatus, Overview, QuerySource, SearchInfo, State, View};
use workload::{Hybrid, MAX_K, MAX_THREADS, Queries, Settings, Truth, Workload};

/// How often the counters are folded in and a frame drawn (keys redraw at once).
const TICK: Duration = Duration::from_millis(250);
/// How often the overview (counts, files, backlog) is read again.
const OVERVIEW_EVERY: Duration = Duration::from_secs(1);
/// How often the engine's memory accounting is read.
const SAMPLE_MEMORY: Duration = Duration::from_millis(500);
/// Queries sampled from the collection when no `--queries` file is given.
const SAMPLED_QUERIES: usize = 1000;

/// What to run, from the command line.
pub struct Options {
    pub field: Option<String>,
    /// Text and sparse branches added to each query (sampled queries only).
    pub hybrid: Hybrid,
    pub filter: Option<String>,
    /// Values of the filter's `$name` parameters.
    pub params: xvec::Params,
    pub queries: Option<PathBuf>,
    pub max_queries: usize,
    pub gt: Option<PathBuf>,
    pub k: usize,
    pub ef: Option<usize>,
    pub nprobe: Option<usize>,
    pub refine: Option<usize>,
    pub concurrency: usize,
    /// Stop after this long (the dashboard quits by itself too).
    pub duration: Option<Duration>,
    /// Queries with an exact reference when there is no ground truth.
    pub recall_sample: usize,
    pub color: bool,
}

/// A one-line error with an optional hint, for the admin tool to print.
#[derive(Debug)]
pub struct TuiError {
    pub message: String,
    pub hint: Option<String>,
    /// The options themselves are wrong (a filter that does not compile): a usage error.
    pub usage: bool,
}

impl TuiError {
    fn new(message: impl Into<String>) -> TuiError {
        TuiError { message: message.into(), hint: None, usage: false }
    }

    fn hint(mut self, hint: impl Into<String>) -> TuiError {
        self.hint = Some(hint.into());
        self
    }
}

impl From<std::io::Error> for TuiError {
    fn from(e: std::io::Error) -> TuiError {
        TuiError::new(format!("terminal: {e}"))
    }
}

/// Loads the queries and the recall reference and checks the settings with one query.
fn prepare<'c>(coll: &'c Collection, o: &Options) -> Result<(Workload<'c>, SearchInfo), TuiError> {
    let snap = coll.snapshot();
    let (field, _) = workload::vector_field(&snap, o.field.as_deref()).map_err(TuiError::new)?;
    let spec = snap.schema().field(snap.schema().index_of(&field).expect("resolved field")).as_vector().cloned();
    let defaults = spec.as_ref().map_or(IndexDefaults::default(), |s| IndexDefaults::of(&s.index));
    check_hybrid(snap.schema(), o)?;
    let (queries, query_source) = match &o.queries {
        Some(path) => {
            let vf = VectorFile::open(path).map_err(|e| TuiError::new(e.to_string()))?;
            let mut rows = Vec::with_capacity(vf.len().min(o.max_queries));
            for i in 0..vf.len().min(o.max_queries) {
                let mut v = Vec::new();
                vf.read_row(i, &mut v);
                rows.push(v);
            }
            let queries = Queries { vectors: rows, texts: Vec::new(), sparse: Vec::new(), own_keys: None };
            (queries, QuerySource::File(path.display().to_string()))
        }
        None => {
            let queries = workload::sample_queries(&snap, &field, &o.hybrid, SAMPLED_QUERIES).map_err(TuiError::new)?;
            (queries, QuerySource::Sampled)
        }
    };
    if queries.is_empty() {
        return Err(TuiError::new("no queries: the collection has no stored vectors to sample")
            .hint("give a query file with --queries FILE (fvecs or npy)"));
    }
    let (truth, recall_source) = match &o.gt {
        Some(path) if o.queries.is_none() => {
            return Err(TuiError::new(format!("--gt {}: ground truth needs the queries it answers", path.display()))
                .hint("give the matching query file with --queries FILE"));
        }
        Some(path) => (
            Truth::Given(GroundTruth::open(path).map_err(|e| TuiError::new(e.to_string()))?),
            format!("vs {} (filter off)", path.file_name().unwrap_or_default().to_string_lossy()),
        ),
        None if o.hybrid.is_some() => {
            (Truth::Exact { sample: 0, keys: Default::default() }, format!("none: hybrid {}, RRF", o.hybrid.describe()))
        }
        None => {
            let n = o.recall_sample.min(queries.len());
            (Truth::Exact { sample: n, keys: Default::default() }, format!("exact search, {n} queries"))
        }
    };
    let settings = Settings {
        running: true,
        concurrency: o.concurrency.clamp(1, MAX_THREADS),
        k: o.k,
        ef: o.ef,
        nprobe: o.nprobe,
        refine: o.refine,
        filter: o.filter.is_some(),
    };
    let info = SearchInfo {
        settings: settings.clone(),
        default_ef: defaults.ef,
        default_nprobe: defaults.nprobe,
        default_refine: defaults.refine,
        filter: o.filter.clone(),
        queries: queries.len(),
        query_source,
        recall_source,
        reference_ready: false,
    };
    let w = Workload::new(
        coll,
        (Some(field), o.hybrid.clone()),
        o.filter.clone(),
        o.params.clone(),
        queries,
        truth,
        settings,
    );
    // One query checks the settings (and the filter) before the workload starts.
    w.run_query(0, &info.settings, &mut w.query_for(&info.settings)).map_err(|e| match (&e, &o.filter) {
        (xvec::Error::Filter(fe), Some(text)) => {
            TuiError { usage: true, ..TuiError::new(format!("{fe}\n{}", fe.caret(text))) }
        }
        _ => TuiError::new(e.to_string()),
    })?;
    Ok((w, info))
}

/// The hybrid branches' fields exist and have the right kind, and come with sampled
/// queries (a query file has no text or sparse vector for them).
fn check_hybrid(schema: &xvec::Schema, o: &Options) -> Result<(), TuiError> {
    let usage = |m: String| TuiError { usage: true, ..TuiError::new(m) };
    let named = [
        ("--text-field", FieldKind::FullText, &o.hybrid.text_field),
        ("--sparse-field", FieldKind::Sparse, &o.hybrid.sparse_field),
    ];
    for (flag, kind, name) in named {
        if let Some(name) = name {
            schema.resolve(kind, Some(name)).map_err(|e| usage(format!("{flag} {name}: {e}")))?;
        }
    }
    if o.hybrid.is_some() && o.queries.is_some() {
        return Err(usage("--text-field and --sparse-field take their queries from sampled rows".into())
            .hint("leave out --queries"));
    }
    Ok(())
}

/// Process readings for a tick: RSS and CPU time.
fn read_process(tick: &mut Tick) {
    tick.rss_bytes = xvec_io::sys::rss().map(|r| (r.rss_mib * 1024.0 * 1024.0) as u64);
    tick.cpu = xvec_io::sys::usage().map(|u| (u.user_sec, u.sys_sec));
}

/// Runs the workload for `o.duration` without a screen and returns the panel values.
pub fn headless(coll: &Collection, o: &Options) -> Result<serde_json::Value, TuiError> {
    let (w, info) = prepare(coll, o)?;
    let duration = o.duration.unwrap_or(Duration::from_secs(10));
    // The reference first, so recall covers the whole run and the clock measures queries.
    w.compute_reference();
    let mut m = Metrics::new();
    let live_at_start = coll.count();
    let started = Instant::now();
    std::thread::scope(|s| {
        let start = Instant::now();
        let base = w.elapsed();
        w.spawn_workers(s);
        let sample = |m: &mut Metrics| {
            let mut tick = w.collect();
            tick.t -= base;
            read_process(&mut tick);
            tick.engine = Some(coll.memory());
            m.push(tick);
        };
        while start.elapsed() < duration {
            std::thread::sleep(TICK.min(duration.saturating_sub(start.elapsed())));
            sample(&mut m);
        }
        w.stop();
    });
    let mut last = w.collect();
    last.t = m.now();
    m.push(last);
    let stats = coll.stats();
    let ingest = stats.live_docs.saturating_sub(live_at_start) as f64 / started.elapsed().as_secs_f64();
    let mut out = serde_json::json!({
        "collection": coll.schema().name(),
        "field": o.field.clone().or_else(|| workload::vector_field(&coll.snapshot(), None).ok().map(|f| f.0)),
        "branches": o.hybrid.describe(),
        "settings": {
            "concurrency": info.settings.concurrency,
            "k": info.settings.k,
            "ef": info.ef(),
            "nprobe": info.nprobe(),
            "refine": info.refine(),
            "filter": info.filter,
        },
        "queries_source": info.query_source.describe(),
        "recall_source": info.recall_source,
        "generation": stats.generation,
        "wal_records": stats.wal_records,
        "live_docs": stats.live_docs,
        "ingest_docs_per_s": ingest,
        "unindexed_rows": stats.unindexed_rows,
        "background_jobs": stats.background_jobs,
    });
    let summary = serde_json::to_value(m.summary()).map_err(|e| TuiError::new(e.to_string()))?;
    if let (Some(o), serde_json::Value::Object(s)) = (out.as_object_mut(), summary) {
        o.extend(s);
    }
    if let Some(e) = w.last_error() {
        out["last_error"] = e.into();
    }
    Ok(out)
}

/// Cumulative progress of the running optimize, written from build threads.
#[derive(Default)]
struct OptimizeRun {
    cancel: AtomicBool,
    segments: AtomicUsize,
    segments_total: AtomicUsize,
    vectors: AtomicU64,
    vectors_total: AtomicU64,
    result: Mutex<Option<Result<OptimizeReport, xvec::Error>>>,
}

/// Puts the terminal back: cooked mode, main screen, visible cursor. Safe to repeat.
fn restore_terminal() {
    let _ = terminal::disable_raw_mode();
    let _ = execute!(std::io::stdout(), terminal::LeaveAlternateScreen, cursor::Show);
}

/// Raw mode and the alternate screen for as long as it lives; restores them when dropped
/// (quit and error) and from the panic hook (panic), then puts the previous hook back.
struct TerminalGuard {
    previous: Arc<dyn Fn(&std::panic::PanicHookInfo) + Send + Sync>,
}

impl TerminalGuard {
    fn enter() -> Result<(TerminalGuard, Terminal<CrosstermBackend<Stdout>>), TuiError> {
        let previous: Arc<dyn Fn(&std::panic::PanicHookInfo) + Send + Sync> = Arc::from(std::panic::take_hook());
        let chained = previous.clone();
        std::panic::set_hook(Box::new(move |info| {
            restore_terminal();
            chained(info);
        }));
        let guard = TerminalGuard { previous };
        terminal::enable_raw_mode()?;
        execute!(std::io::stdout(), terminal::EnterAlternateScreen, cursor::Hide)?;
        let term = Terminal::new(CrosstermBackend::new(std::io::stdout()))?;
        Ok((guard, term))
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore_terminal();
        let previous = self.previous.clone();
        let _ = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| previous(info)));
    }
}

/// The dashboard: runs until q, Ctrl-C or `o.duration`.
pub fn interactive(coll: &Collection, o: &Options) -> Result<(), TuiError> {
    let (w, info) = prepare(coll, o)?;
    let run = OptimizeRun::default();
    let memory: Mutex<Option<MemoryUsage>> = Mutex::new(None);
    let graphs: Mutex<Load<Vec<GraphReport>>> = Mutex::new(Load::NotStarted);
    let stop = AtomicBool::new(false);
    let mut state = State::new(Overview::read(coll), info, o.color);
    let (guard, mut term) = TerminalGuard::enter()?;
    let result = std::thread::scope(|s| {
        s.spawn(|| w.compute_reference());
        s.spawn(|| {
            while !stop.load(Ordering::Acquire) {
                let m = coll.memory();
                *memory.lock().expect("memory lock") = Some(m);
                let until = Instant::now() + SAMPLE_MEMORY;
                while Instant::now() < until && !stop.load(Ordering::Acquire) {
                    std::thread::sleep(Duration::from_millis(20));
                }
            }
        });
        w.spawn_workers(s);
        let mut ui = Ui {
            coll,
            w: &w,
            run: &run,
            graphs: &graphs,
            scope: s,
            optimize_started: None,
            overview_at: Instant::now(),
        };
        let r = ui.event_loop(&mut term, &mut state, &memory, o.duration);
        run.cancel.store(true, Ordering::Release);
        stop.store(true, Ordering::Release);
        w.stop();
        r
    });
    drop(term);
    drop(guard);
    result
}

/// The UI thread's handles on the other threads.
struct Ui<'a, 's, 'e> {
    coll: &'a Collection,
    w: &'s Workload<'a>,
    run: &'s OptimizeRun,
    graphs: &'s Mutex<Load<Vec<GraphReport>>>,
    scope: &'s std::thread::Scope<'s, 'e>,
    optimize_started: Option<Instant>,
    /// When the overview was last read, for the ingest rate.
    overview_at: Instant,
}

impl<'a: 's, 's, 'e> Ui<'a, 's, 'e> {
    fn event_loop(
        &mut self,
        term: &mut Terminal<CrosstermBackend<Stdout>>,
        state: &mut State,
        memory: &Mutex<Option<MemoryUsage>>,
        duration: Option<Duration>,
    ) -> Result<(), TuiError> {
        let start = Instant::now();
        let mut next_tick = start;
        loop {
            let now = Instant::now();
            if now >= next_tick {
                let mut tick = self.w.collect();
                read_process(&mut tick);
                tick.engine = memory.lock().expect("memory lock").clone();
                state.metrics.push(tick);
                self.refresh(state);
                next_tick += TICK;
                if next_tick < now {
                    next_tick = now + TICK;
                }
                term.draw(|f| render::render(state, f))?;
            }
            if duration.is_some_and(|d| start.elapsed() >= d) {
                return Ok(());
            }
            if event::poll(next_tick.saturating_duration_since(Instant::now()))? {
                match event::read()? {
                    Event::Key(k) if k.kind != KeyEventKind::Release => {
                        let ctrl_c = k.code == KeyCode::Char('c') && k.modifiers.contains(KeyModifiers::CONTROL);
                        if ctrl_c || (k.code == KeyCode::Char('q') && !state.help) {
                            return Ok(());
                        }
                        self.key(state, k.code);
                    }
                    Event::Resize(..) => term.autoresize()?,
                    _ => {}
                }
                term.draw(|f| render::render(state, f))?;
            }
        }
    }

    /// Folds in what the background threads did since the last tick.
    fn refresh(&mut self, state: &mut State) {
        // The counts move while a writer (this handle's, or the one it follows) ingests.
        let dt = self.overview_at.elapsed().as_secs_f64();
        if dt >= OVERVIEW_EVERY.as_secs_f64() {
            let next = Overview::read(self.coll);
            state.ingest = Some(next.live.saturating_sub(state.overview.live) as f64 / dt);
            state.overview = next;
            state.selected = state.selected.min(state.overview.segments.len().saturating_sub(1));
            self.overview_at = Instant::now();
        }
        state.search.reference_ready = self.w.reference_ready(state.search.settings.filter);
        if let Some(e) = self.w.last_error()
            && state.message.is_none()
        {
            state.message = Some(format!("query error: {e}"));
        }
        if let Ok(g) = self.graphs.lock() {
            state.graphs = g.clone();
        }
        let o = &mut state.optimize;
        if let Some(started) = self.optimize_started {
            o.seconds = started.elapsed().as_secs_f64();
            o.segments_done = self.run.segments.load(Ordering::Relaxed);
            o.segments_total = self.run.segments_total.load(Ordering::Relaxed);
            o.vectors_done = self.run.vectors.load(Ordering::Relaxed);
            o.vectors_total = self.run.vectors_total.load(Ordering::Relaxed);
            o.rate = o.vectors_done as f64 / o.seconds.max(1e-3);
            if let Some(result) = self.run.result.lock().expect("optimize lock").take() {
                self.optimize_started = None;
                o.status = OptimizeStatus::of(result);
                let cancelled = o.status == OptimizeStatus::Cancelled;
                state.metrics.mark(if cancelled { "optimize cancelled" } else { "optimize end" });
                state.overview = Overview::read(self.coll);
                state.selected = state.selected.min(state.overview.segments.len().saturating_sub(1));
                *self.graphs.lock().expect("graphs lock") = Load::NotStarted;
                state.graphs = Load::NotStarted;
            }
        }
        if state.view == View::Segments && state.graphs == Load::NotStarted {
            self.load_graphs();
            state.graphs = Load::Loading;
        }
    }

    /// Reads the graphs' topology with the inspect code, in the background.
    fn load_graphs(&self) {
        *self.graphs.lock().expect("graphs lock") = Load::Loading;
        let (graphs, coll) = (self.graphs, self.coll);
        self.scope.spawn(move || {
            let fields: Vec<String> = coll.schema().vector_fields().map(|(_, f, _)| f.name.clone()).collect();
            let read: Result<Vec<_>, _> = fields.iter().map(|f| xvec::inspect::graphs(coll, f)).collect();
            let loaded = match read {
                Ok(g) => Load::Ready(g.into_iter().flatten().collect()),
                Err(e) => Load::Failed(e.to_string()),
            };
            *graphs.lock().expect("graphs lock") = loaded;
        });
    }

    fn start_optimize(&mut self, state: &mut State) {
        match state.optimize.status {
            OptimizeStatus::ReadOnly => {
                state.message = Some("optimize needs a writable handle: restart with --write".into());
                return;
            }
            OptimizeStatus::Running | OptimizeStatus::Cancelling => return,
            _ => {}
        }
        let run = self.run;
        for a in [&run.segments, &run.segments_total] {
            a.store(0, Ordering::Relaxed);
        }
        for a in [&run.vectors, &run.vectors_total] {
            a.store(0, Ordering::Relaxed);
        }
        run.cancel.store(false, Ordering::Release);
        self.optimize_started = Some(Instant::now());
        state.optimize.status = OptimizeStatus::Running;
        state.metrics.mark("optimize");
        let coll = self.coll;
        let concurrency = state.search.settings.concurrency;
        self.scope.spawn(move || {
            let progress = |p: &OptimizeProgress| {
                run.segments.store(p.segments_done, Ordering::Relaxed);
                run.segments_total.store(p.segments_total, Ordering::Relaxed);
                run.vectors.store(p.vectors_indexed, Ordering::Relaxed);
                run.vectors_total.store(p.vectors_total, Ordering::Relaxed);
            };
            let opts =
                OptimizeOptions::default().concurrency(concurrency).progress(Some(&progress)).cancel(Some(&run.cancel));
            let r = coll.optimize(&opts);
            *run.result.lock().expect("optimize lock") = Some(r);
        });
    }

    fn key(&mut self, state: &mut State, code: KeyCode) {
        if state.help {
            if matches!(code, KeyCode::Char('?') | KeyCode::Esc | KeyCode::Char('q')) {
                state.help = false;
            }
            return;
        }
        let mut s = state.search.settings.clone();
        let before = s.clone();
        let mut note: Option<String> = None;
        match code {
            KeyCode::Char('?') => state.help = true,
            KeyCode::Char(c @ '1'..='4') => state.view = View::ALL[c as usize - '1' as usize],
            KeyCode::Tab => state.view = View::ALL[(state.view.index() + 1) % View::ALL.len()],
            KeyCode::BackTab => state.view = View::ALL[(state.view.index() + View::ALL.len() - 1) % View::ALL.len()],
            KeyCode::Char(' ') | KeyCode::Char('p') => s.running = !s.running,
            KeyCode::Char('+') | KeyCode::Char('=') => s.concurrency = (s.concurrency + 1).min(MAX_THREADS),
            KeyCode::Char('-') => s.concurrency = s.concurrency.saturating_sub(1).max(1),
            KeyCode::Char(']') | KeyCode::Char('[') => {
                let up = code == KeyCode::Char(']');
                let step = |n: usize| if up { n + n.div_ceil(4) } else { n - n / 5 };
                match (state.search.ef(), state.search.nprobe()) {
                    (Some(ef), _) => s.ef = Some(step(ef).clamp(s.k, 10_000)),
                    (None, Some(nprobe)) => s.nprobe = Some(step(nprobe).clamp(1, xvec::MAX_NLIST as usize)),
                    (None, None) => note = Some("ef and nprobe have no effect on an exact (flat) index".into()),
                }
            }
            KeyCode::Char('k') | KeyCode::Char('K') => {
                const KS: [usize; 6] = [1, 5, 10, 20, 50, MAX_K];
                let i = KS.iter().position(|&k| k >= s.k).unwrap_or(KS.len() - 1);
                s.k = if code == KeyCode::Char('k') { KS[(i + 1).min(KS.len() - 1)] } else { KS[i.saturating_sub(1)] };
                if let Some(ef) = s.ef {
                    s.ef = Some(ef.max(s.k));
                }
            }
            KeyCode::Char('f') => match state.search.filter {
                Some(_) => s.filter = !s.filter,
                None => note = Some("no filter: start with --filter EXPR to toggle one".into()),
            },
            KeyCode::Char('r') | KeyCode::Char('}') | KeyCode::Char('{') => match state.search.refine() {
                Some(r) => {
                    let default = state.search.default_refine.unwrap_or(1).max(1);
                    s.refine = Some(match code {
                        KeyCode::Char('r') if r == 0 => default,
                        KeyCode::Char('r') => 0,
                        KeyCode::Char('}') => (r + 1).min(64),
                        _ => r.saturating_sub(1),
                    });
                }
                None => note = Some("refine needs a quantized index".into()),
            },
            KeyCode::Char('o') => self.start_optimize(state),
            KeyCode::Char('c') if state.optimize.status == OptimizeStatus::Running => {
                self.run.cancel.store(true, Ordering::Release);
                state.optimize.status = OptimizeStatus::Cancelling;
            }
            KeyCode::Up => state.selected = state.selected.saturating_sub(1),
            KeyCode::Down => state.selected = (state.selected + 1).min(state.overview.segments.len().saturating_sub(1)),
            _ => {}
        }
        if s != before {
            let label = change_label(&before, &s, &state.search);
            state.search.settings = s.clone();
            self.w.set(s);
            self.w.spawn_workers(self.scope);
            state.metrics.mark(label.clone());
            note = Some(label);
        }
        if note.is_some() {
            state.message = note;
        }
    }
}

/// A short label of what changed, drawn on the charts.
fn change_label(a: &Settings, b: &Settings, info: &SearchInfo) -> String {
    let mut with = info.clone();
    with.settings = b.clone();
    let show = |v: Option<usize>| v.map_or("-".into(), |v| v.to_string());
    if a.running != b.running {
        return if b.running { "start".into() } else { "pause".into() };
    }
    if a.concurrency != b.concurrency {
        return format!("threads {}", b.concurrency);
    }
    if a.k != b.k {
        return format!("k {}", b.k);
    }
    if a.filter != b.filter {
        return format!("filter {}", if b.filter { "on" } else { "off" });
    }
    if a.ef != b.ef {
        return format!("ef {}", show(with.ef()));
    }
    if a.nprobe != b.nprobe {
        return format!("nprobe {}", show(with.nprobe()));
    }
    format!("refine {}", show(with.refine()))
}
