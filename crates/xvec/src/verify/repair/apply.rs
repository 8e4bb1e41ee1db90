//! Carrying out a repair plan: new files beside the old, one manifest publish, and every
//! file replaced moved into `lost+found/repair-<generation>/`.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use roaring::RoaringBitmap;

use super::plan::Step;
use super::{LOST_FOUND, Outcome, Repair, RepairOptions, verify_options};
use crate::error::StorageError;
use crate::index::field_indexes::FieldIndexSpec;
use crate::index::graph_index::GraphIndex;
use crate::index::segment_index::{self, IndexTarget, SegmentIndex};
use crate::kernels;
use crate::schema::Schema;
use crate::storage::column::SegmentView;
use crate::storage::manifest::{DeletesEntry, IndexEntry, Manifest, SegmentEntry};
use crate::storage::segment::{self, Part, Segment};
use crate::storage::wal::{self, SyncPolicy, WalWriter};
use crate::storage::{
    FileKind, IndexKind, deletes, deletes_name, disk, index_name, segment_name, sync_dir, wal_name, write_file_atomic,
};
use crate::verify::exam::{self, Base, DelState, Exam};
use crate::verify::recover;
use crate::verify::topology;

/// Carries out the plan of `r`, publishes, and verifies again.
pub(super) fn apply(r: Repair) -> Result<Outcome, StorageError> {
    let Repair { dir, _lock, opts, exam, steps, plan, publish } = r;
    let Some(base) = &exam.base else {
        return Err(StorageError::corrupted(&dir, 0, plan.blocked.clone().unwrap_or_default()));
    };
    let generation = plan.generation.unwrap_or(base.manifest.generation);
    let lost_found = crate::collection::recovery::keep_folder(&dir, &format!("repair-{generation:06}"))?;
    let mut a = Applier::new(&dir, &opts, &exam, base, generation, &lost_found);
    // Orphans go first: a crashed publish may have left files under the very names
    // (next segment id, next generation) this repair is about to write.
    for step in &steps {
        if let Step::Move { name } = step {
            a.mover.keep(name)?;
        }
    }
    for step in &steps {
        a.step(step)?;
    }
    a.write_deletes()?;
    a.refresh_sizes();
    a.remove_dropped();
    let published = if publish { Some(a.publish()?) } else { None };
    let moved = a.finish()?;
    drop(exam);
    let after = exam::examine(&dir, &verify_options(opts.mmap), true, None)?.report;
    Ok(Outcome {
        generation: published,
        done: plan.actions,
        losses: plan.losses,
        unproven: plan.unproven,
        moved,
        after,
    })
}

/// The manifest being built from the examined one, and the files it supersedes.
struct Applier<'a> {
    dir: &'a Path,
    opts: &'a RepairOptions,
    exam: &'a Exam,
    base: &'a Base,
    schema: &'a Arc<Schema>,
    /// The generation the repair publishes (names its delete files and lost+found folder).
    generation: u64,
    lost_found: &'a Path,
    mover: Mover<'a>,
    /// The manifest to publish.
    m: Manifest,
    /// Positions of segments to remove from `m`, once every step has run.
    dropped: Vec<usize>,
    /// Files `m` no longer names: moved to lost+found after the publish.
    superseded: Vec<String>,
    new_deletes: Vec<(usize, RoaringBitmap)>,
    /// The sequence of a WAL written anew.
    next_wal: u64,
    /// Index builds are never cancelled.
    never: AtomicBool,
}

