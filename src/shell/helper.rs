//! The REPL's rustyline helper: completion that walks the same clap trees that parse
//! statements (commands, meta commands, flags, their choices, field names of the open
//! collection, paths), usage and history hints, highlighting of unbalanced quotes and
//! brackets, and multi-line input until a statement is complete.

use std::borrow::Cow;

use rustyline::completion::{Completer, FilenameCompleter, Pair};
use rustyline::highlight::{CmdKind, Highlighter};
use rustyline::hint::{Hinter, HistoryHinter};
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::{Context, Helper};

use super::help::NOT_IN_SHELL;
use super::lexer::{self, Open};
use super::session::takes_collection;

const RED: &str = "\x1b[1;31m";
const DIM: &str = "\x1b[2m";
const RESET: &str = "\x1b[0m";

/// Fields of the open collection, for completing `--fields`, `--field` and filters.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FieldNames {
    pub scalars: Vec<String>,
    pub vectors: Vec<String>,
}

impl FieldNames {
    pub fn of(schema: &xvec::Schema) -> FieldNames {
        let (vectors, scalars): (Vec<_>, Vec<_>) = schema.fields().iter().partition(|f| f.as_vector().is_some());
        FieldNames {
            scalars: scalars.into_iter().map(|f| f.name.clone()).collect(),
            vectors: vectors.into_iter().map(|f| f.name.clone()).collect(),
        }
    }
}

pub struct ShellHelper {
    tree: clap::Command,
    metas: clap::Command,
    pub fields: FieldNames,
    pub color: bool,
    files: FilenameCompleter,
    history: HistoryHinter,
}

/// What the word under the cursor is, once the statement around it is understood.
#[derive(Debug, PartialEq)]
enum Slot {
    CommandName,
    Flag,
    Choices(Vec<String>),
    Fields { list: bool, vectors_only: bool },
    FilterExpr,
    VectorsSpec,
    Path,
    TopicName,
    Nothing,
}

impl ShellHelper {
    pub fn new(tree: clap::Command, metas: clap::Command, color: bool) -> ShellHelper {
        ShellHelper {
            tree,
            metas,
            fields: FieldNames::default(),
            color,
            files: FilenameCompleter::new(),
            history: HistoryHinter::new(),
        }
    }

    /// Candidates for the word that ends at `pos`, and where that word starts.
    pub fn candidates(&self, line: &str, pos: usize) -> (usize, Vec<Pair>) {
        let before = &line[..pos];
        let scan = lexer::scan(before);
        let stmt_start = match scan.statements.last() {
            Some(&(start, end)) if end == before.len() => start,
            _ => before.len(),
        };
        let words = lexer::words(&before[stmt_start..]);
        let ends_in_space = before.ends_with(char::is_whitespace) && !matches!(scan.open, Some(Open::Quote(..)));
        let (current, start, done) = match words.split_last() {
            Some((last, done)) if !ends_in_space => (last.text.as_str(), stmt_start + last.start, done),
            _ => ("", pos, words.as_slice()),
        };
        let done: Vec<&str> = done.iter().map(|w| w.text.as_str()).collect();
        let slot = self.slot(&done, current);
        let pairs = |start: usize, prefix: &str, names: &mut dyn Iterator<Item = String>| {
            let mut v: Vec<Pair> =
                names.filter(|n| n.starts_with(prefix)).map(|n| Pair { display: n.clone(), replacement: n }).collect();
            v.sort_by(|a, b| a.display.cmp(&b.display));
            v.dedup_by(|a, b| a.display == b.display);
            (start, v)
        };
        match slot {
            Slot::CommandName => {
                let commands = self.commands().map(str::to_string);
                let metas = self.metas.get_subcommands().map(|m| format!(".{}", m.get_name()));
                pairs(start, current, &mut commands.chain(metas))
            }
            Slot::TopicName => {
                let topics = self.commands().chain(self.metas.get_subcommands().map(|m| m.get_name()));
                pairs(start, current, &mut topics.map(str::to_string))
            }
            Slot::Flag => {
                let cmd = self.find(done[0]);
                let flags = cmd.into_iter().flat_map(|c| c.get_arguments()).filter(|a| !a.is_hide_set());
                let unused = flags.filter(|a| {
                    matches!(a.get_action(), clap::ArgAction::Append)
                        || !a.get_long().is_some_and(|l| done.contains(&format!("--{l}").as_str()))
                });
                pairs(start, current, &mut unused.filter_map(|a| a.get_long().map(|l| format!("--{l}"))))
            }
            Slot::Choices(values) => pairs(start, current, &mut values.into_iter()),
            Slot::Fields { list, vectors_only } => {
                let (offset, prefix) = match current.rfind(',') {
                    Some(i) if list => (i + 1, &current[i + 1..]),
                    _ => (0, current),
                };
                let names = self.field_names(vectors_only);
                pairs(start + offset, prefix, &mut names.into_iter())
            }
            Slot::FilterExpr => {
                let ident = before.len() - before.trim_end_matches(|c: char| c.is_alphanumeric() || c == '_').len();
                let names = self.field_names(false).into_iter().chain(std::iter::once("_key".to_string()));
                pairs(pos - ident, &before[pos - ident..], &mut names.into_iter())
            }
            Slot::VectorsSpec if !current.contains('=') => {
                let names = self.field_names(true).into_iter().map(|n| format!("{n}="));
                pairs(start, current, &mut names.into_iter())
            }
            Slot::VectorsSpec | Slot::Path => self.files.complete_path(line, pos).unwrap_or((pos, Vec::new())),
            Slot::Nothing => (pos, Vec::new()),
        }
    }

