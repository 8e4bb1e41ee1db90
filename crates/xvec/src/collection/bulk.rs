//! Reads over many rows or many queries at once: a filtered count, a streaming scan and a
//! batch of queries searched in parallel. The faces (the `xvec` tool, the Python package)
//! use these rather than looping over keys or single queries themselves.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use roaring::RoaringBitmap;

use super::query::{Query, Target, candidates, resolve_projection};
use super::snapshot::Snapshot;
use crate::error::{Error, QueryError};
use crate::filter::{Filter, Params};
use crate::schema::FieldKind;
use crate::value::Doc;

/// Most threads [`Snapshot::query_batch`] runs at once.
pub const MAX_QUERY_THREADS: usize = 256;

impl Snapshot {
    /// Live documents the filter keeps (all live documents without one), counted from the
    /// filter's row sets: no key is copied.
    pub fn count_where(&self, filter: Option<&str>, params: &Params) -> Result<u64, Error> {
        let filter = filter.map(|t| Filter::compile_with(t, &self.schema, params)).transpose()?;
        Ok(self
            .sources()
            .map(|src| candidates(&src, filter.as_ref()).map_or(src.view.rows() as u64, |rows| rows.len()))
            .sum())
    }

    /// The live documents the filter keeps, in storage order (segments, then the
    /// memtable), read a batch at a time from this snapshot: writes made after it are not
    /// seen, and memory stays at one batch plus one segment's row set. `fields: None`
    /// returns every field, vectors included; an unknown name is an error before any row.
    pub fn scan(
        self: &Arc<Self>,
        filter: Option<&str>,
        params: &Params,
        fields: Option<&[String]>,
    ) -> Result<Scan, Error> {
        let filter = filter.map(|t| Filter::compile_with(t, &self.schema, params)).transpose()?;
        let projection = resolve_projection(&self.schema, fields, true)?;
        let end = self.sources().count();
        Ok(Scan { snap: Arc::clone(self), filter, projection, source: 0, end, rows: None, next: 0 })
    }

    /// The parts a scan can read on its own, in storage order: each segment, then each
    /// chunk of the memtable. A distributed reader (`xvec.ray.read`) plans one task per
    /// part and reads it with [`Scan::only_part`] from a snapshot of the same state.
    pub fn scan_parts(&self) -> Vec<ScanPart> {
        self.sources()
            .map(|src| ScanPart {
                segment: self.segments.get(src.position as usize).map(|s| s.segment.id()),
                rows: src.view.rows() as u64 - src.deleted.len(),
            })
            .collect()
    }

    /// Runs `q` once for each vector of `vectors` (rows of the searched field's dimension,
    /// one after another) on up to `threads` threads, all against this snapshot. Each
    /// query's result is in its row's place; a query that fails (a NaN in its row) fails
    /// alone. `q`'s own target is ignored.
    pub fn query_batch(
        &self,
        q: &Query,
        vectors: &[f32],
        threads: usize,
    ) -> Result<Vec<Result<Vec<super::Hit>, Error>>, Error> {
        let field = self.schema.resolve(FieldKind::Vector, q.field.as_deref())?;
        let f = self.schema.field(field);
        let dim = f.as_vector().expect("resolved to a vector field").dim as usize;
        if !vectors.len().is_multiple_of(dim) {
            return Err(QueryError::BadDimension {
                field: f.name.clone(),
                expected: dim as u32,
                found: vectors.len() % dim,
            }
            .into());
        }
        if threads == 0 || threads > MAX_QUERY_THREADS {
            return Err(QueryError::BadThreads { threads, max: MAX_QUERY_THREADS }.into());
        }
        let n = vectors.len() / dim;
        let next = AtomicUsize::new(0);
        let run = || {
            let mut mine = Vec::new();
            let mut query = q.clone();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    return mine;
                }
                query.target = Target::Vector(vectors[i * dim..(i + 1) * dim].to_vec());
                mine.push((i, self.query(&query)));
            }
        };
        let threads = threads.min(n.max(1));
        let parts: Vec<Vec<_>> = if threads == 1 {
            vec![run()]
        } else {
            std::thread::scope(|s| {
                let handles: Vec<_> = (0..threads).map(|_| s.spawn(run)).collect();
                handles.into_iter().map(|h| h.join().expect("a query thread panicked")).collect()
            })
        };
        let mut out: Vec<Option<Result<Vec<super::Hit>, Error>>> = (0..n).map(|_| None).collect();
        for (i, r) in parts.into_iter().flatten() {
            out[i] = Some(r);
        }
        Ok(out.into_iter().map(|r| r.expect("every row was searched")).collect())
    }
}

