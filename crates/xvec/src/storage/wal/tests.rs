use super::*;
use crate::schema::{Field, Metric, ScalarType, VectorType};
use std::path::PathBuf;

pub(super) fn schema() -> Schema {
    Schema::builder("t")
        .field(Field::scalar("s", ScalarType::String).nullable(true))
        .field(Field::scalar("n", ScalarType::Int32).nullable(true))
        .field(Field::scalar("b", ScalarType::Bool))
        .field(Field::scalar("i64", ScalarType::Int64))
        .field(Field::scalar("u32", ScalarType::Uint32))
        .field(Field::scalar("u64", ScalarType::Uint64))
        .field(Field::scalar("f", ScalarType::Float))
        .field(Field::scalar("d", ScalarType::Double))
        .field(Field::vector("v32", VectorType::Fp32, 2, Metric::L2))
        .field(Field::vector("v16", VectorType::Fp16, 1, Metric::L2))
        .field(Field::vector("v8", VectorType::Int8, 2, Metric::L2))
        .build()
        .unwrap()
}

pub(super) fn put(key: &str, s: &str) -> Record {
    Record::Put(Row {
        key: key.into(),
        values: vec![
            Value::String(s.into()),
            Value::Null,
            Value::Bool(true),
            Value::Int64(i64::MIN),
            Value::Uint32(u32::MAX),
            Value::Uint64(7),
            Value::Float(1.5),
            Value::Double(-2.25),
            Value::VectorFp32(vec![1.0, -0.5]),
            Value::VectorFp16(vec![f16::from_f32(0.25)]),
            Value::VectorInt8(vec![-128, 127]),
        ],
    })
}

/// Three batches (2 records, 1 delete, 3 records), each synced: its sync mark follows it.
fn batches() -> Vec<Vec<Record>> {
    vec![
        vec![put("a", "héllo"), put("b", "x")],
        vec![Record::Delete("a".into())],
        vec![put("c", "y"), put("d", "z"), put("e", "w")],
    ]
}

fn write(dir: &Path, batches: &[Vec<Record>]) -> (PathBuf, u64) {
    write_salted(dir, batches, 0x5eed)
}

fn write_salted(dir: &Path, batches: &[Vec<Record>], salt: u64) -> (PathBuf, u64) {
    let mut w = WalWriter::create(dir, 1, salt, SyncPolicy::EveryBatch).unwrap();
    for b in batches {
        w.append(&schema(), b).unwrap();
    }
    (w.path().to_path_buf(), w.salt())
}

fn keys(s: &Scan) -> Vec<&str> {
    s.records.iter().map(|f| f.record.key()).collect()
}

#[test]
fn round_trip_every_value_type() {
    let dir = tempfile::tempdir().unwrap();
    let (path, salt) = write(dir.path(), &batches());
    let bytes = std::fs::read(&path).unwrap();
    let s = read(&path, &bytes, Some((1, salt)), &schema()).unwrap();
    let all: Vec<Record> = batches().concat();
    assert_eq!(s.records.iter().map(|f| f.record.clone()).collect::<Vec<_>>(), all);
    assert_eq!(s.records.iter().map(|f| f.lsn).collect::<Vec<_>>(), vec![1, 2, 4, 6, 7, 8]);
    assert_eq!((s.torn, s.valid_len, s.next_lsn), (None, bytes.len() as u64, 10));
    assert!(s.damage.is_empty());
}

#[test]
fn every_truncation_is_a_torn_tail_holding_no_whole_batch() {
    let dir = tempfile::tempdir().unwrap();
    let (path, salt) = write(dir.path(), &batches());
    let bytes = std::fs::read(&path).unwrap();
    let full = read(&path, &bytes, Some((1, salt)), &schema()).unwrap();
    for cut in WAL_HEADER_LEN..bytes.len() {
        let s = read(&path, &bytes[..cut], Some((1, salt)), &schema()).unwrap();
        // Whole batches only: the records kept are a prefix that ends at a batch end.
        let kept = s.records.len();
        assert!([0, 2, 3, 6].contains(&kept), "cut {cut}: {kept} records");
        assert_eq!(s.records[..], full.records[..kept], "cut {cut}");
        let (at, len) = s.torn.unwrap_or((cut as u64, 0));
        assert_eq!(at + len, cut as u64, "cut {cut}");
        assert_eq!(s.valid_len, at, "cut {cut}");
        assert!(s.damage.is_empty(), "cut {cut}: {:?}", s.damage);
    }
}

