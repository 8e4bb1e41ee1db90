//! Parser: tokens to an AST that keeps the source position of every part.
//!
//! Besides the grammar in the module above: `ident [NOT] CONTAIN_ANY list`,
//! `ident [NOT] CONTAIN_ALL list` (a list as after IN) and `array_length '(' ident ')' op
//! literal`.

use super::FilterError;
use super::lexer::{CmpOp, Kw, Span, Tok, Token, clip};

/// Deepest nesting of parentheses accepted (keeps recursion bounded).
pub(super) const MAX_DEPTH: usize = 128;

/// What may stand where a value goes, for messages.
const LITERAL: &str = "a literal ('string', number, TRUE or FALSE) or a $parameter";

#[derive(Clone, Debug, PartialEq)]
pub(super) struct Ident {
    pub name: String,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub(super) enum LitKind {
    Str(String),
    /// Number as written.
    Num(String),
    Bool(bool),
    /// `$name`, bound when the filter is planned.
    Param(String),
}

#[derive(Clone, Debug, PartialEq)]
pub(super) struct Literal {
    pub kind: LitKind,
    pub span: Span,
    /// For a bound parameter: how messages name it (`` `$cat` ``) and its value as text.
    pub from: Option<(String, String)>,
}

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Expr {
    And(Vec<Expr>),
    Or(Vec<Expr>),
    Not(Box<Expr>),
    Cmp {
        field: Ident,
        op: CmpOp,
        op_span: Span,
        value: Literal,
    },
    /// `IN (a, b)`, or `IN $list` (a list of one parameter, bound to its elements).
    In {
        field: Ident,
        negated: bool,
        list: Vec<Literal>,
    },
    /// The pattern is a string or a parameter; `fold`: `ILIKE`, case-insensitive.
    Like {
        field: Ident,
        negated: bool,
        fold: bool,
        keyword: Span,
        pattern: Literal,
    },
    /// `f [NOT] BETWEEN lo AND hi`: `lo <= f AND f <= hi`, both ends included.
    Between {
        field: Ident,
        negated: bool,
        keyword: Span,
        lo: Literal,
        hi: Literal,
    },
    /// `TRUE` or `FALSE` as a whole condition (`--where TRUE`).
    Const(bool),
    /// `f MATCH 'text'`: the query is a string or a parameter.
    Match {
        field: Ident,
        negated: bool,
        keyword: Span,
        query: Literal,
    },
    IsNull {
        field: Ident,
        negated: bool,
    },
    /// `f CONTAIN_ANY (a, b)` (`all`: `CONTAIN_ALL`), or with a list parameter.
    Contain {
        field: Ident,
        all: bool,
        negated: bool,
        keyword: Span,
        list: Vec<Literal>,
    },
    /// `array_length(f) op number`; `call` spans `array_length(f)`.
    Length {
        field: Ident,
        call: Span,
        op: CmpOp,
        op_span: Span,
        value: Literal,
    },
}

/// Parses the tokens of `src` (as produced by `lex`, ending with `Eof`).
pub(super) fn parse(src: &str, tokens: &[Token]) -> Result<Expr, FilterError> {
    let mut p = Parser { src, tokens, pos: 0, depth: 0 };
    if p.peek().tok == Tok::Eof {
        return Err(p.peek().span.error("empty filter: expected a condition such as `field = 'value'`"));
    }
    let expr = p.or()?;
    let next = p.peek();
    match next.tok {
        Tok::Eof => Ok(expr),
        Tok::RParen => Err(next.span.error("unmatched `)`")),
        _ => Err(next.span.error(format!("expected AND, OR or end of input, found {}", p.describe(next)))),
    }
}

struct Parser<'a> {
    src: &'a str,
    tokens: &'a [Token],
    pos: usize,
    depth: usize,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> &'a Token {
        let tokens: &'a [Token] = self.tokens;
        &tokens[self.pos.min(tokens.len() - 1)]
    }

    fn bump(&mut self) -> &'a Token {
        let t = self.peek();
        if t.tok != Tok::Eof {
            self.pos += 1;
        }
        t
    }

    fn eat(&mut self, tok: &Tok) -> bool {
        let hit = self.peek().tok == *tok;
        if hit {
            self.bump();
        }
        hit
    }

    /// A token for messages: its source text in backticks, or "end of input".
    fn describe(&self, t: &Token) -> String {
        if t.tok == Tok::Eof {
            return "end of input".into();
        }
        format!("`{}`", clip(self.src.get(t.span.start..t.span.end).unwrap_or("")))
    }

    fn unexpected(&self, expected: &str) -> FilterError {
        let t = self.peek();
        t.span.error(format!("expected {expected}, found {}", self.describe(t)))
    }

    fn or(&mut self) -> Result<Expr, FilterError> {
        let first = self.and()?;
        if self.peek().tok != Tok::Kw(Kw::Or) {
            return Ok(first);
        }
        let mut all = vec![first];
        while self.eat(&Tok::Kw(Kw::Or)) {
            all.push(self.and()?);
        }
        Ok(Expr::Or(all))
    }

    fn and(&mut self) -> Result<Expr, FilterError> {
        let first = self.not()?;
        if self.peek().tok != Tok::Kw(Kw::And) {
            return Ok(first);
        }
        let mut all = vec![first];
        while self.eat(&Tok::Kw(Kw::And)) {
            all.push(self.not()?);
        }
        Ok(Expr::And(all))
    }

    /// `NOT* primary`; pairs of NOT cancel (also under three-valued logic).
    fn not(&mut self) -> Result<Expr, FilterError> {
        let mut negated = false;
        while self.eat(&Tok::Kw(Kw::Not)) {
            negated = !negated;
        }
        let inner = self.primary()?;
        Ok(if negated { Expr::Not(Box::new(inner)) } else { inner })
    }

    fn primary(&mut self) -> Result<Expr, FilterError> {
        let open = self.peek().span;
        if !self.eat(&Tok::LParen) {
            return self.comparison();
        }
        if self.depth >= MAX_DEPTH {
            return Err(open.error(format!("filter nests parentheses more than {MAX_DEPTH} deep")));
        }
        self.depth += 1;
        let inner = self.or()?;
        self.depth -= 1;
        if !self.eat(&Tok::RParen) {
            let what = format!("`)` to close `(` at line {}, column {}", open.line, open.column);
            return Err(self.unexpected(&what));
        }
        Ok(inner)
    }

    fn comparison(&mut self) -> Result<Expr, FilterError> {
        let t = self.peek();
        if let Tok::Kw(kw @ (Kw::True | Kw::False)) = t.tok {
            self.bump();
            return Ok(Expr::Const(kw == Kw::True));
        }
        if let Tok::Ident(name) = &t.tok
            && name.eq_ignore_ascii_case("array_length")
            && self.tokens.get(self.pos + 1).is_some_and(|n| n.tok == Tok::LParen)
        {
            return self.length();
        }
        let field = match &t.tok {
            Tok::Ident(name) => Ident { name: name.clone(), span: t.span },
            Tok::Kw(_) => {
                let word = self.src.get(t.span.start..t.span.end).unwrap_or("");
                let hint = format!("; a field with that name must be double-quoted: \"{word}\"");
                return Err(t.span.error(format!("expected a field name or `(`, found the keyword `{word}`{hint}")));
            }
            _ => return Err(self.unexpected("a field name or `(`")),
        };
        self.bump();
        let t = self.peek();
        match t.tok {
            Tok::Op(op) => {
                self.bump();
                let value = self.literal(&format!("after {}", self.describe(t)))?;
                Ok(Expr::Cmp { field, op, op_span: t.span, value })
            }
            Tok::Kw(Kw::Is) => {
                self.bump();
                let negated = self.eat(&Tok::Kw(Kw::Not));
                if !self.eat(&Tok::Kw(Kw::Null)) {
                    return Err(self.unexpected(if negated { "NULL after IS NOT" } else { "NULL or NOT after IS" }));
                }
                Ok(Expr::IsNull { field, negated })
            }
            Tok::Kw(Kw::Not) => {
                self.bump();
                let next = self.peek();
                match next.tok {
                    Tok::Kw(Kw::In) => {
                        self.bump();
                        self.in_list(field, true)
                    }
                    Tok::Kw(kw @ (Kw::Like | Kw::ILike)) => {
                        self.bump();
                        self.like(field, true, kw == Kw::ILike, next.span)
                    }
                    Tok::Kw(Kw::Between) => {
                        self.bump();
                        self.between(field, true, next.span)
                    }
                    Tok::Kw(Kw::Match) => {
                        self.bump();
                        self.text_match(field, true, next.span)
                    }
                    Tok::Kw(kw @ (Kw::ContainAny | Kw::ContainAll)) => {
                        self.bump();
                        self.contain(field, kw == Kw::ContainAll, true, next.span)
                    }
                    _ => Err(self.unexpected("IN, LIKE, ILIKE, BETWEEN, MATCH, CONTAIN_ANY or CONTAIN_ALL after NOT")),
                }
            }
            Tok::Kw(Kw::In) => {
                self.bump();
                self.in_list(field, false)
            }
            Tok::Kw(kw @ (Kw::Like | Kw::ILike)) => {
                self.bump();
                self.like(field, false, kw == Kw::ILike, t.span)
            }
            Tok::Kw(Kw::Between) => {
                self.bump();
                self.between(field, false, t.span)
            }
            Tok::Kw(Kw::Match) => {
                self.bump();
                self.text_match(field, false, t.span)
            }
            Tok::Kw(kw @ (Kw::ContainAny | Kw::ContainAll)) => {
                self.bump();
                self.contain(field, kw == Kw::ContainAll, false, t.span)
            }
            _ => {
                let what = format!(
                    "a comparison operator, IN, LIKE, ILIKE, BETWEEN, MATCH, IS, CONTAIN_ANY or CONTAIN_ALL after \
                     field `{}`",
                    clip(&field.name)
                );
                Err(self.unexpected(&what))
            }
        }
    }

    fn literal(&mut self, context: &str) -> Result<Literal, FilterError> {
        let t = self.peek();
        let kind = match &t.tok {
            Tok::Str(s) => LitKind::Str(s.clone()),
            Tok::Num => LitKind::Num(self.src.get(t.span.start..t.span.end).unwrap_or("").to_string()),
            Tok::Kw(Kw::True) => LitKind::Bool(true),
            Tok::Kw(Kw::False) => LitKind::Bool(false),
            Tok::Param(name) => LitKind::Param(name.clone()),
            Tok::Kw(Kw::Null) => {
                return Err(t
                    .span
                    .error("NULL is not a value; test for it with `field IS NULL` or `field IS NOT NULL`"));
            }
            _ => {
                return Err(self.unexpected(&format!("{LITERAL} {context}")));
            }
        };
        self.bump();
        Ok(Literal { kind, span: t.span, from: None })
    }

    fn in_list(&mut self, field: Ident, negated: bool) -> Result<Expr, FilterError> {
        let list = self.list("IN")?;
        Ok(Expr::In { field, negated, list })
    }

    fn contain(&mut self, field: Ident, all: bool, negated: bool, keyword: Span) -> Result<Expr, FilterError> {
        let list = self.list(if all { "CONTAIN_ALL" } else { "CONTAIN_ANY" })?;
        Ok(Expr::Contain { field, all, negated, keyword, list })
    }

    /// `'(' literal (',' literal)* ')'` or one list parameter, after keyword `after`.
    fn list(&mut self, after: &str) -> Result<Vec<Literal>, FilterError> {
        if let Tok::Param(_) = self.peek().tok {
            return Ok(vec![self.literal(&format!("after {after}"))?]);
        }
        if !self.eat(&Tok::LParen) {
            return Err(self.unexpected(&format!("`(` or a list $parameter after {after}")));
        }
        let inside = format!("in the {after} list");
        let mut list = vec![self.literal(&inside)?];
        while !self.eat(&Tok::RParen) {
            if !self.eat(&Tok::Comma) {
                return Err(self.unexpected(&format!("`,` or `)` {inside}")));
            }
            list.push(self.literal(&inside)?);
        }
        Ok(list)
    }

    /// `array_length '(' ident ')' op literal`.
    fn length(&mut self) -> Result<Expr, FilterError> {
        let start = self.bump().span;
        self.bump();
        let t = self.peek();
        let Tok::Ident(name) = &t.tok else {
            return Err(self.unexpected("an array field name in array_length( )"));
        };
        let field = Ident { name: name.clone(), span: t.span };
        self.bump();
        let close = self.peek().span;
        if !self.eat(&Tok::RParen) {
            return Err(self.unexpected("`)` after the field of array_length"));
        }
        let len = self.src.get(start.start..close.end).map_or(1, |t| t.chars().count() as u32);
        let call = Span { end: close.end, len, ..start };
        let t = self.peek();
        let Tok::Op(op) = t.tok else {
            return Err(self.unexpected("a comparison operator after array_length( )"));
        };
        self.bump();
        let value = self.literal(&format!("after {}", self.describe(t)))?;
        Ok(Expr::Length { field, call, op, op_span: t.span, value })
    }

    fn like(&mut self, field: Ident, negated: bool, fold: bool, keyword: Span) -> Result<Expr, FilterError> {
        let name = if fold { "ILIKE" } else { "LIKE" };
        if !matches!(self.peek().tok, Tok::Str(_) | Tok::Param(_)) {
            return Err(self.unexpected(&format!("a 'quoted' pattern or a $parameter after {name}")));
        }
        let pattern = self.literal(&format!("after {name}"))?;
        Ok(Expr::Like { field, negated, fold, keyword, pattern })
    }

    /// `lo AND hi` after BETWEEN: the AND belongs to the range, as in SQL.
    fn between(&mut self, field: Ident, negated: bool, keyword: Span) -> Result<Expr, FilterError> {
        let lo = self.literal("after BETWEEN")?;
        if !self.eat(&Tok::Kw(Kw::And)) {
            return Err(self.unexpected("AND between the two ends of BETWEEN"));
        }
        let hi = self.literal("after BETWEEN ... AND")?;
        Ok(Expr::Between { field, negated, keyword, lo, hi })
    }

    fn text_match(&mut self, field: Ident, negated: bool, keyword: Span) -> Result<Expr, FilterError> {
        if !matches!(self.peek().tok, Tok::Str(_) | Tok::Param(_)) {
            return Err(self.unexpected("a 'quoted' text or a $parameter after MATCH"));
        }
        let query = self.literal("after MATCH")?;
        Ok(Expr::Match { field, negated, keyword, query })
    }
}

