//! The sectioned container shared by segment and index files: the common header, a
//! section table, a block checksum table, then sections at 64-byte aligned offsets.
//!
//! Layout: header (32 bytes) | `section_count u32` | `table_crc u32` | table of 32-byte
//! entries (`kind u16, field u16, block u32, offset u64, len u64, crc u32, reserved
//! u32`) | block table (the CRC32C of each `block`-byte block of every section whose
//! `block` is not 0, sections in table order, `u32` each) | sections, zero padding
//! between them, nothing after the last one. A section with `block` 0 has one CRC32C
//! over its bytes in `crc`; a blocked section's `crc` is the CRC32C of its list of block
//! CRCs, so damage to one block is pinned to that block. What the sections mean is up
//! to the file kind that uses the container.

use std::io::{BufWriter, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use super::disk::DiskFile;
use super::{FileKind, HEADER_LEN, decode_header_version, encode_header, read_u32, read_u64};
use crate::error::StorageError;

pub(crate) const COUNT_AT: usize = HEADER_LEN;
pub(crate) const TABLE_CRC_AT: usize = COUNT_AT + 4;
pub(crate) const TABLE_AT: usize = TABLE_CRC_AT + 4;
pub(crate) const ENTRY_LEN: usize = 32;
/// Alignment of every section, so vectors and codes can be read in place by SIMD code.
pub(crate) const SECTION_ALIGN: u64 = 64;
/// Bound on the section count; a larger claim is corruption, not an allocation.
pub(crate) const MAX_SECTIONS: usize = 1 << 16;
/// Block length the writer uses for every section longer than one block: what one
/// flipped byte or one unreadable page costs. 4 KiB, the page size: 4 bytes of table per
/// 4 KiB of data (0.1%), still long enough that checksumming runs at the hardware CRC's
/// full speed, and small enough that a damaged block costs few rows even of the narrow
/// columns: 2.7 rows of 384-d fp32 vectors, about 400 keys of 10 bytes, 512 int64
/// values. (Writers before 2026-12 used 64 KiB, so one block of a 30-byte string column
/// held some 2,000 rows, and a section of up to 64 KiB, such as the keys of a few
/// thousand rows, had one checksum and was lost whole. Readers take the length from
/// each entry, so files of either length read alike; the layout version is unchanged.)
pub(crate) const BLOCK_LEN: u32 = 4 << 10;
/// Smallest and largest block lengths a reader accepts (powers of two).
pub(crate) const MIN_BLOCK: u32 = 4 << 10;
pub(crate) const MAX_BLOCK: u32 = 1 << 30;
/// First container version (per file kind) with block checksums; older files have
/// `block` 0 (reserved) in every entry and no block table.
pub(crate) const fn blocks_since(kind: FileKind) -> u32 {
    match kind {
        FileKind::Segment | FileKind::Index => 2,
        _ => u32::MAX,
    }
}

/// One entry of the section table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RawSection {
    pub kind: u16,
    pub field: u16,
    pub offset: u64,
    pub len: u64,
    /// CRC32C of the bytes (`block` 0) or of the block CRC list (`block` > 0).
    pub crc: u32,
    /// Block length, 0 when the section has a single checksum.
    pub block: u32,
    /// File offset of this section's block CRC list in the block table.
    pub blocks_at: u64,
}

impl RawSection {
    pub(crate) fn range(&self) -> Range<usize> {
        self.offset as usize..(self.offset + self.len) as usize
    }

    /// [`RawSection::range`] when the section is `len` bytes long; else an error at its
    /// offset in `path` naming it (`name`) and both lengths.
    pub(crate) fn sized(&self, path: &Path, name: &str, len: u128) -> Result<Range<usize>, StorageError> {
        if self.len as u128 != len {
            let what = format!("{name} section of {} bytes, expected {len}", self.len);
            return Err(StorageError::corrupted(path, self.offset, what));
        }
        Ok(self.range())
    }

