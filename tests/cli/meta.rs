//! The shell's settings and batch behaviour: `\` continuation in every input, `.timer`,
//! settings printed without an argument, `.show`, `.nullvalue`, `.quit`, `.output` files,
//! the startup file, and waiting for the writer lock.

use std::io::{BufRead, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::harness::{wordnet, xvec};

fn shell(args: &[&str]) -> crate::harness::Xvec {
    let mut all = vec!["shell", wordnet().to_str().unwrap(), "-n"];
    all.extend_from_slice(args);
    xvec(&all)
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

#[test]
fn backslash_continues_a_statement_in_every_input() {
    let dir = tempfile::tempdir().unwrap();
    let text = "count \\\n  --filter \"pos = 'v'\"\nfetch \\\n nope\n";
    let s = write(dir.path(), "cont.xvec", text);
    let expect_err = |name: &str| format!("{name}:3: error: key not found: nope\n");
    let run = shell(&["-f", &s]).run();
    run.code(1);
    assert_eq!((run.stdout.as_str(), run.stderr.clone()), ("count\n296\n", expect_err(&s)));
    let run = shell(&["-c", &format!(".read {s}")]).run();
    run.code(1);
    assert_eq!((run.stdout.as_str(), run.stderr.clone()), ("count\n296\n", expect_err(&s)));
    let run = shell(&[]).stdin(text).run();
    run.code(1);
    assert_eq!((run.stdout.as_str(), run.stderr.clone()), ("count\n296\n", expect_err("<stdin>")));
    let run = shell(&["-c", "count \\\n --filter \"pos = 'v'\""]).run();
    assert_eq!(run.ok().stdout, "count\n296\n");
    // A `\` on the last line leaves the statement open: an error, not a silent run.
    let run = shell(&["-c", "count \\"]).run();
    run.code(2);
    assert!(run.stderr.contains("the input ends inside a statement: a `\\` continues past the end"), "{run}");
}

#[test]
fn timer_times_commands_and_prints_after_their_output() {
    let dir = tempfile::tempdir().unwrap();
    let inner = write(dir.path(), "inner.xvec", "count\ncount --filter \"pos = 'v'\"\n");
    let run = shell(&["-c", ".timer on", "-c", ".mode csv", "-c", ".headers off", "-c", &format!(".read {inner}")])
        .run_merged();
    run.ok();
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{run}");
    assert_eq!((lines[0], lines[2]), ("2500", "296"), "{run}");
    assert!(lines[1].starts_with("time: ") && lines[3].starts_with("time: "), "{run}");
}

/// A statement that fails is not timed: its error is all it prints.
#[test]
fn timer_skips_statements_that_fail() {
    let run = shell(&["--keep-going", "-c", ".timer on", "-c", "bogus", "-c", "count --filter \"pos >> 1\""]).run();
    run.code(2);
    assert!(!run.stderr.contains("time: "), "{run}");
}

/// A quote in a meta command ends at its line's end: a stray one is its own error and the
/// statements after it run (sqlite3 does the same), in a script and at the end of input.
#[test]
fn an_unclosed_quote_in_a_meta_command_stays_on_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let script = write(dir.path(), "q.xvec", ".param set evil x'); drop\ncount\n.mode 'csv\n");
    let run = shell(&["--keep-going", "-f", &script]).run();
    run.code(2);
    assert_eq!(run.stdout.lines().collect::<Vec<_>>(), ["count", "2500"], "{run}");
    assert!(run.stderr.starts_with(&format!("{script}:1: error: `.param`: unterminated '...' quote\n")), "{run}");
    assert!(run.stderr.contains(&format!("{script}:3: error: `.mode`: unterminated '...' quote")), "{run}");
    assert!(run.stderr.contains("hint: a meta command ends at the end of its line"), "{run}");
}

/// psql's backslash commands run the dot command they stand for; `--` comments (whole
/// line and trailing, not inside quotes) are skipped in scripts.
#[test]
fn psql_backslash_commands_and_sql_comments_work_in_scripts() {
    let dir = tempfile::tempdir().unwrap();
    let script = write(
        dir.path(),
        "psql.xvec",
        "-- psql habits\n\\timing\n\\timing\ncount --filter \"lemma = '-- no'\" -- a trailing comment\n\
         .mode table\n\\x\n\\d wordnet\n\\x off\n.mode csv\n\\dt\n\\di\n\\conninfo\n\\q 3\ncount\n",
    );
    let run = shell(&["-f", &script, "--mode", "csv"]).run();
    run.code(3);
    assert_eq!(run.stderr, "", "{run}");
    let out = &run.stdout;
    assert!(out.starts_with("count\n0\n"), "{run}");
    assert!(out.contains("\n   field = lemma\n"), "\\x turned expanded display on for \\d: {run}");
    assert!(
        out.contains(&format!("collection,dir\nwordnet,{}\nfield,type,index\nemb,vector_fp32,", wordnet().display())),
        "{run}"
    );
    assert!(out.contains("  expanded: off\n"), "{run}");
    assert!(!out.ends_with("2500\n"), "\\q 3 left before the last count: {run}");
    // Those without a counterpart are refused with what to type instead.
    let run = shell(&["--keep-going", "-c", "\\pset format csv", "-c", "\\zz", "-c", "\\d other"]).run();
    run.code(2);
    assert!(run.stderr.contains("error: `\\pset`: no such command here\nhint: type .mode, .headers"), "{run}");
    assert!(run.stderr.contains("`\\zz`") && run.stderr.contains("hint: type .help for the meta commands"), "{run}");
    assert!(run.stderr.contains("error: no collection `other` is open (`wordnet` is)\nhint: .open other"), "{run}");
}

/// `.tables` names the open collection, else those in the directory; `.mode column` and
/// `.mode box` print as sqlite3's do.
#[test]
fn tables_lists_collections_and_column_mode_aligns() {
    let run = shell(&["-c", ".mode column", "-c", ".tables", "-c", ".mode box", "-c", ".mode", "-c", ".indices"]).run();
    let c = wordnet().display().to_string();
    let dashes = "-".repeat(c.len());
    let indexes = run.ok().stdout.split_once("mode: table\n").unwrap().1.to_string();
    assert_eq!(run.stdout, format!("collection  dir\n----------  {dashes}\nwordnet     {c}\nmode: table\n{indexes}"));
    assert!(indexes.starts_with("┌") && indexes.contains("│ emb   ┆ vector_fp32 ┆ {\"type\":\"flat\","), "{run}");
    let parent = wordnet().parent().unwrap();
    let run = xvec(&["shell", "-n", "-c", ".tables"]).cwd(parent).run();
    assert_eq!(run.ok().stdout, "collection\tdir\nwordnet\twordnet\n");
}

#[test]
fn settings_print_without_an_argument_and_show_prints_them_all() {
    let run =
        shell(&["-c", ".mode", "-c", ".mode csv", "-c", ".mode", "-c", ".headers", "-c", ".timer", "-c", ".bail"])
            .run();
    assert_eq!(run.ok().stdout, "mode: tsv\nmode: csv\nheaders: on\ntimer: off\nbail: on\n");
    let run =
        shell(&["--keep-going", "-c", ".param set q 3", "-c", ".nullvalue -", "-c", ".timeout 250", "-c", ".show"])
            .run();
    let c = wordnet().display();
    let shown: String =
        run.ok().stdout.lines().filter(|l| !l.starts_with("generation: ")).map(|l| format!("{l}\n")).collect();
    assert!(run.stdout.contains("\ngeneration: "), "{run}");
    assert_eq!(
        shown,
        format!(
            "      mode: tsv (default)\n   headers: on\n     timer: off\n      bail: off\n      echo: off\n     pager: auto\n  \
             expanded: auto\n nullvalue: \"-\"\n    output: stdout\n   timeout: 250 ms\ncollection: {c} (read-only)\n\
             \x20   params: $q=3\n"
        )
    );
    assert_eq!(shell(&["-c", ".quit 3", "-c", "count"]).run().code(3).stdout, "");
    shell(&["-c", ".nullvalue twenty-bytes-is-long"]).run().code(2);
}

#[test]
fn nullvalue_prints_null_in_text_modes_and_json_keeps_null() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("n");
    let c = c.to_str().unwrap();
    xvec(&["create", c, "--field", "a:string:nullable", "--vector", "v:2:l2"]).run().ok();
    xvec(&["insert", c, r#"{"id": "x", "v": [1, 0]}"#]).run().ok();
    let run =
        xvec(&["shell", c, "-n", "-c", "fetch x --fields a", "-c", ".nullvalue NULL", "-c", "fetch x --fields a"])
            .run();
    assert_eq!(run.ok().stdout, "_key\ta\nx\t\n_key\ta\nx\tNULL\n");
    let run = xvec(&["shell", c, "-n", "-c", ".nullvalue NULL", "-c", "fetch x --fields a --mode jsonl"]).run();
    assert_eq!(run.ok().stdout, "{\"_key\":\"x\",\"a\":null}\n");
}

#[test]
fn startup_file_runs_first_and_its_errors_do_not_stop_the_shell() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config");
    std::fs::create_dir_all(config.join("xvec")).unwrap();
    let rc = write(&config.join("xvec"), "xvecrc", ".mode csv\nbogus\n.headers off\n");
    let c = wordnet().to_str().unwrap();
    let run = xvec(&["shell", c, "-c", "count"]).env("XDG_CONFIG_HOME", &config).run();
    run.ok();
    assert_eq!(run.stdout, "2500\n");
    assert!(run.stderr.starts_with(&format!("{rc}:2: error: unrecognized subcommand 'bogus'\n")), "{run}");
    // Without XDG_CONFIG_HOME: ~/.config.
    let home = dir.path().join("home");
    std::fs::create_dir_all(home.join(".config/xvec")).unwrap();
    write(&home.join(".config/xvec"), "xvecrc", ".mode json\n");
    let run = xvec(&["shell", c, "-c", "count"]).env("HOME", &home).run();
    assert_eq!(run.ok().stdout, "[\n  {\n    \"count\": 2500\n  }\n]\n");
    // -n skips it, --init FILE runs another.
    let run = xvec(&["shell", c, "-n", "-c", "count"]).env("XDG_CONFIG_HOME", &config).run();
    assert_eq!(run.ok().stdout, "count\n2500\n");
    let other = write(dir.path(), "other.xvecrc", ".headers off\n");
    let run = xvec(&["shell", c, "--init", &other, "-c", "count"]).env("XDG_CONFIG_HOME", &config).run();
    assert_eq!(run.ok().stdout, "2500\n");
    let run = xvec(&["shell", c, "--init", "/nonexistent.xvecrc", "-c", "count"]).run();
    assert_eq!(run.ok().stdout, "count\n2500\n");
    assert!(run.stderr.starts_with("error: /nonexistent.xvecrc: no such file or directory"), "{run}");
    xvec(&["shell", c, "--init", &other, "-n"]).run().code(2);
}

#[test]
fn output_files_get_tsv_unless_a_mode_was_chosen() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.txt");
    let run = shell(&["--mode", "json", "-c", &format!(".output {}", out.display()), "-c", "count"]).run();
    run.ok();
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "[\n  {\n    \"count\": 2500\n  }\n]\n");
}

