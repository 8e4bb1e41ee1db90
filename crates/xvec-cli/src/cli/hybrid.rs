//! `query` with `--text` or `--keys`: the vector query (when given), BM25 over a full-text
//! field and a key lookup as branches of one hybrid query, fused, each hit showing where
//! every branch ranked it; and `analyze`, the terms a full-text field makes of a text.

use xvec::{Branch, BranchKind, Fusion, HybridHit, HybridQuery, Params, Schema, Value};

use super::context::{Collections, Io, print, with_filter_caret};
use super::output::{Cell, Table};
use super::query::{build_query, search_flags_apply};
use super::{AnalyzeArgs, CliError, FusionKind, QueryArgs};

/// Whether the flags ask for a hybrid query.
pub fn wanted(a: &QueryArgs) -> bool {
    a.text.is_some() || a.keys.is_some() || a.sparse.is_some() || a.sparse_text.is_some() || a.json.is_some()
}

/// The query of `--json`: the text, or the file after `@`.
fn from_json(text: &str, params: &Params) -> Result<HybridQuery, CliError> {
    let text = match text.strip_prefix('@') {
        Some(path) => {
            let path = std::path::Path::new(path);
            std::fs::read_to_string(path).map_err(|e| CliError::file(path, &e))?
        }
        None => text.to_string(),
    };
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| CliError::usage(format!("--json: {e}")))?;
    let q = HybridQuery::from_json(&v).map_err(|e| CliError::usage(format!("--json: {e}")))?;
    Ok(q.params(params.clone()))
}

/// `query --text/--keys`: the hybrid query, its fused hits printed.
pub fn run(a: &QueryArgs, colls: &mut dyn Collections, io: &mut Io) -> Result<(), CliError> {
    let coll = colls.open(&a.coll.dir, false)?;
    let snap = super::versions::snapshot(coll, a.as_of.as_deref())?;
    search_flags_apply(snap.schema(), a)?;
    let q = build(a, &io.params)?;
    let hits = snap.hybrid(&q).map_err(|e| with_filter_caret(e, a.filter.as_deref()))?;
    let hits = super::query::without_self(a, hits, |h| &h.key);
    print(io, &table(snap.schema(), &hits, &q))
}

/// What the tool calls a branch: by the flag that makes it.
pub fn label(kind: BranchKind) -> &'static str {
    match kind {
        BranchKind::Dense => "vector",
        BranchKind::Text => "text",
        BranchKind::Keys => "keys",
        BranchKind::Sparse => "sparse",
    }
}

/// The hybrid query the flags describe: branches in the order vector, text, sparse, keys.
pub fn build(a: &QueryArgs, params: &Params) -> Result<HybridQuery, CliError> {
    if let Some(json) = &a.json {
        return from_json(json, params);
    }
    if a.group_by.is_some() {
        return Err(CliError::usage("--group-by does not combine with --text, --sparse or --keys"));
    }
    // --exclude-self asks every branch and the fusion for one hit more, the document itself.
    let extra = usize::from(a.exclude_self);
    let branch_k = (a.branch_k.unwrap_or(a.k) + extra).min(xvec::MAX_K);
    let mut branches = Vec::new();
    if a.vector.is_some() || a.pk.is_some() || a.vector_file.is_some() {
        branches.push(Branch::Dense(build_query(a, params)?.k(branch_k)));
    }
    if let Some(text) = &a.text {
        branches.push(Branch::text_in(a.text_field.clone(), text.clone(), branch_k));
    }
    let sparse = match (&a.sparse, &a.sparse_text, &a.vocabulary) {
        (Some(vector), _, _) => Some(vector.clone()),
        (None, Some(text), Some(path)) => Some(super::vocabulary::load(path)?.query(text)),
        _ => None,
    };
    if (a.sparse_field.is_some() || a.sparse_budget.is_some()) && sparse.is_none() {
        return Err(CliError::usage("--sparse-field and --sparse-budget need --sparse or --sparse-text"));
    }
    if let Some(vector) = sparse {
        let (field, budget) = (a.sparse_field.clone(), a.sparse_budget);
        branches.push(Branch::Sparse { field, vector, k: branch_k, budget });
    }
    if let Some(keys) = &a.keys {
        branches.push(Branch::Keys(keys.clone()));
    }
    let fusion = match (a.fusion, &a.weights) {
        (FusionKind::Rrf, None) => Fusion::Rrf { k: a.rrf_k },
        (FusionKind::Rrf, Some(_)) => return Err(CliError::usage("--weights needs --fusion weighted")),
        (FusionKind::Weighted, Some(w)) if w.len() == branches.len() => Fusion::Weighted(w.clone()),
        (FusionKind::Weighted, w) => {
            return Err(CliError::usage(format!(
                "--fusion weighted needs one weight per branch ({}), found {}",
                branches.iter().map(|b| label(b.kind())).collect::<Vec<_>>().join(", "),
                w.as_ref().map_or(0, Vec::len)
            ))
            .hint(format!("--weights {}", vec!["0.5"; branches.len()].join(","))));
        }
    };
    Ok(HybridQuery::new(branches)
        .k((a.k + extra).min(xvec::MAX_K))
        .filter_opt(a.filter.clone())
        .fields_opt(a.fields.clone())
        .params(params.clone())
        .fusion(fusion))
}

