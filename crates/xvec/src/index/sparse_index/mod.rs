//! The inverted index of one segment's sparse vector field, one file (`SEG-<id>-f<field
//! id>-spi.idx`): for each dimension some row holds, the rows holding it, as bit-packed
//! gaps in blocks of [`BLOCK`], each with a quantized impact (one byte: where the value
//! falls between the block's smallest and largest), behind records of the block's last
//! row and those two values. A query's dimensions become block-max WAND cursors
//! (`index/wand.rs`) scoring each row with an upper bound from the impacts; a row whose
//! summed bound reaches the k-th score is scored exactly from the column, so the search is
//! exact while it reads about a quarter of the bytes exact values would take. A budget of
//! postings scored makes it approximate.
//!
//! Built when the segment is written (flush, optimize) for every sparse field, mapped in
//! place, checksummed like every container and fully validated on open.

#[cfg(test)]
mod tests;

use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::StorageError;
use crate::index::bitpack::{pack_gaps, packed_words, unpack_gaps};
use crate::index::wand::{self, END};
use crate::storage::FileKind;
use crate::storage::column::ArrayColumn;
use crate::storage::container::{self, RawSection};
use crate::storage::mmap::{FileBytes, as_bytes, cast_slice};

/// Postings per block.
pub(crate) const BLOCK: usize = 128;

/// Impact levels: a value's impact is which of 256 equal steps between its block's
/// smallest and largest value holds it.
const LEVELS: f64 = 256.0;

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
    /// Per block four `u32`: last row, largest value's bits, smallest value's bits,
    /// postings − 1 | gap width << 8.
    Records = 4,
    /// `u64` first word of each dimension's packed rows, one more than there are
    /// dimensions.
    DimWords = 5,
    /// `u64` words: each block's row gaps, bit-packed.
    Rows = 6,
    /// `u8` impact of each posting.
    Impacts = 7,
}

const SECTIONS: [Kind; 8] = [
    Kind::Meta,
    Kind::Dims,
    Kind::DimPostings,
    Kind::DimBlocks,
    Kind::Records,
    Kind::DimWords,
    Kind::Rows,
    Kind::Impacts,
];

/// The name of section kind `kind` of a sparse index file, for findings.
pub(crate) fn section_name(kind: u16) -> Option<&'static str> {
    [
        "meta",
        "dimensions",
        "dimension postings",
        "dimension blocks",
        "block records",
        "dimension words",
        "rows",
        "impacts",
    ]
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
    /// `u64` words of packed rows.
    words: u64,
}

/// What a search needs of a block without decoding it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Record {
    last_row: u32,
    max: f32,
    min: f32,
    count: usize,
    width: u32,
}

impl Record {
    fn decode(w: &[u32]) -> Record {
        Record {
            last_row: w[0],
            max: f32::from_bits(w[1]),
            min: f32::from_bits(w[2]),
            count: (w[3] & 0xff) as usize + 1,
            width: w[3] >> 8,
        }
    }

    fn words(&self) -> usize {
        packed_words(self.count, self.width)
    }

    /// The width of one impact step (0 when every value of the block is the same).
    fn step(&self) -> f64 {
        (f64::from(self.max) - f64::from(self.min)) / LEVELS
    }

    /// The impact of `value`, one of this block's: the step holding it.
    fn impact(&self, value: f32) -> u8 {
        let step = self.step();
        if step == 0.0 { 0 } else { ((f64::from(value) - f64::from(self.min)) / step).floor().clamp(0.0, 255.0) as u8 }
    }
}

/// One open sparse index file.
pub(crate) struct SparseIndex {
    path: PathBuf,
    bytes: FileBytes,
    dims: Range<usize>,
    dim_postings: Range<usize>,
    dim_blocks: Range<usize>,
    records: Range<usize>,
    dim_words: Range<usize>,
    rows: Range<usize>,
    impacts: Range<usize>,
}

impl std::fmt::Debug for SparseIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SparseIndex").field("path", &self.path).finish()
    }
}

