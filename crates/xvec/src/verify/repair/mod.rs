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

mod apply;
mod plan;

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::exam::{self, Exam};
use super::{Report, VerifyOptions};
use crate::error::StorageError;
use crate::schema::Schema;
use crate::storage::lock::WriterLock;
use crate::storage::sync_dir;
use plan::Step;

/// Where repair moves what it replaces, inside the collection directory.
pub use crate::collection::recovery::LOST_FOUND;

/// How to repair.
#[derive(Clone, Debug)]
#[non_exhaustive]
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

/// Builder-style setters: the struct is `#[non_exhaustive]`, so code outside the
/// engine starts from [`Default`] and sets what it needs.
impl RepairOptions {
    /// Sets [`RepairOptions::concurrency`].
    pub fn concurrency(mut self, concurrency: usize) -> Self {
        self.concurrency = concurrency;
        self
    }

    /// Sets [`RepairOptions::schema`].
    pub fn schema(mut self, schema: Option<Schema>) -> Self {
        self.schema = schema;
        self
    }

    /// Sets [`RepairOptions::mmap`].
    pub fn mmap(mut self, mmap: bool) -> Self {
        self.mmap = mmap;
        self
    }

    /// Sets [`RepairOptions::lock_timeout`].
    pub fn lock_timeout(mut self, lock_timeout: std::time::Duration) -> Self {
        self.lock_timeout = lock_timeout;
        self
    }
}

/// One step of a plan, as the user reads it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Action {
    /// The file the step writes, moves or fixes.
    pub file: String,
    /// What the step does to it, in a phrase.
    pub what: String,
}

/// Data a repair gives up.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Loss {
    /// The damaged file the data was in.
    pub file: String,
    /// What is given up, in a phrase.
    pub what: String,
    /// Rows affected (0 when unknown).
    pub rows: u64,
    /// Their keys, when readable.
    pub keys: Vec<String>,
}

/// What a repair will do.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Plan {
    /// The steps, in the order [`Repair::apply`] takes them.
    pub actions: Vec<Action>,
    /// Data the steps give up; empty when the repair restores everything.
    pub losses: Vec<Loss>,
    /// What the repair cannot prove lost nothing, though it loses nothing it can read: a
    /// WAL tail it cuts, or a WAL with no sync record to count what a cut took.
    pub unproven: Vec<Action>,
    /// Why nothing can be done, when nothing can.
    pub blocked: Option<String>,
    /// The generation the repair publishes, if it publishes one.
    pub generation: Option<u64>,
}

impl Plan {
    /// Whether there is nothing to do (the collection verified clean, or is blocked).
    pub fn is_empty(&self) -> bool {
        self.actions.is_empty()
    }
}

/// What a repair did.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Outcome {
    /// The generation published, if any.
    pub generation: Option<u64>,
    /// The steps carried out.
    pub done: Vec<Action>,
    /// The data given up.
    pub losses: Vec<Loss>,
    /// What it cannot prove lost nothing ([`Plan::unproven`]).
    pub unproven: Vec<Action>,
    /// Files moved, relative to the collection directory.
    pub moved: Vec<String>,
    /// A verify pass after the repair.
    pub after: Report,
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

/// Files and bytes under `DIR/lost+found/` (zeros when it does not exist).
pub fn lost_found_size(dir: &Path) -> (u64, u64) {
    super::exam::lost_found_size(&dir.join(LOST_FOUND)).unwrap_or((0, 0))
}

/// Empties `DIR/lost+found/` under the writer lock (what recovery and repair kept there is
/// never read by the engine); returns the files and bytes it removed, counted as each is
/// removed. A `lost+found` that is a symbolic link or a file is refused
/// ([`StorageError::BadLostFound`]); a link inside it is removed, never followed. Waits up
/// to `lock_timeout` for another writer's lock.
pub fn purge_lost_found(dir: &Path, lock_timeout: std::time::Duration) -> Result<(u64, u64), StorageError> {
    exam::require_collection(dir)?;
    let _lock = WriterLock::acquire_within(dir, lock_timeout)?;
    let lf = crate::collection::recovery::lost_found(dir)?;
    if !crate::storage::disk::own_dir(&lf)? {
        return Ok((0, 0));
    }
    let mut removed = (0, 0);
    remove_tree(&lf, &mut removed)?;
    sync_dir(dir)?;
    Ok(removed)
}

/// Removes `d` and everything under it without following a symbolic link, adding each
/// file (or link) removed and its bytes to `removed`.
fn remove_tree(d: &Path, removed: &mut (u64, u64)) -> Result<(), StorageError> {
    for e in crate::storage::disk::list_dir(d)? {
        if e.is_dir {
            remove_tree(&e.path, removed)?;
        } else {
            crate::storage::disk::remove_file(&e.path)?;
            removed.0 += 1;
            removed.1 += e.len;
        }
    }
    crate::storage::disk::remove_dir(d)
}

impl Repair {
    /// Takes the writer lock (another writer: [`StorageError::Locked`]), examines the
    /// collection and plans; a file it cannot read other than for damage or absence
    /// (`EACCES`, `EIO`, `EMFILE`, a FIFO in its place) refuses the repair
    /// ([`StorageError::Unreadable`]) rather than count its rows as lost. Nothing is changed until [`Repair::apply`]; dropping the
    /// `Repair` instead releases the lock and leaves the directory as it was.
    ///
    /// ```
    /// use xvec::verify::{Repair, RepairOptions};
    /// use xvec::{Collection, Doc, Field, Metric, Schema, VectorType};
    /// let dir = tempfile::tempdir()?;
    /// let schema = Schema::builder("r").field(Field::vector("emb", VectorType::Fp32, 2, Metric::L2)).build()?;
    /// let coll = Collection::create(dir.path(), schema, Default::default())?;
    /// coll.insert(vec![Doc::new("a").set("emb", vec![0.0f32, 1.0])])?;
    /// coll.flush()?;
    /// coll.close()?; // repair takes the writer lock itself
    /// let mut opts = RepairOptions::default();
    /// opts.concurrency = 1;
    /// let repair = Repair::begin(dir.path(), opts)?;
    /// assert!(repair.report().is_clean());
    /// assert!(repair.plan().is_empty() && repair.plan().losses.is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn begin(dir: &Path, opts: RepairOptions) -> Result<Repair, StorageError> {
        exam::require_collection(dir)?;
        let lock = WriterLock::acquire_within(dir, opts.lock_timeout)?;
        // Refused before planning: what repair replaces goes there, never through a link.
        crate::collection::recovery::lost_found(dir)?;
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
        let unreadable: Vec<String> = exam
            .report
            .findings
            .iter()
            .filter(|f| f.unreadable)
            .map(|f| format!("{} cannot be read: {}", f.file, f.what.trim_start_matches("cannot be read: ")))
            .collect();
        if !unreadable.is_empty() {
            return Err(StorageError::Unreadable { path: dir.to_path_buf(), files: unreadable });
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

    /// What [`Repair::apply`] will do, for the caller to show or confirm first.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The verify report the plan was made from.
    pub fn report(&self) -> &Report {
        &self.exam.report
    }

    /// Carries out the plan, publishes, and verifies again.
    pub fn apply(self) -> Result<Outcome, StorageError> {
        apply::apply(self)
    }
}
