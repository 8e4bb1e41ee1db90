//! Damage confined to the block it hits: a segment of a few MB, built here, with one byte
//! flipped in each block of its large sections in turn. Verify must name exactly the rows
//! of that block; repair must keep every other row of the segment with its values, and
//! verify must be clean afterwards. Index files get the same block checksums: a damaged
//! block of codes is re-encoded, one of a graph rebuilt, and no row is lost. Files of the
//! previous container version (no block checksums) still open and verify.

use std::path::Path;

use xvec::storage::FileKind;
use xvec::storage::container::{self, RawSection};
use xvec::storage::segment::{NO_FIELD, SectionKind};
use xvec::verify::{self, Severity, VerifyOptions};
use xvec::verify::{Repair, RepairOptions};
use xvec::{
    Collection, Doc, Field, IndexParams, Metric, OpenOptions, OptimizeOptions, Quantize, ScalarType, Schema, Value,
    VamanaParams, VectorType,
};

use crate::testutil::verify_fixture::contents;
use crate::testutil::{copy_dir, random_vectors};

/// 12,000 rows of 72-d fp32 (288 bytes a row, so 4 KiB blocks split rows): 3.5 MB of
/// vectors in 844 blocks; key offsets, key bytes, string offsets and int64 values span 24
/// to 30 blocks each.
const ROWS: usize = 12_000;
const DIM: usize = 72;

fn schema() -> Schema {
    Schema::builder("blocks")
        .field(Field::scalar("tag", ScalarType::String))
        .field(Field::scalar("n", ScalarType::Int64).nullable(true))
        .field(Field::vector("v", VectorType::Fp32, DIM as u32, Metric::Cosine))
        .build()
        .unwrap()
}

fn key(i: usize) -> String {
    format!("key-{i:06}")
}

fn docs(rows: usize, dim: usize) -> Vec<Doc> {
    let vs = random_vectors(77, rows, dim);
    vs.into_iter()
        .enumerate()
        .map(|(i, v)| {
            let d = Doc::new(key(i)).set("tag", format!("t{}", i % 7)).set("v", v);
            if i % 5 == 0 { d } else { d.set("n", i as i64) }
        })
        .collect()
}

fn quick() -> VerifyOptions {
    VerifyOptions::default().threads(1).attempts(1)
}

fn only_file(dir: &Path, suffix: &str) -> String {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(suffix))
        .collect();
    assert_eq!(v.len(), 1, "{v:?}");
    v.pop().unwrap()
}

/// Rows whose bytes of a section (of `width` bytes a row; offsets sections: entry `e`
/// bounds rows `e - 1` and `e`) lie in block `j`.
fn block_rows(s: &RawSection, j: u64, width: u64, offsets: bool) -> (u64, u64) {
    let r = s.block_range(j);
    let (a, b) = (r.start - s.offset, r.end - s.offset);
    if offsets { ((a / 8).saturating_sub(1), ((b - 1) / 8).min(ROWS as u64 - 1)) } else { (a / width, (b - 1) / width) }
}

