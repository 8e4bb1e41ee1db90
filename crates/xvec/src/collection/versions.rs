//! Versions and time travel on a handle: list the versions kept, read one
//! ([`Collection::snapshot_at`]), name one ([`Collection::tag`]), publish one again as the
//! newest ([`Collection::checkout`]), and remove what nothing keeps
//! ([`Collection::vacuum`]). What keeps a version, and how a reader's lease holds one, is
//! in `storage/versions`.

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};
use std::time::{Duration, SystemTime};

use super::snapshot::{Snapshot, install};
use super::writer::{Superseded, Writer};
use super::{Collection, OpenOptions, flush, open};
use crate::error::{Error, ReadOnly, StorageError};
use crate::storage::manifest::{self, Manifest, Operation};
use crate::storage::versions::{self, VacuumReport, lease::Lease, tags};
use crate::storage::{disk, manifest_name};

/// One version of a collection: what one manifest names (rows written since it was
/// published belong to no version until a flush publishes the next).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Version {
    /// The version number (the manifest's generation).
    pub version: u64,
    /// When it was published; `None` for a manifest written before versions recorded it.
    pub time: Option<SystemTime>,
    /// What published it.
    pub operation: Operation,
    /// Live rows in it.
    pub rows: u64,
    /// Bytes of the files it names (segments, delete files, indexes).
    pub bytes: u64,
    /// Tags naming it.
    pub tags: Vec<String>,
    /// Whether it is the live version (`CURRENT`'s).
    pub current: bool,
}

impl Version {
    fn of(m: &Manifest, tags: &BTreeMap<String, u64>, current: bool) -> Version {
        Version {
            version: m.generation,
            time: (m.time_ms > 0).then(|| SystemTime::UNIX_EPOCH + Duration::from_millis(m.time_ms)),
            operation: m.operation,
            rows: m.live_rows(),
            bytes: m.data_files().map(|(_, size)| size).sum(),
            tags: tags.iter().filter(|(_, v)| **v == m.generation).map(|(n, _)| n.clone()).collect(),
            current,
        }
    }
}

impl Collection {
    /// The versions on disk, oldest first, the live one last: older ones are kept by
    /// [`CollectionOptions::keep_versions`](crate::CollectionOptions) and `keep_for_secs`,
    /// by a tag, or by a reader's [`Collection::snapshot_at`].
    ///
    /// ```
    /// use xvec::{Collection, CollectionOptions, Doc, Field, Metric, Schema, VectorType};
    /// let dir = tempfile::tempdir()?;
    /// let schema = Schema::builder("v").field(Field::vector("emb", VectorType::Fp32, 2, Metric::L2)).build()?;
    /// let coll = Collection::create(dir.path(), schema, CollectionOptions::default().keep_versions(10))?;
    /// coll.insert(vec![Doc::new("a").set("emb", vec![1.0f32, 0.0])])?;
    /// coll.flush()?;
    /// let first = coll.versions()?.last().unwrap().version;
    /// coll.delete(&["a"])?;
    /// coll.flush()?;
    /// assert_eq!(coll.snapshot_at(first)?.count(), 1);
    /// assert_eq!(coll.count(), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn versions(&self) -> Result<Vec<Version>, Error> {
        let current = manifest::load(self.dir())?;
        let tags = tags::read(self.dir())?;
        let older = versions::older(self.dir(), current.generation)?;
        let mut out: Vec<Version> = older.values().map(|m| Version::of(m, &tags, false)).collect();
        out.push(Version::of(&current, &tags, true));
        Ok(out)
    }

    /// The version a number or a tag names (the tool's `--as-of VERSION|TAG`).
    pub fn resolve_version(&self, spec: &str) -> Result<u64, Error> {
        if let Ok(v) = spec.parse::<u64>() {
            return Ok(v);
        }
        let tags = tags::read(self.dir())?;
        tags.get(spec).copied().ok_or_else(|| self.tag_error(spec, "no such tag".into(), &tags))
    }

    /// The tags, by name, with the version each names.
    pub fn tags(&self) -> Result<BTreeMap<String, u64>, Error> {
        Ok(tags::read(self.dir())?)
    }

    /// A snapshot of `version` as it was published: its segments and deletes, no WAL
    /// record on top. While the snapshot (or a clone) lives, a lease in the collection
    /// keeps the version's files from every vacuum and publish, in any process; see
    /// `docs/durability.md`, "Versions". A version not kept fails with
    /// [`StorageError::NoSuchVersion`].
    pub fn snapshot_at(&self, version: u64) -> Result<Arc<Snapshot>, Error> {
        // The lease first, then the manifest (`storage/versions/lease.rs`).
        let lease = Lease::take(self.dir(), version)?;
        let m = self.read_version(version)?;
        let prev = self.current.read().expect("snapshot lock poisoned").clone();
        let mut snap = open::load_segments(self.dir(), &usable(self.dir(), m)?, &self.options, Some(&prev))?;
        snap.pin = Some(Arc::new(lease));
        Ok(Arc::new(snap))
    }

    /// Names `version` (the live one when `None`) `name`, moving the tag if it named
    /// another; the version is kept until the tag is deleted. Returns the version.
    pub fn tag(&self, name: &str, version: Option<u64>) -> Result<u64, Error> {
        let w = self.writer()?;
        let mut tags = tags::read(self.dir())?;
        if let Some(why) = tags::check_name(name) {
            return Err(self.tag_error(name, why, &tags));
        }
        let version = match version {
            Some(v) => self.read_version(v)?.generation,
            None => w.manifest.generation,
        };
        tags.insert(name.to_string(), version);
        tags::write(self.dir(), &tags)?;
        Ok(version)
    }

    /// Deletes the tag `name`; returns the version it named, which is kept no more on its
    /// account (a vacuum or the next publish removes it if nothing else keeps it).
    pub fn delete_tag(&self, name: &str) -> Result<u64, Error> {
        let _w = self.writer()?;
        let mut tags = tags::read(self.dir())?;
        match tags.remove(name) {
            Some(v) => {
                tags::write(self.dir(), &tags)?;
                Ok(v)
            }
            None => Err(self.tag_error(name, "no such tag".into(), &tags)),
        }
    }

    /// Publishes `version` again as the newest version (LanceDB's `restore`): the live
    /// state is flushed first (so it is a version of its own, kept as retention says),
    /// then one manifest swap makes the old version's segments, deletes, schema and
    /// indexes the live ones. A crash leaves either the state before or the checkout.
    /// Returns the new version.
    pub fn checkout(&self, version: u64) -> Result<u64, Error> {
        let writer = self.writer.as_ref().ok_or(ReadOnly)?;
        let lease = Lease::take(self.dir(), version)?;
        let target = usable(self.dir(), self.read_version(version)?)?;
        // Jobs and flushes wait: neither may publish the replaced segments after it.
        let _jobs = self.maintenance.lock().expect("maintenance lock poisoned");
        let _flushes = self.flushing.lock().expect("flush lock poisoned");
        for _ in 0..super::alter::FLUSH_ATTEMPTS {
            flush::flush_locked(writer, &self.current, self.options.mmap)?;
            let mut w = writer.lock().expect("writer lock poisoned");
            if let Some(superseded) = w.checkout(&self.current, &target, &self.options)? {
                let made = w.manifest.generation;
                drop(w);
                superseded.release();
                drop(lease);
                return Ok(made);
            }
        }
        Err(Error::Busy(format!(
            "writes kept arriving while version {version} was checked out ({} flushes); retry when writes pause",
            super::alter::FLUSH_ATTEMPTS
        )))
    }

    /// Removes the versions nothing keeps (retention, tags, readers' leases) and the
    /// files only they name. Without retention a publish removes what it superseded at
    /// once, so this finds work only where something was kept and has let go since.
    pub fn vacuum(&self) -> Result<VacuumReport, Error> {
        let _w = self.writer()?;
        Ok(versions::sweep(self.dir(), &[])?)
    }

    /// The manifest of `version`, or [`StorageError::NoSuchVersion`] listing those kept.
    fn read_version(&self, version: u64) -> Result<Manifest, Error> {
        let path = self.dir().join(manifest_name(version));
        match disk::read(&path) {
            Ok(bytes) => Ok(Manifest::decode(&path, &bytes)?),
            Err(StorageError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                let kept = self.versions()?.iter().map(|v| v.version).collect();
                Err(StorageError::NoSuchVersion { path: self.dir().to_path_buf(), version, kept }.into())
            }
            Err(e) => Err(e.into()),
        }
    }

    fn tag_error(&self, name: &str, what: String, tags: &BTreeMap<String, u64>) -> Error {
        let tags: Vec<&str> = tags.keys().map(String::as_str).collect();
        let known =
            if tags.is_empty() { "it has no tags".to_string() } else { format!("its tags: {}", tags.join(", ")) };
        StorageError::Tag { path: self.dir().to_path_buf(), what: format!("tag {name:?}: {what}; {known}") }.into()
    }
}

