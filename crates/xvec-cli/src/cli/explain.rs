//! `explain query`, `count` and `scan` (and `explain analyze` of each): how it ran,
//! segment by segment (a hybrid query, branch by branch).

use clap::{Args, Subcommand};
use xvec::{Access, BranchKind, Explain, HybridExplain, ScalarIndexKind, SearchKind, SearchPath};

use super::context::{Collections, Io, print, with_filter_caret};
use super::output::{Cell, Table};
use super::plural::count;
use super::scan::ScanArgs;
use super::{CliError, CountArgs, QueryArgs};

/// Show how a query, count or scan runs: index or scan per predicate and segment.
///
/// Runs the query (the planner decides per segment while it runs) and prints, for each
/// segment and memtable chunk, how each filter predicate found its rows: an inverted or
/// range index, a scan of its column, or a probe of the few rows an AND had left; the
/// rows an index said match (estimated) and the rows it matched; then how the vector
/// search went: through the graph, or an exact scan of the allowed rows (screened with
/// one-bit sketches when the index has them). `explain analyze` adds the timings. With
/// --text or --keys, each branch of the hybrid query in turn. `explain count` shows the
/// filter's plan and the rows it kept per source; `explain scan` also the rows each
/// source read for the page (a walk of its key order, or every kept row's value for
/// --order-by).
///
/// Example:
///   xvec explain query words --pk n.01317391 --filter "lexname = 'noun.animal'"
///   xvec explain analyze query words --pk n.01317391 --filter "pos = 'v' AND n_lemmas >= 2"
///   xvec explain scan words --where "pos = 'v'" --order-by n_lemmas desc --limit 5
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct ExplainArgs {
    #[command(subcommand)]
    pub what: Explained,
}

#[derive(Debug, Subcommand)]
pub enum Explained {
    /// Explain a query (the flags of `query`).
    ///
    /// Example:
    ///   xvec explain query words --pk n.01317391 --filter "pos = 'n'"
    #[command(verbatim_doc_comment)]
    Query(Box<QueryArgs>),
    /// Explain a count, --group-by or --stats (the flags of `count`).
    ///
    /// Example:
    ///   xvec explain count words --filter "pos = 'n' AND n_lemmas > 1"
    ///   xvec explain count words --group-by pos --filter "n_lemmas > 1"
    #[command(verbatim_doc_comment)]
    Count(CountArgs),
    /// Explain a scan (the flags of `scan`): the filter, then the rows each source read.
    ///
    /// Example:
    ///   xvec explain scan words --order-by n_lemmas desc --limit 5
    #[command(verbatim_doc_comment)]
    Scan(ScanArgs),
    /// Explain a query with the time each step took.
    ///
    /// Example:
    ///   xvec explain analyze query words --pk n.01317391 --filter "pos = 'n'"
    #[command(verbatim_doc_comment)]
    Analyze(AnalyzeArgs),
}

#[derive(Debug, Args)]
pub struct AnalyzeArgs {
    #[command(subcommand)]
    pub what: Analyzed,
}

#[derive(Debug, Subcommand)]
pub enum Analyzed {
    /// Explain a query with timings (the flags of `query`).
    ///
    /// Example:
    ///   xvec explain analyze query words --pk n.01317391 --filter "pos = 'n'"
    #[command(verbatim_doc_comment)]
    Query(Box<QueryArgs>),
    /// Explain a count with timings (the flags of `count`).
    ///
    /// Example:
    ///   xvec explain analyze count words --filter "pos = 'n'"
    #[command(verbatim_doc_comment)]
    Count(CountArgs),
    /// Explain a scan with timings (the flags of `scan`).
    ///
    /// Example:
    ///   xvec explain analyze scan words --where "pos = 'v'" --limit 5
    #[command(verbatim_doc_comment)]
    Scan(ScanArgs),
}

pub fn run(a: &ExplainArgs, colls: &mut dyn Collections, io: &mut Io) -> Result<(), CliError> {
    let (q, analyze) = match &a.what {
        Explained::Query(q) => (&**q, false),
        Explained::Analyze(AnalyzeArgs { what: Analyzed::Query(q) }) => (&**q, true),
        Explained::Count(c) => return explain_count(c, false, colls, io),
        Explained::Analyze(AnalyzeArgs { what: Analyzed::Count(c) }) => return explain_count(c, true, colls, io),
        Explained::Scan(s) => return explain_scan(s, false, colls, io),
        Explained::Analyze(AnalyzeArgs { what: Analyzed::Scan(s) }) => return explain_scan(s, true, colls, io),
    };
    if q.group_by.is_some() {
        return Err(CliError::usage("explain covers plain queries; leave out --group-by"));
    }
    let coll = colls.open(&q.coll.dir, false)?;
    super::query::search_flags_apply(&coll.schema(), q)?;
    if super::hybrid::wanted(q) {
        let query = super::hybrid::build(q, &io.params)?;
        let explain = coll.snapshot().explain_hybrid(&query).map_err(|e| with_filter_caret(e, q.filter.as_deref()))?;
        return print(io, &hybrid_table(&explain, analyze));
    }
    let query = super::query::build_query(q, &io.params)?.params(io.params.clone());
    let explain = coll.snapshot().explain(&query).map_err(|e| with_filter_caret(e, q.filter.as_deref()))?;
    print(io, &table(&explain, analyze))
}

