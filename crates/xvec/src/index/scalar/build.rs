//! Writing a scalar index from a segment's column.

use std::path::Path;

use super::keys::key_of;
use super::{Indexed, Kind, Meta};
use crate::error::StorageError;
use crate::schema::{FieldType, ScalarIndexKind};
use crate::storage::FileKind;
use crate::storage::column::{ColumnData, ScalarColumn, Validity};
use crate::storage::container;
use crate::storage::mmap::as_bytes;

/// Writes the `kind` index of `col` (the field with id `field`, of type `ty`, `rows` rows
/// of segment `segment_id`) through a temp file renamed to `path`; returns its size. The
/// caller publishes it (the rename is made durable by the publish).
pub(crate) fn build(
    path: &Path,
    segment_id: u64,
    field: u16,
    kind: ScalarIndexKind,
    ty: &FieldType,
    col: &Indexed,
    rows: usize,
) -> Result<u64, StorageError> {
    let meta = |entries: usize| {
        let m = Meta { kind: kind.name().into(), ty: ty.name().into(), rows: rows as u64, entries: entries as u64 };
        serde_json::to_vec(&m).expect("meta serializes")
    };
    let write = |parts: &[(Kind, &[u8])]| -> Result<u64, StorageError> {
        let sections: Vec<(u16, u16, &[u8])> = parts.iter().map(|&(k, b)| (k as u16, field, b)).collect();
        container::write_file(path, FileKind::Index, segment_id, &sections)
    };
    // Each value with its row, in row order (an array row holds several).
    let (data, mut entries) = col.entries();
    let values = ScalarColumn { validity: Validity(None), data };
    match (kind, data) {
        (ScalarIndexKind::Inverted, ColumnData::String(v)) => {
            entries.sort_by(|&(a, _), &(b, _)| v.get(a as usize).cmp(v.get(b as usize)));
            let groups = runs(entries.len(), |i| v.get(entries[i - 1].0 as usize) == v.get(entries[i].0 as usize));
            let mut offsets = vec![0u64];
            let mut text = Vec::new();
            for g in &groups {
                text.extend_from_slice(v.get(entries[g.start].0 as usize));
                offsets.push(text.len() as u64);
            }
            let order: Vec<u32> = entries.iter().map(|e| e.1).collect();
            let (dir, postings) = postings(&order, &groups);
            let meta = meta(groups.len());
            write(&[
                (Kind::Meta, &meta),
                (Kind::TermOffsets, as_bytes(&offsets)),
                (Kind::TermBytes, &text),
                (Kind::Directory, as_bytes(&dir)),
                (Kind::Postings, &postings),
            ])
        }
        (_, _) => {
            let mut pairs: Vec<(u64, u32)> =
                entries.iter().filter_map(|&(i, r)| key_of(&values, i as usize).map(|k| (k, r))).collect();
            pairs.sort_unstable();
            let order: Vec<u32> = pairs.iter().map(|p| p.1).collect();
            match kind {
                ScalarIndexKind::Inverted => {
                    let groups = runs(pairs.len(), |i| pairs[i - 1].0 == pairs[i].0);
                    let keys: Vec<u64> = groups.iter().map(|g| pairs[g.start].0).collect();
                    let (dir, postings) = postings(&order, &groups);
                    let meta = meta(groups.len());
                    write(&[
                        (Kind::Meta, &meta),
                        (Kind::Keys, as_bytes(&keys)),
                        (Kind::Directory, as_bytes(&dir)),
                        (Kind::Postings, &postings),
                    ])
                }
                ScalarIndexKind::Range => {
                    let keys: Vec<u64> = pairs.iter().map(|p| p.0).collect();
                    let meta = meta(keys.len());
                    write(&[(Kind::Meta, &meta), (Kind::Keys, as_bytes(&keys)), (Kind::Rows, as_bytes(&order))])
                }
            }
        }
    }
}

/// Runs of equal values among `n` sorted ones; `same(i)` tells whether value `i` equals
/// value `i - 1`.
fn runs(n: usize, same: impl Fn(usize) -> bool) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..=n {
        if i == n || !same(i) {
            out.push(start..i);
            start = i;
        }
    }
    if n == 0 {
        out.clear();
    }
    out
}

/// The directory (two words per value: byte offset, then count | bytes << 32) and
/// postings (each value's rows as a serialized roaring bitmap, back to back) of `groups`,
/// runs of `order` with one value each, rows ascending within a run.
fn postings(order: &[u32], groups: &[std::ops::Range<usize>]) -> (Vec<u64>, Vec<u8>) {
    let mut dir = Vec::with_capacity(2 * groups.len());
    let mut bytes: Vec<u8> = Vec::new();
    for g in groups {
        // Rows ascend within a run; an array row holding a value twice is listed once.
        let mut last = None;
        let distinct = order[g.clone()].iter().copied().filter(|&r| last.replace(r) != Some(r));
        let rows = roaring::RoaringBitmap::from_sorted_iter(distinct).expect("rows ascending");
        dir.push(bytes.len() as u64);
        let at = bytes.len();
        rows.serialize_into(&mut bytes).expect("a Vec takes every write");
        dir.push(rows.len() | ((bytes.len() - at) as u64) << 32);
    }
    (dir, bytes)
}
