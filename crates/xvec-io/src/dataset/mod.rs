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
    /// A base row's attributes (`--filter`) that cannot be read.
    #[error("{file}: line {line}: {message}")]
    Attributes { file: String, line: usize, message: String },
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
mod tests;
