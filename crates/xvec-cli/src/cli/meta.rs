//! The shell's meta commands (`.mode`, `.open`, ...), defined once with clap like the
//! command tree: the shell parses them with it, `.help` and the completer walk it, and the
//! `xvec-shell` man page lists it. The shell (`src/shell/`) carries them out.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum, ValueHint};

use super::output::OutputMode;

/// A meta command line, without its leading `.`.
#[derive(Debug, Parser)]
#[command(
    name = "",
    no_binary_name = true,
    disable_help_subcommand = true,
    disable_version_flag = true,
    override_usage = ".META [ARGS]...  (see .help)"
)]
pub struct MetaLine {
    #[command(subcommand)]
    pub meta: Meta,
}

#[derive(Debug, Subcommand)]
pub enum Meta {
    /// List the commands and meta commands, or show the help of one.
    Help {
        /// A command or meta command.
        #[arg(value_name = "COMMAND")]
        command: Option<String>,
    },
    /// Open a collection (read-only unless --write) in place of the open one.
    ///
    /// Read-only, DIR must hold a collection; with --write it may be empty or missing
    /// (`create` makes it). When the open fails, the previous collection stays open.
    Open {
        /// Collection directory (may not exist yet: `create` makes it).
        #[arg(value_name = "DIR", value_hint = ValueHint::DirPath)]
        dir: PathBuf,
        /// Take the writer lock.
        #[arg(long)]
        write: bool,
    },
    /// Close the open collection.
    Close,
    /// List the open collection, or the collections in the directory when none is open.
    ///
    /// A directory holds one collection; without one open (or with a writable shell on
    /// a directory `create` has not filled yet), the collections in the subdirectories of
    /// that directory (else the current one) are listed, to `.open`.
    Tables,
    /// List each indexed field with its index and parameters (as `describe` has them).
    #[command(visible_alias = "indices")]
    Indexes,
    /// Set the output mode, or print it without MODE.
    Mode {
        #[arg(value_enum, value_name = "MODE")]
        mode: Option<OutputMode>,
    },
    /// Print header rows, or not (without an argument: print the setting).
    Headers {
        #[arg(value_enum, value_name = "on|off")]
        switch: Option<Switch>,
    },
    /// Print how long each command took (not meta commands), or not.
    Timer {
        #[arg(value_enum, value_name = "on|off")]
        switch: Option<Switch>,
    },
    /// Print the current settings.
    Show,
    /// Print NULL as TEXT in the text modes (json keeps null); without TEXT, print it.
    Nullvalue {
        /// At most 19 bytes, as in sqlite3; empty by default.
        #[arg(value_name = "TEXT", allow_hyphen_values = true)]
        text: Option<String>,
    },
    /// Take the writer lock now and hold it across statements, until .unlock.
    ///
    /// A shell opened with --write takes the lock when a writing statement starts and
    /// lets it go after the statement, so other processes can write while it idles; hold
    /// it for a batch of statements that no other writer may come between.
    Lock,
    /// Release the writer lock that .lock holds.
    Unlock,
    /// Wait up to MS ms for another writer's lock (0, the default: fail at once).
    Timeout {
        #[arg(value_name = "MS")]
        ms: Option<u64>,
    },
    /// Send results to FILE, or back to standard output without FILE.
    Output {
        #[arg(value_name = "FILE", value_hint = ValueHint::FilePath)]
        file: Option<PathBuf>,
    },
    /// Send the next statement's results to FILE.
    Once {
        #[arg(value_name = "FILE", value_hint = ValueHint::FilePath)]
        file: PathBuf,
    },
    /// Run the statements of FILE.
    Read {
        #[arg(value_name = "FILE", value_hint = ValueHint::FilePath)]
        file: PathBuf,
    },
    /// Stop a script at the first failing statement (on, the default), or go on.
    Bail {
        #[arg(value_enum, value_name = "on|off")]
        switch: Option<Switch>,
    },
    /// Print each statement before running it, or not.
    Echo {
        #[arg(value_enum, value_name = "on|off")]
        switch: Option<Switch>,
    },
    /// Bind $NAME to a value (e.g. a vector), remove a binding, or list them.
    Param {
        #[command(subcommand)]
        action: ParamAction,
    },
    /// Page long results on a terminal through $PAGER.
    ///
    /// auto (the default) pages a result longer than the screen, on every result, off
    /// none. The pager is $PAGER, else `less -FRX`; an empty PAGER turns paging off.
    Pager {
        #[arg(value_enum, value_name = "on|off|auto")]
        switch: Option<AutoSwitch>,
    },
    /// Print wide tables as `column = value` lines (psql's \x).
    ///
    /// auto (the default) for a table wider than the terminal, on for every table, off
    /// for none. Table mode only; `.mode line` is the same layout for every result.
    Expanded {
        #[arg(value_enum, value_name = "on|off|auto")]
        switch: Option<AutoSwitch>,
    },
    /// Edit the last statement in $VISUAL or $EDITOR, then run it (psql's \e).
    ///
    /// The editor (else vi) opens the last statement; what was saved runs, or goes on
    /// under the continuation prompt if it is unfinished. An editor that fails, or an
    /// empty file, runs nothing. At the interactive prompt only, alone on its line.
    Edit,
    /// Leave the shell with exit status CODE (default 0).
    Exit {
        #[arg(value_name = "CODE")]
        code: Option<u8>,
    },
    /// Leave the shell, like .exit.
    Quit {
        #[arg(value_name = "CODE")]
        code: Option<u8>,
    },
}

