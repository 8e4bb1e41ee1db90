//! `xvec import`: JSON Lines documents, with vector fields inline or taken row by row
//! from .fvecs/.npy files. Batched writes; errors name the file and line.

use std::io::BufRead;
use std::path::Path;

use xvec::bench::dataset::VectorFile;
use xvec::{Collection, Doc, Value, VectorType};

use super::CliError;

/// What an import did.
#[derive(Debug, Default)]
pub struct ImportReport {
    pub lines: u64,
    pub written: u64,
    pub failed: u64,
}

/// Vector fields filled from a vector file: (field name, element type, file).
struct VectorSource {
    field: String,
    elem: VectorType,
    file: VectorFile,
}

fn vector_sources(coll: &Collection, specs: &[String]) -> Result<Vec<VectorSource>, CliError> {
    specs
        .iter()
        .map(|spec| {
            let (field, file) = spec
                .split_once('=')
                .ok_or_else(|| CliError::usage(format!("--vectors {spec:?}: expected FIELD=FILE")))?;
            let f = coll
                .schema()
                .index_of(field)
                .map(|i| coll.schema().field(i))
                .and_then(|f| f.as_vector().map(|v| v.elem))
                .ok_or_else(|| {
                    CliError::usage(format!("--vectors: `{field}` is not a vector field of the collection"))
                })?;
            let vf = VectorFile::open(Path::new(file)).map_err(|e| CliError::failed(e.to_string()))?;
            Ok(VectorSource { field: field.to_string(), elem: f, file: vf })
        })
        .collect()
}

/// Imports `path` into `coll`, calling `progress` after each batch with lines read so far.
pub fn import_jsonl(
    coll: &Collection,
    path: &Path,
    key_field: &str,
    vectors: &[String],
    batch_size: usize,
    upsert: bool,
    errors: &mut dyn std::io::Write,
) -> Result<ImportReport, CliError> {
    let sources = vector_sources(coll, vectors)?;
    let file = std::fs::File::open(path).map_err(|e| CliError::failed(format!("{}: {e}", path.display())))?;
    let reader = std::io::BufReader::with_capacity(1 << 20, file);
    let mut report = ImportReport::default();
    let mut batch: Vec<(u64, Doc)> = Vec::with_capacity(batch_size);
    let mut row_buf = Vec::new();
    let name = path.display().to_string();
    let batch_size = batch_size.max(1);
    let flush_batch = |batch: &mut Vec<(u64, Doc)>,
                       report: &mut ImportReport,
                       errors: &mut dyn std::io::Write|
     -> Result<(), CliError> {
        if batch.is_empty() {
            return Ok(());
        }
        let (lines, docs): (Vec<u64>, Vec<Doc>) = batch.drain(..).unzip();
        let results = if upsert { coll.upsert(docs)? } else { coll.insert(docs)? };
        for (line, r) in lines.into_iter().zip(results) {
            match r {
                Ok(()) => report.written += 1,
                Err(e) => {
                    report.failed += 1;
                    let _ = writeln!(errors, "{name}:{line}: error: {e}");
                }
            }
        }
        Ok(())
    };
    for (i, line) in reader.lines().enumerate() {
        let lineno = i as u64 + 1;
        let line = line.map_err(|e| CliError::failed(format!("{name}:{lineno}: {e}")))?;
        if line.trim().is_empty() {
            continue;
        }
        report.lines += 1;
        let obj: serde_json::Map<String, serde_json::Value> = match serde_json::from_str(&line) {
            Ok(o) => o,
            Err(e) => {
                report.failed += 1;
                let _ =
                    writeln!(errors, "{name}:{lineno}:{}: error: expected one JSON object per line: {e}", e.column());
                continue;
            }
        };
        let mut doc = match xvec::value::doc_from_json(coll.schema(), &obj, key_field) {
            Ok(d) => d,
            Err(e) => {
                report.failed += 1;
                let _ = writeln!(errors, "{name}:{lineno}: error: {e}");
                continue;
            }
        };
        let row = report.lines as usize - 1;
        for s in &sources {
            if row >= s.file.len() {
                return Err(CliError::failed(format!(
                    "{name}:{lineno}: the vector file for `{}` has only {} rows",
                    s.field,
                    s.file.len()
                )));
            }
            s.file.read_row(row, &mut row_buf);
            let v = match s.elem {
                VectorType::Fp32 => Value::VectorFp32(row_buf.clone()),
                VectorType::Fp16 => Value::VectorFp16(row_buf.iter().map(|&x| half::f16::from_f32(x)).collect()),
                VectorType::Int8 => {
                    if let Some(j) = row_buf.iter().position(|&x| x.fract() != 0.0 || !(-128.0..=127.0).contains(&x)) {
                        return Err(CliError::failed(format!(
                            "{name}:{lineno}: row {row} of the vector file for `{}` has {} at index {j}; an int8 field needs integers in -128..=127",
                            s.field, row_buf[j]
                        )));
                    }
                    Value::VectorInt8(row_buf.iter().map(|&x| x as i8).collect())
                }
            };
            doc.fields.insert(s.field.clone(), v);
        }
        batch.push((lineno, doc));
        if batch.len() >= batch_size {
            flush_batch(&mut batch, &mut report, errors)?;
        }
    }
    flush_batch(&mut batch, &mut report, errors)?;
    Ok(report)
}
