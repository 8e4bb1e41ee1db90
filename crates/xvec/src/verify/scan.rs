//! Tolerant readers for verify and repair. The engine's readers stop at the first
//! problem, which is right for opening a collection; these read past problems so that a
//! report lists all of them, name the section each lies in, and tell repair which parts
//! of a file are still good.
//!
//! They rely only on what `docs/format.md` specifies (the common header, the container
//! table, WAL framing) and call the engine's own decoders for everything else.

use std::ops::Range;
use std::path::Path;

use super::crc;
use super::{Finding, Severity};
use crate::error::StorageError;
use crate::schema::Schema;
use crate::storage::container::{
    self, COUNT_AT, ENTRY_LEN, MAX_SECTIONS, RawSection, SECTION_ALIGN, TABLE_AT, TABLE_CRC_AT,
};
use crate::storage::mmap::as_bytes;
use crate::storage::wal::{self, Record};
use crate::storage::{FileKind, HEADER_LEN, decode_header, decode_header_version, read_u32};

/// Splits an engine error into the offset it names and its description without the path
/// (the finding names the file itself).
pub(crate) fn describe(e: &StorageError) -> (Option<u64>, String) {
    match e {
        StorageError::Corrupted { offset, what, .. } => (Some(*offset), what.clone()),
        StorageError::UnsupportedVersion { kind, found, supported, .. } => {
            (Some(8), format!("{kind} format version {found}; this build reads version {supported}"))
        }
        StorageError::Io { source, .. } => (None, source.to_string()),
        StorageError::NotRegular { what, .. } => (None, format!("a {what}, not a regular file")),
        other => (None, other.to_string()),
    }
}

/// Where the sections of a container file are, and which are damaged.
#[derive(Clone, Debug, Default)]
pub(crate) struct ContainerScan {
    /// Header id, when the header is valid.
    pub id: Option<u64>,
    /// The section table, when it could be read (checksum good or the damage explained).
    pub table: Option<Vec<RawSection>>,
    /// Sections whose bytes fail their checksum or lie outside the file, as a whole.
    pub bad: Vec<usize>,
    /// Damaged blocks of blocked sections, one run of consecutive blocks each; the rest
    /// of those sections verified.
    pub bad_blocks: Vec<BadBlocks>,
    /// Damage outside the sections (header, table, padding, trailing bytes).
    pub frame_damage: bool,
    /// The file's bytes with zeros in place of what a cut took, when the file is shorter
    /// than its sections need: salvage reads the sections at their full length, and the
    /// missing part lies in `bad` sections or `bad_blocks`.
    pub padded: Padded,
}

/// A copy of a short file, zero-filled to the length its sections need (empty when the
/// file is not short, or when the copy could not be allocated: then a cut section is
/// read as its stretch inside the file only, and salvage finds it too short).
#[derive(Clone, Default)]
pub(crate) struct Padded(Vec<u64>);

impl Padded {
    fn of(b: &[u8], needed: u64) -> Padded {
        let words = usize::try_from(needed.div_ceil(8)).unwrap_or(usize::MAX);
        let mut v: Vec<u64> = Vec::new();
        if v.try_reserve_exact(words).is_err() {
            return Padded::default();
        }
        // Little-endian words, so that their bytes in memory are the file's (the host is
        // little-endian: see `storage/mmap.rs`).
        v.extend(b.chunks(8).map(|c| {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(w)
        }));
        v.resize(words, 0);
        Padded(v)
    }
}

impl std::fmt::Debug for Padded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Padded({} bytes)", 8 * self.0.len())
    }
}

/// A run of consecutive damaged blocks in one section.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct BadBlocks {
    /// Position of the section in the table.
    pub section: usize,
    /// File bytes of the run.
    pub bytes: Range<u64>,
    /// Index of the finding that reports it (the caller adds what the bytes hold).
    pub finding: usize,
}

impl ContainerScan {
    /// Every section readable and verified, and nothing else wrong.
    pub(crate) fn is_clean(&self) -> bool {
        self.id.is_some()
            && self.table.is_some()
            && self.bad.is_empty()
            && self.bad_blocks.is_empty()
            && !self.frame_damage
    }

