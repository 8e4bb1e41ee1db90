//! Error text in the shell equals argv's: clap's whole message (tips such as "a similar
//! argument exists" included), only the usage line is the statement's; and paths that are
//! no collection get their own errors with hints, in argv and in the shell.

use crate::harness::{assert_golden, data, wordnet, xvec};

/// Lines of `text` without the `Usage:` line (the one place argv and shell differ).
fn without_usage(text: &str) -> (String, Option<String>) {
    let usage = text.lines().find(|l| l.starts_with("Usage: ")).map(String::from);
    let rest: Vec<&str> = text.lines().filter(|l| !l.starts_with("Usage: ")).collect();
    (rest.join("\n"), usage)
}

#[test]
fn shell_errors_read_as_argv_errors_with_the_statement_usage() {
    let c = wordnet().to_str().unwrap();
    // (statement, usage line the shell shows; None: no usage in the error)
    let cases: [(&str, Option<&str>); 9] = [
        ("count --filtr x", Some("Usage: count [OPTIONS]")),
        ("fetch", Some("Usage: fetch [OPTIONS] <KEY>...")),
        ("query -k many", None),
        ("query --ef 0", None),
        ("import", Some("Usage: import [OPTIONS] <FILE>")),
        ("count --mode fancy", None),
        ("fetch nope", None),
        ("count --filter \"pos >> 3\"", None),
        ("query --pk n.07580359 --filter \"lemma = 3\"", None),
    ];
    let mut snapshot = String::new();
    for (statement, usage) in cases {
        let words = shell_words(statement);
        let mut argv: Vec<&str> = vec![words[0].as_str(), c];
        argv.extend(words[1..].iter().map(String::as_str));
        let a = xvec(&argv).run();
        let s = xvec(&["shell", c, "-n", "-c", statement]).run();
        assert_eq!(a.code, s.code, "{a}{s}");
        let shell_text = s.stderr.strip_prefix("-c #1:1: ").unwrap_or_else(|| panic!("no location: {s}"));
        let (argv_rest, argv_usage) = without_usage(&a.stderr);
        let (shell_rest, shell_usage) = without_usage(shell_text);
        assert_eq!(shell_rest, argv_rest, "{a}{s}");
        assert_eq!(shell_usage.as_deref(), usage, "{s}");
        assert_eq!(argv_usage.is_some(), usage.is_some(), "{a}");
        snapshot.push_str(&format!("== {statement}\n-- argv (exit {:?})\n{}-- shell\n{}", a.code, a.stderr, s.stderr));
    }
    // An unknown name: clap's suggestion over commands and meta commands alike.
    for (statement, tip) in [("cuont", "'count'"), (".mdoe csv", "'mode'"), ("descibe", "'describe'")] {
        let s = xvec(&["shell", c, "-n", "-c", statement]).run();
        s.code(2);
        assert!(s.stderr.contains(&format!("tip: a similar subcommand exists: {tip}")), "{s}");
        assert!(s.stderr.ends_with("For more information, type .help.\n"), "{s}");
        snapshot.push_str(&format!("== {statement}\n-- shell\n{}", s.stderr));
    }
    let a = xvec(&["cuont", c]).run();
    a.code(2);
    assert!(a.stderr.contains("tip: a similar subcommand exists: 'count'"), "{a}");
    // Meta commands keep clap's whole text too: the valid values, the missing argument.
    let s = xvec(&["shell", c, "-n", "-c", ".mode foo"]).run();
    s.code(2);
    assert!(s.stderr.contains("[possible values: table, tsv, csv, json, jsonl, markdown, line, column]"), "{s}");
    snapshot.push_str(&format!("== .mode foo\n-- shell\n{}", s.stderr));
    let s = xvec(&["shell", c, "-n", "-c", ".once"]).run();
    s.code(2);
    assert!(s.stderr.contains("  <FILE>\n\nUsage: .once <FILE>\n"), "{s}");
    snapshot.push_str(&format!("== .once\n-- shell\n{}", s.stderr));
    let s = xvec(&["shell", c, "-n", "-c", ".param"]).run();
    s.code(2);
    assert!(s.stderr.starts_with("-c #1:1: error: a subcommand is required\n\nBind $NAME"), "{s}");
    assert!(s.stderr.contains("\nUsage: .param <COMMAND>\n"), "{s}");
    // sqlite3's and psql's names point to what to use here.
    let s = xvec(&["shell", c, "-n", "-c", ".databases"]).run();
    s.code(2);
    assert!(s.stderr.contains("error: unknown command `.databases`\nhint: a directory holds one collection"), "{s}");
    snapshot.push_str(&format!("== .databases\n-- shell\n{}", s.stderr));
    let masked = snapshot.replace(c, "DIR");
    assert_golden(&crate::util::repo_root().join("tests/cli/snapshots/errors.txt"), &masked);
}