/// A shell started with `--write` and a piped standard input, and a reader of its output.
fn piped_writer_shell(dir: &Path, coll: &str) -> (std::process::Child, std::process::ChildStdin, impl BufRead) {
    let mut shell = Command::new(crate::harness::bin())
        .args(["shell", coll, "--write", "-n", "--keep-going"])
        .env("HOME", dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdin = shell.stdin.take().unwrap();
    let stdout = std::io::BufReader::new(shell.stdout.take().unwrap());
    (shell, stdin, stdout)
}

/// Issue 41: an idle `xvec shell DIR --write` held the writer lock for the whole session,
/// so every other writer got `locked` (exit 4) while it sat at its prompt. Now a writing
/// statement takes the lock and the shell lets it go after it; `.lock` holds it across
/// statements until `.unlock`, and the shell sees the other writer's rows.
#[test]
fn an_idle_write_shell_does_not_block_other_writers() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c");
    let cs = c.to_str().unwrap();
    xvec(&["create", cs, "--field", "lemma:string", "--vector", "v:2:l2"]).run().ok();
    let (shell, mut stdin, mut stdout) = piped_writer_shell(dir.path(), cs);
    let mut ask = |statement: &str| {
        writeln!(stdin, "{statement}").unwrap();
        writeln!(stdin, "count --no-headers").unwrap();
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        line
    };
    assert_eq!(ask("insert {\"id\": \"s1\", \"lemma\": \"x\", \"v\": [1, 0]}"), "1\n");
    // The shell idles after a write: another process writes at once.
    xvec(&["insert", cs, "{\"id\": \"o1\", \"lemma\": \"y\", \"v\": [0, 1]}"]).run().ok();
    assert_eq!(ask("insert {\"id\": \"s2\", \"lemma\": \"x\", \"v\": [1, 1]}"), "3\n");
    xvec(&["flush", cs]).run().ok();
    // `.lock` holds the lock between statements.
    assert_eq!(ask(".lock"), "3\n");
    let run = xvec(&["insert", cs, "{\"id\": \"o2\", \"lemma\": \"y\", \"v\": [0, 2]}"]).run();
    run.code(4);
    assert_eq!(ask("delete s1"), "2\n");
    xvec(&["flush", cs]).run().code(4);
    assert_eq!(ask(".unlock"), "2\n");
    xvec(&["insert", cs, "{\"id\": \"o2\", \"lemma\": \"y\", \"v\": [0, 2]}"]).run().ok();
    assert_eq!(ask("count --no-headers --filter \"lemma = 'y'\""), "2\n");
    drop(stdin);
    let out = shell.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(xvec(&["count", cs, "--no-headers"]).run().ok().stdout, "3\n");
}

