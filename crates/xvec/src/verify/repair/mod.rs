//! Repair: a plan made from one verify pass under the writer lock, then carried out as
//! new files and one manifest publish. Nothing is deleted: every file repair replaces or
//! cannot use is moved into `DIR/lost+found/repair-<generation>/`.
//!
//! What repair does, in order of preference: restore exactly (a manifest or delete file
//! with one damaged byte, a header, a section table, derived sections, codes re-encoded
//! from the originals, a graph reconnected or rebuilt); salvage (the readable columns of
//! a damaged segment written into a new segment); and last, give up data, which it lists
//! (by key when the keys are readable). A row that verified before repair is present
//! after it.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use roaring::RoaringBitmap;
use serde::Serialize;

use super::exam::{self, DelState, Exam, IdxDamage, SegState};
use super::recover;
use super::topology::{self, Layer};
use super::{Report, VerifyOptions};
use crate::error::StorageError;
use crate::index::reach::BaseLayer;
use crate::index::segment_index::{self, SegmentIndex};
use crate::index::{hnsw, vamana};
use crate::kernels;
use crate::schema::Schema;
use crate::storage::column::{ColumnSource, SegmentView, VarColumn};
use crate::storage::lock::WriterLock;
use crate::storage::manifest::{DeletesEntry, IndexEntry, SegmentEntry};
use crate::storage::segment::{self, Part, Segment};
use crate::storage::wal::{self, Record, SyncPolicy, WalWriter};
use crate::storage::{
    FileKind, IndexKind, deletes, deletes_name, index_name, segment_name, sync_dir, wal_name, write_file_atomic,
};

/// Where repair moves what it replaces, inside the collection directory.
pub use crate::collection::recovery::LOST_FOUND;

/// How to repair.
#[derive(Clone, Debug)]
pub struct RepairOptions {
    /// Threads for index builds.
    pub concurrency: usize,
    /// The schema to interpret the files with when no manifest holds a readable one
    /// (a manifest cut short inside its schema, with no older manifest left).
    pub schema: Option<Schema>,
    /// Map the files (see [`VerifyOptions::mmap`]).
    pub mmap: bool,
    /// How long to wait for another writer's lock (see [`crate::OpenOptions::lock_timeout`]).
    pub lock_timeout: std::time::Duration,
}

impl Default for RepairOptions {
    fn default() -> Self {
        RepairOptions {
            concurrency: std::thread::available_parallelism().map_or(1, |n| n.get()),
            schema: None,
            mmap: true,
            lock_timeout: std::time::Duration::ZERO,
        }
    }
}

/// One step of a plan, as the user reads it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Action {
    pub file: String,
    pub what: String,
}

/// Data a repair gives up.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Loss {
    pub file: String,
    pub what: String,
    /// Rows affected (0 when unknown).
    pub rows: u64,
    /// Their keys, when readable.
    pub keys: Vec<String>,
}

/// What a repair will do.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Plan {
    pub actions: Vec<Action>,
    pub losses: Vec<Loss>,
    /// Why nothing can be done, when nothing can.
    pub blocked: Option<String>,
    /// The generation the repair publishes, if it publishes one.
    pub generation: Option<u64>,
}

impl Plan {
    pub fn is_empty(&self) -> bool {
        self.actions.is_empty()
    }
}

/// What a repair did.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Outcome {
    /// The generation published, if any.
    pub generation: Option<u64>,
    pub done: Vec<Action>,
    pub losses: Vec<Loss>,
    /// Files moved, relative to the collection directory.
    pub moved: Vec<String>,
    /// A verify pass after the repair.
    pub after: Report,
}

