//! A segment read around its damaged blocks: which rows the blocks whose checksum failed
//! hold, and the variable-length columns (keys, strings) rebuilt without those rows, so
//! every other row stays readable until `repair` writes the segment again. The same row
//! arithmetic tells verify and repair what a damaged block costs (`verify/salvage.rs`).

use std::ops::Range;

use roaring::RoaringBitmap;

use super::SectionKind;
use crate::storage::mmap::cast_slice;

/// What the damaged blocks of an open segment cost.
#[derive(Clone, Debug, Default)]
pub(crate) struct Damage {
    /// Rows whose key or a value lies in a damaged block: left out of every read.
    pub rows: RoaringBitmap,
    /// Rows among them whose key is unreadable too.
    pub keys_lost: RoaringBitmap,
    /// Where the damage is, for messages: `vectors of field `v`: 1 of 844 blocks at offset ...`.
    pub blocks: Vec<String>,
    /// Layout positions of the array and sparse fields whose column is unreadable.
    pub lost_fields: Vec<usize>,
}

/// A variable-length column rebuilt without its unreadable rows (they read as empty).
#[derive(Debug)]
pub(crate) struct RebuiltVar {
    pub offsets: Vec<u64>,
    pub bytes: Vec<u8>,
}

/// Rows of a section of `kind` (each row `width` bytes; validity bits; or offsets) whose
/// bytes meet `bad` (byte ranges relative to the section start), below `rows`.
pub(crate) fn rows_hit(kind: SectionKind, width: usize, bad: &[Range<usize>], rows: usize) -> RoaringBitmap {
    let mut out = RoaringBitmap::new();
    for r in bad.iter().filter(|r| !r.is_empty()) {
        let (first, last) = match kind {
            SectionKind::Validity => (r.start * 8, r.end * 8 - 1),
            // Entry `e` bounds rows `e - 1` and `e`.
            SectionKind::KeyOffsets | SectionKind::VarOffsets => ((r.start / 8).saturating_sub(1), (r.end - 1) / 8),
            _ => (r.start / width.max(1), (r.end - 1) / width.max(1)),
        };
        if first < rows {
            out.insert_range(first as u32..=last.min(rows - 1) as u32);
        }
    }
    out
}

/// Rows whose value of a variable-length column meets `bad` (relative to its bytes),
/// judged by the offsets it has; entries outside the bytes count as hits.
pub(crate) fn var_rows_hit(offsets: &[u64], bad: &[Range<usize>], rows: usize) -> RoaringBitmap {
    let mut out = RoaringBitmap::new();
    if bad.is_empty() {
        return out;
    }
    for r in 0..rows.min(offsets.len().saturating_sub(1)) {
        let (a, b) = (offsets[r] as usize, offsets[r + 1] as usize);
        if bad.iter().any(|x| a < x.end && x.start < b.max(a + 1)) {
            out.insert(r as u32);
        }
    }
    out
}

/// The `rows` values of a variable-length column (offsets and bytes sections, with the
/// damaged ranges of each relative to its start) rebuilt without the rows those ranges
/// touch or whose offsets or UTF-8 do not hold; returns it and the rows lost.
pub(crate) fn rebuild_var(
    offsets: &[u8],
    bad_offsets: &[Range<usize>],
    data: &[u8],
    bad_data: &[Range<usize>],
    rows: usize,
) -> (RebuiltVar, RoaringBitmap) {
    let offs: &[u64] = cast_slice(offsets).filter(|o| o.len() == rows + 1).unwrap_or(&[]);
    let mut lost = rows_hit(SectionKind::VarOffsets, 8, bad_offsets, rows);
    lost |= var_rows_hit(offs, bad_data, rows);
    let mut out = RebuiltVar { offsets: Vec::with_capacity(rows + 1), bytes: Vec::new() };
    out.offsets.push(0);
    for r in 0..rows {
        let value = (!lost.contains(r as u32))
            .then(|| {
                let (a, b) = (*offs.get(r)? as usize, *offs.get(r + 1)? as usize);
                data.get(a..b)
            })
            .flatten()
            .filter(|v| std::str::from_utf8(v).is_ok());
        match value {
            Some(v) => out.bytes.extend_from_slice(v),
            None => {
                lost.insert(r as u32);
            }
        }
        out.offsets.push(out.bytes.len() as u64);
    }
    (out, lost)
}
