//! `xvec alter`: changes to a collection's schema, each published in one step.

use clap::{Args, Subcommand};
use xvec::{Field, FieldChange, FieldType, IndexParams, IndexType, ScalarIndexKind, Schema, TextIndex};

use super::context::{Collections, Io, confirm};
use super::plural::count;
use super::{CliError, CollectionArg};

/// Change the schema: add, drop, rename, widen fields; add, drop, set indexes.
///
/// Each change is published in one step: readers see the old schema or the new one,
/// never a mix, and a reader on the old schema keeps working until it refreshes. No
/// change to a field rewrites a segment: rows written before an added field read its
/// default (or NULL), a dropped field's bytes stay until `xvec optimize` rewrites the
/// segments, and a widened field is widened as it is read. Widenings: int32 and uint32
/// to int64, uint32 to uint64, float to double (also between arrays of them), and each
/// scalar type to its array type (array_string, ...: each value becomes a one-element
/// array). An index added to a field is built for every segment before it is published.
/// Index JSON: {"type": "inverted"} (any scalar or array field: =, IN, LIKE 'prefix%',
/// ranges over few values, CONTAIN_ANY, CONTAIN_ALL), {"type": "range"} (numeric
/// fields: ranges) or {"type": "fts", "tokenizer": "standard", "filters": ["lowercase",
/// "stem_en"]} (string fields: query --text, MATCH); the bare names work too.
/// set-index changes a vector field's index (kind, parameters, quantization) in one
/// step; each segment gets the new index in turn, searched exactly until it has it;
/// the command waits until every segment has it (a rebuild cut short resumes at the
/// next writable open).
///
/// Example:
///   xvec alter words add-field note:string:nullable
///   xvec alter words add-field rank:int32 --default 0
///   xvec alter words add-field tags:array_string --default '[]'
///   xvec alter words add-field e2:8:ip:fp16:nullable
///   xvec alter words add-field '{"name": "e3", "type": "vector_fp16", "dim": 8, "metric": "ip", "nullable": true}'
///   xvec alter words rename-field note comment
///   xvec alter words alter-field rank --type int64
///   xvec alter words drop-field comment
///   xvec alter words add-index pos '{"type": "inverted"}'
///   xvec alter words add-index gloss '{"type": "fts", "filters": ["lowercase", "stem_en"]}'
///   xvec alter words drop-index pos inverted
///   xvec alter words set-index emb '{"type": "hnsw", "m": 32, "quantize": "int8"}'
///   xvec alter words set-index emb flat
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct AlterArgs {
    #[command(flatten)]
    pub coll: CollectionArg,
    #[command(subcommand)]
    pub change: Change,
}

#[derive(Debug, Subcommand)]
pub enum Change {
    /// Add a field; rows already written read its default, or NULL.
    AddField {
        /// NAME:TYPE[:nullable], NAME:DIM:METRIC[:fp32|fp16|int8][:nullable] (a vector
        /// field), or one field of schema JSON.
        #[arg(value_name = "NAME:TYPE[:nullable]")]
        field: String,
        /// The value rows written before, and documents that leave the field out, get
        /// (JSON; a bare word is a string). Required for a field that is not nullable.
        #[arg(long, value_name = "V")]
        default: Option<String>,
    },
    /// Drop a field and its indexes; optimize reclaims its bytes.
    ///
    /// Dropping the last vector field leaves nothing to query by vector: it asks first
    /// on a terminal, and needs --yes elsewhere (pipes, scripts).
    DropField {
        /// The field.
        #[arg(value_name = "NAME")]
        name: String,
        /// Drop the last vector field without asking.
        #[arg(long)]
        yes: bool,
    },
    /// Rename a field; its data and indexes stay as they are.
    RenameField {
        /// The field's name now.
        #[arg(value_name = "OLD")]
        old: String,
        /// Its new name.
        #[arg(value_name = "NEW")]
        new: String,
    },
    /// Widen a field's type (int32 to int64, float to double, string to array_string, ...).
    AlterField {
        /// The field.
        #[arg(value_name = "NAME")]
        name: String,
        /// The wider type.
        #[arg(long = "type", value_name = "T", value_parser = parse_field_type)]
        ty: FieldType,
    },
    /// Add a scalar or full-text index to a field and build it for every segment.
    AddIndex {
        /// The scalar field.
        #[arg(value_name = "FIELD")]
        field: String,
        /// The index: {"type": "inverted"}, {"type": "range"} or {"type": "fts", ...}, or
        /// the bare name.
        #[arg(value_name = "JSON", value_parser = parse_index)]
        index: IndexArg,
    },
    /// Drop a scalar or full-text index from a field; filters on it scan its column again.
    DropIndex {
        /// The scalar field.
        #[arg(value_name = "FIELD")]
        field: String,
        /// The index kind: inverted, range or fts.
        #[arg(value_name = "KIND", value_parser = parse_index)]
        kind: IndexArg,
    },
    /// Change a vector field's index (kind, parameters, quantization); waits for the build.
    SetIndex {
        /// The vector field.
        #[arg(value_name = "FIELD")]
        field: String,
        /// The index as schema JSON ({"type": "hnsw", "m": 32, ...}), or a bare type
        /// (flat, hnsw, vamana, ivf, qg) for its defaults.
        #[arg(value_name = "JSON")]
        index: String,
    },
}

