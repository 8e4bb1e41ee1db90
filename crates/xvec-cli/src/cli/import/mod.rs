//! `xvec import`: JSON Lines, CSV, Parquet, or raw vectors (.fvecs/.npy) with keys. Vector fields
//! are inline or taken row by row from vector files (`--vectors FIELD=FILE`); sparse fields
//! can be filled with the BM25 weights of a text field (`--sparse-bm25`). Writes in
//! batches; bad rows are reported with file and line and skipped; Ctrl-C in the shell
//! stops between batches. `--atomic` stages every batch and publishes them as one version
//! at the end (`xvec::Stage`), or none of them.

mod bounded;
mod json;
#[cfg(feature = "parquet")]
mod parquet;
mod progress;

pub use json::json_object;

use std::io::{IsTerminal, Write};
use std::path::Path;

use xvec::sparse::Bm25Vocabulary;
use xvec::{Collection, Doc, DocError, FieldKind, FieldLookupError, FieldType, ScalarType, Stage, Value, VectorType};
use xvec_io::dataset::VectorFile;

use self::bounded::{LineBound, MAX_LINE_BYTES};
use super::context::{self, Collections, Io, Stdin};
use super::plural::count;
use super::query::open_vector_file;
use super::{CliError, ImportArgs, ImportFormat, interrupt};

/// The key member when --key-field is not given.
const DEFAULT_KEY_FIELD: &str = "id";

/// Row errors printed before the rest are only counted.
const MAX_REPORTED_ERRORS: u64 = 20;

/// Where a row is in the input: a line of text, or a row of a binary file (from 0).
#[derive(Clone, Copy, Debug)]
pub enum Place {
    Line(u64),
    Row(u64),
}

/// What an import did.
#[derive(Debug, Default)]
pub struct ImportReport {
    /// Documents read (blank lines are not documents).
    pub rows: u64,
    pub written: u64,
    pub failed: u64,
    /// Rows left out under --skip-existing because their key exists.
    pub skipped: u64,
}

pub fn run(a: &ImportArgs, colls: &mut dyn Collections, io: &mut Io) -> Result<(), CliError> {
    // Ctrl-C stops at the next batch boundary and says what is committed, in argv use too.
    interrupt::install()?;
    let coll = colls.open(&a.coll.dir, true)?;
    let report = match is_stdin(&a.file) {
        true => context::read_stdin(&mut io.stdin, |stdin| import(coll, a, Some(stdin), io.err))?,
        false => import(coll, a, None, io.err)?,
    };
    let flushed = flush_after(coll, a, report.written)?;
    let mut failed = if report.failed > 0 { format!(" ({} failed)", report.failed) } else { String::new() };
    if report.skipped > 0 {
        failed.push_str(&format!(" ({} skipped: the key exists)", report.skipped));
    }
    failed.push_str(&flushed);
    let of = count(report.rows, "document");
    writeln!(io.err, "imported {} of {of} from {}{failed}", report.written, a.file.display())?;
    if report.failed > 0 {
        let what = if report.failed == 1 { "was" } else { "were" };
        return Err(CliError::failed(format!("{} {what} not imported", count(report.failed, "document"))));
    }
    Ok(())
}

/// Rows above which an import flushes at its end when the collection has no
/// auto_flush_rows of its own.
const FLUSH_AFTER_ROWS: u64 = 10_000;

/// Flushes after the import when asked, or by default when it wrote more rows than the
/// collection's auto_flush_rows (else [`FLUSH_AFTER_ROWS`]): commands after a large import
/// would otherwise each replay it from the WAL. Returns what the summary line says of it.
fn flush_after(coll: &Collection, a: &ImportArgs, written: u64) -> Result<String, CliError> {
    let limit = match coll.options().auto_flush_rows {
        0 => FLUSH_AFTER_ROWS,
        n => n,
    };
    let large = written > limit;
    if a.flush || large && !a.no_flush {
        coll.flush()?;
    }
    Ok(match (a.flush, a.no_flush, large) {
        (true, _, _) => "; flushed".into(),
        (false, false, true) => {
            format!("; flushed (more than {}; --no-flush keeps them in the WAL)", count(limit, "row"))
        }
        (false, true, true) => "; kept in the WAL (--no-flush): each open replays them until a flush".into(),
        (false, _, false) => String::new(),
    })
}

