//! Result tables and the output modes that print them: one [`Table`], many renderings.
//!
//! A table on a terminal, TSV when piped; `--mode` picks any of [`OutputMode`]. Vectors
//! are abbreviated in tables and whole in json/jsonl.

use std::io::Write;

use clap::ValueEnum;

/// How results are printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OutputMode {
    /// Boxed table (default on a terminal); `box` is sqlite3's name for it.
    #[value(alias = "box")]
    Table,
    /// Tab-separated values (default when piped).
    Tsv,
    Csv,
    /// One JSON array of objects.
    Json,
    /// One JSON object per line.
    Jsonl,
    /// GitHub-flavoured Markdown table.
    Markdown,
    /// One `column = value` per line, records separated by a blank line.
    Line,
    /// Columns aligned with spaces under a dashed header line, as sqlite3's column mode.
    Column,
}

impl OutputMode {
    /// The default for the given stdout.
    pub fn default_for(tty: bool) -> OutputMode {
        if tty { OutputMode::Table } else { OutputMode::Tsv }
    }
}

/// One cell: text for table-like modes, JSON for json modes.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    pub json: serde_json::Value,
    /// A computed measure (a query score), not stored data. Tables and markdown show it
    /// to 4 decimals, for reading; tsv, csv, line and json print it whole, at its shortest
    /// round-trip decimal, like every stored number. Its last bits depend on the CPU's
    /// SIMD kernels, so committed outputs compare it to 1e-4.
    pub measure: bool,
    /// What the text modes print in place of the value (a share as `12.35%`, its JSON
    /// the fraction `0.1235`).
    pub label: Option<String>,
}

impl Cell {
    /// A number the text modes print as `label`.
    pub fn labelled(json: serde_json::Value, label: String) -> Cell {
        Cell { json, measure: false, label: Some(label) }
    }

    /// A computed measure, see [`Cell::measure`].
    pub fn measure(json: serde_json::Value) -> Cell {
        Cell { json, measure: true, label: None }
    }

    /// The cell as text: vectors abbreviated (`[1, 2.5, … 384 dims]`) when `shown` is
    /// [`Shown::Abbreviated`] or [`Shown::Rounded`], measures to 4 decimals when it is
    /// [`Shown::Rounded`].
    pub fn text(&self, shown: Shown) -> String {
        if let Some(label) = &self.label {
            return label.clone();
        }
        let measure = self.json.as_f64().filter(|_| self.measure && !self.json.is_i64());
        if let (Shown::Rounded, Some(f)) = (shown, measure) {
            return format!("{}", (f * 1e4).round() / 1e4);
        }
        let abbreviate = shown != Shown::Whole;
        match &self.json {
            serde_json::Value::Null => String::new(),
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Array(a) if abbreviate && a.len() > 3 => {
                let head: Vec<String> = a.iter().take(2).map(fmt_num).collect();
                format!("[{}, … {} dims]", head.join(", "), a.len())
            }
            serde_json::Value::Array(a) => {
                format!("[{}]", a.iter().map(fmt_num).collect::<Vec<_>>().join(", "))
            }
            other => fmt_num(other),
        }
    }
}

/// How much of a cell a mode shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shown {
    /// Everything (tsv, csv).
    Whole,
    /// Vectors abbreviated, numbers whole (line).
    Abbreviated,
    /// Vectors abbreviated and measures to 4 decimals (table, markdown).
    Rounded,
}

/// A number as JSON prints it: stored f32 values reach here already at their shortest
/// decimal (see `xvec::json_f32`), so every text mode reads back the stored bits; a
/// whole float keeps no `.0` (`3`, not `3.0`).
fn fmt_num(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Number(n) => match n.as_f64() {
            Some(f) if !n.is_i64() && !n.is_u64() && f.fract() == 0.0 && f.abs() < 1e15 => format!("{f}"),
            _ => n.to_string(),
        },
        other => other.to_string(),
    }
}

impl From<serde_json::Value> for Cell {
    fn from(json: serde_json::Value) -> Cell {
        Cell { json, measure: false, label: None }
    }
}

impl From<&str> for Cell {
    fn from(s: &str) -> Cell {
        Cell { json: serde_json::Value::String(s.to_string()), measure: false, label: None }
    }
}

impl From<String> for Cell {
    fn from(s: String) -> Cell {
        Cell { json: serde_json::Value::String(s), measure: false, label: None }
    }
}

impl From<u64> for Cell {
    fn from(x: u64) -> Cell {
        Cell { json: x.into(), measure: false, label: None }
    }
}

/// Rows of named columns.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub headers: Vec<String>,
    pub rows: Vec<Vec<Cell>>,
    /// Printed under the table in table-like modes (e.g. "10 rows").
    pub footer: Option<String>,
}

