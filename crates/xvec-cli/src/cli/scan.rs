//! `scan` (alias `select`): browse rows a page at a time, in key order or by a field,
//! through the engine's [`ScanRequest`]; and `count --group-by` / `count --stats`, the
//! engine's facets and field statistics.

use clap::Args;
use xvec::{Params, ScanRequest, Schema, Value};

use super::context::{Collections, Io, print, with_filter_caret};
use super::output::{Cell, OutputMode, Table};
use super::plural::count;
use super::{BindArgs, CliError, CollectionArg, CountArgs};

/// Browse rows a page at a time, by key or by a field (alias: select).
///
/// Prints the rows a filter keeps (every live row without one), --limit at a time, in
/// key order or by --order-by FIELD (then by key; nulls last, first with desc, as in
/// PostgreSQL). When more rows follow, the footer gives the cursor of the next page for
/// --after (in csv, tsv, json and jsonl it goes to stderr as a note). Every field is
/// shown unless --fields picks some; vectors are abbreviated in tables, whole in json.
///
/// Example:
///   xvec scan words --where "pos = 'v'" --fields lemma,n_lemmas --limit 5
///   xvec scan words --order-by n_lemmas desc --fields lemma,n_lemmas --mode json
///   xvec select words --fields lemma --after v.01165043 --limit 5
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct ScanArgs {
    #[command(flatten)]
    pub coll: CollectionArg,
    /// Only documents matching this filter, e.g. "pos = 'n' AND n_lemmas > 1".
    #[arg(long, visible_alias = "where", value_name = "EXPR")]
    pub filter: Option<String>,
    /// Fields to print, comma-separated (default: all, vectors too).
    #[arg(long, value_name = "FIELDS", value_delimiter = ',')]
    pub fields: Option<Vec<String>>,
    /// Rows to print, at least 1.
    #[arg(long, value_name = "N", default_value_t = 20, value_parser = super::size(1, usize::MAX))]
    pub limit: usize,
    /// Print every row the filter keeps (no --limit).
    #[arg(long, conflicts_with = "limit")]
    pub all: bool,
    /// Skip this many rows first (after --after's cursor, if any).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub offset: usize,
    /// Order by this scalar field, then by key (default: by key); `FIELD desc` or
    /// --desc for descending order.
    #[arg(long, value_names = ["FIELD", "asc|desc"], num_args = 1..=2)]
    pub order_by: Vec<String>,
    /// Descending order.
    #[arg(long)]
    pub desc: bool,
    /// Start after this cursor: the one a page's footer gives (in key order, a key).
    #[arg(long, value_name = "CURSOR")]
    pub after: Option<String>,
    /// Read an older version (a number from `xvec versions`, or a tag) instead of the
    /// live one: time travel.
    #[arg(long, value_name = "VERSION|TAG")]
    pub as_of: Option<String>,
    #[command(flatten)]
    pub bind: BindArgs,
}

/// The engine's request for `a`: `--order-by FIELD [asc|desc]` (one word or two) and
/// `--desc` resolved.
pub fn request(a: &ScanArgs, params: &Params) -> Result<ScanRequest, CliError> {
    let words: Vec<&str> = a.order_by.iter().flat_map(|w| w.split_whitespace()).collect();
    let (field, desc) = match words.as_slice() {
        [] => (None, a.desc),
        [field] => (Some(field.to_string()), a.desc),
        [field, dir] if dir.eq_ignore_ascii_case("desc") => (Some(field.to_string()), true),
        [field, dir] if dir.eq_ignore_ascii_case("asc") && !a.desc => (Some(field.to_string()), false),
        _ => {
            return Err(CliError::usage(format!(
                "--order-by {}: expected FIELD, FIELD asc or FIELD desc",
                a.order_by.join(" ")
            )));
        }
    };
    Ok(ScanRequest::new()
        .filter_opt(a.filter.clone())
        .params(params.clone())
        .fields_opt(a.fields.clone())
        .order_by_opt(field)
        .desc(desc)
        .limit((!a.all).then_some(a.limit))
        .offset(a.offset)
        .after(a.after.clone()))
}

