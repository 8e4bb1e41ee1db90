//! Optimize: keep whole segments, rewrite the rest into compact segments, build every
//! field's index per segment, and publish it all with one manifest swap.
//!
//! Writes and queries go on meanwhile (see [`optimize`]). New files are unpublished until
//! the swap, so a crash leaves either the old generation or the new one; a cancelled run
//! removes the files it made.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Instant;

use roaring::RoaringBitmap;

use super::field_indexes;
use super::snapshot::{SegmentRef, Snapshot, install};
use super::writer::{Superseded, Writer, discard};
use crate::error::Error;
use crate::index::graph::BuildProgress;
use crate::index::segment_index::{self, IndexTarget, MemoryShare, SegmentIndex};
use crate::storage::column::SegmentView;
use crate::storage::manifest::{IndexEntry, Operation};
use crate::storage::segment::{self, Part, Segment};
use crate::storage::{IndexKind, index_name, manifest_name, segment_name};

/// How to optimize.
#[non_exhaustive]
pub struct OptimizeOptions<'a> {
    /// Threads for index builds (at least 1; 1 makes builds deterministic; at most
    /// [`MAX_BUILD_THREADS`](crate::index::MAX_BUILD_THREADS), and fewer when the system
    /// refuses that many).
    pub concurrency: usize,
    /// Called as work advances (from build threads: keep it cheap).
    pub progress: Option<&'a (dyn Fn(&OptimizeProgress) + Sync)>,
    /// Set to stop early; the collection is left as it was.
    pub cancel: Option<&'a AtomicBool>,
    /// Bytes an index build may hold (`None`: the handle's
    /// [`OpenOptions::memory_budget`](super::OpenOptions::memory_budget)). A disk index
    /// whose rows do not fit builds its graph from compact int8 codes alone and reads the
    /// rows once, in order ([`OptimizeReport::low_memory_builds`]); other kinds build as
    /// always.
    pub memory_budget: Option<u64>,
}

impl Default for OptimizeOptions<'_> {
    fn default() -> Self {
        OptimizeOptions {
            concurrency: std::thread::available_parallelism().map_or(1, |n| n.get()),
            progress: None,
            cancel: None,
            memory_budget: None,
        }
    }
}

/// Builder-style setters: the struct is `#[non_exhaustive]`, so code outside the
/// engine starts from [`Default`] and sets what it needs.
impl<'a> OptimizeOptions<'a> {
    /// Sets [`OptimizeOptions::concurrency`].
    pub fn concurrency(mut self, concurrency: usize) -> Self {
        self.concurrency = concurrency;
        self
    }

    /// Sets [`OptimizeOptions::progress`].
    pub fn progress(mut self, progress: Option<&'a (dyn Fn(&OptimizeProgress) + Sync)>) -> Self {
        self.progress = progress;
        self
    }

    /// Sets [`OptimizeOptions::cancel`].
    pub fn cancel(mut self, cancel: Option<&'a AtomicBool>) -> Self {
        self.cancel = cancel;
        self
    }

    /// Sets [`OptimizeOptions::memory_budget`].
    pub fn memory_budget(mut self, bytes: u64) -> Self {
        self.memory_budget = Some(bytes);
        self
    }
}

/// Where a running optimize is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OptimizeProgress {
    /// Segments of the new layout finished so far.
    pub segments_done: usize,
    /// Segments the new layout has.
    pub segments_total: usize,
    /// Vectors added to indexes so far, over every field.
    pub vectors_indexed: u64,
    /// Vectors to index in all, over every field; the bar is full when reached.
    pub vectors_total: u64,
}

/// What an optimize did.
#[derive(Clone, Debug, PartialEq)]
pub struct OptimizeReport {
    /// Segments in the collection before.
    pub segments_before: usize,
    /// Segments after (the same as before when nothing changed).
    pub segments_after: usize,
    /// Live rows the optimized segments hold.
    pub rows: u64,
    /// Deleted or superseded rows dropped from disk.
    pub dropped: u64,
    /// Index files this optimize wrote (segments kept with their indexes count none).
    pub indexes_built: usize,
    /// Disk indexes whose graph was built from int8 codes alone because their rows did not
    /// fit [`OptimizeOptions::memory_budget`].
    pub low_memory_builds: usize,
    /// The largest working set an index build was planned at, in bytes (0 when no disk
    /// index was built): what the budget was weighed against.
    pub build_bytes: u64,
    /// True when some build's leanest plan was still larger than the budget (it ran
    /// anyway, paging; a partitioned build would be needed to fit).
    pub over_budget: bool,
    /// Wall-clock time the optimize took.
    pub seconds: f64,
    /// False when the collection was already optimal and nothing was written.
    pub changed: bool,
}

