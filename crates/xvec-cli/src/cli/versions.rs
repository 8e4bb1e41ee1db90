//! Versions and time travel: `xvec versions`, `tag`, `checkout` and `vacuum`, and the
//! `--as-of VERSION|TAG` snapshot that `query`, `count`, `fetch` and `export` read.

use std::sync::Arc;
use std::time::UNIX_EPOCH;

use clap::Args;
use xvec::{Collection, Snapshot};

use super::context::{Collections, Io, print};
use super::output::{Cell, Table};
use super::plural::count;
use super::{CliError, CollectionArg};

/// List the versions of a collection kept for time travel, oldest first.
///
/// A version is what one publish (flush, optimize, alter, repair, checkout) made; rows
/// written since the last flush belong to none yet. Older versions are kept while the
/// collection's retention (`create --keep-versions N`, `--keep-for SECS`), a tag or a
/// reader reading one (`--as-of`) keeps them; the live one is marked `current`. Rows
/// and bytes are the version's own (its segments less their deleted rows; the files it
/// names).
///
/// Example:
///   xvec versions words
///   xvec query words --pk n.01317391 --as-of 12 -k 5
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct VersionsArgs {
    #[command(flatten)]
    pub coll: CollectionArg,
}

/// Name a version (the live one by default), or list or delete tags.
///
/// A tagged version is kept, whatever the retention, until its tag is deleted; use the
/// name wherever a version goes (`--as-of NAME`). Names are 1 to 64 letters, digits,
/// `.`, `_` or `-`, starting with a letter. Without NAME, lists the tags. Setting an
/// existing name moves it.
///
/// Example:
///   xvec tag words before-reindex
///   xvec tag words nightly-1 12
///   xvec tag words before-reindex --delete
///   xvec tag words
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct TagArgs {
    #[command(flatten)]
    pub coll: CollectionArg,
    /// The tag's name.
    #[arg(value_name = "NAME")]
    pub name: Option<String>,
    /// The version to tag (default: the live one).
    #[arg(value_name = "VERSION", requires = "name", conflicts_with = "delete")]
    pub version: Option<u64>,
    /// Delete the tag NAME (the version it named stays until vacuum if nothing keeps it).
    #[arg(long, requires = "name")]
    pub delete: bool,
}

/// Publish an older version again as the newest (undo to that version).
///
/// Flushes first, so the state before is itself a version (kept if the retention, or a
/// tag, keeps it), then publishes VERSION's rows, schema and indexes as a new version in
/// one step: a crash leaves either the state before or the checkout, never a mix. Writes
/// go on on top of it. VERSION is a number or a tag.
///
/// Example:
///   xvec checkout words 12
///   xvec checkout words before-reindex
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct CheckoutArgs {
    #[command(flatten)]
    pub coll: CollectionArg,
    /// The version to publish again: a number (see `xvec versions`) or a tag.
    #[arg(value_name = "VERSION|TAG")]
    pub version: String,
}

/// Remove the versions nothing keeps any more, and the files only they use.
///
/// What keeps a version: the retention (`--keep-versions`, `--keep-for`), a tag, or a
/// reader in any process reading it (`--as-of`; its lease lets go when it exits, even by
/// a crash). Without retention each publish removes what it superseded at once, so
/// vacuum finds work after a tag is deleted or a reader of an old version is done.
///
/// Example:
///   xvec vacuum words
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct VacuumArgs {
    #[command(flatten)]
    pub coll: CollectionArg,
}

/// The snapshot a reading command reads: the live one, or the version `as_of` names.
pub fn snapshot(coll: &Collection, as_of: Option<&str>) -> Result<Arc<Snapshot>, CliError> {
    match as_of {
        None => Ok(coll.snapshot()),
        Some(spec) => Ok(coll.snapshot_at(coll.resolve_version(spec)?)?),
    }
}

pub fn versions(a: &VersionsArgs, colls: &mut dyn Collections, io: &mut Io) -> Result<(), CliError> {
    let coll = colls.open(&a.coll.dir, false)?;
    let mut t = Table::new(["version", "time", "operation", "rows", "bytes", "tags", "current"]);
    for v in coll.versions()? {
        let time = v.time.and_then(|t| t.duration_since(UNIX_EPOCH).ok());
        t.push(vec![
            v.version.into(),
            time.map_or(Cell::from(serde_json::Value::Null), |d| Cell::from(xvec_io::sys::utc_timestamp(d.as_secs()))),
            Cell::from(v.operation.name().to_string()),
            v.rows.into(),
            v.bytes.into(),
            Cell::from(v.tags.join(",")),
            Cell::from(serde_json::Value::Bool(v.current)),
        ]);
    }
    print(io, &t)
}

pub fn tag(a: &TagArgs, colls: &mut dyn Collections, io: &mut Io) -> Result<(), CliError> {
    let Some(name) = &a.name else {
        let coll = colls.open(&a.coll.dir, false)?;
        let mut t = Table::new(["tag", "version"]);
        for (name, version) in coll.tags()? {
            t.push(vec![Cell::from(name), version.into()]);
        }
        return print(io, &t);
    };
    let coll = colls.open(&a.coll.dir, true)?;
    if a.delete {
        let v = coll.delete_tag(name)?;
        writeln!(io.err, "deleted tag {name} (it named version {v})")?;
    } else {
        let v = coll.tag(name, a.version)?;
        writeln!(io.err, "tagged version {v} {name}")?;
    }
    Ok(())
}

pub fn checkout(a: &CheckoutArgs, colls: &mut dyn Collections, io: &mut Io) -> Result<(), CliError> {
    let coll = colls.open(&a.coll.dir, true)?;
    let from = coll.resolve_version(&a.version)?;
    let made = coll.checkout(from)?;
    writeln!(io.err, "checked out version {from} as version {made}: {}", count(coll.count(), "row"))?;
    Ok(())
}

pub fn vacuum(a: &VacuumArgs, colls: &mut dyn Collections, io: &mut Io) -> Result<(), CliError> {
    let coll = colls.open(&a.coll.dir, true)?;
    let r = coll.vacuum()?;
    writeln!(
        io.err,
        "vacuumed: {} removed, {} ({:.1} MB)",
        count(r.versions.len() as u64, "version"),
        count(r.files, "file"),
        r.bytes as f64 / 1e6
    )?;
    Ok(())
}
