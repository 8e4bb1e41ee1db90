//! The write-ahead log: every accepted write since the last flush, in frames that can be
//! found again after damage.
//!
//! File: the common header (id = WAL sequence), then a WAL header (`salt u64`, `reserved
//! u32`, `crc32c u32`), then frames. A frame is a 32-byte header (magic, kind, flags, log
//! sequence number, payload length, payload CRC, header CRC) and a payload; both CRCs are
//! salted with the file's random salt, so bytes a user wrote inside a record never pass for
//! a frame. LSNs count frames from 1 without gaps: a scan that meets damage resynchronizes
//! at the next frame whose header checks out, whatever the payload bytes, and knows how
//! many frames the damage took.
//!
//! A write call is one batch: its records' frames, the last one flagged end-of-batch;
//! replay applies a batch only when its end is there. After each fsync the writer appends a
//! sync mark (not itself synced), so every synced frame has a valid frame after it: damage
//! with a valid frame after it is corruption, and only what lies after the last valid frame
//! can be a torn tail (an unacknowledged write cut short). `docs/format.md` has the bytes.
//! Readers in other processes follow a live writer with [`tail`](fn@tail), forward only.

use std::hash::{BuildHasher, Hasher};
use std::ops::Range;
use std::path::Path;

use half::f16;

use super::disk::DiskFile;
use super::{FileKind, HEADER_LEN, decode_header, encode_header, read_u32, read_u64};
use crate::error::StorageError;
use crate::schema::Schema;
use crate::value::{Row, Value};
use sync_record::SyncFile;

/// Bytes before the first frame: the common header and the WAL header.
pub const WAL_HEADER_LEN: usize = HEADER_LEN + 16;
const SALT_AT: usize = HEADER_LEN;
const WAL_HEADER_CRC_AT: usize = SALT_AT + 12;

/// Bytes of each frame's header before its payload: magic, kind, flags, LSN, payload
/// length and the two CRCs.
pub const FRAME_HEADER: usize = 32;
const FRAME_MAGIC: [u8; 4] = [0xD7, 0x1A, 0x5E, 0xA9];
const KIND_AT: usize = 4;
const FLAGS_AT: usize = 5;
const LSN_AT: usize = 8;
const LEN_AT: usize = 16;
const PAYLOAD_CRC_AT: usize = 20;
const FRAME_CRC_AT: usize = 28;
const _: () = assert!(FRAME_CRC_AT + 4 == FRAME_HEADER);

const KIND_RECORD: u8 = 1;
const KIND_SYNC: u8 = 2;
const FLAG_END_OF_BATCH: u8 = 1;

/// Largest payload a frame may declare; anything larger is damage, not an allocation.
pub(crate) const MAX_FRAME: u32 = 1 << 30;

const OP_PUT: u8 = 1;
const OP_DELETE: u8 = 2;

/// One logged write.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Record {
    /// The whole new version of a document (inserts, upserts and updates all log this).
    Put(Row),
    /// Removal of a key.
    Delete(String),
}

impl Record {
    pub(crate) fn key(&self) -> &str {
        match self {
            Record::Put(row) => &row.key,
            Record::Delete(key) => key,
        }
    }
}

/// When the WAL is fsynced, and so what an acknowledged write survives (see
/// `docs/format.md`, "Acknowledged").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum SyncPolicy {
    /// After every write call (a batch): an acknowledged write survives a crash and a
    /// power loss.
    #[default]
    EveryBatch,
    /// After at least this many records have accumulated since the last sync: every
    /// acknowledged write survives a process crash; a power loss may take the last
    /// unsynced ones, whole batches at a time.
    EveryRecords(u32),
    /// Only on flush and close: an acknowledged write survives a process crash; a power
    /// loss takes every write since the last flush.
    OnFlush,
}

/// A fresh random salt for a new WAL file.
pub(crate) fn new_salt() -> u64 {
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
    h.write_u32(std::process::id());
    // Zero stands for "unknown" in a manifest rebuilt by repair.
    h.finish().max(1)
}

fn salted_crc(salt: u64, bytes: &[u8]) -> u32 {
    crc32c::crc32c_append(crc32c::crc32c(&salt.to_le_bytes()), bytes)
}

fn encode_wal_header(seq: u64, salt: u64) -> [u8; WAL_HEADER_LEN] {
    let mut h = [0u8; WAL_HEADER_LEN];
    h[..HEADER_LEN].copy_from_slice(&encode_header(FileKind::Wal, seq));
    h[SALT_AT..SALT_AT + 8].copy_from_slice(&salt.to_le_bytes());
    let crc = crc32c::crc32c(&h[SALT_AT..WAL_HEADER_CRC_AT]);
    h[WAL_HEADER_CRC_AT..].copy_from_slice(&crc.to_le_bytes());
    h
}

