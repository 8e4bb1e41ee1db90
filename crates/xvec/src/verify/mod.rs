//! Integrity of a collection directory: `verify` (read-only checks of every file kind,
//! graph topology, code re-encoding, orphans, and with `deep` a recall sample), `repair`
//! (a plan, then new files and one manifest publish). `crate::inspect` (what the engine
//! holds and where a key lives) reads with the same checks.
//!
//! Verify never writes, takes no lock and works while a writer runs: it checks the
//! generation `CURRENT` names, and when `CURRENT` changes under it (a flush or optimize
//! published meanwhile) it checks again rather than report the writer's removals as
//! damage. Published files are immutable, so what it reads of them stays true.
//!
//! This module is engine code: it returns data ([`Report`]); the admin tool prints it.

#[cfg(test)]
mod block_tests;
mod crc;
#[cfg(test)]
mod damage_tests;
#[cfg(test)]
mod disk_damage_tests;
pub(crate) mod exam;
#[cfg(test)]
mod lost_found_tests;
mod recover;
mod repair;
mod salvage;
#[cfg(test)]
mod salvage_tests;
pub(crate) mod scan;
pub(crate) mod topology;
#[cfg(test)]
mod unreadable_tests;

pub use repair::{Action, LOST_FOUND, Loss, Outcome, Plan, Repair, RepairOptions, lost_found_size, purge_lost_found};
pub use topology::LayerStats;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use crate::error::StorageError;
use crate::storage::FileKind;

/// How thorough a verify is.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct VerifyOptions {
    /// Re-encode every row's codes (not a sample) and measure recall on a query sample.
    pub deep: bool,
    /// Rows per index whose codes are re-encoded when not `deep`.
    pub code_sample: usize,
    /// Stored vectors used as queries for the recall sample (`deep` only).
    pub recall_queries: usize,
    /// Top-k of the recall sample.
    pub recall_k: usize,
    /// Threads for checksumming large sections.
    pub threads: usize,
    /// Passes to try when a writer publishes a new generation during one.
    pub attempts: usize,
    /// Map the files (the default). Without, each file is read in 64 KiB blocks, and a
    /// block that cannot be read (EIO) is reported and treated like one that fails its
    /// checksum, where a mapping would end the process with `SIGBUS`.
    pub mmap: bool,
}

impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions {
            deep: false,
            code_sample: 256,
            recall_queries: 100,
            recall_k: 10,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            attempts: 20,
            mmap: true,
        }
    }
}

/// Builder-style setters: the struct is `#[non_exhaustive]`, so code outside the
/// engine starts from [`Default`] and sets what it needs.
impl VerifyOptions {
    /// Sets [`VerifyOptions::deep`].
    pub fn deep(mut self, deep: bool) -> Self {
        self.deep = deep;
        self
    }

    /// Sets [`VerifyOptions::code_sample`].
    pub fn code_sample(mut self, code_sample: usize) -> Self {
        self.code_sample = code_sample;
        self
    }

    /// Sets [`VerifyOptions::recall_queries`].
    pub fn recall_queries(mut self, recall_queries: usize) -> Self {
        self.recall_queries = recall_queries;
        self
    }

    /// Sets [`VerifyOptions::recall_k`].
    pub fn recall_k(mut self, recall_k: usize) -> Self {
        self.recall_k = recall_k;
        self
    }

    /// Sets [`VerifyOptions::threads`].
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// Sets [`VerifyOptions::attempts`].
    pub fn attempts(mut self, attempts: usize) -> Self {
        self.attempts = attempts;
        self
    }

    /// Sets [`VerifyOptions::mmap`].
    pub fn mmap(mut self, mmap: bool) -> Self {
        self.mmap = mmap;
        self
    }
}

/// How bad a finding is. `Corrupt` and `Orphan` make the collection fail verification.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Data on disk is wrong, missing or inconsistent.
    Corrupt,
    /// A file no live manifest names (left by a crash or an interrupted write).
    Orphan,
    /// Worth knowing, not damage: a torn WAL tail, unreachable graph nodes, low recall.
    Warning,
    /// Context, e.g. files in flight while a writer runs.
    Info,
}

impl Severity {
    /// Lower-case name, as reports print and serialize it.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Corrupt => "corrupt",
            Severity::Orphan => "orphan",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }

    /// Whether a finding of this severity fails verification (exit status 3).
    pub fn is_problem(self) -> bool {
        matches!(self, Severity::Corrupt | Severity::Orphan)
    }
}

