use super::*;
use std::path::PathBuf;
use tempfile::TempDir;

fn put(dir: &TempDir, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn texmex<T: Copy>(rows: &[&[T]], enc: impl Fn(T) -> Vec<u8>) -> Vec<u8> {
    let mut out = Vec::new();
    for row in rows {
        out.extend_from_slice(&(row.len() as i32).to_le_bytes());
        for &v in *row {
            out.extend(enc(v));
        }
    }
    out
}

fn fvecs(rows: &[&[f32]]) -> Vec<u8> {
    texmex(rows, |v| v.to_le_bytes().to_vec())
}

fn npy_bytes(descr: &str, shape: &[u64], version: u8, data: &[u8]) -> Vec<u8> {
    let mut out = npy::header_bytes(descr, shape, version);
    out.extend_from_slice(data);
    out
}

fn all_rows(v: &VectorFile) -> Vec<Vec<f32>> {
    let mut out = Vec::new();
    (0..v.len())
        .map(|i| {
            v.read_row(i, &mut out);
            assert_eq!(out.len(), v.dim());
            out.clone()
        })
        .collect()
}

fn open_err(dir: &TempDir, name: &str, bytes: &[u8]) -> String {
    VectorFile::open(&put(dir, name, bytes)).unwrap_err().to_string()
}

fn assert_has(msg: &str, want: &str) {
    assert!(msg.contains(want), "{msg:?} lacks {want:?}");
}

const ROWS: [[f32; 4]; 3] = [[1.0, -2.5, 3.25, 0.0], [f32::MAX, f32::MIN_POSITIVE, -0.0, 7.0], [1e-3, 2e10, -3.5, 4.0]];

fn rows_vec() -> Vec<Vec<f32>> {
    ROWS.iter().map(|r| r.to_vec()).collect()
}

fn fvecs_rows() -> Vec<u8> {
    fvecs(&[&ROWS[0], &ROWS[1], &ROWS[2]])
}

#[test]
fn fvecs_round_trip() {
    let dir = TempDir::new().unwrap();
    let v = VectorFile::open(&put(&dir, "base.fvecs", &fvecs_rows())).unwrap();
    assert_eq!((v.len(), v.dim(), v.format()), (3, 4, "fvecs"));
    assert!(!v.is_empty());
    for (i, row) in ROWS.iter().enumerate() {
        assert_eq!(v.row_f32(i).unwrap(), row);
    }
    assert_eq!(all_rows(&v), rows_vec());
}

#[test]
fn bvecs_and_ivecs_round_trip() {
    let dir = TempDir::new().unwrap();
    let b = texmex(&[&[0u8, 255, 7], &[1, 2, 3]], |v| vec![v]);
    let v = VectorFile::open(&put(&dir, "x.BVECS", &b)).unwrap();
    assert_eq!((v.len(), v.dim(), v.format()), (2, 3, "bvecs"));
    assert!(v.row_f32(0).is_none());
    assert_eq!(all_rows(&v), vec![vec![0.0, 255.0, 7.0], vec![1.0, 2.0, 3.0]]);

    let i = texmex(&[&[-5i32, 1 << 20], &[0, i32::MAX]], |v| v.to_le_bytes().to_vec());
    let v = VectorFile::open(&put(&dir, "x.ivecs", &i)).unwrap();
    assert_eq!((v.len(), v.dim(), v.format()), (2, 2, "ivecs"));
    assert!(v.row_f32(1).is_none());
    assert_eq!(all_rows(&v), vec![vec![-5.0, 1048576.0], vec![0.0, i32::MAX as f32]]);
}

#[test]
fn npy_round_trip_every_descr() {
    let dir = TempDir::new().unwrap();
    let flat: Vec<f32> = ROWS.concat();
    let f4: Vec<u8> = flat.iter().flat_map(|v| v.to_le_bytes()).collect();
    let f8: Vec<u8> = flat.iter().flat_map(|v| f64::from(*v).to_le_bytes()).collect();
    for version in 1..=3 {
        let v = VectorFile::open(&put(&dir, "a.npy", &npy_bytes("<f4", &[3, 4], version, &f4))).unwrap();
        assert_eq!((v.len(), v.dim(), v.format()), (3, 4, "npy <f4"));
        assert_eq!(v.row_f32(2).unwrap(), &ROWS[2]);
        assert_eq!(all_rows(&v), rows_vec());
    }
    let v = VectorFile::open(&put(&dir, "a.npy", &npy_bytes("<f8", &[3, 4], 1, &f8))).unwrap();
    assert_eq!(v.format(), "npy <f8");
    assert!(v.row_f32(0).is_none());
    assert_eq!(all_rows(&v), rows_vec());

    let halves = [0.5f32, -2.0, 1024.0, 0.099975586, 65504.0, -0.0];
    let f2: Vec<u8> = halves.iter().flat_map(|v| half::f16::from_f32(*v).to_le_bytes()).collect();
    let v = VectorFile::open(&put(&dir, "h.npy", &npy_bytes("<f2", &[2, 3], 1, &f2))).unwrap();
    assert_eq!(v.format(), "npy <f2");
    assert_eq!(all_rows(&v), vec![halves[..3].to_vec(), halves[3..].to_vec()]);

    let i1 = [-128i8 as u8, 127, 0, 0xff];
    let v = VectorFile::open(&put(&dir, "i.npy", &npy_bytes("|i1", &[2, 2], 1, &i1))).unwrap();
    assert_eq!(v.format(), "npy |i1");
    assert_eq!(all_rows(&v), vec![vec![-128.0, 127.0], vec![0.0, -1.0]]);
    let v = VectorFile::open(&put(&dir, "u.npy", &npy_bytes("|u1", &[2, 2], 1, &i1))).unwrap();
    assert_eq!(v.format(), "npy |u1");
    assert_eq!(all_rows(&v), vec![vec![128.0, 127.0], vec![0.0, 255.0]]);

    let i4: Vec<u8> = [-1i32, 2, 3].iter().flat_map(|v| v.to_le_bytes()).collect();
    let v = VectorFile::open(&put(&dir, "i4.npy", &npy_bytes("<i4", &[3, 1], 2, &i4))).unwrap();
    assert_eq!(all_rows(&v), vec![vec![-1.0], vec![2.0], vec![3.0]]);
    let i8: Vec<u8> = [-1i64, 1 << 40].iter().flat_map(|v| v.to_le_bytes()).collect();
    let v = VectorFile::open(&put(&dir, "i8.npy", &npy_bytes("<i8", &[1, 2], 1, &i8))).unwrap();
    assert_eq!(all_rows(&v), vec![vec![-1.0, (1u64 << 40) as f32]]);

    // 1-D shape (N,) reads as N x 1.
    let v = VectorFile::open(&put(&dir, "d.npy", &npy_bytes("<f4", &[12], 1, &f4))).unwrap();
    assert_eq!((v.len(), v.dim()), (12, 1));
    assert_eq!(v.row_f32(5).unwrap(), &[ROWS[1][1]]);
}

#[test]
fn npy_unaligned_data_falls_back_to_decoding() {
    let dir = TempDir::new().unwrap();
    // Hand-made v1 header: data starts at byte 10 + 61, not 4-aligned.
    let dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), } \n";
    assert_eq!((10 + dict.len()) % 4, 3);
    let mut b = npy::MAGIC.to_vec();
    b.extend_from_slice(&[1, 0]);
    b.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    b.extend_from_slice(dict.as_bytes());
    for v in [1.5f32, 2.0, -3.0, 4.25] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    let v = VectorFile::open(&put(&dir, "odd.npy", &b)).unwrap();
    assert!(v.row_f32(0).is_none());
    assert_eq!(all_rows(&v), vec![vec![1.5, 2.0], vec![-3.0, 4.25]]);
}