/// Words of a test statement: split at spaces outside double quotes.
fn shell_words(statement: &str) -> Vec<String> {
    let mut words = vec![String::new()];
    let mut quoted = false;
    for ch in statement.chars() {
        match ch {
            '"' => quoted = !quoted,
            ' ' if !quoted => words.push(String::new()),
            _ => words.last_mut().unwrap().push(ch),
        }
    }
    words
}

#[test]
fn paths_that_are_no_collection_say_so_in_argv() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("items.jsonl");
    std::fs::write(&file, "{\"id\": \"a\"}\n").unwrap();
    let f = file.to_str().unwrap();
    let missing = dir.path().join("nonexist");
    let m = missing.to_str().unwrap();
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let e = empty.to_str().unwrap();

    let run = xvec(&["count", f]).run();
    run.code(1);
    assert_eq!(
        run.stderr,
        format!(
            "error: {f}: a file, not a collection directory\n\
             hint: a collection is a directory; data files come after it, e.g. `xvec import DIR FILE`\n"
        )
    );
    let run = xvec(&["import", m, f]).run();
    run.code(1);
    assert_eq!(
        run.stderr,
        format!(
            "error: {m}: no such directory, so no collection\n\
             hint: `xvec create {m} --schema FILE` (or --field/--vector) makes one\n"
        )
    );
    assert!(!missing.exists(), "a failed import made the directory");
    let run = xvec(&["create", f, "--field", "a:string", "--vector", "v:2:l2"]).run();
    run.code(1);
    assert!(run.stderr.starts_with(&format!("error: {f}: a file, not a collection directory\n")), "{run}");
    for cmd in ["count", "verify"] {
        let run = xvec(&[cmd, e]).run();
        assert!(run.code != Some(0) && !run.stderr.contains("os error"), "{run}");
    }
    let run = xvec(&["flush", e]).run();
    run.code(1);
    assert_eq!(
        run.stderr,
        format!(
            "error: {e}: not an xvec collection (no CURRENT file)\n\
             hint: `xvec create {e} --schema FILE` (or --field/--vector) makes one\n"
        )
    );
    assert!(!empty.join("LOCK").exists(), "a failed open left a LOCK file");
    // Data and script files that are not there are named in words, not as OS errors.
    let coll = dir.path().join("c");
    let c = coll.to_str().unwrap();
    xvec(&["create", c, "--field", "a:string", "--vector", "v:2:l2"]).run().ok();
    let nofile = dir.path().join("nofile.jsonl");
    let run = xvec(&["import", c, nofile.to_str().unwrap()]).run();
    run.code(1);
    assert_eq!(run.stderr, format!("error: {}: no such file or directory\n", nofile.display()));
    let run = xvec(&["shell", c, "--init", nofile.to_str().unwrap(), "-c", "count"]).run();
    assert!(run.stderr.contains(&format!("{}: no such file or directory", nofile.display())), "{run}");
    assert!(!run.stderr.contains("os error"), "{run}");
    // DIR typed in the shell out of argv habit gets a hint that the shell fills it in.
    let run = xvec(&["shell", c, "-c", &format!("count {c}")]).run();
    run.code(2);
    assert!(
        run.stderr.ends_with(&format!(
            "hint: the shell works on the open collection ({c}): leave DIR out, or .open {c} first\n"
        )),
        "{run}"
    );
    xvec(&["count", &format!("{f}/sub")]).run().code(1);
    for cmd in ["verify", "inspect", "repair"] {
        let run = xvec(&[cmd, f]).run();
        run.code(1);
        assert!(run.stderr.starts_with(&format!("error: {f}: a file, not a collection directory\n")), "{run}");
        let run = xvec(&[cmd, m]).run();
        run.code(1);
        assert!(run.stderr.starts_with(&format!("error: {m}: no such directory, so no collection\n")), "{run}");
    }
}

