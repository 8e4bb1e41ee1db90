//! The memtable: rows written since the last flush, as a list of chunks that snapshots
//! share.
//!
//! A snapshot is a clone of this struct: a list of `Arc`ed chunks and their delete sets,
//! so taking one copies no rows. The writer appends to the last chunk in place when no
//! snapshot shares it; when one does, a small chunk is copied (at most a quarter of a
//! chunk) and a larger one is sealed and a new one started. So a write never copies more
//! than a quarter chunk, however many snapshots are held, and the rows exist once.
//!
//! Keys are looked up in one map that every view of the memtable shares: key → newest row
//! and, per row, the row holding the key's previous version. A view of `len` rows walks
//! that chain back past rows written after it was taken, so the map never needs copying.

mod chunk;

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use roaring::RoaringBitmap;

use self::chunk::Chunk;
use crate::index::quant::fastscan::ScanCodes;
use crate::schema::Schema;
use crate::storage::column::SegmentView;
use crate::value::Row;

/// Bytes of row data a chunk holds at most (one row, if a row is larger).
const CHUNK_BYTES: usize = 4 << 20;
/// Rows a chunk holds at most.
const CHUNK_ROWS: usize = 1024;
/// `prev` of a row that is the first version of its key here.
const NO_ROW: u32 = u32::MAX;

/// Key → row lookups, shared by every view of one memtable (see the module docs).
#[derive(Debug, Default)]
struct KeyIndex {
    newest: HashMap<Box<str>, u32>,
    /// Per row, the row holding the previous version of its key, or [`NO_ROW`].
    prev: Vec<u32>,
}

/// Rows not yet flushed. A key appears at most once among the live rows; an overwritten
/// row is marked deleted and the new version appended. Cheap to clone (see the module docs).
#[derive(Clone, Debug)]
pub(crate) struct MemSegment {
    chunks: Vec<Arc<Chunk>>,
    /// Chunk-local deleted rows, one set per chunk.
    deleted: Vec<Arc<RoaringBitmap>>,
    /// First row of each chunk.
    starts: Vec<u32>,
    len: u32,
    dead: u32,
    /// Rows per chunk for this schema.
    chunk_rows: usize,
    keys: Arc<RwLock<KeyIndex>>,
}

/// One chunk as a searchable part: its view, deleted rows and scan codes.
pub(crate) struct MemPart<'a> {
    pub view: &'a dyn SegmentView,
    pub deleted: &'a RoaringBitmap,
    pub scan: ChunkCodes<'a>,
}

/// A chunk's scan codes (see [`ScanCodes`]), encoded from its rows when first asked for.
#[derive(Clone, Copy)]
pub(crate) struct ChunkCodes<'a>(&'a Chunk);

impl<'a> ChunkCodes<'a> {
    /// The codes of schema field `field`; `None` for a field that has none.
    pub(crate) fn field(self, field: usize) -> Option<&'a ScanCodes> {
        self.0.scan_codes(field).map(|c| &**c)
    }

    /// Schema fields (with codes or not).
    pub(crate) fn fields(self) -> usize {
        self.0.scan_fields()
    }
}

impl MemSegment {
    /// About the bytes one row of `schema` takes here: its vectors and a word per field.
    pub(crate) fn row_bytes(schema: &Schema) -> usize {
        schema
            .vector_fields()
            .map(|(_, _, v)| v.dim as usize * v.elem.elem_size())
            .sum::<usize>()
            .saturating_add(8 * schema.fields().len())
    }

    pub(crate) fn new(schema: &Schema) -> MemSegment {
        let row_bytes = MemSegment::row_bytes(schema);
        MemSegment {
            chunks: Vec::new(),
            deleted: Vec::new(),
            starts: Vec::new(),
            len: 0,
            dead: 0,
            chunk_rows: (CHUNK_BYTES / row_bytes.max(1)).clamp(1, CHUNK_ROWS),
            keys: Arc::default(),
        }
    }

    /// Number of rows, deleted ones included.
    pub(crate) fn len(&self) -> usize {
        self.len as usize
    }

    pub(crate) fn live_count(&self) -> usize {
        (self.len - self.dead) as usize
    }

    /// Rows holding deleted or superseded versions.
    pub(crate) fn dead_count(&self) -> u64 {
        self.dead as u64
    }

    fn is_deleted(&self, row: u32) -> bool {
        let (c, local) = self.chunk_of(row);
        self.deleted[c].contains(local)
    }

    /// The chunk holding `row`, and the row's place in it.
    fn chunk_of(&self, row: u32) -> (usize, u32) {
        let c = self.starts.partition_point(|&s| s <= row) - 1;
        (c, row - self.starts[c])
    }

    /// Row holding the live version of `key`.
    pub(crate) fn find(&self, key: &str) -> Option<u32> {
        let keys = self.keys.read().expect("key index lock poisoned");
        let row = self.version_at(&keys, *keys.newest.get(key)?)?;
        (!self.is_deleted(row)).then_some(row)
    }