#[cfg(test)]
mod tests {
    use super::super::lexer::lex;
    use super::*;

    fn ast(src: &str) -> Expr {
        parse(src, &lex(src).unwrap()).unwrap()
    }

    /// Compact rendering of the tree shape for assertions.
    fn shape(e: &Expr) -> String {
        let join = |xs: &[Expr], sep: &str| xs.iter().map(shape).collect::<Vec<_>>().join(sep);
        match e {
            Expr::And(xs) => format!("({})", join(xs, " & ")),
            Expr::Or(xs) => format!("({})", join(xs, " | ")),
            Expr::Not(x) => format!("!{}", shape(x)),
            Expr::Cmp { field, .. } | Expr::IsNull { field, .. } => field.name.clone(),
            Expr::In { field, negated, list } => {
                format!("{}{}in{}", field.name, if *negated { "!" } else { "" }, list.len())
            }
            Expr::Like { field, negated, fold, pattern, .. } => {
                let pattern = match &pattern.kind {
                    LitKind::Str(s) => format!("'{s}'"),
                    other => format!("{other:?}"),
                };
                let op = if *fold { "ilike" } else { "like" };
                format!("{}{}{op}{pattern}", field.name, if *negated { "!" } else { "" })
            }
            Expr::Between { field, negated, .. } => format!("{}{}between", field.name, if *negated { "!" } else { "" }),
            Expr::Const(v) => v.to_string(),
            Expr::Match { field, negated, .. } => format!("{}{}match", field.name, if *negated { "!" } else { "" }),
            Expr::Contain { field, all, negated, list, .. } => {
                let op = if *all { "all" } else { "any" };
                format!("{}{}{op}{}", field.name, if *negated { "!" } else { "" }, list.len())
            }
            Expr::Length { field, op, .. } => format!("len({}){op:?}", field.name),
        }
    }