/// One step, with what it needs to run.
enum Step {
    CreateWal,
    TruncateWal {
        at: u64,
    },
    RewriteWal {
        records: Vec<Record>,
    },
    /// Remove segment `pos` from the manifest (its files go to lost+found).
    DropSegment {
        pos: usize,
    },
    /// Write the readable rows `keep` of segment `pos` into a new segment.
    Salvage {
        pos: usize,
        keep: Vec<u32>,
    },
    Deletes {
        pos: usize,
        set: RoaringBitmap,
    },
    DropIndex {
        pos: usize,
        field: u16,
    },
    BuildIndex {
        pos: usize,
        field: u16,
    },
    Recode {
        pos: usize,
        field: u16,
    },
    Reconnect {
        pos: usize,
        field: u16,
    },
    Move {
        name: String,
    },
}

/// A repair in progress: the writer lock, the facts and the plan.
pub struct Repair {
    dir: PathBuf,
    _lock: WriterLock,
    opts: RepairOptions,
    exam: Exam,
    steps: Vec<Step>,
    plan: Plan,
    publish: bool,
}

fn verify_options(mmap: bool) -> VerifyOptions {
    // Every code is re-encoded; no recall sample (it changes nothing repair does).
    VerifyOptions { deep: true, recall_queries: 0, mmap, ..VerifyOptions::default() }
}

/// Keys of a segment's rows (each `None` where unreadable), when the key sections read.
fn keys_of(s: &SegState, schema: &Schema) -> Option<Vec<Option<String>>> {
    if let Some(seg) = &s.segment {
        let k: VarColumn = seg.keys();
        return Some((0..seg.rows()).map(|r| Some(k.get_str(r).to_string())).collect());
    }
    let salvage = s.salvage(schema)?;
    salvage.has_keys().then(|| (0..s.entry.rows as usize).map(|r| salvage.key(r).map(String::from)).collect())
}

/// Files and bytes under `DIR/lost+found/` (zeros when it does not exist).
pub fn lost_found_size(dir: &Path) -> (u64, u64) {
    super::exam::lost_found_size(&dir.join(LOST_FOUND)).unwrap_or((0, 0))
}

/// Empties `DIR/lost+found/` under the writer lock (what recovery and repair kept there is
/// never read by the engine); returns the files and bytes removed. Waits up to
/// `lock_timeout` for another writer's lock.
pub fn purge_lost_found(dir: &Path, lock_timeout: std::time::Duration) -> Result<(u64, u64), StorageError> {
    let _lock = WriterLock::acquire_within(dir, lock_timeout)?;
    let lf = dir.join(LOST_FOUND);
    let size = lost_found_size(dir);
    match std::fs::remove_dir_all(&lf) {
        Ok(()) => sync_dir(dir).map(|()| size),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok((0, 0)),
        Err(e) => Err(StorageError::io(&lf, e)),
    }
}

impl Repair {
    /// Takes the writer lock (another writer: [`StorageError::Locked`]), examines the
    /// collection and plans.
    pub fn begin(dir: &Path, opts: RepairOptions) -> Result<Repair, StorageError> {
        let lock = WriterLock::acquire_within(dir, opts.lock_timeout)?;
        // A read error that does not repeat is no damage, and planning on it would throw
        // good files away: examine until two passes in a row find the same.
        let mut exam = exam::examine(dir, &verify_options(opts.mmap), true, opts.schema.as_ref())?;
        for _ in 0..3 {
            let again = exam::examine(dir, &verify_options(opts.mmap), true, opts.schema.as_ref())?;
            let same = again.report.findings == exam.report.findings;
            exam = again;
            if same {
                break;
            }
        }
        let mut r = Repair {
            dir: dir.to_path_buf(),
            _lock: lock,
            opts,
            exam,
            steps: Vec::new(),
            plan: Plan::default(),
            publish: false,
        };
        r.make_plan();
        Ok(r)
    }

    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The verify report the plan was made from.
    pub fn report(&self) -> &Report {
        &self.exam.report
    }

    fn act(&mut self, file: &str, what: String) {
        self.plan.actions.push(Action { file: file.to_string(), what });
    }

    fn lose(&mut self, file: &str, what: String, rows: u64, keys: Vec<String>) {
        self.plan.losses.push(Loss { file: file.to_string(), what, rows, keys });
    }

