//! A hybrid query as a JSON object, for programs that build queries as data and for
//! `xvec query --json`:
//!
//! ```json
//! {"k": 10, "filter": "pos = 'n'", "fields": ["lemma"], "fusion": "rrf",
//!  "branches": [
//!    {"vector": [0.1, 0.2], "field": "emb", "k": 50, "ef": 64, "beam_width": 8},
//!    {"key": "n.01317391"},
//!    {"text": "small flowering plant", "fields": ["gloss^2", "lemma"]},
//!    {"text": "plant", "stats": {"gloss": {"docs": 9, "total_len": 80, "doc_freq": {"plant": 2}}}},
//!    {"sparse": {"3": 1.2, "977": 0.4}, "field": "bm25", "budget": 20000},
//!    {"keys": ["n.00001740"]}]}
//! ```
//!
//! `fusion` is `"rrf"`, `{"rrf": K}` or `{"weighted": [w, ...]}` (one weight per branch);
//! a branch's `k` defaults to the query's. An error names the key, by its path from the
//! top (`branches[2].fields[0]`), and what was expected; the sizes are checked as those of
//! a query built in code are, when it runs.

use serde_json::{Map, Value as Json};

use super::hybrid::{Branch, Fusion, HybridQuery, MAX_BRANCHES};
use super::query::Query;
use super::text_search::TextField;
use super::text_stats::TextStats;
use crate::sparse::SparseVector;

/// A JSON object's members, each read at most once; what is left over is an unknown key.
struct Object {
    path: String,
    map: Map<String, Json>,
}

impl Object {
    fn new(v: &Json, path: &str) -> Result<Object, String> {
        match v {
            Json::Object(map) => Ok(Object { path: path.to_string(), map: map.clone() }),
            _ => Err(format!("{}: expected a JSON object", name(path))),
        }
    }

    fn at(&self, key: &str) -> String {
        if self.path.is_empty() { key.to_string() } else { format!("{}.{key}", self.path) }
    }

    fn take(&mut self, key: &str) -> Option<Json> {
        self.map.remove(key).filter(|v| !v.is_null())
    }

    fn count(&mut self, key: &str) -> Result<Option<usize>, String> {
        self.take(key)
            .map(|v| {
                v.as_u64().and_then(|n| usize::try_from(n).ok()).ok_or(format!("{}: expected a count", self.at(key)))
            })
            .transpose()
    }

    fn string(&mut self, key: &str) -> Result<Option<String>, String> {
        self.take(key)
            .map(|v| v.as_str().map(str::to_string).ok_or(format!("{}: expected a string", self.at(key))))
            .transpose()
    }

    fn strings(&mut self, key: &str) -> Result<Option<Vec<String>>, String> {
        let at = self.at(key);
        let Some(v) = self.take(key) else { return Ok(None) };
        let items = v.as_array().ok_or(format!("{at}: expected an array of strings"))?;
        let each =
            |(i, s): (usize, &Json)| s.as_str().map(str::to_string).ok_or(format!("{at}[{i}]: expected a string"));
        items.iter().enumerate().map(each).collect::<Result<Vec<_>, _>>().map(Some)
    }

    /// Fails on a key no one read.
    fn done(self, expected: &str) -> Result<(), String> {
        match self.map.keys().next() {
            Some(k) => Err(format!("{}: unknown key; expected {expected}", self.at(k))),
            None => Ok(()),
        }
    }
}

fn name(path: &str) -> &str {
    if path.is_empty() { "the query" } else { path }
}

impl HybridQuery {
    /// Reads a hybrid query from its JSON object (see the module's documentation).
    pub fn from_json(v: &Json) -> Result<HybridQuery, String> {
        let mut o = Object::new(v, "")?;
        let k = o.count("k")?.unwrap_or(10);
        let filter = o.string("filter")?;
        let fields = o.strings("fields")?;
        let fusion = match o.take("fusion") {
            None => Fusion::default(),
            Some(f) => fusion(&f)?,
        };
        let items = o.take("branches").ok_or("branches: missing; a hybrid query has at least one branch")?;
        let items = items.as_array().ok_or("branches: expected an array of branch objects")?;
        if items.is_empty() || items.len() > MAX_BRANCHES {
            return Err(format!("branches: {} branches; expected 1 to {MAX_BRANCHES}", items.len()));
        }
        let branches = items.iter().enumerate().map(|(i, b)| branch(b, &format!("branches[{i}]"), k));
        let branches = branches.collect::<Result<Vec<_>, _>>()?;
        o.done("k, filter, fields, fusion or branches")?;
        Ok(HybridQuery::new(branches).k(k).filter_opt(filter).fields_opt(fields).fusion(fusion))
    }
}

