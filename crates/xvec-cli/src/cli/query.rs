//! The reading commands `query` and `count`, and `fetch`: build the engine's [`Query`]
//! from the flags, run it, and lay the hits out as a [`Table`].

use std::path::Path;

use xvec::{Collection, Group, GroupBy, Hit, Knob, Params, Query, Schema, Value};
use xvec_io::dataset::VectorFile;

use super::context::{Collections, Io, print, with_filter_caret};
use super::output::{Cell, Table};
use super::{CliError, CountArgs, FetchArgs, QueryArgs};

/// `query`: nearest neighbours, or groups of them with `--group-by` (with `--text` or
/// `--keys`, `hybrid::run` answers instead).
pub fn run(a: &QueryArgs, colls: &mut dyn Collections, io: &mut Io) -> Result<(), CliError> {
    let coll = colls.open(&a.coll.dir, false)?;
    let snap = super::versions::snapshot(coll, a.as_of.as_deref())?;
    search_flags_apply(snap.schema(), a)?;
    let caret = |e| with_filter_caret(e, a.filter.as_deref());
    let q = build_query(a, &io.params)?.params(io.params.clone());
    match &a.group_by {
        None => {
            let hits = without_self(a, snap.query(&q).map_err(caret)?, |h| &h.key);
            print(io, &hits_table(snap.schema(), &hits, &q))
        }
        Some(field) => {
            let by = GroupBy::new(field.clone(), a.k, a.per_group);
            print(io, &groups_table(snap.schema(), &snap.query_groups(&q, &by).map_err(caret)?, &q, field))
        }
    }
}

/// `count`: all live documents, or those a filter keeps.
pub fn count(a: &CountArgs, colls: &mut dyn Collections, io: &mut Io) -> Result<(), CliError> {
    if a.group_by.is_some() || !a.stats.is_empty() {
        return super::scan::aggregate(a, colls, io);
    }
    let coll = colls.open(&a.coll.dir, false)?;
    let snap = super::versions::snapshot(coll, a.as_of.as_deref())?;
    let n = match &a.filter {
        None => snap.count(),
        Some(f) => snap.count_where(Some(f), &io.params).map_err(|e| with_filter_caret(e, Some(f)))?,
    };
    let mut t = Table::new(["count"]);
    t.push(vec![n.into()]);
    print(io, &t)
}

/// Parses a vector literal: `[1, 2.5, -3]` or `1,2.5,-3`.
pub fn parse_vector(text: &str) -> Result<Vec<f32>, CliError> {
    let t = text.trim();
    let inner = t.strip_prefix('[').and_then(|s| s.strip_suffix(']')).unwrap_or(t);
    inner
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .enumerate()
        .map(|(i, s)| {
            s.parse::<f32>().map_err(|_| {
                let err = CliError::usage(format!("vector literal: element {i} is {s:?}, expected a number"));
                if s.chars().any(char::is_alphabetic) {
                    // Words where numbers go: the user has a text, not its embedding.
                    err.hint(
                        "xvec stores vectors and does not embed text: compute the query's vector with \
                         the model that made the collection's, or rank by words with --text (BM25 over \
                         a full-text field)",
                    )
                } else {
                    err
                }
            })
        })
        .collect()
}

/// The query vector `$name`: a `--param name=[...]` list of numbers.
fn vector_param(name: &str, params: &Params) -> Result<Vec<f32>, CliError> {
    let not_vector = |what: &str| {
        CliError::usage(format!("the query vector `${name}` is {what}; expected a list of numbers"))
            .hint(format!("--param {name}=[0.1, 0.2, ...]"))
    };
    match params.get(name) {
        None => Err(not_vector("not bound")),
        Some(xvec::Param::List(xs)) => xs
            .iter()
            .enumerate()
            .map(|(i, x)| match x {
                xvec::Param::Number(n) => {
                    n.parse::<f32>().map_err(|_| not_vector(&format!("{n} at element {}", i + 1)))
                }
                other => Err(not_vector(&format!("a list with {} at element {}", other.type_name(), i + 1))),
            })
            .collect(),
        Some(other) => Err(not_vector(&format!("a {}", other.type_name()))),
    }
}

