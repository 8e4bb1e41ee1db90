//! Scalar index files: what they hold, and what opening refuses. Filter results through
//! them are checked against a naive evaluator in `filter/segment_tests.rs`.

use super::*;
use crate::storage::column::{ColumnData, ScalarColumn, Validity, VarColumn};

fn strings(values: &[&str]) -> (Vec<u64>, Vec<u8>) {
    let mut offsets = vec![0];
    let mut bytes = Vec::new();
    for v in values {
        bytes.extend_from_slice(v.as_bytes());
        offsets.push(bytes.len() as u64);
    }
    (offsets, bytes)
}

#[test]
fn inverted_string_index_finds_terms_prefixes_and_ranges() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.idx");
    // 200 rows over five values; one of them dense enough to be stored as a bitmap.
    let words = ["noun", "verb", "adj", "noun.animal", "adv"];
    let values: Vec<&str> = (0..200).map(|i| if i % 2 == 0 { "noun" } else { words[i % 5] }).collect();
    let (offsets, bytes) = strings(&values);
    let col = ScalarColumn { validity: Validity(None), data: ColumnData::String(VarColumn::stored(&offsets, &bytes)) };
    build(&path, 3, 1, ScalarIndexKind::Inverted, &FieldType::Scalar(ScalarType::String), &Indexed::Scalar(col), 200)
        .unwrap();
    let ix =
        ScalarIndex::open(&path, 3, 1, ScalarIndexKind::Inverted, &FieldType::Scalar(ScalarType::String), 200, true)
            .unwrap();
    assert_eq!(ix.entries(), 5);
    let rows_of =
        |pred: &dyn Fn(&str) -> bool| -> Vec<u32> { (0..200u32).filter(|&r| pred(values[r as usize])).collect() };
    let got = |l: Lookup| ix.find(&l).map(|b| b.iter().collect::<Vec<u32>>());
    assert_eq!(got(Lookup::TermSet(&[b"noun"])), Some(rows_of(&|v| v == "noun")));
    assert_eq!(got(Lookup::TermSet(&[b"verb", b"adv", b"zzz"])), Some(rows_of(&|v| v == "verb" || v == "adv")));
    let prefix = Lookup::Terms { lo: Bound::Included(b"noun"), hi: Bound::Excluded(b"nouo"), keep: None };
    assert_eq!(got(prefix), Some(rows_of(&|v| v.starts_with("noun"))));
    let below = Lookup::Terms { lo: Bound::Unbounded, hi: Bound::Excluded(b"b"), keep: None };
    assert_eq!(got(below), Some(rows_of(&|v| v < "b")));
    let keep = |t: &[u8]| t.ends_with(b"b");
    let like = Lookup::Terms { lo: Bound::Unbounded, hi: Bound::Unbounded, keep: Some(&keep) };
    assert_eq!(got(like), Some(rows_of(&|v| v.ends_with('b'))));
    // A numeric lookup is not a string index's to answer.
    assert_eq!(got(Lookup::Keys(&[(0, 1)])), None);
}

#[test]
fn numeric_indexes_answer_key_ranges_with_nulls_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let rows: usize = 1000;
    let values: Vec<i64> = (0..rows as i64).map(|i| (i * 7919) % 101 - 50).collect();
    let validity: Vec<u8> = (0..rows.div_ceil(8)).map(|i| if i % 3 == 0 { 0x0f } else { 0xff }).collect();
    let col = ScalarColumn { validity: Validity(Some(&validity)), data: ColumnData::Int64(&values) };
    let valid = |r: usize| validity[r / 8] >> (r % 8) & 1 == 1;
    for kind in [ScalarIndexKind::Inverted, ScalarIndexKind::Range] {
        let path = dir.path().join(format!("{}.idx", kind.name()));
        build(&path, 1, 0, kind, &FieldType::Scalar(ScalarType::Int64), &Indexed::Scalar(col), rows).unwrap();
        let ix = ScalarIndex::open(&path, 1, 0, kind, &FieldType::Scalar(ScalarType::Int64), rows, false).unwrap();
        for (lo, hi) in [(-50i128, -50i128), (-3, 4), (10, 10), (-50, 50), (51, 60)] {
            let k = [(int_key(ScalarType::Int64, lo), int_key(ScalarType::Int64, hi))];
            let want: Vec<u32> = (0..rows)
                .filter(|&r| valid(r) && (lo..=hi).contains(&i128::from(values[r])))
                .map(|r| r as u32)
                .collect();
            match ix.find(&Lookup::Keys(&k)) {
                Some(b) => assert_eq!(b.iter().collect::<Vec<_>>(), want, "{kind:?} {lo}..={hi}"),
                // Only a lookup selecting over half the rows may be left to a scan.
                None => assert!(want.len() * 2 > rows || kind == ScalarIndexKind::Inverted, "{kind:?} {lo}..={hi}"),
            }
        }
    }
}

