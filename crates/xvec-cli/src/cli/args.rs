//! Arguments of each command. A struct's doc comment is the command's help: the first
//! line its summary, the rest (with an example) its long help and man page.
//!
//! Parsing only validates shapes; opening files and collections happens when the command
//! runs.

use std::path::PathBuf;

use clap::{Args, ValueEnum, ValueHint};

use super::{BindArgs, CollectionArg};

/// A size flag: an integer in `min..=max`, so a hostile value is refused while parsing
/// (exit 2) with the flag, the value and the range named.
/// A byte count: digits with an optional binary unit (`K`, `KiB`, `M`, `MiB`, `G`, `GiB`;
/// any case, `KB` reads as KiB), e.g. `64MiB`.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let n: u64 = digits.parse().map_err(|_| format!("{s:?}: expected a size such as 4096, 512KiB or 64MiB"))?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        other => return Err(format!("{s:?}: unknown unit {other:?}; expected K, KiB, M, MiB, G or GiB")),
    };
    n.checked_mul(1 << shift).ok_or_else(|| format!("{s:?}: too large"))
}

pub fn size(min: usize, max: usize) -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::new().range(min as u64..=max as u64)
}

/// Create a collection from a JSON schema file or --field/--vector flags.
///
/// The directory is created if missing and must not hold a collection yet. A schema file
/// looks like:
///   {"name": "wordnet", "fields": [
///     {"name": "lemma", "type": "string"},
///     {"name": "n_lemmas", "type": "int32", "nullable": true},
///     {"name": "emb", "type": "vector_fp32", "dim": 384, "metric": "cosine",
///      "index": {"type": "flat"}}]}
/// Scalar types: string, bool, int32, int64, uint32, uint64, float, double. Vector types:
/// vector_fp32, vector_fp16, vector_int8; metrics: l2, ip, cosine.
///
/// Example:
///   xvec create words --schema commands/data/schema.json
///   xvec schema words | xvec create copy --schema -
///   xvec create words --field lemma:string --field n_lemmas:int32:nullable --vector emb:384:cosine
///   xvec create ann --field lemma:string --vector emb:384:cosine --index '{"type": "hnsw", "quantize": "int8"}'
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct CreateArgs {
    #[command(flatten)]
    pub coll: CollectionArg,
    /// JSON schema: a file, `-` for standard input (in a shell script: the lines after
    /// the statement up to `\.`), or the JSON itself when it starts with `{`.
    #[arg(long, value_name = "FILE|-|JSON", value_hint = ValueHint::FilePath, conflicts_with_all = ["fields", "vectors"])]
    pub schema: Option<PathBuf>,
    /// A scalar field, NAME:TYPE or NAME:TYPE:nullable (repeatable).
    #[arg(long = "field", id = "fields", value_name = "NAME:TYPE")]
    pub fields: Vec<String>,
    /// A vector field, NAME:DIM:METRIC[:fp32|fp16|int8][:nullable] (repeatable).
    #[arg(long = "vector", id = "vectors", value_name = "NAME:DIM:METRIC")]
    pub vectors: Vec<String>,
    /// Index of every --vector field: flat (default), hnsw, or its JSON parameters, e.g.
    /// '{"type": "hnsw", "m": 16, "quantize": "int8", "refine": 4}'.
    #[arg(long, value_name = "INDEX", conflicts_with = "schema")]
    pub index: Option<String>,
    /// Collection name with --field/--vector (default: the directory's name).
    #[arg(long, value_name = "NAME", conflicts_with = "schema")]
    pub name: Option<String>,
    /// Keep the collection indexed as it grows: flush the memtable at ROWS rows, index
    /// each new segment and merge segments in tiers in the background (0: only when asked).
    #[arg(long, value_name = "ROWS", default_value_t = 0)]
    pub auto_flush_rows: u64,
    /// Also flush when the memtable takes SIZE of memory, e.g. 64MiB (turns background
    /// maintenance on like --auto-flush-rows).
    #[arg(long, value_name = "SIZE", value_parser = parse_bytes)]
    pub auto_flush_bytes: Option<u64>,
    /// Once writes pause for MS milliseconds, background maintenance flushes the memtable
    /// and merges small segments into one, as optimize would (0: never).
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    pub idle_optimize_ms: u64,
    /// Segments of one size tier that background maintenance merges into one.
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u32).range(2..=1000))]
    pub merge_factor: u32,
    /// Most documents one segment holds after optimize or a merge.
    #[arg(long, value_name = "ROWS", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_docs_per_segment: Option<u64>,
    /// Keep the N newest superseded versions for time travel (`--as-of`) and checkout
    /// (0: none, each publish removes what it superseded).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub keep_versions: u64,
    /// Also keep every version superseded less than SECS seconds ago.
    #[arg(long, value_name = "SECS", default_value_t = 0)]
    pub keep_for: u64,
}

