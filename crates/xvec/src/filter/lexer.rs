//! Tokenizer: filter text to tokens with line/column spans.

use super::{FilterError, FilterErrorKind};

/// Where a token sits in the source: byte range plus 1-based line and char column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Span {
    pub start: usize,
    pub end: usize,
    pub line: u32,
    pub column: u32,
    /// Length in chars, at least 1 (end of input gets 1).
    pub len: u32,
}

impl Span {
    pub(super) fn error(self, message: impl Into<String>) -> FilterError {
        FilterError {
            kind: FilterErrorKind::Invalid,
            line: self.line,
            column: self.column,
            len: self.len.max(1),
            message: message.into(),
        }
    }
}

/// Source text for a message, cut to 40 chars.
pub(super) fn clip(text: &str) -> String {
    match text.char_indices().nth(40) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

/// Comparison operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    /// Whether `a op b` holds given `a.cmp(b)`.
    #[inline]
    pub(super) fn holds(self, ord: std::cmp::Ordering) -> bool {
        use std::cmp::Ordering::*;
        match self {
            CmpOp::Eq => ord == Equal,
            CmpOp::Ne => ord != Equal,
            CmpOp::Lt => ord == Less,
            CmpOp::Le => ord != Greater,
            CmpOp::Gt => ord == Greater,
            CmpOp::Ge => ord != Less,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kw {
    And,
    Or,
    Not,
    In,
    Like,
    Is,
    Null,
    True,
    False,
    ContainAny,
    ContainAll,
    Match,
    ILike,
    Between,
}

const KEYWORDS: [(&str, Kw); 14] = [
    ("and", Kw::And),
    ("or", Kw::Or),
    ("not", Kw::Not),
    ("in", Kw::In),
    ("like", Kw::Like),
    ("ilike", Kw::ILike),
    ("between", Kw::Between),
    ("match", Kw::Match),
    ("is", Kw::Is),
    ("null", Kw::Null),
    ("true", Kw::True),
    ("false", Kw::False),
    ("contain_any", Kw::ContainAny),
    ("contain_all", Kw::ContainAll),
];

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok {
    /// Bare or double-quoted identifier, unescaped.
    Ident(String),
    /// Single-quoted string, unescaped.
    Str(String),
    /// Number literal, as written (validated by the lexer).
    Num,
    /// `$name`: a placeholder bound to a parameter when the filter is compiled.
    Param(String),
    Kw(Kw),
    Op(CmpOp),
    LParen,
    RParen,
    Comma,
    Eof,
}

#[derive(Clone, Debug, PartialEq)]
pub(super) struct Token {
    pub tok: Tok,
    pub span: Span,
}

/// Char cursor tracking line and column.
struct Cursor<'a> {
    src: &'a str,
    pos: usize,
    line: u32,
    column: u32,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<char> {
        self.src[self.pos..].chars().next()
    }

    fn peek2(&self) -> Option<char> {
        self.src[self.pos..].chars().nth(1)
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        if c == '\n' {
            self.line = self.line.saturating_add(1);
            self.column = 1;
        } else {
            self.column = self.column.saturating_add(1);
        }
        Some(c)
    }

    fn eat_while(&mut self, f: impl Fn(char) -> bool) {
        while self.peek().is_some_and(&f) {
            self.bump();
        }
    }

    /// Span from a start mark to the current position.
    fn span(&self, start: (usize, u32, u32)) -> Span {
        let (pos, line, column) = start;
        let chars = self.src[pos..self.pos].chars().count();
        Span { start: pos, end: self.pos, line, column, len: u32::try_from(chars).unwrap_or(u32::MAX).max(1) }
    }

    fn mark(&self) -> (usize, u32, u32) {
        (self.pos, self.line, self.column)
    }
}

/// Splits `src` into tokens, ending with [`Tok::Eof`].
pub(super) fn lex(src: &str) -> Result<Vec<Token>, FilterError> {
    let mut cur = Cursor { src, pos: 0, line: 1, column: 1 };
    let mut out = Vec::new();
    loop {
        cur.eat_while(char::is_whitespace);
        let start = cur.mark();
        let Some(c) = cur.bump() else {
            out.push(Token { tok: Tok::Eof, span: cur.span(start) });
            return Ok(out);
        };
        let tok = match c {
            '(' => Tok::LParen,
            ')' => Tok::RParen,
            ',' => Tok::Comma,
            // `==` as in C and Python: the same test as `=`.
            '=' => {
                if cur.peek() == Some('=') {
                    cur.bump();
                }
                Tok::Op(CmpOp::Eq)
            }
            '!' if cur.peek() == Some('=') => {
                cur.bump();
                Tok::Op(CmpOp::Ne)
            }
            '<' => match cur.peek() {
                Some('=') => {
                    cur.bump();
                    Tok::Op(CmpOp::Le)
                }
                Some('>') => {
                    cur.bump();
                    Tok::Op(CmpOp::Ne)
                }
                _ => Tok::Op(CmpOp::Lt),
            },
            '>' if cur.peek() == Some('=') => {
                cur.bump();
                Tok::Op(CmpOp::Ge)
            }
            '>' => Tok::Op(CmpOp::Gt),
            '\'' => Tok::Str(quoted(&mut cur, '\'', start, "string literal")?),
            '"' => Tok::Ident(quoted(&mut cur, '"', start, "quoted identifier")?),
            c if c.is_ascii_alphabetic() || c == '_' => {
                cur.eat_while(|c| c.is_ascii_alphanumeric() || c == '_');
                let word = &src[start.0..cur.pos];
                match KEYWORDS.iter().find(|(k, _)| word.eq_ignore_ascii_case(k)) {
                    Some(&(_, kw)) => Tok::Kw(kw),
                    None => Tok::Ident(word.to_string()),
                }
            }
            '$' => {
                cur.eat_while(is_param_char);
                let name = &src[start.0 + 1..cur.pos];
                if name.is_empty() {
                    let hint = "expected a parameter name after `$`, e.g. `$cat` (letters, digits, `_`)";
                    return Err(cur.span(start).error(hint));
                }
                Tok::Param(name.to_string())
            }
            '-' if cur.peek().is_some_and(|c| c.is_ascii_digit()) => number(&mut cur, start)?,
            c if c.is_ascii_digit() => number(&mut cur, start)?,
            c => return Err(cur.span(start).error(format!("unexpected character {c:?}"))),
        };
        out.push(Token { tok, span: cur.span(start) });
    }
}

/// Chars of a parameter name after its `$`.
pub(crate) fn is_param_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Rest of a quoted token after its opening `q`; a doubled `q` stands for one.
fn quoted(cur: &mut Cursor, q: char, start: (usize, u32, u32), what: &str) -> Result<String, FilterError> {
    let mut text = String::new();
    loop {
        match cur.bump() {
            Some(c) if c == q && cur.peek() == Some(q) => {
                cur.bump();
                text.push(q);
            }
            Some(c) if c == q => return Ok(text),
            Some(c) => text.push(c),
            None => {
                let (pos, line, column) = start;
                let span = Span { start: pos, end: pos + 1, line, column, len: 1 };
                return Err(span.error(format!("unterminated {what}: no closing `{q}`")));
            }
        }
    }
}

/// Rest of a number after its first char: `-?digits(.digits)?([eE][+-]?digits)?`.
fn number(cur: &mut Cursor, start: (usize, u32, u32)) -> Result<Tok, FilterError> {
    let digits = |c: char| c.is_ascii_digit();
    cur.eat_while(digits);
    if cur.peek() == Some('.') {
        cur.bump();
        if !cur.peek().is_some_and(digits) {
            return Err(cur.span(start).error("expected digits after `.` in number"));
        }
        cur.eat_while(digits);
    }
    if matches!(cur.peek(), Some('e' | 'E')) {
        let signed = matches!(cur.peek2(), Some('+' | '-'));
        cur.bump();
        if signed {
            cur.bump();
        }
        if !cur.peek().is_some_and(digits) {
            return Err(cur.span(start).error("expected digits in the exponent of number"));
        }
        cur.eat_while(digits);
    }
    if cur.peek().is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.') {
        cur.eat_while(|c| c.is_alphanumeric() || c == '_' || c == '.');
        let text = &cur.src[start.0..cur.pos];
        return Err(cur.span(start).error(format!("invalid number `{}`", clip(text))));
    }
    Ok(Tok::Num)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<Tok> {
        lex(src).unwrap().into_iter().map(|t| t.tok).collect()
    }

    fn err(src: &str) -> (u32, u32, u32, String) {
        let e = lex(src).unwrap_err();
        (e.line, e.column, e.len, e.message)
    }

    #[test]
    fn tokens() {
        use Tok::*;
        assert_eq!(
            kinds("a = 'it''s' AnD \"in\" <> -1.5e+3 Or(b<=2,c>=3)!=<>"),
            vec![
                Ident("a".into()),
                Op(CmpOp::Eq),
                Str("it's".into()),
                Kw(super::Kw::And),
                Ident("in".into()),
                Op(CmpOp::Ne),
                Num,
                Kw(super::Kw::Or),
                LParen,
                Ident("b".into()),
                Op(CmpOp::Le),
                Num,
                Comma,
                Ident("c".into()),
                Op(CmpOp::Ge),
                Num,
                RParen,
                Op(CmpOp::Ne),
                Op(CmpOp::Ne),
                Eof
            ]
        );
        assert_eq!(
            kinds("a = $cat_1 OR b IN $ids OR c = '$cat'"),
            vec![
                Ident("a".into()),
                Op(CmpOp::Eq),
                Param("cat_1".into()),
                Kw(super::Kw::Or),
                Ident("b".into()),
                Kw(super::Kw::In),
                Param("ids".into()),
                Kw(super::Kw::Or),
                Ident("c".into()),
                Op(CmpOp::Eq),
                Str("$cat".into()),
                Eof
            ]
        );
        assert_eq!(
            kinds("x<1 y>2"),
            vec![Ident("x".into()), Op(CmpOp::Lt), Num, Ident("y".into()), Op(CmpOp::Gt), Num, Eof]
        );
    }

    #[test]
    fn spans_count_chars_and_lines() {
        let toks = lex("'é' = x\n  AND\tbb").unwrap();
        let spans: Vec<(u32, u32, u32)> = toks.iter().map(|t| (t.span.line, t.span.column, t.span.len)).collect();
        assert_eq!(spans, vec![(1, 1, 3), (1, 5, 1), (1, 7, 1), (2, 3, 3), (2, 7, 2), (2, 9, 1)]);
    }

    #[test]
    fn errors() {
        assert_eq!(err("a = 'abc"), (1, 5, 1, "unterminated string literal: no closing `'`".into()));
        assert_eq!(err("\"abc = 1"), (1, 1, 1, "unterminated quoted identifier: no closing `\"`".into()));
        assert_eq!(err("a = 1 # b"), (1, 7, 1, "unexpected character '#'".into()));
        assert_eq!(err("a ! 1"), (1, 3, 1, "unexpected character '!'".into()));
        assert_eq!(err("a = - 1"), (1, 5, 1, "unexpected character '-'".into()));
        assert_eq!(err("é = 1"), (1, 1, 1, "unexpected character 'é'".into()));
        assert_eq!(err("a =\n 1."), (2, 2, 2, "expected digits after `.` in number".into()));
        assert_eq!(err("a = 1e+"), (1, 5, 3, "expected digits in the exponent of number".into()));
        assert_eq!(err("a = 12ab"), (1, 5, 4, "invalid number `12ab`".into()));
        assert_eq!(
            err("a = $"),
            (1, 5, 1, "expected a parameter name after `$`, e.g. `$cat` (letters, digits, `_`)".into())
        );
        assert_eq!(
            err("a = $-1"),
            (1, 5, 1, "expected a parameter name after `$`, e.g. `$cat` (letters, digits, `_`)".into())
        );
        assert_eq!(err("a = 1.2.3"), (1, 5, 5, "invalid number `1.2.3`".into()));
    }
}