fn format_of(path: &Path) -> Option<ImportFormat> {
    match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
        "jsonl" | "ndjson" | "json" => Some(ImportFormat::Jsonl),
        "csv" => Some(ImportFormat::Csv),
        "fvecs" | "bvecs" | "ivecs" => Some(ImportFormat::Fvecs),
        "npy" => Some(ImportFormat::Npy),
        "parquet" | "pq" => Some(ImportFormat::Parquet),
        _ => None,
    }
}

/// Imports `a.file` into `coll`, reporting bad rows on `errors`; a file `-` is read from
/// `stdin` (see [`context::read_stdin`]).
pub fn import(
    coll: &Collection,
    a: &ImportArgs,
    stdin: Option<Stdin<'_>>,
    errors: &mut dyn Write,
) -> Result<ImportReport, CliError> {
    let format = a.format.or_else(|| format_of(&a.file)).ok_or_else(|| {
        CliError::usage(format!("{}: cannot tell the format from the extension", a.file.display()))
            .hint("pass --format jsonl|csv|fvecs|npy|parquet")
    })?;
    if is_stdin(&a.file) && !matches!(format, ImportFormat::Jsonl | ImportFormat::Csv) {
        return Err(CliError::usage(format!(
            "{} input cannot be read from standard input (`-`)",
            format!("{format:?}").to_lowercase()
        ))
        .hint("it is read by seeking: save it to a file and import that"));
    }
    // An input that cannot be opened stops the import before it starts: no "import
    // stopped" report for it.
    if !is_stdin(&a.file) {
        open(&a.file)?;
    }
    let (name, first_line, given) = match stdin {
        Some(s) => (s.name.to_string(), s.first_line, Some(s.reader)),
        None => (a.file.display().to_string(), 1, None),
    };
    let mut sink = Sink::new(coll, a, name, &mut *errors)?;
    let read = match format {
        ImportFormat::Jsonl => input(&a.file, given).and_then(|r| jsonl(&mut sink, r, first_line)),
        ImportFormat::Csv => input(&a.file, given).and_then(|r| csv_rows(&mut sink, r, first_line)),
        ImportFormat::Fvecs | ImportFormat::Npy => raw_vectors(&mut sink, a),
        #[cfg(feature = "parquet")]
        ImportFormat::Parquet => parquet::rows(&mut sink, &a.file),
        #[cfg(not(feature = "parquet"))]
        ImportFormat::Parquet => return Err(CliError::usage("this xvec was built without the `parquet` feature")),
    };
    // An error that stops the import comes after the rows before it: those are written
    // and their errors reported first, as earlier batches were.
    let read = read.and_then(|()| sink.check_vectors_used()).and_then(|()| sink.write_batch());
    if let Err(e) = read {
        let e = sink.write_batch().err().unwrap_or(e);
        let stopped = sink.stopped();
        // --atomic: what was staged is not published.
        sink.stage = None;
        sink.finish()?;
        writeln!(errors, "{stopped}")?;
        return Err(e);
    }
    sink.finish()
}

/// Vector fields filled from a vector file: (field name, element type, file).
struct VectorSource {
    field: String,
    elem: VectorType,
    file: VectorFile,
}

