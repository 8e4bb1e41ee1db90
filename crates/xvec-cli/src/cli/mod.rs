//! The one command tree of the `xvec` tool. argv, the shell, `--help`, man pages and
//! completions are all derived from these definitions; nothing is described twice.
//!
//! Every command that works on a collection takes it as its first positional argument,
//! [`CollectionArg`] (id `dir`); the shell fills that argument in with the collection it
//! has open, so the same definitions serve both faces.

pub mod alter;
pub mod args;
pub mod backup;
pub mod bench;
pub mod bench_common;
pub mod commands;
pub mod context;
pub mod create;
pub mod describe;
pub mod docs;
pub mod dump;
pub mod error;
pub mod explain;
pub mod export;
pub mod fresh;
pub mod hybrid;
pub mod import;
pub mod index_flags;
pub mod interrupt;
pub mod meta;
pub mod optimize;
pub mod output;
pub mod params;
pub mod plural;
pub mod query;
pub mod quickstart;
pub mod scan;
pub mod streaming;
pub mod text_bench;
pub mod tui;
pub mod verify;
pub mod versions;
pub mod vocabulary;
pub mod write;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueHint};

pub use args::*;
pub use error::CliError;
use output::OutputMode;

/// Admin tool for xvec vector collections.
#[derive(Debug, Parser)]
#[command(
    name = "xvec",
    version,
    about = "Create, import, query and inspect xvec vector collections",
    long_about = "Create, import, query and inspect xvec vector collections.\n\n\
        A collection is a directory. Commands open it read-only unless they write; \
        writing commands take the collection's writer lock for as long as they run. \
        `xvec shell DIR` runs the same commands interactively or from scripts.\n\n\
        Example:\n  \
        xvec create words --schema commands/data/schema.json\n  \
        xvec import words commands/data/wordnet.jsonl --vectors emb=commands/data/wordnet.fvecs --flush\n  \
        xvec query words --pk n.01317391 --filter \"lexname = 'noun.animal'\" -k 5",
    after_long_help = docs::after_long_help(),
    max_term_width = 100
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub read: ReadArgs,
    #[command(flatten)]
    pub lock: LockArgs,
}

/// Waiting for the writer lock, valid with every command.
#[derive(Debug, Args, Clone, Default)]
pub struct LockArgs {
    /// Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection's
    /// lock instead of failing at once with exit status 4; in the shell, .timeout MS sets
    /// it for later statements.
    #[arg(long, global = true, value_name = "SECS", value_parser = parse_wait)]
    pub wait: Option<std::time::Duration>,
}

impl LockArgs {
    pub fn timeout(&self) -> std::time::Duration {
        self.wait.unwrap_or_default()
    }
}

/// The longest lock wait, `--wait` or `.timeout`: a day.
pub const MAX_WAIT: std::time::Duration = std::time::Duration::from_secs(86_400);

/// `--wait SECS`: a number of seconds from 0 to a day, fractions allowed.
fn parse_wait(text: &str) -> Result<std::time::Duration, String> {
    let secs: f64 = text.trim().parse().map_err(|_| format!("expected a number of seconds, e.g. 2.5, not {text:?}"))?;
    if !(0.0..=MAX_WAIT.as_secs_f64()).contains(&secs) {
        return Err(format!("expected 0 to {} seconds", MAX_WAIT.as_secs()));
    }
    Ok(std::time::Duration::from_secs_f64(secs))
}

/// Parameters of filter expressions, for the commands that take --filter or --where.
#[derive(Debug, Args, Clone, Default)]
pub struct BindArgs {
    /// Bind $NAME in the filter to VALUE (repeatable): a JSON number, true or false, a JSON
    /// array for `IN $NAME`, else a string ('quoted' or bare). Bound as a typed value, never
    /// spliced into the text; '$NAME' in quotes is the text $NAME. `xvec shell --param`
    /// binds for the session, as `.param set` does; a statement's own --param wins.
    #[arg(long = "param", value_name = "NAME=VALUE", value_parser = params::Binding::parse_flag)]
    pub params: Vec<params::Binding>,
}

/// How collection files are read, valid with every command.
#[derive(Debug, Args, Clone, Default)]
pub struct ReadArgs {
    /// Read segment and index files with read(2) instead of mapping them.
    ///
    /// For media that return read errors (a failing disk, a flaky network file system):
    /// a read error in a mapped page, or a file cut short while it is mapped, kills the
    /// process with SIGBUS, while a read(2) error is reported with the file. verify and repair then read each file in 64 KiB blocks
    /// and treat a block they cannot read like one that fails its checksum. Costs memory:
    /// every file is read into the heap. In the shell it applies to collections opened,
    /// and verify or repair run, from then on.
    #[arg(long, global = true)]
    pub no_mmap: bool,
    /// Bytes the collection may keep in memory for its disk-resident indexes (`"type":
    /// "disk"`): their codes, then a cache of neighbour lists in what is left, which
    /// searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it
    /// with the blocks read. `optimize` builds a disk index whose rows do not fit it
    /// from compact int8 codes, reading the rows once. In the shell it applies to
    /// collections opened from then on.
    #[arg(long, global = true, value_name = "BYTES", value_parser = args::parse_bytes)]
    pub memory_budget: Option<u64>,
}

/// Output options, valid with every command.
#[derive(Debug, Args, Clone, Default)]
pub struct OutputArgs {
    /// Output mode (default: table on a terminal, tsv otherwise).
    #[arg(long, global = true, value_enum, value_name = "MODE")]
    pub mode: Option<OutputMode>,
    /// Leave out the header row.
    #[arg(long, global = true)]
    pub no_headers: bool,
}

