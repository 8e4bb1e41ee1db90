//! The text formats of `export`: JSON Lines (one object per document, vectors inline) and
//! CSV (a header row, vectors and arrays as JSON in their cells, an empty cell for null).
//! Numbers go through `Value::to_json`, so f32s are at their shortest round-trip decimal.

use std::io::Write;

use xvec::{Doc, Value};

use super::{CliError, Layout, Writer};

pub struct Jsonl<'a> {
    out: Box<dyn Write + 'a>,
    layout: Layout,
    line: Vec<u8>,
}

impl<'a> Jsonl<'a> {
    pub fn new(out: Box<dyn Write + 'a>, layout: Layout) -> Jsonl<'a> {
        Jsonl { out, layout, line: Vec::new() }
    }
}

impl Writer for Jsonl<'_> {
    fn write(&mut self, docs: &[Doc]) -> Result<(), CliError> {
        for doc in docs {
            let mut obj = serde_json::Map::new();
            obj.insert(self.layout.key_field.clone(), doc.key.clone().into());
            for f in &self.layout.fields {
                if let Some(value) = doc.get(&f.name).filter(|v| **v != Value::Null) {
                    obj.insert(f.name.clone(), value.to_json());
                }
            }
            self.line.clear();
            serde_json::to_writer(&mut self.line, &obj).map_err(|e| CliError::failed(e.to_string()))?;
            self.line.push(b'\n');
            self.out.write_all(&self.line)?;
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> Result<(), CliError> {
        Ok(self.out.flush()?)
    }
}

pub struct Csv<'a> {
    out: csv::Writer<Box<dyn Write + 'a>>,
    layout: Layout,
    record: Vec<String>,
}

impl<'a> Csv<'a> {
    pub fn new(out: Box<dyn Write + 'a>, layout: Layout) -> Result<Csv<'a>, CliError> {
        let mut out = csv::WriterBuilder::new().from_writer(out);
        let header = std::iter::once(layout.key_field.as_str()).chain(layout.fields.iter().map(|f| f.name.as_str()));
        out.write_record(header).map_err(csv_error)?;
        Ok(Csv { out, layout, record: Vec::new() })
    }
}

/// A CSV cell: strings as they are, null empty, everything else as its JSON text (what
/// `import` parses by the field's type).
pub fn cell(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_json().to_string(),
    }
}

impl Writer for Csv<'_> {
    fn write(&mut self, docs: &[Doc]) -> Result<(), CliError> {
        for doc in docs {
            self.record.clear();
            self.record.push(doc.key.clone());
            self.record.extend(self.layout.fields.iter().map(|f| cell(doc.get(&f.name))));
            self.out.write_record(&self.record).map_err(csv_error)?;
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> Result<(), CliError> {
        Ok(self.out.flush()?)
    }
}

fn csv_error(e: csv::Error) -> CliError {
    match e.into_kind() {
        csv::ErrorKind::Io(e) => e.into(),
        other => CliError::failed(format!("csv: {other:?}")),
    }
}
