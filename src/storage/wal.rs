//! The write-ahead log: every accepted write, framed and checksummed, since the last flush.
//!
//! A frame is `len u32 | crc32c u32 | payload[len]`, the CRC covering the length bytes and
//! the payload. A frame that runs past the end of the file, or fails its CRC with nothing
//! but zeros after it, is a torn tail (a write cut short by a crash): the writer truncates
//! it, a reader ignores it. Any other bad frame is corruption and names its offset.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use half::f16;

use super::{FileKind, HEADER_LEN, decode_header, encode_header};
use crate::error::StorageError;
use crate::value::{Row, Value};

/// Largest payload a frame may declare; anything larger is corruption, not an allocation.
pub const MAX_FRAME: u32 = 1 << 30;
pub const FRAME_HEADER: usize = 8;

const OP_PUT: u8 = 1;
const OP_DELETE: u8 = 2;

/// One logged write.
#[derive(Clone, Debug, PartialEq)]
pub enum Record {
    /// The whole new version of a document (inserts, upserts and updates all log this).
    Put(Row),
    /// Removal of a key.
    Delete(String),
}

/// When the WAL is fsynced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SyncPolicy {
    /// After every write call (a batch): an acknowledged write survives a crash.
    #[default]
    EveryBatch,
    /// After at least this many records have accumulated since the last sync.
    EveryRecords(u32),
    /// Only on flush and close: fastest, a crash loses unflushed writes.
    OnFlush,
}

/// Appends frames to one WAL file.
pub struct WalWriter {
    path: PathBuf,
    file: File,
    seq: u64,
    len: u64,
    buf: Vec<u8>,
    policy: SyncPolicy,
    unsynced_records: u64,
    unsynced_bytes: u64,
    records: u64,
}

impl WalWriter {
    /// Creates a new, empty WAL file (durably: the caller fsyncs the directory).
    pub fn create(dir: &Path, seq: u64, policy: SyncPolicy) -> Result<WalWriter, StorageError> {
        let path = dir.join(super::wal_name(seq));
        let mut file =
            OpenOptions::new().create_new(true).write(true).open(&path).map_err(|e| StorageError::io(&path, e))?;
        file.write_all(&encode_header(FileKind::Wal, seq))
            .and_then(|_| file.sync_all())
            .map_err(|e| StorageError::io(&path, e))?;
        Ok(WalWriter {
            path,
            file,
            seq,
            len: HEADER_LEN as u64,
            buf: Vec::new(),
            policy,
            unsynced_records: 0,
            unsynced_bytes: 0,
            records: 0,
        })
    }

    /// Reopens an existing WAL for appending after replay, cutting off a torn tail.
    pub fn reopen(
        dir: &Path,
        seq: u64,
        valid_len: u64,
        records: u64,
        policy: SyncPolicy,
    ) -> Result<WalWriter, StorageError> {
        let path = dir.join(super::wal_name(seq));
        let file = OpenOptions::new().write(true).open(&path).map_err(|e| StorageError::io(&path, e))?;
        let on_disk = file.metadata().map_err(|e| StorageError::io(&path, e))?.len();
        if on_disk != valid_len {
            file.set_len(valid_len).and_then(|_| file.sync_all()).map_err(|e| StorageError::io(&path, e))?;
        }
        let mut w = WalWriter {
            path,
            file,
            seq,
            len: valid_len,
            buf: Vec::new(),
            policy,
            unsynced_records: 0,
            unsynced_bytes: 0,
            records,
        };
        use std::io::Seek;
        w.file.seek(std::io::SeekFrom::End(0)).map_err(|e| StorageError::io(&w.path, e))?;
        Ok(w)
    }