/// A writer in another process holds the lock: `--wait` and `.timeout` wait for it,
/// then fail with status 4 saying how long they waited, or go on once it is released.
#[test]
fn lock_waits_for_a_writer_in_another_process() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c");
    let cs = c.to_str().unwrap();
    xvec(&["create", cs, "--field", "lemma:string", "--vector", "v:2:l2"]).run().ok();
    let (mut holder, mut stdin, mut stdout) = piped_writer_shell(dir.path(), cs);
    writeln!(stdin, ".lock").unwrap();
    writeln!(stdin, "count --no-headers").unwrap();
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert_eq!(line, "0\n", "the holder did not open the collection");

    let started = Instant::now();
    let run = xvec(&["flush", cs, "--wait", "0.3"]).run();
    run.code(4);
    assert!(started.elapsed() >= Duration::from_millis(300), "{run}");
    assert!(run.stderr.contains("locked by another writer (waited 300 ms for it)"), "{run}");
    let open = format!(".open {cs} --write");
    let run = xvec(&["shell", "-n", "-c", ".timeout 200", "-c", &open, "-c", ".lock"]).run();
    run.code(4);
    assert!(run.stderr.contains("locked by another writer (waited 200 ms for it)"), "{run}");
    let run = xvec(&["flush", cs]).run();
    run.code(4);
    assert!(run.stderr.contains("hint: ") && run.stderr.contains("--wait SECS"), "{run}");

    // A waiter still waits after a while, and succeeds once the holder leaves.
    let mut waiter = Command::new(crate::harness::bin())
        .args([
            "shell",
            cs,
            "--write",
            "-n",
            "--wait",
            "60",
            "-c",
            "insert {\"id\": \"a\", \"lemma\": \"x\", \"v\": [1, 0]}",
        ])
        .env("HOME", dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    assert!(waiter.try_wait().unwrap().is_none(), "the waiter did not wait for the lock");
    drop(stdin);
    assert!(holder.wait().unwrap().success());
    let out = waiter.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(xvec(&["count", cs, "--no-headers"]).run().ok().stdout, "1\n");
}