#[test]
fn a_flipped_byte_before_the_last_sync_mark_is_damage_and_loses_only_its_frame() {
    let dir = tempfile::tempdir().unwrap();
    let (path, salt) = write(dir.path(), &batches());
    let bytes = std::fs::read(&path).unwrap();
    let full = scan(&path, &bytes, Some((1, salt)), &schema()).unwrap();
    let last_mark = bytes.len() - FRAME_HEADER - 8;
    for i in 0..bytes.len() {
        let mut bad = bytes.clone();
        bad[i] ^= 0x04;
        let s = scan(&path, &bad, Some((1, salt)), &schema()).unwrap();
        if i >= last_mark {
            // Only the last sync mark: a torn tail, no record lost.
            assert_eq!(s.records, full.records, "byte {i}");
            assert_eq!(s.torn, Some((last_mark as u64, (bytes.len() - last_mark) as u64)), "byte {i}");
            continue;
        }
        assert_eq!(s.damage.len(), 1, "byte {i}: {:?}", s.damage);
        let d = &s.damage[0];
        assert!(d.offset <= i as u64 && (i as u64) < d.offset + d.len.max(1), "byte {i}: {d:?}");
        assert!(d.lost.end - d.lost.start <= 1, "byte {i}: {d:?}");
        let lost = full.records.iter().filter(|f| d.lost.contains(&f.lsn)).count();
        assert_eq!(s.records.len() + lost, full.records.len(), "byte {i}");
        assert!(s.torn.is_none(), "byte {i}");
        // Read-only replay refuses it, naming the offset.
        let e = read(&path, &bad, Some((1, salt)), &schema()).unwrap_err().to_string();
        assert!(e.contains(&format!("damaged at offset {}", d.offset)), "{e}");
    }
}

#[test]
fn damage_names_its_neighbours_and_what_it_took() {
    let dir = tempfile::tempdir().unwrap();
    let (path, salt) = write(dir.path(), &batches());
    let mut bytes = std::fs::read(&path).unwrap();
    let s = scan(&path, &bytes, Some((1, salt)), &schema()).unwrap();
    let d_frame = s.records.iter().find(|f| f.record.key() == "d").unwrap().offset as usize;
    bytes[d_frame + FRAME_HEADER + 10] ^= 0xff;
    let s = scan(&path, &bytes, Some((1, salt)), &schema()).unwrap();
    assert_eq!(keys(&s), ["a", "b", "a", "c", "e"]);
    let d = &s.damage[0];
    assert_eq!((d.before.as_deref(), d.after.as_deref()), (Some("c"), Some("e")));
    assert_eq!(d.lost, 7..8);
    assert_eq!(d.key_hints, ["d"]);
}

#[test]
fn record_bytes_that_mimic_a_frame_never_resynchronize_the_scan() {
    // A vector value holding a copy of a real frame of another WAL: without the salt, a
    // scan that lost its place would take it for a frame.
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = write_salted(dir.path(), &[vec![put("x", "plain")]], 1);
    let bytes = std::fs::read(&path).unwrap();
    let mut mimic = put("y", "carrier");
    if let Record::Put(row) = &mut mimic {
        row.values[10] = Value::VectorInt8(bytes[WAL_HEADER_LEN..].iter().map(|&b| b as i8).collect());
    }
    let other = tempfile::tempdir().unwrap();
    let (path2, salt2) = write_salted(other.path(), &[vec![mimic], vec![put("z", "after")]], 2);
    let mut b2 = std::fs::read(&path2).unwrap();
    b2[WAL_HEADER_LEN + 1] ^= 1;
    let s = scan(&path2, &b2, Some((1, salt2)), &schema()).unwrap();
    assert_eq!(keys(&s), ["z"]);
    assert_eq!(s.damage[0].lost, 1..2);
}