    /// Sections with any damage, whole or in blocks.
    pub(crate) fn damaged_sections(&self) -> Vec<usize> {
        let mut v: Vec<usize> = self.bad.iter().copied().chain(self.bad_blocks.iter().map(|b| b.section)).collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// The bytes to read sections from: the file's, or its zero-padded copy when it is
    /// shorter than its sections need.
    pub(crate) fn bytes<'a>(&'a self, file: &'a [u8]) -> &'a [u8] {
        if self.padded.0.is_empty() { file } else { as_bytes(&self.padded.0) }
    }

    /// File byte ranges of the damaged blocks of section `i`.
    pub(crate) fn bad_ranges(&self, i: usize) -> Vec<Range<u64>> {
        self.bad_blocks.iter().filter(|b| b.section == i).map(|b| b.bytes.clone()).collect()
    }
}

/// The table `region` parsed and its layout checked: entries valid for `version`, the
/// block table inside the file, sections in order, aligned, after the tables and inside
/// the file.
fn fitting_table(region: &[u8], table_end: u64, b: &[u8], version: u32, kind: FileKind) -> Option<Vec<RawSection>> {
    let (t, blocks_end) = container::parse_table(region, table_end);
    let file_len = b.len() as u64;
    let fits = blocks_end <= file_len
        && t.iter().all(|s| container::entry_problem(s, version, kind, file_len).is_none())
        && layout_fits(&t, blocks_end, file_len);
    fits.then_some(t)
}

/// Sections in order, aligned, after the tables and inside the file.
fn layout_fits(sections: &[RawSection], tables_end: u64, file_len: u64) -> bool {
    let mut at = tables_end;
    sections.iter().all(|s| {
        let ok = s.offset >= at
            && s.offset.is_multiple_of(SECTION_ALIGN)
            && s.offset.checked_add(s.len).is_some_and(|end| end <= file_len);
        at = s.offset.saturating_add(s.len);
        ok
    })
}

/// What a container scan needs besides the bytes.
pub(crate) struct ScanContext<'a> {
    pub file: &'a str,
    pub path: &'a Path,
    pub kind: FileKind,
    /// The section count the file must have, when the caller knows it: lets a damaged
    /// count be recognised.
    pub expected_count: Option<usize>,
    /// Name of section `i` for reports.
    pub name_of: &'a dyn Fn(usize, &RawSection) -> String,
    pub threads: usize,
}

/// Checks a container file's header, table, layout and every section checksum, pushing
/// a finding for each problem. `checksummed` counts the bytes hashed.
pub(crate) fn scan_container(
    cx: &ScanContext,
    b: &[u8],
    out: &mut Vec<Finding>,
    checksummed: &mut u64,
) -> ContainerScan {
    let mut s = Scanner { cx, b, out, checksummed, scan: ContainerScan::default() };
    let version = s.header();
    if let Some(table) = s.table(version) {
        s.sections(&table, version);
    }
    s.scan
}

/// One container scan under way: the bytes, where its findings go, and what it has found.
struct Scanner<'s, 'c> {
    cx: &'s ScanContext<'c>,
    b: &'s [u8],
    out: &'s mut Vec<Finding>,
    checksummed: &'s mut u64,
    scan: ContainerScan,
}

impl Scanner<'_, '_> {
    fn corrupt(&self, section: &str, what: String) -> Finding {
        Finding::new(Severity::Corrupt, self.cx.file, section, what)
    }

    /// Reports damage to the file's frame (header, tables, padding), which repair rewrites.
    fn frame(&mut self, finding: Finding) {
        self.out.push(finding);
        self.scan.frame_damage = true;
    }

    /// Reports section `i` as damaged as a whole.
    fn bad_section(&mut self, i: usize, finding: Finding) {
        self.out.push(finding);
        self.scan.bad.push(i);
    }

    /// The header: the file's id, and its version (the current one when the header is
    /// damaged, so the table is read as the current version does).
    fn header(&mut self) -> u32 {
        if self.b.len() >= HEADER_LEN {
            *self.checksummed += HEADER_LEN as u64;
        }
        match decode_header_version(self.cx.path, self.b, self.cx.kind) {
            Ok((id, v)) => {
                self.scan.id = Some(id);
                v
            }
            Err(e) => {
                let (at, what) = describe(&e);
                self.frame(self.corrupt("header", what).at(at.unwrap_or(0)));
                self.cx.kind.version()
            }
        }
    }

