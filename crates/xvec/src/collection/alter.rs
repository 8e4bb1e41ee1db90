//! Changes to a collection's schema, each published with one manifest swap like every
//! other change: a scalar index added to a field is built for every segment before the
//! swap, so a snapshot sees the field indexed in every segment or in none; a dropped one
//! leaves the manifest in the same swap and its files go once no snapshot needs them.
//! Field changes (added, dropped, renamed, widened) rewrite no segment: each is reopened
//! under the new schema, which maps its stored columns by field id.

use std::sync::{Arc, RwLock};

use super::mem::MemSegment;
use super::snapshot::{SegmentRef, Snapshot, install};
use super::writer::{Superseded, Writer, discard};
use super::{Collection, field_indexes, flush};
use crate::error::Error;
use crate::schema::{FieldChange, ScalarIndexKind, Schema};
use crate::storage::manifest::{IndexEntry, Operation};
use crate::storage::segment::Segment;
use crate::storage::segment::layout::Layout;
use crate::storage::{IndexKind, manifest_name};

impl Collection {
    /// Adds a scalar index of `kind` to the scalar field `field` and builds it for every
    /// segment (rows not yet flushed are indexed by their flush). Writes wait meanwhile.
    ///
    /// ```
    /// use xvec::{Collection, Doc, Field, ScalarIndexKind, ScalarType, Schema};
    /// let dir = tempfile::tempdir().unwrap();
    /// let schema = Schema::builder("w").field(Field::scalar("pos", ScalarType::String)).build()?;
    /// let coll = Collection::create(dir.path(), schema, Default::default())?;
    /// coll.insert(vec![Doc::new("a").set("pos", "n")])?;
    /// coll.flush()?;
    /// coll.add_scalar_index("pos", ScalarIndexKind::Inverted)?;
    /// assert!(coll.schema().field(0).has_scalar_index(ScalarIndexKind::Inverted));
    /// assert!(coll.add_scalar_index("pos", ScalarIndexKind::Range).is_err(), "strings take no range index");
    /// # Ok::<(), xvec::Error>(())
    /// ```
    pub fn add_scalar_index(&self, field: &str, kind: ScalarIndexKind) -> Result<(), Error> {
        self.alter_scalar_index(field, kind, true)
    }

    /// Drops the scalar index of `kind` from field `field`; filters on it scan its column.
    pub fn drop_scalar_index(&self, field: &str, kind: ScalarIndexKind) -> Result<(), Error> {
        self.alter_scalar_index(field, kind, false)
    }

    fn alter_scalar_index(&self, field: &str, kind: ScalarIndexKind, add: bool) -> Result<(), Error> {
        let change = |s: &Schema| s.with_scalar_index(field, kind, add);
        let superseded = self.writer()?.publish_index_change(&self.current, change, self.options.mmap)?;
        superseded.release();
        Ok(())
    }

    /// Adds full-text index `index` to the string field `field` and builds it for every
    /// segment (rows not yet flushed are indexed by their flush). Writes wait meanwhile.
    ///
    /// ```
    /// use xvec::{Collection, Doc, Field, ScalarType, Schema, TextIndex};
    /// let dir = tempfile::tempdir().unwrap();
    /// let schema = Schema::builder("w").field(Field::scalar("gloss", ScalarType::String)).build()?;
    /// let coll = Collection::create(dir.path(), schema, Default::default())?;
    /// coll.insert(vec![Doc::new("a").set("gloss", "a domestic cat")])?;
    /// coll.flush()?;
    /// coll.add_text_index("gloss", TextIndex::new(Default::default()))?;
    /// assert_eq!(coll.snapshot().keys_where(Some("gloss MATCH 'cat'"))?, ["a"]);
    /// # Ok::<(), xvec::Error>(())
    /// ```
    pub fn add_text_index(&self, field: &str, index: crate::schema::TextIndex) -> Result<(), Error> {
        let change = |s: &Schema| s.with_text_index(field, Some(index));
        self.writer()?.publish_index_change(&self.current, change, self.options.mmap)?.release();
        Ok(())
    }

    /// Drops the full-text index of field `field`: text queries and `MATCH` on it fail.
    pub fn drop_text_index(&self, field: &str) -> Result<(), Error> {
        let change = |s: &Schema| s.with_text_index(field, None);
        self.writer()?.publish_index_change(&self.current, change, self.options.mmap)?.release();
        Ok(())
    }
}

impl Writer {
    /// Publishes the current schema with an index added or dropped by `change`, building
    /// an added index for every segment.
    fn publish_index_change(
        &mut self,
        current: &RwLock<Arc<Snapshot>>,
        change: impl FnOnce(&Schema) -> Result<Schema, crate::error::SchemaError>,
        mmap: bool,
    ) -> Result<Superseded, Error> {
        self.check_running()?;
        let cur = current.read().expect("snapshot lock poisoned").clone();
        let schema = Arc::new(change(&cur.schema)?);
        let segments = cur.segments.clone();
        self.publish_schema(current, &cur, schema, segments, Vec::new(), None, mmap)
    }

