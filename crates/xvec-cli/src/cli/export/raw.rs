//! npy and fvecs for `export`: the vectors of one field as float32 rows, in key order, and
//! their keys in `FILE.ids`, one per line (what `import --ids` reads). These formats hold
//! vectors only: scalar fields are left out (and asking for them is an error), a document
//! without the vector cannot be written.

use std::io::{BufWriter, Write};
use std::path::Path;

use xvec::{Doc, Field, Value};
use xvec_io::npy;

use super::{CliError, Layout, Writer, create, ids_path};

/// The vector field a raw export writes: `--field`, else the only vector field written.
/// With `--fields` naming scalars that cannot be written, an error; without, a note that
/// the scalar fields are left out.
pub fn pick_field(
    layout: &Layout,
    field: Option<&str>,
    fields_given: bool,
    err: &mut dyn Write,
) -> Result<Field, CliError> {
    let scalars: Vec<&str> =
        layout.fields.iter().filter(|f| f.as_vector().is_none()).map(|f| f.name.as_str()).collect();
    if fields_given && !scalars.is_empty() {
        return Err(CliError::usage(format!(
            "npy and fvecs hold one vector field, not the scalar fields {}",
            scalars.join(", ")
        ))
        .hint("export them with --format jsonl, csv or parquet"));
    }
    let vectors: Vec<&Field> = layout.fields.iter().filter(|f| f.as_vector().is_some()).collect();
    let chosen = match field {
        Some(name) => vectors.iter().find(|f| f.name == name).copied().ok_or_else(|| {
            CliError::usage(format!("`{name}` is not a vector field being exported"))
                .hint(format!("vector fields: {}", names(&vectors)))
        })?,
        None => match vectors.as_slice() {
            [one] => one,
            [] => return Err(CliError::usage("npy and fvecs hold a vector field; the export has none")),
            _ => {
                return Err(CliError::usage("the collection has several vector fields; pass --field FIELD")
                    .hint(format!("vector fields: {}", names(&vectors))));
            }
        },
    };
    if !scalars.is_empty() {
        writeln!(
            err,
            "note: only `{}` is written; scalar fields {} are left out (jsonl, csv and parquet keep them)",
            chosen.name,
            scalars.join(", ")
        )?;
    }
    Ok(chosen.clone())
}

fn names(fields: &[&Field]) -> String {
    fields.iter().map(|f| f.name.as_str()).collect::<Vec<_>>().join(", ")
}

pub struct Raw {
    vectors: BufWriter<std::fs::File>,
    ids: BufWriter<std::fs::File>,
    npy: bool,
    field: Field,
    dim: usize,
    row: Vec<u8>,
}

impl Raw {
    pub fn create(path: &Path, npy: bool, field: Field, rows: usize) -> Result<Raw, CliError> {
        let dim = field.as_vector().map_or(0, |v| v.dim as usize);
        let mut vectors = BufWriter::new(create(path)?);
        if npy {
            vectors.write_all(&npy::header_bytes("<f4", &[rows as u64, dim as u64], 1))?;
        }
        let ids = BufWriter::new(create(&ids_path(path))?);
        Ok(Raw { vectors, ids, npy, field, dim, row: Vec::with_capacity(4 + 4 * dim) })
    }
}

impl Writer for Raw {
    fn write(&mut self, docs: &[Doc]) -> Result<(), CliError> {
        for doc in docs {
            if doc.key.is_empty() || doc.key.contains(['\n', '\r']) || doc.key.trim() != doc.key {
                return Err(CliError::failed(format!(
                    "key {:?} cannot be written to an ids file (one key per line, trimmed)",
                    doc.key
                ))
                .hint("export with --format jsonl, csv or parquet"));
            }
            let v = match doc.get(&self.field.name) {
                Some(Value::Null) | None => None,
                Some(v) => v.vector_f32(),
            };
            let Some(v) = v else {
                return Err(CliError::failed(format!(
                    "document {:?} has no `{}`; npy and fvecs cannot hold a missing vector",
                    doc.key, self.field.name
                ))
                .hint("leave such documents out with --filter, or export with --format jsonl, csv or parquet"));
            };
            debug_assert_eq!(v.len(), self.dim);
            self.row.clear();
            if !self.npy {
                self.row.extend_from_slice(&(self.dim as i32).to_le_bytes());
            }
            for x in v {
                self.row.extend_from_slice(&x.to_le_bytes());
            }
            self.vectors.write_all(&self.row)?;
            writeln!(self.ids, "{}", doc.key)?;
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> Result<(), CliError> {
        self.vectors.flush()?;
        self.ids.flush()?;
        Ok(())
    }
}
