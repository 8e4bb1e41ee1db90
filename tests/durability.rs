//! Durability at realistic sizes: damage in a WAL of 384-d rows is found wherever it lands
//! and costs only the frame it hits; what a crash leaves behind is rolled back by the next
//! writable open, and a torn tail is kept before it is cut.

use std::path::Path;

use xvec::format::{FRAME_HEADER, WAL_HEADER_LEN};
use xvec::verify::{self, Repair, RepairOptions, Severity, VerifyOptions};
use xvec::{Collection, OpenOptions, StorageError};

use crate::util::wal_fixture::{doc, wal_collection};
use crate::util::{rng, wal_frames};

/// The WAL the live manifest names.
fn wal_path(dir: &Path) -> std::path::PathBuf {
    let coll = Collection::open(dir, &OpenOptions::read_only()).unwrap();
    let wal = xvec::inspect::wal(&coll).unwrap();
    dir.join(&wal.files.iter().find(|f| f.live).expect("a live WAL").file)
}

fn quick() -> VerifyOptions {
    VerifyOptions::default().code_sample(8)
}

fn damage_offset(e: &xvec::Error) -> Option<u64> {
    match e {
        xvec::Error::Storage(StorageError::WalDamaged(d)) => Some(d.offset),
        _ => None,
    }
}

/// Flips one byte in every frame of a ~2.5 MB WAL (1,600 rows of 384-d, batches of 16, a
/// sync mark after each). Before the last sync mark every flip is corruption: verify, a
/// read-only open and a writable open all report it at the frame's offset; a repair on a
/// sample of them keeps every other record.
#[test]
fn a_flipped_byte_in_any_frame_of_a_wal_is_reported_and_costs_only_that_frame() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c");
    let vectors = wal_collection(&dir, 1600, 16);
    let path = wal_path(&dir);
    let pristine = std::fs::read(&path).unwrap();
    assert!(pristine.len() > 2 << 20, "{} bytes", pristine.len());
    let offsets = wal_frames(&pristine);
    let mut r = rng(11);
    use rand::RngExt;
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    use std::os::unix::fs::FileExt;
    let last = *offsets.last().unwrap();
    for (i, &frame) in offsets.iter().enumerate() {
        let end = offsets.get(i + 1).copied().unwrap_or(pristine.len());
        let at = r.random_range(frame..end);
        file.write_at(&[pristine[at] ^ 0x10], at as u64).unwrap();
        let report = verify::run(&dir, &quick()).unwrap();
        if frame == last {
            // The last sync mark: a torn tail, nothing lost.
            assert!(report.is_clean(), "frame {i}: {:?}", report.findings);
            assert_eq!(Collection::open(&dir, &OpenOptions::read_only()).unwrap().count(), 1600);
        } else {
            let found =
                report.findings.iter().any(|f| f.severity == Severity::Corrupt && f.offset == Some(frame as u64));
            assert!(found, "frame {i} at {frame} (byte {at}): {:?}", report.findings);
            for options in [OpenOptions::read_only(), OpenOptions::writable()] {
                let e = Collection::open(&dir, &options).unwrap_err();
                assert_eq!(damage_offset(&e), Some(frame as u64), "frame {i}: {e}");
            }
        }
        file.write_at(&[pristine[at]], at as u64).unwrap();
    }
    assert_eq!(std::fs::read(&path).unwrap(), pristine, "the writable opens changed nothing");

    // The tool says the same: exit 3 from verify and from a command that opens it.
    let mut bytes = pristine.clone();
    bytes[offsets[100] + FRAME_HEADER + 7] ^= 0x01;
    std::fs::write(&path, &bytes).unwrap();
    // `flush` opens the collection for writing.
    for args in [&["verify"][..], &["count"], &["flush"]] {
        let out = std::process::Command::new(crate::harness::bin()).args(args).arg(&dir).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "xvec {args:?}: {stderr}");
        if args[0] != "verify" {
            assert!(stderr.contains(&format!("damaged at offset {}", offsets[100])), "xvec {args:?}: {stderr}");
        }
    }
    std::fs::write(&path, &pristine).unwrap();

    // Repair every 50th frame, each on its own copy: every record but the hit one survives.
    for i in (1..offsets.len() - 1).step_by(50) {
        let copy = tmp.path().join(format!("r{i}"));
        crate::util::copy_dir(&dir, &copy);
        let wal = wal_path(&copy);
        let mut bytes = pristine.clone();
        // Past the key of a record (so its key stays readable), inside a sync mark's 8 bytes.
        let is_mark = i % 17 == 16;
        bytes[offsets[i] + FRAME_HEADER + if is_mark { 3 } else { 40 }] ^= 0xff;
        std::fs::write(&wal, &bytes).unwrap();
        let out = Repair::begin(&copy, RepairOptions::default()).unwrap().apply().unwrap();
        assert!(out.after.is_clean(), "frame {i}: {:?}", out.after.findings);
        let coll = Collection::open(&copy, &OpenOptions::read_only()).unwrap();
        let lost: Vec<String> = out.losses.iter().flat_map(|l| l.keys.clone()).collect();
        let lost_rows: u64 = out.losses.iter().map(|l| l.rows).sum();
        assert_eq!(lost_rows, if is_mark { 0 } else { 1 }, "frame {i}: {:?}", out.losses);
        assert_eq!(coll.count(), 1600 - lost_rows, "frame {i}");
        let keys: Vec<String> = (0..1600).map(|k| format!("k{k:06}")).collect();
        let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
        for (k, d) in coll.fetch(&refs, None).unwrap().into_iter().enumerate() {
            match d {
                Some(d) => assert_eq!(d, doc(k, &vectors[k]), "frame {i}"),
                None => assert_eq!(lost, [keys[k].clone()], "frame {i}: k{k:06} missing"),
            }
        }
    }
}

