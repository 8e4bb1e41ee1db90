//! Files the live manifest does not name: leftovers the next writable open rolls back,
//! orphans for repair, a torn WAL tail, and what `lost+found/` holds.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use super::{Base, DirEntry, Orphan, WalState, number};
use crate::collection::recovery::{self, Disposition, LOST_FOUND, Leftover};
use crate::error::StorageError;
use crate::storage::lock::WriterLock;
use crate::storage::{FileKind, disk};
use crate::verify::{Finding, Severity};

/// Reports the files of `listing` that are not in `named`: leftovers the next writable
/// open rolls back, when the live generation is known; orphans for repair otherwise.
/// `holding_lock`: the caller holds the writer lock, so nothing is in flight. Then the
/// torn tail of the live WAL, and what `lost+found/` holds. Returns the files not named.
pub(super) fn orphans(
    dir: &Path,
    holding_lock: bool,
    base: Option<&Base>,
    listing: &[DirEntry],
    named: &HashSet<String>,
    wal: Option<&WalState>,
    f: &mut Vec<Finding>,
) -> Vec<Orphan> {
    let mut out = Vec::new();
    let leftovers: HashMap<String, Leftover> = base
        .and_then(|b| recovery::leftovers(dir, &b.manifest, &b.schema).ok())
        .map(|l| l.into_iter().map(|l| (l.file.clone(), l)).collect())
        .unwrap_or_default();
    let mut writer_active: Option<bool> = None;
    let mut active =
        || *writer_active.get_or_insert_with(|| !holding_lock && WriterLock::is_held(dir).unwrap_or(false));
    for e in listing {
        // lost+found, whatever is in its place, is reported below.
        if e.is_dir || named.contains(&e.name) || e.name == LOST_FOUND {
            continue;
        }
        let Some(kind) = e.kind else {
            f.push(Finding::new(Severity::Info, &e.name, "", "not an xvec file; ignored"));
            continue;
        };
        let generation = base.map_or(0, |b| b.manifest.generation);
        let reason = match kind {
            FileKind::Temp => "temp file left by an interrupted write".to_string(),
            FileKind::Manifest if number(&e.name) < generation => "stale manifest".into(),
            FileKind::Manifest => "manifest that CURRENT does not name (an interrupted publish)".into(),
            FileKind::Wal => "WAL the manifest does not name".into(),
            _ => "not named by the live manifest".into(),
        };
        let finding = if active() {
            Finding::new(Severity::Info, &e.name, "", format!("{reason}; a writer is active, so it may be in flight"))
        } else if !dir.join(&e.name).exists() {
            // Gone since the listing: a writer's cleanup after its publish, which ended
            // before the lock was checked.
            continue;
        } else if let Some(l) = leftovers.get(&e.name) {
            let done = match l.disposition {
                Disposition::Remove => "removes it",
                Disposition::Keep => "moves it to lost+found/",
            };
            Finding::new(
                Severity::Warning,
                &e.name,
                "",
                format!("pending rollback: {}; the next writable open {done}", l.why),
            )
        } else {
            Finding::new(Severity::Orphan, &e.name, "", reason)
        };
        f.push(finding.expected("", format!("{} bytes", e.bytes)).transient());
        out.push(Orphan { name: e.name.clone() });
    }
    // A WAL shorter than its sync record has a loss reported instead (`wal_sync`).
    if let Some(w) = wal.filter(|w| !w.short)
        && let Some((at, len)) = w.scan.torn
    {
        let sev = if active() { Severity::Info } else { Severity::Warning };
        f.push(
            Finding::new(
                sev,
                &w.name,
                "frame",
                format!(
                    "torn tail: {len} bytes, {}; readers ignore it, repair truncates it",
                    recovery::torn_tail_is(w.durable.as_ref())
                ),
            )
            .at(at)
            .transient(),
        );
    }

    if let Err(e) = crate::storage::disk::own_dir(&dir.join(LOST_FOUND)) {
        let what = match e {
            StorageError::BadLostFound { what, .. } => {
                format!("a {what}, not a directory: recovery and repair refuse to write through it; move it away")
            }
            other => other.to_string(),
        };
        f.push(Finding::new(Severity::Warning, LOST_FOUND, "", what));
    } else if let Some((files, bytes)) = lost_found_size(&dir.join(LOST_FOUND)) {
        f.push(
            Finding::new(
                Severity::Info,
                LOST_FOUND,
                "",
                format!(
                    "{files} file{}, {bytes} bytes kept by recovery and repair; `xvec repair --purge-lost-found` empties it",
                    if files == 1 { "" } else { "s" }
                ),
            )
            .expected("", format!("{bytes} bytes")),
        );
    }
    out
}

/// Files and bytes under `lost+found/`, if it exists.
pub(crate) fn lost_found_size(dir: &Path) -> Option<(u64, u64)> {
    let mut stack = vec![dir.to_path_buf()];
    let (mut files, mut bytes) = (0, 0);
    // A link in lost+found's place is counted as nothing: it is not the collection's.
    disk::symlink_metadata(dir).ok().filter(|m| m.is_dir())?;
    while let Some(d) = stack.pop() {
        // What cannot be listed is not counted: the size is a report, not a check.
        for e in disk::list_dir(&d).unwrap_or_default() {
            if e.is_dir {
                stack.push(e.path);
            } else {
                files += 1;
                bytes += e.len;
            }
        }
    }
    Some((files, bytes))
}
