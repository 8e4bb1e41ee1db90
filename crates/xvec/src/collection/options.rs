//! How a handle opens a collection: writable or read-only, mapped or read, sync policy,
//! lock wait, following the writer, maintenance threads, the memory budget.

use std::time::Duration;

use crate::index::segment_index::MemoryShare;
use crate::storage::wal::SyncPolicy;

/// How to open a collection.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct OpenOptions {
    /// Take the writer lock and allow writes.
    pub write: bool,
    /// Map segment files (default) or read them into owned buffers.
    pub mmap: bool,
    /// When the WAL is fsynced (writers only).
    pub sync: SyncPolicy,
    /// Check the CRC of vector sections on open too (other sections always are); not
    /// under a [`memory_budget`](OpenOptions::memory_budget), which exists so that open
    /// does not read the vectors whole (`verify` still checks them).
    pub verify_vectors: bool,
    /// How long a writable open waits for another writer's lock (zero: fail at once).
    pub lock_timeout: Duration,
    /// Read-only handles only: move to the writer's newest state at each query (see
    /// [`Collection::refresh`](super::Collection::refresh)). Off, a handle stays on what it opened until `refresh`.
    pub follow: bool,
    /// Threads a background index build or merge uses (at least 1, the default: the
    /// maintenance thread alone). More drain the index backlog faster, and so raise the
    /// rate writes can keep up before backpressure holds them, at the cost of the cores
    /// queries run on.
    pub maintenance_threads: usize,
    /// Bytes this handle may keep in memory for its disk-resident indexes (`"type":
    /// "disk"`): their codes, then a cache of neighbour lists in what is left (the
    /// entry's neighbourhood at open, then the nodes searches read, until it is full);
    /// under a budget node blocks are read past the page cache (`O_DIRECT`). `None`:
    /// each such index caches [`DEFAULT_DISK_CACHE`] bytes. A writer's `optimize` and
    /// background jobs build disk indexes under it (from int8 codes alone when the rows
    /// do not fit). The in-memory kinds' graphs, lists and the
    /// vectors they read stay mapped as without it: [`Stats::memory_wanted`](super::Stats::memory_wanted)
    /// and [`Stats::over_budget`](super::Stats::over_budget) say how far they exceed it; past it, queries answer slower
    /// (the kernel pages the mapped vectors in and out), never fail. A budget also turns
    /// off the open-time checksum of vector sections and of disk indexes' node blocks ([`OpenOptions::verify_vectors`]):
    /// reading them whole is what it is there to avoid (words-minilm-384 read 917 MB in
    /// 8.9 s at open before); each node block's own checksum is still checked when a search
    /// reads it, and `verify` checks everything.
    pub memory_budget: Option<u64>,
}

/// Node cache of a disk-resident index opened without a memory budget.
pub const DEFAULT_DISK_CACHE: u64 = 8 << 20;

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            write: false,
            mmap: true,
            sync: SyncPolicy::EveryBatch,
            verify_vectors: true,
            lock_timeout: Duration::ZERO,
            follow: true,
            maintenance_threads: 1,
            memory_budget: None,
        }
    }
}

impl OpenOptions {
    /// Options for a read-only handle: no lock taken, writes fail with [`ReadOnly`](crate::error::ReadOnly).
    pub fn read_only() -> OpenOptions {
        OpenOptions::default()
    }

    /// Options for the writer: takes the collection's writer lock on open.
    pub fn writable() -> OpenOptions {
        OpenOptions { write: true, ..OpenOptions::default() }
    }

    /// Sets [`OpenOptions::mmap`].
    pub fn mmap(mut self, mmap: bool) -> OpenOptions {
        self.mmap = mmap;
        self
    }

    /// Sets [`OpenOptions::sync`].
    pub fn sync(mut self, sync: SyncPolicy) -> OpenOptions {
        self.sync = sync;
        self
    }

    /// Sets [`OpenOptions::verify_vectors`]; turning it off makes opening large
    /// collections faster at the cost of not noticing damaged vector bytes.
    pub fn verify_vectors(mut self, yes: bool) -> OpenOptions {
        self.verify_vectors = yes;
        self
    }

    /// Whether open checksums vector sections and node blocks whole: asked for, and no
    /// memory budget says not to read them.
    pub(crate) fn verifies_vectors_on_open(&self) -> bool {
        self.verify_vectors && self.memory_budget.is_none()
    }

    /// Sets [`OpenOptions::follow`].
    pub fn follow(mut self, follow: bool) -> OpenOptions {
        self.follow = follow;
        self
    }

    /// Sets [`OpenOptions::maintenance_threads`] (0 counts as 1).
    pub fn maintenance_threads(mut self, threads: usize) -> OpenOptions {
        self.maintenance_threads = threads.max(1);
        self
    }

    /// Sets [`OpenOptions::memory_budget`].
    pub fn memory_budget(mut self, bytes: u64) -> OpenOptions {
        self.memory_budget = Some(bytes);
        self
    }

    /// The share of the memory budget a disk index over `rows` of the collection's
    /// `total` rows gets (its codes come out of it first, then its cache).
    pub(crate) fn disk_share(&self, rows: u64, total: u64) -> MemoryShare {
        match self.memory_budget {
            None => MemoryShare::Cache(DEFAULT_DISK_CACHE),
            Some(budget) => MemoryShare::Budget((budget as u128 * rows as u128 / total.max(1) as u128) as u64),
        }
    }

    /// Wait up to `timeout` for another writer to release the lock instead of failing at
    /// once with [`StorageError::Locked`](crate::error::StorageError::Locked).
    pub fn lock_timeout(mut self, timeout: Duration) -> OpenOptions {
        self.lock_timeout = timeout;
        self
    }
}
