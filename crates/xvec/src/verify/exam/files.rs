//! The per-file checks of one pass: open each file the manifest names, scan its container,
//! check segment and delete files against the manifest, and scan the live WAL.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

use roaring::RoaringBitmap;

use super::manifest::body_section;
use super::{DelState, SegState, WalState};
use crate::index::segment_index;
use crate::schema::Schema;
use crate::storage::container::RawSection;
use crate::storage::manifest::{Manifest, SealedWal, SegmentEntry};
use crate::storage::mmap::FileBytes;
use crate::storage::segment::layout::Layout;
use crate::storage::segment::{NO_FIELD, SectionKind, Segment, claimed_layout};
use crate::storage::{FileKind, deletes, wal_name};
use crate::verify::salvage::{self, FileFields, Salvage};
use crate::verify::scan::{self, ContainerScan, ScanContext, WalScan, describe};
use crate::verify::{FileReport, Finding, Report, Severity, VerifyOptions, WalReport};

/// Report name of a segment section: its kind, and its field when it has one.
pub(crate) fn segment_section_name(fields: &FileFields, s: &RawSection) -> String {
    let kind = SectionKind::from_code(s.kind).map_or_else(|| format!("section kind {}", s.kind), |k| k.name().into());
    match fields.position(s.field) {
        Some(pos) if s.field != NO_FIELD => format!("{kind} of `{}`", fields.schema.field(pos).name),
        _ => kind,
    }
}

pub(crate) fn index_section_name(s: &RawSection) -> String {
    segment_index::section_name(s.kind).map_or_else(|| format!("section kind {}", s.kind), String::from)
}

/// The per-file checks of one pass and what they accumulate.
pub(super) struct Checker<'a> {
    pub dir: &'a Path,
    pub opts: &'a VerifyOptions,
    pub f: &'a mut Vec<Finding>,
    pub files: &'a mut Vec<FileReport>,
    pub sum: &'a mut u64,
    pub named: &'a mut HashSet<String>,
    pub report: &'a mut Report,
}

