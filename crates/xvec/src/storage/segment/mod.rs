//! Immutable columnar segment files: writing them from row selections of other segments,
//! and opening them (mapped or read) with every section checked before first use.
//!
//! A segment is a [container](super::container): a meta section (`rows u64`), the fields
//! section (its [layout](layout::Layout)), the key sections, then each stored field's
//! sections (see `docs/format.md`). It is read under the collection's current schema,
//! which may have added, dropped, renamed or widened fields since it was written.

mod adapt;
pub(crate) mod damage;
pub(crate) mod layout;
mod write;

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use half::f16;
use roaring::RoaringBitmap;

pub(crate) use self::write::{Part, write};
use super::column::{
    ArrayColumn, ColumnData, ColumnSource, Offsets, ScalarColumn, SegmentView, Validity, VarColumn, VectorColumn,
    VectorData,
};
use super::container::{self, RawSection};
use super::mmap::{FileBytes, cast_slice};
use super::{FileKind, read_u64};
use crate::error::StorageError;
use crate::schema::{FieldType, ScalarType, Schema, VectorType};
use adapt::Owned;
use damage::{Damage, RebuiltVar};
use layout::{Layout, StoredType};

/// Most rows one segment may hold (row ids are u32).
pub(crate) const MAX_ROWS: u64 = u32::MAX as u64;

/// What a section holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u16)]
pub(crate) enum SectionKind {
    Meta = 0,
    KeyOffsets = 1,
    KeyBytes = 2,
    KeyOrder = 3,
    Validity = 4,
    Fixed = 5,
    VarOffsets = 6,
    VarBytes = 7,
    Vectors = 8,
    Norms = 9,
    Fields = 10,
    ArrayOffsets = 11,
}

impl SectionKind {
    pub(crate) fn from_code(code: u16) -> Option<SectionKind> {
        use SectionKind::*;
        [
            Meta,
            KeyOffsets,
            KeyBytes,
            KeyOrder,
            Validity,
            Fixed,
            VarOffsets,
            VarBytes,
            Vectors,
            Norms,
            Fields,
            ArrayOffsets,
        ]
        .into_iter()
        .find(|k| *k as u16 == code)
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            SectionKind::Meta => "meta",
            SectionKind::KeyOffsets => "key offsets",
            SectionKind::KeyBytes => "key bytes",
            SectionKind::KeyOrder => "key order",
            SectionKind::Validity => "validity",
            SectionKind::Fixed => "values",
            SectionKind::VarOffsets => "string offsets",
            SectionKind::VarBytes => "string bytes",
            SectionKind::Vectors => "vectors",
            SectionKind::Norms => "norms",
            SectionKind::Fields => "fields",
            SectionKind::ArrayOffsets => "array offsets",
        }
    }
}

/// Field number used for the key sections, which belong to no schema field.
pub(crate) const NO_FIELD: u16 = u16::MAX;

/// Euclidean norm of row `r` of a vector column.
pub(crate) fn norm_of(col: &VectorColumn, r: usize) -> f32 {
    let range = r * col.dim..(r + 1) * col.dim;
    let sq: f64 = match col.data {
        VectorData::Fp32(d) => d[range].iter().map(|&x| (x as f64) * (x as f64)).sum(),
        VectorData::Fp16(d) => d[range].iter().map(|x| x.to_f64() * x.to_f64()).sum(),
        VectorData::Int8(d) => d[range].iter().map(|&x| (x as f64) * (x as f64)).sum(),
    };
    sq.sqrt() as f32
}

/// Where one field's sections sit in the file.
#[derive(Clone, Debug, Default)]
struct FieldSections {
    validity: Option<Range<usize>>,
    /// An array field's offsets into its elements (`data`, `var_bytes`).
    array_offsets: Option<Range<usize>>,
    data: Range<usize>,
    var_bytes: Option<Range<usize>>,
    norms: Option<Range<usize>>,
}

