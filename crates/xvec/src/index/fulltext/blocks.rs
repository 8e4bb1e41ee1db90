//! Posting blocks: up to [`BLOCK`] postings of one term, their documents as gaps and
//! their term frequencies (minus one), each bit-packed at the width its largest value
//! needs, with a record that lets a search skip the block without decoding it.

/// Postings per block (Lucene and tantivy use 128 too): large enough that the record is
/// small beside the postings, small enough that a block bound is tight.
pub const BLOCK: usize = 128;

/// `u32` words of one block record.
pub const RECORD_WORDS: usize = 4;

/// What a search needs of a block without decoding it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
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
    pub fn encode(&self) -> [u32; RECORD_WORDS] {
        [self.last_doc, (self.count - 1) | self.doc_bits << 8 | self.tf_bits << 16, self.max_tf, self.min_len]
    }

    /// Reads four stored words; `None` when a count or width is out of range.
    pub fn decode(w: &[u32]) -> Option<Record> {
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
    pub fn words(&self) -> usize {
        packed_words(self.count as usize, self.doc_bits) + packed_words(self.count as usize, self.tf_bits)
    }
}

/// Bits a value needs (0 for 0).
pub fn bits(max: u32) -> u32 {
    32 - max.leading_zeros()
}

/// Words `n` values of `width` bits take.
pub fn packed_words(n: usize, width: u32) -> usize {
    (n * width as usize).div_ceil(64)
}

/// Appends `values` packed at `width` bits each, least significant bit first.
pub fn pack(values: &[u32], width: u32, out: &mut Vec<u64>) {
    let start = out.len();
    out.resize(start + packed_words(values.len(), width), 0);
    if width == 0 {
        return;
    }
    let words = &mut out[start..];
    for (i, &v) in values.iter().enumerate() {
        let bit = i * width as usize;
        let (w, off) = (bit / 64, bit % 64);
        words[w] |= (v as u64) << off;
        if off + width as usize > 64 {
            words[w + 1] |= (v as u64) >> (64 - off);
        }
    }
}

/// Reads `out.len()` values of `width` bits from `words` (as [`pack`] wrote them).
pub fn unpack(words: &[u64], width: u32, out: &mut [u32]) {
    if width == 0 {
        out.fill(0);
        return;
    }
    let mask = if width == 32 { u32::MAX as u64 } else { (1u64 << width) - 1 };
    for (i, v) in out.iter_mut().enumerate() {
        let bit = i * width as usize;
        let (w, off) = (bit / 64, bit % 64);
        let mut x = words[w] >> off;
        if off + width as usize > 64 {
            x |= words[w + 1] << (64 - off);
        }
        *v = (x & mask) as u32;
    }
}

/// One block's documents and frequencies, encoded: its record and its words.
pub fn encode_block(prev_last: Option<u32>, docs: &[u32], tfs: &[u32], lens: &[u32], out: &mut Vec<u64>) -> Record {
    debug_assert!(!docs.is_empty() && docs.len() <= BLOCK && docs.len() == tfs.len());
    let mut gaps = [0u32; BLOCK];
    let mut base = prev_last.map_or(0, |d| d + 1);
    for (g, &d) in gaps.iter_mut().zip(docs) {
        *g = d - base;
        base = d + 1;
    }
    let gaps = &gaps[..docs.len()];
    let minus_one: Vec<u32> = tfs.iter().map(|&t| t - 1).collect();
    let doc_bits = bits(gaps.iter().copied().max().unwrap_or(0));
    let tf_bits = bits(minus_one.iter().copied().max().unwrap_or(0));
    pack(gaps, doc_bits, out);
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
pub fn decode_block(
    record: &Record,
    prev_last: Option<u32>,
    words: &[u64],
    docs: &mut [u32; BLOCK],
    tfs: &mut [u32; BLOCK],
) -> Option<()> {
    let n = record.count as usize;
    let doc_words = packed_words(n, record.doc_bits);
    unpack(&words[..doc_words], record.doc_bits, &mut docs[..n]);
    unpack(&words[doc_words..], record.tf_bits, &mut tfs[..n]);
    let mut base = prev_last.map_or(Some(0), |d| d.checked_add(1))? as u64;
    for d in &mut docs[..n] {
        let doc = base + *d as u64;
        *d = u32::try_from(doc).ok().filter(|&d| d != u32::MAX)?;
        base = doc + 1;
    }
    for t in &mut tfs[..n] {
        *t = t.checked_add(1)?;
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packs_and_unpacks_every_width() {
        for width in 0..=32u32 {
            let max = if width == 0 { 0 } else { (u64::from(u32::MAX) >> (32 - width)) as u32 };
            let values: Vec<u32> =
                (0..BLOCK as u32).map(|i| max.wrapping_sub(i.wrapping_mul(2_654_435_761)) & max).collect();
            let mut words = vec![7u64];
            pack(&values, width, &mut words);
            assert_eq!(words.len(), 1 + packed_words(values.len(), width));
            let mut back = vec![0u32; values.len()];
            unpack(&words[1..], width, &mut back);
            assert_eq!(back, values, "width {width}");
        }
    }

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
