//! `vocabulary`: a BM25 vocabulary file made from a string field's live documents, and
//! the reading of such a file for `import --sparse-bm25` and `query --sparse-text`.

use std::io::Write;
use std::path::Path;

use xvec::sparse::Bm25Vocabulary;
use xvec::{FieldType, ScalarType, TextIndex, Value};

use super::context::{Collections, Io};
use super::plural::count;
use super::{CliError, VocabularyArgs, interrupt};

/// Documents fetched per step.
const CHUNK: usize = 4096;

/// Largest vocabulary file read (a term line is at most 276 bytes; 2^32 terms would not
/// fit in memory anyway).
const MAX_FILE_BYTES: u64 = 1 << 32;

pub fn run(a: &VocabularyArgs, colls: &mut dyn Collections, io: &mut Io) -> Result<(), CliError> {
    let coll = colls.open(&a.coll.dir, false)?;
    let schema = coll.schema();
    let field =
        schema.index_of(&a.field).map(|i| schema.field(i)).filter(|f| f.ty == FieldType::Scalar(ScalarType::String));
    let Some(field) = field else {
        return Err(CliError::usage(format!("`{}` is not a string field of the collection", a.field)));
    };
    let index = match (&a.index, &field.text) {
        (Some(json), _) => TextIndex::parse(json).map_err(|e| CliError::usage(format!("--index: {e}")))?,
        (None, Some(index)) => index.clone(),
        (None, None) => TextIndex::new(Default::default()),
    };
    let snapshot = coll.snapshot();
    let keys = snapshot.keys_where(None)?;
    let fields = [a.field.clone()];
    let mut texts: Vec<String> = Vec::with_capacity(keys.len());
    for chunk in keys.chunks(CHUNK) {
        interrupt::check()?;
        let refs: Vec<&str> = chunk.iter().map(String::as_str).collect();
        for doc in snapshot.fetch(&refs, Some(&fields))?.into_iter().flatten() {
            if let Some(Value::String(s)) = doc.fields.get(&a.field) {
                texts.push(s.clone());
            }
        }
    }
    let vocabulary = Bm25Vocabulary::build(&index.analyzer, index.bm25, texts.iter().map(String::as_str))
        .map_err(|e| CliError::failed(e.to_string()))?;
    match &a.output {
        Some(path) => {
            let file = std::fs::File::create(path).map_err(|e| CliError::file(path, &e))?;
            let mut out = std::io::BufWriter::new(file);
            vocabulary.write_to(&mut out).and_then(|()| out.flush()).map_err(|e| CliError::file(path, &e))?;
            writeln!(
                io.err,
                "vocabulary: {} from {} to {}",
                count(vocabulary.len() as u64, "term"),
                count(vocabulary.documents(), "document"),
                path.display()
            )?;
        }
        None => vocabulary.write_to(io.out)?,
    }
    Ok(())
}

/// Reads the vocabulary file at `path`; an error names the file and line.
pub fn load(path: &Path) -> Result<Bm25Vocabulary, CliError> {
    let len = std::fs::metadata(path).map_err(|e| CliError::file(path, &e))?.len();
    if len > MAX_FILE_BYTES {
        return Err(CliError::failed(format!(
            "{}: {len} bytes; a vocabulary file is at most {MAX_FILE_BYTES}",
            path.display()
        )));
    }
    let text = std::fs::read_to_string(path).map_err(|e| CliError::file(path, &e))?;
    Bm25Vocabulary::parse(&text).map_err(|e| {
        CliError::failed(format!("{}: {e}", path.display())).hint("make one with `xvec vocabulary DIR FIELD -o FILE`")
    })
}
