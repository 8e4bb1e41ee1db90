//! Readers for benchmark vector datasets, used by `xvec bench` and `xvec import`.
//!
//! Owns: opening and validating TEXMEX (`.fvecs`, `.bvecs`, `.ivecs`) and
//! NumPy (`.npy`, via [`super::npy`]) matrices as memory-mapped
//! [`VectorFile`]s, loading [`GroundTruth`] neighbour lists, and the
//! [`recall_at`] / [`ndcg_at`] quality metrics. All formats are little-endian;
//! every file is validated once in `open`, so row access never fails.

use std::fs::File;
use std::path::Path;

use memmap2::{Advice, Mmap};

use super::npy::{self, NpyError};

/// Why a dataset file could not be opened. Every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum DatasetError {
    #[error("{file}: {source}")]
    Io {
        file: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{file}: unknown format, expected a {expected} file")]
    UnknownFormat { file: String, expected: &'static str },
    #[error("{file}: no rows")]
    Empty { file: String },
    #[error("{file}: row {row} at byte {offset}: dimension {found}, expected a positive dimension")]
    BadDimension { file: String, row: usize, offset: usize, found: i64 },
    #[error("{file}: row {row} at byte {offset}: dimension {found} differs from the first row's {expected}")]
    DimensionMismatch { file: String, row: usize, offset: usize, found: i32, expected: usize },
    #[error("{file}: truncated: {left} bytes left at byte {offset}, expected a row {what}of {need} bytes (row {row})")]
    Truncated {
        file: String,
        row: usize,
        offset: usize,
        left: usize,
        /// `"header "` when even the 4-byte dimension is cut, else empty.
        what: &'static str,
        need: usize,
    },
    #[error("{file}: {source}")]
    Npy {
        file: String,
        #[source]
        source: NpyError,
    },
    #[error("{file}: npy data is {found} bytes at byte {offset}, expected {rows} x {dim} x {item} = {expected} bytes")]
    NpyDataLength { file: String, offset: usize, found: usize, rows: u64, dim: u64, item: usize, expected: String },
    #[error("{file}: {message}")]
    Unsupported { file: String, message: String },
    /// A parquet file that cannot be read as a VectorDBBench dataset file.
    #[error("{file}: {message}")]
    Parquet { file: String, message: String },
    #[error("{file}: row {row} column {column}: negative id {id}")]
    NegativeId { file: String, row: usize, column: usize, id: i64 },
    #[error("{file}: row {row} column {column}: id {id} does not fit in 32 bits")]
    IdTooLarge { file: String, row: usize, column: usize, id: i64 },
}

/// Element type of a stored matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Elem {
    F32,
    F16,
    F64,
    I8,
    U8,
    I32,
    I64,
}

impl Elem {
    fn size(self) -> usize {
        match self {
            Elem::I8 | Elem::U8 => 1,
            Elem::F16 => 2,
            Elem::F32 | Elem::I32 => 4,
            Elem::F64 | Elem::I64 => 8,
        }
    }

    fn is_int(self) -> bool {
        !matches!(self, Elem::F32 | Elem::F16 | Elem::F64)
    }

    fn npy_name(self) -> &'static str {
        match self {
            Elem::F32 => "npy <f4",
            Elem::F16 => "npy <f2",
            Elem::F64 => "npy <f8",
            Elem::I8 => "npy |i1",
            Elem::U8 => "npy |u1",
            Elem::I32 => "npy <i4",
            Elem::I64 => "npy <i8",
        }
    }

    /// Maps an npy descr; byte order is irrelevant for one-byte types.
    fn from_descr(descr: &str) -> Result<Elem, String> {
        let (order, code) = match descr.as_bytes().first() {
            Some(b'<' | b'>' | b'|' | b'=') => descr.split_at(1),
            _ => ("", descr),
        };
        let elem = match code {
            "f4" => Elem::F32,
            "f2" => Elem::F16,
            "f8" => Elem::F64,
            "i1" => return Ok(Elem::I8),
            "u1" => return Ok(Elem::U8),
            "i4" => Elem::I32,
            "i8" => Elem::I64,
            _ => {
                return Err(format!("unsupported descr '{descr}', expected one of <f4, <f2, <f8, |i1, |u1, <i4, <i8"));
            }
        };
        match order {
            "<" => Ok(elem),
            ">" => Err(format!("descr '{descr}' is big-endian, only little-endian ('<') data is supported")),
            _ => Err(format!("descr '{descr}' has no explicit byte order, expected '<{code}'")),
        }
    }
}

