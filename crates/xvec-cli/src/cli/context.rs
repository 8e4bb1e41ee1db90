//! What every command shares: where it writes ([`Io`]), how it reaches its collection
//! ([`Collections`]: one per argv command, or the shell's open one), and how it prints.

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::time::Duration;

use xvec::{Collection, CollectionOptions, Error, FilterErrorKind, OpenOptions, Params, Schema};

use super::CliError;
use super::output::{OutputMode, Printer, Table};

/// Where a command writes (results to `out`, diagnostics to `err`), the values its
/// filter's `$name` placeholders bind to (`--param`, and the shell's `.param set`), and
/// what it reads for `-`.
pub struct Io<'a> {
    pub out: &'a mut dyn Write,
    pub err: &'a mut dyn Write,
    pub printer: Printer,
    pub params: Params,
    /// What `-` reads in place of the process's standard input: in the shell, the data
    /// lines after the statement (`shell::data`). `None`: standard input, from line 1 of
    /// `<stdin>`. A second `-` in the same statement reads what the first left.
    pub stdin: Option<Stdin<'a>>,
}

/// Input a command reads for `-`, and how its errors name it. (References only: an `Io`
/// holding it needs no drop, so what it borrows is free again after its last use.)
pub struct Stdin<'a> {
    pub reader: &'a mut dyn std::io::BufRead,
    /// The name errors give, e.g. the script's file name.
    pub name: &'a str,
    /// The line of `name` the input starts at.
    pub first_line: u64,
}

impl Stdin<'_> {
    /// The same input, borrowed for a shorter while.
    pub fn reborrow(&mut self) -> Stdin<'_> {
        Stdin { reader: &mut *self.reader, name: self.name, first_line: self.first_line }
    }
}

/// Runs `f` on what `-` reads: `stdin` (`Io::stdin`, the shell's data lines) when there is
/// one, else the process's standard input, named `<stdin>` from line 1.
pub fn read_stdin<T>(stdin: &mut Option<Stdin<'_>>, f: impl FnOnce(Stdin<'_>) -> T) -> T {
    match stdin.as_mut() {
        Some(s) => f(s.reborrow()),
        None => f(Stdin { reader: &mut std::io::stdin().lock(), name: "<stdin>", first_line: 1 }),
    }
}

/// Whether colour is wanted on a terminal: not when `NO_COLOR` is set to anything.
pub fn color_allowed() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Printer settings for argv use.
pub fn printer_for(args: &super::OutputArgs) -> Printer {
    let tty = std::io::stdout().is_terminal();
    Printer {
        mode: args.mode.unwrap_or(OutputMode::default_for(tty)),
        headers: !args.no_headers,
        color: tty && color_allowed(),
        expand_wider_than: None,
        null: super::output::NullText::default(),
    }
}

/// How commands reach their collection: argv opens one per command ([`OneShot`]); the
/// shell keeps one open across statements.
pub trait Collections {
    /// The collection in `dir`, open for writing when `write`.
    fn open(&mut self, dir: &Path, write: bool) -> Result<&Collection, CliError>;
    /// Creates a collection in `dir` and keeps it open for writing.
    fn create(&mut self, dir: &Path, schema: Schema, options: CollectionOptions) -> Result<&Collection, CliError>;
    /// Whether collection files are mapped (`--no-mmap` turns it off).
    fn mmap(&self) -> bool {
        true
    }
    /// How long taking the writer lock waits for another writer (`--wait`, `.timeout`).
    fn lock_timeout(&self) -> Duration {
        Duration::ZERO
    }
    /// Whether a command may ask a yes/no question: someone is at a terminal, not a
    /// script (the shell says so for statements typed at its prompt only).
    fn can_ask(&self) -> bool {
        std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
    }
}

/// Asks `question` on the terminal; true for `y` or `yes`.
pub fn confirm(io: &mut Io, question: &str) -> Result<bool, CliError> {
    write!(io.err, "{question} [y/N] ")?;
    io.err.flush()?;
    let mut line = String::new();
    std::io::BufRead::read_line(&mut std::io::stdin().lock(), &mut line)?;
    Ok(matches!(line.trim(), "y" | "Y" | "yes"))
}

