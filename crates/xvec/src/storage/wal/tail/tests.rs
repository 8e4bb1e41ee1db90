use super::super::tests::{put, schema};
use super::super::{FLAGS_AT, LEN_AT, Record, SyncPolicy, WalWriter, read_u32, scan};
use super::*;
use crate::schema::{Field, Metric, VectorType};
use crate::storage::faults::{Fault, inject};
use crate::value::{Row, Value};
use std::path::PathBuf;

fn batch(keys: &[&str]) -> Vec<Record> {
    keys.iter().map(|k| put(k, "tail")).collect()
}

fn full_scan(path: &Path, schema: &Schema) -> Scan {
    scan(path, &std::fs::read(path).unwrap(), None, schema).unwrap()
}

fn records(t: Tailed) -> (Vec<Frame>, TailPos) {
    match t {
        Tailed::Records { records, pos } => (records, pos),
        Tailed::Reset(why) => panic!("unexpected reset: {why}"),
    }
}

fn keys(frames: &[Frame]) -> Vec<&str> {
    frames.iter().map(|f| f.record.key()).collect()
}

/// A WAL holding one batch, "a", and the position after a scan of it.
fn started(dir: &Path, policy: SyncPolicy) -> (WalWriter, TailPos) {
    let mut w = WalWriter::create(dir, 1, 0x7a11, policy).unwrap();
    w.append(&schema(), &batch(&["a"])).unwrap();
    let pos = TailPos::after(&full_scan(w.path(), &schema()));
    (w, pos)
}

/// Where each frame of `b` from `from` on ends, and whether it ends a batch; read with
/// nothing but the frame lengths and flags.
fn frame_ends(b: &[u8], from: usize) -> Vec<(usize, bool)> {
    let mut ends = Vec::new();
    let mut at = from;
    while at + FRAME_HEADER <= b.len() {
        let end = at + FRAME_HEADER + read_u32(b, at + LEN_AT) as usize;
        ends.push((end, b[at + FLAGS_AT] & FLAG_END_OF_BATCH != 0));
        at = end;
    }
    ends
}

#[test]
fn each_round_sees_exactly_the_batches_appended_since() {
    for policy in [SyncPolicy::EveryBatch, SyncPolicy::EveryRecords(3), SyncPolicy::OnFlush] {
        let dir = tempfile::tempdir().unwrap();
        let (mut w, mut pos) = started(dir.path(), policy);
        let path = w.path().to_path_buf();
        let rounds: [&[&[&str]]; 4] =
            [&[&["b", "c"]], &[&["d"], &["e", "f", "g"], &["h"]], &[], &[&["i", "j"], &["k"]]];
        for (i, round) in rounds.iter().enumerate() {
            let mut appended = Vec::new();
            for b in round.iter() {
                w.append(&schema(), &batch(b)).unwrap();
                appended.extend_from_slice(b);
            }
            let (got, next) = records(tail(&path, pos, &schema()).unwrap());
            assert_eq!(keys(&got), appended, "{policy:?} round {i}");
            // The position is where a full scan would leave a reader.
            assert_eq!(next, TailPos::after(&full_scan(&path, &schema())), "{policy:?} round {i}");
            pos = next;
        }
        // Record frames carry their file offsets and LSNs as the scan reports them.
        let all = full_scan(&path, &schema());
        let first = TailPos { seq: 1, salt: all.salt, offset: WAL_HEADER_LEN as u64, next_lsn: 1 };
        assert_eq!(records(tail(&path, first, &schema()).unwrap()).0, all.records, "{policy:?}");
    }
}

#[test]
fn a_batch_is_returned_only_once_its_last_frame_is_whole() {
    let dir = tempfile::tempdir().unwrap();
    let (mut w, pos) = started(dir.path(), SyncPolicy::EveryBatch);
    let path = w.path().to_path_buf();
    w.append(&schema(), &batch(&["b", "c", "d"])).unwrap();
    let full = std::fs::read(&path).unwrap();
    // The batch's frames end where its sync mark starts.
    let batch_end = full.len() - FRAME_HEADER - 8;
    for cut in pos.offset as usize..=full.len() {
        std::fs::write(&path, &full[..cut]).unwrap();
        let (got, next) = records(tail(&path, pos, &schema()).unwrap());
        if cut < batch_end {
            assert!(got.is_empty(), "cut {cut}: {:?}", keys(&got));
            assert_eq!(next, pos, "cut {cut}");
        } else {
            assert_eq!(keys(&got), ["b", "c", "d"], "cut {cut}");
            assert_eq!(next.offset, if cut == full.len() { cut } else { batch_end } as u64, "cut {cut}");
        }
    }
}