    /// Blocks of the section (0 when it has a single checksum).
    pub(crate) fn block_count(&self) -> u64 {
        if self.block == 0 || !valid_block(self.block) { 0 } else { self.len.div_ceil(self.block as u64) }
    }

    /// File bytes of block `j`.
    pub(crate) fn block_range(&self, j: u64) -> Range<u64> {
        let start = self.offset + j * self.block as u64;
        start..(start + self.block as u64).min(self.offset + self.len)
    }

    /// File bytes of this section's block CRC list.
    pub(crate) fn list_range(&self) -> Range<usize> {
        self.blocks_at as usize..(self.blocks_at + 4 * self.block_count()) as usize
    }
}

/// Whether `block` is a block length this build reads.
pub(crate) fn valid_block(block: u32) -> bool {
    block == 0 || (block.is_power_of_two() && (MIN_BLOCK..=MAX_BLOCK).contains(&block))
}

/// CRC32C of each `block`-byte block of `bytes` (the last may be shorter).
pub(crate) fn block_crcs(bytes: &[u8], block: usize) -> Vec<u32> {
    bytes.chunks(block.max(1)).map(crc32c::crc32c).collect()
}

/// CRC32C of a whole section from the CRCs of its `block`-byte blocks (the last one
/// shorter when `len` says so): what its bytes hash to when every block matches. Lets a
/// reader checksum a section in one pass at the CRC's full speed and look at blocks only
/// when the whole disagrees. CRC32C is linear: appending `block` bytes multiplies the
/// register by a fixed 32×32 bit matrix, applied here with four byte tables.
pub(crate) fn combine_blocks(crcs: &[u32], block: u64, len: u64) -> u32 {
    let Some((&first, rest)) = crcs.split_first() else { return 0 };
    // The tables of the writer's block length are built once per process.
    static WRITER: std::sync::OnceLock<ShiftTables> = std::sync::OnceLock::new();
    let other;
    let tables = if block == BLOCK_LEN as u64 {
        WRITER.get_or_init(|| shift_tables(block))
    } else {
        other = shift_tables(block);
        &other
    };
    let shift = |x: u32| {
        tables[0][(x & 0xFF) as usize]
            ^ tables[1][(x >> 8 & 0xFF) as usize]
            ^ tables[2][(x >> 16 & 0xFF) as usize]
            ^ tables[3][(x >> 24) as usize]
    };
    let last = len.saturating_sub(block * rest.len() as u64);
    let mut acc = first;
    for (i, &c) in rest.iter().enumerate() {
        acc = if i + 1 < rest.len() || last == block {
            shift(acc) ^ c
        } else {
            crc32c::crc32c_combine(acc, c, last as usize)
        };
    }
    acc
}

/// The matrix that appending `block` bytes applies to a CRC register, as four byte tables.
type ShiftTables = [[u32; 256]; 4];

fn shift_tables(block: u64) -> ShiftTables {
    // Column `i`: what appending `block` bytes with CRC 0 makes of bit `i`.
    let column = |i: u32| crc32c::crc32c_combine(1 << i, 0, block as usize);
    let mut tables = [[0u32; 256]; 4];
    for (k, t) in tables.iter_mut().enumerate() {
        let cols: [u32; 8] = std::array::from_fn(|j| column(8 * k as u32 + j as u32));
        for (b, e) in t.iter_mut().enumerate() {
            *e = (0..8).filter(|j| b >> j & 1 == 1).fold(0, |x, j| x ^ cols[j]);
        }
    }
    tables
}

/// CRC32C of a list of block CRCs, as stored little-endian.
pub(crate) fn list_crc(crcs: &[u32]) -> u32 {
    crcs.iter().fold(0, |c, x| crc32c::crc32c_append(c, &x.to_le_bytes()))
}