    pub fn seq(&self) -> u64 {
        self.seq
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Bytes in the file, header included.
    pub fn file_len(&self) -> u64 {
        self.len
    }

    pub fn records(&self) -> u64 {
        self.records
    }

    pub fn unsynced_records(&self) -> u64 {
        self.unsynced_records
    }

    /// Capacity of the reused frame buffer, for memory accounting.
    pub fn buffer_bytes(&self) -> usize {
        self.buf.capacity()
    }

    /// Appends records as one write, then syncs as the policy says.
    pub fn append(&mut self, records: &[Record]) -> Result<(), StorageError> {
        self.buf.clear();
        for r in records {
            let start = self.buf.len();
            self.buf.extend_from_slice(&[0u8; FRAME_HEADER]);
            encode_record(r, &mut self.buf);
            let payload_len = (self.buf.len() - start - FRAME_HEADER) as u32;
            self.buf[start..start + 4].copy_from_slice(&payload_len.to_le_bytes());
            let crc =
                crc32c::crc32c_append(crc32c::crc32c(&self.buf[start..start + 4]), &self.buf[start + FRAME_HEADER..]);
            self.buf[start + 4..start + 8].copy_from_slice(&crc.to_le_bytes());
        }
        self.file.write_all(&self.buf).map_err(|e| StorageError::io(&self.path, e))?;
        self.len += self.buf.len() as u64;
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

    /// Makes every appended record durable.
    pub fn sync(&mut self) -> Result<(), StorageError> {
        if self.unsynced_bytes > 0 {
            self.file.sync_data().map_err(|e| StorageError::io(&self.path, e))?;
        }
        self.unsynced_records = 0;
        self.unsynced_bytes = 0;
        Ok(())
    }
}

/// What a WAL file holds.
#[derive(Debug)]
pub struct WalContents {
    pub seq: u64,
    pub records: Vec<Record>,
    /// Bytes up to the end of the last good frame.
    pub valid_len: u64,
    /// Offset and length of a torn tail, if the file ends in one.
    pub torn: Option<(u64, u64)>,
}

/// Reads and checks every frame of a WAL file's bytes.
pub fn read(path: &Path, bytes: &[u8]) -> Result<WalContents, StorageError> {
    let seq = decode_header(path, bytes, FileKind::Wal)?;
    let mut records = Vec::new();
    let mut at = HEADER_LEN;
    let torn = |at: usize| Some((at as u64, (bytes.len() - at) as u64));
    while at < bytes.len() {
        let rest = &bytes[at..];
        if rest.len() < FRAME_HEADER {
            return Ok(WalContents { seq, records, valid_len: at as u64, torn: torn(at) });
        }
        let len = super::read_u32(rest, 0);
        let crc = super::read_u32(rest, 4);
        let declared = FRAME_HEADER.saturating_add(len as usize);
        if len > MAX_FRAME || declared > rest.len() {
            if let Some(next) = valid_frame_after(bytes, at + 1) {
                return Err(StorageError::corrupted(
                    path,
                    at as u64,
                    format!(
                        "frame length {len} runs past the end of the file, but a valid frame follows at offset {next}"
                    ),
                ));
            }
            return Ok(WalContents { seq, records, valid_len: at as u64, torn: torn(at) });
        }
        let end = at + declared;
        let payload = &bytes[at + FRAME_HEADER..end];
        let actual = crc32c::crc32c_append(crc32c::crc32c(&rest[..4]), payload);
        if actual != crc {
            if valid_frame_after(bytes, at + 1).is_none() {
                return Ok(WalContents { seq, records, valid_len: at as u64, torn: torn(at) });
            }
            return Err(StorageError::corrupted(
                path,
                at as u64,
                format!(
                    "WAL frame checksum mismatch (stored {crc:#010x}, computed {actual:#010x}) with valid frames after it"
                ),
            ));
        }
        let record = decode_record(payload)
            .map_err(|(off, what)| StorageError::corrupted(path, (at + FRAME_HEADER + off) as u64, what))?;
        records.push(record);
        at = end;
    }
    Ok(WalContents { seq, records, valid_len: at as u64, torn: None })
}

/// Offset of the first frame at or after `from` whose CRC checks out. A bad frame with a
/// good one after it is damage in the middle of the log, not a write cut short.
pub fn valid_frame_after(bytes: &[u8], from: usize) -> Option<usize> {
    let mut budget: usize = 64 << 20;
    for p in from..bytes.len().saturating_sub(FRAME_HEADER) {
        let len = super::read_u32(bytes, p) as usize;
        let end = p + FRAME_HEADER + len;
        if len == 0 || end > bytes.len() {
            continue;
        }
        if budget < len {
            return None;
        }
        budget -= len;
        let crc = super::read_u32(bytes, p + 4);
        if crc32c::crc32c_append(crc32c::crc32c(&bytes[p..p + 4]), &bytes[p + FRAME_HEADER..end]) == crc {
            return Some(p);
        }
    }
    None
}

fn put_len(buf: &mut Vec<u8>, n: usize) {
    buf.extend_from_slice(&(n as u32).to_le_bytes());
}

fn encode_record(r: &Record, buf: &mut Vec<u8>) {
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
            put_len(buf, row.values.len());
            for v in &row.values {
                encode_value(v, buf);
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

fn decode_record(payload: &[u8]) -> Result<Record, DecodeError> {
    let mut c = Cursor { bytes: payload, at: 0 };
    let op = c.array::<1>("op")?[0];
    let record = match op {
        OP_DELETE => Record::Delete(c.string("key")?),
        OP_PUT => {
            let key = c.string("key")?;
            let n = c.len("field count")?;
            if n > crate::schema::MAX_FIELDS {
                return Err((c.at - 4, format!("{n} fields, more than any schema allows")));
            }
            let mut values = Vec::with_capacity(n);
            for _ in 0..n {
                values.push(decode_value(&mut c)?);
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

fn decode_value(c: &mut Cursor) -> Result<Value, DecodeError> {
    let at = c.at;
    let tag = c.array::<1>("value tag")?[0];
    Ok(match tag {
        0 => Value::Null,
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
        other => return Err((at, format!("unknown value tag {other}"))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<Record> {
        vec![
            Record::Put(Row {
                key: "a".into(),
                values: vec![
                    Value::String("héllo".into()),
                    Value::Null,
                    Value::Bool(true),
                    Value::Int32(-5),
                    Value::Int64(i64::MIN),
                    Value::Uint32(u32::MAX),
                    Value::Uint64(7),
                    Value::Float(1.5),
                    Value::Double(-2.25),
                    Value::VectorFp32(vec![1.0, -0.5]),
                    Value::VectorFp16(vec![f16::from_f32(0.25)]),
                    Value::VectorInt8(vec![-128, 127]),
                ],
            }),
            Record::Delete("b".into()),
        ]
    }

    fn write(dir: &Path, records: &[Record]) -> PathBuf {
        let mut w = WalWriter::create(dir, 1, SyncPolicy::EveryBatch).unwrap();
        w.append(records).unwrap();
        w.path().to_path_buf()
    }

    #[test]
    fn round_trip_every_value_type() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), &sample());
        let bytes = std::fs::read(&path).unwrap();
        let c = read(&path, &bytes).unwrap();
        assert_eq!(c.records, sample());
        assert_eq!(c.torn, None);
        assert_eq!(c.valid_len, bytes.len() as u64);
    }

    #[test]
    fn every_truncation_is_a_torn_tail_never_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), &sample());
        let bytes = std::fs::read(&path).unwrap();
        let first_end = {
            let len = super::super::read_u32(&bytes, HEADER_LEN) as usize;
            HEADER_LEN + FRAME_HEADER + len
        };
        for cut in HEADER_LEN..bytes.len() {
            let c = read(&path, &bytes[..cut]).unwrap();
            let expect = if cut >= first_end { 1 } else { 0 };
            assert_eq!(c.records.len(), expect, "cut {cut}");
            assert_eq!(c.torn.is_none(), cut == HEADER_LEN || cut == first_end, "cut {cut}");
        }
    }

    #[test]
    fn a_flipped_byte_is_reported_with_its_offset_or_is_a_torn_tail() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), &sample());
        let bytes = std::fs::read(&path).unwrap();
        let first_end = HEADER_LEN + FRAME_HEADER + super::super::read_u32(&bytes, HEADER_LEN) as usize;
        for i in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[i] ^= 0x04;
            match read(&path, &bad) {
                Ok(c) => {
                    // Damage in the last frame reads as a torn tail; nothing after it is lost.
                    assert!(i >= first_end, "byte {i} in the first frame went unnoticed");
                    assert_eq!(c.records.len(), 1);
                }
                Err(e) => {
                    let msg = e.to_string();
                    assert!(msg.contains("corrupted at offset") || msg.contains("version"), "{msg}");
                }
            }
        }
    }

    #[test]
    fn zero_filled_tail_is_torn() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), &sample());
        let mut bytes = std::fs::read(&path).unwrap();
        let good = bytes.len();
        bytes.extend_from_slice(&[0u8; 100]);
        let c = read(&path, &bytes).unwrap();
        assert_eq!(c.records.len(), 2);
        assert_eq!(c.torn, Some((good as u64, 100)));
    }
}