    fn err(src: &str) -> (u32, u32, String) {
        let e = lex(src).and_then(|t| parse(src, &t)).unwrap_err();
        (e.line, e.column, e.message)
    }

    #[test]
    fn between_ilike_double_equals_and_constants() {
        assert_eq!(shape(&ast("a BETWEEN 1 AND 5 AND b == 2")), "(abetween & b)");
        assert_eq!(shape(&ast("a NOT BETWEEN 'x' AND 'y' OR b ILIKE 'D%'")), "(a!between | bilike'D%')");
        assert_eq!(shape(&ast("a NOT ILIKE $p")), "a!ilikeParam(\"p\")");
        assert_eq!(shape(&ast("TRUE")), "true");
        assert_eq!(shape(&ast("NOT false OR a = 1")), "(!false | a)");
        assert_eq!(err("a BETWEEN 1 OR 2"), (1, 13, "expected AND between the two ends of BETWEEN, found `OR`".into()));
        assert_eq!(err("a BETWEEN 1 AND"), (1, 16, "expected a literal ('string', number, TRUE or FALSE) or a $parameter after BETWEEN ... AND, found end of input".into()));
    }

    #[test]
    fn precedence_and_grouping() {
        assert_eq!(shape(&ast("a = 1 OR b = 2 AND c = 3")), "(a | (b & c))");
        assert_eq!(shape(&ast("(a = 1 OR b = 2) AND c = 3")), "((a | b) & c)");
        assert_eq!(shape(&ast("NOT a = 1 AND b = 2")), "(!a & b)");
        assert_eq!(shape(&ast("NOT NOT a = 1")), "a");
        assert_eq!(shape(&ast("t CONTAIN_ANY ('x', 'y') AND NOT t not contain_all $l")), "(tany2 & !t!all1)");
        assert_eq!(shape(&ast("array_length(t) >= 2 OR Array_Length (t)=0")), "(len(t)Ge | len(t)Eq)");
        assert_eq!(shape(&ast("not not not (a = 1 or b is null)")), "!(a | b)");
        assert_eq!(
            shape(&ast("a IN (1, 2,3) and b not in ('x') or c like 'p%' and d NOT LIKE ''")),
            "((ain3 & b!in1) | (clike'p%' & d!like''))"
        );
        assert_eq!(shape(&ast("\"select\" = 1")), "select");
        assert_eq!(shape(&ast("a IN $ids OR b NOT IN ($x, 2) OR c LIKE $p")), "(ain1 | b!in2 | clikeParam(\"p\"))");
        assert_eq!(shape(&ast("a IN $ids OR b NOT IN ($x, 2) OR c LIKE $p")), "(ain1 | b!in2 | clikeParam(\"p\"))");
    }