/// An open immutable segment.
pub(crate) struct Segment {
    id: u64,
    path: PathBuf,
    bytes: FileBytes,
    rows: usize,
    sections: Vec<RawSection>,
    keys: (Range<usize>, Range<usize>),
    key_order: Range<usize>,
    /// What the file stores, and where: one entry of `stored` per layout field.
    layout: Layout,
    stored: Vec<FieldSections>,
    /// Each schema field's column: a stored one, or one made at open.
    columns: Vec<Column>,
    /// The file has no fields section (version 1 or 2): its layout came from outside.
    legacy: bool,
    schema: Arc<Schema>,
    /// What damaged blocks cost, when checksums failed (see [`damage`]).
    damage: Option<Box<Damage>>,
    /// The keys rebuilt without the unreadable ones, when their sections are damaged.
    rebuilt_keys: Option<RebuiltVar>,
    /// The key order rebuilt over the readable keys, when its section or the keys are
    /// damaged.
    rebuilt_order: Option<Vec<u32>>,
    /// Per layout field: a string column rebuilt without its unreadable rows.
    rebuilt_var: Vec<Option<RebuiltVar>>,
}

/// Where the column of one schema field comes from.
enum Column {
    /// The layout field at this position, stored as the schema types it.
    Stored(usize),
    /// Made at open: the field is missing from the file or stored narrower.
    Owned(Owned),
}

impl std::fmt::Debug for Segment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Segment").field("path", &self.path).field("rows", &self.rows).finish()
    }
}

impl Segment {
    /// Opens and validates a segment just written under `schema` ([`Segment::open_with`]
    /// without a legacy layout): a damaged block is an error here, not rows to leave out.
    pub(crate) fn open(
        path: &Path,
        schema: Arc<Schema>,
        mmap: bool,
        verify_data: bool,
    ) -> Result<Segment, StorageError> {
        let seg = Segment::open_with(path, schema, None, mmap, verify_data)?;
        match seg.damage() {
            Some(d) => Err(StorageError::corrupted(path, 0, format!("checksum mismatch: {}", d.blocks.join("; ")))),
            None => Ok(seg),
        }
    }

