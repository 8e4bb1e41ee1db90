use super::*;
use crate::storage::wal::tests::{put, schema};
use crate::storage::wal::{SyncPolicy, WalWriter};

/// A WAL of three synced batches; returns its sync record's bytes and the WAL's.
fn synced(dir: &Path) -> (Vec<u8>, Vec<u8>) {
    let mut w = WalWriter::create(dir, 3, 0x5a17, SyncPolicy::EveryBatch).unwrap();
    for b in 0..3 {
        w.append(&schema(), &[put(&format!("a{b}"), "x"), put(&format!("b{b}"), "y")]).unwrap();
    }
    (std::fs::read(dir.join(SYNC_NAME)).unwrap(), std::fs::read(w.path()).unwrap())
}

#[test]
fn each_sync_records_the_durable_length_in_alternate_slots() {
    let dir = tempfile::tempdir().unwrap();
    let (bytes, wal) = synced(dir.path());
    assert_eq!(bytes.len(), SYNC_FILE_LEN);
    let SyncState::Found(d) = decode(Path::new("s"), &bytes, 3, 0x5a17) else { panic!("no record") };
    // The last sync mark (32-byte header, 8-byte LSN) follows the durable length.
    assert_eq!((d.len, d.records, d.lsn, d.counter), (wal.len() as u64 - 40, 6, 8, 4));
    // Slot `counter % 2` holds the newest; the other, the one before it.
    let older = Durable::decode(&bytes[HEADER_LEN + SLOT_LEN * (1 - d.counter as usize % 2)..][..SLOT_LEN]);
    assert_eq!(older.map(|o| (o.counter, o.records)), Some((3, 4)));
    // Another WAL's slots say nothing about this one.
    assert_eq!(decode(Path::new("s"), &bytes, 4, 0x5a17), SyncState::None);
    assert_eq!(decode(Path::new("s"), &bytes, 3, 1), SyncState::None);
}

/// A torn or damaged slot falls back to the other one (an older, shorter record: weaker
/// detection, never a false loss); both damaged, or a damaged header, is reported.
#[test]
fn a_damaged_slot_falls_back_to_the_other_and_two_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let (bytes, _) = synced(dir.path());
    // Write 4 went to slot 0.
    let newest = HEADER_LEN;
    for at in newest..newest + SLOT_LEN {
        let mut b = bytes.clone();
        b[at] ^= 0x40;
        let found = decode(Path::new("s"), &b, 3, 0x5a17);
        assert_eq!(found.durable().map(|d| (d.counter, d.records)), Some((3, 4)), "byte {at}");
    }
    let mut b = bytes.clone();
    b[HEADER_LEN + 5] ^= 1;
    b[HEADER_LEN + SLOT_LEN + 5] ^= 1;
    assert!(matches!(decode(Path::new("s"), &b, 3, 0x5a17), SyncState::Damaged(w) if w.contains("both slots")));
    let mut b = bytes.clone();
    b[9] ^= 1;
    assert!(matches!(decode(Path::new("s"), &b, 3, 0x5a17), SyncState::Damaged(w) if w.contains("checksum")));
    assert!(
        matches!(decode(Path::new("s"), &bytes[..100], 3, 0x5a17), SyncState::Damaged(w) if w.contains("100 bytes"))
    );
    // The writer makes a damaged file anew, and records again from there.
    std::fs::write(dir.path().join(SYNC_NAME), &b).unwrap();
    let mut w = WalWriter::create(dir.path(), 4, 9, SyncPolicy::EveryBatch).unwrap();
    w.append(&schema(), &[put("c", "z")]).unwrap();
    let again = read(dir.path(), 4, 9).unwrap();
    assert_eq!(again.durable().map(|d| (d.counter, d.records)), Some((2, 1)));
}

#[test]
fn a_shortfall_counts_the_records_a_cut_took() {
    let d = Durable { counter: 1, seq: 1, salt: 1, len: 1000, lsn: 12, records: 10 };
    assert_eq!(shortfall(&d, 1000, 10, 0), None);
    assert_eq!(shortfall(&d, 1040, 10, 0), None, "frames past the record are not a loss");
    let s = shortfall(&d, 600, 6, 1).unwrap();
    assert_eq!(s.lost, 3, "damage already counts its own records");
    assert!(s.describe().contains("3 acknowledged records (offsets 600..1000) are gone"), "{}", s.describe());
}