/// The stored block CRCs of `s` (its list must lie inside `b`).
pub(crate) fn stored_crcs(b: &[u8], s: &RawSection) -> Vec<u32> {
    b[s.list_range()].chunks_exact(4).map(|c| read_u32(c, 0)).collect()
}

/// Parses the section table `region` (entries only) of a file whose table ends at
/// `table_end`, placing each blocked section's CRC list in the block table that follows.
/// Returns the entries and the end of the block table (saturating: the caller checks it
/// against the file length before using any list).
pub(crate) fn parse_table(region: &[u8], table_end: u64) -> (Vec<RawSection>, u64) {
    let mut at = table_end;
    let sections = region
        .chunks_exact(ENTRY_LEN)
        .map(|e| {
            let s = RawSection {
                kind: u16::from_le_bytes([e[0], e[1]]),
                field: u16::from_le_bytes([e[2], e[3]]),
                block: read_u32(e, 4),
                offset: read_u64(e, 8),
                len: read_u64(e, 16),
                crc: read_u32(e, 24),
                blocks_at: at,
            };
            at = at.saturating_add(s.block_count().saturating_mul(4));
            s
        })
        .collect();
    (sections, at)
}

/// What is wrong with the block length of entry `s` in a file of `version`, if anything.
pub(crate) fn block_problem(s: &RawSection, version: u32, kind: FileKind) -> Option<String> {
    if s.block != 0 && version < blocks_since(kind) {
        return Some(format!("block length {} in a version {version} file, which has no block checksums", s.block));
    }
    if !valid_block(s.block) {
        return Some(format!("block length {} is not 0 or a power of two in {MIN_BLOCK}..={MAX_BLOCK}", s.block));
    }
    None
}

/// The first thing wrong with entry `s` itself (block length, bounds), if anything.
pub(crate) fn entry_problem(s: &RawSection, version: u32, kind: FileKind, file_len: u64) -> Option<String> {
    if let Some(what) = block_problem(s, version, kind) {
        return Some(what);
    }
    if s.offset.checked_add(s.len).is_none_or(|end| end > file_len) {
        return Some(format!("[{}, +{}) lies outside the file of {file_len} bytes", s.offset, s.len));
    }
    None
}

/// Writes a container: sections in order, then the tables, then fsync.
pub(crate) struct ContainerWriter {
    path: PathBuf,
    out: BufWriter<DiskFile>,
    pos: u64,
    kind: FileKind,
    id: u64,
    /// Declared section lengths, in order.
    lens: Vec<u64>,
    table: Vec<RawSection>,
    /// Block CRCs of the blocked sections written so far, in order.
    blocks: Vec<u32>,
}

/// The block length the writer gives a section of `len` bytes.
pub(crate) fn block_for(len: u64) -> u32 {
    if len > BLOCK_LEN as u64 { BLOCK_LEN } else { 0 }
}

/// Receives one section's bytes, keeping its CRC (or its block CRCs) and length.
pub(crate) struct SectionSink<'a> {
    out: &'a mut BufWriter<DiskFile>,
    /// The file offset of the section's first byte.
    at: u64,
    block: u64,
    /// CRC of the whole section (unblocked) or of the current block.
    crc: u32,
    len: u64,
    blocks: &'a mut Vec<u32>,
}

impl SectionSink<'_> {
    /// Where the section starts in the file (a section aligning its own content, such as
    /// page-aligned node blocks, pads by it).
    pub(crate) fn offset(&self) -> u64 {
        self.at
    }

    pub(crate) fn put(&mut self, mut bytes: &[u8]) -> std::io::Result<()> {
        self.out.write_all(bytes)?;
        if self.block == 0 {
            self.crc = crc32c::crc32c_append(self.crc, bytes);
            self.len += bytes.len() as u64;
            return Ok(());
        }
        while !bytes.is_empty() {
            let room = (self.block - self.len % self.block) as usize;
            let n = room.min(bytes.len());
            self.crc = crc32c::crc32c_append(self.crc, &bytes[..n]);
            self.len += n as u64;
            bytes = &bytes[n..];
            if self.len.is_multiple_of(self.block) {
                self.blocks.push(std::mem::take(&mut self.crc));
            }
        }
        Ok(())
    }
}

