//! Posting blocks: up to [`BLOCK`] postings of one term, their documents as gaps and
//! their term frequencies (minus one), each bit-packed at the width its largest value
//! needs, with a record that lets a search skip the block without decoding it.

use crate::index::bitpack::{bits, pack, pack_gaps, packed_words, unpack, unpack_gaps};

/// Postings per block (Lucene and tantivy use 128 too): large enough that the record is
/// small beside the postings, small enough that a block bound is tight.
pub(crate) const BLOCK: usize = 128;

/// `u32` words of one block record.
pub(super) const RECORD_WORDS: usize = 4;

/// What a search needs of a block without decoding it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Record {
    /// The block's last (largest) document.
    pub last_doc: u32,
    /// Postings in the block, 1..=[`BLOCK`].
    pub count: u32,
    /// Bits per document gap and per frequency, 0..=32 each.
    pub doc_bits: u32,
    pub tf_bits: u32,
    /// The largest term frequency and the shortest document in the block: their BM25
    /// score bounds every posting's.
    pub max_tf: u32,
    pub min_len: u32,
}

impl Record {
    /// The four stored words.
    pub(crate) fn encode(&self) -> [u32; RECORD_WORDS] {
        [self.last_doc, (self.count - 1) | self.doc_bits << 8 | self.tf_bits << 16, self.max_tf, self.min_len]
    }

    /// Reads four stored words; `None` when a count or width is out of range.
    pub(crate) fn decode(w: &[u32]) -> Option<Record> {
        let r = Record {
            last_doc: w[0],
            count: (w[1] & 0xff) + 1,
            doc_bits: w[1] >> 8 & 0xff,
            tf_bits: w[1] >> 16,
            max_tf: w[2],
            min_len: w[3],
        };
        (r.count as usize <= BLOCK && r.doc_bits <= 32 && r.tf_bits <= 32).then_some(r)
    }

    /// Words of packed postings the block takes.
    pub(crate) fn words(&self) -> usize {
        packed_words(self.count as usize, self.doc_bits) + packed_words(self.count as usize, self.tf_bits)
    }
}

/// One block's documents and frequencies, encoded: its record and its words.
pub(super) fn encode_block(
    prev_last: Option<u32>,
    docs: &[u32],
    tfs: &[u32],
    lens: &[u32],
    out: &mut Vec<u64>,
) -> Record {
    debug_assert!(!docs.is_empty() && docs.len() <= BLOCK && docs.len() == tfs.len());
    let doc_bits = pack_gaps(prev_last, docs, out);
    let minus_one: Vec<u32> = tfs.iter().map(|&t| t - 1).collect();
    let tf_bits = bits(minus_one.iter().copied().max().unwrap_or(0));
    pack(&minus_one, tf_bits, out);
    Record {
        last_doc: *docs.last().expect("a block holds a posting"),
        count: docs.len() as u32,
        doc_bits,
        tf_bits,
        max_tf: tfs.iter().copied().max().unwrap_or(1),
        min_len: docs.iter().map(|&d| lens[d as usize]).min().unwrap_or(0),
    }
}

/// Decodes a block's documents and frequencies into `docs` and `tfs` (`record.count`
/// each); `None` when a document overflows `u32`.
pub(super) fn decode_block(
    record: &Record,
    prev_last: Option<u32>,
    words: &[u64],
    docs: &mut [u32; BLOCK],
    tfs: &mut [u32; BLOCK],
) -> Option<()> {
    let n = record.count as usize;
    let doc_words = packed_words(n, record.doc_bits);
    unpack_gaps(prev_last, &words[..doc_words], record.doc_bits, &mut docs[..n])?;
    unpack(&words[doc_words..], record.tf_bits, &mut tfs[..n]);
    for t in &mut tfs[..n] {
        *t = t.checked_add(1)?;
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_round_trip_with_their_bounds() {
        let lens: Vec<u32> = (0..1000).map(|d| 3 + d % 17).collect();
        let docs: Vec<u32> = (0..100).map(|i| 5 + i * 9).collect();
        let tfs: Vec<u32> = (0..100).map(|i| 1 + i % 5).collect();
        let mut words = Vec::new();
        let r = encode_block(Some(2), &docs, &tfs, &lens, &mut words);
        assert_eq!(Record::decode(&r.encode()), Some(r));
        assert_eq!(r.words(), words.len());
        assert_eq!((r.last_doc, r.count, r.max_tf), (896, 100, 5));
        assert_eq!(r.min_len, docs.iter().map(|&d| lens[d as usize]).min().unwrap());
        let (mut d, mut t) = ([0u32; BLOCK], [0u32; BLOCK]);
        decode_block(&r, Some(2), &words, &mut d, &mut t).unwrap();
        assert_eq!((&d[..100], &t[..100]), (&docs[..], &tfs[..]));
        assert!(Record::decode(&[0, 40 << 8, 1, 1]).is_none(), "a 40-bit width is refused");
    }

    #[test]
    fn a_gap_past_u32_is_refused() {
        let r = Record { last_doc: 0, count: 2, doc_bits: 32, tf_bits: 0, max_tf: 1, min_len: 0 };
        let mut words = Vec::new();
        pack(&[u32::MAX - 1, u32::MAX], 32, &mut words);
        let (mut d, mut t) = ([0u32; BLOCK], [0u32; BLOCK]);
        assert!(decode_block(&r, None, &words, &mut d, &mut t).is_none());
    }
}
