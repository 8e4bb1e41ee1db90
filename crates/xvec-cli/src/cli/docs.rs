//! Documents derived from the command tree: completion scripts (clap_complete) and man
//! pages (clap_mangen), plus the sections clap does not know about: EXIT STATUS,
//! ENVIRONMENT, FILES and the shell's meta commands. Both are committed under
//! `completions/` and `man/` and a test keeps them fresh.

use std::io::Write;
use std::path::Path;

use clap::CommandFactory;

use super::context::Io;
use super::error::{BATCH_STATUS, exit_statuses};
use super::{Cli, CliError, meta};

/// Environment variables the tool reads, for `--help` and the man pages.
pub const ENVIRONMENT: &[(&str, &str)] = &[
    ("NO_COLOR", "When set to a non-empty value, output has no colour."),
    ("XVEC_HISTORY", "The shell's history file (default: $XDG_STATE_HOME/xvec/history)."),
    ("XDG_STATE_HOME", "Where the shell keeps state (default: ~/.local/state)."),
    ("PAGER", "The shell's pager for results longer than the screen (default: less -FRX; empty: none)."),
    ("VISUAL, EDITOR", "The editor of the shell's .edit (default: vi)."),
    ("XDG_CONFIG_HOME", "Where the shell's startup file is (default: ~/.config)."),
];

/// Files the tool reads or writes besides the ones named on the command line.
pub const FILES: &[(&str, &str)] = &[
    ("$XDG_STATE_HOME/xvec/history", "The shell's history, one statement per entry."),
    (
        "$XDG_CONFIG_HOME/xvec/xvecrc",
        "The shell's startup file: statements run before the first prompt or script (--init FILE names \
         another, -n skips it).",
    ),
    (
        "DIR/CURRENT, DIR/MANIFEST-*, DIR/LOCK, DIR/WAL-*.log, DIR/SEG-*",
        "A collection: the name of the live manifest, the manifests, the writer lock, the write-ahead log, \
         and the immutable segments with their index and delete files (see docs/format.md).",
    ),
];

/// Long-help epilogue of `xvec`: exit statuses and environment.
pub fn after_long_help() -> String {
    let mut s = String::from("Exit status:\n");
    for (code, meaning) in exit_statuses() {
        s.push_str(&format!("  {code:>3}  {meaning}\n"));
    }
    s.push_str(&format!("\n{}\n", textwrap(BATCH_STATUS, 92, "  ")));
    s.push_str("\nEnvironment:\n");
    for (name, what) in ENVIRONMENT {
        s.push_str(&format!("  {name:<15} {what}\n"));
    }
    s
}

/// Writes the completion script for `shell`. The script is generated into memory first:
/// `clap_complete::generate` panics on a write error, and a closed pipe
/// (`xvec completions bash | head -1`) must end quietly like every other command's output.
pub fn completions(shell: clap_complete::Shell, out: &mut dyn Write) -> Result<(), CliError> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut no_file_values(Cli::command()), "xvec", &mut script);
    out.write_all(&script)?;
    Ok(())
}

/// Marks every value that is not a path (`--fields`, `--index`, `--ef`, ...) as such, so
/// completion scripts offer file names only where a path goes: clap's scripts complete
/// files for a value of unknown kind, and path values (PathBuf) are hinted already.
fn no_file_values(cmd: clap::Command) -> clap::Command {
    let cmd = cmd.mut_args(|a| {
        if a.get_action().takes_values() && a.get_value_hint() == clap::ValueHint::Unknown {
            a.value_hint(clap::ValueHint::Other)
        } else {
            a
        }
    });
    let names: Vec<String> = cmd.get_subcommands().map(|c| c.get_name().to_string()).collect();
    names.iter().fold(cmd, |cmd, name| cmd.mut_subcommand(name, no_file_values))
}

pub fn write_man_pages(dir: &Path, io: &mut Io) -> Result<(), CliError> {
    std::fs::create_dir_all(dir).map_err(|e| CliError::file(dir, &e))?;
    let pages = man_pages()?;
    for (name, text) in &pages {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|e| CliError::file(&path, &e))?;
    }
    writeln!(io.err, "wrote {} man pages to {}", pages.len(), dir.display())?;
    Ok(())
}