    /// Opens and validates a segment. With `verify_data`, every section's CRC is checked
    /// (vectors included); without, only the sections whose content is interpreted. A
    /// block that fails its checksum leaves its rows out ([`Segment::damage`]), but in the
    /// meta and fields sections, which fail the open.
    /// `legacy` is the layout of files older than the fields section (version 1 and 2):
    /// the manifest's, once fields have changed; by default the schema's own.
    pub(crate) fn open_with(
        path: &Path,
        schema: Arc<Schema>,
        legacy: Option<&Layout>,
        mmap: bool,
        verify_data: bool,
    ) -> Result<Segment, StorageError> {
        let bytes = FileBytes::open(path, mmap)?;
        let (b, crcs) = (bytes.as_slice(), bytes.checksummer()?);
        let vectors = SectionKind::Vectors as u16;
        let mut bad_blocks = Vec::new();
        let (id, raw) = container::read_tolerant(
            path,
            b,
            FileKind::Segment,
            |k| verify_data || k != vectors,
            |r, block| crcs.block_crcs(r, block),
            &mut bad_blocks,
        )?;
        let bad = |offset: u64, what: String| StorageError::corrupted(path, offset, what);
        let version = super::decode_header_version(path, b, FileKind::Segment)?.1;
        // The meta and fields sections say what the rest means: without them, nothing reads.
        if let Some(x) = bad_blocks.iter().find(|x| x.section < 2) {
            let what = format!("section {} checksum mismatch", x.section);
            return Err(bad(x.bytes.start, what));
        }
        let layout = stored_layout(path, b, version, &raw, || legacy.cloned().unwrap_or_else(|| Layout::of(&schema)))?;
        let plan = layout.sections(version >= LAYOUT_SINCE);
        if raw.len() != plan.len() {
            return Err(bad(32, format!("{} sections, the fields section lists {}", raw.len(), plan.len())));
        }
        let meta = raw[0];
        if meta.kind != SectionKind::Meta as u16 || meta.len != 8 {
            return Err(bad(meta.offset, "first section is not the 8-byte meta section".into()));
        }
        let rows = read_u64(b, meta.offset as usize);
        if rows > MAX_ROWS {
            return Err(bad(meta.offset, format!("row count {rows} exceeds {MAX_ROWS}")));
        }
        let rows = rows as usize;
        let mut sections: Vec<RawSection> = Vec::with_capacity(raw.len());
        let mut stored = vec![FieldSections::default(); layout.fields.len()];
        let mut keys = [0..0, 0..0, 0..0];
        for (i, (s, want)) in raw.iter().zip(&plan).enumerate() {
            if s.kind != want.kind as u16 || s.field != want.tag {
                return Err(bad(
                    s.offset,
                    format!(
                        "section {i} has kind {} of field {}, expected {} of field {}",
                        s.kind,
                        s.field,
                        want.kind.name(),
                        want.tag
                    ),
                ));
            }
            // A length that comes from the damaged section before it cannot be checked.
            let after_damage = i > 0 && bad_blocks.iter().any(|x| x.section == i - 1);
            if !after_damage
                && let Some(expected) = expected_len(&layout, want, rows, b, &sections)
                && expected != s.len
            {
                return Err(bad(
                    s.offset,
                    format!("{} section is {} bytes, expected {expected} for {rows} rows", want.kind.name(), s.len),
                ));
            }
            sections.push(*s);
            let Some(f) = want.field else {
                match want.kind {
                    SectionKind::KeyOffsets => keys[0] = s.range(),
                    SectionKind::KeyBytes => keys[1] = s.range(),
                    SectionKind::KeyOrder => keys[2] = s.range(),
                    _ => {}
                }
                continue;
            };
            let fs = &mut stored[f];
            match want.kind {
                SectionKind::Validity => fs.validity = Some(s.range()),
                SectionKind::Vectors => {
                    bytes.advise_random_access(s.range());
                    fs.data = s.range()
                }
                SectionKind::Fixed | SectionKind::VarOffsets => fs.data = s.range(),
                SectionKind::VarBytes => fs.var_bytes = Some(s.range()),
                SectionKind::ArrayOffsets => fs.array_offsets = Some(s.range()),
                SectionKind::Norms => fs.norms = Some(s.range()),
                _ => {}
            }
        }
        let [key_offsets, key_bytes, key_order] = keys;
        let mut seg = Segment {
            id,
            path: path.to_path_buf(),
            bytes,
            rows,
            keys: (key_offsets, key_bytes),
            key_order,
            layout,
            stored,
            columns: Vec::new(),
            legacy: version < LAYOUT_SINCE,
            sections,
            schema,
            damage: None,
            rebuilt_keys: None,
            rebuilt_order: None,
            rebuilt_var: Vec::new(),
        };
        seg.rebuilt_var = (0..seg.layout.fields.len()).map(|_| None).collect();
        if !bad_blocks.is_empty() {
            seg.read_around(&plan, &bad_blocks);
        }
        seg.check_var_columns()?;
        seg.columns = seg.columns_for_schema()?;
        Ok(seg)
    }

    /// Maps each schema field to its stored column, widened or made where the file
    /// stores it otherwise (see [`adapt`]).
    fn columns_for_schema(&self) -> Result<Vec<Column>, StorageError> {
        let mut out = Vec::with_capacity(self.schema.fields().len());
        for (pos, field) in self.schema.fields().iter().enumerate() {
            let Some(at) = self.layout.position_of_id(self.schema.field_id(pos)) else {
                out.push(Column::Owned(Owned::missing(field, self.rows)?));
                continue;
            };
            let stored = self.layout.fields[at].ty;
            if stored.array_elem().is_some() && self.array_lost(at) {
                out.push(Column::Owned(Owned::missing(field, self.rows)?));
                continue;
            }
            if stored == StoredType::of(&field.ty) {
                out.push(Column::Stored(at));
                continue;
            }
            let widened = match (stored, &field.ty) {
                (StoredType::Scalar(_), FieldType::Scalar(to)) => Owned::widened(self.stored_scalar(at), *to),
                (StoredType::Scalar(_), FieldType::Array(to)) => Owned::as_arrays(self.stored_scalar(at), *to),
                (StoredType::Array(_), FieldType::Array(to)) => Owned::widened_array(self.stored_array(at), *to),
                _ => None,
            };
            let Some(widened) = widened else {
                return Err(StorageError::corrupted(
                    &self.path,
                    32,
                    format!(
                        "field `{}` is stored as {stored:?}, which does not widen to {}",
                        field.name,
                        field.ty.name()
                    ),
                ));
            };
            out.push(Column::Owned(widened));
        }
        Ok(out)
    }