/// A validated, memory-mapped row-major matrix.
#[derive(Debug)]
struct Matrix {
    map: Mmap,
    elem: Elem,
    format: &'static str,
    /// Byte offset of row 0's first element.
    base: usize,
    /// Bytes from one row's first element to the next's.
    stride: usize,
    rows: usize,
    dim: usize,
}

impl Matrix {
    fn open(path: &Path, file: &str, expected: &'static str) -> Result<Matrix, DatasetError> {
        let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
        let texmex = match ext.as_deref() {
            Some("fvecs") => Some(("fvecs", Elem::F32)),
            Some("bvecs") => Some(("bvecs", Elem::U8)),
            Some("ivecs") => Some(("ivecs", Elem::I32)),
            Some("npy") => None,
            _ => {
                return Err(DatasetError::UnknownFormat { file: file.to_string(), expected });
            }
        };
        let io = |source| DatasetError::Io { file: file.to_string(), source };
        let f = File::open(path).map_err(io)?;
        if f.metadata().map_err(io)?.len() == 0 {
            return Err(DatasetError::Empty { file: file.to_string() });
        }
        // SAFETY: the map is only ever read. Like every file-backed map its
        // contents are undefined if another process truncates or rewrites the
        // file meanwhile; dataset files are treated as immutable inputs.
        let map = unsafe { Mmap::map(&f) }.map_err(io)?;
        // Validation reads front to back; a failed hint is harmless.
        let _ = map.advise(Advice::Sequential);
        let m = match texmex {
            Some((format, elem)) => texmex_layout(map, file, format, elem)?,
            None => npy_layout(map, file)?,
        };
        let _ = m.map.advise(Advice::Normal);
        Ok(m)
    }

    fn row_bytes(&self, i: usize) -> &[u8] {
        let start = self.base + i * self.stride;
        &self.map[start..start + self.dim * self.elem.size()]
    }
}

/// Checks every row header of a TEXMEX file: d > 0, equal to row 0's, whole rows.
fn texmex_layout(map: Mmap, file: &str, format: &'static str, elem: Elem) -> Result<Matrix, DatasetError> {
    let bytes: &[u8] = &map;
    let header = |off: usize| match bytes.get(off..off + 4) {
        Some(&[a, b, c, d]) => Some(i32::from_le_bytes([a, b, c, d])),
        _ => None,
    };
    let truncated = |row, offset, what, need| DatasetError::Truncated {
        file: file.to_string(),
        row,
        offset,
        left: bytes.len() - offset,
        what,
        need,
    };
    let Some(d0) = header(0) else {
        return Err(truncated(0, 0, "header ", 4));
    };
    if d0 <= 0 {
        return Err(DatasetError::BadDimension { file: file.to_string(), row: 0, offset: 0, found: i64::from(d0) });
    }
    let dim = d0 as usize; // positive i32, fits
    let stride = 4 + dim * elem.size(); // at most 4 + 8 * i32::MAX
    let (mut off, mut row) = (0usize, 0usize);
    while off < bytes.len() {
        let Some(d) = header(off) else {
            return Err(truncated(row, off, "header ", 4));
        };
        if d != d0 {
            return Err(DatasetError::DimensionMismatch {
                file: file.to_string(),
                row,
                offset: off,
                found: d,
                expected: dim,
            });
        }
        if bytes.len() - off < stride {
            return Err(truncated(row, off, "", stride));
        }
        off += stride;
        row += 1;
    }
    Ok(Matrix { map, elem, format, base: 4, stride, rows: row, dim })
}

