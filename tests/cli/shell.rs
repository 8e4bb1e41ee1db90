//! The shell in batch mode: statements from -c, -f and stdin, error locations, bail and
//! keep-going, meta commands, and the exit-code matrix.

use crate::harness::{wordnet, xvec};

fn shell(args: &[&str]) -> crate::harness::Xvec {
    let c = wordnet().to_str().unwrap();
    let mut all = vec!["shell", c];
    all.extend_from_slice(args);
    xvec(&all)
}

#[test]
fn exit_code_matrix() {
    let dir = tempfile::tempdir().unwrap();
    let script = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    };
    // Success, and nothing but results on stdout: no prompt or banner without a terminal.
    let run = shell(&["-c", "count"]).run();
    assert_eq!((run.ok().stdout.as_str(), run.stderr.as_str()), ("count\n2500\n", ""));
    // A statement that does not parse: usage, exit 2.
    let run = shell(&["-c", "count --bogus"]).run();
    run.code(2);
    assert!(run.stderr.starts_with("-c #1:1: error: unexpected argument '--bogus' found\n\n"), "{run}");
    assert!(run.stderr.ends_with("\nUsage: count [OPTIONS]\n\nFor more information, try '--help'.\n"), "{run}");
    let run = shell(&["-c", "frobnicate"]).run();
    run.code(2);
    assert!(run.stderr.starts_with("-c #1:1: error: unrecognized subcommand 'frobnicate'\n"), "{run}");
    assert!(run.stderr.ends_with("\nFor more information, type .help.\n"), "{run}");
    // A statement that fails at run time: exit 1.
    let run = shell(&["-c", "fetch nope"]).run();
    run.code(1);
    assert_eq!(run.stderr, "-c #1:1: error: key not found: nope\n");
    // A bad flag of `xvec shell` itself, and a missing script.
    xvec(&["shell", "--bogus"]).run().code(2);
    let run = shell(&["-f", "/nonexistent.xvec"]).run();
    run.code(1);
    assert_eq!(run.stderr, "error: /nonexistent.xvec: no such file or directory\n");
    // `.exit N`, also after a failure under --keep-going, and statements after it do not run.
    shell(&["-c", ".exit 5", "-c", "count"]).run().code(5);
    let run = shell(&["--keep-going", "-c", "fetch nope", "-c", ".exit 0"]).run();
    run.ok();
    // Empty input.
    let run = shell(&[]).stdin("").run();
    assert_eq!((run.ok().stdout.as_str(), run.stderr.as_str()), ("", ""));
    // Bail (the default) stops at the first error; --keep-going runs the rest and still fails.
    let s = script("bail.xvec", "count\nfetch nope\n\ncount --filter \"pos = 'v'\"\n");
    let run = shell(&["-f", &s]).run();
    run.code(1);
    assert_eq!(run.stdout, "count\n2500\n");
    assert_eq!(run.stderr, format!("{s}:2: error: key not found: nope\n"));
    let run = shell(&["-f", &s, "--keep-going"]).run();
    run.code(1);
    assert_eq!(run.stdout, "count\n2500\ncount\n296\n");
    // With or without --keep-going, the status is the first failed statement's.
    let s = script("first.xvec", "count --filter \"pos >> 3\"\nfetch nope\ncount\n");
    assert_eq!(shell(&["-f", &s, "--keep-going"]).run().code(2).stdout, "count\n2500\n");
    shell(&["-f", &s]).run().code(2);
    let s = script("first1.xvec", "fetch nope\ncount --bogus\n");
    shell(&["-f", &s, "--keep-going"]).run().code(1);
    let s = script("bail-off.xvec", ".bail off\nfetch nope\ncount\n");
    assert_eq!(shell(&["-f", &s]).run().code(1).stdout, "count\n2500\n");
}

#[test]
fn inputs_run_in_argv_order_and_stdin_when_there_are_none() {
    let dir = tempfile::tempdir().unwrap();
    let s = dir.path().join("s.xvec");
    std::fs::write(&s, "count --filter \"pos = 'v'\"\n").unwrap();
    let s = s.to_str().unwrap();
    let run = shell(&["-c", "count", "-f", s, "-c", "count --filter \"pos = 'r'\"", "--no-headers"]).run();
    assert_eq!(run.ok().stdout, "2500\n296\n42\n");
    let run = shell(&["--mode", "csv"]).stdin("count; count --filter \"pos = 'v'\"\n").run();
    assert_eq!(run.ok().stdout, "count\n2500\ncount\n296\n");
}