/// `scan`: one page of rows.
pub fn run(a: &ScanArgs, colls: &mut dyn Collections, io: &mut Io) -> Result<(), CliError> {
    let coll = colls.open(&a.coll.dir, false)?;
    let snap = super::versions::snapshot(coll, a.as_of.as_deref())?;
    let page = snap.scan_page(&request(a, &io.params)?).map_err(|e| with_filter_caret(e, a.filter.as_deref()))?;
    let names = shown(snap.schema(), a.fields.as_deref());
    let mut t = Table::new(std::iter::once("_key".to_string()).chain(names.iter().cloned()));
    for d in &page.docs {
        t.push(
            std::iter::once(Cell::from(d.key.clone()))
                .chain(names.iter().map(|n| d.get(n).map_or(serde_json::Value::Null, Value::to_json).into()))
                .collect(),
        );
    }
    let more = page
        .next
        .map(|c| format!("{} shown; more follow: --after {}", count(page.docs.len() as u64, "row"), shell_quoted(&c)));
    note(io, &mut t, more)?;
    print(io, &t)
}

/// The fields a page prints: `--fields`, else every field in schema order.
fn shown(schema: &Schema, fields: Option<&[String]>) -> Vec<String> {
    match fields {
        Some(f) => f.to_vec(),
        None => schema.fields().iter().map(|f| f.name.clone()).collect(),
    }
}

/// Says what a table leaves out: in its footer where the mode prints one for people, as a
/// note on stderr where the output is data (csv, tsv, json, jsonl).
fn note(io: &mut Io, t: &mut Table, what: Option<String>) -> Result<(), CliError> {
    let Some(what) = what else { return Ok(()) };
    match io.printer.mode {
        OutputMode::Table | OutputMode::Markdown | OutputMode::Line | OutputMode::Column => t.footer = Some(what),
        OutputMode::Csv | OutputMode::Tsv | OutputMode::Json | OutputMode::Jsonl => {
            writeln!(io.err, "note: {what}")?;
        }
    }
    Ok(())
}

/// `text` as one shell word: as it is when it is plain, else in single quotes.
fn shell_quoted(text: &str) -> String {
    let plain = !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || "._-:/@+,=".contains(c));
    if plain { text.to_string() } else { format!("'{}'", text.replace('\'', "'\\''")) }
}

/// `count --group-by FIELD`: the most frequent values and their rows, then the rows
/// without a value (a NULL row); `count --stats FIELDS`: one row of statistics a field.
pub fn aggregate(a: &CountArgs, colls: &mut dyn Collections, io: &mut Io) -> Result<(), CliError> {
    let coll = colls.open(&a.coll.dir, false)?;
    let snap = super::versions::snapshot(coll, a.as_of.as_deref())?;
    let caret = |e| with_filter_caret(e, a.filter.as_deref());
    if let Some(field) = &a.group_by {
        let f = snap.facets(field, a.filter.as_deref(), &io.params, a.top).map_err(caret)?;
        let mut t = Table::new([field.as_str(), "count"]);
        for (value, n) in &f.values {
            t.push(vec![value.to_json().into(), (*n).into()]);
        }
        if f.missing > 0 {
            t.push(vec![serde_json::Value::Null.into(), f.missing.into()]);
        }
        let left = f.distinct - f.values.len() as u64;
        let more = (left > 0).then(|| {
            let array = snap.schema().index_of(field).is_some_and(|i| snap.schema().field(i).ty.is_array());
            let noun = if array { "element" } else { "row" };
            format!("{} with {}: raise --top to see them", count(left, "more value"), count(f.others, noun))
        });
        note(io, &mut t, more)?;
        return print(io, &t);
    }
    let mut t = Table::new(["field", "rows", "count", "min", "max", "sum", "avg"]);
    for field in &a.stats {
        let s = snap.field_stats(field, a.filter.as_deref(), &io.params).map_err(caret)?;
        let avg = s.avg.map_or(serde_json::Value::Null, |x| {
            serde_json::Number::from_f64(x).map_or(serde_json::Value::Null, serde_json::Value::Number)
        });
        t.push(vec![
            field.clone().into(),
            s.rows.into(),
            s.count.into(),
            s.min.to_json().into(),
            s.max.to_json().into(),
            s.sum.to_json().into(),
            // A computed mean, not stored data: tables round it as they do scores.
            Cell::measure(avg),
        ]);
    }
    print(io, &t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_are_quoted_for_the_shell_only_when_needed() {
        assert_eq!(shell_quoted("n.01317391"), "n.01317391");
        assert_eq!(shell_quoted("[2,\"k 1\"]"), "'[2,\"k 1\"]'");
        assert_eq!(shell_quoted("it's"), "'it'\\''s'");
        assert_eq!(shell_quoted(""), "''");
    }
}