impl ContainerWriter {
    /// Starts a file that will hold exactly `lens.len()` sections of these byte lengths
    /// (known up front: the block table sits before the sections).
    pub(crate) fn create(path: &Path, kind: FileKind, id: u64, lens: &[u64]) -> Result<ContainerWriter, StorageError> {
        let file = DiskFile::create_large(path)?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        let blocks: u64 = lens.iter().map(|&l| if block_for(l) == 0 { 0 } else { l.div_ceil(BLOCK_LEN as u64) }).sum();
        let head = TABLE_AT + lens.len() * ENTRY_LEN + 4 * blocks as usize;
        out.write_all(&vec![0u8; head]).map_err(|e| StorageError::io(path, e))?;
        Ok(ContainerWriter {
            path: path.to_path_buf(),
            out,
            pos: head as u64,
            kind,
            id,
            lens: lens.to_vec(),
            table: Vec::with_capacity(lens.len()),
            blocks: Vec::with_capacity(blocks as usize),
        })
    }

    /// Writes the next section through `fill`, which must put exactly the declared bytes.
    pub(crate) fn section(
        &mut self,
        kind: u16,
        field: u16,
        fill: impl FnOnce(&mut SectionSink) -> std::io::Result<()>,
    ) -> Result<(), StorageError> {
        let io = |e| StorageError::io(&self.path, e);
        let i = self.table.len();
        let Some(&declared) = self.lens.get(i) else {
            return Err(io(std::io::Error::other(format!("section {i} was not declared"))));
        };
        let pad = self.pos.next_multiple_of(SECTION_ALIGN) - self.pos;
        self.out.write_all(&[0u8; SECTION_ALIGN as usize][..pad as usize]).map_err(io)?;
        self.pos += pad;
        let block = block_for(declared);
        let first = self.blocks.len();
        let mut sink = SectionSink {
            out: &mut self.out,
            at: self.pos,
            block: block as u64,
            crc: 0,
            len: 0,
            blocks: &mut self.blocks,
        };
        fill(&mut sink).map_err(|e| StorageError::io(&self.path, e))?;
        let (mut crc, len) = (sink.crc, sink.len);
        if len != declared {
            return Err(StorageError::io(
                &self.path,
                std::io::Error::other(format!("section {i} is {len} bytes, declared {declared}")),
            ));
        }
        if block != 0 {
            if !len.is_multiple_of(block as u64) {
                self.blocks.push(crc);
            }
            crc = list_crc(&self.blocks[first..]);
        }
        let blocks_at = (TABLE_AT + self.lens.len() * ENTRY_LEN + 4 * first) as u64;
        self.table.push(RawSection { kind, field, offset: self.pos, len, crc, block, blocks_at });
        self.pos += len;
        Ok(())
    }

    /// Writes the header and tables and makes the file durable; returns its size.
    pub(crate) fn finish(self) -> Result<u64, StorageError> {
        let io = |e| StorageError::io(&self.path, e);
        if self.table.len() != self.lens.len() {
            let what = format!("{} sections written, {} declared", self.table.len(), self.lens.len());
            return Err(io(std::io::Error::other(what)));
        }
        let mut file = self.out.into_inner().map_err(|e| StorageError::io(&self.path, e.into_error()))?;
        let mut head = Vec::with_capacity(TABLE_AT + self.table.len() * ENTRY_LEN + 4 * self.blocks.len());
        head.extend_from_slice(&encode_header(self.kind, self.id));
        head.extend_from_slice(&(self.table.len() as u32).to_le_bytes());
        head.extend_from_slice(&[0u8; 4]);
        for s in &self.table {
            head.extend_from_slice(&s.kind.to_le_bytes());
            head.extend_from_slice(&s.field.to_le_bytes());
            head.extend_from_slice(&s.block.to_le_bytes());
            head.extend_from_slice(&s.offset.to_le_bytes());
            head.extend_from_slice(&s.len.to_le_bytes());
            head.extend_from_slice(&s.crc.to_le_bytes());
            head.extend_from_slice(&[0u8; 4]);
        }
        let table_end = head.len();
        let crc = crc32c::crc32c(&head[TABLE_AT..table_end]);
        head[TABLE_CRC_AT..TABLE_AT].copy_from_slice(&crc.to_le_bytes());
        for c in &self.blocks {
            head.extend_from_slice(&c.to_le_bytes());
        }
        file.seek(0)?;
        file.write_all(&head)?;
        file.sync_all()?;
        Ok(self.pos)
    }
}

