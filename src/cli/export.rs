//! `xvec export`: live documents as JSON Lines, vectors inline, in the shape `import`
//! reads back, fields in schema order. Reads one pinned snapshot in chunks, so memory
//! stays bounded by a chunk (plus the list of keys).

use std::io::Write;

use xvec::{Collection, Value};

use super::commands::{Io, with_filter_caret};
use super::{CliError, ExportArgs, interrupt};

/// Documents fetched per step.
const CHUNK: usize = 1000;

pub fn run(a: &ExportArgs, coll: &Collection, io: &mut Io) -> Result<(), CliError> {
    let snapshot = coll.snapshot();
    let keys = snapshot
        .keys_where_with(a.filter.as_deref(), &io.params)
        .map_err(|e| with_filter_caret(e, a.filter.as_deref()))?;
    let mut file;
    let out: &mut dyn Write = match &a.output {
        Some(path) => {
            file = std::io::BufWriter::new(
                std::fs::File::create(path).map_err(|e| CliError::failed(format!("{}: {e}", path.display())))?,
            );
            &mut file
        }
        None => io.out,
    };
    let mut line = Vec::new();
    for chunk in keys.chunks(CHUNK) {
        interrupt::check()?;
        let refs: Vec<&str> = chunk.iter().map(String::as_str).collect();
        for doc in snapshot.fetch(&refs, a.fields.as_deref())?.into_iter().flatten() {
            let mut obj = serde_json::Map::new();
            obj.insert(a.key_field.clone(), doc.key.clone().into());
            for f in coll.schema().fields() {
                if let Some(value) = doc.get(&f.name).filter(|v| **v != Value::Null) {
                    obj.insert(f.name.clone(), value.to_json());
                }
            }
            line.clear();
            serde_json::to_writer(&mut line, &obj).map_err(|e| CliError::failed(e.to_string()))?;
            line.push(b'\n');
            out.write_all(&line)?;
        }
    }
    out.flush()?;
    if let Some(path) = &a.output {
        writeln!(io.err, "exported {} to {}", super::plural::count(keys.len() as u64, "document"), path.display())?;
    }
    Ok(())
}
