//! `xvec backup`, `xvec restore` and the shell's `.backup`: what each prints, exits with
//! and refuses (issue 41, item 1).

use std::path::Path;

use crate::harness::xvec;

/// 300 rows over two segments and a WAL; returns the collection's path.
fn collection(tmp: &Path) -> String {
    let dir = tmp.join("live");
    let c = dir.to_str().unwrap().to_string();
    xvec(&["create", &c, "--vector", "emb:4:l2"]).run().ok();
    for part in 0..3 {
        let rows: String =
            (part * 100..part * 100 + 100).map(|i| format!("{{\"id\":\"k{i}\",\"emb\":[{i},1,2,3]}}\n")).collect();
        let file = tmp.join(format!("rows-{part}.jsonl"));
        std::fs::write(&file, rows).unwrap();
        let mut args = vec!["import", &c, file.to_str().unwrap()];
        if part < 2 {
            args.push("--flush");
        }
        xvec(&args).run().ok();
    }
    c
}

fn count(dir: &str) -> String {
    xvec(&["count", dir]).run().ok().stdout.lines().last().unwrap_or("").to_string()
}

#[test]
fn backup_then_restore_round_trip_and_refusals() {
    let tmp = tempfile::tempdir().unwrap();
    let c = collection(tmp.path());
    let dest = tmp.path().join("backup");
    let d = dest.to_str().unwrap();
    let r = xvec(&["backup", &c, d]).run();
    r.ok();
    assert!(r.stderr.starts_with("backed up: generation "), "{}", r.stderr);
    assert!(r.stderr.contains("100 WAL records") && r.stderr.contains("linked"), "{}", r.stderr);
    xvec(&["verify", d]).run().ok();
    assert_eq!(count(d), "300");

    // Again into the same place: refused with the way out.
    let r = xvec(&["backup", &c, d]).run();
    r.code(1);
    assert!(
        r.stderr.contains("a collection already exists here") && r.stderr.contains("--incremental"),
        "{}",
        r.stderr
    );
    let r = xvec(&["backup", &c, d, "--incremental", "--copy"]).run();
    r.ok();
    assert!(r.stderr.contains("kept from the earlier backup") && !r.stderr.contains("linked"), "{}", r.stderr);

    // Restore: a non-empty directory is refused, a new one gets a collection that verifies.
    let busy = tmp.path().join("busy");
    std::fs::create_dir(&busy).unwrap();
    std::fs::write(busy.join("notes.txt"), "x").unwrap();
    let r = xvec(&["restore", d, busy.to_str().unwrap()]).run();
    r.code(1);
    assert!(r.stderr.contains("notes.txt"), "{}", r.stderr);
    let back = tmp.path().join("back");
    let b = back.to_str().unwrap();
    let r = xvec(&["restore", d, b]).run();
    r.ok();
    assert!(r.stderr.starts_with("restored: generation "), "{}", r.stderr);
    xvec(&["verify", b]).run().ok();
    assert_eq!(count(b), "300");

    // A damaged backup: exit 3, nothing restored.
    let seg = std::fs::read_dir(&dest)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "xseg"))
        .unwrap();
    let mut bytes = std::fs::read(&seg).unwrap();
    let at = bytes.len() - 20;
    bytes[at] ^= 0x10;
    std::fs::write(&seg, bytes).unwrap();
    let never = tmp.path().join("never");
    let r = xvec(&["restore", d, never.to_str().unwrap()]).run();
    r.code(3);
    assert!(r.stderr.contains("the backup does not verify"), "{}", r.stderr);
    assert!(!never.exists());
}

#[test]
fn the_shell_backs_up_its_open_collection() {
    let tmp = tempfile::tempdir().unwrap();
    let c = collection(tmp.path());
    let dest = tmp.path().join("from-shell");
    let script = format!(".backup {} --copy\n", dest.display());
    let r = xvec(&["shell", &c]).stdin(&script).run();
    r.ok();
    assert!(r.stderr.contains("backed up: generation"), "{}", r.stderr);
    assert_eq!(count(dest.to_str().unwrap()), "300");
}