#[test]
fn truncate_limits_rows() {
    let dir = TempDir::new().unwrap();
    let mut v = VectorFile::open(&put(&dir, "base.fvecs", &fvecs_rows())).unwrap();
    v.truncate(10);
    assert_eq!(v.len(), 3);
    v.truncate(2);
    assert_eq!(v.len(), 2);
    assert_eq!(all_rows(&v), rows_vec()[..2].to_vec());
    v.truncate(0);
    assert!(v.is_empty());
    assert!(std::panic::catch_unwind(|| v.row_f32(0)).is_err());
}

#[test]
fn texmex_errors() {
    let dir = TempDir::new().unwrap();
    let good = fvecs_rows(); // rows of 20 bytes
    // Row 2 with a different d.
    let msg = open_err(&dir, "m.fvecs", &fvecs(&[&ROWS[0], &ROWS[1], &ROWS[2][..3]]));
    assert_has(&msg, "m.fvecs: row 2 at byte 40: dimension 3 differs from the first row's 4");
    // Row 1 claims d = 4 but holds 3 floats: row 2's header lands on a float.
    let mut b = good[..36].to_vec();
    b.extend_from_slice(&good[40..]);
    b.extend_from_slice(&4i32.to_le_bytes());
    b.extend_from_slice(&good[44..60]);
    let msg = open_err(&dir, "r.fvecs", &b);
    assert_has(&msg, "row 2 at byte 40: dimension");
    assert_has(&msg, "differs from the first row's 4");
    // Cut mid-row and mid-header.
    let msg = open_err(&dir, "t.fvecs", &good[..50]);
    assert_has(&msg, "t.fvecs: truncated: 10 bytes left at byte 40, expected a row of 20 bytes (row 2)");
    let msg = open_err(&dir, "t.fvecs", &good[..42]);
    assert_has(&msg, "truncated: 2 bytes left at byte 40, expected a row header of 4 bytes (row 2)");
    let msg = open_err(&dir, "t.fvecs", &good[..3]);
    assert_has(&msg, "truncated: 3 bytes left at byte 0, expected a row header of 4 bytes (row 0)");
    // Zero and negative d.
    let msg = open_err(&dir, "z.fvecs", &0i32.to_le_bytes());
    assert_has(&msg, "z.fvecs: row 0 at byte 0: dimension 0, expected a positive dimension");
    let msg = open_err(&dir, "z.bvecs", &(-3i32).to_le_bytes());
    assert_has(&msg, "row 0 at byte 0: dimension -3");
    // Zero d in a later row is a mismatch.
    let mut b = good.clone();
    b.extend_from_slice(&0i32.to_le_bytes());
    assert_has(&open_err(&dir, "z.fvecs", &b), "row 3 at byte 60: dimension 0 differs");
    // Empty file, unknown extension, missing file.
    assert_eq!(open_err(&dir, "e.fvecs", b""), format!("{}: no rows", dir.path().join("e.fvecs").display()));
    assert_has(&open_err(&dir, "x.bin", &good), "x.bin: unknown format, expected a .fvecs");
    let missing = dir.path().join("missing.fvecs");
    let e = VectorFile::open(&missing).unwrap_err();
    assert!(matches!(&e, DatasetError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound));
    assert!(std::error::Error::source(&e).is_some());
    assert_has(&e.to_string(), "missing.fvecs: ");
}