/// The hits without the `--pk` document when `--exclude-self` asked for that (the query
/// then asked for one hit more), `-k` of them at most.
pub fn without_self<H>(a: &QueryArgs, mut hits: Vec<H>, key: impl Fn(&H) -> &String) -> Vec<H> {
    if let (true, Some(pk)) = (a.exclude_self, &a.pk) {
        hits.retain(|h| key(h) != pk);
        hits.truncate(a.k);
    }
    hits
}

/// Opens a vector file, with the error naming it.
pub fn open_vector_file(path: &Path) -> Result<VectorFile, CliError> {
    VectorFile::open(path).map_err(|e| CliError::failed(e.to_string()))
}

pub fn build_query(a: &QueryArgs, params: &Params) -> Result<Query, CliError> {
    if a.exclude_self && a.pk.is_none() {
        return Err(CliError::usage("--exclude-self needs --pk KEY: it leaves that document out"));
    }
    let mut q = if let Some(key) = &a.pk {
        Query::key(key.clone())
    } else if let Some(file) = &a.vector_file {
        let vf = open_vector_file(file)?;
        if a.row >= vf.len() {
            return Err(CliError::failed(format!(
                "{}: row {} is out of range; the file has {}",
                file.display(),
                a.row,
                super::plural::count(vf.len() as u64, "row")
            )));
        }
        let mut v = Vec::new();
        vf.read_row(a.row, &mut v);
        Query::vector(v)
    } else if let Some(name) = a.vector.as_deref().and_then(|v| v.strip_prefix('$')) {
        Query::vector(vector_param(name, params)?)
    } else if let Some(lit) = &a.vector {
        Query::vector(parse_vector(lit)?)
    } else {
        return Err(CliError::usage("query needs a VECTOR, --pk KEY, --vector-file FILE --row N, --text or --keys"));
    };
    q = q
        .k((a.k + usize::from(a.exclude_self)).min(xvec::MAX_K))
        .with_vectors(a.with_vectors)
        .field_opt(a.field.clone())
        .filter_opt(a.filter.clone())
        .fields_opt(a.fields.clone())
        .ef(a.ef)
        .nprobe(a.nprobe)
        .target_recall(a.target_recall.map(|r| r as f32))
        .refine(a.refine)
        .beam_width(a.beam_width);
    if let Some(refine) = a.refine {
        at_most("--refine × -k", refine, a.k, xvec::MAX_REFINE_CANDIDATES)?;
    }
    if a.group_by.is_some() {
        at_most("-k × --per-group", a.k, a.per_group, xvec::MAX_GROUP_HITS)?;
    }
    Ok(q)
}

/// Refuses `--ef`, `--nprobe`, `--target-recall`, `--refine` and `--beam-width` where the field's index
/// does not take them (the engine's [`IndexParams::search_knobs`](xvec::IndexParams::search_knobs)
/// says which it takes), before anything runs and with a hint naming the flags that do
/// apply. The field's index decides, not which segments are indexed yet: rows not yet
/// optimized are always searched exactly, and the flags apply to the rest.
pub fn search_flags_apply(schema: &Schema, a: &QueryArgs) -> Result<(), CliError> {
    let mut vectors = schema.fields().iter().filter_map(|f| f.as_vector().map(|v| (f.name.as_str(), v)));
    let found = match &a.field {
        Some(name) => vectors.find(|(n, _)| n == name),
        None => vectors.next().filter(|_| vectors.next().is_none()),
    };
    // An unknown or ambiguous field is the engine's to report.
    let Some((name, spec)) = found else { return Ok(()) };
    let given = [
        (Knob::Ef, a.ef.is_some()),
        (Knob::Nprobe, a.nprobe.is_some()),
        (Knob::TargetRecall, a.target_recall.is_some()),
        (Knob::Refine, a.refine.is_some()),
        (Knob::BeamWidth, a.beam_width.is_some()),
    ];
    for (knob, given) in given {
        if let Some(index) = spec.index.knob_refusal(knob).filter(|_| given) {
            let flag = knob_flag(knob);
            let msg = format!("{flag} does not apply to field `{name}`: its index is {index}; {flag} {}", knob.help());
            return Err(CliError::usage(msg).hint(format!("{} to this index (see `describe`)", applies(&spec.index))));
        }
    }
    Ok(())
}

