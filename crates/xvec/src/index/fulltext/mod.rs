//! The full-text index of one segment's string field, one file (`SEG-<id>-f<field
//! id>-fts.idx`): what ranks text by BM25 without analysing every row at query time.
//!
//! - A **term dictionary**: the distinct terms the field's analyzer made of the column,
//!   sorted, so a word is a binary search and a prefix a range.
//! - **Postings** per term: the rows holding it, ascending, with how often, in blocks of
//!   [`blocks::BLOCK`], each bit-packed at its own widths behind a record of its last row,
//!   its largest frequency and its shortest document. The record is what block-max WAND
//!   ([`wand`]) bounds a block's score by, so it skips blocks whose rows cannot reach the
//!   top k without decoding them.
//! - Each row's **length** in terms, for BM25's length normalization and the collection's
//!   statistics.
//!
//! Statistics are counts of this segment (documents, total length, each term's document
//! frequency), never scores: a query adds up every segment's counts, minus deleted rows',
//! so scores are the whole collection's whatever the split into segments. The file is
//! built when the segment is written (flush, optimize, `add-index`), mapped in place,
//! checksummed like every container and fully validated on open (every block decoded, the
//! frequencies of each row summing to its length), so a search reads it without checks.

mod blocks;
mod build;
#[cfg(test)]
mod tests;
pub(crate) mod wand;

use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub(crate) use blocks::BLOCK;
pub(crate) use build::build;

use crate::error::StorageError;
use crate::storage::container::{self, RawSection};
use crate::storage::mmap::{FileBytes, cast_slice};
use crate::text::AnalyzerSpec;
use blocks::{RECORD_WORDS, Record};

/// Section kinds of a full-text index file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u16)]
enum Kind {
    Meta = 0,
    /// `u64` byte offsets of the sorted terms, one more than there are terms.
    TermOffsets = 1,
    TermBytes = 2,
    /// `u32` first block of each term, one more than there are terms.
    TermBlocks = 3,
    /// `u64` first posting word of each term, one more than there are terms.
    TermWords = 4,
    /// Four `u32` per block ([`Record`]).
    Blocks = 5,
    /// `u64` words of packed postings.
    Postings = 6,
    /// `u32` length in terms of each row (0 for a null).
    Lengths = 7,
}

const SECTIONS: [Kind; 8] = [
    Kind::Meta,
    Kind::TermOffsets,
    Kind::TermBytes,
    Kind::TermBlocks,
    Kind::TermWords,
    Kind::Blocks,
    Kind::Postings,
    Kind::Lengths,
];

/// The name of section kind `kind` of a full-text index file, for findings.
pub(crate) fn section_name(kind: u16) -> Option<&'static str> {
    let names = ["meta", "term offsets", "terms", "term blocks", "term words", "block records", "postings", "lengths"];
    names.get(kind as usize).copied()
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
struct Meta {
    /// The analyzer the terms were made with: a query must use the same.
    analyzer: AnalyzerSpec,
    rows: u64,
    /// Rows with a text (not null), empty ones included.
    docs: u64,
    /// Terms in all rows.
    total_len: u64,
    terms: u64,
    blocks: u64,
}

/// One open full-text index file.
pub(crate) struct FullTextIndex {
    path: PathBuf,
    bytes: FileBytes,
    analyzer: AnalyzerSpec,
    rows: usize,
    docs: u64,
    total_len: u64,
    term_offsets: Range<usize>,
    term_bytes: Range<usize>,
    term_blocks: Range<usize>,
    term_words: Range<usize>,
    blocks: Range<usize>,
    postings: Range<usize>,
    lengths: Range<usize>,
}

impl std::fmt::Debug for FullTextIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FullTextIndex").field("path", &self.path).field("rows", &self.rows).finish()
    }
}

impl FullTextIndex {
    pub(crate) fn file_len(&self) -> u64 {
        self.bytes.as_slice().len() as u64
    }

    fn b(&self) -> &[u8] {
        self.bytes.as_slice()
    }

    /// The analyzer its terms were made with.
    pub(crate) fn analyzer(&self) -> &AnalyzerSpec {
        &self.analyzer
    }

    /// Rows with a text, deleted ones included.
    pub(crate) fn docs(&self) -> u64 {
        self.docs
    }

    /// Terms in every row, deleted ones included.
    pub(crate) fn total_len(&self) -> u64 {
        self.total_len
    }

    /// Length of row `row` in terms.
    pub(crate) fn doc_len(&self, row: u32) -> u32 {
        self.lengths()[row as usize]
    }

