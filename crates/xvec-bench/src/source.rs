//! Finds and opens a benchmark dataset: base vectors, query vectors and, when there is
//! one, ground truth, either from a directory in a known layout or from explicit files.
//!
//! Layouts of `--dataset DIR`, tried in order:
//! - TEXMEX / wordnet: `base.{fvecs,bvecs,npy}` (or `*_base.*`), `queries.*` (or
//!   `query.*`, `*_query.*`), ground truth `gt_<metric>_<k>.{ivecs,npy}` (or
//!   `groundtruth.ivecs`, `*_groundtruth.ivecs`, `gt.{ivecs,npy}`).
//! - VectorDBBench: `train.parquet` or `shuffle_train*.parquet` (read in name order),
//!   `test.parquet`, `neighbors.parquet`; ids come from the `id` columns.
//!
//! Ground truth ids are the dataset's ids (the row number for TEXMEX and npy files).

use std::path::{Path, PathBuf};

use super::config::DataSource;
use super::dataset::{DatasetError, GroundTruth, VectorFile};
use crate::attributes::Attributes;
use xvec::Metric;

/// A matrix of f32 vectors: mapped in place, or decoded into memory (parquet).
#[derive(Debug)]
pub enum Vectors {
    Mapped(VectorFile),
    Owned { data: Vec<f32>, dim: usize, format: &'static str },
}

impl Vectors {
    pub fn len(&self) -> usize {
        match self {
            Vectors::Mapped(v) => v.len(),
            Vectors::Owned { data, dim, .. } => data.len() / dim,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn dim(&self) -> usize {
        match self {
            Vectors::Mapped(v) => v.dim(),
            Vectors::Owned { dim, .. } => *dim,
        }
    }

    pub fn format(&self) -> &'static str {
        match self {
            Vectors::Mapped(v) => v.format(),
            Vectors::Owned { format, .. } => format,
        }
    }

    /// Row i, in place when the storage is f32, else decoded into `scratch`.
    ///
    /// # Panics
    /// If `i >= self.len()`.
    pub fn row<'a>(&'a self, i: usize, scratch: &'a mut Vec<f32>) -> &'a [f32] {
        match self {
            Vectors::Mapped(v) => match v.row_f32(i) {
                Some(r) => r,
                None => {
                    v.read_row(i, scratch);
                    scratch
                }
            },
            Vectors::Owned { data, dim, .. } => &data[i * dim..(i + 1) * dim],
        }
    }

    /// Drops rows `rows` of a mapped file from the resident memory (see
    /// [`VectorFile::release`]); decoded rows stay (parquet data is held in memory).
    pub fn release(&self, rows: std::ops::Range<usize>) {
        if let Vectors::Mapped(v) = self {
            v.release(rows);
        }
    }

    /// Keeps only the first `n` rows.
    pub fn truncate(&mut self, n: usize) {
        match self {
            Vectors::Mapped(v) => v.truncate(n),
            Vectors::Owned { data, dim, .. } => data.truncate(n.saturating_mul(*dim).min(data.len())),
        }
    }

    /// Every row as an owned vector (for query sets, which are small).
    pub fn to_rows(&self) -> Vec<Vec<f32>> {
        let mut scratch = Vec::new();
        (0..self.len()).map(|i| self.row(i, &mut scratch).to_vec()).collect()
    }
}

/// An opened dataset.
#[derive(Debug)]
pub struct Dataset {
    /// The directory's name, or the base file's stem.
    pub name: String,
    pub base: Vectors,
    pub base_file: String,
    /// Id of each base row when the file names them (parquet `id`); else the row number.
    pub base_ids: Option<Vec<u32>>,
    pub queries: Vectors,
    pub queries_file: String,
    pub truth: Option<GroundTruth>,
    pub truth_file: Option<String>,
    /// The base rows' scalar attributes, read for `--filter` ([`Dataset::read_attributes`]).
    pub attributes: Option<Attributes>,
}

impl Dataset {
    /// Opens the dataset `source` names; `metric` picks among a directory's ground truths.
    pub fn open(source: &DataSource, metric: Metric) -> Result<Dataset, DatasetError> {
        let ds = match source {
            DataSource::Files { base, queries, gt } => {
                let name = base.file_stem().map_or_else(|| "dataset".to_string(), |s| s.to_string_lossy().into());
                Dataset::from_files(name, base, queries, gt.as_deref())?
            }
            DataSource::Dir { dataset } => open_dir(dataset, metric)?,
        };
        if ds.base.dim() != ds.queries.dim() {
            return Err(DatasetError::Unsupported {
                file: ds.queries_file.clone(),
                message: format!(
                    "queries have dimension {}, the base vectors ({}) {}",
                    ds.queries.dim(),
                    ds.base_file,
                    ds.base.dim()
                ),
            });
        }
        if let (Some(t), Some(file)) = (&ds.truth, &ds.truth_file)
            && t.len() < ds.queries.len()
        {
            return Err(DatasetError::Unsupported {
                file: file.clone(),
                message: format!(
                    "ground truth for {} queries, expected {} (as in {})",
                    t.len(),
                    ds.queries.len(),
                    ds.queries_file
                ),
            });
        }
        Ok(ds)
    }