/// Optimizes the collection whose writer and published snapshot these are, in three
/// steps so that writes go on meanwhile:
///
/// 1. flush (writes wait only for its publishes), then pin (writer lock, short): take
///    the snapshot as the base, plan, reserve ids;
/// 2. build (no lock): write the planned segments from the base's live rows and build
///    their indexes; writes, deletes and flushes go on, queries see the old layout;
/// 3. publish (writer lock, short): carry the deletes that arrived since the pin into the
///    new segments, replace the base's segments with them (segments flushed meanwhile
///    stay after them, the memtable stays as it is) and publish one manifest.
///
/// `maintenance` is held throughout: one optimize at a time per collection.
pub(crate) fn optimize(
    writer: &Mutex<Writer>,
    current: &RwLock<Arc<Snapshot>>,
    locks: Locks,
    mmap: bool,
    opts: &OptimizeOptions,
) -> Result<OptimizeReport, Error> {
    let _one_at_a_time = locks.maintenance.lock().expect("maintenance lock poisoned");
    let start = Instant::now();
    let lock = || writer.lock().expect("writer lock poisoned");
    super::flush::flush(writer, current, locks.flushing, mmap)?;
    let (job, dir) = {
        let mut w = lock();
        let base = current.read().expect("snapshot lock poisoned").clone();
        let max_rows = w.manifest.options.max_docs_per_segment.clamp(1, segment::MAX_ROWS) as usize;
        let all = 0..base.segments.len();
        refuse_damaged(&base)?;
        let job = Job::plan(base, all, max_rows);
        if job.is_optimal() {
            let mut report = job.report();
            report.seconds = start.elapsed().as_secs_f64();
            return Ok(report);
        }
        let writes = job.writes() as u64;
        let first_id = w.manifest.next_segment_id;
        w.manifest.next_segment_id += writes;
        ((job, first_id), w.dir.clone())
    };
    let (job, first_id) = job;
    let mut made: Vec<PathBuf> = Vec::new();
    let mut report = job.report();
    let built = job.build(&dir, first_id, mmap, opts, &mut made, &mut report);
    let mut w = lock();
    let superseded = match built.and_then(|built| Ok((w.check_running()?, built))) {
        // Once the publish starts, it decides what happens to the files (see `publish`).
        Ok(((), built)) => w.publish_optimized(current, &job, built, &mut made, mmap)?,
        Err(e) => {
            discard(&made);
            return Err(e);
        }
    };
    drop(w);
    superseded.release();
    report.changed = true;
    report.segments_after = current.read().expect("snapshot lock poisoned").segments.len();
    report.seconds = start.elapsed().as_secs_f64();
    Ok(report)
}

/// Optimize rewrites segments and builds indexes from their rows: not over damaged
/// blocks, whose rows it would drop or index as garbage. Repair first.
fn refuse_damaged(snap: &Snapshot) -> Result<(), Error> {
    match snap.segments.iter().find(|s| s.segment.damage().is_some()) {
        Some(s) => Err(crate::error::StorageError::DamagedRows {
            path: s.segment.path().to_path_buf(),
            rows: format!("{} rows are", s.unreadable()),
            what: "optimize does not rewrite a segment with damaged blocks".into(),
        }
        .into()),
        None => Ok(()),
    }
}

/// The handle's locks an optimize takes: `maintenance` throughout, `flushing` for the
/// flush it starts with.
pub(crate) struct Locks<'a> {
    pub maintenance: &'a Mutex<()>,
    pub flushing: &'a Mutex<()>,
}

/// An optimize's input and plan: the pinned base snapshot, the run of its segments to
/// rewrite (all of them for [`optimize`], a few for a background merge or index build),
/// their live rows and what to do with them.
pub(super) struct Job {
    base: Arc<Snapshot>,
    inputs: std::ops::Range<usize>,
    /// Live rows per base segment (empty outside `inputs`).
    live: Vec<Vec<u32>>,
    plans: Vec<Plan>,
    indexed_fields: Vec<usize>,
}

impl Job {
    pub(super) fn plan(base: Arc<Snapshot>, inputs: std::ops::Range<usize>, max_rows: usize) -> Job {
        let indexed_fields = indexed_fields(&base);
        let live: Vec<Vec<u32>> = (base.segments.iter().enumerate())
            .map(|(i, s)| match inputs.contains(&i) {
                true => (0..s.segment.rows() as u32).filter(|r| !s.deleted.contains(*r)).collect(),
                false => Vec::new(),
            })
            .collect();
        let plans = plan_segments(&base, &live, inputs.clone(), max_rows);
        Job { base, inputs, live, plans, indexed_fields }
    }