/// One block of a dimension's list: its number and record, its first packed word, the
/// last row of the block before it, and the index of its first posting.
struct BlockAt {
    block: usize,
    record: Record,
    word: usize,
    prev_last: Option<u32>,
    first: usize,
}

/// The postings, blocks and packed words of one dimension.
#[derive(Clone)]
struct List {
    postings: Range<usize>,
    blocks: Range<usize>,
    words: usize,
}

impl SparseIndex {
    pub(crate) fn file_len(&self) -> u64 {
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

    fn dim_words(&self) -> &[u64] {
        cast_slice(&self.b()[self.dim_words.clone()]).expect("validated on open")
    }

    fn record(&self, block: usize) -> Record {
        let words: &[u32] = cast_slice(&self.b()[self.records.clone()]).expect("validated on open");
        Record::decode(&words[4 * block..4 * block + 4])
    }

    fn words(&self) -> &[u64] {
        cast_slice(&self.b()[self.rows.clone()]).expect("validated on open")
    }

    fn impacts(&self) -> &[u8] {
        &self.b()[self.impacts.clone()]
    }

    /// Postings in the index: one per nonzero dimension of a row.
    pub(crate) fn postings(&self) -> u64 {
        self.impacts.len() as u64
    }

    /// The position of dimension `dim` in the index, if a row holds it.
    fn find(&self, dim: u32) -> Option<usize> {
        self.dims().binary_search(&dim).ok()
    }

    /// The dimension at position `d`.
    fn list(&self, d: usize) -> List {
        let (p, b, w) = (self.dim_postings(), self.dim_blocks(), self.dim_words());
        List {
            postings: p[d] as usize..p[d + 1] as usize,
            blocks: b[d] as usize..b[d + 1] as usize,
            words: w[d] as usize,
        }
    }

    /// The first block of dimension list `l` (every list has one).
    fn first_block(&self, l: &List) -> BlockAt {
        let block = l.blocks.start;
        BlockAt { block, record: self.record(block), word: l.words, prev_last: None, first: l.postings.start }
    }

    /// The block of list `l` after `b`, if any.
    fn next_block(&self, l: &List, b: &BlockAt) -> Option<BlockAt> {
        let block = b.block + 1;
        (block < l.blocks.end).then(|| BlockAt {
            block,
            record: self.record(block),
            word: b.word + b.record.words(),
            prev_last: Some(b.record.last_row),
            first: b.first + BLOCK,
        })
    }

    /// Each block of dimension list `l`, in order, undecoded.
    fn blocks_of<'a>(&'a self, l: &'a List) -> impl Iterator<Item = BlockAt> + 'a {
        std::iter::successors(Some(self.first_block(l)), move |b| self.next_block(l, b))
    }

    /// The rows of block `b`, decoded into `rows`; `None` when its record is out of range
    /// or its words do not decode (checked on open).
    fn decode<'r>(&self, b: &BlockAt, rows: &'r mut [u32; BLOCK]) -> Option<&'r [u32]> {
        let r = &b.record;
        if r.count > BLOCK || r.width > 32 {
            return None;
        }
        let words = self.words().get(b.word..b.word + r.words())?;
        unpack_gaps(b.prev_last, words, r.width, &mut rows[..r.count])?;
        Some(&rows[..r.count])
    }

    /// Whether the index holds row `row` exactly as `words` (its stored words) say: under
    /// each of its dimensions, with the impact of its value. What `verify` samples; only
    /// the block that would hold the row is decoded.
    pub(crate) fn holds_row(&self, row: u32, words: &[u64]) -> bool {
        let mut rows = [0u32; BLOCK];
        words.iter().all(|&w| {
            let (dim, value) = ((w >> 32) as u32, crate::sparse::unpack_value(w));
            let Some(d) = self.find(dim) else { return false };
            let list = self.list(d);
            let Some(b) = self.blocks_of(&list).find(|b| b.record.last_row >= row) else { return false };
            let r = &b.record;
            self.decode(&b, &mut rows).is_some_and(|got| {
                got.binary_search(&row)
                    .is_ok_and(|i| (r.min..=r.max).contains(&value) && self.impacts()[b.first + i] == r.impact(value))
            })
        })
    }

    /// Pushes into `top` the rows of this segment (at position `segment`) that `allowed`
    /// keeps and whose inner product with `query` can enter it (rows sharing no dimension
    /// are not scored); `exact.score(row)` is a row's inner product with `query`, from
    /// the column, and `exact.k` the size of `top`. With `budget`, stops after that many
    /// postings scored.
    pub(crate) fn search(
        &self,
        query: &crate::sparse::SparseVector,
        segment: u32,
        allowed: impl Fn(u32) -> bool,
        (budget, exact): (Option<u64>, wand::Exact),
        top: &mut impl crate::index::Sink,
    ) -> wand::WandStats {
        let cursors: Vec<DimCursor> = query
            .indices()
            .iter()
            .zip(query.values())
            .enumerate()
            .filter_map(|(slot, (&dim, &weight))| Some(DimCursor::new(self, self.find(dim)?, weight, slot)))
            .collect();
        wand::search(cursors, query.len(), segment, allowed, (budget, Some(exact)), top)
    }

    /// Opens and fully validates the sparse index of field id `field` of segment
    /// `segment_id` with `rows` rows.
    pub(crate) fn open(
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
        let (d, p, nb, nw) = (meta.dims as u128, meta.postings as u128, meta.blocks as u128, meta.words as u128);
        let sized = |k: Kind, len: u128| s(k).sized(path, section_name(k as u16).unwrap_or("?"), len);
        let index = SparseIndex {
            path: path.to_path_buf(),
            dims: sized(Kind::Dims, 4 * d)?,
            dim_postings: sized(Kind::DimPostings, 8 * (d + 1))?,
            dim_blocks: sized(Kind::DimBlocks, 4 * (d + 1))?,
            records: sized(Kind::Records, 16 * nb)?,
            dim_words: sized(Kind::DimWords, 8 * (d + 1))?,
            rows: sized(Kind::Rows, 8 * nw)?,
            impacts: sized(Kind::Impacts, p)?,
            bytes,
        };
        index.validate(rows).map_err(|(at, what)| bad(at, what))?;
        Ok(index)
    }

    /// Every check [`SparseIndex::open`] promises; errors carry the file offset.
    fn validate(&self, rows: usize) -> Result<(), (usize, String)> {
        let (dims, p, bl, dw) = (self.dims(), self.dim_postings(), self.dim_blocks(), self.dim_words());
        let n = dims.len();
        if let Some(i) = dims.windows(2).position(|w| w[0] >= w[1]) {
            return Err((self.dims.start + 4 * (i + 1), format!("dimension {} is not above {}", dims[i + 1], dims[i])));
        }
        let total = self.postings();
        if p[0] != 0 || p[n] != total || p.windows(2).any(|w| w[0] >= w[1]) {
            return Err((
                self.dim_postings.start,
                format!("dimension postings do not rise by at least 1 from 0 to {total}"),
            ));
        }
        let blocks = self.records.len() / 16;
        let words = self.words().len() as u64;
        if dw[0] != 0 || dw[n] != words || dw.windows(2).any(|w| w[0] > w[1]) {
            return Err((self.dim_words.start, format!("dimension words do not rise from 0 to {words}")));
        }
        for dim in 0..n {
            let want = bl[dim] as u64 + (p[dim + 1] - p[dim]).div_ceil(BLOCK as u64);
            if bl[0] != 0 || bl[dim + 1] as u64 != want || (dim + 1 == n && want != blocks as u64) {
                return Err((
                    self.dim_blocks.start + 4 * (dim + 1),
                    format!("dimension {dim}'s blocks do not follow its postings"),
                ));
            }
            let l = self.list(dim);
            let (name, mut used, mut rows_buf) = (dims[dim], 0usize, [0u32; BLOCK]);
            for b in self.blocks_of(&l) {
                let (r, expected) = (&b.record, (l.postings.end - b.first).min(BLOCK));
                if r.count != expected || r.width > 32 || !(r.min.is_finite() && r.max.is_finite() && r.min <= r.max) {
                    return Err((
                        self.records.start + 16 * b.block,
                        format!("block {} of dimension {name} does not match its postings", b.block),
                    ));
                }
                let Some(got) = self.decode(&b, &mut rows_buf) else {
                    return Err((
                        self.rows.start + 8 * l.words,
                        format!("the packed rows of dimension {name} do not decode to ascending rows in its words"),
                    ));
                };
                if got.last() != Some(&r.last_row) || r.last_row as usize >= rows {
                    return Err((
                        self.records.start + 16 * b.block,
                        format!("block {} of dimension {name} does not match its postings", b.block),
                    ));
                }
                used += r.words();
            }
            if used as u64 != dw[dim + 1] - dw[dim] {
                return Err((
                    self.rows.start + 8 * l.words,
                    format!("the packed rows of dimension {name} do not decode to ascending rows in its words"),
                ));
            }
        }
        Ok(())
    }
}

