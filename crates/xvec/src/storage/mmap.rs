//! Immutable file bytes, mapped or owned, and the typed views over them.
//!
//! This is one of the few files with `unsafe`: the map itself and the cast from bytes to
//! plain little-endian numbers. Everything above it works with safe slices.

use std::path::{Path, PathBuf};

use half::f16;

use crate::error::StorageError;

#[cfg(target_endian = "big")]
compile_error!("xvec's on-disk format is little-endian and is used in place; big-endian hosts are not supported");

/// Asks for a large heap buffer not yet written to be backed by huge pages where the
/// kernel can (transparent huge pages in `madvise` mode): for build buffers read at
/// random, such as a graph build's codes and adjacency, where a 4 KiB page per row read
/// is a TLB miss each (and a nested page walk on a virtual machine). A hint only: the
/// pages a buffer already touched stay as they are; other platforms ignore it.
pub(crate) fn advise_huge_pages<T>(buf: &[T]) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let start = (buf.as_ptr() as usize).next_multiple_of(PAGE);
        let end = (buf.as_ptr() as usize + std::mem::size_of_val(buf)) / PAGE * PAGE;
        if end >= start + (2 << 20) {
            // SAFETY: `start..end` lies within `buf`'s allocation, page-aligned;
            // MADV_HUGEPAGE changes how the kernel backs the pages, never their contents.
            unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = buf;
}

/// The bytes of one immutable file.
pub(crate) enum FileBytes {
    /// Memory-mapped: the pages belong to the page cache, not the heap. No descriptor is
    /// kept (a mapping outlives its file's close): a collection of many segments and
    /// index files would hold one each, thousands past the usual `ulimit -n` of 1,024
    /// with many indexed fields. The path reopens the file for the checksum reads that
    /// leave the mapping untouched ([`FileBytes::checksummer`]); they run while the file is
    /// opened, and a published file is never replaced under its name.
    Mapped(memmap2::Mmap, PathBuf),
    /// Read into one owned buffer, 8-byte aligned so typed views work.
    Owned { words: Vec<u64>, len: usize },
}

impl FileBytes {
    /// Maps or reads the whole file.
    ///
    /// Mapping relies on the collection's rule that a published file is never modified,
    /// only replaced by a new file under a new name.
    pub(crate) fn open(path: &Path, mmap: bool) -> Result<FileBytes, StorageError> {
        let mut file = super::disk::DiskFile::open_read(path)?;
        let len = file.len()? as usize;
        if mmap && len > 0 {
            // SAFETY: collection files are immutable once published (docs/format.md,
            // "Published files are never modified in place"; ARCHITECTURE.md,
            // "Invariants"); nobody truncates or rewrites a file a snapshot can see.
            let map = unsafe { memmap2::Mmap::map(file.file()) }.map_err(|e| StorageError::io(path, e))?;
            Ok(FileBytes::Mapped(map, path.to_path_buf()))
        } else {
            let mut words = vec![0u64; len.div_ceil(8)];
            // SAFETY: `words` owns len.div_ceil(8) * 8 >= len initialized bytes; u8 has no
            // alignment or validity requirements.
            let buf = unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), len) };
            file.read_exact(buf)?;
            Ok(FileBytes::Owned { words, len })
        }
    }

    /// Reads the first `len` bytes of the file into owned bytes (an index file read
    /// without a mapping, its node blocks left to the searches that read them).
    pub(crate) fn read_head(path: &Path, len: u64) -> Result<FileBytes, StorageError> {
        let mut file = super::disk::DiskFile::open_read(path)?;
        let len = usize::try_from(len).map_err(|_| StorageError::corrupted(path, 0, "file too large"))?;
        let mut words = vec![0u64; len.div_ceil(8)];
        // SAFETY: as in `open`: `words` owns at least `len` initialized bytes.
        let buf = unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), len) };
        file.read_exact(buf)?;
        Ok(FileBytes::Owned { words, len })
    }

    /// Reads the whole file into owned bytes, past read errors: in `block`-byte pieces,
    /// and a piece that fails in 4 KiB pages; a page that cannot be read stays zero and
    /// its range is returned with the error. For verify and repair on media that return
    /// read errors (through a mapping, such an error is a `SIGBUS`).
    pub(crate) fn read_tolerant(path: &Path, block: usize) -> Result<(FileBytes, Vec<Unreadable>), StorageError> {
        use std::os::unix::fs::FileExt;
        // Through the seam: only a regular file is opened (a FIFO would block forever).
        let file = super::disk::DiskFile::open_read(path)?;
        let len = file.len()? as usize;
        let file = file.into_file();
        read_past_errors(len, block, |buf, at| file.read_exact_at(buf, at))
    }

    pub(crate) fn as_slice(&self) -> &[u8] {
        match self {
            FileBytes::Mapped(m, _) => m,
            FileBytes::Owned { words, len } => {
                // SAFETY: `words` holds at least `len` initialized bytes (see `open`).
                unsafe { std::slice::from_raw_parts(words.as_ptr().cast::<u8>(), *len) }
            }
        }
    }

    /// Asks for `range` of a mapping to be backed by huge pages where the kernel can (page
    /// cache large folios, Linux 6.x). For data that searches read at random, such as
    /// vectors, codes and graphs: one TLB entry then covers 2 MiB instead of 4 KiB, and a
    /// search stops paying a page walk per row it scores. A hint only; owned bytes and
    /// other platforms ignore it.
    pub(crate) fn advise_random_access(&self, range: std::ops::Range<usize>) {
        #[cfg(target_os = "linux")]
        if let FileBytes::Mapped(m, _) = self {
            let _ = m.advise_range(memmap2::Advice::HugePage, range.start, range.len());
        }
        #[cfg(not(target_os = "linux"))]
        let _ = range;
    }

    /// Turns off read-ahead over the whole mapping (`MADV_RANDOM`, and `MADV_NOHUGEPAGE`
    /// undoing [`FileBytes::advise_random_access`]: a fault in a huge-page mapping reads a
    /// 2 MiB folio whatever the read-ahead advice). Under a memory budget a collection's
    /// pages are read as searches touch them, and a fault should bring in its own page,
    /// not the read-ahead window around it (8 MiB on the benchmark machines), which a
    /// memory cgroup counts and then has to evict again. A hint only.
    pub(crate) fn read_on_demand(&self) {
        #[cfg(target_os = "linux")]
        if let FileBytes::Mapped(m, _) = self {
            let _ = m.advise(memmap2::Advice::NoHugePage);
            let _ = m.advise(memmap2::Advice::Random);
        }
    }

    pub(crate) fn is_mapped(&self) -> bool {
        matches!(self, FileBytes::Mapped(..))
    }

    /// Bytes held on the heap (zero for a mapping).
    pub(crate) fn heap_bytes(&self) -> usize {
        match self {
            FileBytes::Mapped(..) => 0,
            FileBytes::Owned { words, .. } => words.capacity() * 8,
        }
    }
}