    /// Whether the file stores exactly the schema's fields, as the schema types them: a
    /// segment that does not holds bytes of dropped fields or columns made at open, and
    /// optimize rewrites it.
    pub(crate) fn stores_schema(&self) -> bool {
        self.layout == Layout::of(&self.schema)
    }

    /// Whether the file predates the fields section, so its layout is the manifest's
    /// legacy schema's (or the schema's own).
    pub(crate) fn is_legacy(&self) -> bool {
        self.legacy
    }

    /// The schema the segment is read under.
    pub(crate) fn schema(&self) -> &Arc<Schema> {
        &self.schema
    }

    /// Offsets must rise and stay within their bytes, text must be UTF-8, key order
    /// must be a permutation: checked once here so readers can index without checks.
    fn check_var_columns(&self) -> Result<(), StorageError> {
        let b = self.bytes.as_slice();
        let check = |offsets: Range<usize>, bytes: Range<usize>, what: &str| -> Result<(), StorageError> {
            let offs: &[u64] = cast_slice(&b[offsets.clone()]).expect("aligned and sized at open");
            let data = &b[bytes.clone()];
            let mut prev = 0u64;
            for (i, &o) in offs.iter().enumerate() {
                if o < prev || o > data.len() as u64 || (i == 0 && o != 0) {
                    return Err(StorageError::corrupted(
                        &self.path,
                        (offsets.start + i * 8) as u64,
                        format!("{what} offset {i} is {o}, expected {prev}..={}", data.len()),
                    ));
                }
                if i > 0 && std::str::from_utf8(&data[prev as usize..o as usize]).is_err() {
                    return Err(StorageError::corrupted(
                        &self.path,
                        bytes.start as u64 + prev,
                        format!("{what} of row {} is not UTF-8", i - 1),
                    ));
                }
                prev = o;
            }
            if prev != data.len() as u64 {
                return Err(StorageError::corrupted(
                    &self.path,
                    offsets.end as u64 - 8,
                    format!("{what} end offset {prev} differs from the {} bytes stored", data.len()),
                ));
            }
            Ok(())
        };
        if self.rebuilt_keys.is_none() {
            check(self.keys.0.clone(), self.keys.1.clone(), "key")?;
        }
        for (at, f) in self.stored.iter().enumerate() {
            if self.array_lost(at) {
                continue;
            }
            if let Some(offsets) = &f.array_offsets {
                self.check_array_offsets(at, offsets.clone())?;
            }
            if let Some(bytes) = &f.var_bytes
                && self.rebuilt_var[at].is_none()
            {
                check(f.data.clone(), bytes.clone(), &self.stored_name(at))?;
            }
        }
        if self.rebuilt_order.is_some() {
            return Ok(());
        }
        let order: &[u32] = cast_slice(&b[self.key_order.clone()]).expect("aligned and sized at open");
        let mut seen = vec![false; self.rows];
        for (i, &r) in order.iter().enumerate() {
            if r as usize >= self.rows || std::mem::replace(&mut seen[r as usize], true) {
                return Err(StorageError::corrupted(
                    &self.path,
                    (self.key_order.start + i * 4) as u64,
                    format!("key order entry {i} is {r}: not a permutation of 0..{}", self.rows),
                ));
            }
        }
        Ok(())
    }