    #[test]
    fn node_positions() {
        let Expr::Cmp { field, op, op_span, value } = ast("\n  lemma\n <= 'x'") else { panic!() };
        assert_eq!((field.span.line, field.span.column, field.span.len), (2, 3, 5));
        assert_eq!((op, op_span.line, op_span.column, op_span.len), (CmpOp::Le, 3, 2, 2));
        assert_eq!((value.kind, value.span.line, value.span.column), (LitKind::Str("x".into()), 3, 5));
    }

    #[test]
    fn syntax_errors() {
        let cases: &[(&str, u32, u32, &str)] = &[
            ("", 1, 1, "empty filter: expected a condition such as `field = 'value'`"),
            ("  \n ", 2, 2, "empty filter: expected a condition such as `field = 'value'`"),
            ("(a = 1", 1, 7, "expected `)` to close `(` at line 1, column 1, found end of input"),
            ("a = 1 AND (b = 2\n  OR c = 3 d", 2, 12, "expected `)` to close `(` at line 1, column 11, found `d`"),
            ("a = 1 b = 2", 1, 7, "expected AND, OR or end of input, found `b`"),
            ("a = 1)", 1, 6, "unmatched `)`"),
            (
                "a = ",
                1,
                5,
                "expected a literal ('string', number, TRUE or FALSE) or a $parameter after `=`, found end of input",
            ),
            (
                "a <> )",
                1,
                6,
                "expected a literal ('string', number, TRUE or FALSE) or a $parameter after `<>`, found `)`",
            ),
            ("a = NULL", 1, 5, "NULL is not a value; test for it with `field IS NULL` or `field IS NOT NULL`"),
            (
                "a",
                1,
                2,
                "expected a comparison operator, IN, LIKE, ILIKE, BETWEEN, MATCH, IS, CONTAIN_ANY or CONTAIN_ALL after field `a`, found end of input",
            ),
            (
                "a 1",
                1,
                3,
                "expected a comparison operator, IN, LIKE, ILIKE, BETWEEN, MATCH, IS, CONTAIN_ANY or CONTAIN_ALL after field `a`, found `1`",
            ),
            (
                "a NOT = 1",
                1,
                7,
                "expected IN, LIKE, ILIKE, BETWEEN, MATCH, CONTAIN_ANY or CONTAIN_ALL after NOT, found `=`",
            ),
            ("a IS 1", 1, 6, "expected NULL or NOT after IS, found `1`"),
            ("a IS NOT TRUE", 1, 10, "expected NULL after IS NOT, found `TRUE`"),
            ("a IN 1", 1, 6, "expected `(` or a list $parameter after IN, found `1`"),
            (
                "a IN ()",
                1,
                7,
                "expected a literal ('string', number, TRUE or FALSE) or a $parameter in the IN list, found `)`",
            ),
            ("a IN (1 2)", 1, 9, "expected `,` or `)` in the IN list, found `2`"),
            (
                "a IN (1,",
                1,
                9,
                "expected a literal ('string', number, TRUE or FALSE) or a $parameter in the IN list, found end of input",
            ),
            ("a LIKE b", 1, 8, "expected a 'quoted' pattern or a $parameter after LIKE, found `b`"),
            ("= 1", 1, 1, "expected a field name or `(`, found `=`"),
            ("a = 1 AND", 1, 10, "expected a field name or `(`, found end of input"),
            ("NOT", 1, 4, "expected a field name or `(`, found end of input"),
            (
                "in = 1",
                1,
                1,
                "expected a field name or `(`, found the keyword `in`; a field with that name must be double-quoted: \"in\"",
            ),
            (
                "a = 'x' OR\n  b = =  2",
                2,
                7,
                "expected a literal ('string', number, TRUE or FALSE) or a $parameter after `=`, found `=`",
            ),
        ];
        for &(src, line, column, message) in cases {
            assert_eq!(err(src), (line, column, message.to_string()), "{src:?}");
        }
    }

    #[test]
    fn depth_limit() {
        let ok = format!("{}a = 1{}", "(".repeat(MAX_DEPTH), ")".repeat(MAX_DEPTH));
        assert!(lex(&ok).and_then(|t| parse(&ok, &t)).is_ok());
        let deep = format!("{}a = 1{}", "(".repeat(MAX_DEPTH + 1), ")".repeat(MAX_DEPTH + 1));
        let (line, column, message) = err(&deep);
        assert_eq!((line, column), (1, MAX_DEPTH as u32 + 1));
        assert_eq!(message, format!("filter nests parentheses more than {MAX_DEPTH} deep"));
        let nots = format!("{}a = 1", "NOT ".repeat(100_001));
        assert_eq!(shape(&ast(&nots)), "!a");
    }
}
