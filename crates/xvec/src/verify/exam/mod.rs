//! One verify pass over a collection directory: every file the live manifest names,
//! checked down to each section, then the files it does not name. The pass keeps what it
//! opened and what it found damaged, so that repair plans from the same facts the report
//! shows.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use roaring::RoaringBitmap;

use super::recover::{self, DirFile, Recovered};
use super::salvage::{self, Salvage};
use super::scan::{self, ContainerScan, ScanContext, WalScan, describe};
use super::topology::{check_hnsw, check_vamana};
use super::{
    CodesReport, FileReport, Finding, GraphReport, RecallReport, Report, Severity, Stats, VerifyOptions, WalReport,
};
use crate::collection::recovery::{self, Disposition, LOST_FOUND, Leftover};
use crate::error::StorageError;
use crate::index::quant::sketch;
use crate::index::segment_index::{self, SearchParams, SegmentIndex};
use crate::index::{PreparedQuery, TopK, flat};
use crate::kernels;
use crate::schema::{IndexParams, Schema, VectorSpec};
use crate::storage::column::SegmentView;
use crate::storage::container::{BLOCK_LEN, RawSection, TABLE_AT};
use crate::storage::lock::WriterLock;
use crate::storage::manifest::{self, IndexEntry, Manifest, SegmentEntry};
use crate::storage::mmap::FileBytes;
use crate::storage::segment::{NO_FIELD, SectionKind, Segment, planned_sections};
use crate::storage::{FileKind, deletes, read_u32, read_u64, wal_name};

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
}

impl SegState {
    /// The readable parts of the segment file, when its section table reads.
    pub fn salvage<'a>(&'a self, schema: &'a Schema) -> Option<Salvage<'a>> {
        let (bytes, table) = (self.bytes.as_ref()?, self.scan.table.as_ref()?);
        let ranges = |i: usize| self.scan.bad_ranges(i);
        Some(Salvage::read(schema, table, &self.scan.bad, &ranges, bytes.as_slice(), self.entry.rows as usize))
    }
}

pub(crate) struct WalState {
    pub name: String,
    pub missing: bool,
    pub header_ok: bool,
    pub scan: WalScan,
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
    pub orphans: Vec<Orphan>,
    pub listing: Vec<DirEntry>,
}

