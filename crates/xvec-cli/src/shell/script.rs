//! Running statements from text: scripts (`-f`, `.read`), standard input, `-c`, and each
//! buffer the REPL reads. Follows sqlite's `process_input`: errors are prefixed with
//! `FILE:LINE: `, a script stops at the first one while `.bail` is on, the REPL itself
//! never stops, and `.read` nests only so deep. A statement that reads `-` takes the data
//! lines after it (`data`), and relative paths in a script file resolve against its
//! directory (psql's `\ir`): a dump directory's script runs from anywhere.

use std::io::{BufRead, IsTerminal};
use std::path::{Path, PathBuf};

use super::data::DataLines;
use super::lexer;
use super::session::{Flow, Session};
use crate::cli::context::Stdin;
use crate::cli::error::Status;
use crate::cli::{CliError, interrupt};

/// `.read` files may nest this deep (a script reading itself stops here).
pub const MAX_READ_DEPTH: usize = 16;

/// Where a statement that reads `-` finds its data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataFrom {
    /// The lines after it in the same input, up to `\.` (scripts, piped standard input).
    Inline,
    /// The process's standard input, up to `\.` or its end (`-c`, the REPL).
    Stdin,
}

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
    pub fn run_reader(
        &mut self,
        name: &str,
        reader: &mut dyn BufRead,
        depth: usize,
        data: DataFrom,
    ) -> Result<(), Halt> {
        let mut buf = String::new();
        let (mut first_line, mut lineno) = (1, 0);
        let mut line = String::new();
        loop {
            line.clear();
            lineno += 1;
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
                let inline = (data == DataFrom::Inline).then_some(&mut *reader);
                lineno += self.run_buffer(Some(name), &buf, first_line, depth, inline)?;
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
            Ok(f) => {
                let name = path.display().to_string();
                let _dir = match ScriptDir::enter(path) {
                    Ok(dir) => dir,
                    Err(e) => return self.fail(&e, at.or(Some((&name, 1)))),
                };
                self.run_reader(&name, &mut std::io::BufReader::new(f), depth, DataFrom::Inline)
            }
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
    /// (`None` for what the REPL reads: no location in errors). A statement reading `-`
    /// takes the data lines after `buf` from `inline`, else from standard input. Returns
    /// the lines of `inline` taken.
    pub fn run_buffer(
        &mut self,
        name: Option<&str>,
        buf: &str,
        first_line: usize,
        depth: usize,
        mut inline: Option<&mut (dyn BufRead + '_)>,
    ) -> Result<usize, Halt> {
        let mut taken = 0;
        for (start, end) in lexer::scan(buf).statements {
            let text = &buf[start..end];
            let skipped = text.len() - text.trim_start().len();
            let line = first_line + buf[..start + skipped].matches('\n').count();
            let at = name.map(|n| (n, line));
            if let Err(e) = interrupt::check() {
                self.fail(&e, at)?;
                continue;
            }
            let ran = if reads_stdin(text) {
                let data_line = first_line + buf.matches('\n').count() + taken;
                let (flow, lines) = match inline.as_deref_mut() {
                    Some(reader) => self.execute_with_data(text, reader, name.unwrap_or("<stdin>"), data_line),
                    None => {
                        if std::io::stdin().is_terminal() {
                            eprintln!("Enter the data, then a line with only \\. (or Ctrl-D).");
                        }
                        self.execute_with_data(text, &mut std::io::stdin().lock(), "<stdin>", 1)
                    }
                };
                taken += if inline.is_some() { lines } else { 0 };
                flow
            } else {
                self.session.execute(text, None)
            };
            match ran {
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
        Ok(taken)
    }

    /// Runs `text` with the data lines at the front of `reader` (line `first_line` of
    /// `name`) as its `-`, then skips what it left of them. Returns its outcome and the
    /// lines of `reader` the data took, terminator included.
    fn execute_with_data(
        &mut self,
        text: &str,
        reader: &mut (dyn BufRead + '_),
        name: &str,
        first_line: usize,
    ) -> (Result<Flow, CliError>, usize) {
        let mut data = DataLines::new(reader);
        let stdin = Stdin { reader: &mut data, name, first_line: first_line as u64 };
        let mut ran = self.session.execute(text, Some(stdin));
        match data.finish() {
            Ok(0) => {}
            Ok(skipped) if ran.is_ok() => {
                ran = Err(CliError::failed(format!(
                    "{name}:{first_line}: the statement left {skipped} bytes of its data unread (they were skipped)"
                )));
            }
            Ok(_) => {}
            Err(e) => ran = ran.and(Err(CliError::failed(format!("{name}: reading the data: {e}")))),
        }
        (ran, data.taken())
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

/// The commands that read `-` as their input: `import -` and `create --schema -`.
/// (`export -o -` writes to standard output, and takes no data.)
const READING_COMMANDS: [&str; 2] = ["import", "create"];

/// Whether a statement reads data for `-`: one of [`READING_COMMANDS`] with an unquoted
/// `-` word. Decided from the words, before the statement runs, so that the data of one
/// that fails before reading it is still skipped rather than run as statements.
fn reads_stdin(text: &str) -> bool {
    let words = lexer::words(text);
    let command = words.first().map(|w| w.text.trim_start_matches('.'));
    command.is_some_and(|c| READING_COMMANDS.contains(&c)) && words.iter().skip(1).any(|w| !w.quoted && w.text == "-")
}

/// While a script file runs, the current directory is the script's, so its relative
/// paths (`import data.jsonl`, `.read`, `.output`) name files beside it; dropping this
/// goes back. Left alone for a script without a directory part, or one that is not a
/// regular file (`-f /dev/stdin`, a pipe). The shell's collection directory is absolute
/// (`Target`), so it stays where it was.
struct ScriptDir(Option<PathBuf>);

impl ScriptDir {
    fn enter(script: &Path) -> Result<ScriptDir, CliError> {
        let dir = match script.parent() {
            Some(dir) if !dir.as_os_str().is_empty() && std::fs::metadata(script).is_ok_and(|m| m.is_file()) => dir,
            _ => return Ok(ScriptDir(None)),
        };
        let back = std::env::current_dir().map_err(|e| CliError::failed(format!("the current directory: {e}")))?;
        std::env::set_current_dir(dir).map_err(|e| CliError::file(dir, &e))?;
        Ok(ScriptDir(Some(back)))
    }
}

impl Drop for ScriptDir {
    fn drop(&mut self) {
        if let Some(back) = &self.0
            && let Err(e) = std::env::set_current_dir(back)
        {
            eprintln!("xvec: cannot go back to {}: {e}", back.display());
        }
    }
}

/// The error for input that ends inside a statement, left open by `open`.
pub fn unfinished(open: lexer::Open) -> CliError {
    CliError::usage(format!("the input ends inside a statement: {}", open.describe()))
}