/// Checks a WAL file's headers; returns its sequence and salt.
pub(crate) fn decode_wal_header(path: &Path, bytes: &[u8]) -> Result<(u64, u64), StorageError> {
    let seq = decode_header(path, bytes, FileKind::Wal)?;
    if bytes.len() < WAL_HEADER_LEN {
        return Err(StorageError::corrupted(path, bytes.len() as u64, "file ends inside the WAL header"));
    }
    if read_u32(bytes, WAL_HEADER_CRC_AT) != crc32c::crc32c(&bytes[SALT_AT..WAL_HEADER_CRC_AT]) {
        return Err(StorageError::corrupted(path, SALT_AT as u64, "WAL header checksum mismatch"));
    }
    if read_u32(bytes, SALT_AT + 8) != 0 {
        return Err(StorageError::corrupted(path, (SALT_AT + 8) as u64, "reserved bytes are not zero"));
    }
    Ok((seq, read_u64(bytes, SALT_AT)))
}

/// Whether `bytes` are a version 1 WAL that holds no frame: the WAL a version 1 manifest
/// names after a flush. It replays as empty; a writable open replaces it (a new
/// generation with a version 2 WAL). A version 1 WAL with frames is refused.
pub(crate) fn is_empty_v1(bytes: &[u8]) -> bool {
    // The common header's fields: magic 0..8, version 8..12, kind 12..16, CRC 28..32.
    bytes.len() == HEADER_LEN
        && bytes[..8] == super::MAGIC
        && read_u32(bytes, 8) == 1
        && read_u32(bytes, 12) == FileKind::Wal.code()
        && read_u32(bytes, 28) == crc32c::crc32c(&bytes[..28])
}

/// Appends frames to one WAL file.
pub(crate) struct WalWriter {
    file: DiskFile,
    salt: u64,
    next_lsn: u64,
    len: u64,
    buf: Vec<u8>,
    policy: SyncPolicy,
    unsynced_records: u64,
    unsynced_bytes: u64,
    records: u64,
    /// Set when the file's state on disk is no longer known (a failed fsync, a failed
    /// rollback of a partial append): every later call fails with this reason.
    broken: Option<String>,
    seq: u64,
    /// `WAL.sync`, where each fsync records how far this file is durable; `None` once a
    /// write of it failed (it only aids detection, see `sync_record`).
    sync_file: Option<SyncFile>,
    /// Where the bytes begin whose page cache a sync has not yet dropped (see `sync`).
    cached_from: u64,
}

/// The page cache of a synced WAL is dropped from a multiple of this (the largest page
/// size Linux uses): the partial page at the end of one sync's range is in the next one's.
const DROP_ALIGN: u64 = 64 << 10;

impl WalWriter {
    /// Creates a new, empty WAL file (durably: the caller fsyncs the directory). A file
    /// already under the name is an unpublished leftover (the caller holds the writer
    /// lock, and the live WAL is never created twice) and is replaced.
    pub(crate) fn create(dir: &Path, seq: u64, salt: u64, policy: SyncPolicy) -> Result<WalWriter, StorageError> {
        let path = dir.join(super::wal_name(seq));
        let mut file = DiskFile::create(&path)?;
        file.write_all(&encode_wal_header(seq, salt))?;
        file.sync_all()?;
        let mut w = WalWriter::over(dir, file, seq, salt, WAL_HEADER_LEN as u64, 1, 0, policy)?;
        // Durable with no records: proves that an empty or headless file lost none.
        w.record_durable();
        Ok(w)
    }

    #[allow(clippy::too_many_arguments)]
    fn over(
        dir: &Path,
        file: DiskFile,
        seq: u64,
        salt: u64,
        len: u64,
        next_lsn: u64,
        records: u64,
        policy: SyncPolicy,
    ) -> Result<WalWriter, StorageError> {
        Ok(WalWriter {
            sync_file: Some(SyncFile::open(dir)?),
            seq,
            file,
            salt,
            next_lsn,
            len,
            buf: Vec::new(),
            policy,
            unsynced_records: 0,
            unsynced_bytes: 0,
            records,
            broken: None,
            cached_from: 0,
        })
    }

    /// Writes the sync record for what is durable now: every frame before `self.len`.
    fn record_durable(&mut self) {
        if let Some(f) = &mut self.sync_file
            && f.write(self.seq, self.salt, self.len, self.next_lsn - 1, self.records).is_err()
        {
            self.sync_file = None;
        }
    }

    /// Reopens a scanned WAL for appending after its last good frame. Bytes beyond it must
    /// already be saved elsewhere: they are cut off.
    pub(crate) fn reopen(dir: &Path, scan: &Scan, policy: SyncPolicy) -> Result<WalWriter, StorageError> {
        let path = dir.join(super::wal_name(scan.seq));
        let mut file = DiskFile::open_write(&path)?;
        if file.len()? != scan.valid_len {
            file.set_len(scan.valid_len)?;
            file.sync_all()?;
        }
        file.seek(scan.valid_len)?;
        let records = scan.records.len() as u64;
        WalWriter::over(dir, file, scan.seq, scan.salt, scan.valid_len, scan.next_lsn, records, policy)
    }

