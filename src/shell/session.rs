//! One shell session: the open collection, output settings and parameters, and how one
//! statement runs: parameters substituted, then a meta command or a command of the tree
//! (with the collection argument filled in), timed and echoed as asked.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::{CommandFactory, FromArgMatches, Parser};
use xvec::{Collection, Schema};

use super::lexer;
use crate::cli::commands::{self, Collections, Io};
use crate::cli::meta::{Meta, MetaLine, ParamAction};
use crate::cli::output::{OutputMode, Printer, Table};
use crate::cli::params::{Binding, params_of};
use crate::cli::{COLLECTION_ARG, Cli, CliError, Command};

/// What the shell does after a statement.
#[derive(Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    /// `.read FILE`: the script runner reads it (it owns nesting and error locations).
    Read(PathBuf),
    Exit(u8),
}

/// The collection a session works on: a directory, and the handle once opened.
pub struct Target {
    dir: Option<PathBuf>,
    write: bool,
    coll: Option<Collection>,
    /// Map collection files (`--no-mmap` clears it for the rest of the session).
    mmap: bool,
}

impl Target {
    /// Targets `dir` and opens it now if it holds a collection, so a busy or broken one
    /// is reported at once; otherwise `create` can make it later.
    pub fn open(dir: Option<PathBuf>, write: bool, mmap: bool) -> Result<Target, CliError> {
        let mut t = Target { dir, write, coll: None, mmap };
        if let Some(d) = t.dir.clone()
            && d.join("CURRENT").exists()
        {
            t.open_handle(&d)?;
        }
        Ok(t)
    }

    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    pub fn is_writable(&self) -> bool {
        self.write
    }

    /// The open collection's schema, for completion.
    pub fn schema(&self) -> Option<&Schema> {
        self.coll.as_ref().map(|c| c.schema())
    }

    /// Syncs and releases the handle; the target is forgotten.
    pub fn close(&mut self) -> Result<(), CliError> {
        self.dir = None;
        match self.coll.take() {
            Some(c) => Ok(c.close()?),
            None => Ok(()),
        }
    }

    fn open_handle(&mut self, dir: &Path) -> Result<&Collection, CliError> {
        Ok(self.coll.insert(crate::cli::commands::open_collection(dir, self.write, self.mmap)?))
    }

    fn read_only_error(&self) -> CliError {
        let dir = self.dir.as_deref().map_or("DIR".into(), |d| d.display().to_string());
        CliError::failed("the shell opened the collection read-only").hint(format!(".open {dir} --write"))
    }
}

impl Collections for Target {
    fn open(&mut self, dir: &Path, write: bool) -> Result<&Collection, CliError> {
        if write && !self.write {
            return Err(self.read_only_error());
        }
        match self.coll {
            Some(ref c) => Ok(c),
            None => self.open_handle(dir),
        }
    }

    fn create(&mut self, dir: &Path, schema: Schema) -> Result<&Collection, CliError> {
        if !self.write {
            return Err(self.read_only_error());
        }
        Ok(self.coll.insert(Collection::create(dir, schema, Default::default())?))
    }

    fn mmap(&self) -> bool {
        self.mmap
    }
}

/// The command tree as the shell uses it: the same as argv's (so `.help query` prints
/// what `xvec query --help` does), with the collection argument filled in by the session.
pub fn command_tree() -> clap::Command {
    let mut tree = Cli::command();
    tree.build();
    tree
}

/// The meta command tree, built so positionals know their indexes.
pub fn meta_tree() -> clap::Command {
    let mut metas = MetaLine::command();
    metas.build();
    metas
}

/// Whether a command works on the open collection.
pub fn takes_collection(cmd: &clap::Command) -> bool {
    cmd.get_arguments().any(|a| a.get_id() == COLLECTION_ARG)
}

/// Whether `name` (without a leading `.`) is a meta command.
pub fn is_meta(metas: &clap::Command, name: &str) -> bool {
    metas.find_subcommand(name).is_some()
}

pub struct Session {
    pub target: Target,
    tree: clap::Command,
    metas: clap::Command,
    out: Box<dyn Write>,
    /// Whether `out` is the terminal (tables get colour there).
    out_is_tty: bool,
    /// `.once FILE`: where the next command's results go.
    once: Option<Box<dyn Write>>,
    pub printer: Printer,
    timer: bool,
    echo: bool,
    /// Scripts stop at the first failing statement.
    pub bail: bool,
    /// `.param set` bindings by name: typed for filters, text for `$NAME` words.
    params: BTreeMap<String, Binding>,
}

