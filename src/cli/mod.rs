//! The one command tree of the `xvec` tool. argv, the shell, `--help`, man pages and
//! completions are all derived from these definitions; nothing is described twice.

pub mod commands;
pub mod error;
pub mod import;
pub mod output;
pub mod quickstart;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

pub use error::CliError;
use output::OutputMode;

/// Admin tool for xvec vector collections.
#[derive(Debug, Parser)]
#[command(
    name = "xvec",
    version,
    about = "Create, import, query and inspect xvec vector collections",
    long_about = "Create, import, query and inspect xvec vector collections.\n\n\
        A collection is a directory. Commands open it read-only unless they write.\n\n\
        Example:\n  xvec create words --schema schema.json\n  \
        xvec import words data.jsonl --key-field id\n  \
        xvec query words --pk n.02084071 --filter \"pos = 'n'\" -k 5"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    #[command(flatten)]
    pub output: OutputArgs,
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

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create a collection from a JSON schema file.
    Create(CreateArgs),
    /// Import documents from JSON Lines (vectors inline or from .fvecs/.npy files).
    Import(ImportArgs),
    /// Nearest-neighbour search by vector literal, key or vector file row.
    Query(QueryArgs),
    /// Print documents by primary key.
    Fetch(FetchArgs),
    /// Count live documents, optionally matching a filter.
    Count(CountArgs),
    /// Seal the write-ahead log into an immutable segment.
    Flush(DirArg),
    /// Show the schema, index parameters, counts and size.
    Describe(DirArg),
    /// Build a sample collection from the bundled WordNet data and query it.
    Quickstart(QuickstartArgs),
}

#[derive(Debug, Args)]
pub struct DirArg {
    /// Collection directory.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
}

#[derive(Debug, Args)]
pub struct CreateArgs {
    /// Directory to create the collection in.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// JSON schema file: {"name": ..., "fields": [{"name", "type", "nullable", "dim", "metric", "index"}]}.
    #[arg(long, value_name = "FILE")]
    pub schema: PathBuf,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Collection directory (opened for writing).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// JSON Lines file, one document per line.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Member of each JSON object that holds the primary key.
    #[arg(long, value_name = "NAME", default_value = "id")]
    pub key_field: String,
    /// Take a vector field from a .fvecs/.npy file: line i gets row i.
    #[arg(long = "vectors", value_name = "FIELD=FILE")]
    pub vectors: Vec<String>,
    /// Documents per write batch (one WAL sync each).
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub batch_size: usize,
    /// Insert or merge instead of failing on existing keys.
    #[arg(long)]
    pub upsert: bool,
    /// Flush into a segment when done.
    #[arg(long)]
    pub flush: bool,
}

#[derive(Debug, Args)]
pub struct QueryArgs {
    /// Collection directory.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Query vector literal, e.g. "[0.1, 0.2, 0.3]".
    #[arg(value_name = "VECTOR")]
    pub vector: Option<String>,
    /// Use the stored vector of this document.
    #[arg(long, value_name = "KEY", conflicts_with = "vector")]
    pub pk: Option<String>,
    /// Take the query vector from a .fvecs/.npy file (with --row).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["vector", "pk"], requires = "row")]
    pub vector_file: Option<PathBuf>,
    /// Row of --vector-file, from 0.
    #[arg(long, value_name = "N")]
    pub row: Option<usize>,
    /// Vector field to search (needed when the schema has several).
    #[arg(long, value_name = "NAME")]
    pub field: Option<String>,
    /// Filter, e.g. "pos = 'n' AND n_lemmas > 1".
    #[arg(long, value_name = "EXPR")]
    pub filter: Option<String>,
    /// Number of results.
    #[arg(short, long, value_name = "N", default_value_t = 10)]
    pub k: usize,
    /// Fields to print, comma-separated (default: all scalar fields).
    #[arg(long, value_name = "A,B", value_delimiter = ',')]
    pub fields: Option<Vec<String>>,
    /// Also print vector fields.
    #[arg(long)]
    pub with_vectors: bool,
}

#[derive(Debug, Args)]
pub struct FetchArgs {
    /// Collection directory.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Primary keys.
    #[arg(value_name = "KEY", required = true)]
    pub keys: Vec<String>,
    /// Fields to print, comma-separated (default: all).
    #[arg(long, value_name = "A,B", value_delimiter = ',')]
    pub fields: Option<Vec<String>>,
}

#[derive(Debug, Args)]
pub struct CountArgs {
    /// Collection directory.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Count only documents matching this filter.
    #[arg(long, value_name = "EXPR")]
    pub filter: Option<String>,
}

#[derive(Debug, Args)]
pub struct QuickstartArgs {
    /// Where to build the sample collection (default: a fresh temporary directory).
    #[arg(value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Directory with the bundled sample data.
    #[arg(long, value_name = "DIR", default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/commands/data"))]
    pub data: PathBuf,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn command_tree_is_consistent() {
        Cli::command().debug_assert();
    }
}
