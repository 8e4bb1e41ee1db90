//! What each command does: get the collection the way it needs, call the engine, and
//! turn the answer into a [`Table`]. Writing commands live in `write`, `import`, `create`
//! and `export`; this file dispatches and holds the reading ones.

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::time::Duration;

use xvec::{Collection, Error, FilterErrorKind, Group, GroupBy, Hit, OpenOptions, Params, Query, Schema, Value};
use xvec_bench::dataset::VectorFile;

use super::output::{Cell, OutputMode, Printer, Table};
use super::plural::count;
use super::{CliError, Command, FetchArgs, QueryArgs, StatsArgs};

/// Where a command writes (results to `out`, diagnostics to `err`), and the values its
/// filter's `$name` placeholders bind to (`--param`, and the shell's `.param set`).
pub struct Io<'a> {
    pub out: &'a mut dyn Write,
    pub err: &'a mut dyn Write,
    pub printer: Printer,
    pub params: Params,
}

/// Whether colour is wanted on a terminal: not when `NO_COLOR` is set to anything.
pub fn color_allowed() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Printer settings for argv use.
pub fn printer_for(args: &super::OutputArgs) -> Printer {
    let tty = std::io::stdout().is_terminal();
    Printer {
        mode: args.mode.unwrap_or(OutputMode::default_for(tty)),
        headers: !args.no_headers,
        color: tty && color_allowed(),
        expand_wider_than: None,
        null: super::output::NullText::default(),
    }
}

/// How commands reach their collection: argv opens one per command ([`OneShot`]); the
/// shell keeps one open across statements.
pub trait Collections {
    /// The collection in `dir`, open for writing when `write`.
    fn open(&mut self, dir: &Path, write: bool) -> Result<&Collection, CliError>;
    /// Creates a collection in `dir` and keeps it open for writing.
    fn create(&mut self, dir: &Path, schema: Schema) -> Result<&Collection, CliError>;
    /// Whether collection files are mapped (`--no-mmap` turns it off).
    fn mmap(&self) -> bool {
        true
    }
    /// How long taking the writer lock waits for another writer (`--wait`, `.timeout`).
    fn lock_timeout(&self) -> Duration {
        Duration::ZERO
    }
}

/// argv use: the command's collection, opened on first use and closed by [`OneShot::close`].
pub struct OneShot {
    coll: Option<Collection>,
    mmap: bool,
    lock_timeout: Duration,
}

impl OneShot {
    /// Opens collections mapped, or read when `mmap` is false; a writer waits up to
    /// `lock_timeout` for the lock.
    pub fn new(mmap: bool, lock_timeout: Duration) -> OneShot {
        OneShot { coll: None, mmap, lock_timeout }
    }

    /// Syncs and releases the collection, reporting what `Drop` would swallow.
    pub fn close(self) -> Result<(), CliError> {
        match self.coll {
            Some(c) => Ok(c.close()?),
            None => Ok(()),
        }
    }
}

/// Opens a collection for a command or the shell. A writable open may first recover from a
/// crash (roll back an interrupted publish, cut a torn WAL tail); each thing it did is one
/// `note:` line on stderr, as the engine also logs it in `lost+found/log`.
pub fn open_collection(dir: &Path, write: bool, mmap: bool, lock_timeout: Duration) -> Result<Collection, CliError> {
    let options = if write { OpenOptions::writable() } else { OpenOptions::read_only() };
    let coll = Collection::open(dir, &options.mmap(mmap).lock_timeout(lock_timeout))?;
    for r in coll.recovered() {
        eprintln!("note: recovered from a crash: {r}");
    }
    Ok(coll)
}

impl Collections for OneShot {
    fn open(&mut self, dir: &Path, write: bool) -> Result<&Collection, CliError> {
        Ok(self.coll.insert(open_collection(dir, write, self.mmap, self.lock_timeout)?))
    }

    fn create(&mut self, dir: &Path, schema: Schema) -> Result<&Collection, CliError> {
        Ok(self.coll.insert(create_collection(dir, schema, self.mmap, self.lock_timeout)?))
    }

