//! `xvec verify`, `xvec repair` and `xvec inspect`: the engine's `verify` module as
//! tables, summaries and exit statuses (3 when verify finds a problem, 4 when repair
//! finds another writer, 1 when repair had to give up data).

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::{Args, Subcommand, ValueHint};
use xvec::inspect;
use xvec::verify::{self, Report, Severity, VerifyOptions};
use xvec::verify::{LOST_FOUND, Loss, Plan, Repair, RepairOptions};
use xvec::{Error, Schema};

use super::context::{Collections, Io, confirm, print};
use super::error::Status;
use super::output::{Cell, OutputMode, Table};
use super::plural::count;
use super::{CliError, CollectionArg};

/// Check every file, checksum, graph and code of a collection.
///
/// Read-only and safe while a writer or readers have the collection open: checks CURRENT
/// and the manifest, every section checksum, header and layout of every segment, delete,
/// index and WAL file, graph topology (neighbour ids, self loops, duplicates, degree
/// bound, layer membership, nodes unreachable from the entry point), quantized codes
/// against re-encoded originals (a sample; all with --deep) and files no manifest names.
/// Prints a table of findings on standard output and a summary (graphs, codes, recall,
/// throughput) on standard error. Exit status 3 when anything is corrupt or orphaned;
/// warnings (a torn WAL tail, unreachable nodes, low recall) keep status 0.
/// Files are mapped: a read error in a mapped page, or a file cut short while it is
/// mapped, ends the process with SIGBUS; --no-mmap reads them with read(2) instead, so
/// such a file is reported with its offset rather than killing verify.
///
/// Example:
///   xvec verify words
///   xvec verify words --deep --json > report.json
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct VerifyArgs {
    #[command(flatten)]
    pub coll: CollectionArg,
    /// Re-encode every row's codes and measure index recall on sampled stored vectors.
    #[arg(long)]
    pub deep: bool,
    /// Print the whole report as one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Repair a damaged collection: plan, confirm, then rebuild and republish.
///
/// Takes the writer lock and prints the plan first: restore damaged manifests, delete
/// files and section tables exactly where the checksum allows, truncate a torn WAL tail,
/// rebuild damaged or missing index files and codes from the segment's vectors, reconnect
/// unreachable graph nodes, write the readable rows of a damaged segment into a new one,
/// and publish a new manifest. Nothing is deleted: replaced and unusable files move to
/// DIR/lost+found/. The plan runs with --yes, or after a confirmation on a terminal.
/// States what was lost (by key when the keys are readable); exit status 1 when data was
/// lost, 3 for --dry-run with a plan, 4 when another writer holds the collection.
/// --purge-lost-found only empties DIR/lost+found/ (after a confirmation, or with --yes).
///
/// Example:
///   xvec repair words --dry-run
///   xvec repair words --yes
///   xvec repair words --purge-lost-found
///   xvec repair words --yes --schema schema.json
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct RepairArgs {
    #[command(flatten)]
    pub coll: CollectionArg,
    /// Print the plan and change nothing.
    #[arg(long, conflicts_with = "yes")]
    pub dry_run: bool,
    /// Apply the plan without asking.
    #[arg(long)]
    pub yes: bool,
    /// JSON schema file, for when no manifest holds a readable schema.
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub schema: Option<PathBuf>,
    /// Only empty DIR/lost+found/ (what crash recovery and repair kept), nothing else.
    #[arg(long, conflicts_with_all = ["dry_run", "schema"])]
    pub purge_lost_found: bool,
}

/// Show segments, fields, graphs, memory, the WAL, or where a key lives.
///
/// Without a topic: an overview. Topics: segments (rows, deletions, bytes per file,
/// creation time), fields (type, dimension, metric, index, quantization, build state),
/// graph FIELD (per segment and level: nodes, edges, degree histogram, reachability,
/// entry point), lists FIELD (per segment: IVF lists, entries, SOAR duplicates, deleted
/// entries, smallest/median/largest list, imbalance), disk FIELD [--node N] (per segment:
/// a disk index's dimension, element type, degree, nodes, block size, nodes per block,
/// medoid and node cache; with --node, that node's block, offset, neighbours and vector
/// head), memory (the engine's accounting by kind beside the process RSS), wal
/// (files, records, bytes, torn tails, unsynced records) and doc KEY (the row holding the
/// live version, older versions, deleted rows and WAL records of that key).
///
/// Example:
///   xvec inspect words segments
///   xvec inspect words graph emb --mode json
///   xvec inspect words doc n.01317391
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct InspectArgs {
    #[command(flatten)]
    pub coll: CollectionArg,
    #[command(subcommand)]
    pub topic: Option<Topic>,
}

/// What `inspect` shows.
#[derive(Debug, Subcommand)]
pub enum Topic {
    /// Segments: rows, deletions, bytes per file, creation time.
    Segments,
    /// Fields: type, dimension, metric, index, quantization, build state.
    Fields,
    /// Graph topology of a vector field, one row per segment and level.
    Graph {
        /// Vector field.
        #[arg(value_name = "FIELD")]
        field: String,
    },
    /// IVF lists of a vector field, one row per segment: sizes, imbalance, SOAR duplicates.
    Lists {
        /// Vector field.
        #[arg(value_name = "FIELD")]
        field: String,
    },
    /// Node blocks of a disk index, per segment: layout, entry point, cache.
    Disk {
        /// Vector field.
        #[arg(value_name = "FIELD")]
        field: String,
        /// Show this node (a row of each segment) as its block holds it:
        /// neighbours, norm and the head of its vector.
        #[arg(long, value_name = "N")]
        node: Option<u32>,
    },
    /// The engine's memory by kind, beside the process RSS.
    Memory,
    /// WAL files: records, bytes, bad frames, torn tails, unsynced records.
    Wal,
    /// Where a key lives: live row, older versions, deleted rows, WAL records.
    Doc {
        /// Primary key.
        #[arg(value_name = "KEY")]
        key: String,
    },
}

fn storage(e: xvec::StorageError) -> CliError {
    Error::from(e).into()
}

/// A byte count for people: `1.5 MiB`.
/// `VmRSS` of this process in bytes, where `/proc` has it.
fn process_rss() -> Option<u64> {
    xvec_io::sys::rss().map(|r| (r.rss_mib * 1024.0 * 1024.0) as u64)
}

pub fn human(bytes: u64) -> String {
    let b = bytes as f64;
    match bytes {
        0..1024 => format!("{bytes} B"),
        1024..1_048_576 => format!("{:.1} KiB", b / 1024.0),
        1_048_576..1_073_741_824 => format!("{:.1} MiB", b / 1_048_576.0),
        _ => format!("{:.2} GiB", b / 1_073_741_824.0),
    }
}

pub fn run_verify(a: &VerifyArgs, mmap: bool, io: &mut Io) -> Result<(), CliError> {
    let opts = VerifyOptions::default().deep(a.deep).mmap(mmap);
    let r = verify::run(&a.coll.dir, &opts).map_err(storage)?;
    if a.json {
        let text = serde_json::to_string_pretty(&r).map_err(|e| CliError::failed(e.to_string()))?;
        writeln!(io.out, "{text}")?;
    } else {
        if !r.findings.is_empty() {
            print(io, &findings_table(&r))?;
        }
        summary(&r, io)?;
    }
    integrity(&r, &a.coll.dir)
}

/// Exit status 3 when the report has problems.
fn integrity(r: &Report, dir: &std::path::Path) -> Result<(), CliError> {
    if r.is_clean() {
        return Ok(());
    }
    Err(CliError {
        status: Status::Integrity,
        message: format!(
            "{}: {} ({} corrupt, {} orphaned)",
            dir.display(),
            count(r.problems() as u64, "problem"),
            r.count(Severity::Corrupt),
            r.count(Severity::Orphan)
        ),
        hint: Some(format!("`xvec repair {} --dry-run` shows what repair would do", dir.display())),
        broken_pipe: false,
    })
}

/// A degree histogram whole, as `degree:nodes` pairs for the degrees some node has, so no
/// output mode abbreviates it like a vector: `0:3 15:120 16:4000`.
fn degree_histogram(h: &[u64]) -> String {
    let pairs = h.iter().enumerate().filter(|(_, n)| **n > 0).map(|(d, n)| format!("{d}:{n}"));
    pairs.collect::<Vec<_>>().join(" ")
}

fn findings_table(r: &Report) -> Table {
    let mut t = Table::new(["severity", "file", "section", "offset", "what", "expected", "found"]);
    for f in &r.findings {
        t.push(vec![
            f.severity.name().into(),
            f.file.clone().into(),
            f.section.clone().into(),
            f.offset.map_or(serde_json::Value::Null, Into::into).into(),
            f.what.clone().into(),
            f.expected.clone().into(),
            f.found.clone().into(),
        ]);
    }
    t
}

fn summary(r: &Report, io: &mut Io) -> Result<(), CliError> {
    for g in &r.graphs {
        let levels = g.layers.len();
        writeln!(
            io.err,
            "graph {} ({} `{}`): {}, {}, {}, entry {}, {} unreachable",
            g.file,
            g.kind,
            g.field,
            count(g.nodes, "node"),
            count(g.edges, "edge"),
            count(levels as u64, "level"),
            g.entry,
            g.unreachable_live()
        )?;
    }
    for c in &r.codes {
        writeln!(
            io.err,
            "codes {} ({}{}): {} of {} re-encoded, {} differ",
            c.file,
            c.quantize,
            if c.rotated { "+rot" } else { "" },
            c.checked,
            count(c.rows, "row"),
            c.mismatched
        )?;
    }
    for x in &r.recall {
        let over = count(x.queries, "query");
        writeln!(io.err, "recall@{} {} ({}): {:.3} over {over}", x.k, x.file, x.index, x.recall)?;
    }
    if let Some(w) = &r.wal {
        let torn = w.torn.map_or(String::new(), |(at, len)| format!(", torn tail of {} at {at}", count(len, "byte")));
        let (records, bad) = (count(w.records, "record"), count(w.bad_frames, "bad frame"));
        writeln!(io.err, "wal {}: {records}, {bad}{torn}", w.file)?;
    }
    let s = &r.stats;
    writeln!(
        io.err,
        "verify: {}, generation {}: {} corrupt, {} orphaned, {}; {} checksummed in {:.3} s ({:.0} MB/s){}",
        count(s.files, "file"),
        r.generation.map_or("?".into(), |g| g.to_string()),
        r.count(Severity::Corrupt),
        r.count(Severity::Orphan),
        count(r.count(Severity::Warning) as u64, "warning"),
        human(s.bytes_checksummed),
        s.seconds,
        s.mb_per_s,
        if s.attempts > 1 { format!(", {} passes (a writer published meanwhile)", s.attempts) } else { String::new() }
    )?;
    Ok(())
}

/// Keys shown per loss in table modes; json lists them all.
const KEYS_SHOWN: usize = 20;

fn losses_table(losses: &[Loss], mode: OutputMode) -> Table {
    let mut t = Table::new(["file", "lost", "rows", "keys"]);
    let mut hidden = 0;
    for l in losses {
        let keys: Cell = if matches!(mode, OutputMode::Json | OutputMode::Jsonl) {
            serde_json::Value::from(l.keys.clone()).into()
        } else {
            let more = l.keys.len().saturating_sub(KEYS_SHOWN);
            hidden += more;
            let mut shown: Vec<String> = l.keys.iter().take(KEYS_SHOWN).cloned().collect();
            if more > 0 {
                shown.push(format!("… and {more} more"));
            }
            shown.join(" ").into()
        };
        t.push(vec![l.file.clone().into(), l.what.clone().into(), l.rows.into(), keys]);
    }
    if hidden > 0 {
        t.footer = Some(format!("{hidden} more keys not shown; --mode json lists every key"));
    }
    t
}

/// The plan and what it gives up: two tables, or one JSON document (`plan`, `losses`)
/// in the json modes, so a program reads the output whole.
fn print_plan(plan: &Plan, io: &mut Io) -> Result<(), CliError> {
    let mode = io.printer.mode;
    let losses = losses_table(&plan.losses, mode);
    if matches!(mode, OutputMode::Json | OutputMode::Jsonl) {
        let doc = serde_json::json!({"plan": plan_table(plan).json_rows(), "losses": losses.json_rows()});
        let text =
            if mode == OutputMode::Json { serde_json::to_string_pretty(&doc) } else { serde_json::to_string(&doc) };
        writeln!(io.out, "{}", text.expect("json"))?;
        return Ok(());
    }
    print(io, &plan_table(plan))?;
    if !plan.losses.is_empty() {
        print(io, &losses)?;
    }
    Ok(())
}

fn plan_table(plan: &Plan) -> Table {
    let mut t = Table::new(["file", "action"]);
    for a in &plan.actions {
        t.push(vec![a.file.clone().into(), a.what.clone().into()]);
    }
    t
}

fn purge(a: &RepairArgs, lock_timeout: std::time::Duration, io: &mut Io) -> Result<(), CliError> {
    let dir = &a.coll.dir;
    let (files, bytes) = xvec::verify::lost_found_size(dir);
    if files == 0 {
        writeln!(io.err, "nothing to purge: {}/{LOST_FOUND}/ is empty or absent", dir.display())?;
        return Ok(());
    }
    if !a.yes {
        if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
            return Err(CliError::usage("lost+found was not purged: pass --yes to purge it"));
        }
        let q =
            format!("remove {}, {}, from {}/{LOST_FOUND}/?", count(files, "file"), count(bytes, "byte"), dir.display());
        if !confirm(io, &q)? {
            return Err(CliError::failed("not purged; the collection is unchanged"));
        }
    }
    let (files, bytes) = xvec::verify::purge_lost_found(dir, lock_timeout).map_err(storage)?;
    writeln!(io.err, "purged {}, {} from {}/{LOST_FOUND}/", count(files, "file"), count(bytes, "byte"), dir.display())?;
    Ok(())
}

