//! Getting a manifest back when the live one is damaged, in order of confidence:
//! the body verifies (only the header or length was hit); one damaged byte restored by
//! its checksum; the body parses although its checksum does not match (the checksum
//! field was hit); and last, only the schema (and options) salvaged from a damaged body,
//! from which [`rebuild`] rolls the manifest forward from the files in the directory.

use std::path::Path;

use roaring::RoaringBitmap;
use serde::Deserialize;

use super::crc;
use crate::schema::RawSchema;
use crate::storage::manifest::{CollectionOptions, DeletesEntry, IndexEntry, Manifest, SegmentEntry};
use crate::storage::{FileKind, read_u32};

/// Bytes of the manifest header before the JSON body (common header, length, CRC, reserved).
const BODY_AT: usize = 48;
const CRC_AT: usize = 40;
/// Bodies larger than this are not searched for a damaged byte.
const FIX_LIMIT: usize = 1 << 20;

/// What could be read of a damaged manifest.
#[derive(Clone, Debug)]
pub(crate) enum Recovered {
    /// The whole manifest, and how it was obtained.
    Whole(Manifest, String),
    /// Only the schema and, if readable, the options and the legacy schema.
    Schema(Salvaged),
    Nothing,
}

/// What a damaged manifest body still tells besides its segments.
#[derive(Clone, Debug)]
pub(crate) struct Salvaged {
    pub schema: RawSchema,
    pub options: Option<CollectionOptions>,
    /// The schema its version 1 and 2 segments were written under (`legacy_schema`).
    pub legacy_schema: Option<RawSchema>,
}

/// Parses a body and checks it the way [`Manifest::decode`] does (by encoding it again).
fn accept(path: &Path, body: &[u8]) -> Option<Manifest> {
    let m: Manifest = serde_json::from_slice(body).ok()?;
    Manifest::decode(path, &m.encode()).ok()
}

/// Recovers what it can of a manifest whose `Manifest::decode` failed.
pub(crate) fn recover(path: &Path, bytes: &[u8]) -> Recovered {
    let Some(body) = bytes.get(BODY_AT..) else { return Recovered::Nothing };
    let stored = read_u32(bytes, CRC_AT);
    if crc32c::crc32c(body) == stored
        && let Some(m) = accept(path, body)
    {
        return Recovered::Whole(m, "its body verifies; the header is rewritten".into());
    }
    if body.len() <= FIX_LIMIT {
        for (at, mask) in crc::single_byte_fixes(body, stored) {
            let mut fixed = body.to_vec();
            fixed[at] ^= mask;
            if let Some(m) = accept(path, &fixed) {
                return Recovered::Whole(m, format!("the damaged byte at offset {} is restored", BODY_AT + at));
            }
        }
    }
    if let Some(m) = accept(path, body) {
        return Recovered::Whole(m, "its body parses although its checksum does not match".into());
    }
    match salvage_value::<RawSchema>(body, b"\"schema\":") {
        Some(schema) => Recovered::Schema(Salvaged {
            schema,
            options: salvage_value(body, b"\"options\":"),
            legacy_schema: salvage_value(body, b"\"legacy_schema\":"),
        }),
        None => Recovered::Nothing,
    }
}

/// The JSON value after the first `key` in a damaged body, if it parses whole.
fn salvage_value<T: for<'de> Deserialize<'de>>(body: &[u8], key: &[u8]) -> Option<T> {
    let at = body.windows(key.len()).position(|w| w == key)? + key.len();
    serde_json::Deserializer::from_slice(&body[at..]).into_iter::<T>().next()?.ok()
}