/// Input formats of `import`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ImportFormat {
    /// One JSON object per line.
    Jsonl,
    /// A header row of field names, then one document per row.
    Csv,
    /// Raw vectors, TEXMEX .fvecs (also .bvecs, .ivecs).
    Fvecs,
    /// Raw vectors, a 2-d NumPy array.
    Npy,
    /// Apache Parquet: one column per field, vectors as lists of numbers.
    Parquet,
}

/// Import documents from JSON Lines, CSV, Parquet, or raw vectors (.fvecs/.npy).
///
/// JSON Lines and CSV rows name their fields; the key comes from --key-field. Vector fields
/// are JSON arrays (in CSV: a cell holding a JSON array) or come row by row from a vector
/// file with --vectors FIELD=FILE. A raw vector file fills one vector field (--field) and
/// takes its keys from --ids FILE (one key per line), else from FILE.ids when there is one
/// (what `export --format npy|fvecs` writes), else from the row numbers. A Parquet
/// file has one column per field (the key in --key-field, int64 or string), vectors as
/// list columns, nulls where a nullable field is unset: what `export --format parquet`,
/// Milvus bulk_import and VectorDBBench files hold.
/// Writes in batches of --batch-size, one WAL sync each; bad rows are reported with their
/// line and skipped, and the command then exits 1. An import that stops part-way (Ctrl-C,
/// a fatal error, --max-errors) says which rows are committed; rerun it with
/// --skip-existing (or --upsert) to go on. An import of more rows than the collection's
/// auto_flush_rows (10000 when 0) flushes them into a segment at the end, so later
/// commands do not replay them from the WAL; --no-flush keeps them there, --flush flushes
/// any import.
///
/// Example:
///   xvec import words commands/data/wordnet.jsonl --vectors emb=commands/data/wordnet.fvecs --flush
///   xvec import words extra.csv --key-field id
///   xvec import words commands/data/queries.fvecs --field emb --ids ids.txt
///   xvec import words words.parquet
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct ImportArgs {
    #[command(flatten)]
    pub coll: CollectionArg,
    /// Input file; `-` reads JSON Lines or CSV from standard input (with --format).
    #[arg(value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub file: PathBuf,
    /// Input format (default: from the file's extension).
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<ImportFormat>,
    /// Member or column that holds the primary key (`_key`, as dump and export write it,
    /// when the input has it and no `id`).
    #[arg(long, value_name = "NAME", default_value = "id")]
    pub key_field: String,
    /// Take a vector field from a .fvecs/.npy file: row i of the input gets row i.
    #[arg(long = "vectors", value_name = "FIELD=FILE")]
    pub vectors: Vec<String>,
    /// Vector field that raw vectors fill (default: the only one).
    #[arg(long, value_name = "FIELD")]
    pub field: Option<String>,
    /// Keys of raw vectors, one per line (default: FILE.ids if it exists, else row numbers
    /// from 0).
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub ids: Option<PathBuf>,
    /// Fill the sparse field TARGET with the BM25 weights of each row's SOURCE text over
    /// the terms of the vocabulary file VOCAB (made by `xvec vocabulary`); repeatable.
    #[arg(long = "sparse-bm25", value_name = "TARGET=SOURCE:VOCAB")]
    pub sparse_bm25: Vec<String>,
    /// Documents per write batch (one WAL sync each).
    #[arg(long, value_name = "N", default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..))]
    pub batch_size: u32,
    /// Insert or merge instead of failing on existing keys.
    #[arg(long)]
    pub upsert: bool,
    /// Skip rows whose key exists already (resuming an import that stopped part-way).
    #[arg(long, conflicts_with = "upsert")]
    pub skip_existing: bool,
    /// Stop once more than N rows were bad (default: never; with --atomic, 0); the
    /// batches before stay, unless --atomic.
    #[arg(long, value_name = "N")]
    pub max_errors: Option<u64>,
    /// All or nothing: stage every row, publish them as one version at the end; an
    /// error, a bad row (past --max-errors) or Ctrl-C commits none.
    #[arg(long)]
    pub atomic: bool,
    /// Flush into a segment when done (the default for more rows than the collection's
    /// auto_flush_rows, 10000 when that is 0).
    #[arg(long)]
    pub flush: bool,
    /// Keep the rows in the WAL even after a large import (each open replays them until
    /// a flush).
    #[arg(long, conflicts_with = "flush")]
    pub no_flush: bool,
}