/// argv use: the command's collection, opened on first use and closed by [`OneShot::close`].
pub struct OneShot {
    coll: Option<Collection>,
    mmap: bool,
    lock_timeout: Duration,
    memory_budget: Option<u64>,
}

impl OneShot {
    /// Opens collections mapped, or read when `mmap` is false; a writer waits up to
    /// `lock_timeout` for the lock.
    pub fn new(mmap: bool, lock_timeout: Duration) -> OneShot {
        OneShot { coll: None, mmap, lock_timeout, memory_budget: None }
    }

    /// Opens collections with this memory budget (`--memory-budget`).
    pub fn memory_budget(self, memory_budget: Option<u64>) -> OneShot {
        OneShot { memory_budget, ..self }
    }

    /// Syncs and releases the collection, reporting what `Drop` would swallow.
    pub fn close(self) -> Result<(), CliError> {
        match self.coll {
            Some(c) => Ok(c.close()?),
            None => Ok(()),
        }
    }
}

/// Opens a collection for a command or the shell. A writable open may first recover from a
/// crash (roll back an interrupted publish, cut a torn WAL tail); each thing it did is one
/// `note:` line on stderr, as the engine also logs it in `lost+found/log`.
/// `memory_budget` is `--memory-budget`.
pub fn open_collection(
    dir: &Path,
    write: bool,
    mmap: bool,
    lock_timeout: Duration,
    memory_budget: Option<u64>,
) -> Result<Collection, CliError> {
    let mut options = if write { OpenOptions::writable() } else { OpenOptions::read_only() };
    options.memory_budget = memory_budget;
    let coll = Collection::open(dir, &options.mmap(mmap).lock_timeout(lock_timeout))?;
    for r in coll.recovered() {
        eprintln!("note: recovered from a crash: {r}");
    }
    Ok(coll)
}

impl Collections for OneShot {
    fn open(&mut self, dir: &Path, write: bool) -> Result<&Collection, CliError> {
        Ok(self.coll.insert(open_collection(dir, write, self.mmap, self.lock_timeout, self.memory_budget)?))
    }

    fn create(&mut self, dir: &Path, schema: Schema, options: CollectionOptions) -> Result<&Collection, CliError> {
        Ok(self.coll.insert(create_collection(dir, schema, options, self.mmap, self.lock_timeout)?))
    }

    fn mmap(&self) -> bool {
        self.mmap
    }

    fn lock_timeout(&self) -> Duration {
        self.lock_timeout
    }
}

/// Creates a collection for `create` in argv or the shell.
pub fn create_collection(
    dir: &Path,
    schema: Schema,
    options: CollectionOptions,
    mmap: bool,
    lock_timeout: Duration,
) -> Result<Collection, CliError> {
    let open = OpenOptions::writable().mmap(mmap).lock_timeout(lock_timeout);
    Ok(Collection::create_with(dir, schema, options, &open)?)
}

pub fn print(io: &mut Io, t: &Table) -> Result<(), CliError> {
    io.printer.print(t, io.out)?;
    Ok(())
}

/// A filter error, with the offending spot underlined. A filter that does not compile
/// (syntax, an unknown field, a literal of the wrong type, an unbound `$name`) is a usage
/// error, exit 2, like any other statement that does not parse; an unbound `$name` gets a
/// hint on how to bind it.
pub fn with_filter_caret(e: Error, text: Option<&str>) -> CliError {
    match (&e, text) {
        (Error::Filter(fe), Some(text)) => {
            let err = CliError::usage(format!("{fe}\n{}", fe.caret(text)));
            match &fe.kind {
                FilterErrorKind::UnboundParam(name) => {
                    err.hint(format!(".param set {name} VALUE in the shell, or --param {name}=VALUE"))
                }
                _ => err,
            }
        }
        _ => e.into(),
    }
}