impl Session {
    pub fn new(target: Target, bail: bool) -> Session {
        let tty = std::io::stdout().is_terminal();
        Session {
            target,
            tree: command_tree(),
            metas: meta_tree(),
            out: Box::new(std::io::BufWriter::new(std::io::stdout())),
            out_is_tty: tty,
            once: None,
            printer: Printer {
                mode: OutputMode::default_for(tty),
                headers: true,
                color: tty && commands::color_allowed(),
            },
            timer: false,
            echo: false,
            bail,
            params: BTreeMap::new(),
        }
    }

    /// Binds parameters given on the command line (`xvec shell --param NAME=VALUE`).
    pub fn bind(&mut self, bindings: &[Binding]) {
        self.params.extend(bindings.iter().map(|b| (b.name.clone(), b.clone())));
    }

    /// Runs one statement (already complete, comments removed).
    pub fn execute(&mut self, text: &str) -> Result<Flow, CliError> {
        if self.echo {
            writeln!(self.out, "{}", text.trim())?;
            self.out.flush()?;
        }
        let words = self.substitute(lexer::words(text))?;
        let Some(first) = words.first() else { return Ok(Flow::Continue) };
        let name = first.strip_prefix('.').unwrap_or(first).to_string();
        let started = Instant::now();
        let result =
            if is_meta(&self.metas, &name) { self.meta(&name, &words[1..]) } else { self.command(&name, &words[1..]) };
        let flushed = self.out.flush();
        if self.timer {
            eprintln!("time: {:.3} ms", started.elapsed().as_secs_f64() * 1e3);
        }
        let flow = result?;
        flushed?;
        Ok(flow)
    }

    /// Replaces unquoted `$NAME` words by their bound values, but the NAME of `.param set`
    /// and `.param unset`, which may be written `$NAME` as in sqlite3.
    fn substitute(&self, words: Vec<lexer::Word>) -> Result<Vec<String>, CliError> {
        let head: Vec<&str> = words.iter().take(2).map(|w| w.text.trim_start_matches('.')).collect();
        let name_at = if matches!(head[..], ["param", "set" | "unset"]) { Some(2) } else { None };
        words
            .into_iter()
            .enumerate()
            .map(|(i, w)| match w.text.strip_prefix('$') {
                Some(name) if !w.quoted && !name.is_empty() && name_at != Some(i) => {
                    self.params.get(name).map(|b| b.text.clone()).ok_or_else(|| {
                        CliError::usage(format!("unknown parameter ${name}")).hint(format!(".param set {name} VALUE"))
                    })
                }
                _ => Ok(w.text),
            })
            .collect()
    }

    fn command(&mut self, name: &str, rest: &[String]) -> Result<Flow, CliError> {
        let Some(sub) = self.tree.find_subcommand(name) else {
            return Err(CliError::usage(format!("unknown command `{name}`")).hint("type .help for the list"));
        };
        let mut argv = vec!["xvec".to_string(), name.to_string()];
        if takes_collection(sub) {
            match self.target.dir() {
                Some(d) => argv.push(d.display().to_string()),
                None if rest.iter().any(|w| w == "-h" || w == "--help") => argv.push(".".into()),
                None => {
                    return Err(CliError::failed("no collection is open")
                        .hint("start with `xvec shell DIR`, or type .open DIR [--write]"));
                }
            }
        }
        argv.extend(rest.iter().cloned());
        let matches = match self.tree.try_get_matches_from_mut(argv) {
            Ok(m) => m,
            Err(e) if !e.use_stderr() => {
                write!(self.out, "{}", e.render())?;
                return Ok(Flow::Continue);
            }
            Err(e) => return Err(CliError::from_clap(&e).hint(format!(".help {name}"))),
        };
        let cli = Cli::from_arg_matches(&matches).map_err(|e| CliError::from_clap(&e))?;
        if let Command::Shell(_) = cli.command {
            return Err(CliError::usage("already in the shell").hint("type .open DIR to switch collections"));
        }
        if cli.read.no_mmap {
            self.target.mmap = false;
        }
        let mut printer = self.printer;
        if let Some(mode) = cli.output.mode {
            printer.mode = mode;
        }
        printer.headers &= !cli.output.no_headers;
        let mut once = self.once.take();
        printer.color &= once.is_none() && self.out_is_tty;
        let out: &mut dyn Write = match &mut once {
            Some(w) => w,
            None => &mut self.out,
        };
        let params = params_of(self.params.values().chain(cli.command.bindings()));
        commands::run(cli.command, &mut self.target, &mut Io { out, err: &mut std::io::stderr(), printer, params })?;
        if let Some(mut w) = once {
            w.flush()?;
        }
        Ok(Flow::Continue)
    }

