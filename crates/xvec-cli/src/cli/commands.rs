//! Dispatch: one command to the module that runs it. `shell` is dispatched by `main`,
//! which owns the terminal.

use super::context::{Collections, Io};
use super::plural::count;
use super::{CliError, Command};

/// Runs one command.
pub fn run(command: Command, colls: &mut dyn Collections, io: &mut Io) -> Result<(), CliError> {
    match command {
        Command::Create(a) => super::create::run(&a, colls, io),
        Command::Import(a) => super::import::run(&a, colls, io),
        Command::Insert(a) => super::write::write_docs(&a.docs, super::write::Mode::Insert, colls, io),
        Command::Upsert(a) => super::write::write_docs(&a.docs, super::write::Mode::Upsert, colls, io),
        Command::Update(a) => super::write::write_docs(&a.docs, super::write::Mode::Update, colls, io),
        Command::Delete(a) => super::write::delete(&a, colls, io),
        Command::Fetch(a) => super::query::fetch(&a, colls.open(&a.coll.dir, false)?, io),
        Command::Query(a) if super::hybrid::wanted(&a) => super::hybrid::run(&a, colls, io),
        Command::Query(a) => super::query::run(&a, colls, io),
        Command::Scan(a) => super::scan::run(&a, colls, io),
        Command::Explain(a) => super::explain::run(&a, colls, io),
        Command::Count(a) => super::query::count(&a, colls, io),
        Command::Analyze(a) => super::hybrid::analyze(&a, colls, io),
        Command::Vocabulary(a) => super::vocabulary::run(&a, colls, io),
        Command::Flush(a) => {
            let coll = colls.open(&a.coll.dir, true)?;
            coll.flush()?;
            let s = coll.stats();
            writeln!(io.err, "flushed: generation {}, {}", s.generation, count(s.segments.len() as u64, "segment"))?;
            Ok(())
        }
        Command::Optimize(a) => super::optimize::run(&a, colls, io),
        Command::Alter(a) => super::alter::run(&a, colls, io),
        Command::Describe(a) => super::describe::describe(colls.open(&a.coll.dir, false)?, io),
        Command::Stats(a) => super::describe::stats(&a, colls, io),
        Command::Export(a) => super::export::run(&a, colls.open(&a.coll.dir, false)?, io),
        Command::Schema(a) => Ok(writeln!(io.out, "{}", colls.open(&a.coll.dir, false)?.schema().to_json())?),
        Command::Dump(a) => super::dump::run(&a, colls.open(&a.coll.dir, false)?, io),
        Command::Shell(_) => Err(CliError::usage("the shell cannot start another shell")),
        Command::Completions(a) => super::docs::completions(a.shell, io.out),
        Command::Man(a) => super::docs::write_man_pages(&a.out, io),
        Command::Quickstart(a) => super::quickstart::run(&a, io),
        Command::Bench(a) => super::bench::run(*a, io),
        Command::Tui(a) => super::tui::run(&a, colls, io),
        Command::Verify(a) => super::verify::run_verify(&a, colls.mmap(), io),
        Command::Repair(a) => super::verify::run_repair(&a, colls.mmap(), colls.lock_timeout(), io),
        Command::Inspect(a) => super::verify::run_inspect(&a, colls, io),
        Command::Backup(a) => super::backup::backup(&a, colls, io),
        Command::Restore(a) => super::backup::restore(&a, io),
        Command::Versions(a) => super::versions::versions(&a, colls, io),
        Command::Tag(a) => super::versions::tag(&a, colls, io),
        Command::Checkout(a) => super::versions::checkout(&a, colls, io),
        Command::Vacuum(a) => super::versions::vacuum(&a, colls, io),
    }
}
