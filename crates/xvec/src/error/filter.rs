//! Filters that do not parse or do not fit the schema, with the caret line that shows where.

/// Chars of a filter shown on each side of an error's span (and of the span) by
/// [`FilterError::caret`].
pub(crate) const CARET_CONTEXT: usize = 60;

/// A filter that does not parse or does not fit the schema.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("filter: line {line}, column {column}: {message}")]
#[non_exhaustive]
pub struct FilterError {
    /// What kind of mistake it is.
    pub kind: FilterErrorKind,
    /// 1-based.
    pub line: u32,
    /// 1-based, in chars.
    pub column: u32,
    /// Chars to underline, at least 1.
    pub len: u32,
    /// What is wrong, without the position.
    pub message: String,
}

/// What kind of mistake a [`FilterError`] is, for callers that add advice.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FilterErrorKind {
    /// The text does not parse or does not fit the schema.
    Invalid,
    /// `$name` has no value in the parameters given (the name, without `$`).
    UnboundParam(String),
}

impl FilterError {
    /// Two lines: the offending source line, then a caret line `    ^^^` under the span
    /// (clipped to the line's end). A long line is shown only around the error, at most
    /// 60 chars either side of the span (and of the span itself), with `…`
    /// where it is cut: the message stays short however long the filter.
    pub fn caret(&self, text: &str) -> String {
        let line = text.split('\n').nth(self.line.saturating_sub(1) as usize).unwrap_or("");
        let line = line.strip_suffix('\r').unwrap_or(line);
        let chars: Vec<char> = line.chars().collect();
        let width = chars.len();
        let before = (self.column.max(1) as usize - 1).min(width);
        let carets = (self.len.max(1) as usize).min((width - before).max(1)).min(CARET_CONTEXT);
        let start = before.saturating_sub(CARET_CONTEXT);
        let end = (before + carets + CARET_CONTEXT).min(width);
        let cut_start = if start > 0 { "…" } else { "" };
        let cut_end = if end < width { "…" } else { "" };
        let shown: String = chars[start..end].iter().collect();
        // Tabs are kept so the carets line up however the terminal renders them.
        let pad: String = cut_start
            .chars()
            .map(|_| ' ')
            .chain(chars[start..before].iter().map(|&c| if c == '\t' { '\t' } else { ' ' }))
            .collect();
        format!("{cut_start}{shown}{cut_end}\n{pad}{}", "^".repeat(carets))
    }
}
