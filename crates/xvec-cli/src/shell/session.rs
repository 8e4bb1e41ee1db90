//! One shell session: the open collection, output settings and parameters, and how one
//! statement runs: parameters substituted, then a meta command or a command of the tree
//! (with the collection argument filled in), timed and echoed as asked.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::{CommandFactory, FromArgMatches};

use super::lexer;
use super::pager::{self, Paged};
pub use super::target::Target;
use crate::cli::commands;
use crate::cli::context::{self, Io, Stdin};
use crate::cli::meta::{AutoSwitch, Meta, MetaLine, ParamAction, Switch};
use crate::cli::output::{NullText, OutputMode, Printer, Table};
use crate::cli::params::{Binding, params_of};
use crate::cli::{COLLECTION_ARG, Cli, CliError, Command, MAX_WAIT, takes_collection};

/// What the shell does after a statement.
#[derive(Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    /// `.read FILE`: the script runner reads it (it owns nesting and error locations).
    Read(PathBuf),
    Exit(u8),
}

/// The command tree as the shell uses it: argv's, with the collection argument hidden (the
/// session fills it in) and usage lines without `xvec`, so help and errors show what one
/// types at the prompt (`query [OPTIONS] [VECTOR]`).
pub fn command_tree() -> clap::Command {
    let mut argv = Cli::command();
    argv.build();
    let mut tree = Cli::command().override_usage(SHELL_USAGE);
    // The built tree also has clap's `help` subcommand, which the shell's has not.
    for sub in argv.get_subcommands().filter(|c| c.get_name() != "help") {
        let usage = statement_usage(sub, "", takes_collection(sub));
        tree = tree.mut_subcommand(sub.get_name(), |mut c| {
            // `mut_arg` moves an argument last: give every positional its index first.
            let positionals: Vec<String> = c.get_positionals().map(|a| a.get_id().to_string()).collect();
            for (i, id) in positionals.iter().enumerate() {
                let hide = id == COLLECTION_ARG;
                c = c.mut_arg(id, |a| a.index(i + 1).hide(hide));
            }
            c.override_usage(usage)
        });
    }
    tree.build();
    tree
}

/// The usage of a built subcommand as a statement: `query [OPTIONS] [VECTOR]` for argv's
/// `xvec query [OPTIONS] <DIR> [VECTOR]` (no program name, no collection argument).
fn statement_usage(sub: &clap::Command, prefix: &str, strip_dir: bool) -> String {
    let text = sub.clone().render_usage().to_string();
    let line = text.trim().strip_prefix("Usage: ").unwrap_or(text.trim());
    let words: Vec<&str> = line.split(' ').filter(|w| !(w.is_empty() || strip_dir && *w == "<DIR>")).collect();
    let start = words.iter().position(|w| *w == sub.get_name()).unwrap_or(0);
    format!("{prefix}{}", words[start..].join(" "))
}

/// What a statement looks like, for the usage line of errors about the statement itself.
pub const SHELL_USAGE: &str = "COMMAND [OPTIONS] [ARGS]...  (or .META [ARGS]..., see .help)";

/// The meta command tree, built so positionals know their indexes; usage lines read
/// `.open [OPTIONS] <DIR>`.
pub fn meta_tree() -> clap::Command {
    let mut built = MetaLine::command();
    built.build();
    let mut metas = MetaLine::command();
    for sub in built.get_subcommands() {
        let usage = statement_usage(sub, ".", false);
        metas = metas.mut_subcommand(sub.get_name(), |c| c.override_usage(usage));
    }
    metas.build();
    metas
}

