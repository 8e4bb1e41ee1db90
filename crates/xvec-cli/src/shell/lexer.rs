//! Shell statement syntax, shared by the REPL (validation, completion, highlighting) and
//! batch scripts.
//!
//! Words split at whitespace. `'...'` is literal, `"..."` allows `\"` and `\\`, a `\`
//! outside quotes escapes the next character and at the end of a line continues it. A
//! `[` or `{` opens a group kept verbatim up to its matching bracket, so vector literals
//! and JSON documents are one word without quoting. A statement ends at `;`, or at the end
//! of a line once every quote and bracket is closed. A `#` where a statement would start,
//! and SQL's `--` there or after a word (outside quotes and brackets), comments out the
//! rest of the line; a statement starting with `\` (psql's meta commands) is a meta command.

/// A word of a statement, unquoted, with its byte span in the statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Word {
    pub text: String,
    pub start: usize,
    pub end: usize,
    /// Some part of it was quoted (a quoted `$x` is not a parameter).
    pub quoted: bool,
}

/// What keeps input from being complete, with the byte offset of the opening character.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Open {
    Quote(char, usize),
    Bracket(char, usize),
    /// A trailing `\` continues the line.
    Continuation,
}

impl Open {
    /// What is left open, for "the input ends inside a statement: ...".
    pub fn describe(self) -> String {
        match self {
            Open::Quote(q, _) => format!("unterminated {q}...{q} quote"),
            Open::Bracket(b, _) => format!("unclosed `{b}`"),
            Open::Continuation => "a `\\` continues past the end of the input".to_string(),
        }
    }
}

/// A bracket that closes nothing, with its byte offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stray(pub char, pub usize);

/// A lexical scan of some input: the words and statement boundaries found so far and
/// what is left open at its end. Lenient: it never fails, so the completer and
/// highlighter can use it on half-typed lines.
#[derive(Clone, Debug, Default)]
pub struct Scan {
    /// Statements: byte ranges of the input, ended by `;` or the end of the input.
    pub statements: Vec<(usize, usize)>,
    pub open: Option<Open>,
    pub stray: Option<Stray>,
}

fn closing(c: char) -> char {
    if c == '[' { ']' } else { '}' }
}

/// Scans `input` for statement boundaries and unclosed quotes or brackets. A `#` where a
/// statement would start comments out the rest of its line, as does a `--` there or after
/// whitespace when a space or the line's end follows it (`--flag` is no comment). A meta command (a statement
/// that starts with `.`) ends at the end of a line inside a quote, as sqlite3's end at the
/// end of theirs, so a stray quote in one cannot swallow the statements after it
/// ([`unclosed`] finds it); brackets may span lines (`.param set v [0.1,` + `0.2]`).
pub fn scan(input: &str) -> Scan {
    scan_with(input, true)
}

/// What `stmt` leaves open, a meta command too.
pub fn unclosed(stmt: &str) -> Option<Open> {
    scan_with(stmt, false).open
}

fn scan_with(input: &str, meta_lines: bool) -> Scan {
    let mut s = Scan::default();
    let mut quote: Option<(char, usize)> = None;
    let mut brackets: Vec<(char, usize)> = Vec::new();
    let mut start = 0;
    let mut comment = false;
    // Whether the statement so far is only whitespace, and whether it is a meta command.
    let (mut at_start, mut meta) = (true, false);
    let mut chars = input.char_indices();
    while let Some((i, c)) = chars.next() {
        if comment {
            if c == '\n' {
                comment = false;
                start = i + 1;
                (at_start, meta) = (true, false);
            }
            continue;
        }
        if quote.is_none() && brackets.is_empty() && sql_comment(input, i) {
            s.statements.push((start, i));
            (comment, start) = (true, i);
            continue;
        }
        if at_start && !c.is_whitespace() {
            (at_start, meta) = (false, meta_lines && (c == '.' || c == '\\'));
        }
        if meta && c == '\n' && quote.is_some() {
            (quote, meta, at_start) = (None, false, true);
            brackets.clear();
            s.statements.push((start, i));
            start = i + 1;
            continue;
        }
        match (quote, c) {
            (Some((q, _)), _) if c == q => quote = None,
            (Some(('"', _)), '\\') => {
                chars.next();
            }
            (Some(_), _) => {}
            (None, '#') if brackets.is_empty() && input[start..i].trim().is_empty() => comment = true,
            (None, '\'' | '"') => quote = Some((c, i)),
            (None, '\\') => {
                // A `\` before the final newline (what a script line ends with) continues
                // the statement just as one at the very end (what the line editor has).
                let escaped = chars.next();
                if escaped.is_none_or(|(j, e)| e == '\n' && j + 1 == input.len()) {
                    s.open = Some(Open::Continuation);
                }
            }
            (None, '[' | '{') => brackets.push((c, i)),
            (None, ']' | '}') => match brackets.last() {
                Some(&(open, _)) if closing(open) == c => {
                    brackets.pop();
                }
                _ => {
                    s.stray.get_or_insert(Stray(c, i));
                }
            },
            (None, ';' | '\n') if brackets.is_empty() => {
                s.statements.push((start, i));
                start = i + 1;
                (at_start, meta) = (true, false);
            }
            _ => {}
        }
    }
    // A meta command's quote runs to its end: it runs, and is refused with what it leaves open.
    if let Some((q, i)) = quote.filter(|_| !meta) {
        s.open = Some(Open::Quote(q, i));
    } else if let Some(&(b, i)) = brackets.first() {
        s.open = Some(Open::Bracket(b, i));
    }
    s.statements.push((if comment { input.len() } else { start }, input.len()));
    s.statements.retain(|&(a, b)| !input[a..b].trim().is_empty());
    s
}

