//! Running the real `xvec` binary the way a user does: in a scratch directory with a
//! scrubbed environment. A failed expectation dumps the command, its directory, exit code,
//! stdout and stderr.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// The repository's `commands/` directory (scripts and `data/`).
pub fn commands_dir() -> PathBuf {
    crate::util::repo_root().join("commands")
}

pub fn data(file: &str) -> String {
    commands_dir().join("data").join(file).display().to_string()
}

/// A command line being prepared.
pub struct Xvec {
    cmd: Command,
    shown: String,
    stdin: Option<String>,
}

/// What a run did.
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    shown: String,
}

/// The binary under test.
pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_xvec")
}

/// The binary with `args` and a scrubbed environment (`PATH` kept, `HOME` a temp dir, no
/// history file), for tests that drive the child themselves (pipes, signals, waits).
pub fn command(args: &[&str]) -> Command {
    let mut cmd = Command::new(bin());
    cmd.args(args).env_clear().env("PATH", std::env::var_os("PATH").unwrap_or_default());
    cmd.env("HOME", std::env::temp_dir()).env("XVEC_HISTORY", "/dev/null");
    cmd
}

pub fn xvec(args: &[&str]) -> Xvec {
    Xvec { cmd: command(args), shown: format!("xvec {}", args.join(" ")), stdin: None }
}

impl Xvec {
    pub fn cwd(mut self, dir: &Path) -> Xvec {
        self.shown = format!("(cd {} && {})", dir.display(), self.shown);
        self.cmd.current_dir(dir);
        self
    }

    /// Caps the child's address space (RLIMIT_AS): an allocation beyond it aborts the
    /// child, so a test sees a signal instead of a machine swapping.
    pub fn address_space(self, bytes: u64) -> Xvec {
        self.rlimit(libc::RLIMIT_AS, bytes)
    }

    /// Caps the files the child may have open at once (RLIMIT_NOFILE, `ulimit -n`).
    pub fn open_files(mut self, n: u64) -> Xvec {
        self.shown = format!("ulimit -n {n}; {}", self.shown);
        self.rlimit(libc::RLIMIT_NOFILE, n)
    }

    fn rlimit(mut self, resource: libc::__rlimit_resource_t, n: u64) -> Xvec {
        use std::os::unix::process::CommandExt;
        // SAFETY: setrlimit is async-signal-safe and touches no state of the parent.
        unsafe {
            self.cmd.pre_exec(move || {
                let lim = libc::rlimit { rlim_cur: n, rlim_max: n };
                if libc::setrlimit(resource, &lim) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        self
    }

    pub fn env(mut self, key: &str, value: &Path) -> Xvec {
        self.shown = format!("{key}={} {}", value.display(), self.shown);
        self.cmd.env(key, value);
        self
    }

    pub fn stdin(mut self, text: &str) -> Xvec {
        self.stdin = Some(text.to_string());
        self
    }

    pub fn run(mut self) -> Run {
        self.cmd.stdin(if self.stdin.is_some() { Stdio::piped() } else { Stdio::null() });
        let mut child = self.cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn xvec");
        if let Some(text) = self.stdin.take() {
            use std::io::Write;
            // A child that refuses its arguments exits without reading its input; the
            // refusal is what the test checks, so a closed pipe is not an error here.
            match child.stdin.take().unwrap().write_all(text.as_bytes()) {
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
                other => other.expect("write xvec's standard input"),
            }
        }
        let out = child.wait_with_output().expect("wait for xvec");
        Run {
            code: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            shown: self.shown,
        }
    }

    /// Runs with stdout and stderr on one pipe, so the text interleaves as on a terminal.
    pub fn run_merged(mut self) -> Run {
        let (mut reader, writer) = std::io::pipe().expect("pipe");
        self.cmd.stdin(Stdio::null()).stdout(writer.try_clone().expect("pipe")).stderr(writer);
        let mut child = self.cmd.spawn().expect("spawn xvec");
        drop(self.cmd);
        let mut text = String::new();
        reader.read_to_string(&mut text).expect("read output");
        let status = child.wait().expect("wait for xvec");
        Run { code: status.code(), stdout: text, stderr: String::new(), shown: self.shown }
    }
}

impl Run {
    /// Asserts the exit code, showing everything when it differs.
    pub fn code(&self, expected: i32) -> &Run {
        assert_eq!(self.code, Some(expected), "{self}");
        self
    }

    pub fn ok(&self) -> &Run {
        self.code(0)
    }
}

impl std::fmt::Display for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "\n$ {}\nexit code: {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}\n",
            self.shown, self.code, self.stdout, self.stderr
        )
    }
}

/// Compares `actual` with the committed file `path`; `XVEC_BLESS=1` rewrites the file.
pub fn assert_golden(path: &Path, actual: &str) {
    if std::env::var_os("XVEC_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(path).unwrap_or_default();
    if expected != actual {
        let line = expected
            .lines()
            .zip(actual.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(expected.lines().count().min(actual.lines().count()));
        panic!(
            "{} is stale (first difference at line {}):\n--- expected ---\n{}\n--- actual ---\n{}\n\
             If the change is intended, regenerate with: XVEC_BLESS=1 cargo test --test tests cli::",
            path.display(),
            line + 1,
            expected.lines().nth(line).unwrap_or("<end of file>"),
            actual.lines().nth(line).unwrap_or("<end of output>")
        );
    }
}

/// The WordNet sample imported and flushed once, shared read-only by the tests.
pub fn wordnet() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let c = dir.path().join("wordnet");
        let c = c.to_str().unwrap();
        xvec(&["create", c, "--schema", &data("schema.json")]).run().ok();
        xvec(&["import", c, &data("wordnet.jsonl"), "--vectors", &format!("emb={}", data("wordnet.fvecs")), "--flush"])
            .run()
            .ok();
        dir
    })
    .path()
    .join("wordnet")
    .leak()
}

/// The committed WordNet sample with its full-text `gloss` and the `bm25` sparse field
/// filled from the committed vocabulary (`schema-fts.json`, as `commands/hybrid.xvec`
/// builds it), flushed: built once, shared read-only.
pub fn wordnet_hybrid() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let c = dir.path().join("hybrid");
        let c = c.to_str().unwrap();
        xvec(&["create", c, "--schema", &data("schema-fts.json")]).run().ok();
        let weights = format!("bm25=gloss:{}", data("wordnet-vocab.tsv"));
        let vectors = format!("emb={}", data("wordnet.fvecs"));
        xvec(&["import", c, &data("wordnet.jsonl"), "--vectors", &vectors, "--sparse-bm25", &weights, "--flush"])
            .run()
            .ok();
        dir
    })
    .path()
    .join("hybrid")
    .leak()
}
