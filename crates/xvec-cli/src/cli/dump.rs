//! `xvec dump` / `.dump`: a directory that recreates the collection. `schema.json` is the
//! schema as `xvec schema` prints it (every field and index parameter), `data.jsonl` every
//! live document as `export` writes it (f32s at their shortest round-trip decimal), and
//! `dump.xvec` a shell script of `create --schema`, `import`, `flush` and, when the source
//! had built indexes, `optimize`. Paths in the script are relative to the dump directory:
//! `cd OUTDIR && xvec shell NEW --write -f dump.xvec`.

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
    let out = a.output.clone().unwrap_or_else(|| default_dir(coll.dir()));
    if out.join(SCRIPT).exists() {
        return Err(CliError::failed(format!("{} already holds a dump ({SCRIPT})", out.display()))
            .hint("pick another directory with -o OUTDIR, or remove the old dump"));
    }
    std::fs::create_dir_all(&out).map_err(|e| CliError::file(&out, &e))?;
    // Each file is written under a temp name and renamed once whole, the script last: a
    // dump that stops part-way (an error, Ctrl-C) removes what it wrote, and no file it
    // names ever ends part-way.
    let written = write_files(coll, &out, io);
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
    let export = ExportArgs {
        coll: CollectionArg { dir: coll.dir().to_path_buf() },
        format: ExportFormat::Jsonl,
        output: Some(out.join(DATA)),
        filter: None,
        fields: None,
        field: None,
        key_field: KEY_FIELD.to_string(),
        as_of: None,
        mode: None,
        bind: Default::default(),
    };
    let (mut out_sink, mut err_sink) = (std::io::sink(), std::io::sink());
    super::export::run(
        &export,
        coll,
        &mut Io { out: &mut out_sink, err: &mut err_sink, printer: io.printer, params: Default::default() },
    )?;
    write(SCRIPT, &script(coll))?;
    writeln!(
        io.err,
        "dumped {} to {}; recreate with: cd {} && xvec shell NEW_DIR --write -f {SCRIPT}",
        super::plural::count(coll.count(), "document"),
        out.display(),
        out.display()
    )?;
    Ok(())
}

/// `DIR.dump` beside the collection.
fn default_dir(dir: &Path) -> PathBuf {
    let mut s = dir.components().as_path().as_os_str().to_owned();
    if s.is_empty() || dir.file_name().is_none() {
        return PathBuf::from("dump");
    }
    s.push(".dump");
    PathBuf::from(s)
}

/// The script: comments saying what it is and how to run it, then the statements.
fn script(coll: &Collection) -> String {
    let s = coll.schema();
    let m = coll.memory();
    let optimized = m.codes + m.graph + m.sketches + m.lists > 0;
    let mut text = format!(
        "# xvec dump of collection `{}`: {}, {}.\n\
         # Recreate it from this directory: xvec shell NEW_DIR --write -f {SCRIPT}\n\
         create --schema {SCHEMA}\n\
         import {DATA} --key-field {KEY_FIELD}\n\
         flush\n",
        s.name(),
        super::plural::count(coll.count(), "document"),
        super::plural::count(s.fields().len() as u64, "field")
    );
    if optimized {
        text.push_str(
            "# The source had built indexes (HNSW, Vamana or quantized codes): build them again.\noptimize\n",
        );
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_dump_dir_sits_beside_the_collection() {
        assert_eq!(default_dir(Path::new("words")), PathBuf::from("words.dump"));
        assert_eq!(default_dir(Path::new("/data/words/")), PathBuf::from("/data/words.dump"));
        assert_eq!(default_dir(Path::new(".")), PathBuf::from("dump"));
    }
}
