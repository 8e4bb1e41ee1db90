//! The REPL's rustyline helper: completion that walks the same clap trees that parse
//! statements (commands, meta commands, flags, their choices, field names of the open
//! collection, paths), usage and history hints, highlighting of unbalanced quotes and
//! brackets. A statement continued over several lines is read line by line (the REPL
//! shows a continuation prompt): `pending` holds its earlier lines, so completion and
//! highlighting see the whole statement.

use std::borrow::Cow;
use std::sync::Arc;

use rustyline::completion::{Completer, FilenameCompleter, Pair};
use rustyline::highlight::{CmdKind, Highlighter};
use rustyline::hint::{Hinter, HistoryHinter};
use rustyline::validate::Validator;
use rustyline::{Context, Helper};

use super::help::NOT_IN_SHELL;
use super::lexer::{self, Open};
use crate::cli::takes_collection;

const RED: &str = "\x1b[1;31m";
const DIM: &str = "\x1b[2m";
const RESET: &str = "\x1b[0m";

/// Keys offered for one Tab: a prefix lookup that stops here, whatever the collection's size.
pub const MAX_KEY_CANDIDATES: usize = 100;

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
    /// The open collection as of the prompt, for completing keys.
    pub snapshot: Option<Arc<xvec::Snapshot>>,
    /// The earlier lines of an unfinished statement, each ended by `\n`.
    pub pending: String,
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
    Keys,
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
            snapshot: None,
            pending: String::new(),
            color,
            files: FilenameCompleter::new(),
            history: HistoryHinter::new(),
        }
    }

    /// Candidates for the word that ends at `pos` of the current line, and where that
    /// word starts. A unique command, flag, choice, key or file is completed with a space
    /// after it; a directory, a field list, a filter and `FIELD=` are not (more follows).
    pub fn candidates(&self, line: &str, pos: usize) -> (usize, Vec<Pair>) {
        let offset = self.pending.len();
        if offset == 0 {
            return self.candidates_in(line, pos);
        }
        let full = format!("{}{line}", self.pending);
        let (start, pairs) = self.candidates_in(&full, offset + pos);
        match start.checked_sub(offset) {
            Some(start) => (start, pairs),
            // The word began on an earlier line, which can no longer be edited.
            None => (pos, Vec::new()),
        }
    }

    fn candidates_in(&self, line: &str, pos: usize) -> (usize, Vec<Pair>) {
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
        let pairs = |start: usize, prefix: &str, space: bool, names: &mut dyn Iterator<Item = String>| {
            let mut v: Vec<Pair> =
                names.filter(|n| n.starts_with(prefix)).map(|n| Pair { display: n.clone(), replacement: n }).collect();
            v.sort_by(|a, b| a.display.cmp(&b.display));
            v.dedup_by(|a, b| a.display == b.display);
            (start, finish_unique(v, space))
        };
        match slot {
            Slot::CommandName => {
                let commands = self.commands().map(str::to_string);
                let metas = self.metas.get_subcommands().map(|m| format!(".{}", m.get_name()));
                pairs(start, current, true, &mut commands.chain(metas))
            }
            Slot::TopicName => {
                let topics = self.commands().chain(self.metas.get_subcommands().map(|m| m.get_name()));
                pairs(start, current, true, &mut topics.map(str::to_string))
            }
            Slot::Flag => {
                let cmd = self.find(done[0]);
                let flags = cmd.into_iter().flat_map(|c| c.get_arguments()).filter(|a| !a.is_hide_set());
                let unused = flags.filter(|a| {
                    matches!(a.get_action(), clap::ArgAction::Append)
                        || !a.get_long().is_some_and(|l| done.contains(&format!("--{l}").as_str()))
                });
                pairs(start, current, true, &mut unused.filter_map(|a| a.get_long().map(|l| format!("--{l}"))))
            }
            Slot::Choices(values) => pairs(start, current, true, &mut values.into_iter()),
            Slot::Fields { list, vectors_only } => {
                let (offset, prefix) = match current.rfind(',') {
                    Some(i) if list => (i + 1, &current[i + 1..]),
                    _ => (0, current),
                };
                let names = self.field_names(vectors_only);
                pairs(start + offset, prefix, !list, &mut names.into_iter())
            }
            Slot::Keys => {
                let keys = self.snapshot.as_ref().map(|s| s.keys_with_prefix(current, MAX_KEY_CANDIDATES + 1));
                let mut keys = keys.unwrap_or_default();
                let more = keys.len() > MAX_KEY_CANDIDATES;
                keys.truncate(MAX_KEY_CANDIDATES);
                let mut pairs: Vec<Pair> =
                    keys.into_iter().map(|k| Pair { replacement: quote_word(&k), display: k }).collect();
                if more {
                    // The line editor inserts the prefix common to every candidate: over the
                    // first keys only it would be longer than what all keys share. This one
                    // keeps the word as typed and says the list is cut.
                    let display = format!("… (more than {MAX_KEY_CANDIDATES}: type more of the key)");
                    pairs.push(Pair { display, replacement: current.to_string() });
                }
                (start, finish_unique(pairs, true))
            }
            Slot::FilterExpr => {
                let ident = before.len() - before.trim_end_matches(|c: char| c.is_alphanumeric() || c == '_').len();
                let names = self.field_names(false).into_iter().chain(std::iter::once("_key".to_string()));
                pairs(pos - ident, &before[pos - ident..], false, &mut names.into_iter())
            }
            Slot::VectorsSpec if !current.contains('=') => {
                let names = self.field_names(true).into_iter().map(|n| format!("{n}="));
                pairs(start, current, false, &mut names.into_iter())
            }
            Slot::VectorsSpec | Slot::Path => {
                let (start, found) = self.files.complete_path(line, pos).unwrap_or((pos, Vec::new()));
                let is_dir = found.first().is_some_and(|p| p.replacement.ends_with(std::path::MAIN_SEPARATOR));
                (start, finish_unique(found, !is_dir))
            }
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
        // The shell fills in a command's collection (`.open DIR` is a meta command's own).
        let is_meta = self.metas.find_subcommand(first.strip_prefix('.').unwrap_or(first)).is_some();
        if takes_collection(cmd) && !is_meta {
            index += 1;
        }
        if cmd.has_subcommands() && index == 0 {
            return Slot::Choices(cmd.get_subcommands().map(|c| c.get_name().to_string()).collect());
        }
        let positionals = || cmd.get_positionals().filter(|a| a.get_index().is_some());
        // Past the last positional, a multi-valued one (`fetch KEY...`) takes more values.
        let positional = positionals().find(|a| a.get_index() == Some(index + 1)).or_else(|| {
            positionals()
                .last()
                .filter(|a| a.get_index() < Some(index + 1) && a.get_num_args().is_some_and(|n| n.max_values() > 1))
        });
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
            ("FIELD" | "FIELD[^BOOST]", _) => Slot::Fields { list: false, vectors_only: arg.get_id() == "field" },
            ("FIELDS", _) => Slot::Fields { list: true, vectors_only: false },
            ("KEY", _) => Slot::Keys,
            ("EXPR", _) => Slot::FilterExpr,
            ("FIELD=FILE", _) => Slot::VectorsSpec,
            (_, clap::ValueHint::FilePath | clap::ValueHint::DirPath | clap::ValueHint::AnyPath) => Slot::Path,
            _ => Slot::Nothing,
        }
    }

    /// The usage of a fully typed command name, shown after it as a hint.
    /// The usage of a fully typed command name (completion may have added a space after
    /// it), shown after it as a hint.
    fn usage_hint(&self, line: &str) -> Option<String> {
        let name = line.trim_start().strip_suffix(' ').unwrap_or(line.trim_start());
        let cmd = self.find(name).filter(|_| !name.is_empty())?;
        if name.strip_prefix('.').unwrap_or(name) != cmd.get_name() {
            return None;
        }
        let rest = if self.metas.find_subcommand(cmd.get_name()).is_some() {
            crate::cli::meta::usage(cmd).split_once(' ').map(|(_, rest)| format!(" {rest}"))?
        } else {
            let usage = cmd.clone().render_usage().to_string();
            usage.split_once(cmd.get_name())?.1.replace(" <DIR>", "").replace(" [DIR]", "").trim_end().to_string()
        };
        let rest = if line.ends_with(' ') { rest.trim_start().to_string() } else { rest };
        Some(rest).filter(|r| !r.is_empty())
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
        if pos < line.len() || !self.pending.is_empty() {
            return None;
        }
        // A hint shows on the input line: a multi-line entry is hinted up to its first newline.
        let history = || self.history.hint(line, pos, ctx).map(|h| h.lines().next().unwrap_or_default().to_string());
        self.usage_hint(line).or_else(history).filter(|h| !h.is_empty())
    }
}