#[test]
fn npy_errors() {
    let dir = TempDir::new().unwrap();
    let f4 = [0u8; 24];
    let mut bad_magic = npy_bytes("<f4", &[2, 3], 1, &f4);
    bad_magic[1] = b'X';
    assert_has(&open_err(&dir, "a.npy", &bad_magic), "a.npy: npy header: bad magic");
    let mut bad_version = npy_bytes("<f4", &[2, 3], 1, &f4);
    bad_version[6] = 9;
    assert_has(&open_err(&dir, "a.npy", &bad_version), "unsupported version 9.0");

    let dict = |d: &str| {
        let mut b = npy::MAGIC.to_vec();
        b.extend_from_slice(&[1, 0]);
        b.extend_from_slice(&(d.len() as u16).to_le_bytes());
        b.extend_from_slice(d.as_bytes());
        b.extend_from_slice(&f4);
        b
    };
    let msg = open_err(&dir, "a.npy", &dict("{'descr': '<f4', 'fortran_order': False}\n"));
    assert_has(&msg, "a.npy: npy header: expected 'shape' key");
    let msg = open_err(&dir, "a.npy", &dict("{'descr': '<f4', 'shape': (2 3)}"));
    assert_has(&msg, "npy header: expected ',' or ')' in the tuple at byte");
    let msg = open_err(&dir, "a.npy", &dict("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }"));
    assert_has(&msg, "npy header: fortran_order True is not supported");
    let msg = open_err(&dir, "a.npy", &npy_bytes("<c8", &[3, 1], 1, &f4));
    assert_has(&msg, "unsupported descr '<c8'");
    let msg = open_err(&dir, "a.npy", &npy_bytes(">f4", &[2, 3], 1, &f4));
    assert_has(&msg, "descr '>f4' is big-endian");
    let msg = open_err(&dir, "a.npy", &npy_bytes("f4", &[2, 3], 1, &f4));
    assert_has(&msg, "no explicit byte order");
    let msg = open_err(&dir, "a.npy", &npy_bytes("<f4", &[2, 3, 1], 1, &f4));
    assert_has(&msg, "has 3 dimensions");
    let msg = open_err(&dir, "a.npy", &npy_bytes("<f4", &[], 1, &f4[..4]));
    assert_has(&msg, "has 0 dimensions");
    let msg = open_err(&dir, "a.npy", &npy_bytes("<f4", &[0, 3], 1, &[]));
    assert_has(&msg, "a.npy: no rows");
    let msg = open_err(&dir, "a.npy", &npy_bytes("<f4", &[2, 0], 1, &[]));
    assert_has(&msg, "dimension 0");
    // Data length: short, long, and overflowing shapes.
    let msg = open_err(&dir, "a.npy", &npy_bytes("<f4", &[2, 3], 1, &f4[..20]));
    assert_has(&msg, "a.npy: npy data is 20 bytes at byte 128, expected 2 x 3 x 4 = 24 bytes");
    let msg = open_err(&dir, "a.npy", &npy_bytes("<f4", &[2, 2], 1, &f4));
    assert_has(&msg, "npy data is 24 bytes at byte 128, expected 2 x 2 x 4 = 16 bytes");
    let msg = open_err(&dir, "a.npy", &npy_bytes("<f8", &[1 << 62, 8], 1, &f4));
    assert_has(&msg, "more than 2^64");
    // Header cut short.
    let full = npy_bytes("<f4", &[2, 3], 1, &f4);
    assert_has(&open_err(&dir, "a.npy", &full[..40]), "expected a header of 118 bytes");
}

