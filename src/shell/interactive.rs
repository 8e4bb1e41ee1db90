//! The REPL: rustyline with the shell's helper, persistent history, a prompt naming the
//! open collection. Ctrl-C clears the line (or stops the running statement), Ctrl-D exits.

use std::io::Write;
use std::path::PathBuf;

use rustyline::error::ReadlineError;
use rustyline::history::FileHistory;
use rustyline::{CompletionType, Config, Editor};

use super::helper::{FieldNames, ShellHelper};
use super::script::{Halt, Runner};
use super::session::{Session, command_tree, meta_tree};
use crate::cli::{CliError, commands, interrupt};

/// `XVEC_HISTORY`, else `$XDG_STATE_HOME/xvec/history`, else `~/.local/state/xvec/history`.
pub fn history_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("XVEC_HISTORY").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let state = std::env::var_os("XDG_STATE_HOME")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/state")))?;
    Some(state.join("xvec/history"))
}

/// Runs the REPL until Ctrl-D or `.exit`; returns the exit status.
pub fn run(session: &mut Session) -> u8 {
    let config = Config::builder()
        .auto_add_history(false)
        .history_ignore_dups(true)
        .and_then(|c| c.max_history_size(10_000))
        .map(|c| c.completion_type(CompletionType::List).build());
    let editor = config
        .map_err(|e| e.to_string())
        .and_then(|c| Editor::<ShellHelper, FileHistory>::with_config(c).map_err(|e| e.to_string()));
    let mut editor = match editor {
        Ok(e) => e,
        Err(e) => {
            CliError::failed(format!("cannot start the line editor: {e}")).report("", &mut std::io::stderr());
            return 1;
        }
    };
    let color = commands::color_allowed();
    editor.set_helper(Some(ShellHelper::new(command_tree(), meta_tree(), color)));
    let history = history_path();
    if let Some(p) = &history {
        if let Some(parent) = p.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        let _ = editor.load_history(p);
    }
    let _ = writeln!(
        std::io::stderr(),
        "xvec {} shell: {}. Type .help for help, Ctrl-D to exit.",
        env!("CARGO_PKG_VERSION"),
        describe_target(session)
    );
    let mut runner = Runner::new(session, true);
    loop {
        if let Some(h) = editor.helper_mut() {
            h.fields = runner.session.target.schema().map(FieldNames::of).unwrap_or_default();
        }
        match editor.readline(&prompt(runner.session)) {
            Ok(buf) => {
                if !buf.trim().is_empty() {
                    let _ = editor.add_history_entry(buf.trim_end());
                    if let Some(p) = &history {
                        let _ = editor.append_history(p);
                    }
                }
                interrupt::clear();
                let outcome = runner.run_buffer(None, &buf, 1, 0);
                interrupt::clear();
                match outcome {
                    Ok(()) | Err(Halt::Failed(_) | Halt::Interrupted) => {}
                    Err(Halt::Exit(code)) => return code,
                    Err(Halt::BrokenPipe) => return 0,
                }
            }
            Err(ReadlineError::Interrupted) => {}
            Err(ReadlineError::Eof) => return 0,
            Err(e) => {
                CliError::failed(format!("reading input: {e}")).report("", &mut std::io::stderr());
                return 1;
            }
        }
    }
}

fn describe_target(session: &Session) -> String {
    match session.target.dir() {
        None => "no collection open (type .open DIR)".into(),
        Some(d) => {
            let mode = if session.target.is_writable() { "read-write" } else { "read-only" };
            let state = if session.target.schema().is_some() { "" } else { ", no collection yet: `create` makes one" };
            format!("{} ({mode}{state})", d.display())
        }
    }
}

/// `name> `, where name is the open collection's directory name.
fn prompt(session: &Session) -> String {
    let name = session.target.dir().and_then(|d| d.file_name()).map(|n| n.to_string_lossy().into_owned());
    format!("{}> ", name.as_deref().unwrap_or("xvec"))
}
