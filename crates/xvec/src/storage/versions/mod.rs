//! Versions: every generation a manifest names is a version. The live one is `CURRENT`'s;
//! older manifests still on disk are the versions kept, with the files they name, until
//! nothing keeps them any more: the retention of [`CollectionOptions`] (`keep_versions`,
//! `keep_for_secs`), a tag (`tags.rs`) or a reader's lease (`lease.rs`).
//!
//! One function removes versions and the files only they name: [`sweep`]. It runs after
//! each publish (in place of removing the superseded files outright) when anything may be
//! kept, at a writable open (recovery), and as `vacuum`. It removes only files some
//! dropped manifest names, never by listing the directory, so the files of a job not yet
//! published (an optimize building unlocked) are never at risk. Without retention, tags
//! or leases, a publish removes what it superseded at once, as before versions existed.

pub(crate) mod lease;
pub(crate) mod tags;

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use super::disk;
use super::manifest::{self, CollectionOptions, Manifest};
use super::{FileKind, manifest_name};
use crate::error::StorageError;

/// The folder of a collection that holds tags and reader leases.
pub(crate) const VERSIONS_DIR: &str = "versions";

/// Why an older version is kept.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Why {
    pub retained: bool,
    pub tags: Vec<String>,
    pub leased: bool,
}

impl Why {
    fn any(&self) -> bool {
        self.retained || self.leased || !self.tags.is_empty()
    }
}

/// The manifests older than the live one that are on disk, by generation; one that does
/// not read is left out (and never removed: its files are unknown).
pub(crate) fn older(dir: &Path, current: u64) -> Result<BTreeMap<u64, Manifest>, StorageError> {
    let mut out = BTreeMap::new();
    for e in disk::list_dir(dir)? {
        if !e.is_file || FileKind::of_name(&e.name) != Some(FileKind::Manifest) {
            continue;
        }
        let Some(g) = e.name.strip_prefix("MANIFEST-").and_then(|g| g.parse::<u64>().ok()) else { continue };
        if g >= current {
            continue;
        }
        if let Ok(m) = disk::read(&e.path).and_then(|b| Manifest::decode(&e.path, &b)) {
            out.insert(g, m);
        }
    }
    Ok(out)
}

/// Which of the `older` versions are kept, and why, under `options`, the tags and the
/// leased versions, at `now_ms`. Retention by age counts from when a version was
/// superseded: the time of the next newer version (`current_time` for the newest).
pub(crate) fn decide(
    older: &BTreeMap<u64, Manifest>,
    current_time: u64,
    options: &CollectionOptions,
    tags: &BTreeMap<String, u64>,
    leased: &[u64],
    now_ms: u64,
) -> BTreeMap<u64, Why> {
    let mut out = BTreeMap::new();
    let mut superseded_at = current_time;
    for (rank, (&g, m)) in older.iter().rev().enumerate() {
        let young = options.keep_for_secs > 0
            && superseded_at > 0
            && now_ms.saturating_sub(superseded_at) < options.keep_for_secs.saturating_mul(1000);
        let why = Why {
            retained: (rank as u64) < options.keep_versions || young,
            tags: tags.iter().filter(|(_, v)| **v == g).map(|(n, _)| n.clone()).collect(),
            leased: leased.contains(&g),
        };
        superseded_at = m.time_ms;
        out.insert(g, why);
    }
    out
}

/// Whether the collection may keep older versions: retention set, or a `versions/`
/// folder (tags, leases). Otherwise every older manifest is a leftover, as before versions.
pub(crate) fn in_use(dir: &Path, options: &CollectionOptions) -> bool {
    options.retains() || dir.join(VERSIONS_DIR).exists()
}

