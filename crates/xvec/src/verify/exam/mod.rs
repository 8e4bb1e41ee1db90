//! One verify pass over a collection directory: every file the live manifest names,
//! checked down to each section, then the files it does not name. The pass keeps what it
//! opened and what it found damaged, so that repair plans from the same facts the report
//! shows.

mod disk_checks;
mod files;
mod index_checks;
mod manifest;
pub(crate) mod orphans;
mod scalar_checks;
mod wal_sync;

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use roaring::RoaringBitmap;

use super::recover;
use super::salvage::{FileFields, Salvage};
use super::scan::{ContainerScan, WalScan};
use super::{FileReport, Finding, Report, Severity, Stats, VerifyOptions};
use crate::error::StorageError;
use crate::index::segment_index::SegmentIndex;
use crate::schema::Schema;
use crate::storage::manifest::{IndexEntry, Manifest, SegmentEntry};
use crate::storage::mmap::FileBytes;
use crate::storage::segment::Segment;
use crate::storage::wal::sync_record::{Durable, SYNC_NAME, Shortfall};
use crate::storage::{FileKind, disk};
use files::Checker;
use manifest::Resolved;
pub(crate) use orphans::lost_found_size;

/// A directory entry.
#[derive(Clone, Debug)]
pub(crate) struct DirEntry {
    pub name: String,
    pub kind: Option<FileKind>,
    pub bytes: u64,
    pub is_dir: bool,
}

/// The manifest the pass checked against.
pub(crate) struct Base {
    pub manifest: Manifest,
    /// The manifest file it came from (for a rebuilt one: the damaged live manifest, if any).
    pub name: Option<String>,
    pub schema: Arc<Schema>,
    /// How it was recovered, when the live manifest was damaged.
    pub recovered: Option<String>,
}

/// What became of a segment's delete file.
pub(crate) enum DelState {
    /// The segment has none.
    None,
    Ok(RoaringBitmap),
    Damaged,
    Missing,
}

/// What is wrong with an index file, as repair needs to know it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum IdxDamage {
    None,
    Missing,
    /// Unusable: rebuild it from the segment.
    Broken,
    /// Only the codes (or their params) are wrong; the graph, if any, is sound.
    Codes,
    /// Live nodes the base layer does not reach from the entry point.
    Unreachable(Vec<u32>),
}

pub(crate) struct IdxState {
    pub entry: IndexEntry,
    /// Whether the entry names a vector field of the schema.
    pub field_ok: bool,
    /// The open index, when it opened (with codes damage, its graph is still sound).
    pub index: Option<Arc<SegmentIndex>>,
    pub damage: IdxDamage,
    /// The file's length, when it opened.
    pub len: Option<u64>,
}

pub(crate) struct SegState {
    pub entry: SegmentEntry,
    pub bytes: Option<FileBytes>,
    pub scan: ContainerScan,
    /// The open segment, when every check passed.
    pub segment: Option<Arc<Segment>>,
    pub missing: bool,
    pub deletes: DelState,
    /// The delete file decodes but the manifest records another count.
    pub deletes_count_wrong: bool,
    pub indexes: Vec<IdxState>,
    /// The fields the file stores (what salvage reads and a repaired file keeps).
    pub fields: FileFields,
}

impl SegState {
    /// The readable parts of the segment file, when its section table reads.
    pub(crate) fn salvage(&self) -> Option<Salvage<'_>> {
        let (bytes, table) = (self.bytes.as_ref()?, self.scan.table.as_ref()?);
        let ranges = |i: usize| self.scan.bad_ranges(i);
        let bytes = self.scan.bytes(bytes.as_slice());
        Some(Salvage::read(&self.fields, table, &self.scan.bad, &ranges, bytes, self.entry.rows as usize))
    }
}

pub(crate) struct WalState {
    pub name: String,
    pub missing: bool,
    pub header_ok: bool,
    /// A sealed WAL holding fewer records than the manifest sealed it with, or the live
    /// WAL shorter than its sync record says was durable.
    pub short: bool,
    pub scan: WalScan,
    /// The live WAL's sync record, when there is one for it.
    pub durable: Option<Durable>,
    /// What the live WAL lost by its sync record.
    pub shortfall: Option<Shortfall>,
}

impl WalState {
    /// Whether repair must copy its good records into a new WAL.
    pub(crate) fn damaged(&self) -> bool {
        self.missing || self.short || !self.header_ok || !self.scan.bad.is_empty()
    }
}

pub(crate) struct Orphan {
    pub name: String,
}

/// Everything one pass found.
pub(crate) struct Exam {
    pub report: Report,
    /// `CURRENT` changed during the pass.
    pub raced: bool,
    /// `CURRENT` names the manifest checked, and that manifest is intact.
    pub current_ok: bool,
    pub base: Option<Base>,
    pub segments: Vec<SegState>,
    pub wal: Option<WalState>,
    /// The sealed WAL of a flush in progress, when the manifest names one.
    pub sealed_wal: Option<WalState>,
    pub orphans: Vec<Orphan>,
    pub listing: Vec<DirEntry>,
}