    fn mmap(&self) -> bool {
        self.mmap
    }

    fn lock_timeout(&self) -> Duration {
        self.lock_timeout
    }
}

/// Creates a collection for `create` in argv or the shell.
pub fn create_collection(
    dir: &Path,
    schema: Schema,
    mmap: bool,
    lock_timeout: Duration,
) -> Result<Collection, CliError> {
    let open = OpenOptions::writable().mmap(mmap).lock_timeout(lock_timeout);
    Ok(Collection::create_with(dir, schema, Default::default(), &open)?)
}

/// Runs one command. `shell` is dispatched by `main`, which owns the terminal.
pub fn run(command: Command, colls: &mut dyn Collections, io: &mut Io) -> Result<(), CliError> {
    match command {
        Command::Create(a) => super::create::run(&a, colls, io),
        Command::Import(a) => super::import::run(&a, colls, io),
        Command::Insert(a) => super::write::write_docs(&a.docs, super::write::Mode::Insert, colls, io),
        Command::Upsert(a) => super::write::write_docs(&a.docs, super::write::Mode::Upsert, colls, io),
        Command::Update(a) => super::write::write_docs(&a.docs, super::write::Mode::Update, colls, io),
        Command::Delete(a) => super::write::delete(&a, colls, io),
        Command::Fetch(a) => fetch(&a, colls.open(&a.coll.dir, false)?, io),
        Command::Query(a) => {
            let coll = colls.open(&a.coll.dir, false)?;
            search_flags_apply(coll.schema(), &a)?;
            let q = build_query(&a, &io.params)?.params(io.params.clone());
            let caret = |e| with_filter_caret(e, a.filter.as_deref());
            match &a.group_by {
                None => print(io, &hits_table(coll.schema(), &coll.query(&q).map_err(caret)?, &q)),
                Some(field) => {
                    let by = GroupBy { field: field.clone(), groups: a.k, per_group: a.per_group };
                    print(io, &groups_table(coll.schema(), &coll.query_groups(&q, &by).map_err(caret)?, &q, field))
                }
            }
        }
        Command::Count(a) => {
            let coll = colls.open(&a.coll.dir, false)?;
            let n = match &a.filter {
                None => coll.count(),
                Some(f) => {
                    let keys = coll.snapshot().keys_where_with(Some(f), &io.params);
                    keys.map_err(|e| with_filter_caret(e, Some(f)))?.len() as u64
                }
            };
            let mut t = Table::new(["count"]);
            t.push(vec![n.into()]);
            print(io, &t)
        }
        Command::Flush(a) => {
            let coll = colls.open(&a.coll.dir, true)?;
            coll.flush()?;
            let s = coll.stats();
            writeln!(io.err, "flushed: generation {}, {}", s.generation, count(s.segments.len() as u64, "segment"))?;
            Ok(())
        }
        Command::Optimize(a) => super::optimize::run(&a, colls, io),
        Command::Describe(a) => print(io, &describe_table(colls.open(&a.coll.dir, false)?)),
        Command::Stats(a) => stats(&a, colls, io),
        Command::Export(a) => super::export::run(&a, colls.open(&a.coll.dir, false)?, io),
        Command::Schema(a) => Ok(writeln!(io.out, "{}", colls.open(&a.coll.dir, false)?.schema().to_json())?),
        Command::Dump(a) => super::dump::run(&a, colls.open(&a.coll.dir, false)?, io),
        Command::Shell(_) => Err(CliError::usage("the shell cannot start another shell")),
        Command::Completions(a) => super::docs::completions(a.shell, io.out),
        Command::Man(a) => super::docs::write_man_pages(&a.out, io),
        Command::Quickstart(a) => super::quickstart::run(&a, io),
        Command::Bench(a) => super::bench::run(*a, io),
        Command::Tui(a) => super::tui::run(&a, colls, io),
        Command::Verify(a) => super::verify::run_verify(&a, colls.mmap(), io),
        Command::Repair(a) => super::verify::run_repair(&a, colls.mmap(), colls.lock_timeout(), io),
        Command::Inspect(a) => super::verify::run_inspect(&a, colls, io),
    }
}

