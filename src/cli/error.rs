//! Errors at the tool's boundary and the one place that maps them to exit codes.

use std::process::ExitCode;

use xvec::{Error, StorageError};

/// Exit statuses, as documented in `man xvec`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// The command failed: bad data, not found, query error.
    Failed = 1,
    /// Unknown command, bad flag or argument, syntax error.
    Usage = 2,
    /// The collection is locked by another writer.
    Busy = 4,
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

    pub fn hint(mut self, hint: impl Into<String>) -> CliError {
        self.hint = Some(hint.into());
        self
    }

    pub fn exit_code(&self) -> ExitCode {
        ExitCode::from(self.status as u8)
    }
}

impl From<Error> for CliError {
    fn from(e: Error) -> CliError {
        match e {
            Error::Storage(StorageError::Locked { .. }) => CliError {
                status: Status::Busy,
                message: e.to_string(),
                hint: Some("another xvec process has this collection open for writing; retry when it is done".into()),
                broken_pipe: false,
            },
            Error::Storage(StorageError::Corrupted { .. }) => {
                CliError::failed(e.to_string()).hint("run `xvec verify DIR` for a full report")
            }
            Error::Storage(StorageError::NotACollection { .. }) => {
                CliError::failed(e.to_string()).hint("create one with `xvec create DIR --schema FILE`")
            }
            Error::ReadOnly(_) => CliError::failed(e.to_string()).hint("open it with --write"),
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
