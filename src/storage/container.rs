//! The sectioned container shared by segment and index files: the common header, a
//! section table, then sections at 64-byte aligned offsets, each with its own CRC32C.
//!
//! Layout: header (32 bytes) | `section_count u32` | `table_crc u32` | table of 32-byte
//! entries (`kind u16, field u16, reserved u32, offset u64, len u64, crc u32, reserved
//! u32`) | sections, zero padding between them, nothing after the last one. What the
//! sections mean is up to the file kind that uses the container.

use std::io::{BufWriter, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use super::disk::DiskFile;
use super::{FileKind, HEADER_LEN, decode_header, encode_header, read_u32, read_u64};
use crate::error::StorageError;

pub const COUNT_AT: usize = HEADER_LEN;
pub const TABLE_CRC_AT: usize = COUNT_AT + 4;
pub const TABLE_AT: usize = TABLE_CRC_AT + 4;
pub const ENTRY_LEN: usize = 32;
/// Alignment of every section, so vectors and codes can be read in place by SIMD code.
pub const SECTION_ALIGN: u64 = 64;
/// Bound on the section count; a larger claim is corruption, not an allocation.
pub const MAX_SECTIONS: usize = 1 << 16;

/// One entry of the section table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawSection {
    pub kind: u16,
    pub field: u16,
    pub offset: u64,
    pub len: u64,
    pub crc: u32,
}

impl RawSection {
    pub fn range(&self) -> Range<usize> {
        self.offset as usize..(self.offset + self.len) as usize
    }
}

/// Writes a container: sections in order, then the table, then fsync.
pub struct ContainerWriter {
    path: PathBuf,
    out: BufWriter<DiskFile>,
    pos: u64,
    kind: FileKind,
    id: u64,
    table: Vec<RawSection>,
    count: usize,
}

/// Receives one section's bytes, keeping its CRC and length.
pub struct SectionSink<'a> {
    out: &'a mut BufWriter<DiskFile>,
    crc: u32,
    len: u64,
}

impl SectionSink<'_> {
    pub fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.crc = crc32c::crc32c_append(self.crc, bytes);
        self.len += bytes.len() as u64;
        self.out.write_all(bytes)
    }
}

impl ContainerWriter {
    /// Starts a file that will hold exactly `count` sections.
    pub fn create(path: &Path, kind: FileKind, id: u64, count: usize) -> Result<ContainerWriter, StorageError> {
        let file = DiskFile::create(path)?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        let head = TABLE_AT + count * ENTRY_LEN;
        out.write_all(&vec![0u8; head]).map_err(|e| StorageError::io(path, e))?;
        Ok(ContainerWriter {
            path: path.to_path_buf(),
            out,
            pos: head as u64,
            kind,
            id,
            table: Vec::with_capacity(count),
            count,
        })
    }

    /// Writes one section through `fill`.
    pub fn section(
        &mut self,
        kind: u16,
        field: u16,
        fill: impl FnOnce(&mut SectionSink) -> std::io::Result<()>,
    ) -> Result<(), StorageError> {
        let io = |e| StorageError::io(&self.path, e);
        let pad = self.pos.next_multiple_of(SECTION_ALIGN) - self.pos;
        self.out.write_all(&[0u8; SECTION_ALIGN as usize][..pad as usize]).map_err(io)?;
        self.pos += pad;
        let mut sink = SectionSink { out: &mut self.out, crc: 0, len: 0 };
        fill(&mut sink).map_err(|e| StorageError::io(&self.path, e))?;
        let (crc, len) = (sink.crc, sink.len);
        self.table.push(RawSection { kind, field, offset: self.pos, len, crc });
        self.pos += len;
        Ok(())
    }

    /// Writes the header and table and makes the file durable; returns its size.
    pub fn finish(self) -> Result<u64, StorageError> {
        assert_eq!(self.table.len(), self.count, "container section count declared up front");
        let mut file = self.out.into_inner().map_err(|e| StorageError::io(&self.path, e.into_error()))?;
        let mut head = Vec::with_capacity(TABLE_AT + self.table.len() * ENTRY_LEN);
        head.extend_from_slice(&encode_header(self.kind, self.id));
        head.extend_from_slice(&(self.table.len() as u32).to_le_bytes());
        head.extend_from_slice(&[0u8; 4]);
        for s in &self.table {
            head.extend_from_slice(&s.kind.to_le_bytes());
            head.extend_from_slice(&s.field.to_le_bytes());
            head.extend_from_slice(&[0u8; 4]);
            head.extend_from_slice(&s.offset.to_le_bytes());
            head.extend_from_slice(&s.len.to_le_bytes());
            head.extend_from_slice(&s.crc.to_le_bytes());
            head.extend_from_slice(&[0u8; 4]);
        }
        let crc = crc32c::crc32c(&head[TABLE_AT..]);
        head[TABLE_CRC_AT..TABLE_AT].copy_from_slice(&crc.to_le_bytes());
        file.seek(0)?;
        file.write_all(&head)?;
        file.sync_all()?;
        Ok(self.pos)
    }
}