    /// New segments the job writes (ids to reserve).
    pub(super) fn writes(&self) -> usize {
        self.plans.iter().filter(|p| matches!(p, Plan::Write(_))).count()
    }

    pub(super) fn is_optimal(&self) -> bool {
        let has_indexes = |i: usize| self.indexed_fields.iter().all(|&f| self.base.segments[i].indexes[f].is_some());
        keeps_every_segment(&self.plans, self.inputs.clone(), has_indexes)
    }

    pub(super) fn report(&self) -> OptimizeReport {
        let inputs = &self.base.segments[self.inputs.clone()];
        OptimizeReport {
            segments_before: self.base.segments.len(),
            segments_after: self.base.segments.len(),
            rows: self.live.iter().map(|l| l.len() as u64).sum(),
            dropped: inputs.iter().map(|s| s.deleted.len()).sum(),
            indexes_built: 0,
            low_memory_builds: 0,
            build_bytes: 0,
            over_budget: false,
            seconds: 0.0,
            changed: false,
        }
    }

    /// Writes the planned segments and builds the missing indexes, one [`SegmentRef`] per
    /// plan (its deletes still empty); every file made is listed in `made`.
    pub(super) fn build(
        &self,
        dir: &std::path::Path,
        first_id: u64,
        mmap: bool,
        opts: &OptimizeOptions,
        made: &mut Vec<PathBuf>,
        report: &mut OptimizeReport,
    ) -> Result<Vec<SegmentRef>, Error> {
        let (snap, schema) = (&self.base, &self.base.schema);
        let total_vectors = report.rows * self.indexed_fields.len() as u64;
        let indexed = AtomicU64::new(0);
        let never = AtomicBool::new(false);
        let cancel = opts.cancel.unwrap_or(&never);
        let mut next_id = first_id;
        let mut new_refs = Vec::with_capacity(self.plans.len());
        for (done, plan) in self.plans.iter().enumerate() {
            let report_progress = |base: u64, p: BuildProgress| {
                if let Some(cb) = opts.progress {
                    cb(&OptimizeProgress {
                        segments_done: done,
                        segments_total: self.plans.len(),
                        vectors_indexed: base + p.done as u64,
                        vectors_total: total_vectors,
                    });
                }
            };
            let (seg, mut indexes, mut index_files, scalar) = match plan {
                Plan::Keep(i) => {
                    let old = &snap.segments[*i];
                    (old.segment.clone(), old.indexes.clone(), old.index_files.clone(), old.scalar.clone())
                }
                Plan::Write(parts) => {
                    let id = next_id;
                    next_id += 1;
                    let path = dir.join(segment_name(id));
                    made.push(path.clone());
                    let parts: Vec<Part> = parts
                        .iter()
                        .map(|(i, r)| Part {
                            source: &*snap.segments[*i].segment as &dyn SegmentView,
                            rows: &self.live[*i][r.clone()],
                        })
                        .collect();
                    segment::write(&path, id, schema, &parts)?;
                    let seg = Arc::new(Segment::open(&path, schema.clone(), mmap, false)?);
                    let scalar = field_indexes::build_all(dir, schema, &seg, mmap, made)?;
                    (seg, vec![None; schema.fields().len()], scalar.files, scalar.by_field)
                }
            };
            let id = seg.id();
            for &f in &self.indexed_fields {
                if indexes[f].is_some() {
                    indexed.fetch_add(seg.rows() as u64, Ordering::Relaxed);
                    continue;
                }
                let spec = schema.field(f).as_vector().expect("vector field");
                let fid = schema.field_id(f);
                let file = index_name(id, fid, IndexKind::Vector);
                let ipath = dir.join(&file);
                made.push(ipath.clone());
                let base = indexed.load(Ordering::Relaxed);
                let cb = |p: BuildProgress| report_progress(base, p);
                let target = IndexTarget { path: &ipath, segment_id: id, field: fid, spec, rows: seg.rows() };
                let threads = opts.concurrency.max(1);
                let built =
                    segment_index::build_within(target, seg.vector(f), threads, opts.memory_budget, &cb, cancel)?;
                let Some(segment_index::Built { size, plan }) = built else { return Err(Error::Cancelled) };
                if let Some(plan) = plan {
                    report.low_memory_builds += usize::from(plan.codes_only());
                    report.build_bytes = report.build_bytes.max(plan.bytes);
                    report.over_budget |= plan.over_budget();
                }
                indexed.fetch_add(seg.rows() as u64, Ordering::Relaxed);
                // The handle's budget is not known here: a disk index built now caches the
                // default until the collection is opened again.
                let cache = MemoryShare::Cache(super::options::DEFAULT_DISK_CACHE);
                let index = SegmentIndex::open(target, mmap, false, cache)?;
                indexes[f] = Some(Arc::new(index));
                index_files.push(IndexEntry { field: fid, kind: IndexKind::Vector, file, size });
                report.indexes_built += 1;
            }
            if cancel.load(Ordering::Relaxed) {
                return Err(Error::Cancelled);
            }
            let old_scan = match plan {
                Plan::Keep(i) => Some(&snap.segments[*i].scan[..]),
                Plan::Write(_) => None,
            };
            let scan = SegmentRef::scan_codes(schema, &seg, &indexes, old_scan);
            new_refs.push(SegmentRef {
                segment: seg,
                deleted: Default::default(),
                deletes_file: None,
                dirty: false,
                indexes,
                index_files,
                scan,
                scalar,
            });
        }
        Ok(new_refs)
    }