/// Documents given on the command line, for insert, upsert and update.
#[derive(Debug, Args)]
pub struct DocArgs {
    #[command(flatten)]
    pub coll: CollectionArg,
    /// Documents, each a JSON object with the key in --key-field.
    #[arg(value_name = "JSON", required = true)]
    pub docs: Vec<String>,
    /// Member that holds the primary key.
    #[arg(long, value_name = "NAME", default_value = "id")]
    pub key_field: String,
}

/// Insert new documents; a key that exists already fails.
///
/// Each document is a JSON object; vectors are JSON arrays.
///
/// Example:
///   xvec insert words '{"id": "x.1", "lemma": "xylophone", "pos": "n", "emb": [0.1, ...]}'
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct InsertArgs {
    #[command(flatten)]
    pub docs: DocArgs,
}

/// Insert documents, or merge the given fields into existing ones.
///
/// Example:
///   xvec upsert words '{"id": "n.00001740", "n_lemmas": 2}'
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct UpsertArgs {
    #[command(flatten)]
    pub docs: DocArgs,
}

/// Replace the given fields of existing documents; a missing key fails.
///
/// Example:
///   xvec update words '{"id": "n.00001740", "gloss": "that which exists"}'
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct UpdateArgs {
    #[command(flatten)]
    pub docs: DocArgs,
}

/// Delete documents by key, or every document matching --where.
///
/// Example:
///   xvec delete words n.00001740 n.00032613
///   xvec delete words --where "pos = 'r'"
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct DeleteArgs {
    #[command(flatten)]
    pub coll: CollectionArg,
    /// Primary keys.
    #[arg(value_name = "KEY", required_unless_present = "filter", conflicts_with = "filter")]
    pub keys: Vec<String>,
    /// Delete every document matching this filter.
    #[arg(long = "where", id = "filter", value_name = "EXPR")]
    pub filter: Option<String>,
    #[command(flatten)]
    pub bind: BindArgs,
}

/// Print documents by primary key.
///
/// Missing keys are reported on stderr and make the command exit 1.
///
/// Example:
///   xvec fetch words n.07580359 v.02612234 --fields lemma,gloss
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct FetchArgs {
    #[command(flatten)]
    pub coll: CollectionArg,
    /// Primary keys.
    #[arg(value_name = "KEY", required = true)]
    pub keys: Vec<String>,
    /// Fields to print, comma-separated (default: all, vectors too).
    #[arg(long, value_name = "FIELDS", value_delimiter = ',')]
    pub fields: Option<Vec<String>>,
    /// Read an older version (a number from `xvec versions`, or a tag) instead of the
    /// live one: time travel.
    #[arg(long, value_name = "VERSION|TAG")]
    pub as_of: Option<String>,
}