    #[cfg(test)]
    pub(crate) fn salt(&self) -> u64 {
        self.salt
    }

    pub(crate) fn path(&self) -> &Path {
        self.file.path()
    }

    pub(crate) fn records(&self) -> u64 {
        self.records
    }

    pub(crate) fn unsynced_records(&self) -> u64 {
        self.unsynced_records
    }

    /// Capacity of the reused frame buffer, for memory accounting.
    pub(crate) fn buffer_bytes(&self) -> usize {
        self.buf.capacity()
    }

    /// Why this writer refuses to write, if it does.
    pub(crate) fn broken(&self) -> Option<&str> {
        self.broken.as_deref()
    }

    fn check_usable(&self) -> Result<(), StorageError> {
        match &self.broken {
            Some(why) => Err(StorageError::FailStop { path: self.path().to_path_buf(), what: why.clone() }),
            None => Ok(()),
        }
    }

    fn push_frame(&mut self, kind: u8, flags: u8, payload_start: usize) {
        let start = payload_start - FRAME_HEADER;
        let len = (self.buf.len() - payload_start) as u32;
        let payload_crc = salted_crc(self.salt, &self.buf[payload_start..]);
        let h = &mut self.buf[start..payload_start];
        h[..4].copy_from_slice(&FRAME_MAGIC);
        h[KIND_AT] = kind;
        h[FLAGS_AT] = flags;
        h[LSN_AT..LSN_AT + 8].copy_from_slice(&self.next_lsn.to_le_bytes());
        h[LEN_AT..LEN_AT + 4].copy_from_slice(&len.to_le_bytes());
        h[PAYLOAD_CRC_AT..PAYLOAD_CRC_AT + 4].copy_from_slice(&payload_crc.to_le_bytes());
        let crc = salted_crc(self.salt, &h[..FRAME_CRC_AT]);
        h[FRAME_CRC_AT..].copy_from_slice(&crc.to_le_bytes());
        self.next_lsn += 1;
    }

    /// Writes the frames in `self.buf` at the end of the file; on failure cuts the file
    /// back to its last whole frame, so the log stays appendable.
    fn write_buf(&mut self, first_lsn: u64) -> Result<(), StorageError> {
        if let Err(e) = self.file.write_all(&self.buf) {
            self.next_lsn = first_lsn;
            let rolled_back = self.file.set_len(self.len).and_then(|()| self.file.seek(self.len));
            if let Err(r) = rolled_back {
                self.broken = Some(format!("a failed append ({e}) could not be rolled back: {r}"));
            }
            return Err(e);
        }
        self.len += self.buf.len() as u64;
        Ok(())
    }

    /// Appends `records` as one batch, then syncs as the policy says. On error nothing
    /// of the batch is acknowledged, and the file holds none of it unless the error
    /// came from the sync (then this writer refuses every later call).
    pub(crate) fn append(&mut self, schema: &Schema, records: &[Record]) -> Result<(), StorageError> {
        self.check_usable()?;
        if records.is_empty() {
            return Ok(());
        }
        let first_lsn = self.next_lsn;
        if let Err(e) = self.encode_batch(schema, records, MAX_FRAME) {
            self.next_lsn = first_lsn;
            return Err(e);
        }
        self.write_buf(first_lsn)?;
        self.records += records.len() as u64;
        self.unsynced_records += records.len() as u64;
        self.unsynced_bytes += self.buf.len() as u64;
        if self.buf.capacity() > 64 << 20 {
            self.buf = Vec::new();
        }
        let due = match self.policy {
            SyncPolicy::EveryBatch => true,
            SyncPolicy::EveryRecords(n) => self.unsynced_records >= n as u64,
            SyncPolicy::OnFlush => false,
        };
        if due {
            self.sync()?;
        }
        Ok(())
    }

    /// Encodes `records` as frames into `self.buf`, refusing a record whose payload would
    /// pass `max_frame` (the reader's bound, [`MAX_FRAME`], given as a parameter so tests
    /// can check the bound without gigabyte records).
    fn encode_batch(&mut self, schema: &Schema, records: &[Record], max_frame: u32) -> Result<(), StorageError> {
        self.buf.clear();
        for (i, r) in records.iter().enumerate() {
            self.buf.extend_from_slice(&[0u8; FRAME_HEADER]);
            let payload_start = self.buf.len();
            encode_record(schema, r, &mut self.buf);
            let len = self.buf.len() - payload_start;
            if !frame_fits(len as u64, max_frame) {
                self.buf = Vec::new();
                let key = crate::error::truncate_key(r.key());
                return Err(StorageError::FrameTooLarge { path: self.path().to_path_buf(), key, len, max: max_frame });
            }
            let flags = if i + 1 == records.len() { FLAG_END_OF_BATCH } else { 0 };
            self.push_frame(KIND_RECORD, flags, payload_start);
        }
        Ok(())
    }