    /// Publishes `schema` with `segments` (read under it) in one manifest swap: first
    /// builds the scalar indexes it declares that they lack and leaves out those it does
    /// not (with `obsolete`, removed once no snapshot needs them). `legacy` is the schema
    /// of segments without a fields section, when this publish is the first to need it
    /// recorded. The memtable stays; a field change publishes with it empty.
    #[allow(clippy::too_many_arguments)]
    fn publish_schema(
        &mut self,
        current: &RwLock<Arc<Snapshot>>,
        cur: &Snapshot,
        schema: Arc<Schema>,
        mut segments: Vec<SegmentRef>,
        mut obsolete: Vec<std::path::PathBuf>,
        legacy: Option<crate::schema::RawSchema>,
        mmap: bool,
    ) -> Result<Superseded, Error> {
        let mut made = Vec::new();
        let staged = segments
            .iter_mut()
            .try_for_each(|s| field_indexes::complete(&self.dir, &schema, s, mmap, &mut made, &mut obsolete));
        staged.inspect_err(|_| discard(&made))?;
        let mut m = self.manifest.clone();
        m.generation += 1;
        m.schema = schema.to_stored();
        if m.legacy_schema.is_none() {
            m.legacy_schema = legacy;
        }
        m.segments = segments.iter().map(SegmentRef::entry).collect();
        for id in index_changed(&cur.schema, &schema) {
            if !m.rebuilding.contains(&id) {
                m.rebuilding.push(id);
            }
        }
        m.settle_rebuilding(&schema);
        m.stamp(Operation::Alter);
        self.publish(&m, &made)?;
        let mem = if cur.mem.len() == 0 { MemSegment::new(&schema) } else { cur.mem.clone() };
        let next = Snapshot {
            schema: schema.clone(),
            mem,
            rebuilding: m.rebuilding.clone(),
            ..cur.with_segments(m.generation, segments)
        };
        let replaced = install(current, next);
        self.set_schema(schema);
        let old = std::mem::replace(&mut self.manifest, m);
        obsolete.push(self.dir.join(manifest_name(old.generation)));
        Ok(self.superseded(obsolete, replaced))
    }
}

/// How often a field change flushes again when writes keep landing in the memtable
/// between its flush and its taking the writer.
pub(super) const FLUSH_ATTEMPTS: usize = 16;

impl Collection {
    /// Changes the schema's fields: adds, drops, renames or widens one, or changes a vector
    /// field's index ([`FieldChange`]), published with one manifest swap. No segment is
    /// rewritten: rows written before an added field read its default (or NULL), a dropped
    /// field's column stays in its segments, unread, until optimize rewrites them, and a
    /// widened one is widened as it is read. The memtable is flushed first, so every
    /// logged row follows one schema. Snapshots taken before keep the old schema.
    ///
    /// [`FieldChange::SetIndex`] drops the field's old index files in the swap; the
    /// handle's maintenance thread then builds the new index segment by segment, each
    /// published on its own (started for this where automatic flushes are off), and a
    /// segment whose new index is not built yet is searched by an exact scan. The
    /// manifest lists the field as rebuilding until the last segment is indexed, so a
    /// writable open after a crash resumes; [`Stats::index_builds`](super::Stats) shows
    /// how far it is. Closing the handle stops the rebuild until the next writable open.
    ///
    /// ```
    /// use xvec::{Collection, Doc, Field, FieldChange, FieldType, ScalarType, Schema, Value};
    /// let dir = tempfile::tempdir().unwrap();
    /// let schema = Schema::builder("w").field(Field::scalar("n", ScalarType::Int32)).build()?;
    /// let coll = Collection::create(dir.path(), schema, Default::default())?;
    /// coll.insert(vec![Doc::new("a").set("n", 1)])?;
    /// let tag = Field::scalar("tag", ScalarType::String).default_value("none".into());
    /// coll.change_field(FieldChange::Add(tag))?;
    /// coll.change_field(FieldChange::Widen { field: "n".into(), to: FieldType::Scalar(ScalarType::Int64) })?;
    /// let doc = coll.fetch(&["a"], None)?.remove(0).unwrap();
    /// assert_eq!(doc.get("tag"), Some(&Value::String("none".into())));
    /// assert_eq!(doc.get("n"), Some(&Value::Int64(1)));
    /// # Ok::<(), xvec::Error>(())
    /// ```
    pub fn change_field(&self, change: FieldChange) -> Result<(), Error> {
        let writer = self.writer.as_ref().ok_or(crate::error::ReadOnly)?;
        // Refused before anything is flushed.
        self.schema().changed(&change)?;
        // Jobs and flushes wait: neither may publish segments of the old schema after it.
        let _jobs = self.maintenance.lock().expect("maintenance lock poisoned");
        let _flushes = self.flushing.lock().expect("flush lock poisoned");
        for _ in 0..FLUSH_ATTEMPTS {
            flush::flush_locked(writer, &self.current, self.options.mmap)?;
            let mut w = writer.lock().expect("writer lock poisoned");
            if let Some(superseded) = w.change_field(&self.current, &change, self.options.mmap)? {
                drop(w);
                superseded.release();
                if !self.current.read().expect("snapshot lock poisoned").rebuilding.is_empty()
                    && let Some(bg) = self.start_background()
                {
                    bg.wake();
                }
                return Ok(());
            }
        }
        Err(Error::Busy(format!(
            "writes kept arriving while `{}` changed ({FLUSH_ATTEMPTS} flushes); retry when writes pause",
            change.field()
        )))
    }
}