#[test]
fn opening_refuses_a_mismatched_or_damaged_index() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("u.idx");
    let values: Vec<u32> = (0..5000).map(|i| i % 17).collect();
    let col = ScalarColumn { validity: Validity(None), data: ColumnData::Uint32(&values) };
    build(&path, 9, 2, ScalarIndexKind::Inverted, &FieldType::Scalar(ScalarType::Uint32), &Indexed::Scalar(col), 5000)
        .unwrap();
    let open = |seg, field, kind, ty, rows| {
        ScalarIndex::open(&path, seg, field, kind, &FieldType::Scalar(ty), rows, true).map(|_| ())
    };
    assert!(open(9, 2, ScalarIndexKind::Inverted, ScalarType::Uint32, 5000).is_ok());
    let err = |r: Result<(), StorageError>| r.unwrap_err().to_string();
    assert!(err(open(8, 2, ScalarIndexKind::Inverted, ScalarType::Uint32, 5000)).contains("segment 9"));
    assert!(err(open(9, 3, ScalarIndexKind::Inverted, ScalarType::Uint32, 5000)).contains("sections"));
    assert!(err(open(9, 2, ScalarIndexKind::Range, ScalarType::Uint32, 5000)).contains("sections"));
    assert!(err(open(9, 2, ScalarIndexKind::Inverted, ScalarType::Int32, 5000)).contains("uint32"));
    assert!(err(open(9, 2, ScalarIndexKind::Inverted, ScalarType::Uint32, 4999)).contains("5000 rows"));
    // Any flipped byte is caught: by a checksum, or by the header checks before them.
    let clean = std::fs::read(&path).unwrap();
    for at in (0..clean.len()).step_by(97) {
        let mut bad = clean.clone();
        bad[at] ^= 0x40;
        std::fs::write(&path, &bad).unwrap();
        assert!(open(9, 2, ScalarIndexKind::Inverted, ScalarType::Uint32, 5000).is_err(), "flip at {at}");
    }
    std::fs::write(&path, &clean[..clean.len() - 8]).unwrap();
    assert!(open(9, 2, ScalarIndexKind::Inverted, ScalarType::Uint32, 5000).is_err());
}

/// Time of one selective lookup (a manual measurement, not a check):
/// `cargo test --release -p xvec --lib lookup_cost -- --ignored --nocapture`.
#[test]
#[ignore = "a measurement"]
fn lookup_cost() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.idx");
    let rows = 116_659;
    let names: Vec<String> = (0..45).map(|i| format!("noun.kind{i:02}")).collect();
    let values: Vec<&str> = (0..rows).map(|i| if i % 2777 == 0 { "noun.motive" } else { &names[i % 45][..] }).collect();
    let (offsets, bytes) = strings(&values);
    let col = ScalarColumn { validity: Validity(None), data: ColumnData::String(VarColumn::stored(&offsets, &bytes)) };
    build(&path, 3, 1, ScalarIndexKind::Inverted, &FieldType::Scalar(ScalarType::String), &Indexed::Scalar(col), rows)
        .unwrap();
    let ix =
        ScalarIndex::open(&path, 3, 1, ScalarIndexKind::Inverted, &FieldType::Scalar(ScalarType::String), rows, true)
            .unwrap();
    for term in [&b"noun.motive"[..], b"noun.kind07"] {
        let n = 20_000;
        let t = std::time::Instant::now();
        let mut total = 0;
        for _ in 0..n {
            total += ix.find(&Lookup::TermSet(&[term])).unwrap().len();
        }
        println!(
            "{}: {} rows, {:.0} ns a lookup",
            String::from_utf8_lossy(term),
            total / n,
            t.elapsed().as_nanos() as f64 / n as f64
        );
    }
}
