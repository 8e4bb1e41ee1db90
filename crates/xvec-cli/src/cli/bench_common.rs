//! What `xvec bench` and `xvec bench --streaming` share: progress on stderr, engine
//! errors as the tool shows them, the command line for the report, number cells and the
//! phases table.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use xvec::{Error, StorageError};
use xvec_bench::phases::{BenchError, Progress};
use xvec_bench::report::PhaseReport;

use super::CliError;
use super::output::{Cell, Table};

/// The command line as typed, for the report: `xvec` and the arguments, quoted when needed.
pub fn command_line() -> String {
    let quote = |a: String| {
        if !a.is_empty() && a.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=,:@%+".contains(c)) {
            a
        } else {
            format!("'{}'", a.replace('\'', r"'\''"))
        }
    };
    std::iter::once("xvec".to_string()).chain(std::env::args().skip(1).map(quote)).collect::<Vec<_>>().join(" ")
}

pub fn bench_error(e: BenchError) -> CliError {
    match e {
        BenchError::Engine { phase, source } => {
            let exists = matches!(source, Error::Storage(StorageError::AlreadyExists { .. }));
            let mut c = CliError::from(source);
            c.message = format!("{phase}: {}", c.message);
            if exists {
                c = c.hint("pass --skip-load to benchmark the existing collection, or another --path");
            }
            c
        }
        other => CliError::failed(other.to_string()),
    }
}

pub fn ms(v: f64) -> Cell {
    Cell::from(serde_json::json!((v * 1000.0).round() / 1000.0))
}

pub fn round(v: f64, digits: i32) -> Cell {
    let p = 10f64.powi(digits);
    Cell::from(serde_json::json!((v * p).round() / p))
}

/// One row per phase: time, RSS at its end, its VmHWM and its CPU time.
pub fn phases_table(phases: &[PhaseReport]) -> Table {
    let mut t = Table::new(["phase", "seconds", "RSS MiB", "HWM MiB", "HWM of", "user s", "sys s"]);
    let opt = |v: Option<f64>, d: i32| v.map_or(Cell::from(serde_json::Value::Null), |v| round(v, d));
    for p in phases {
        t.push(vec![
            Cell::from(p.name.clone()),
            round(p.duration_sec, 3),
            opt(p.rss_end_mib, 1),
            opt(p.hwm_mib, 1),
            Cell::from(p.hwm_scope.clone()),
            opt(p.cpu_user_sec, 2),
            opt(p.cpu_sys_sec, 2),
        ]);
    }
    t
}

/// Progress on stderr: a bar per phase on a terminal, one summary line per phase always.
pub struct StderrProgress<'a> {
    err: &'a mut dyn std::io::Write,
    tty: bool,
    bar: Option<ProgressBar>,
}

impl<'a> StderrProgress<'a> {
    pub fn new(err: &'a mut dyn std::io::Write) -> StderrProgress<'a> {
        StderrProgress { err, tty: std::io::stderr().is_terminal(), bar: None }
    }
}

impl Progress for StderrProgress<'_> {
    fn begin(&mut self, phase: &str, total: u64, unit: &'static str) {
        if !self.tty {
            return;
        }
        let bar = if total == 0 {
            let b = ProgressBar::new_spinner();
            b.set_style(ProgressStyle::with_template("{spinner} {prefix} {elapsed}").expect("valid template"));
            b.enable_steady_tick(Duration::from_millis(120));
            b
        } else {
            let b = ProgressBar::new(total);
            let template = format!("{{prefix:>24}} [{{bar:32}}] {{pos}}/{{len}} {unit} {{elapsed}}");
            b.set_style(ProgressStyle::with_template(&template).expect("valid template").progress_chars("=> "));
            b
        };
        bar.set_prefix(phase.to_string());
        self.bar = Some(bar);
    }

    fn set(&mut self, done: u64) {
        if let Some(b) = &self.bar {
            b.set_position(done);
        }
    }

    fn end(&mut self, summary: &str) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
        let _ = writeln!(self.err, "bench: {summary}");
    }
}
