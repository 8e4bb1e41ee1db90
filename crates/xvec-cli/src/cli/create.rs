//! `xvec create`: a schema from JSON (a file, standard input or inline), or from
//! `--field`/`--vector` flags turned into the same JSON form, so the engine validates both
//! the same way.

use std::io::Read;
use std::path::Path;

use xvec::{CollectionOptions, Field, IndexParams, Schema};

use super::context::{self, Collections, Io};
use super::{CliError, CreateArgs};

pub fn run(a: &CreateArgs, colls: &mut dyn Collections, io: &mut Io) -> Result<(), CliError> {
    let schema = match &a.schema {
        Some(source) => schema_from(source, io)?,
        None => schema_from_flags(a)?,
    };
    let mut options = CollectionOptions::default()
        .auto_flush_rows(a.auto_flush_rows)
        .auto_flush_bytes(a.auto_flush_bytes.unwrap_or(0))
        .merge_factor(a.merge_factor)
        .idle_optimize_ms(a.idle_optimize_ms)
        .keep_versions(a.keep_versions)
        .keep_for(std::time::Duration::from_secs(a.keep_for));
    if let Some(max) = a.max_docs_per_segment {
        options = options.max_docs_per_segment(max);
    }
    colls.create(&a.coll.dir, schema, options)?;
    writeln!(io.err, "created {}", a.coll.dir.display())?;
    Ok(())
}

/// Schemas larger than this are refused before they are read whole.
const MAX_SCHEMA_BYTES: u64 = 16 << 20;

/// `--schema`: JSON inline (it starts with `{`), from standard input (`-`), or a file.
fn schema_from(source: &Path, io: &mut Io) -> Result<Schema, CliError> {
    let given = source.to_string_lossy();
    let (name, text) = if given.trim_start().starts_with('{') {
        ("--schema".to_string(), given.into_owned())
    } else if given == "-" {
        context::read_stdin(&mut io.stdin, |s| {
            Ok::<_, CliError>((s.name.to_string(), read_bounded(s.reader, s.name)?))
        })?
    } else {
        let file = std::fs::File::open(source).map_err(|e| CliError::file(source, &e))?;
        (source.display().to_string(), read_bounded(&mut std::io::BufReader::new(file), &given)?)
    };
    Schema::from_json(&text).map_err(|e| CliError::failed(format!("{name}: {e}")))
}

/// Reads a whole schema, refusing one over [`MAX_SCHEMA_BYTES`] or not UTF-8.
fn read_bounded(reader: &mut dyn std::io::Read, name: &str) -> Result<String, CliError> {
    let mut bytes = Vec::new();
    reader.take(MAX_SCHEMA_BYTES + 1).read_to_end(&mut bytes).map_err(|e| CliError::failed(format!("{name}: {e}")))?;
    if bytes.len() as u64 > MAX_SCHEMA_BYTES {
        return Err(CliError::failed(format!("{name}: a schema is at most {} MiB", MAX_SCHEMA_BYTES >> 20)));
    }
    String::from_utf8(bytes).map_err(|e| {
        CliError::failed(format!("{name}: not valid UTF-8 at byte {} of the schema", e.utf8_error().valid_up_to()))
    })
}

fn schema_from_flags(a: &CreateArgs) -> Result<Schema, CliError> {
    if a.fields.is_empty() && a.vectors.is_empty() {
        return Err(CliError::usage("create needs --schema FILE, or --field and --vector flags")
            .hint("e.g. create DIR --field lemma:string --vector emb:384:cosine"));
    }
    let name = match &a.name {
        Some(n) => n.clone(),
        None => a
            .coll
            .dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .ok_or_else(|| CliError::usage("cannot name the collection after its directory; pass --name NAME"))?,
    };
    let index = a.index.as_deref().map(index_params).transpose()?;
    let mut fields = Vec::new();
    for spec in &a.fields {
        fields.push(Field::from_spec(spec).map_err(|e| CliError::usage(format!("--field: {e}")))?);
    }
    for spec in &a.vectors {
        let field = Field::from_spec(spec).map_err(|e| CliError::usage(format!("--vector: {e}")))?;
        if field.as_vector().is_none() {
            return Err(CliError::usage(format!(
                "--vector {spec:?}: expected NAME:DIM:METRIC[:fp32|fp16|int8][:nullable]; --field takes other types"
            )));
        }
        fields.push(match &index {
            Some(index) => field.index(index.clone()),
            None => field,
        });
    }
    Schema::new(name, fields).map_err(|e| CliError::usage(e.to_string()))
}

/// `--index`: a bare type name (`hnsw`) or the JSON form of a schema file's `index`.
fn index_params(text: &str) -> Result<IndexParams, CliError> {
    let json = if text.trim_start().starts_with('{') { text.to_string() } else { format!(r#"{{"type": {text:?}}}"#) };
    serde_json::from_str(&json).map_err(|e| CliError::usage(format!("--index {text:?}: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_flags_parse_as_names_or_json() {
        assert_eq!(index_params("hnsw").unwrap().name(), "hnsw");
        assert_eq!(index_params(r#"{"type": "flat", "quantize": "int8"}"#).unwrap().name(), "flat");
        assert!(index_params("btree").unwrap_err().message.starts_with("--index \"btree\": unknown variant"));
    }
}
