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
         Type .help COMMAND for its options.\n",
    );
    s
}
