//! The real REPL under a terminal (tmux): prompt and banner, Tab completion, a multi-line
//! statement, history recall, Ctrl-C keeping the shell, Ctrl-D leaving it with status 0.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use super::harness::wordnet;

/// A tmux server of our own (its own socket), killed when dropped.
pub(crate) struct Tmux {
    socket: String,
}

impl Tmux {
    pub(crate) fn start(cwd: &Path, command: &str) -> Tmux {
        // One server per test: tests run in parallel and dropping one kills its server.
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmux = Tmux { socket: format!("xvec-test-{}-{n}", std::process::id()) };
        let cwd = cwd.to_str().unwrap();
        tmux.run(&["new-session", "-d", "-s", "t", "-x", "120", "-y", "40", "-c", cwd, command]);
        tmux.run(&["set-option", "-t", "t", "remain-on-exit", "on"]);
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
        let mut args = vec!["send-keys", "-t", "t"];
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
        bin = env!("CARGO_BIN_EXE_xvec"),
        coll = coll.display(),
    );
    let t = Tmux::start(dir.path(), &command);
    let screen = t.wait("the banner and prompt", |s| s.contains("wordnet>"));
    assert!(screen.contains("shell: ") && screen.contains("(read-only). Type .help for help"), "{screen}");

    // Tab completes the command, a flag, and a field name inside a filter.
    t.keys(&["cou", "Tab"]);
    // The usage of a complete command name shows as a hint after it.
    t.wait("the completed command", |_| t.last_line() == "wordnet> count [OPTIONS]");
    t.keys(&[" --fil", "Tab"]);
    t.wait("the completed flag", |_| t.last_line().starts_with("wordnet> count --filter"));
    t.keys(&[" \"lexn", "Tab"]);
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
    // Keys typed before the prompt shows can be eaten by rustyline's cursor query.
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
