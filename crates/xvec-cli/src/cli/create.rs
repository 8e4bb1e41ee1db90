//! `xvec create`: a schema from a JSON file, or from `--field`/`--vector` flags turned into
//! the same raw form, so the engine validates both the same way.

use xvec::schema::{RawField, RawSchema};
use xvec::{IndexParams, Metric, Schema};

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
    colls.create(&a.coll.dir, schema)?;
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
        fields.push(RawField { index: index.clone(), ..vector_field(spec)? });
    }
    RawSchema { name, fields, next_field_id: None }.into_schema().map_err(|e| CliError::usage(e.to_string()))
}

/// `--index`: a bare type name (`hnsw`) or the JSON form of a schema file's `index`.
fn index_params(text: &str) -> Result<IndexParams, CliError> {
    let json = if text.trim_start().starts_with('{') { text.to_string() } else { format!(r#"{{"type": {text:?}}}"#) };
    serde_json::from_str(&json).map_err(|e| CliError::usage(format!("--index {text:?}: {e}")))
}

fn raw(name: &str, ty: String, nullable: bool) -> RawField {
    RawField { id: None, name: name.to_string(), ty, nullable, dim: None, metric: None, index: None }
}

/// `NAME:TYPE[:nullable]`.
fn scalar_field(spec: &str) -> Result<RawField, CliError> {
    let bad = || CliError::usage(format!("--field {spec:?}: expected NAME:TYPE or NAME:TYPE:nullable"));
    let parts: Vec<&str> = spec.split(':').collect();
    match parts.as_slice() {
        [name, ty] => Ok(raw(name, ty.to_string(), false)),
        [name, ty, "nullable"] => Ok(raw(name, ty.to_string(), true)),
        _ => Err(bad()),
    }
}

/// `NAME:DIM:METRIC[:fp32|fp16|int8][:nullable]`.
fn vector_field(spec: &str) -> Result<RawField, CliError> {
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
    Ok(RawField { dim: Some(dim), metric: Some(metric), ..raw(name, format!("vector_{elem}"), nullable) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_specs_become_raw_fields() {
        let f = scalar_field("n:int32:nullable").unwrap();
        assert_eq!((f.name.as_str(), f.ty.as_str(), f.nullable), ("n", "int32", true));
        let v = vector_field("emb:384:cosine:fp16:nullable").unwrap();
        assert_eq!(
            (v.ty.as_str(), v.dim, v.metric, v.nullable),
            ("vector_fp16", Some(384), Some(Metric::Cosine), true)
        );
        assert_eq!(vector_field("emb:3:l2").unwrap().ty, "vector_fp32");
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