/// An index `add-index` adds or `drop-index` drops.
#[derive(Clone, Debug, PartialEq)]
pub enum IndexArg {
    Scalar(ScalarIndexKind),
    Text(TextIndex),
}

impl IndexArg {
    fn name(&self) -> &'static str {
        match self {
            IndexArg::Scalar(k) => k.name(),
            IndexArg::Text(_) => "fts",
        }
    }
}

/// A full-text index (`fts`, `{"type": "fts", ...}`) or a scalar index kind.
fn parse_index(s: &str) -> Result<IndexArg, String> {
    let fts = s.trim() == "fts"
        || serde_json::from_str::<serde_json::Value>(s)
            .is_ok_and(|v| v.get("type").and_then(|t| t.as_str()) == Some("fts"));
    match fts {
        true => TextIndex::parse(s).map(IndexArg::Text),
        false => parse_kind(s).map(IndexArg::Scalar),
    }
}

fn parse_field_type(s: &str) -> Result<FieldType, String> {
    FieldType::scalar_or_array(s).ok_or_else(|| {
        format!(
            "unknown type {s:?}; expected string, bool, int32, int64, uint32, uint64, float, double or array_<one of those>"
        )
    })
}

/// The field `add-field` names: its short form (`NAME:TYPE[:nullable]`,
/// `NAME:DIM:METRIC[:ELEM][:nullable]`, [`Field::from_spec`]) with `--default`, or one
/// field of schema JSON (which may carry its own `default`); validated as a schema would
/// validate it.
fn field_to_add(spec: &str, default: Option<&str>) -> Result<Field, CliError> {
    let bad = |what: String| CliError::usage(format!("add-field {spec}: {what}"));
    let default = default.map(|d| serde_json::from_str(d).unwrap_or_else(|_| serde_json::Value::String(d.into())));
    let schema = if spec.trim_start().starts_with('{') {
        let mut object: serde_json::Value = serde_json::from_str(spec).map_err(|e| bad(format!("field JSON: {e}")))?;
        let Some(o) = object.as_object_mut() else { return Err(bad("field JSON must be an object".into())) };
        if let Some(d) = default {
            o.insert("default".into(), d);
        }
        Schema::from_json(&serde_json::json!({ "name": "field", "fields": [object] }).to_string())
    } else {
        let field = Field::from_spec(spec).map_err(|e| CliError::usage(format!("add-field: {e}")))?;
        Schema::new(
            "field",
            vec![match default {
                Some(d) => field.default_value(d),
                None => field,
            }],
        )
    };
    Ok(schema.map_err(|e| bad(e.to_string()))?.field(0).clone())
}