impl Checker<'_> {
    pub(super) fn file(&mut self, name: &str, kind: FileKind, bytes: u64) {
        self.files.push(FileReport { name: name.into(), kind, bytes, ok: true });
    }

    /// Opens a named file, reporting it missing (or unreadable) and its size if wrong.
    pub(super) fn open(&mut self, name: &str, kind: FileKind, size: u64) -> Option<FileBytes> {
        self.named.insert(name.to_string());
        let path = self.dir.join(name);
        let opened = if self.opts.mmap {
            FileBytes::open(&path, true)
        } else {
            // Read in 64 KiB pieces; a piece that fails is read again page by page.
            FileBytes::read_tolerant(&path, 64 << 10).map(|(b, unreadable)| {
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
                let finding = if super::gone(&path, &e) {
                    Finding::new(Severity::Corrupt, name, "", "missing")
                } else {
                    Finding::new(Severity::Corrupt, name, "", describe(&e).1).unreadable()
                };
                self.f.push(finding.transient());
                None
            }
        }
    }

    pub(super) fn segment(&mut self, e: &SegmentEntry, schema: &Arc<Schema>, legacy: Option<&Layout>) -> SegState {
        let mut st = SegState {
            entry: e.clone(),
            bytes: None,
            scan: ContainerScan::default(),
            segment: None,
            missing: false,
            deletes: DelState::None,
            deletes_count_wrong: false,
            indexes: Vec::new(),
            fields: FileFields { schema: schema.clone(), by_id: true },
        };
        let path = self.dir.join(&e.file);
        match self.open(&e.file, FileKind::Segment, e.size) {
            None => st.missing = true,
            Some(bytes) => {
                let (layout, by_id) =
                    claimed_layout(&path, bytes.as_slice(), || legacy.cloned().unwrap_or_else(|| Layout::of(schema)));
                let stored = layout.schema_for(schema).map_or_else(|_| schema.clone(), Arc::new);
                st.fields = FileFields { schema: stored, by_id };
                let plan = layout.sections(by_id);
                let fields = st.fields.clone();
                let name_of = |_: usize, s: &RawSection| segment_section_name(&fields, s);
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
                        && t.iter().zip(&plan).all(|(s, p)| s.kind == p.kind as u16 && s.field == p.tag);
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
                    self.name_block_rows(&t, &st, bytes.as_slice(), e.rows as usize);
                }
                if st.scan.is_clean() {
                    match Segment::open_with(&path, schema.clone(), legacy, self.opts.mmap, false) {
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
        st.indexes.extend(self.undeclared_scalar_indexes(e, schema));
        st
    }

    /// Adds to each damaged-block finding of a segment the rows the block holds and their
    /// keys, when readable.
    fn name_block_rows(&mut self, table: &[RawSection], st: &SegState, b: &[u8], rows: usize) {
        let ranges = |i: usize| st.scan.bad_ranges(i);
        let b = st.scan.bytes(b);
        let readable = Salvage::read(&st.fields, table, &st.scan.bad, &ranges, b, rows);
        for bb in &st.scan.bad_blocks {
            let Some(hit) = salvage::block_rows(&st.fields, table, bb.section, bb.bytes.clone(), b, rows) else {
                continue;
            };
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

    /// Checks the live WAL; the report goes to `Report::wal`.
    pub(super) fn wal(&mut self, m: &Manifest, schema: &Schema) -> WalState {
        let sync = super::wal_sync::read(self.dir, m, self.f);
        let (mut state, report) = self.wal_file(m.wal_seq, m.wal_salt, None, schema);
        super::wal_sync::check(sync, &mut state, report.as_ref().map_or(0, |r| r.bytes), self.f);
        self.report.wal = report;
        state
    }

    /// Checks the sealed WAL of a flush in progress: like the live one, and it must hold
    /// every record the manifest sealed it with.
    pub(super) fn sealed_wal(&mut self, sealed: &SealedWal, schema: &Schema) -> WalState {
        let (mut state, report) = self.wal_file(sealed.seq, sealed.salt, Some(sealed.records), schema);
        if !state.missing && (state.scan.records.len() as u64) < sealed.records {
            let what = format!(
                "sealed WAL short of records: the frozen rows of a flush in progress ({} of {} records read)",
                state.scan.records.len(),
                sealed.records
            );
            let found = state.scan.records.len() as u64;
            self.f.push(Finding::new(Severity::Corrupt, &state.name, "frame", what).expected(sealed.records, found));
            state.short = true;
        }
        self.report.sealed_wal = report;
        state
    }

    fn wal_file(&mut self, seq: u64, salt: u64, sealed: Option<u64>, schema: &Schema) -> (WalState, Option<WalReport>) {
        let name = wal_name(seq);
        self.named.insert(name.clone());
        let path = self.dir.join(&name);
        // Read, not mapped: the live WAL grows, and a writer reopening it may truncate it.
        let bytes = match crate::storage::disk::read(&path) {
            Ok(b) => b,
            Err(e) => {
                let what = "missing: readers cannot open the collection (repair creates an empty WAL)";
                let finding = if super::gone(&path, &e) {
                    Finding::new(Severity::Corrupt, &name, "", what)
                } else {
                    Finding::new(Severity::Corrupt, &name, "", describe(&e).1).unreadable()
                };
                self.f.push(finding.transient());
                let state = WalState {
                    name,
                    missing: true,
                    header_ok: false,
                    short: false,
                    scan: WalScan::default(),
                    durable: None,
                    shortfall: None,
                };
                return (state, None);
            }
        };
        self.file(&name, FileKind::Wal, bytes.len() as u64);
        if crate::storage::wal::is_empty_v1(&bytes) {
            let what = "version 1 WAL with no records; the next writable open replaces it";
            self.f.push(Finding::new(Severity::Info, &name, "header", what));
            let report =
                WalReport { file: name.clone(), bytes: bytes.len() as u64, records: 0, bad_frames: 0, torn: None };
            let state = WalState {
                name,
                missing: false,
                header_ok: true,
                short: false,
                scan: WalScan::default(),
                durable: None,
                shortfall: None,
            };
            return (state, Some(report));
        }
        let known = (salt != 0).then_some((seq, salt));
        let scan = scan::scan_wal(&path, &bytes, known, schema, self.sum);
        let mut header_ok = true;
        let header = crate::storage::wal::decode_wal_header(&path, &bytes);
        if let Err(e) = &header {
            let (at, what) = describe(e);
            self.f.push(Finding::new(Severity::Corrupt, &name, "header", what).at(at.unwrap_or(0)));
            header_ok = false;
        } else if let Ok((_, found)) = header
            && salt != 0
            && found != salt
        {
            self.f.push(
                Finding::new(Severity::Corrupt, &name, "header", "WAL salt")
                    .at(crate::storage::HEADER_LEN as u64)
                    .expected(format!("{salt:#018x}"), format!("{found:#018x}")),
            );
            header_ok = false;
        } else if scan.seq != Some(seq) {
            self.f.push(
                Finding::new(Severity::Corrupt, &name, "header", "WAL sequence")
                    .at(16)
                    .expected(seq, scan.seq.unwrap_or(0)),
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
        let report = WalReport {
            file: name.clone(),
            bytes: bytes.len() as u64,
            records: scan.records.len() as u64,
            bad_frames: scan.bad.len() as u64,
            torn: scan.torn,
        };
        // Bytes after a sealed WAL's last record can only be its unsynced sync mark.
        let scan = if sealed.is_some() { WalScan { torn: None, ..scan } } else { scan };
        (WalState { name, missing: false, header_ok, short: false, scan, durable: None, shortfall: None }, Some(report))
    }
}