/// Collects documents into batches, attaches `--vectors` rows, writes, counts, reports.
struct Sink<'a> {
    coll: &'a Collection,
    name: String,
    key_field: &'a str,
    /// Whether the first document (a CSV's header) has decided the key member yet.
    key_decided: bool,
    sources: Vec<VectorSource>,
    weights: Vec<Bm25Source>,
    /// Rows in input order with where they came from: a document to write, or why the row
    /// could not be read (reported in its place once the batch is written, so every error
    /// comes out in line order).
    batch: Vec<(Place, Result<Doc, String>)>,
    /// The first and last input rows of the batches written so far.
    committed: Option<(Place, Place)>,
    batch_size: usize,
    upsert: bool,
    skip_existing: bool,
    max_errors: Option<u64>,
    /// `--atomic`: the staged rows, published by `finish` (dropped, they are not).
    stage: Option<Stage<'a>>,
    report: ImportReport,
    errors: &'a mut dyn Write,
    progress: indicatif::ProgressBar,
    row_buf: Vec<f32>,
}

impl<'a> Sink<'a> {
    fn new(
        coll: &'a Collection,
        a: &'a ImportArgs,
        name: String,
        errors: &'a mut dyn Write,
    ) -> Result<Sink<'a>, CliError> {
        let sources = a.vectors.iter().map(|spec| vector_source(coll, spec)).collect::<Result<Vec<_>, _>>()?;
        let weights = a.sparse_bm25.iter().map(|spec| bm25_source(coll, spec)).collect::<Result<Vec<_>, _>>()?;
        let progress = if std::io::stderr().is_terminal() {
            progress::bar(std::fs::metadata(&a.file).map(|m| m.len()).unwrap_or(0))
        } else {
            indicatif::ProgressBar::hidden()
        };
        let stage = if a.atomic { Some(coll.stage()?) } else { None };
        Ok(Sink {
            coll,
            name,
            key_field: &a.key_field,
            key_decided: false,
            sources,
            weights,
            batch: Vec::new(),
            committed: None,
            batch_size: a.batch_size as usize,
            upsert: a.upsert,
            skip_existing: a.skip_existing,
            max_errors: a.max_errors.or(a.atomic.then_some(0)),
            stage,
            report: ImportReport::default(),
            errors,
            progress,
            row_buf: Vec::new(),
        })
    }

    /// `FILE:LINE` or `FILE: row N`, as errors name a row.
    /// Takes the keys from `_key` (what `dump` and `export` write) in place of the default
    /// `id` when the input has `_key` and no `id`, decided on its first document (a CSV's
    /// header) and said once.
    fn decide_key(&mut self, has: impl Fn(&str) -> bool) -> Result<(), CliError> {
        if std::mem::replace(&mut self.key_decided, true) {
            return Ok(());
        }
        if self.key_field == DEFAULT_KEY_FIELD && !has(DEFAULT_KEY_FIELD) && has(xvec::KEY_FIELD) {
            self.key_field = xvec::KEY_FIELD;
            writeln!(
                self.errors,
                "{}: no `{DEFAULT_KEY_FIELD}` member: the keys are taken from `{}` (--key-field NAME names another)",
                self.name,
                xvec::KEY_FIELD
            )?;
        }
        Ok(())
    }

    /// The document of a row read as a JSON object (JSON Lines, Parquet).
    fn doc(
        &mut self,
        obj: Result<serde_json::Map<String, serde_json::Value>, String>,
    ) -> Result<Result<Doc, String>, CliError> {
        if let Ok(obj) = &obj {
            self.decide_key(|k| obj.contains_key(k))?;
        }
        let schema = self.coll.schema();
        Ok(obj.and_then(|obj| Doc::from_json(&schema, &obj, self.key_field).map_err(|e| e.to_string())))
    }

    fn place(&self, place: Place) -> String {
        match place {
            Place::Line(n) => format!("{}:{n}", self.name),
            Place::Row(n) => format!("{}: row {n}", self.name),
        }
    }

    fn row_error(&mut self, place: Place, what: impl std::fmt::Display) {
        self.report.failed += 1;
        if self.report.failed <= MAX_REPORTED_ERRORS {
            let _ = writeln!(self.errors, "{}: error: {what}", self.place(place));
        }
    }

    /// What is committed when an import stops part-way (a bad CSV quote, a full disk, an
    /// interrupt): the one place that says it, before the error that stopped it.
    fn stopped(&self) -> String {
        if self.stage.is_some() {
            return format!("{}: import stopped: no rows committed (--atomic: all or nothing)", self.name);
        }
        let span = match self.committed {
            None => String::new(),
            Some((Place::Line(a), Place::Line(b))) => format!(" (lines {a}–{b})"),
            Some((Place::Row(a), Place::Row(b))) => format!(" (rows {a}–{b})"),
            Some(_) => unreachable!("one input is read by lines or by rows"),
        };
        if self.report.written == 0 {
            return format!("{}: import stopped: no rows committed{span}", self.name);
        }
        let rows = count(self.report.written, "row");
        format!("{}: import stopped: {rows} committed{span}; resume with --skip-existing or --upsert", self.name)
    }

    /// Refuses a `--vectors` file with rows left over once the input is read: its rows
    /// would pair with documents it was not meant for.
    fn check_vectors_used(&self) -> Result<(), CliError> {
        match self.sources.iter().find(|s| s.file.len() as u64 > self.report.rows) {
            Some(s) => Err(CliError::failed(format!(
                "the vector file for `{}` has {}, the input {} {}; each vector row pairs with one document",
                s.field,
                count(s.file.len() as u64, "row"),
                self.name,
                count(self.report.rows, "document")
            ))),
            None => Ok(()),
        }
    }

    /// Takes the document of the next row (or why it could not be read), `place` naming
    /// it in errors; `bytes` is how far into the input file it ends.
    fn push(&mut self, place: Place, mut doc: Result<Doc, String>, bytes: u64) -> Result<(), CliError> {
        let row = self.report.rows as usize;
        self.report.rows += 1;
        if let Ok(d) = &mut doc {
            self.attach_vectors(place, row, d)?;
            if let Err(why) = self.attach_weights(d) {
                doc = Err(why);
            }
        }
        self.batch.push((place, doc));
        if self.batch.len() >= self.batch_size {
            self.write_batch()?;
            progress::rows_read(&self.progress, bytes, self.report.rows);
            interrupt::check()?;
        }
        Ok(())
    }

    /// Adds row `row` of each `--vectors` file to `doc`.
    fn attach_vectors(&mut self, place: Place, row: usize, doc: &mut Doc) -> Result<(), CliError> {
        let place = self.place(place);
        for s in &self.sources {
            if row >= s.file.len() {
                return Err(CliError::failed(format!(
                    "{place}: the vector file for `{}` has only {}",
                    s.field,
                    count(s.file.len() as u64, "row")
                )));
            }
            s.file.read_row(row, &mut self.row_buf);
            let v = vector_value(s.elem, &self.row_buf).map_err(|why| {
                CliError::failed(format!("{place}: row {row} of the vector file for `{}` {why}", s.field))
            })?;
            doc.fields.insert(s.field.clone(), v);
        }
        Ok(())
    }

    /// Fills each `--sparse-bm25` target of `doc` from its source text, if it has one.
    fn attach_weights(&self, doc: &mut Doc) -> Result<(), String> {
        for w in &self.weights {
            if doc.fields.get(&w.target).is_some_and(|v| *v != Value::Null) {
                return Err(format!("`{}` is given in the row and by --sparse-bm25 from `{}`", w.target, w.source));
            }
            if let Some(Value::String(text)) = doc.fields.get(&w.source) {
                let v = w.vocabulary.document(text).map_err(|e| format!("`{}` from `{}`: {e}", w.target, w.source))?;
                doc.fields.insert(w.target.clone(), Value::Sparse(v));
            }
        }
        Ok(())
    }

    fn write_batch(&mut self) -> Result<(), CliError> {
        if self.batch.is_empty() {
            return Ok(());
        }
        let mut rows = Vec::with_capacity(self.batch.len());
        let mut docs = Vec::with_capacity(self.batch.len());
        for (place, doc) in self.batch.drain(..) {
            match doc {
                Ok(d) => {
                    docs.push(d);
                    rows.push((place, None));
                }
                Err(e) => rows.push((place, Some(e))),
            }
        }
        let results = match (&mut self.stage, self.upsert) {
            (Some(stage), true) => stage.upsert(docs)?,
            (Some(stage), false) => stage.insert(docs)?,
            (None, true) => self.coll.upsert(docs)?,
            (None, false) => self.coll.insert(docs)?,
        };
        let span = (rows[0].0, rows[rows.len() - 1].0);
        self.committed = Some(self.committed.map_or(span, |(first, _)| (first, span.1)));
        let mut results = results.into_iter();
        for (place, unread) in rows {
            let result = match unread {
                Some(e) => Err(e),
                None => match results.next() {
                    Some(Err(DocError::DuplicateKey(_))) if self.skip_existing => {
                        self.report.skipped += 1;
                        continue;
                    }
                    Some(r) => r.map_err(|e| e.to_string()),
                    None => unreachable!("the engine answers every document"),
                },
            };
            match result {
                Ok(()) => self.report.written += 1,
                Err(e) => self.row_error(place, e),
            }
        }
        match self.max_errors {
            Some(max) if self.report.failed > max => {
                let allowed = match self.stage {
                    Some(_) if max == 0 => "--atomic allows none unless --max-errors says".to_string(),
                    _ => format!("--max-errors {max}"),
                };
                Err(CliError::failed(format!(
                    "{}: stopped after {} ({allowed})",
                    self.name,
                    count(self.report.failed, "bad row")
                )))
            }
            _ => Ok(()),
        }
    }

    fn finish(mut self) -> Result<ImportReport, CliError> {
        self.write_batch()?;
        if let Some(stage) = self.stage.take() {
            // The last moment Ctrl-C can still leave the collection as it was.
            interrupt::check()?;
            stage.commit()?;
        }
        self.progress.finish_and_clear();
        if self.report.failed > MAX_REPORTED_ERRORS {
            let more = self.report.failed - MAX_REPORTED_ERRORS;
            writeln!(self.errors, "{}: ... and {} more not shown", self.name, count(more, "row error"))?;
        }
        Ok(self.report)
    }
}

