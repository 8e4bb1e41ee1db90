//! Repair keeps every row whose blocks are whole, in a segment like a user's: 3,000 rows
//! with keys, a required string, a nullable integer and 48-d vectors, every section of
//! which spans several blocks. A segment cut short by a few KB keeps the rows whose bytes
//! lie wholly in the blocks before the cut; one flipped byte in the vectors, the keys or
//! the strings costs the rows of its block and nothing else. The rows each case must
//! keep are computed here from the section table and the row widths, not by the code
//! under test; the repaired collection answers queries and verifies clean.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use xvec::storage::FileKind;
use xvec::storage::container::{self, RawSection};
use xvec::storage::segment::{NO_FIELD, SectionKind};
use xvec::verify::{self, Repair, RepairOptions, Severity, VerifyOptions};
use xvec::{Collection, Doc, Field, Metric, OpenOptions, Query, ScalarType, Schema, VectorType};

use crate::testutil::verify_fixture::contents;
use crate::testutil::{copy_dir, random_vectors};

const ROWS: usize = 3000;
const DIM: usize = 48;
/// Bytes of one row's vector.
const WIDTH: u64 = (DIM * 4) as u64;

fn schema() -> Schema {
    Schema::builder("salvage")
        .field(Field::scalar("title", ScalarType::String))
        .field(Field::scalar("n", ScalarType::Int64).nullable(true))
        .field(Field::vector("emb", VectorType::Fp32, DIM as u32, Metric::L2))
        .build()
        .unwrap()
}

fn key(i: usize) -> String {
    format!("doc-{i:06}")
}

/// Titles of 8 to 47 bytes, so a string's row is known only through its offsets.
fn title(i: usize) -> String {
    format!("title {i:05} {}", "abcdefghij".repeat(4).split_at(i * 7 % 37).0)
}

fn docs() -> Vec<Doc> {
    random_vectors(36, ROWS, DIM)
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            let d = Doc::new(key(i)).set("title", title(i)).set("emb", v);
            if i % 4 == 0 { d } else { d.set("n", i as i64) }
        })
        .collect()
}

fn quick() -> VerifyOptions {
    VerifyOptions::default().threads(1).attempts(1)
}

fn only_segment(dir: &Path) -> String {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".xseg"))
        .collect();
    assert_eq!(v.len(), 1, "{v:?}");
    v.pop().unwrap()
}

/// The rows whose bytes of one section meet a range of file bytes.
type RowsOf<'a> = Box<dyn Fn(std::ops::Range<u64>) -> BTreeSet<usize> + 'a>;

/// Rows whose variable-length values (entry `r` of `offsets` to entry `r + 1`,
/// relative to the bytes section `s`) meet file bytes `bad`.
fn var_rows(offsets: &[u64], s: &RawSection, bad: std::ops::Range<u64>) -> BTreeSet<usize> {
    let (a, b) = (bad.start - s.offset, bad.end - s.offset);
    (0..ROWS).filter(|&r| offsets[r] < b && a < offsets[r + 1]).collect()
}

/// Repairs `dir` (whose segment was damaged) and checks that exactly the rows `lost`
/// are gone, every other row reads as before, queries answer and verify is clean.
fn repair_and_check(dir: &Path, model: &BTreeMap<String, Doc>, lost: &BTreeSet<usize>, what: &str) {
    let out = Repair::begin(dir, RepairOptions::default().concurrency(1)).unwrap().apply().unwrap();
    assert!(out.after.is_clean(), "{what}: {:#?}", out.after.findings);
    let reported: u64 = out.losses.iter().map(|l| l.rows).sum();
    assert_eq!(reported, lost.len() as u64, "{what}: {:#?}", out.losses);
    let now = contents(dir);
    assert_eq!(now.len(), ROWS - lost.len(), "{what}");
    for (i, (k, d)) in model.iter().enumerate() {
        assert_eq!(k, &key(i));
        match now.get(k) {
            None => assert!(lost.contains(&i), "{what}: {k} lost"),
            Some(got) => {
                assert!(!lost.contains(&i), "{what}: {k} kept");
                assert_eq!(got, d, "{what}: {k}");
            }
        }
    }
    let c = Collection::open(dir, &OpenOptions::read_only()).unwrap();
    for (k, d) in now.iter().step_by(97) {
        let v = d.get("emb").unwrap().vector_f32().unwrap();
        let hits = c.query(&Query::vector(v).k(1)).unwrap();
        assert_eq!(&hits[0].key, k, "{what}");
    }
    drop(c);
    let again = verify::run(dir, &quick()).unwrap();
    assert!(again.is_clean() && again.count(Severity::Warning) == 0, "{what}: {:#?}", again.findings);
}

