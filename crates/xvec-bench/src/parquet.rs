//! VectorDBBench parquet files, read without arrow: `train.parquet` / `test.parquet` with an
//! `id` (int64) and an `emb` (`list<float>` or `list<double>`) column, and `neighbors.parquet`
//! with `id` and `neighbors_id` (`list<int64>` or `list<int32>`).
//!
//! Owns only decoding: column readers over each row group, definition and repetition
//! levels walked by hand so that a null, an empty list or a ragged row is an error naming
//! the file, the row and what was expected. What the columns mean is `super::source`'s.

use std::fs::File;
use std::path::Path;

use parquet::basic::Type as Physical;
use parquet::column::reader::{ColumnReader, ColumnReaderImpl};
use parquet::data_type::{DataType, DoubleType, FloatType, Int32Type, Int64Type};
use parquet::file::reader::{FileReader, SerializedFileReader};

use super::dataset::DatasetError;

/// Records decoded per `read_records` call.
const BATCH: usize = 4096;

/// Vectors of a train or test file, row-major.
#[derive(Debug, Clone, PartialEq)]
pub struct ParquetVectors {
    /// The `id` column, one per row.
    pub ids: Vec<i64>,
    pub dim: usize,
    /// `ids.len() * dim` values.
    pub data: Vec<f32>,
}

/// Neighbour lists of a neighbors file: per row `k` ids, best first.
#[derive(Debug, Clone, PartialEq)]
pub struct ParquetNeighbors {
    /// The `id` column (the query's id), when present.
    pub ids: Option<Vec<i64>>,
    pub k: usize,
    pub neighbors: Vec<i64>,
}

/// Reads the `id` and `emb` columns of a train or test file.
pub fn read_vectors(path: &Path) -> Result<ParquetVectors, DatasetError> {
    let f = PqFile::open(path)?;
    let (data, dim) = f.list_column("emb", Kind::Float)?;
    let ids = f.scalar_ids("id")?;
    let rows = data.len() / dim;
    if ids.len() != rows {
        return Err(f.err(format!("column id has {} rows, column emb {rows}", ids.len())));
    }
    match data {
        Values::F32(data) => Ok(ParquetVectors { ids, dim, data }),
        Values::I64(_) => unreachable!("emb is read as floats"),
    }
}

/// Reads the `neighbors_id` (and, if present, `id`) columns of a neighbors file.
pub fn read_neighbors(path: &Path) -> Result<ParquetNeighbors, DatasetError> {
    let f = PqFile::open(path)?;
    let (neighbors, k) = f.list_column("neighbors_id", Kind::Int)?;
    let ids = if f.find("id").is_some() { Some(f.scalar_ids("id")?) } else { None };
    let neighbors = match neighbors {
        Values::I64(n) => n,
        Values::F32(_) => unreachable!("neighbors_id is read as integers"),
    };
    if let Some(ids) = &ids
        && ids.len() * k != neighbors.len()
    {
        return Err(f.err(format!("column id has {} rows, column neighbors_id {}", ids.len(), neighbors.len() / k)));
    }
    Ok(ParquetNeighbors { ids, k, neighbors })
}

/// The number type a caller wants out of a column.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// float or double, as f32.
    Float,
    /// int64 or int32, as i64.
    Int,
}

/// Decoded values of one column.
enum Values {
    F32(Vec<f32>),
    I64(Vec<i64>),
}

impl Values {
    fn len(&self) -> usize {
        match self {
            Values::F32(v) => v.len(),
            Values::I64(v) => v.len(),
        }
    }
}

struct PqFile {
    file: String,
    reader: SerializedFileReader<File>,
}

/// What the level walk found in one row group.
struct Walk {
    rows: usize,
    /// Values per row, the same for every row so far (`None` before the first row).
    width: Option<usize>,
}

impl PqFile {
    fn open(path: &Path) -> Result<PqFile, DatasetError> {
        let file = path.display().to_string();
        let f = File::open(path).map_err(|source| DatasetError::Io { file: file.clone(), source })?;
        let reader = SerializedFileReader::new(f).map_err(|e| DatasetError::Parquet {
            file: file.clone(),
            message: format!("not a readable parquet file: {e}"),
        })?;
        if reader.metadata().file_metadata().num_rows() == 0 {
            return Err(DatasetError::Empty { file });
        }
        Ok(PqFile { file, reader })
    }

    fn err(&self, message: String) -> DatasetError {
        DatasetError::Parquet { file: self.file.clone(), message }
    }

    /// The leaf column whose path starts with `name`.
    fn find(&self, name: &str) -> Option<usize> {
        let schema = self.reader.metadata().file_metadata().schema_descr();
        (0..schema.num_columns()).find(|&i| schema.column(i).path().parts().first().is_some_and(|p| p == name))
    }

    fn column(&self, name: &str) -> Result<usize, DatasetError> {
        self.find(name).ok_or_else(|| {
            let schema = self.reader.metadata().file_metadata().schema_descr();
            let have: Vec<String> = (0..schema.num_columns()).map(|i| schema.column(i).path().string()).collect();
            self.err(format!("no column '{name}'; the file has {}", have.join(", ")))
        })
    }