fn fusion(f: &Json) -> Result<Fusion, String> {
    const EXPECTED: &str = r#"expected "rrf", {"rrf": K} or {"weighted": [w, ...]}"#;
    match f {
        Json::String(s) if s == "rrf" => Ok(Fusion::default()),
        Json::Object(m) if m.len() == 1 => {
            let (key, v) = m.iter().next().expect("one member");
            match key.as_str() {
                "rrf" => Ok(Fusion::Rrf { k: v.as_f64().ok_or("fusion.rrf: expected a number")? as f32 }),
                "weighted" => {
                    let ws = v.as_array().ok_or("fusion.weighted: expected an array of numbers")?;
                    let each = |(i, w): (usize, &Json)| {
                        w.as_f64().map(|w| w as f32).ok_or(format!("fusion.weighted[{i}]: expected a number"))
                    };
                    Ok(Fusion::Weighted(ws.iter().enumerate().map(each).collect::<Result<_, _>>()?))
                }
                _ => Err(format!("fusion.{key}: {EXPECTED}")),
            }
        }
        _ => Err(format!("fusion: {EXPECTED}")),
    }
}

/// One branch object: which kind it is follows from the key it has.
fn branch(v: &Json, path: &str, default_k: usize) -> Result<Branch, String> {
    let mut o = Object::new(v, path)?;
    let kinds = ["vector", "key", "text", "sparse", "keys"];
    let present: Vec<&str> = kinds.iter().copied().filter(|k| o.map.contains_key(*k)).collect();
    let [kind] = present[..] else {
        return Err(format!("{path}: a branch has exactly one of {}; found {}", kinds.join(", "), present.len()));
    };
    let k = o.count("k")?.unwrap_or(default_k);
    let b = match kind {
        "vector" | "key" => {
            let q = match kind {
                "vector" => {
                    let at = o.at("vector");
                    let v = o.take("vector").unwrap_or_default();
                    let xs = v.as_array().ok_or(format!("{at}: expected an array of numbers"))?;
                    let each = |(i, x): (usize, &Json)| {
                        x.as_f64().map(|x| x as f32).ok_or(format!("{at}[{i}]: expected a number"))
                    };
                    Query::vector(xs.iter().enumerate().map(each).collect::<Result<_, _>>()?)
                }
                _ => Query::key(o.string("key")?.unwrap_or_default()),
            };
            let mut q = q.k(k).ef(o.count("ef")?).nprobe(o.count("nprobe")?).refine(o.count("refine")?);
            q = q.beam_width(o.count("beam_width")?);
            if let Some(f) = o.string("field")? {
                q = q.field(f);
            }
            o.done("vector or key, field, k, ef, nprobe, refine or beam_width")?;
            Branch::Dense(q)
        }
        "text" => {
            let text = o.string("text")?.unwrap_or_default();
            let at = o.at("fields");
            let fields = o.strings("fields")?.unwrap_or_default();
            let fields = fields.iter().enumerate().map(|(i, f)| f.parse().map_err(|e| format!("{at}[{i}]: {e}")));
            let fields = fields.collect::<Result<Vec<TextField>, String>>()?;
            let at = o.at("stats");
            let stats = o.take("stats").map(|v| TextStats::from_json(&v, &at)).transpose()?;
            o.done("text, fields, k or stats")?;
            Branch::Text { fields, text, k, stats }
        }
        "sparse" => {
            let at = o.at("sparse");
            let vector =
                SparseVector::from_json(&o.take("sparse").unwrap_or_default()).map_err(|e| format!("{at}: {e}"))?;
            let field = o.string("field")?;
            let budget = o.count("budget")?.map(|b| b as u64);
            o.done("sparse, field, k or budget")?;
            Branch::Sparse { field, vector, k, budget }
        }
        _ => {
            let keys = o.strings("keys")?.unwrap_or_default();
            o.done("keys")?;
            Branch::Keys(keys)
        }
    };
    Ok(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<HybridQuery, String> {
        HybridQuery::from_json(&serde_json::from_str(s).unwrap())
    }

    #[test]
    fn reads_every_branch_kind_and_fusion() {
        let q = parse(
            r#"{"k": 5, "filter": "n > 1", "fields": ["lemma"], "fusion": {"weighted": [0.5, 1, 2, 1, 0.1]},
                "branches": [{"vector": [1, 2], "field": "emb", "k": 50, "ef": 64},
                             {"key": "a", "nprobe": 3, "beam_width": 8},
                             {"text": "small plant", "fields": ["gloss^2", "lemma"]},
                             {"sparse": {"3": 1.5}, "field": "sv", "budget": 100},
                             {"keys": ["x", "y"]}]}"#,
        )
        .unwrap();
        let want = HybridQuery::new(vec![
            Branch::Dense(Query::vector(vec![1.0, 2.0]).k(50).ef(64).field("emb")),
            Branch::Dense(Query::key("a").k(5).nprobe(3).beam_width(8)),
            Branch::Text {
                fields: vec![TextField::new("gloss").boost(2.0), TextField::new("lemma")],
                text: "small plant".into(),
                k: 5,
                stats: None,
            },
            Branch::Sparse {
                field: Some("sv".into()),
                vector: SparseVector::new([(3, 1.5)]).unwrap(),
                k: 5,
                budget: Some(100),
            },
            Branch::Keys(vec!["x".into(), "y".into()]),
        ])
        .k(5)
        .filter("n > 1")
        .fields_opt(Some(vec!["lemma".into()]))
        .fusion(Fusion::Weighted(vec![0.5, 1.0, 2.0, 1.0, 0.1]));
        assert_eq!(q, want);
        let q = parse(r#"{"fusion": {"rrf": 20}, "branches": [{"text": "x"}]}"#).unwrap();
        assert_eq!(q, HybridQuery::new(vec![Branch::text("x", 10)]).fusion(Fusion::Rrf { k: 20.0 }));
    }

    #[test]
    fn errors_name_the_key_and_what_was_expected() {
        for (json, want) in [
            (r#"[]"#, "the query: expected a JSON object"),
            (r#"{}"#, "branches: missing"),
            (r#"{"branches": []}"#, "branches: 0 branches; expected 1 to 16"),
            (r#"{"branches": [{"text": "x"}], "limit": 3}"#, "limit: unknown key"),
            (r#"{"k": -1, "branches": [{"text": "x"}]}"#, "k: expected a count"),
            (r#"{"fusion": "sum", "branches": [{"text": "x"}]}"#, r#"fusion: expected "rrf""#),
            (r#"{"branches": [{"text": "x", "keys": ["a"]}]}"#, "branches[0]: a branch has exactly one of"),
            (r#"{"branches": [{"ef": 3}]}"#, "found 0"),
            (r#"{"branches": [{"text": 3}]}"#, "branches[0].text: expected a string"),
            (r#"{"branches": [{"text": "x", "fields": ["a^x"]}]}"#, "branches[0].fields[0]: boost"),
            (r#"{"branches": [{"vector": [1, "2"]}]}"#, "branches[0].vector[1]: expected a number"),
            (r#"{"branches": [{"vector": [1], "ef": "many"}]}"#, "branches[0].ef: expected a count"),
            (r#"{"branches": [{"key": "a", "beam_width": -2}]}"#, "branches[0].beam_width: expected a count"),
            (r#"{"branches": [{"sparse": {"x": 1}}]}"#, "branches[0].sparse: key \"x\""),
            (r#"{"branches": [{"keys": ["a", 3]}]}"#, "branches[0].keys[1]: expected a string"),
            (r#"{"branches": [{"key": "a", "budget": 3}]}"#, "branches[0].budget: unknown key"),
        ] {
            let e = parse(json).unwrap_err();
            assert!(e.contains(want), "{json}: {e}");
        }
    }
}
