//! Data inline in a script: the lines after a statement that reads `-` (`import -`,
//! `create --schema -`), up to a line holding only `\.`, as psql's `COPY ... FROM STDIN`.
//! A dump script carries its schema and rows this way, so one file (or one pipe:
//! `xvec dump c | xvec shell NEW --write`) recreates a collection.
//!
//! [`DataLines`] reads those lines from the script's own reader without reading past the
//! terminator, line by line and never a whole line into memory (the reading command bounds
//! its lines), and counts the lines it took so the script's line numbers stay true.

use std::io::{BufRead, Read};

/// The line that ends inline data.
pub const TERMINATOR: &[u8] = b"\\.";

/// The data lines at the front of `inner`, ending at a `\.` line or at the end of `inner`.
pub struct DataLines<'a, R: BufRead + ?Sized> {
    inner: &'a mut R,
    /// A line's first bytes, read to tell the terminator from data.
    head: Vec<u8>,
    /// How much of `head` was consumed.
    pos: usize,
    /// Whether the next byte of `inner` starts a line.
    at_line_start: bool,
    /// Bytes of `inner`'s buffer handed out by the last `fill_buf` past the head, and
    /// whether they end their line.
    lent: usize,
    lent_ends_line: bool,
    done: bool,
    terminated: bool,
    lines: usize,
}

impl<'a, R: BufRead + ?Sized> DataLines<'a, R> {
    pub fn new(inner: &'a mut R) -> DataLines<'a, R> {
        DataLines {
            inner,
            head: Vec::with_capacity(4),
            pos: 0,
            at_line_start: true,
            lent: 0,
            lent_ends_line: false,
            done: false,
            terminated: false,
            lines: 0,
        }
    }

    /// Lines taken from the reader so far, the terminator included.
    pub fn taken(&self) -> usize {
        self.lines
    }

    /// Whether the data ended at a `\.` line (else at the end of the input).
    #[cfg(test)]
    fn terminated(&self) -> bool {
        self.terminated
    }

    /// Reads what the command left unread, up to the terminator, so the script goes on
    /// after the data whatever the command did with it. Returns the bytes skipped.
    pub fn finish(&mut self) -> std::io::Result<u64> {
        std::io::copy(self, &mut std::io::sink())
    }

    /// Reads the first bytes of a line (up to `\.\r\n`, stopping after a newline) into
    /// `head` and decides whether it is the terminator.
    fn start_line(&mut self) -> std::io::Result<()> {
        self.head.clear();
        self.pos = 0;
        while self.head.len() < TERMINATOR.len() + 2 && self.head.last() != Some(&b'\n') {
            let buf = self.inner.fill_buf()?;
            let Some(&byte) = buf.first() else { break };
            self.head.push(byte);
            self.inner.consume(1);
        }
        let ends_line = self.head.last() == Some(&b'\n');
        let complete = ends_line || self.head.len() < TERMINATOR.len() + 2;
        let body = self.head.strip_suffix(b"\n").unwrap_or(&self.head);
        let body = body.strip_suffix(b"\r").unwrap_or(body);
        if self.head.is_empty() {
            self.done = true;
        } else if complete && body == TERMINATOR {
            self.head.clear();
            self.done = true;
            self.terminated = true;
            self.lines += 1;
        } else if ends_line {
            self.lines += 1;
        } else {
            self.at_line_start = false;
        }
        Ok(())
    }
}

impl<R: BufRead + ?Sized> BufRead for DataLines<'_, R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if self.pos < self.head.len() {
            return Ok(&self.head[self.pos..]);
        }
        if self.done {
            return Ok(&[]);
        }
        if self.at_line_start {
            self.start_line()?;
            return Ok(&self.head[self.pos..]);
        }
        let buf = self.inner.fill_buf()?;
        if buf.is_empty() {
            self.done = true;
            return Ok(&[]);
        }
        let n = buf.iter().position(|&b| b == b'\n').map_or(buf.len(), |i| i + 1);
        self.lent = n;
        self.lent_ends_line = buf[n - 1] == b'\n';
        Ok(&buf[..n])
    }

    fn consume(&mut self, amt: usize) {
        if self.pos < self.head.len() {
            self.pos += amt;
            return;
        }
        if amt == 0 {
            return;
        }
        self.inner.consume(amt);
        self.lent -= amt;
        if self.lent == 0 && self.lent_ends_line {
            self.at_line_start = true;
            self.lines += 1;
        }
    }
}

impl<R: BufRead + ?Sized> Read for DataLines<'_, R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let buf = self.fill_buf()?;
        let n = buf.len().min(out.len());
        out[..n].copy_from_slice(&buf[..n]);
        self.consume(n);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads the data at the front of `text` with a reader buffer of `cap` bytes: the
    /// data, the lines taken, whether it was terminated, and what is left after it.
    fn split(text: &str, cap: usize) -> (String, usize, bool, String) {
        let mut inner = std::io::BufReader::with_capacity(cap, text.as_bytes());
        let mut data = DataLines::new(&mut inner);
        let mut got = String::new();
        data.read_to_string(&mut got).unwrap();
        let (lines, terminated) = (data.taken(), data.terminated());
        let mut rest = String::new();
        inner.read_to_string(&mut rest).unwrap();
        (got, lines, terminated, rest)
    }

    #[test]
    fn data_ends_at_the_terminator_and_leaves_the_rest() {
        for cap in [1, 2, 3, 5, 64] {
            let text = "{\"a\": 1}\n\\.x\n\\\n\\.\nflush\n";
            assert_eq!(split(text, cap), ("{\"a\": 1}\n\\.x\n\\\n".into(), 4, true, "flush\n".into()), "cap {cap}");
            assert_eq!(split("a\r\n\\.\r\nb\n", cap), ("a\r\n".into(), 2, true, "b\n".into()), "cap {cap}");
            assert_eq!(split("\\.", cap), (String::new(), 1, true, String::new()), "cap {cap}");
            assert_eq!(split("a\nb", cap), ("a\nb".into(), 1, false, String::new()), "cap {cap}");
            assert_eq!(split("\\.\\.\n\\.\n", cap), ("\\.\\.\n".into(), 2, true, String::new()), "cap {cap}");
        }
    }

    #[test]
    fn finish_skips_what_the_command_left() {
        let mut inner = std::io::BufReader::with_capacity(4, "1\n22\n333\n\\.\nnext\n".as_bytes());
        let mut data = DataLines::new(&mut inner);
        let mut first = [0u8; 1];
        data.read_exact(&mut first).unwrap();
        assert_eq!(data.finish().unwrap(), 8);
        assert_eq!((data.taken(), data.terminated()), (4, true));
        let mut rest = String::new();
        inner.read_to_string(&mut rest).unwrap();
        assert_eq!(rest, "next\n");
    }
}
