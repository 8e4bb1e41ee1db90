//! The shell's meta commands (`.mode`, `.open`, ...), defined once with clap like the
//! command tree: the shell parses them with it, `.help` and the completer walk it, and the
//! `xvec-shell` man page lists it. The shell (`src/shell/`) carries them out.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum, ValueHint};

use super::output::OutputMode;

/// A meta command line, without its leading `.`.
#[derive(Debug, Parser)]
#[command(name = "", no_binary_name = true, disable_help_subcommand = true, disable_version_flag = true)]
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
    /// Open a collection (read-only unless --write), closing the open one.
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
    /// Set the output mode.
    Mode {
        #[arg(value_enum, value_name = "MODE")]
        mode: OutputMode,
    },
    /// Print header rows, or not.
    Headers {
        #[arg(value_enum, value_name = "on|off")]
        switch: Switch,
    },
    /// Print how long each statement took, or not.
    Timer {
        #[arg(value_enum, value_name = "on|off")]
        switch: Switch,
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
        switch: Switch,
    },
    /// Print each statement before running it, or not.
    Echo {
        #[arg(value_enum, value_name = "on|off")]
        switch: Switch,
    },
    /// Bind $NAME to a value (e.g. a vector), remove a binding, or list them.
    Param {
        #[command(subcommand)]
        action: ParamAction,
    },
    /// Leave the shell with exit status CODE (default 0).
    #[command(alias = "quit")]
    Exit {
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
        assert_eq!(u("mode"), ".mode MODE");
        assert_eq!(u("exit"), ".exit [CODE]");
        assert_eq!(u("param"), ".param set|unset|list ...");
        assert_eq!(
            MetaLine::try_parse_from(["param", "set", "q", "[1, 2]"]).map(|m| format!("{:?}", m.meta)).unwrap(),
            "Param { action: Set { name: \"q\", value: \"[1, 2]\" } }"
        );
    }
}