/// Whether a `--` comment starts at byte `i`: two dashes after whitespace or at the start,
/// followed by whitespace or the end.
fn sql_comment(input: &str, i: usize) -> bool {
    let (before, after) = (&input[..i], &input[i..]);
    after.starts_with("--")
        && before.chars().next_back().is_none_or(char::is_whitespace)
        && after[2..].chars().next().is_none_or(char::is_whitespace)
}

/// True when `input` ends with every quote and bracket closed and no continuation.
pub fn is_complete(input: &str) -> bool {
    scan(input).open.is_none()
}

/// Splits one statement into words. Lenient like [`scan`]: an unclosed quote or bracket
/// runs to the end (the caller checks completeness first).
pub fn words(stmt: &str) -> Vec<Word> {
    let mut out = Vec::new();
    let mut cur: Option<Word> = None;
    let mut chars = stmt.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if let Some(w) = cur.take() {
                    out.push(w);
                }
                continue;
            }
            '\'' | '"' => {
                let w = word(&mut cur, i);
                w.quoted = true;
                while let Some((_, d)) = chars.next() {
                    match d {
                        d if d == c => break,
                        '\\' if c == '"' => match chars.next() {
                            Some((_, e @ ('"' | '\\'))) => w.text.push(e),
                            Some((_, e)) => {
                                w.text.push('\\');
                                w.text.push(e);
                            }
                            None => w.text.push('\\'),
                        },
                        d => w.text.push(d),
                    }
                }
            }
            '\\' => match chars.next() {
                Some((_, '\n')) | None => {
                    if let Some(w) = cur.take() {
                        out.push(w);
                    }
                    continue;
                }
                Some((_, e)) => {
                    let w = word(&mut cur, i);
                    w.quoted = true;
                    w.text.push(e);
                }
            },
            '[' | '{' => {
                let w = word(&mut cur, i);
                w.text.push(c);
                let mut depth = vec![closing(c)];
                let mut in_string = false;
                while let Some((_, d)) = chars.next() {
                    w.text.push(d);
                    match d {
                        '"' => in_string = !in_string,
                        '\\' if in_string => {
                            if let Some((_, e)) = chars.next() {
                                w.text.push(e);
                            }
                        }
                        '[' | '{' if !in_string => depth.push(closing(d)),
                        ']' | '}' if !in_string && depth.last() == Some(&d) => {
                            depth.pop();
                            if depth.is_empty() {
                                break;
                            }
                        }
                        _ => {}
                    }
                }
            }
            _ => word(&mut cur, i).text.push(c),
        }
        let end = chars.peek().map_or(stmt.len(), |&(j, _)| j);
        word(&mut cur, i).end = end;
    }
    if let Some(w) = cur {
        out.push(w);
    }
    out
}