    /// The newest version no later than this view, starting from `row`.
    fn version_at(&self, keys: &KeyIndex, mut row: u32) -> Option<u32> {
        while row >= self.len {
            row = keys.prev[row as usize];
            if row == NO_ROW {
                return None;
            }
        }
        Some(row)
    }

    /// Live keys starting with `prefix`, in no order (the caller sorts and bounds them).
    pub(crate) fn keys_with_prefix(&self, prefix: &str) -> Vec<String> {
        let keys = self.keys.read().expect("key index lock poisoned");
        keys.newest
            .iter()
            .filter(|(k, _)| k.starts_with(prefix))
            .filter(|&(_, &row)| self.version_at(&keys, row).is_some_and(|r| !self.is_deleted(r)))
            .map(|(k, _)| k.to_string())
            .collect()
    }

    /// Every row holding a version of `key`, with whether it is deleted, oldest first.
    pub(crate) fn versions(&self, key: &str) -> Vec<(u32, bool)> {
        let keys = self.keys.read().expect("key index lock poisoned");
        let mut out = Vec::new();
        let mut row = keys.newest.get(key).and_then(|&r| self.version_at(&keys, r));
        while let Some(r) = row {
            out.push((r, self.is_deleted(r)));
            row = Some(keys.prev[r as usize]).filter(|&p| p != NO_ROW);
        }
        out.reverse();
        out
    }

    /// Appends a validated row, replacing any live version of its key.
    ///
    /// Only the newest view of a memtable appends (the writer's, or a follower's): views
    /// taken earlier see none of it.
    pub(crate) fn put(&mut self, schema: &Schema, row: &Row) {
        let at = self.len;
        let old = {
            let mut keys = self.keys.write().expect("key index lock poisoned");
            assert_eq!(keys.prev.len(), at as usize, "an older view of the memtable appended");
            let old = keys.newest.insert(row.key.as_str().into(), at);
            keys.prev.push(old.unwrap_or(NO_ROW));
            old
        };
        if let Some(old) = old {
            self.mark_deleted(old);
        }
        self.tail(schema).push(row);
        self.len += 1;
    }

    /// Deletes the live version of `key`; false when it has none here.
    pub(crate) fn delete(&mut self, key: &str) -> bool {
        match self.find(key) {
            Some(row) => {
                self.mark_deleted(row);
                true
            }
            None => false,
        }
    }

    fn mark_deleted(&mut self, row: u32) {
        let (c, local) = self.chunk_of(row);
        if !self.deleted[c].contains(local) {
            Arc::make_mut(&mut self.deleted[c]).insert(local);
            self.dead += 1;
        }
    }

    /// The chunk to append to: the last one if this view may write it, else a new one.
    fn tail(&mut self, schema: &Schema) -> &mut Chunk {
        let fresh = match self.chunks.last_mut() {
            None => true,
            Some(c) if c.len() >= self.chunk_rows => true,
            // Shared with a snapshot: copy it if small, else seal it.
            Some(c) => Arc::get_mut(c).is_none() && c.len() * 4 >= self.chunk_rows,
        };
        if fresh {
            self.chunks.push(Arc::new(Chunk::new(schema)));
            self.deleted.push(Arc::default());
            self.starts.push(self.len);
        }
        Arc::make_mut(self.chunks.last_mut().expect("a chunk was pushed"))
    }

    /// The view and chunk-local row of `row`.
    pub(crate) fn view(&self, row: u32) -> (&dyn SegmentView, usize) {
        let (c, local) = self.chunk_of(row);
        (&*self.chunks[c], local as usize)
    }

    /// Chunk `i` as a searchable part.
    pub(crate) fn part(&self, i: usize) -> Option<MemPart<'_>> {
        let chunk = self.chunks.get(i)?;
        Some(MemPart { view: &**chunk, deleted: &self.deleted[i], scan: ChunkCodes(chunk) })
    }

    pub(crate) fn chunk_count(&self) -> usize {
        self.chunks.len()
    }

    /// Live chunk-local rows of each chunk, in insertion order.
    pub(crate) fn live_rows(&self) -> Vec<Vec<u32>> {
        self.chunks
            .iter()
            .zip(&self.deleted)
            .map(|(c, d)| (0..c.len() as u32).filter(|r| !d.contains(*r)).collect())
            .collect()
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        let keys = self.keys.read().expect("key index lock poisoned");
        self.chunks.iter().map(|c| c.heap_bytes()).sum::<usize>()
            + keys.newest.capacity() * (std::mem::size_of::<(Box<str>, u32)>() + 8)
            + keys.newest.keys().map(|k| k.len()).sum::<usize>()
            + keys.prev.capacity() * 4
            + self.deleted.iter().map(|d| d.serialized_size()).sum::<usize>()
    }

    /// Heap bytes of vector data alone.
    pub(crate) fn vector_bytes(&self) -> usize {
        self.chunks.iter().map(|c| c.vector_bytes()).sum()
    }

    /// Heap bytes of scan codes alone.
    pub(crate) fn scan_bytes(&self) -> usize {
        self.chunks.iter().map(|c| c.scan_bytes()).sum()
    }
}

#[cfg(test)]
mod tests;