impl<'a> Applier<'a> {
    fn new(
        dir: &'a Path,
        opts: &'a RepairOptions,
        exam: &'a Exam,
        base: &'a Base,
        generation: u64,
        lost_found: &'a Path,
    ) -> Applier<'a> {
        let mut m = base.manifest.clone();
        m.generation = generation;
        let next_wal = exam
            .listing
            .iter()
            .filter(|e| e.kind == Some(FileKind::Wal))
            .filter_map(|e| recover::name_numbers(&e.name).first().copied())
            .chain([m.wal_seq])
            .max()
            .unwrap_or(0)
            + 1;
        Applier {
            dir,
            opts,
            exam,
            base,
            schema: &base.schema,
            generation,
            lost_found,
            mover: Mover { dir, to: lost_found, moved: Vec::new() },
            m,
            dropped: Vec::new(),
            superseded: Vec::new(),
            new_deletes: Vec::new(),
            next_wal,
            never: AtomicBool::new(false),
        }
    }

    /// Runs one step of the plan (moves of orphans ran before any).
    fn step(&mut self, step: &Step) -> Result<(), StorageError> {
        match step {
            Step::CreateWal | Step::TruncateWal { .. } | Step::RewriteWal { .. } => self.wal_step(step),
            Step::DropSegment { pos } => {
                self.drop_segment(*pos);
                Ok(())
            }
            Step::Salvage { pos, keep } => self.salvage_segment(*pos, keep),
            Step::Deletes { pos, set } => {
                self.new_deletes.push((*pos, set.clone()));
                Ok(())
            }
            Step::DropIndex { pos, field, kind } => {
                let e = &mut self.m.segments[*pos];
                if let Some(i) = e.indexes.iter().position(|i| i.field == *field && i.kind == *kind) {
                    self.superseded.push(e.indexes.remove(i).file);
                }
                Ok(())
            }
            Step::BuildIndex { pos, field, kind } if *kind != IndexKind::Vector => {
                self.rebuild_field_index(*pos, *field, *kind)
            }
            Step::BuildIndex { pos, field, .. } | Step::Recode { pos, field } | Step::Reconnect { pos, field } => {
                self.rewrite_index(step, *pos, *field)
            }
            Step::Move { .. } => Ok(()),
        }
    }

    /// Creates the missing WAL, truncates its torn tail (kept in lost+found), or rewrites
    /// its good records into a new one.
    fn wal_step(&mut self, step: &Step) -> Result<(), StorageError> {
        let (dir, m) = (self.dir, &mut self.m);
        match step {
            Step::CreateWal => {
                // The salt the manifest names, unless it was rebuilt (then it is published).
                if m.wal_salt == 0 {
                    m.wal_salt = wal::new_salt();
                }
                drop(WalWriter::create(dir, m.wal_seq, m.wal_salt, SyncPolicy::EveryBatch)?);
            }
            Step::TruncateWal { at } => {
                let generation = self.generation;
                let name = wal_name(m.wal_seq);
                let path = dir.join(&name);
                let bytes = disk::read(&path)?;
                let tail = self.lost_found.join(format!("{name}.tail"));
                let mut kept = disk::DiskFile::create(&tail)?;
                kept.write_all(bytes.get(*at as usize..).unwrap_or_default())?;
                kept.sync_all()?;
                self.mover.moved.push(format!("{LOST_FOUND}/repair-{generation:06}/{name}.tail"));
                let f = disk::DiskFile::open_write(&path)?;
                f.set_len(*at)?;
                f.sync_all()?;
            }
            Step::RewriteWal { records, fold_sealed } => {
                self.superseded.push(wal_name(m.wal_seq));
                if *fold_sealed && let Some(sealed) = m.sealed_wal.take() {
                    self.superseded.push(wal_name(sealed.seq));
                }
                let salt = wal::new_salt();
                let mut w = WalWriter::create(dir, self.next_wal, salt, SyncPolicy::EveryBatch)?;
                if !records.is_empty() {
                    w.append(self.schema, records)?;
                }
                w.sync()?;
                m.wal_seq = self.next_wal;
                m.wal_salt = salt;
            }
            _ => {}
        }
        Ok(())
    }

    /// Marks segment `pos` for removal from the manifest; its files are superseded.
    fn drop_segment(&mut self, pos: usize) {
        let e = &self.m.segments[pos];
        self.superseded.push(e.file.clone());
        self.superseded.extend(e.deletes.iter().map(|d| d.file.clone()));
        self.superseded.extend(e.indexes.iter().map(|i| i.file.clone()));
        self.dropped.push(pos);
    }

    /// Writes rows `keep` of damaged segment `pos` into a new segment with new indexes,
    /// in its place in the manifest.
    fn salvage_segment(&mut self, pos: usize, keep: &[u32]) -> Result<(), StorageError> {
        let (dir, opts, schema, m) = (self.dir, self.opts, self.schema, &mut self.m);
        let s = &self.exam.segments[pos];
        let Some(salvage) = s.salvage() else { return Ok(()) };
        let id = m.next_segment_id;
        m.next_segment_id += 1;
        let path = dir.join(segment_name(id));
        // The new file stores what the old one did; it reads under the schema like any.
        let size = segment::write(&path, id, &s.fields.schema, &[Part { source: &salvage, rows: keep }])?;
        let seg = Segment::open(&path, schema.clone(), opts.mmap, true)?;
        let old = m.segments[pos].clone();
        self.superseded.push(old.file.clone());
        self.superseded.extend(old.deletes.iter().map(|d| d.file.clone()));
        self.superseded.extend(old.indexes.iter().map(|i| i.file.clone()));
        let mut indexes = Vec::new();
        for (f, _, spec) in schema.vector_fields().filter(|(_, _, v)| v.index.builds_index()) {
            let fid = schema.field_id(f);
            let file = index_name(id, fid, IndexKind::Vector);
            let ipath = dir.join(&file);
            let target = IndexTarget { path: &ipath, segment_id: id, field: fid, spec, rows: seg.rows() };
            let size = segment_index::build(target, seg.vector(f), opts.concurrency.max(1), &|_| {}, &self.never)?
                .ok_or_else(|| StorageError::corrupted(&ipath, 0, "index build stopped"))?;
            indexes.push(IndexEntry { field: fid, kind: IndexKind::Vector, file, size });
        }
        for (f, field) in schema.fields().iter().enumerate() {
            let fid = schema.field_id(f);
            for (kind, spec) in FieldIndexSpec::declared(field) {
                let file = index_name(id, fid, kind);
                let size = spec.build(&dir.join(&file), id, fid, &seg, f, seg.rows())?;
                indexes.push(IndexEntry { field: fid, kind, file, size });
            }
        }
        m.segments[pos] =
            SegmentEntry { id, file: segment_name(id), rows: seg.rows() as u64, size, deletes: None, indexes };
        Ok(())
    }

    /// Rebuilds field index `kind` (inverted, range, full-text, sparse) of the field with
    /// id `field` of segment `pos` from its column.
    fn rebuild_field_index(&mut self, pos: usize, field: u16, kind: IndexKind) -> Result<(), StorageError> {
        let s = &self.exam.segments[pos];
        let Some(seg) = &s.segment else { return Ok(()) };
        let Some(at) = self.schema.position_of_id(field) else { return Ok(()) };
        let Some(spec) = FieldIndexSpec::of(self.schema.field(at), kind) else { return Ok(()) };
        let name = index_name(s.entry.id, field, kind);
        self.mover.keep(&name)?;
        let size = spec.build(&self.dir.join(&name), s.entry.id, field, &**seg, at, seg.rows())?;
        let e = &mut self.m.segments[pos];
        match e.indexes.iter_mut().find(|i| i.field == field && i.kind == kind) {
            Some(i) => i.size = size,
            None => e.indexes.push(IndexEntry { field, kind, file: name, size }),
        }
        Ok(())
    }

    /// Writes the index of `field` of segment `pos` anew: rebuilt, or around its own graph
    /// (re-encoded codes, or the graph reconnected) when that is sound.
    fn rewrite_index(&mut self, step: &Step, pos: usize, field: u16) -> Result<(), StorageError> {
        let (dir, opts, schema) = (self.dir, self.opts, self.schema);
        let s = &self.exam.segments[pos];
        let Some(seg) = &s.segment else { return Ok(()) };
        let Some(at) = schema.position_of_id(field) else { return Ok(()) };
        let Some(spec) = schema.field(at).as_vector() else { return Ok(()) };
        let old = s.indexes.iter().find(|i| i.entry.field == field);
        // Some(graph): write the index again around what it had (its graph, if it has one);
        // None: rebuild it.
        let kept: Option<Option<GraphIndex>> = match step {
            // IVF codes follow the lists, a quantized graph's blocks are codes: a rebuild
            // makes both (k-means takes seconds).
            Step::Recode { .. } if !segment_index::recodes_in_place(&spec.index) => None,
            Step::Recode { .. } => old.and_then(|i| i.index.as_deref()).map(owned_graph),
            Step::Reconnect { .. } => old.and_then(|i| i.index.as_deref()).and_then(|index| {
                let mut ignored = match &s.deletes {
                    DelState::Ok(d) => d.clone(),
                    _ => RoaringBitmap::new(),
                };
                let col = seg.vector(at);
                ignored.extend((0..seg.rows() as u32).filter(|&r| !col.validity.is_valid(r as usize)));
                reconnect(owned_graph(index)?, seg, at, spec.metric, &ignored).map(Some)
            }),
            _ => None,
        };
        let name = index_name(s.entry.id, field, IndexKind::Vector);
        let path = dir.join(&name);
        self.mover.keep(&name)?;
        let col = seg.vector(at);
        let target = IndexTarget { path: &path, segment_id: s.entry.id, field, spec, rows: seg.rows() };
        let size = match kept {
            Some(graph) => segment_index::write_with_graph_index(target, col, graph.as_ref().map(GraphIndex::view))?,
            None => segment_index::build(target, col, opts.concurrency.max(1), &|_| {}, &self.never)?
                .ok_or_else(|| StorageError::corrupted(&path, 0, "index build stopped"))?,
        };
        let e = &mut self.m.segments[pos];
        match e.indexes.iter_mut().find(|i| i.field == field) {
            Some(i) => i.size = size,
            None => e.indexes.push(IndexEntry { field, kind: IndexKind::Vector, file: name, size }),
        }
        Ok(())
    }

    /// Writes the planned delete files (none for an empty set), superseding the old ones.
    fn write_deletes(&mut self) -> Result<(), StorageError> {
        for (pos, set) in std::mem::take(&mut self.new_deletes) {
            let e = &mut self.m.segments[pos];
            if let Some(old) = e.deletes.take() {
                self.superseded.push(old.file);
            }
            if !set.is_empty() {
                let name = deletes_name(e.id, self.generation);
                let bytes = deletes::encode(e.id, &set);
                write_file_atomic(self.dir, &name, &bytes)?;
                e.deletes = Some(DeletesEntry { file: name, size: bytes.len() as u64, count: set.len() });
            }
        }
        Ok(())
    }

    /// Records of healthy files are taken from the files themselves.
    fn refresh_sizes(&mut self) {
        for (e, s) in self.m.segments.iter_mut().zip(&self.exam.segments) {
            if let Some(seg) = &s.segment
                && e.id == seg.id()
            {
                e.size = seg.file_len();
            }
            for i in &mut e.indexes {
                if let Ok(meta) = std::fs::metadata(self.dir.join(&i.file)) {
                    i.size = meta.len();
                }
            }
        }
    }

    /// Removes the dropped segments from the manifest (last, as the steps address
    /// segments by their position in the examined manifest).
    fn remove_dropped(&mut self) {
        self.dropped.sort_unstable();
        for pos in std::mem::take(&mut self.dropped).into_iter().rev() {
            self.m.segments.remove(pos);
        }
    }

    /// Publishes the new manifest (a damaged `CURRENT` kept in lost+found first); returns
    /// its generation.
    fn publish(&mut self) -> Result<u64, StorageError> {
        let (dir, generation) = (self.dir, self.generation);
        if !self.exam.current_ok && dir.join("CURRENT").exists() {
            let to = self.lost_found.join("CURRENT");
            let mut kept = disk::DiskFile::create(&to)?;
            kept.write_all(&disk::read(&dir.join("CURRENT"))?)?;
            kept.sync_all()?;
            self.mover.moved.push(format!("{LOST_FOUND}/repair-{generation:06}/CURRENT"));
        }
        if self.m.wal_salt == 0 {
            // A manifest rebuilt from the files: the WAL's own header has its salt.
            let p = dir.join(wal_name(self.m.wal_seq));
            let header = crate::storage::disk::read(&p).ok().and_then(|b| wal::decode_wal_header(&p, &b).ok());
            self.m.wal_salt = header.map_or_else(wal::new_salt, |(_, salt)| salt);
        }
        self.m.stamp(crate::storage::manifest::Operation::Repair);
        self.m.publish(dir).map_err(StorageError::from)?;
        self.superseded.extend(self.base.name.clone());
        Ok(generation)
    }

    /// Moves the superseded files into lost+found and makes the moves durable; returns
    /// what was moved (the lost+found folder is removed when that is nothing).
    fn finish(mut self) -> Result<Vec<String>, StorageError> {
        for name in std::mem::take(&mut self.superseded) {
            self.mover.keep(&name)?;
        }
        sync_dir(self.dir)?;
        sync_dir(self.lost_found)?;
        let moved = self.mover.moved;
        if moved.is_empty() {
            let _ = disk::remove_dir(self.lost_found);
        }
        Ok(moved)
    }
}

