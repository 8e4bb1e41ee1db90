//! The inverted index of one segment's sparse vector field, one file (`SEG-<id>-f<field
//! id>-spi.idx`): for each dimension some row holds, the rows holding it with their
//! values, in blocks of [`BLOCK`] behind records of the block's last row and its largest
//! and smallest value. A query's dimensions become block-max WAND cursors
//! (`index/wand.rs`), each row scoring its query weight × value, so the exact top k by
//! inner product reads a fraction of the postings; a budget of postings scored makes it
//! approximate.
//!
//! Built when the segment is written (flush, optimize) for every sparse field, mapped in
//! place, checksummed like every container and fully validated on open.

#[cfg(test)]
mod tests;

use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::StorageError;
use crate::index::wand::{self, END};
use crate::storage::FileKind;
use crate::storage::column::ArrayColumn;
use crate::storage::container::{self, RawSection};
use crate::storage::mmap::{FileBytes, as_bytes, cast_slice};

/// Postings per block.
pub const BLOCK: usize = 128;

/// Section kinds of a sparse index file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u16)]
enum Kind {
    Meta = 0,
    /// `u32` dimensions, strictly ascending.
    Dims = 1,
    /// `u64` first posting of each dimension, one more than there are dimensions.
    DimPostings = 2,
    /// `u32` first block of each dimension, one more than there are dimensions.
    DimBlocks = 3,
    /// Per block four `u32`: last row, largest value's bits, smallest value's bits, 0.
    Records = 4,
    /// `u32` row of each posting.
    Rows = 5,
    /// `f32` value of each posting.
    Values = 6,
}

const SECTIONS: [Kind; 7] =
    [Kind::Meta, Kind::Dims, Kind::DimPostings, Kind::DimBlocks, Kind::Records, Kind::Rows, Kind::Values];

/// The name of section kind `kind` of a sparse index file, for findings.
pub fn section_name(kind: u16) -> Option<&'static str> {
    ["meta", "dimensions", "dimension postings", "dimension blocks", "block records", "rows", "values"]
        .get(kind as usize)
        .copied()
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
struct Meta {
    rows: u64,
    dims: u64,
    postings: u64,
    blocks: u64,
}

/// One open sparse index file.
pub struct SparseIndex {
    path: PathBuf,
    bytes: FileBytes,
    dims: Range<usize>,
    dim_postings: Range<usize>,
    dim_blocks: Range<usize>,
    records: Range<usize>,
    rows: Range<usize>,
    values: Range<usize>,
}

impl std::fmt::Debug for SparseIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SparseIndex").field("path", &self.path).finish()
    }
}

impl SparseIndex {
    pub fn file_len(&self) -> u64 {
        self.bytes.as_slice().len() as u64
    }

    fn b(&self) -> &[u8] {
        self.bytes.as_slice()
    }

    fn dims(&self) -> &[u32] {
        cast_slice(&self.b()[self.dims.clone()]).expect("validated on open")
    }

    fn dim_postings(&self) -> &[u64] {
        cast_slice(&self.b()[self.dim_postings.clone()]).expect("validated on open")
    }

    fn dim_blocks(&self) -> &[u32] {
        cast_slice(&self.b()[self.dim_blocks.clone()]).expect("validated on open")
    }

    fn records(&self) -> &[u32] {
        cast_slice(&self.b()[self.records.clone()]).expect("validated on open")
    }

    fn posting_rows(&self) -> &[u32] {
        cast_slice(&self.b()[self.rows.clone()]).expect("validated on open")
    }

    fn posting_values(&self) -> &[f32] {
        cast_slice(&self.b()[self.values.clone()]).expect("validated on open")
    }

    /// Postings in the index: one per nonzero dimension of a row.
    pub fn postings(&self) -> u64 {
        self.posting_rows().len() as u64
    }

    /// The position of dimension `dim` in the index, if a row holds it.
    fn find(&self, dim: u32) -> Option<usize> {
        self.dims().binary_search(&dim).ok()
    }