/// On a terminal the default mode is a table; a file named by `.output` gets TSV (the
/// default off a terminal) unless a mode was chosen, and `.mode` says which is in force.
#[test]
fn output_file_from_a_terminal_gets_tsv() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.tsv");
    let command = format!(
        "env -i PATH=/usr/bin:/bin TERM=xterm HOME={home} XVEC_HISTORY=/dev/null NO_COLOR=1 \
         sh -c '{bin} shell {coll} -n; echo \"exit status $?\"'",
        home = dir.path().display(),
        bin = crate::harness::bin(),
        coll = wordnet().display(),
    );
    let t = super::pty::Tmux::start(dir.path(), &command);
    t.wait("the prompt", |s| s.contains("wordnet>"));
    t.keys(&[".mode", "Enter"]);
    t.wait("the mode", |s| s.contains("mode: table"));
    // One statement per prompt: keys typed before the prompt shows can be lost.
    let prompts = |s: &str| s.lines().filter(|l| l.starts_with("wordnet>")).count();
    for statement in [format!(".output {}", out.display()), "count".into(), ".output".into()] {
        let before = prompts(&t.screen());
        t.keys(&[&statement, "Enter"]);
        t.wait("the next prompt", |s| prompts(s) > before && s.trim_end().ends_with("wordnet>"));
    }
    t.keys(&[".exit", "Enter"]);
    t.wait("the shell to exit", |s| s.contains("exit status 0"));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "count\n2500\n");
}

/// `.param list` abbreviates a long vector as tables do; tsv prints it whole.
#[test]
fn param_list_abbreviates_long_vectors() {
    let set = ".param set v [0.5, 0.25, 0.125, 1, 2]";
    let run =
        shell(&["-c", set, "-c", ".mode line", "-c", ".param list", "-c", ".mode tsv", "-c", ".param list"]).run();
    assert_eq!(
        run.ok().stdout,
        " name = $v\n type = vector(5)\nvalue = [0.5, 0.25, … 5 dims]\nname\ttype\tvalue\n$v\tvector(5)\t[0.5, 0.25, 0.125, 1, 2]\n"
    );
}
