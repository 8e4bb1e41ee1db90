//! Errors at the tool's boundary and the one place that maps them to exit statuses.

use std::io::Write;
use std::process::ExitCode;

use xvec::{Error, StorageError};

/// Exit statuses other than 0 and `.exit N`, as documented in `man xvec` and `--help`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Failed = 1,
    Usage = 2,
    Integrity = 3,
    Busy = 4,
    Interrupted = 130,
}

impl Status {
    pub const ALL: [Status; 5] = [Status::Failed, Status::Usage, Status::Integrity, Status::Busy, Status::Interrupted];

    pub fn code(self) -> u8 {
        self as u8
    }

    pub fn meaning(self) -> &'static str {
        match self {
            Status::Failed => {
                "the command failed: bad data, a missing key, file or collection, a query that cannot run"
            }
            Status::Usage => "usage: unknown command, bad flag or argument, a statement or filter that does not parse",
            Status::Integrity => "integrity: verify found corruption or orphan files (repair can act)",
            Status::Busy => "busy: the collection is locked by another writer",
            Status::Interrupted => "interrupted (Ctrl-C) in batch mode",
        }
    }
}

/// How batch mode picks its status, printed under the table.
pub const BATCH_STATUS: &str = "A shell script (-f, -c, standard input) exits with the status of its first failed \
     statement, with or without --keep-going: 2 for a filter that does not parse, 4 for a locked collection.";

/// Every exit status with its meaning, in order: the table `--help` and the man page print.
pub fn exit_statuses() -> Vec<(String, &'static str)> {
    std::iter::once(("0".to_string(), "success"))
        .chain(Status::ALL.iter().map(|s| (s.code().to_string(), s.meaning())))
        .chain(std::iter::once(("N".to_string(), "the shell ran `.exit N`")))
        .collect()
}

/// An error with the status it exits with and an optional hint.
#[derive(Debug)]
pub struct CliError {
    pub status: Status,
    pub message: String,
    pub hint: Option<String>,
    /// Output went to a closed pipe (`xvec query ... | head`): exit quietly.
    pub broken_pipe: bool,
}

impl CliError {
    pub fn failed(message: impl Into<String>) -> CliError {
        CliError { status: Status::Failed, message: message.into(), hint: None, broken_pipe: false }
    }

    pub fn usage(message: impl Into<String>) -> CliError {
        CliError { status: Status::Usage, message: message.into(), hint: None, broken_pipe: false }
    }

    /// A file operation on `path` that failed, worded for people: `FILE: no such file or
    /// directory`, not the OS's `(os error 2)`.
    pub fn file(path: &std::path::Path, e: &std::io::Error) -> CliError {
        use std::io::ErrorKind;
        let what = match e.kind() {
            ErrorKind::NotFound => "no such file or directory".to_string(),
            ErrorKind::PermissionDenied => "permission denied".to_string(),
            ErrorKind::AlreadyExists => "already exists".to_string(),
            ErrorKind::IsADirectory => "a directory, not a file".to_string(),
            ErrorKind::NotADirectory => "a part of the path is a file, not a directory".to_string(),
            ErrorKind::StorageFull => "no space left on the device".to_string(),
            _ => e.to_string(),
        };
        CliError::failed(format!("{}: {what}", path.display()))
    }

    pub fn interrupted() -> CliError {
        CliError { status: Status::Interrupted, message: "interrupted".into(), hint: None, broken_pipe: false }
    }

    pub fn hint(mut self, hint: impl Into<String>) -> CliError {
        self.hint = Some(hint.into());
        self
    }

    pub fn exit_code(&self) -> ExitCode {
        ExitCode::from(self.status.code())
    }

    /// Writes `{location}error: message` and the hint, if any. `location` is empty on the
    /// command line and `FILE:LINE: ` in scripts.
    pub fn report(&self, location: &str, w: &mut dyn Write) {
        let _ = writeln!(w, "{location}error: {}", self.message);
        if let Some(h) = &self.hint {
            let _ = writeln!(w, "hint: {h}");
        }
    }