    fn commands(&self) -> impl Iterator<Item = &str> {
        self.tree.get_subcommands().map(|c| c.get_name()).filter(|n| !NOT_IN_SHELL.contains(n))
    }

    /// The command or meta command a statement starts with.
    fn find(&self, first: &str) -> Option<&clap::Command> {
        match first.strip_prefix('.') {
            Some(name) => self.metas.find_subcommand(name).or_else(|| self.tree.find_subcommand(name)),
            None => self.metas.find_subcommand(first).or_else(|| self.tree.find_subcommand(first)),
        }
    }

    fn field_names(&self, vectors_only: bool) -> Vec<String> {
        let scalars = if vectors_only { &[][..] } else { &self.fields.scalars[..] };
        scalars.iter().chain(&self.fields.vectors).cloned().collect()
    }

    /// What the current word of a statement whose earlier words are `done` stands for.
    fn slot(&self, done: &[&str], current: &str) -> Slot {
        let Some(first) = done.first() else { return Slot::CommandName };
        let Some(cmd) = self.find(first) else { return Slot::Nothing };
        let find_flag = |w: &str| {
            cmd.get_arguments().find(|a| {
                w.strip_prefix("--").is_some_and(|l| a.get_long() == Some(l))
                    || (w.len() == 2 && w.starts_with('-') && a.get_short() == w.chars().nth(1))
            })
        };
        let takes_value = |a: &clap::Arg| a.get_action().takes_values();
        if let Some(arg) = done.last().and_then(|w| find_flag(w)).filter(|a| takes_value(a)) {
            return self.value_slot(arg);
        }
        if current.starts_with('-') {
            return Slot::Flag;
        }
        // Which positional this is: count the earlier words that are not flags or their values.
        let mut index = 0;
        let mut skip_value = false;
        for w in &done[1..] {
            if skip_value {
                skip_value = false;
            } else if w.starts_with('-') {
                skip_value = find_flag(w).is_some_and(takes_value) && !w.contains('=');
            } else {
                index += 1;
            }
        }
        if takes_collection(cmd) {
            index += 1;
        }
        if cmd.has_subcommands() && index == 0 {
            return Slot::Choices(cmd.get_subcommands().map(|c| c.get_name().to_string()).collect());
        }
        let positional =
            cmd.get_positionals().filter(|a| a.get_index().is_some()).find(|a| a.get_index() == Some(index + 1));
        match positional {
            Some(a) if a.get_value_names().is_some_and(|v| v.first().is_some_and(|n| n == "COMMAND")) => {
                Slot::TopicName
            }
            Some(a) => self.value_slot(a),
            None => Slot::Nothing,
        }
    }

