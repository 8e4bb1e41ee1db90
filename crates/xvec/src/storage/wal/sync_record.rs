//! The WAL's sync record, `WAL.sync`: how far the live WAL was durable at its last fsync,
//! kept outside the WAL so that a WAL cut short, even at a frame boundary, can be told
//! from one that ends where its writer left it.
//!
//! Sync marks live in the WAL itself, so a cut takes them with it; only a length recorded
//! elsewhere proves that acknowledged records are gone. The file is the common header and
//! two fixed-size slots, written in turn in place after each fsync of the WAL: a write torn
//! by a crash spoils one slot, and the other still holds the record before it. The slot
//! write is not synced itself: it claims only bytes an fsync has already made durable, so
//! whichever version of it a power loss keeps is no longer than the WAL. A lost or stale
//! record weakens detection; it never reports a loss that did not happen. `docs/format.md`,
//! "WAL sync record", has the bytes.

use std::path::Path;

use super::{Scan, WAL_HEADER_LEN};
use crate::error::StorageError;
use crate::storage::disk::{self, DiskFile};
use crate::storage::{FileKind, HEADER_LEN, decode_header, encode_header, read_u32, read_u64};

/// The file name: one per collection, like `LOCK`; a slot names the WAL it describes.
pub(crate) const SYNC_NAME: &str = "WAL.sync";

const SLOT_LEN: usize = 64;
const SLOT_CRC_AT: usize = 60;
/// Bytes of the whole file: the common header and two slots.
pub(crate) const SYNC_FILE_LEN: usize = HEADER_LEN + 2 * SLOT_LEN;

/// What one slot says: WAL `seq` (with `salt`) was durable up to `len` bytes, its frames up
/// to `lsn`, holding `records` records of whole batches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Durable {
    /// Which write this is: the larger of two slots for the same WAL is the newer.
    pub counter: u64,
    pub seq: u64,
    pub salt: u64,
    pub len: u64,
    pub lsn: u64,
    pub records: u64,
}

impl Durable {
    fn encode(&self) -> [u8; SLOT_LEN] {
        let mut s = [0u8; SLOT_LEN];
        for (i, v) in [self.counter, self.seq, self.salt, self.len, self.lsn, self.records].into_iter().enumerate() {
            s[i * 8..i * 8 + 8].copy_from_slice(&v.to_le_bytes());
        }
        let crc = crc32c::crc32c(&s[..SLOT_CRC_AT]);
        s[SLOT_CRC_AT..].copy_from_slice(&crc.to_le_bytes());
        s
    }

    /// A slot that checks out; `None` for one never written, torn or damaged.
    fn decode(s: &[u8]) -> Option<Durable> {
        let word = |i: usize| read_u64(s, i * 8);
        let ok = read_u32(s, SLOT_CRC_AT) == crc32c::crc32c(&s[..SLOT_CRC_AT]) && s[48..SLOT_CRC_AT] == [0; 12];
        (ok && word(0) != 0).then(|| Durable {
            counter: word(0),
            seq: word(1),
            salt: word(2),
            len: word(3),
            lsn: word(4),
            records: word(5),
        })
    }
}

/// What `WAL.sync` says about one WAL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum SyncState {
    /// The newest good slot for that WAL.
    Found(Durable),
    /// The file has no slot for that WAL: it is missing (a collection older than the
    /// file, or one whose WAL was never synced) or its slots name other WALs.
    None,
    /// The file does not read (header or both slots damaged): why.
    Damaged(String),
}

impl SyncState {
    pub(crate) fn durable(&self) -> Option<&Durable> {
        match self {
            SyncState::Found(d) => Some(d),
            _ => None,
        }
    }
}

/// The newest good slot of `bytes` for WAL `seq` with `salt`.
pub(crate) fn decode(path: &Path, bytes: &[u8], seq: u64, salt: u64) -> SyncState {
    if let Err(e) = decode_header(path, bytes, FileKind::WalSync) {
        return SyncState::Damaged(match e {
            StorageError::Corrupted { what, .. } => what,
            other => other.to_string(),
        });
    }
    if bytes.len() != SYNC_FILE_LEN {
        return SyncState::Damaged(format!("{} bytes, expected {SYNC_FILE_LEN}", bytes.len()));
    }
    let slots: Vec<Option<Durable>> = bytes[HEADER_LEN..].chunks_exact(SLOT_LEN).map(Durable::decode).collect();
    let written = bytes[HEADER_LEN..].chunks_exact(SLOT_LEN).filter(|s| s.iter().any(|&b| b != 0)).count();
    if slots.iter().all(Option::is_none) && written > 0 {
        return SyncState::Damaged("both slots fail their checksum".into());
    }
    match slots.into_iter().flatten().filter(|d| d.seq == seq && d.salt == salt).max_by_key(|d| d.counter) {
        Some(d) => SyncState::Found(d),
        None => SyncState::None,
    }
}

