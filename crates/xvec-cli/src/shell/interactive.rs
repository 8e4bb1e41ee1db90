//! The REPL: rustyline with the shell's helper, persistent history, a prompt naming the
//! open collection. Like sqlite3 and psql it reads a line at a time: a statement left open
//! (a quote, a bracket, a trailing `\`) goes on under the continuation prompt `   ...> `,
//! and the whole statement is one history entry. Typed-ahead and pasted lines run in order.
//! Ctrl-C drops the statement being typed (or stops the running one); Ctrl-D on an empty
//! line ends the input: at the prompt it exits with status 0, inside a statement it reports
//! the unfinished statement, as at the end of a script, and exits with status 2.

use std::io::Write;
use std::path::PathBuf;

use rustyline::error::ReadlineError;
use rustyline::history::FileHistory;
use rustyline::{CompletionType, Config, Editor};

use super::edit;
use super::helper::{FieldNames, ShellHelper};
use super::lexer;
use super::script::{Halt, Runner};
use super::session::{Session, command_tree, meta_tree};
use crate::cli::{CliError, context, interrupt};

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
    let color = context::color_allowed();
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
    for line in session.target.generations().map(|(_, stats)| stats.degraded()).unwrap_or_default() {
        let _ = writeln!(std::io::stderr(), "{line}");
    }
    let mut runner = Runner::new(session, true);
    // The lines of a statement still open, each ended by `\n`.
    let mut pending = String::new();
    // The last statement run: what `.edit` opens.
    let mut last = String::new();
    loop {
        if let Some(h) = editor.helper_mut() {
            h.fields = runner.session.target.schema().map(|s| FieldNames::of(&s)).unwrap_or_default();
            h.snapshot = runner.session.target.snapshot();
            h.pending.clone_from(&pending);
        }
        let main = prompt(runner.session);
        let shown = if pending.is_empty() { main.clone() } else { continuation_prompt(&main) };
        let line = match editor.readline(&shown) {
            Ok(line) => line,
            Err(ReadlineError::Interrupted) => {
                pending.clear();
                continue;
            }
            Err(ReadlineError::Eof) => return end_of_input(&pending),
            Err(e) => {
                CliError::failed(format!("reading input: {e}")).report("", &mut std::io::stderr());
                return 1;
            }
        };
        // Completeness is judged before the line's own newline, so a trailing `\` continues.
        pending.push_str(&line);
        let complete = lexer::is_complete(&pending);
        pending.push('\n');
        if !complete {
            continue;
        }
        let mut text = std::mem::take(&mut pending);
        if is_edit(&text) {
            match edit::edit(&last, &edit::editor()) {
                Ok(Some(edited)) => {
                    echo(&edited, &main);
                    if !lexer::is_complete(edited.trim_end()) {
                        pending = edited.trim_end().to_string();
                        pending.push('\n');
                        continue;
                    }
                    text = edited;
                }
                Ok(None) => continue,
                Err(e) => {
                    e.report("", &mut std::io::stderr());
                    continue;
                }
            }
        }
        let statement = text.trim_end();
        if statement.trim().is_empty() {
            continue;
        }
        if editor.add_history_entry(statement).unwrap_or(false)
            && let Some(p) = &history
        {
            let _ = editor.append_history(p);
        }
        last = statement.to_string();
        interrupt::clear();
        let outcome = runner.run_buffer(None, &text, 1, 0, None).map(|_| ());
        interrupt::clear();
        match outcome {
            Ok(()) | Err(Halt::Failed(_) | Halt::Interrupted) => {}
            Err(Halt::Exit(code)) => return code,
            Err(Halt::BrokenPipe) => return 0,
        }
    }
}

/// Ctrl-D: the end of the input. Inside a statement it is reported like a script ending
/// there (the statement does not run).
fn end_of_input(pending: &str) -> u8 {
    let Some(open) = lexer::scan(pending.trim_end_matches('\n')).open else { return 0 };
    let e = super::script::unfinished(open)
        .hint("the statement was not run; Ctrl-C drops an unfinished statement and keeps the shell");
    e.report("", &mut std::io::stderr());
    e.status.code()
}

/// `.edit` (or psql's `\e`) alone: the REPL opens the editor (the session cannot: it runs
/// what comes back).
fn is_edit(text: &str) -> bool {
    let statements = lexer::scan(text).statements;
    let [(start, end)] = statements.as_slice() else { return false };
    if text[*start..*end].trim() == "\\e" {
        return true;
    }
    let words = lexer::words(&text[*start..*end]);
    matches!(words.as_slice(), [w] if w.text == ".edit" && !w.quoted)
}

/// Shows an edited statement as if typed, so the screen says what runs.
fn echo(text: &str, main: &str) {
    let mut out = std::io::stdout().lock();
    for (i, line) in text.trim_end().lines().enumerate() {
        let p = if i == 0 { main.to_string() } else { continuation_prompt(main) };
        let _ = writeln!(out, "{p}{line}");
    }
    let _ = out.flush();
}

fn describe_target(session: &Session) -> String {
    match session.target.dir() {
        None => "no collection open (type .open DIR)".into(),
        Some(d) => {
            let mode = session.target.lock_state();
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

/// sqlite3's `   ...> `, right-aligned under the prompt.
fn continuation_prompt(main: &str) -> String {
    format!("{:>width$}", "...> ", width = main.chars().count())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_continuation_prompt_lines_up_under_the_prompt() {
        assert_eq!(continuation_prompt("wordnet> "), "    ...> ");
        assert_eq!(continuation_prompt("xvec> "), " ...> ");
        assert_eq!(continuation_prompt("a> "), "...> ");
    }

    #[test]
    fn edit_is_recognised_alone_only() {
        assert!(is_edit(".edit\n"));
        assert!(is_edit("  .edit ;\n"));
        assert!(is_edit("\\e\n"));
        assert!(!is_edit("count; .edit\n"));
        assert!(!is_edit("'.edit'\n"));
    }
}