#[test]
fn a_zero_filled_tail_is_torn() {
    let dir = tempfile::tempdir().unwrap();
    let (path, salt) = write(dir.path(), &batches());
    let mut bytes = std::fs::read(&path).unwrap();
    let good = bytes.len();
    bytes.extend_from_slice(&[0u8; 100]);
    let s = read(&path, &bytes, Some((1, salt)), &schema()).unwrap();
    assert_eq!(s.records.len(), 6);
    assert_eq!(s.torn, Some((good as u64, 100)));
}

#[test]
fn a_damaged_header_is_damage_when_the_manifest_knows_the_salt() {
    let dir = tempfile::tempdir().unwrap();
    let (path, salt) = write(dir.path(), &batches());
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[SALT_AT + 2] ^= 1;
    let s = scan(&path, &bytes, Some((1, salt)), &schema()).unwrap();
    assert_eq!(s.records.len(), 6);
    assert_eq!(s.damage.len(), 1);
    assert_eq!(s.damage[0].offset, 0);
    assert!(scan(&path, &bytes, None, &schema()).is_err());
}

#[test]
fn reopen_appends_after_the_last_whole_batch_with_the_next_lsn() {
    let dir = tempfile::tempdir().unwrap();
    let (path, salt) = write(dir.path(), &batches());
    let bytes = std::fs::read(&path).unwrap();
    // Cut inside the last batch: the writer continues from the end of the second.
    let s = read(&path, &bytes[..bytes.len() - 50], Some((1, salt)), &schema()).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() - 50]).unwrap();
    let mut w = WalWriter::reopen(dir.path(), &s, SyncPolicy::EveryBatch).unwrap();
    w.append(&schema(), &[put("f", "new")]).unwrap();
    drop(w);
    let bytes = std::fs::read(&path).unwrap();
    let s = read(&path, &bytes, Some((1, salt)), &schema()).unwrap();
    assert_eq!(keys(&s), ["a", "b", "a", "f"]);
    assert!(s.torn.is_none() && s.damage.is_empty());
}

/// Issue 36: the writer logged a 1.1 GB record that every later scan refused as damage.
/// It now refuses a record past the frame bound before writing anything of its batch;
/// the bound is a parameter so the test checks it at a few hundred bytes.
#[test]
fn writer_refuses_a_frame_the_reader_would_refuse() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = WalWriter::create(dir.path(), 1, 0x5eed, SyncPolicy::EveryBatch).unwrap();
    let record = put("big", &"x".repeat(200));
    let mut probe = Vec::new();
    encode_record(&schema(), &record, &mut probe);
    let bound = probe.len() as u32;
    let Record::Put(row) = &record else { unreachable!("a put") };
    assert_eq!(row.logged_len(), probe.len(), "Row::logged_len is the encoded length");

    w.encode_batch(&schema(), std::slice::from_ref(&record), bound).unwrap();
    let err = w.encode_batch(&schema(), &[put("a", "small"), record.clone()], bound - 1).unwrap_err();
    assert!(
        matches!(&err, StorageError::FrameTooLarge { len, max, key, .. } if *len == probe.len() && *max == bound - 1 && key == "big"),
        "{err}"
    );
    assert!(err.to_string().contains("nothing of its batch was written"), "{err}");
    assert!(w.buf.is_empty(), "the refused batch leaves nothing to write");

    // The reader's bound is the same test: a header declaring MAX_FRAME + 1 is damage for
    // its length, MAX_FRAME is only short of bytes.
    assert!(frame_fits(u64::from(MAX_FRAME), MAX_FRAME));
    assert!(!frame_fits(u64::from(MAX_FRAME) + 1, MAX_FRAME));
    w.append(&schema(), &[put("ok", "y")]).unwrap();
    let bytes = std::fs::read(w.path()).unwrap();
    let at = WAL_HEADER_LEN;
    let declare = |n: u32| {
        let mut b = bytes.clone();
        b[at + LEN_AT..at + LEN_AT + 4].copy_from_slice(&n.to_le_bytes());
        let crc = salted_crc(0x5eed, &b[at..at + FRAME_CRC_AT]);
        b[at + FRAME_CRC_AT..at + FRAME_HEADER].copy_from_slice(&crc.to_le_bytes());
        match check_frame(&b, at, 0x5eed) {
            FrameCheck::Bad(why) => why,
            FrameCheck::Good { .. } => "good".into(),
        }
    };
    assert!(declare(MAX_FRAME + 1).contains("exceeds the 1073741824-byte bound"), "{}", declare(MAX_FRAME + 1));
    assert!(declare(MAX_FRAME).contains("runs past the end"), "{}", declare(MAX_FRAME));
}