    /// The id of base row `row`.
    /// Reads the attributes of the base rows (`base.jsonl` beside `base.fvecs`).
    pub fn read_attributes(&mut self) -> Result<(), DatasetError> {
        let path = crate::attributes::path_for(Path::new(&self.base_file));
        self.attributes = Some(Attributes::read(&path, self.base.len())?);
        Ok(())
    }

    pub fn id(&self, row: usize) -> u32 {
        self.base_ids.as_ref().map_or(row as u32, |ids| ids[row])
    }

    fn from_files(name: String, base: &Path, queries: &Path, gt: Option<&Path>) -> Result<Dataset, DatasetError> {
        if is_parquet(base) {
            return from_parquet(name, &[base.to_path_buf()], queries, gt);
        }
        let base_v = VectorFile::open(base)?;
        let queries_v = open_vectors(queries)?;
        let truth = match gt {
            Some(p) if is_parquet(p) => Some(parquet_truth(p, None)?),
            Some(p) => Some(GroundTruth::open(p)?),
            None => None,
        };
        if base_v.len() > u32::MAX as usize {
            return Err(DatasetError::Unsupported {
                file: base.display().to_string(),
                message: format!("{} rows; at most {} are supported", base_v.len(), u32::MAX),
            });
        }
        Ok(Dataset {
            name,
            base: Vectors::Mapped(base_v),
            base_file: base.display().to_string(),
            base_ids: None,
            queries: queries_v,
            queries_file: queries.display().to_string(),
            truth,
            truth_file: gt.map(|p| p.display().to_string()),
            attributes: None,
        })
    }
}

fn is_parquet(p: &Path) -> bool {
    p.extension().is_some_and(|e| e.eq_ignore_ascii_case("parquet"))
}

fn open_vectors(p: &Path) -> Result<Vectors, DatasetError> {
    if is_parquet(p) {
        let (v, _) = parquet_vectors(&[p.to_path_buf()])?;
        Ok(v)
    } else {
        Ok(Vectors::Mapped(VectorFile::open(p)?))
    }
}

fn open_dir(dir: &Path, metric: Metric) -> Result<Dataset, DatasetError> {
    let dir_s = dir.display().to_string();
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map_err(|source| DatasetError::Io { file: dir_s.clone(), source })?
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let name = dir.file_name().map_or_else(|| dir_s.clone(), |n| n.to_string_lossy().into_owned());
    let pick = |patterns: &[&dyn Fn(&str) -> bool]| -> Option<PathBuf> {
        patterns.iter().find_map(|p| names.iter().find(|n| p(n)).map(|n| dir.join(n)))
    };
    let vec_ext = |n: &str, stem: &str| ["fvecs", "bvecs", "npy"].iter().any(|e| n == format!("{stem}.{e}"));
    let base = pick(&[&|n| vec_ext(n, "base"), &|n| ["_base.fvecs", "_base.bvecs"].iter().any(|s| n.ends_with(s))]);
    let queries = pick(&[&|n| vec_ext(n, "queries") || vec_ext(n, "query"), &|n| {
        ["_query.fvecs", "_query.bvecs"].iter().any(|s| n.ends_with(s))
    }]);
    if let (Some(base), Some(queries)) = (base, queries) {
        let gt_prefix = format!("gt_{}_", metric.name());
        let gt = pick(&[
            &|n| n.starts_with(&gt_prefix) && (n.ends_with(".ivecs") || n.ends_with(".npy")),
            &|n| n == "groundtruth.ivecs" || n.ends_with("_groundtruth.ivecs"),
            &|n| n == "gt.ivecs" || n == "gt.npy",
        ]);
        let mut ds = Dataset::from_files(name, &base, &queries, gt.as_deref())?;
        ds.name = dir.file_name().map_or(ds.name, |n| n.to_string_lossy().into_owned());
        return Ok(ds);
    }
    let train: Vec<PathBuf> = if names.iter().any(|n| n == "train.parquet") {
        vec![dir.join("train.parquet")]
    } else {
        names
            .iter()
            .filter(|n| n.starts_with("shuffle_train") && n.ends_with(".parquet"))
            .map(|n| dir.join(n))
            .collect()
    };
    if !train.is_empty() && names.iter().any(|n| n == "test.parquet") {
        let gt = names.iter().any(|n| n == "neighbors.parquet").then(|| dir.join("neighbors.parquet"));
        return from_parquet(name, &train, &dir.join("test.parquet"), gt.as_deref());
    }
    Err(DatasetError::Unsupported {
        file: dir_s,
        message: "no dataset found: expected base.fvecs + queries.fvecs (+ gt_<metric>_<k>.ivecs), \
                  or train.parquet / shuffle_train*.parquet + test.parquet (+ neighbors.parquet)"
            .to_string(),
    })
}

#[cfg(feature = "parquet")]
fn parquet_vectors(files: &[PathBuf]) -> Result<(Vectors, Vec<i64>), DatasetError> {
    let mut data = Vec::new();
    let mut ids = Vec::new();
    let mut dim = None;
    for f in files {
        let v = super::parquet::read_vectors(f)?;
        if let Some(d) = dim
            && d != v.dim
        {
            return Err(DatasetError::Parquet {
                file: f.display().to_string(),
                message: format!("vectors of dimension {}, expected {d} (as in {})", v.dim, files[0].display()),
            });
        }
        dim = Some(v.dim);
        data.extend_from_slice(&v.data);
        ids.extend_from_slice(&v.ids);
    }
    // `read_vectors` never returns zero rows, so `dim` is set when `files` is not empty.
    let dim = dim.unwrap_or(1);
    Ok((Vectors::Owned { data, dim, format: "parquet" }, ids))
}

#[cfg(not(feature = "parquet"))]
fn parquet_vectors(files: &[PathBuf]) -> Result<(Vectors, Vec<i64>), DatasetError> {
    Err(no_parquet(&files[0]))
}

#[cfg(not(feature = "parquet"))]
fn no_parquet(p: &Path) -> DatasetError {
    DatasetError::Unsupported {
        file: p.display().to_string(),
        message: "this xvec was built without parquet support; rebuild with `--features parquet`".to_string(),
    }
}

/// Ground truth from a neighbors file, reordered to follow `query_ids` when both name ids.
#[cfg(feature = "parquet")]
fn parquet_truth(p: &Path, query_ids: Option<&[i64]>) -> Result<GroundTruth, DatasetError> {
    let file = p.display().to_string();
    let n = super::parquet::read_neighbors(p)?;
    let rows = n.neighbors.len() / n.k;
    let order: Vec<usize> = match (query_ids, &n.ids) {
        (Some(q), Some(ids)) => {
            let pos: std::collections::HashMap<i64, usize> = ids.iter().enumerate().map(|(i, &id)| (id, i)).collect();
            q.iter()
                .map(|id| {
                    pos.get(id).copied().ok_or_else(|| DatasetError::Parquet {
                        file: file.clone(),
                        message: format!("no neighbours for query id {id}"),
                    })
                })
                .collect::<Result<_, _>>()?
        }
        _ => (0..rows).collect(),
    };
    let mut ids = Vec::with_capacity(order.len() * n.k);
    for &row in &order {
        for (column, &id) in n.neighbors[row * n.k..(row + 1) * n.k].iter().enumerate() {
            ids.push(id_u32(&file, row, column, id)?);
        }
    }
    Ok(GroundTruth::from_rows(n.k, ids))
}

#[cfg(not(feature = "parquet"))]
fn parquet_truth(p: &Path, _query_ids: Option<&[i64]>) -> Result<GroundTruth, DatasetError> {
    Err(no_parquet(p))
}

/// A dataset id as the u32 that ground truth and collection keys use.
fn id_u32(file: &str, row: usize, column: usize, id: i64) -> Result<u32, DatasetError> {
    u32::try_from(id).map_err(|_| {
        let file = file.to_string();
        if id < 0 {
            DatasetError::NegativeId { file, row, column, id }
        } else {
            DatasetError::IdTooLarge { file, row, column, id }
        }
    })
}

fn from_parquet(name: String, train: &[PathBuf], test: &Path, gt: Option<&Path>) -> Result<Dataset, DatasetError> {
    let (base, ids) = parquet_vectors(train)?;
    let train_file = train[0].display().to_string();
    let base_ids =
        ids.iter().enumerate().map(|(row, &id)| id_u32(&train_file, row, 0, id)).collect::<Result<_, _>>()?;
    let (queries, query_ids) = if is_parquet(test) {
        let (q, ids) = parquet_vectors(&[test.to_path_buf()])?;
        (q, Some(ids))
    } else {
        (open_vectors(test)?, None)
    };
    let truth = match gt {
        Some(p) if is_parquet(p) => Some(parquet_truth(p, query_ids.as_deref())?),
        Some(p) => Some(GroundTruth::open(p)?),
        None => None,
    };
    let base_file = if train.len() == 1 {
        train[0].display().to_string()
    } else {
        format!("{} (+{} more)", train[0].display(), train.len() - 1)
    };
    Ok(Dataset {
        name,
        base,
        base_file,
        base_ids: Some(base_ids),
        queries,
        queries_file: test.display().to_string(),
        truth,
        truth_file: gt.map(|p| p.display().to_string()),
        attributes: None,
    })
}