pub fn print(io: &mut Io, t: &Table) -> Result<(), CliError> {
    io.printer.print(t, io.out)?;
    Ok(())
}

/// A filter error, with the offending spot underlined. A filter that does not compile
/// (syntax, an unknown field, a literal of the wrong type, an unbound `$name`) is a usage
/// error, exit 2, like any other statement that does not parse; an unbound `$name` gets a
/// hint on how to bind it.
pub fn with_filter_caret(e: Error, text: Option<&str>) -> CliError {
    match (&e, text) {
        (Error::Filter(fe), Some(text)) => {
            let err = CliError::usage(format!("{fe}\n{}", fe.caret(text)));
            match &fe.kind {
                FilterErrorKind::UnboundParam(name) => {
                    err.hint(format!(".param set {name} VALUE in the shell, or --param {name}=VALUE"))
                }
                _ => err,
            }
        }
        _ => e.into(),
    }
}

/// Parses a vector literal: `[1, 2.5, -3]` or `1,2.5,-3`.
pub fn parse_vector(text: &str) -> Result<Vec<f32>, CliError> {
    let t = text.trim();
    let inner = t.strip_prefix('[').and_then(|s| s.strip_suffix(']')).unwrap_or(t);
    inner
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .enumerate()
        .map(|(i, s)| {
            s.parse::<f32>()
                .map_err(|_| CliError::usage(format!("vector literal: element {i} is {s:?}, expected a number")))
        })
        .collect()
}

/// The query vector `$name`: a `--param name=[...]` list of numbers.
fn vector_param(name: &str, params: &Params) -> Result<Vec<f32>, CliError> {
    let not_vector = |what: &str| {
        CliError::usage(format!("the query vector `${name}` is {what}; expected a list of numbers"))
            .hint(format!("--param {name}=[0.1, 0.2, ...]"))
    };
    match params.get(name) {
        None => Err(not_vector("not bound")),
        Some(xvec::Param::List(xs)) => xs
            .iter()
            .enumerate()
            .map(|(i, x)| match x {
                xvec::Param::Number(n) => {
                    n.parse::<f32>().map_err(|_| not_vector(&format!("{n} at element {}", i + 1)))
                }
                other => Err(not_vector(&format!("a list with {} at element {}", other.type_name(), i + 1))),
            })
            .collect(),
        Some(other) => Err(not_vector(&format!("a {}", other.type_name()))),
    }
}

/// Opens a vector file, with the error naming it.
pub fn open_vector_file(path: &Path) -> Result<VectorFile, CliError> {
    VectorFile::open(path).map_err(|e| CliError::failed(e.to_string()))
}

fn build_query(a: &QueryArgs, params: &Params) -> Result<Query, CliError> {
    let mut q = if let Some(key) = &a.pk {
        Query::key(key.clone())
    } else if let Some(file) = &a.vector_file {
        let vf = open_vector_file(file)?;
        if a.row >= vf.len() {
            return Err(CliError::failed(format!(
                "{}: row {} is out of range; the file has {}",
                file.display(),
                a.row,
                count(vf.len() as u64, "row")
            )));
        }
        let mut v = Vec::new();
        vf.read_row(a.row, &mut v);
        Query::vector(v)
    } else if let Some(name) = a.vector.as_deref().and_then(|v| v.strip_prefix('$')) {
        Query::vector(vector_param(name, params)?)
    } else if let Some(lit) = &a.vector {
        Query::vector(parse_vector(lit)?)
    } else {
        return Err(CliError::usage("query needs a VECTOR, --pk KEY or --vector-file FILE --row N"));
    };
    q = q.k(a.k).with_vectors(a.with_vectors);
    q.field = a.field.clone();
    q.filter = a.filter.clone();
    q.fields = a.fields.clone();
    q.ef = a.ef;
    q.refine = a.refine;
    if let Some(refine) = a.refine {
        at_most("--refine × -k", refine, a.k, xvec::MAX_REFINE_CANDIDATES)?;
    }
    if a.group_by.is_some() {
        at_most("-k × --per-group", a.k, a.per_group, xvec::MAX_GROUP_HITS)?;
    }
    Ok(q)
}