impl FileBytes {
    /// A checksummer of these bytes for one pass over the file's sections: a mapping's
    /// file is reopened here once, not once per section.
    pub(crate) fn checksummer(&self) -> Result<Checksummer<'_>, StorageError> {
        let file = match self {
            FileBytes::Owned { .. } => None,
            FileBytes::Mapped(_, path) => Some(super::disk::DiskFile::open_read(path)?),
        };
        Ok(Checksummer { bytes: self, file })
    }
}

/// Block checksums of one [`FileBytes`], through the descriptor one pass shares.
pub(crate) struct Checksummer<'a> {
    bytes: &'a FileBytes,
    /// A mapping's file, read with `pread`; `None` for owned bytes.
    file: Option<super::disk::DiskFile>,
}

impl Checksummer<'_> {
    /// CRC32C of each `block`-byte block of `range` (the last may be shorter; pass the
    /// range's length for one CRC of the whole). A mapping is checksummed through `pread`
    /// into a small buffer, so opening a file does not make its pages resident in this
    /// process: data that queries never touch (originals behind quantized codes) stays out
    /// of the RSS.
    pub(crate) fn block_crcs(&self, range: std::ops::Range<usize>, block: usize) -> std::io::Result<Vec<u32>> {
        let block = block.max(1);
        match &self.file {
            None => Ok(self.bytes.as_slice()[range].chunks(block).map(crc32c::crc32c).collect()),
            Some(file) => {
                use std::os::unix::fs::FileExt;
                let file = file.file();
                let mut buf = vec![0u8; (1 << 20).min(range.len())];
                let mut out = Vec::with_capacity(range.len().div_ceil(block));
                let (mut crc, mut in_block) = (0u32, 0usize);
                let mut at = range.start;
                while at < range.end {
                    let n = buf.len().min(range.end - at);
                    file.read_exact_at(&mut buf[..n], at as u64)?;
                    let mut chunk = &buf[..n];
                    while !chunk.is_empty() {
                        let take = (block - in_block).min(chunk.len());
                        crc = crc32c::crc32c_append(crc, &chunk[..take]);
                        in_block += take;
                        chunk = &chunk[take..];
                        if in_block == block {
                            out.push(std::mem::take(&mut crc));
                            in_block = 0;
                        }
                    }
                    at += n;
                }
                if in_block > 0 {
                    out.push(crc);
                }
                Ok(out)
            }
        }
    }
}