/// The flag of a search knob: `--ef`, `--target-recall`.
pub(super) fn knob_flag(knob: Knob) -> String {
    format!("--{}", knob.name().replace('_', "-"))
}

/// Which search flags an index takes, as a hint says it: "--ef and --refine apply".
pub(super) fn applies(index: &xvec::IndexParams) -> String {
    let flags: Vec<String> = index.search_knobs().iter().map(|k| knob_flag(k.knob)).collect();
    match flags.as_slice() {
        [] => {
            let all: Vec<String> = Knob::ALL.into_iter().map(knob_flag).collect();
            format!("neither {} nor {} applies", all[..all.len() - 1].join(", "), all[all.len() - 1])
        }
        [one] => format!("{one} applies"),
        [init @ .., last] => format!("{} and {last} apply", init.join(", ")),
    }
}

/// Refuses flags whose product is above `limit` (each flag alone was range-checked).
fn at_most(what: &str, a: usize, b: usize, limit: usize) -> Result<(), CliError> {
    match a.checked_mul(b) {
        Some(p) if p <= limit => Ok(()),
        _ => {
            Err(CliError::usage(format!("{what} is {a} × {b} = {}, above the limit of {limit}", a as u128 * b as u128)))
        }
    }
}

/// The fields a query prints: `--fields`, else the scalar fields (and vectors if asked).
fn shown_fields(schema: &Schema, q: &Query) -> Vec<String> {
    match q.returned_fields() {
        Some(f) => f.to_vec(),
        None => schema
            .fields()
            .iter()
            .filter(|f| q.includes_vectors() || f.as_vector().is_none())
            .map(|f| f.name.clone())
            .collect(),
    }
}

fn hit_row(h: &Hit, names: &[String]) -> Vec<Cell> {
    let mut row: Vec<Cell> = vec![h.key.clone().into(), Cell::measure(xvec::json_f32(h.score))];
    row.extend(names.iter().map(|n| h.fields.get(n).map_or(serde_json::Value::Null, Value::to_json).into()));
    row
}

/// Results as a table: key, score, then the projected fields in schema order.
pub fn hits_table(schema: &Schema, hits: &[Hit], q: &Query) -> Table {
    let names = shown_fields(schema, q);
    let mut t = Table::new(["_key".to_string(), "score".to_string()].into_iter().chain(names.iter().cloned()));
    for h in hits {
        t.push(hit_row(h, &names));
    }
    t
}

/// Grouped results: one row per hit, led by the group's value (column `group:FIELD`).
fn groups_table(schema: &Schema, groups: &[Group], q: &Query, field: &str) -> Table {
    let names = shown_fields(schema, q);
    let headers = [format!("group:{field}"), "_key".into(), "score".into()];
    let mut t = Table::new(headers.into_iter().chain(names.iter().cloned()));
    for g in groups {
        for h in &g.hits {
            t.push(std::iter::once(Cell::from(g.value.to_json())).chain(hit_row(h, &names)).collect());
        }
    }
    t
}

/// `fetch`: documents by key, in the order given; missing keys are an error after the rest.
pub fn fetch(a: &FetchArgs, coll: &Collection, io: &mut Io) -> Result<(), CliError> {
    let keys: Vec<&str> = a.keys.iter().map(|k| k.as_str()).collect();
    let snap = super::versions::snapshot(coll, a.as_of.as_deref())?;
    let docs = snap.fetch(&keys, a.fields.as_deref())?;
    let names: Vec<String> = match &a.fields {
        Some(f) => f.clone(),
        None => snap.schema().fields().iter().map(|f| f.name.clone()).collect(),
    };
    let mut t = Table::new(std::iter::once("_key".to_string()).chain(names.iter().cloned()));
    let mut missing = Vec::new();
    for (key, doc) in a.keys.iter().zip(docs) {
        match doc {
            Some(d) => t.push(
                std::iter::once(Cell::from(d.key.clone()))
                    .chain(names.iter().map(|n| d.get(n).map_or(serde_json::Value::Null, Value::to_json).into()))
                    .collect(),
            ),
            None => missing.push(key.clone()),
        }
    }
    if !t.rows.is_empty() {
        print(io, &t)?;
    }
    if !missing.is_empty() {
        return Err(CliError::failed(format!("key not found: {}", missing.join(", "))));
    }
    Ok(())
}