/// Checks an npy header: C order, supported descr, 1-D (N -> N x 1) or 2-D
/// shape, and data length exactly N * D * itemsize.
fn npy_layout(map: Mmap, file: &str) -> Result<Matrix, DatasetError> {
    let npy_err = |msg: String| DatasetError::Npy { file: file.to_string(), source: NpyError(msg) };
    let h = npy::parse(&map).map_err(|source| DatasetError::Npy { file: file.to_string(), source })?;
    if h.fortran_order {
        return Err(npy_err("fortran_order True is not supported, only C-order arrays".to_string()));
    }
    let elem = Elem::from_descr(&h.descr).map_err(npy_err)?;
    let (rows, dim) = match h.shape[..] {
        [n, d] => (n, d),
        [n] => (n, 1),
        _ => {
            return Err(npy_err(format!(
                "shape {:?} has {} dimensions, expected (N, D) or (N,)",
                h.shape,
                h.shape.len()
            )));
        }
    };
    if rows == 0 {
        return Err(DatasetError::Empty { file: file.to_string() });
    }
    if dim == 0 {
        return Err(npy_err(format!("shape ({rows}, 0): dimension 0, expected a positive dimension")));
    }
    let found = map.len() - h.data_offset;
    let expected = rows.checked_mul(dim).and_then(|n| n.checked_mul(elem.size() as u64));
    if expected != Some(found as u64) {
        return Err(DatasetError::NpyDataLength {
            file: file.to_string(),
            offset: h.data_offset,
            found,
            rows,
            dim,
            item: elem.size(),
            expected: expected.map_or_else(|| "more than 2^64".to_string(), |e| e.to_string()),
        });
    }
    // Both fit: their product is the data length, which fits in memory.
    let (rows, dim) = (rows as usize, dim as usize);
    Ok(Matrix { map, elem, format: elem.npy_name(), base: h.data_offset, stride: dim * elem.size(), rows, dim })
}

/// A read-only matrix of vectors, memory-mapped; rows are decoded on demand, never copied whole.
#[derive(Debug)]
pub struct VectorFile {
    m: Matrix,
}

impl VectorFile {
    /// Opens and validates `path`; the format comes from the extension:
    /// `fvecs`, `bvecs`, `ivecs` (ids read as vectors) or `npy`.
    pub fn open(path: &Path) -> Result<VectorFile, DatasetError> {
        let file = path.display().to_string();
        let m = Matrix::open(path, &file, ".fvecs, .bvecs, .ivecs or .npy")?;
        Ok(VectorFile { m })
    }

    pub fn len(&self) -> usize {
        self.m.rows
    }

    pub fn is_empty(&self) -> bool {
        self.m.rows == 0
    }

    pub fn dim(&self) -> usize {
        self.m.dim
    }