/// One byte flipped in blocks of the vectors, the key offsets, the string offsets and the
/// int64 values of a 4 MB segment, one block at a time: the first two, one in the middle
/// and the last two of each section (the last one shorter).
#[test]
fn a_flipped_byte_costs_only_the_rows_of_its_block() {
    let tmp = tempfile::tempdir().unwrap();
    let pristine = tmp.path().join("pristine");
    let c = Collection::create(&pristine, schema(), Default::default()).unwrap();
    c.insert(docs(ROWS, DIM)).unwrap();
    c.flush().unwrap();
    c.close().unwrap();
    let model = contents(&pristine);
    assert_eq!(model.len(), ROWS);
    let seg = only_file(&pristine, ".xseg");
    let original = std::fs::read(pristine.join(&seg)).unwrap();
    let (_, table) = container::read(Path::new(&seg), &original, FileKind::Segment, |_| true).unwrap();
    let find =
        |kind: SectionKind, field: u16| *table.iter().find(|s| s.kind == kind as u16 && s.field == field).unwrap();
    // (section, row width, is offsets, field whose value is lost, nullable)
    let cases = [
        (find(SectionKind::Vectors, 2), (DIM * 4) as u64, false, Some("v"), false),
        (find(SectionKind::KeyOffsets, NO_FIELD), 8, true, None, false),
        (find(SectionKind::VarOffsets, 0), 8, true, Some("tag"), false),
        (find(SectionKind::Fixed, 1), 8, false, Some("n"), true),
    ];
    assert_eq!(cases[0].0.block_count(), 844);
    let mut runs = 0;
    for (s, width, offsets, field, nullable) in cases {
        let n = s.block_count();
        assert!(n >= 24, "{s:?}");
        for j in [0, 1, n / 2, n - 2, n - 1] {
            let r = s.block_range(j);
            let at = r.start + (r.end - r.start) / 2;
            let (lo, hi) = block_rows(&s, j, width, offsets);
            let what = format!("section kind {} block {j} (byte {at}, rows {lo}..={hi})", s.kind);
            let dir = tmp.path().join(format!("c{runs}"));
            runs += 1;
            copy_dir(&pristine, &dir);
            let mut bytes = original.clone();
            bytes[at as usize] ^= 0x20;
            std::fs::write(dir.join(&seg), &bytes).unwrap();

            // Every other run reads the files instead of mapping them (`--no-mmap`).
            let mmap = runs % 2 == 0;
            let r = verify::run(&dir, &VerifyOptions { mmap, ..quick() }).unwrap();
            let bad: Vec<_> = r.findings.iter().filter(|f| f.severity.is_problem()).collect();
            assert_eq!(bad.len(), 1, "{what}: {:#?}", r.findings);
            let f = bad[0];
            assert_eq!((f.file.as_str(), f.offset), (seg.as_str(), Some(s.block_range(j).start)), "{what}: {f:?}");
            assert_eq!(f.rows, Some([lo, hi + 1]), "{what}: {f:?}");
            let block_keys: Vec<String> = (lo..=hi).map(|i| key(i as usize)).collect();
            if offsets && field.is_none() {
                // The keys themselves are what is lost.
                assert!(f.keys.len() < block_keys.len(), "{what}: {f:?}");
            } else {
                assert_eq!(f.keys, block_keys, "{what}");
            }

            let repair = Repair::begin(&dir, RepairOptions::default().concurrency(1).schema(None).mmap(mmap)).unwrap();
            let plan = repair.plan().clone();
            let out = repair.apply().unwrap();
            assert!(out.after.is_clean(), "{what}: {:#?}", out.after.findings);
            let lost: u64 = out.losses.iter().map(|l| l.rows).sum();
            assert_eq!(lost, hi - lo + 1, "{what}: {plan:#?}");
            let now = contents(&dir);
            if nullable {
                // Every row kept; the block's values of `n` became null.
                assert_eq!(now.len(), ROWS, "{what}");
                assert_eq!(out.losses[0].keys, block_keys, "{what}");
            } else {
                assert_eq!(now.len(), ROWS - block_keys.len(), "{what}: {plan:#?}");
                if field.is_some() {
                    assert_eq!(out.losses[0].keys, block_keys, "{what}");
                }
            }
            for (k, d) in &model {
                let i: u64 = k[4..].parse().unwrap();
                let in_block = (lo..=hi).contains(&i);
                match now.get(k) {
                    None => assert!(in_block && !nullable, "{what}: {k} lost"),
                    Some(got) if in_block && nullable => {
                        assert!(matches!(got.get("n"), None | Some(Value::Null)), "{what}: {k}: {got:?}");
                        assert_eq!((got.get("tag"), got.get("v")), (d.get("tag"), d.get("v")), "{what}: {k}");
                    }
                    Some(got) => assert_eq!(got, d, "{what}: {k}"),
                }
            }
            let again = verify::run(&dir, &quick()).unwrap();
            assert!(again.is_clean() && again.count(Severity::Warning) == 0, "{what}: {:#?}", again.findings);
            std::fs::remove_dir_all(&dir).unwrap();
        }
    }
    assert_eq!(runs, 4 * 5);
}

