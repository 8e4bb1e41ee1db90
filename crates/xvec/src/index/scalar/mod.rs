//! Scalar indexes of one segment's field, one file each (`SEG-<id>-f<field id>-inv.idx`,
//! `-rng.idx`): what turns a selective filter from a scan of the column into a lookup.
//!
//! - An **inverted** index holds each distinct value once, sorted (numbers and bools as
//!   order-preserving `u64` keys, strings as bytes), with the rows holding it: a sorted
//!   `u32` list, or a bitmap of the segment's rows once that is smaller. `=`, `IN`, ranges
//!   over few values and `LIKE 'prefix%'` cost a binary search and their matches; any
//!   other `LIKE` is matched against the distinct values instead of every row.
//! - A **range** index holds every non-null row's key, sorted, with its row: a range
//!   over many distinct values costs two binary searches and the rows it selects.
//!
//! An inverted index of an array field keys each distinct element, with the rows holding
//! it (`CONTAIN_ANY` is a union of postings, `CONTAIN_ALL` an intersection).
//!
//! Both are built when a segment is written (flush, optimize) or by `add-index`, mapped in
//! place, checksummed like every container, and fully validated on open, so a lookup can
//! index them without a check. The planner in `filter/eval.rs` asks [`ScalarIndex::find`]
//! first and scans the column when it answers `None` (a scan is cheaper).

mod build;
mod keys;
#[cfg(test)]
mod tests;

use std::ops::{Bound, Range};
use std::path::{Path, PathBuf};

use roaring::RoaringBitmap;
use serde::{Deserialize, Serialize};

pub(crate) use build::build;
pub(crate) use keys::{float_extremes, float_key, int_key, value_of_key};

use crate::error::StorageError;
use crate::schema::{FieldType, ScalarIndexKind, ScalarType};
use crate::storage::column::{ArrayColumn, ColumnData, ColumnSource, ScalarColumn};
use crate::storage::container::{self, RawSection};
use crate::storage::mmap::{FileBytes, cast_slice};

/// Section kinds of a scalar index file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u16)]
enum Kind {
    Meta = 0,
    /// `u64` keys: an inverted index's distinct values, a range index's every value.
    Keys = 1,
    TermOffsets = 2,
    TermBytes = 3,
    /// Per distinct value two `u64`: byte offset of its postings, then count | bytes << 32.
    Directory = 4,
    Postings = 5,
    /// A range index's row of each key.
    Rows = 6,
}

/// The name of section kind `kind` of a scalar index file, for findings.
pub(crate) fn section_name(kind: u16) -> Option<&'static str> {
    use Kind::*;
    [Meta, Keys, TermOffsets, TermBytes, Directory, Postings, Rows].into_iter().find(|k| *k as u16 == kind).map(|k| {
        match k {
            Meta => "meta",
            Keys => "keys",
            TermOffsets => "term offsets",
            TermBytes => "term bytes",
            Directory => "postings directory",
            Postings => "postings",
            Rows => "rows",
        }
    })
}

/// Whether an index holds row `row` of `col`: it has a value, and not a NaN.
fn indexable(col: &ScalarColumn, row: usize) -> bool {
    col.validity.is_valid(row) && (matches!(col.data, ColumnData::String(_)) || keys::key_of(col, row).is_some())
}