/// An index kind from `{"type": "inverted"}` or a bare `inverted`.
fn parse_kind(s: &str) -> Result<ScalarIndexKind, String> {
    let name = match serde_json::from_str::<serde_json::Value>(s) {
        Ok(serde_json::Value::Object(obj)) => {
            if let Some(key) = obj.keys().find(|k| *k != "type") {
                return Err(format!("unknown key `{key}`; a scalar index takes only `type`"));
            }
            match obj.get("type") {
                Some(serde_json::Value::String(t)) => t.clone(),
                _ => return Err("expected {\"type\": \"inverted\"} or {\"type\": \"range\"}".into()),
            }
        }
        _ => s.trim().to_string(),
    };
    ScalarIndexKind::from_name(&name).ok_or_else(|| match name.parse::<IndexType>() {
        Ok(_) => format!(
            "unknown index type {name:?}; expected inverted, range or fts (a vector field's index changes with \
             set-index FIELD '{{\"type\": \"{name}\", ...}}')"
        ),
        Err(_) => format!("unknown index type {name:?}; expected inverted, range or fts"),
    })
}

/// The index `set-index` gives `field`: schema JSON, or a bare type for its defaults.
fn index_params(field: &str, s: &str) -> Result<IndexParams, CliError> {
    let bad = |what: String| CliError::usage(format!("set-index {field}: {what}"));
    if !s.trim_start().starts_with('{') {
        let kind = s.trim().parse::<IndexType>().map_err(|e| bad(e.to_string()))?;
        return Ok(IndexParams::defaults(kind));
    }
    serde_json::from_str(s).map_err(|e| bad(format!("index JSON: {e}")))
}