    /// Makes every appended record durable, then marks the log as synced that far.
    pub(crate) fn sync(&mut self) -> Result<(), StorageError> {
        self.check_usable()?;
        if self.unsynced_bytes == 0 {
            return Ok(());
        }
        if let Err(e) = self.file.sync_data() {
            // Linux may drop the dirty pages and report success to a retry: what reached
            // the disk is unknown, so nothing more is acknowledged from this file.
            self.broken = Some(format!("fsync failed: {e}"));
            return Err(e);
        }
        self.unsynced_records = 0;
        self.unsynced_bytes = 0;
        self.record_durable();
        // The synced frames are clean in the page cache, and the writer never reads them
        // back (replay and followers read the file): freed now, their pages take the next
        // appends. Kept, a bulk load's WAL grew the page cache by its whole size, every page
        // of it memory the kernel had not touched before, which costs more CPU to hand out
        // than the copy into it (on a VM, the host backs it page by page).
        self.file.drop_cached(self.cached_from, self.len - self.cached_from);
        self.cached_from = self.len - self.len % DROP_ALIGN;
        let durable = self.next_lsn - 1;
        self.buf.clear();
        self.buf.extend_from_slice(&[0u8; FRAME_HEADER]);
        self.buf.extend_from_slice(&durable.to_le_bytes());
        self.push_frame(KIND_SYNC, FLAG_END_OF_BATCH, FRAME_HEADER);
        // The mark is an aid to recovery, never needed for durability: a failed write of it
        // is rolled back and otherwise ignored.
        let _ = self.write_buf(self.next_lsn - 1);
        Ok(())
    }
}

/// A good record frame.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Frame {
    pub offset: u64,
    pub lsn: u64,
    pub record: Record,
}

/// A damaged stretch of a WAL with good frames after it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Damage {
    /// Where the damage starts and how many bytes it spans, up to the next good frame.
    pub offset: u64,
    pub len: u64,
    pub what: String,
    /// Frames the damage took (LSNs between the good frames around it).
    pub lost: Range<u64>,
    /// How many of those were records: the frames lost, less the sync marks among them
    /// whose headers still read.
    pub lost_records: u64,
    /// Keys of the last good record before the damage and the first one after it.
    pub before: Option<String>,
    pub after: Option<String>,
    /// Keys read from the damaged frames themselves, unverified.
    pub key_hints: Vec<String>,
}

/// What a WAL file holds, read past damage.
#[derive(Clone, Debug)]
pub(crate) struct Scan {
    pub seq: u64,
    pub salt: u64,
    /// Records of whole batches (and, past damage, of batches whose end was damaged), in
    /// log order.
    pub records: Vec<Frame>,
    pub damage: Vec<Damage>,
    /// Offset and length of a torn tail: the bytes after the last good frame, with the
    /// frames of a batch that never ended.
    pub torn: Option<(u64, u64)>,
    /// End of the last good frame (where a writer appends).
    pub valid_len: u64,
    pub next_lsn: u64,
}

impl Scan {
    /// The error a read of a damaged WAL fails with: the first damage, with its context.
    pub(crate) fn damage_error(&self, path: &Path) -> Option<StorageError> {
        let d = self.damage.first()?;
        Some(StorageError::WalDamaged(Box::new(crate::error::WalDamage {
            path: path.to_path_buf(),
            offset: d.offset,
            what: d.what.clone(),
            lost: d.lost_records,
            before: d.before.clone(),
            after: d.after.clone(),
            more: self.damage.len() - 1,
        })))
    }
}

enum FrameCheck {
    Good { kind: u8, flags: u8, lsn: u64, end: usize },
    Bad(String),
}

/// Whether a payload of `len` bytes is within the frame bound `max`: the one test the
/// writer and the reader share, so nothing is written that a scan would refuse.
fn frame_fits(len: u64, max: u32) -> bool {
    len <= u64::from(max)
}