#[test]
fn statements_span_lines_and_errors_name_their_first_line() {
    let stdin = "# a comment; not a statement\n.param set v [1,\n  2]\nquery $v\\\n  -k 2\ncount\n";
    let run = shell(&[]).stdin(stdin).run();
    run.code(1);
    assert_eq!(run.stderr, "<stdin>:4: error: field `emb` expects a query vector of dimension 384, found 2\n");
    let run = shell(&["-c", "query [1, 2"]).run();
    run.code(2);
    assert_eq!(run.stderr, "-c #1:1: error: the input ends inside a statement: unclosed `[`\n");
    let run = shell(&["-c", "query $nope"]).run();
    run.code(2);
    assert_eq!(run.stderr, "-c #1:1: error: unknown parameter $nope\nhint: .param set nope VALUE\n");
    // A filter error shows the caret under the spot, after the location.
    let run = shell(&["-c", "count --filter \"pos = 'v' AND\""]).run();
    run.code(2);
    assert_eq!(
        run.stderr,
        "-c #1:1: error: filter: line 1, column 14: expected a field name or `(`, found end of input\npos = 'v' AND\n             ^\n"
    );
}

#[test]
fn meta_commands() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.tsv");
    let once = dir.path().join("once.tsv");
    let statements = [
        ".headers off".to_string(),
        "count".into(),
        format!(".output {}", out.display()),
        "count --filter \"pos = 'v'\"".into(),
        ".output".into(),
        format!(".once {}", once.display()),
        ".mode json".into(),
        "count --filter \"pos = 'r'\"".into(),
        ".echo on".into(),
        ".mode line".into(),
        ".headers on".into(),
        ".param set k n.07580359".into(),
        "fetch $k --fields lemma".into(),
        ".param list".into(),
        ".param unset k".into(),
        ".close".into(),
        "count".into(),
    ];
    let stdin = statements.join("\n");
    let run = shell(&[]).stdin(&stdin).run();
    run.code(1);
    assert_eq!(
        run.stdout,
        "2500\n.mode line\n.headers on\n.param set k n.07580359\nfetch $k --fields lemma\n \
         _key = n.07580359\nlemma = casserole\n.param list\n name = $k\n type = string\nvalue = n.07580359\n\
         .param unset k\n.close\ncount\n"
    );
    assert_eq!(
        run.stderr,
        "<stdin>:17: error: no collection is open\nhint: start with `xvec shell DIR`, or type .open DIR [--write]\n"
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "296\n");
    assert_eq!(std::fs::read_to_string(&once).unwrap(), "[\n  {\n    \"count\": 42\n  }\n]\n");

    let run = shell(&["-c", ".timer on", "-c", "count"]).run();
    assert!(run.ok().stderr.starts_with("time: ") && run.stderr.ends_with(" ms\n"), "{run}");
    let run = shell(&["-c", ".mode fancy"]).run();
    run.code(2);
    assert!(
        run.stderr.starts_with("-c #1:1: error: invalid value 'fancy' for '[MODE]'\n  [possible values: table,"),
        "{run}"
    );
}

#[test]
fn read_runs_scripts_and_caps_nesting() {
    let dir = tempfile::tempdir().unwrap();
    let inner = dir.path().join("inner.xvec");
    std::fs::write(&inner, "count --filter \"pos = 'v'\"\nfetch nope\ncount\n").unwrap();
    let run = shell(&["-c", &format!(".read {}", inner.display()), "-c", "count"]).run();
    run.code(1);
    assert_eq!(run.stdout, "count\n296\n");
    assert_eq!(run.stderr, format!("{}:2: error: key not found: nope\n", inner.display()));
    let me = dir.path().join("me.xvec");
    std::fs::write(&me, format!(".read {}\n", me.display())).unwrap();
    let run = shell(&["-f", me.to_str().unwrap()]).run();
    run.code(1);
    assert!(
        run.stderr.ends_with(&format!("{}:1: error: {}: .read nests deeper than 16\n", me.display(), me.display())),
        "{run}"
    );
}