/// A range of a file that could not be read.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Unreadable {
    pub range: std::ops::Range<u64>,
    pub error: String,
}

/// [`FileBytes::read_tolerant`] over any positioned reader.
fn read_past_errors(
    len: usize,
    block: usize,
    read_at: impl Fn(&mut [u8], u64) -> std::io::Result<()>,
) -> Result<(FileBytes, Vec<Unreadable>), StorageError> {
    const PAGE: usize = 4096;
    let mut words = vec![0u64; len.div_ceil(8)];
    // SAFETY: `words` owns len.div_ceil(8) * 8 >= len initialized bytes; u8 has no
    // alignment or validity requirements.
    let buf = unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), len) };
    let mut bad: Vec<Unreadable> = Vec::new();
    for (i, chunk) in buf.chunks_mut(block.max(PAGE)).enumerate() {
        let at = (i * block.max(PAGE)) as u64;
        if read_at(chunk, at).is_ok() {
            continue;
        }
        for (j, page) in chunk.chunks_mut(PAGE).enumerate() {
            let p = at + (j * PAGE) as u64;
            if let Err(e) = read_at(page, p) {
                page.fill(0);
                let end = p + page.len() as u64;
                match bad.last_mut() {
                    Some(last) if last.range.end == p => last.range.end = end,
                    _ => bad.push(Unreadable { range: p..end, error: e.to_string() }),
                }
            }
        }
    }
    Ok((FileBytes::Owned { words, len }, bad))
}

/// Numbers that may be viewed in place from little-endian bytes: every bit pattern is a
/// valid value and there is no padding.
pub(crate) trait Plain: Copy + 'static + sealed::Sealed {}

mod sealed {
    pub(crate) trait Sealed {}
}

macro_rules! plain {
    ($($t:ty),*) => {$( impl sealed::Sealed for $t {} impl Plain for $t {} )*};
}
plain!(u8, i8, u32, i32, u64, i64, f32, f64, f16);

/// Views `bytes` as a slice of `T`, or `None` when misaligned or not a whole number of `T`.
pub(crate) fn cast_slice<T: Plain>(bytes: &[u8]) -> Option<&[T]> {
    let size = std::mem::size_of::<T>();
    if !bytes.len().is_multiple_of(size) || bytes.as_ptr().align_offset(std::mem::align_of::<T>()) != 0 {
        return None;
    }
    // SAFETY: alignment and length were checked above; `T: Plain` accepts every bit
    // pattern; the result borrows `bytes`, so it cannot outlive them.
    Some(unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<T>(), bytes.len() / size) })
}

/// Views a slice of `T` as its bytes (little-endian on every supported host).
pub(crate) fn as_bytes<T: Plain>(values: &[T]) -> &[u8] {
    // SAFETY: `T: Plain` has no padding, so every byte is initialized; u8 has alignment 1.
    unsafe { std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), std::mem::size_of_val(values)) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pages that fail to read stay zero and are reported, merged into runs; the rest of
    /// the file is read.
    #[test]
    fn reads_past_unreadable_pages() {
        let data: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        let failing = 70_000u64..75_000;
        let read_at = |buf: &mut [u8], at: u64| {
            let end = at + buf.len() as u64;
            if at < failing.end && failing.start < end {
                return Err(std::io::Error::from_raw_os_error(5));
            }
            buf.copy_from_slice(&data[at as usize..end as usize]);
            Ok(())
        };
        let (bytes, bad) = read_past_errors(data.len(), 65536, read_at).unwrap();
        assert_eq!(bad.len(), 1);
        assert_eq!(bad[0].range, 69_632..77_824, "the 4 KiB pages meeting the failing range");
        let b = bytes.as_slice();
        assert!(b[69_632..77_824].iter().all(|&x| x == 0));
        assert_eq!(&b[..69_632], &data[..69_632]);
        assert_eq!(&b[77_824..], &data[77_824..]);
    }

    #[test]
    fn cast_checks_alignment_and_length() {
        let words = [1u64, 2, 3];
        let bytes = as_bytes(&words);
        assert_eq!(cast_slice::<u64>(bytes), Some(&words[..]));
        assert!(cast_slice::<u64>(&bytes[1..9]).is_none());
        assert!(cast_slice::<u32>(&bytes[..6]).is_none());
        assert_eq!(cast_slice::<u32>(&bytes[..8]).unwrap(), &[1, 0]);
    }
}