fn vector_source(coll: &Collection, spec: &str) -> Result<VectorSource, CliError> {
    let (field, file) =
        spec.split_once('=').ok_or_else(|| CliError::usage(format!("--vectors {spec:?}: expected FIELD=FILE")))?;
    let elem = vector_elem(coll, field)?;
    Ok(VectorSource { field: field.to_string(), elem, file: open_vector_file(Path::new(file))? })
}

/// A `--sparse-bm25 TARGET=SOURCE:VOCAB`: which sparse field gets the weights of which
/// string field's text, over which vocabulary.
struct Bm25Source {
    target: String,
    source: String,
    vocabulary: Bm25Vocabulary,
}

fn bm25_source(coll: &Collection, spec: &str) -> Result<Bm25Source, CliError> {
    let usage = || CliError::usage(format!("--sparse-bm25 {spec:?}: expected TARGET=SOURCE:VOCAB"));
    let (target, rest) = spec.split_once('=').ok_or_else(usage)?;
    let (source, file) = rest.split_once(':').ok_or_else(usage)?;
    let schema = coll.schema();
    let ty = |name: &str| schema.index_of(name).map(|i| schema.field(i).ty.clone());
    if !matches!(ty(target), Some(FieldType::Sparse(_))) {
        return Err(CliError::usage(format!(
            "--sparse-bm25: `{target}` is not a sparse vector field of the collection"
        )));
    }
    if ty(source) != Some(FieldType::Scalar(ScalarType::String)) {
        return Err(CliError::usage(format!("--sparse-bm25: `{source}` is not a string field of the collection")));
    }
    let vocabulary = super::vocabulary::load(Path::new(file))?;
    Ok(Bm25Source { target: target.to_string(), source: source.to_string(), vocabulary })
}

