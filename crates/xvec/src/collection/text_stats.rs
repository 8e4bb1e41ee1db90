//! The statistics a text branch scores by BM25 with (per field: documents with text and
//! their total length; per query term: documents holding it), as values a program can
//! gather from several snapshots, sum and hand back, so that collections holding the
//! shards of one dataset score a text query as one collection would (Elasticsearch's
//! `dfs_query_then_fetch`).

use std::collections::BTreeMap;

use serde_json::{Map, Value as Json};

/// One full-text field's statistics for a text query.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TextFieldStats {
    /// Live documents with text in the field.
    pub docs: u64,
    /// Their summed length in terms.
    pub total_len: u64,
    /// Per query term (as the field's analyzer makes it): live documents holding it.
    pub doc_freq: BTreeMap<String, u64>,
}

/// A text query's statistics, per full-text field by name (see
/// [`Snapshot::text_stats`](crate::Snapshot::text_stats)).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TextStats {
    /// Each searched field's statistics, by the field's name.
    pub fields: BTreeMap<String, TextFieldStats>,
}

impl TextStats {
    /// Adds `other`'s counts (another shard's) to these, field by field and term by term.
    pub fn add(&mut self, other: &TextStats) {
        for (name, theirs) in &other.fields {
            let ours = self.fields.entry(name.clone()).or_default();
            ours.docs += theirs.docs;
            ours.total_len += theirs.total_len;
            for (term, df) in &theirs.doc_freq {
                *ours.doc_freq.entry(term.clone()).or_default() += df;
            }
        }
    }

    /// `{"field": {"docs": N, "total_len": L, "doc_freq": {"term": n, ...}}, ...}`.
    pub fn to_json(&self) -> Json {
        let field = |s: &TextFieldStats| {
            let df: Map<String, Json> = s.doc_freq.iter().map(|(t, n)| (t.clone(), Json::from(*n))).collect();
            serde_json::json!({ "docs": s.docs, "total_len": s.total_len, "doc_freq": df })
        };
        Json::Object(self.fields.iter().map(|(name, s)| (name.clone(), field(s))).collect())
    }

    /// Reads the form of [`TextStats::to_json`]; an error names the member by its path
    /// below `at` and says what was expected.
    pub fn from_json(v: &Json, at: &str) -> Result<TextStats, String> {
        let object = |v: &Json, at: &str| v.as_object().cloned().ok_or(format!("{at}: expected a JSON object"));
        let count = |v: Option<&Json>, at: &str| v.and_then(Json::as_u64).ok_or(format!("{at}: expected a count"));
        let mut fields = BTreeMap::new();
        for (name, f) in object(v, at)? {
            let at = format!("{at}.{name}");
            let mut m = object(&f, &at)?;
            let docs = count(m.remove("docs").as_ref(), &format!("{at}.docs"))?;
            let total_len = count(m.remove("total_len").as_ref(), &format!("{at}.total_len"))?;
            let df_at = format!("{at}.doc_freq");
            let df = object(m.remove("doc_freq").as_ref().unwrap_or(&Json::Null), &df_at)?;
            let doc_freq = df
                .iter()
                .map(|(t, n)| Ok((t.clone(), count(Some(n), &format!("{df_at}.{t}"))?)))
                .collect::<Result<BTreeMap<_, _>, String>>()?;
            if let Some(k) = m.keys().next() {
                return Err(format!("{at}.{k}: unknown key; expected docs, total_len or doc_freq"));
            }
            fields.insert(name, TextFieldStats { docs, total_len, doc_freq });
        }
        Ok(TextStats { fields })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(docs: u64, total_len: u64, df: &[(&str, u64)]) -> TextFieldStats {
        TextFieldStats { docs, total_len, doc_freq: df.iter().map(|(t, n)| (t.to_string(), *n)).collect() }
    }

    #[test]
    fn add_sums_field_by_field_and_term_by_term() {
        let mut a = TextStats { fields: [("gloss".to_string(), stats(3, 30, &[("dog", 1)]))].into() };
        let b = TextStats {
            fields: [
                ("gloss".to_string(), stats(4, 10, &[("dog", 2), ("cat", 1)])),
                ("lemma".into(), stats(1, 1, &[])),
            ]
            .into(),
        };
        a.add(&b);
        assert_eq!(a.fields["gloss"], stats(7, 40, &[("cat", 1), ("dog", 3)]));
        assert_eq!(a.fields["lemma"], stats(1, 1, &[]));
    }

    #[test]
    fn json_round_trips_and_errors_name_the_member() {
        let s = TextStats { fields: [("gloss".to_string(), stats(4, 10, &[("dog", 2), ("cat", 1)]))].into() };
        assert_eq!(TextStats::from_json(&s.to_json(), "stats"), Ok(s));
        for (json, want) in [
            (r#"[]"#, "stats: expected a JSON object"),
            (r#"{"g": {"docs": 1, "total_len": 2}}"#, "stats.g.doc_freq: expected a JSON object"),
            (r#"{"g": {"docs": -1, "total_len": 2, "doc_freq": {}}}"#, "stats.g.docs: expected a count"),
            (r#"{"g": {"docs": 1, "total_len": 2, "doc_freq": {"a": "x"}}}"#, "stats.g.doc_freq.a: expected a count"),
            (r#"{"g": {"docs": 1, "total_len": 2, "doc_freq": {}, "n": 1}}"#, "stats.g.n: unknown key"),
        ] {
            let err = TextStats::from_json(&serde_json::from_str(json).unwrap(), "stats").unwrap_err();
            assert!(err.starts_with(want), "{json}: {err}");
        }
    }
}
