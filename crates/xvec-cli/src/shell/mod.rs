//! `xvec shell`: the REPL and batch runner over the one command tree. Statements are the
//! tool's commands without the collection argument, plus meta commands (`cli::meta`).
//!
//! Owns: statement syntax (`lexer`), one session's state (`session`), running text
//! (`script`, and the data lines a statement reads: `data`), the terminal (`interactive`, `helper`). Command behaviour stays in `cli`.

mod data;
mod edit;
mod help;
mod helper;
mod interactive;
mod lexer;
mod pager;
mod psql;
mod script;
mod session;
mod target;

use std::io::IsTerminal;
use std::path::PathBuf;

use crate::cli::error::Status;
use crate::cli::params::Binding;
use crate::cli::{LockArgs, OutputArgs, ShellArgs, interrupt};
use script::{DataFrom, Halt, Runner};
use session::{Session, Target};

/// One batch input, in the order given on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    File(PathBuf),
    Statement(String),
}

/// The `-f` and `-c` inputs in argv order (clap keeps each flag's values apart, so the
/// order comes from their indexes).
pub fn inputs_in_order(args: &ShellArgs, matches: Option<&clap::ArgMatches>) -> Vec<Input> {
    let indexes =
        |id: &str| -> Vec<usize> { matches.and_then(|m| m.indices_of(id)).map(|i| i.collect()).unwrap_or_default() };
    let mut inputs: Vec<(usize, Input)> = Vec::new();
    let files = args.files.iter().cloned().map(Input::File);
    inputs.extend(indexes("files").into_iter().zip(files));
    let statements = args.commands.iter().cloned().map(Input::Statement);
    inputs.extend(indexes("commands").into_iter().zip(statements));
    inputs.sort_by_key(|(i, _)| *i);
    inputs.into_iter().map(|(_, input)| input).collect()
}

/// `$XDG_CONFIG_HOME/xvec/xvecrc`, else `~/.config/xvec/xvecrc`.
pub fn startup_file() -> Option<PathBuf> {
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some(config.join("xvec/xvecrc"))
}

/// Runs the shell with `params` bound; returns the exit status.
pub fn run(
    args: &ShellArgs,
    inputs: Vec<Input>,
    output: &OutputArgs,
    mmap: bool,
    lock: &LockArgs,
    params: &[Binding],
) -> u8 {
    let stderr = &mut std::io::stderr();
    if let Err(e) = interrupt::install() {
        e.report("", stderr);
        return e.status.code();
    }
    let target = match &args.dir {
        None => Ok(Target::none(mmap, lock.timeout())),
        Some(dir) => Target::open(dir.clone(), args.write, mmap, lock.timeout()),
    };
    let target = match target {
        Ok(t) => t,
        Err(e) => {
            e.report("", stderr);
            return e.status.code();
        }
    };
    let mut session = Session::new(target, !args.keep_going);
    session.bind(params);
    if let Some(mode) = output.mode {
        session.printer.mode = mode;
        session.mode_set = true;
    }
    session.printer.headers = !output.no_headers;
    let code = match startup(&mut session, args) {
        Some(code) => code,
        None if inputs.is_empty() && std::io::stdin().is_terminal() => {
            session.target.asks = true;
            interactive::run(&mut session)
        }
        None => batch(&mut session, inputs),
    };
    match session.target.close() {
        Ok(()) => code,
        Err(e) => {
            e.report("", stderr);
            code.max(e.status.code())
        }
    }
}

/// Runs the startup file (`--init FILE`, else the default one if it exists; none with
/// `-n`). Its errors are reported with FILE:LINE and never stop the shell or set its exit
/// status; `.exit N` in it does exit (returned).
fn startup(session: &mut Session, args: &ShellArgs) -> Option<u8> {
    let file = match (&args.init, args.no_init) {
        (_, true) => return None,
        (Some(f), false) => f.clone(),
        (None, false) => startup_file().filter(|f| f.is_file())?,
    };
    let bail = std::mem::replace(&mut session.bail, false);
    let mut runner = Runner::new(session, false);
    let result = runner.run_file(&file, 0, None);
    session.bail = bail;
    match result {
        Err(Halt::Exit(code)) => Some(code),
        Err(Halt::Interrupted) => Some(Status::Interrupted.code()),
        Err(Halt::BrokenPipe) => Some(0),
        Ok(()) | Err(Halt::Failed(_)) => None,
    }
}

/// Batch mode: the inputs in order, or standard input without any. Exits with the status
/// of the first failed statement (1 when it failed, 2 when it did not parse, 4 when the
/// collection was locked), with or without --keep-going, unless `.exit N` said otherwise.
fn batch(session: &mut Session, inputs: Vec<Input>) -> u8 {
    let mut runner = Runner::new(session, false);
    let mut result = Ok(());
    if inputs.is_empty() {
        result = runner.run_reader("<stdin>", &mut std::io::stdin().lock(), 0, DataFrom::Inline);
    }
    for (n, input) in inputs.into_iter().enumerate() {
        result = match input {
            Input::File(path) => runner.run_file(&path, 0, None),
            Input::Statement(text) => {
                runner.run_reader(&format!("-c #{}", n + 1), &mut text.as_bytes(), 0, DataFrom::Stdin)
            }
        };
        if result.is_err() {
            break;
        }
    }
    // Ctrl-C while waiting for input is noticed once the input ends.
    if result.is_ok()
        && let Err(e) = interrupt::check()
    {
        e.report("", &mut std::io::stderr());
        return e.status.code();
    }
    match result {
        Ok(()) => runner.first_failure.map_or(0, Status::code),
        Err(Halt::Exit(code)) => code,
        Err(Halt::Failed(status)) => status.code(),
        Err(Halt::Interrupted) => Status::Interrupted.code(),
        Err(Halt::BrokenPipe) => 0,
    }
}
