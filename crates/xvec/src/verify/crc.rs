//! CRC32C for verify: large mapped sections checksummed on several threads (the hardware
//! path of the `crc32c` crate per chunk, chunks joined with `crc32c_combine`), and the
//! exact repair of one damaged byte in a small checksummed region (a manifest body, a
//! section table), where structure checks afterwards confirm the result.
//!
//! The single-byte repair uses the linearity of a CRC: damaging byte `i` of an `L`-byte
//! message with mask `e` changes the CRC register by `T^(L-1-i)(table[e])`, where `T`
//! feeds one zero byte. Walking `T⁻¹` back from the observed difference finds every
//! `(i, e)` that explains it in O(L).

/// Sections at least this long are split across threads.
const PARALLEL_MIN: usize = 8 << 20;

/// CRC32C of `bytes`, on up to `threads` threads for large inputs.
pub(super) fn crc32c(bytes: &[u8], threads: usize) -> u32 {
    if threads <= 1 || bytes.len() < PARALLEL_MIN {
        return crc32c::crc32c(bytes);
    }
    let chunk = bytes.len().div_ceil(threads);
    let parts: Vec<(u32, usize)> = std::thread::scope(|s| {
        let handles: Vec<_> = bytes.chunks(chunk).map(|c| s.spawn(move || (crc32c::crc32c(c), c.len()))).collect();
        // A checksum thread cannot panic on any input; a join error would be a bug here.
        handles.into_iter().map(|h| h.join().expect("checksum thread")).collect()
    });
    let mut parts = parts.into_iter();
    let first = parts.next().map_or(0, |(c, _)| c);
    parts.fold(first, |acc, (c, len)| crc32c::crc32c_combine(acc, c, len))
}

/// CRC32C of each `block`-byte block of `bytes` (the last may be shorter), on up to
/// `threads` threads for large inputs.
pub(super) fn block_crcs(bytes: &[u8], block: usize, threads: usize) -> Vec<u32> {
    let block = block.max(1);
    if threads <= 1 || bytes.len() < PARALLEL_MIN {
        return bytes.chunks(block).map(crc32c::crc32c).collect();
    }
    let per = bytes.len().div_ceil(block).div_ceil(threads) * block;
    std::thread::scope(|s| {
        let handles: Vec<_> = bytes
            .chunks(per)
            .map(|c| s.spawn(move || c.chunks(block).map(crc32c::crc32c).collect::<Vec<u32>>()))
            .collect();
        // A checksum thread cannot panic on any input; a join error would be a bug here.
        handles.into_iter().flat_map(|h| h.join().expect("checksum thread")).collect()
    })
}

/// The reflected Castagnoli polynomial.
const POLY: u32 = 0x82F6_3B78;

/// Register after feeding byte `j` into a zero register.
const TABLE: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut j = 0;
    while j < 256 {
        let mut r = j as u32;
        let mut bit = 0;
        while bit < 8 {
            r = if r & 1 == 1 { (r >> 1) ^ POLY } else { r >> 1 };
            bit += 1;
        }
        t[j] = r;
        j += 1;
    }
    t
};

/// `TOP[TABLE[j] >> 24] == j`: the top bytes of the table are a permutation (checked by
/// a test), which is what makes feeding a zero byte invertible.
const TOP: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut j = 0;
    while j < 256 {
        t[(TABLE[j] >> 24) as usize] = j as u8;
        j += 1;
    }
    t
};

/// Undoes one zero byte fed into the register: the inverse of `r ↦ TABLE[r & 0xFF] ^ (r >> 8)`.
fn unfeed_zero(r: u32) -> u32 {
    let j = TOP[(r >> 24) as usize];
    ((r ^ TABLE[j as usize]) << 8) | j as u32
}

/// Every single-byte change `(offset, xor mask)` of `data` that would make its CRC32C equal
/// `stored`; empty when it already does. Candidates still need the caller's structure
/// checks: a region with more damage than one byte may match by chance (about
/// `len · 255 / 2³²`), so this is used only on small regions that are parsed afterwards.
pub(super) fn single_byte_fixes(data: &[u8], stored: u32) -> Vec<(usize, u8)> {
    let mut v = crc32c::crc32c(data) ^ stored;
    let mut out = Vec::new();
    if v == 0 {
        return out;
    }
    for i in (0..data.len()).rev() {
        let j = TOP[(v >> 24) as usize];
        if j != 0 && TABLE[j as usize] == v {
            out.push((i, j));
        }
        v = unfeed_zero(v);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::rng::SplitMix64;

    #[test]
    fn table_matches_the_crate_and_top_bytes_are_a_permutation() {
        let mut seen = [false; 256];
        for (j, t) in TABLE.iter().enumerate() {
            assert!(!std::mem::replace(&mut seen[(t >> 24) as usize], true), "entry {j}");
        }
        // One byte from a zero register, no init or final xor: the crate's crc of [j] with
        // both applied is !(TABLE[j ^ 0xFF] ^ 0x00FFFFFF).
        for j in 0..=255u8 {
            assert_eq!(crc32c::crc32c(&[j]), !(TABLE[(j ^ 0xFF) as usize] ^ 0x00FF_FFFF), "byte {j}");
        }
    }

    #[test]
    fn parallel_checksum_equals_the_serial_one() {
        let mut rng = SplitMix64::new(9);
        let data: Vec<u8> = (0..PARALLEL_MIN + 12_345).map(|_| rng.next_u64() as u8).collect();
        for threads in [1, 2, 3, 7] {
            assert_eq!(crc32c(&data, threads), crc32c::crc32c(&data), "{threads} threads");
        }
    }

    #[test]
    fn parallel_block_checksums_equal_the_serial_ones() {
        let mut rng = SplitMix64::new(5);
        let data: Vec<u8> = (0..PARALLEL_MIN + 70_001).map(|_| rng.next_u64() as u8).collect();
        let serial: Vec<u32> = data.chunks(65536).map(crc32c::crc32c).collect();
        for threads in [1, 2, 3, 7] {
            assert_eq!(block_crcs(&data, 65536, threads), serial, "{threads} threads");
        }
    }

    #[test]
    fn every_single_byte_change_is_found_exactly() {
        let mut rng = SplitMix64::new(4);
        let data: Vec<u8> = (0..300).map(|_| rng.next_u64() as u8).collect();
        let stored = crc32c::crc32c(&data);
        assert!(single_byte_fixes(&data, stored).is_empty());
        for at in 0..data.len() {
            for mask in [0x01u8, 0x80, 0x55, 0xFF] {
                let mut bad = data.clone();
                bad[at] ^= mask;
                let fixes = single_byte_fixes(&bad, stored);
                assert_eq!(fixes, vec![(at, mask)], "byte {at} mask {mask:#x}");
            }
        }
    }
}
