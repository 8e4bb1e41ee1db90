//! Changes to a collection's schema, each published with one manifest swap like every
//! other change: a scalar index added to a field is built for every segment before the
//! swap, so a snapshot sees the field indexed in every segment or in none; a dropped one
//! leaves the manifest in the same swap and its files go once no snapshot needs them.

use std::sync::{Arc, RwLock};

use super::Collection;
use super::scalar_indexes;
use super::snapshot::{SegmentRef, Snapshot, install};
use super::writer::{Superseded, Writer, discard};
use crate::error::Error;
use crate::schema::ScalarIndexKind;
use crate::storage::manifest_name;

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
        let superseded = self.writer()?.alter_scalar_index(&self.current, field, kind, add, self.options.mmap)?;
        superseded.release();
        Ok(())
    }
}

impl Writer {
    fn alter_scalar_index(
        &mut self,
        current: &RwLock<Arc<Snapshot>>,
        field: &str,
        kind: ScalarIndexKind,
        add: bool,
        mmap: bool,
    ) -> Result<Superseded, Error> {
        self.check_running()?;
        let cur = current.read().expect("snapshot lock poisoned").clone();
        let schema = Arc::new(cur.schema.with_scalar_index(field, kind, add)?);
        let mut segments = cur.segments.clone();
        let (mut made, mut obsolete) = (Vec::new(), Vec::new());
        let staged = segments
            .iter_mut()
            .try_for_each(|s| scalar_indexes::complete(&self.dir, &schema, s, mmap, &mut made, &mut obsolete));
        staged.inspect_err(|_| discard(&made))?;
        let mut m = self.manifest.clone();
        m.generation += 1;
        m.schema = schema.to_stored();
        m.segments = segments.iter().map(SegmentRef::entry).collect();
        self.publish(&m, &made)?;
        let replaced = install(current, Snapshot { schema, ..cur.with_segments(m.generation, segments) });
        let old = std::mem::replace(&mut self.manifest, m);
        obsolete.push(self.dir.join(manifest_name(old.generation)));
        Ok(Superseded::new(obsolete, replaced))
    }
}
