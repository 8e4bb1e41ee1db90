//! `xvec dump` / `.dump`: a shell script that recreates the collection, `create --schema`,
//! `import`, `flush` and, when the source had built indexes, `optimize`, with the schema
//! as `xvec schema` prints it (every field and index parameter) and every live document as
//! `export` writes it (f32s at their shortest round-trip decimal).
//!
//! On standard output (sqlite3's `.dump`) the script is one self-contained stream: the
//! schema and the rows follow their statements as data lines ended by `\.` (psql's
//! `COPY ... FROM STDIN`), so `xvec dump c | xvec shell NEW --write` copies a collection.
//! With `-o OUTDIR` they go to `schema.json` and `data.jsonl` beside `dump.xvec`, whose
//! relative paths resolve against its own directory when it runs.

use std::path::{Path, PathBuf};

use xvec::Collection;

use super::context::Io;
use super::{CliError, CollectionArg, DumpArgs, ExportArgs, ExportFormat};

/// Names of the files a dump writes, relative to its directory.
pub const SCRIPT: &str = "dump.xvec";
const SCHEMA: &str = "schema.json";
const DATA: &str = "data.jsonl";
/// The key member of `data.jsonl`: `_key` can never be a field's name.
const KEY_FIELD: &str = xvec::KEY_FIELD;

pub fn run(a: &DumpArgs, coll: &Collection, io: &mut Io) -> Result<(), CliError> {
    match &a.output {
        None => print_script(coll, io),
        Some(out) => write_dir(coll, out, io),
    }
}

/// The script on `io.out`, the schema and the rows inline.
fn print_script(coll: &Collection, io: &mut Io) -> Result<(), CliError> {
    write!(io.out, "{}", header(coll, "xvec dump DIR | xvec shell NEW_DIR --write"))?;
    writeln!(io.out, "create --schema -\n{}\n\\.", coll.schema().to_json())?;
    writeln!(io.out, "import - --format jsonl --key-field {KEY_FIELD}")?;
    super::export::run(&export_args(coll, None), coll, io)?;
    writeln!(io.out, "\\.")?;
    write!(io.out, "{}", tail(coll))?;
    Ok(())
}

/// The directory form: `schema.json`, `data.jsonl` and `dump.xvec` in `out`.
fn write_dir(coll: &Collection, out: &Path, io: &mut Io) -> Result<(), CliError> {
    if out.join(SCRIPT).exists() {
        return Err(CliError::failed(format!("{} already holds a dump ({SCRIPT})", out.display()))
            .hint("pick another directory with -o OUTDIR, or remove the old dump"));
    }
    std::fs::create_dir_all(out).map_err(|e| CliError::file(out, &e))?;
    // Each file is written under a temp name and renamed once whole, the script last: a
    // dump that stops part-way (an error, Ctrl-C) removes what it wrote, and no file it
    // names ever ends part-way.
    let written = write_files(coll, out, io);
    if written.is_err() {
        for name in [SCHEMA, DATA] {
            let _ = std::fs::remove_file(out.join(name));
        }
    }
    written
}

fn write_files(coll: &Collection, out: &Path, io: &mut Io) -> Result<(), CliError> {
    let write = |name: &str, text: &str| {
        let (path, tmp) = (out.join(name), out.join(format!(".{name}.tmp")));
        let written = std::fs::write(&tmp, text).and_then(|()| std::fs::rename(&tmp, &path));
        written.map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            CliError::file(&path, &e)
        })
    };
    write(SCHEMA, &format!("{}\n", coll.schema().to_json()))?;
    let (mut out_sink, mut err_sink) = (std::io::sink(), std::io::sink());
    let sinks = &mut Io {
        out: &mut out_sink,
        err: &mut err_sink,
        printer: io.printer,
        params: Default::default(),
        stdin: None,
    };
    super::export::run(&export_args(coll, Some(out.join(DATA))), coll, sinks)?;
    let script = format!(
        "{}create --schema {SCHEMA}\nimport {DATA} --key-field {KEY_FIELD}\n{}",
        header(coll, &format!("xvec shell NEW_DIR --write -f {}", out.join(SCRIPT).display())),
        tail(coll)
    );
    write(SCRIPT, &script)?;
    writeln!(
        io.err,
        "dumped {} to {}; recreate with: xvec shell NEW_DIR --write -f {}",
        super::plural::count(coll.count(), "document"),
        out.display(),
        out.join(SCRIPT).display()
    )?;
    Ok(())
}

/// Every live document as JSON Lines, keys under `_key`, to `output` (else `io.out`).
fn export_args(coll: &Collection, output: Option<PathBuf>) -> ExportArgs {
    ExportArgs {
        coll: CollectionArg { dir: coll.dir().to_path_buf() },
        format: ExportFormat::Jsonl,
        output,
        filter: None,
        fields: None,
        field: None,
        key_field: KEY_FIELD.to_string(),
        as_of: None,
        mode: None,
        bind: Default::default(),
    }
}

/// The comment lines a script starts with: what it is and how to run it.
fn header(coll: &Collection, run: &str) -> String {
    let s = coll.schema();
    format!(
        "# xvec dump of collection `{}`: {}, {}.\n# Recreate it: {run}\n",
        s.name(),
        super::plural::count(coll.count(), "document"),
        super::plural::count(s.fields().len() as u64, "field")
    )
}

/// The statements after the rows: `flush`, and `optimize` when the source had indexes.
fn tail(coll: &Collection) -> String {
    let m = coll.memory();
    let optimized = m.codes + m.graph + m.sketches + m.lists > 0;
    let mut text = String::from("flush\n");
    if optimized {
        text.push_str(
            "# The source had built indexes (HNSW, Vamana or quantized codes): build them again.\noptimize\n",
        );
    }
    text
}