/// Search by vector, key, file row, text (BM25) or sparse vector, or fuse several.
///
/// The query vector is a literal ("[0.1, 0.2, ...]"), the stored vector of a document
/// (--pk), or a row of a .fvecs/.npy file (--vector-file F --row N). --text (BM25 over a
/// full-text field), --sparse or --sparse-text (inner product over a sparse field) and
/// --keys add branches, each ranking on its own under the filter, fused by --fusion; each
/// hit then shows every branch's rank and score. Results come best first: the cosine similarity or inner product (higher is better) or the squared L2
/// distance (lower is better). With --group-by, -k counts groups (one value of the field
/// each, best group first) of up to --per-group hits. Filters are SQL-like over scalar
/// fields and _key:
/// = == != < <= > >=, BETWEEN a AND b, IN (...), LIKE 'prefix%' (case-sensitive, as in
/// PostgreSQL), ILIKE (ignores case), IS [NOT] NULL, TRUE, FALSE, AND, OR, NOT, parentheses.
///
/// Example:
///   xvec query words --pk n.01317391 --filter "lexname = 'noun.animal'" -k 5 --fields lemma,gloss
///   xvec query words --vector-file commands/data/queries.fvecs --row 3 --mode json
///   xvec query words --pk n.01317391 --text 'small flowering plant' -k 5 --fields lemma
///   xvec query words --pk n.07580359 --group-by lexname -k 4 --per-group 2 --fields lemma
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct QueryArgs {
    #[command(flatten)]
    pub coll: CollectionArg,
    /// Query vector literal, e.g. "[0.1, 0.2, 0.3]", or '$NAME' for --param NAME=[...].
    #[arg(value_name = "VECTOR")]
    pub vector: Option<String>,
    /// Use the stored vector of this document.
    #[arg(long, value_name = "KEY", conflicts_with = "vector")]
    pub pk: Option<String>,
    /// With --pk: leave that document out of the results (it is its own nearest
    /// neighbour, first at every k).
    #[arg(long, conflicts_with = "group_by")]
    pub exclude_self: bool,
    /// Take the query vector from a .fvecs/.npy file (with --row).
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath, conflicts_with_all = ["vector", "pk"])]
    pub vector_file: Option<PathBuf>,
    /// Row of --vector-file, from 0.
    #[arg(long, value_name = "N", requires = "vector_file", default_value_t = 0)]
    pub row: usize,
    /// Vector field to search (needed when the schema has several).
    #[arg(long, value_name = "FIELD")]
    pub field: Option<String>,
    /// Only documents matching this filter, e.g. "pos = 'n' AND n_lemmas > 1".
    #[arg(long, value_name = "EXPR")]
    pub filter: Option<String>,
    /// Search an older version (a number from `xvec versions`, or a tag) instead of
    /// the live one: time travel.
    #[arg(long, value_name = "VERSION|TAG")]
    pub as_of: Option<String>,
    /// Number of results, 1 to 100000.
    #[arg(short, long, value_name = "N", default_value_t = 10, value_parser = size(1, xvec::MAX_K))]
    pub k: usize,
    /// Search breadth of graph indexes (hnsw ef, vamana query list), k to 100000; refused
    /// on other indexes.
    #[arg(long, value_name = "N", value_parser = size(1, xvec::MAX_EF))]
    pub ef: Option<usize>,
    /// Lists an ivf index probes, 1 to 65536 (of its nlist; more is slower and finds
    /// more); refused on other indexes.
    #[arg(long, value_name = "N", value_parser = size(1, xvec::MAX_NLIST as usize))]
    pub nprobe: Option<usize>,
    /// Instead of --nprobe: probe in each segment the lists its build measured as holding
    /// this share of its rows' 10 nearest neighbours (above 0, at most 1); ivf only.
    #[arg(long, value_name = "RECALL", conflicts_with = "nprobe", value_parser = xvec_bench::config::parse_recall)]
    pub target_recall: Option<f64>,
    /// Re-rank REFINE × k candidates of a quantized index with the original vectors;
    /// REFINE × k is at most 1000000; refused on an index without quantization.
    #[arg(long, value_name = "FACTOR", value_parser = size(0, xvec::MAX_REFINE_CANDIDATES))]
    pub refine: Option<usize>,
    /// Nodes a disk index expands, and so blocks it reads at once, per hop, 1 to 64
    /// (default: the index's beam_width; wider: more reads in fewer round trips);
    /// refused on other indexes.
    #[arg(long, value_name = "N", value_parser = size(1, xvec::MAX_BEAM_WIDTH))]
    pub beam_width: Option<usize>,
    /// Group results by this scalar field: -k groups, best first, of --per-group hits.
    #[arg(long, value_name = "FIELD")]
    pub group_by: Option<String>,
    /// Hits per group with --group-by; k × N is at most 1000000.
    #[arg(long, value_name = "N", default_value_t = 3, requires = "group_by", value_parser = size(1, xvec::MAX_GROUP_HITS))]
    pub per_group: usize,
    /// Fields to print, comma-separated (default: all scalar fields).
    #[arg(long, value_name = "FIELDS", value_delimiter = ',')]
    pub fields: Option<Vec<String>>,
    /// Also print vector fields.
    #[arg(long)]
    pub with_vectors: bool,
    /// Also rank by BM25 over a full-text field (a string field with an fts index), fused
    /// with the vector query when one is given; e.g. --text 'dog leash'.
    #[arg(long, value_name = "TEXT")]
    pub text: Option<String>,
    /// Full-text field for --text, NAME or NAME^BOOST (its scores times BOOST); repeat it
    /// to search several fields at once, each row scoring the sum (default: the schema's
    /// only full-text field).
    #[arg(long, value_name = "FIELD[^BOOST]", requires = "text", value_parser = clap::value_parser!(xvec::TextField))]
    pub text_field: Vec<xvec::TextField>,
    /// Also rank by inner product with this sparse vector over a sparse field, exact:
    /// '{"indices": [3, 17], "values": [0.5, 1.2]}' or '{"3": 0.5, "17": 1.2}'.
    #[arg(long, value_name = "JSON", value_parser = parse_sparse, conflicts_with = "sparse_text")]
    pub sparse: Option<xvec::SparseVector>,
    /// Also rank by the BM25 weights of a sparse field (filled by import --sparse-bm25):
    /// the text's terms in the --vocabulary file, each at weight 1.
    #[arg(long, value_name = "TEXT", requires = "vocabulary")]
    pub sparse_text: Option<String>,
    /// The vocabulary file the sparse field's weights were made with, for --sparse-text.
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath, requires = "sparse_text")]
    pub vocabulary: Option<PathBuf>,
    /// Sparse field for --sparse or --sparse-text (needed when the schema has several).
    #[arg(long, value_name = "FIELD")]
    pub sparse_field: Option<String>,
    /// Approximate --sparse or --sparse-text: each segment's index search stops after
    /// scoring N postings (default: exact).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub sparse_budget: Option<u64>,
    /// Also rank these documents first, in this order (a key-lookup branch), comma-separated.
    #[arg(long, value_name = "KEYS", value_delimiter = ',')]
    pub keys: Option<Vec<String>>,
    /// How the branches (vector, --text, --sparse, --keys) are fused: rrf (reciprocal rank fusion)
    /// or weighted (a weighted sum of min-max scaled scores, see --weights).
    #[arg(long, value_name = "FUSION", default_value = "rrf")]
    pub fusion: FusionKind,
    /// RRF's constant k (above 0).
    #[arg(long, value_name = "K", default_value_t = xvec::DEFAULT_RRF_K)]
    pub rrf_k: f32,
    /// --fusion weighted: one weight per branch, in the order vector, text, sparse, keys.
    #[arg(long, value_name = "W,W", value_delimiter = ',')]
    pub weights: Option<Vec<f32>>,
    /// Hits each branch ranks before fusion, 1 to 100000 (default: -k).
    #[arg(long, value_name = "N", value_parser = size(1, xvec::MAX_K))]
    pub branch_k: Option<usize>,
    /// The whole query as one JSON object, or @FILE to read it from a file:
    /// '{"k": 5, "filter": "...", "fields": [...], "fusion": "rrf", "branches": [{"vector":
    /// [...]}, {"key": "K"}, {"text": "...", "fields": ["gloss^2"]}, {"sparse": {...}},
    /// {"keys": [...]}]}' (a branch may also give its field, k, ef, nprobe, refine,
    /// beam_width or budget; fusion may be {"rrf": K} or {"weighted": [w, ...]}).
    #[arg(long, value_name = "JSON", conflicts_with_all = QUERY_FLAGS)]
    pub json: Option<String>,
    #[command(flatten)]
    pub bind: BindArgs,
}