#[test]
fn a_flipped_byte_stops_the_tail_at_its_frame() {
    let dir = tempfile::tempdir().unwrap();
    let (mut w, pos) = started(dir.path(), SyncPolicy::EveryRecords(2));
    let path = w.path().to_path_buf();
    for b in [&["b"][..], &["c", "d"], &["e"], &["f", "g", "h"]] {
        w.append(&schema(), &batch(b)).unwrap();
    }
    let full = std::fs::read(&path).unwrap();
    let (all, _) = records(tail(&path, pos, &schema()).unwrap());
    let batch_ends: Vec<usize> =
        frame_ends(&full, pos.offset as usize).into_iter().filter(|e| e.1).map(|e| e.0).collect();
    assert!(batch_ends.len() > 4, "sync marks end batches too: {batch_ends:?}");
    for i in pos.offset as usize..full.len() {
        let mut bad = full.clone();
        bad[i] ^= 0x10;
        std::fs::write(&path, &bad).unwrap();
        let (got, next) = records(tail(&path, pos, &schema()).unwrap());
        // Only the batches wholly before the damaged frame: nothing valid after it counts.
        let stop = batch_ends.iter().copied().filter(|&e| e <= i).max().unwrap_or(pos.offset as usize);
        assert_eq!(next.offset, stop as u64, "byte {i}");
        let expected: Vec<&Frame> = all.iter().filter(|f| (f.offset as usize) < stop).collect();
        assert_eq!(got.iter().collect::<Vec<_>>(), expected, "byte {i}");
    }
}

#[test]
fn a_frame_out_of_lsn_order_stops_the_tail() {
    let dir = tempfile::tempdir().unwrap();
    let (mut w, pos) = started(dir.path(), SyncPolicy::OnFlush);
    let path = w.path().to_path_buf();
    for b in [&["b"][..], &["c"], &["d"]] {
        w.append(&schema(), &batch(b)).unwrap();
    }
    let full = std::fs::read(&path).unwrap();
    let ends = frame_ends(&full, WAL_HEADER_LEN);
    let frame = |n: usize| &full[if n == 0 { WAL_HEADER_LEN } else { ends[n - 1].0 }..ends[n].0];
    // An old frame spliced in again, and a frame that skips one: both valid frames of
    // this WAL, neither the one due next.
    for (what, spliced) in [("repeated", [frame(0), frame(2), frame(3)]), ("skipping", [frame(2), frame(1), frame(3)])]
    {
        std::fs::write(&path, [&full[..pos.offset as usize], &spliced.concat()].concat()).unwrap();
        let (got, next) = records(tail(&path, pos, &schema()).unwrap());
        assert!(got.is_empty(), "{what}: {:?}", keys(&got));
        assert_eq!(next, pos, "{what}");
    }
    // In order again, all of it.
    std::fs::write(&path, &full).unwrap();
    assert_eq!(keys(&records(tail(&path, pos, &schema()).unwrap()).0), ["b", "c", "d"]);
}

#[test]
fn a_file_cut_below_the_position_resets() {
    let dir = tempfile::tempdir().unwrap();
    let (mut w, pos) = started(dir.path(), SyncPolicy::EveryBatch);
    w.append(&schema(), &batch(&["b"])).unwrap();
    let path = w.path().to_path_buf();
    let (_, pos) = records(tail(&path, pos, &schema()).unwrap());
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    // Cut back to the position itself: nothing new, no reset.
    file.set_len(pos.offset).unwrap();
    assert_eq!(records(tail(&path, pos, &schema()).unwrap()), (vec![], pos));
    file.set_len(pos.offset - 1).unwrap();
    assert!(matches!(tail(&path, pos, &schema()).unwrap(), Tailed::Reset(why) if why.contains("cut back")));
}

#[test]
fn another_wal_under_the_same_name_resets() {
    let dir = tempfile::tempdir().unwrap();
    let (w, pos) = started(dir.path(), SyncPolicy::EveryBatch);
    let path = w.path().to_path_buf();
    drop(w);
    // The same frames, but a new file with its own salt.
    let mut w = WalWriter::create(dir.path(), 1, 0xbeef, SyncPolicy::EveryBatch).unwrap();
    for b in [&["a"][..], &["b"]] {
        w.append(&schema(), &batch(b)).unwrap();
    }
    assert!(matches!(tail(&path, pos, &schema()).unwrap(), Tailed::Reset(why) if why.contains("salt")));
    // A header that no longer reads, and a file that is gone.
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[3] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    assert!(matches!(tail(&path, pos, &schema()).unwrap(), Tailed::Reset(why) if why.contains("header")));
    std::fs::remove_file(&path).unwrap();
    assert!(matches!(tail(&path, pos, &schema()).unwrap(), Tailed::Reset(why) if why.contains("gone")));
}