    /// An array field's offsets rise from 0, by at most [`crate::MAX_ARRAY_LEN`] a row
    /// ([`crate::MAX_SPARSE_LEN`] for a sparse field, whose words must also be ascending
    /// dimensions with finite values) and none across a null row (the elements' own
    /// sections were sized by the last).
    fn check_array_offsets(&self, at: usize, offsets: Range<usize>) -> Result<(), StorageError> {
        let offs: &[u64] = self.slice(offsets.clone());
        let validity = self.validity(at);
        let sparse = matches!(self.layout.fields[at].ty, StoredType::Sparse(_));
        let most = if sparse { crate::sparse::MAX_SPARSE_LEN } else { crate::schema::MAX_ARRAY_LEN };
        for (i, w) in offs.windows(2).enumerate() {
            let len = w[1].checked_sub(w[0]);
            let fine = match len {
                Some(n) if validity.is_valid(i) => n as usize <= most,
                Some(n) => n == 0,
                None => false,
            };
            if !fine || offs[0] != 0 {
                return Err(StorageError::corrupted(
                    &self.path,
                    (offsets.start + i * 8) as u64,
                    format!(
                        "{} array offsets of row {i} are {}..{}: not rising from 0 by at most {most} a row (0 for a null)",
                        self.stored_name(at),
                        w[0],
                        w[1],
                    ),
                ));
            }
        }
        if sparse {
            let words = self.stored_array(at);
            if let Some(r) = (0..self.rows).find(|&r| !crate::sparse::valid_words(words.sparse_words(r))) {
                let fixed = self.stored[at].data.start + 8 * offs[r] as usize;
                let what = format!("{} row {r}: dimensions not ascending or a value not finite", self.stored_name(at));
                return Err(StorageError::corrupted(&self.path, fixed as u64, what));
            }
        }
        Ok(())
    }

    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    /// Rows in the segment, deleted ones included.
    pub(crate) fn rows(&self) -> usize {
        self.rows
    }

    /// Reads the mapped file without read-ahead from now on ([`FileBytes::read_on_demand`]):
    /// for a handle under a memory budget.
    pub(crate) fn read_on_demand(&self) {
        self.bytes.read_on_demand();
    }

    pub(crate) fn file_len(&self) -> u64 {
        self.bytes.as_slice().len() as u64
    }

    pub(crate) fn is_mapped(&self) -> bool {
        self.bytes.is_mapped()
    }

    /// Heap bytes: the file's, when read rather than mapped, and the columns made at open.
    pub(crate) fn heap_bytes(&self) -> usize {
        let made: usize = self.columns.iter().map(|c| if let Column::Owned(o) = c { o.heap_bytes() } else { 0 }).sum();
        self.bytes.heap_bytes() + made
    }

    /// Bytes of all vector sections (what exact search reads).
    pub(crate) fn vector_bytes(&self) -> usize {
        self.sections.iter().filter(|s| s.kind == SectionKind::Vectors as u16).map(|s| s.len as usize).sum()
    }