    fn meta(&mut self, name: &str, rest: &[String]) -> Result<Flow, CliError> {
        let argv = std::iter::once(name.to_string()).chain(rest.iter().cloned());
        let line = match MetaLine::try_parse_from(argv) {
            Ok(l) => l,
            Err(e) if !e.use_stderr() => {
                write!(self.out, "{}", e.render())?;
                return Ok(Flow::Continue);
            }
            Err(e) => return Err(CliError::from_clap(&e).hint(format!(".help {name}"))),
        };
        match line.meta {
            Meta::Help { command } => self.help(command.as_deref())?,
            Meta::Open { dir, write } => {
                self.target.close()?;
                self.target = Target::open(Some(dir), write, self.target.mmap)?;
            }
            Meta::Close => self.target.close()?,
            Meta::Mode { mode } => self.printer.mode = mode,
            Meta::Headers { switch } => self.printer.headers = switch.on(),
            Meta::Timer { switch } => self.timer = switch.on(),
            Meta::Echo { switch } => self.echo = switch.on(),
            Meta::Bail { switch } => self.bail = switch.on(),
            Meta::Output { file } => {
                self.out.flush()?;
                self.out = match &file {
                    Some(f) => Box::new(create_file(f)?),
                    None => Box::new(std::io::BufWriter::new(std::io::stdout())),
                };
                self.out_is_tty = file.is_none() && std::io::stdout().is_terminal();
            }
            Meta::Once { file } => self.once = Some(Box::new(create_file(&file)?)),
            Meta::Read { file } => return Ok(Flow::Read(file)),
            Meta::Param { action } => self.param(action)?,
            Meta::Exit { code } => return Ok(Flow::Exit(code.unwrap_or(0))),
        }
        Ok(Flow::Continue)
    }

    fn param(&mut self, action: ParamAction) -> Result<(), CliError> {
        match action {
            ParamAction::Set { name, value } => {
                let b = Binding::new(&name, &value).map_err(|e| CliError::usage(e).hint(".help param"))?;
                self.params.insert(b.name.clone(), b);
            }
            ParamAction::Unset { name } => {
                let name = name.strip_prefix('$').unwrap_or(&name);
                if self.params.remove(name).is_none() {
                    return Err(CliError::failed(format!("no parameter ${name}")));
                }
            }
            ParamAction::List => {
                let mut t = Table::new(["name", "type", "value"]);
                for (k, b) in &self.params {
                    t.push(vec![format!("${k}").into(), b.type_label().into(), b.text.clone().into()]);
                }
                self.printer.print(&t, &mut self.out)?;
            }
        }
        Ok(())
    }

    fn help(&mut self, topic: Option<&str>) -> Result<(), CliError> {
        let Some(topic) = topic else {
            return Ok(self.out.write_all(super::help::overview(&self.tree, &self.metas).as_bytes())?);
        };
        let name = topic.strip_prefix('.').unwrap_or(topic);
        let text = if let Some(m) = self.metas.find_subcommand_mut(name) {
            m.render_long_help().to_string()
        } else if let Some(c) = self.tree.find_subcommand_mut(name) {
            c.render_long_help().to_string()
        } else {
            return Err(
                CliError::usage(format!("no command or meta command `{topic}`")).hint("type .help for the list")
            );
        };
        Ok(self.out.write_all(text.as_bytes())?)
    }
}

fn create_file(path: &Path) -> Result<std::io::BufWriter<std::fs::File>, CliError> {
    std::fs::File::create(path)
        .map(std::io::BufWriter::new)
        .map_err(|e| CliError::failed(format!("{}: {e}", path.display())))
}