#[test]
fn shell_open_checks_at_once_and_keeps_the_open_collection_when_it_fails() {
    let dir = tempfile::tempdir().unwrap();
    let c = wordnet().to_str().unwrap();
    let file = dir.path().join("items.jsonl");
    std::fs::write(&file, "{}\n").unwrap();
    let f = file.to_str().unwrap();
    let m = dir.path().join("nonexist");
    let m = m.to_str().unwrap();

    // Read-only, .open of a path without a collection fails at once, and the collection
    // open before stays open.
    let run = xvec(&["shell", c, "-n", "--keep-going", "-c", &format!(".open {m}"), "-c", "count"]).run();
    run.code(1);
    assert_eq!(run.stdout, "count\n2500\n");
    assert_eq!(
        run.stderr,
        format!(
            "-c #1:1: error: {m}: no such directory, so no collection\n\
             hint: `.open {m} --write` (or `xvec shell {m} --write`), then `create` makes one\n"
        )
    );
    let run = xvec(&["shell", c, "-n", "--keep-going", "-c", &format!(".open {f} --write"), "-c", "count"]).run();
    run.code(1);
    assert_eq!(run.stdout, "count\n2500\n");
    assert!(run.stderr.starts_with(&format!("-c #1:1: error: {f}: a file, not a collection directory\n")), "{run}");
    let run = xvec(&["shell", f, "-n"]).run();
    run.code(1);
    assert!(run.stderr.starts_with(&format!("error: {f}: a file, not a collection directory\n")), "{run}");

    // With --write a missing directory is fine: `create` makes it.
    let run =
        xvec(&["shell", "-n", "-c", &format!(".open {m} --write"), "-c", "create --field t:string --vector v:2:l2"])
            .run();
    run.ok();
    assert_eq!(xvec(&["count", m]).run().ok().stdout, "count\n0\n");

    // A collection locked by another writer: .open --write opens it (writing statements
    // take the lock), and a writing statement fails with 4.
    let locked = dir.path().join("locked");
    xvec(&["create", locked.to_str().unwrap(), "--schema", &data("schema.json")]).run().ok();
    let _writer = xvec::Collection::open(&locked, &xvec::OpenOptions::writable()).unwrap();
    let open = format!(".open {} --write", locked.display());
    let run = xvec(&["shell", c, "-n", "--keep-going", "-c", &open, "-c", "count", "-c", "flush"]).run();
    run.code(4);
    assert_eq!(run.stdout, "count\n0\n");
    assert!(run.stderr.contains("collection is locked by another writer\nhint: "), "{run}");
    // Reopening the collection the shell writes to, read-only, works (its lock is released).
    let run = xvec(&["shell", m, "--write", "-n", "-c", &format!(".open {m}"), "-c", ".show"]).run();
    assert!(run.ok().stdout.contains(&format!("collection: {m} (read-only)")), "{run}");
}

/// Words where a query vector goes: the error says the element, and the hint that xvec does
/// not embed text and that --text ranks by words.
#[test]
fn text_given_as_a_query_vector_hints_at_embeddings_and_text_search() {
    let c = wordnet().to_str().unwrap();
    let run = xvec(&["query", c, "domestic dog"]).run();
    run.code(2);
    assert!(run.stderr.contains("element 0 is \"domestic dog\", expected a number"), "{run}");
    assert!(run.stderr.contains("hint: xvec stores vectors and does not embed text"), "{run}");
    assert!(run.stderr.contains("--text"), "{run}");
    let run = xvec(&["query", c, "[1, 2, x3]"]).run();
    run.code(2);
    assert!(run.stderr.contains("hint: xvec stores vectors"), "{run}");
    let run = xvec(&["query", c, "[1, 2, 3"]).run();
    assert!(!run.stderr.contains("hint: xvec stores vectors"), "{run}");
}