/// Every man page as (file name, roff text): `xvec.1`, then `xvec-COMMAND.1` per command.
pub fn man_pages() -> Result<Vec<(String, Vec<u8>)>, CliError> {
    let mut top = Cli::command().disable_help_subcommand(true);
    top.build();
    let mut pages = vec![page(top.clone(), true)?];
    for sub in top.get_subcommands().filter(|s| !s.is_hide_set()) {
        pages.push(page(sub.clone(), false)?);
    }
    Ok(pages)
}

fn page(cmd: clap::Command, top: bool) -> Result<(String, Vec<u8>), CliError> {
    let is_shell = cmd.get_name() == "shell";
    let man = clap_mangen::Man::new(cmd.clone());
    let mut out = Vec::new();
    let render = |out: &mut Vec<u8>| -> std::io::Result<()> {
        man.render_title(out)?;
        man.render_name_section(out)?;
        man.render_synopsis_section(out)?;
        man.render_description_section(out)?;
        man.render_options_section(out)?;
        if top {
            man.render_subcommands_section(out)?;
        }
        if is_shell {
            shell_commands_section(out)?;
        }
        section(out, "EXIT STATUS", exit_statuses().iter().map(|(c, m)| (c.as_str(), *m)))?;
        writeln!(out, ".PP\n{}", roff_escape(BATCH_STATUS))?;
        section(out, "ENVIRONMENT", ENVIRONMENT.iter().copied())?;
        section(out, "FILES", FILES.iter().copied())?;
        if top { man.render_version_section(out) } else { writeln!(out, ".SH \"SEE ALSO\"\n\\fBxvec\\fR(1)") }
    };
    render(&mut out).map_err(|e| CliError::failed(format!("rendering the man page of {}: {e}", cmd.get_name())))?;
    Ok((man.get_filename(), out))
}

/// `.SH TITLE` with one `.TP` entry per (term, text).
fn section<'a>(
    out: &mut dyn Write,
    title: &str,
    entries: impl Iterator<Item = (&'a str, &'a str)>,
) -> std::io::Result<()> {
    writeln!(out, ".SH \"{title}\"")?;
    for (term, text) in entries {
        writeln!(out, ".TP\n\\fB{}\\fR\n{}", roff_escape(term), roff_escape(text))?;
    }
    Ok(())
}

fn shell_commands_section(out: &mut dyn Write) -> std::io::Result<()> {
    let metas = meta::MetaLine::command();
    let entries: Vec<(String, String)> = metas
        .get_subcommands()
        .map(|m| (meta::usage(m), m.get_about().map(|a| a.to_string()).unwrap_or_default()))
        .collect();
    section(out, "SHELL COMMANDS", entries.iter().map(|(u, a)| (u.as_str(), a.as_str())))
}

/// `text` wrapped at `width` columns, each line indented by `indent`.
fn textwrap(text: &str, width: usize, indent: &str) -> String {
    let mut lines = vec![indent.to_string()];
    for word in text.split_whitespace() {
        let line = lines.last_mut().expect("one line");
        if line.len() > indent.len() && line.len() + 1 + word.len() > width {
            lines.push(format!("{indent}{word}"));
        } else {
            if line.len() > indent.len() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    lines.join("\n")
}

/// Text as roff: backslashes and hyphens escaped, no line starting with a control character.
fn roff_escape(text: &str) -> String {
    let s = text.replace('\\', "\\e").replace('-', "\\-");
    if s.starts_with(['.', '\'']) { format!("\\&{s}") } else { s }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bash_completion_offers_files_only_for_paths() {
        let mut out = Vec::new();
        completions(clap_complete::Shell::Bash, &mut out).unwrap();
        let script = String::from_utf8(out).unwrap();
        // What each `--flag)` case of the script completes, over every command.
        let completes = |flag: &str| -> Vec<&str> {
            let case = format!("{flag})\n");
            let body = |i: usize| script[i + case.len()..].split(";;").next().unwrap_or("");
            script.match_indices(&case).map(|(i, _)| body(i)).collect()
        };
        for flag in ["--fields", "--index", "--ef", "--filter", "--key-field", "--refine"] {
            let cases = completes(flag);
            assert!(!cases.is_empty(), "{flag} is in the script");
            assert!(cases.iter().all(|c| !c.contains("compgen -f")), "{flag}: {cases:?}");
        }
        for flag in ["--schema", "--ids", "--vector-file"] {
            assert!(completes(flag).iter().all(|c| c.contains("compgen -f")), "{flag} takes a file");
        }
    }
}