/// Writes a whole container of `sections` (kind, field tag, bytes) through a temp file
/// renamed to `path`, the temp file removed on failure; returns its size. The caller
/// publishes it (the rename is made durable by the publish).
pub(crate) fn write_file(
    path: &Path,
    kind: FileKind,
    id: u64,
    sections: &[(u16, u16, &[u8])],
) -> Result<u64, StorageError> {
    let tmp = super::disk::temp_path(path);
    let write = || -> Result<u64, StorageError> {
        let lens: Vec<u64> = sections.iter().map(|s| s.2.len() as u64).collect();
        let mut w = ContainerWriter::create(&tmp, kind, id, &lens)?;
        for &(section, field, bytes) in sections {
            w.section(section, field, |s| s.put(bytes))?;
        }
        w.finish()
    };
    let written = write().and_then(|size| super::disk::rename(&tmp, path).map(|()| size));
    if written.is_err() {
        let _ = super::disk::remove_file(&tmp);
    }
    written
}

/// Reads a container of index file `kind` (header id `id`) whose sections must be
/// exactly `kinds`, each tagged `field`, in order: the table, with every section's CRC
/// checked (blocks through `bytes`).
pub(crate) fn read_sections(
    path: &Path,
    bytes: &super::mmap::FileBytes,
    id: u64,
    field: u16,
    kinds: &[u16],
    what: &str,
) -> Result<Vec<RawSection>, StorageError> {
    let (b, crcs) = (bytes.as_slice(), bytes.checksummer()?);
    let (got_id, sections) = read_with(path, b, FileKind::Index, |_| true, |r, block| crcs.block_crcs(r, block))?;
    if got_id != id {
        return Err(StorageError::corrupted(path, 16, format!("index of segment {got_id}, expected segment {id}")));
    }
    let got: Vec<(u16, u16)> = sections.iter().map(|s| (s.kind, s.field)).collect();
    let expected: Vec<(u16, u16)> = kinds.iter().map(|&k| (k, field)).collect();
    if got != expected {
        return Err(StorageError::corrupted(
            path,
            32,
            format!("sections (kind, field) {got:?}; {what} has {expected:?}"),
        ));
    }
    Ok(sections)
}

/// Reads and checks a container's header and tables: bounds, alignment, zero padding
/// and no trailing bytes. Section CRCs are checked for the kinds `check_crc` accepts;
/// every block CRC list is checked against its entry. Returns the header id and table.
pub(crate) fn read(
    path: &Path,
    b: &[u8],
    kind: FileKind,
    check_crc: impl Fn(u16) -> bool,
) -> Result<(u64, Vec<RawSection>), StorageError> {
    read_with(path, b, kind, check_crc, |r, block| Ok(block_crcs(&b[r], block)))
}