#[test]
fn ground_truth_formats() {
    let dir = TempDir::new().unwrap();
    let iv = texmex(&[&[3i32, 1, 2], &[0, 9, 8]], |v| v.to_le_bytes().to_vec());
    let gt = GroundTruth::open(&put(&dir, "gt.ivecs", &iv)).unwrap();
    assert_eq!((gt.k, gt.len()), (3, 2));
    assert_eq!(gt.row(0), &[3, 1, 2]);
    assert_eq!(gt.row(1), &[0, 9, 8]);

    let i8: Vec<u8> = [5i64, 4, u32::MAX as i64, 0].iter().flat_map(|v| v.to_le_bytes()).collect();
    let gt = GroundTruth::open(&put(&dir, "gt.npy", &npy_bytes("<i8", &[2, 2], 1, &i8))).unwrap();
    assert_eq!(gt, GroundTruth::from_rows(2, vec![5, 4, u32::MAX, 0]));
    let i4: Vec<u8> = [7i32, 6].iter().flat_map(|v| v.to_le_bytes()).collect();
    let gt = GroundTruth::open(&put(&dir, "gt.npy", &npy_bytes("<i4", &[2], 2, &i4))).unwrap();
    assert_eq!((gt.k, gt.len(), gt.row(1)), (1, 2, &[6u32][..]));
    let gt = GroundTruth::open(&put(&dir, "gt.npy", &npy_bytes("|u1", &[1, 2], 1, &[200, 1]))).unwrap();
    assert_eq!(gt.row(0), &[200, 1]);
}

#[test]
fn ground_truth_errors() {
    let dir = TempDir::new().unwrap();
    let gt_err = |name: &str, bytes: &[u8]| GroundTruth::open(&put(&dir, name, bytes)).unwrap_err().to_string();
    let iv = texmex(&[&[3i32, 1, 2], &[0, 9, -4]], |v| v.to_le_bytes().to_vec());
    assert_has(&gt_err("gt.ivecs", &iv), "gt.ivecs: row 1 column 2: negative id -4");
    let i8: Vec<u8> = [5i64, 1 << 32].iter().flat_map(|v| v.to_le_bytes()).collect();
    let msg = gt_err("gt.npy", &npy_bytes("<i8", &[1, 2], 1, &i8));
    assert_has(&msg, "gt.npy: row 0 column 1: id 4294967296 does not fit in 32 bits");
    let i8: Vec<u8> = [-1i64, 1].iter().flat_map(|v| v.to_le_bytes()).collect();
    assert_has(&gt_err("gt.npy", &npy_bytes("<i8", &[2, 1], 1, &i8)), "row 0 column 0: negative id -1");
    let msg = gt_err("gt.npy", &npy_bytes("<f4", &[1, 2], 1, &[0; 8]));
    assert_has(&msg, "gt.npy: ground truth needs integer ids, found npy <f4");
    assert_has(&gt_err("gt.fvecs", &fvecs_rows()), "gt.fvecs: unknown format, expected a .ivecs or .npy file");
    // Ragged ivecs rows.
    let iv = texmex(&[&[3i32, 1, 2], &[0, 9]], |v| v.to_le_bytes().to_vec());
    assert_has(&gt_err("gt.ivecs", &iv), "row 1 at byte 16: dimension 2 differs from the first row's 3");
    assert_has(&gt_err("gt.ivecs", b""), "no rows");
}

