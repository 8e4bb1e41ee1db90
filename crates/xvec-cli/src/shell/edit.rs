//! `.edit`: the last statement in `$VISUAL` or `$EDITOR` (else `vi`), like psql's `\e`;
//! the REPL runs what was saved. An editor that fails, or an empty file, runs nothing.

use std::io::Write;
use std::path::PathBuf;
use std::process::Command;

use crate::cli::CliError;

/// The editor command line: `$VISUAL`, else `$EDITOR`, else `vi` (may carry arguments).
pub fn editor() -> String {
    ["VISUAL", "EDITOR"]
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|e| !e.trim().is_empty()))
        .unwrap_or_else(|| "vi".to_string())
}

/// A new private file for the statement (`create_new`: never follows a planted link).
fn scratch_file(text: &str) -> Result<(PathBuf, std::fs::File), CliError> {
    let dir = std::env::temp_dir();
    let mut last_error = None;
    for attempt in 0..16 {
        let path = dir.join(format!("xvec-edit-{}-{attempt}.xvec", std::process::id()));
        match std::fs::OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(mut f) => {
                f.write_all(text.as_bytes()).map_err(|e| CliError::file(&path, &e))?;
                return Ok((path, f));
            }
            Err(e) => last_error = Some(e),
        }
    }
    let e = last_error.map_or_else(String::new, |e| e.to_string());
    Err(CliError::failed(format!("cannot create a file for the editor in {}: {e}", dir.display())))
}

/// Opens `editor` (a shell command line, given the file as its last argument) on `text`;
/// the saved text, or `None` when it is empty.
pub fn edit(text: &str, editor: &str) -> Result<Option<String>, CliError> {
    let initial = if text.is_empty() || text.ends_with('\n') { text.to_string() } else { format!("{text}\n") };
    let (path, file) = scratch_file(&initial)?;
    drop(file);
    let status = Command::new("sh").arg("-c").arg(format!("{editor} \"$1\"")).arg("sh").arg(&path).status();
    let saved = std::fs::read_to_string(&path);
    let _ = std::fs::remove_file(&path);
    match status {
        Err(e) => Err(CliError::failed(format!("cannot run the editor `{editor}`: {e}"))),
        Ok(s) if !s.success() => Err(CliError::failed(format!("the editor `{editor}` failed ({s}); nothing was run"))
            .hint("set $VISUAL or $EDITOR to the editor to use")),
        Ok(_) => {
            let saved = saved.map_err(|e| CliError::file(&path, &e))?;
            Ok(Some(saved).filter(|s| !s.trim().is_empty()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_editor_gets_the_statement_and_its_saved_text_comes_back() {
        let dir = tempfile::tempdir().unwrap();
        let seen = dir.path().join("seen");
        let rewrite = format!("f() {{ cp \"$1\" {}; echo describe > \"$1\"; }}; f", seen.display());
        assert_eq!(edit("count", &rewrite).unwrap().as_deref(), Some("describe\n"));
        assert_eq!(std::fs::read_to_string(&seen).unwrap(), "count\n");
        assert_eq!(edit("count", "f() { : > \"$1\"; }; f").unwrap(), None, "an emptied file runs nothing");
        let e = edit("count", "false").unwrap_err();
        assert!(e.message.contains("the editor `false` failed"), "{}", e.message);
    }
}