    fn make_plan(&mut self) {
        let Some(base) = &self.exam.base else {
            self.plan.blocked =
                Some("no manifest or schema is readable, so the files cannot be interpreted; give the schema".into());
            return;
        };
        let schema = base.schema.clone();
        let generation = self
            .exam
            .listing
            .iter()
            .filter(|e| e.kind == Some(FileKind::Manifest))
            .filter_map(|e| recover::name_numbers(&e.name).first().copied())
            .chain([base.manifest.generation])
            .max()
            .unwrap_or(0)
            + 1;
        let base_name = base.name.clone().unwrap_or_else(|| "CURRENT".into());
        let recovered = base.recovered.clone();
        if let Some(how) = recovered {
            self.publish = true;
            self.act(&base_name, format!("the live manifest is damaged; publish generation {generation} ({how})"));
        } else if !self.exam.current_ok {
            self.publish = true;
            self.act("CURRENT", format!("point CURRENT at a new generation {generation}"));
        }

        // The WAL.
        if let Some(w) = &self.exam.wal {
            let name = w.name.clone();
            if w.missing {
                self.steps.push(Step::CreateWal);
                self.act(&name, "create it, empty (the manifest names it)".into());
                self.lose(&name, "unflushed writes the missing WAL held, if any".into(), 0, Vec::new());
            } else if !w.header_ok || !w.scan.bad.is_empty() {
                let records: Vec<Record> = w.scan.records.iter().map(|(_, r)| r.clone()).collect();
                let bad: Vec<(String, u64, Vec<String>)> = w
                    .scan
                    .bad
                    .iter()
                    .map(|b| (format!("damage at offset {}: {}", b.offset, b.what), b.lost, b.keys.clone()))
                    .collect();
                self.publish = true;
                self.act(
                    &name,
                    format!(
                        "copy its {} good records into a new WAL; the old file goes to {LOST_FOUND}",
                        records.len()
                    ),
                );
                self.steps.push(Step::RewriteWal { records });
                for (what, lost, keys) in bad {
                    self.lose(&name, what, lost, keys);
                }
            } else if let Some((at, len)) = w.scan.torn {
                self.steps.push(Step::TruncateWal { at });
                self.act(&name, format!("truncate the torn tail ({len} bytes at offset {at}, kept in {LOST_FOUND})"));
            }
        }

        // Segments, their delete files and indexes.
        let segments = std::mem::take(&mut self.exam.segments);
        for pos in 0..segments.len() {
            self.plan_segment(&segments, pos, &schema);
        }
        self.exam.segments = segments;

        let orphans: Vec<String> = self.exam.orphans.iter().map(|o| o.name.clone()).collect();
        for name in orphans {
            self.act(&name, format!("move to {LOST_FOUND}/ (no manifest names it)"));
            self.steps.push(Step::Move { name });
        }
        if self.publish {
            self.plan.generation = Some(generation);
        }
    }

    /// The deleted rows of segment `pos`: read, restored, or reconstructed from the keys of
    /// later segments (a newer version of a key deletes the older one). `None` when the
    /// file is intact and unchanged.
    fn plan_deletes(&mut self, segs: &[SegState], pos: usize, schema: &Schema) -> Option<RoaringBitmap> {
        let s = &segs[pos];
        let d = s.entry.deletes.clone()?;
        if let DelState::Ok(set) = &s.deletes {
            return s.deletes_count_wrong.then(|| set.clone());
        }
        let rows = s.entry.rows;
        let restored = match s.deletes {
            DelState::Damaged => {
                std::fs::read(self.dir.join(&d.file)).ok().and_then(|b| recover::recover_deletes(&b, rows, d.count))
            }
            _ => None,
        };
        if let Some(set) = restored {
            self.act(
                &d.file,
                "restore the deleted rows exactly (one damaged byte or header) into a new delete file".into(),
            );
            return Some(set);
        }
        let mut set = RoaringBitmap::new();
        if let Some(keys) = keys_of(s, schema) {
            let later: std::collections::HashSet<String> =
                segs[pos + 1..].iter().filter_map(|l| keys_of(l, schema)).flatten().flatten().collect();
            set.extend(
                keys.iter()
                    .enumerate()
                    .filter(|(_, k)| k.as_ref().is_some_and(|k| later.contains(k)))
                    .map(|(r, _)| r as u32),
            );
        }
        self.act(
            &d.file,
            format!("reconstruct the deleted rows from newer versions of their keys ({} found)", set.len()),
        );
        let unknown = d.count.saturating_sub(set.len());
        if unknown > 0 {
            self.lose(
                &d.file,
                format!("{unknown} deleted rows cannot be identified; they reappear"),
                unknown,
                Vec::new(),
            );
        }
        Some(set)
    }

