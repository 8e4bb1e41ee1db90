//! `xvec create`: a schema from a JSON file, or from `--field`/`--vector` flags turned into
//! the same JSON form, so the engine validates both the same way.

use serde_json::{Map, Value as Json, json};
use xvec::{CollectionOptions, IndexParams, Metric, Schema};

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
        .idle_optimize_ms(a.idle_optimize_ms);
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
        fields.push(scalar_field(spec)?);
    }
    for spec in &a.vectors {
        let mut field = vector_field(spec)?;
        if let Some(index) = &index {
            field.insert("index".into(), serde_json::to_value(index).expect("index parameters serialize"));
        }
        fields.push(field);
    }
    let schema = json!({ "name": name, "fields": fields });
    Schema::from_json(&schema.to_string()).map_err(|e| CliError::usage(e.to_string()))
}

/// `--index`: a bare type name (`hnsw`) or the JSON form of a schema file's `index`.
fn index_params(text: &str) -> Result<IndexParams, CliError> {
    let json = if text.trim_start().starts_with('{') { text.to_string() } else { format!(r#"{{"type": {text:?}}}"#) };
    serde_json::from_str(&json).map_err(|e| CliError::usage(format!("--index {text:?}: {e}")))
}

/// One field of a schema file: `{"name", "type", "nullable"}`.
fn field_json(name: &str, ty: String, nullable: bool) -> Map<String, Json> {
    let mut f = Map::new();
    f.insert("name".into(), name.into());
    f.insert("type".into(), ty.into());
    f.insert("nullable".into(), nullable.into());
    f
}

/// `NAME:TYPE[:nullable]`.
fn scalar_field(spec: &str) -> Result<Map<String, Json>, CliError> {
    let bad = || CliError::usage(format!("--field {spec:?}: expected NAME:TYPE or NAME:TYPE:nullable"));
    let parts: Vec<&str> = spec.split(':').collect();
    match parts.as_slice() {
        [name, ty] => Ok(field_json(name, ty.to_string(), false)),
        [name, ty, "nullable"] => Ok(field_json(name, ty.to_string(), true)),
        _ => Err(bad()),
    }
}

/// `NAME:DIM:METRIC[:fp32|fp16|int8][:nullable]`.
fn vector_field(spec: &str) -> Result<Map<String, Json>, CliError> {
    let bad = |why: &str| {
        CliError::usage(format!("--vector {spec:?}: {why}; expected NAME:DIM:METRIC[:fp32|fp16|int8][:nullable]"))
    };
    let mut parts: Vec<&str> = spec.split(':').collect();
    let nullable = parts.last() == Some(&"nullable");
    if nullable {
        parts.pop();
    }
    let (name, dim, metric, elem) = match parts.as_slice() {
        [name, dim, metric] => (*name, *dim, *metric, "fp32"),
        [name, dim, metric, elem] => (*name, *dim, *metric, *elem),
        _ => return Err(bad("wrong number of parts")),
    };
    let dim: u32 = dim.parse().map_err(|_| bad(&format!("dimension {dim:?} is not a number")))?;
    let metric = match metric {
        "l2" => Metric::L2,
        "ip" => Metric::Ip,
        "cosine" => Metric::Cosine,
        other => return Err(bad(&format!("unknown metric {other:?}"))),
    };
    if !["fp32", "fp16", "int8"].contains(&elem) {
        return Err(bad(&format!("unknown element type {elem:?}")));
    }
    let mut f = field_json(name, format!("vector_{elem}"), nullable);
    f.insert("dim".into(), dim.into());
    f.insert("metric".into(), metric.name().into());
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_specs_become_schema_fields() {
        let f = Json::Object(scalar_field("n:int32:nullable").unwrap());
        assert_eq!(f, json!({"name": "n", "type": "int32", "nullable": true}));
        let v = Json::Object(vector_field("emb:384:cosine:fp16:nullable").unwrap());
        assert_eq!(v, json!({"name": "emb", "type": "vector_fp16", "nullable": true, "dim": 384, "metric": "cosine"}));
        assert_eq!(vector_field("emb:3:l2").unwrap()["type"], "vector_fp32");
        for bad in ["emb", "emb:x:l2", "emb:3:hamming", "emb:3:l2:fp64", "emb:3:l2:fp32:extra"] {
            let e = vector_field(bad).unwrap_err();
            assert!(e.message.starts_with("--vector"), "{}", e.message);
        }
        assert!(scalar_field("a:b:c").is_err());
        assert_eq!(index_params("hnsw").unwrap().name(), "hnsw");
        assert_eq!(index_params(r#"{"type": "flat", "quantize": "int8"}"#).unwrap().name(), "flat");
        assert!(index_params("btree").unwrap_err().message.starts_with("--index \"btree\": unknown variant"));
    }
}