    /// `"fvecs"`, `"bvecs"`, `"ivecs"` or `"npy <descr>"`, e.g. `"npy <f4"`.
    pub fn format(&self) -> &'static str {
        self.m.format
    }

    /// Drops rows `rows` from this process's resident memory; reading them again faults
    /// them back in from the page cache. The load phase calls it after each inserted
    /// batch, so the input file does not sit in the RSS beside the collection built from
    /// it (the whole-process peak is then the engine's).
    pub fn release(&self, rows: std::ops::Range<usize>) {
        if rows.is_empty() {
            return;
        }
        self.check(rows.end - 1);
        let start = self.m.base + rows.start * self.m.stride;
        let end = self.m.base + rows.end * self.m.stride;
        // Whole pages inside the range only: a page shared with the next row stays.
        let page = 4096;
        let (start, end) = (start.next_multiple_of(page), end / page * page);
        if end > start {
            // SAFETY: the map is a read-only shared file mapping that is never written, so
            // discarding its pages loses nothing: later reads refault them from the file.
            // No reference into the released range outlives the caller's batch.
            let _ =
                unsafe { self.m.map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, start, end - start) };
        }
    }

    /// Row i as f32 in place (zero-copy) when the file stores aligned
    /// little-endian f32 (`fvecs`, `npy <f4`), else `None`.
    ///
    /// # Panics
    /// If `i >= self.len()`.
    pub fn row_f32(&self, i: usize) -> Option<&[f32]> {
        self.check(i);
        if self.m.elem != Elem::F32 || !cfg!(target_endian = "little") {
            return None;
        }
        let bytes = self.m.row_bytes(i);
        let ptr = bytes.as_ptr();
        if ptr.align_offset(align_of::<f32>()) != 0 || !bytes.len().is_multiple_of(size_of::<f32>()) {
            return None;
        }
        // SAFETY: `ptr` is 4-aligned (checked above) and valid for
        // `bytes.len()` bytes, a whole number of f32s, for the lifetime of
        // `&self` (the map lives in `self` and is never written). Every bit
        // pattern is a valid f32, and the host is little-endian like the file.
        Some(unsafe { std::slice::from_raw_parts(ptr.cast::<f32>(), bytes.len() / 4) })
    }

    /// Row i decoded into `out` (cleared and filled with `dim` values), for every format.
    ///
    /// # Panics
    /// If `i >= self.len()`.
    pub fn read_row(&self, i: usize, out: &mut Vec<f32>) {
        out.clear();
        if let Some(row) = self.row_f32(i) {
            out.extend_from_slice(row);
            return;
        }
        let bytes = self.m.row_bytes(i);
        match self.m.elem {
            Elem::F32 => out.extend(bytes.as_chunks::<4>().0.iter().map(|c| f32::from_le_bytes(*c))),
            Elem::F16 => out.extend(bytes.as_chunks::<2>().0.iter().map(|c| half::f16::from_le_bytes(*c).to_f32())),
            Elem::F64 => out.extend(bytes.as_chunks::<8>().0.iter().map(|c| f64::from_le_bytes(*c) as f32)),
            Elem::I8 => out.extend(bytes.iter().map(|&b| f32::from(b as i8))),
            Elem::U8 => out.extend(bytes.iter().map(|&b| f32::from(b))),
            Elem::I32 => out.extend(bytes.as_chunks::<4>().0.iter().map(|c| i32::from_le_bytes(*c) as f32)),
            Elem::I64 => out.extend(bytes.as_chunks::<8>().0.iter().map(|c| i64::from_le_bytes(*c) as f32)),
        }
    }

    /// Limit to the first n rows (for `--limit`); never grows.
    pub fn truncate(&mut self, n: usize) {
        self.m.rows = self.m.rows.min(n);
    }

    fn check(&self, i: usize) {
        assert!(i < self.m.rows, "row {i} out of range for {} rows", self.m.rows);
    }
}

/// Ground truth: per query, neighbour ids best first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroundTruth {
    pub k: usize,
    ids: Vec<u32>, // row-major, len = queries * k
}

impl GroundTruth {
    /// Loads `.ivecs` or integer `.npy` (`<i4`, `<i8`, `|i1`, `|u1`); all
    /// rows have the same k (checked by the format validation) and every id
    /// must be in `0..=u32::MAX`.
    pub fn open(path: &Path) -> Result<GroundTruth, DatasetError> {
        let file = path.display().to_string();
        let expected = ".ivecs or .npy";
        let ext = path.extension().and_then(|e| e.to_str());
        if !ext.is_some_and(|e| e.eq_ignore_ascii_case("ivecs") || e.eq_ignore_ascii_case("npy")) {
            return Err(DatasetError::UnknownFormat { file, expected });
        }
        let m = Matrix::open(path, &file, expected)?;
        if !m.elem.is_int() {
            return Err(DatasetError::Unsupported {
                message: format!("ground truth needs integer ids, found {} (expected <i4 or <i8)", m.format),
                file,
            });
        }
        let k = m.dim;
        let mut ids = Vec::with_capacity(m.rows * k);
        let mut row_ids = Vec::with_capacity(k);
        for row in 0..m.rows {
            decode_ids(m.elem, m.row_bytes(row), &mut row_ids);
            for (column, &id) in row_ids.iter().enumerate() {
                let Ok(id32) = u32::try_from(id) else {
                    let file = file.clone();
                    return Err(if id < 0 {
                        DatasetError::NegativeId { file, row, column, id }
                    } else {
                        DatasetError::IdTooLarge { file, row, column, id }
                    });
                };
                ids.push(id32);
            }
        }
        Ok(GroundTruth { k, ids })
    }