impl Table {
    pub fn new<S: Into<String>>(headers: impl IntoIterator<Item = S>) -> Table {
        Table { headers: headers.into_iter().map(Into::into).collect(), rows: Vec::new(), footer: None }
    }

    pub fn push(&mut self, row: Vec<Cell>) {
        self.rows.push(row);
    }

    /// The rows as a JSON array of objects, as `--mode json` prints them.
    pub fn json_rows(&self) -> serde_json::Value {
        self.rows.iter().map(|r| object(self, r)).collect()
    }
}

/// Printing options shared by argv and the shell.
#[derive(Clone, Copy, Debug)]
pub struct Printer {
    pub mode: OutputMode,
    pub headers: bool,
    pub color: bool,
    /// Table mode prints a table wider than this many columns in the `line` layout
    /// (psql's expanded display; `Some(0)`: every table).
    pub expand_wider_than: Option<usize>,
    /// How NULL prints in the text modes (`.nullvalue`); json modes print `null`.
    pub null: NullText,
}

/// The text NULL prints as: at most [`NullText::MAX`] bytes kept inline (as sqlite3's
/// `.nullvalue` does), so printer settings stay `Copy`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NullText {
    buf: [u8; NullText::MAX],
    len: u8,
}

impl NullText {
    pub const MAX: usize = 19;

    /// `text`, or an error naming the limit when it is longer.
    pub fn new(text: &str) -> Result<NullText, String> {
        if text.len() > Self::MAX {
            return Err(format!("the NULL text is {} bytes; at most {} are allowed", text.len(), Self::MAX));
        }
        let mut buf = [0; Self::MAX];
        buf[..text.len()].copy_from_slice(text.as_bytes());
        Ok(NullText { buf, len: text.len() as u8 })
    }

    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.buf[..self.len as usize]).unwrap_or_default()
    }
}

impl Printer {
    /// A cell in a text mode: NULL as the NULL text, else as [`Cell::text`] shows it.
    fn text(&self, c: &Cell, shown: Shown) -> String {
        match c.json {
            serde_json::Value::Null => self.null.as_str().to_string(),
            _ => c.text(shown),
        }
    }

    pub fn print(&self, t: &Table, out: &mut dyn Write) -> std::io::Result<()> {
        match self.mode {
            OutputMode::Table => self.table(t, out),
            OutputMode::Tsv => self.separated(t, out, '\t'),
            OutputMode::Csv => self.separated(t, out, ','),
            OutputMode::Json => {
                let arr: Vec<serde_json::Value> = t.rows.iter().map(|r| object(t, r)).collect();
                writeln!(out, "{}", serde_json::to_string_pretty(&arr).expect("json"))
            }
            OutputMode::Jsonl => {
                for r in &t.rows {
                    writeln!(out, "{}", serde_json::to_string(&object(t, r)).expect("json"))?;
                }
                Ok(())
            }
            OutputMode::Markdown => {
                let esc = |s: String| s.replace('|', "\\|").replace('\n', " ");
                writeln!(out, "| {} |", t.headers.join(" | "))?;
                writeln!(out, "|{}", "---|".repeat(t.headers.len()))?;
                for r in &t.rows {
                    let cells: Vec<String> = r.iter().map(|c| esc(self.text(c, Shown::Rounded))).collect();
                    writeln!(out, "| {} |", cells.join(" | "))?;
                }
                self.footer(t, out)
            }
            OutputMode::Line => self.lines(t, out),
            OutputMode::Column => self.columns(t, out),
        }
    }

    /// sqlite3's column mode: each column as wide as its widest cell (or header), two
    /// spaces apart, the header underlined with dashes; cells as tables show them.
    fn columns(&self, t: &Table, out: &mut dyn Write) -> std::io::Result<()> {
        let rows: Vec<Vec<String>> = t
            .rows
            .iter()
            .map(|r| r.iter().map(|c| self.text(c, Shown::Rounded).replace('\n', " ")).collect())
            .collect();
        let mut widths: Vec<usize> =
            t.headers.iter().map(|h| if self.headers { h.chars().count() } else { 0 }).collect();
        for r in &rows {
            for (w, c) in widths.iter_mut().zip(r) {
                *w = (*w).max(c.chars().count());
            }
        }
        let line = |cells: &[String]| -> String {
            let padded: Vec<String> = cells.iter().zip(&widths).map(|(c, &w)| format!("{c:<w$}")).collect();
            padded.join("  ").trim_end().to_string()
        };
        if self.headers {
            writeln!(out, "{}", line(&t.headers))?;
            writeln!(out, "{}", line(&widths.iter().map(|&w| "-".repeat(w)).collect::<Vec<_>>()))?;
        }
        for r in &rows {
            writeln!(out, "{}", line(r))?;
        }
        self.footer(t, out)
    }