/// The column a scalar index is built from and checked against: a scalar field's rows,
/// or an array field's elements.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Indexed<'a> {
    Scalar(ScalarColumn<'a>),
    Array(ArrayColumn<'a>),
}

impl<'a> Indexed<'a> {
    /// The column of field `pos` (of type `ty`, a scalar or array type) of `src`.
    pub(crate) fn of(src: &'a dyn ColumnSource, ty: &FieldType, pos: usize) -> Indexed<'a> {
        match ty {
            FieldType::Array(_) => Indexed::Array(src.array(pos)),
            _ => Indexed::Scalar(src.scalar(pos)),
        }
    }

    /// Each indexed value as (values, index), with the row holding it, rows ascending:
    /// every non-null row of a scalar column, every element of an array's rows.
    fn entries(&self) -> (ColumnData<'a>, Vec<(u32, u32)>) {
        match self {
            Indexed::Scalar(c) => {
                let rows = c.data.len() as u32;
                (c.data, (0..rows).filter(|&r| c.validity.is_valid(r as usize)).map(|r| (r, r)).collect())
            }
            Indexed::Array(a) => {
                let rows = a.rows();
                let valid = (0..rows).filter(|&r| a.validity.is_valid(r));
                (a.elems, valid.flat_map(|r| a.range(r).map(move |i| (i as u32, r as u32))).collect())
            }
        }
    }

    /// The (row, distinct value) pairs an index of this column holds: what its postings
    /// add up to. NaNs are held by none.
    pub(crate) fn held(&self) -> u64 {
        match self {
            Indexed::Scalar(c) => (0..c.data.len()).filter(|&r| indexable(c, r)).count() as u64,
            Indexed::Array(a) => {
                let rows = a.rows();
                let mut held = 0u64;
                let mut seen: Vec<ElementKey> = Vec::new();
                for r in (0..rows).filter(|&r| a.validity.is_valid(r)) {
                    seen.clear();
                    seen.extend(a.range(r).filter_map(|i| element_key(a.elems, i)));
                    seen.sort_unstable();
                    seen.dedup();
                    held += seen.len() as u64;
                }
                held
            }
        }
    }
}

/// What an index keys a value by: a string's bytes, a number's or bool's `u64` key
/// (ordered as the values are).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum ElementKey<'a> {
    Term(&'a [u8]),
    Key(u64),
}

/// Value `i` of `d` as its index key; `None` for a NaN.
pub(crate) fn element_key(d: ColumnData<'_>, i: usize) -> Option<ElementKey<'_>> {
    let one = ScalarColumn { validity: crate::storage::column::Validity(None), data: d };
    match d {
        ColumnData::String(v) => Some(ElementKey::Term(v.get(i))),
        _ => keys::key_of(&one, i).map(ElementKey::Key),
    }
}

/// Whether an index built over a column of type `built` (its meta's name) serves a
/// column of type `now`: the same type, or one it widened to with every value keeping
/// its key (a scalar's index serves its array type: each element is keyed as the value
/// was).
fn serves(built: &str, now: &FieldType) -> bool {
    let Some(b) = FieldType::scalar_or_array(built) else { return false };
    let (Some(x), Some(y)) = (b.element(), now.element()) else { return false };
    b == *now || (b.widens_to(now) && (x == y || x.keeps_index_keys(y)))
}

/// Results of a range lookup holding at least `rows / DENSE` rows are gathered in a
/// bitmap of the segment's rows before conversion (sorting them costs more).
const DENSE: usize = 256;

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
struct Meta {
    kind: String,
    #[serde(rename = "type")]
    ty: String,
    rows: u64,
    /// Distinct values (inverted) or non-null values (range).
    entries: u64,
}

#[cfg(test)]
thread_local! {
    /// Tests set it to answer from the index even where a scan would be cheaper, so that
    /// small segments exercise the index paths too.
    pub static ALWAYS_ANSWER: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether an index answers a lookup it estimates slower than a scan (tests only).
fn always_answer() -> bool {
    #[cfg(test)]
    return ALWAYS_ANSWER.with(|a| a.get());
    #[cfg(not(test))]
    false
}

/// A test on a string index's distinct values (a LIKE pattern).
pub(crate) type TermTest<'a> = &'a dyn Fn(&[u8]) -> bool;

/// What a filter leaf asks an index for.
pub(crate) enum Lookup<'a> {
    /// Fixed-width keys in any of these inclusive ranges (ascending, disjoint).
    Keys(&'a [(u64, u64)]),
    /// Terms between the bounds (byte order) for which `keep` holds (every one without it).
    Terms { lo: Bound<&'a [u8]>, hi: Bound<&'a [u8]>, keep: Option<TermTest<'a>> },
    /// Exactly these terms (any order).
    TermSet(&'a [&'a [u8]]),
}

/// One open scalar index file.
pub(crate) struct ScalarIndex {
    path: PathBuf,
    bytes: FileBytes,
    kind: ScalarIndexKind,
    rows: usize,
    keys: Range<usize>,
    /// Offsets and bytes of a string field's distinct values.
    terms: Option<(Range<usize>, Range<usize>)>,
    directory: Range<usize>,
    postings: Range<usize>,
    row_ids: Range<usize>,
}

impl std::fmt::Debug for ScalarIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScalarIndex")
            .field("path", &self.path)
            .field("kind", &self.kind)
            .field("rows", &self.rows)
            .finish()
    }
}

impl ScalarIndex {
    pub(crate) fn file_len(&self) -> u64 {
        self.bytes.as_slice().len() as u64
    }

    /// Distinct values (inverted) or non-null values (range).
    #[cfg(test)]
    pub(crate) fn entries(&self) -> usize {
        self.key_count()
    }

    fn b(&self) -> &[u8] {
        self.bytes.as_slice()
    }

    fn fixed_keys(&self) -> &[u64] {
        cast_slice(&self.b()[self.keys.clone()]).expect("validated on open")
    }

    fn term_offsets(&self) -> &[u64] {
        self.terms.as_ref().map_or(&[], |(o, _)| cast_slice(&self.b()[o.clone()]).expect("validated on open"))
    }

    fn term(&self, t: usize) -> &[u8] {
        let (offsets, bytes) = (self.term_offsets(), &self.terms.as_ref().expect("a string index").1);
        &self.b()[bytes.start + offsets[t] as usize..bytes.start + offsets[t + 1] as usize]
    }

    fn key_count(&self) -> usize {
        match &self.terms {
            Some(_) => self.term_offsets().len() - 1,
            None => self.keys.len() / 8,
        }
    }

    fn directory(&self) -> &[u64] {
        cast_slice(&self.b()[self.directory.clone()]).expect("validated on open")
    }

    /// Rows of distinct value `t`.
    fn posting_count(&self, t: usize) -> u64 {
        self.directory()[2 * t + 1] & u64::from(u32::MAX)
    }

    /// The rows of distinct value `t`: its serialized bitmap, read without the checks
    /// `open` made once (a copy of its containers, no per-row work).
    fn posting(&self, t: usize) -> RoaringBitmap {
        let dir = self.directory();
        let (at, len) = (dir[2 * t] as usize, (dir[2 * t + 1] >> 32) as usize);
        let bytes = &self.b()[self.postings.start + at..self.postings.start + at + len];
        RoaringBitmap::deserialize_unchecked_from(bytes).expect("validated on open")
    }

    /// Whether the index holds row `row` under each of its values in `col` (the column it
    /// was built from), and, for a scalar column, nowhere when the row has no value: what
    /// `verify` samples.
    pub(crate) fn holds_row(&self, col: &Indexed, row: usize) -> bool {
        let a = match col {
            Indexed::Scalar(c) => return self.holds_scalar_row(c, row),
            Indexed::Array(a) => a,
        };
        if !a.validity.is_valid(row) || self.kind != ScalarIndexKind::Inverted {
            return a.range(row).is_empty() || self.kind == ScalarIndexKind::Inverted;
        }
        a.range(row).all(|i| {
            let t = match (&self.terms, element_key(a.elems, i)) {
                (Some(_), Some(ElementKey::Term(v))) => {
                    Some(self.term_partition(|t| t < v)).filter(|&t| t < self.key_count() && self.term(t) == v)
                }
                (None, Some(ElementKey::Key(k))) => {
                    let keys = self.fixed_keys();
                    Some(keys.partition_point(|&x| x < k)).filter(|&t| t < keys.len() && keys[t] == k)
                }
                // A NaN is in no index.
                (None, None) => return true,
                _ => None,
            };
            t.is_some_and(|t| self.posting(t).contains(row as u32))
        })
    }

    fn holds_scalar_row(&self, col: &ScalarColumn, row: usize) -> bool {
        let term = match (&self.terms, col.data) {
            (Some(_), ColumnData::String(v)) => match col.validity.is_valid(row) {
                true => Some(self.term_partition(|t| t < v.get(row)))
                    .filter(|&t| t < self.key_count() && self.term(t) == v.get(row)),
                false => None,
            },
            (None, _) => keys::key_of(col, row).map(|k| self.fixed_keys().partition_point(|&x| x < k)),
            _ => return false,
        };
        let Some(t) = term else { return !indexable(col, row) };
        let r = row as u32;
        match self.kind {
            ScalarIndexKind::Range => {
                let (keys, k) = (self.fixed_keys(), keys::key_of(col, row));
                let end = keys.partition_point(|&x| Some(x) <= k);
                let ids: &[u32] = cast_slice(&self.b()[self.row_ids.clone()]).expect("validated on open");
                k.is_some() && ids[t..end].contains(&r)
            }
            ScalarIndexKind::Inverted => {
                if t >= self.key_count() || self.terms.is_none() && Some(self.fixed_keys()[t]) != keys::key_of(col, row)
                {
                    return false;
                }
                self.posting(t).contains(r)
            }
        }
    }

    /// An inverted index's distinct values (`None` for a range index).
    pub(crate) fn distinct(&self) -> Option<usize> {
        (self.kind == ScalarIndexKind::Inverted).then(|| self.key_count())
    }

    /// Each distinct value of an inverted index, in order, with how many of its rows are
    /// among `allowed` (all of them without): what facets count. Empty for a range index.
    pub(crate) fn counts<'s, 'a>(
        &'s self,
        allowed: Option<&'a RoaringBitmap>,
    ) -> impl Iterator<Item = (ElementKey<'s>, u64)> + use<'s, 'a> {
        let n = self.distinct().unwrap_or(0);
        (0..n).map(move |t| {
            let key = match &self.terms {
                Some(_) => ElementKey::Term(self.term(t)),
                None => ElementKey::Key(self.fixed_keys()[t]),
            };
            let rows = allowed.map_or_else(|| self.posting_count(t), |a| self.posting(t).intersection_len(a));
            (key, rows)
        })
    }

    /// Rows the index holds: the postings' total (inverted) or its entries (range).
    pub(crate) fn held_rows(&self) -> u64 {
        match self.kind {
            ScalarIndexKind::Inverted => (0..self.key_count()).map(|t| self.posting_count(t)).sum(),
            ScalarIndexKind::Range => self.key_count() as u64,
        }
    }

    /// The rows holding one of the values `lookup` selects, or `None` when a scan of the
    /// column is the cheaper way to find them (or this kind cannot answer it).
    pub(crate) fn find(&self, lookup: &Lookup) -> Option<RoaringBitmap> {
        match self.kind {
            ScalarIndexKind::Inverted => self.find_terms(lookup),
            ScalarIndexKind::Range => self.find_range(lookup),
        }
    }

    fn find_terms(&self, lookup: &Lookup) -> Option<RoaringBitmap> {
        let rows = self.rows;
        let n = self.key_count();
        let mut picked: Vec<Range<usize>> = Vec::new();
        match (lookup, &self.terms) {
            (Lookup::Keys(ranges), None) => {
                let keys = self.fixed_keys();
                for &(lo, hi) in *ranges {
                    let a = keys.partition_point(|&k| k < lo);
                    let b = keys.partition_point(|&k| k <= hi);
                    if a < b {
                        picked.push(a..b);
                    }
                }
            }
            (Lookup::Terms { lo, hi, keep }, Some(_)) => {
                let a = match lo {
                    Bound::Included(x) => self.term_partition(|t| t < *x),
                    Bound::Excluded(x) => self.term_partition(|t| t <= *x),
                    Bound::Unbounded => 0,
                };
                let b = match hi {
                    Bound::Included(x) => self.term_partition(|t| t <= *x),
                    Bound::Excluded(x) => self.term_partition(|t| t < *x),
                    Bound::Unbounded => n,
                };
                match keep {
                    // Testing every distinct value costs what testing every row does once
                    // they are as many as half the rows.
                    Some(_) if b.saturating_sub(a) * 2 > rows && !always_answer() => return None,
                    Some(keep) => picked.extend((a..b).filter(|&t| keep(self.term(t))).map(|t| t..t + 1)),
                    None if a < b => picked.push(a..b),
                    None => {}
                }
            }
            (Lookup::TermSet(set), Some(_)) => {
                let mut found: Vec<usize> = set
                    .iter()
                    .filter_map(|x| {
                        let t = self.term_partition(|t| t < *x);
                        (t < n && self.term(t) == *x).then_some(t)
                    })
                    .collect();
                found.sort_unstable();
                found.dedup();
                picked.extend(found.into_iter().map(|t| t..t + 1));
            }
            _ => return None,
        }
        let terms: usize = picked.iter().map(|r| r.len()).sum();
        // A union costs about 0.26 µs a posting; a scan per row about 1.5 ns over numbers
        // and 5.5 ns over strings, more for an IN list (a binary search per row). So a
        // span of values is scanned once it holds more than rows/170 (numbers) or rows/48
        // (strings) distinct values; a list of points never is (`index_scan_crossover`).
        let per_posting = match (lookup, &self.terms) {
            (Lookup::Keys(ranges), None) if ranges.iter().any(|(a, b)| a < b) => 170,
            (Lookup::Terms { keep: None, .. }, Some(_)) => 48,
            _ => 0,
        };
        if terms * per_posting > rows && !always_answer() {
            return None;
        }
        Some(self.union(picked.into_iter().flatten()))
    }

    /// First distinct value for which `below` fails (values are sorted).
    fn term_partition(&self, below: impl Fn(&[u8]) -> bool) -> usize {
        let (mut lo, mut hi) = (0, self.key_count());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if below(self.term(mid)) { lo = mid + 1 } else { hi = mid }
        }
        lo
    }

    /// The rows of the postings of distinct values `terms`, merged container by
    /// container in one pass (ORing them one at a time into a growing bitmap cost 5 µs a
    /// posting at 256 postings: `index_scan_crossover`).
    fn union(&self, terms: impl Iterator<Item = usize>) -> RoaringBitmap {
        use roaring::MultiOps;
        terms.map(|t| self.posting(t)).union()
    }

    fn find_range(&self, lookup: &Lookup) -> Option<RoaringBitmap> {
        let Lookup::Keys(ranges) = lookup else { return None };
        let keys = self.fixed_keys();
        let spans: Vec<Range<usize>> = ranges
            .iter()
            .map(|&(lo, hi)| keys.partition_point(|&k| k < lo)..keys.partition_point(|&k| k <= hi))
            .filter(|r| !r.is_empty())
            .collect();
        let total: usize = spans.iter().map(|r| r.len()).sum();
        let rows = self.rows;
        let ids: &[u32] = cast_slice(&self.b()[self.row_ids.clone()]).expect("validated on open");
        let selected = spans.into_iter().flat_map(|r| ids[r].iter().copied());
        if total * DENSE >= rows {
            let mut words = vec![0u64; rows.div_ceil(64)];
            selected.for_each(|r| words[r as usize / 64] |= 1 << (r % 64));
            return Some(RoaringBitmap::from_lsb0_bytes(0, crate::storage::mmap::as_bytes(&words)));
        }
        let mut all: Vec<u32> = selected.collect();
        all.sort_unstable();
        Some(RoaringBitmap::from_sorted_iter(all).expect("sorted"))
    }

    /// Opens and fully validates the `kind` index of the field at schema position `field`
    /// (of type `ty`) of segment `segment_id` with `rows` rows.
    pub(crate) fn open(
        path: &Path,
        segment_id: u64,
        field: u16,
        kind: ScalarIndexKind,
        ty: &FieldType,
        rows: usize,
        mmap: bool,
    ) -> Result<ScalarIndex, StorageError> {
        let elem = ty.element().unwrap_or(ScalarType::Double);
        let want = sections_of(kind, elem);
        let bytes = FileBytes::open(path, mmap)?;
        let kinds: Vec<u16> = want.iter().map(|&k| k as u16).collect();
        let what = format!("a {} index", kind.name());
        let sections = container::read_sections(path, &bytes, segment_id, field, &kinds, &what)?;
        let file = Opening { path, b: bytes.as_slice(), want, sections: &sections };
        let n = file.entries(kind, ty, rows)?;
        let empty = 0..0;
        let mut index = ScalarIndex {
            path: path.to_path_buf(),
            kind,
            rows,
            keys: empty.clone(),
            terms: None,
            directory: empty.clone(),
            postings: empty.clone(),
            row_ids: empty,
            bytes: FileBytes::Owned { words: Vec::new(), len: 0 },
        };
        match elem {
            ScalarType::String => index.terms = Some(file.terms(n)?),
            _ => index.keys = file.keys(n, kind == ScalarIndexKind::Inverted)?,
        }
        match kind {
            ScalarIndexKind::Inverted => (index.directory, index.postings) = file.postings(n, rows)?,
            ScalarIndexKind::Range => index.row_ids = file.row_ids(n, rows)?,
        }
        index.bytes = bytes;
        Ok(index)
    }
}

/// The sections a `kind` index over `elem` values has, in file order.
fn sections_of(kind: ScalarIndexKind, elem: ScalarType) -> &'static [Kind] {
    match (kind, elem) {
        (ScalarIndexKind::Inverted, ScalarType::String) => {
            &[Kind::Meta, Kind::TermOffsets, Kind::TermBytes, Kind::Directory, Kind::Postings]
        }
        (ScalarIndexKind::Inverted, _) => &[Kind::Meta, Kind::Keys, Kind::Directory, Kind::Postings],
        (ScalarIndexKind::Range, _) => &[Kind::Meta, Kind::Keys, Kind::Rows],
    }
}

