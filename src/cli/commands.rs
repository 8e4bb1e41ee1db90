//! What each command does: open the collection the way it needs, call the engine, and
//! turn the answer into a [`Table`].

use std::io::{IsTerminal, Write};
use std::path::Path;

use xvec::bench::dataset::VectorFile;
use xvec::{Collection, Error, Hit, OpenOptions, Query, Schema, Value};

use super::output::{Cell, OutputMode, Printer, Table};
use super::{Cli, CliError, Command, QueryArgs};

/// Where a command writes: results to `out`, diagnostics to `err`.
pub struct Io<'a> {
    pub out: &'a mut dyn Write,
    pub err: &'a mut dyn Write,
    pub printer: Printer,
}

/// Printer settings for argv use.
pub fn printer_for(args: &super::OutputArgs) -> Printer {
    let tty = std::io::stdout().is_terminal();
    Printer {
        mode: args.mode.unwrap_or(OutputMode::default_for(tty)),
        headers: !args.no_headers,
        color: tty && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    }
}

pub fn run(cli: Cli, io: &mut Io) -> Result<(), CliError> {
    match cli.command {
        Command::Create(a) => {
            let text = std::fs::read_to_string(&a.schema)
                .map_err(|e| CliError::failed(format!("{}: {e}", a.schema.display())))?;
            let schema =
                Schema::from_json(&text).map_err(|e| CliError::failed(format!("{}: {e}", a.schema.display())))?;
            let coll = Collection::create(&a.dir, schema, Default::default())?;
            coll.close()?;
            writeln!(io.err, "created {}", a.dir.display())?;
            Ok(())
        }
        Command::Import(a) => {
            let coll = open_writable(&a.dir)?;
            let report =
                super::import::import_jsonl(&coll, &a.file, &a.key_field, &a.vectors, a.batch_size, a.upsert, io.err)?;
            if a.flush {
                coll.flush()?;
            }
            coll.close()?;
            writeln!(
                io.err,
                "imported {} of {} documents from {}{}",
                report.written,
                report.lines,
                a.file.display(),
                if report.failed > 0 { format!(" ({} failed)", report.failed) } else { String::new() }
            )?;
            if report.failed > 0 {
                return Err(CliError::failed(format!("{} documents were not imported", report.failed)));
            }
            Ok(())
        }
        Command::Query(a) => {
            let coll = open_read(&a.dir)?;
            let q = build_query(&coll, &a)?;
            let hits = coll.query(&q).map_err(|e| with_filter_caret(e, a.filter.as_deref()))?;
            print(io, &hits_table(coll.schema(), &hits, &q))
        }
        Command::Fetch(a) => {
            let coll = open_read(&a.dir)?;
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
                            .chain(
                                names.iter().map(|n| d.get(n).map_or(serde_json::Value::Null, Value::to_json).into()),
                            )
                            .collect(),
                    ),
                    None => missing.push(key.clone()),
                }
            }
            print(io, &t)?;
            if !missing.is_empty() {
                return Err(CliError::failed(format!("key not found: {}", missing.join(", "))));
            }
            Ok(())
        }
        Command::Count(a) => {
            let coll = open_read(&a.dir)?;
            let n = match &a.filter {
                None => coll.count(),
                Some(f) => coll.snapshot().keys_where(Some(f)).map_err(|e| with_filter_caret(e, Some(f)))?.len() as u64,
            };
            let mut t = Table::new(["count"]);
            t.push(vec![n.into()]);
            print(io, &t)
        }
        Command::Flush(a) => {
            let coll = open_writable(&a.dir)?;
            coll.flush()?;
            coll.close()?;
            Ok(())
        }
        Command::Describe(a) => {
            let coll = open_read(&a.dir)?;
            print(io, &describe_table(&coll))
        }
        Command::Quickstart(a) => super::quickstart::run(&a, io),
    }
}

pub fn open_read(dir: &Path) -> Result<Collection, CliError> {
    Ok(Collection::open(dir, &OpenOptions::read_only())?)
}

pub fn open_writable(dir: &Path) -> Result<Collection, CliError> {
    Ok(Collection::open(dir, &OpenOptions::writable())?)
}

pub fn print(io: &mut Io, t: &Table) -> Result<(), CliError> {
    io.printer.print(t, io.out)?;
    Ok(())
}

/// A filter error, with the offending spot underlined.
pub fn with_filter_caret(e: Error, text: Option<&str>) -> CliError {
    match (&e, text) {
        (Error::Filter(fe), Some(text)) => CliError::failed(format!("{fe}\n{}", fe.caret(text))),
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

fn build_query(_coll: &Collection, a: &QueryArgs) -> Result<Query, CliError> {
    let mut q = if let Some(key) = &a.pk {
        Query::key(key.clone())
    } else if let Some(file) = &a.vector_file {
        let vf = VectorFile::open(file).map_err(|e| CliError::failed(e.to_string()))?;
        let row = a.row.unwrap_or(0);
        if row >= vf.len() {
            return Err(CliError::failed(format!(
                "{}: row {row} is out of range; the file has {} rows",
                file.display(),
                vf.len()
            )));
        }
        let mut v = Vec::new();
        vf.read_row(row, &mut v);
        Query::vector(v)
    } else if let Some(lit) = &a.vector {
        Query::vector(parse_vector(lit)?)
    } else {
        return Err(CliError::usage("query needs a VECTOR, --pk KEY or --vector-file FILE --row N"));
    };
    q = q.k(a.k).with_vectors(a.with_vectors);
    if let Some(f) = &a.field {
        q = q.field(f.clone());
    }
    if let Some(f) = &a.filter {
        q = q.filter(f.clone());
    }
    if let Some(f) = &a.fields {
        q = q.fields(f.iter().cloned());
    }
    Ok(q)
}

/// Results as a table: key, score, then the projected fields in schema order.
pub fn hits_table(schema: &Schema, hits: &[Hit], q: &Query) -> Table {
    let names: Vec<String> = match &q.fields {
        Some(f) => f.clone(),
        None => schema
            .fields()
            .iter()
            .filter(|f| q.include_vectors || f.as_vector().is_none())
            .map(|f| f.name.clone())
            .collect(),
    };
    let mut t = Table::new(["_key".to_string(), "score".to_string()].into_iter().chain(names.iter().cloned()));
    for h in hits {
        let mut row: Vec<Cell> = vec![h.key.clone().into(), serde_json::json!(h.score).into()];
        row.extend(names.iter().map(|n| h.fields.get(n).map_or(serde_json::Value::Null, Value::to_json).into()));
        t.push(row);
    }
    t
}

/// The `describe` table: one row per field, then counts in the footer.
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
            v.map_or(serde_json::Value::Null, |v| v.index.name().into()).into(),
        ]);
    }
    t.footer = Some(format!(
        "collection {}: {} documents ({} deleted), {} segments, {} unflushed rows, generation {}, {:.1} MiB on disk",
        s.name(),
        stats.live_docs,
        stats.deleted_docs,
        stats.segments.len(),
        stats.mem_rows,
        stats.generation,
        stats.disk_bytes as f64 / (1 << 20) as f64
    ));
    t
}
