//! A reader that refuses an over-long line (or CSV record) of text input before it is
//! buffered: the JSON Lines and CSV readers read through it, so a 1 GB line is an error
//! naming its line, not a gigabyte allocation (or an abort under a memory limit). And the
//! JSON Lines line buffer grows by fallible reservation, so a memory limit below the bound
//! is an error too.

use std::io::{BufRead, Read};

/// Longest line of JSON Lines or CSV input, in bytes: twice the largest document, room for
/// a document's text form (numbers in decimal, escapes) but no more.
pub const MAX_LINE_BYTES: usize = 2 * xvec::MAX_DOC_BYTES;

/// Passes bytes through, counting lines, and fails once a line passes `max` bytes.
pub struct LineBound<R> {
    inner: R,
    max: usize,
    /// Bytes of the current line read so far.
    run: usize,
    /// Bytes handed out since the last [`Self::record_done`], when records are counted
    /// (CSV, where a quoted cell spans lines, so no line bound holds a record).
    record: Option<usize>,
}

impl<R: Read> LineBound<R> {
    pub fn new(inner: R, max: usize) -> LineBound<R> {
        LineBound { inner, max, run: 0, record: None }
    }

    /// Also bounds what is read between two [`Self::record_done`] calls by `max`: what
    /// the CSV reader has read ahead counts towards the next record, a few KiB at most.
    pub fn count_records(mut self) -> LineBound<R> {
        self.record = Some(0);
        self
    }

    /// The caller has taken a whole record.
    pub fn record_done(&mut self) {
        if let Some(r) = &mut self.record {
            *r = 0;
        }
    }

    /// The error, worded without the place: the caller puts `FILE:LINE` first.
    fn too_long(&self) -> std::io::Error {
        let what = format!(
            "the line is longer than {} bytes, the bound on one line of input (twice the {}-byte document bound)",
            self.max,
            xvec::MAX_DOC_BYTES
        );
        std::io::Error::new(std::io::ErrorKind::InvalidData, what)
    }
}

impl<R: Read> Read for LineBound<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Some(r) = &mut self.record {
            *r += n;
            if *r > self.max {
                let what = format!("a record is longer than {} bytes, the bound on one row of input", self.max);
                return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, what));
            }
        }
        for &b in &buf[..n] {
            if b == b'\n' {
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

/// `read_until(b'\n')` whose buffer grows by `try_reserve`: a line the memory limit cannot
/// hold is an `OutOfMemory` error, not an abort.
pub fn read_line(r: &mut impl BufRead, buf: &mut Vec<u8>) -> std::io::Result<usize> {
    let mut total = 0;
    loop {
        let chunk = r.fill_buf()?;
        if chunk.is_empty() {
            return Ok(total);
        }
        let (take, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        buf.try_reserve(take).map_err(|_| {
            let what = format!("out of memory holding a line of {} bytes", buf.len() + take);
            std::io::Error::new(std::io::ErrorKind::OutOfMemory, what)
        })?;
        buf.extend_from_slice(&chunk[..take]);
        r.consume(take);
        total += take;
        if done {
            return Ok(total);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line of exactly `max` bytes passes, one more byte is refused,
    /// and the reader never hands out more than `max` bytes of one line.
    #[test]
    fn a_line_at_the_bound_passes_and_one_past_is_refused() {
        let text = format!("{}\n{}\n{}\n", "a".repeat(10), "b".repeat(10), "c".repeat(11));
        let mut r = std::io::BufReader::with_capacity(4, LineBound::new(text.as_bytes(), 10));
        let mut line = Vec::new();
        for expect in ["a", "b"] {
            line.clear();
            read_line(&mut r, &mut line).unwrap();
            assert_eq!(line, format!("{}\n", expect.repeat(10)).as_bytes());
        }
        line.clear();
        let e = read_line(&mut r, &mut line).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
        assert!(e.to_string().starts_with("the line is longer than 10 bytes"), "{e}");
        assert!(line.len() <= 10, "{} bytes of the long line were buffered", line.len());
    }

    /// A CSV record may span lines (quoted cells): counted from one record's end to the
    /// next, it is refused past the bound however short its lines.
    #[test]
    fn a_record_past_the_bound_is_refused_however_short_its_lines() {
        let text = "a\nb\nc\nd\ne\nf\n";
        let mut r = LineBound::new(text.as_bytes(), 6).count_records();
        let mut buf = [0u8; 4];
        assert_eq!(r.read(&mut buf).unwrap(), 4);
        r.record_done();
        assert_eq!(r.read(&mut buf).unwrap(), 4);
        let e = r.read(&mut buf).unwrap_err();
        assert!(e.to_string().starts_with("a record is longer than 6 bytes"), "{e}");
    }
}