/// Checks the frame at `at`: header, then payload.
fn check_frame(b: &[u8], at: usize, salt: u64) -> FrameCheck {
    let Some(h) = b.get(at..at + FRAME_HEADER) else {
        return FrameCheck::Bad(format!("{} bytes, shorter than a frame header", b.len() - at));
    };
    if h[..4] != FRAME_MAGIC {
        return FrameCheck::Bad("no frame magic".into());
    }
    if read_u32(h, FRAME_CRC_AT) != salted_crc(salt, &h[..FRAME_CRC_AT]) {
        return FrameCheck::Bad("frame header checksum mismatch".into());
    }
    let (kind, flags, len) = (h[KIND_AT], h[FLAGS_AT], read_u32(h, LEN_AT));
    if !matches!(kind, KIND_RECORD | KIND_SYNC) || flags > FLAG_END_OF_BATCH || h[6..8] != [0, 0] || h[24..28] != [0; 4]
    {
        return FrameCheck::Bad(format!("frame kind {kind}, flags {flags}: not a frame this build writes"));
    }
    if !frame_fits(len as u64, MAX_FRAME) {
        return FrameCheck::Bad(format!("frame length {len} exceeds the {MAX_FRAME}-byte bound"));
    }
    let end = at + FRAME_HEADER + len as usize;
    if end > b.len() {
        return FrameCheck::Bad(format!("frame length {len} runs past the end of the file"));
    }
    if read_u32(h, PAYLOAD_CRC_AT) != salted_crc(salt, &b[at + FRAME_HEADER..end]) {
        return FrameCheck::Bad("frame payload checksum mismatch".into());
    }
    FrameCheck::Good { kind, flags, lsn: read_u64(h, LSN_AT), end }
}

/// Checks the frame at `at` and that it is the one due next, `next_lsn`: what a frame must
/// pass to extend the log, for the scan and the tailer alike.
fn check_next_frame(b: &[u8], at: usize, salt: u64, next_lsn: u64) -> FrameCheck {
    match check_frame(b, at, salt) {
        FrameCheck::Good { lsn, .. } if lsn != next_lsn => {
            FrameCheck::Bad(format!("frame has log sequence number {lsn}, expected {next_lsn}"))
        }
        checked => checked,
    }
}

/// The first good frame at or after `from` with an LSN of at least `min_lsn`.
fn next_good_frame(b: &[u8], from: usize, salt: u64, min_lsn: u64) -> Option<usize> {
    let mut p = from;
    while p + FRAME_HEADER <= b.len() {
        let i = b[p..b.len() - FRAME_HEADER + 1].iter().position(|&x| x == FRAME_MAGIC[0])?;
        p += i;
        if let FrameCheck::Good { lsn, .. } = check_frame(b, p, salt)
            && lsn >= min_lsn
        {
            return Some(p);
        }
        p += 1;
    }
    None
}

/// Keys that the damaged bytes `b[range]` seem to hold: each frame start in it read as if
/// its payload were whole.
fn key_hints(b: &[u8], range: Range<usize>) -> Vec<String> {
    let mut hints = Vec::new();
    let mut p = range.start;
    while p < range.end && hints.len() < 64 {
        let at_frame = p == range.start || b[p..].starts_with(&FRAME_MAGIC);
        if at_frame && let Some(k) = b.get(p + FRAME_HEADER..range.end).and_then(key_hint) {
            hints.push(k);
        }
        p += 1;
    }
    hints.dedup();
    hints
}

/// Sync marks in the damaged bytes `b[range]` whose frame headers still check out.
fn sync_marks_in(b: &[u8], range: Range<usize>, salt: u64) -> u64 {
    let header_ok = |p: usize| {
        b.get(p..p + FRAME_HEADER).is_some_and(|h| {
            h[..4] == FRAME_MAGIC
                && h[KIND_AT] == KIND_SYNC
                && read_u32(h, FRAME_CRC_AT) == salted_crc(salt, &h[..FRAME_CRC_AT])
        })
    };
    range.filter(|&p| header_ok(p)).count() as u64
}

fn key_hint(payload: &[u8]) -> Option<String> {
    let n = u32::from_le_bytes(payload.get(1..5)?.try_into().ok()?) as usize;
    let key = payload.get(5..5usize.checked_add(n)?)?;
    matches!(payload.first(), Some(&OP_PUT | &OP_DELETE))
        .then(|| String::from_utf8_lossy(key).into_owned())
        .filter(|k| !k.is_empty())
}