/// Reads `dir/WAL.sync` for WAL `seq` with `salt`. A missing file is [`SyncState::None`];
/// other read errors are errors.
pub(crate) fn read(dir: &Path, seq: u64, salt: u64) -> Result<SyncState, StorageError> {
    let path = dir.join(SYNC_NAME);
    match disk::read(&path) {
        Ok(bytes) => Ok(decode(&path, &bytes, seq, salt)),
        Err(StorageError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => Ok(SyncState::None),
        Err(e) => Err(e),
    }
}

/// A whole `WAL.sync` whose one record says WAL `seq` (with `salt`) holds `len` durable
/// bytes, its frames up to `lsn`, `records` records: what a copy of a WAL cut at a batch
/// boundary and synced (a backup) is written with.
pub(crate) fn encode_file(seq: u64, salt: u64, len: u64, lsn: u64, records: u64) -> Vec<u8> {
    let mut bytes = vec![0u8; SYNC_FILE_LEN];
    bytes[..HEADER_LEN].copy_from_slice(&encode_header(FileKind::WalSync, 0));
    let d = Durable { counter: 1, seq, salt, len, lsn, records };
    bytes[HEADER_LEN + SLOT_LEN..].copy_from_slice(&d.encode());
    bytes
}

/// The writer's handle on `WAL.sync`.
pub(super) struct SyncFile {
    file: DiskFile,
    counter: u64,
}

impl SyncFile {
    /// Opens `dir/WAL.sync`, or makes it afresh when it is missing or does not read (what
    /// it held then proved nothing; verify has reported it).
    pub(super) fn open(dir: &Path) -> Result<SyncFile, StorageError> {
        let path = dir.join(SYNC_NAME);
        let old = disk::read(&path)
            .ok()
            .filter(|b| b.len() == SYNC_FILE_LEN && decode_header(&path, b, FileKind::WalSync).is_ok_and(|id| id == 0));
        if let Some(b) = old {
            let counter = b[HEADER_LEN..].chunks_exact(SLOT_LEN).filter_map(Durable::decode).map(|d| d.counter).max();
            let file = DiskFile::open_write(&path)?;
            return Ok(SyncFile { file, counter: counter.unwrap_or(0) });
        }
        let mut file = DiskFile::create(&path)?;
        let mut bytes = vec![0u8; SYNC_FILE_LEN];
        bytes[..HEADER_LEN].copy_from_slice(&encode_header(FileKind::WalSync, 0));
        file.write_all(&bytes)?;
        file.sync_all()?;
        disk::sync_dir(dir)?;
        Ok(SyncFile { file, counter: 0 })
    }

    /// Records that WAL `seq` is durable as `d` says, in the slot older than the other.
    /// Not synced: see the module docs.
    pub(super) fn write(&mut self, seq: u64, salt: u64, len: u64, lsn: u64, records: u64) -> Result<(), StorageError> {
        self.counter += 1;
        let d = Durable { counter: self.counter, seq, salt, len, lsn, records };
        let slot = (self.counter % 2) as usize;
        self.file.seek((HEADER_LEN + slot * SLOT_LEN) as u64)?;
        self.file.write_all(&d.encode())
    }
}

/// Acknowledged records a WAL no longer holds: it ends before the length its sync record
/// says an fsync made durable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Shortfall {
    /// Where the WAL's whole frames end now.
    pub ends: u64,
    pub durable: Durable,
    /// Records durable by the sync record that neither read nor are counted as damage.
    pub lost: u64,
}

impl Shortfall {
    /// What is wrong, in a phrase, for errors and findings.
    pub(crate) fn describe(&self) -> String {
        let d = &self.durable;
        let n = self.lost;
        format!(
            "the WAL's whole frames end at offset {}, but {SYNC_NAME} says an fsync made {} bytes durable ({} \
             records, frames through LSN {}): {n} acknowledged record{} (offsets {}..{}) {} gone",
            self.ends,
            d.len,
            d.records,
            d.lsn,
            if n == 1 { "" } else { "s" },
            self.ends,
            d.len,
            if n == 1 { "is" } else { "are" },
        )
    }
}

/// Compares a WAL's frames with its sync record. `ends`: where its whole batches end;
/// `records_before`: good records wholly before `d.len`; `damaged`: records lost to damage
/// already reported.
pub(crate) fn shortfall(d: &Durable, ends: u64, records_before: u64, damaged: u64) -> Option<Shortfall> {
    (ends < d.len).then(|| Shortfall { ends, durable: *d, lost: d.records.saturating_sub(records_before + damaged) })
}

/// [`shortfall`] for an engine scan of the WAL, `file_len` bytes long.
pub(crate) fn scan_shortfall(d: &Durable, s: &Scan, file_len: u64) -> Option<Shortfall> {
    let before = s.records.iter().filter(|f| f.offset < d.len).count() as u64;
    let damaged = s.damage.iter().map(|x| x.lost_records).sum();
    shortfall(d, s.valid_len.min(file_len), before, damaged)
}

/// Where a WAL's good frames end when nothing records its durable length, for messages.
pub(crate) fn blind_spot(ends: u64) -> String {
    let at = if ends <= WAL_HEADER_LEN as u64 { "after its header".to_string() } else { format!("at offset {ends}") };
    format!(
        "the WAL ends at a frame boundary {at} and has no {SYNC_NAME} record: records after it, if any, cannot be \
         detected"
    )
}

#[cfg(test)]
mod tests;