/// The word being built, started at `i` if there is none.
fn word(cur: &mut Option<Word>, i: usize) -> &mut Word {
    cur.get_or_insert_with(|| Word { text: String::new(), start: i, end: i, quoted: false })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Vec<String> {
        words(s).into_iter().map(|w| w.text).collect()
    }

    fn statements(s: &str) -> Vec<&str> {
        scan(s).statements.iter().map(|&(a, b)| s[a..b].trim()).collect()
    }

    #[test]
    fn words_follow_shell_quoting_and_keep_bracket_groups() {
        assert_eq!(texts(r#"count --filter "pos = 'n'""#), ["count", "--filter", "pos = 'n'"]);
        assert_eq!(texts(r#"a 'x y' "q\"z" b\ c"#), ["a", "x y", "q\"z", "b c"]);
        assert_eq!(texts("query [0.1, -0.2,\n 0.3] -k 5"), ["query", "[0.1, -0.2,\n 0.3]", "-k", "5"]);
        assert_eq!(texts(r#"insert {"id": "a b", "v": [1, 2]} x"#), ["insert", r#"{"id": "a b", "v": [1, 2]}"#, "x"]);
        assert_eq!(texts("import f \\\n --flush"), ["import", "f", "--flush"]);
        assert_eq!(texts("--vectors emb=[1, 2]"), ["--vectors", "emb=[1, 2]"]);
        let w = words("query $q 'x'");
        assert_eq!((w[1].start, w[1].end, w[1].quoted), (6, 8, false));
        assert!(w[2].quoted);
    }

    #[test]
    fn statements_end_at_semicolons_outside_quotes_and_brackets() {
        assert_eq!(statements("count; describe"), ["count", "describe"]);
        assert_eq!(statements("count --filter \"a = ';'\"; x"), ["count --filter \"a = ';'\"", "x"]);
        assert_eq!(statements("insert {\"a\": \";\"};"), ["insert {\"a\": \";\"}"]);
        assert_eq!(statements("# a comment\ncount\n# another\n"), ["count"]);
        assert_eq!(statements("  ;  ; "), Vec::<&str>::new());
    }

    #[test]
    fn sql_comments_run_to_the_end_of_their_line_outside_quotes_and_brackets() {
        assert_eq!(statements("-- load it\ncount -- all rows\n--\ndescribe\n"), ["count", "describe"]);
        assert_eq!(statements("count --filter \"a = '-- b'\" -- c; d\nx"), ["count --filter \"a = '-- b'\"", "x"]);
        assert_eq!(statements(".mode csv -- it's csv\n.headers off"), [".mode csv", ".headers off"]);
        assert_eq!(statements("query [1, -- x\n 2]"), ["query [1, -- x\n 2]"]);
        assert_eq!(statements("count --flush--x"), ["count --flush--x"], "dashes inside a word");
        assert!(is_complete("count -- it's open"), "a quote in a comment opens nothing");
        assert_eq!(statements("\\q 'x\ncount"), ["\\q 'x", "count"], "a psql command is a meta command");
    }

    #[test]
    fn completeness_tracks_quotes_brackets_and_continuations() {
        assert!(is_complete("count"));
        assert!(is_complete("query [1, 2]"));
        assert_eq!(scan("query [1,\n 2").open, Some(Open::Bracket('[', 6)));
        assert_eq!(scan("count --filter \"pos = ").open, Some(Open::Quote('"', 15)));
        assert_eq!(scan("import x \\").open, Some(Open::Continuation));
        assert_eq!(scan("import x \\\n").open, Some(Open::Continuation));
        assert!(is_complete("import x \\\n --flush\n"));
        assert_eq!(statements("count \\\n --filter x\ndescribe\n"), ["count \\\n --filter x", "describe"]);
        assert!(is_complete("# it's a comment with a quote"));
        assert_eq!(scan("query 1]").stray, Some(Stray(']', 7)));
        assert!(is_complete("query \"[\""));
    }

    #[test]
    fn a_quote_in_a_meta_command_ends_at_its_line() {
        assert_eq!(statements(".param set e x'; drop\ncount\n"), [".param set e x'; drop", "count"]);
        assert!(is_complete(".param set e x'"), "it runs, and is refused for the quote");
        assert_eq!(unclosed(".param set e x'"), Some(Open::Quote('\'', 14)));
        assert_eq!(statements(".param set v [1,\n 2]\ncount\n"), [".param set v [1,\n 2]", "count"]);
        assert_eq!(scan("count --filter 'a\nb'").open, None, "a command's quote spans lines");
        assert_eq!(statements("  .mode 'x\n.headers off\n"), [".mode 'x", ".headers off"]);
    }
}