#[test]
fn metrics() {
    let truth = [1, 2, 3, 4, 5];
    assert_eq!(recall_at(&[1, 9, 3, 8, 7], &truth, 5), 0.4);
    assert_eq!(recall_at(&[1, 9, 3, 8, 7], &truth, 3), 2.0 / 3.0);
    assert_eq!(recall_at(&[5, 4, 3, 2, 1], &truth, 5), 1.0);
    // Only found[..k] counts, duplicates once.
    assert_eq!(recall_at(&[9, 9, 1], &truth, 2), 0.0);
    assert_eq!(recall_at(&[1, 1, 1], &truth, 3), 1.0 / 3.0);
    assert_eq!(recall_at(&[1], &truth, 3), 1.0 / 3.0);
    assert_eq!(recall_at(&[1, 2], &[1], 5), 1.0);
    assert_eq!(recall_at(&[1], &truth, 0), 0.0);

    let close = |a: f64, b: f64| assert!((a - b).abs() < 1e-12, "{a} != {b}");
    // DCG = 1 + 1/log2(4) = 1.5; IDCG = 1 + 1/log2(3) + 0.5.
    close(ndcg_at(&[1, 9, 3], &truth, 3), 1.5 / (1.5 + 1.0 / 3f64.log2()));
    close(ndcg_at(&[3, 2, 1], &truth, 3), 1.0);
    close(ndcg_at(&[9, 1], &[1, 2], 2), (1.0 / 3f64.log2()) / (1.0 + 1.0 / 3f64.log2()));
    close(ndcg_at(&[9, 1], &[1], 1), 0.0);
    close(ndcg_at(&[1, 1, 1], &truth, 3), 1.0 / (1.5 + 1.0 / 3f64.log2()));
    close(ndcg_at(&[], &truth, 3), 0.0);
    close(ndcg_at(&[1], &truth, 0), 0.0);
    close(0.7039180890341347, 1.5 / (1.5 + 1.0 / 3f64.log2()));
}

/// Every prefix and many single-byte corruptions of valid files open to
/// Ok or Err, never a panic, and Ok files read back fully.
#[test]
fn never_panics() {
    let dir = TempDir::new().unwrap();
    let f4: Vec<u8> = ROWS.concat().iter().flat_map(|v| v.to_le_bytes()).collect();
    let files = [
        ("p.fvecs", fvecs_rows()),
        ("p.bvecs", texmex(&[&[1u8, 2], &[3, 4]], |v| vec![v])),
        ("p.npy", npy_bytes("<f4", &[3, 4], 1, &f4)),
        ("p.npy", npy_bytes("<f4", &[3, 4], 2, &f4)),
    ];
    let try_open = |name: &str, bytes: &[u8]| {
        let path = put(&dir, name, bytes);
        if let Ok(v) = VectorFile::open(&path) {
            let _ = all_rows(&v);
            for i in 0..v.len() {
                let zero_copy = v.format() != "bvecs";
                assert_eq!(v.row_f32(i).is_some(), zero_copy);
            }
        }
        if let Ok(gt) = GroundTruth::open(&path) {
            for q in 0..gt.len() {
                assert_eq!(gt.row(q).len(), gt.k);
            }
        }
    };
    for (name, bytes) in &files {
        for n in 0..=bytes.len() {
            try_open(name, &bytes[..n]);
        }
        for i in 0..bytes.len().min(80) {
            for x in [0u8, 0x01, b'(', b',', b'\'', 0x7f, 0xff] {
                let mut b = bytes.clone();
                b[i] = x;
                try_open(name, &b);
            }
        }
    }
}