fn vector_elem(coll: &Collection, field: &str) -> Result<VectorType, CliError> {
    let schema = coll.schema();
    let pos = schema.resolve(FieldKind::Vector, Some(field)).map_err(|e| CliError::usage(e.to_string()))?;
    Ok(schema.field(pos).as_vector().expect("resolved to a vector field").elem)
}

/// A vector file row as a value of the field's element type, by the engine's rule.
fn vector_value(elem: VectorType, row: &[f32]) -> Result<Value, String> {
    Value::vector_from_f32s(elem, row).map_err(|e| format!("holds {}; expected {}", e.found, e.expected))
}

/// `-`: the input is standard input (JSON Lines and CSV).
fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// A text input: what `-` reads when `given`, else the file.
fn input<'r>(
    path: &Path,
    given: Option<&'r mut dyn std::io::BufRead>,
) -> Result<Box<dyn std::io::Read + 'r>, CliError> {
    match given {
        Some(reader) => Ok(Box::new(reader)),
        None => Ok(Box::new(open(path)?)),
    }
}

fn open(path: &Path) -> Result<std::fs::File, CliError> {
    std::fs::File::open(path).map_err(|e| CliError::file(path, &e))
}

/// JSON Lines from `text`, whose first line is line `first_line` of its input.
fn jsonl(sink: &mut Sink, text: Box<dyn std::io::Read + '_>, first_line: u64) -> Result<(), CliError> {
    let lines = LineBound::new(text, MAX_LINE_BYTES);
    let mut reader = std::io::BufReader::with_capacity(1 << 20, lines);
    let mut raw = Vec::new();
    let mut bytes = 0u64;
    for lineno in first_line.. {
        if raw.capacity() > 16 << 20 {
            raw = Vec::new();
        }
        raw.clear();
        let n = bounded::read_line(&mut reader, &mut raw)
            .map_err(|e| CliError::failed(format!("{}:{lineno}: {e}", sink.name)))?;
        if n == 0 {
            break;
        }
        bytes += n as u64;
        let place = Place::Line(lineno);
        let line = match std::str::from_utf8(&raw) {
            Ok(line) if line.trim().is_empty() => continue,
            Ok(line) => line,
            Err(e) => {
                let why = format!("not valid UTF-8 at byte {} of the line", e.valid_up_to() + 1);
                sink.push(place, Err(why), bytes)?;
                continue;
            }
        };
        let doc = sink.doc(json_object(line.trim_end_matches(['\n', '\r'])))?;
        sink.push(place, doc, bytes)?;
    }
    Ok(())
}

