//! Running statements from text: scripts (`-f`, `.read`), standard input, `-c`, and each
//! buffer the REPL reads. Follows sqlite's `process_input`: errors are prefixed with
//! `FILE:LINE: `, a script stops at the first one while `.bail` is on, the REPL itself
//! never stops, and `.read` nests only so deep.

use std::io::BufRead;
use std::path::Path;

use super::lexer;
use super::session::{Flow, Session};
use crate::cli::error::Status;
use crate::cli::{CliError, interrupt};

/// `.read` files may nest this deep (a script reading itself stops here).
pub const MAX_READ_DEPTH: usize = 16;

/// Why running stopped before the end of the input.
#[derive(Debug, PartialEq, Eq)]
pub enum Halt {
    /// `.exit N`.
    Exit(u8),
    /// A statement failed while `.bail` was on, with this status.
    Failed(Status),
    /// Ctrl-C.
    Interrupted,
    /// Standard output was closed (`xvec shell ... | head`).
    BrokenPipe,
}

/// Runs statements against a session and remembers whether any failed.
pub struct Runner<'s> {
    pub session: &'s mut Session,
    /// The REPL: errors never stop it (scripts it `.read`s still bail).
    interactive: bool,
    /// Status of the first statement that failed: the exit status of a batch.
    pub first_failure: Option<Status>,
}

impl<'s> Runner<'s> {
    pub fn new(session: &'s mut Session, interactive: bool) -> Runner<'s> {
        Runner { session, interactive, first_failure: None }
    }

    /// Runs the lines of `reader`, named `name` in errors.
    pub fn run_reader(&mut self, name: &str, reader: &mut dyn BufRead, depth: usize) -> Result<(), Halt> {
        let mut buf = String::new();
        let mut first_line = 1;
        let mut line = String::new();
        for lineno in 1.. {
            line.clear();
            match reader.read_line(&mut line) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) => {
                    return self.fail(&CliError::failed(format!("reading: {e}")), Some((name, lineno)));
                }
            }
            if buf.is_empty() {
                first_line = lineno;
            }
            buf.push_str(&line);
            if !buf.ends_with('\n') {
                buf.push('\n');
            }
            if lexer::is_complete(&buf) {
                self.run_buffer(Some(name), &buf, first_line, depth)?;
                buf.clear();
            }
        }
        if !buf.trim().is_empty() {
            let open = lexer::scan(&buf).open.unwrap_or(lexer::Open::Continuation);
            let e = unfinished(open);
            self.fail(&e, Some((name, first_line)))?;
        }
        Ok(())
    }

    /// Runs a script file: `-f FILE` (`at` is `None`: a missing file stops the batch) or
    /// `.read FILE` (`at` names the `.read` statement).
    pub fn run_file(&mut self, path: &Path, depth: usize, at: Option<(&str, usize)>) -> Result<(), Halt> {
        match std::fs::File::open(path) {
            Ok(f) => self.run_reader(&path.display().to_string(), &mut std::io::BufReader::new(f), depth),
            Err(e) => {
                let e = CliError::file(path, &e);
                if at.is_some() {
                    return self.fail(&e, at);
                }
                self.report(&e, None);
                self.first_failure.get_or_insert(e.status);
                Err(Halt::Failed(e.status))
            }
        }
    }

    /// Runs the complete statements of `buf`, whose first line is `first_line` of `name`
    /// (`None` for what the REPL reads: no location in errors).
    pub fn run_buffer(&mut self, name: Option<&str>, buf: &str, first_line: usize, depth: usize) -> Result<(), Halt> {
        for (start, end) in lexer::scan(buf).statements {
            let text = &buf[start..end];
            let skipped = text.len() - text.trim_start().len();
            let line = first_line + buf[..start + skipped].matches('\n').count();
            let at = name.map(|n| (n, line));
            if let Err(e) = interrupt::check() {
                self.fail(&e, at)?;
                continue;
            }
            match self.session.execute(text) {
                Ok(Flow::Continue) => {}
                Ok(Flow::Exit(code)) => return Err(Halt::Exit(code)),
                Ok(Flow::Read(path)) if depth + 1 >= MAX_READ_DEPTH => {
                    let e = CliError::failed(format!("{}: .read nests deeper than {MAX_READ_DEPTH}", path.display()));
                    self.fail(&e, at)?;
                }
                Ok(Flow::Read(path)) => match self.run_file(&path, depth + 1, at) {
                    Err(Halt::Failed(_) | Halt::Interrupted) if self.interactive && depth == 0 => {}
                    other => other?,
                },
                Err(e) => self.fail(&e, at)?,
            }
        }
        Ok(())
    }

    /// Reports a failed statement and decides whether to go on: a statement typed at the
    /// prompt never stops anything; a script stops on Ctrl-C, and on errors under `.bail on`.
    fn fail(&mut self, e: &CliError, at: Option<(&str, usize)>) -> Result<(), Halt> {
        if e.broken_pipe {
            return Err(Halt::BrokenPipe);
        }
        self.report(e, at);
        self.first_failure.get_or_insert(e.status);
        match at {
            None => Ok(()),
            Some(_) if e.status == Status::Interrupted => Err(Halt::Interrupted),
            Some(_) if self.session.bail => Err(Halt::Failed(e.status)),
            Some(_) => Ok(()),
        }
    }

    fn report(&self, e: &CliError, at: Option<(&str, usize)>) {
        let location = at.map_or(String::new(), |(name, line)| format!("{name}:{line}: "));
        e.report(&location, &mut std::io::stderr());
    }
}

/// The error for input that ends inside a statement, left open by `open`.
pub fn unfinished(open: lexer::Open) -> CliError {
    CliError::usage(format!("the input ends inside a statement: {}", open.describe()))
}
