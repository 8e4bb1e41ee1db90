//! Parameters: typed values bound to the `$name` placeholders of a filter.
//!
//! Binding is by value, never by text: a bound string is a string literal whatever it
//! holds (quotes, `OR 1=1`, `$other`), so a parameter cannot change a filter's shape.
//! `'$name'` inside quotes is the literal text `$name`.

use std::collections::BTreeMap;
use std::fmt;

use super::lexer::{Span, Tok, lex};
use super::parser::{LitKind, Literal};
use super::{FilterError, FilterErrorKind};

/// One parameter value.
#[derive(Clone, Debug, PartialEq)]
pub enum Param {
    /// Compares as a string literal, whatever it holds.
    String(String),
    /// A number as text in the filter's number syntax (every JSON number is), so integer
    /// fields compare with it exactly; checked when bound.
    Number(String),
    /// `TRUE` or `FALSE`.
    Bool(bool),
    /// Elements for `IN $name`; a list of numbers is also a vector.
    List(Vec<Param>),
}

impl Param {
    /// `string`, `number`, `bool`, or `list`.
    pub fn type_name(&self) -> &'static str {
        match self {
            Param::String(_) => "string",
            Param::Number(_) => "number",
            Param::Bool(_) => "bool",
            Param::List(_) => "list",
        }
    }
}

/// As a filter literal: `'it''s'`, `1.5`, `TRUE`, `[1, 'a']`.
impl fmt::Display for Param {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Param::String(s) => write!(f, "'{}'", s.replace('\'', "''")),
            Param::Number(n) => f.write_str(n),
            Param::Bool(b) => f.write_str(if *b { "TRUE" } else { "FALSE" }),
            Param::List(xs) => {
                f.write_str("[")?;
                for (i, x) in xs.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{x}")?;
                }
                f.write_str("]")
            }
        }
    }
}

impl From<&str> for Param {
    fn from(s: &str) -> Param {
        Param::String(s.to_string())
    }
}

impl From<String> for Param {
    fn from(s: String) -> Param {
        Param::String(s)
    }
}

impl From<bool> for Param {
    fn from(b: bool) -> Param {
        Param::Bool(b)
    }
}

macro_rules! integer_params {
    ($($t:ty),*) => {$(
        impl From<$t> for Param {
            fn from(n: $t) -> Param {
                Param::Number(n.to_string())
            }
        }
    )*};
}
integer_params!(i32, i64, u32, u64, usize);

/// Shortest round-trip text; NaN and infinities are refused when bound.
impl From<f64> for Param {
    fn from(x: f64) -> Param {
        Param::Number(if x.is_finite() { format!("{x:e}") } else { x.to_string() })
    }
}

/// Shortest text that reads back as the same `f32`.
impl From<f32> for Param {
    fn from(x: f32) -> Param {
        Param::Number(if x.is_finite() { format!("{x:e}") } else { x.to_string() })
    }
}

impl<T: Into<Param>> From<Vec<T>> for Param {
    fn from(xs: Vec<T>) -> Param {
        Param::List(xs.into_iter().map(Into::into).collect())
    }
}

/// Named parameter values for a filter's `$name` placeholders, as [`Query::params`],
/// [`Collection::delete_where_with`] and [`Snapshot::keys_where_with`] take them. Names
/// are without the `$`.
///
/// [`Query::params`]: crate::Query::params
/// [`Collection::delete_where_with`]: crate::Collection::delete_where_with
/// [`Snapshot::keys_where_with`]: crate::Snapshot::keys_where_with
///
/// ```
/// use xvec::Params;
/// let p = Params::new().set("cat", "fruit").set("n", 3).set("ids", vec![1, 2]);
/// assert_eq!(p.get("n").map(|v| v.type_name()), Some("number"));
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Params {
    values: BTreeMap<String, Param>,
}

impl Params {
    /// No bindings: a filter with any `$name` then fails with
    /// [`FilterErrorKind::UnboundParam`](crate::FilterErrorKind::UnboundParam).
    pub fn new() -> Params {
        Params::default()
    }

    /// Whether a filter can name `name` as `$name`: ASCII letters, digits and `_`.
    pub fn is_valid_name(name: &str) -> bool {
        !name.is_empty() && name.chars().all(super::lexer::is_param_char)
    }

    /// Binds `name` (builder form of [`Params::insert`]).
    pub fn set(mut self, name: impl Into<String>, value: impl Into<Param>) -> Params {
        self.insert(name, value);
        self
    }

    /// Binds `name`, returning its previous value.
    pub fn insert(&mut self, name: impl Into<String>, value: impl Into<Param>) -> Option<Param> {
        self.values.insert(name.into(), value.into())
    }

    /// Unbinds `name`, returning its value.
    pub fn remove(&mut self, name: &str) -> Option<Param> {
        self.values.remove(name)
    }

    /// The value bound to `name` (without `$`).
    pub fn get(&self, name: &str) -> Option<&Param> {
        self.values.get(name)
    }

