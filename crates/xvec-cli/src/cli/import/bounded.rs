//! A reader that refuses an over-long line of text input before it is buffered: the JSON
//! Lines and CSV readers read through it, so a 1 GB line is an error naming its line, not a
//! gigabyte allocation (or an abort under a memory limit).

use std::io::Read;

/// Longest line of JSON Lines or CSV input, in bytes: twice the largest document, room for
/// a document's text form (numbers in decimal, escapes) but no more.
pub const MAX_LINE_BYTES: usize = 2 * xvec::MAX_DOC_BYTES;

/// Passes bytes through, counting lines, and fails once a line passes `max` bytes.
pub struct LineBound<R> {
    inner: R,
    max: usize,
    /// Bytes of the current line read so far.
    run: usize,
    /// Line the next byte belongs to, from 1.
    line: u64,
}

impl<R: Read> LineBound<R> {
    pub fn new(inner: R, max: usize) -> LineBound<R> {
        LineBound { inner, max, run: 0, line: 1 }
    }

    /// The error, worded without the place: the caller puts `FILE:LINE` first, from [`Self::line`].
    fn too_long(&self) -> std::io::Error {
        let what = format!(
            "the line is longer than {} bytes, the bound on one line of input (twice the {}-byte document bound)",
            self.max,
            xvec::MAX_DOC_BYTES
        );
        std::io::Error::new(std::io::ErrorKind::InvalidData, what)
    }

    /// The line the next byte belongs to (the over-long one, after an error).
    pub fn line(&self) -> u64 {
        self.line
    }
}

impl<R: Read> Read for LineBound<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        for &b in &buf[..n] {
            if b == b'\n' {
                self.line += 1;
                self.run = 0;
            } else {
                self.run += 1;
                if self.run > self.max {
                    return Err(self.too_long());
                }
            }
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::BufRead;

    /// A line of exactly `max` bytes passes, one more byte is refused with its line number,
    /// and the reader never hands out more than `max` bytes of one line.
    #[test]
    fn a_line_at_the_bound_passes_and_one_past_is_refused() {
        let text = format!("{}\n{}\n{}\n", "a".repeat(10), "b".repeat(10), "c".repeat(11));
        let mut r = std::io::BufReader::with_capacity(4, LineBound::new(text.as_bytes(), 10));
        let mut line = Vec::new();
        for expect in ["a", "b"] {
            line.clear();
            r.read_until(b'\n', &mut line).unwrap();
            assert_eq!(line, format!("{}\n", expect.repeat(10)).as_bytes());
        }
        line.clear();
        let e = r.read_until(b'\n', &mut line).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
        assert!(e.to_string().starts_with("the line is longer than 10 bytes"), "{e}");
        assert!(line.len() <= 10, "{} bytes of the long line were buffered", line.len());
        assert_eq!(r.get_ref().line(), 3);
    }
}
