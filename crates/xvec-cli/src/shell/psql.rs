//! psql's backslash commands as aliases: `\q`, `\x`, `\d`, `\dt`, ... become the statement
//! they stand for here (`.quit`, `.expanded`, `describe`, `.tables`), so psql habits work
//! at the prompt and in scripts. The ones without a counterpart are refused with a pointer.

use crate::cli::CliError;

/// What a backslash command runs: a statement, or a switch psql toggles without an argument.
#[derive(Clone, Copy)]
enum Alias {
    Statement(&'static str),
    /// `\x`, `\timing`: without an argument, the switch flips (psql's toggle).
    Toggle(&'static str),
}

/// psql's backslash commands and what they run here.
const ALIASES: [(&str, Alias); 16] = [
    ("q", Alias::Statement(".quit")),
    ("x", Alias::Toggle(".expanded")),
    ("timing", Alias::Toggle(".timer")),
    ("d", Alias::Statement("describe")),
    ("d+", Alias::Statement("describe")),
    ("dt", Alias::Statement(".tables")),
    ("dt+", Alias::Statement(".tables")),
    ("di", Alias::Statement(".indexes")),
    ("l", Alias::Statement(".tables")),
    ("?", Alias::Statement(".help")),
    ("h", Alias::Statement(".help")),
    ("o", Alias::Statement(".output")),
    ("i", Alias::Statement(".read")),
    ("e", Alias::Statement(".edit")),
    ("c", Alias::Statement(".open")),
    ("conninfo", Alias::Statement(".show")),
];

/// Those without a counterpart, with what to use instead.
const REFUSED: [(&str, &str); 2] = [("pset", ".mode, .headers or .nullvalue"), ("set", ".param set NAME VALUE")];

/// The statement a backslash command stands for, or `None` for any other statement.
/// `switch_on(".timer")` tells whether a toggled switch is on now. `\d NAME` describes the
/// open collection when NAME is its name or directory (`open` gives both), as psql's
/// `\d TABLE` describes the table.
pub fn translate(
    text: &str,
    switch_on: impl Fn(&str) -> bool,
    open: Option<(&str, &str)>,
) -> Option<Result<String, CliError>> {
    let rest = text.trim_start().strip_prefix('\\')?;
    let split = rest.find(char::is_whitespace).unwrap_or(rest.len());
    let (word, args) = (&rest[..split], rest[split..].trim());
    let Some(&(_, alias)) = ALIASES.iter().find(|(n, _)| *n == word) else {
        let hint = match REFUSED.iter().find(|(n, _)| *n == word) {
            Some((_, instead)) => format!("type {instead}"),
            None => {
                "type .help for the meta commands; psql's \\q \\x \\d \\dt \\di \\timing \\i \\o \\e \\? work".into()
            }
        };
        return Some(Err(CliError::usage(format!("`\\{word}`: no such command here")).hint(hint)));
    };
    Some(match alias {
        Alias::Toggle(meta) if args.is_empty() => Ok(format!("{meta} {}", if switch_on(meta) { "off" } else { "on" })),
        Alias::Statement("describe") if !args.is_empty() => describe(args, open),
        Alias::Statement(s) | Alias::Toggle(s) if args.is_empty() => Ok(s.to_string()),
        Alias::Statement(s) | Alias::Toggle(s) => Ok(format!("{s} {args}")),
    })
}

/// `\d NAME`: `describe` when NAME names the open collection.
fn describe(name: &str, open: Option<(&str, &str)>) -> Result<String, CliError> {
    let name = name.trim_matches(['"', '\'']);
    match open {
        Some((coll, dir)) if name == coll || name == dir || std::path::Path::new(dir).ends_with(name) => {
            Ok("describe".into())
        }
        Some((coll, _)) => Err(CliError::failed(format!("no collection `{name}` is open (`{coll}` is)"))
            .hint(format!(".open {name}, then \\d"))),
        None => {
            Err(CliError::failed(format!("no collection `{name}` is open")).hint(format!(".open {name}, then \\d")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str, on: bool) -> Option<Result<String, String>> {
        translate(text, |_| on, Some(("words", "data/words"))).map(|r| r.map_err(|e| e.message))
    }

    #[test]
    fn backslash_commands_become_dot_commands() {
        assert_eq!(run("count", false), None);
        assert_eq!(run("\\q", false), Some(Ok(".quit".into())));
        assert_eq!(run("  \\i load.xvec ", false), Some(Ok(".read load.xvec".into())));
        assert_eq!(run("\\x", false), Some(Ok(".expanded on".into())));
        assert_eq!(run("\\x", true), Some(Ok(".expanded off".into())));
        assert_eq!(run("\\x auto", true), Some(Ok(".expanded auto".into())));
        assert_eq!(run("\\timing", false), Some(Ok(".timer on".into())));
        assert_eq!(run("\\dt", false), Some(Ok(".tables".into())));
        assert_eq!(run("\\d words", false), Some(Ok("describe".into())));
        assert_eq!(run("\\d data/words", false), Some(Ok("describe".into())));
        assert!(run("\\d other", false).unwrap().unwrap_err().contains("no collection `other` is open"));
        assert!(run("\\pset format csv", false).unwrap().unwrap_err().contains("`\\pset`"));
    }
}
