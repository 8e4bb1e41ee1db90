//! Jobs that are safe to interrupt (issue 41, item 3): an import stopped by Ctrl-C, by a
//! fatal error or by --max-errors says exactly which rows are committed and how to resume;
//! --skip-existing resumes; an export or dump interrupted at a random moment leaves no
//! partial file under the name asked for.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use crate::harness::{command, xvec};

fn collection(tmp: &Path) -> String {
    let c = tmp.join("c").display().to_string();
    xvec(&["create", &c, "--field", "n:int64", "--vector", "v:4:l2"]).run().ok();
    c
}

fn rows(tmp: &Path, name: &str, keys: std::ops::Range<u64>) -> String {
    let text: String = keys.map(|i| format!("{{\"id\":\"k{i}\",\"n\":{i},\"v\":[{i},1,2,3]}}\n")).collect();
    let path = tmp.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

fn count(c: &str) -> u64 {
    xvec(&["count", c, "--mode", "tsv", "--no-headers"]).run().ok().stdout.trim().parse().unwrap()
}

#[test]
fn skip_existing_resumes_an_import_and_max_errors_stops_one() {
    let tmp = tempfile::tempdir().unwrap();
    let c = collection(tmp.path());
    let first = rows(tmp.path(), "first.jsonl", 0..40);
    xvec(&["import", &c, &first]).run().ok();
    // The whole file again, as after an interrupt: the 40 committed rows are skipped.
    let all = rows(tmp.path(), "all.jsonl", 0..100);
    let r = xvec(&["import", &c, &all, "--skip-existing"]).run();
    r.ok();
    assert_eq!(r.stderr, format!("imported 60 of 100 documents from {all} (40 skipped: the key exists)\n"));
    assert_eq!(count(&c), 100);
    let r = xvec(&["import", &c, &all, "--skip-existing", "--upsert"]).run();
    r.code(2);

    // Three bad rows in batches of 2: --max-errors 1 stops after the batch holding the
    // second, and says what is committed.
    let text = "{\"id\":\"m1\",\"n\":1,\"v\":[1,1,1,1]}\n{\"id\":\"m2\",\"n\":\"x\",\"v\":[1,1,1,1]}\n\
                {\"id\":\"m3\",\"n\":3,\"v\":[1,1,1,1]}\n{\"id\":\"m4\",\"n\":\"x\",\"v\":[1,1,1,1]}\n\
                {\"id\":\"m5\",\"n\":\"x\",\"v\":[1,1,1,1]}\n{\"id\":\"m6\",\"n\":6,\"v\":[1,1,1,1]}\n";
    let bad = tmp.path().join("bad.jsonl");
    std::fs::write(&bad, text).unwrap();
    let f = bad.display();
    let r = xvec(&["import", &c, &bad.display().to_string(), "--batch-size", "2", "--max-errors", "1"]).run();
    r.code(1);
    assert_eq!(
        r.stderr,
        format!(
            "{f}:2: error: key \"m2\": field `n` expects an integer, found a string\n\
             {f}:4: error: key \"m4\": field `n` expects an integer, found a string\n\
             {f}: import stopped: 2 rows committed (lines 1–4); resume with --skip-existing or --upsert\n\
             error: {f}: stopped after 2 bad rows (--max-errors 1)\n"
        )
    );
    assert_eq!(count(&c), 102);
}

/// `kill -INT` at a random moment of a long import: it exits 130 (or 0 if it finished
/// first), and the rows its message says are committed are the rows there.
#[test]
fn an_interrupted_import_says_exactly_what_it_committed() {
    let tmp = tempfile::tempdir().unwrap();
    let mut interrupted = 0;
    for round in 0..4u64 {
        let dir = tmp.path().join(format!("r{round}"));
        std::fs::create_dir(&dir).unwrap();
        let c = collection(&dir);
        let file = rows(&dir, "big.jsonl", 0..40_000);
        let child = command(&["import", &c, &file, "--batch-size", "200"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(150 + 150 * round));
        std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let there = count(&c);
        match out.status.code() {
            Some(0) => assert_eq!(there, 40_000, "{stderr}"),
            Some(130) => {
                interrupted += 1;
                let expected = if there == 0 {
                    format!("{file}: import stopped: no rows committed\nerror: interrupted\n")
                } else {
                    format!(
                        "{file}: import stopped: {there} rows committed (lines 1–{there}); resume with --skip-existing or --upsert\nerror: interrupted\n"
                    )
                };
                assert_eq!(stderr, expected);
                // Resuming finishes the job.
                xvec(&["import", &c, &file, "--skip-existing"]).run().ok();
                assert_eq!(count(&c), 40_000);
            }
            other => panic!("exit {other:?}: {stderr}"),
        }
    }
    eprintln!("{interrupted} of 4 imports interrupted");
}

/// `import --atomic`: a bad row past --max-errors (default none) or Ctrl-C at any moment
/// commits nothing; a finished one commits every good row as one version.
#[test]
fn an_atomic_import_commits_all_or_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let c = collection(tmp.path());
    let text = "{\"id\":\"m1\",\"n\":1,\"v\":[1,1,1,1]}\n{\"id\":\"m2\",\"n\":\"x\",\"v\":[1,1,1,1]}\n\
                {\"id\":\"m3\",\"n\":3,\"v\":[1,1,1,1]}\n{\"id\":\"m4\",\"n\":4,\"v\":[1,1,1,1]}\n";
    let bad = tmp.path().join("bad.jsonl");
    std::fs::write(&bad, text).unwrap();
    let f = bad.display();
    let r = xvec(&["import", &c, &bad.display().to_string(), "--batch-size", "2", "--atomic"]).run();
    r.code(1);
    assert_eq!(
        r.stderr,
        format!(
            "{f}:2: error: key \"m2\": field `n` expects an integer, found a string\n\
             {f}: import stopped: no rows committed (--atomic: all or nothing)\n\
             error: {f}: stopped after 1 bad row (--atomic allows none unless --max-errors says)\n"
        )
    );
    assert_eq!(count(&c), 0);
    let r =
        xvec(&["import", &c, &bad.display().to_string(), "--batch-size", "2", "--atomic", "--max-errors", "1"]).run();
    r.code(1);
    assert!(r.stderr.contains("imported 3 of 4 documents"), "{r}");
    assert_eq!(count(&c), 3);
    let versions = xvec(&["versions", &c, "--mode", "tsv", "--no-headers"]).run().ok().stdout.clone();
    assert!(versions.lines().last().unwrap().contains("\timport\t"), "{versions}");

    let file = rows(tmp.path(), "big.jsonl", 0..150_000);
    let mut interrupted = 0;
    for round in 0..3u64 {
        let child = command(&["import", &c, &file, "--batch-size", "500", "--atomic", "--upsert"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(40 + 60 * round));
        std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        match out.status.code() {
            Some(0) => assert_eq!(count(&c), 150_003, "{stderr}"),
            Some(130) => {
                interrupted += 1;
                assert_eq!(count(&c), 3, "{stderr}");
                assert_eq!(
                    stderr,
                    format!(
                        "{file}: import stopped: no rows committed (--atomic: all or nothing)\nerror: interrupted\n"
                    )
                );
            }
            other => panic!("exit {other:?}: {stderr}"),
        }
    }
    assert!(interrupted > 0, "no import was interrupted");
    xvec(&["verify", &c]).run().ok();
}

/// `kill -INT` at random moments of exports and dumps: never a partial file under the
/// name asked for, and no temp file left.
#[test]
fn an_interrupted_export_or_dump_leaves_no_partial_file() {
    let tmp = tempfile::tempdir().unwrap();
    let c = collection(tmp.path());
    let file = rows(tmp.path(), "rows.jsonl", 0..60_000);
    xvec(&["import", &c, &file, "--batch-size", "20000", "--flush"]).run().ok();
    let mut interrupted = 0;
    for round in 0..6u64 {
        let (args, out): (Vec<String>, _) = if round % 3 == 2 {
            let out = tmp.path().join(format!("dump-{round}"));
            (vec!["dump".into(), c.clone(), "-o".into(), out.display().to_string()], out.join("data.jsonl"))
        } else {
            let out = tmp.path().join(format!("out-{round}.csv"));
            (
                vec![
                    "export".into(),
                    c.clone(),
                    "--format".into(),
                    "csv".into(),
                    "-o".into(),
                    out.display().to_string(),
                ],
                out,
            )
        };
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let child = command(&args).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
        std::thread::sleep(Duration::from_millis(20 + 40 * round));
        std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
        let status = child.wait_with_output().unwrap().status;
        let parent = out.parent().unwrap();
        let temps: Vec<String> = std::fs::read_dir(parent)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert!(temps.is_empty(), "round {round}: temp files left: {temps:?}");
        match status.code() {
            Some(0) => {
                let lines = std::fs::read_to_string(&out).unwrap().lines().count();
                let header = usize::from(round % 3 != 2);
                assert_eq!(lines, 60_000 + header, "round {round}");
            }
            Some(130) => {
                interrupted += 1;
                assert!(!out.exists(), "round {round}: {} exists after an interrupt", out.display());
            }
            other => panic!("round {round}: exit {other:?}"),
        }
    }
    eprintln!("{interrupted} of 6 exports and dumps interrupted");
}

/// `kill -INT` at random moments of a copied backup of 40 MB of vectors: DEST whole and
/// verifying clean, or absent with no temp directory beside it.
#[test]
fn an_interrupted_backup_leaves_nothing_under_dest() {
    const ROWS: usize = 20_000;
    const DIM: usize = 512;
    let tmp = tempfile::tempdir().unwrap();
    let c = tmp.path().join("c").display().to_string();
    xvec(&["create", &c, "--vector", &format!("v:{DIM}:l2")]).run().ok();
    // An .npy of ROWS × DIM float32 and its keys, written directly: quicker than JSON.
    let header = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': ({ROWS}, {DIM}), }}");
    let pad = 64 - (10 + header.len() + 1) % 64;
    let header = format!("{header}{}\n", " ".repeat(pad));
    let mut npy = b"\x93NUMPY\x01\x00".to_vec();
    npy.extend((header.len() as u16).to_le_bytes());
    npy.extend(header.as_bytes());
    npy.extend((0..ROWS * DIM).flat_map(|i| ((i % 977) as f32).to_le_bytes()));
    let file = tmp.path().join("v.npy");
    std::fs::write(&file, npy).unwrap();
    std::fs::write(tmp.path().join("v.npy.ids"), (0..ROWS).map(|i| format!("k{i}\n")).collect::<String>()).unwrap();
    xvec(&["import", &c, &file.display().to_string(), "--flush"]).run().ok();
    let mut interrupted = 0;
    for round in 0..5u64 {
        let dest = tmp.path().join(format!("backup-{round}"));
        let child = command(&["backup", &c, &dest.display().to_string(), "--copy"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(20 + 5 * round));
        std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let temps: Vec<String> = std::fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(&format!("backup-{round}.")))
            .collect();
        assert!(temps.is_empty(), "round {round}: temp directories left: {temps:?}");
        match out.status.code() {
            Some(0) => {
                xvec(&["verify", &dest.display().to_string()]).run().ok();
                assert_eq!(count(&dest.display().to_string()), ROWS as u64, "round {round}");
            }
            Some(130) => {
                interrupted += 1;
                assert!(!dest.exists(), "round {round}: {} exists after an interrupt: {stderr}", dest.display());
                let said = format!("error: interrupted; nothing was written to {}\n", dest.display());
                assert!(stderr.ends_with(&said), "round {round}: {stderr}");
            }
            other => panic!("round {round}: exit {other:?}: {stderr}"),
        }
    }
    eprintln!("{interrupted} of 5 backups interrupted");
}
