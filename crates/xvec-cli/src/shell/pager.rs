//! Results on a terminal: the terminal's size, and a writer that pages a result through
//! `$PAGER` (else `less -FRX`, or nothing when neither runs) once it is longer than the
//! screen. Like psql: the output is held back until it is known not to fit, so a short
//! result prints as usual and a long one streams into the pager as it is made.

use std::io::{self, Write};
use std::process::{Child, ChildStdin, Command, Stdio};

/// Columns and rows of the terminal on standard output, if it is one.
pub fn terminal_size() -> Option<(usize, usize)> {
    let mut ws = libc::winsize { ws_row: 0, ws_col: 0, ws_xpixel: 0, ws_ypixel: 0 };
    // SAFETY: TIOCGWINSZ writes one winsize into the struct we pass.
    let ok = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut ws) } == 0;
    (ok && ws.ws_col > 0 && ws.ws_row > 0).then_some((ws.ws_col as usize, ws.ws_row as usize))
}

/// The pager to run: `$PAGER` through `sh -c` (set but empty: none), else `less -FRX`.
fn spawn_pager() -> Option<Child> {
    let mut cmd = match std::env::var("PAGER") {
        Ok(p) if p.trim().is_empty() => return None,
        Ok(p) => {
            let mut c = Command::new("sh");
            c.arg("-c").arg(p);
            c
        }
        Err(_) => {
            let mut c = Command::new("less");
            c.arg("-FRX");
            c
        }
    };
    cmd.stdin(Stdio::piped()).spawn().ok()
}

enum State {
    /// Not known yet to be longer than the screen.
    Held(Vec<u8>),
    Paging(Child, ChildStdin),
    /// Straight to the output: no pager could run.
    Direct,
    /// The pager quit before the end (`q` in less): the rest is dropped.
    Quit,
}

/// A writer for one result, over the session's output.
pub struct Paged<'a> {
    out: &'a mut dyn Write,
    state: State,
    /// Page once the result has this many lines (what leaves no row for the prompt)...
    rows: usize,
    /// ...or this many bytes (more than the screen holds, however the lines wrap).
    bytes: usize,
    lines: usize,
}

impl<'a> Paged<'a> {
    /// Pages output of `rows` lines or more on a `cols`-wide screen; `always` pages it all.
    pub fn new(out: &'a mut dyn Write, (cols, rows): (usize, usize), always: bool) -> Paged<'a> {
        let rows = if always { 0 } else { rows };
        Paged { out, state: State::Held(Vec::new()), rows, bytes: cols.saturating_mul(rows), lines: 0 }
    }

    /// True when the reader quit the pager early: a write error then is no failure.
    pub fn quit(&self) -> bool {
        matches!(self.state, State::Quit)
    }

    /// Writes what is held, or waits for the pager to finish.
    pub fn finish(mut self) -> io::Result<()> {
        match std::mem::replace(&mut self.state, State::Direct) {
            State::Held(buf) => self.out.write_all(&buf),
            State::Paging(mut child, stdin) => {
                drop(stdin);
                child.wait().map(drop)
            }
            State::Direct | State::Quit => Ok(()),
        }
    }

    fn start(&mut self, held: Vec<u8>) -> io::Result<()> {
        self.out.flush()?;
        match spawn_pager() {
            Some(mut child) => {
                let stdin = child.stdin.take().expect("piped");
                self.state = State::Paging(child, stdin);
                self.write_all(&held)
            }
            None => {
                self.state = State::Direct;
                self.out.write_all(&held)
            }
        }
    }
}

impl Write for Paged<'_> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        match &mut self.state {
            State::Held(buf) => {
                buf.extend_from_slice(data);
                self.lines += data.iter().filter(|&&b| b == b'\n').count();
                if self.lines >= self.rows.max(1) || buf.len() > self.bytes {
                    let held = std::mem::take(buf);
                    self.start(held)?;
                }
                Ok(data.len())
            }
            State::Paging(_, stdin) => match stdin.write(data) {
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                    if let State::Paging(mut child, _) = std::mem::replace(&mut self.state, State::Quit) {
                        let _ = child.wait();
                    }
                    Err(e)
                }
                other => other,
            },
            State::Direct => self.out.write(data),
            State::Quit => Err(io::ErrorKind::BrokenPipe.into()),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.state {
            State::Paging(_, stdin) => stdin.flush(),
            State::Direct => self.out.flush(),
            State::Held(_) | State::Quit => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_that_fits_is_held_and_written_as_is() {
        let mut out = Vec::new();
        let mut p = Paged::new(&mut out, (80, 24), false);
        for i in 0..23 {
            writeln!(p, "line {i}").unwrap();
        }
        assert!(matches!(p.state, State::Held(_)));
        p.finish().unwrap();
        assert_eq!(String::from_utf8(out).unwrap().lines().count(), 23);
    }
}