/// The documented run: a ~100 MB WAL (65,000 rows of 384-d), 200 random offsets, each
/// flipped alone: every flip before the last sync mark is reported at its frame by verify,
/// a read-only and a writable open. Run with
/// `cargo test --release --test tests durability::hundred_mb -- --ignored --nocapture`.
#[test]
#[ignore]
fn hundred_mb_wal_200_random_flips() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c");
    wal_collection(&dir, 65_000, 1000);
    let path = wal_path(&dir);
    let pristine = std::fs::read(&path).unwrap();
    assert!(pristine.len() >= 100_000_000, "{} bytes", pristine.len());
    let offsets = wal_frames(&pristine);
    let last = *offsets.last().unwrap();
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    use std::os::unix::fs::FileExt;
    let mut r = rng(200);
    use rand::RngExt;
    let started = std::time::Instant::now();
    let mut reported = 0;
    for n in 0..200 {
        let at = r.random_range(WAL_HEADER_LEN..last);
        let frame = *offsets.iter().rev().find(|&&f| f <= at).unwrap();
        file.write_at(&[pristine[at] ^ 0x01], at as u64).unwrap();
        let report = verify::run(&dir, &quick()).unwrap();
        assert!(
            report.findings.iter().any(|f| f.severity == Severity::Corrupt && f.offset == Some(frame as u64)),
            "flip {n} at {at}: {:?}",
            report.findings
        );
        for options in [OpenOptions::read_only(), OpenOptions::writable()] {
            let e = Collection::open(&dir, &options).unwrap_err();
            assert_eq!(damage_offset(&e), Some(frame as u64), "flip {n} at {at}: {e}");
        }
        reported += 1;
        file.write_at(&[pristine[at]], at as u64).unwrap();
    }
    eprintln!(
        "{} MB WAL, {} frames: {reported} of 200 flips reported at their frame, {:.1} s",
        pristine.len() / 1_000_000,
        offsets.len(),
        started.elapsed().as_secs_f64()
    );
}

/// A torn tail (garbage after the last batch) is saved byte for byte in lost+found/ before
/// a writable open cuts it; a read-only open just ignores it.
#[test]
fn a_torn_tail_is_saved_before_it_is_cut() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c");
    let vectors = wal_collection(&dir, 30, 10);
    let path = wal_path(&dir);
    let good = std::fs::read(&path).unwrap();
    // A batch cut short: the first 700 bytes of a copy of the WAL's first frame.
    let tail = good[WAL_HEADER_LEN..WAL_HEADER_LEN + 700].to_vec();
    let mut bytes = good.clone();
    bytes.extend_from_slice(&tail);
    std::fs::write(&path, &bytes).unwrap();
    assert_eq!(Collection::open(&dir, &OpenOptions::read_only()).unwrap().count(), 30);
    assert_eq!(std::fs::read(&path).unwrap(), bytes, "a read-only open changes nothing");
    let report = verify::run(&dir, &quick()).unwrap();
    assert!(report.is_clean() && report.count(Severity::Warning) == 1, "{:?}", report.findings);

    let coll = Collection::open(&dir, &OpenOptions::writable()).unwrap();
    let r = &coll.recovered()[0];
    assert!(r.what.contains(&format!("torn tail of 700 bytes at offset {}", good.len())), "{r}");
    assert_eq!(std::fs::read(r.kept_in.as_ref().unwrap()).unwrap(), tail);
    coll.insert(vec![doc(30, &vectors[0])]).unwrap();
    drop(coll);
    assert_eq!(Collection::open(&dir, &OpenOptions::read_only()).unwrap().count(), 31);
    let report = verify::run(&dir, &quick()).unwrap();
    assert!(report.is_clean() && report.count(Severity::Warning) == 0, "{:?}", report.findings);
}

/// A WAL of another format version is refused whole, with the file, the kind and both
/// versions named, never read as damage or as a torn tail.
#[test]
fn a_wal_of_another_version_is_refused_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c");
    wal_collection(&dir, 3, 3);
    let path = wal_path(&dir);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[8..12].copy_from_slice(&1u32.to_le_bytes());
    let crc = crc32c_of(&bytes[..28]);
    bytes[28..32].copy_from_slice(&crc.to_le_bytes());
    std::fs::write(&path, &bytes).unwrap();
    for options in [OpenOptions::read_only(), OpenOptions::writable()] {
        let e = Collection::open(&dir, &options).unwrap_err().to_string();
        assert!(e.contains("wal format version 1 is not supported (this build reads version 2)"), "{e}");
    }
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
}

fn crc32c_of(b: &[u8]) -> u32 {
    // Castagnoli, bitwise: the test does not depend on the engine's CRC code.
    let mut crc = !0u32;
    for &x in b {
        crc ^= x as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0x82F6_3B78 } else { crc >> 1 };
        }
    }
    !crc
}