    fn lines(&self, t: &Table, out: &mut dyn Write) -> std::io::Result<()> {
        let w = t.headers.iter().map(|h| h.chars().count()).max().unwrap_or(0);
        for (i, r) in t.rows.iter().enumerate() {
            if i > 0 {
                writeln!(out)?;
            }
            for (h, c) in t.headers.iter().zip(r) {
                writeln!(out, "{h:>w$} = {}", self.text(c, Shown::Abbreviated))?;
            }
        }
        self.footer(t, out)
    }

    fn footer(&self, t: &Table, out: &mut dyn Write) -> std::io::Result<()> {
        match &t.footer {
            Some(f) => writeln!(out, "({f})"),
            None => Ok(()),
        }
    }

    fn table(&self, t: &Table, out: &mut dyn Write) -> std::io::Result<()> {
        let mut ct = comfy_table::Table::new();
        ct.load_style(comfy_table::presets::UTF8_FULL_CONDENSED);
        ct.set_content_arrangement(comfy_table::ContentArrangement::Dynamic);
        if !self.color {
            ct.force_no_tty();
        }
        if self.headers {
            ct.set_header(&t.headers);
        }
        for r in &t.rows {
            ct.add_row(r.iter().map(|c| self.text(c, Shown::Rounded)).collect::<Vec<_>>());
        }
        if let Some(limit) = self.expand_wider_than.filter(|_| !t.rows.is_empty()) {
            ct.set_content_arrangement(comfy_table::ContentArrangement::Disabled);
            let text = ct.to_string();
            if text.lines().map(|l| l.chars().count()).max().unwrap_or(0) > limit {
                return self.lines(t, out);
            }
            writeln!(out, "{text}")?;
            return self.footer(t, out);
        }
        if !t.rows.is_empty() || self.headers {
            writeln!(out, "{ct}")?;
        }
        self.footer(t, out)
    }

    /// CSV as RFC 4180 (a cell with a comma, quote or line break quoted), with the empty
    /// string quoted (`""`) so it differs from NULL (an empty cell, or `.nullvalue`), as
    /// PostgreSQL's CSV does. TSV as PostgreSQL's text format: a backslash, tab, newline
    /// or carriage return inside a value is written `\\`, `\t`, `\n`, `\r`, so each
    /// line is one row and each tab a column boundary.
    fn separated(&self, t: &Table, out: &mut dyn Write, sep: char) -> std::io::Result<()> {
        let field = |s: String, empty_string: bool| -> String {
            match sep {
                ',' if empty_string => "\"\"".to_string(),
                ',' if s.contains([',', '"', '\n', '\r']) => format!("\"{}\"", s.replace('"', "\"\"")),
                '\t' if s.contains(['\\', '\t', '\n', '\r']) => {
                    s.replace('\\', "\\\\").replace('\t', "\\t").replace('\n', "\\n").replace('\r', "\\r")
                }
                _ => s,
            }
        };
        let s = sep.to_string();
        if self.headers {
            writeln!(out, "{}", t.headers.iter().map(|h| field(h.clone(), false)).collect::<Vec<_>>().join(&s))?;
        }
        for r in &t.rows {
            let cells: Vec<String> = r
                .iter()
                .map(|c| match c.json {
                    // The NULL text is printed as given: `.nullvalue '\N'` is PostgreSQL's.
                    serde_json::Value::Null => self.null.as_str().to_string(),
                    _ => field(c.text(Shown::Whole), c.json.as_str().is_some_and(str::is_empty)),
                })
                .collect();
            writeln!(out, "{}", cells.join(&s))?;
        }
        Ok(())
    }
}