/// sqlite3 and psql meta commands that have no counterpart here, with what to use instead.
const FOREIGN_METAS: &[(&str, &str)] =
    &[("databases", "a directory holds one collection: .tables lists it (or those below), .open DIR switches")];

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
    /// The mode was chosen (`--mode`, `.mode`): files get it too, not the file default.
    pub mode_set: bool,
    timer: bool,
    echo: bool,
    /// Scripts stop at the first failing statement.
    pub bail: bool,
    /// `.param set` bindings by name: typed for filters, text for `$NAME` words.
    params: BTreeMap<String, Binding>,
    /// `.output FILE`: the file results go to, for `.show`.
    output: Option<PathBuf>,
    /// `.pager`: results longer than the screen go through a pager (terminal only).
    pager: AutoSwitch,
    /// `.expanded`: tables wider than the terminal print in the `line` layout.
    expanded: AutoSwitch,
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
                color: tty && context::color_allowed(),
                expand_wider_than: None,
                null: NullText::default(),
            },
            mode_set: false,
            timer: false,
            echo: false,
            bail,
            params: BTreeMap::new(),
            output: None,
            pager: AutoSwitch::Auto,
            expanded: AutoSwitch::Auto,
        }
    }

    /// Binds parameters given on the command line (`xvec shell --param NAME=VALUE`).
    pub fn bind(&mut self, bindings: &[Binding]) {
        self.params.extend(bindings.iter().map(|b| (b.name.clone(), b.clone())));
    }

    /// Runs one statement (already complete, comments removed); `stdin` is what it reads
    /// for `-` (the script's data lines), else standard input.
    pub fn execute(&mut self, text: &str, stdin: Option<Stdin>) -> Result<Flow, CliError> {
        if self.echo {
            writeln!(self.out, "{}", text.trim())?;
            self.out.flush()?;
        }
        let aliased;
        let text = match self.psql(text) {
            None => text,
            Some(statement) => {
                aliased = statement?;
                aliased.as_str()
            }
        };
        let words = self.substitute(lexer::words(text))?;
        let Some(first) = words.first() else { return Ok(Flow::Continue) };
        let name = first.strip_prefix('.').unwrap_or(first).to_string();
        let started = Instant::now();
        let meta = is_meta(&self.metas, &name);
        if let Some(open) = lexer::unclosed(text).filter(|_| meta) {
            return Err(CliError::usage(format!("`.{name}`: {}", open.describe()))
                .hint("a meta command ends at the end of its line; close the quote or bracket there"));
        }
        let result = if meta { self.meta(&name, &words[1..]) } else { self.command(first, &name, &words[1..], stdin) };
        let flushed = self.out.flush();
        // Commands that ran, as sqlite3 times statements: `.read`'s are timed one by one.
        if self.timer && !meta && result.is_ok() {
            eprintln!("time: {:.3} ms", started.elapsed().as_secs_f64() * 1e3);
        }
        let flow = result?;
        flushed?;
        Ok(flow)
    }

    /// The statement a psql backslash command stands for (see `psql`).
    fn psql(&self, text: &str) -> Option<Result<String, CliError>> {
        let name = self.target.schema().map(|s| s.name().to_string());
        let dir = self.target.dir().map(|d| d.display().to_string());
        let open = name.as_deref().zip(dir.as_deref());
        let switch_on = |meta: &str| match meta {
            ".timer" => self.timer,
            _ => self.expanded == AutoSwitch::On,
        };
        super::psql::translate(text, switch_on, open)
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

    fn command(
        &mut self,
        typed: &str,
        name: &str,
        rest: &[String],
        mut stdin: Option<Stdin>,
    ) -> Result<Flow, CliError> {
        let Some(sub) = self.tree.find_subcommand(name) else {
            return Err(self.unknown(typed, name));
        };
        let mut argv = vec!["xvec".to_string(), name.to_string()];
        // `explain analyze query ...`: DIR goes after the subcommands that lead to it.
        let (mut leaf, mut path) = (sub, 0);
        while !takes_collection(leaf)
            && let Some(next) = rest.get(path).and_then(|w| leaf.find_subcommand(w))
        {
            (leaf, path) = (next, path + 1);
        }
        argv.extend(rest[..path].iter().cloned());
        let rest = &rest[path..];
        let on_collection = takes_collection(leaf);
        if on_collection {
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
                write!(self.out, "{}", super::help::shell_examples(&e.render().to_string(), &self.tree))?;
                return Ok(Flow::Continue);
            }
            // `count words` out of argv habit: the shell fills DIR in itself.
            Err(e) if on_collection && rest.first().is_some_and(|w| Path::new(w).exists()) => {
                let dir = self.target.dir().map_or_else(String::new, |d| d.display().to_string());
                let or_open =
                    if Path::new(&rest[0]).is_dir() { format!(", or .open {} first", rest[0]) } else { String::new() };
                return Err(CliError::from_clap(&e)
                    .hint(format!("the shell works on the open collection ({dir}): leave DIR out{or_open}")));
            }
            Err(e) => return Err(CliError::from_clap(&e)),
        };
        let cli = Cli::from_arg_matches(&matches).map_err(|e| CliError::from_clap(&e))?;
        if let Command::Shell(_) = cli.command {
            return Err(CliError::usage("already in the shell").hint("type .open DIR to switch collections"));
        }
        if cli.read.no_mmap {
            self.target.mmap = false;
        }
        if cli.read.memory_budget.is_some() {
            self.target.memory_budget = cli.read.memory_budget;
        }
        let lock_timeout = self.target.lock_timeout;
        if let Some(wait) = cli.lock.wait {
            self.target.lock_timeout = wait;
        }
        let mut printer = self.printer;
        let once = self.once.take();
        if once.is_some() && !self.mode_set {
            printer.mode = OutputMode::default_for(false);
        }
        if let Some(mode) = cli.output.mode {
            printer.mode = mode;
        }
        printer.headers &= !cli.output.no_headers;
        printer.color &= once.is_none() && self.out_is_tty;
        let screen = self.screen().filter(|_| once.is_none());
        printer.expand_wider_than = match self.expanded {
            AutoSwitch::On => Some(0),
            AutoSwitch::Off => None,
            AutoSwitch::Auto => screen.map(|(cols, _)| cols),
        };
        let params = params_of(self.params.values().chain(cli.command.bindings()));
        let command = cli.into_command();
        let ran = match once {
            Some(mut w) => {
                let stdin = stdin.as_mut().map(Stdin::reborrow);
                let io = &mut Io { out: &mut w, err: &mut std::io::stderr(), printer, params, stdin };
                commands::run(command, &mut self.target, io).and_then(|()| Ok(w.flush()?))
            }
            None => {
                let pager = self.pager;
                self.paged(screen, pager, |out, target| {
                    let (err, stdin) = (&mut std::io::stderr(), stdin.as_mut().map(Stdin::reborrow));
                    commands::run(command, target, &mut Io { out, err, printer, params, stdin })
                })
            }
        };
        self.target.lock_timeout = lock_timeout;
        let released = self.target.release();
        ran?;
        released?;
        Ok(Flow::Continue)
    }

    /// Columns and rows of the terminal the results go to, if they go to one.
    fn screen(&self) -> Option<(usize, usize)> {
        self.out_is_tty.then(pager::terminal_size).flatten()
    }

    /// Runs `f` on the session's output, through a pager when `.pager` and the terminal
    /// say so (like psql: only with a terminal on standard input too, where someone can
    /// page). A reader quitting the pager early is no failure.
    fn paged(
        &mut self,
        screen: Option<(usize, usize)>,
        pager: AutoSwitch,
        f: impl FnOnce(&mut dyn Write, &mut Target) -> Result<(), CliError>,
    ) -> Result<(), CliError> {
        let wanted = pager != AutoSwitch::Off && std::io::stdin().is_terminal();
        let Some(screen) = screen.filter(|_| wanted) else {
            return f(&mut self.out, &mut self.target);
        };
        let mut paged = Paged::new(&mut self.out, screen, pager == AutoSwitch::On);
        let result = f(&mut paged, &mut self.target);
        if paged.quit() {
            return match result {
                Err(e) if e.broken_pipe => Ok(()),
                other => other,
            };
        }
        let finished = paged.finish();
        result?;
        Ok(finished?)
    }

    /// An unknown first word: clap's own error for an unknown subcommand over commands and
    /// meta commands (so "a similar subcommand exists" names either), or a pointer for
    /// sqlite3's and psql's names.
    fn unknown(&self, typed: &str, name: &str) -> CliError {
        if let Some((_, hint)) = FOREIGN_METAS.iter().find(|(n, _)| *n == name) {
            return CliError::usage(format!("unknown command `{typed}`")).hint(*hint);
        }
        let mut all = self.tree.clone();
        for m in self.metas.get_subcommands() {
            all = all.subcommand(m.clone());
        }
        match all.try_get_matches_from_mut(["xvec", name]) {
            Err(e) if e.kind() == clap::error::ErrorKind::InvalidSubcommand => {
                let mut e = CliError::from_clap(&e);
                e.message = e.message.replace("try '--help'", "type .help");
                e
            }
            _ => CliError::usage(format!("unknown command `{typed}`")).hint("type .help for the list"),
        }
    }

    fn meta(&mut self, name: &str, rest: &[String]) -> Result<Flow, CliError> {
        let argv = std::iter::once(name.to_string()).chain(rest.iter().cloned());
        let parsed = self.metas.try_get_matches_from_mut(argv).and_then(|m| MetaLine::from_arg_matches(&m));
        let line = match parsed {
            Ok(l) => l,
            Err(e) if !e.use_stderr() => {
                write!(self.out, "{}", e.render())?;
                return Ok(Flow::Continue);
            }
            Err(e) => return Err(CliError::from_clap(&e)),
        };
        match line.meta {
            Meta::Help { command } => self.help(command.as_deref())?,
            Meta::Open { dir, write } => {
                let asks = self.target.asks;
                let opened = self.target.replace_with(dir, write);
                self.target.asks = asks;
                opened?
            }
            Meta::Close => self.target.close()?,
            Meta::Tables => self.tables()?,
            Meta::Indexes => self.indexes()?,
            Meta::Lock => self.target.lock()?,
            Meta::Unlock => self.target.unlock()?,
            Meta::Mode { mode: None } => writeln!(self.out, "mode: {}", mode_name(self.printer.mode))?,
            Meta::Mode { mode: Some(mode) } => {
                self.printer.mode = mode;
                self.mode_set = true;
            }
            Meta::Headers { switch } => setting(&mut self.out, "headers", &mut self.printer.headers, switch)?,
            Meta::Timer { switch } => setting(&mut self.out, "timer", &mut self.timer, switch)?,
            Meta::Echo { switch } => setting(&mut self.out, "echo", &mut self.echo, switch)?,
            Meta::Bail { switch } => setting(&mut self.out, "bail", &mut self.bail, switch)?,
            Meta::Show => self.show()?,
            Meta::Nullvalue { text: None } => writeln!(self.out, "nullvalue: {:?}", self.printer.null.as_str())?,
            Meta::Nullvalue { text: Some(t) } => self.printer.null = NullText::new(&t).map_err(CliError::usage)?,
            Meta::Timeout { ms: None } => writeln!(self.out, "timeout: {} ms", self.target.lock_timeout.as_millis())?,
            Meta::Timeout { ms: Some(ms) } => {
                let wait = Duration::from_millis(ms);
                if wait > MAX_WAIT {
                    return Err(CliError::usage(format!("{ms} ms is above the limit of {} ms", MAX_WAIT.as_millis())));
                }
                self.target.lock_timeout = wait;
            }
            Meta::Output { file } => {
                self.out.flush()?;
                self.out = match &file {
                    Some(f) => Box::new(create_file(f)?),
                    None => Box::new(std::io::BufWriter::new(std::io::stdout())),
                };
                self.out_is_tty = file.is_none() && std::io::stdout().is_terminal();
                if !self.mode_set {
                    self.printer.mode = OutputMode::default_for(self.out_is_tty);
                }
                self.output = file;
            }
            Meta::Once { file } => self.once = Some(Box::new(create_file(&file)?)),
            Meta::Read { file } => return Ok(Flow::Read(file)),
            Meta::Param { action } => self.param(action)?,
            Meta::Exit { code } | Meta::Quit { code } => return Ok(Flow::Exit(code.unwrap_or(0))),
            Meta::Pager { switch } => auto_setting(&mut self.out, "pager", &mut self.pager, switch)?,
            Meta::Expanded { switch } => auto_setting(&mut self.out, "expanded", &mut self.expanded, switch)?,
            Meta::Edit => {
                return Err(CliError::usage("`.edit` works at the interactive prompt, alone on its line")
                    .hint("type .edit at the prompt to edit the last statement"));
            }
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
                    // A vector is abbreviated as tables abbreviate vectors (tsv and csv print it whole).
                    let value = match serde_json::from_str::<serde_json::Value>(&b.text) {
                        Ok(list @ serde_json::Value::Array(_)) => list.into(),
                        _ => b.text.clone().into(),
                    };
                    t.push(vec![format!("${k}").into(), b.type_label().into(), value]);
                }
                self.printer.print(&t, &mut self.out)?;
            }
        }
        Ok(())
    }

    /// `.tables`: the open collection, else those in the subdirectories of the open
    /// directory (a writable shell's before `create`) or the current one, by name.
    fn tables(&mut self) -> Result<(), CliError> {
        let mut t = Table::new(["collection", "dir"]);
        match (self.target.schema(), self.target.dir()) {
            (Some(schema), Some(dir)) => t.push(vec![schema.name().into(), dir.display().to_string().into()]),
            (_, dir) => {
                let base = dir.unwrap_or(Path::new("."));
                let entries = std::fs::read_dir(base).map_err(|e| CliError::file(base, &e))?;
                let mut found: Vec<PathBuf> =
                    entries.flatten().map(|e| e.path()).filter(|p| p.join("CURRENT").is_file()).collect();
                found.sort();
                for p in found {
                    let name = p.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
                    let shown = p.strip_prefix(".").unwrap_or(&p).display().to_string();
                    t.push(vec![name.into(), shown.into()]);
                }
            }
        }
        Ok(self.printer.print(&t, &mut self.out)?)
    }

    /// `.indexes`: each indexed field, its type and index parameters.
    fn indexes(&mut self) -> Result<(), CliError> {
        let schema = self.target.schema().ok_or_else(|| {
            CliError::failed("no collection is open").hint("start with `xvec shell DIR`, or type .open DIR")
        })?;
        let mut t = Table::new(["field", "type", "index"]);
        for f in schema.fields() {
            if let Some(index) = f.index_json() {
                t.push(vec![f.name.clone().into(), f.ty.name().into(), index.into()]);
            }
        }
        Ok(self.printer.print(&t, &mut self.out)?)
    }

    /// `.show`: every setting, one `name: value` line each, as sqlite3's `.show`.
    fn show(&mut self) -> Result<(), CliError> {
        let on = Switch::name;
        let collection = match self.target.dir() {
            None => "none".to_string(),
            Some(d) if self.target.schema().is_none() => {
                format!("{} (no collection yet: `create` makes one)", d.display())
            }
            Some(d) => format!("{} ({})", d.display(), self.target.lock_state()),
        };
        let generation = match self.target.generations() {
            Some((at_open, now)) if at_open == now.generation => crate::cli::describe::seen_generation(&now),
            Some((at_open, now)) => format!("{at_open} at open, {} now", crate::cli::describe::seen_generation(&now)),
            None => "-".into(),
        };
        let params = self.params.iter().map(|(k, v)| format!("${k}={}", v.text)).collect::<Vec<_>>().join(" ");
        let output = self.output.as_ref().map_or("stdout".into(), |f| f.display().to_string());
        let rows: [(&str, String); 13] = [
            ("mode", format!("{}{}", mode_name(self.printer.mode), if self.mode_set { "" } else { " (default)" })),
            ("headers", on(self.printer.headers).into()),
            ("timer", on(self.timer).into()),
            ("bail", on(self.bail).into()),
            ("echo", on(self.echo).into()),
            ("pager", self.pager.name().into()),
            ("expanded", self.expanded.name().into()),
            ("nullvalue", format!("{:?}", self.printer.null.as_str())),
            ("output", output),
            ("timeout", format!("{} ms", self.target.lock_timeout.as_millis())),
            ("collection", collection),
            ("generation", generation),
            ("params", if params.is_empty() { "none".into() } else { params }),
        ];
        for (name, value) in rows {
            writeln!(self.out, "{name:>10}: {value}")?;
        }
        Ok(())
    }

    fn help(&mut self, topic: Option<&str>) -> Result<(), CliError> {
        let Some(topic) = topic else {
            let text = super::help::overview(&self.tree, &self.metas);
            return self.paged(self.screen(), self.pager, |out, _| Ok(out.write_all(text.as_bytes())?));
        };
        let name = topic.strip_prefix('.').unwrap_or(topic);
        let text = if let Some(m) = self.metas.find_subcommand_mut(name) {
            m.render_long_help().to_string()
        } else if let Some(c) = self.tree.find_subcommand_mut(name) {
            let text = c.render_long_help().to_string();
            super::help::shell_examples(&text, &self.tree)
        } else {
            return Err(
                CliError::usage(format!("no command or meta command `{topic}`")).hint("type .help for the list")
            );
        };
        self.paged(self.screen(), self.pager, |out, _| Ok(out.write_all(text.as_bytes())?))
    }
}

/// A mode as `--mode` and `.mode` spell it.
fn mode_name(mode: OutputMode) -> String {
    clap::ValueEnum::to_possible_value(&mode).map_or_else(|| format!("{mode:?}"), |v| v.get_name().to_string())
}

/// `.headers`, `.timer`, ...: sets the switch, or prints it without an argument.
fn setting(out: &mut dyn Write, name: &str, value: &mut bool, switch: Option<Switch>) -> std::io::Result<()> {
    match switch {
        Some(s) => *value = s.on(),
        None => writeln!(out, "{name}: {}", Switch::name(*value))?,
    }
    Ok(())
}

fn auto_setting(
    out: &mut dyn Write,
    name: &str,
    value: &mut AutoSwitch,
    switch: Option<AutoSwitch>,
) -> std::io::Result<()> {
    match switch {
        Some(s) => *value = s,
        None => writeln!(out, "{name}: {}", value.name())?,
    }
    Ok(())
}

fn create_file(path: &Path) -> Result<std::io::BufWriter<std::fs::File>, CliError> {
    std::fs::File::create(path).map(std::io::BufWriter::new).map_err(|e| CliError::file(path, &e))
}
