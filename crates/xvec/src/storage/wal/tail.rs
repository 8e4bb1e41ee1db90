//! Following a live writer's WAL from another process.
//!
//! A read-only handle applies the WAL once with a full [`scan`](super::scan), then calls
//! [`tail`] to read what the writer appended since. The tailer reads only forward from
//! where it stopped, with positional reads through the disk seam (never a map: the
//! writer may cut the file back). It differs from the scan in one respect: for a tailer
//! the first frame that does not check out is a write still in flight, not damage, so it
//! stops there and never looks past it; the next call reads that frame again.

use std::path::Path;

use super::{
    FLAG_END_OF_BATCH, FRAME_HEADER, Frame, FrameCheck, KIND_RECORD, Scan, WAL_HEADER_LEN, check_next_frame,
    decode_record, decode_wal_header,
};
use crate::error::StorageError;
use crate::schema::Schema;
use crate::storage::disk::DiskFile;

/// How far a reader has applied a WAL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TailPos {
    /// The WAL's sequence and salt: which file this position is in.
    pub seq: u64,
    pub salt: u64,
    /// End of the last whole batch applied: where the next read starts.
    pub offset: u64,
    /// The LSN the frame at `offset` must carry.
    pub next_lsn: u64,
}

impl TailPos {
    /// Where a reader stands after applying `scan`: the end of its last whole batch (a
    /// torn tail is read again by the first [`tail`]).
    pub(crate) fn after(scan: &Scan) -> TailPos {
        TailPos { seq: scan.seq, salt: scan.salt, offset: scan.valid_len, next_lsn: scan.next_lsn }
    }
}

/// What a [`tail`] found.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tailed {
    /// The records of the whole batches appended after the position, in log order (none if
    /// nothing whole was added), and the position after them.
    Records { records: Vec<Frame>, pos: TailPos },
    /// The file is no longer the one the position is in, or was cut back below it: the
    /// reader must open the collection afresh. Says why.
    Reset(String),
}

/// Reads the whole batches appended to the WAL at `path` since `from`.
///
/// A tailer sees a prefix of what the writer has *written*, in whole batches, which is
/// not quite what it has acknowledged: a batch is in the file before its write call syncs
/// and returns. Under [`EveryBatch`](super::SyncPolicy::EveryBatch) every batch but the
/// last one returned is synced and acknowledged, and the last one is too unless its sync
/// is still running or fails (the writer then refuses every later call). Under
/// `EveryRecords` and `OnFlush` it may also return acknowledged batches not yet synced,
/// which a power loss can still take from the file (and, on one machine, the tailer's
/// process with them). A writer that merely crashes loses nothing written: its next open
/// cuts off only a batch never ended, which no tailer was given.
///
/// Stops at the first frame that does not check out or does not carry the next LSN, and
/// returns nothing after it: an append in flight looks just like that. Real damage there
/// therefore shows as a tail that stops advancing; the writer's own recovery, or a fresh
/// open, reports it. A frame that checks out but whose record does not decode is
/// [`StorageError::Corrupted`]. A WAL that is gone (the writer flushed and moved on) or
/// whose header no longer names `from`'s sequence and salt, or a file shorter than
/// `from.offset`, is a [`Tailed::Reset`]. Reads at most what the file holds past
/// `from.offset`; any I/O error is returned as it is.
pub(crate) fn tail(path: &Path, from: TailPos, schema: &Schema) -> Result<Tailed, StorageError> {
    let mut file = match DiskFile::open_read(path) {
        Ok(f) => f,
        Err(StorageError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Tailed::Reset(format!("{} is gone", path.display())));
        }
        Err(e) => return Err(e),
    };
    // Header and frames from one handle: a file renamed over the name in between cannot
    // pass one's header off for the other's frames.
    let head = file.read_at_most(0, WAL_HEADER_LEN as u64)?;
    match decode_wal_header(path, &head) {
        Ok(named) if named == (from.seq, from.salt) => {}
        Ok((seq, salt)) => {
            return Ok(Tailed::Reset(format!(
                "{} is now WAL {seq} with salt {salt:#018x}, not WAL {} with salt {:#018x}",
                path.display(),
                from.seq,
                from.salt
            )));
        }
        Err(e) => return Ok(Tailed::Reset(format!("the WAL header no longer reads: {e}"))),
    }
    if from.offset < WAL_HEADER_LEN as u64 {
        return Ok(Tailed::Reset(format!("position {} lies inside the WAL header", from.offset)));
    }
    let len = file.len()?;
    let Some(new) = len.checked_sub(from.offset) else {
        return Ok(Tailed::Reset(format!(
            "{} is {len} bytes, cut back below the {} already applied",
            path.display(),
            from.offset
        )));
    };
    let bytes = file.read_at_most(from.offset, new)?;
    walk(path, &bytes, from, schema)
}

/// The whole batches at the start of `b`, the bytes of the file at `path` from
/// `from.offset` on.
fn walk(path: &Path, b: &[u8], from: TailPos, schema: &Schema) -> Result<Tailed, StorageError> {
    let file_offset = |at: usize| {
        u64::try_from(at)
            .ok()
            .and_then(|at| from.offset.checked_add(at))
            .ok_or_else(|| StorageError::corrupted(path, from.offset, "offset beyond 2^64 bytes"))
    };
    let mut records = Vec::new();
    let mut batch = Vec::new();
    let mut pos = from;
    let mut next_lsn = from.next_lsn;
    let mut at = 0;
    while at < b.len() {
        let FrameCheck::Good { kind, flags, lsn, end } = check_next_frame(b, at, from.salt, next_lsn) else {
            break;
        };
        let Some(after) = lsn.checked_add(1) else { break };
        next_lsn = after;
        if kind == KIND_RECORD {
            let offset = file_offset(at)?;
            match decode_record(schema, &b[at + FRAME_HEADER..end]) {
                Ok(record) => batch.push(Frame { offset, lsn, record }),
                Err((off, what)) => {
                    let bad_at = file_offset(at + FRAME_HEADER + off)?;
                    return Err(StorageError::corrupted(path, bad_at, format!("record does not decode: {what}")));
                }
            }
        }
        at = end;
        if flags & FLAG_END_OF_BATCH != 0 {
            records.append(&mut batch);
            pos.offset = file_offset(end)?;
            pos.next_lsn = next_lsn;
        }
    }
    Ok(Tailed::Records { records, pos })
}

#[cfg(test)]
mod tests;