/// The `query` flags a `--json` query gives itself.
const QUERY_FLAGS: [&str; 22] = [
    "vector",
    "pk",
    "vector_file",
    "field",
    "filter",
    "k",
    "ef",
    "nprobe",
    "target_recall",
    "refine",
    "beam_width",
    "group_by",
    "fields",
    "text",
    "text_field",
    "sparse",
    "sparse_text",
    "sparse_field",
    "sparse_budget",
    "keys",
    "weights",
    "branch_k",
];

/// How `query` fuses its branches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FusionKind {
    /// Reciprocal rank fusion: Σ 1 / (k + rank).
    Rrf,
    /// Σ weight × score scaled to [0, 1] by the branch's best and worst hit.
    Weighted,
}

/// Count live documents, or per value of a field (facets), or field statistics.
///
/// Counts the documents a filter keeps (all without one). With --group-by FIELD, the
/// rows per value of a scalar field (of an array field: the rows holding each element),
/// the most frequent --top first, then a NULL row for the rows without a value; a
/// footer (a note on stderr in csv, tsv, json, jsonl) counts the values left out. With
/// --stats FIELDS, one row per field: the rows kept, those with a value, min, max, and
/// for numbers sum and avg (NaNs count as no value). Reads the field's column (or the
/// postings of its inverted index), never the vectors.
///
/// Example:
///   xvec count words --filter "pos IN ('a', 's')"
///   xvec count words --group-by lexname --top 5 --where "pos = 'n'"
///   xvec count words --stats n_lemmas
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct CountArgs {
    #[command(flatten)]
    pub coll: CollectionArg,
    /// Count only documents matching this filter.
    #[arg(long, visible_alias = "where", value_name = "EXPR")]
    pub filter: Option<String>,
    /// Count the rows per value of this scalar or array field.
    #[arg(long, value_name = "FIELD", conflicts_with = "stats")]
    pub group_by: Option<String>,
    /// With --group-by: the N most frequent values.
    #[arg(long, value_name = "N", default_value_t = 20, requires = "group_by", value_parser = size(1, usize::MAX))]
    pub top: usize,
    /// Statistics of these scalar fields, comma-separated: count, min, max, sum, avg.
    #[arg(long, value_name = "FIELDS", value_delimiter = ',')]
    pub stats: Vec<String>,
    /// Read an older version (a number from `xvec versions`, or a tag) instead of the
    /// live one: time travel.
    #[arg(long, value_name = "VERSION|TAG")]
    pub as_of: Option<String>,
    #[command(flatten)]
    pub bind: BindArgs,
}

/// Seal the write-ahead log into an immutable, memory-mapped segment.
///
/// Example:
///   xvec flush words
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct FlushArgs {
    #[command(flatten)]
    pub coll: CollectionArg,
}