/// One thing verify found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Finding {
    /// How bad it is.
    pub severity: Severity,
    /// File name within the collection directory.
    pub file: String,
    /// Part of the file: `header`, `section table`, a section name, `frame`, `body`, ...
    pub section: String,
    /// Byte offset within the file, when one spot is at fault.
    pub offset: Option<u64>,
    /// What is wrong, in a phrase.
    pub what: String,
    /// What a sound file holds there; empty when the finding has no such comparison.
    pub expected: String,
    /// What the file holds instead; empty with `expected`.
    pub found: String,
    /// Rows the damage costs, `[first, end)`, when it is confined to a block of a segment
    /// section (a row range covering every row whose bytes lie in the block).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows: Option<[u64; 2]>,
    /// Keys of those rows, when the key sections are readable there.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub keys: Vec<String>,
    /// Could be an artefact of a writer publishing mid-verify (a file removed, a WAL
    /// being appended, a file not yet named); dropped if the generation changed.
    #[serde(skip)]
    pub(crate) transient: bool,
    /// The file could not be read for a reason that says nothing about its bytes
    /// (`EACCES`, `EIO`, `EMFILE`, a FIFO in its place): repair refuses to plan from it.
    #[serde(skip)]
    pub(crate) unreadable: bool,
}

impl Finding {
    pub(crate) fn new(severity: Severity, file: &str, section: &str, what: impl Into<String>) -> Finding {
        Finding {
            severity,
            file: file.to_string(),
            section: section.to_string(),
            offset: None,
            what: what.into(),
            expected: String::new(),
            found: String::new(),
            rows: None,
            keys: Vec::new(),
            transient: false,
            unreadable: false,
        }
    }

    pub(crate) fn at(mut self, offset: u64) -> Finding {
        self.offset = Some(offset);
        self
    }

    pub(crate) fn expected(mut self, expected: impl ToString, found: impl ToString) -> Finding {
        self.expected = expected.to_string();
        self.found = found.to_string();
        self
    }

    pub(crate) fn transient(mut self) -> Finding {
        self.transient = true;
        self
    }

    pub(crate) fn unreadable(mut self) -> Finding {
        self.unreadable = true;
        self
    }
}

/// One file verify read.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FileReport {
    /// File name within the collection directory.
    pub name: String,
    /// What kind of file its name says it is.
    pub kind: FileKind,
    /// Its size.
    pub bytes: u64,
    /// No corrupt finding names it.
    pub ok: bool,
}

/// Topology of one index graph.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GraphReport {
    /// The index file holding the graph.
    pub file: String,
    /// Id of the segment it indexes.
    pub segment: u64,
    /// The vector field it indexes.
    pub field: String,
    /// `hnsw` or `vamana`.
    pub kind: String,
    /// Nodes of the base layer (one per segment row).
    pub nodes: u64,
    /// Edges (neighbour-list entries) over all layers.
    pub edges: u64,
    /// HNSW entry point or Vamana medoid.
    pub entry: u32,
    /// Base layer first.
    pub layers: Vec<LayerStats>,
}

impl GraphReport {
    /// Live nodes the base layer does not reach from the entry point.
    pub fn unreachable_live(&self) -> u64 {
        self.layers.first().map_or(0, |l| l.unreachable_live)
    }
}

/// Stored codes checked against the re-encoded originals.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CodesReport {
    /// The index file holding the codes.
    pub file: String,
    /// Id of the segment it indexes.
    pub segment: u64,
    /// The vector field it indexes.
    pub field: String,
    /// The quantization's name (`fp16`, `int8`, `int4`).
    pub quantize: String,
    /// Whether vectors are rotated before encoding.
    pub rotated: bool,
    /// Rows with codes.
    pub rows: u64,
    /// Rows re-encoded and compared: a sample, or every row with `deep`.
    pub checked: u64,
    /// Of `checked`, rows whose stored codes or params differ from the re-encoding.
    pub mismatched: u64,
    /// The first such row.
    pub first_mismatch: Option<u64>,
}

/// Index search against exact search on a sample of stored vectors (`deep`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RecallReport {
    /// The index file searched.
    pub file: String,
    /// Id of the segment it indexes.
    pub segment: u64,
    /// The vector field it indexes.
    pub field: String,
    /// The index's description, e.g. `hnsw m=16 efc=200 ef=64`.
    pub index: String,
    /// Stored vectors used as queries.
    pub queries: u64,
    /// Top-k of each query.
    pub k: u64,
    /// Share of the exact top-k the index found, 0.0..=1.0 (below 0.8 is a warning).
    pub recall: f64,
}