    fn value_slot(&self, arg: &clap::Arg) -> Slot {
        let choices: Vec<String> =
            arg.get_possible_values().iter().filter(|p| !p.is_hide_set()).map(|p| p.get_name().to_string()).collect();
        if !choices.is_empty() {
            return Slot::Choices(choices);
        }
        let value_name = arg.get_value_names().and_then(|v| v.first()).map(|n| n.as_str()).unwrap_or_default();
        match (value_name, arg.get_value_hint()) {
            ("FIELD", _) => Slot::Fields { list: false, vectors_only: arg.get_id() == "field" },
            ("FIELDS", _) => Slot::Fields { list: true, vectors_only: false },
            ("EXPR", _) => Slot::FilterExpr,
            ("FIELD=FILE", _) => Slot::VectorsSpec,
            (_, clap::ValueHint::FilePath | clap::ValueHint::DirPath | clap::ValueHint::AnyPath) => Slot::Path,
            _ => Slot::Nothing,
        }
    }

    /// The usage of a fully typed command name, shown after it as a hint.
    fn usage_hint(&self, line: &str) -> Option<String> {
        let name = line.trim_start();
        let cmd = self.find(name).filter(|_| !name.is_empty())?;
        if name.strip_prefix('.').unwrap_or(name) != cmd.get_name() {
            return None;
        }
        if self.metas.find_subcommand(cmd.get_name()).is_some() {
            let usage = crate::cli::meta::usage(cmd);
            return usage.split_once(' ').map(|(_, rest)| format!(" {rest}"));
        }
        let usage = cmd.clone().render_usage().to_string();
        let rest = usage.split_once(cmd.get_name())?.1.replace(" <DIR>", "").replace(" [DIR]", "");
        Some(rest.trim_end().to_string()).filter(|r| !r.is_empty())
    }
}

impl Completer for ShellHelper {
    type Candidate = Pair;

    fn complete(&self, line: &str, pos: usize, _ctx: &Context<'_>) -> rustyline::Result<(usize, Vec<Pair>)> {
        Ok(self.candidates(line, pos))
    }
}

impl Hinter for ShellHelper {
    type Hint = String;

    fn hint(&self, line: &str, pos: usize, ctx: &Context<'_>) -> Option<String> {
        if pos < line.len() {
            return None;
        }
        self.usage_hint(line).or_else(|| self.history.hint(line, pos, ctx))
    }
}

impl Highlighter for ShellHelper {
    fn highlight<'l>(&self, line: &'l str, _pos: usize) -> Cow<'l, str> {
        if !self.color {
            return Cow::Borrowed(line);
        }
        let scan = lexer::scan(line);
        let bad = match (scan.stray, scan.open) {
            (Some(lexer::Stray(_, i)), _) => Some(i),
            (None, Some(Open::Quote(_, i) | Open::Bracket(_, i))) => Some(i),
            _ => None,
        };
        match bad {
            Some(i) => {
                let c = line[i..].chars().next().map_or(1, char::len_utf8);
                Cow::Owned(format!("{}{RED}{}{RESET}{}", &line[..i], &line[i..i + c], &line[i + c..]))
            }
            None => Cow::Borrowed(line),
        }
    }

    fn highlight_hint<'h>(&self, hint: &'h str) -> Cow<'h, str> {
        if self.color { Cow::Owned(format!("{DIM}{hint}{RESET}")) } else { Cow::Borrowed(hint) }
    }

    fn highlight_char(&self, _line: &str, _pos: usize, kind: CmdKind) -> bool {
        self.color && kind != CmdKind::ForcedRefresh
    }
}

impl Validator for ShellHelper {
    fn validate(&self, ctx: &mut ValidationContext) -> rustyline::Result<ValidationResult> {
        Ok(if lexer::is_complete(ctx.input()) { ValidationResult::Valid(None) } else { ValidationResult::Incomplete })
    }
}

