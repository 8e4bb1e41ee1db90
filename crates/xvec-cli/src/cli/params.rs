//! Parameter values as the tool takes them, in `.param set NAME VALUE` and
//! `--param NAME=VALUE`, typed the way sqlite3's `.param set` types them: a JSON number is
//! a number, `true`/`false` a bool, `[...]` a JSON array (a list, or a vector for
//! `query $q`), and anything else a string: `'...'` or `"..."` without its quotes (a
//! doubled quote inside stands for one), or the bare text. The shell removes one level of
//! quotes first, so `.param set n '42'` binds the number 42 and `.param set n "'42'"` the
//! string `42`, as in sqlite3.

use xvec::{Param, Params};

/// A parameter as given: the typed value for filters and the text for whole-word
/// substitution of `$NAME` in the shell.
#[derive(Clone, Debug, PartialEq)]
pub struct Binding {
    pub name: String,
    pub value: Param,
    pub text: String,
}

impl Binding {
    /// `NAME` (a leading `$` is allowed) and its VALUE text.
    pub fn new(name: &str, text: &str) -> Result<Binding, String> {
        let name = name.strip_prefix('$').unwrap_or(name);
        if !Params::is_valid_name(name) {
            return Err(format!("bad parameter name {name:?}: use ASCII letters, digits and `_`, e.g. `cat` for $cat"));
        }
        Ok(Binding { name: name.to_string(), value: typed(text)?, text: text.to_string() })
    }

    /// `NAME=VALUE`, as `--param` takes it.
    pub fn parse_flag(arg: &str) -> Result<Binding, String> {
        let Some((name, text)) = arg.split_once('=') else {
            return Err(format!("expected NAME=VALUE, e.g. cat=fruit or ids=[1,2], found {arg:?}"));
        };
        Binding::new(name, text)
    }

    /// The type as `.param list` shows it: `string`, `number`, `bool`, `vector(3)` for a
    /// list of numbers, `list(2)` for any other list.
    pub fn type_label(&self) -> String {
        match &self.value {
            Param::List(xs) if !xs.is_empty() && xs.iter().all(|x| matches!(x, Param::Number(_))) => {
                format!("vector({})", xs.len())
            }
            Param::List(xs) => format!("list({})", xs.len()),
            other => other.type_name().to_string(),
        }
    }
}

/// The typed value of VALUE text.
fn typed(text: &str) -> Result<Param, String> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("true") || t.eq_ignore_ascii_case("false") {
        return Ok(Param::Bool(t.eq_ignore_ascii_case("true")));
    }
    if t.eq_ignore_ascii_case("null") {
        return Err("NULL is not a filter value (test for it with `field IS NULL`); \
                    for the text null quote it: \"'null'\""
            .into());
    }
    if t.starts_with('[') {
        let json: serde_json::Value = serde_json::from_str(t)
            .map_err(|e| format!("a value starting with `[` is a JSON array, e.g. [1, 2] or [\"a\", \"b\"]: {e}"))?;
        return json_param(&json, 0);
    }
    if is_json_number(t) {
        return Ok(Param::Number(t.to_string()));
    }
    for q in ['\'', '"'] {
        if let Some(inner) = t.strip_prefix(q).and_then(|r| r.strip_suffix(q))
            && t.len() >= 2
        {
            return Ok(Param::String(inner.replace(&format!("{q}{q}"), &q.to_string())));
        }
    }
    Ok(Param::String(text.to_string()))
}