impl Writer {
    /// Publishes `change`; `None` when the memtable holds rows (flush again first).
    fn change_field(
        &mut self,
        current: &RwLock<Arc<Snapshot>>,
        change: &FieldChange,
        mmap: bool,
    ) -> Result<Option<Superseded>, Error> {
        self.check_running()?;
        let cur = current.read().expect("snapshot lock poisoned").clone();
        let schema = Arc::new(cur.schema.changed(change)?);
        if cur.frozen.is_some() || cur.mem.len() > 0 {
            return Ok(None);
        }
        // Segments without a fields section were written under the recorded legacy
        // schema or, when none is recorded yet, under the schema before this change.
        let legacy = self.manifest.legacy_layout(&self.dir.join(manifest_name(self.manifest.generation)))?;
        let legacy = legacy.unwrap_or_else(|| Layout::of(&cur.schema));
        let mut obsolete = Vec::new();
        let mut segments = Vec::with_capacity(cur.segments.len());
        for s in &cur.segments {
            let path = self.dir.join(crate::storage::segment_name(s.segment.id()));
            let seg = Segment::open_with(&path, schema.clone(), Some(&legacy), mmap, false)?;
            segments.push(remapped(s, &cur.schema, &schema, Arc::new(seg), &self.dir, &mut obsolete));
        }
        let legacy = segments.iter().any(|s| s.segment.is_legacy()).then(|| cur.schema.to_stored());
        self.publish_schema(current, &cur, schema, segments, obsolete, legacy, mmap).map(Some)
    }
}

/// Ids of the vector fields of `new` whose index parameters differ from `old`'s: a
/// set-index, whose segments' indexes are rebuilt.
fn index_changed<'a>(old: &'a Schema, new: &'a Schema) -> impl Iterator<Item = u16> + 'a {
    new.vector_fields().map(|(p, _, v)| (new.field_id(p), v)).filter_map(|(id, v)| {
        let before = old.position_of_id(id).and_then(|o| old.field(o).as_vector());
        before.is_some_and(|b| b.index != v.index).then_some(id)
    })
}

/// `s` (read under `old`) as it is under `new`, over `segment` (its file opened under
/// `new`): open indexes moved to their fields' new positions, a dropped field's index
/// files and those of a vector field whose index changed left out (into `obsolete`;
/// the background builds the new ones, and the segment is searched exactly meanwhile).
/// A widened field keeps its scalar indexes: the widenings that may keep them map each
/// value to the same key.
fn remapped(
    s: &SegmentRef,
    old: &Schema,
    new: &Schema,
    segment: Arc<Segment>,
    dir: &std::path::Path,
    obsolete: &mut Vec<std::path::PathBuf>,
) -> SegmentRef {
    let from = |pos: usize| old.position_of_id(new.field_id(pos));
    let n = new.fields().len();
    let changed: Vec<u16> = index_changed(old, new).collect();
    let vector = |p: usize| from(p).and_then(|o| s.indexes[o].clone()).filter(|_| !changed.contains(&new.field_id(p)));
    let indexes: Vec<_> = (0..n).map(vector).collect();
    let scalar: Vec<_> = (0..n).map(|p| from(p).map(|o| s.scalar[o].clone()).unwrap_or_default()).collect();
    let scan_old: Vec<_> = (0..n).map(|p| from(p).and_then(|o| s.scan.get(o).cloned().flatten())).collect();
    let keep = |e: &IndexEntry| {
        new.position_of_id(e.field).is_some() && !(e.kind == IndexKind::Vector && changed.contains(&e.field))
    };
    obsolete.extend(s.index_files.iter().filter(|e| !keep(e)).map(|e| dir.join(&e.file)));
    let scan = SegmentRef::scan_codes(new, &segment, &indexes, Some(&scan_old));
    SegmentRef {
        segment,
        deleted: s.deleted.clone(),
        deletes_file: s.deletes_file.clone(),
        dirty: s.dirty,
        indexes,
        index_files: s.index_files.iter().filter(|e| keep(e)).cloned().collect(),
        scan,
        scalar,
    }
}
