//! Tags: names for versions, kept in `versions/TAGS` (a JSON object from name to
//! version, replaced whole through a temp file and a rename). A tagged version is kept
//! until the tag is deleted, whatever the retention. Only the writer changes tags.

use std::collections::BTreeMap;
use std::path::Path;

use super::VERSIONS_DIR;
use crate::error::StorageError;
use crate::storage::disk;

const TAGS: &str = "TAGS";

/// Longest tag name.
pub(crate) const MAX_TAG_LEN: usize = 64;

/// The tags of the collection in `dir`, by name.
pub(crate) fn read(dir: &Path) -> Result<BTreeMap<String, u64>, StorageError> {
    let path = dir.join(VERSIONS_DIR).join(TAGS);
    let bytes = match disk::read(&path) {
        Err(StorageError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
            return Ok(BTreeMap::new());
        }
        other => other?,
    };
    serde_json::from_slice(&bytes).map_err(|e| {
        let what =
            format!("tags JSON line {} column {}: {e}; expected {{\"NAME\": VERSION, ...}}", e.line(), e.column());
        StorageError::corrupted(&path, 0, what)
    })
}

/// Replaces the tags of `dir` with `tags`.
pub(crate) fn write(dir: &Path, tags: &BTreeMap<String, u64>) -> Result<(), StorageError> {
    let vdir = dir.join(VERSIONS_DIR);
    disk::create_dir_all(&vdir)?;
    let bytes = serde_json::to_vec_pretty(tags).expect("tags serialize");
    disk::write_file_atomic(&vdir, TAGS, &bytes)?;
    disk::sync_dir(&vdir)
}

/// Why `name` cannot be a tag, if it cannot: 1 to 64 ASCII letters, digits, `.`, `_` or
/// `-`, starting with a letter (so a tag never reads as a version number).
pub(crate) fn check_name(name: &str) -> Option<String> {
    let ok = name.len() <= MAX_TAG_LEN
        && name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    (!ok).then(|| format!("a tag is 1 to {MAX_TAG_LEN} ASCII letters, digits, `.`, `_` or `-`, starting with a letter"))
}