    /// The section table: as stored, or with its count as the caller expects, or with one
    /// damaged byte fixed, or trusted when its checksum field alone is damaged. `None`
    /// (reported) when no reading of it locates the sections.
    fn table(&mut self, version: u32) -> Option<Vec<RawSection>> {
        let b = self.b;
        if b.len() < TABLE_AT {
            let what = format!("file ends at byte {} before the section table", b.len());
            let expected = format!("at least {TABLE_AT} bytes");
            self.frame(self.corrupt("section table", what).at(b.len() as u64).expected(expected, b.len()));
            return None;
        }
        let stored_count = read_u32(b, COUNT_AT) as usize;
        let mut counts = vec![stored_count];
        if let Some(n) = self.cx.expected_count.filter(|&n| n != stored_count) {
            counts.push(n);
        }
        if let Some(table) = counts.into_iter().find_map(|count| self.table_of(count, stored_count, version)) {
            self.scan.table = Some(table.clone());
            return Some(table);
        }
        let what = if stored_count > MAX_SECTIONS {
            format!("{stored_count} sections, more than {MAX_SECTIONS}")
        } else if TABLE_AT + stored_count * ENTRY_LEN > b.len() {
            format!(
                "file ends inside the section table ({} bytes, the table needs {})",
                b.len(),
                TABLE_AT + stored_count * ENTRY_LEN
            )
        } else {
            "section table checksum mismatch; the sections cannot be located".into()
        };
        self.frame(self.corrupt("section table", what).at(COUNT_AT as u64));
        None
    }

    /// The table read as `count` entries, when it verifies so (see [`Scanner::table`]);
    /// what it took to read it (another count than `stored_count`, a fixed byte, a
    /// damaged checksum field) is reported.
    fn table_of(&mut self, count: usize, stored_count: usize, version: u32) -> Option<Vec<RawSection>> {
        let b = self.b;
        let stored_crc = read_u32(b, TABLE_CRC_AT);
        let table_end = count.checked_mul(ENTRY_LEN).map(|n| n + TABLE_AT)?;
        if count > MAX_SECTIONS || table_end > b.len() {
            return None;
        }
        let region = &b[TABLE_AT..table_end];
        *self.checksummed += region.len() as u64;
        let fitting = |region: &[u8]| fitting_table(region, table_end as u64, b, version, self.cx.kind);
        let (table, fix) = if crc32c::crc32c(region) == stored_crc {
            Some((container::parse_table(region, table_end as u64).0, None))
        } else {
            let fixed = crc::single_byte_fixes(region, stored_crc).into_iter().find_map(|(at, mask)| {
                let mut fixed = region.to_vec();
                fixed[at] ^= mask;
                fitting(&fixed).map(|t| (t, Some((at, mask))))
            });
            fixed.or_else(|| {
                // The table checksum field itself may be the damaged part: accept the
                // table when its layout fits and every section verifies against it.
                fitting(region).filter(|t| sections_verify(b, t)).map(|t| (t, None))
            })
        }?;
        if count != stored_count {
            let finding = self.corrupt("section table", "damaged section count".into());
            self.frame(finding.at(COUNT_AT as u64).expected(count, stored_count));
        }
        match fix {
            Some((at, mask)) => {
                let off = TABLE_AT + at;
                let finding = self.corrupt("section table", "one damaged byte (repair restores it)".into());
                let (expected, found) = (format!("{:#04x}", b[off] ^ mask), format!("{:#04x}", b[off]));
                self.frame(finding.at(off as u64).expected(expected, found));
            }
            None if crc32c::crc32c(region) != stored_crc => {
                let what = "table checksum field damaged; the table itself verifies".into();
                let expected = format!("{:#010x}", crc32c::crc32c(region));
                let finding = self.corrupt("section table", what).at(TABLE_CRC_AT as u64);
                self.frame(finding.expected(expected, format!("{stored_crc:#010x}")));
            }
            None => {}
        }
        Some(table)
    }

