//! The `xvec` admin tool: parse, dispatch, map errors to exit codes. Nothing else.

mod cli;
mod shell;
mod tui;

use std::io::Write;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};

use cli::error::Status;

fn main() -> ExitCode {
    let parsed = cli::Cli::command().try_get_matches().and_then(|m| cli::Cli::from_arg_matches(&m).map(|c| (c, m)));
    let (cli, matches) = match parsed {
        Ok(p) => p,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { Status::Usage.code() } else { 0 });
        }
    };
    if let cli::Command::Shell(args) = &cli.command {
        let inputs = shell::inputs_in_order(args, matches.subcommand_matches("shell"));
        return ExitCode::from(shell::run(args, inputs, &cli.output, !cli.read.no_mmap, &cli.lock, &args.bind.params));
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut err = std::io::stderr();
    let printer = cli::context::printer_for(&cli.output);
    let mut colls =
        cli::context::OneShot::new(!cli.read.no_mmap, cli.lock.timeout()).memory_budget(cli.read.memory_budget);
    let params = cli::params::params_of(cli.command.bindings());
    let mut io = cli::context::Io { out: &mut out, err: &mut err, printer, params, stdin: None };
    let result = cli::commands::run(cli.into_command(), &mut colls, &mut io)
        .and_then(|()| colls.close())
        .and_then(|()| out.flush().map_err(cli::CliError::from));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.broken_pipe => ExitCode::SUCCESS,
        Err(e) => {
            e.report("", &mut err);
            e.exit_code()
        }
    }
}
