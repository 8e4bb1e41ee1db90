//! The constants of the on-disk format that `docs/format.md` specifies, for tools and
//! tests that read or damage files byte by byte. Everything else about the files stays
//! behind [`crate::verify`] and [`crate::inspect`].

pub use crate::storage::wal::{FRAME_HEADER, WAL_HEADER_LEN};
pub use crate::storage::{FileKind, HEADER_LEN, MAGIC, deletes_name, manifest_name, segment_name, wal_name};