/// Refuses `--ef` and `--refine` where the field's index would ignore them: `--ef` sets
/// the search breadth of graph indexes (a flat index is searched exactly), `--refine`
/// re-ranks candidates scored on quantized codes. The field's index decides, not which
/// segments are indexed yet: rows not yet optimized are always searched exactly, and the
/// flags apply to the rest.
fn search_flags_apply(schema: &Schema, a: &QueryArgs) -> Result<(), CliError> {
    let mut vectors = schema.fields().iter().filter_map(|f| f.as_vector().map(|v| (f.name.as_str(), v)));
    let found = match &a.field {
        Some(name) => vectors.find(|(n, _)| n == name),
        None => vectors.next().filter(|_| vectors.next().is_none()),
    };
    // An unknown or ambiguous field is the engine's to report.
    let Some((name, spec)) = found else { return Ok(()) };
    let index = spec.index.name();
    let graph = !matches!(spec.index, xvec::IndexParams::Flat(_));
    let quantized = spec.index.quant().quantize != xvec::Quantize::None;
    let applies = match (graph, quantized) {
        (true, true) => "--ef and --refine apply",
        (true, false) => "--ef applies",
        (false, true) => "--refine applies",
        (false, false) => "neither --ef nor --refine applies",
    };
    let refuse = |flag: &str, why: &str| {
        let msg = format!("{flag} does not apply to field `{name}`: its index is {why}");
        Err(CliError::usage(msg).hint(format!("{applies} to this index (see `describe`)")))
    };
    if a.ef.is_some() && !graph {
        return refuse(
            "--ef",
            &format!("{index}, searched exactly; --ef sets the search breadth of hnsw and vamana indexes"),
        );
    }
    if a.refine.is_some() && !quantized {
        return refuse(
            "--refine",
            &format!(
                "{index} with no quantization, scoring the original vectors; \
                 --refine re-ranks candidates of a quantized index (\"quantize\": \"int8\", ...)"
            ),
        );
    }
    Ok(())
}

/// Refuses flags whose product is above `limit` (each flag alone was range-checked).
fn at_most(what: &str, a: usize, b: usize, limit: usize) -> Result<(), CliError> {
    match a.checked_mul(b) {
        Some(p) if p <= limit => Ok(()),
        _ => {
            Err(CliError::usage(format!("{what} is {a} × {b} = {}, above the limit of {limit}", a as u128 * b as u128)))
        }
    }
}

/// The fields a query prints: `--fields`, else the scalar fields (and vectors if asked).
fn shown_fields(schema: &Schema, q: &Query) -> Vec<String> {
    match &q.fields {
        Some(f) => f.clone(),
        None => schema
            .fields()
            .iter()
            .filter(|f| q.include_vectors || f.as_vector().is_none())
            .map(|f| f.name.clone())
            .collect(),
    }
}

fn hit_row(h: &Hit, names: &[String]) -> Vec<Cell> {
    let mut row: Vec<Cell> = vec![h.key.clone().into(), Cell::measure(xvec::value::json_f32(h.score))];
    row.extend(names.iter().map(|n| h.fields.get(n).map_or(serde_json::Value::Null, Value::to_json).into()));
    row
}

/// Results as a table: key, score, then the projected fields in schema order.
pub fn hits_table(schema: &Schema, hits: &[Hit], q: &Query) -> Table {
    let names = shown_fields(schema, q);
    let mut t = Table::new(["_key".to_string(), "score".to_string()].into_iter().chain(names.iter().cloned()));
    for h in hits {
        t.push(hit_row(h, &names));
    }
    t
}

/// Grouped results: one row per hit, led by the group's value (column `group:FIELD`).
fn groups_table(schema: &Schema, groups: &[Group], q: &Query, field: &str) -> Table {
    let names = shown_fields(schema, q);
    let headers = [format!("group:{field}"), "_key".into(), "score".into()];
    let mut t = Table::new(headers.into_iter().chain(names.iter().cloned()));
    for g in groups {
        for h in &g.hits {
            t.push(std::iter::once(Cell::from(g.value.to_json())).chain(hit_row(h, &names)).collect());
        }
    }
    t
}