/// Compact segments and build the vector indexes (HNSW, quantized codes).
///
/// Rewrites the live rows (including unflushed ones) into compact segments and builds the
/// index each vector field's schema names, then publishes everything in one step. Queries
/// keep running on the previous state meanwhile; Ctrl-C in the shell cancels and leaves the
/// collection unchanged. A progress bar shows on a terminal.
///
/// Example:
///   xvec optimize words --concurrency 2
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct OptimizeArgs {
    #[command(flatten)]
    pub coll: CollectionArg,
    /// Threads for index builds, 1 to 1024 (default: all cores; 1 builds
    /// deterministically).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub concurrency: Option<u32>,
}

/// Show the schema, index parameters, counts and size.
///
/// One row per field, then a footer with documents, segments and bytes on disk.
///
/// Example:
///   xvec describe words
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct DescribeArgs {
    #[command(flatten)]
    pub coll: CollectionArg,
}

/// Show segments, deletions, WAL size and the memory the engine holds.
///
/// One row per segment (and one for the unflushed rows), then the engine's memory
/// accounting by kind.
///
/// Example:
///   xvec stats words --mode line
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct StatsArgs {
    #[command(flatten)]
    pub coll: CollectionArg,
}

/// Print the schema as JSON, as `create --schema` and `repair --schema` read it.
///
/// Every field with its type and nullability, every vector field's dim, metric and full
/// index parameters (defaults spelled out), whether the collection was made from a schema
/// file or from --field/--vector flags. `describe` is the human summary of the same.
///
/// Example:
///   xvec schema words > schema.json
///   xvec create copy --schema schema.json
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct SchemaArgs {
    #[command(flatten)]
    pub coll: CollectionArg,
}

/// Show the terms a full-text field's analyzer makes of a text.
///
/// What the field's index stores for such a text, and what a --text query or a MATCH
/// filter looks up: each term with its position (words a stop-word filter drops still
/// count) and the byte range of the text it came from.
///
/// Example:
///   xvec analyze words gloss 'The quick-brown foxes, running'
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct AnalyzeArgs {
    #[command(flatten)]
    pub coll: CollectionArg,
    /// A string field with a full-text (fts) index.
    #[arg(value_name = "FIELD")]
    pub field: String,
    /// The text to analyze.
    #[arg(value_name = "TEXT")]
    pub text: String,
}

/// Write the BM25 vocabulary of a string field's documents to a file.
///
/// The file (a JSON header with the document count, total length, analyzer and BM25
/// parameters, then one TERM<TAB>DOCUMENT-FREQUENCY line per term, sorted) is what
/// `import --sparse-bm25` turns texts into BM25-weight sparse vectors with, and what
/// `query --sparse-text` turns a query into term dimensions with. Commit it beside the
/// data: the weights of later imports then stay comparable with the earlier ones.
/// Terms are made by the field's full-text analyzer, or --index, or the default one.
///
/// Example:
///   xvec vocabulary words gloss -o commands/data/wordnet-vocab.tsv
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct VocabularyArgs {
    #[command(flatten)]
    pub coll: CollectionArg,
    /// A string field.
    #[arg(value_name = "FIELD")]
    pub field: String,
    /// Analyzer and BM25 parameters, as a full-text index takes them, e.g.
    /// '{"type": "fts", "filters": ["lowercase", "stem_en"], "k1": 1.2}' (default: the
    /// field's full-text index, else the default analyzer).
    #[arg(long, value_name = "JSON")]
    pub index: Option<String>,
    /// Output file (default: standard output).
    #[arg(short, long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub output: Option<PathBuf>,
}

/// Output formats of `export`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// One JSON object per line, vectors inline.
    Jsonl,
    /// A header row of field names; vectors as JSON arrays in their cells.
    Csv,
    /// One vector field as a 2-d float32 NumPy array, keys in FILE.ids.
    Npy,
    /// One vector field as TEXMEX .fvecs, keys in FILE.ids.
    Fvecs,
    /// Apache Parquet: an `id` column, one list<float> column per vector field, one
    /// column per scalar field (the layout of Milvus bulk_import and VectorDBBench), a
    /// sparse field as a group of `indices` (list<uint32>) and `values` (list<float>).
    Parquet,
}