/// The files of the older versions on disk, beside the live one's: their manifests and
/// data files, live for recovery and `verify` (only [`sweep`] decides which to drop, so a
/// version past its retention stays readable until the next publish or vacuum). Empty
/// when versions are not [`in_use`].
pub(crate) fn kept_files(dir: &Path, current: &Manifest) -> Result<HashSet<String>, StorageError> {
    let mut out = HashSet::new();
    if !in_use(dir, &current.options) {
        return Ok(out);
    }
    for (g, m) in older(dir, current.generation)? {
        out.insert(manifest_name(g));
        out.extend(m.data_files().map(|(f, _)| f.to_string()));
    }
    Ok(out)
}

/// What a sweep removed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct VacuumReport {
    /// Versions removed, oldest first.
    pub versions: Vec<u64>,
    /// Files removed (manifests included).
    pub files: u64,
    /// Their bytes.
    pub bytes: u64,
}

/// Removes the older versions nothing keeps, then the files only they name, and `extra`
/// (files a publish superseded, or left out of the new version) unless a kept version
/// names them (see the module docs and `lease.rs` for the order). Best effort per file
/// for `extra`; an error listing or reading the directory is returned.
pub(crate) fn sweep(dir: &Path, extra: &[PathBuf]) -> Result<VacuumReport, StorageError> {
    let current = manifest::load(dir)?;
    let older = older(dir, current.generation)?;
    let tags = tags::read(dir)?;
    let decided = decide(&older, current.time_ms, &current.options, &tags, &lease::held(dir)?, manifest::now_ms());
    let mut report = VacuumReport::default();
    let dropped: Vec<u64> = decided.iter().filter(|(_, w)| !w.any()).map(|(g, _)| *g).collect();
    for &g in &dropped {
        let path = dir.join(manifest_name(g));
        let bytes = disk::metadata(&path).map_or(0, |m| m.len());
        if disk::remove_file(&path).is_ok() {
            report.versions.push(g);
            report.files += 1;
            report.bytes += bytes;
        }
    }
    // A reader that read a dropped manifest before it went holds a lease by now; a
    // publish since (a checkout naming an older version's files) is in CURRENT by now.
    let leased = lease::held(dir)?;
    let now = manifest::load(dir)?;
    let names = [manifest_name(now.generation), manifest_name(current.generation)];
    let mut keep: HashSet<&str> = names.iter().map(String::as_str).collect();
    keep.extend(now.data_files().map(|(f, _)| f));
    keep.extend(current.data_files().map(|(f, _)| f));
    let kept_names: Vec<String> =
        older.keys().filter(|g| decided[g].any() || leased.contains(g)).map(|&g| manifest_name(g)).collect();
    keep.extend(kept_names.iter().map(String::as_str));
    for (g, m) in &older {
        if decided[g].any() || leased.contains(g) {
            keep.extend(m.data_files().map(|(f, _)| f));
        }
    }
    let mut doomed: Vec<(String, u64)> = Vec::new();
    for g in &dropped {
        doomed.extend(older[g].data_files().map(|(f, size)| (f.to_string(), size)));
    }
    doomed.extend(extra.iter().filter_map(|p| Some((p.file_name()?.to_str()?.to_string(), 0))));
    let mut seen = HashSet::new();
    for (name, _) in doomed {
        if keep.contains(name.as_str()) || !seen.insert(name.clone()) {
            continue;
        }
        let path = dir.join(&name);
        let bytes = disk::metadata(&path).map_or(0, |m| m.len());
        if disk::remove_file(&path).is_ok() {
            report.files += 1;
            report.bytes += bytes;
        }
    }
    Ok(report)
}

/// Removes what a publish superseded (`files`): outright when nothing can be kept (no
/// retention and no `versions/` folder, so no tag or lease), through [`sweep`] otherwise.
/// Best effort: what stays is rolled back by the next writable open.
pub(crate) fn release(dir: &Path, options: &CollectionOptions, files: &[PathBuf]) {
    if !in_use(dir, options) {
        for p in files {
            let _ = disk::remove_file(p);
        }
        return;
    }
    let _ = sweep(dir, files);
}