/// `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`, kept as written so integer fields
/// compare with it exactly however long it is.
fn is_json_number(t: &str) -> bool {
    let b = t.strip_prefix('-').unwrap_or(t).as_bytes();
    let digits = |i: usize| b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    let mut i = match digits(0) {
        0 => return false,
        n if n > 1 && b[0] == b'0' => return false,
        n => n,
    };
    if b.get(i) == Some(&b'.') {
        match digits(i + 1) {
            0 => return false,
            n => i += 1 + n,
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1 + usize::from(matches!(b.get(i + 1), Some(b'+' | b'-')));
        match digits(i) {
            0 => return false,
            n => i += n,
        }
    }
    i == b.len()
}

/// A JSON array element (or the array itself at depth 0) as a parameter.
fn json_param(json: &serde_json::Value, depth: usize) -> Result<Param, String> {
    use serde_json::Value as J;
    Ok(match json {
        J::Number(n) => Param::Number(n.to_string()),
        J::String(s) => Param::String(s.clone()),
        J::Bool(b) => Param::Bool(*b),
        J::Array(xs) if depth == 0 => Param::List(xs.iter().map(|x| json_param(x, 1)).collect::<Result<_, _>>()?),
        J::Array(_) => return Err("a list parameter holds numbers, strings or bools, not lists".into()),
        J::Object(_) => return Err("a list parameter holds numbers, strings or bools, not objects".into()),
        J::Null => return Err("a list parameter cannot hold null".into()),
    })
}

/// The typed values of `bindings`, later ones replacing earlier ones of the same name.
pub fn params_of<'a>(bindings: impl IntoIterator<Item = &'a Binding>) -> Params {
    let mut p = Params::new();
    for b in bindings {
        p.insert(b.name.clone(), b.value.clone());
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(text: &str) -> Param {
        typed(text).unwrap()
    }

    #[test]
    fn values_are_typed_like_sqlite3() {
        assert_eq!(ty("42"), Param::Number("42".into()));
        assert_eq!(ty("-1.5e3"), Param::Number("-1.5e3".into()));
        assert_eq!(ty("TRUE"), Param::Bool(true));
        assert_eq!(ty("false"), Param::Bool(false));
        assert_eq!(ty("fruit"), Param::String("fruit".into()));
        assert_eq!(ty("'42'"), Param::String("42".into()));
        assert_eq!(ty("\"it\"\"s\""), Param::String("it\"s".into()));
        assert_eq!(ty("'it''s'"), Param::String("it's".into()));
        assert_eq!(ty("007"), Param::String("007".into()), "not a JSON number");
        assert_eq!(ty("1e400"), Param::Number("1e400".into()));
        assert_eq!(ty("18446744073709551616"), Param::Number("18446744073709551616".into()));
        for not_number in ["-", "1.", ".5", "+1", "1e", "1e+", "0x10", "1.5.2", "1 2"] {
            assert_eq!(ty(not_number), Param::String(not_number.into()), "{not_number}");
        }
        assert_eq!(ty("'"), Param::String("'".into()));
        assert_eq!(ty("x' OR 1=1 OR category = 'y"), Param::String("x' OR 1=1 OR category = 'y".into()));
        assert_eq!(ty("'; drop"), Param::String("'; drop".into()));
        assert_eq!(ty("[1, 2.5]"), Param::List(vec![Param::Number("1".into()), Param::Number("2.5".into())]));
        assert_eq!(ty("[\"a\", true]"), Param::List(vec![Param::String("a".into()), Param::Bool(true)]));
        assert!(typed("[1, [2]]").unwrap_err().contains("not lists"));
        assert!(typed("[1, 2").unwrap_err().contains("JSON array"));
        assert!(typed("null").unwrap_err().contains("IS NULL"));
    }

    #[test]
    fn bindings() {
        let b = Binding::parse_flag("$q=[0.5, 1]").unwrap();
        assert_eq!((b.name.as_str(), b.text.as_str(), b.type_label()), ("q", "[0.5, 1]", "vector(2)".into()));
        assert_eq!(Binding::parse_flag("l=[1, \"a\"]").unwrap().type_label(), "list(2)");
        assert_eq!(Binding::parse_flag("e=a=b").unwrap().value, Param::String("a=b".into()));
        assert!(Binding::parse_flag("cat").unwrap_err().starts_with("expected NAME=VALUE"));
        assert!(Binding::new("a-b", "1").unwrap_err().starts_with("bad parameter name \"a-b\""));
        let p = params_of(&[Binding::new("x", "1").unwrap(), Binding::new("x", "two").unwrap()]);
        assert_eq!(p.get("x"), Some(&Param::String("two".into())));
    }
}