/// Damage to the block table itself (a stored block CRC), with the data intact: verify
/// tells the list from the data, and repair rewrites the segment with every row.
#[test]
fn a_damaged_block_list_costs_no_rows() {
    let tmp = tempfile::tempdir().unwrap();
    let pristine = tmp.path().join("pristine");
    let c = Collection::create(&pristine, schema(), Default::default()).unwrap();
    let rows = 3000;
    c.insert(docs(rows, DIM)).unwrap();
    c.flush().unwrap();
    c.close().unwrap();
    let model = contents(&pristine);
    let seg = only_file(&pristine, ".xseg");
    let original = std::fs::read(pristine.join(&seg)).unwrap();
    let (_, table) = container::read(Path::new(&seg), &original, FileKind::Segment, |_| true).unwrap();
    let lists: Vec<usize> = table.iter().flat_map(|s| s.list_range()).collect();
    assert!(lists.len() >= 4 * 200, "{} bytes of block CRCs", lists.len());
    for &at in lists.iter().step_by(lists.len() / 9) {
        let dir = tmp.path().join(format!("l{at}"));
        copy_dir(&pristine, &dir);
        let mut bytes = original.clone();
        bytes[at] ^= 0x80;
        std::fs::write(dir.join(&seg), &bytes).unwrap();
        let r = verify::run(&dir, &quick()).unwrap();
        let bad: Vec<_> = r.findings.iter().filter(|f| f.severity.is_problem()).collect();
        assert_eq!(bad.len(), 1, "byte {at}: {:#?}", r.findings);
        assert!(bad[0].what.contains("block checksum list damaged; the section's bytes verify"), "{:?}", bad[0]);
        let out = Repair::begin(&dir, RepairOptions::default().concurrency(1)).unwrap().apply().unwrap();
        assert!(out.losses.is_empty() && out.after.is_clean(), "byte {at}: {:#?}", out.losses);
        assert_eq!(contents(&dir), model, "byte {at}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// An index file's codes and graph are blocked too: a damaged block of codes is
/// re-encoded and one of the Vamana adjacency rebuilt; no row is lost either way.
#[test]
fn damaged_index_blocks_are_rebuilt_without_losing_rows() {
    let tmp = tempfile::tempdir().unwrap();
    let pristine = tmp.path().join("pristine");
    let vamana = VamanaParams::default().degree(8).build_list(16).query_list(16).quantize(Quantize::Int8);
    let schema = Schema::builder("idx")
        .field(Field::vector("v", VectorType::Fp32, 64, Metric::L2).index(IndexParams::Vamana(vamana)))
        .build()
        .unwrap();
    let c = Collection::create(&pristine, schema, Default::default()).unwrap();
    let rows = 3000;
    c.insert(random_vectors(5, rows, 64).into_iter().enumerate().map(|(i, v)| Doc::new(key(i)).set("v", v)).collect())
        .unwrap();
    c.optimize(&OptimizeOptions::default().concurrency(1)).unwrap();
    c.close().unwrap();
    let model = contents(&pristine);
    let idx = only_file(&pristine, ".idx");
    let original = std::fs::read(pristine.join(&idx)).unwrap();
    let (_, table) = container::read(Path::new(&idx), &original, FileKind::Index, |_| true).unwrap();
    // Codes (kind 2): 3000 × 64 bytes, 47 blocks; adjacency (kind 8): 3000 × 9 words, 27 blocks.
    for (kind, name) in [(2u16, "codes"), (8, "Vamana adjacency")] {
        let s = *table.iter().find(|s| s.kind == kind).unwrap();
        assert!(s.block_count() >= 2, "{s:?}");
        let r = s.block_range(1);
        let at = (r.start + 100) as usize;
        let dir = tmp.path().join(format!("k{kind}"));
        copy_dir(&pristine, &dir);
        let mut bytes = original.clone();
        bytes[at] ^= 0x01;
        std::fs::write(dir.join(&idx), &bytes).unwrap();
        let before = verify::run(&dir, &quick()).unwrap();
        let bad: Vec<_> = before.findings.iter().filter(|f| f.severity.is_problem()).collect();
        assert_eq!(bad.len(), 1, "{name}: {:#?}", before.findings);
        assert_eq!((bad[0].section.as_str(), bad[0].offset), (name, Some(r.start)), "{name}: {:?}", bad[0]);
        assert!(bad[0].what.contains("block 1 of"), "{name}: {:?}", bad[0]);
        let out = Repair::begin(&dir, RepairOptions::default().concurrency(1).schema(None)).unwrap().apply().unwrap();
        assert!(out.losses.is_empty() && out.after.is_clean(), "{name}: {:#?} {:#?}", out.losses, out.after.findings);
        assert_eq!(contents(&dir), model, "{name}");
        assert!(verify::run(&dir, &quick()).unwrap().is_clean(), "{name}");
    }
}

/// A collection written by the previous container version (segment and index files of
/// version 1, one checksum per section, no block table; `tests/data/compat/v1`, made by
/// commit e5a10c2) opens, answers queries and verifies clean; a flipped byte in its
/// segment still costs the damaged section as before.
#[test]
fn version_1_containers_still_read() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("v1");
    copy_dir(&crate::testutil::repo_root().join("tests/data/compat/v1"), &dir);
    let seg = only_file(&dir, ".xseg");
    let bytes = std::fs::read(dir.join(&seg)).unwrap();
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 1, "a version 1 segment");
    let now = contents(&dir);
    assert_eq!(now.len(), 7);
    assert_eq!(now["k4"].get("v"), Some(&Value::VectorFp32(vec![4.0, 1.5, -4.25, 0.5])));
    assert!(matches!(now["k6"].get("n"), None | Some(Value::Null)));
    let c = Collection::open(&dir, &OpenOptions::read_only()).unwrap();
    let hits = c.query(&xvec::Query::vector(vec![4.0, 1.5, -4.25, 0.5]).k(1)).unwrap();
    assert_eq!(hits[0].key, "k4");
    drop(c);
    let r = verify::run(&dir, &quick()).unwrap();
    assert!(r.is_clean(), "{:#?}", r.findings);
    // A writable open moves the version 1 manifest and its empty WAL to version 2; writes follow.
    let upgraded = tmp.path().join("up");
    copy_dir(&dir, &upgraded);
    let c = Collection::open(&upgraded, &OpenOptions::writable()).unwrap();
    c.insert(vec![Doc::new("k9").set("tag", "t9").set("v", vec![9.0f32, 0.0, 0.0, 0.0])]).unwrap();
    drop(c);
    assert_eq!(contents(&upgraded).len(), 8);
    let r = verify::run(&upgraded, &quick()).unwrap();
    assert!(r.is_clean() && r.count(xvec::verify::Severity::Warning) == 0, "{:#?}", r.findings);
    // Field changes over the version 1 segment: the manifest keeps the schema it was
    // written under, so its sections still map; the optimize that rewrites it drops that.
    let c = Collection::open(&upgraded, &OpenOptions::writable()).unwrap();
    c.change_field(xvec::FieldChange::Drop("tag".into())).unwrap();
    let tag = xvec::Field::scalar("tag", xvec::ScalarType::Int32).default_value(5.into());
    c.change_field(xvec::FieldChange::Add(tag)).unwrap();
    c.change_field(xvec::FieldChange::Rename { from: "n".into(), to: "num".into() }).unwrap();
    drop(c);
    let legacy = |d: &Path| {
        let current = std::fs::read_to_string(d.join("CURRENT")).unwrap();
        String::from_utf8_lossy(&std::fs::read(d.join(current.trim())).unwrap()).contains("legacy_schema")
    };
    let check = |d: &Path| {
        let now = contents(d);
        assert_eq!(now.len(), 8);
        assert_eq!(now["k4"].get("v"), Some(&Value::VectorFp32(vec![4.0, 1.5, -4.25, 0.5])));
        assert_eq!(now["k4"].get("tag"), Some(&Value::Int32(5)), "{:?}", now["k4"]);
        assert_eq!(now["k9"].get("tag"), Some(&Value::Int32(5)));
        assert!(now["k4"].get("n").is_none());
        let r = verify::run(d, &quick()).unwrap();
        assert!(r.is_clean() && r.count(xvec::verify::Severity::Warning) == 0, "{:#?}", r.findings);
    };
    assert!(legacy(&upgraded));
    check(&upgraded);
    // A manifest damaged past its segment list: repair rolls one forward from the files,
    // with the schema and the legacy schema salvaged from the damaged body.
    let rebuilt = tmp.path().join("rebuilt");
    copy_dir(&upgraded, &rebuilt);
    let name = std::fs::read_to_string(rebuilt.join("CURRENT")).unwrap();
    let mut m = std::fs::read(rebuilt.join(name.trim())).unwrap();
    let at = m.windows(10).position(|w| w == b"\"segments\"").unwrap();
    m[at + 1] = b'{';
    m[at + 3] = b'[';
    std::fs::write(rebuilt.join(name.trim()), &m).unwrap();
    assert!(!verify::run(&rebuilt, &quick()).unwrap().is_clean());
    Repair::begin(&rebuilt, RepairOptions::default().concurrency(1).schema(None)).unwrap().apply().unwrap();
    assert!(legacy(&rebuilt), "the rebuilt manifest keeps the legacy schema");
    check(&rebuilt);
    let c = Collection::open(&upgraded, &OpenOptions::writable()).unwrap();
    c.optimize(&xvec::OptimizeOptions::default()).unwrap();
    drop(c);
    assert!(!legacy(&upgraded), "no version 1 segment is left");
    check(&upgraded);
    // A newer version is refused, naming the file, its kind and both versions.
    let mut newer = bytes.clone();
    newer[8..12].copy_from_slice(&99u32.to_le_bytes());
    let crc = crc32c::crc32c(&newer[..28]);
    newer[28..32].copy_from_slice(&crc.to_le_bytes());
    std::fs::write(dir.join(&seg), &newer).unwrap();
    let err = Collection::open(&dir, &OpenOptions::read_only()).unwrap_err().to_string();
    assert!(err.contains(&seg) && err.contains("segment format version 99"), "{err}");
}