/// Fused hits: key, fused score, each branch's rank and score, then the fields.
pub fn table(schema: &Schema, hits: &[HybridHit], q: &HybridQuery) -> Table {
    let names: Vec<String> = match q.projection() {
        Some(f) => f.to_vec(),
        None => schema
            .fields()
            .iter()
            .filter(|f| f.as_vector().is_none() && !matches!(f.ty, xvec::FieldType::Sparse(_)))
            .map(|f| f.name.clone())
            .collect(),
    };
    let branch_names: Vec<&str> = q.branches().iter().map(|b| label(b.kind())).collect();
    let mut headers = vec!["_key".to_string(), "score".to_string()];
    for b in &branch_names {
        headers.push(format!("{b}_rank"));
        headers.push(format!("{b}_score"));
    }
    headers.extend(names.iter().cloned());
    let mut t = Table::new(headers);
    for h in hits {
        let mut row: Vec<Cell> = vec![h.key.clone().into(), Cell::measure(xvec::json_f32(h.score))];
        for b in &h.branches {
            match b {
                Some(b) => {
                    row.push(Cell::measure(serde_json::Value::from(b.rank)));
                    row.push(Cell::measure(xvec::json_f32(b.score)));
                }
                None => row.extend([Cell::from(serde_json::Value::Null), Cell::from(serde_json::Value::Null)]),
            }
        }
        row.extend(names.iter().map(|n| h.fields.get(n).map_or(serde_json::Value::Null, Value::to_json).into()));
        t.push(row);
    }
    t
}

/// `analyze`: the terms of a text as the field's full-text analyzer makes them.
pub fn analyze(a: &AnalyzeArgs, colls: &mut dyn Collections, io: &mut Io) -> Result<(), CliError> {
    let coll = colls.open(&a.coll.dir, false)?;
    let schema = coll.schema();
    let field = schema.fields().iter().find(|f| f.name == a.field);
    let Some(index) = field.and_then(|f| f.text.as_ref()) else {
        let texts: Vec<&str> = schema.fields().iter().filter(|f| f.text.is_some()).map(|f| f.name.as_str()).collect();
        let hint = match texts.is_empty() {
            true => "declare one in the schema: \"index\": {\"type\": \"fts\"} on a string field".to_string(),
            false => format!("full-text fields: {}", texts.join(", ")),
        };
        return Err(CliError::failed(format!("field `{}` has no full-text (fts) index", a.field)).hint(hint));
    };
    let analyzer = xvec::text::Analyzer::new(&index.analyzer).map_err(|e| CliError::failed(e.to_string()))?;
    let mut t = Table::new(["term", "position", "start", "end"]);
    for token in analyzer.tokens(&a.text) {
        t.push(vec![
            token.text.into(),
            Cell::measure(token.position.into()),
            Cell::measure(token.start.into()),
            Cell::measure(token.end.into()),
        ]);
    }
    print(io, &t)
}