/// The deleted rows of a damaged delete file (same framing as a manifest), when only its
/// header or checksum field was hit or one damaged byte explains the damage: the bitmap
/// must decode, stay below `rows` and hold the `count` rows the manifest records.
pub(crate) fn recover_deletes(bytes: &[u8], rows: u64, count: u64) -> Option<RoaringBitmap> {
    let body = bytes.get(BODY_AT..)?;
    let stored = read_u32(bytes, CRC_AT);
    let accept = |b: &[u8]| {
        RoaringBitmap::deserialize_from(b)
            .ok()
            .filter(|s| s.len() == count && s.max().is_none_or(|m| (m as u64) < rows))
    };
    if crc32c::crc32c(body) == stored {
        return accept(body);
    }
    if body.len() <= FIX_LIMIT {
        for (at, mask) in crc::single_byte_fixes(body, stored) {
            let mut fixed = body.to_vec();
            fixed[at] ^= mask;
            if let Some(set) = accept(&fixed) {
                return Some(set);
            }
        }
    }
    accept(body)
}

/// A file of the directory, as [`rebuild`] sees it.
pub(crate) struct DirFile<'a> {
    pub name: &'a str,
    pub kind: FileKind,
    pub bytes: u64,
}

/// The numbers in a file name: `SEG-7-000003.del` → [7, 3]; `SEG-7-f002-vec.idx` → [7, 2].
pub(crate) fn name_numbers(name: &str) -> Vec<u64> {
    name.split(|c: char| !c.is_ascii_digit()).filter(|s| !s.is_empty()).filter_map(|s| s.parse().ok()).collect()
}