    /// The rows of `built` (one segment per written plan) deleted since the pin: the rows
    /// of its input segments that the current snapshot (where the inputs start at `at`)
    /// has deleted and the base had not, at their place in the new segment.
    fn deletes_since(&self, current: &Snapshot, at: usize) -> Vec<RoaringBitmap> {
        self.plans
            .iter()
            .map(|plan| match plan {
                // Kept as it is: its current delete set carries over whole.
                Plan::Keep(_) => RoaringBitmap::new(),
                Plan::Write(parts) => {
                    let mut out = RoaringBitmap::new();
                    let mut first_row = 0u32;
                    for (i, range) in parts {
                        let rows = &self.live[*i][range.clone()];
                        let now = &current.segments[at + i - self.inputs.start];
                        let since = &*now.deleted - &*self.base.segments[*i].deleted;
                        for r in since.iter() {
                            if let Ok(j) = rows.binary_search(&r) {
                                out.insert(first_row + j as u32);
                            }
                        }
                        first_row += rows.len() as u32;
                    }
                    out
                }
            })
            .collect()
    }
}

impl Writer {
    /// Step 3 of [`optimize`]: publishes `built` in place of the job's input segments. On
    /// an error `made` is removed unless the publish may have happened (see `publish`).
    pub(super) fn publish_optimized(
        &mut self,
        current: &RwLock<Arc<Snapshot>>,
        job: &Job,
        mut built: Vec<SegmentRef>,
        made: &mut Vec<PathBuf>,
        mmap: bool,
    ) -> Result<Superseded, Error> {
        let cur = current.read().expect("snapshot lock poisoned").clone();
        // Only jobs remove segments, one at a time (under the maintenance lock): the
        // inputs are still there in a row, flushes since only appended.
        let ids = |s: &[SegmentRef]| s.iter().map(|s| s.segment.id()).collect::<Vec<_>>();
        let input_ids = ids(&job.base.segments[job.inputs.clone()]);
        let at = cur.segments.iter().position(|s| Some(&s.segment.id()) == input_ids.first()).unwrap_or(0);
        let end = at + input_ids.len();
        assert!(
            input_ids.is_empty() || cur.segments.get(at..end).is_some_and(|s| ids(s) == input_ids),
            "segments of a pinned optimize changed under it"
        );
        let mut m = self.manifest.clone();
        m.generation += 1;
        let mut gone = Vec::new();
        for (r, (plan, deleted)) in built.iter_mut().zip(job.plans.iter().zip(job.deletes_since(&cur, at))) {
            if let Plan::Keep(i) = plan {
                let now = &cur.segments[at + i - job.inputs.start];
                (r.deleted, r.deletes_file, r.dirty) = (now.deleted.clone(), now.deletes_file.clone(), now.dirty);
                // Scalar indexes added or dropped since the pin are the current ones.
                r.scalar = now.scalar.clone();
                let vector = |e: &IndexEntry| e.kind == IndexKind::Vector;
                r.index_files.retain(vector);
                r.index_files.extend(now.index_files.iter().filter(|e| !vector(e)).cloned());
                continue;
            }
            field_indexes::complete(&self.dir, &cur.schema, r, mmap, made, &mut gone).inspect_err(|_| discard(made))?;
            if deleted.is_empty() {
                continue;
            }
            let entry =
                self.write_deletes(r.segment.id(), &deleted, m.generation, made).inspect_err(|_| discard(made))?;
            r.deletes_file = Some(entry);
            r.deleted = Arc::new(deleted);
        }
        let segments: Vec<SegmentRef> =
            (cur.segments[..at].iter().cloned()).chain(built).chain(cur.segments[end..].iter().cloned()).collect();
        m.segments = segments.iter().map(SegmentRef::entry).collect();
        if !segments.iter().any(|s| s.segment.is_legacy()) {
            m.legacy_schema = None;
        }
        m.settle_rebuilding(&cur.schema);
        m.stamp(Operation::Optimize);
        self.publish(&m, made)?;
        let next = Snapshot { rebuilding: m.rebuilding.clone(), ..cur.with_segments(m.generation, segments) };
        let replaced = install(current, next);
        let old = std::mem::replace(&mut self.manifest, m);
        let kept: std::collections::HashSet<&str> = (self.manifest.segments.iter())
            .flat_map(|e| {
                let files = std::iter::once(&e.file).chain(e.indexes.iter().map(|i| &i.file));
                files.chain(e.deletes.iter().map(|d| &d.file))
            })
            .map(String::as_str)
            .collect();
        let mut obsolete = vec![manifest_name(old.generation)];
        obsolete.extend(gone.iter().filter_map(|p| p.file_name()).map(|n| n.to_string_lossy().into_owned()));
        for e in &old.segments[at..end] {
            obsolete.push(e.file.clone());
            obsolete.extend(e.deletes.iter().map(|d| d.file.clone()));
            obsolete.extend(e.indexes.iter().map(|i| i.file.clone()));
        }
        obsolete.retain(|f| !kept.contains(f.as_str()));
        // Published: a file that cannot be removed is rolled back by the next writable
        // open, never an error of this optimize.
        Ok(self.superseded(obsolete.iter().map(|f| self.dir.join(f)).collect(), replaced))
    }
}