/// [`read`], with the block CRCs of a range computed by `crcs_of(range, block)` (one CRC
/// of the whole range when `block` is the range's length; see [`Checksummer::block_crcs`]).
///
/// [`Checksummer::block_crcs`]: super::mmap::Checksummer::block_crcs
pub(crate) fn read_with(
    path: &Path,
    b: &[u8],
    kind: FileKind,
    check_crc: impl Fn(u16) -> bool,
    crcs_of: impl Fn(Range<usize>, usize) -> std::io::Result<Vec<u32>>,
) -> Result<(u64, Vec<RawSection>), StorageError> {
    read_checked(path, b, b.len() as u64, kind, check_crc, crcs_of, None)
}

/// How much of a container of `file_len` bytes to read so that every section but those
/// `skip` accepts is whole, from `head` (its first bytes, the section table included):
/// the disk kind's node blocks, read block by block as searches go, lie at the end of its
/// index file. `None` when there is nothing to leave out or the table is not in `head`
/// (read it all; the reader reports what is wrong).
pub(crate) fn held_len(head: &[u8], file_len: u64, skip: impl Fn(u16) -> bool) -> Option<u64> {
    let count = read_u32(head.get(..TABLE_AT)?, COUNT_AT) as usize;
    let table_end = TABLE_AT.checked_add(count.checked_mul(ENTRY_LEN)?)?;
    let (sections, _) = parse_table(head.get(TABLE_AT..table_end)?, table_end as u64);
    sections.iter().any(|s| skip(s.kind)).then_some(())?;
    let ends = sections.iter().map(|s| if skip(s.kind) { s.offset } else { s.offset.saturating_add(s.len) });
    let held = ends.max().unwrap_or(0).min(file_len);
    (held < file_len).then_some(held)
}

/// [`read_with`] over `b`, the first bytes of a file of `file_len` bytes holding at least
/// every section whose CRC `check_crc` asks for (see [`held_len`]); the sections past `b`
/// are placed and bounded against `file_len`, their bytes never touched.
pub(crate) fn read_held(
    path: &Path,
    b: &[u8],
    file_len: u64,
    kind: FileKind,
    check_crc: impl Fn(u16) -> bool,
    crcs_of: impl Fn(Range<usize>, usize) -> std::io::Result<Vec<u32>>,
) -> Result<(u64, Vec<RawSection>), StorageError> {
    read_checked(path, b, file_len, kind, check_crc, crcs_of, None)
}

/// A section's bytes whose checksum failed: one block of a blocked section, or a whole
/// section with a single checksum.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BadBlock {
    /// The section's position in the table.
    pub section: usize,
    /// File bytes the checksum covers.
    pub bytes: Range<u64>,
}

/// [`read_with`], except that a section or block whose content fails its checksum is
/// listed in `bad` rather than failing the read (the header, the tables and the block
/// CRC lists must still hold): for a reader that leaves the rows it holds out.
pub(crate) fn read_tolerant(
    path: &Path,
    b: &[u8],
    kind: FileKind,
    check_crc: impl Fn(u16) -> bool,
    crcs_of: impl Fn(Range<usize>, usize) -> std::io::Result<Vec<u32>>,
    bad: &mut Vec<BadBlock>,
) -> Result<(u64, Vec<RawSection>), StorageError> {
    read_checked(path, b, b.len() as u64, kind, check_crc, crcs_of, Some(bad))
}