pub(crate) fn list_dir(dir: &Path) -> Result<Vec<DirEntry>, StorageError> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).map_err(|e| StorageError::io(dir, e))? {
        let e = e.map_err(|e| StorageError::io(dir, e))?;
        let name = e.file_name().to_string_lossy().into_owned();
        let meta = e.metadata().ok();
        out.push(DirEntry {
            kind: FileKind::of_name(&name),
            bytes: meta.as_ref().map_or(0, |m| m.len()),
            is_dir: meta.as_ref().is_some_and(|m| m.is_dir()),
            name,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// Generation (or sequence, or id) in a file name.
fn number(name: &str) -> u64 {
    recover::name_numbers(name).first().copied().unwrap_or(0)
}

/// Report name of a segment section: its kind, and its field when it has one.
pub(crate) fn segment_section_name(schema: &Schema, s: &RawSection) -> String {
    let kind = SectionKind::from_code(s.kind).map_or_else(|| format!("section kind {}", s.kind), |k| k.name().into());
    match schema.fields().get(s.field as usize) {
        Some(f) if s.field != NO_FIELD => format!("{kind} of `{}`", f.name),
        _ => kind,
    }
}

pub(crate) fn index_section_name(s: &RawSection) -> String {
    segment_index::section_name(s.kind).map_or_else(|| format!("section kind {}", s.kind), String::from)
}

/// Section of a manifest or delete file (header, length/checksum words, body) at `offset`.
fn body_section(offset: u64) -> &'static str {
    match offset {
        0..32 => "header",
        32..48 => "body header",
        _ => "body",
    }
}

/// Row count from a segment's meta section, trusting only that section's own checksum.
pub(crate) fn segment_rows(b: &[u8]) -> Option<u64> {
    let e = TABLE_AT;
    let (offset, len, crc) = (read_u64(b.get(..e + 32)?, e + 8), read_u64(b, e + 16), read_u32(b, e + 24));
    let meta = b.get(usize::try_from(offset).ok()?..usize::try_from(offset.checked_add(len)?).ok()?)?;
    (len == 8 && crc32c::crc32c(meta) == crc).then(|| read_u64(meta, 0))
}

/// Whether the segment files present agree with `schema`: at least one whose section
/// table reads has the sections the schema plans, with vector sections of the planned
/// size (or none reads, so nothing contradicts it).
fn fits_segments(dir: &Path, listing: &[DirEntry], schema: &Schema, mmap: bool) -> bool {
    let plan = planned_sections(schema);
    let mut readable = false;
    for e in listing.iter().filter(|e| e.kind == Some(FileKind::Segment)) {
        let path = dir.join(&e.name);
        let Ok(bytes) = FileBytes::open(&path, mmap) else { continue };
        let b = bytes.as_slice();
        let Ok((_, table)) = crate::storage::container::read(&path, b, FileKind::Segment, |_| false) else { continue };
        readable = true;
        let rows = segment_rows(b);
        let fits = table.len() == plan.len()
            && table.iter().zip(&plan).all(|(s, &(kind, field))| {
                let vector_len =
                    schema.fields().get(field as usize).and_then(|f| f.as_vector()).map(|v| v.row_bytes() as u64);
                s.kind == kind as u16
                    && s.field == field
                    && (kind != SectionKind::Vectors || rows.zip(vector_len).is_none_or(|(r, w)| s.len == r * w))
            });
        if fits {
            return true;
        }
    }
    !readable
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
    let current_before = std::fs::read(&current_path).ok();
    let listing = list_dir(dir)?;
    let mut manifests: Vec<&DirEntry> = listing.iter().filter(|e| e.kind == Some(FileKind::Manifest)).collect();
    manifests.sort_by_key(|e| std::cmp::Reverse(number(&e.name)));
    let mut f: Vec<Finding> = Vec::new();
    let mut files: Vec<FileReport> = Vec::new();
    let mut sum = 0u64;
    let mut named: HashSet<String> = ["CURRENT", "LOCK"].into_iter().map(String::from).collect();

    // CURRENT, then the manifest it names (or the newest one present).
    let newest = manifests.first().map(|e| e.name.clone());
    let (target, mut current_ok) = match manifest::read_current(dir) {
        Ok(name) if listing.iter().any(|e| e.name == name) => (Some(name), true),
        Ok(name) => {
            f.push(
                Finding::new(Severity::Corrupt, "CURRENT", "", format!("names {name}, which does not exist"))
                    .transient(),
            );
            (newest, false)
        }
        Err(StorageError::NotACollection { path }) => {
            if manifests.is_empty() {
                return Err(StorageError::NotACollection { path });
            }
            f.push(Finding::new(Severity::Corrupt, "CURRENT", "", "missing; the collection cannot be opened"));
            (newest, false)
        }
        Err(e) => {
            let (_, what) = describe(&e);
            f.push(Finding::new(Severity::Corrupt, "CURRENT", "", what).at(0));
            (newest, false)
        }
    };
    files.push(FileReport { name: "CURRENT".into(), kind: "current".into(), bytes: 0, ok: current_ok });
    let mut base: Option<Base> = None;
    let mut salvaged: Option<(crate::schema::RawSchema, Option<manifest::CollectionOptions>)> = None;
    if let Some(name) = &target {
        named.insert(name.clone());
        let path = dir.join(name);
        match std::fs::read(&path) {
            Ok(bytes) => {
                sum += bytes.len() as u64;
                let decoded = Manifest::decode(&path, &bytes);
                let ok = decoded.is_ok();
                files.push(FileReport { name: name.clone(), kind: "manifest".into(), bytes: bytes.len() as u64, ok });
                let recovered = match decoded {
                    Ok(m) => Some((m, None)),
                    Err(e) => {
                        current_ok = false;
                        let (at, what) = describe(&e);
                        let at = at.unwrap_or(0);
                        let mut finding = Finding::new(Severity::Corrupt, name, body_section(at), what).at(at);
                        let rec = match recover::recover(&path, &bytes) {
                            Recovered::Whole(m, how) => {
                                finding.what.push_str(&format!("; recoverable: {how}"));
                                Some((m, Some(how)))
                            }
                            Recovered::Schema(s, o) => {
                                finding.what.push_str("; only the schema is readable");
                                salvaged = Some((s, o));
                                None
                            }
                            Recovered::Nothing => None,
                        };
                        f.push(finding);
                        rec
                    }
                };
                if let Some((m, how)) = recovered {
                    match m.schema(&path) {
                        Ok(s) if how.is_some() && !fits_segments(dir, &listing, &s, opts.mmap) => {
                            f.push(Finding::new(
                                Severity::Info,
                                name,
                                "body",
                                "the recovered schema does not fit the segment files; not used",
                            ));
                        }
                        Ok(s) => {
                            base = Some(Base {
                                manifest: m,
                                name: Some(name.clone()),
                                schema: Arc::new(s),
                                recovered: how,
                            })
                        }
                        Err(e) => {
                            let (at, what) = describe(&e);
                            f.push(Finding::new(Severity::Corrupt, name, "body", what).at(at.unwrap_or(48)));
                        }
                    }
                }
            }
            Err(e) => {
                let what = format!("cannot be read: {e}");
                f.push(Finding::new(Severity::Corrupt, name, "", what).transient());
            }
        }
    }
    if base.is_none() {
        // Roll forward from the files present, with the schema from the damaged manifest
        // or else from any other manifest that still reads.
        // or else from any other manifest that still reads, or else the caller's; a schema
        // the segment files contradict (damage that still parses) is passed over.
        let others = manifests.iter().filter(|e| Some(&e.name) != target.as_ref()).filter_map(|e| {
            let p = dir.join(&e.name);
            std::fs::read(&p).ok().and_then(|b| Manifest::decode(&p, &b).ok()).map(|m| (m.schema, Some(m.options)))
        });
        let chosen = salvaged
            .into_iter()
            .chain(others)
            .find(|(raw, _)| raw.clone().into_schema().is_ok_and(|s| fits_segments(dir, &listing, &s, opts.mmap)))
            .or_else(|| fallback_schema.map(|s| (s.to_stored(), None)));
        if let Some((raw, options)) = chosen {
            let generation = manifests.first().map_or(0, |e| number(&e.name)) + 1;
            let dir_files: Vec<DirFile> =
                listing.iter().filter_map(|e| Some(DirFile { name: &e.name, kind: e.kind?, bytes: e.bytes })).collect();
            let rows_of = |name: &str| std::fs::read(dir.join(name)).ok().and_then(|b| segment_rows(&b));
            let deleted_of = |name: &str, id: u64, rows: u64| {
                let p = dir.join(name);
                let b = std::fs::read(&p).ok()?;
                Some(deletes::decode(&p, &b, id, rows as usize).map_or(0, |s| s.len()))
            };
            let m = recover::rebuild(raw, options.unwrap_or_default(), generation, &dir_files, &rows_of, &deleted_of);
            let path = dir.join(crate::storage::manifest_name(generation));
            match m.schema(&path) {
                Ok(s) => {
                    f.push(Finding::new(
                        Severity::Info,
                        target.as_deref().unwrap_or("CURRENT"),
                        "",
                        format!(
                            "checking against a manifest rebuilt from the {} segment files present",
                            m.segments.len()
                        ),
                    ));
                    base = Some(Base {
                        manifest: m,
                        name: target.clone(),
                        schema: Arc::new(s),
                        recovered: Some("rebuilt from the files in the directory".into()),
                    });
                }
                Err(e) => f.push(Finding::new(Severity::Corrupt, "", "", describe(&e).1)),
            }
        } else {
            f.push(Finding::new(
                Severity::Corrupt,
                target.as_deref().unwrap_or("CURRENT"),
                "",
                "no manifest or schema is readable: the collection's files cannot be interpreted",
            ));
        }
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
            stats: Stats::default(),
        },
        raced: false,
        current_ok,
        base: None,
        segments: Vec::new(),
        wal: None,
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
        for e in &b.manifest.segments {
            let s = cx.segment(e, &b.schema);
            exam.segments.push(s);
        }
        exam.wal = Some(cx.wal(&b.manifest, &b.schema));
    }

    // Files no manifest names: leftovers the next writable open rolls back, when the live
    // generation is known; orphans for repair otherwise.
    let leftovers: std::collections::HashMap<String, Leftover> = base
        .as_ref()
        .and_then(|b| recovery::leftovers(dir, &b.manifest, &b.schema).ok())
        .map(|l| l.into_iter().map(|l| (l.file.clone(), l)).collect())
        .unwrap_or_default();
    let mut writer_active: Option<bool> = None;
    let mut active =
        || *writer_active.get_or_insert_with(|| !holding_lock && WriterLock::is_held(dir).unwrap_or(false));
    for e in &listing {
        if e.is_dir || named.contains(&e.name) {
            continue;
        }
        let Some(kind) = e.kind else {
            f.push(Finding::new(Severity::Info, &e.name, "", "not an xvec file; ignored"));
            continue;
        };
        let generation = base.as_ref().map_or(0, |b| b.manifest.generation);
        let reason = match kind {
            FileKind::Temp => "temp file left by an interrupted write".to_string(),
            FileKind::Manifest if number(&e.name) < generation => "stale manifest".into(),
            FileKind::Manifest => "manifest that CURRENT does not name (an interrupted publish)".into(),
            FileKind::Wal => "WAL the manifest does not name".into(),
            _ => "not named by the live manifest".into(),
        };
        let finding = if active() {
            Finding::new(Severity::Info, &e.name, "", format!("{reason}; a writer is active, so it may be in flight"))
        } else if !dir.join(&e.name).exists() {
            // Gone since the listing: a writer's cleanup after its publish, which ended
            // before the lock was checked.
            continue;
        } else if let Some(l) = leftovers.get(&e.name) {
            let done = match l.disposition {
                Disposition::Remove => "removes it",
                Disposition::Keep => "moves it to lost+found/",
            };
            Finding::new(
                Severity::Warning,
                &e.name,
                "",
                format!("pending rollback: {}; the next writable open {done}", l.why),
            )
        } else {
            Finding::new(Severity::Orphan, &e.name, "", reason)
        };
        f.push(finding.expected("", format!("{} bytes", e.bytes)).transient());
        exam.orphans.push(Orphan { name: e.name.clone() });
    }
    if let Some(w) = &exam.wal
        && let Some((at, len)) = w.scan.torn
    {
        let sev = if active() { Severity::Info } else { Severity::Warning };
        f.push(
            Finding::new(
                sev,
                &w.name,
                "frame",
                format!("torn tail: {len} bytes of a write cut short; readers ignore it, repair truncates it"),
            )
            .at(at)
            .transient(),
        );
    }

    if let Some((files, bytes)) = lost_found_size(&dir.join(LOST_FOUND)) {
        f.push(
            Finding::new(
                Severity::Info,
                LOST_FOUND,
                "",
                format!(
                    "{files} file{}, {bytes} bytes kept by recovery and repair; `xvec repair --purge-lost-found` empties it",
                    if files == 1 { "" } else { "s" }
                ),
            )
            .expected("", format!("{bytes} bytes")),
        );
    }

    let seconds = start.elapsed().as_secs_f64();
    exam.raced = std::fs::read(&current_path).ok() != current_before;
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

/// The per-file checks of one pass and what they accumulate.
struct Checker<'a> {
    dir: &'a Path,
    opts: &'a VerifyOptions,
    f: &'a mut Vec<Finding>,
    files: &'a mut Vec<FileReport>,
    sum: &'a mut u64,
    named: &'a mut HashSet<String>,
    report: &'a mut Report,
}

impl Checker<'_> {
    fn file(&mut self, name: &str, kind: FileKind, bytes: u64) {
        self.files.push(FileReport { name: name.into(), kind: kind.name().into(), bytes, ok: true });
    }

    /// Opens a named file, reporting it missing (or unreadable) and its size if wrong.
    fn open(&mut self, name: &str, kind: FileKind, size: u64) -> Option<FileBytes> {
        self.named.insert(name.to_string());
        let path = self.dir.join(name);
        let opened = if self.opts.mmap {
            FileBytes::open(&path, true)
        } else {
            FileBytes::read_tolerant(&path, BLOCK_LEN as usize).map(|(b, unreadable)| {
                for u in unreadable {
                    self.f.push(
                        Finding::new(Severity::Corrupt, name, "", format!("cannot be read: {}", u.error))
                            .at(u.range.start)
                            .expected("", format!("bytes {}..{}", u.range.start, u.range.end)),
                    );
                }
                b
            })
        };
        match opened {
            Ok(b) => {
                if let FileBytes::Mapped(map, _) = &b {
                    // Every byte is about to be read once, front to back: ask for readahead
                    // (a hint; a refusal changes nothing but speed).
                    let _ = map.advise(memmap2::Advice::Sequential);
                    let _ = map.advise(memmap2::Advice::WillNeed);
                }
                let len = b.as_slice().len() as u64;
                self.file(name, kind, len);
                if len != size {
                    self.f.push(
                        Finding::new(Severity::Corrupt, name, "", "file size differs from the manifest's record")
                            .expected(size, len),
                    );
                }
                Some(b)
            }
            Err(e) => {
                let missing =
                    matches!(&e, StorageError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound);
                let what = if missing { "missing".to_string() } else { describe(&e).1 };
                self.f.push(Finding::new(Severity::Corrupt, name, "", what).transient());
                None
            }
        }
    }

    fn segment(&mut self, e: &SegmentEntry, schema: &Arc<Schema>) -> SegState {
        let mut st = SegState {
            entry: e.clone(),
            bytes: None,
            scan: ContainerScan::default(),
            segment: None,
            missing: false,
            deletes: DelState::None,
            deletes_count_wrong: false,
            indexes: Vec::new(),
        };
        let path = self.dir.join(&e.file);
        match self.open(&e.file, FileKind::Segment, e.size) {
            None => st.missing = true,
            Some(bytes) => {
                let plan = planned_sections(schema);
                let name_of = |_: usize, s: &RawSection| segment_section_name(schema, s);
                let cx = ScanContext {
                    file: &e.file,
                    path: &path,
                    kind: FileKind::Segment,
                    expected_count: Some(plan.len()),
                    name_of: &name_of,
                    threads: self.opts.threads,
                };
                st.scan = scan::scan_container(&cx, bytes.as_slice(), self.f, self.sum);
                if let Some(id) = st.scan.id
                    && id != e.id
                {
                    self.f.push(
                        Finding::new(Severity::Corrupt, &e.file, "header", "segment id").at(16).expected(e.id, id),
                    );
                    st.scan.frame_damage = true;
                }
                if let Some(t) = &st.scan.table {
                    let fits = t.len() == plan.len()
                        && t.iter().zip(&plan).all(|(s, &(k, field))| s.kind == k as u16 && s.field == field);
                    if !fits {
                        self.f.push(
                            Finding::new(
                                Severity::Corrupt,
                                &e.file,
                                "section table",
                                "sections do not match the schema",
                            )
                            .expected(format!("{} sections", plan.len()), format!("{} sections", t.len())),
                        );
                        st.scan.table = None;
                        st.scan.frame_damage = true;
                    }
                }
                if let Some(t) = st.scan.table.clone()
                    && !st.scan.bad_blocks.is_empty()
                {
                    self.name_block_rows(schema, &t, &st, bytes.as_slice(), e.rows as usize);
                }
                if st.scan.is_clean() {
                    match Segment::open(&path, schema.clone(), self.opts.mmap, false) {
                        Ok(seg) if seg.rows() as u64 == e.rows => st.segment = Some(Arc::new(seg)),
                        Ok(seg) => self.f.push(
                            Finding::new(Severity::Corrupt, &e.file, "meta", "row count differs from the manifest's")
                                .expected(e.rows, seg.rows()),
                        ),
                        Err(err) => {
                            let (at, what) = describe(&err);
                            let section = scan::section_at(st.scan.table.as_deref(), at.unwrap_or(0), &name_of);
                            let mut finding = Finding::new(Severity::Corrupt, &e.file, &section, what);
                            finding.offset = at;
                            self.f.push(finding);
                        }
                    }
                }
                st.bytes = Some(bytes);
            }
        }
        let rows = st.segment.as_ref().map_or(e.rows, |s| s.rows() as u64);
        if let Some(d) = &e.deletes {
            let p = self.dir.join(&d.file);
            st.deletes = match self.open(&d.file, FileKind::Deletes, d.size) {
                None => DelState::Missing,
                Some(b) => {
                    *self.sum += b.as_slice().len() as u64;
                    match deletes::decode(&p, b.as_slice(), e.id, rows as usize) {
                        Ok(set) => {
                            if set.len() != d.count {
                                st.deletes_count_wrong = true;
                                self.f.push(
                                    Finding::new(
                                        Severity::Corrupt,
                                        &d.file,
                                        "body",
                                        "deleted row count differs from the manifest's",
                                    )
                                    .expected(d.count, set.len()),
                                );
                            }
                            DelState::Ok(set)
                        }
                        Err(err) => {
                            let (at, what) = describe(&err);
                            let at = at.unwrap_or(0);
                            self.f.push(Finding::new(Severity::Corrupt, &d.file, body_section(at), what).at(at));
                            DelState::Damaged
                        }
                    }
                }
            };
        }
        let deleted = match &st.deletes {
            DelState::Ok(s) => s.clone(),
            _ => RoaringBitmap::new(),
        };
        for ie in &e.indexes {
            let s = self.index(e, ie, schema, rows, st.segment.as_deref(), &deleted);
            st.indexes.push(s);
        }
        st
    }

    /// Adds to each damaged-block finding of a segment the rows the block holds and their
    /// keys, when readable.
    fn name_block_rows(&mut self, schema: &Schema, table: &[RawSection], st: &SegState, b: &[u8], rows: usize) {
        let ranges = |i: usize| st.scan.bad_ranges(i);
        let readable = Salvage::read(schema, table, &st.scan.bad, &ranges, b, rows);
        for bb in &st.scan.bad_blocks {
            let Some(hit) = salvage::block_rows(schema, table, bb.section, bb.bytes.clone(), b, rows) else { continue };
            let (Some(lo), Some(hi)) = (hit.min(), hit.max()) else { continue };
            let keys: Vec<String> = hit.iter().filter_map(|r| readable.key(r as usize).map(String::from)).collect();
            let Some(f) = self.f.get_mut(bb.finding) else { continue };
            let shown: Vec<&str> = keys.iter().take(3).map(String::as_str).collect();
            let more = if keys.len() > shown.len() { ", …" } else { "" };
            let kind = SectionKind::from_code(table[bb.section].kind);
            let derived = matches!(kind, Some(SectionKind::KeyOrder | SectionKind::Norms));
            f.what.push_str(&format!(
                "; rows {lo}..={hi} ({} rows{}){}",
                hit.len(),
                if keys.is_empty() { String::new() } else { format!(", keys {}{more}", shown.join(", ")) },
                if derived { "; derived data, recomputed by repair" } else { "" }
            ));
            f.rows = Some([lo as u64, hi as u64 + 1]);
            f.keys = keys;
        }
    }

    fn index(
        &mut self,
        e: &SegmentEntry,
        ie: &IndexEntry,
        schema: &Schema,
        rows: u64,
        seg: Option<&Segment>,
        deleted: &RoaringBitmap,
    ) -> IdxState {
        let mut st = IdxState { entry: ie.clone(), field_ok: true, index: None, damage: IdxDamage::Broken };
        let Some((field, spec)) =
            schema.fields().get(ie.field as usize).and_then(|f| Some((f.name.clone(), f.as_vector()?.clone())))
        else {
            self.named.insert(ie.file.clone());
            self.f.push(Finding::new(
                Severity::Corrupt,
                &ie.file,
                "",
                format!("the manifest lists it for field {}, which is not a vector field", ie.field),
            ));
            st.field_ok = false;
            return st;
        };
        let path = self.dir.join(&ie.file);
        let Some(bytes) = self.open(&ie.file, FileKind::Index, ie.size) else {
            st.damage = IdxDamage::Missing;
            return st;
        };
        let cx = ScanContext {
            file: &ie.file,
            path: &path,
            kind: FileKind::Index,
            expected_count: None,
            name_of: &|_, s| index_section_name(s),
            threads: self.opts.threads,
        };
        let scan = scan::scan_container(&cx, bytes.as_slice(), self.f, self.sum);
        if let Some(id) = scan.id
            && id != e.id
        {
            self.f.push(Finding::new(Severity::Corrupt, &ie.file, "header", "segment id").at(16).expected(e.id, id));
            return st;
        }
        let damaged = scan.damaged_sections();
        let codes_only = scan.id.is_some()
            && !scan.frame_damage
            && !damaged.is_empty()
            && scan.table.as_ref().is_some_and(|t| {
                damaged.iter().all(|&i| t.get(i).is_some_and(|s| segment_index::CODE_SECTIONS.contains(&s.kind)))
            });
        if !scan.is_clean() && !codes_only {
            return st;
        }
        let index = match SegmentIndex::open(&path, e.id, ie.field, &spec, rows as usize, self.opts.mmap, false) {
            Ok(i) => Arc::new(i),
            Err(err) => {
                let (at, what) = describe(&err);
                let section = scan::section_at(scan.table.as_deref(), at.unwrap_or(0), &|_, s| index_section_name(s));
                let mut finding = Finding::new(Severity::Corrupt, &ie.file, &section, what);
                finding.offset = at;
                self.f.push(finding);
                return st;
            }
        };
        st.index = Some(index.clone());
        if codes_only {
            st.damage = IdxDamage::Codes;
            return st;
        }
        st.damage = IdxDamage::None;
        // Rows a search never returns (deleted, or without a vector in this field) need
        // not be reachable.
        let mut ignored = deleted.clone();
        if let Some(seg) = seg {
            let col = seg.vector(ie.field as usize);
            ignored.extend((0..seg.rows() as u32).filter(|&r| !col.validity.is_valid(r as usize)));
        }
        self.topology(e, ie, &field, &index, &ignored, &mut st);
        if let Some(seg) = seg {
            // Both run: each reports its own finding.
            let (codes, sketches) = (self.codes(e, ie, &field, &index, seg), self.sketches(ie, &index, seg));
            if codes || sketches {
                st.damage = IdxDamage::Codes;
            }
            if self.opts.deep && matches!(st.damage, IdxDamage::None | IdxDamage::Unreachable(_)) {
                self.recall(e, ie, &field, &spec, &index, seg);
            }
        }
        st
    }

    fn topology(
        &mut self,
        e: &SegmentEntry,
        ie: &IndexEntry,
        field: &str,
        index: &SegmentIndex,
        deleted: &RoaringBitmap,
        st: &mut IdxState,
    ) {
        let (kind, entry, layers, section) = if let Some(g) = index.graph() {
            ("hnsw", g.entry, check_hnsw(&g, deleted), "HNSW base layer")
        } else if let Some(g) = index.vamana() {
            ("vamana", g.medoid, vec![check_vamana(&g, deleted)], "Vamana adjacency")
        } else {
            return;
        };
        let defects: u64 = layers.iter().map(|l| l.defects()).sum();
        if defects > 0 {
            let l: Vec<String> = layers
                .iter()
                .filter(|l| l.defects() > 0)
                .map(|l| {
                    format!(
                        "level {}: {} self loops, {} duplicate edges, {} out of range, {} over the degree bound, {} to nodes outside the level",
                        l.level, l.self_loops, l.duplicates, l.out_of_range, l.over_degree, l.foreign
                    )
                })
                .collect();
            self.f.push(Finding::new(Severity::Corrupt, &ie.file, section, format!("graph defects: {}", l.join("; "))));
            st.damage = IdxDamage::Broken;
        } else if let Some(base) = layers.first()
            && base.unreachable_live > 0
        {
            self.f.push(
                Finding::new(
                    Severity::Warning,
                    &ie.file,
                    section,
                    format!(
                        "{} live nodes are not reachable from the entry point {entry}; searches never return them (repair reconnects them)",
                        base.unreachable_live
                    ),
                )
                .expected(0, base.unreachable_live),
            );
            st.damage = IdxDamage::Unreachable(base.unreachable_ids.clone());
        }
        self.report.graphs.push(GraphReport {
            file: ie.file.clone(),
            segment: e.id,
            field: field.to_string(),
            kind: kind.into(),
            nodes: layers.first().map_or(0, |l| l.nodes),
            edges: layers.iter().map(|l| l.edges).sum(),
            entry,
            layers,
        });
    }

    /// Re-encodes the sketches of a sample of rows (all with `deep`) and compares with the
    /// stored ones. Returns true when they differ.
    fn sketches(&mut self, ie: &IndexEntry, index: &SegmentIndex, seg: &Segment) -> bool {
        let (Some(sketches), Some(rotation)) = (index.sketches(), index.rotation()) else { return false };
        let col = seg.vector(ie.field as usize);
        let (mut y, mut tmp) = (vec![0f32; col.dim], Vec::new());
        let mut want = vec![0u64; sketch::words_per_row(col.dim)];
        let rows = sketches.rows().min(seg.rows());
        let sample = self.compare_sample(&ie.file, "sketches", rows, |r| {
            rotation.apply(&col.row_f32(r), &mut y, &mut tmp);
            sketch::encode(&y, index.meta().metric, &mut want);
            sketches.row_words(r as u32) == want
        });
        sample.first_mismatch.is_some()
    }

    /// Re-encodes a sample of `rows` (all with `deep`) through `same`, which says whether
    /// row `r`'s stored encoding matches; reports a finding on `section` of `file` when
    /// some do not.
    fn compare_sample(
        &mut self,
        file: &str,
        section: &str,
        rows: usize,
        mut same: impl FnMut(usize) -> bool,
    ) -> Sample {
        let step = if self.opts.deep { 1 } else { (rows / self.opts.code_sample.max(1)).max(1) };
        let mut s = Sample { checked: 0, mismatched: 0, first_mismatch: None };
        for r in (0..rows).step_by(step) {
            s.checked += 1;
            if !same(r) {
                s.mismatched += 1;
                s.first_mismatch.get_or_insert(r as u64);
            }
        }
        if let Some(r) = s.first_mismatch {
            let (checked, mismatched) = (s.checked, s.mismatched);
            self.f.push(
                Finding::new(
                    Severity::Corrupt,
                    file,
                    section,
                    format!("stored {section} differ from the re-encoded originals (first at row {r})"),
                )
                .expected(format!("0 of {checked} rows"), format!("{mismatched} of {checked} rows")),
            );
        }
        s
    }

    /// Re-encodes a sample of rows (all with `deep`) and compares with the stored codes.
    /// Returns true when they differ.
    fn codes(&mut self, e: &SegmentEntry, ie: &IndexEntry, field: &str, index: &SegmentIndex, seg: &Segment) -> bool {
        let (Some(codes), Some(qz)) = (index.codes(), index.quantizer()) else { return false };
        let col = seg.vector(ie.field as usize);
        let rows = codes.rows().min(seg.rows());
        let cb = qz.code_bytes();
        let per = crate::index::quant::PARAMS_PER_ROW;
        let (mut buf, mut params, mut scratch) = (vec![0u8; cb], vec![0f32; per], Default::default());
        let Sample { checked, mismatched, first_mismatch: first } = self.compare_sample(&ie.file, "codes", rows, |r| {
            qz.encode(&col.row_f32(r), &mut buf, &mut params, &mut scratch);
            let same_codes = codes.codes.get(r * cb..(r + 1) * cb) == Some(&buf[..]);
            let same_params = codes
                .params
                .get(r * per..(r + 1) * per)
                .is_some_and(|p| p.iter().zip(&params).all(|(a, b)| a.to_bits() == b.to_bits()));
            same_codes && same_params
        });
        self.report.codes.push(CodesReport {
            file: ie.file.clone(),
            segment: e.id,
            field: field.to_string(),
            quantize: qz.kind().name().into(),
            rotated: qz.rotation().is_some(),
            rows: rows as u64,
            checked,
            mismatched,
            first_mismatch: first,
        });
        first.is_some()
    }

    /// Index search against exact search on stored vectors used as queries.
    fn recall(
        &mut self,
        e: &SegmentEntry,
        ie: &IndexEntry,
        field: &str,
        spec: &VectorSpec,
        index: &SegmentIndex,
        seg: &Segment,
    ) {
        let col = seg.vector(ie.field as usize);
        let rows = seg.rows();
        let k = self.opts.recall_k.max(1);
        let (ef, refine) = match &spec.index {
            IndexParams::Hnsw(p) => (p.ef as usize, spec.index.quant().refine as usize),
            IndexParams::Vamana(p) => (p.query_list as usize, spec.index.quant().refine as usize),
            IndexParams::Flat(_) => (k, spec.index.quant().refine as usize),
        };
        let kern = kernels::best();
        // Rows without a vector are never results; exact search skips them, so the index
        // search is restricted the same way.
        let valid: Option<RoaringBitmap> = (0..rows)
            .any(|r| !col.validity.is_valid(r))
            .then(|| (0..rows as u32).filter(|&r| col.validity.is_valid(r as usize)).collect());
        let step = (rows / self.opts.recall_queries.max(1)).max(1);
        let (mut queries, mut found, mut possible) = (0u64, 0u64, 0u64);
        for r in (0..rows).step_by(step).filter(|&r| col.validity.is_valid(r)).take(self.opts.recall_queries) {
            let raw = col.row_f32(r);
            let prepared = PreparedQuery::from_row(spec.metric, &col, r);
            let mut exact = TopK::new(k);
            flat::scan(kern, &col, rows, &prepared, None, 0, &mut exact);
            let mut approx = TopK::new(k);
            let p = SearchParams { k, ef: ef.max(k), refine, allowed: valid.as_ref(), position: 0 };
            index.search(col, &prepared, &raw, p, &mut approx);
            let truth: HashSet<u32> = exact.into_sorted().into_iter().map(|c| c.row).collect();
            found += approx.into_sorted().iter().filter(|c| truth.contains(&c.row)).count() as u64;
            possible += truth.len() as u64;
            queries += 1;
        }
        if queries == 0 {
            return;
        }
        let recall = found as f64 / possible.max(1) as f64;
        if recall < 0.8 {
            self.f.push(
                Finding::new(
                    Severity::Warning,
                    &ie.file,
                    "",
                    format!("recall@{k} of index search is low on {queries} sampled queries"),
                )
                .expected("at least 0.80", format!("{recall:.3}")),
            );
        }
        self.report.recall.push(RecallReport {
            file: ie.file.clone(),
            segment: e.id,
            field: field.to_string(),
            index: spec.index.describe(),
            queries,
            k: k as u64,
            recall,
        });
    }

    fn wal(&mut self, m: &Manifest, schema: &Schema) -> WalState {
        let name = wal_name(m.wal_seq);
        self.named.insert(name.clone());
        let path = self.dir.join(&name);
        // Read, not mapped: the live WAL grows, and a writer reopening it may truncate it.
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) => {
                let what = if e.kind() == std::io::ErrorKind::NotFound {
                    "missing: readers cannot open the collection (repair creates an empty WAL)".to_string()
                } else {
                    e.to_string()
                };
                self.f.push(Finding::new(Severity::Corrupt, &name, "", what).transient());
                return WalState { name, missing: true, header_ok: false, scan: WalScan::default() };
            }
        };
        self.file(&name, FileKind::Wal, bytes.len() as u64);
        if crate::storage::wal::is_empty_v1(&bytes) {
            let what = "version 1 WAL with no records; the next writable open replaces it";
            self.f.push(Finding::new(Severity::Info, &name, "header", what));
            let report =
                WalReport { file: name.clone(), bytes: bytes.len() as u64, records: 0, bad_frames: 0, torn: None };
            self.report.wal = Some(report);
            return WalState { name, missing: false, header_ok: true, scan: WalScan::default() };
        }
        let known = (m.wal_salt != 0).then_some((m.wal_seq, m.wal_salt));
        let scan = scan::scan_wal(&path, &bytes, known, schema, self.sum);
        let mut header_ok = true;
        let header = crate::storage::wal::decode_wal_header(&path, &bytes);
        if let Err(e) = &header {
            let (at, what) = describe(e);
            self.f.push(Finding::new(Severity::Corrupt, &name, "header", what).at(at.unwrap_or(0)));
            header_ok = false;
        } else if let Ok((_, salt)) = header
            && m.wal_salt != 0
            && salt != m.wal_salt
        {
            self.f.push(
                Finding::new(Severity::Corrupt, &name, "header", "WAL salt")
                    .at(crate::storage::HEADER_LEN as u64)
                    .expected(format!("{:#018x}", m.wal_salt), format!("{salt:#018x}")),
            );
            header_ok = false;
        } else if scan.seq != Some(m.wal_seq) {
            self.f.push(
                Finding::new(Severity::Corrupt, &name, "header", "WAL sequence")
                    .at(16)
                    .expected(m.wal_seq, scan.seq.unwrap_or(0)),
            );
            header_ok = false;
        }
        for b in &scan.bad {
            let found = match b.keys.as_slice() {
                [] => String::new(),
                [k] => format!("record for key {k:?} (unverified)"),
                keys => format!("records for keys {keys:?} (unverified)"),
            };
            let what = format!("{} ({} record frame(s) lost)", b.what, b.lost);
            self.f.push(Finding::new(Severity::Corrupt, &name, "frame", what).at(b.offset).expected("", found));
        }
        self.report.wal = Some(WalReport {
            file: name.clone(),
            bytes: bytes.len() as u64,
            records: scan.records.len() as u64,
            bad_frames: scan.bad.len() as u64,
            torn: scan.torn,
        });
        WalState { name, missing: false, header_ok, scan }
    }
}

/// What [`Checker::compare_sample`] found: rows checked, how many differ, the first.
struct Sample {
    checked: u64,
    mismatched: u64,
    first_mismatch: Option<u64>,
}

/// Files and bytes under `lost+found/`, if it exists.
pub(crate) fn lost_found_size(dir: &Path) -> Option<(u64, u64)> {
    let mut stack = vec![dir.to_path_buf()];
    let (mut files, mut bytes) = (0, 0);
    std::fs::metadata(dir).ok()?;
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            match e.metadata() {
                Ok(m) if m.is_dir() => stack.push(e.path()),
                Ok(m) => {
                    files += 1;
                    bytes += m.len();
                }
                Err(_) => {}
            }
        }
    }
    Some((files, bytes))
}