/// `explain count`: how the filter found the rows of each source.
fn explain_count(a: &CountArgs, analyze: bool, colls: &mut dyn Collections, io: &mut Io) -> Result<(), CliError> {
    let coll = colls.open(&a.coll.dir, false)?;
    let snap = super::versions::snapshot(coll, a.as_of.as_deref())?;
    let (filter, params) = (a.filter.as_deref(), &io.params);
    let stats: Vec<&str> = a.stats.iter().map(String::as_str).collect();
    let e = match &a.group_by {
        Some(field) => snap.explain_facets(field, filter, params),
        None if !stats.is_empty() => snap.explain_field_stats(&stats, filter, params),
        None => snap.explain_count(filter, params),
    };
    print(io, &table(&e.map_err(|e| with_filter_caret(e, filter))?, analyze))
}

/// `explain scan`: the filter, then the rows each source read for the page.
fn explain_scan(a: &ScanArgs, analyze: bool, colls: &mut dyn Collections, io: &mut Io) -> Result<(), CliError> {
    let coll = colls.open(&a.coll.dir, false)?;
    let snap = super::versions::snapshot(coll, a.as_of.as_deref())?;
    let req = super::scan::request(a, &io.params)?;
    let e = snap.explain_scan(&req).map_err(|e| with_filter_caret(e, a.filter.as_deref()))?;
    print(io, &table(&e, analyze))
}

fn access(a: Access) -> &'static str {
    match a {
        Access::Index(ScalarIndexKind::Inverted) => "inverted index",
        Access::Index(ScalarIndexKind::Range) => "range index",
        Access::Index(_) => "index",
        Access::FullText => "full-text index",
        Access::Scan => "column scan",
        Access::Probe => "probe of the rows left",
    }
}

fn search(s: SearchKind) -> String {
    let how = match s {
        SearchKind::Index(SearchPath::Lists { probed, lists }) => {
            return format!("IVF lists, {probed} of {lists} probed");
        }
        SearchKind::Index(SearchPath::ListsThenExact) => "IVF lists, then exact scan",
        SearchKind::Index(SearchPath::Graph) => "graph",
        SearchKind::Index(SearchPath::GraphThenExact) => "graph, then exact scan",
        SearchKind::Index(SearchPath::Disk { beam_width, hops, blocks_read }) => {
            let (hops, blocks) = (count(hops, "hop"), count(blocks_read, "block"));
            return format!("disk graph, beam {beam_width}: {hops}, {blocks} read");
        }
        SearchKind::Index(SearchPath::Exact { screened: true }) => "exact scan, screened by sketches",
        SearchKind::Index(SearchPath::Exact { screened: false }) => "exact scan",
        SearchKind::ScanCodes => "scan of one-bit codes (not indexed yet)",
        SearchKind::Flat => "exact scan",
        SearchKind::Counted => "counted from the rows kept",
        SearchKind::Grouped { postings: true } => "counted per value from the inverted index's postings",
        SearchKind::Grouped { postings: false } => "each kept row's value read from the column",
        SearchKind::Aggregated => "each kept row's values read from the columns",
        SearchKind::KeyOrder { read } => return format!("walk in key order, {} read", count(read, "row")),
        SearchKind::FieldOrder { read } => return format!("top rows by value, {} read", count(read, "row")),
    };
    how.to_string()
}

/// `part` of `of` as a percentage (`-` of nothing); the cell's JSON is the fraction.
fn share(part: u64, of: u64) -> String {
    if of == 0 { "-".into() } else { format!("{:.2}%", 100.0 * part as f64 / of as f64) }
}

fn share_cell(part: u64, of: u64) -> Cell {
    let fraction = if of == 0 { serde_json::Value::Null } else { (part as f64 / of as f64).into() };
    Cell::labelled(fraction, share(part, of))
}

/// Milliseconds to a tenth of a microsecond: an indexed filter's leaf takes about one.
fn ms(nanos: u64) -> Cell {
    format!("{:.4} ms", nanos as f64 / 1e6).into()
}

/// How a text or sparse branch searched (`score`: BM25 or inner product): block-max WAND
/// over the indexed segments, a scan of the rest.
fn postings_search(t: &xvec::PostingsTrace, score: &str) -> String {
    let mut parts = Vec::new();
    if t.indexed > 0 {
        parts.push(format!("{score} block-max WAND over {} ({} skips)", count(t.indexed, "indexed segment"), t.skips));
    }
    if t.scanned > 0 {
        parts.push(format!("{score} over every live row of {}", count(t.scanned, "unindexed source")));
    }
    if parts.is_empty() {
        parts.push(format!("{score} over no source"));
    }
    let rescored = match t.rescored {
        0 => String::new(),
        n => format!(" ({n} exactly from the column, their impact bounds reaching the k-th score)"),
    };
    format!("{}; {} scored{rescored}", parts.join(", "), count(t.scored, "row"))
}