    /// The postings (rows, values) of the dimension at position `d`.
    fn list(&self, d: usize) -> (Range<usize>, Range<usize>) {
        let p = self.dim_postings();
        let b = self.dim_blocks();
        (p[d] as usize..p[d + 1] as usize, b[d] as usize..b[d + 1] as usize)
    }

    /// Whether the index holds row `row` exactly as `words` (its stored words) say: under
    /// each of its dimensions with its value. What `verify` samples.
    pub fn holds_row(&self, row: u32, words: &[u64]) -> bool {
        words.iter().all(|&w| {
            let (dim, value) = ((w >> 32) as u32, crate::sparse::unpack_value(w));
            self.find(dim).is_some_and(|d| {
                let (p, _) = self.list(d);
                let rows = &self.posting_rows()[p.clone()];
                rows.binary_search(&row).is_ok_and(|i| self.posting_values()[p.start + i].to_bits() == value.to_bits())
            })
        })
    }

    /// Pushes into `top` the rows of this segment (at position `segment`) that `allowed`
    /// keeps and whose inner product with `query` can enter it (rows sharing no dimension
    /// are not scored); with `budget`, stops after that many postings scored.
    pub fn search(
        &self,
        query: &crate::sparse::SparseVector,
        segment: u32,
        allowed: impl Fn(u32) -> bool,
        budget: Option<u64>,
        top: &mut impl crate::index::Sink,
    ) -> wand::WandStats {
        let cursors: Vec<DimCursor> = query
            .indices()
            .iter()
            .zip(query.values())
            .enumerate()
            .filter_map(|(slot, (&dim, &weight))| Some(DimCursor::new(self, self.find(dim)?, weight, slot)))
            .collect();
        wand::search(cursors, query.len(), segment, allowed, budget, top)
    }

    /// Opens and fully validates the sparse index of field id `field` of segment
    /// `segment_id` with `rows` rows.
    pub fn open(
        path: &Path,
        segment_id: u64,
        field: u16,
        rows: usize,
        mmap: bool,
    ) -> Result<SparseIndex, StorageError> {
        let bytes = FileBytes::open(path, mmap)?;
        let kinds = SECTIONS.map(|k| k as u16);
        let sections = container::read_sections(path, &bytes, segment_id, field, &kinds, "a sparse index")?;
        let b = bytes.as_slice();
        let bad = |offset: usize, what: String| StorageError::corrupted(path, offset as u64, what);
        let s = |k: Kind| -> &RawSection { &sections[k as usize] };
        let m = s(Kind::Meta);
        let meta: Meta =
            serde_json::from_slice(&b[m.range()]).map_err(|e| bad(m.offset as usize, format!("meta: {e}")))?;
        if meta.rows != rows as u64 {
            return Err(bad(m.offset as usize, format!("an index of {} rows; the segment has {rows}", meta.rows)));
        }
        let (d, p, nb) = (meta.dims as u128, meta.postings as u128, meta.blocks as u128);
        let sized = |k: Kind, len: u128| -> Result<Range<usize>, StorageError> {
            let sec = s(k);
            if sec.len as u128 != len {
                let name = section_name(k as u16).unwrap_or("?");
                return Err(bad(sec.offset as usize, format!("{name} section of {} bytes, expected {len}", sec.len)));
            }
            Ok(sec.range())
        };
        let index = SparseIndex {
            path: path.to_path_buf(),
            dims: sized(Kind::Dims, 4 * d)?,
            dim_postings: sized(Kind::DimPostings, 8 * (d + 1))?,
            dim_blocks: sized(Kind::DimBlocks, 4 * (d + 1))?,
            records: sized(Kind::Records, 16 * nb)?,
            rows: sized(Kind::Rows, 4 * p)?,
            values: sized(Kind::Values, 4 * p)?,
            bytes,
        };
        index.validate(rows).map_err(|(at, what)| bad(at, what))?;
        Ok(index)
    }