#[test]
fn repair_keeps_every_row_whose_blocks_are_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let pristine = tmp.path().join("pristine");
    let c = Collection::create(&pristine, schema(), Default::default()).unwrap();
    c.insert(docs()).unwrap();
    c.flush().unwrap();
    c.close().unwrap();
    let model = contents(&pristine);
    assert_eq!(model.len(), ROWS);
    let seg = only_segment(&pristine);
    let original = std::fs::read(pristine.join(&seg)).unwrap();
    let (_, table) = container::read(Path::new(&seg), &original, FileKind::Segment, |_| true).unwrap();
    let find =
        |kind: SectionKind, field: u16| *table.iter().find(|s| s.kind == kind as u16 && s.field == field).unwrap();
    let offsets_of = |s: RawSection| -> Vec<u64> {
        original[s.range()].chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect()
    };
    let vectors = find(SectionKind::Vectors, 2);
    let (key_offsets, key_bytes) = (find(SectionKind::KeyOffsets, NO_FIELD), find(SectionKind::KeyBytes, NO_FIELD));
    let title_bytes = find(SectionKind::VarBytes, 0);
    // The vectors are the last section: a cut takes their tail.
    assert_eq!(vectors.offset + vectors.len, original.len() as u64);
    let damaged = |name: &str, bytes: &[u8]| {
        let dir = tmp.path().join(name);
        copy_dir(&pristine, &dir);
        std::fs::write(dir.join(&seg), bytes).unwrap();
        dir
    };

    // Cut short by 5,000 bytes: rows whose vector lies wholly in the blocks before the
    // block holding the cut are kept.
    let cut = original.len() - 5000;
    let first_missing = (0..vectors.block_count()).find(|&j| vectors.block_range(j).end > cut as u64).unwrap();
    let kept = (vectors.block_range(first_missing).start - vectors.offset) / WIDTH;
    let lost: BTreeSet<usize> = (kept as usize..ROWS).collect();
    assert!(lost.len() < 100, "{} rows past the cut", lost.len());
    let dir = damaged("cut", &original[..cut]);
    let r = verify::run(&dir, &quick()).unwrap();
    let text: Vec<String> = r.findings.iter().map(|f| format!("[{}] {}", f.section, f.what)).collect();
    let missing = format!("5000 bytes missing: the file ends at byte {cut}, its sections need {}", original.len());
    assert!(text.iter().any(|t| t.contains(&missing)), "{text:#?}");
    assert!(!text.iter().any(|t| t.contains("trailing")), "{text:#?}");
    let block = r.findings.iter().find(|f| f.section == "vectors of `emb`").unwrap();
    assert_eq!(block.rows, Some([kept, ROWS as u64]), "{block:?}");
    repair_and_check(&dir, &model, &lost, "cut");

    for s in [vectors, key_bytes, title_bytes] {
        assert!(s.block_count() >= 4, "{s:?}");
    }
    // One byte flipped in a block of the vectors, of the key bytes, of the key offsets
    // and of the title bytes: the rows whose bytes meet that block.
    let key_offs = offsets_of(key_offsets);
    let title_offs = offsets_of(find(SectionKind::VarOffsets, 0));
    let cases: [(&str, RawSection, RowsOf); 4] = [
        (
            "vectors",
            vectors,
            Box::new(|r: std::ops::Range<u64>| {
                let (a, b) = (r.start - vectors.offset, r.end - vectors.offset);
                (a / WIDTH..b.div_ceil(WIDTH)).map(|x| x as usize).collect()
            }),
        ),
        ("key bytes", key_bytes, Box::new(|r| var_rows(&key_offs, &key_bytes, r))),
        (
            "key offsets",
            key_offsets,
            // Entry `e` bounds rows `e - 1` and `e`.
            Box::new(|r: std::ops::Range<u64>| {
                let (a, b) = ((r.start - key_offsets.offset) / 8, (r.end - key_offsets.offset).div_ceil(8));
                (a.saturating_sub(1) as usize..(b as usize).min(ROWS)).collect()
            }),
        ),
        ("title bytes", title_bytes, Box::new(|r| var_rows(&title_offs, &title_bytes, r))),
    ];
    for (name, s, rows_of) in cases {
        let j = s.block_count() / 2;
        let r = s.block_range(j);
        let at = (r.start + (r.end - r.start) / 3) as usize;
        let lost = rows_of(r.clone());
        let what = format!("{name}: byte {at} in block {j} of {}, rows {lost:?}", s.block_count());
        assert!(!lost.is_empty() && lost.len() < ROWS / 4, "{what}");
        let mut bytes = original.clone();
        bytes[at] ^= 0x10;
        let dir = damaged(&name.replace(' ', "-"), &bytes);
        let r = verify::run(&dir, &quick()).unwrap();
        let bad: Vec<_> = r.findings.iter().filter(|f| f.severity.is_problem()).collect();
        assert_eq!(bad.len(), 1, "{what}: {:#?}", r.findings);
        repair_and_check(&dir, &model, &lost, &what);
    }
}