/// A scalar index file being opened: its bytes and sections (those `want` names, in that
/// order), each step of [`ScalarIndex::open`] validating one part of it.
struct Opening<'a> {
    path: &'a Path,
    b: &'a [u8],
    want: &'a [Kind],
    sections: &'a [RawSection],
}

impl Opening<'_> {
    fn bad(&self, offset: usize, what: String) -> StorageError {
        StorageError::corrupted(self.path, offset as u64, what)
    }

    fn section(&self, k: Kind) -> &RawSection {
        &self.sections[self.want.iter().position(|&w| w == k).expect("read_sections checked it")]
    }

    /// The range of section `k`, which must be `len` bytes.
    fn sized(&self, k: Kind, len: usize) -> Result<Range<usize>, StorageError> {
        let sec = self.section(k);
        if sec.len != len as u64 {
            return Err(self
                .bad(sec.offset as usize, format!("section kind {} of {} bytes, expected {len}", k as u16, sec.len)));
        }
        Ok(sec.range())
    }

    /// The number of entries the meta records, once the meta describes a `kind` index of
    /// a column of type `ty` with `rows` rows.
    fn entries(&self, kind: ScalarIndexKind, ty: &FieldType, rows: usize) -> Result<usize, StorageError> {
        // An array row holds up to MAX_ARRAY_LEN distinct values.
        let most = if ty.is_array() { rows.saturating_mul(crate::schema::MAX_ARRAY_LEN) } else { rows };
        let m = self.section(Kind::Meta);
        let meta: Meta = serde_json::from_slice(&self.b[m.range()])
            .map_err(|e| self.bad(m.offset as usize, format!("meta: {e}")))?;
        // An index of a column widened since it was built serves as it is: the widenings
        // that may keep their indexes map every value to the same key.
        if meta.kind != kind.name() || !serves(&meta.ty, ty) || meta.rows != rows as u64 || meta.entries > most as u64 {
            return Err(self.bad(
                m.offset as usize,
                format!(
                    "a {} index of a {} column of {} rows with {} entries; expected a {} index of a {} column of {rows} rows",
                    meta.kind,
                    meta.ty,
                    meta.rows,
                    meta.entries,
                    kind.name(),
                    ty.name()
                ),
            ));
        }
        Ok(meta.entries as usize)
    }

    /// The term offsets and bytes of a string index's `n` distinct values: offsets rising
    /// from 0 to the byte count, terms strictly ascending, all UTF-8.
    fn terms(&self, n: usize) -> Result<(Range<usize>, Range<usize>), StorageError> {
        let b = self.b;
        let offsets = self.sized(Kind::TermOffsets, 8 * (n + 1))?;
        let bytes_s = self.section(Kind::TermBytes);
        let o: &[u64] = cast_slice(&b[offsets.clone()]).expect("aligned section");
        if o[0] != 0 || o[n] != bytes_s.len || o.windows(2).any(|w| w[0] > w[1]) {
            return Err(self.bad(offsets.start, "term offsets do not rise from 0 to the byte count".into()));
        }
        let text = &b[bytes_s.range()];
        for t in 1..n {
            let (p, q) = (&text[o[t - 1] as usize..o[t] as usize], &text[o[t] as usize..o[t + 1] as usize]);
            if p >= q {
                return Err(self.bad(offsets.start + 8 * t, format!("term {t} is not above term {}", t - 1)));
            }
        }
        if std::str::from_utf8(text).is_err() {
            return Err(self.bad(bytes_s.offset as usize, "terms are not UTF-8".into()));
        }
        Ok((offsets, bytes_s.range()))
    }

    /// The `n` keys of a fixed-width index, in order (`strictly` ascending for an
    /// inverted index, whose keys are distinct).
    fn keys(&self, n: usize, strictly: bool) -> Result<Range<usize>, StorageError> {
        let keys = self.sized(Kind::Keys, 8 * n)?;
        let k: &[u64] = cast_slice(&self.b[keys.clone()]).expect("aligned section");
        if let Some(i) = k.windows(2).position(|w| if strictly { w[0] >= w[1] } else { w[0] > w[1] }) {
            return Err(self.bad(keys.start + 8 * (i + 1), format!("key {} is out of order", i + 1)));
        }
        Ok(keys)
    }

    /// An inverted index's directory and postings: each of the `n` entries a bitmap of
    /// its count of rows below `rows`, one after another with nothing after the last.
    fn postings(&self, n: usize, rows: usize) -> Result<(Range<usize>, Range<usize>), StorageError> {
        let directory = self.sized(Kind::Directory, 16 * n)?;
        let postings_at = self.section(Kind::Postings).range();
        let dir: &[u64] = cast_slice(&self.b[directory.clone()]).expect("aligned section");
        let postings = &self.b[postings_at.clone()];
        let mut end = 0;
        for t in 0..n {
            let (at, count, len) = (dir[2 * t] as usize, dir[2 * t + 1] & 0xffff_ffff, (dir[2 * t + 1] >> 32) as usize);
            let here = directory.start + 16 * t;
            let Some(p) = postings.get(at..at.saturating_add(len)).filter(|_| at == end) else {
                return Err(self.bad(
                    here,
                    format!("postings of entry {t} (offset {at}, {len} bytes) do not follow entry {}", t.max(1) - 1),
                ));
            };
            end = at + len;
            let fine = RoaringBitmap::deserialize_from(p).ok().filter(|bm| {
                bm.len() == count
                    && count > 0
                    && bm.max().is_some_and(|m| (m as usize) < rows)
                    && bm.serialized_size() == len
            });
            if fine.is_none() {
                return Err(self.bad(
                    postings_at.start + at,
                    format!("postings of entry {t} are not a bitmap of {count} rows below {rows}"),
                ));
            }
        }
        if end != postings.len() {
            return Err(self.bad(postings_at.start + end, "bytes after the last postings".into()));
        }
        Ok((directory, postings_at))
    }

    /// A range index's `n` row ids, each below `rows`.
    fn row_ids(&self, n: usize, rows: usize) -> Result<Range<usize>, StorageError> {
        let row_ids = self.sized(Kind::Rows, 4 * n)?;
        let ids: &[u32] = cast_slice(&self.b[row_ids.clone()]).expect("aligned section");
        if let Some(i) = ids.iter().position(|&r| r as usize >= rows) {
            return Err(self.bad(row_ids.start + 4 * i, format!("row {} is not below {rows}", ids[i])));
        }
        Ok(row_ids)
    }
}
