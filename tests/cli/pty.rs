//! The real REPL under a terminal (tmux): prompt and banner, Tab completion (with the
//! space after a unique word, keys of the collection), multi-line statements under the
//! continuation prompt, typed-ahead lines, history recall, Ctrl-C keeping the shell, Ctrl-D
//! leaving it, the pager, expanded display on a narrow terminal, and `.edit`.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::harness::wordnet;

/// A tmux server of our own (its own socket), killed when dropped.
pub(crate) struct Tmux {
    socket: String,
}

impl Tmux {
    pub(crate) fn start(cwd: &Path, command: &str) -> Tmux {
        Tmux::start_sized(cwd, command, (120, 40))
    }

    pub(crate) fn start_sized(cwd: &Path, command: &str, (cols, rows): (u16, u16)) -> Tmux {
        // One server per test: tests run in parallel and dropping one kills its server.
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmux = Tmux { socket: format!("xvec-test-{}-{n}", std::process::id()) };
        let cwd = cwd.to_str().unwrap();
        let (cols, rows) = (cols.to_string(), rows.to_string());
        // remain-on-exit is set before the pane exists: a command that exits at once must
        // not take the server with it.
        tmux.run(&[
            "-f",
            "/dev/null",
            "start-server",
            ";",
            "set-window-option",
            "-g",
            "remain-on-exit",
            "on",
            ";",
            "new-session",
            "-d",
            "-s",
            "t",
            "-x",
            &cols,
            "-y",
            &rows,
            "-c",
            cwd,
            command,
        ]);
        tmux
    }

    pub(crate) fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("tmux is needed for the terminal test (.ci/run installs it; apt-get install tmux)");
        assert!(out.status.success(), "tmux {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub(crate) fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "t", "--"];
        args.extend_from_slice(keys);
        self.run(&args);
    }

    pub(crate) fn screen(&self) -> String {
        self.run(&["capture-pane", "-t", "t", "-p"])
    }