    fn plan_segment(&mut self, segs: &[SegState], pos: usize, schema: &Arc<Schema>) {
        let entry = segs[pos].entry.clone();
        let recorded_deleted = entry.deletes.as_ref().map_or(0, |d| d.count);
        let live_estimate = entry.rows.saturating_sub(recorded_deleted);
        if segs[pos].missing {
            self.publish = true;
            self.steps.push(Step::DropSegment { pos });
            self.act(&entry.file, "remove from the manifest (the file is missing)".into());
            self.lose(
                &entry.file,
                "segment file missing; its live rows are lost (keys unknown)".into(),
                live_estimate,
                Vec::new(),
            );
            return;
        }
        let new_deletes = self.plan_deletes(segs, pos, schema);
        let s = &segs[pos];
        if let Some(seg) = s.segment.clone() {
            if let Some(set) = new_deletes {
                self.publish = true;
                self.steps.push(Step::Deletes { pos, set });
            }
            if seg.file_len() != entry.size {
                self.publish = true;
                self.act(&entry.file, format!("correct the manifest's record of its size ({} bytes)", seg.file_len()));
            }
            let damages: Vec<(u16, String, bool, IdxDamage, Option<u64>)> = s
                .indexes
                .iter()
                .map(|i| {
                    (
                        i.entry.field,
                        i.entry.file.clone(),
                        i.field_ok,
                        i.damage.clone(),
                        i.index.as_ref().map(|x| x.file_len()),
                    )
                })
                .collect();
            for (field, file, field_ok, damage, len) in damages {
                let (step, what) = match damage {
                    _ if !field_ok => {
                        (Step::DropIndex { pos, field }, format!("remove from the manifest and move to {LOST_FOUND}"))
                    }
                    IdxDamage::Missing | IdxDamage::Broken => {
                        (Step::BuildIndex { pos, field }, "rebuild from the segment's vectors".to_string())
                    }
                    IdxDamage::Codes => {
                        (Step::Recode { pos, field }, "re-encode the codes and sketches from the originals".into())
                    }
                    IdxDamage::Unreachable(ids) => (
                        Step::Reconnect { pos, field },
                        format!("reconnect {} unreachable nodes (or rebuild the graph)", ids.len()),
                    ),
                    IdxDamage::None => {
                        let recorded = entry.indexes.iter().find(|i| i.field == field).map_or(0, |i| i.size);
                        if len.is_some_and(|l| l != recorded) {
                            self.publish = true;
                            self.act(&file, "correct the manifest's record of its size".into());
                        }
                        continue;
                    }
                };
                self.publish = true;
                self.steps.push(step);
                self.act(&file, what);
            }
            return;
        }

        // The segment file is damaged: keep what its readable columns hold.
        self.publish = true;
        let Some(salvage) = s.salvage(schema) else {
            self.steps.push(Step::DropSegment { pos });
            self.act(&entry.file, format!("move to {LOST_FOUND}: its header or section table is unreadable"));
            self.lose(
                &entry.file,
                "section table unreadable; its live rows are lost (keys unknown)".into(),
                live_estimate,
                Vec::new(),
            );
            return;
        };
        let deleted = match (&s.deletes, new_deletes) {
            (_, Some(set)) => set,
            (DelState::Ok(set), None) => set.clone(),
            _ => RoaringBitmap::new(),
        };
        let live: RoaringBitmap = (0..entry.rows as u32).filter(|r| !deleted.contains(*r)).collect();
        if !salvage.has_keys() {
            self.steps.push(Step::DropSegment { pos });
            self.act(&entry.file, format!("move to {LOST_FOUND}: its keys are unreadable"));
            self.lose(&entry.file, "keys unreadable; its live rows are lost".into(), live.len(), Vec::new());
            return;
        }
        let keys_of = |rows: &RoaringBitmap| -> Vec<String> {
            rows.iter().filter_map(|r| salvage.key(r as usize).map(String::from)).collect()
        };
        let damaged = salvage.damaged_fields();
        let names = |fields: &[usize]| {
            fields.iter().map(|&f| format!("`{}`", schema.field(f).name)).collect::<Vec<_>>().join(", ")
        };
        let required: Vec<usize> = damaged.iter().copied().filter(|&f| !schema.field(f).nullable).collect();
        if !required.is_empty() {
            let keys = keys_of(&live);
            self.steps.push(Step::DropSegment { pos });
            self.act(&entry.file, format!("move to {LOST_FOUND}: the values of {} are unreadable", names(&required)));
            self.lose(
                &entry.file,
                format!("rows lost: their required field {} is unreadable", names(&required)),
                live.len(),
                keys,
            );
            return;
        }
        // Rows whose damage lies in a damaged block: their key, or a required value, is
        // lost with the row; a nullable value becomes null.
        let mut keep = live.clone();
        let no_key = &live & salvage.key_lost();
        if !no_key.is_empty() {
            self.lose(
                &entry.file,
                format!("{} rows lost: their keys lie in damaged blocks (keys unknown)", no_key.len()),
                no_key.len(),
                Vec::new(),
            );
            keep -= &no_key;
        }
        let mut losses: Vec<(String, RoaringBitmap)> = Vec::new();
        for (f, field) in schema.fields().iter().enumerate() {
            let Some(hit) = salvage.lost_rows(f).map(|l| l & &keep).filter(|l| !l.is_empty()) else { continue };
            if field.nullable {
                losses.push((
                    format!(
                        "values of `{}` lie in damaged blocks; these rows keep their other fields, `{}` becomes null",
                        field.name, field.name
                    ),
                    hit,
                ));
            } else {
                keep -= &hit;
                losses.push((format!("rows lost: their required field `{}` lies in a damaged block", field.name), hit));
            }
        }
        for (what, rows) in losses {
            let keys = keys_of(&rows);
            self.lose(&entry.file, what, rows.len(), keys);
        }
        if !damaged.is_empty() {
            let rows = &keep;
            self.lose(
                &entry.file,
                format!(
                    "values of {} are unreadable; the rows keep their other fields, these become null",
                    names(&damaged)
                ),
                rows.len(),
                keys_of(rows),
            );
        }
        if keep.is_empty() {
            self.steps.push(Step::DropSegment { pos });
            self.act(&entry.file, format!("move to {LOST_FOUND}: none of its live rows is readable"));
            return;
        }
        self.act(
            &entry.file,
            format!(
                "write its {} readable live rows into a new segment (derived sections recomputed); the old file goes to {LOST_FOUND}",
                keep.len()
            ),
        );
        self.steps.push(Step::Salvage { pos, keep: keep.iter().collect() });
    }