    /// A clap parse error, whole: what is wrong, clap's tips ("a similar argument exists"),
    /// the usage and where to read more, exactly as argv prints it (`report` adds the
    /// `error: ` clap's text starts with).
    pub fn from_clap(e: &clap::Error) -> CliError {
        let text = e.render().to_string();
        let text = text.trim_end();
        // clap shows the help for a command with subcommands but none given (`.param`).
        if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
            return CliError::usage(format!("a subcommand is required\n\n{text}"));
        }
        CliError::usage(text.strip_prefix("error: ").unwrap_or(text))
    }
}

impl From<Error> for CliError {
    fn from(e: Error) -> CliError {
        match e {
            Error::Storage(StorageError::Locked { waited, .. }) => CliError {
                status: Status::Busy,
                message: e.to_string(),
                hint: Some(if waited.is_zero() {
                    "another xvec process has this collection open for writing; retry when it is done, \
                     or wait for it with --wait SECS (.timeout MS in the shell)"
                        .into()
                } else {
                    "another xvec process has this collection open for writing; retry when it is done".into()
                }),
                broken_pipe: false,
            },
            Error::Storage(StorageError::Corrupted { .. }) => {
                CliError::failed(e.to_string()).hint("run `xvec verify DIR` for a full report")
            }
            Error::Storage(StorageError::WalDamaged(_)) => CliError {
                status: Status::Integrity,
                ..CliError::failed(e.to_string())
                    .hint("run `xvec verify DIR` for a full report, `xvec repair DIR` to salvage")
            },
            Error::Storage(StorageError::DamagedRows { .. }) => CliError {
                status: Status::Integrity,
                ..CliError::failed(e.to_string())
                    .hint("`xvec verify DIR` names the damage; the other rows stay readable until then")
            },
            Error::Storage(StorageError::BackupDamaged { .. }) => CliError {
                status: Status::Integrity,
                ..CliError::failed(e.to_string()).hint("run `xvec verify BACKUP` for a full report")
            },
            Error::Storage(StorageError::FailStop { .. }) => {
                CliError::failed(e.to_string()).hint("nothing after the error was acknowledged; run the command again")
            }
            Error::Storage(StorageError::NotACollection { ref path } | StorageError::NoDirectory { ref path }) => {
                let hint = format!("`xvec create {} --schema FILE` (or --field/--vector) makes one", path.display());
                CliError::failed(e.to_string()).hint(hint)
            }
            Error::Storage(StorageError::NotADirectory { .. }) => CliError::failed(e.to_string())
                .hint("a collection is a directory; data files come after it, e.g. `xvec import DIR FILE`"),
            Error::Storage(StorageError::Io { ref source, .. })
                if matches!(source.raw_os_error(), Some(libc::EMFILE | libc::ENFILE)) =>
            {
                CliError::failed(e.to_string()).hint(open_files_hint())
            }
            Error::Storage(StorageError::NoSuchVersion { .. }) => CliError::failed(e.to_string())
                .hint("`xvec versions DIR` lists the versions kept; `create --keep-versions N` keeps more"),
            Error::Filter(_) => CliError::usage(e.to_string()),
            Error::Query(ref q) if q.is_parameter() => CliError::usage(e.to_string()),
            Error::Cancelled => CliError { message: e.to_string(), ..CliError::interrupted() },
            Error::ReadOnly(_) => CliError::failed(e.to_string()).hint("open it with --write"),
            Error::Busy(_) => CliError { status: Status::Busy, ..CliError::failed(e.to_string()) },
            other => CliError::failed(other.to_string()),
        }
    }
}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> CliError {
        let broken_pipe = e.kind() == std::io::ErrorKind::BrokenPipe;
        CliError { broken_pipe, ..CliError::failed(e.to_string()) }
    }
}

/// What to do when the process runs out of file descriptors: the limit in force and the
/// command that raises it. A collection holds a descriptor for its lock and WAL only (mapped
/// files close once mapped); a build or merge opens a few more while it writes.
fn open_files_hint() -> String {
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes the struct it is given and nothing else.
    let known = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } == 0;
    let now = if known { format!(" (now {})", lim.rlim_cur) } else { String::new() };
    format!("the process may open too few files{now}: raise the limit, e.g. `ulimit -n 65536`, and run it again")
}