/// A manifest rolled forward from the files present: every segment file, its newest
/// delete file, its index files, the newest WAL. `rows_of` reads a segment's row count
/// (`None`: unreadable, left out) and `deleted_of` a delete file's count. The schema,
/// options and legacy schema come `from` a damaged or older manifest.
pub(crate) fn rebuild(
    from: Salvaged,
    generation: u64,
    files: &[DirFile],
    rows_of: &dyn Fn(&str) -> Option<u64>,
    deleted_of: &dyn Fn(&str, u64, u64) -> Option<u64>,
) -> Manifest {
    let mut segments: Vec<SegmentEntry> = Vec::new();
    let mut ids: Vec<(u64, &DirFile)> = files
        .iter()
        .filter(|f| f.kind == FileKind::Segment)
        .filter_map(|f| name_numbers(f.name).first().map(|&id| (id, f)))
        .collect();
    ids.sort_by_key(|(id, _)| *id);
    for (id, f) in ids {
        let Some(rows) = rows_of(f.name) else { continue };
        let deletes = files
            .iter()
            .filter(|d| d.kind == FileKind::Deletes && name_numbers(d.name).first() == Some(&id))
            .max_by_key(|d| name_numbers(d.name).get(1).copied().unwrap_or(0))
            .and_then(|d| {
                let count = deleted_of(d.name, id, rows)?;
                Some(DeletesEntry { file: d.name.to_string(), size: d.bytes, count })
            });
        let mut indexes: Vec<IndexEntry> = files
            .iter()
            .filter(|x| x.kind == FileKind::Index && name_numbers(x.name).first() == Some(&id))
            .filter_map(|x| {
                let field = u16::try_from(*name_numbers(x.name).get(1)?).ok()?;
                let kind = crate::storage::index_kind_of_name(x.name)?;
                Some(IndexEntry { field, kind, file: x.name.to_string(), size: x.bytes })
            })
            .collect();
        indexes.sort_by_key(|i| (i.field, i.kind));
        segments.push(SegmentEntry { id, file: f.name.to_string(), rows, size: f.bytes, deletes, indexes });
    }
    let wal_seq = files
        .iter()
        .filter(|f| f.kind == FileKind::Wal)
        .filter_map(|f| name_numbers(f.name).first().copied())
        .max()
        .unwrap_or(1);
    Manifest {
        generation,
        schema: from.schema,
        options: from.options.unwrap_or_default(),
        next_segment_id: segments.iter().map(|s| s.id + 1).max().unwrap_or(1),
        wal_seq,
        // Unknown here: the WAL's own header says (see `Checker::wal`).
        wal_salt: 0,
        // A flush the damage interrupted: its sealed WAL, below the live one, is an orphan
        // that repair keeps in lost+found.
        sealed_wal: None,
        legacy_schema: from.legacy_schema,
        // A set-index's rebuild the damage interrupted is finished by the next optimize.
        rebuilding: Vec::new(),
        time_ms: 0,
        operation: crate::storage::manifest::Operation::Repair,
        segments,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{Field, ScalarType, Schema};

    fn sample() -> Manifest {
        let schema = Schema::builder("t").field(Field::scalar("a", ScalarType::Int32)).build().unwrap();
        let mut m = Manifest::new(&schema, CollectionOptions::default());
        m.next_segment_id = 3;
        m.segments.push(SegmentEntry {
            id: 2,
            file: crate::storage::segment_name(2),
            rows: 10,
            size: 999,
            deletes: None,
            indexes: Vec::new(),
        });
        m
    }

    /// Every single damaged byte of a manifest gives the whole manifest back.
    #[test]
    fn every_damaged_byte_is_recovered_exactly() {
        let m = sample();
        let bytes = m.encode();
        let p = Path::new("MANIFEST-000001");
        for i in 0..bytes.len() {
            for mask in [0x01u8, 0x55] {
                let mut bad = bytes.clone();
                bad[i] ^= mask;
                if Manifest::decode(p, &bad).is_ok() {
                    continue;
                }
                match recover(p, &bad) {
                    Recovered::Whole(back, _) => assert_eq!(back.encode(), bytes, "byte {i} mask {mask:#x}"),
                    other => panic!("byte {i} mask {mask:#x}: {other:?}"),
                }
            }
        }
    }

    #[test]
    fn a_truncated_body_still_yields_its_schema() {
        let m = sample();
        let bytes = m.encode();
        let json = String::from_utf8_lossy(&bytes[BODY_AT..]).into_owned();
        let cut = BODY_AT + json.find("\"next_segment_id\"").unwrap();
        match recover(Path::new("M"), &bytes[..cut]) {
            Recovered::Schema(s) => {
                assert_eq!(serde_json::to_string(&s.schema).unwrap(), serde_json::to_string(&m.schema).unwrap());
                assert_eq!(s.options, Some(CollectionOptions::default()));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_legacy_schema_is_salvaged_beside_the_schema() {
        let mut m = sample();
        let old = Schema::builder("t").field(Field::scalar("b", ScalarType::String)).build().unwrap();
        m.legacy_schema = Some(old.to_stored());
        let mut bytes = m.encode();
        // Two damaged bytes in the segment list: no single-byte fix, the body fails to parse.
        let json = String::from_utf8_lossy(&bytes[BODY_AT..]).into_owned();
        let at = BODY_AT + json.find("\"segments\"").unwrap();
        bytes[at + 1] = b'{';
        bytes[at + 3] = b'[';
        match recover(Path::new("M"), &bytes) {
            Recovered::Schema(s) => {
                let text = |r: &RawSchema| serde_json::to_string(r).unwrap();
                assert_eq!(text(&s.schema), text(&m.schema));
                assert_eq!(s.legacy_schema.as_ref().map(text), Some(text(&old.to_stored())));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn delete_files_come_back_from_one_damaged_byte() {
        let set: RoaringBitmap = [1u32, 5, 99].into_iter().collect();
        let bytes = crate::storage::deletes::encode(3, &set);
        for i in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[i] ^= 0x41;
            assert_eq!(recover_deletes(&bad, 100, 3), Some(set.clone()), "byte {i}");
        }
        assert_eq!(recover_deletes(&bytes, 100, 4), None);
    }

    #[test]
    fn names_split_into_their_numbers() {
        assert_eq!(name_numbers("SEG-000007-000003.del"), vec![7, 3]);
        assert_eq!(name_numbers("SEG-000007-f002-vec.idx"), vec![7, 2]);
        assert_eq!(name_numbers("WAL-000012.log"), vec![12]);
    }
}
