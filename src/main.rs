//! The `xvec` admin tool: parse, dispatch, map errors to exit codes. Nothing else.

mod cli;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = match cli::Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut err = std::io::stderr();
    let printer = cli::commands::printer_for(&cli.output);
    let result = cli::commands::run(cli, &mut cli::commands::Io { out: &mut out, err: &mut err, printer });
    let flushed = out.flush();
    match result {
        Ok(()) => match flushed {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                let _ = writeln!(err, "error: {e}");
                ExitCode::from(1)
            }
            _ => ExitCode::SUCCESS,
        },
        Err(e) if e.broken_pipe => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(err, "error: {}", e.message);
            if let Some(h) = &e.hint {
                let _ = writeln!(err, "hint: {h}");
            }
            e.exit_code()
        }
    }
}
