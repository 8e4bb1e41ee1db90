//! `xvec quickstart`: build a sample collection from the bundled WordNet data, flush it,
//! reopen it read-only and run a few queries. The README's first command.

use std::path::PathBuf;
use std::time::Instant;

use xvec::{Collection, OpenOptions, Query, Schema};

use super::context::{Io, print};
use super::describe::describe_table;
use super::query::hits_table;
use super::{CliError, CollectionArg, ImportArgs, QuickstartArgs};

pub fn run(a: &QuickstartArgs, io: &mut Io) -> Result<(), CliError> {
    let dir = match &a.target {
        Some(d) => d.clone(),
        None => fresh_dir()?,
    };
    let data = &a.data;
    let schema_path = data.join("schema.json");
    let text = std::fs::read_to_string(&schema_path)
        .map_err(|e| CliError::file(&schema_path, &e).hint("pass --data DIR, the repo's commands/data"))?;
    let schema = Schema::from_json(&text).map_err(|e| CliError::failed(format!("{}: {e}", schema_path.display())))?;

    writeln!(io.out, "== create {} ==", dir.display())?;
    let coll = Collection::create(&dir, schema, Default::default())?;
    let t = Instant::now();
    let args = ImportArgs {
        coll: CollectionArg { dir: dir.clone() },
        file: data.join("wordnet.jsonl"),
        format: None,
        key_field: "id".into(),
        vectors: vec![format!("emb={}", data.join("wordnet.fvecs").display())],
        field: None,
        ids: None,
        sparse_bm25: Vec::new(),
        batch_size: 1000,
        upsert: false,
        skip_existing: false,
        max_errors: None,
        atomic: false,
        flush: false,
        no_flush: false,
    };
    let report = super::import::import(&coll, &args, None, io.err)?;
    let import_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    coll.flush()?;
    coll.close()?;
    writeln!(
        io.out,
        "imported {} WordNet synsets (384-d MiniLM vectors) in {:.2}s, flushed in {:.2}s\n",
        report.written,
        import_s,
        t.elapsed().as_secs_f64()
    )?;

    let coll = Collection::open(&dir, &OpenOptions::read_only())?;
    writeln!(io.out, "== describe (reopened read-only) ==")?;
    print(io, &describe_table(&coll))?;

    let shown = ["lemma", "pos", "lexname", "gloss"];
    let queries = [
        ("nearest neighbours of \"casserole\" (n.07580359), by primary key", Query::key("n.07580359").k(5)),
        (
            "nearest animals to \"pack animal\" (n.01317391): filter lexname = 'noun.animal' AND _key != 'n.01317391'",
            Query::key("n.01317391").k(5).filter("lexname = 'noun.animal' AND _key != 'n.01317391'"),
        ),
        (
            "verbs near \"run\" (v.02612234): filter pos = 'v' AND n_lemmas >= 2",
            Query::key("v.02612234").k(5).filter("pos = 'v' AND n_lemmas >= 2"),
        ),
    ];
    for (title, q) in queries {
        let q = q.fields(shown);
        writeln!(io.out, "\n== {title} ==")?;
        let t = Instant::now();
        let hits = coll.query(&q)?;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let mut table = hits_table(&coll.schema(), &hits, &q);
        table.footer = Some(format!("{}, exact search in {ms:.2} ms", super::plural::count(hits.len() as u64, "row")));
        print(io, &table)?;
    }
    writeln!(
        io.out,
        "\nThe collection stays in {}; try:\n  xvec query {} --pk n.07580359 -k 3",
        dir.display(),
        dir.display()
    )?;
    Ok(())
}

fn fresh_dir() -> Result<PathBuf, CliError> {
    let base = std::env::temp_dir();
    for i in 0..1000 {
        let d = base.join(format!("xvec-quickstart-{}-{i}", std::process::id()));
        if !d.exists() {
            return Ok(d);
        }
    }
    Err(CliError::failed("could not find a free temporary directory name"))
}