/// Reads every frame of a WAL file's bytes, past damage. `known` is the sequence and salt
/// the manifest records for the file: with it, a damaged header is one more damage and the
/// frames are still read; without it (a WAL no manifest names) the header must be whole.
/// A file of another format version is refused whole.
pub(crate) fn scan(path: &Path, b: &[u8], known: Option<(u64, u64)>, schema: &Schema) -> Result<Scan, StorageError> {
    let mut header_damage = None;
    let (seq, salt) = match (decode_wal_header(path, b), known) {
        (Err(e @ StorageError::UnsupportedVersion { .. }), _) | (Err(e), None) => return Err(e),
        (Ok((seq, salt)), None) => (seq, salt),
        (Ok((seq, file_salt)), Some(k)) if (seq, file_salt) == k => k,
        (Ok((seq, file_salt)), Some(k)) => {
            header_damage = Some(format!(
                "header names WAL {seq} with salt {file_salt:#018x}; the manifest expects WAL {} with salt {:#018x}",
                k.0, k.1
            ));
            k
        }
        (Err(e), Some(k)) => {
            header_damage = Some(match e {
                StorageError::Corrupted { what, .. } => what,
                other => other.to_string(),
            });
            k
        }
    };
    let mut s = Scan {
        seq,
        salt,
        records: Vec::new(),
        damage: Vec::new(),
        torn: None,
        valid_len: WAL_HEADER_LEN as u64,
        next_lsn: 1,
    };
    if let Some(what) = header_damage {
        s.damage.push(Damage {
            offset: 0,
            len: WAL_HEADER_LEN.min(b.len()) as u64,
            what,
            lost: 1..1,
            lost_records: 0,
            before: None,
            after: None,
            key_hints: Vec::new(),
        });
    }
    // Records of the batch not yet ended, where it started, and the LSN it started with.
    let mut batch: Vec<Frame> = Vec::new();
    let mut batch_start = WAL_HEADER_LEN;
    let mut batch_lsn = 1;
    let mut at = WAL_HEADER_LEN;
    while at < b.len() {
        let bad = match check_next_frame(b, at, salt, s.next_lsn) {
            FrameCheck::Good { kind, flags, lsn, end } => {
                s.next_lsn = lsn + 1;
                if kind == KIND_RECORD {
                    match decode_record(schema, &b[at + FRAME_HEADER..end]) {
                        Ok(record) => batch.push(Frame { offset: at as u64, lsn, record }),
                        Err((off, what)) => s.damage.push(Damage {
                            offset: (at + FRAME_HEADER + off) as u64,
                            len: (end - at - FRAME_HEADER - off) as u64,
                            what: format!("record does not decode: {what}"),
                            lost: lsn..lsn + 1,
                            lost_records: 1,
                            before: batch.last().or(s.records.last()).map(|f| f.record.key().to_string()),
                            after: None,
                            key_hints: key_hint(&b[at + FRAME_HEADER..end]).into_iter().collect(),
                        }),
                    }
                }
                at = end;
                if flags & FLAG_END_OF_BATCH != 0 {
                    s.records.append(&mut batch);
                    batch_start = at;
                    batch_lsn = s.next_lsn;
                }
                continue;
            }
            FrameCheck::Bad(what) => what,
        };
        match next_good_frame(b, at + 1, salt, s.next_lsn) {
            None => break,
            Some(next) => {
                let FrameCheck::Good { lsn, .. } = check_frame(b, next, salt) else { unreachable!("checked") };
                // Past damage a batch's end may be what was lost: keep its records.
                s.records.append(&mut batch);
                s.damage.push(Damage {
                    offset: at as u64,
                    len: (next - at) as u64,
                    what: bad,
                    lost: s.next_lsn..lsn,
                    lost_records: (lsn - s.next_lsn).saturating_sub(sync_marks_in(b, at..next, salt)),
                    before: s.records.last().map(|f| f.record.key().to_string()),
                    after: None,
                    key_hints: key_hints(b, at..next),
                });
                s.next_lsn = lsn;
                at = next;
                batch_start = next;
                batch_lsn = lsn;
            }
        }
    }
    // Frames of a batch that never ended are part of the torn tail.
    if batch_start < b.len() {
        s.torn = Some((batch_start as u64, (b.len() - batch_start) as u64));
        s.next_lsn = batch_lsn;
    }
    s.valid_len = batch_start as u64;
    // Name the first good record after each damage.
    let mut i = 0;
    for d in s.damage.iter_mut() {
        while i < s.records.len() && s.records[i].offset < d.offset + d.len {
            i += 1;
        }
        d.after = s.records.get(i).map(|f| f.record.key().to_string());
    }
    Ok(s)
}

/// Reads a WAL for replay: damage is an error naming it; a torn tail is left out.
pub(crate) fn read(path: &Path, b: &[u8], known: Option<(u64, u64)>, schema: &Schema) -> Result<Scan, StorageError> {
    let s = scan(path, b, known, schema)?;
    match s.damage_error(path) {
        Some(e) => Err(e),
        None => Ok(s),
    }
}

fn put_len(buf: &mut Vec<u8>, n: usize) {
    buf.extend_from_slice(&(n as u32).to_le_bytes());
}

fn encode_record(schema: &Schema, r: &Record, buf: &mut Vec<u8>) {
    match r {
        Record::Delete(key) => {
            buf.push(OP_DELETE);
            put_len(buf, key.len());
            buf.extend_from_slice(key.as_bytes());
        }
        Record::Put(row) => {
            buf.push(OP_PUT);
            put_len(buf, row.key.len());
            buf.extend_from_slice(row.key.as_bytes());
            // Nulls are left out: a field a record does not name is null.
            let present = row.values.iter().filter(|v| !matches!(v, Value::Null)).count();
            put_len(buf, present);
            for (pos, v) in row.values.iter().enumerate() {
                if !matches!(v, Value::Null) {
                    buf.extend_from_slice(&schema.field_id(pos).to_le_bytes());
                    encode_value(v, buf);
                }
            }
        }
    }
}

