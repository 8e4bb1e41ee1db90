//! A read-only handle following the writer: it moves to each generation the writer
//! publishes and applies the WAL records appended since, at its next query.
//!
//! The check is two `stat` calls when nothing changed: one of `CURRENT` (replaced by a
//! rename at every publish, so its inode and times change) and one of the live WAL (its
//! length against where the tail stopped). A new generation is loaded sharing every
//! segment, delete set and index the handle already has open; new WAL records are read
//! by [`wal::tail`], which validates every frame and returns whole batches only.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use super::snapshot::Snapshot;
use super::{OpenOptions, open, writer};
use crate::error::{Error, StorageError};
use crate::storage::wal::{self, TailPos, Tailed};

/// What a handle sees after [`Collection::refresh`](super::Collection::refresh).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Refreshed {
    /// The manifest generation of the handle's snapshot.
    pub generation: u64,
    /// WAL records applied on top of that generation.
    pub wal_records: u64,
    /// Whether this call moved the snapshot.
    pub changed: bool,
}

impl Refreshed {
    fn of(snap: &Snapshot, changed: bool) -> Refreshed {
        Refreshed { generation: snap.generation, wal_records: snap.wal_records, changed }
    }
}

/// Identity of the `CURRENT` file as last read: a publish renames a new file over it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stamp {
    dev: u64,
    ino: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
    len: u64,
}

fn stamp(dir: &Path) -> Result<Stamp, StorageError> {
    let path = dir.join("CURRENT");
    let m = crate::storage::disk::metadata(&path)?;
    Ok(Stamp {
        dev: m.dev(),
        ino: m.ino(),
        mtime: (m.mtime(), m.mtime_nsec()),
        ctime: (m.ctime(), m.ctime_nsec()),
        len: m.len(),
    })
}

/// Where a following handle stands.
#[derive(Debug)]
pub(super) struct Follow {
    /// `CURRENT` when the snapshot's generation was loaded.
    seen: Option<Stamp>,
    /// The live WAL and how far it is applied (`None`: a version 1 WAL, never appended to).
    wal: Option<(PathBuf, TailPos)>,
    /// A tail failed half-applied: only a reload brings the snapshot back in line.
    must_reload: bool,
    /// Why the last automatic refresh failed, if it did (the stale snapshot stays in use).
    pub(super) last_error: Option<String>,
}

impl Follow {
    /// Takes the stamp of `CURRENT` before a load, so a publish during the load shows as a
    /// change at the next refresh.
    pub(super) fn before_load(dir: &Path) -> Follow {
        Follow { seen: stamp(dir).ok(), wal: None, must_reload: false, last_error: None }
    }

    /// Records the WAL position a load ended at.
    pub(super) fn loaded(&mut self, dir: &Path, scan: Option<&wal::Scan>) {
        self.wal = scan.map(|s| (dir.join(crate::storage::wal_name(s.seq)), TailPos::after(s)));
    }

    /// Moves `current` to the newest published state of the collection in `dir`.
    pub(super) fn refresh(
        &mut self,
        dir: &Path,
        options: &OpenOptions,
        current: &RwLock<Arc<Snapshot>>,
    ) -> Result<Refreshed, Error> {
        let cur = current.read().expect("snapshot lock poisoned").clone();
        let now = stamp(dir)?;
        if !self.must_reload && self.seen == Some(now) {
            let Some((path, pos)) = &self.wal else { return Ok(Refreshed::of(&cur, false)) };
            if crate::storage::disk::metadata(path).is_ok_and(|m| m.len() == pos.offset) {
                return Ok(Refreshed::of(&cur, false));
            }
            match wal::tail(path, *pos, &cur.schema)? {
                Tailed::Records { records, pos } if records.is_empty() => {
                    self.wal = Some((path.clone(), pos));
                    return Ok(Refreshed::of(&cur, false));
                }
                Tailed::Records { records, pos } => {
                    let mut next = Snapshot::clone(&cur);
                    for f in &records {
                        if let Err(e) = writer::apply(&mut next, &f.record, path, f.offset) {
                            self.must_reload = true;
                            return Err(e.into());
                        }
                    }
                    next.wal_records += records.len() as u64;
                    self.wal = Some((path.clone(), pos));
                    let out = Refreshed::of(&next, true);
                    *current.write().expect("snapshot lock poisoned") = Arc::new(next);
                    return Ok(out);
                }
                // The generation moved on between the two checks: reload.
                Tailed::Reset(_) => {}
            }
        }
        let (_, next, wal) = load_retrying(dir, options, &cur)?;
        self.seen = Some(now);
        self.loaded(dir, wal.as_ref().map(|(scan, _, _)| scan));
        self.must_reload = false;
        let out = Refreshed::of(&next, true);
        *current.write().expect("snapshot lock poisoned") = Arc::new(next);
        Ok(out)
    }
}

/// [`open::load`] for a reader, retried while it races a writer's removal of the files it
/// superseded (a missing file).
pub(super) fn load_retrying(
    dir: &Path,
    options: &OpenOptions,
    prev: &Snapshot,
) -> Result<(crate::storage::manifest::Manifest, Snapshot, Option<open::LoadedWal>), Error> {
    let mut attempt = 0;
    loop {
        match open::load(dir, options, false, Some(prev)) {
            Err(Error::Storage(StorageError::Io { source, .. }))
                if source.kind() == std::io::ErrorKind::NotFound && attempt < 10 =>
            {
                attempt += 1;
                std::thread::sleep(std::time::Duration::from_millis(5 * attempt));
            }
            other => return other,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::schema::{Field, Metric, Schema, VectorType};
    use crate::{Collection, Doc, OpenOptions};

    #[test]
    fn a_new_generation_shares_what_the_reader_has_open() {
        let dir = tempfile::tempdir().unwrap();
        let schema = Schema::builder("r").field(Field::vector("v", VectorType::Fp32, 2, Metric::L2)).build().unwrap();
        let coll = Collection::create(dir.path(), schema, Default::default()).unwrap();
        let docs = |from: usize| (from..from + 10).map(|i| Doc::new(format!("k{i}")).set("v", vec![i as f32, 0.0]));
        coll.insert(docs(0).collect()).unwrap();
        coll.flush().unwrap();
        coll.insert(docs(10).collect()).unwrap();
        coll.delete(&["k11"]).unwrap();
        coll.flush().unwrap();
        let reader = Collection::open(dir.path(), &OpenOptions::read_only()).unwrap();
        let before = reader.snapshot();
        coll.insert(docs(20).collect()).unwrap();
        coll.delete(&["k1"]).unwrap();
        coll.flush().unwrap();
        let after = reader.snapshot();
        // A flush publishes twice: its freeze, then its segment.
        assert_eq!((after.generation, after.segments.len(), after.count()), (before.generation + 2, 3, 28));
        // Segment 0 gained a delete: its data is shared, its delete set read anew.
        assert!(Arc::ptr_eq(&before.segments[0].segment, &after.segments[0].segment));
        assert!(!Arc::ptr_eq(&before.segments[0].deleted, &after.segments[0].deleted));
        // Segment 1 is unchanged: shared whole.
        assert!(Arc::ptr_eq(&before.segments[1].segment, &after.segments[1].segment));
        assert!(Arc::ptr_eq(&before.segments[1].deleted, &after.segments[1].deleted));
    }
}