    /// Rows whose key starts with `prefix`, in key order: a binary search to the first,
    /// then a walk that stops at the first key past the prefix.
    pub(crate) fn rows_with_key_prefix<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = u32> + 'a {
        let order = self.order();
        let keys = self.keys();
        let first = order.partition_point(|&r| keys.get(r as usize) < prefix.as_bytes());
        order[first..].iter().copied().take_while(move |&r| keys.get(r as usize).starts_with(prefix.as_bytes()))
    }

    /// Row holding `key`, by binary search over the key order.
    pub(crate) fn find_key(&self, key: &str) -> Option<u32> {
        let order = self.order();
        let keys = self.keys();
        order.binary_search_by(|&r| keys.get(r as usize).cmp(key.as_bytes())).ok().map(|i| order[i])
    }

    /// Row ids in key order (over the readable keys only, when keys are damaged).
    pub(crate) fn order(&self) -> &[u32] {
        match &self.rebuilt_order {
            Some(o) => o,
            None => self.slice(self.key_order.clone()),
        }
    }

    /// What the damaged blocks of the file cost, if any failed their checksum.
    pub(crate) fn damage(&self) -> Option<&Damage> {
        self.damage.as_deref()
    }

    /// The file's path.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the array or sparse column at layout position `at` is unreadable: its
    /// elements belong to rows only through offsets that must all hold.
    fn array_lost(&self, at: usize) -> bool {
        self.damage.as_ref().is_some_and(|d| d.lost_fields.contains(&at))
    }

    /// Reads around the damaged blocks `bad` (the file's sections follow `plan`): the rows
    /// they hold become [`Damage::rows`], damaged keys and strings are rebuilt without
    /// them, a damaged key order is rebuilt, and a damaged array column reads as missing
    /// (every row lost: its elements belong to rows only through intact offsets).
    fn read_around(&mut self, plan: &[layout::PlannedSection], bad: &[container::BadBlock]) {
        let (d, keys, vars, order_bad) = self.damaged_rows(plan, bad);
        self.rebuilt_keys = keys;
        self.rebuilt_var = vars;
        if order_bad {
            let keys = self.keys();
            let mut order: Vec<u32> = (0..self.rows as u32).filter(|r| !d.keys_lost.contains(*r)).collect();
            order.sort_by(|&x, &y| keys.get(x as usize).cmp(keys.get(y as usize)));
            self.rebuilt_order = Some(order);
        }
        self.damage = Some(Box::new(d));
    }

    /// [`Segment::read_around`]'s findings: the damage, the keys and string columns
    /// rebuilt, and whether the key order must be rebuilt.
    #[allow(clippy::type_complexity)]
    fn damaged_rows(
        &self,
        plan: &[layout::PlannedSection],
        bad: &[container::BadBlock],
    ) -> (Damage, Option<RebuiltVar>, Vec<Option<RebuiltVar>>, bool) {
        let b = self.bytes.as_slice();
        let rows = self.rows;
        let mut d = Damage::default();
        let rel = |i: usize| -> Vec<Range<usize>> {
            let s = &self.sections[i];
            bad.iter()
                .filter(|x| x.section == i)
                .map(|x| (x.bytes.start - s.offset) as usize..(x.bytes.end - s.offset) as usize)
                .collect()
        };
        let find =
            |kind: SectionKind, field: Option<usize>| plan.iter().position(|p| p.kind == kind && p.field == field);
        let mut order_bad = false;
        for i in bad.iter().map(|x| x.section).collect::<std::collections::BTreeSet<_>>() {
            let want = &plan[i];
            let s = &self.sections[i];
            let n = bad.iter().filter(|x| x.section == i).count();
            let whose = want.field.map_or(String::new(), |at| format!(" of {}", self.stored_name(at)));
            let blocks = match s.block_count() {
                0 => "whole section".to_string(),
                total => format!("{n} of {total} blocks"),
            };
            d.blocks.push(format!("{}{whose}: {blocks} at offset {}", want.kind.name(), s.offset));
            match (want.kind, want.field) {
                (SectionKind::KeyOrder, _) => order_bad = true,
                (SectionKind::KeyOffsets | SectionKind::KeyBytes, _) => {}
                (_, Some(at)) if self.layout.fields[at].ty.array_elem().is_some() => {
                    d.rows.insert_range(0..rows as u32);
                    d.lost_fields.push(at);
                }
                (SectionKind::VarOffsets | SectionKind::VarBytes, Some(_)) => {}
                (kind, Some(at)) => {
                    let width = match self.layout.fields[at].ty {
                        StoredType::Scalar(t) => t.width().unwrap_or(1),
                        StoredType::Vector { elem, dim, .. } if kind == SectionKind::Vectors => {
                            dim as usize * elem.elem_size()
                        }
                        _ => 4,
                    };
                    d.rows |= damage::rows_hit(kind, width, &rel(i), rows);
                }
                _ => {}
            }
        }
        let var = |off: Option<usize>, data: Option<usize>| -> Option<(RebuiltVar, RoaringBitmap)> {
            let (o, v) = (off?, data?);
            let (bo, bv) = (rel(o), rel(v));
            if bo.is_empty() && bv.is_empty() {
                return None;
            }
            let (so, sv) = (&self.sections[o], &self.sections[v]);
            Some(damage::rebuild_var(&b[so.range()], &bo, &b[sv.range()], &bv, rows))
        };
        let mut keys = None;
        if let Some((k, lost)) = var(find(SectionKind::KeyOffsets, None), find(SectionKind::KeyBytes, None)) {
            d.rows |= &lost;
            d.keys_lost = lost;
            keys = Some(k);
            order_bad = true;
        }
        let mut vars: Vec<Option<RebuiltVar>> = (0..self.layout.fields.len()).map(|_| None).collect();
        for (at, slot) in vars.iter_mut().enumerate() {
            if self.layout.fields[at].ty != StoredType::Scalar(ScalarType::String) {
                continue;
            }
            if let Some((col, lost)) =
                var(find(SectionKind::VarOffsets, Some(at)), find(SectionKind::VarBytes, Some(at)))
            {
                d.rows |= lost;
                *slot = Some(col);
            }
        }
        (d, keys, vars, order_bad)
    }

    fn slice<T: super::mmap::Plain>(&self, r: Range<usize>) -> &[T] {
        cast_slice(&self.bytes.as_slice()[r]).expect("section aligned and sized at open")
    }

    fn validity(&self, at: usize) -> Validity<'_> {
        Validity(self.stored[at].validity.clone().map(|r| &self.bytes.as_slice()[r]))
    }

    /// How errors name the stored field at layout position `at`.
    fn stored_name(&self, at: usize) -> String {
        let id = self.layout.fields[at].id;
        match self.schema.position_of_id(id) {
            Some(pos) => format!("field `{}`", self.schema.field(pos).name),
            None => format!("dropped field id {id}"),
        }
    }

    /// The stored scalar column at layout position `at`, as the file types it.
    fn stored_scalar(&self, at: usize) -> ScalarColumn<'_> {
        let StoredType::Scalar(ty) = self.layout.fields[at].ty else {
            panic!("stored field {at} is not a scalar field");
        };
        ScalarColumn { validity: self.validity(at), data: self.stored_values(at, ty) }
    }

    /// The stored array column at layout position `at`, as the file types it.
    fn stored_array(&self, at: usize) -> ArrayColumn<'_> {
        let Some(ty) = self.layout.fields[at].ty.array_elem() else {
            panic!("stored field {at} is not an array field");
        };
        let offsets = self.slice(self.stored[at].array_offsets.clone().expect("array field has offsets"));
        ArrayColumn {
            validity: self.validity(at),
            offsets: Offsets::Stored(offsets),
            elems: self.stored_values(at, ty),
        }
    }

    /// The values of the stored field at `at`: a scalar's rows, an array's elements.
    fn stored_values(&self, at: usize, ty: ScalarType) -> ColumnData<'_> {
        if let Some(v) = &self.rebuilt_var[at] {
            return ColumnData::String(VarColumn::stored(&v.offsets, &v.bytes));
        }
        let fs = &self.stored[at];
        let b = self.bytes.as_slice();
        let var_bytes = fs.var_bytes.clone().map_or(&[][..], |r| &b[r]);
        ColumnData::from_bytes(ty, &b[fs.data.clone()], var_bytes).expect("section aligned and sized at open")
    }
}