    /// Carries out the plan, publishes, and verifies again.
    pub fn apply(self) -> Result<Outcome, StorageError> {
        let Repair { dir, _lock, opts, exam, steps, plan, publish } = self;
        let Some(base) = &exam.base else {
            return Err(StorageError::corrupted(&dir, 0, plan.blocked.clone().unwrap_or_default()));
        };
        let schema = base.schema.clone();
        let generation = plan.generation.unwrap_or(base.manifest.generation);
        let lost_found = dir.join(LOST_FOUND).join(format!("repair-{generation:06}"));
        std::fs::create_dir_all(&lost_found).map_err(|e| StorageError::io(&lost_found, e))?;
        let mut mover = Mover { dir: &dir, to: &lost_found, moved: Vec::new() };
        let mut m = base.manifest.clone();
        m.generation = generation;
        let mut dropped: Vec<usize> = Vec::new();
        let never = AtomicBool::new(false);
        let next_wal = exam
            .listing
            .iter()
            .filter(|e| e.kind == Some(FileKind::Wal))
            .filter_map(|e| recover::name_numbers(&e.name).first().copied())
            .chain([m.wal_seq])
            .max()
            .unwrap_or(0)
            + 1;
        let mut superseded: Vec<String> = Vec::new();
        let mut new_deletes: Vec<(usize, RoaringBitmap)> = Vec::new();

        // Orphans go first: a crashed publish may have left files under the very names
        // (next segment id, next generation) this repair is about to write.
        for step in &steps {
            if let Step::Move { name } = step {
                mover.keep(name)?;
            }
        }
        for step in &steps {
            match step {
                Step::CreateWal => {
                    // The salt the manifest names, unless it was rebuilt (then it is published).
                    if m.wal_salt == 0 {
                        m.wal_salt = wal::new_salt();
                    }
                    drop(WalWriter::create(&dir, m.wal_seq, m.wal_salt, SyncPolicy::EveryBatch)?);
                }
                Step::TruncateWal { at } => {
                    let name = wal_name(m.wal_seq);
                    let path = dir.join(&name);
                    let bytes = std::fs::read(&path).map_err(|e| StorageError::io(&path, e))?;
                    let tail = lost_found.join(format!("{name}.tail"));
                    std::fs::write(&tail, bytes.get(*at as usize..).unwrap_or_default())
                        .map_err(|e| StorageError::io(&tail, e))?;
                    mover.moved.push(format!("{LOST_FOUND}/repair-{generation:06}/{name}.tail"));
                    let f =
                        std::fs::OpenOptions::new().write(true).open(&path).map_err(|e| StorageError::io(&path, e))?;
                    f.set_len(*at).and_then(|()| f.sync_all()).map_err(|e| StorageError::io(&path, e))?;
                }
                Step::RewriteWal { records } => {
                    superseded.push(wal_name(m.wal_seq));
                    let salt = wal::new_salt();
                    let mut w = WalWriter::create(&dir, next_wal, salt, SyncPolicy::EveryBatch)?;
                    if !records.is_empty() {
                        w.append(&schema, records)?;
                    }
                    w.sync()?;
                    m.wal_seq = next_wal;
                    m.wal_salt = salt;
                }
                Step::DropSegment { pos } => {
                    let e = &m.segments[*pos];
                    superseded.push(e.file.clone());
                    superseded.extend(e.deletes.iter().map(|d| d.file.clone()));
                    superseded.extend(e.indexes.iter().map(|i| i.file.clone()));
                    dropped.push(*pos);
                }
                Step::Salvage { pos, keep } => {
                    let s = &exam.segments[*pos];
                    let Some(salvage) = s.salvage(&schema) else { continue };
                    let id = m.next_segment_id;
                    m.next_segment_id += 1;
                    let path = dir.join(segment_name(id));
                    let size = segment::write(&path, id, &schema, &[Part { source: &salvage, rows: keep }])?;
                    let seg = Segment::open(&path, schema.clone(), opts.mmap, true)?;
                    let old = m.segments[*pos].clone();
                    superseded.push(old.file.clone());
                    superseded.extend(old.deletes.iter().map(|d| d.file.clone()));
                    superseded.extend(old.indexes.iter().map(|i| i.file.clone()));
                    let mut indexes = Vec::new();
                    for (f, _, spec) in schema.vector_fields().filter(|(_, _, v)| v.index.builds_index()) {
                        let fid = schema.field_id(f);
                        let file = index_name(id, fid, IndexKind::Vector);
                        let ipath = dir.join(&file);
                        let size = segment_index::build(
                            &ipath,
                            id,
                            f as u16,
                            spec,
                            seg.vector(f),
                            seg.rows(),
                            opts.concurrency.max(1),
                            &|_| {},
                            &never,
                        )?
                        .ok_or_else(|| StorageError::corrupted(&ipath, 0, "index build stopped"))?;
                        indexes.push(IndexEntry { field: fid, kind: IndexKind::Vector, file, size });
                    }
                    m.segments[*pos] = SegmentEntry {
                        id,
                        file: segment_name(id),
                        rows: seg.rows() as u64,
                        size,
                        deletes: None,
                        indexes,
                    };
                }
                Step::Deletes { pos, set } => new_deletes.push((*pos, set.clone())),
                Step::DropIndex { pos, field } => {
                    let e = &mut m.segments[*pos];
                    if let Some(i) = e.indexes.iter().position(|i| i.field == *field) {
                        superseded.push(e.indexes.remove(i).file);
                    }
                }
                Step::BuildIndex { pos, field } | Step::Recode { pos, field } | Step::Reconnect { pos, field } => {
                    let s = &exam.segments[*pos];
                    let Some(seg) = &s.segment else { continue };
                    let Some(spec) = schema.fields().get(*field as usize).and_then(|f| f.as_vector()) else { continue };
                    let old = s.indexes.iter().find(|i| i.entry.field == *field);
                    let graphs = match step {
                        Step::Recode { .. } => old.and_then(|i| i.index.as_deref()).map(owned_graphs),
                        Step::Reconnect { .. } => old.and_then(|i| i.index.as_deref()).and_then(|index| {
                            let mut ignored = match &s.deletes {
                                DelState::Ok(d) => d.clone(),
                                _ => RoaringBitmap::new(),
                            };
                            let col = seg.vector(*field as usize);
                            ignored.extend((0..seg.rows() as u32).filter(|&r| !col.validity.is_valid(r as usize)));
                            reconnect(owned_graphs(index), seg, *field as usize, spec.metric, &ignored)
                        }),
                        _ => None,
                    };
                    let name = index_name(s.entry.id, schema.field_id(*field as usize), IndexKind::Vector);
                    let path = dir.join(&name);
                    mover.keep(&name)?;
                    let col = seg.vector(*field as usize);
                    let size = match graphs {
                        Some((g, v)) => segment_index::write_with_graph(
                            &path,
                            s.entry.id,
                            *field,
                            spec,
                            col,
                            seg.rows(),
                            g.as_ref(),
                            v.as_ref(),
                        )?,
                        None => segment_index::build(
                            &path,
                            s.entry.id,
                            *field,
                            spec,
                            col,
                            seg.rows(),
                            opts.concurrency.max(1),
                            &|_| {},
                            &never,
                        )?
                        .ok_or_else(|| StorageError::corrupted(&path, 0, "index build stopped"))?,
                    };
                    let e = &mut m.segments[*pos];
                    match e.indexes.iter_mut().find(|i| i.field == *field) {
                        Some(i) => i.size = size,
                        None => e.indexes.push(IndexEntry { field: *field, kind: IndexKind::Vector, file: name, size }),
                    }
                }
                Step::Move { .. } => {}
            }
        }
        for (pos, set) in new_deletes {
            let e = &mut m.segments[pos];
            if let Some(old) = e.deletes.take() {
                superseded.push(old.file);
            }
            if !set.is_empty() {
                let name = deletes_name(e.id, generation);
                let bytes = deletes::encode(e.id, &set);
                write_file_atomic(&dir, &name, &bytes)?;
                e.deletes = Some(DeletesEntry { file: name, size: bytes.len() as u64, count: set.len() });
            }
        }
        // Records of healthy files are taken from the files themselves.
        for (e, s) in m.segments.iter_mut().zip(&exam.segments) {
            if let Some(seg) = &s.segment
                && e.id == seg.id()
            {
                e.size = seg.file_len();
            }
            for i in &mut e.indexes {
                if let Ok(meta) = std::fs::metadata(dir.join(&i.file)) {
                    i.size = meta.len();
                }
            }
        }
        dropped.sort_unstable();
        for pos in dropped.into_iter().rev() {
            m.segments.remove(pos);
        }
        let mut published = None;
        if publish {
            if !exam.current_ok && dir.join("CURRENT").exists() {
                let to = lost_found.join("CURRENT");
                std::fs::copy(dir.join("CURRENT"), &to).map_err(|e| StorageError::io(&to, e))?;
                mover.moved.push(format!("{LOST_FOUND}/repair-{generation:06}/CURRENT"));
            }
            if m.wal_salt == 0 {
                // A manifest rebuilt from the files: the WAL's own header has its salt.
                let p = dir.join(wal_name(m.wal_seq));
                let header = crate::storage::disk::read(&p).ok().and_then(|b| wal::decode_wal_header(&p, &b).ok());
                m.wal_salt = header.map_or_else(wal::new_salt, |(_, salt)| salt);
            }
            m.publish(&dir).map_err(StorageError::from)?;
            published = Some(generation);
            superseded.extend(base.name.clone());
        }
        for name in superseded {
            mover.keep(&name)?;
        }
        sync_dir(&dir)?;
        sync_dir(&lost_found)?;
        let moved = mover.moved;
        if moved.is_empty() {
            let _ = std::fs::remove_dir(&lost_found);
        }
        drop(exam);
        let after = exam::examine(&dir, &verify_options(opts.mmap), true, None)?.report;
        Ok(Outcome { generation: published, done: plan.actions, losses: plan.losses, moved, after })
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
        if !from.exists() {
            return Ok(());
        }
        let to = self.to.join(name);
        std::fs::rename(&from, &to).map_err(|e| StorageError::io(&from, e))?;
        let sub = self.to.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        self.moved.push(format!("{LOST_FOUND}/{sub}/{name}"));
        Ok(())
    }
}