/// One query dimension's postings as a WAND cursor, scoring each row with an upper bound
/// of weight × value from its impact.
struct DimCursor<'a> {
    index: &'a SparseIndex,
    list: List,
    /// The block the cursor stands on.
    cur: BlockAt,
    /// Whether `rows` holds the current block, and the position in it.
    decoded: bool,
    rows: [u32; BLOCK],
    at: usize,
    doc: u32,
    weight: f32,
    slot: usize,
    bound: f32,
    /// The current block's bounds of impact `q` are `(upper + q × step) × weight` and
    /// `(lower + q × step) × weight`.
    upper: f64,
    lower: f64,
    step: f64,
}

impl<'a> DimCursor<'a> {
    fn new(index: &'a SparseIndex, d: usize, weight: f32, slot: usize) -> DimCursor<'a> {
        let list = index.list(d);
        let mut c = DimCursor {
            index,
            cur: index.first_block(&list),
            list,
            decoded: false,
            rows: [0; BLOCK],
            at: 0,
            doc: 0,
            weight,
            slot,
            bound: 0.0,
            upper: 0.0,
            lower: 0.0,
            step: 0.0,
        };
        c.bound = c.list.blocks.clone().map(|b| c.bound_of(&index.record(b))).fold(0f32, f32::max);
        wand::Cursor::advance(&mut c, 0);
        c
    }

    /// The largest weight × value of a block, at least 0.
    fn bound_of(&self, r: &Record) -> f32 {
        let v = if self.weight >= 0.0 { r.max } else { r.min };
        // One ulp up for each: a product rounds, and a bound must never fall short.
        (self.weight * v).max(0.0) * (1.0 + 4.0 * f32::EPSILON)
    }

    /// The current posting's impact.
    fn impact(&self) -> f64 {
        f64::from(self.index.impacts()[self.cur.first + self.at])
    }

    /// Decodes the current block and sets its impact scale.
    fn decode(&mut self) {
        self.index.decode(&self.cur, &mut self.rows).expect("validated on open");
        // A value lies in [min + q·step, min + (q+1)·step]: the top of its step bounds a
        // positive weight's product from above, the bottom from below; the other way round
        // for a negative weight.
        let r = &self.cur.record;
        self.step = r.step();
        let (bottom, top) = (f64::from(r.min), f64::from(r.min) + self.step);
        (self.upper, self.lower) = if self.weight >= 0.0 { (top, bottom) } else { (bottom, top) };
        self.decoded = true;
        self.at = 0;
    }
}

impl wand::Cursor for DimCursor<'_> {
    fn doc(&self) -> u32 {
        self.doc
    }