/// The live write-ahead log.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WalReport {
    /// The WAL file the manifest names.
    pub file: String,
    /// Its size.
    pub bytes: u64,
    /// Intact records in it.
    pub records: u64,
    /// Damaged frames between good ones.
    pub bad_frames: u64,
    /// Offset and length of a torn tail.
    pub torn: Option<(u64, u64)>,
}

/// Cost of a verify.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Stats {
    /// Files read.
    pub files: u64,
    /// Bytes whose CRC32C was computed.
    pub bytes_checksummed: u64,
    /// Wall time of the pass reported.
    pub seconds: f64,
    /// `bytes_checksummed` over `seconds`, in MB (10⁶ bytes) per second.
    pub mb_per_s: f64,
    /// Passes run (more than one when a writer published during a pass).
    pub attempts: u64,
}

/// Everything one verify found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// The collection directory verified.
    pub dir: PathBuf,
    /// The manifest checked.
    pub manifest: Option<String>,
    /// Its generation; `None` when no manifest could be read.
    pub generation: Option<u64>,
    /// Everything found, of every severity.
    pub findings: Vec<Finding>,
    /// Every file read, with whether it checked out.
    pub files: Vec<FileReport>,
    /// Topology of every index graph.
    pub graphs: Vec<GraphReport>,
    /// Code re-encoding checks, one per quantized index.
    pub codes: Vec<CodesReport>,
    /// Recall samples, one per index (`deep` only).
    pub recall: Vec<RecallReport>,
    /// The live WAL, when the manifest names one that could be read.
    pub wal: Option<WalReport>,
    /// The sealed WAL of a flush in progress, when the manifest names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sealed_wal: Option<WalReport>,
    /// What the verify cost.
    pub stats: Stats,
}

impl Report {
    /// Findings that fail verification.
    pub fn problems(&self) -> usize {
        self.findings.iter().filter(|f| f.severity.is_problem()).count()
    }

    /// Findings of `severity`.
    pub fn count(&self, severity: Severity) -> usize {
        self.findings.iter().filter(|f| f.severity == severity).count()
    }

    /// Whether nothing fails verification (warnings and info allowed).
    pub fn is_clean(&self) -> bool {
        self.problems() == 0
    }
}

/// Verifies the collection in `dir`. Errors only when `dir` is no collection at all or
/// cannot be listed; everything wrong inside it is a [`Finding`].
///
/// ```
/// use xvec::verify::{self, Severity, VerifyOptions};
/// use xvec::{Collection, Doc, Field, Metric, Schema, VectorType};
/// let dir = tempfile::tempdir()?;
/// let schema = Schema::builder("v").field(Field::vector("emb", VectorType::Fp32, 2, Metric::L2)).build()?;
/// let coll = Collection::create(dir.path(), schema, Default::default())?;
/// coll.insert(vec![Doc::new("a").set("emb", vec![0.0f32, 1.0])])?;
/// coll.flush()?;
/// let mut opts = VerifyOptions::default();
/// opts.threads = 1;
/// let report = verify::run(dir.path(), &opts)?;
/// assert!(report.is_clean());
/// assert_eq!(report.count(Severity::Corrupt), 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn run(dir: &Path, opts: &VerifyOptions) -> Result<Report, StorageError> {
    crate::storage::disk::check_dir(dir, true)?;
    let mut attempt = 0;
    loop {
        attempt += 1;
        let exam = exam::examine(dir, opts, false, None)?;
        let raced = exam.raced;
        let mut report = exam.report;
        report.stats.attempts = attempt as u64;
        if !raced {
            return Ok(report);
        }
        if attempt >= opts.attempts.max(1) {
            // Still racing a busy writer: keep what holds regardless (damage inside files
            // that were read), drop what the writer's own steps could have caused.
            report.findings.retain(|f| !f.transient);
            report.findings.push(Finding::new(
                Severity::Warning,
                "CURRENT",
                "",
                format!(
                    "a writer published a new generation during each of {attempt} passes; \
                     missing files, orphans and WAL state were not judged"
                ),
            ));
            return Ok(report);
        }
        std::thread::sleep(Duration::from_millis(2 * attempt as u64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `FileReport.kind` keeps the JSON report's lowercase names.
    #[test]
    fn file_kinds_serialize_as_their_names() {
        for kind in FileKind::ALL {
            assert_eq!(serde_json::to_value(kind).unwrap(), kind.name());
        }
    }
}