#[test]
fn a_good_frame_whose_record_does_not_decode_is_corruption() {
    let dir = tempfile::tempdir().unwrap();
    let (mut w, pos) = started(dir.path(), SyncPolicy::EveryBatch);
    w.append(&schema(), &batch(&["b"])).unwrap();
    let path = w.path().to_path_buf();
    // A schema that knows fewer fields than the records name.
    let narrow = Schema::builder("t").field(Field::vector("v", VectorType::Fp32, 2, Metric::L2)).build().unwrap();
    match tail(&path, pos, &narrow) {
        Err(StorageError::Corrupted { path: p, offset, what }) => {
            assert_eq!(p, path);
            assert!(offset > pos.offset + FRAME_HEADER as u64, "{offset}");
            assert!(what.contains("does not decode"), "{what}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_io_error_while_tailing_is_returned() {
    let dir = tempfile::tempdir().unwrap();
    let (mut w, pos) = started(dir.path(), SyncPolicy::EveryBatch);
    w.append(&schema(), &batch(&["b"])).unwrap();
    let path = w.path().to_path_buf();
    let ops = {
        let g = inject(dir.path(), Fault::Io, 0, false);
        records(tail(&path, pos, &schema()).unwrap());
        g.ops()
    };
    // The open, the header's read and the frames' read.
    assert_eq!(ops, 3);
    for n in 1..=ops {
        let _g = inject(dir.path(), Fault::Io, n, false);
        match tail(&path, pos, &schema()) {
            Err(StorageError::Io { path: p, .. }) => assert_eq!(p, path, "op {n}"),
            other => panic!("op {n}: {other:?}"),
        }
    }
    assert_eq!(keys(&records(tail(&path, pos, &schema()).unwrap()).0), ["b"]);
}

#[test]
fn a_tailer_racing_the_writer_sees_whole_batches_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let (mut w, mut pos) = started(dir.path(), SyncPolicy::EveryRecords(5));
    let path = w.path().to_path_buf();
    // Batch `b` holds `b % 7 + 1` records keyed `b.i`.
    let batches: Vec<Vec<Record>> =
        (0..300).map(|b| (0..b % 7 + 1).map(|i| put(&format!("{b}.{i}"), "race")).collect()).collect();
    let writer = std::thread::spawn({
        let batches = batches.clone();
        move || batches.iter().for_each(|b| w.append(&schema(), b).unwrap())
    });
    let mut seen = 0;
    while seen < batches.len() {
        let (got, next) = records(tail(&path, pos, &schema()).unwrap());
        let mut rest = &got[..];
        while let Some(first) = rest.first() {
            // Each poll returns the next batches, whole.
            let want = &batches[seen];
            let have: Vec<&Record> = rest.iter().take(want.len()).map(|f| &f.record).collect();
            assert_eq!(have, want.iter().collect::<Vec<_>>(), "batch {seen} from {}", first.offset);
            rest = &rest[want.len()..];
            seen += 1;
        }
        pos = next;
    }
    writer.join().unwrap();
    assert_eq!(records(tail(&path, pos, &schema()).unwrap()).0, vec![]);
}

const DIM: usize = 384;

fn vector_schema() -> Schema {
    Schema::builder("big").field(Field::vector("v", VectorType::Fp32, DIM as u32, Metric::L2)).build().unwrap()
}

/// Writes about `mb` megabytes of 384-d rows in batches of 100, tailing after every
/// `rounds_of` batches; the tailed records must be the full scan's.
fn tail_a_large_wal(mb: usize, rounds_of: usize) {
    let dir = tempfile::tempdir().unwrap();
    let schema = vector_schema();
    let mut w = WalWriter::create(dir.path(), 1, 0xb16, SyncPolicy::OnFlush).unwrap();
    let path: PathBuf = w.path().to_path_buf();
    let mut pos = TailPos::after(&full_scan(&path, &schema));
    let mut tailed = Vec::new();
    let rows = mb * (1 << 20) / (DIM * 4 + 40);
    let mut rounds = 0;
    for (b, start) in (0..rows).step_by(100).enumerate() {
        let batch: Vec<Record> = (start..rows.min(start + 100))
            .map(|i| {
                let v = (0..DIM).map(|j| (i * DIM + j) as f32).collect();
                Record::Put(Row { key: format!("k{i:07}"), values: vec![Value::VectorFp32(v)] })
            })
            .collect();
        w.append(&schema, &batch).unwrap();
        if b % rounds_of == rounds_of - 1 {
            let (got, next) = records(tail(&path, pos, &schema).unwrap());
            tailed.extend(got);
            pos = next;
            rounds += 1;
        }
    }
    w.sync().unwrap();
    let (got, pos) = records(tail(&path, pos, &schema).unwrap());
    tailed.extend(got);
    let full = full_scan(&path, &schema);
    assert!(rounds >= 4 && full.valid_len as usize >= mb << 20, "{rounds} rounds, {} bytes", full.valid_len);
    assert_eq!(tailed.len(), rows);
    assert!(tailed == full.records, "the tailed records differ from the scan's");
    assert_eq!(pos, TailPos::after(&full));
}

#[test]
fn tailing_a_10_mb_wal_in_rounds_equals_its_scan() {
    tail_a_large_wal(10, 10);
}

#[test]
fn tailing_a_100_mb_wal_in_rounds_equals_its_scan() {
    tail_a_large_wal(100, 100);
}