    /// Waits until the screen satisfies `check`, failing with the screen after 20 s.
    pub(crate) fn wait(&self, what: &str, check: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if check(&screen) {
                return screen;
            }
            assert!(start.elapsed() < Duration::from_secs(20), "waiting for {what}; the screen is:\n{screen}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The last non-empty line of the screen.
    fn last_line(&self) -> String {
        self.screen().lines().rev().find(|l| !l.trim().is_empty()).unwrap_or_default().to_string()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux").arg("-L").arg(&self.socket).arg("kill-server").output();
    }
}

#[test]
fn repl_prompt_completion_history_ctrl_c_ctrl_d() {
    let dir = tempfile::tempdir().unwrap();
    let coll = wordnet();
    let history = dir.path().join("history");
    // The shell's exit status is printed after it, since tmux may lose it.
    let command = format!(
        "env -i PATH=/usr/bin:/bin TERM=xterm HOME={home} XVEC_HISTORY={history} NO_COLOR=1 \
         sh -c '{bin} shell {coll}; echo \"exit status $?\"'",
        home = dir.path().display(),
        history = history.display(),
        bin = crate::harness::bin(),
        coll = coll.display(),
    );
    let t = Tmux::start(dir.path(), &command);
    let screen = t.wait("the banner and prompt", |s| s.contains("wordnet>"));
    assert!(screen.contains("shell: ") && screen.contains("(read-only). Type .help for help"), "{screen}");

    // Tab completes the command, a flag, and a field name inside a filter.
    t.keys(&["cou", "Tab"]);
    // The usage of a complete command name shows as a hint after it.
    t.wait("the completed command", |_| t.last_line() == "wordnet> count [OPTIONS]");
    t.keys(&["--fil", "Tab"]);
    t.wait("the completed flag", |_| t.last_line().starts_with("wordnet> count --filter"));
    t.keys(&["\"lexn", "Tab"]);
    t.wait("the completed field", |_| t.last_line().starts_with("wordnet> count --filter \"lexname"));
    t.keys(&[" = 'noun.animal'\"", "Enter"]);
    t.wait("the count", |s| s.contains("│ 162   │"));

    // A statement may span lines until its brackets close.
    t.wait("the prompt", |_| t.last_line() == "wordnet>");
    t.keys(&["query [1,", "Enter"]);
    t.keys(&["2]", "Enter"]);
    t.wait("the dimension error", |s| {
        s.contains("error: field `emb` expects a query vector of dimension 384, found 2")
    });

    // History: Up recalls the previous statement; Ctrl-C drops the line and keeps the shell.
    t.keys(&["describe", "Enter"]);
    t.wait("describe's output", |s| s.contains("collection wordnet: 2500 documents"));
    // Keys typed while a statement runs are echoed by the terminal: wait, to keep the screen clean.
    t.wait("the prompt", |_| t.last_line() == "wordnet>");
    t.keys(&["Up"]);
    t.wait("the recalled statement", |_| t.last_line().starts_with("wordnet> describe"));
    t.keys(&["C-c"]);
    t.wait("a fresh prompt", |_| t.last_line() == "wordnet>");
    t.keys(&[".mode csv", "Enter"]);
    t.wait("the prompt after .mode", |s| s.contains("wordnet> .mode csv\nwordnet>"));
    t.keys(&["count", "Enter"]);
    t.wait("the count in csv", |_| t.screen().contains("count\n2500\nwordnet>"));

    // Ctrl-D leaves with status 0, and the history file keeps the statements.
    // Keys sent before rustyline is back in raw mode can be dropped, so Ctrl-D is repeated.
    t.wait("the shell to exit", |s| {
        if !s.contains("exit status") {
            t.keys(&["C-d"]);
            std::thread::sleep(Duration::from_millis(100));
        }
        s.contains("exit status")
    });
    assert!(t.screen().contains("wordnet>\nexit status 0"), "{}", t.screen());
    let saved = std::fs::read_to_string(&history).unwrap();
    assert!(saved.contains("count --filter \"lexname = 'noun.animal'\"") && saved.contains("describe"), "{saved}");
}

/// The shell on the wordnet collection in a clean environment (plus `env`), its exit
/// status printed after it since tmux may lose it.
fn shell(dir: &Path, env: &str, size: (u16, u16)) -> Tmux {
    let command = format!(
        "env -i PATH=/usr/bin:/bin TERM=xterm HOME={home} XVEC_HISTORY={home}/history NO_COLOR=1 {env} \
         sh -c '{bin} shell {coll}; echo \"exit status $?\"'",
        home = dir.display(),
        bin = crate::harness::bin(),
        coll = wordnet().display(),
    );
    let t = Tmux::start_sized(dir, &command, size);
    t.wait("the prompt", |s| s.contains("wordnet>"));
    t
}

/// Where `needle` first shows on the screen, failing with the screen if it does not.
fn at(screen: &str, needle: &str) -> usize {
    screen.find(needle).unwrap_or_else(|| panic!("{needle:?} is not on the screen:\n{screen}"))
}

#[test]
fn typed_ahead_lines_run_in_order_and_continue_under_the_continuation_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let t = shell(dir.path(), "", (120, 40));
    // Everything at once, as a paste without bracketed paste or fast typing sends it.
    t.keys(&[".mode csv\rcount\rcount \\\r--filter \"pos = 'v'\"\rquery [1,\r2]\r.mode tsv\rcount\r"]);
    let screen = t.wait("the last statement's output", |s| {
        s.contains("wordnet> .mode tsv\nwordnet> count\ncount\n2500\nwordnet>")
    });
    let first = at(&screen, "wordnet> count\ncount\n2500\n");
    let continued = at(&screen, "wordnet> count \\\n    ...> --filter \"pos = 'v'\"\ncount\n");
    let bracket =
        at(&screen, "wordnet> query [1,\n    ...> 2]\nerror: field `emb` expects a query vector of dimension 384");
    assert!(first < continued && continued < bracket, "{screen}");
    // The multi-line statement is one history entry.
    t.keys(&["Up", "Up", "Up"]);
    t.wait("the recalled statement", |s| {
        s.ends_with("wordnet> query [1,\n2]\n") || s.contains("wordnet> query [1,\n2]\n\n")
    });
    let saved = std::fs::read_to_string(dir.path().join("history")).unwrap();
    assert!(saved.lines().any(|l| l == "query [1,\\n2]"), "one entry, its newline escaped: {saved}");
}

#[test]
fn ctrl_d_in_a_continuation_reports_the_statement_and_leaves() {
    let dir = tempfile::tempdir().unwrap();
    let t = shell(dir.path(), "", (120, 40));
    t.keys(&["query [0.1,", "Enter"]);
    t.wait("the continuation prompt", |_| t.last_line() == "    ...>");
    // Ctrl-C drops the unfinished statement and keeps the shell.
    t.keys(&["C-c"]);
    t.wait("the main prompt again", |_| t.last_line() == "wordnet>");
    t.keys(&["count --filter \"pos =", "Enter"]);
    t.wait("the continuation prompt", |_| t.last_line() == "    ...>");
    t.keys(&["C-d"]);
    let screen = t.wait("the shell to exit", |s| s.contains("exit status"));
    assert!(screen.contains("error: the input ends inside a statement: unterminated \"...\" quote"), "{screen}");
    assert!(screen.contains("exit status 2"), "{screen}");
}

#[test]
fn completion_adds_a_space_after_a_unique_word_and_completes_keys() {
    let dir = tempfile::tempdir().unwrap();
    let t = shell(dir.path(), "", (120, 40));
    t.keys(&["fet", "Tab"]);
    t.wait("the command and a space", |_| t.last_line() == "wordnet> fetch [OPTIONS] <KEY>...");
    t.keys(&["n.0000", "Tab"]);
    t.wait("the completed key", |_| t.last_line() == "wordnet> fetch n.00001740");
    t.keys(&["--fi", "Tab"]);
    t.wait("the completed flag", |_| t.last_line() == "wordnet> fetch n.00001740 --fields");
    t.keys(&["lem", "Tab"]);
    t.wait("the completed field", |_| t.last_line() == "wordnet> fetch n.00001740 --fields lemma");
    t.keys(&["Enter"]);
    t.wait("the fetched row", |s| s.contains("│ n.00001740 ┆ entity │"));
}

#[test]
fn long_results_go_through_the_pager_on_a_terminal_only() {
    let dir = tempfile::tempdir().unwrap();
    let pager = dir.path().join("pager");
    std::fs::write(&pager, "#!/bin/sh\necho \"paged $(wc -l) lines\"\n").unwrap();
    std::fs::set_permissions(&pager, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let t = shell(dir.path(), &format!("PAGER={}", pager.display()), (120, 30));
    // 40 rows do not fit 30 lines: paged. A count fits: printed.
    t.keys(&["query --pk n.00001740 -k 40 --fields lemma", "Enter"]);
    t.wait("the pager's marker", |s| s.contains("paged 44 lines"));
    t.keys(&["count", "Enter"]);
    t.wait("the count, not paged", |s| s.contains("│ 2500  │"));
    // Into a file: not paged.
    t.keys(&[".once out.txt", "Enter", "query --pk n.00001740 -k 40 --fields lemma", "Enter", ".pager off", "Enter"]);
    t.keys(&["query --pk n.00001740 -k 40 --fields lemma", "Enter"]);
    t.wait("the unpaged rows", |s| s.lines().any(|l| l.starts_with("└────────────┴")));
    let all = t.run(&["capture-pane", "-t", "t", "-p", "-S", "-"]);
    assert_eq!(all.matches("paged 44 lines").count(), 1, "{all}");
    let file = std::fs::read_to_string(dir.path().join("out.txt")).unwrap();
    // A file gets TSV (no mode was chosen): the header and 40 rows.
    assert_eq!(file.lines().count(), 41, "{file}");
    assert!(file.starts_with("_key\tscore\tlemma\n"), "{file}");
}

#[test]
fn wide_tables_print_expanded_on_a_narrow_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let t = shell(dir.path(), "", (60, 40));
    t.keys(&["fetch n.00001740 --fields lemma,gloss", "Enter"]);
    t.wait("the row in the line layout", |s| s.contains(" _key = n.00001740\nlemma = entity\ngloss = that which"));
    t.keys(&[".expanded off", "Enter", "fetch n.00001740 --fields lemma", "Enter"]);
    t.wait("a table that fits", |s| s.contains("│ n.00001740 ┆ entity │"));
}

#[test]
fn edit_runs_what_the_editor_saved() {
    let dir = tempfile::tempdir().unwrap();
    let editor = dir.path().join("editor");
    std::fs::write(
        &editor,
        "#!/bin/sh\ncp \"$1\" \"$HOME/seen\"\necho 'count --filter \"pos = '\"'v'\"'\"' > \"$1\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&editor, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let t = shell(dir.path(), &format!("EDITOR={}", editor.display()), (120, 40));
    t.keys(&["count", "Enter"]);
    t.wait("the count", |s| s.contains("│ 2500  │"));
    t.wait("the prompt", |_| t.last_line() == "wordnet>");
    t.keys(&[".edit", "Enter"]);
    t.wait("the edited statement and its count", |s| s.contains("wordnet> count --filter \"pos = 'v'\"\n┌"));
    assert_eq!(std::fs::read_to_string(dir.path().join("seen")).unwrap(), "count\n");
}

#[test]
fn statements_from_a_pipe_are_not_paged_on_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let command = format!(
        "env -i PATH=/usr/bin:/bin TERM=xterm PAGER='echo paged' NO_COLOR=1 \
         sh -c 'echo \"query --pk n.00001740 -k 40 --fields lemma\" | {bin} shell {coll}; echo \"exit status $?\"'",
        bin = crate::harness::bin(),
        coll = wordnet().display(),
    );
    let t = Tmux::start_sized(dir.path(), &command, (120, 30));
    let screen = t.wait("the shell to exit", |s| s.contains("exit status 0"));
    assert!(!screen.contains("paged") && screen.contains("└────────────┴"), "{screen}");
}

/// On a terminal, dropping the last vector field asks: no keeps it, yes drops it.
#[test]
fn dropping_the_last_vector_field_asks_on_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c").display().to_string();
    crate::harness::xvec(&["create", &c, "--vector", "v:2:l2"]).run().ok();
    let command = |answer: &str| {
        let t = Tmux::start(
            dir.path(),
            &format!("sh -c '{} alter {c} drop-field v; echo \"exit status $?\"'", crate::harness::bin()),
        );
        let asked = t.wait("the question", |s| s.contains("Drop it? [y/N]"));
        t.keys(&[answer, "Enter"]);
        (asked, t.wait("the command to end", |s| s.contains("exit status")))
    };
    let (asked, screen) = command("n");
    assert!(asked.replace('\n', "").contains("`v` is the collection's last vector field"), "{asked}");
    assert!(screen.contains("error: not dropped; the collection is unchanged\nexit status 1"), "{screen}");
    let (_, screen) = command("y");
    assert!(screen.contains("dropped: field v;") && screen.contains("exit status 0"), "{screen}");
}