    /// A list column with the same number of values in every row; returns the values
    /// and that number.
    fn list_column(&self, name: &str, want: Kind) -> Result<(Values, usize), DatasetError> {
        let col = self.column(name)?;
        let descr = self.reader.metadata().file_metadata().schema_descr().column(col);
        if descr.max_rep_level() != 1 {
            return Err(self.err(format!(
                "column '{name}' ({}) is not a list (repetition level {}), expected list<number>",
                descr.path().string(),
                descr.max_rep_level()
            )));
        }
        let levels = (descr.max_def_level(), descr.max_rep_level());
        let mut out = if want == Kind::Float { Values::F32(Vec::new()) } else { Values::I64(Vec::new()) };
        let mut walk = Walk { rows: 0, width: None };
        let physical = descr.physical_type();
        for rg in 0..self.reader.num_row_groups() {
            let reader = self.row_group_column(rg, col)?;
            match (&mut out, physical, reader) {
                (Values::F32(o), Physical::FLOAT, ColumnReader::FloatColumnReader(r)) => {
                    self.walk::<FloatType>(name, r, levels, &mut walk, |v| o.extend_from_slice(v))?
                }
                (Values::F32(o), Physical::DOUBLE, ColumnReader::DoubleColumnReader(r)) => {
                    self.walk::<DoubleType>(name, r, levels, &mut walk, |v| o.extend(v.iter().map(|&x| x as f32)))?
                }
                (Values::I64(o), Physical::INT64, ColumnReader::Int64ColumnReader(r)) => {
                    self.walk::<Int64Type>(name, r, levels, &mut walk, |v| o.extend_from_slice(v))?
                }
                (Values::I64(o), Physical::INT32, ColumnReader::Int32ColumnReader(r)) => {
                    let widen = |v: &[i32]| o.extend(v.iter().map(|&x| i64::from(x)));
                    self.walk::<Int32Type>(name, r, levels, &mut walk, widen)?
                }
                _ => {
                    let expected = if want == Kind::Float { "float or double" } else { "int64 or int32" };
                    return Err(self.err(format!("column '{name}' holds {physical}, expected list<{expected}>")));
                }
            }
        }
        let width = walk.width.ok_or_else(|| DatasetError::Empty { file: self.file.clone() })?;
        debug_assert_eq!(out.len(), walk.rows * width);
        Ok((out, width))
    }

    /// A non-null int64 (or int32) column, one value per row.
    fn scalar_ids(&self, name: &str) -> Result<Vec<i64>, DatasetError> {
        let col = self.column(name)?;
        let descr = self.reader.metadata().file_metadata().schema_descr().column(col);
        if descr.max_rep_level() != 0 {
            return Err(self.err(format!("column '{name}' is a list, expected one integer per row")));
        }
        let levels = (descr.max_def_level(), 0);
        let mut out = Vec::new();
        let mut walk = Walk { rows: 0, width: None };
        for rg in 0..self.reader.num_row_groups() {
            match self.row_group_column(rg, col)? {
                ColumnReader::Int64ColumnReader(r) => {
                    self.walk::<Int64Type>(name, r, levels, &mut walk, |v| out.extend_from_slice(v))?
                }
                ColumnReader::Int32ColumnReader(r) => {
                    let widen = |v: &[i32]| out.extend(v.iter().map(|&x| i64::from(x)));
                    self.walk::<Int32Type>(name, r, levels, &mut walk, widen)?
                }
                _ => {
                    return Err(self.err(format!("column '{name}' holds {}, expected int64", descr.physical_type())));
                }
            }
        }
        Ok(out)
    }

    fn row_group_column(&self, rg: usize, col: usize) -> Result<ColumnReader, DatasetError> {
        let group = self.reader.get_row_group(rg).map_err(|e| self.err(format!("row group {rg}: {e}")))?;
        group.get_column_reader(col).map_err(|e| self.err(format!("row group {rg}: {e}")))
    }

    /// Decodes one row group's column, checking that every row holds as many non-null
    /// values as row 0 (1 for scalar columns), and hands the values to `sink` batch by
    /// batch. `levels` are the column's maximum definition and repetition levels.
    fn walk<T: DataType>(
        &self,
        name: &str,
        mut r: ColumnReaderImpl<T>,
        (max_def, max_rep): (i16, i16),
        walk: &mut Walk,
        mut sink: impl FnMut(&[T::T]),
    ) -> Result<(), DatasetError> {
        let (mut def, mut rep, mut vals) = (Vec::new(), Vec::new(), Vec::new());
        // Values of the row being walked; a row can span batches only at its start.
        let mut in_row = 0usize;
        let mut started = false;
        loop {
            def.clear();
            rep.clear();
            vals.clear();
            let (records, _values, levels) = r
                .read_records(BATCH, Some(&mut def), Some(&mut rep), &mut vals)
                .map_err(|e| self.err(format!("column '{name}' near row {}: {e}", walk.rows)))?;
            if records == 0 && levels == 0 {
                break;
            }
            for i in 0..levels {
                let new_row = max_rep == 0 || rep[i] == 0;
                if new_row {
                    if started {
                        self.end_row(name, walk, in_row)?;
                    }
                    started = true;
                    in_row = 0;
                }
                let present = max_def == 0 || def[i] == max_def;
                if !present {
                    return Err(self.err(format!(
                        "column '{name}' row {}: null or empty value (definition level {} of {max_def}), expected {}",
                        walk.rows,
                        def[i],
                        if max_rep == 0 { "a number" } else { "a list of numbers" }
                    )));
                }
                in_row += 1;
            }
            sink(&vals);
        }
        if started {
            self.end_row(name, walk, in_row)?;
        }
        Ok(())
    }

    fn end_row(&self, name: &str, walk: &mut Walk, values: usize) -> Result<(), DatasetError> {
        match walk.width {
            None => walk.width = Some(values),
            Some(w) if w != values => {
                return Err(
                    self.err(format!("column '{name}' row {}: {values} values, expected {w} (as in row 0)", walk.rows))
                );
            }
            Some(_) => {}
        }
        walk.rows += 1;
        Ok(())
    }
}