/// One part of a snapshot a scan can read alone ([`Snapshot::scan_parts`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScanPart {
    /// The segment's id; `None` for a chunk of the memtable.
    pub segment: Option<u64>,
    /// Its live rows (before any filter).
    pub rows: u64,
}

/// A streaming read of a snapshot's documents: [`Snapshot::scan`].
pub struct Scan {
    snap: Arc<Snapshot>,
    filter: Option<Filter>,
    projection: Vec<usize>,
    /// The source (segment or memtable chunk) being read, in [`Snapshot::sources`] order.
    source: usize,
    /// One past the last source read.
    end: usize,
    /// Its rows the filter keeps, once computed; `None` before.
    rows: Option<Rows>,
    /// How many of them were returned.
    next: usize,
}

/// Rows of one source to return.
enum Rows {
    All(usize),
    Some(Vec<u32>),
}

impl Rows {
    fn len(&self) -> usize {
        match self {
            Rows::All(n) => *n,
            Rows::Some(rows) => rows.len(),
        }
    }

    fn get(&self, i: usize) -> usize {
        match self {
            Rows::All(_) => i,
            Rows::Some(rows) => rows[i] as usize,
        }
    }
}

impl Scan {
    /// The snapshot being read.
    pub fn snapshot(&self) -> &Arc<Snapshot> {
        &self.snap
    }

    /// This scan, made by [`Snapshot::scan`] and not yet read, limited to one part (a
    /// position in [`Snapshot::scan_parts`]).
    pub fn only_part(mut self, part: usize) -> Result<Scan, Error> {
        if part >= self.end {
            return Err(QueryError::NoSuchPart { part, parts: self.end }.into());
        }
        (self.source, self.end) = (part, part + 1);
        Ok(self)
    }

    /// Up to `max` more documents (at least one while any are left); `None` at the end.
    pub fn next_batch(&mut self, max: usize) -> Option<Vec<Doc>> {
        let max = max.max(1);
        let mut out = Vec::new();
        while out.len() < max && self.source < self.end {
            let Some(src) = self.snap.sources().nth(self.source) else { break };
            let rows = self.rows.get_or_insert_with(|| match candidates(&src, self.filter.as_ref()) {
                Some(b) => Rows::Some(to_vec(&b)),
                None => Rows::All(src.view.rows()),
            });
            while self.next < rows.len() && out.len() < max {
                let (key, fields) = self.snap.project(src.view, rows.get(self.next), &self.projection);
                out.push(Doc { key, fields });
                self.next += 1;
            }
            if self.next == rows.len() {
                (self.source, self.rows, self.next) = (self.source + 1, None, 0);
            }
        }
        (!out.is_empty()).then_some(out)
    }
}

impl Iterator for Scan {
    type Item = Doc;

    fn next(&mut self) -> Option<Doc> {
        self.next_batch(1).and_then(|mut b| b.pop())
    }
}

/// The bulk reads of the current snapshot (see [`Snapshot`]'s).
impl super::Collection {
    /// [`Snapshot::count_where`] over the current snapshot.
    pub fn count_where(&self, filter: Option<&str>, params: &Params) -> Result<u64, Error> {
        self.snapshot().count_where(filter, params)
    }

    /// [`Snapshot::scan`] over the current snapshot.
    pub fn scan(&self, filter: Option<&str>, params: &Params, fields: Option<&[String]>) -> Result<Scan, Error> {
        self.snapshot().scan(filter, params, fields)
    }

    /// [`Snapshot::scan_page`] over the current snapshot.
    pub fn scan_page(&self, req: &super::ScanRequest) -> Result<super::ScanPage, Error> {
        self.snapshot().scan_page(req)
    }

    /// [`Snapshot::query_batch`] over the current snapshot.
    pub fn query_batch(
        &self,
        q: &Query,
        vectors: &[f32],
        threads: usize,
    ) -> Result<Vec<Result<Vec<super::Hit>, Error>>, Error> {
        self.snapshot().query_batch(q, vectors, threads)
    }
}

fn to_vec(rows: &RoaringBitmap) -> Vec<u32> {
    rows.iter().collect()
}