fn fetch(a: &FetchArgs, coll: &Collection, io: &mut Io) -> Result<(), CliError> {
    let keys: Vec<&str> = a.keys.iter().map(|k| k.as_str()).collect();
    let docs = coll.fetch(&keys, a.fields.as_deref())?;
    let names: Vec<String> = match &a.fields {
        Some(f) => f.clone(),
        None => coll.schema().fields().iter().map(|f| f.name.clone()).collect(),
    };
    let mut t = Table::new(std::iter::once("_key".to_string()).chain(names.iter().cloned()));
    let mut missing = Vec::new();
    for (key, doc) in a.keys.iter().zip(docs) {
        match doc {
            Some(d) => t.push(
                std::iter::once(Cell::from(d.key.clone()))
                    .chain(names.iter().map(|n| d.get(n).map_or(serde_json::Value::Null, Value::to_json).into()))
                    .collect(),
            ),
            None => missing.push(key.clone()),
        }
    }
    if !t.rows.is_empty() {
        print(io, &t)?;
    }
    if !missing.is_empty() {
        return Err(CliError::failed(format!("key not found: {}", missing.join(", "))));
    }
    Ok(())
}

/// The `describe` table: one row per field with its index parameters as JSON, then counts
/// in the footer.
pub fn describe_table(coll: &Collection) -> Table {
    let s = coll.schema();
    let stats = coll.stats();
    let mut t = Table::new(["field", "type", "nullable", "dim", "metric", "index"]);
    for f in s.fields() {
        let v = f.as_vector();
        t.push(vec![
            f.name.clone().into(),
            f.ty.name().into(),
            (if f.nullable { "yes" } else { "no" }).into(),
            v.map_or(serde_json::Value::Null, |v| v.dim.into()).into(),
            v.map_or(serde_json::Value::Null, |v| v.metric.name().into()).into(),
            v.map_or(serde_json::Value::Null, |v| serde_json::to_value(&v.index).unwrap_or_default()).into(),
        ]);
    }
    t.footer = Some(format!(
        "collection {}: {} ({} deleted), {}, {}, generation {}, {} on disk",
        s.name(),
        count(stats.live_docs, "document"),
        stats.deleted_docs,
        count(stats.segments.len() as u64, "segment"),
        count(stats.mem_rows, "unflushed row"),
        stats.generation,
        super::verify::human(stats.disk_bytes)
    ));
    t
}

/// The `stats` table: one `name`, `value` row per figure, so every mode prints it whole.
fn stats(a: &StatsArgs, colls: &mut dyn Collections, io: &mut Io) -> Result<(), CliError> {
    let coll = colls.open(&a.coll.dir, false)?;
    let s = coll.stats();
    let m = coll.memory();
    let mut t = Table::new(["name", "value"]);
    let mut row = |name: String, value: u64| t.push(vec![name.into(), value.into()]);
    row("generation".into(), s.generation);
    row("documents".into(), s.live_docs);
    row("deleted".into(), s.deleted_docs);
    for seg in &s.segments {
        row(format!("segment {} rows", seg.file), seg.rows);
        row(format!("segment {} deleted", seg.file), seg.deleted);
        row(format!("segment {} bytes", seg.file), seg.bytes);
    }
    row("unflushed rows".into(), s.mem_rows);
    row("unflushed live".into(), s.mem_live);
    row("wal bytes".into(), s.wal_bytes);
    row("disk bytes".into(), s.disk_bytes);
    row("memory mapped vectors".into(), m.mapped_vectors);
    row("memory mapped other".into(), m.mapped_other);
    row("memory owned segments".into(), m.owned_segments);
    row("memory unflushed vectors".into(), m.mem_vectors);
    row("memory unflushed other".into(), m.mem_other);
    row("memory delete bitmaps".into(), m.delete_bitmaps);
    row("memory wal buffer".into(), m.wal_buffer);
    row("memory total".into(), m.total());
    print(io, &t)
}