    fn lengths(&self) -> &[u32] {
        cast_slice(&self.b()[self.lengths.clone()]).expect("validated on open")
    }

    fn offsets(&self) -> &[u64] {
        cast_slice(&self.b()[self.term_offsets.clone()]).expect("validated on open")
    }

    /// Distinct terms.
    pub(crate) fn term_count(&self) -> usize {
        self.offsets().len() - 1
    }

    /// Term `t`, as bytes (UTF-8, checked on open).
    pub(crate) fn term(&self, t: usize) -> &[u8] {
        let o = self.offsets();
        &self.b()[self.term_bytes.start + o[t] as usize..self.term_bytes.start + o[t + 1] as usize]
    }

    fn partition(&self, below: impl Fn(&[u8]) -> bool) -> usize {
        let (mut lo, mut hi) = (0, self.term_count());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if below(self.term(mid)) { lo = mid + 1 } else { hi = mid }
        }
        lo
    }

    /// The number of term `term`, if a row holds it.
    pub(crate) fn find(&self, term: &str) -> Option<usize> {
        let t = self.partition(|x| x < term.as_bytes());
        (t < self.term_count() && self.term(t) == term.as_bytes()).then_some(t)
    }

    /// The numbers of the terms starting with `prefix`.
    pub(crate) fn with_prefix(&self, prefix: &str) -> Range<usize> {
        let p = prefix.as_bytes();
        let start = self.partition(|x| x < p);
        start..self.partition(|x| x < p || x.starts_with(p))
    }

    fn term_blocks(&self) -> &[u32] {
        cast_slice(&self.b()[self.term_blocks.clone()]).expect("validated on open")
    }

    fn term_words(&self) -> &[u64] {
        cast_slice(&self.b()[self.term_words.clone()]).expect("validated on open")
    }

    fn record(&self, block: usize) -> Record {
        let w: &[u32] = cast_slice(&self.b()[self.blocks.clone()]).expect("validated on open");
        Record::decode(&w[RECORD_WORDS * block..RECORD_WORDS * (block + 1)]).expect("validated on open")
    }

    fn words(&self) -> &[u64] {
        cast_slice(&self.b()[self.postings.clone()]).expect("validated on open")
    }

    /// Rows holding term `t`, deleted ones included.
    pub(crate) fn doc_freq(&self, t: usize) -> u64 {
        let tb = self.term_blocks();
        (tb[t] as usize..tb[t + 1] as usize).map(|b| self.record(b).count as u64).sum()
    }

    /// Whether the index holds row `row` as the column does: `text` (`None` for a null)
    /// analysed by `analyzer` gives the row's length and, for each of its terms, the row
    /// under that term with its frequency. What `verify` samples.
    pub(crate) fn holds_row(&self, analyzer: &crate::text::Analyzer, text: Option<&str>, row: u32) -> bool {
        let mut tfs: std::collections::BTreeMap<String, u32> = std::collections::BTreeMap::new();
        if let Some(text) = text {
            analyzer.for_each_term(text, |t, _| *tfs.entry(t.to_string()).or_insert(0) += 1);
        }
        let len: u32 = tfs.values().sum();
        len == self.doc_len(row)
            && tfs.iter().all(|(t, &tf)| {
                self.find(t).is_some_and(|id| {
                    let mut p = self.postings(id);
                    p.advance(row);
                    p.doc() == row && p.tf() == tf
                })
            })
    }

    /// The postings of term `t`, positioned on its first row.
    pub(crate) fn postings(&self, t: usize) -> Postings<'_> {
        let tb = self.term_blocks();
        let mut p = Postings {
            index: self,
            block: tb[t] as usize,
            end: tb[t + 1] as usize,
            word: self.term_words()[t] as usize,
            record: self.record(tb[t] as usize),
            prev_last: None,
            decoded: false,
            docs: [0; BLOCK],
            tfs: [0; BLOCK],
            at: 0,
            doc: 0,
        };
        p.advance(0);
        p
    }

    /// Opens and fully validates the full-text index of field id `field` of segment
    /// `segment_id` with `rows` rows, whose analyzer must be `analyzer`.
    pub(crate) fn open(
        path: &Path,
        segment_id: u64,
        field: u16,
        analyzer: &AnalyzerSpec,
        rows: usize,
        mmap: bool,
    ) -> Result<FullTextIndex, StorageError> {
        let bytes = FileBytes::open(path, mmap)?;
        let kinds = SECTIONS.map(|k| k as u16);
        let sections = container::read_sections(path, &bytes, segment_id, field, &kinds, "a full-text index")?;
        let b = bytes.as_slice();
        let bad = |offset: usize, what: String| StorageError::corrupted(path, offset as u64, what);
        let s = |k: Kind| -> &RawSection { &sections[k as usize] };
        let m = s(Kind::Meta);
        let meta: Meta =
            serde_json::from_slice(&b[m.range()]).map_err(|e| bad(m.offset as usize, format!("meta: {e}")))?;
        if meta.analyzer != *analyzer || meta.rows != rows as u64 || meta.docs > meta.rows {
            return Err(bad(
                m.offset as usize,
                format!(
                    "an index of {} rows ({} with text) made with analyzer {}; expected {rows} rows and analyzer {}",
                    meta.rows,
                    meta.docs,
                    serde_json::to_string(&meta.analyzer).unwrap_or_default(),
                    serde_json::to_string(analyzer).unwrap_or_default()
                ),
            ));
        }
        let (n, nb) = (meta.terms as usize, meta.blocks as usize);
        let sized = |k: Kind, len: u128| s(k).sized(path, section_name(k as u16).unwrap_or("?"), len);
        let index = FullTextIndex {
            path: path.to_path_buf(),
            analyzer: meta.analyzer,
            rows,
            docs: meta.docs,
            total_len: meta.total_len,
            term_offsets: sized(Kind::TermOffsets, 8 * (n as u128 + 1))?,
            term_bytes: s(Kind::TermBytes).range(),
            term_blocks: sized(Kind::TermBlocks, 4 * (n as u128 + 1))?,
            term_words: sized(Kind::TermWords, 8 * (n as u128 + 1))?,
            blocks: sized(Kind::Blocks, 4 * RECORD_WORDS as u128 * nb as u128)?,
            postings: s(Kind::Postings).range(),
            lengths: sized(Kind::Lengths, 4 * rows as u128)?,
            bytes: FileBytes::Owned { words: Vec::new(), len: 0 },
        };
        let index = FullTextIndex { bytes, ..index };
        index.validate(n, nb).map_err(|(at, what)| bad(at, what))?;
        Ok(index)
    }

    /// Every check [`FullTextIndex::open`] promises: sorted UTF-8 terms, each with at
    /// least one block, blocks in range that decode to ascending rows below `rows`, block
    /// records that match their postings, and each row's frequencies summing to its
    /// length. Errors carry the file offset and what is wrong there.
    fn validate(&self, n: usize, nb: usize) -> Result<(), (usize, String)> {
        let b = self.b();
        let o = self.offsets();
        let text = &b[self.term_bytes.clone()];
        if o[0] != 0 || o[n] != text.len() as u64 || o.windows(2).any(|w| w[0] > w[1]) {
            return Err((self.term_offsets.start, "term offsets do not rise from 0 to the byte count".into()));
        }
        for t in 1..n {
            if self.term(t - 1) >= self.term(t) {
                return Err((self.term_offsets.start + 8 * t, format!("term {t} is not above term {}", t - 1)));
            }
        }
        if std::str::from_utf8(text).is_err() {
            return Err((self.term_bytes.start, "terms are not UTF-8".into()));
        }
        let (tb, tw) = (self.term_blocks(), self.term_words());
        if tb[0] != 0 || tb[n] as usize != nb || tb.windows(2).any(|w| w[0] >= w[1]) {
            return Err((self.term_blocks.start, format!("term blocks do not rise by at least 1 from 0 to {nb}")));
        }
        let words = self.words();
        if tw[0] != 0 || tw[n] as usize != words.len() || !self.postings.len().is_multiple_of(8) {
            return Err((self.term_words.start, format!("term words do not run from 0 to {}", words.len())));
        }
        let lengths = self.lengths();
        let mut summed = vec![0u64; self.rows];
        let (mut docs, mut tfs) = ([0u32; BLOCK], [0u32; BLOCK]);
        let recs: &[u32] = cast_slice(&b[self.blocks.clone()]).expect("aligned section");
        for t in 0..n {
            let (mut word, mut prev) = (tw[t] as usize, None);
            for blk in tb[t] as usize..tb[t + 1] as usize {
                let at = self.blocks.start + 4 * RECORD_WORDS * blk;
                let Some(r) = Record::decode(&recs[RECORD_WORDS * blk..RECORD_WORDS * (blk + 1)]) else {
                    return Err((at, format!("block {blk} has a count above {BLOCK} or a width above 32")));
                };
                let end = word + r.words();
                let fine = words.get(word..end).and_then(|w| blocks::decode_block(&r, prev, w, &mut docs, &mut tfs));
                let k = r.count as usize;
                if fine.is_none()
                    || end > tw[t + 1] as usize
                    || docs[k - 1] != r.last_doc
                    || r.last_doc as usize >= self.rows
                {
                    return Err((
                        at,
                        format!(
                            "block {blk} of term {t} does not decode to rows below {} ending at its last row",
                            self.rows
                        ),
                    ));
                }
                let max_tf = tfs[..k].iter().copied().max().unwrap_or(0);
                let min_len = docs[..k].iter().map(|&d| lengths[d as usize]).min().unwrap_or(0);
                if (max_tf, min_len) != (r.max_tf, r.min_len) {
                    return Err((
                        at,
                        format!(
                            "block {blk} records ({}, {}) as its largest frequency and shortest row, its postings ({max_tf}, {min_len})",
                            r.max_tf, r.min_len
                        ),
                    ));
                }
                for (&d, &f) in docs[..k].iter().zip(&tfs[..k]) {
                    summed[d as usize] += f as u64;
                }
                (word, prev) = (end, Some(r.last_doc));
            }
            if word != tw[t + 1] as usize {
                return Err((
                    self.term_words.start + 8 * (t + 1),
                    format!("term {t}'s blocks end at word {word}, not where term {} starts", t + 1),
                ));
            }
        }
        if let Some(row) = (0..self.rows).find(|&r| summed[r] != lengths[r] as u64) {
            return Err((
                self.lengths.start + 4 * row,
                format!("row {row} has length {}, its postings {}", lengths[row], summed[row]),
            ));
        }
        let total: u64 = lengths.iter().map(|&l| l as u64).sum();
        if total != self.total_len || lengths.iter().filter(|&&l| l > 0).count() as u64 > self.docs {
            return Err((
                self.lengths.start,
                format!(
                    "lengths sum to {total} over rows with text; the meta says {} over {} rows",
                    self.total_len, self.docs
                ),
            ));
        }
        Ok(())
    }
}