    fn advance(&mut self, target: u32) {
        if self.doc == END || (self.decoded && self.doc >= target) {
            return;
        }
        if !self.shallow(target) {
            self.doc = END;
            return;
        }
        if !self.decoded {
            self.decode();
        }
        while self.rows[self.at] < target {
            self.at += 1;
        }
        self.doc = self.rows[self.at];
    }

    fn shallow(&mut self, target: u32) -> bool {
        while self.cur.record.last_row < target {
            let Some(next) = self.index.next_block(&self.list, &self.cur) else { return false };
            self.cur = next;
            self.decoded = false;
        }
        true
    }

    fn block_last(&self) -> u32 {
        self.cur.record.last_row
    }

    fn block_bound(&self) -> f32 {
        self.bound_of(&self.cur.record)
    }

    fn bound(&self) -> f32 {
        self.bound
    }

    fn slot(&self) -> usize {
        self.slot
    }

    fn score(&self) -> f32 {
        ((self.upper + self.impact() * self.step) * f64::from(self.weight)) as f32
    }

    fn floor(&self) -> f32 {
        ((self.lower + self.impact() * self.step) * f64::from(self.weight)) as f32
    }
}

/// Writes the sparse index of `col` (the sparse field with id `field` of segment
/// `segment_id`) through a temp file renamed to `path`; returns its size. The caller
/// publishes it.
pub(crate) fn build(path: &Path, segment_id: u64, field: u16, col: &ArrayColumn) -> Result<u64, StorageError> {
    let rows = col.rows();
    let mut postings: Vec<(u32, u32, f32)> = Vec::new();
    for row in (0..rows).filter(|&r| col.validity.is_valid(r)) {
        for &w in col.sparse_words(row) {
            postings.push(((w >> 32) as u32, row as u32, crate::sparse::unpack_value(w)));
        }
    }
    postings.sort_unstable_by_key(|p| (p.0, p.1));
    let (mut dims, mut dim_postings, mut dim_blocks, mut dim_words) = (Vec::new(), vec![0u64], vec![0u32], vec![0u64]);
    let (mut records, mut words, mut impacts) = (Vec::new(), Vec::new(), Vec::with_capacity(postings.len()));
    let mut block_rows = Vec::with_capacity(BLOCK);
    for run in postings.chunk_by(|a, b| a.0 == b.0) {
        dims.push(run[0].0);
        let mut prev = None;
        for block in run.chunks(BLOCK) {
            let (max, min) = block.iter().fold((f32::MIN, f32::MAX), |(a, b), p| (a.max(p.2), b.min(p.2)));
            block_rows.clear();
            block_rows.extend(block.iter().map(|p| p.1));
            let width = pack_gaps(prev, &block_rows, &mut words);
            let last = block[block.len() - 1].1;
            let r = Record { last_row: last, max, min, count: block.len(), width };
            impacts.extend(block.iter().map(|p| r.impact(p.2)));
            records.extend_from_slice(&[last, max.to_bits(), min.to_bits(), (block.len() as u32 - 1) | width << 8]);
            prev = Some(last);
        }
        dim_postings.push(dim_postings.last().expect("starts with 0") + run.len() as u64);
        dim_blocks.push((records.len() / 4) as u32);
        dim_words.push(words.len() as u64);
    }
    let meta = Meta {
        rows: rows as u64,
        dims: dims.len() as u64,
        postings: postings.len() as u64,
        blocks: (records.len() / 4) as u64,
        words: words.len() as u64,
    };
    let meta = serde_json::to_vec(&meta).expect("meta serializes");
    let parts: [&[u8]; 8] = [
        &meta,
        as_bytes(&dims),
        as_bytes(&dim_postings),
        as_bytes(&dim_blocks),
        as_bytes(&records),
        as_bytes(&dim_words),
        as_bytes(&words),
        &impacts,
    ];
    let sections: Vec<(u16, u16, &[u8])> = SECTIONS.iter().zip(parts).map(|(k, b)| (*k as u16, field, b)).collect();
    container::write_file(path, FileKind::Index, segment_id, &sections)
}