    /// Every section of `table`: where it lies, then its checksums; then what is missing
    /// at the end of the file, or left after the last section.
    fn sections(&mut self, table: &[RawSection], version: u32) {
        let len = self.b.len() as u64;
        let table_end = TABLE_AT + table.len() * ENTRY_LEN;
        let (_, blocks_end) = container::parse_table(&self.b[TABLE_AT..table_end], 0);
        let tables_end = table_end as u64 + blocks_end;
        // Block CRC lists are read only when the whole block table lies inside the file.
        let lists_readable = tables_end <= len;
        if !lists_readable {
            let finding = self.corrupt("block table", "block table runs past the end of the file".into());
            self.frame(finding.at(table_end as u64).expected(format!("at most {len} bytes"), tables_end));
        }
        let mut at = tables_end.min(len);
        // The end of the last section, when the file is shorter than that.
        let mut needed = len;
        for (i, s) in table.iter().enumerate() {
            let name = (self.cx.name_of)(i, s);
            let Some(end) = self.placed(i, s, &name, at, version) else { continue };
            let cut = end > len;
            if cut {
                needed = needed.max(end);
            }
            // A section cut short keeps its whole blocks when their checksums are readable.
            let partial = cut && s.offset < len && s.block != 0 && lists_readable;
            if cut && !partial {
                let what = if s.offset >= len {
                    format!("missing: the file ends at byte {len}, before the section")
                } else {
                    format!(
                        "cut short: the file ends at byte {len}, inside the section (one checksum: all of it is lost)"
                    )
                };
                let finding = self.corrupt(&name, what).at(s.offset.min(len));
                self.bad_section(i, finding.expected(format!("[{}, {end})", s.offset), len));
                continue;
            }
            self.aligned_after(s, &name, at);
            at = end.min(len);
            if partial {
                cut_section(self.cx, self.b, i, s, &name, self.out, &mut self.scan, self.checksummed);
            } else {
                self.checksums(i, s, &name, lists_readable);
            }
        }
        if needed > len {
            let what =
                format!("{} bytes missing: the file ends at byte {len}, its sections need {needed}", needed - len);
            let finding = self.corrupt("end of file", what).at(len);
            self.out.push(finding.expected(format!("{needed} bytes"), format!("{len} bytes")));
            self.scan.padded = Padded::of(self.b, needed);
        } else if at < len {
            self.frame(self.corrupt("trailing bytes", format!("{} bytes after the last section", len - at)).at(at));
        }
    }

    /// Where section `i` ends, when its entry is valid for `version` and it starts at or
    /// after `at` (the end of what precedes it); otherwise reported, and `None`.
    fn placed(&mut self, i: usize, s: &RawSection, name: &str, at: u64, version: u32) -> Option<u64> {
        if let Some(what) = container::block_problem(s, version, self.cx.kind) {
            self.frame(self.corrupt(name, what).at((TABLE_AT + i * ENTRY_LEN) as u64));
            self.scan.bad.push(i);
            return None;
        }
        let end = s.offset.checked_add(s.len).filter(|_| s.offset >= at);
        if end.is_none() {
            let len = self.b.len();
            let finding = self.corrupt(name, "overlaps the tables or an earlier section".into()).at(s.offset);
            self.bad_section(i, finding.expected(format!("[{at}, {len})"), format!("[{}, +{})", s.offset, s.len)));
        }
        end
    }

    /// Section `s` starts aligned, with only zeros between `at` and it.
    fn aligned_after(&mut self, s: &RawSection, name: &str, at: u64) {
        if !s.offset.is_multiple_of(SECTION_ALIGN) {
            self.frame(self.corrupt(name, format!("not {SECTION_ALIGN}-byte aligned")).at(s.offset));
        }
        if let Some(p) = self.b[at as usize..s.offset as usize].iter().position(|&x| x != 0) {
            self.frame(self.corrupt(name, "padding before the section is not zero".into()).at(at + p as u64));
        }
    }

    /// The checksums of section `i`, whole in the file: its one CRC, or its blocks' (each
    /// damaged block reported as such when the stored block CRCs are readable).
    fn checksums(&mut self, i: usize, s: &RawSection, name: &str, lists_readable: bool) {
        let (b, threads) = (self.b, self.cx.threads);
        let bytes = &b[s.range()];
        *self.checksummed += s.len;
        if s.block == 0 {
            let computed = crc::crc32c(bytes, threads);
            if computed != s.crc {
                let finding = self.corrupt(name, "checksum mismatch".into()).at(s.offset);
                self.bad_section(i, finding.expected(format!("{:#010x}", s.crc), format!("{computed:#010x}")));
            }
            return;
        }
        let stored = lists_readable.then(|| container::stored_crcs(b, s));
        *self.checksummed += 4 * s.block_count();
        let list_ok = stored.as_ref().is_some_and(|l| container::list_crc(l) == s.crc);
        // One pass over the whole section at the CRC's full speed; blocks are checked one
        // by one only when it disagrees with what the stored block CRCs add up to.
        if let Some(l) = stored.as_ref().filter(|_| list_ok)
            && crc::crc32c(bytes, threads) == container::combine_blocks(l, s.block as u64, s.len)
        {
            return;
        }
        let computed = crc::block_crcs(bytes, s.block as usize, threads);
        if container::list_crc(&computed) == s.crc {
            if !list_ok && lists_readable {
                let what = "block checksum list damaged; the section's bytes verify against its checksum";
                self.frame(self.corrupt(name, what.into()).at(s.blocks_at));
            }
            return;
        }
        let Some(stored) = stored else {
            let what = "checksum mismatch (its block checksums are unreadable)".into();
            self.bad_section(i, self.corrupt(name, what).at(s.offset));
            return;
        };
        if !list_ok {
            // Both the list and the data disagree with the entry: every block whose
            // stored CRC differs from its bytes' is taken as damaged.
            let what = "block checksum list damaged as well as the data".into();
            self.frame(self.corrupt(name, what).at(s.blocks_at));
        }
        damaged_blocks(self.cx.file, name, i, s, &computed, &stored, self.out, &mut self.scan);
    }
}