#[test]
fn writes_need_a_writable_shell_and_create_makes_the_collection() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("new");
    let c = c.to_str().unwrap();
    let run = xvec(&["shell", c, "-c", "create --field t:string --vector v:2:ip"]).run();
    run.code(1);
    assert_eq!(
        run.stderr,
        format!(
            "error: {c}: no such directory, so no collection\n\
             hint: `.open {c} --write` (or `xvec shell {c} --write`), then `create` makes one\n"
        )
    );
    let run = xvec(&["shell", "-c", &format!(".open {c}"), "-c", "create --field t:string --vector v:2:ip"]).run();
    run.code(1);
    assert!(run.stderr.starts_with(&format!("-c #1:1: error: {c}: no such directory")), "{run}");
    let run = xvec(&["shell", "--keep-going", "-c", "create --field t:string --vector v:2:ip"]).run();
    run.code(1);
    assert!(run.stderr.starts_with("-c #1:1: error: no collection is open"), "{run}");
    let run = xvec(&["shell", c, "--write"])
        .stdin("create --field t:string --vector v:2:ip\ninsert {\"id\": \"a\", \"t\": \"x\", \"v\": [1, 0]}\nquery [1, 1] --fields t\n")
        .run();
    assert_eq!(run.ok().stdout, "_key\tscore\tt\na\t1\tx\n");
    assert_eq!(run.stderr, format!("created {c}\ninserted 1 document\n"));
    let run = xvec(&["shell", c, "-c", "describe --help"]).run();
    assert!(run.ok().stdout.contains("\nUsage: describe [OPTIONS]\n"), "{run}");
    let run = xvec(&["shell", "-c", "count --help"]).run();
    assert!(run.ok().stdout.contains("\nUsage: count [OPTIONS]\n"), "{run}");
    xvec(&["shell", "-c", "shell"]).run().code(2);
}

#[test]
fn ctrl_c_stops_a_batch_with_status_130() {
    use std::io::{BufRead, Write};
    let mut child = std::process::Command::new(crate::harness::bin())
        .args(["shell", wordnet().to_str().unwrap()])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    writeln!(stdin, "count").unwrap();
    let mut line = String::new();
    while line != "2500\n" {
        line.clear();
        stdout.read_line(&mut line).unwrap();
    }
    let kill = std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(kill.success());
    writeln!(stdin, "count").unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    // The handler runs on its own thread: the next statement or the end of input sees it.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr == "<stdin>:2: error: interrupted\n" || stderr == "error: interrupted\n", "{stderr}");
}

#[test]
fn terminal_meta_commands_in_a_script() {
    // .pager and .expanded are accepted anywhere (they only act on a terminal); .edit needs
    // the prompt.
    let run = shell(&["-c", ".pager off", "-c", ".expanded on", "-c", "count"]).run();
    assert_eq!(run.ok().stdout, "count\n2500\n", "expanded display is for table mode only");
    let run = shell(&["-c", ".edit"]).run();
    run.code(2);
    assert!(run.stderr.contains("error: `.edit` works at the interactive prompt, alone on its line"), "{}", run.stderr);
    let run = shell(&["-c", ".mode table", "-c", ".expanded on", "-c", "fetch n.00001740 --fields lemma"]).run();
    assert_eq!(run.ok().stdout, " _key = n.00001740\nlemma = entity\n");
}

/// A read-only shell follows a writer in another handle: each statement sees every write
/// acknowledged before it, whether still in the WAL or flushed into a new generation.
#[test]
fn a_read_only_shell_sees_new_writes_at_its_next_statement() {
    use std::io::{BufRead, BufReader, Write};
    use xvec::{Collection, Doc, Field, ScalarType, Schema};
    let dir = tempfile::tempdir().unwrap();
    let schema = Schema::builder("live").field(Field::scalar("n", ScalarType::Int64)).build().unwrap();
    let coll = Collection::create(dir.path(), schema, Default::default()).unwrap();
    coll.insert(vec![Doc::new("a").set("n", 1i64)]).unwrap();
    let mut child = crate::harness::command(&["shell", dir.path().to_str().unwrap()])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut ask = |statement: &str| {
        writeln!(stdin, "{statement}").unwrap();
        let mut lines = vec![out.next().unwrap().unwrap()];
        while lines.len() < 2 {
            lines.push(out.next().unwrap().unwrap());
        }
        lines.join("\n")
    };
    assert_eq!(ask("count"), "count\n1");
    coll.insert(vec![Doc::new("b").set("n", 2i64)]).unwrap();
    assert_eq!(ask("count"), "count\n2");
    coll.flush().unwrap();
    coll.delete(&["a"]).unwrap();
    assert_eq!(ask("count"), "count\n1");
    let run = ask(".mode line\nfetch b");
    assert_eq!(run, "_key = b\n   n = 2");
    drop(stdin);
    assert!(child.wait().unwrap().success());
}
