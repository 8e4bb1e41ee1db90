//! `insert`, `upsert`, `update` and `delete`: documents and keys from the command line.
//! Each document is validated by the engine; a failed item is reported by key and makes
//! the command fail after the others were written.

use xvec::Doc;
use xvec::ItemResult;

use super::context::{Collections, Io, with_filter_caret};
use super::plural::count;
use super::{CliError, DeleteArgs, DocArgs};

/// What a document write does with existing keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Insert,
    Upsert,
    Update,
}

impl Mode {
    fn past(self) -> &'static str {
        match self {
            Mode::Insert => "inserted",
            Mode::Upsert => "upserted",
            Mode::Update => "updated",
        }
    }
}

pub fn write_docs(a: &DocArgs, mode: Mode, colls: &mut dyn Collections, io: &mut Io) -> Result<(), CliError> {
    let coll = colls.open(&a.coll.dir, true)?;
    let mut docs: Vec<Doc> = Vec::with_capacity(a.docs.len());
    for (i, text) in a.docs.iter().enumerate() {
        let _: serde_json::Map<String, serde_json::Value> = serde_json::from_str(text).map_err(|e| {
            CliError::usage(format!("document {}: expected a JSON object: {e}", i + 1))
                .hint(r#"quote it, e.g. '{"id": "k1", "title": "..."}'"#)
        })?;
        // Read again to refuse a member named twice, which serde_json's map keeps the last of.
        let obj = super::import::json_object(text).map_err(|e| CliError::usage(format!("document {}: {e}", i + 1)))?;
        docs.push(
            xvec::Doc::from_json(&coll.schema(), &obj, &a.key_field)
                .map_err(|e| CliError::failed(format!("document {}: {e}", i + 1)))?,
        );
    }
    let results = match mode {
        Mode::Insert => coll.insert(docs)?,
        Mode::Upsert => coll.upsert(docs)?,
        Mode::Update => coll.update(docs)?,
    };
    summarize(mode.past(), &results, io)
}

pub fn delete(a: &DeleteArgs, colls: &mut dyn Collections, io: &mut Io) -> Result<(), CliError> {
    let coll = colls.open(&a.coll.dir, true)?;
    match &a.filter {
        Some(f) => {
            let n = coll.delete_where_with(f, &io.params).map_err(|e| with_filter_caret(e, Some(f)))?;
            writeln!(io.err, "deleted {}", count(n, "document"))?;
            Ok(())
        }
        None => {
            let keys: Vec<&str> = a.keys.iter().map(String::as_str).collect();
            let results = coll.delete(&keys)?;
            summarize("deleted", &results, io)
        }
    }
}

/// Reports the count written on stderr; fails naming the first failed items, if any.
fn summarize(verb: &str, results: &[ItemResult], io: &mut Io) -> Result<(), CliError> {
    const SHOWN: usize = 3;
    let errors: Vec<String> = results.iter().filter_map(|r| r.as_ref().err()).map(ToString::to_string).collect();
    writeln!(io.err, "{verb} {}", count((results.len() - errors.len()) as u64, "document"))?;
    if errors.is_empty() {
        return Ok(());
    }
    let mut why = errors.iter().take(SHOWN).cloned().collect::<Vec<_>>().join("; ");
    if errors.len() > SHOWN {
        why.push_str(&format!("; and {} more", errors.len() - SHOWN));
    }
    let what = if errors.len() == 1 { "was" } else { "were" };
    let of = count(results.len() as u64, "document");
    Err(CliError::failed(format!("{} of {of} {what} not {verb}: {why}", errors.len())))
}