/// CSV from `text`, whose first line is line `first_line` of its input.
fn csv_rows(sink: &mut Sink, text: Box<dyn std::io::Read + '_>, first_line: u64) -> Result<(), CliError> {
    let lines = LineBound::new(text, MAX_LINE_BYTES).count_records();
    let mut reader = csv::ReaderBuilder::new().has_headers(true).from_reader(lines);
    let shift = first_line - 1;
    let headers = reader
        .headers()
        .map_err(|e| CliError::failed(format!("{}:{first_line}: {}", sink.name, csv_error(&e))))?
        .clone();
    reader.get_mut().record_done();
    for (i, name) in headers.iter().enumerate() {
        if let Some(j) = headers.iter().take(i).position(|h| h == name) {
            return Err(CliError::failed(format!(
                "{}:{first_line}: column `{name}` appears twice in the header (columns {} and {}); each field may be given once",
                sink.name,
                j + 1,
                i + 1
            )));
        }
    }
    sink.decide_key(|k| headers.iter().any(|h| h == k))?;
    let mut record = csv::StringRecord::new();
    loop {
        let line = reader.position().line();
        match reader.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {
                reader.get_mut().record_done();
                let line = record.position().map_or(line, |p| p.line()) + shift;
                let obj = csv_object(sink.coll, sink.key_field, &headers, &record);
                let doc = xvec::Doc::from_json(&sink.coll.schema(), &obj, sink.key_field).map_err(|e| e.to_string());
                let bytes = reader.position().byte();
                sink.push(Place::Line(line), doc, bytes)?;
            }
            Err(e) => {
                // An over-long line or record (an I/O error of the bounded reader) has no
                // position of its own: it is the record that starts at `line`.
                let line = e.position().map_or(line, |p| p.line()) + shift;
                return Err(CliError::failed(format!("{}:{line}: {}", sink.name, csv_error(&e))));
            }
        }
    }
    Ok(())
}

