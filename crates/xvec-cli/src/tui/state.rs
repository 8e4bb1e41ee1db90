//! What the dashboard shows, as plain data: the UI thread updates it from the workload,
//! the optimize run and the collection; [`super::render`] draws it and nothing else.

use xvec::verify::GraphReport;
use xvec::{Collection, IndexParams, Knob, OptimizeReport};

use super::metrics::Metrics;
use super::workload::Settings;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    Overview,
    Search,
    Optimize,
    Segments,
}

impl View {
    pub const ALL: [View; 4] = [View::Overview, View::Search, View::Optimize, View::Segments];

    pub fn title(self) -> &'static str {
        match self {
            View::Overview => "Overview",
            View::Search => "Search",
            View::Optimize => "Optimize",
            View::Segments => "Segments",
        }
    }

    pub fn index(self) -> usize {
        View::ALL.iter().position(|v| *v == self).unwrap_or(0)
    }
}

/// One field of the schema with its index and how much of it is built.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldInfo {
    pub name: String,
    pub ty: String,
    /// Index description (vector fields only).
    pub index: Option<String>,
    /// Share of live rows covered by a built index (vector fields only).
    pub built: Option<f64>,
}

/// Files on disk of one kind.
#[derive(Clone, Debug, PartialEq)]
pub struct FileKindInfo {
    pub kind: &'static str,
    pub files: u64,
    pub bytes: u64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SegmentRow {
    pub id: u64,
    pub file: String,
    pub rows: u64,
    pub deleted: u64,
    pub bytes: u64,
}

/// The Overview view's data, refreshed now and then (not every frame: it lists files).
#[derive(Clone, Debug, PartialEq)]
pub struct Overview {
    pub name: String,
    pub dir: String,
    pub writable: bool,
    pub generation: u64,
    pub live: u64,
    pub deleted: u64,
    pub unflushed: u64,
    /// WAL records the handle holds on top of its generation.
    pub wal_records: u64,
    /// Rows queries still scan exactly: unflushed, or in segments not indexed yet.
    pub unindexed: u64,
    /// Background jobs (index builds, merges) this handle published.
    pub background_jobs: u64,
    pub wal_bytes: u64,
    pub disk_bytes: u64,
    pub fields: Vec<FieldInfo>,
    pub files: Vec<FileKindInfo>,
    pub segments: Vec<SegmentRow>,
}

impl Overview {
    pub fn read(coll: &Collection) -> Overview {
        let snap = coll.snapshot();
        let stats = coll.stats();
        let schema = coll.schema();
        let fields = schema
            .fields()
            .iter()
            .enumerate()
            .map(|(i, f)| FieldInfo {
                name: f.name.clone(),
                ty: f.ty.name().to_string(),
                index: f.as_vector().map(|v| format!("{} {}", v.metric.name(), v.index.describe())),
                built: f.as_vector().map(|v| if v.index.builds_index() { snap.index_completeness(i) } else { 1.0 }),
            })
            .collect();
        let mut files: Vec<FileKindInfo> = Vec::new();
        if let Ok(entries) = std::fs::read_dir(coll.dir()) {
            for e in entries.flatten() {
                let Some(kind) = xvec::FileKind::of_name(&e.file_name().to_string_lossy()) else { continue };
                let bytes = e.metadata().map_or(0, |m| m.len());
                match files.iter_mut().find(|f| f.kind == kind.name()) {
                    Some(f) => (f.files, f.bytes) = (f.files + 1, f.bytes + bytes),
                    None => files.push(FileKindInfo { kind: kind.name(), files: 1, bytes }),
                }
            }
        }
        let order = |k: &str| xvec::FileKind::ALL.iter().position(|f| f.name() == k);
        files.sort_by_key(|f| order(f.kind));
        Overview {
            name: schema.name().to_string(),
            dir: coll.dir().display().to_string(),
            writable: coll.is_writable(),
            generation: stats.generation,
            live: stats.live_docs,
            deleted: stats.deleted_docs,
            unflushed: stats.mem_rows,
            wal_records: stats.wal_records,
            unindexed: stats.unindexed_rows,
            background_jobs: stats.background_jobs,
            wal_bytes: stats.wal_bytes,
            disk_bytes: stats.disk_bytes,
            fields,
            files,
            segments: stats
                .segments
                .iter()
                .map(|s| SegmentRow {
                    id: s.id,
                    file: s.file.clone(),
                    rows: s.rows,
                    deleted: s.deleted,
                    bytes: s.bytes,
                })
                .collect(),
        }
    }
}

/// Something read in the background.
#[derive(Clone, Debug, PartialEq)]
pub enum Load<T> {
    NotStarted,
    Loading,
    Ready(T),
    Failed(String),
}

/// Where an optimize run is.
#[derive(Clone, Debug, PartialEq)]
pub enum OptimizeStatus {
    /// The handle is read-only.
    ReadOnly,
    Idle,
    Running,
    Cancelling,
    Done(String),
    /// Stopped by the user (`c`); the engine left the collection unchanged.
    Cancelled,
    Failed(String),
}

impl OptimizeStatus {
    /// The status an optimize run ends in: a cancellation is not a failure.
    pub fn of(result: Result<OptimizeReport, xvec::Error>) -> OptimizeStatus {
        match result {
            Ok(r) => OptimizeStatus::Done(format!(
                "{} -> {} segments, {} rows, {} indexes built",
                r.segments_before, r.segments_after, r.rows, r.indexes_built
            )),
            Err(xvec::Error::Cancelled) => OptimizeStatus::Cancelled,
            Err(e) => OptimizeStatus::Failed(e.to_string()),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct OptimizeState {
    pub status: OptimizeStatus,
    pub segments_done: usize,
    pub segments_total: usize,
    pub vectors_done: u64,
    pub vectors_total: u64,
    /// Vectors indexed per second since the start.
    pub rate: f64,
    /// Seconds since the optimize started (or how long it took).
    pub seconds: f64,
}

/// Where the workload's queries come from.
#[derive(Clone, Debug, PartialEq)]
pub enum QuerySource {
    /// Stored vectors of the collection. Each query's own row is left out of its answer
    /// and of its exact reference, so recall estimates that of queries from outside.
    Sampled,
    /// A query file (`--queries`), as given.
    File(String),
}

impl QuerySource {
    /// The full description, as `--headless` prints it.
    pub fn describe(&self) -> String {
        match self {
            QuerySource::Sampled => "sampled, own row excluded".into(),
            QuerySource::File(path) => format!("from {path}"),
        }
    }
}

/// The search settings as shown, with the defaults they fall back to.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchInfo {
    pub settings: Settings,
    /// The field's default ef (`None` for an exact index, where ef has no effect).
    pub default_ef: Option<usize>,
    /// The field's default nprobe (`None` unless the index is IVF).
    pub default_nprobe: Option<usize>,
    /// The field's default refine factor (`None` when it is not quantized).
    pub default_refine: Option<usize>,
    pub filter: Option<String>,
    pub queries: usize,
    /// Where the queries come from.
    pub query_source: QuerySource,
    /// Where recall comes from.
    pub recall_source: String,
    pub reference_ready: bool,
}

impl SearchInfo {
    pub fn ef(&self) -> Option<usize> {
        self.settings.ef.or(self.default_ef)
    }

    pub fn nprobe(&self) -> Option<usize> {
        self.settings.nprobe.or(self.default_nprobe)
    }

    pub fn refine(&self) -> Option<usize> {
        self.default_refine.map(|d| self.settings.refine.unwrap_or(d))
    }
}

/// The search defaults of a field's index, each `None` where it has no effect.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct IndexDefaults {
    /// HNSW ef or Vamana's query list.
    pub ef: Option<usize>,
    pub nprobe: Option<usize>,
    pub refine: Option<usize>,
}

impl IndexDefaults {
    /// The defaults of the knobs the index takes (the engine's search knobs).
    pub fn of(index: &IndexParams) -> IndexDefaults {
        let default = |knob| index.search_knob(knob).and_then(|k| k.default).map(|d| d as usize);
        IndexDefaults { ef: default(Knob::Ef), nprobe: default(Knob::Nprobe), refine: default(Knob::Refine) }
    }
}

/// Everything a frame shows.
///
/// The dashboard opens on the first view, the overview ([`State::new`]).
pub struct State {
    pub view: View,
    pub help: bool,
    pub color: bool,
    pub overview: Overview,
    pub search: SearchInfo,
    pub metrics: Metrics,
    pub optimize: OptimizeState,
    pub selected: usize,
    pub graphs: Load<Vec<GraphReport>>,
    /// A one-line note for the status bar (last action, last error).
    pub message: Option<String>,
    /// Live documents gained per second between the last two overview reads: the ingest
    /// of a writer this handle follows, or of its own writes.
    pub ingest: Option<f64>,
}

impl State {
    /// The ingest rate as the views print it, with the background jobs if there are any.
    pub fn ingest_text(&self) -> String {
        match (self.ingest, self.overview.background_jobs) {
            (None, _) => "-".into(),
            (Some(r), 0) => format!("{r:.0} docs/s"),
            (Some(r), jobs) => format!("{r:.0} docs/s, {jobs} background jobs"),
        }
    }

    /// The state the dashboard starts in: the overview, no metrics yet, no optimize run.
    pub fn new(overview: Overview, search: SearchInfo, color: bool) -> State {
        let writable = overview.writable;
        State {
            view: View::ALL[0],
            help: false,
            color,
            overview,
            search,
            metrics: Metrics::new(),
            optimize: OptimizeState {
                status: if writable { OptimizeStatus::Idle } else { OptimizeStatus::ReadOnly },
                segments_done: 0,
                segments_total: 0,
                vectors_done: 0,
                vectors_total: 0,
                rate: 0.0,
                seconds: 0.0,
            },
            selected: 0,
            graphs: Load::NotStarted,
            message: None,
            ingest: None,
        }
    }
}