pub fn run_repair(a: &RepairArgs, mmap: bool, lock_timeout: std::time::Duration, io: &mut Io) -> Result<(), CliError> {
    if a.purge_lost_found {
        return purge(a, lock_timeout, io);
    }
    let schema = match &a.schema {
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| CliError::file(p, &e))?;
            Some(Schema::from_json(&text).map_err(|e| CliError::failed(format!("{}: {e}", p.display())))?)
        }
        None => None,
    };
    let opts = RepairOptions::default().schema(schema).mmap(mmap).lock_timeout(lock_timeout);
    let repair = Repair::begin(&a.coll.dir, opts).map_err(storage)?;
    let plan = repair.plan().clone();
    if let Some(why) = &plan.blocked {
        return Err(CliError::failed(format!("{}: {why}", a.coll.dir.display()))
            .hint("pass --schema FILE with the collection's schema"));
    }
    if plan.is_empty() {
        writeln!(io.err, "nothing to repair: {} verifies clean", a.coll.dir.display())?;
        return Ok(());
    }
    print_plan(&plan, io)?;
    io.out.flush()?;
    if a.dry_run {
        return Err(CliError {
            status: Status::Integrity,
            message: format!("dry run: {} repair steps planned, nothing changed", plan.actions.len()),
            hint: Some(format!("`xvec repair {} --yes` applies the plan", a.coll.dir.display())),
            broken_pipe: false,
        });
    }
    if !a.yes {
        if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
            return Err(CliError::usage("the plan was not applied: pass --yes to apply it, or --dry-run"));
        }
        if !confirm(io, "apply this plan?")? {
            return Err(CliError::failed("not applied; the collection is unchanged"));
        }
    }
    let out = repair.apply().map_err(storage)?;
    if let Some(g) = out.generation {
        writeln!(io.err, "repaired: published generation {g}")?;
    }
    if !out.moved.is_empty() {
        let moved = count(out.moved.len() as u64, "file");
        writeln!(io.err, "moved {moved} into {}/{LOST_FOUND}/", a.coll.dir.display())?;
    }
    if !out.after.is_clean() {
        if !out.after.findings.is_empty() {
            print(io, &findings_table(&out.after))?;
        }
        return integrity(&out.after, &a.coll.dir);
    }
    if !out.losses.is_empty() {
        let rows: u64 = out.losses.iter().map(|l| l.rows).sum();
        return Err(CliError::failed(format!(
            "repaired, but data was lost: {} in {} (listed above)",
            count(rows, "row"),
            count(out.losses.len() as u64, "place")
        )));
    }
    if !out.unproven.is_empty() {
        for d in &out.unproven {
            writeln!(io.err, "note: {}: {}", d.file, d.what)?;
        }
        let dir = a.coll.dir.display();
        writeln!(
            io.err,
            "repaired: {dir} verifies clean; every record it could read is kept, but see the notes above"
        )?;
        return Ok(());
    }
    writeln!(io.err, "repaired: nothing was lost; {} verifies clean", a.coll.dir.display())?;
    Ok(())
}

