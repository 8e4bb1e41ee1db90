//! `describe` and `stats`: what a collection holds, as tables.

use xvec::Collection;

use super::context::{Collections, Io, print};
use super::output::{OutputMode, Table};
use super::plural::count;
use super::{CliError, StatsArgs};

/// The `describe` table: one row per field with its default (what documents that leave
/// the field out, and rows written before it was added, read as) and its index parameters
/// as JSON, then counts in the footer.
pub fn describe_table(coll: &Collection) -> Table {
    let s = coll.schema();
    let stats = coll.stats();
    let mut t = Table::new(["field", "type", "nullable", "default", "dim", "metric", "index"]);
    for f in s.fields() {
        let v = f.as_vector();
        t.push(vec![
            f.name.clone().into(),
            f.ty.name().into(),
            serde_json::Value::Bool(f.nullable).into(),
            f.default.clone().unwrap_or(serde_json::Value::Null).into(),
            v.map_or(serde_json::Value::Null, |v| v.dim.into()).into(),
            v.map_or(serde_json::Value::Null, |v| v.metric.name().into()).into(),
            f.index_json().unwrap_or_default().into(),
        ]);
    }
    t.footer = Some(format!(
        "collection {}: {} ({} deleted), {}, {}, generation {}, {} on disk{}",
        s.name(),
        count(stats.live_docs, "document"),
        stats.deleted_docs,
        count(stats.segments.len() as u64, "segment"),
        count(stats.mem_rows + stats.frozen_rows, "unflushed row"),
        seen_generation(&stats),
        super::verify::human(stats.disk_bytes),
        stats.follow_error.as_deref().map(|e| format!("; cannot follow the writer: {e}")).unwrap_or_default()
    ));
    if stats.disk.indexes > 0 || stats.memory_budget.is_some() {
        let footer = t.footer.as_mut().expect("set above");
        let d = stats.disk;
        let human = super::verify::human;
        let budget = match (stats.memory_budget, stats.over_budget()) {
            (None, _) => "no memory budget".into(),
            (Some(b), None) => format!("memory budget {} ({} wanted)", human(b), human(stats.memory_wanted)),
            (Some(b), Some(over)) => format!(
                "memory budget {}, over budget by {} ({} wanted): queries read the rest from disk, slower",
                human(b),
                human(over),
                human(stats.memory_wanted)
            ),
        };
        footer.push_str(&format!(
            "
{budget}; {} disk-resident: {} of node blocks on disk, {} of codes and {} of cache ({}) in memory",
            count(d.indexes, "index"),
            super::verify::human(d.block_bytes),
            super::verify::human(d.code_bytes),
            super::verify::human(d.cache_bytes),
            count(d.cached_nodes, "node")
        ));
    }
    let o = coll.options();
    if o.background() {
        let footer = t.footer.as_mut().expect("set above");
        let at = match (o.auto_flush_rows, o.auto_flush_bytes) {
            (rows, 0) => count(rows, "row"),
            (0, bytes) => super::verify::human(bytes),
            (rows, bytes) => format!("{} or {}", count(rows, "row"), super::verify::human(bytes)),
        };
        footer.push_str(&format!(
            "\nbackground maintenance: flush at {at}, merge factor {}, at most {} a segment, {}; {} not indexed yet",
            o.merge_factor,
            count(o.max_docs_per_segment, "row"),
            match o.idle_optimize_ms {
                0 => "never optimized when idle".to_string(),
                ms => format!("optimized after {ms} ms idle"),
            },
            count(stats.unindexed_rows, "row")
        ));
    }
    let footer = t.footer.as_mut().expect("set above");
    for line in stats.degraded() {
        footer.push_str(&format!("\n{line}"));
    }
    for b in &stats.index_builds {
        footer.push_str(&format!(
            "\nindex of {}: building {}, {} of {} done (the rest are searched exactly)",
            b.field,
            b.index,
            b.segments_done,
            count(b.segments_total as u64, "segment")
        ));
    }
    t
}