    /// Every check [`SparseIndex::open`] promises; errors carry the file offset.
    fn validate(&self, rows: usize) -> Result<(), (usize, String)> {
        let (dims, p, bl) = (self.dims(), self.dim_postings(), self.dim_blocks());
        let n = dims.len();
        if let Some(i) = dims.windows(2).position(|w| w[0] >= w[1]) {
            return Err((self.dims.start + 4 * (i + 1), format!("dimension {} is not above {}", dims[i + 1], dims[i])));
        }
        let total = self.posting_rows().len() as u64;
        if p[0] != 0 || p[n] != total || p.windows(2).any(|w| w[0] >= w[1]) {
            return Err((
                self.dim_postings.start,
                format!("dimension postings do not rise by at least 1 from 0 to {total}"),
            ));
        }
        let blocks = self.records().len() / 4;
        for dim in 0..n {
            let want = bl[dim] as u64 + (p[dim + 1] - p[dim]).div_ceil(BLOCK as u64);
            if bl[0] != 0 || bl[dim + 1] as u64 != want || (dim + 1 == n && want != blocks as u64) {
                return Err((
                    self.dim_blocks.start + 4 * (dim + 1),
                    format!("dimension {dim}'s blocks do not follow its postings"),
                ));
            }
            let (list, blks) = self.list(dim);
            let r = &self.posting_rows()[list.clone()];
            let v = &self.posting_values()[list.clone()];
            if let Some(i) = r.windows(2).position(|w| w[0] >= w[1]) {
                return Err((
                    self.rows.start + 4 * (list.start + i + 1),
                    format!("rows of dimension {} are not ascending", dims[dim]),
                ));
            }
            if r.last().is_some_and(|&x| x as usize >= rows) || v.iter().any(|x| !x.is_finite()) {
                return Err((
                    self.rows.start + 4 * list.start,
                    format!("dimension {} holds a row not below {rows} or a value not finite", dims[dim]),
                ));
            }
            for (j, blk) in blks.enumerate() {
                let part = j * BLOCK..((j + 1) * BLOCK).min(r.len());
                let rec = &self.records()[4 * blk..4 * blk + 4];
                let (max, min) = v[part.clone()].iter().fold((f32::MIN, f32::MAX), |(a, b), &x| (a.max(x), b.min(x)));
                if rec[0] != r[part.end - 1] || rec[1] != max.to_bits() || rec[2] != min.to_bits() || rec[3] != 0 {
                    return Err((
                        self.records.start + 16 * blk,
                        format!("block {blk} of dimension {} does not match its postings", dims[dim]),
                    ));
                }
            }
        }
        Ok(())
    }
}

/// One query dimension's postings as a WAND cursor, scoring weight × value.
struct DimCursor<'a> {
    index: &'a SparseIndex,
    rows: &'a [u32],
    values: &'a [f32],
    /// First block of the dimension, and the block the cursor stands on (relative).
    first_block: usize,
    block: usize,
    blocks: usize,
    at: usize,
    weight: f32,
    slot: usize,
    bound: f32,
}

impl<'a> DimCursor<'a> {
    fn new(index: &'a SparseIndex, d: usize, weight: f32, slot: usize) -> DimCursor<'a> {
        let (list, blks) = index.list(d);
        let mut c = DimCursor {
            index,
            rows: &index.posting_rows()[list.clone()],
            values: &index.posting_values()[list],
            first_block: blks.start,
            block: 0,
            blocks: blks.len(),
            at: 0,
            weight,
            slot,
            bound: 0.0,
        };
        c.bound = (0..c.blocks).map(|b| c.bound_of(b)).fold(0f32, f32::max);
        c
    }

    fn record(&self, block: usize) -> &[u32] {
        let b = self.first_block + block;
        &self.index.records()[4 * b..4 * b + 4]
    }

    /// The largest weight × value of block `block`, at least 0.
    fn bound_of(&self, block: usize) -> f32 {
        let r = self.record(block);
        let v = if self.weight >= 0.0 { f32::from_bits(r[1]) } else { f32::from_bits(r[2]) };
        // One ulp up for each: a product rounds, and a bound must never fall short.
        (self.weight * v).max(0.0) * (1.0 + 4.0 * f32::EPSILON)
    }
}

impl wand::Cursor for DimCursor<'_> {
    fn doc(&self) -> u32 {
        self.rows.get(self.at).copied().unwrap_or(END)
    }

