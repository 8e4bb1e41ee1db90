//! Writing a full-text index from a segment's string column.

use std::collections::HashMap;
use std::path::Path;

use super::blocks::{self, BLOCK, RECORD_WORDS};
use super::{Meta, SECTIONS};
use crate::error::StorageError;
use crate::storage::FileKind;
use crate::storage::column::ScalarColumn;
use crate::storage::container;
use crate::storage::mmap::as_bytes;
use crate::text::{Analyzer, AnalyzerSpec};

/// Writes the full-text index of `col` (the field with id `field` of segment
/// `segment_id`), its text analysed as `spec` says, through a temp file renamed to `path`;
/// returns its size. The caller publishes it (the rename is made durable by the publish).
pub(crate) fn build(
    path: &Path,
    segment_id: u64,
    field: u16,
    spec: &AnalyzerSpec,
    col: &ScalarColumn,
) -> Result<u64, StorageError> {
    let analyzer = Analyzer::new(spec).map_err(|e| StorageError::corrupted(path, 0, e.to_string()))?;
    let rows = col.data.len();
    let crate::storage::column::ColumnData::String(strings) = col.data else {
        return Err(StorageError::corrupted(path, 0, "a full-text index needs a string column".to_string()));
    };
    // Terms numbered as first seen; each term's postings as (row, tf), rows ascending.
    let mut ids: HashMap<String, u32> = HashMap::new();
    let mut postings: Vec<Vec<(u32, u32)>> = Vec::new();
    let mut lengths = vec![0u32; rows];
    let (mut docs, mut total_len) = (0u64, 0u64);
    let mut row_terms: Vec<u32> = Vec::new();
    for (row, len) in lengths.iter_mut().enumerate() {
        if !col.validity.is_valid(row) {
            continue;
        }
        row_terms.clear();
        analyzer.for_each_term(strings.get_str(row), |t, _| {
            let id = match ids.get(t) {
                Some(&id) => id,
                None => {
                    let id = ids.len() as u32;
                    ids.insert(t.to_string(), id);
                    postings.push(Vec::new());
                    id
                }
            };
            row_terms.push(id);
        });
        *len = row_terms.len() as u32;
        docs += 1;
        total_len += row_terms.len() as u64;
        row_terms.sort_unstable();
        for run in row_terms.chunk_by(|a, b| a == b) {
            postings[run[0] as usize].push((row as u32, run.len() as u32));
        }
    }
    let mut order: Vec<(&str, u32)> = ids.iter().map(|(t, &id)| (t.as_str(), id)).collect();
    order.sort_unstable();
    let (mut offsets, mut text) = (vec![0u64], Vec::new());
    let (mut term_blocks, mut term_words) = (vec![0u32], vec![0u64]);
    let (mut records, mut words): (Vec<u32>, Vec<u64>) = (Vec::new(), Vec::new());
    let (mut docs_buf, mut tfs_buf) = (Vec::with_capacity(BLOCK), Vec::with_capacity(BLOCK));
    for &(term, id) in &order {
        text.extend_from_slice(term.as_bytes());
        offsets.push(text.len() as u64);
        let mut prev = None;
        for chunk in postings[id as usize].chunks(BLOCK) {
            docs_buf.clear();
            tfs_buf.clear();
            docs_buf.extend(chunk.iter().map(|p| p.0));
            tfs_buf.extend(chunk.iter().map(|p| p.1));
            let r = blocks::encode_block(prev, &docs_buf, &tfs_buf, &lengths, &mut words);
            records.extend_from_slice(&r.encode());
            prev = Some(r.last_doc);
        }
        term_blocks.push((records.len() / RECORD_WORDS) as u32);
        term_words.push(words.len() as u64);
    }
    let meta = Meta {
        analyzer: analyzer.spec().clone(),
        rows: rows as u64,
        docs,
        total_len,
        terms: order.len() as u64,
        blocks: (records.len() / RECORD_WORDS) as u64,
    };
    let meta = serde_json::to_vec(&meta).expect("meta serializes");
    let parts: [&[u8]; 8] = [
        &meta,
        as_bytes(&offsets),
        &text,
        as_bytes(&term_blocks),
        as_bytes(&term_words),
        as_bytes(&records),
        as_bytes(&words),
        as_bytes(&lengths),
    ];
    let sections: Vec<(u16, u16, &[u8])> = SECTIONS.iter().zip(parts).map(|(k, b)| (*k as u16, field, b)).collect();
    container::write_file(path, FileKind::Index, segment_id, &sections)
}
