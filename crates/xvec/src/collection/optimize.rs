//! Optimize: keep whole segments, rewrite the rest into compact segments, build every
//! field's index per segment, and publish it all with one manifest swap.
//!
//! Queries keep running on the old snapshot meanwhile. New files are unpublished until the
//! swap, so a crash leaves either the old generation or the new one; a cancelled run
//! removes the files it made.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use super::mem::MemSegment;
use super::snapshot::{SegmentRef, Snapshot};
use super::writer::{Writer, discard};
use crate::error::Error;
use crate::index::graph::BuildProgress;
use crate::index::segment_index::{self, SegmentIndex};
use crate::storage::column::SegmentView;
use crate::storage::manifest::{IndexEntry, SegmentEntry};
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
}

impl Default for OptimizeOptions<'_> {
    fn default() -> Self {
        OptimizeOptions {
            concurrency: std::thread::available_parallelism().map_or(1, |n| n.get()),
            progress: None,
            cancel: None,
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
    /// Wall-clock time the optimize took.
    pub seconds: f64,
    /// False when the collection was already optimal and nothing was written.
    pub changed: bool,
}

impl Writer {
    pub(crate) fn optimize(
        &mut self,
        current: &std::sync::RwLock<Arc<Snapshot>>,
        mmap: bool,
        opts: &OptimizeOptions,
    ) -> Result<OptimizeReport, Error> {
        let start = Instant::now();
        self.flush(current, mmap)?;
        let snap = current.read().expect("snapshot lock poisoned").clone();
        let schema = snap.schema.clone();
        let indexed_fields: Vec<usize> =
            schema.vector_fields().filter(|(_, _, v)| v.index.builds_index()).map(|(i, _, _)| i).collect();
        let max_rows = self.manifest.options.max_docs_per_segment.clamp(1, segment::MAX_ROWS) as usize;
        let live: Vec<Vec<u32>> = snap
            .segments
            .iter()
            .map(|s| (0..s.segment.rows() as u32).filter(|r| !s.deleted.contains(*r)).collect())
            .collect();
        let rows: usize = live.iter().map(Vec::len).sum();
        let dropped = snap.segments.iter().map(|s| s.deleted.len()).sum::<u64>();
        let plans = plan_segments(&snap, &live, max_rows);
        let has_indexes = |i: usize| indexed_fields.iter().all(|&f| snap.segments[i].indexes[f].is_some());
        let optimal = keeps_every_segment(&plans, snap.segments.len(), has_indexes);
        let mut report = OptimizeReport {
            segments_before: snap.segments.len(),
            segments_after: snap.segments.len(),
            rows: rows as u64,
            dropped,
            indexes_built: 0,
            seconds: 0.0,
            changed: false,
        };
        if optimal {
            report.seconds = start.elapsed().as_secs_f64();
            return Ok(report);
        }

        let total_vectors = (rows * indexed_fields.len()) as u64;
        let indexed = AtomicU64::new(0);
        let never = AtomicBool::new(false);
        let cancel = opts.cancel.unwrap_or(&never);
        let mut made: Vec<PathBuf> = Vec::new();
        let mut next_id = self.manifest.next_segment_id;
        let mut new_refs = Vec::with_capacity(plans.len());
        let outcome = (|| -> Result<(), Error> {
            for (done, plan) in plans.iter().enumerate() {
                let report_progress = |base: u64, p: BuildProgress| {
                    if let Some(cb) = opts.progress {
                        cb(&OptimizeProgress {
                            segments_done: done,
                            segments_total: plans.len(),
                            vectors_indexed: base + p.done as u64,
                            vectors_total: total_vectors,
                        });
                    }
                };
                let (seg, mut indexes, mut index_files) = match plan {
                    Plan::Keep(i) => {
                        let old = &snap.segments[*i];
                        (old.segment.clone(), old.indexes.clone(), old.index_files.clone())
                    }
                    Plan::Write(parts) => {
                        let id = next_id;
                        next_id += 1;
                        let path = self.dir.join(segment_name(id));
                        made.push(path.clone());
                        let parts: Vec<Part> = parts
                            .iter()
                            .map(|(i, r)| Part {
                                source: &*snap.segments[*i].segment as &dyn SegmentView,
                                rows: &live[*i][r.clone()],
                            })
                            .collect();
                        segment::write(&path, id, &schema, &parts)?;
                        let seg = Arc::new(Segment::open(&path, schema.clone(), mmap, false)?);
                        (seg, vec![None; schema.fields().len()], Vec::new())
                    }
                };
                let id = seg.id();
                for &f in &indexed_fields {
                    if indexes[f].is_some() {
                        indexed.fetch_add(seg.rows() as u64, Ordering::Relaxed);
                        continue;
                    }
                    let spec = schema.field(f).as_vector().expect("vector field");
                    let fid = schema.field_id(f);
                    let file = index_name(id, fid, IndexKind::Vector);
                    let ipath = self.dir.join(&file);
                    made.push(ipath.clone());
                    let base = indexed.load(Ordering::Relaxed);
                    let cb = |p: BuildProgress| report_progress(base, p);
                    let size = segment_index::build(
                        &ipath,
                        id,
                        f as u16,
                        spec,
                        seg.vector(f),
                        seg.rows(),
                        opts.concurrency.max(1),
                        &cb,
                        cancel,
                    )?;
                    let Some(size) = size else { return Err(Error::Cancelled) };
                    indexed.fetch_add(seg.rows() as u64, Ordering::Relaxed);
                    let index = SegmentIndex::open(&ipath, id, f as u16, spec, seg.rows(), mmap, false)?;
                    indexes[f] = Some(Arc::new(index));
                    index_files.push(IndexEntry { field: fid, kind: IndexKind::Vector, file, size });
                    report.indexes_built += 1;
                }
                if cancel.load(Ordering::Relaxed) {
                    return Err(Error::Cancelled);
                }
                new_refs.push(SegmentRef {
                    segment: seg,
                    deleted: Default::default(),
                    deletes_file: None,
                    dirty: false,
                    indexes,
                    index_files,
                });
            }
            Ok(())
        })();
        if let Err(e) = outcome {
            drop(new_refs);
            discard(&made);
            return Err(e);
        }

        let mut m = self.manifest.clone();
        m.generation += 1;
        m.next_segment_id = next_id;
        m.segments = new_refs
            .iter()
            .map(|s| SegmentEntry {
                id: s.segment.id(),
                file: segment_name(s.segment.id()),
                rows: s.segment.rows() as u64,
                size: s.segment.file_len(),
                deletes: None,
                indexes: s.index_files.clone(),
            })
            .collect();
        self.publish(&m, &made)?;
        *current.write().expect("snapshot lock poisoned") = Arc::new(Snapshot {
            schema: schema.clone(),
            generation: m.generation,
            segments: new_refs,
            mem: MemSegment::new(&schema),
            wal_records: 0,
        });
        let old = std::mem::replace(&mut self.manifest, m);
        let kept: std::collections::HashSet<&str> = (self.manifest.segments.iter())
            .flat_map(|e| std::iter::once(&e.file).chain(e.indexes.iter().map(|i| &i.file)))
            .map(String::as_str)
            .collect();
        let mut obsolete = vec![manifest_name(old.generation)];
        for e in &old.segments {
            obsolete.push(e.file.clone());
            obsolete.extend(e.deletes.iter().map(|d| d.file.clone()));
            obsolete.extend(e.indexes.iter().map(|i| i.file.clone()));
        }
        obsolete.retain(|f| !kept.contains(f.as_str()));
        // Published: a file that cannot be removed now is rolled back by the next
        // writable open, never an error of this optimize.
        discard(&obsolete.iter().map(|f| self.dir.join(f)).collect::<Vec<_>>());
        report.segments_after = self.manifest.segments.len();
        report.changed = true;
        report.seconds = start.elapsed().as_secs_f64();
        Ok(report)
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
fn keeps_every_segment(plans: &[Plan], segments: usize, has_indexes: impl Fn(usize) -> bool) -> bool {
    let kept = plans.iter().map(|p| match p {
        Plan::Keep(i) if has_indexes(*i) => Some(*i),
        _ => None,
    });
    kept.eq((0..segments).map(Some))
}

/// Keeps every segment without deletes that is at least half full, so an optimize after a
/// large import builds indexes without rewriting the data. The rest (segments with deletes,
/// small ones) are merged in order into segments of at most `max_rows`; a merge that would
/// just copy one whole segment keeps it instead. A segment without live rows is in no plan:
/// the new generation drops it with its delete file.
fn plan_segments(snap: &Snapshot, live: &[Vec<u32>], max_rows: usize) -> Vec<Plan> {
    let whole = |i: usize| snap.segments[i].deleted.is_empty() && live[i].len() <= max_rows;
    let mut plans = Vec::new();
    let mut room = 0;
    for (i, rows) in live.iter().enumerate() {
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
