//! Unsigned integers bit-packed at one width, least significant bit first in `u64`
//! words, and ascending rows as gaps: the posting blocks of the full-text and sparse
//! indexes.

/// Bits a value needs (0 for 0).
pub(crate) fn bits(max: u32) -> u32 {
    32 - max.leading_zeros()
}

/// Words `n` values of `width` bits take.
pub(crate) fn packed_words(n: usize, width: u32) -> usize {
    (n * width as usize).div_ceil(64)
}

/// Appends `values` packed at `width` bits each, least significant bit first.
pub(crate) fn pack(values: &[u32], width: u32, out: &mut Vec<u64>) {
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
pub(crate) fn unpack(words: &[u64], width: u32, out: &mut [u32]) {
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

/// Appends ascending `rows` (a posting block, at most 128) as gaps (each row minus one
/// past the one before it, the first minus one past `prev_last`, or itself without one)
/// packed at the width the largest gap needs; returns that width.
pub(crate) fn pack_gaps(prev_last: Option<u32>, rows: &[u32], out: &mut Vec<u64>) -> u32 {
    let mut gaps = [0u32; 128];
    let gaps = &mut gaps[..rows.len()];
    let mut base = prev_last.map_or(0, |d| d + 1);
    for (g, &d) in gaps.iter_mut().zip(rows) {
        *g = d - base;
        base = d + 1;
    }
    let width = bits(gaps.iter().copied().max().unwrap_or(0));
    pack(gaps, width, out);
    width
}

/// Reads `out.len()` rows [`pack_gaps`] wrote at `width` after `prev_last`; `None` when a
/// row overflows `u32` (or is `u32::MAX`, the end sentinel).
pub(crate) fn unpack_gaps(prev_last: Option<u32>, words: &[u64], width: u32, out: &mut [u32]) -> Option<()> {
    unpack(words, width, out);
    let mut base = prev_last.map_or(Some(0), |d| d.checked_add(1))? as u64;
    for d in out.iter_mut() {
        let row = base + *d as u64;
        *d = u32::try_from(row).ok().filter(|&d| d != u32::MAX)?;
        base = row + 1;
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
            let values: Vec<u32> = (0..128u32).map(|i| max.wrapping_sub(i.wrapping_mul(2_654_435_761)) & max).collect();
            let mut words = vec![7u64];
            pack(&values, width, &mut words);
            assert_eq!(words.len(), 1 + packed_words(values.len(), width));
            let mut back = vec![0u32; values.len()];
            unpack(&words[1..], width, &mut back);
            assert_eq!(back, values, "width {width}");
        }
    }

    #[test]
    fn gaps_round_trip_and_overflow_is_refused() {
        let rows: Vec<u32> = (0..100).map(|i| 5 + i * 9).collect();
        let mut words = Vec::new();
        let width = pack_gaps(Some(2), &rows, &mut words);
        assert_eq!(width, bits(8));
        let mut back = vec![0u32; 100];
        unpack_gaps(Some(2), &words, width, &mut back).unwrap();
        assert_eq!(back, rows);
        let mut words = Vec::new();
        pack(&[u32::MAX - 1, u32::MAX], 32, &mut words);
        assert!(unpack_gaps(None, &words, 32, &mut [0u32; 2]).is_none());
    }
}
