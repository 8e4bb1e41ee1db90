//! Filters: a small SQL-like language over scalar fields, compiled once per query and
//! evaluated per segment into a bitmap of matching rows.
//!
//! ```text
//! expr       := or
//! or         := and ( OR and )*
//! and        := not ( AND not )*
//! not        := NOT not | primary
//! primary    := '(' expr ')' | TRUE | FALSE | comparison
//! comparison := ident op literal
//!             | ident [NOT] BETWEEN literal AND literal
//!             | ident [NOT] IN '(' literal (',' literal)* ')'
//!             | ident [NOT] IN param
//!             | ident [NOT] (LIKE | ILIKE) (string | param)
//!             | ident [NOT] MATCH (string | param)
//!             | ident IS [NOT] NULL
//!             | ident [NOT] (CONTAIN_ANY | CONTAIN_ALL) ( '(' literal (',' literal)* ')' | param )
//!             | array_length '(' ident ')' op literal
//! op         := = | == | != | <> | < | <= | > | >=
//! literal    := string | number | TRUE | FALSE | param
//! param      := '$' [A-Za-z0-9_]+
//! string     := 'single quoted'             ('' stands for one quote)
//! number     := -?digits(.digits)?([eE][+-]?digits)?
//! ident      := [A-Za-z_][A-Za-z0-9_]* | "double quoted"   ("" stands for one quote)
//! ```
//!
//! Keywords (`AND OR NOT IN LIKE ILIKE BETWEEN MATCH IS NULL TRUE FALSE CONTAIN_ANY
//! CONTAIN_ALL`, and
//! `array_length` before `(`) are case-insensitive; a field named
//! like a keyword must be double-quoted (`"in" = 1`). Newlines are whitespace. An ident is
//! a scalar field of the schema or `_key`, the primary key (a string). Parentheses nest at
//! most 128 deep.
//!
//! Parameters: `$name` is a placeholder for a value of a [`Params`] set given to
//! [`Filter::compile_with`] (and to the query, count and delete paths). Binding is typed,
//! never textual: a string parameter is one string literal whatever it holds, a number a
//! number, a bool a bool, a list the elements of an IN list (`n IN $ids`, also spread
//! inside parentheses: `n IN ($ids, 7)`). `'$name'` in quotes is the literal text `$name`,
//! and `"$name"` a field of that name. An unbound `$name` is an error at its position
//! ([`FilterErrorKind::UnboundParam`]).
//!
//! Types:
//! - string fields take string literals, with every operator (`<`, `>` compare bytes
//!   lexicographically), IN and LIKE;
//! - bool fields take TRUE / FALSE with `=`, `!=`, `<>` and IN;
//! - numeric fields take numbers. Integer fields compare mathematically with any number:
//!   `n < 2.5` matches 2, `n = 2.5` matches nothing, and a literal outside the field
//!   type's range is not an error (`x < 1e10` holds for every non-null int32 `x`).
//!   `float` and `double` fields compare with the literal rounded to their precision.
//!
//! - array fields take CONTAIN_ANY (some element equals a listed value; the list is typed
//!   like an IN list of the element type), CONTAIN_ALL (each listed value equals some
//!   element), `array_length(f)` compared with a number, and IS [NOT] NULL; an empty
//!   array is not NULL (it contains nothing, its length is 0).
//!
//! MATCH: a string field with a full-text (fts) index holds every clause of the text,
//! analysed like the field: a word (all its terms), a `"quoted phrase"` (its terms at
//! consecutive positions) or a `prefix*` (some term starting with it), as SQLite's FTS5
//! `MATCH` (clauses are ANDed; rank with a text query instead).
//!
//! LIKE: `%` matches any run of chars, `_` exactly one char, `\` makes the next char
//! literal (`'100\%'`); matching is case-sensitive, as in PostgreSQL, and covers the whole
//! value. ILIKE matches the same patterns ignoring case (both sides lowercased by Unicode's
//! mapping); it scans, where LIKE with a literal prefix can use a scalar index.
//!
//! `f BETWEEN a AND b` is `f >= a AND f <= b` (both ends included; `NOT BETWEEN` is
//! `f < a OR f > b`). `TRUE` and `FALSE` alone are conditions every row (no row) meets:
//! `--where TRUE` deletes everything, as in SQL.
//!
//! NULL semantics are SQL's three-valued logic. A comparison, IN, NOT IN, LIKE, CONTAIN_ANY,
//! CONTAIN_ALL or array_length test on a null
//! value is UNKNOWN; `NOT UNKNOWN` is UNKNOWN; AND and OR follow Kleene logic:
//! `FALSE AND UNKNOWN` is FALSE, `TRUE OR UNKNOWN` is TRUE, `TRUE AND UNKNOWN` and
//! `FALSE OR UNKNOWN` are UNKNOWN. `IS NULL` and `IS NOT NULL` are never UNKNOWN. A row
//! matches only when the whole filter is TRUE, so `NOT (x = 1)` skips rows where `x` is
//! null, and `x IS NULL OR x != 1` keeps them.

