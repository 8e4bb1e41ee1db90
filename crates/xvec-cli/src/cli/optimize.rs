//! `xvec optimize`: the engine's optimize with a progress bar on a terminal and Ctrl-C
//! (in the shell) as its cancel flag.

use std::io::IsTerminal;

use xvec::{OptimizeOptions, OptimizeProgress};

use super::context::{Collections, Io};
use super::plural::count;
use super::{CliError, OptimizeArgs, interrupt};

pub fn run(a: &OptimizeArgs, colls: &mut dyn Collections, io: &mut Io) -> Result<(), CliError> {
    let coll = colls.open(&a.coll.dir, true)?;
    let bar = if std::io::stderr().is_terminal() {
        let bar = indicatif::ProgressBar::new(0);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} vectors indexed, eta {eta}")
                .expect("progress template"),
        );
        bar
    } else {
        indicatif::ProgressBar::hidden()
    };
    let progress = |p: &OptimizeProgress| {
        bar.set_length(p.vectors_total);
        bar.set_position(p.vectors_indexed);
    };
    let mut options = OptimizeOptions::default().progress(Some(&progress)).cancel(Some(interrupt::flag()));
    if let Some(n) = a.concurrency {
        options.concurrency = n as usize;
    }
    let report = coll.optimize(&options);
    bar.finish_and_clear();
    let report = report?;
    if report.changed {
        writeln!(
            io.err,
            "optimized: {} in {} (from {}), {} dropped, {} built in {:.2}s",
            count(report.rows, "row"),
            count(report.segments_after as u64, "segment"),
            report.segments_before,
            count(report.dropped, "deleted row"),
            count(report.indexes_built as u64, "index"),
            report.seconds
        )?;
        // The budget changed how a disk index was built: say so, and by how much.
        if report.low_memory_builds > 0 || report.over_budget {
            writeln!(
                io.err,
                "{} built from int8 codes within the memory budget (working set {}{})",
                count(report.low_memory_builds as u64, "disk index"),
                super::verify::human(report.build_bytes),
                if report.over_budget { ", over the budget: it may page" } else { "" }
            )?;
        }
    } else {
        writeln!(
            io.err,
            "optimized: {} in {}, already compact with every index built",
            count(report.rows, "row"),
            count(report.segments_after as u64, "segment")
        )?;
    }
    Ok(())
}
