//! Tolerant readers for verify and repair. The engine's readers stop at the first
//! problem, which is right for opening a collection; these read past problems so that a
//! report lists all of them, name the section each lies in, and tell repair which parts
//! of a file are still good.
//!
//! They rely only on what `docs/format.md` specifies (the common header, the container
//! table, WAL framing) and call the engine's own decoders for everything else.

use std::path::Path;

use super::crc;
use super::{Finding, Severity};
use crate::error::StorageError;
use crate::schema::Schema;
use crate::storage::container::{COUNT_AT, ENTRY_LEN, MAX_SECTIONS, RawSection, SECTION_ALIGN, TABLE_AT, TABLE_CRC_AT};
use crate::storage::wal::{self, Record};
use crate::storage::{FileKind, HEADER_LEN, decode_header, read_u32, read_u64};

/// Splits an engine error into the offset it names and its description without the path
/// (the finding names the file itself).
pub(crate) fn describe(e: &StorageError) -> (Option<u64>, String) {
    match e {
        StorageError::Corrupted { offset, what, .. } => (Some(*offset), what.clone()),
        StorageError::UnsupportedVersion { kind, found, supported, .. } => {
            (Some(8), format!("{kind} format version {found}; this build reads version {supported}"))
        }
        StorageError::Io { source, .. } => (None, source.to_string()),
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
    /// Sections whose bytes fail their checksum or lie outside the file.
    pub bad: Vec<usize>,
    /// Damage outside the sections (header, table, padding, trailing bytes).
    pub frame_damage: bool,
}

impl ContainerScan {
    /// Every section readable and verified, and nothing else wrong.
    pub fn is_clean(&self) -> bool {
        self.id.is_some() && self.table.is_some() && self.bad.is_empty() && !self.frame_damage
    }
}

fn parse_table(region: &[u8]) -> Vec<RawSection> {
    region
        .chunks_exact(ENTRY_LEN)
        .map(|e| RawSection {
            kind: u16::from_le_bytes([e[0], e[1]]),
            field: u16::from_le_bytes([e[2], e[3]]),
            offset: read_u64(e, 8),
            len: read_u64(e, 16),
            crc: read_u32(e, 24),
        })
        .collect()
}

/// Sections in order, aligned, after the table and inside the file.
fn layout_fits(sections: &[RawSection], table_end: u64, file_len: u64) -> bool {
    let mut at = table_end;
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
    let corrupt = |section: &str, what: String| Finding::new(Severity::Corrupt, cx.file, section, what);
    let mut scan = ContainerScan::default();
    if b.len() >= HEADER_LEN {
        *checksummed += HEADER_LEN as u64;
    }
    match decode_header(cx.path, b, cx.kind) {
        Ok(id) => scan.id = Some(id),
        Err(e) => {
            let (at, what) = describe(&e);
            out.push(corrupt("header", what).at(at.unwrap_or(0)));
            scan.frame_damage = true;
        }
    }
    if b.len() < TABLE_AT {
        out.push(
            corrupt("section table", format!("file ends at byte {} before the section table", b.len()))
                .at(b.len() as u64)
                .expected(format!("at least {TABLE_AT} bytes"), b.len()),
        );
        scan.frame_damage = true;
        return scan;
    }
    let stored_count = read_u32(b, COUNT_AT) as usize;
    let stored_crc = read_u32(b, TABLE_CRC_AT);
    let mut counts = vec![stored_count];
    if let Some(n) = cx.expected_count.filter(|&n| n != stored_count) {
        counts.push(n);
    }
    let verify_sections = |sections: &[RawSection]| sections.iter().all(|s| crc32c::crc32c(&b[s.range()]) == s.crc);
    for count in counts {
        let Some(table_end) = count.checked_mul(ENTRY_LEN).map(|n| n + TABLE_AT) else { continue };
        if count > MAX_SECTIONS || table_end > b.len() {
            continue;
        }
        let region = &b[TABLE_AT..table_end];
        *checksummed += region.len() as u64;
        let found = if crc32c::crc32c(region) == stored_crc {
            Some((parse_table(region), None))
        } else {
            let fixed = crc::single_byte_fixes(region, stored_crc).into_iter().find_map(|(at, mask)| {
                let mut fixed = region.to_vec();
                fixed[at] ^= mask;
                let t = parse_table(&fixed);
                layout_fits(&t, table_end as u64, b.len() as u64).then_some((t, Some((at, mask))))
            });
            fixed.or_else(|| {
                // The table checksum field itself may be the damaged part: accept the
                // table when its layout fits and every section verifies against it.
                let t = parse_table(region);
                (layout_fits(&t, table_end as u64, b.len() as u64) && verify_sections(&t)).then_some((t, None))
            })
        };
        let Some((table, fix)) = found else { continue };
        if count != stored_count {
            out.push(
                corrupt("section table", "damaged section count".into())
                    .at(COUNT_AT as u64)
                    .expected(count, stored_count),
            );
            scan.frame_damage = true;
        }
        match fix {
            Some((at, mask)) => {
                let off = TABLE_AT + at;
                out.push(
                    corrupt("section table", "one damaged byte (repair restores it)".into())
                        .at(off as u64)
                        .expected(format!("{:#04x}", b[off] ^ mask), format!("{:#04x}", b[off])),
                );
                scan.frame_damage = true;
            }
            None if crc32c::crc32c(region) != stored_crc => {
                out.push(
                    corrupt("section table", "table checksum field damaged; the table itself verifies".into())
                        .at(TABLE_CRC_AT as u64)
                        .expected(format!("{:#010x}", crc32c::crc32c(region)), format!("{stored_crc:#010x}")),
                );
                scan.frame_damage = true;
            }
            None => {}
        }
        scan.table = Some(table);
        break;
    }
    let Some(table) = scan.table.clone() else {
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
        out.push(corrupt("section table", what).at(COUNT_AT as u64));
        scan.frame_damage = true;
        return scan;
    };
    let mut at = (TABLE_AT + table.len() * ENTRY_LEN) as u64;
    let len = b.len() as u64;
    for (i, s) in table.iter().enumerate() {
        let name = (cx.name_of)(i, s);
        let end = s.offset.checked_add(s.len);
        if s.offset < at || end.is_none_or(|e| e > len) {
            let what = if end.is_some_and(|e| e > len) && s.offset >= at {
                format!("lies outside the file of {len} bytes (truncated)")
            } else {
                "overlaps the table or an earlier section".into()
            };
            out.push(
                corrupt(&name, what)
                    .at(s.offset)
                    .expected(format!("[{at}, {len})"), format!("[{}, +{})", s.offset, s.len)),
            );
            scan.bad.push(i);
            continue;
        }
        if !s.offset.is_multiple_of(SECTION_ALIGN) {
            out.push(corrupt(&name, format!("not {SECTION_ALIGN}-byte aligned")).at(s.offset));
            scan.frame_damage = true;
        }
        if let Some(p) = b[at as usize..s.offset as usize].iter().position(|&x| x != 0) {
            out.push(corrupt(&name, "padding before the section is not zero".into()).at(at + p as u64));
            scan.frame_damage = true;
        }
        let bytes = &b[s.range()];
        *checksummed += s.len;
        let computed = crc::crc32c(bytes, cx.threads);
        if computed != s.crc {
            out.push(
                corrupt(&name, "checksum mismatch".into())
                    .at(s.offset)
                    .expected(format!("{:#010x}", s.crc), format!("{computed:#010x}")),
            );
            scan.bad.push(i);
        }
        at = s.offset + s.len;
    }
    if at < len {
        out.push(corrupt("trailing bytes", format!("{} bytes after the last section", len - at)).at(at));
        scan.frame_damage = true;
    }
    scan
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
        scan.bad.push(BadFrame { offset: d.offset, what: d.what, lost: d.lost.end - d.lost.start, keys: d.key_hints });
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