    fn advance(&mut self, target: u32) {
        if self.doc() >= target {
            return;
        }
        if !self.shallow(target) {
            self.at = self.rows.len();
            return;
        }
        let start = self.at.max(self.block * BLOCK);
        let end = ((self.block + 1) * BLOCK).min(self.rows.len());
        self.at = start + self.rows[start..end].partition_point(|&r| r < target);
    }

    fn shallow(&mut self, target: u32) -> bool {
        while self.block < self.blocks && self.record(self.block)[0] < target {
            self.block += 1;
        }
        self.block < self.blocks
    }

    fn block_last(&self) -> u32 {
        self.record(self.block)[0]
    }

    fn block_bound(&self) -> f32 {
        self.bound_of(self.block)
    }

    fn bound(&self) -> f32 {
        self.bound
    }

    fn slot(&self) -> usize {
        self.slot
    }

    fn score(&self) -> f32 {
        self.weight * self.values[self.at]
    }
}

/// Writes the sparse index of `col` (the sparse field with id `field` of segment
/// `segment_id`) through a temp file renamed to `path`; returns its size. The caller
/// publishes it.
pub fn build(path: &Path, segment_id: u64, field: u16, col: &ArrayColumn) -> Result<u64, StorageError> {
    let rows = col.offsets.len().saturating_sub(1);
    let mut postings: Vec<(u32, u32, f32)> = Vec::new();
    for row in (0..rows).filter(|&r| col.validity.is_valid(r)) {
        for &w in col.sparse_words(row) {
            postings.push(((w >> 32) as u32, row as u32, crate::sparse::unpack_value(w)));
        }
    }
    postings.sort_unstable_by_key(|p| (p.0, p.1));
    let (mut dims, mut dim_postings, mut dim_blocks, mut records) = (Vec::new(), vec![0u64], vec![0u32], Vec::new());
    for run in postings.chunk_by(|a, b| a.0 == b.0) {
        dims.push(run[0].0);
        for block in run.chunks(BLOCK) {
            let (max, min) = block.iter().fold((f32::MIN, f32::MAX), |(a, b), p| (a.max(p.2), b.min(p.2)));
            records.extend_from_slice(&[block[block.len() - 1].1, max.to_bits(), min.to_bits(), 0]);
        }
        dim_postings.push(dim_postings.last().expect("starts with 0") + run.len() as u64);
        dim_blocks.push((records.len() / 4) as u32);
    }
    let row_ids: Vec<u32> = postings.iter().map(|p| p.1).collect();
    let values: Vec<f32> = postings.iter().map(|p| p.2).collect();
    let meta = Meta {
        rows: rows as u64,
        dims: dims.len() as u64,
        postings: postings.len() as u64,
        blocks: (records.len() / 4) as u64,
    };
    let meta = serde_json::to_vec(&meta).expect("meta serializes");
    let parts: [&[u8]; 7] = [
        &meta,
        as_bytes(&dims),
        as_bytes(&dim_postings),
        as_bytes(&dim_blocks),
        as_bytes(&records),
        as_bytes(&row_ids),
        as_bytes(&values),
    ];
    let sections: Vec<(u16, u16, &[u8])> = SECTIONS.iter().zip(parts).map(|(k, b)| (*k as u16, field, b)).collect();
    container::write_file(path, FileKind::Index, segment_id, &sections)
}
