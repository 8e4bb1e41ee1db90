//! `xvec create`: a schema from a JSON file, or from `--field`/`--vector` flags turned into
//! the same JSON form, so the engine validates both the same way.

use xvec::{CollectionOptions, Field, IndexParams, Schema};

use super::context::{Collections, Io};
use super::{CliError, CreateArgs};

pub fn run(a: &CreateArgs, colls: &mut dyn Collections, io: &mut Io) -> Result<(), CliError> {
    let schema = match &a.schema {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| CliError::file(path, &e))?;
            Schema::from_json(&text).map_err(|e| CliError::failed(format!("{}: {e}", path.display())))?
        }
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
