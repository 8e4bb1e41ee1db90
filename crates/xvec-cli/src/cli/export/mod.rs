//! `xvec export`: live documents in the formats data moves in (JSON Lines, CSV, Parquet,
//! one vector field as .npy/.fvecs), each in the shape `import` reads back. Reads one
//! pinned snapshot in chunks (the engine's streaming scan) and hands each chunk to a
//! format's [`Writer`], so memory stays bounded by a chunk however large the collection.

#[cfg(feature = "parquet")]
mod parquet;
mod raw;
mod text;

use std::io::Write;
use std::path::{Path, PathBuf};

use xvec::{Collection, Doc, Field};

use super::context::{Io, with_filter_caret};
use super::{CliError, ExportArgs, ExportFormat, interrupt};

/// Documents fetched (and, for parquet, written as one row group) per step.
const CHUNK: usize = 4096;

/// One output format: takes the documents chunk by chunk, then finishes the file.
trait Writer {
    fn write(&mut self, docs: &[Doc]) -> Result<(), CliError>;
    fn finish(self: Box<Self>) -> Result<(), CliError>;
}

/// What a format writer is given: the fields to write (in schema order), the key column's
/// name, and how many documents will come.
struct Layout {
    fields: Vec<Field>,
    key_field: String,
    rows: usize,
    /// Every key is a decimal integer (`42`, not `042`): parquet writes them as int64.
    #[cfg(feature = "parquet")]
    integer_keys: bool,
}

pub fn run(a: &ExportArgs, coll: &Collection, io: &mut Io) -> Result<(), CliError> {
    // Ctrl-C stops between chunks and removes the temp file, in argv use too.
    interrupt::install()?;
    if let Some(mode) = a.mode {
        let name = clap::ValueEnum::to_possible_value(&mode).map_or_else(String::new, |v| v.get_name().to_string());
        return Err(CliError::usage(format!("export does not take --mode {name}; its output format is --format"))
            .hint("e.g. export --format csv -o FILE (formats: jsonl, csv, npy, fvecs, parquet)"));
    }
    let snapshot = super::versions::snapshot(coll, a.as_of.as_deref())?;
    let schema = snapshot.schema().clone();
    if schema.index_of(&a.key_field).is_some() {
        return Err(CliError::usage(format!("the key column `{}` is also a field of the collection", a.key_field))
            .hint("name the key column something else with --key-field NAME"));
    }
    // The filter and projection are checked before anything is written.
    let mut scan = snapshot
        .scan(a.filter.as_deref(), &io.params, a.fields.as_deref())
        .map_err(|e| with_filter_caret(e, a.filter.as_deref()))?;
    let rows = snapshot.count_where(a.filter.as_deref(), &io.params)?;
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .filter(|f| a.fields.as_ref().is_none_or(|names| names.contains(&f.name)))
        .cloned()
        .collect();
    let layout = Layout {
        fields,
        key_field: a.key_field.clone(),
        rows: rows as usize,
        // Parquet types the key column before the first row: one pass over the keys alone.
        #[cfg(feature = "parquet")]
        integer_keys: snapshot
            .scan(a.filter.as_deref(), &io.params, Some(&[]))?
            .all(|d| d.key.parse::<i64>().is_ok_and(|i| i.to_string() == d.key)),
    };
    // A file is written under a temp name and renamed once whole: an error or Ctrl-C
    // removes it, so no file under the name asked for ever ends part-way.
    let staged = output_path(a).map(|p| (p.to_path_buf(), temp_path(p)));
    let written = (|| {
        let mut writer = open_writer(a, layout, io, staged.as_ref().map(|(_, tmp)| tmp.as_path()))?;
        loop {
            interrupt::check()?;
            let Some(docs) = scan.next_batch(CHUNK) else { break };
            writer.write(&docs)?;
        }
        writer.finish()
    })();
    if let Some((path, tmp)) = &staged {
        let raw = matches!(a.format, ExportFormat::Npy | ExportFormat::Fvecs);
        let moved = written.and_then(|()| {
            if raw {
                rename(&ids_path(tmp), &ids_path(path))?;
            }
            rename(tmp, path)
        });
        if let Err(e) = moved {
            let _ = std::fs::remove_file(tmp);
            let _ = std::fs::remove_file(ids_path(tmp));
            return Err(e);
        }
        writeln!(io.err, "exported {} to {}", super::plural::count(rows, "document"), path.display())?;
        return Ok(());
    }
    written
}

/// Where `path` is written before it is renamed: `.NAME.tmp` beside it, so a tool
/// matching `*.csv` never picks up a file still being written.
fn temp_path(path: &Path) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    path.with_file_name(format!(".{name}.tmp"))
}

fn rename(from: &Path, to: &Path) -> Result<(), CliError> {
    std::fs::rename(from, to).map_err(|e| CliError::file(to, &e))
}

/// The writer of `a.format`, writing to `file` (the temp name of the `-o` file), or to
/// standard output when there is none.
fn open_writer<'a>(
    a: &ExportArgs,
    layout: Layout,
    io: &'a mut Io,
    file: Option<&Path>,
) -> Result<Box<dyn Writer + 'a>, CliError> {
    let binary = |what: &str| {
        CliError::usage(format!("export --format {what} writes a file; pass -o FILE (not standard output)"))
            .hint(format!("e.g. export --format {what} -o out.{what}"))
    };
    Ok(match a.format {
        ExportFormat::Jsonl => Box::new(text::Jsonl::new(output(file, io)?, layout)),
        ExportFormat::Csv => Box::new(text::Csv::new(output(file, io)?, layout)?),
        ExportFormat::Npy | ExportFormat::Fvecs => {
            let path = file.ok_or_else(|| binary(if a.format == ExportFormat::Npy { "npy" } else { "fvecs" }))?;
            let field = raw::pick_field(&layout, a.field.as_deref(), a.fields.is_some(), io.err)?;
            Box::new(raw::Raw::create(path, a.format == ExportFormat::Npy, field, layout.rows)?)
        }
        #[cfg(feature = "parquet")]
        ExportFormat::Parquet => {
            let path = file.ok_or_else(|| binary("parquet"))?;
            parquet::create(path, layout)?
        }
        #[cfg(not(feature = "parquet"))]
        ExportFormat::Parquet => return Err(CliError::usage("this xvec was built without the `parquet` feature")),
    })
}

/// The `-o` file; `None` for standard output (no `-o`, or `-o -` as other tools take it).
fn output_path(a: &ExportArgs) -> Option<&Path> {
    a.output.as_deref().filter(|p| *p != Path::new("-"))
}

/// Where text formats write: the file, or standard output.
fn output<'a>(file: Option<&Path>, io: &'a mut Io) -> Result<Box<dyn Write + 'a>, CliError> {
    Ok(match file {
        Some(path) => Box::new(std::io::BufWriter::new(create(path)?)),
        None => Box::new(&mut *io.out),
    })
}

fn create(path: &Path) -> Result<std::fs::File, CliError> {
    std::fs::File::create(path).map_err(|e| CliError::file(path, &e))
}

/// `FILE.ids`: the keys beside a raw vector file.
pub fn ids_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".ids");
    PathBuf::from(s)
}