/// The collection a command works on. In the shell it is the open collection and is not
/// typed.
#[derive(Debug, Args, Clone)]
pub struct CollectionArg {
    /// Collection directory.
    #[arg(value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub dir: PathBuf,
}

impl Cli {
    /// The command to run, with the global flags a command checks itself handed to it:
    /// `export` refuses `--mode` (its format is `--format`) rather than ignore it; `bench`
    /// opens its collections itself, under `--memory-budget`.
    pub fn into_command(self) -> Command {
        let mut command = self.command;
        match &mut command {
            Command::Export(a) => a.mode = self.output.mode,
            Command::Bench(a) => a.memory_budget = self.read.memory_budget,
            _ => {}
        }
        command
    }
}

/// Id of [`CollectionArg::dir`], which the shell fills in.
pub const COLLECTION_ARG: &str = "dir";

/// Whether a command works on a collection (the shell's open one).
pub fn takes_collection(cmd: &clap::Command) -> bool {
    cmd.get_arguments().any(|a| a.get_id() == COLLECTION_ARG)
}

#[derive(Debug, Subcommand)]
pub enum Command {
    Create(CreateArgs),
    Import(ImportArgs),
    Insert(InsertArgs),
    Upsert(UpsertArgs),
    Update(UpdateArgs),
    Delete(DeleteArgs),
    Fetch(FetchArgs),
    Query(Box<QueryArgs>),
    #[command(alias = "select")]
    Scan(scan::ScanArgs),
    Explain(explain::ExplainArgs),
    Count(CountArgs),
    Analyze(AnalyzeArgs),
    Vocabulary(VocabularyArgs),
    Flush(FlushArgs),
    Optimize(OptimizeArgs),
    Alter(alter::AlterArgs),
    Describe(DescribeArgs),
    Stats(StatsArgs),
    Export(ExportArgs),
    Schema(SchemaArgs),
    Dump(DumpArgs),
    Shell(ShellArgs),
    Completions(CompletionsArgs),
    Man(ManArgs),
    Quickstart(QuickstartArgs),
    Bench(Box<bench::BenchArgs>),
    Tui(Box<tui::TuiArgs>),
    Verify(verify::VerifyArgs),
    Repair(verify::RepairArgs),
    Backup(backup::BackupArgs),
    Restore(backup::RestoreArgs),
    Versions(versions::VersionsArgs),
    Tag(versions::TagArgs),
    Checkout(versions::CheckoutArgs),
    Vacuum(versions::VacuumArgs),
    Inspect(verify::InspectArgs),
}

impl Command {
    /// The `--param` bindings of a command that takes them.
    pub fn bindings(&self) -> &[params::Binding] {
        match self {
            Command::Query(a) => &a.bind.params,
            Command::Count(a) => &a.bind.params,
            Command::Scan(a) => &a.bind.params,
            Command::Delete(a) => &a.bind.params,
            Command::Export(a) => &a.bind.params,
            Command::Shell(a) => &a.bind.params,
            Command::Tui(a) => &a.bind.params,
            _ => &[],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn command_tree_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn wait_takes_seconds_within_a_day() {
        assert_eq!(parse_wait("2.5"), Ok(std::time::Duration::from_millis(2500)));
        assert_eq!(parse_wait("0"), Ok(std::time::Duration::ZERO));
        assert!(parse_wait("-1").unwrap_err().contains("0 to 86400"));
        assert!(parse_wait("NaN").is_err() && parse_wait("1e9").is_err() && parse_wait("soon").is_err());
    }

    /// Help is documentation: every command says what it does in one line that fits a
    /// terminal, shows an example, and names every value it takes.
    #[test]
    fn every_command_has_short_and_long_help_and_value_names() {
        for sub in Cli::command().get_subcommands().filter(|s| s.get_name() != "help") {
            let name = sub.get_name();
            let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
            assert!(
                !about.is_empty() && about.chars().count() <= 79,
                "{name}: about {about:?} is longer than 79 columns"
            );
            let long = sub.get_long_about().map(|a| a.to_string()).unwrap_or_default();
            assert!(long.contains("Example"), "{name}: long help has no example");
            for arg in sub.get_arguments() {
                if arg.get_action().takes_values() && arg.get_id() != "help" {
                    assert!(arg.get_value_names().is_some(), "{name} --{}: no value_name", arg.get_id());
                }
            }
        }
    }

    /// The bounds the query flags' help states are the engine's.
    #[test]
    fn query_help_states_the_engine_bounds() {
        let cli = Cli::command();
        let query = cli.find_subcommand("query").unwrap();
        let help = |id: &str| query.get_arguments().find(|a| a.get_id() == id).unwrap().get_help().unwrap().to_string();
        assert!(help("k").contains(&format!("1 to {}", xvec::MAX_K)));
        assert!(help("ef").contains(&format!("k to {}", xvec::MAX_EF)));
        assert!(help("refine").contains(&format!("at most {}", xvec::MAX_REFINE_CANDIDATES)));
        assert!(help("per_group").contains(&format!("at most {}", xvec::MAX_GROUP_HITS)));
    }

    /// The shell fills in the collection argument by position, so it must come first.
    #[test]
    fn collection_argument_is_always_the_first_positional() {
        let mut cli = Cli::command();
        cli.build();
        for sub in cli.get_subcommands() {
            if let Some(arg) = sub.get_arguments().find(|a| a.get_id() == COLLECTION_ARG) {
                assert_eq!(arg.get_index(), Some(1), "{}", sub.get_name());
            }
        }
    }
}