/// Waits until every segment has `field`'s new index, or the build fails (it resumes at
/// the next writable open), with a bar of segments built on a terminal; returns the
/// segments it was built for.
fn wait_for_rebuild(coll: &xvec::Collection, field: &str) -> Result<usize, CliError> {
    use std::io::IsTerminal;
    let bar = match std::io::stderr().is_terminal() {
        true => indicatif::ProgressBar::new(0).with_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} segments indexed, {elapsed}")
                .expect("progress template"),
        ),
        false => indicatif::ProgressBar::hidden(),
    };
    let waited = loop {
        let stats = coll.stats();
        let Some(build) = stats.index_builds.iter().find(|b| b.field == field) else {
            break Ok(stats.segments.len());
        };
        bar.set_length(build.segments_total as u64);
        bar.set_position(build.segments_done as u64);
        if let Some(e) = stats.background_error {
            break Err(CliError::failed(format!(
                "building the new index of {field} ({} of {} segments done): {e}",
                build.segments_done, build.segments_total
            ))
            .hint("the rebuild resumes at the next writable open; until then those segments are searched exactly"));
        }
        if let Err(e) = super::interrupt::check() {
            break Err(e);
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    bar.finish_and_clear();
    waited
}

/// Dropping the last vector field goes ahead with --yes, or once confirmed on a terminal.
fn drop_last_vector(name: &str, yes: bool, can_ask: bool, io: &mut Io) -> Result<(), CliError> {
    let what = format!("`{name}` is the collection's last vector field: without it nothing can be queried by vector");
    if yes {
        return Ok(());
    }
    if !can_ask {
        return Err(CliError::usage(format!("{what}; pass --yes to drop it")));
    }
    if !confirm(io, &format!("{what}. Drop it?"))? {
        return Err(CliError::failed("not dropped; the collection is unchanged"));
    }
    Ok(())
}

pub fn run(a: &AlterArgs, colls: &mut dyn Collections, io: &mut Io) -> Result<(), CliError> {
    let can_ask = colls.can_ask();
    let coll = colls.open(&a.coll.dir, true)?;
    let segments = coll.stats().segments.len() as u64;
    match &a.change {
        Change::AddField { field, default } => {
            let field = field_to_add(field, default.as_deref())?;
            let what = match &field.default {
                Some(d) => format!("rows already written read {d}"),
                None => "rows already written read NULL".into(),
            };
            let name = field.name.clone();
            coll.change_field(FieldChange::Add(field))?;
            writeln!(io.err, "added: field {name}; {what}; no segment rewritten")?;
        }
        Change::DropField { name, yes } => {
            let schema = coll.schema();
            let vectors: Vec<&str> =
                schema.fields().iter().filter(|f| f.as_vector().is_some()).map(|f| f.name.as_str()).collect();
            if vectors == [name.as_str()] {
                drop_last_vector(name, *yes, can_ask, io)?;
            }
            coll.change_field(FieldChange::Drop(name.clone()))?;
            writeln!(io.err, "dropped: field {name}; `xvec optimize` reclaims its bytes")?;
        }
        Change::RenameField { old, new } => {
            coll.change_field(FieldChange::Rename { from: old.clone(), to: new.clone() })?;
            writeln!(io.err, "renamed: field {old} to {new}")?;
        }
        Change::AlterField { name, ty } => {
            coll.change_field(FieldChange::Widen { field: name.clone(), to: ty.clone() })?;
            writeln!(io.err, "altered: field {name} is {}; no segment rewritten", ty.name())?;
        }
        Change::AddIndex { field, index } => {
            match index {
                IndexArg::Scalar(kind) => coll.add_scalar_index(field, *kind)?,
                IndexArg::Text(text) => coll.add_text_index(field, text.clone())?,
            }
            writeln!(io.err, "added: {} index on {field}, built for {}", index.name(), count(segments, "segment"))?;
        }
        Change::SetIndex { field, index } => {
            let index = index_params(field, index)?;
            coll.change_field(FieldChange::SetIndex { field: field.clone(), index })?;
            let built = wait_for_rebuild(coll, field)?;
            let now = coll.schema();
            let index = now.index_of(field).and_then(|i| now.field(i).as_vector()).map(|v| v.index.clone());
            let index = index.unwrap_or_default();
            let done = match index.builds_index() {
                true => format!("built for {}", count(built as u64, "segment")),
                false => "nothing to build: searches scan the vectors".into(),
            };
            writeln!(io.err, "set: {field} index is {}, {done}", index.describe())?;
        }
        Change::DropIndex { field, kind } => {
            match kind {
                IndexArg::Scalar(k) => coll.drop_scalar_index(field, *k)?,
                IndexArg::Text(_) => coll.drop_text_index(field)?,
            }
            writeln!(io.err, "dropped: {} index on {field}", kind.name())?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use xvec::ScalarType;

    #[test]
    fn kinds_parse_from_json_or_names() {
        assert_eq!(parse_kind(r#"{"type": "inverted"}"#), Ok(ScalarIndexKind::Inverted));
        assert_eq!(parse_index("fts"), Ok(IndexArg::Text(TextIndex::new(Default::default()))));
        let stem = parse_index(r#"{"type": "fts", "filters": ["lowercase", "stem_en"]}"#).unwrap();
        assert!(matches!(stem, IndexArg::Text(t) if t.analyzer.filters.len() == 2));
        assert!(parse_index(r#"{"type": "fts", "tokenizer": "x"}"#).unwrap_err().contains("x"));
        assert_eq!(parse_kind("range"), Ok(ScalarIndexKind::Range));
        assert!(parse_kind(r#"{"type": "inverted", "x": 1}"#).unwrap_err().contains("unknown key `x`"));
        assert!(parse_kind("btree").unwrap_err().contains("expected inverted, range or fts"));
        assert!(parse_kind(r#"{"type": 3}"#).is_err());
    }

    #[test]
    fn fields_to_add_parse_from_specs_or_json() {
        let f = field_to_add("note:string:nullable", None).unwrap();
        assert_eq!((f.name.as_str(), f.as_scalar(), f.nullable), ("note", Some(ScalarType::String), true));
        assert_eq!(field_to_add("rank:int32", Some("7")).unwrap().default, Some(7.into()));
        assert_eq!(field_to_add("tag:string", Some("none")).unwrap().default, Some("none".into()));
        let v =
            field_to_add(r#"{"name": "e", "type": "vector_fp16", "dim": 8, "metric": "ip", "nullable": true}"#, None);
        assert_eq!(v.unwrap().as_vector().map(|v| v.dim), Some(8));
        let err = |s: &str, d: Option<&str>| field_to_add(s, d).unwrap_err().message;
        assert!(err("note", None).contains("expected NAME:TYPE"));
        assert!(err("note:string:maybe", None).contains("unknown modifier"));
        assert!(err("e:vector_fp32", None).contains("needs a dimension and a metric"));
        assert_eq!(field_to_add("e:8:ip:nullable", None).unwrap().as_vector().map(|v| v.dim), Some(8));
        assert!(err("n:int32", Some("x")).contains("not a int32 value"));
        assert!(err("n:text", None).contains("unknown type"));
    }
}