fn encode_value(v: &Value, buf: &mut Vec<u8>) {
    match v {
        Value::Null => buf.push(0),
        Value::String(s) => {
            buf.push(1);
            put_len(buf, s.len());
            buf.extend_from_slice(s.as_bytes());
        }
        Value::Bool(b) => buf.extend_from_slice(&[2, *b as u8]),
        Value::Int32(x) => {
            buf.push(3);
            buf.extend_from_slice(&x.to_le_bytes());
        }
        Value::Int64(x) => {
            buf.push(4);
            buf.extend_from_slice(&x.to_le_bytes());
        }
        Value::Uint32(x) => {
            buf.push(5);
            buf.extend_from_slice(&x.to_le_bytes());
        }
        Value::Uint64(x) => {
            buf.push(6);
            buf.extend_from_slice(&x.to_le_bytes());
        }
        Value::Float(x) => {
            buf.push(7);
            buf.extend_from_slice(&x.to_le_bytes());
        }
        Value::Double(x) => {
            buf.push(8);
            buf.extend_from_slice(&x.to_le_bytes());
        }
        Value::VectorFp32(x) => {
            buf.push(9);
            put_len(buf, x.len());
            buf.extend_from_slice(super::mmap::as_bytes(x));
        }
        Value::VectorFp16(x) => {
            buf.push(10);
            put_len(buf, x.len());
            buf.extend_from_slice(super::mmap::as_bytes(x));
        }
        Value::VectorInt8(x) => {
            buf.push(11);
            put_len(buf, x.len());
            buf.extend_from_slice(super::mmap::as_bytes(x));
        }
        Value::Array(xs) => {
            buf.push(12);
            put_len(buf, xs.len());
            for x in xs {
                encode_value(x, buf);
            }
        }
        Value::Sparse(x) => {
            buf.push(13);
            put_len(buf, x.len());
            buf.extend_from_slice(super::mmap::as_bytes(x.indices()));
            buf.extend_from_slice(super::mmap::as_bytes(x.values()));
        }
    }
}

/// A bounds-checked reader over one payload; errors carry the offset within it.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

type DecodeError = (usize, String);

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], DecodeError> {
        if self.bytes.len() - self.at < n {
            return Err((self.at, format!("record ends inside {what} ({n} bytes needed)")));
        }
        let s = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(s)
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], DecodeError> {
        Ok(self.take(N, what)?.try_into().expect("length checked"))
    }

    fn len(&mut self, what: &str) -> Result<usize, DecodeError> {
        Ok(u32::from_le_bytes(self.array(what)?) as usize)
    }

    fn string(&mut self, what: &str) -> Result<String, DecodeError> {
        let at = self.at;
        let n = self.len(what)?;
        let b = self.take(n, what)?;
        String::from_utf8(b.to_vec()).map_err(|_| (at, format!("{what} is not UTF-8")))
    }
}

/// Decodes a record payload; values land at their fields' positions in `schema`.
fn decode_record(schema: &Schema, payload: &[u8]) -> Result<Record, DecodeError> {
    let mut c = Cursor { bytes: payload, at: 0 };
    let op = c.array::<1>("op")?[0];
    let record = match op {
        OP_DELETE => Record::Delete(c.string("key")?),
        OP_PUT => {
            let key = c.string("key")?;
            let n = c.len("field count")?;
            if n > schema.fields().len() {
                return Err((c.at - 4, format!("{n} fields, the schema has {}", schema.fields().len())));
            }
            let mut values = vec![Value::Null; schema.fields().len()];
            for _ in 0..n {
                let at = c.at;
                let id = u16::from_le_bytes(c.array("field id")?);
                let Some(pos) = schema.position_of_id(id) else {
                    if id < schema.next_field_id() {
                        // A field dropped since the record was logged: its value is skipped.
                        decode_value(&mut c)?;
                        continue;
                    }
                    return Err((at, format!("unknown field id {id}")));
                };
                if !matches!(values[pos], Value::Null) {
                    return Err((at, format!("field id {id} appears twice")));
                }
                let value_at = c.at;
                let v = decode_value(&mut c)?;
                let field = schema.field(pos);
                values[pos] = widened(v, &field.ty).map_err(|v| {
                    (
                        value_at,
                        format!("field `{}` is {}, the record holds {}", field.name, field.ty.name(), v.type_name()),
                    )
                })?;
            }
            Record::Put(Row { key, values })
        }
        other => return Err((0, format!("unknown record op {other}"))),
    };
    if c.at != payload.len() {
        return Err((c.at, format!("{} trailing bytes after the record", payload.len() - c.at)));
    }
    Ok(record)
}