pub fn run_inspect(a: &InspectArgs, colls: &mut dyn Collections, io: &mut Io) -> Result<(), CliError> {
    let coll = colls.open(&a.coll.dir, false)?;
    let json = |v: serde_json::Value| Cell::from(v);
    let t = match &a.topic {
        None => {
            let s = coll.stats();
            let m = inspect::memory(coll);
            let mut t = Table::new(["name", "value"]);
            let mut row = |k: &str, v: serde_json::Value| t.push(vec![k.into(), json(v)]);
            row("generation", s.generation.into());
            row("documents", s.live_docs.into());
            row("deleted", s.deleted_docs.into());
            row("segments", (s.segments.len() as u64).into());
            row("fields", (coll.schema().fields().len() as u64).into());
            row("unflushed rows", s.mem_rows.into());
            row("wal bytes", s.wal_bytes.into());
            row("disk bytes", s.disk_bytes.into());
            row("engine memory", m.total.into());
            row("process rss", process_rss().map_or(serde_json::Value::Null, Into::into));
            t
        }
        Some(Topic::Segments) => {
            let mut t = Table::new([
                "id",
                "file",
                "rows",
                "deleted",
                "live",
                "bytes",
                "deletes bytes",
                "index bytes",
                "created",
            ]);
            for s in inspect::segments(coll) {
                t.push(vec![
                    s.id.into(),
                    s.file.into(),
                    s.rows.into(),
                    s.deleted.into(),
                    (s.rows - s.deleted).into(),
                    s.bytes.into(),
                    s.deletes_bytes.into(),
                    s.indexes.iter().map(|(_, b)| b).sum::<u64>().into(),
                    s.created.map(xvec_io::sys::utc_timestamp).map_or(serde_json::Value::Null, Into::into).into(),
                ]);
            }
            t
        }
        Some(Topic::Fields) => {
            let mut t = Table::new(["field", "type", "nullable", "dim", "metric", "index", "quantize", "built"]);
            for f in inspect::fields(coll) {
                let built = f.completeness.map_or(serde_json::Value::Null, |c| {
                    format!("{:.1}% ({}/{} segments)", c * 100.0, f.indexed_segments, f.segments).into()
                });
                t.push(vec![
                    f.name.into(),
                    f.ty.into(),
                    (if f.nullable { "yes" } else { "no" }).into(),
                    json(f.dim.map_or(serde_json::Value::Null, Into::into)),
                    json(f.metric.map_or(serde_json::Value::Null, Into::into)),
                    json(f.index.map_or(serde_json::Value::Null, Into::into)),
                    json(f.quantize.map_or(serde_json::Value::Null, Into::into)),
                    json(built),
                ]);
            }
            t
        }
        Some(Topic::Graph { field }) => {
            let mut t = Table::new([
                "file",
                "kind",
                "level",
                "nodes",
                "edges",
                "degree bound",
                "degree histogram (degree:nodes)",
                "unreachable",
                "entry",
                "defects",
            ]);
            for g in inspect::graphs(coll, field)? {
                for l in &g.layers {
                    t.push(vec![
                        g.file.clone().into(),
                        g.kind.clone().into(),
                        u64::from(l.level).into(),
                        l.nodes.into(),
                        l.edges.into(),
                        l.degree_bound.into(),
                        degree_histogram(&l.degree_histogram).into(),
                        l.unreachable_live.into(),
                        u64::from(g.entry).into(),
                        l.defects().into(),
                    ]);
                }
            }
            if t.rows.is_empty() {
                t.footer = Some(format!("no segment has a graph index of `{field}` yet (optimize builds them)"));
            }
            t
        }
        Some(Topic::Lists { field }) => {
            let mut t = Table::new([
                "file",
                "lists",
                "entries",
                "soar duplicates",
                "deleted entries",
                "empty",
                "smallest",
                "median",
                "largest",
                "imbalance",
            ]);
            for l in inspect::lists(coll, field)? {
                t.push(vec![
                    l.file.into(),
                    l.lists.into(),
                    l.entries.into(),
                    l.duplicates.into(),
                    l.deleted_entries.into(),
                    l.empty.into(),
                    l.smallest.into(),
                    l.median.into(),
                    l.largest.into(),
                    json(((l.imbalance * 1000.0).round() / 1000.0).into()),
                ]);
            }
            if t.rows.is_empty() {
                t.footer = Some(format!("no segment has an ivf index of `{field}` yet (optimize builds them)"));
            }
            t
        }
        Some(Topic::Disk { field, node: None }) => {
            let mut t = Table::new([
                "file",
                "dim",
                "elem",
                "degree",
                "nodes",
                "node bytes",
                "block bytes",
                "nodes per block",
                "blocks",
                "first block at",
                "medoid",
                "cached nodes",
                "cache bytes",
            ]);
            for d in inspect::disk(coll, field, None)? {
                t.push(vec![
                    d.file.into(),
                    d.dim.into(),
                    d.elem.into(),
                    d.degree.into(),
                    d.nodes.into(),
                    d.node_bytes.into(),
                    d.block_bytes.into(),
                    d.nodes_per_block.into(),
                    d.blocks.into(),
                    d.first_block_offset.into(),
                    d.medoid.into(),
                    d.cached_nodes.into(),
                    d.cache_bytes.into(),
                ]);
            }
            if t.rows.is_empty() {
                t.footer = Some(format!("no segment has a disk index of `{field}` yet (optimize builds them)"));
            }
            t
        }
        Some(Topic::Disk { field, node: Some(n) }) => {
            let mut t = Table::new(["file", "node", "block", "offset", "neighbours", "norm", "vector head"]);
            for d in inspect::disk(coll, field, Some(*n))? {
                let Some(x) = d.node else { continue };
                let ids: Vec<String> = x.neighbors.iter().map(u32::to_string).collect();
                let head: Vec<String> = x.vector_head.iter().map(|v| format!("{v}")).collect();
                t.push(vec![
                    d.file.into(),
                    x.id.into(),
                    x.block.into(),
                    x.offset.into(),
                    ids.join(" ").into(),
                    json(f64::from(x.norm).into()),
                    head.join(" ").into(),
                ]);
            }
            if t.rows.is_empty() {
                return Err(CliError::failed(format!("no segment's disk index of `{field}` has node {n}")));
            }
            t
        }
        Some(Topic::Memory) => {
            let m = inspect::memory(coll);
            let mut t = Table::new(["kind", "bytes", "human"]);
            for (k, v) in &m.by_kind {
                t.push(vec![k.clone().into(), (*v).into(), human(*v).into()]);
            }
            t.push(vec!["engine total".into(), m.total.into(), human(m.total).into()]);
            match process_rss() {
                Some(rss) => t.push(vec!["process rss".into(), rss.into(), human(rss).into()]),
                None => t.footer = Some("process RSS unavailable (no /proc/self/status)".into()),
            }
            t
        }
        Some(Topic::Wal) => {
            let w = inspect::wal(coll).map_err(storage)?;
            let mut t = Table::new(["file", "live", "bytes", "records", "puts", "deletes", "bad frames", "torn bytes"]);
            for f in &w.files {
                t.push(vec![
                    f.file.clone().into(),
                    (if f.live { "yes" } else { "no" }).into(),
                    f.bytes.into(),
                    f.records.into(),
                    f.puts.into(),
                    f.deletes.into(),
                    f.bad_frames.into(),
                    f.torn_bytes.into(),
                ]);
            }
            t.footer = Some(match (w.unsynced, w.writer_active) {
                (Some(n), _) => format!("{} appended by this handle and not yet fsynced", count(n, "record")),
                (None, true) => {
                    "a writer in another process holds the collection; its unsynced count is its own".into()
                }
                (None, false) => "no writer: every record is synced".into(),
            });
            t
        }
        Some(Topic::Doc { key }) => {
            let d = inspect::doc(coll, key).map_err(storage)?;
            let mut t = Table::new(["where", "row", "state"]);
            for p in &d.places {
                let state = if p.live {
                    "live"
                } else if p.deleted {
                    "deleted (older version or tombstone)"
                } else {
                    ""
                };
                t.push(vec![p.file.clone().into(), u64::from(p.row).into(), state.into()]);
            }
            for w in &d.wal {
                t.push(vec![
                    w.file.clone().into(),
                    json(serde_json::Value::Null),
                    format!("WAL {} at offset {}", w.op, w.offset).into(),
                ]);
            }
            if d.places.is_empty() && d.wal.is_empty() {
                return Err(CliError::failed(format!("key {key:?} is in no segment and no WAL record")));
            }
            if d.live().is_none() {
                t.footer = Some(format!("key {key:?} has no live version"));
            }
            t
        }
    };
    print(io, &t)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A list of lost keys cut short in the text modes says how many more there are.
    #[test]
    fn lost_keys_cut_short_say_how_many_more() {
        let keys: Vec<String> = (0..44).map(|i| format!("k{i}")).collect();
        let loss = Loss { file: "SEG-000002.xseg".into(), what: "rows lost".into(), rows: 44, keys };
        let t = losses_table(&[loss], OutputMode::Tsv);
        let cell = t.rows[0][3].text(super::super::output::Shown::Whole);
        assert!(cell.starts_with("k0 k1 ") && cell.ends_with(" k19 … and 24 more"), "{cell}");
        let t = losses_table(&[t_loss()], OutputMode::Json);
        assert_eq!(t.json_rows()[0]["keys"].as_array().map(Vec::len), Some(3));
    }

    fn t_loss() -> Loss {
        Loss { file: "f".into(), what: "w".into(), rows: 3, keys: vec!["a".into(), "b".into(), "c".into()] }
    }
}
