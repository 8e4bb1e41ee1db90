//! Delete files: the deleted rows of one segment as of one generation, as a serialized
//! roaring bitmap. A new generation writes a new file; published files never change.
//!
//! Layout: common header (id = segment id), `len u64`, `crc32c u32`, `reserved u32`,
//! then `len` bytes of the portable roaring serialization.

use std::path::Path;

use roaring::RoaringBitmap;

use super::{FileKind, HEADER_LEN, decode_header, encode_header, read_u32, read_u64};
use crate::error::StorageError;

const LEN_AT: usize = HEADER_LEN;
const CRC_AT: usize = LEN_AT + 8;
const BODY_AT: usize = CRC_AT + 8;

/// Encodes the deleted rows of segment `segment`.
pub(crate) fn encode(segment: u64, deleted: &RoaringBitmap) -> Vec<u8> {
    let mut body = Vec::with_capacity(deleted.serialized_size());
    deleted.serialize_into(&mut body).expect("writing to a Vec cannot fail");
    let mut out = Vec::with_capacity(BODY_AT + body.len());
    out.extend_from_slice(&encode_header(FileKind::Deletes, segment));
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    out.extend_from_slice(&crc32c::crc32c(&body).to_le_bytes());
    out.extend_from_slice(&[0u8; 4]);
    out.extend_from_slice(&body);
    out
}

/// Decodes a delete file, checking that it belongs to `segment` and that every row is
/// below `rows`.
pub(crate) fn decode(path: &Path, bytes: &[u8], segment: u64, rows: usize) -> Result<RoaringBitmap, StorageError> {
    let id = decode_header(path, bytes, FileKind::Deletes)?;
    if id != segment {
        return Err(StorageError::corrupted(path, 16, format!("belongs to segment {id}, expected {segment}")));
    }
    if bytes.len() < BODY_AT {
        return Err(StorageError::corrupted(path, bytes.len() as u64, "file ends inside the delete header"));
    }
    let len = read_u64(bytes, LEN_AT);
    if len != (bytes.len() - BODY_AT) as u64 {
        return Err(StorageError::corrupted(
            path,
            LEN_AT as u64,
            format!("body length {len}, but {} bytes follow the header", bytes.len() - BODY_AT),
        ));
    }
    if read_u32(bytes, CRC_AT + 4) != 0 {
        return Err(StorageError::corrupted(path, (CRC_AT + 4) as u64, "reserved bytes are not zero"));
    }
    let body = &bytes[BODY_AT..];
    if crc32c::crc32c(body) != read_u32(bytes, CRC_AT) {
        return Err(StorageError::corrupted(path, BODY_AT as u64, "deleted-rows checksum mismatch"));
    }
    let set = RoaringBitmap::deserialize_from(body)
        .map_err(|e| StorageError::corrupted(path, BODY_AT as u64, format!("bad bitmap: {e}")))?;
    if let Some(max) = set.max()
        && max as usize >= rows
    {
        return Err(StorageError::corrupted(
            path,
            BODY_AT as u64,
            format!("deleted row {max} is out of range for {rows} rows"),
        ));
    }
    Ok(set)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_every_flipped_byte_is_caught() {
        let set: RoaringBitmap = [1u32, 5, 99].into_iter().collect();
        let bytes = encode(3, &set);
        let p = Path::new("SEG-000003-000001.del");
        assert_eq!(decode(p, &bytes, 3, 100).unwrap(), set);
        assert!(decode(p, &bytes, 4, 100).is_err());
        assert!(decode(p, &bytes, 3, 99).unwrap_err().to_string().contains("out of range"));
        for i in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[i] ^= 0x01;
            assert!(decode(p, &bad, 3, 100).is_err(), "byte {i}");
        }
        for cut in 0..bytes.len() {
            assert!(decode(p, &bytes[..cut], 3, 100).is_err(), "cut {cut}");
        }
    }
}
