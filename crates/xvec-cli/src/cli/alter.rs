//! `xvec alter`: changes to a collection's schema, each published in one step.

use clap::{Args, Subcommand};
use xvec::ScalarIndexKind;

use super::context::{Collections, Io};
use super::plural::count;
use super::{CliError, CollectionArg};

/// Change the schema: add or drop a scalar index.
///
/// Each change is published in one step: readers see the old schema or the new one,
/// never a mix, and a reader on the old schema keeps working until it refreshes. An index
/// added to a field is built for every segment before it is published (rows not flushed
/// yet are indexed by their flush). Index JSON: {"type": "inverted"} (any scalar field:
/// =, IN, LIKE 'prefix%', ranges over few values) or {"type": "range"} (numeric fields:
/// ranges); the bare names work too.
///
/// Example:
///   xvec alter words add-index pos '{"type": "inverted"}'
///   xvec alter words add-index n_lemmas range
///   xvec alter words drop-index pos inverted
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
    /// Add a scalar index to a field and build it for every segment.
    AddIndex {
        /// The scalar field.
        #[arg(value_name = "FIELD")]
        field: String,
        /// The index: {"type": "inverted"} or {"type": "range"}, or the bare name.
        #[arg(value_name = "JSON", value_parser = parse_kind)]
        index: ScalarIndexKind,
    },
    /// Drop a scalar index from a field; filters on it scan its column again.
    DropIndex {
        /// The scalar field.
        #[arg(value_name = "FIELD")]
        field: String,
        /// The index kind: inverted or range.
        #[arg(value_name = "KIND", value_parser = parse_kind)]
        kind: ScalarIndexKind,
    },
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
    ScalarIndexKind::from_name(&name)
        .ok_or_else(|| format!("unknown scalar index type {name:?}; expected inverted or range"))
}

pub fn run(a: &AlterArgs, colls: &mut dyn Collections, io: &mut Io) -> Result<(), CliError> {
    let coll = colls.open(&a.coll.dir, true)?;
    let segments = coll.stats().segments.len() as u64;
    match &a.change {
        Change::AddIndex { field, index } => {
            coll.add_scalar_index(field, *index)?;
            writeln!(io.err, "added: {} index on {field}, built for {}", index.name(), count(segments, "segment"))?;
        }
        Change::DropIndex { field, kind } => {
            coll.drop_scalar_index(field, *kind)?;
            writeln!(io.err, "dropped: {} index on {field}", kind.name())?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_parse_from_json_or_names() {
        assert_eq!(parse_kind(r#"{"type": "inverted"}"#), Ok(ScalarIndexKind::Inverted));
        assert_eq!(parse_kind("range"), Ok(ScalarIndexKind::Range));
        assert!(parse_kind(r#"{"type": "inverted", "x": 1}"#).unwrap_err().contains("unknown key `x`"));
        assert!(parse_kind("btree").unwrap_err().contains("expected inverted or range"));
        assert!(parse_kind(r#"{"type": 3}"#).is_err());
    }
}
