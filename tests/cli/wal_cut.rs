//! A WAL cut short with `truncate` (finding 6 of issue 36): verify's exit code and
//! message, repair's last line, and a writable open's, for cuts before and after the last
//! sync point. Repair never says "nothing was lost" unless the sync record proves it.

use std::path::{Path, PathBuf};

use crate::harness::{Run, xvec};

const WAL: &str = "WAL-000001.log";

/// 500 rows in 5 batches of 100, each synced; returns the collection and the WAL's length.
fn collection(tmp: &Path, name: &str) -> (PathBuf, u64) {
    let dir = tmp.join(name);
    let c = dir.to_str().unwrap();
    xvec(&["create", c, "--vector", "emb:4:l2"]).run().ok();
    let rows: String = (0..500).map(|i| format!("{{\"id\":\"k{i}\",\"emb\":[{i},1,2,3]}}\n")).collect();
    let file = tmp.join(format!("{name}.jsonl"));
    std::fs::write(&file, rows).unwrap();
    xvec(&["import", c, file.to_str().unwrap(), "--batch-size", "100"]).run().ok();
    let len = std::fs::metadata(dir.join(WAL)).unwrap().len();
    (dir, len)
}

fn cut(dir: &Path, len: u64) {
    std::fs::OpenOptions::new().write(true).open(dir.join(WAL)).unwrap().set_len(len).unwrap();
}

fn run(args: &[&str], dir: &Path) -> Run {
    let mut a = args.to_vec();
    a.insert(1, dir.to_str().unwrap());
    xvec(&a).run()
}

/// The offsets of the WAL's sync marks (frame kind 2).
fn marks(dir: &Path) -> Vec<u64> {
    let b = std::fs::read(dir.join(WAL)).unwrap();
    let (mut at, mut out) = (48, Vec::new());
    while at < b.len() {
        if b[at + 4] == 2 {
            out.push(at as u64);
        }
        at += 32 + u32::from_le_bytes(b[at + 16..at + 20].try_into().unwrap()) as usize;
    }
    out
}

#[test]
fn a_wal_cut_before_its_last_sync_point_is_a_named_loss() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, lost) in [("half", 300), ("zero", 500), ("boundary", 100)] {
        let (dir, len) = collection(tmp.path(), name);
        let m = marks(&dir);
        cut(
            &dir,
            match name {
                "half" => len / 2,
                "zero" => 0,
                _ => m[3] + 40,
            },
        );
        let r = run(&["verify"], &dir);
        r.code(3);
        let says = format!("{lost} acknowledged records");
        assert!(r.stdout.contains(&says) && !r.stdout.contains("torn tail"), "{name}: {r}");
        let r = run(&["insert", "{\"id\":\"z\",\"emb\":[1,1,1,1]}"], &dir);
        r.code(3);
        assert!(r.stderr.contains(&says) && r.stderr.contains("WAL.sync"), "{name}: {r}");
        assert!(!dir.join("lost+found/log").exists(), "{name}");
        let r = run(&["repair", "--yes"], &dir);
        r.code(1);
        assert!(r.stdout.contains(&says) && !r.stderr.contains("nothing was lost"), "{name}: {r}");
        assert!(r.stderr.contains(&format!("data was lost: {lost} rows")), "{name}: {r}");
        assert_eq!(run(&["count"], &dir).ok().stdout.trim().lines().last(), Some(&*(500 - lost).to_string()));
    }
}

#[test]
fn a_wal_cut_after_its_last_sync_point_loses_nothing_durable() {
    let tmp = tempfile::tempdir().unwrap();
    // Just the last sync mark cut off: nothing is lost, and nothing is reported.
    let (dir, _) = collection(tmp.path(), "mark");
    cut(&dir, *marks(&dir).last().unwrap());
    run(&["verify"], &dir).ok();
    let r = run(&["repair", "--yes"], &dir);
    assert!(r.ok().stderr.contains("nothing to repair"), "{r}");

    // A batch cut short after it: a torn tail, kept, and said to be no fsynced write.
    let (dir, _) = collection(tmp.path(), "torn");
    let mut b = std::fs::read(dir.join(WAL)).unwrap();
    let copy = b[48..48 + 700].to_vec();
    b.extend_from_slice(&copy);
    std::fs::write(dir.join(WAL), &b).unwrap();
    let r = run(&["verify"], &dir);
    assert!(r.ok().stdout.contains("after the last fsync"), "{r}");
    let again = tmp.path().join("torn-again");
    std::fs::create_dir(&again).unwrap();
    for e in std::fs::read_dir(&dir).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), again.join(e.file_name())).unwrap();
    }
    let r = run(&["repair", "--yes"], &dir);
    let last = r.ok().stderr.lines().last().unwrap_or_default().to_string();
    assert!(!last.contains("nothing was lost") && last.contains("see the notes above"), "{r}");
    assert!(r.stderr.contains("note: WAL-000001.log: the torn tail it cuts"), "{r}");
    let r = run(&["insert", "{\"id\":\"z\",\"emb\":[1,1,1,1]}"], &again);
    assert!(r.ok().stderr.contains("after the last fsync"), "{r}");
    let log = std::fs::read_to_string(again.join("lost+found/log")).unwrap();
    assert!(log.contains("never acknowledged under the EveryBatch policy"), "{log}");

    // Without a sync record (a collection older than it), a cut is said to be uncountable.
    let (dir, len) = collection(tmp.path(), "old");
    std::fs::remove_file(dir.join("WAL.sync")).unwrap();
    cut(&dir, len / 2);
    let r = run(&["verify"], &dir);
    assert!(r.ok().stdout.contains("cannot be counted"), "{r}");
    let r = run(&["repair", "--yes"], &dir);
    assert!(!r.ok().stderr.contains("nothing was lost") && r.stderr.contains("cannot be counted"), "{r}");
}