/// `m` with the index entries whose file no longer matches left out: a set-index rebuilds
/// an index under its old name, so an older version's entry may name a newer file. Its
/// segments are then searched exactly, as during a rebuild.
fn usable(dir: &std::path::Path, mut m: Manifest) -> Result<Manifest, StorageError> {
    for s in &mut m.segments {
        s.indexes.retain(|i| disk::metadata(&dir.join(&i.file)).is_ok_and(|meta| meta.len() == i.size));
    }
    Ok(m)
}

impl Writer {
    /// Publishes `target` as the newest version; `None` when writes arrived since the
    /// flush (flush again first).
    fn checkout(
        &mut self,
        current: &RwLock<Arc<Snapshot>>,
        target: &Manifest,
        options: &OpenOptions,
    ) -> Result<Option<Superseded>, Error> {
        self.check_running()?;
        let cur = current.read().expect("snapshot lock poisoned").clone();
        if cur.frozen.is_some() || self.wal.records() > 0 {
            return Ok(None);
        }
        let mut m = target.clone();
        m.generation = self.manifest.generation + 1;
        m.options = self.manifest.options.clone();
        m.next_segment_id = self.manifest.next_segment_id;
        (m.wal_seq, m.wal_salt, m.sealed_wal) = (self.manifest.wal_seq, self.manifest.wal_salt, None);
        m.stamp(Operation::Checkout);
        let mut next = open::load_segments(&self.dir, &m, options, Some(&cur))?;
        next.generation = m.generation;
        self.publish(&m, &[])?;
        let schema = next.schema.clone();
        let replaced = install(current, next);
        self.set_schema(schema);
        let old = std::mem::replace(&mut self.manifest, m);
        let live: std::collections::HashSet<&str> = self.manifest.data_files().map(|(f, _)| f).collect();
        let mut obsolete = vec![self.dir.join(manifest_name(old.generation))];
        obsolete.extend(old.data_files().filter(|(f, _)| !live.contains(f)).map(|(f, _)| self.dir.join(f)));
        Ok(Some(self.superseded(obsolete, replaced)))
    }
}