    /// Number of queries.
    pub fn len(&self) -> usize {
        self.ids.len().checked_div(self.k).unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Query q's neighbour ids, best first (`k` of them).
    ///
    /// # Panics
    /// If `q >= self.len()`.
    pub fn row(&self, q: usize) -> &[u32] {
        assert!(q < self.len(), "query {q} out of range for {} queries", self.len());
        &self.ids[q * self.k..(q + 1) * self.k]
    }

    /// Builds ground truth from row-major `ids`, `k` per query.
    ///
    /// # Panics
    /// If `ids.len()` is not a multiple of `k` (for `k == 0`, unless empty).
    pub fn from_rows(k: usize, ids: Vec<u32>) -> GroundTruth {
        assert!(ids.len().is_multiple_of(k), "{} ids are not a whole number of rows of {k}", ids.len());
        GroundTruth { k, ids }
    }
}

/// Decodes one row of an integer matrix; float rows decode to nothing.
fn decode_ids(elem: Elem, bytes: &[u8], out: &mut Vec<i64>) {
    out.clear();
    match elem {
        Elem::I8 => out.extend(bytes.iter().map(|&b| i64::from(b as i8))),
        Elem::U8 => out.extend(bytes.iter().map(|&b| i64::from(b))),
        Elem::I32 => out.extend(bytes.as_chunks::<4>().0.iter().map(|c| i64::from(i32::from_le_bytes(*c)))),
        Elem::I64 => out.extend(bytes.as_chunks::<8>().0.iter().map(|c| i64::from_le_bytes(*c))),
        Elem::F32 | Elem::F16 | Elem::F64 => {}
    }
}

/// The first `k` of `truth` (fewer if it is shorter), sorted for lookup.
fn relevant(truth: &[u32], k: usize) -> Vec<u32> {
    let mut rel = truth[..k.min(truth.len())].to_vec();
    rel.sort_unstable();
    rel.dedup();
    rel
}

/// recall@k of `found` (ids) against the first k of `truth`:
/// `|found[..k] ∩ truth[..k]| / k`. Only the first k of `found` count, each id
/// once; k shrinks to `truth.len()` if that is shorter. 0.0 when k is 0.
pub fn recall_at(found: &[u32], truth: &[u32], k: usize) -> f64 {
    let rel = relevant(truth, k);
    if rel.is_empty() {
        return 0.0;
    }
    let mut hits = found[..k.min(found.len())].to_vec();
    hits.sort_unstable();
    hits.dedup();
    let n = hits.iter().filter(|id| rel.binary_search(id).is_ok()).count();
    n as f64 / k.min(truth.len()) as f64
}

/// nDCG@k with binary relevance (`truth[..k]` relevant): the gain of `found[i]`
/// (i < k, first occurrence only) is 1 / log2(i + 2), normalised by the ideal
/// ranking's. 0.0 when k is 0.
pub fn ndcg_at(found: &[u32], truth: &[u32], k: usize) -> f64 {
    let rel = relevant(truth, k);
    if rel.is_empty() {
        return 0.0;
    }
    let gain = |i: usize| 1.0 / ((i + 2) as f64).log2();
    let mut seen = Vec::new();
    let mut dcg = 0.0;
    for (i, id) in found.iter().take(k).enumerate() {
        if rel.binary_search(id).is_ok() && !seen.contains(id) {
            seen.push(*id);
            dcg += gain(i);
        }
    }
    let ideal: f64 = (0..rel.len()).map(gain).sum();
    dcg / ideal
}

#[cfg(test)]
mod tests {
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

    const ROWS: [[f32; 4]; 3] =
        [[1.0, -2.5, 3.25, 0.0], [f32::MAX, f32::MIN_POSITIVE, -0.0, 7.0], [1e-3, 2e10, -3.5, 4.0]];

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
}