/// Layout version from which segments carry their fields section.
pub(crate) const LAYOUT_SINCE: u32 = 3;

/// The layout of a segment file: its fields section (version 3 on), else `legacy()`.
pub(crate) fn stored_layout(
    path: &Path,
    file: &[u8],
    version: u32,
    raw: &[RawSection],
    legacy: impl FnOnce() -> Layout,
) -> Result<Layout, StorageError> {
    if version < LAYOUT_SINCE {
        return Ok(legacy());
    }
    let s = raw
        .get(1)
        .filter(|s| s.kind == SectionKind::Fields as u16 && s.field == NO_FIELD)
        .ok_or_else(|| StorageError::corrupted(path, 32, "second section is not the fields section".to_string()))?;
    Layout::decode(&file[s.range()]).map_err(|e| StorageError::corrupted(path, s.offset, e))
}

/// The layout a segment file, perhaps damaged, claims, and whether its sections name
/// fields by id: its fields section when the header and section table read and that
/// section's checksum holds, else `legacy()`. For verify and repair.
pub(crate) fn claimed_layout(path: &Path, file: &[u8], legacy: impl FnOnce() -> Layout) -> (Layout, bool) {
    let version =
        super::decode_header_version(path, file, FileKind::Segment).map_or(FileKind::Segment.version(), |v| v.1);
    if version < LAYOUT_SINCE {
        return (legacy(), false);
    }
    let fields = SectionKind::Fields as u16;
    let read = container::read(path, file, FileKind::Segment, |k| k == fields)
        .ok()
        .and_then(|(_, raw)| stored_layout(path, file, version, &raw, || unreachable!("version 3 or later")).ok());
    (read.unwrap_or_else(legacy), true)
}