mod eval;
mod lexer;
mod like;
mod params;
mod parser;
mod plan;
#[cfg(test)]
mod segment_tests;
mod text_match;

pub use eval::{Access, LeafTrace};
pub use params::{Param, Params};

use roaring::RoaringBitmap;

pub(crate) use crate::error::{FilterError, FilterErrorKind};
use crate::index::field_indexes::FieldIndexes;
use crate::schema::Schema;
use crate::storage::column::ColumnSource;

/// A compiled filter. Compile once per query, evaluate per segment.
#[derive(Clone, Debug)]
pub(crate) struct Filter {
    plan: plan::Plan,
}

impl Filter {
    /// Parses `text` and type-checks it against `schema`; a `$name` in it is unbound.
    #[cfg(test)]
    pub(crate) fn compile(text: &str, schema: &Schema) -> Result<Filter, FilterError> {
        Filter::compile_with(text, schema, &Params::new())
    }

    /// Parses `text`, binds its `$name` placeholders to `params` and type-checks it
    /// against `schema`.
    pub(crate) fn compile_with(text: &str, schema: &Schema, params: &Params) -> Result<Filter, FilterError> {
        let tokens = lexer::lex(text)?;
        let ast = parser::parse(text, &tokens)?;
        let plan = plan::plan(text, &ast, schema, params)?;
        Ok(Filter { plan })
    }

    /// Rows of the segment (`0..src.rows()`) for which the filter is TRUE (SQL
    /// three-valued logic: NULL comparisons are unknown, and unknown does not match).
    /// `indexes` are the segment's scalar indexes per field position (none for a
    /// memtable): a leaf they answer is looked up instead of scanned.
    pub(crate) fn evaluate(&self, src: &dyn ColumnSource, indexes: &[FieldIndexes]) -> RoaringBitmap {
        eval::evaluate(&self.plan.root, src, indexes, None)
    }

    /// [`Filter::evaluate`], recording how each leaf was evaluated into `trace`.
    pub(crate) fn evaluate_traced(
        &self,
        src: &dyn ColumnSource,
        indexes: &[FieldIndexes],
        trace: &mut Vec<LeafTrace>,
    ) -> RoaringBitmap {
        eval::evaluate(&self.plan.root, src, indexes, Some(trace))
    }