fn object(t: &Table, r: &[Cell]) -> serde_json::Value {
    serde_json::Value::Object(t.headers.iter().cloned().zip(r.iter().map(|c| c.json.clone())).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Table {
        let mut t = Table::new(["key", "score", "emb"]);
        t.push(vec!["a,b".into(), serde_json::json!(0.123456).into(), serde_json::json!([1.0, 2.5, 3.0, 4.0]).into()]);
        t.push(vec!["c".into(), Cell::measure(serde_json::json!(0.987654321)), serde_json::Value::Null.into()]);
        t
    }

    fn render(mode: OutputMode) -> String {
        let mut out = Vec::new();
        Printer { mode, headers: true, color: false, expand_wider_than: None, null: NullText::default() }
            .print(&sample(), &mut out)
            .unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn expanded_display_takes_over_tables_wider_than_the_limit() {
        let print = |limit| {
            let mut out = Vec::new();
            let p = Printer {
                mode: OutputMode::Table,
                headers: true,
                color: false,
                expand_wider_than: limit,
                null: NullText::default(),
            };
            p.print(&sample(), &mut out).unwrap();
            String::from_utf8(out).unwrap()
        };
        let table = print(None);
        let width = table.lines().map(|l| l.chars().count()).max().unwrap();
        assert_eq!(print(Some(width)), table, "a table that fits stays a table");
        assert_eq!(print(Some(width - 1)), render(OutputMode::Line));
        assert_eq!(print(Some(0)), render(OutputMode::Line));
    }

    #[test]
    fn null_text_prints_in_text_modes_and_json_keeps_null() {
        let null = NullText::new("∅ NULL").unwrap();
        assert_eq!(null.as_str(), "∅ NULL");
        assert!(NullText::new("twenty bytes, no way").unwrap_err().contains("at most 19"));
        let render = |mode| {
            let mut out = Vec::new();
            Printer { mode, headers: false, color: false, expand_wider_than: None, null }
                .print(&sample(), &mut out)
                .unwrap();
            String::from_utf8(out).unwrap()
        };
        assert_eq!(render(OutputMode::Tsv).lines().nth(1), Some("c\t0.987654321\t∅ NULL"));
        assert!(render(OutputMode::Line).contains("emb = ∅ NULL"));
        assert!(render(OutputMode::Table).contains("∅ NULL"));
        assert!(render(OutputMode::Jsonl).contains("\"emb\":null"));
    }

    /// Tabs, line breaks and backslashes survive TSV as escapes, and CSV (read back by a
    /// CSV parser) keeps them and tells the empty string from NULL.
    #[test]
    fn tsv_escapes_and_csv_quotes_what_would_break_a_row() {
        let mut t = Table::new(["s", "n"]);
        for s in ["tab\there", "two\nlines\r", "back\\slash", "", "plain"] {
            t.push(vec![s.into(), 1u64.into()]);
        }
        t.push(vec![serde_json::Value::Null.into(), 1u64.into()]);
        let render = |mode, null: &str| {
            let mut out = Vec::new();
            let null = NullText::new(null).unwrap();
            Printer { mode, headers: true, color: false, expand_wider_than: None, null }.print(&t, &mut out).unwrap();
            String::from_utf8(out).unwrap()
        };
        assert_eq!(
            render(OutputMode::Tsv, ""),
            "s\tn\ntab\\there\t1\ntwo\\nlines\\r\t1\nback\\\\slash\t1\n\t1\nplain\t1\n\t1\n"
        );
        assert_eq!(render(OutputMode::Tsv, "\\N").lines().last(), Some("\\N\t1"));
        let csv = render(OutputMode::Csv, "");
        let mut reader = csv::ReaderBuilder::new().from_reader(csv.as_bytes());
        let cells: Vec<String> = reader.records().map(|r| r.unwrap()[0].to_string()).collect();
        assert_eq!(cells, ["tab\there", "two\nlines\r", "back\\slash", "", "plain", ""]);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(&lines[lines.len() - 3..], ["\"\",1", "plain,1", ",1"], "the empty string is quoted, NULL is not");
        assert_eq!(render(OutputMode::Csv, "NULL").lines().last(), Some("NULL,1"));
    }

    #[test]
    fn every_mode_renders_the_same_rows() {
        assert_eq!(render(OutputMode::Tsv), "key\tscore\temb\na,b\t0.123456\t[1, 2.5, 3, 4]\nc\t0.987654321\t\n");
        assert_eq!(render(OutputMode::Csv), "key,score,emb\n\"a,b\",0.123456,\"[1, 2.5, 3, 4]\"\nc,0.987654321,\n");
        assert!(render(OutputMode::Line).contains("score = 0.987654321\n"));
        assert!(render(OutputMode::Markdown).contains("| c | 0.9877 |"));
        assert!(render(OutputMode::Table).contains("0.9877"));
        assert!(render(OutputMode::Json).contains("\"emb\": [\n      1.0,"));
        assert_eq!(
            render(OutputMode::Jsonl),
            "{\"key\":\"a,b\",\"score\":0.123456,\"emb\":[1.0,2.5,3.0,4.0]}\n{\"key\":\"c\",\"score\":0.987654321,\"emb\":null}\n"
        );
        assert!(
            render(OutputMode::Markdown)
                .starts_with("| key | score | emb |\n|---|---|---|\n| a,b | 0.123456 | [1, 2.5, … 4 dims] |")
        );
        assert!(render(OutputMode::Line).contains("  key = a,b\nscore = 0.123456\n  emb = [1, 2.5, … 4 dims]\n\n"));
        let table = render(OutputMode::Table);
        assert!(table.contains("[1, 2.5, … 4 dims]"), "{table}");
        assert_eq!(
            render(OutputMode::Column),
            "key  score     emb\n---  --------  ------------------\na,b  0.123456  [1, 2.5, … 4 dims]\nc    0.9877\n"
        );
    }
}
