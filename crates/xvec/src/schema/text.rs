//! A string field's full-text index: how its text becomes terms, and how terms rank.

use serde_json::{Map, Value};

use crate::text::{AnalyzerSpec, Bm25, Tokenizer};

/// The full-text index of a string field, declared in its `index` as
/// `{"type": "fts", "tokenizer": ..., "filters": [...], "k1": 1.2, "b": 0.75}`: the
/// analyzer that turns the field's text, and the text of every query against it, into
/// terms (one analyzer for both, so their terms agree), and the BM25 parameters of its
/// ranking.
#[derive(Clone, Debug, PartialEq)]
pub struct TextIndex {
    /// Tokenizer and token filters.
    pub analyzer: AnalyzerSpec,
    /// BM25's `k1` and `b`.
    pub bm25: Bm25,
}

impl TextIndex {
    /// The index with the default analyzer (standard tokenizer, lowercase) and BM25
    /// (k1 1.2, b 0.75).
    pub fn new(analyzer: AnalyzerSpec) -> TextIndex {
        TextIndex { analyzer, bm25: Bm25::default() }
    }

    /// Reads the `{"type": "fts", ...}` object (its `type` already checked); an error
    /// says which key is wrong and why.
    pub(crate) fn from_json(obj: &Map<String, Value>) -> Result<TextIndex, String> {
        let mut rest = obj.clone();
        rest.remove("type");
        let mut bm25 = Bm25::default();
        for (key, slot) in [("k1", &mut bm25.k1), ("b", &mut bm25.b)] {
            if let Some(v) = rest.remove(key) {
                *slot = v.as_f64().ok_or_else(|| format!("`{key}` must be a number, found {v}"))? as f32;
            }
        }
        bm25.validate().map_err(|e| e.to_string())?;
        let analyzer: AnalyzerSpec =
            serde_json::from_value(Value::Object(rest)).map_err(|e| format!("full-text index: {e}"))?;
        analyzer.validate().map_err(|e| e.to_string())?;
        Ok(TextIndex { analyzer, bm25 })
    }

    /// Reads `{"type": "fts", ...}` as a string field's `index` takes it (or the bare
    /// word `fts`, the defaults); the error says which key is wrong and why.
    pub fn parse(text: &str) -> Result<TextIndex, String> {
        if text.trim() == "fts" {
            return Ok(TextIndex::new(AnalyzerSpec::default()));
        }
        let v: Value = serde_json::from_str(text).map_err(|e| format!("full-text index JSON: {e}"))?;
        let obj = v.as_object().ok_or("a full-text index is a JSON object")?;
        match obj.get("type").and_then(Value::as_str) {
            Some("fts") => TextIndex::from_json(obj),
            _ => Err(r#"expected {"type": "fts", ...}"#.into()),
        }
    }

    /// The JSON object [`TextIndex::from_json`] reads.
    pub(crate) fn to_json(&self) -> Value {
        let mut obj = Map::new();
        obj.insert("type".into(), "fts".into());
        if let Value::Object(mut a) = serde_json::to_value(&self.analyzer).expect("an analyzer spec serializes") {
            // Gram sizes matter only to the ngram tokenizer.
            if self.analyzer.tokenizer != Tokenizer::Ngram {
                a.remove("min_gram");
                a.remove("max_gram");
            }
            obj.extend(a);
        }
        obj.extend(self.bm25.json_members().map(|(k, v)| (k.to_string(), v)));
        Value::Object(obj)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<TextIndex, String> {
        let v: Value = serde_json::from_str(text).unwrap();
        TextIndex::from_json(v.as_object().unwrap())
    }

    #[test]
    fn reads_what_it_writes_and_names_bad_keys() {
        let t = parse(r#"{"type":"fts","tokenizer":"standard","filters":["lowercase","stem_en"],"k1":1.5}"#).unwrap();
        assert_eq!(t.bm25.k1, 1.5);
        assert_eq!(t.bm25.b, 0.75);
        let again = TextIndex::from_json(t.to_json().as_object().unwrap()).unwrap();
        assert_eq!(again, t);
        assert!(parse(r#"{"type":"fts","k1":"x"}"#).unwrap_err().contains("`k1` must be a number"));
        assert!(parse(r#"{"type":"fts","b":2}"#).is_err());
        assert!(parse(r#"{"type":"fts","stemmer":"en"}"#).unwrap_err().contains("stemmer"));
        assert!(parse(r#"{"type":"fts","tokenizer":"words"}"#).unwrap_err().contains("words"));
        assert_eq!(TextIndex::parse("fts"), Ok(TextIndex::new(AnalyzerSpec::default())));
        assert_eq!(TextIndex::parse(r#"{"type":"fts","k1":1.5}"#).unwrap().bm25.k1, 1.5);
        assert!(TextIndex::parse(r#"{"type":"inverted"}"#).unwrap_err().contains("fts"));
    }
}
