//! Opens a collection read-only and queries it: a filter whose values are `$name`
//! parameters bound through `Params`, a list parameter for `IN`, the error an unbound
//! parameter gives, and hits grouped by a scalar field.
//!
//!     cargo run -p xvec --example query_filter [DIR]
//!
//! DIR is a collection of `create`'s schema (`cargo run -p xvec --example create DIR`).
//! Without it, the example first builds one like `create` does in a temporary directory.

mod common;

use std::path::Path;

use xvec::{Collection, Error, FilterErrorKind, GroupBy, Hit, OpenOptions, OptimizeOptions, Params, Query};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let temp = tempfile::tempdir()?;
    let dir = match std::env::args_os().nth(1) {
        Some(dir) => dir.into(),
        None => build(&temp.path().join("items"))?,
    };
    // A read-only handle takes no lock: it works beside a writer in another process.
    let coll = Collection::open(&dir, &OpenOptions::read_only())?;
    println!("{}: {} documents", dir.display(), coll.count());
    let target = common::Rng::new(2024).vector();

    // Values are bound, never spliced into the text, so a value cannot change the
    // filter's shape; an integer field compares with a bound number exactly.
    let filter = "category = $cat AND year >= $since AND rating > $min";
    let params = Params::new().set("cat", "film").set("since", 1990).set("min", 2.5);
    println!("\n{filter}  with {}", describe(&params));
    let q = Query::vector(target.clone()).k(5).filter(filter).params(params).fields(["title", "year", "rating"]);
    print_hits(&coll.query(&q)?);

    // A list parameter for IN; `ef` widens the HNSW search (recall for speed).
    let filter = "category IN $cats AND rating IS NULL";
    let params = Params::new().set("cats", vec!["book", "game"]);
    println!("\n{filter}  with {}", describe(&params));
    let q = Query::vector(target.clone()).k(5).ef(128).filter(filter).params(params).fields(["category", "year"]);
    print_hits(&coll.query(&q)?);

    // An unbound parameter is an error at its position, before any search.
    let filter = "year < $until";
    match coll.query(&Query::vector(target.clone()).filter(filter)) {
        Err(Error::Filter(e)) if matches!(e.kind, FilterErrorKind::UnboundParam(_)) => {
            println!("\nunbound parameter, as expected: {e}\n{}", e.caret(filter));
        }
        Err(e) => return Err(e.into()),
        Ok(_) => return Err("a query with an unbound parameter succeeded".into()),
    }

    // The best two hits of each of the first three categories, nearest group first.
    let by = GroupBy::new("category", 3, 2);
    let q = Query::vector(target)
        .filter("year >= $from AND year < $to")
        .params(Params::new().set("from", 1980).set("to", 2000));
    println!("\ngrouped by category, 1980 <= year < 2000:");
    for group in coll.query_groups(&q.fields(["title", "year"]), &by)? {
        println!("  {}:", group.value.to_json());
        for hit in &group.hits {
            println!("    {}", hit_line(hit));
        }
    }
    Ok(())
}

/// A collection like `create`'s, smaller: inserted, flushed, optimized and closed.
fn build(dir: &Path) -> xvec::Result<std::path::PathBuf> {
    let coll = Collection::create(dir, common::schema()?, Default::default())?;
    coll.insert(common::random_docs(&mut common::Rng::new(42), 0, 2_000))?;
    coll.flush()?;
    coll.optimize(&OptimizeOptions::default())?;
    coll.close()?;
    Ok(dir.to_path_buf())
}

fn describe(params: &Params) -> String {
    params.iter().map(|(name, value)| format!("${name} = {value}")).collect::<Vec<_>>().join(", ")
}

fn print_hits(hits: &[Hit]) {
    if hits.is_empty() {
        println!("  no hits");
    }
    for hit in hits {
        println!("  {}", hit_line(hit));
    }
}

/// Key, score (cosine similarity here: higher is better) and the requested fields.
fn hit_line(hit: &Hit) -> String {
    let fields: Vec<String> = hit.fields.iter().map(|(name, v)| format!("{name}={}", v.to_json())).collect();
    format!("{}  {:.4}  {}", hit.key, hit.score, fields.join(" "))
}
