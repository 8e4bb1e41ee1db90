//! `.help` without a topic: every command and meta command with its one-line summary,
//! read from the same trees that parse them.

use crate::cli::meta;

/// Commands the shell does not offer: it is the shell, and `.help` replaces clap's `help`.
pub const NOT_IN_SHELL: [&str; 2] = ["shell", "help"];

/// The command list `.help` prints.
pub fn overview(tree: &clap::Command, metas: &clap::Command) -> String {
    let about = |c: &clap::Command| c.get_about().map(|a| a.to_string()).unwrap_or_default();
    let commands: Vec<(String, String)> = tree
        .get_subcommands()
        .filter(|c| !NOT_IN_SHELL.contains(&c.get_name()))
        .map(|c| (c.get_name().to_string(), about(c)))
        .collect();
    let metas: Vec<(String, String)> = metas.get_subcommands().map(|m| (meta::usage(m), about(m))).collect();
    let width = commands.iter().chain(&metas).map(|(n, _)| n.len()).max().unwrap_or(0);
    // Commands take a leading `.` too (`.tui`, `.describe`); say so, or one looks for them
    // among the meta commands and does not find them.
    let mut s = String::from(
        "Commands, with or without a leading `.` (`tui` or `.tui`); DIR, the collection argument,\n\
         is the open collection: leave it out:\n",
    );
    for (name, about) in &commands {
        s.push_str(&format!("  {name:<width$}  {about}\n"));
    }
    s.push_str("\nMeta commands:\n");
    for (usage, about) in &metas {
        s.push_str(&format!("  {usage:<width$}  {about}\n"));
    }
    s.push_str(
        "\nStatements end at `;` or at the end of a line whose quotes and brackets are closed.\n\
         `$NAME` is a value bound with .param set: typed inside a filter, its text elsewhere.\n\
         `#` and `--` start comments; psql's \\q \\x \\d \\dt \\di \\timing \\i \\o \\e \\? work.\n\
         Type .help COMMAND for its options.\n",
    );
    s
}

/// Long help as the shell shows it: example lines written for argv (`xvec query words -k 5`)
/// lose `xvec` and, for a command on the collection, its DIR (`query -k 5`), so every
/// example can be typed at the prompt as it stands.
pub fn shell_examples(text: &str, tree: &clap::Command) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let indent = &line[..line.len() - line.trim_start().len()];
        // Examples are indented; prose that starts with the word xvec is not an example.
        let Some(rest) = line.trim_start().strip_prefix("xvec ").filter(|_| !indent.is_empty()) else {
            out.push_str(line);
            continue;
        };
        let mut words = rest.splitn(3, ' ');
        let (name, dir, tail) = (words.next().unwrap_or_default(), words.next(), words.next());
        out.push_str(indent);
        match (tree.find_subcommand(name).filter(|c| crate::cli::takes_collection(c)), dir) {
            (Some(_), Some(_)) => {
                out.push_str(name);
                if let Some(tail) = tail {
                    out.push(' ');
                    out.push_str(tail);
                } else if line.ends_with('\n') {
                    out.push('\n');
                }
            }
            _ => out.push_str(rest),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argv_examples_become_statements() {
        let tree = <crate::cli::Cli as clap::CommandFactory>::command();
        let help = "Example:\n  xvec query words --pk n.1 -k 5\n  xvec count words\n  xvec bench --help\nxvec is\n";
        assert_eq!(shell_examples(help, &tree), "Example:\n  query --pk n.1 -k 5\n  count\n  bench --help\nxvec is\n");
    }
}
