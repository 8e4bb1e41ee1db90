//! One JSON document (a JSON Lines row, an `insert` argument) as an object whose members
//! are each named once: serde_json's own map keeps the last of two equal names silently,
//! so the object is read by a visitor that refuses the second.

use std::fmt;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// What the text held: an object, or the kind of value it was instead.
enum Parsed {
    Object(Map<String, Value>),
    Other(&'static str),
    Duplicate(String),
}

impl<'de> Deserialize<'de> for Parsed {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Parsed, D::Error> {
        d.deserialize_any(ParsedVisitor)
    }
}

struct ParsedVisitor;

impl<'de> Visitor<'de> for ParsedVisitor {
    type Value = Parsed;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Parsed, A::Error> {
        let mut obj = Map::new();
        while let Some(name) = a.next_key::<String>()? {
            if obj.contains_key(&name) {
                // The rest is still read, so a syntax error after it is the one reported.
                a.next_value::<IgnoredAny>()?;
                while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                return Ok(Parsed::Duplicate(name));
            }
            let value = a.next_value::<Value>()?;
            obj.insert(name, value);
        }
        Ok(Parsed::Object(obj))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Parsed, A::Error> {
        while a.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Parsed::Other("an array"))
    }

    fn visit_str<E>(self, _: &str) -> Result<Parsed, E> {
        Ok(Parsed::Other("a string"))
    }

    fn visit_i64<E>(self, _: i64) -> Result<Parsed, E> {
        Ok(Parsed::Other("a number"))
    }

    fn visit_u64<E>(self, _: u64) -> Result<Parsed, E> {
        Ok(Parsed::Other("a number"))
    }

    fn visit_f64<E>(self, _: f64) -> Result<Parsed, E> {
        Ok(Parsed::Other("a number"))
    }

    fn visit_bool<E>(self, _: bool) -> Result<Parsed, E> {
        Ok(Parsed::Other("a bool"))
    }

    fn visit_unit<E>(self) -> Result<Parsed, E> {
        Ok(Parsed::Other("null"))
    }
}

/// One line of text as a JSON object. A syntax error names its column in the line; a line
/// that ends early or holds another kind of value has no meaningful column.
pub fn json_object(line: &str) -> Result<Map<String, Value>, String> {
    match serde_json::from_str::<Parsed>(line) {
        Ok(Parsed::Object(obj)) => Ok(obj),
        Ok(Parsed::Other(kind)) => Err(format!("expected one JSON object per line, found {kind}")),
        Ok(Parsed::Duplicate(name)) => {
            Err(format!("member `{name}` appears twice in the object; each field may be given once"))
        }
        Err(e) => {
            // serde_json appends " at line L column C"; the line here is always 1.
            let text = e.to_string();
            let what = text.strip_suffix(&format!(" at line {} column {}", e.line(), e.column())).unwrap_or(&text);
            if e.is_eof() {
                Err(format!("the line ends inside a JSON value: {what}"))
            } else {
                Err(format!("column {}: invalid JSON: {what}", e.column()))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 36: `{"n": 1, "n": 2}` imported as n = 2. The second `n` is refused by name.
    #[test]
    fn a_member_named_twice_is_refused() {
        assert_eq!(
            json_object(r#"{"id": "a", "n": 1, "v": [1], "n": 2}"#).unwrap_err(),
            "member `n` appears twice in the object; each field may be given once"
        );
        let obj = json_object(r#"{"id": "a", "n": {"n": 1, "m": [1, {"x": 2}]}}"#).unwrap();
        assert_eq!(obj["n"]["m"][1]["x"], 2, "nested objects are read whole");
        assert_eq!(json_object("[1, 2]").unwrap_err(), "expected one JSON object per line, found an array");
        assert_eq!(json_object("-3").unwrap_err(), "expected one JSON object per line, found a number");
        assert!(json_object(r#"{"a": 1, "a": 2"#).unwrap_err().starts_with("the line ends inside"));
    }
}