/// Whether every section of `sections` reproduces its entry's checksum from the bytes
/// `b` (for a blocked one: the checksum of the list of its blocks' CRCs, whatever the
/// stored list holds).
fn sections_verify(b: &[u8], sections: &[RawSection]) -> bool {
    sections.iter().all(|s| {
        let bytes = &b[s.range()];
        if s.block == 0 {
            crc32c::crc32c(bytes) == s.crc
        } else {
            container::list_crc(&container::block_crcs(bytes, s.block as usize)) == s.crc
        }
    })
}

/// Section `i`, which the end of the file cuts short: its whole blocks are checked
/// against their stored CRCs, and every block the cut reaches is one damaged run. When
/// the stored CRCs do not add up to the entry's checksum, the whole section is damaged.
#[allow(clippy::too_many_arguments)]
fn cut_section(
    cx: &ScanContext,
    b: &[u8],
    i: usize,
    s: &RawSection,
    name: &str,
    out: &mut Vec<Finding>,
    scan: &mut ContainerScan,
    checksummed: &mut u64,
) {
    let len = b.len() as u64;
    let n = s.block_count();
    let stored = container::stored_crcs(b, s);
    *checksummed += 4 * n;
    if container::list_crc(&stored) != s.crc {
        let what =
            format!("cut short: the file ends at byte {len}, inside the section, and its block checksums are damaged");
        out.push(Finding::new(Severity::Corrupt, cx.file, name, what).at(len));
        scan.bad.push(i);
        return;
    }
    // Blocks wholly inside the file; the block holding the cut is the first missing one.
    let whole = (0..n).take_while(|&j| s.block_range(j).end <= len).count() as u64;
    let cut_at = s.block_range(whole).start;
    let computed = crc::block_crcs(&b[s.offset as usize..cut_at as usize], s.block as usize, cx.threads);
    *checksummed += cut_at - s.offset;
    damaged_blocks(cx.file, name, i, s, &computed, &stored[..whole as usize], out, scan);
    let bytes = cut_at..s.offset + s.len;
    let blocks = if whole + 1 == n { format!("block {whole}") } else { format!("blocks {whole}..={}", n - 1) };
    scan.bad_blocks.push(BadBlocks { section: i, bytes: bytes.clone(), finding: out.len() });
    out.push(
        Finding::new(
            Severity::Corrupt,
            cx.file,
            name,
            format!(
                "cut short: the file ends at byte {len}, in block {whole} of {n}; {blocks} (bytes {}..{}) are missing",
                bytes.start, bytes.end
            ),
        )
        .at(bytes.start)
        .expected(format!("{} bytes", s.offset + s.len), format!("{len} bytes")),
    );
}

/// Pushes one damaged run (and its finding) for each stretch of consecutive blocks of
/// section `i` whose `computed` CRC differs from the `stored` one.
#[allow(clippy::too_many_arguments)]
fn damaged_blocks(
    file: &str,
    name: &str,
    i: usize,
    s: &RawSection,
    computed: &[u32],
    stored: &[u32],
    out: &mut Vec<Finding>,
    scan: &mut ContainerScan,
) {
    let (n, m) = (s.block_count(), computed.len().min(stored.len()));
    let mut j = 0;
    while j < m {
        if computed[j] == stored[j] {
            j += 1;
            continue;
        }
        let first = j;
        while j < m && computed[j] != stored[j] {
            j += 1;
        }
        let (a, z) = (first as u64, j as u64 - 1);
        let bytes = s.block_range(a).start..s.block_range(z).end;
        let blocks = if a == z { format!("block {a}") } else { format!("blocks {a}..={z}") };
        scan.bad_blocks.push(BadBlocks { section: i, bytes: bytes.clone(), finding: out.len() });
        out.push(
            Finding::new(
                Severity::Corrupt,
                file,
                name,
                format!("checksum mismatch in {blocks} of {n} (bytes {}..{})", bytes.start, bytes.end),
            )
            .at(bytes.start)
            .expected(format!("{:#010x}", stored[first]), format!("{:#010x}", computed[first])),
        );
    }
}