/// Reads and checks a container's header and table: bounds, alignment, zero padding and
/// no trailing bytes. Section CRCs are checked for the kinds `check_crc` accepts.
/// Returns the header id and the table.
pub fn read(
    path: &Path,
    b: &[u8],
    kind: FileKind,
    check_crc: impl Fn(u16) -> bool,
) -> Result<(u64, Vec<RawSection>), StorageError> {
    read_with(path, b, kind, check_crc, |r| Ok(crc32c::crc32c(&b[r])))
}

/// [`read`], with section CRCs computed by `crc_of` (see [`FileBytes::crc32c`]).
///
/// [`FileBytes::crc32c`]: super::mmap::FileBytes::crc32c
pub fn read_with(
    path: &Path,
    b: &[u8],
    kind: FileKind,
    check_crc: impl Fn(u16) -> bool,
    crc_of: impl Fn(Range<usize>) -> std::io::Result<u32>,
) -> Result<(u64, Vec<RawSection>), StorageError> {
    let id = decode_header(path, b, kind)?;
    let bad = |offset: usize, what: String| StorageError::corrupted(path, offset as u64, what);
    if b.len() < TABLE_AT {
        return Err(bad(b.len(), format!("file ends before the section table at {TABLE_AT}")));
    }
    let count = read_u32(b, COUNT_AT) as usize;
    if count > MAX_SECTIONS {
        return Err(bad(COUNT_AT, format!("{count} sections, more than {MAX_SECTIONS}")));
    }
    let table_end = TABLE_AT + count * ENTRY_LEN;
    if b.len() < table_end {
        return Err(bad(b.len(), format!("file ends inside the section table (needs {table_end} bytes)")));
    }
    if crc32c::crc32c(&b[TABLE_AT..table_end]) != read_u32(b, TABLE_CRC_AT) {
        return Err(bad(TABLE_CRC_AT, "section table checksum mismatch".into()));
    }
    let mut sections = Vec::with_capacity(count);
    let mut at = table_end;
    for i in 0..count {
        let e = TABLE_AT + i * ENTRY_LEN;
        let s = RawSection {
            kind: u16::from_le_bytes([b[e], b[e + 1]]),
            field: u16::from_le_bytes([b[e + 2], b[e + 3]]),
            offset: read_u64(b, e + 8),
            len: read_u64(b, e + 16),
            crc: read_u32(b, e + 24),
        };
        let end = s.offset.checked_add(s.len).filter(|&end| end <= b.len() as u64);
        if end.is_none() || s.offset < at as u64 {
            return Err(bad(
                e,
                format!(
                    "section {i} [{}, +{}) overlaps another or lies outside the file of {} bytes",
                    s.offset,
                    s.len,
                    b.len()
                ),
            ));
        }
        if !s.offset.is_multiple_of(SECTION_ALIGN) {
            return Err(bad(e, format!("section {i} offset {} is not {SECTION_ALIGN}-byte aligned", s.offset)));
        }
        if let Some(p) = b[at..s.offset as usize].iter().position(|&x| x != 0) {
            return Err(bad(at + p, format!("padding before section {i} is not zero")));
        }
        if check_crc(s.kind) && crc_of(s.range()).map_err(|e| StorageError::io(path, e))? != s.crc {
            return Err(bad(s.offset as usize, format!("section {i} (kind {}) checksum mismatch", s.kind)));
        }
        at = (s.offset + s.len) as usize;
        sections.push(s);
    }
    if at != b.len() {
        return Err(bad(at, format!("{} bytes after the last section", b.len() - at)));
    }
    Ok((id, sections))
}

/// Checks the CRC of every section.
pub fn verify_all(path: &Path, b: &[u8], sections: &[RawSection]) -> Result<(), StorageError> {
    for (i, s) in sections.iter().enumerate() {
        if crc32c::crc32c(&b[s.range()]) != s.crc {
            return Err(StorageError::corrupted(
                path,
                s.offset,
                format!("section {i} (kind {}) checksum mismatch", s.kind),
            ));
        }
    }
    Ok(())
}