type Graphs = (Option<hnsw::Graph>, Option<vamana::Graph>);

/// Owned copies of an index's graphs, to write around new codes.
fn owned_graphs(index: &SegmentIndex) -> Graphs {
    let h = index.graph().map(|g| g.to_graph());
    let v =
        index.vamana().map(|g| vamana::Graph { degree: g.degree, medoid: g.medoid, adjacency: g.adjacency.to_vec() });
    (h, v)
}

/// Links every unreachable node of the base layer (but the `ignored` ones: deleted, or
/// without a vector) from its nearest reachable node that has a free slot, so a search
/// from the entry point can reach it. `None` when some node finds no such neighbour (the
/// caller rebuilds the graph).
fn reconnect(
    mut graphs: Graphs,
    seg: &Segment,
    field: usize,
    metric: crate::schema::Metric,
    ignored: &RoaringBitmap,
) -> Option<Graphs> {
    let mut layer = BaseLayer::of(graphs.0.as_mut(), graphs.1.as_mut())?;
    let n = layer.words.len() / layer.stride;
    layer.link_unreachable(kernels::best(), metric, &seg.vector(field), |u| ignored.contains(u))?;
    // The result must pass the same check verify applies.
    let fine = match &graphs {
        (Some(g), _) => topology::check_hnsw(&g.view(), ignored).first().is_some_and(|l| l.unreachable_live == 0),
        (None, Some(v)) => {
            let view = v.view();
            let layer = topology::VamanaLayer { graph: &view };
            layer.universe() == n && topology::check_vamana(&view, ignored).unreachable_live == 0
        }
        (None, None) => false,
    };
    fine.then_some(graphs)
}