impl Helper for ShellHelper {}

#[cfg(test)]
mod tests {
    use super::*;
    fn helper() -> ShellHelper {
        let mut h = ShellHelper::new(super::super::session::command_tree(), super::super::session::meta_tree(), false);
        h.fields =
            FieldNames { scalars: vec!["lemma".into(), "lexname".into(), "pos".into()], vectors: vec!["emb".into()] };
        h
    }

    fn complete(line: &str) -> (usize, Vec<String>) {
        let (start, pairs) = helper().candidates(line, line.len());
        (start, pairs.into_iter().map(|p| p.replacement).collect())
    }

    #[test]
    fn first_word_completes_commands_and_meta_commands() {
        assert_eq!(complete("qu"), (0, vec!["query".to_string(), "quickstart".to_string()]).sorted());
        assert_eq!(complete(".mo"), (0, vec![".mode".to_string()]));
        assert_eq!(complete("count; de"), (7, vec!["delete".to_string(), "describe".to_string()]));
        assert!(!complete("").1.contains(&"shell".to_string()));
    }

    #[test]
    fn flags_and_their_values_come_from_the_command_tree() {
        let (start, flags) = complete("query --pk x --f");
        assert_eq!(start, 13);
        assert_eq!(flags, ["--field", "--fields", "--filter"]);
        assert!(!complete("query --pk x --").1.contains(&"--pk".to_string()), "used flags are not offered again");
        assert_eq!(complete("count --mode j").1, ["json", "jsonl"]);
        assert_eq!(complete(".mode ma").1, ["markdown"]);
        assert_eq!(complete(".timer ").1, ["off", "on"]);
        assert_eq!(complete(".param ").1, ["list", "set", "unset"]);
        assert_eq!(complete(".help qu").1, ["query", "quickstart", "quit"]);
    }

    #[test]
    fn field_names_complete_in_projections_filters_and_vector_specs() {
        assert_eq!(complete("query --pk x --fields lemma,le"), (28, vec!["lemma".into(), "lexname".into()]));
        assert_eq!(complete("query --field ").1, ["emb"]);
        assert_eq!(complete("count --filter \"pos = 'n' AND le"), (30, vec!["lemma".into(), "lexname".into()]));
        assert_eq!(complete("count --filter \"_k").1, ["_key"]);
        assert_eq!(complete("import data.jsonl --vectors e").1, ["emb="]);
    }

    #[test]
    fn paths_complete_where_the_tree_expects_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("words.jsonl"), "").unwrap();
        let prefix = format!("{}/wo", dir.path().display());
        let line = format!("import {prefix}");
        let (_, pairs) = helper().candidates(&line, line.len());
        assert_eq!(pairs.len(), 1);
        assert!(pairs[0].replacement.ends_with("words.jsonl"));
        let line = format!(".read {prefix}");
        assert_eq!(helper().candidates(&line, line.len()).1.len(), 1);
        // The collection argument is filled in by the shell: a key is not a path.
        assert!(helper().candidates("fetch wo", 8).1.is_empty());
    }

    #[test]
    fn hints_show_the_usage_of_a_typed_command() {
        let h = helper();
        assert_eq!(h.usage_hint("query").as_deref(), Some(" [OPTIONS] [VECTOR]"));
        assert_eq!(h.usage_hint(".open").as_deref(), Some(" DIR [--write]"));
        assert_eq!(h.usage_hint("quer"), None);
    }

    #[test]
    fn incomplete_input_is_highlighted_where_it_opened() {
        let mut h = helper();
        h.color = true;
        assert_eq!(h.highlight("count --filter \"pos", 0), format!("count --filter {RED}\"{RESET}pos"));
        assert_eq!(h.highlight("query [1, 2]]", 0), format!("query [1, 2]{RED}]{RESET}"));
        assert_eq!(h.highlight("count", 0), "count");
    }

    trait Sorted {
        fn sorted(self) -> Self;
    }

    impl Sorted for (usize, Vec<String>) {
        fn sorted(mut self) -> Self {
            self.1.sort();
            self
        }
    }
}