    /// Whether nothing is bound.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Bindings by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Param)> {
        self.values.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// Adds every binding of `other`, replacing those of the same name.
    pub fn extend(&mut self, other: &Params) {
        self.values.extend(other.values.iter().map(|(k, v)| (k.clone(), v.clone())));
    }

    fn lookup(&self, name: &str, span: Span) -> Result<&Param, FilterError> {
        self.get(name).ok_or_else(|| FilterError {
            kind: FilterErrorKind::UnboundParam(name.to_string()),
            ..span.error(format!("parameter `${name}` is not bound"))
        })
    }
}

/// `lit` with a parameter replaced by its scalar value; a list is refused.
pub(super) fn bind_scalar(lit: &Literal, params: &Params) -> Result<Literal, FilterError> {
    let LitKind::Param(name) = &lit.kind else { return Ok(lit.clone()) };
    match params.lookup(name, lit.span)? {
        Param::List(_) => {
            Err(lit.span.error(format!("parameter `${name}` is a list; a list goes after IN, e.g. `field IN ${name}`")))
        }
        value => scalar(value, lit.span, format!("`${name}`")),
    }
}

/// The elements of an IN list, list parameters spread into their elements.
pub(super) fn bind_list(list: &[Literal], params: &Params) -> Result<Vec<Literal>, FilterError> {
    let mut out = Vec::with_capacity(list.len());
    for lit in list {
        let LitKind::Param(name) = &lit.kind else {
            out.push(lit.clone());
            continue;
        };
        match params.lookup(name, lit.span)? {
            Param::List(xs) => {
                for (i, x) in xs.iter().enumerate() {
                    if let Param::List(_) = x {
                        let msg = format!("element {} of `${name}` is a list; IN takes a flat list", i + 1);
                        return Err(lit.span.error(msg));
                    }
                    out.push(scalar(x, lit.span, format!("element {} of `${name}`", i + 1))?);
                }
            }
            value => out.push(scalar(value, lit.span, format!("`${name}`"))?),
        }
    }
    Ok(out)
}

/// A literal holding a scalar parameter value, placed at the placeholder's span.
fn scalar(value: &Param, span: Span, label: String) -> Result<Literal, FilterError> {
    let kind = match value {
        Param::String(s) => LitKind::Str(s.clone()),
        Param::Bool(b) => LitKind::Bool(*b),
        Param::Number(text) => {
            let is_number = lex(text).is_ok_and(|t| t.len() == 2 && t[0].tok == Tok::Num);
            if !is_number {
                return Err(
                    span.error(format!("{label} is `{}`, which is not a finite number", super::lexer::clip(text)))
                );
            }
            LitKind::Num(text.clone())
        }
        Param::List(_) => unreachable!("lists are spread by the callers"),
    };
    Ok(Literal { kind, span, from: Some((label, value.to_string())) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_and_display() {
        let p = Params::new()
            .set("s", "it's")
            .set("i", -3i64)
            .set("u", u64::MAX)
            .set("f", 0.1f32)
            .set("d", 1500.0)
            .set("b", true)
            .set("l", vec![Param::from(1), "a".into()]);
        let shown: Vec<String> = p.iter().map(|(k, v)| format!("{k}:{}={v}", v.type_name())).collect();
        assert_eq!(
            shown,
            [
                "b:bool=TRUE",
                "d:number=1.5e3",
                "f:number=1e-1",
                "i:number=-3",
                "l:list=[1, 'a']",
                "s:string='it''s'",
                "u:number=18446744073709551615"
            ]
        );
        let mut p = p;
        assert_eq!(p.insert("b", false), Some(Param::Bool(true)));
        assert_eq!(p.remove("b"), Some(Param::Bool(false)));
        assert!(p.get("b").is_none() && !p.is_empty());
        let mut q = Params::new().set("s", 1);
        q.extend(&p);
        assert_eq!(q.get("s"), Some(&Param::from("it's")));
    }

    #[test]
    fn non_finite_numbers_are_refused_when_bound() {
        assert_eq!(Param::from(f64::NAN), Param::Number("NaN".into()));
        let span = Span { start: 0, end: 2, line: 1, column: 5, len: 2 };
        let lit = Literal { kind: LitKind::Param("x".into()), span, from: None };
        let e = bind_scalar(&lit, &Params::new().set("x", f64::INFINITY)).unwrap_err();
        assert_eq!(e.message, "`$x` is `inf`, which is not a finite number");
        let e = bind_scalar(&lit, &Params::new().set("x", Param::Number("1 OR 1".into()))).unwrap_err();
        assert_eq!(e.message, "`$x` is `1 OR 1`, which is not a finite number");
        let e = bind_scalar(&lit, &Params::new()).unwrap_err();
        assert_eq!((e.kind, e.column, e.len), (FilterErrorKind::UnboundParam("x".into()), 5, 2));
    }
}