fn read_checked(
    path: &Path,
    b: &[u8],
    file_len: u64,
    kind: FileKind,
    check_crc: impl Fn(u16) -> bool,
    crcs_of: impl Fn(Range<usize>, usize) -> std::io::Result<Vec<u32>>,
    mut tolerate: Option<&mut Vec<BadBlock>>,
) -> Result<(u64, Vec<RawSection>), StorageError> {
    let (id, version) = decode_header_version(path, b, kind)?;
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
    let (sections, blocks_end) = parse_table(&b[TABLE_AT..table_end], table_end as u64);
    for (i, s) in sections.iter().enumerate() {
        if let Some(what) = entry_problem(s, version, kind, file_len) {
            return Err(bad(TABLE_AT + i * ENTRY_LEN, format!("section {i}: {what}")));
        }
    }
    if blocks_end > b.len() as u64 {
        return Err(bad(table_end, format!("block table ends at {blocks_end}, past the end of the file")));
    }
    let mut at = blocks_end as usize;
    for (i, s) in sections.iter().enumerate() {
        let e = TABLE_AT + i * ENTRY_LEN;
        if s.offset < at as u64 {
            return Err(bad(
                e,
                format!("section {i} [{}, +{}) overlaps the tables or another section", s.offset, s.len),
            ));
        }
        if !s.offset.is_multiple_of(SECTION_ALIGN) {
            return Err(bad(e, format!("section {i} offset {} is not {SECTION_ALIGN}-byte aligned", s.offset)));
        }
        let past = || bad(e, format!("section {i} [{}, +{}) lies past the {} bytes read", s.offset, s.len, b.len()));
        let Some(padding) = b.get(at..s.offset as usize) else { return Err(past()) };
        if let Some(p) = padding.iter().position(|&x| x != 0) {
            return Err(bad(at + p, format!("padding before section {i} is not zero")));
        }
        if check_crc(s.kind) && s.offset + s.len > b.len() as u64 {
            return Err(past());
        }
        let io = |e| StorageError::io(path, e);
        if s.block == 0 {
            if check_crc(s.kind)
                && crcs_of(s.range(), s.len.max(1) as usize).map_err(io)?.first().copied().unwrap_or(0) != s.crc
            {
                match tolerate.as_deref_mut() {
                    Some(list) => list.push(BadBlock { section: i, bytes: s.offset..s.offset + s.len }),
                    None => {
                        return Err(bad(s.offset as usize, format!("section {i} (kind {}) checksum mismatch", s.kind)));
                    }
                }
            }
        } else {
            let stored = stored_crcs(b, s);
            if list_crc(&stored) != s.crc {
                return Err(bad(
                    s.blocks_at as usize,
                    format!("block checksums of section {i} (kind {}) damaged", s.kind),
                ));
            }
            // One pass over the whole section; blocks are looked at only when it disagrees.
            let whole = || crcs_of(s.range(), s.len.max(1) as usize).map(|v| v.first().copied().unwrap_or(0));
            if check_crc(s.kind) && whole().map_err(io)? != combine_blocks(&stored, s.block as u64, s.len) {
                let computed = crcs_of(s.range(), s.block as usize).map_err(io)?;
                let mut mismatched = (0..stored.len()).filter(|&j| computed.get(j) != Some(&stored[j]));
                if let Some(list) = tolerate.as_deref_mut() {
                    list.extend(mismatched.map(|j| BadBlock { section: i, bytes: s.block_range(j as u64) }));
                } else if let Some(j) = mismatched.next() {
                    let r = s.block_range(j as u64);
                    return Err(bad(
                        r.start as usize,
                        format!(
                            "section {i} (kind {}) block {j} of {} (bytes {}..{}) checksum mismatch",
                            s.kind,
                            stored.len(),
                            r.start,
                            r.end
                        ),
                    ));
                }
            }
        }
        at = (s.offset + s.len) as usize;
    }
    if at as u64 != file_len {
        return Err(bad(at, format!("{} bytes after the last section", file_len.saturating_sub(at as u64))));
    }
    Ok((id, sections))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The whole CRC from the block CRCs equals the CRC of the bytes, for every shape of
    /// last block.
    #[test]
    fn block_crcs_combine_into_the_whole() {
        let data: Vec<u8> = (0..300_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        for len in [0, 1, 4095, 4096, 65_536, 65_537, 131_072, 200_001, 300_000] {
            for block in [4096usize, 65_536] {
                let d = &data[..len];
                let whole = combine_blocks(&block_crcs(d, block), block as u64, len as u64);
                assert_eq!(whole, crc32c::crc32c(d), "{len} bytes in blocks of {block}");
            }
        }
    }
}