/// The name of the part of a container file holding `offset`.
pub(crate) fn section_at(
    table: Option<&[RawSection]>,
    offset: u64,
    name_of: &dyn Fn(usize, &RawSection) -> String,
) -> String {
    if offset < HEADER_LEN as u64 {
        return "header".into();
    }
    let Some(table) = table else { return "section table".into() };
    if offset < (TABLE_AT + table.len() * ENTRY_LEN) as u64 {
        return "section table".into();
    }
    table
        .iter()
        .enumerate()
        .find(|(_, s)| offset >= s.offset && offset < s.offset.saturating_add(s.len.max(1)))
        .map_or_else(|| "padding".into(), |(i, s)| name_of(i, s))
}

/// A damaged stretch of a WAL: frames that hold no usable record.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct BadFrame {
    pub offset: u64,
    pub what: String,
    /// Record frames it took (the gap in log sequence numbers).
    pub lost: u64,
    /// Keys the damaged records seem to name (unverified), for the loss report.
    pub keys: Vec<String>,
}

/// Every frame of a WAL file, read past damage.
#[derive(Clone, Debug, Default)]
pub(crate) struct WalScan {
    /// Header sequence, when the header is valid.
    pub seq: Option<u64>,
    /// Good records in log order, with the offset of their frame.
    pub records: Vec<(u64, Record)>,
    pub bad: Vec<BadFrame>,
    /// Offset and length of a torn tail.
    pub torn: Option<(u64, u64)>,
}

/// Reads every frame of a WAL file with the engine's own scanner. `known` is the sequence
/// and salt the manifest records (`None`: the file's header must say). Records are also
/// checked against `schema` the way replay checks them; a record replay would refuse is
/// a bad frame.
pub(crate) fn scan_wal(path: &Path, b: &[u8], known: Option<(u64, u64)>, schema: &Schema, out: &mut u64) -> WalScan {
    *out += b.len() as u64;
    let seq = decode_header(path, b, FileKind::Wal).ok();
    let s = match wal::scan(path, b, known, schema) {
        Ok(s) => s,
        Err(e) => {
            let (at, what) = describe(&e);
            let bad = BadFrame { offset: at.unwrap_or(0), what, lost: 0, keys: Vec::new() };
            return WalScan { seq, records: Vec::new(), bad: vec![bad], torn: None };
        }
    };
    let mut scan = WalScan { seq, records: Vec::with_capacity(s.records.len()), bad: Vec::new(), torn: s.torn };
    // A damaged header is the header's finding (see `Checker::wal`), not a frame's.
    for d in s.damage.into_iter().filter(|d| d.offset != 0) {
        scan.bad.push(BadFrame { offset: d.offset, what: d.what, lost: d.lost_records, keys: d.key_hints });
    }
    for f in s.records {
        match check_record(schema, &f.record) {
            Ok(()) => scan.records.push((f.offset, f.record)),
            Err(what) => {
                scan.bad.push(BadFrame { offset: f.offset, what, lost: 1, keys: vec![f.record.key().to_string()] })
            }
        }
    }
    scan.bad.sort_by_key(|b| b.offset);
    scan
}

/// Checks a record the way replay does.
fn check_record(schema: &Schema, r: &Record) -> Result<(), String> {
    let Record::Put(row) = r else { return Ok(()) };
    if row.values.len() != schema.fields().len() {
        return Err(format!(
            "record for key {:?}: {} values, the schema has {} fields",
            row.key,
            row.values.len(),
            schema.fields().len()
        ));
    }
    for (i, v) in row.values.iter().enumerate() {
        crate::value::check_value(schema, i, &row.key, v).map_err(|e| format!("record for key {:?}: {e}", row.key))?;
    }
    Ok(())
}