/// Write documents as JSON Lines, CSV, Parquet, or vectors as .npy/.fvecs.
///
/// Reads one snapshot in chunks, so memory stays bounded however large the collection.
/// `import` reads every format back. jsonl and csv name the key column --key-field (`id`);
/// csv cells hold vectors as JSON arrays; an empty cell is null, or the empty string in a
/// string field that is not nullable (in a nullable one the two read back as null). npy
/// and fvecs hold the vectors of one field (--field when there are several) as float32 and need -o FILE: the
/// keys go to FILE.ids, one per line (what `import --ids` reads); scalar fields are not
/// written. parquet writes the key as an int64 `id` column when every key is a decimal
/// integer, else as a string column, then one list<float> column per vector field and one
/// typed column per scalar field, null where a nullable field is unset. -o FILE is
/// written as .FILE.tmp beside it and renamed once whole; Ctrl-C or an error removes it.
///
/// Example:
///   xvec export words -o words.jsonl
///   xvec export words --filter "pos = 'v'" --fields lemma,gloss | head
///   xvec export words --format csv --fields lemma,pos -o words.csv
///   xvec export words --format npy -o emb.npy      # and emb.npy.ids
///   xvec export words --format parquet -o train.parquet
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct ExportArgs {
    #[command(flatten)]
    pub coll: CollectionArg,
    /// Output format.
    #[arg(long, value_enum, value_name = "FORMAT", default_value = "jsonl")]
    pub format: ExportFormat,
    /// Output file (default, or `-`: standard output; npy, fvecs and parquet need a file).
    #[arg(short, long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub output: Option<PathBuf>,
    /// Only documents matching this filter.
    #[arg(long, value_name = "EXPR")]
    pub filter: Option<String>,
    /// Fields to write, comma-separated (default: all).
    #[arg(long, value_name = "FIELDS", value_delimiter = ',')]
    pub fields: Option<Vec<String>>,
    /// Vector field of npy and fvecs (default: the only one).
    #[arg(long, value_name = "FIELD")]
    pub field: Option<String>,
    /// Name of the key column (member in jsonl).
    #[arg(long, value_name = "NAME", default_value = "id")]
    pub key_field: String,
    /// Read an older version (a number from `xvec versions`, or a tag) instead of the
    /// live one: time travel.
    #[arg(long, value_name = "VERSION|TAG")]
    pub as_of: Option<String>,
    /// The global --mode, if given: export refuses it (its format is --format).
    #[arg(skip)]
    pub mode: Option<super::output::OutputMode>,
    #[command(flatten)]
    pub bind: BindArgs,
}

/// Print a script that recreates the collection, or write it to a directory.
///
/// The script runs `create --schema`, `import`, `flush` and, when the source has built
/// indexes, `optimize`. On standard output (the default) it is self-contained: the schema
/// (from `xvec schema`) and every live document (from `export`) follow their statements
/// as data lines ended by a line `\.`, as in psql's COPY FROM STDIN, so piping it into a
/// writable shell copies the collection. With -o OUTDIR it goes to OUTDIR/dump.xvec beside
/// schema.json and data.jsonl, which it names relative to its own directory.
///
/// Example:
///   xvec dump words > words.xvec
///   xvec dump words | xvec shell words-copy --write
///   xvec dump words -o words.dump
///   xvec shell words-copy --write -f words.dump/dump.xvec
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct DumpArgs {
    #[command(flatten)]
    pub coll: CollectionArg,
    /// Write the script and its files to this directory instead (created if missing;
    /// it must not hold a dump yet).
    #[arg(short, long, value_name = "OUTDIR", value_hint = ValueHint::DirPath)]
    pub output: Option<PathBuf>,
}