/// What optimize does with the live rows: keep a segment as it is (building only the
/// indexes it lacks), or write a new one from ranges of the live rows of old segments.
enum Plan {
    Keep(usize),
    Write(Vec<(usize, std::ops::Range<usize>)>),
}

/// Whether `plans` leave the collection as it is: every one of the `segments` kept, in
/// order, with all its indexes. Looking at the plans alone is not enough, since a segment
/// whose rows are all deleted gets no plan at all (it is dropped).
fn keeps_every_segment(plans: &[Plan], segments: std::ops::Range<usize>, has_indexes: impl Fn(usize) -> bool) -> bool {
    let kept = plans.iter().map(|p| match p {
        Plan::Keep(i) if has_indexes(*i) => Some(*i),
        _ => None,
    });
    kept.eq(segments.map(Some))
}

/// Fields whose index a segment gets built.
pub(super) fn indexed_fields(snap: &Snapshot) -> Vec<usize> {
    snap.schema.vector_fields().filter(|(_, _, v)| v.index.builds_index()).map(|(i, _, _)| i).collect()
}

/// Keeps every segment without deletes that is at least half full, so an optimize after a
/// large import builds indexes without rewriting the data. The rest (segments with deletes,
/// small ones) are merged in order into segments of at most `max_rows`; a merge that would
/// just copy one whole segment keeps it instead. A segment without live rows is in no plan:
/// the new generation drops it with its delete file.
fn plan_segments(snap: &Snapshot, live: &[Vec<u32>], inputs: std::ops::Range<usize>, max_rows: usize) -> Vec<Plan> {
    // A segment that stores other fields than the schema (dropped, added, widened since) is
    // rewritten: that reclaims dropped columns and stores the rest as the schema types them.
    let whole = |i: usize| {
        let s = &snap.segments[i];
        s.deleted.is_empty() && live[i].len() <= max_rows && s.segment.stores_schema()
    };
    let mut plans = Vec::new();
    let mut room = 0;
    for (i, rows) in live.iter().enumerate().skip(inputs.start).take(inputs.len()) {
        if whole(i) && rows.len() * 2 >= max_rows {
            plans.push(Plan::Keep(i));
            room = 0;
            continue;
        }
        let mut at = 0;
        while at < rows.len() {
            if room == 0 {
                plans.push(Plan::Write(Vec::new()));
                room = max_rows;
            }
            let take = room.min(rows.len() - at);
            let Some(Plan::Write(parts)) = plans.last_mut() else { unreachable!("a write plan was pushed") };
            parts.push((i, at..at + take));
            at += take;
            room -= take;
        }
    }
    for p in &mut plans {
        if let Plan::Write(parts) = p
            && let [(i, r)] = parts.as_slice()
            && whole(*i)
            && r.len() == live[*i].len()
        {
            *p = Plan::Keep(*i);
        }
    }
    plans
}