pub(crate) use crate::index::wand::END;

/// A cursor over one term's postings, rows ascending. `doc()` is [`END`] once past the
/// last. Blocks are decoded only when a row in them is asked for: [`Postings::shallow`]
/// moves over block records alone.
pub(crate) struct Postings<'a> {
    index: &'a FullTextIndex,
    /// The current block, and one past the term's last.
    block: usize,
    end: usize,
    /// First word of the current block.
    word: usize,
    record: Record,
    /// Last row of the block before the current one.
    prev_last: Option<u32>,
    /// Whether `docs` and `tfs` hold the current block.
    decoded: bool,
    docs: [u32; BLOCK],
    tfs: [u32; BLOCK],
    at: usize,
    doc: u32,
}

impl Postings<'_> {
    /// The current row, or [`END`].
    pub(crate) fn doc(&self) -> u32 {
        self.doc
    }

    /// The term's frequency in the current row.
    pub(crate) fn tf(&self) -> u32 {
        self.tfs[self.at]
    }

    /// Moves the block pointer (not the row) to the block holding the first row at or
    /// after `target`; false when no block does. Decodes nothing.
    pub(crate) fn shallow(&mut self, target: u32) -> bool {
        while self.record.last_doc < target {
            self.block += 1;
            if self.block >= self.end {
                return false;
            }
            self.word += self.record.words();
            self.prev_last = Some(self.record.last_doc);
            self.record = self.index.record(self.block);
            self.decoded = false;
        }
        true
    }

    /// The current block's record (after [`Postings::shallow`], the block it moved to).
    pub(crate) fn block(&self) -> &Record {
        &self.record
    }

    /// Moves to the first row at or after `target` (never backwards).
    pub(crate) fn advance(&mut self, target: u32) {
        if self.doc == END || (self.decoded && self.doc >= target) {
            return;
        }
        if !self.shallow(target) {
            self.doc = END;
            return;
        }
        if !self.decoded {
            let w = &self.index.words()[self.word..self.word + self.record.words()];
            blocks::decode_block(&self.record, self.prev_last, w, &mut self.docs, &mut self.tfs)
                .expect("validated on open");
            self.decoded = true;
            self.at = 0;
        }
        let n = self.record.count as usize;
        while self.at < n && self.docs[self.at] < target {
            self.at += 1;
        }
        self.doc = self.docs[self.at];
    }
}