/// A hybrid query: each branch's rows, led by the branch (a dense branch's as a plain
/// query's, per source; a text or keys branch reads every source in one pass).
fn hybrid_table(e: &HybridExplain, analyze: bool) -> Table {
    let mut t = Table::new(std::iter::once("branch").chain(headers(analyze)));
    for (i, b) in e.branches.iter().enumerate() {
        let branch = format!("branch {} ({})", i + 1, super::hybrid::label(b.kind));
        let part = match b.kind {
            BranchKind::Dense => {
                let dense = Explain {
                    leaves: e.leaves.clone(),
                    segment_ids: e.segment_ids.clone(),
                    sources: b.sources.clone(),
                    hits: b.hits,
                    nanos: b.nanos,
                };
                table(&dense, analyze)
            }
            kind => {
                let how = match b.postings {
                    Some(t) => postings_search(&t, if kind == BranchKind::Text { "BM25" } else { "inner product" }),
                    None => "key lookup".into(),
                };
                let mut t = Table::new(headers(analyze));
                let mut row: Vec<Cell> = vec![
                    "all sources".into(),
                    format!("{} search", kind.name()).into(),
                    how.into(),
                    serde_json::Value::Null.into(),
                    serde_json::Value::Null.into(),
                    (b.hits as u64).into(),
                    serde_json::Value::Null.into(),
                ];
                if analyze {
                    row.push(ms(b.nanos));
                }
                t.push(row);
                t
            }
        };
        for row in part.rows {
            t.push(std::iter::once(Cell::from(branch.clone())).chain(row).collect());
        }
    }
    let time = if analyze { format!("; {:.3} ms", e.nanos as f64 / 1e6) } else { String::new() };
    let ranked: Vec<String> = e.branches.iter().map(|b| b.hits.to_string()).collect();
    t.footer = Some(format!("{} fused hits from {} ranked by the branches{time}", e.hits, ranked.join(" + ")));
    t
}

fn headers(analyze: bool) -> Vec<&'static str> {
    let mut headers = vec!["source", "step", "via", "rows", "estimated", "matched", "share"];
    if analyze {
        headers.push("time");
    }
    headers
}

/// One row per filter leaf and one per search, for each source.
pub fn table(e: &Explain, analyze: bool) -> Table {
    let mut t = Table::new(headers(analyze));
    let (mut rows, mut allowed) = (0u64, 0u64);
    for s in &e.sources {
        let name = match e.segment_ids.get(s.position as usize) {
            Some(id) => format!("SEG-{id:06}"),
            None => format!("memtable chunk {}", s.position as usize - e.segment_ids.len()),
        };
        rows += s.rows;
        allowed += s.allowed;
        for l in &s.leaves {
            let text = e.leaves.get(l.leaf).cloned().unwrap_or_default();
            let mut row: Vec<Cell> = vec![
                name.clone().into(),
                text.into(),
                access(l.access).into(),
                l.scope.into(),
                l.estimated.map_or(Cell::from(serde_json::Value::Null), Cell::from),
                l.matched.into(),
                share_cell(l.matched, l.scope),
            ];
            if analyze {
                row.push(ms(l.nanos));
            }
            t.push(row);
        }
        let step = match s.search {
            SearchKind::Counted => "count",
            SearchKind::Grouped { .. } => "group by",
            SearchKind::Aggregated => "stats",
            SearchKind::KeyOrder { .. } | SearchKind::FieldOrder { .. } => "scan",
            _ => "vector search",
        };
        let mut row: Vec<Cell> = vec![
            name.into(),
            step.into(),
            search(s.search).into(),
            (s.rows - s.deleted).into(),
            serde_json::Value::Null.into(),
            s.allowed.into(),
            share_cell(s.allowed, s.rows - s.deleted),
        ];
        if analyze {
            row.push(ms(s.filter_nanos + s.search_nanos));
        }
        t.push(row);
    }
    let time = if analyze { format!("; {:.3} ms", e.nanos as f64 / 1e6) } else { String::new() };
    let hits = match e.sources.first().map(|s| s.search) {
        Some(SearchKind::Counted | SearchKind::Grouped { .. } | SearchKind::Aggregated) => {
            count(e.hits as u64, "row") + " counted"
        }
        Some(SearchKind::KeyOrder { .. } | SearchKind::FieldOrder { .. }) => count(e.hits as u64, "row") + " returned",
        _ => format!("{} hits", e.hits),
    };
    t.footer = Some(format!("{hits}; {allowed} of {rows} rows allowed ({}){time}", share(allowed, rows)));
    t
}