/// Expected byte length of a section, given the rows; `None` for variable-length bytes.
fn expected_len(
    layout: &Layout,
    sec: &layout::PlannedSection,
    rows: usize,
    file: &[u8],
    before: &[RawSection],
) -> Option<u64> {
    let rows = rows as u64;
    let ty = sec.field.map(|f| layout.fields[f].ty);
    // The last offset of the section just before this one.
    let last_offset = || {
        let offs = before.last()?;
        let end = offs.offset + offs.len;
        (offs.len >= 8).then(|| read_u64(file, end as usize - 8))
    };
    // An array's elements follow its offsets: as many as the last offset says.
    let values = match ty {
        Some(t)
            if t.array_elem().is_some()
                && sec.kind != SectionKind::ArrayOffsets
                && sec.kind != SectionKind::Validity =>
        {
            last_offset()?
        }
        _ => rows,
    };
    match sec.kind {
        SectionKind::Meta => Some(8),
        SectionKind::Fields => Some((layout.fields.len() * layout::ENTRY_LEN) as u64),
        SectionKind::KeyOffsets | SectionKind::ArrayOffsets => Some((rows + 1) * 8),
        SectionKind::VarOffsets => values.checked_add(1)?.checked_mul(8),
        SectionKind::KeyOrder | SectionKind::Norms => Some(rows * 4),
        SectionKind::Validity => Some(rows.div_ceil(8)),
        SectionKind::Fixed => {
            match ty.and_then(|t| t.array_elem().or(if let StoredType::Scalar(s) = t { Some(s) } else { None })) {
                Some(s) => s.width()?.checked_mul(values as usize).map(|n| n as u64),
                None => None,
            }
        }
        SectionKind::Vectors => match ty {
            Some(StoredType::Vector { elem, dim, .. }) => Some((dim as usize * elem.elem_size()) as u64 * rows),
            _ => None,
        },
        // Must equal the last offset of the section just before it.
        SectionKind::KeyBytes | SectionKind::VarBytes => last_offset(),
    }
}

impl ColumnSource for Segment {
    fn rows(&self) -> usize {
        self.rows
    }

    fn keys(&self) -> VarColumn<'_> {
        match &self.rebuilt_keys {
            Some(k) => VarColumn::stored(&k.offsets, &k.bytes),
            None => VarColumn::stored(self.slice(self.keys.0.clone()), &self.bytes.as_slice()[self.keys.1.clone()]),
        }
    }

    fn scalar(&self, field: usize) -> ScalarColumn<'_> {
        match &self.columns[field] {
            Column::Stored(at) => self.stored_scalar(*at),
            Column::Owned(o) => o.scalar().unwrap_or_else(|| panic!("field {field} is not a scalar field")),
        }
    }

    fn array(&self, field: usize) -> ArrayColumn<'_> {
        match &self.columns[field] {
            Column::Stored(at) => self.stored_array(*at),
            Column::Owned(o) => o.array().unwrap_or_else(|| panic!("field {field} is not an array field")),
        }
    }
}

impl SegmentView for Segment {
    fn vector(&self, field: usize) -> VectorColumn<'_> {
        let FieldType::Vector(spec) = &self.schema.field(field).ty else {
            panic!("field {field} is not a vector field");
        };
        let at = match &self.columns[field] {
            Column::Stored(at) => *at,
            Column::Owned(o) => return o.vector(spec.elem, spec.dim as usize, self.rows).expect("a vector column"),
        };
        let fs = &self.stored[at];
        let data = match spec.elem {
            VectorType::Fp32 => VectorData::Fp32(self.slice(fs.data.clone())),
            VectorType::Fp16 => VectorData::Fp16(self.slice::<f16>(fs.data.clone())),
            VectorType::Int8 => VectorData::Int8(self.slice(fs.data.clone())),
        };
        VectorColumn {
            dim: spec.dim as usize,
            validity: self.validity(at),
            data,
            norms: fs.norms.clone().map(|r| self.slice(r)),
        }
    }
}