/// `describe`: the table, and its summary (the footer) on stderr in the modes that print
/// no footer (tsv, csv, json, jsonl), so every mode has it and stdout stays parseable.
pub fn describe(coll: &Collection, io: &mut Io) -> Result<(), CliError> {
    let t = describe_table(coll);
    print(io, &t)?;
    let footless = matches!(io.printer.mode, OutputMode::Tsv | OutputMode::Csv | OutputMode::Json | OutputMode::Jsonl);
    if let Some(footer) = t.footer.as_ref().filter(|_| footless) {
        writeln!(io.err, "{footer}")?;
    }
    Ok(())
}

/// The state a handle sees: its generation and the WAL records it holds on top.
pub fn seen_generation(stats: &xvec::Stats) -> String {
    match stats.wal_records {
        0 => stats.generation.to_string(),
        n => format!("{} (+{})", stats.generation, count(n, "WAL record")),
    }
}

/// The `stats` table: one `name`, `value` row per figure, so every mode prints it whole.
pub fn stats(a: &StatsArgs, colls: &mut dyn Collections, io: &mut Io) -> Result<(), CliError> {
    let coll = colls.open(&a.coll.dir, false)?;
    let s = coll.stats();
    for line in s.degraded() {
        writeln!(io.err, "{line}")?;
    }
    let m = coll.memory();
    let mut t = Table::new(["name", "value"]);
    let mut row = |name: String, value: u64| t.push(vec![name.into(), value.into()]);
    row("generation".into(), s.generation);
    row("wal records".into(), s.wal_records);
    row("documents".into(), s.live_docs);
    row("deleted".into(), s.deleted_docs);
    for seg in &s.segments {
        row(format!("segment {} rows", seg.file), seg.rows);
        row(format!("segment {} deleted", seg.file), seg.deleted);
        row(format!("segment {} bytes", seg.file), seg.bytes);
        if !seg.damaged.is_empty() {
            row(format!("segment {} unreadable", seg.file), seg.unreadable);
        }
        if !seg.unusable_indexes.is_empty() {
            row(format!("segment {} unusable indexes", seg.file), seg.unusable_indexes.len() as u64);
        }
    }
    row("unflushed rows".into(), s.mem_rows);
    row("unflushed live".into(), s.mem_live);
    row("rows being flushed".into(), s.frozen_rows);
    row("unindexed rows".into(), s.unindexed_rows);
    for b in &s.index_builds {
        row(format!("index {} building: segments done", b.field), b.segments_done as u64);
        row(format!("index {} building: segments", b.field), b.segments_total as u64);
    }
    row("background jobs".into(), s.background_jobs);
    if s.background_low_memory_builds > 0 {
        row("background low-memory builds".into(), s.background_low_memory_builds);
    }
    row("write stall ms".into(), s.write_stall_ms);
    row("wal bytes".into(), s.wal_bytes);
    row("disk bytes".into(), s.disk_bytes);
    row("memory mapped vectors".into(), m.mapped_vectors);
    row("memory mapped other".into(), m.mapped_other);
    row("memory owned segments".into(), m.owned_segments);
    row("memory unflushed vectors".into(), m.mem_vectors);
    row("memory unflushed other".into(), m.mem_other);
    row("memory delete bitmaps".into(), m.delete_bitmaps);
    row("memory wal buffer".into(), m.wal_buffer);
    row("memory total".into(), m.total());
    // Shown where they mean something, so other collections' tables stay as they were.
    if let Some(b) = s.memory_budget {
        row("memory budget".into(), b);
        row("memory wanted".into(), s.memory_wanted);
        row("memory over budget".into(), s.over_budget().unwrap_or(0));
    }
    if s.disk.indexes > 0 {
        let d = s.disk;
        row("disk indexes".into(), d.indexes);
        row("disk block bytes".into(), d.block_bytes);
        row("disk code bytes".into(), d.code_bytes);
        row("disk cached nodes".into(), d.cached_nodes);
        row("disk cache bytes".into(), d.cache_bytes);
        row("disk searches".into(), d.searches);
        row("disk blocks read".into(), d.blocks_read);
        row("disk cache hits".into(), d.cache_hits);
    }
    print(io, &t)
}