/// The collection directory's entries by name, through the fault seam.
pub(crate) fn list_dir(dir: &Path) -> Result<Vec<DirEntry>, StorageError> {
    let mut out: Vec<DirEntry> = disk::list_dir(dir)?
        .into_iter()
        .map(|e| DirEntry { kind: FileKind::of_name(&e.name), bytes: e.len, is_dir: e.is_dir, name: e.name })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// Refuses, before anything is created there (the writer lock's `LOCK` file included), a
/// directory with neither `CURRENT` nor a manifest: no collection for repair to examine,
/// as the examination itself would find.
pub(crate) fn require_collection(dir: &Path) -> Result<(), StorageError> {
    crate::storage::disk::check_dir(dir, true)?;
    let listing = list_dir(dir)?;
    if listing.iter().any(|e| matches!(e.kind, Some(FileKind::Current | FileKind::Manifest))) {
        Ok(())
    } else {
        Err(StorageError::NotACollection { path: dir.to_path_buf() })
    }
}

/// Whether `e`, from opening `path`, proves the file gone: `ENOENT`, and nothing there
/// when looked at again. Any other error (`EACCES`, `EIO`, `EMFILE`, a FIFO in the file's
/// place) says nothing about the file's bytes; repair must not drop what it holds.
pub(crate) fn gone(path: &Path, e: &StorageError) -> bool {
    let enoent = matches!(e, StorageError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound);
    let not_found = |e: &StorageError| matches!(e, StorageError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound);
    enoent && disk::symlink_metadata(path).is_err_and(|e| not_found(&e))
}

/// Generation (or sequence, or id) in a file name.
fn number(name: &str) -> u64 {
    recover::name_numbers(name).first().copied().unwrap_or(0)
}

/// Runs one pass. `holding_lock`: the caller (repair) holds the writer lock, so files not
/// named are orphans for certain, not a writer's work in progress. `fallback_schema`
/// interprets the files when no manifest holds a readable schema.
pub(crate) fn examine(
    dir: &Path,
    opts: &VerifyOptions,
    holding_lock: bool,
    fallback_schema: Option<&Schema>,
) -> Result<Exam, StorageError> {
    let start = Instant::now();
    let current_path = dir.join("CURRENT");
    let current_before = crate::storage::disk::read(&current_path).ok();
    let listing = list_dir(dir)?;
    let mut f: Vec<Finding> = Vec::new();
    let mut files: Vec<FileReport> = Vec::new();
    let mut sum = 0u64;
    let mut named: HashSet<String> = ["CURRENT", "LOCK", SYNC_NAME].into_iter().map(String::from).collect();

    let Resolved { base, target, current_ok } =
        manifest::resolve(dir, opts, &listing, fallback_schema, &mut f, &mut files, &mut sum)?;
    named.extend(target);
    if let Some(b) = &base {
        // The files of older versions kept (retention, tags, leases) are live, not orphans.
        named.extend(crate::storage::versions::kept_files(dir, &b.manifest).unwrap_or_default());
    }
    let mut exam = Exam {
        report: Report {
            dir: dir.to_path_buf(),
            manifest: base.as_ref().and_then(|b| b.name.clone()),
            generation: base.as_ref().map(|b| b.manifest.generation),
            findings: Vec::new(),
            files: Vec::new(),
            graphs: Vec::new(),
            codes: Vec::new(),
            recall: Vec::new(),
            wal: None,
            sealed_wal: None,
            stats: Stats::default(),
        },
        raced: false,
        current_ok,
        base: None,
        segments: Vec::new(),
        wal: None,
        sealed_wal: None,
        orphans: Vec::new(),
        listing: Vec::new(),
    };
    if let Some(b) = &base {
        let mut cx = Checker {
            dir,
            opts,
            f: &mut f,
            files: &mut files,
            sum: &mut sum,
            named: &mut named,
            report: &mut exam.report,
        };
        let legacy = b.manifest.legacy_layout(dir).ok().flatten();
        for e in &b.manifest.segments {
            let s = cx.segment(e, &b.schema, legacy.as_ref());
            exam.segments.push(s);
        }
        exam.wal = Some(cx.wal(&b.manifest, &b.schema));
        exam.sealed_wal = b.manifest.sealed_wal.map(|s| cx.sealed_wal(&s, &b.schema));
    }
    exam.orphans = orphans::orphans(dir, holding_lock, base.as_ref(), &listing, &named, exam.wal.as_ref(), &mut f);

    let seconds = start.elapsed().as_secs_f64();
    exam.raced = crate::storage::disk::read(&current_path).ok() != current_before;
    let bad_files: HashSet<&str> =
        f.iter().filter(|x| x.severity == Severity::Corrupt).map(|x| x.file.as_str()).collect();
    for file in &mut files {
        file.ok &= !bad_files.contains(file.name.as_str());
    }
    exam.report.stats = Stats {
        files: files.len() as u64,
        bytes_checksummed: sum,
        seconds,
        mb_per_s: if seconds > 0.0 { sum as f64 / seconds / 1e6 } else { 0.0 },
        attempts: 1,
    };
    exam.report.findings = f;
    exam.report.files = files;
    exam.base = base;
    exam.listing = listing;
    Ok(exam)
}