    /// Each leaf of the filter as written, `NOT` added where a negation was pushed onto
    /// it; [`LeafTrace::leaf`] indexes this.
    pub(crate) fn leaves(&self) -> &[String] {
        &self.plan.leaves
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{Field, Metric, ScalarType, VectorType};

    fn schema() -> Schema {
        Schema::builder("t")
            .field(Field::scalar("lemma", ScalarType::String))
            .field(Field::scalar("n", ScalarType::Int32).nullable(true))
            .field(Field::scalar("flag", ScalarType::Bool))
            .field(Field::vector("emb", VectorType::Fp16, 8, Metric::Ip))
            .build()
            .unwrap()
    }

    #[test]
    fn api() {
        let text = "n > 1 AND lemma LIKE 'a%' OR _key = 'k' OR n IS NULL";
        Filter::compile(text, &schema()).unwrap();
        let e = Filter::compile("n = 'x'", &schema()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "filter: line 1, column 5: field `n` is int32 but `'x'` is a string; expected a number"
        );
    }

    #[test]
    fn caret() {
        let text = "lemma = 'a' AND\n\tn = 'x' OR flag = TRUE";
        let e = Filter::compile(text, &schema()).unwrap_err();
        assert_eq!((e.line, e.column, e.len), (2, 6, 3));
        assert_eq!(e.caret(text), "\tn = 'x' OR flag = TRUE\n\t    ^^^");
        let text = "(n = 1\r\n";
        let e = Filter::compile(text, &schema()).unwrap_err();
        assert_eq!((e.line, e.column), (2, 1));
        assert_eq!(e.caret(text), "\n^");
        let text = "n = 1 AND lemma = 'unterminated\nmore";
        let e = Filter::compile(text, &schema()).unwrap_err();
        assert_eq!(e.caret(text), "n = 1 AND lemma = 'unterminated\n                  ^");
        let e = Filter::compile("n = 1 AND lemma = 'long string\nacross lines' AND x = 1", &schema());
        assert!(e.is_err());
        // A span running past its line is clipped; a bogus position does not panic.
        let e = FilterError { kind: FilterErrorKind::Invalid, line: 1, column: 3, len: 99, message: String::new() };
        assert_eq!(e.caret("abcd\nef"), "abcd\n  ^^");
        let e = FilterError {
            kind: FilterErrorKind::Invalid,
            line: 7,
            column: u32::MAX,
            len: u32::MAX,
            message: String::new(),
        };
        assert_eq!(e.caret("abc"), "\n^");

        // Issue 36: a parse error echoed a 390 KB filter whole. Only the text around the
        // span is shown, cut with `…`, and the caret still points at the error.
        let long = format!(
            "lemma = 'a' AND {}n = 'x' OR {}n = 1",
            "lemma = 'b' AND ".repeat(25_000),
            "n = 1 OR ".repeat(25_000)
        );
        let e = Filter::compile(&long, &schema()).unwrap_err();
        let caret = e.caret(&long);
        let (shown, under) = caret.split_once('\n').unwrap();
        assert!(shown.len() < 4 * crate::error::CARET_CONTEXT, "{} bytes echoed", shown.len());
        assert!(shown.starts_with('…') && shown.ends_with('…'), "{shown}");
        let at = under.chars().count() - under.trim_start().chars().count();
        let pointed: String = shown.chars().skip(at).take(under.trim_start().len()).collect();
        assert_eq!(pointed, "'x'", "{caret}");
        let short = FilterError { kind: FilterErrorKind::Invalid, line: 1, column: 3, len: 1, message: String::new() };
        assert_eq!(short.caret(&"x".repeat(200)), format!("{}…\n  ^", "x".repeat(63)));
    }

    #[test]
    fn never_panics() {
        let valid = [
            "lemma = 'it''s' AND (n >= -1.5e+3 OR n IS NOT NULL) AND NOT flag = TRUE",
            "_key NOT IN ('a', 'b') OR \"lemma\" LIKE '%é_\\%' AND n <> 2",
            "NOT NOT (n IN (1, 2.5, 1e99) AND lemma NOT LIKE 'x%')\n OR flag IS NULL",
            "n < 99999999999999999999999999999999999999999e99999999999999999999999",
        ];
        let schema = schema();
        for text in valid {
            assert!(Filter::compile(text, &schema).is_ok(), "{text}");
            for (i, _) in text.char_indices() {
                let _ = Filter::compile(&text[..i], &schema);
                let _ = Filter::compile(&text[i..], &schema);
            }
        }
        let mut seed = 7u64;
        let alphabet: Vec<char> =
            "()'\",.-+eE0123456789 _%\\\n\tnNoOtTaAiIlLkKsS=<>!#é\0\u{7f}\u{10ffff}".chars().collect();
        for _ in 0..20_000 {
            let len = {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                (seed >> 33) as usize % 24
            };
            let text: String = (0..len)
                .map(|_| {
                    seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    alphabet[(seed >> 33) as usize % alphabet.len()]
                })
                .collect();
            if let Err(e) = Filter::compile(&text, &schema) {
                assert!(e.len >= 1 && e.line >= 1 && e.column >= 1, "{text:?}: {e:?}");
                let _ = e.caret(&text);
            }
        }
        for _ in 0..5_000 {
            let bytes: Vec<u8> = (0..seed as usize % 32)
                .map(|_| {
                    seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    (seed >> 56) as u8
                })
                .collect();
            let _ = Filter::compile(&String::from_utf8_lossy(&bytes), &schema);
        }
        let long = "x".repeat(1_000_000);
        let e = Filter::compile(&long, &schema).unwrap_err();
        let x40 = &long[..40];
        let want = format!(
            "expected a comparison operator, IN, LIKE, ILIKE, BETWEEN, MATCH, IS, CONTAIN_ANY or CONTAIN_ALL after field `{x40}…`, found end of input"
        );
        assert_eq!(e.message, want);
        let e = Filter::compile(&format!("{long} = 1"), &schema).unwrap_err();
        let want = format!("unknown field `{x40}…`; fields: lemma, n, flag, _key");
        assert_eq!(e.message, want);
        let e = Filter::compile(&format!("n = '{long}'"), &schema).unwrap_err();
        let want = format!("field `n` is int32 but `'{}…` is a string; expected a number", &long[..39]);
        assert_eq!(e.message, want);
        for bad in
            ["(".repeat(100_000), "NOT ".repeat(100_000), "a = 1 AND ".repeat(10_000), "\u{0}".into(), "'".into()]
        {
            let _ = Filter::compile(&bad, &schema);
        }
    }
}