/// Pages of `path` in the page cache, counted with `mincore` over a mapping that reads
/// nothing.
fn cached_pages(path: &Path) -> usize {
    let file = std::fs::File::open(path).unwrap();
    let map = unsafe { memmap2::Mmap::map(&file) }.unwrap();
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize;
    let mut v = vec![0u8; map.len().div_ceil(page)];
    // SAFETY: `v` has one byte per page of the mapping.
    let r = unsafe { libc::mincore(map.as_ptr() as *mut libc::c_void, map.len(), v.as_mut_ptr()) };
    assert_eq!(r, 0);
    v.iter().filter(|&&b| b & 1 == 1).count()
}

/// A bulk load's WAL does not stay in the page cache: once a sync made frames durable the
/// writer drops their pages (it never reads them back), so the next appends reuse that
/// memory instead of the page cache growing by the whole log. Unsynced frames (a policy
/// that syncs on flush) stay cached. A file system that keeps a file's pages whatever the
/// advice (tmpfs) cannot show it: the test says so and checks only the contents.
#[test]
fn a_synced_wal_drops_its_pages_from_the_page_cache() {
    let dir = tempfile::tempdir().unwrap();
    let big = |k: usize| -> Vec<Record> { (0..64).map(|i| put(&format!("k{k}.{i}"), &"x".repeat(16 << 10))).collect() };
    // Whether this file system frees clean pages on advice at all.
    let probe = dir.path().join("probe");
    std::fs::write(&probe, vec![1u8; 1 << 20]).unwrap();
    let f = DiskFile::open_write(&probe).unwrap();
    f.sync_data().unwrap();
    f.drop_cached(0, 1 << 20);
    let drops = cached_pages(&probe) < 16;

    let mut w = WalWriter::create(dir.path(), 1, 0x5eed, SyncPolicy::EveryBatch).unwrap();
    for k in 0..4 {
        w.append(&schema(), &big(k)).unwrap();
    }
    let synced = w.path().to_path_buf();
    let (len, page) = (std::fs::metadata(&synced).unwrap().len() as usize, 4096);
    assert!(len > 4 << 20, "{len} bytes");
    let other = dir.path().join("lazy");
    std::fs::create_dir(&other).unwrap();
    let mut lazy = WalWriter::create(&other, 1, 0x5eed, SyncPolicy::OnFlush).unwrap();
    for k in 0..4 {
        lazy.append(&schema(), &big(k)).unwrap();
    }
    let unsynced = lazy.path().to_path_buf();
    if drops {
        // At most the last partial stretch before the sync mark, and the mark's page.
        let left = cached_pages(&synced);
        assert!(left * page <= 2 * DROP_ALIGN as usize, "{left} pages of a synced {len}-byte WAL still cached");
        assert!(cached_pages(&unsynced) * page >= len / 2, "the unsynced WAL was dropped");
    } else {
        eprintln!("this file system keeps pages on POSIX_FADV_DONTNEED: only the contents are checked");
    }
    // Every record reads back, from the disk now.
    drop(w);
    let bytes = std::fs::read(&synced).unwrap();
    let s = read(&synced, &bytes, Some((1, 0x5eed)), &schema()).unwrap();
    assert_eq!(s.records.len(), 4 * 64);
    assert!(s.torn.is_none() && s.damage.is_empty());
}