/// Interactive shell over a collection, or run a script.
///
/// The shell takes every command of `xvec` without the DIR argument (a leading `.` is
/// allowed), plus meta commands such as .mode, .timer and .read: type .help. Statements end
/// at `;` or at the end of a line whose quotes and brackets are closed; a trailing `\`
/// continues a line. `.param set NAME VALUE` binds $NAME: inside a filter as a typed value,
/// and an unquoted `$NAME` word is replaced by VALUE's text; `#` starts a comment line,
/// `--` a comment to the end of the line (outside quotes). psql's \q \x \d \dt \di
/// \timing \i \o \e \? run the meta command they stand for.
/// `import -` and `create --schema -` read the lines after the statement up to a line
/// `\.` (psql's COPY FROM STDIN; with -c, standard input), as `xvec dump` writes them.
/// Relative paths in a script file (-f, .read) resolve against its directory.
/// Read-only unless --write. With --write the shell takes the writer lock when a
/// writing statement starts and releases it after the statement (.lock holds it until
/// .unlock), so another process can write while the shell waits at its prompt.
/// At the prompt, a statement that goes on shows the continuation prompt `...>` and is one
/// history entry; pasted or typed-ahead lines run in order. Ctrl-C drops the statement
/// being typed; Ctrl-D on an empty line leaves with status 0, or, inside an unfinished
/// statement, reports it (it does not run) and exits with status 2. On a terminal, results
/// longer than the screen go through $PAGER (else `less -FRX`) and tables wider than it
/// print as `column = value` lines (.pager, .expanded); .edit runs the last statement
/// after $VISUAL or $EDITOR (else vi) changed it.
/// With -f, -c or input that is not a terminal the shell runs in batch mode: no prompt,
/// and the first failing statement stops it with `FILE:LINE: error: ...` and its exit
/// status (1 failed, 2 did not parse, 4 locked); --keep-going runs the rest and exits with
/// the status of the first statement that failed.
/// Before the first prompt or script the shell runs its startup file,
/// $XDG_CONFIG_HOME/xvec/xvecrc (else ~/.config/xvec/xvecrc), if there is one: --init FILE
/// names another, -n skips it. Its errors are reported as FILE:LINE and do not stop the
/// shell.
/// Collection files are mapped: a read error in a mapped page, or a file cut short (say,
/// by another program) while the shell has it mapped, ends the shell with SIGBUS;
/// --no-mmap reads them with read(2), so such a file is an error naming it instead.
///
/// Example:
///   xvec shell words
///   xvec shell words --write -f commands/quickstart.xvec
///   xvec shell words -c "count --filter \"pos = 'v'\"" -c "describe"
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct ShellArgs {
    /// Collection directory (may not exist yet: `create` makes it).
    // Its own id, not the collection argument's: statements in the shell do not take one.
    #[arg(id = "start_dir", value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub dir: Option<PathBuf>,
    /// Allow writing statements (each takes the writer lock while it runs).
    #[arg(long)]
    pub write: bool,
    /// Run the statements of this script (repeatable, runs in argv order with -c).
    #[arg(short = 'f', long = "file", value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub files: Vec<PathBuf>,
    /// Run this statement (repeatable, runs in argv order with -f).
    #[arg(short = 'c', long = "command", value_name = "STATEMENT")]
    pub commands: Vec<String>,
    /// In batch mode, run the remaining statements after one fails (the exit status is
    /// still that of the first failure).
    #[arg(long)]
    pub keep_going: bool,
    /// Run FILE before the first prompt or script instead of the default startup file.
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath, conflicts_with = "no_init")]
    pub init: Option<PathBuf>,
    /// Do not run a startup file.
    #[arg(short = 'n', long)]
    pub no_init: bool,
    #[command(flatten)]
    pub bind: BindArgs,
}

/// Print a completion script for a shell.
///
/// Example:
///   xvec completions bash > ~/.local/share/bash-completion/completions/xvec
///   xvec completions zsh > ~/.zfunc/_xvec
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct CompletionsArgs {
    /// Shell to generate for.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

/// Write the man pages, one per command, into a directory.
///
/// Example:
///   xvec man man/ && man man/xvec-query.1
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct ManArgs {
    /// Output directory (created if missing).
    #[arg(value_name = "OUTDIR", value_hint = ValueHint::DirPath)]
    pub out: PathBuf,
}

/// Build a sample collection from the bundled WordNet data and query it.
///
/// Example:
///   xvec quickstart /tmp/wordnet
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct QuickstartArgs {
    /// Where to build the sample collection (default: a fresh temporary directory).
    #[arg(value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub target: Option<PathBuf>,
    /// Directory with the sample data (default: the source tree's commands/data).
    #[arg(
        long,
        value_name = "DIR",
        value_hint = ValueHint::DirPath,
        default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/../../commands/data"),
        hide_default_value = true
    )]
    pub data: PathBuf,
}

/// A sparse vector's JSON, as a sparse field's value takes it.
fn parse_sparse(s: &str) -> Result<xvec::SparseVector, String> {
    let v: serde_json::Value = serde_json::from_str(s).map_err(|e| format!("sparse vector JSON: {e}"))?;
    xvec::SparseVector::from_json(&v)
}

/// `NAME` or `NAME^BOOST`, as Lucene's query syntax boosts a field.
#[cfg(test)]
mod tests {
    use super::parse_bytes;

    #[test]
    fn sizes_take_binary_units_and_refuse_the_rest_naming_the_input() {
        assert_eq!(parse_bytes("4096"), Ok(4096));
        assert_eq!(parse_bytes("512KiB"), Ok(512 << 10));
        assert_eq!(parse_bytes("64mb"), Ok(64 << 20));
        assert_eq!(parse_bytes("2 G"), Ok(2 << 30));
        assert!(parse_bytes("64XB").unwrap_err().contains("unknown unit \"xb\""));
        assert!(parse_bytes("MiB").unwrap_err().contains("expected a size"));
        assert!(parse_bytes("99999999999999G").unwrap_err().contains("too large"));
    }
}