#[derive(Debug, Subcommand)]
pub enum ParamAction {
    /// Bind $NAME to VALUE, typed as sqlite3 does: a JSON number, true/false, a [JSON
    /// array] (a list for `IN $NAME`, a vector for `query $NAME`), else a string ('quoted'
    /// or bare). Filters bind $NAME as a value, never as text: `--filter "pos = $p"`;
    /// '$p' in quotes is the text $p. Unquoted `$NAME` words are replaced by VALUE's text.
    /// e.g. `.param set q [0.1, 0.2, 0.3]`, `.param set p n`, `.param set n "'42'"`.
    Set {
        #[arg(value_name = "NAME")]
        name: String,
        #[arg(value_name = "VALUE", allow_hyphen_values = true)]
        value: String,
    },
    /// Remove the binding of $NAME.
    Unset {
        #[arg(value_name = "NAME")]
        name: String,
    },
    /// List the bindings.
    List,
}

/// `on` or `off`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Switch {
    On,
    Off,
}

impl Switch {
    pub fn on(self) -> bool {
        self == Switch::On
    }

    /// `on` or `off`, as typed.
    pub fn name(on: bool) -> &'static str {
        if on { "on" } else { "off" }
    }
}

/// `on`, `off` or `auto` (decided by the terminal).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum AutoSwitch {
    On,
    Off,
    #[default]
    Auto,
}

impl AutoSwitch {
    pub fn name(self) -> &'static str {
        match self {
            AutoSwitch::On => "on",
            AutoSwitch::Off => "off",
            AutoSwitch::Auto => "auto",
        }
    }
}

/// One-line usage of a meta command, e.g. `.open DIR [--write]`.
pub fn usage(cmd: &clap::Command) -> String {
    let mut s = format!(".{}", cmd.get_name());
    if cmd.has_subcommands() {
        let subs: Vec<&str> = cmd.get_subcommands().map(|c| c.get_name()).collect();
        s.push_str(&format!(" {} ...", subs.join("|")));
    }
    for arg in cmd.get_arguments().filter(|a| !a.is_hide_set() && a.get_id() != "help") {
        let name = arg.get_value_names().and_then(|v| v.first()).map(|v| v.to_string());
        let text = match (arg.get_long(), name) {
            (Some(long), _) if !arg.get_action().takes_values() => format!("--{long}"),
            (Some(long), Some(v)) => format!("--{long} {v}"),
            (None, Some(v)) => v,
            _ => continue,
        };
        if arg.is_required_set() {
            s.push_str(&format!(" {text}"));
        } else {
            s.push_str(&format!(" [{text}]"));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn meta_tree_is_consistent_and_does_not_shadow_commands() {
        MetaLine::command().debug_assert();
        let commands = super::super::Cli::command();
        for m in MetaLine::command().get_subcommands() {
            assert!(commands.find_subcommand(m.get_name()).is_none() || m.get_name() == "help", "{}", m.get_name());
        }
    }

    #[test]
    fn usage_lines() {
        let cmd = MetaLine::command();
        let u = |n: &str| usage(cmd.find_subcommand(n).unwrap());
        assert_eq!(u("open"), ".open DIR [--write]");
        assert_eq!(u("mode"), ".mode [MODE]");
        assert_eq!(u("timeout"), ".timeout [MS]");
        assert_eq!(u("exit"), ".exit [CODE]");
        assert_eq!(u("param"), ".param set|unset|list ...");
        assert_eq!(
            MetaLine::try_parse_from(["param", "set", "q", "[1, 2]"]).map(|m| format!("{:?}", m.meta)).unwrap(),
            "Param { action: Set { name: \"q\", value: \"[1, 2]\" } }"
        );
    }
}