/// A CSV error without the position the caller puts in front.
fn csv_error(e: &csv::Error) -> String {
    match e.kind() {
        csv::ErrorKind::UnequalLengths { expected_len, len, .. } => {
            format!(
                "the row has {}, the header {expected_len}; every row needs one cell per column",
                count(*len, "field")
            )
        }
        csv::ErrorKind::Utf8 { err, .. } => format!("not valid UTF-8 in field {}", err.field() + 1),
        _ => e.to_string(),
    }
}

/// One CSV record as the JSON object a JSON Lines row would be: numbers, booleans and
/// vectors (`[...]`) parsed by the field's type, other text kept as a string so the
/// engine's validation names what it expected. An empty cell is null (absent), except in
/// a string field that cannot be null, where it is the empty string.
fn csv_object(
    coll: &Collection,
    key_field: &str,
    headers: &csv::StringRecord,
    record: &csv::StringRecord,
) -> serde_json::Map<String, serde_json::Value> {
    let schema = coll.schema();
    headers
        .iter()
        .zip(record.iter())
        .filter_map(|(name, cell)| {
            let field = (name != key_field).then(|| schema.index_of(name).map(|i| schema.field(i))).flatten();
            let string = field.is_none_or(|f| f.as_scalar() == Some(xvec::ScalarType::String));
            if cell.is_empty() && !(string && field.is_some_and(|f| !f.nullable)) {
                return None;
            }
            let value = match serde_json::from_str::<serde_json::Value>(cell) {
                Ok(v) if !string => v,
                _ => serde_json::Value::String(cell.to_string()),
            };
            Some((name.to_string(), value))
        })
        .collect()
}

fn raw_vectors(sink: &mut Sink, a: &ImportArgs) -> Result<(), CliError> {
    let schema = sink.coll.schema();
    let pos = schema.resolve(FieldKind::Vector, a.field.as_deref()).map_err(|e| match e {
        FieldLookupError::Ambiguous { .. } => CliError::usage(e.to_string()).hint("pass --field FIELD"),
        e => CliError::usage(e.to_string()),
    })?;
    let field = schema.field(pos).name.clone();
    let elem = vector_elem(sink.coll, &field)?;
    let file = open_vector_file(&a.file)?;
    // `export --format npy|fvecs -o F` writes the keys beside the vectors, to F.ids.
    let beside = Some(super::export::ids_path(&a.file)).filter(|p| a.ids.is_none() && p.is_file());
    if let Some(path) = &beside {
        let _ = writeln!(sink.errors, "note: keys from {} (--ids FILE names another)", path.display());
    }
    let ids: Option<Vec<String>> = match a.ids.as_ref().or(beside.as_ref()) {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| CliError::file(path, &e))?;
            let ids: Vec<String> = text.lines().map(|l| l.trim().to_string()).filter(|l| !l.is_empty()).collect();
            if ids.len() != file.len() {
                return Err(CliError::failed(format!(
                    "{}: {} keys for {} vectors in {}",
                    path.display(),
                    ids.len(),
                    file.len(),
                    a.file.display()
                )));
            }
            Some(ids)
        }
        None => None,
    };
    let file_bytes = std::fs::metadata(&a.file).map(|m| m.len()).unwrap_or(0);
    let mut row = Vec::new();
    for i in 0..file.len() {
        file.read_row(i, &mut row);
        let key = ids.as_ref().map_or_else(|| i.to_string(), |ids| ids[i].clone());
        let doc = vector_value(elem, &row).map(|v| Doc::new(key).set(field.clone(), v));
        sink.push(Place::Row(i as u64), doc, (i as u64 + 1) * file_bytes / file.len() as u64)?;
    }
    Ok(())
}