/// `v` as a value of type `ty`: as it is, or widened when the field was widened since the
/// record was logged; `Err(v)` when it fits neither way.
fn widened(v: Value, ty: &crate::schema::FieldType) -> Result<Value, Value> {
    use crate::schema::FieldType;
    let v = match (v, ty) {
        (Value::Array(xs), FieldType::Array(e)) => Value::Array(xs.into_iter().map(|x| widen_scalar(x, *e)).collect()),
        (Value::Null, _) => Value::Null,
        (v, FieldType::Array(e)) if !matches!(v, Value::Array(_)) => Value::Array(vec![widen_scalar(v, *e)]),
        (v, FieldType::Scalar(s)) => widen_scalar(v, *s),
        (v, _) => v,
    };
    if v.fits(ty) { Ok(v) } else { Err(v) }
}

/// A scalar value widened to type `to` where that is a widening; as it is otherwise.
fn widen_scalar(v: Value, to: crate::schema::ScalarType) -> Value {
    use crate::schema::ScalarType as S;
    match (v, to) {
        (Value::Int32(x), S::Int64) => Value::Int64(x.into()),
        (Value::Uint32(x), S::Uint64) => Value::Uint64(x.into()),
        (Value::Uint32(x), S::Int64) => Value::Int64(x.into()),
        (Value::Float(x), S::Double) => Value::Double(x.into()),
        (v, _) => v,
    }
}

fn decode_value(c: &mut Cursor) -> Result<Value, DecodeError> {
    let at = c.at;
    let tag = c.array::<1>("value tag")?[0];
    Ok(match tag {
        1 => Value::String(c.string("string value")?),
        2 => Value::Bool(c.array::<1>("bool")?[0] != 0),
        3 => Value::Int32(i32::from_le_bytes(c.array("int32")?)),
        4 => Value::Int64(i64::from_le_bytes(c.array("int64")?)),
        5 => Value::Uint32(u32::from_le_bytes(c.array("uint32")?)),
        6 => Value::Uint64(u64::from_le_bytes(c.array("uint64")?)),
        7 => Value::Float(f32::from_le_bytes(c.array("float")?)),
        8 => Value::Double(f64::from_le_bytes(c.array("double")?)),
        9 => {
            let n = c.len("vector length")?;
            let b = c.take(n.saturating_mul(4), "vector_fp32")?;
            Value::VectorFp32(b.chunks_exact(4).map(|x| f32::from_le_bytes(x.try_into().expect("4"))).collect())
        }
        10 => {
            let n = c.len("vector length")?;
            let b = c.take(n.saturating_mul(2), "vector_fp16")?;
            Value::VectorFp16(b.chunks_exact(2).map(|x| f16::from_le_bytes(x.try_into().expect("2"))).collect())
        }
        11 => {
            let n = c.len("vector length")?;
            Value::VectorInt8(c.take(n, "vector_int8")?.iter().map(|&x| x as i8).collect())
        }
        12 => {
            let n = c.len("array length")?;
            if n > crate::schema::MAX_ARRAY_LEN {
                return Err((
                    at + 1,
                    format!("array of {n} elements; an array holds at most {}", crate::schema::MAX_ARRAY_LEN),
                ));
            }
            let mut xs = Vec::with_capacity(n);
            for i in 0..n {
                // Elements are scalars: checked before decoding, so nesting never recurses.
                if !c.bytes.get(c.at).is_some_and(|t| (1..=8).contains(t)) {
                    return Err((c.at, format!("array element {i} is not a scalar value")));
                }
                xs.push(decode_value(c)?);
            }
            Value::Array(xs)
        }
        13 => {
            let n = c.len("sparse vector length")?;
            if n > crate::sparse::MAX_SPARSE_LEN {
                let most = crate::sparse::MAX_SPARSE_LEN;
                return Err((at + 1, format!("sparse vector of {n} dimensions; one holds at most {most}")));
            }
            let indices = c.take(n * 4, "sparse indices")?;
            let values = c.take(n * 4, "sparse values")?;
            let word = |b: &[u8]| u32::from_le_bytes(b.try_into().expect("4"));
            let pairs =
                indices.chunks_exact(4).zip(values.chunks_exact(4)).map(|(i, v)| (word(i), f32::from_bits(word(v))));
            Value::Sparse(crate::sparse::SparseVector::new(pairs).map_err(|e| (at, format!("sparse vector: {e}")))?)
        }
        other => return Err((at, format!("unknown value tag {other}"))),
    })
}

pub(crate) mod sync_record;
mod tail;
#[cfg(test)]
mod tests;

pub(crate) use tail::{TailPos, Tailed, tail};