impl Highlighter for ShellHelper {
    fn highlight<'l>(&self, line: &'l str, _pos: usize) -> Cow<'l, str> {
        if !self.color {
            return Cow::Borrowed(line);
        }
        let offset = self.pending.len();
        let scan = lexer::scan(&format!("{}{line}", self.pending));
        let bad = match (scan.stray, scan.open) {
            (Some(lexer::Stray(_, i)), _) => Some(i),
            (None, Some(Open::Quote(_, i) | Open::Bracket(_, i))) => Some(i),
            _ => None,
        };
        let bad = bad.and_then(|i| i.checked_sub(offset));
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

/// Enter always hands the line over: the REPL decides whether the statement goes on.
impl Validator for ShellHelper {}

/// A space after the only candidate, when `space` (the word is done).
fn finish_unique(mut pairs: Vec<Pair>, space: bool) -> Vec<Pair> {
    if let [only] = pairs.as_mut_slice()
        && space
    {
        only.replacement.push(' ');
    }
    pairs
}

/// A key as one word of a statement: quoted when the lexer would split or interpret it.
fn quote_word(key: &str) -> String {
    if !key.is_empty() && !key.contains(|c: char| c.is_whitespace() || "'\"\\;#[]{}$".contains(c)) {
        return key.to_string();
    }
    format!("\"{}\"", key.replace('\\', "\\\\").replace('"', "\\\""))
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
        assert_eq!(complete(".mo"), (0, vec![".mode ".to_string()]));
        assert_eq!(complete("que").1, ["query "], "a unique command is completed with a space");
        assert_eq!(complete("count; de"), (7, vec!["delete".to_string(), "describe".to_string()]));
        assert!(!complete("").1.contains(&"shell".to_string()));
    }

    #[test]
    fn flags_and_their_values_come_from_the_command_tree() {
        let (start, flags) = complete("query --pk x --f");
        assert_eq!(start, 13);
        assert_eq!(flags, ["--field", "--fields", "--filter", "--fusion"]);
        assert!(!complete("query --pk x --").1.contains(&"--pk".to_string()), "used flags are not offered again");
        assert_eq!(complete("count --mode j").1, ["json", "jsonl"]);
        assert_eq!(complete(".mode ma").1, ["markdown "]);
        assert_eq!(complete("query --fi").1, ["--field", "--fields", "--filter"]);
        assert_eq!(complete("query --fil").1, ["--filter "]);
        assert_eq!(complete(".timer ").1, ["off", "on"]);
        assert_eq!(complete(".param ").1, ["list", "set", "unset"]);
        assert_eq!(complete(".help qu").1, ["query", "quickstart", "quit"]);
    }

    #[test]
    fn field_names_complete_in_projections_filters_and_vector_specs() {
        assert_eq!(complete("query --pk x --fields lemma,le"), (28, vec!["lemma".into(), "lexname".into()]));
        assert_eq!(complete("query --field ").1, ["emb "]);
        assert_eq!(complete("query --fields lemma,lexn").1, ["lexname"], "a field list may go on");
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
        assert!(pairs[0].replacement.ends_with("words.jsonl "), "{:?}", pairs[0].replacement);
        let line = format!(".read {prefix}");
        assert_eq!(helper().candidates(&line, line.len()).1.len(), 1);
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let line = format!(".open {}/su", dir.path().display());
        let (_, pairs) = helper().candidates(&line, line.len());
        assert!(pairs[0].replacement.ends_with("sub/"), "no space after a directory: {:?}", pairs[0].replacement);
        // The collection argument is filled in by the shell: a key is not a path.
        assert!(helper().candidates("fetch wo", 8).1.is_empty());
    }

    #[test]
    fn keys_of_the_open_collection_complete_where_a_key_goes() {
        use xvec::{Field, ScalarType};
        let dir = tempfile::tempdir().unwrap();
        let schema = xvec::Schema::builder("k").field(Field::scalar("n", ScalarType::Int64)).build().unwrap();
        let coll = xvec::Collection::create(dir.path(), schema, Default::default()).unwrap();
        let keys = ["n.01", "n.02", "v.01", "odd key", "n.03"];
        coll.insert(keys.iter().map(|k| xvec::Doc::new(*k).set("n", 1i64)).collect()).unwrap();
        let mut h = helper();
        h.snapshot = Some(coll.snapshot());
        let complete = |line: &str| -> Vec<String> {
            h.candidates(line, line.len()).1.into_iter().map(|p| p.replacement).collect()
        };
        assert_eq!(complete("fetch n."), ["n.01", "n.02", "n.03"]);
        assert_eq!(complete("fetch n.01 v"), ["v.01 "], "every key of fetch KEY...");
        assert_eq!(complete("delete od"), ["\"odd key\" "]);
        assert_eq!(complete("query --pk n.03"), ["n.03 "]);
        assert!(complete("query --filter x").is_empty(), "not where no key goes");
    }

    /// Past the cap, the candidates end in one that keeps the word as typed, so the prefix
    /// the line editor inserts is one every key shares, not just the first ones listed.
    #[test]
    fn a_cut_key_list_inserts_nothing_beyond_the_typed_word() {
        use xvec::{Field, ScalarType};
        let dir = tempfile::tempdir().unwrap();
        let schema = xvec::Schema::builder("k").field(Field::scalar("n", ScalarType::Int64)).build().unwrap();
        let coll = xvec::Collection::create(dir.path(), schema, Default::default()).unwrap();
        let keys: Vec<String> =
            (0..MAX_KEY_CANDIDATES + 5).map(|i| format!("a.{i:04}")).chain(["n.1".into()]).collect();
        coll.insert(keys.iter().map(|k| xvec::Doc::new(k.as_str()).set("n", 1i64)).collect()).unwrap();
        let mut h = helper();
        h.snapshot = Some(coll.snapshot());
        for typed in ["", "a", "a.0"] {
            let line = format!("fetch {typed}");
            let (_, pairs) = h.candidates(&line, line.len());
            assert_eq!(pairs.len(), MAX_KEY_CANDIDATES + 1, "{typed:?}");
            assert_eq!(pairs.last().unwrap().replacement, typed, "{typed:?}");
            assert!(pairs.last().unwrap().display.contains("more than"), "{typed:?}");
        }
        let (_, pairs) = h.candidates("fetch a.01", 10);
        assert_eq!(pairs.len(), 5, "a.0100..a.0104 fit: no marker");
    }

    #[test]
    fn continuation_lines_are_completed_and_highlighted_with_the_earlier_lines() {
        let mut h = helper();
        h.pending = "count \\\n".into();
        let (start, pairs) = h.candidates("--fil", 5);
        assert_eq!((start, pairs[0].replacement.as_str()), (0, "--filter "));
        h.color = true;
        h.pending = "query [1,\n".into();
        assert_eq!(h.highlight("2]", 0), "2]", "the bracket closes one opened on an earlier line");
    }

    #[test]
    fn hints_show_the_usage_of_a_typed_command() {
        let h = helper();
        assert_eq!(h.usage_hint("query").as_deref(), Some(" [OPTIONS] [VECTOR]"));
        assert_eq!(h.usage_hint(".open").as_deref(), Some(" DIR [--write]"));
        assert_eq!(h.usage_hint("quer"), None);
        assert_eq!(h.usage_hint("query ").as_deref(), Some("[OPTIONS] [VECTOR]"), "after a completed name");
        assert_eq!(h.usage_hint("query  "), None);
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