/// Moves files into lost+found, remembering what it moved.
struct Mover<'a> {
    dir: &'a Path,
    to: &'a Path,
    moved: Vec<String>,
}

impl Mover<'_> {
    /// Moves `name` out of the way, if it exists.
    fn keep(&mut self, name: &str) -> Result<(), StorageError> {
        let from = self.dir.join(name);
        if std::fs::symlink_metadata(&from).is_err() {
            return Ok(());
        }
        let to = self.to.join(name);
        disk::rename(&from, &to)?;
        let sub = self.to.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        self.moved.push(format!("{LOST_FOUND}/{sub}/{name}"));
        Ok(())
    }
}

/// An owned copy of the index's graph, to change and write again.
fn owned_graph(index: &SegmentIndex) -> Option<GraphIndex> {
    index.graph_index().map(|g| g.to_graph())
}

/// Links every unreachable node of the base layer (but the `ignored` ones: deleted, or
/// without a vector) from its nearest reachable node that has a free slot, so a search
/// from the entry point can reach it. `None` when some node finds no such neighbour (the
/// caller rebuilds the graph).
fn reconnect(
    mut graph: GraphIndex,
    seg: &Segment,
    field: usize,
    metric: crate::schema::Metric,
    ignored: &RoaringBitmap,
) -> Option<GraphIndex> {
    graph.base_layer().link_unreachable(kernels::best(), metric, &seg.vector(field), |u| ignored.contains(u))?;
    // The result must pass the same check verify applies.
    let fine = topology::check_graph(graph.view(), ignored).layers.first().is_some_and(|l| l.unreachable_live == 0);
    fine.then_some(graph)
}
