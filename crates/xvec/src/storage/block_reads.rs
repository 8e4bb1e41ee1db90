//! Reads of whole page-aligned blocks, many in flight at once: the node blocks of a
//! disk-resident index. Each searching thread owns a [`BlockReads`], a small io_uring and
//! the buffers its reads land in, one slot per read. A search submits a read as soon as
//! it knows it needs a block and handles each read once it and those before it have
//! completed (in submission order, so a search takes the same path every time), so the
//! device has all of a hop's reads queued together and the search scores one node while
//! the next are still being read (PipeANN's pipelined beam search).
//!
//! Where the kernel has no io_uring or refuses it (seccomp, `io_uring_disabled`), each
//! read is a `pread` done when it is submitted: the same results, one read at a time.
//! The buffers are page aligned, as a file opened with `O_DIRECT`
//! ([`DiskFile::open_direct`]) needs.

use std::collections::VecDeque;
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileExt;

use io_uring::{IoUring, opcode, types};

use super::disk::{DiskFile, gate};
use super::faults::Op;
use crate::error::StorageError;

/// The unit blocks are aligned to and sized in.
pub(crate) const PAGE: usize = 4096;

/// Reads one [`BlockReads`] has in flight at most (the size of its ring).
pub(crate) const MAX_IN_FLIGHT: usize = 64;

/// One page of a read buffer, aligned as direct I/O needs.
#[derive(Clone, Copy)]
#[repr(C, align(4096))]
pub(crate) struct Page([u8; PAGE]);

const ZERO_PAGE: Page = Page([0; PAGE]);

/// A thread's reads in flight and the slots they land in.
#[derive(Default)]
pub(crate) struct BlockReads {
    ring: Ring,
    /// At least `slots × block_len` bytes: slot `i` at `i * block_len`.
    pages: Vec<Page>,
    slots: usize,
    block_len: usize,
    /// Slots of the reads submitted and not yet handed out by [`BlockReads::wait`],
    /// oldest first.
    order: VecDeque<usize>,
    /// Per slot, what its read found once it completed and until it is handed out.
    landed: Vec<Option<std::io::Result<()>>>,
    /// Times a thread slept on the device: a wait that found no read complete, or a
    /// `pread` of the fallback.
    sleeps: u64,
}

#[derive(Default)]
enum Ring {
    /// Not needed yet: made at the first read.
    #[default]
    Untried,
    /// Boxed: a ring's state is large beside the other variants.
    Ready(Box<IoUring>),
    /// The kernel refused one; reads are `pread`s.
    Unavailable,
}

impl std::fmt::Debug for BlockReads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ring = match self.ring {
            Ring::Untried => "untried",
            Ring::Ready(_) => "io_uring",
            Ring::Unavailable => "pread",
        };
        f.debug_struct("BlockReads")
            .field("ring", &ring)
            .field("slots", &self.slots())
            .field("block_len", &self.block_len)
            .field("in_flight", &self.order.len())
            .finish()
    }
}

impl BlockReads {
    /// Makes room for `slots` reads (at most [`MAX_IN_FLIGHT`]) of `block_len` bytes (a
    /// multiple of [`PAGE`]) each, after waiting out any read still in flight (their
    /// buffers may move).
    pub(crate) fn prepare(&mut self, slots: usize, block_len: usize) {
        debug_assert!(block_len.is_multiple_of(PAGE) && block_len > 0);
        self.drain();
        self.slots = slots.clamp(1, MAX_IN_FLIGHT);
        self.landed.clear();
        self.landed.resize_with(self.slots, || None);
        let pages = self.slots * (block_len / PAGE);
        if self.pages.len() < pages {
            self.pages.resize(pages, ZERO_PAGE);
        }
        self.block_len = block_len;
    }

    /// Slots [`BlockReads::prepare`] made room for.
    pub(crate) fn slots(&self) -> usize {
        self.slots
    }

    /// The bytes of `slot`: what its last completed read brought.
    pub(crate) fn slot(&self, slot: usize) -> &[u8] {
        &as_bytes(&self.pages)[slot * self.block_len..(slot + 1) * self.block_len]
    }

    /// Starts reading `block_len` bytes of `file` at `offset` (page aligned) into `slot`,
    /// which must not have a read in flight. [`BlockReads::wait`] hands it back.
    pub(crate) fn submit(&mut self, file: &DiskFile, offset: u64, slot: usize) -> Result<(), StorageError> {
        debug_assert!(slot < self.slots() && offset.is_multiple_of(PAGE as u64));
        gate(Op::Read, file.path())?;
        if let Ring::Untried = self.ring {
            self.ring = IoUring::new(MAX_IN_FLIGHT as u32).map_or(Ring::Unavailable, |r| Ring::Ready(Box::new(r)));
        }
        let len = self.block_len;
        let Ring::Ready(ring) = &mut self.ring else {
            let buf = &mut as_bytes_mut(&mut self.pages)[slot * len..(slot + 1) * len];
            self.landed[slot] = Some(file.file().read_exact_at(buf, offset));
            self.order.push_back(slot);
            return Ok(());
        };
        let at = as_bytes_mut(&mut self.pages)[slot * len..].as_mut_ptr();
        let read = opcode::Read::new(types::Fd(file.file().as_raw_fd()), at, len as u32)
            .offset(offset)
            .build()
            .user_data(slot as u64);
        // SAFETY: the buffer is `len` bytes of `self.pages`, which stays where it is until
        // the read completes: `prepare` (the only thing that may move it) and drop wait
        // out every read in flight first, and no other read has this slot. The ring holds
        // its own reference to the file once the read is submitted (by the next `wait`).
        // The queue has room: it holds as many reads as there are slots at most.
        unsafe { ring.submission().push(&read) }
            .map_err(|_| StorageError::io(file.path(), std::io::Error::other("the read queue is full")))?;
        self.order.push_back(slot);
        Ok(())
    }

    /// Waits for the oldest read in flight to complete and hands it back: its slot and
    /// whether it read its whole block (a short read is an error: the file ends before
    /// the block). Reads come back in the order they were submitted, whatever order the
    /// device completes them in, so a search takes the same path every time. `None` when
    /// no read is in flight.
    pub(crate) fn wait(&mut self) -> Option<(usize, std::io::Result<()>)> {
        let &slot = self.order.front()?;
        loop {
            if let Some(r) = self.landed[slot].take() {
                self.order.pop_front();
                if !matches!(self.ring, Ring::Ready(_)) {
                    // The fallback's `pread` slept when the read was submitted.
                    self.sleeps += 1;
                }
                return Some((slot, r));
            }
            let BlockReads { ring: Ring::Ready(ring), landed, block_len, .. } = self else {
                unreachable!("without a ring every read lands when it is submitted")
            };
            let mut reaped = false;
            for c in ring.completion() {
                let r = match c.result() {
                    n if n < 0 => Err(std::io::Error::from_raw_os_error(-n)),
                    n if n as usize == *block_len => Ok(()),
                    n => Err(std::io::Error::new(
                        std::io::ErrorKind::UnexpectedEof,
                        format!("read {n} of a block's {block_len} bytes: the file ends inside it"),
                    )),
                };
                landed[c.user_data() as usize] = Some(r);
                reaped = true;
            }
            if reaped {
                continue;
            }
            self.sleeps += 1;
            match ring.submit_and_wait(1) {
                Ok(_) => {}
                Err(e) if matches!(e.raw_os_error(), Some(libc::EINTR | libc::EAGAIN | libc::EBUSY)) => {}
                Err(e) => {
                    // The ring itself failed: what it still has in flight may land in
                    // the buffers at any time, so they are given up (leaked), never
                    // reused; from here on reads are `pread`s.
                    std::mem::forget(std::mem::take(&mut self.pages));
                    self.ring = Ring::Unavailable;
                    self.order.clear();
                    self.slots = 0;
                    return Some((usize::MAX, Err(e)));
                }
            }
        }
    }

    /// Times the thread has slept on the device so far: the round trips of its reads.
    pub(crate) fn sleeps(&self) -> u64 {
        self.sleeps
    }

    /// Waits out every read in flight, dropping what they found.
    pub(crate) fn drain(&mut self) {
        while self.wait().is_some() {}
    }

    /// Bytes of the buffers.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.pages.capacity() * PAGE
    }
}

impl Drop for BlockReads {
    fn drop(&mut self) {
        self.drain();
    }
}

/// The bytes of aligned pages.
pub(crate) fn as_bytes(pages: &[Page]) -> &[u8] {
    // SAFETY: a page is plain bytes without padding; the length covers exactly them.
    unsafe { std::slice::from_raw_parts(pages.as_ptr().cast::<u8>(), std::mem::size_of_val(pages)) }
}

/// The bytes of aligned pages, writable.
pub(crate) fn as_bytes_mut(pages: &mut [Page]) -> &mut [u8] {
    // SAFETY: as in `as_bytes`; every byte pattern is a valid page.
    unsafe { std::slice::from_raw_parts_mut(pages.as_mut_ptr().cast::<u8>(), std::mem::size_of_val(pages)) }
}

/// `len` bytes of zeroed aligned pages (a multiple of [`PAGE`]).
pub(crate) fn pages(len: usize) -> Vec<Page> {
    vec![ZERO_PAGE; len.div_ceil(PAGE)]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file_of(pages: usize) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("blocks");
        let bytes: Vec<u8> = (0..pages * PAGE).map(|i| (i / PAGE) as u8 ^ (i % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        (dir, path)
    }

    fn expect(block: usize, len: usize) -> Vec<u8> {
        (block * len..(block + 1) * len).map(|i| (i / PAGE) as u8 ^ (i % 251) as u8).collect()
    }

    /// Every block comes back in the slot it was read into, in the order the reads were
    /// submitted whichever order they complete in, through the ring and through the
    /// fallback, direct or not.
    #[test]
    fn reads_land_in_their_slots() {
        let (_dir, path) = file_of(64);
        for direct in [true, false] {
            let file = if direct { DiskFile::open_direct(&path) } else { DiskFile::open_random(&path) }.unwrap();
            for fallback in [false, true] {
                let mut r = BlockReads::default();
                if fallback {
                    r.ring = Ring::Unavailable;
                }
                r.prepare(8, 2 * PAGE);
                let blocks = [31, 0, 7, 12, 30, 3, 19, 25];
                for (slot, b) in blocks.iter().enumerate() {
                    r.submit(&file, (b * 2 * PAGE) as u64, slot).unwrap();
                }
                let mut seen = 0;
                while let Some((slot, res)) = r.wait() {
                    res.unwrap();
                    assert_eq!(slot, seen, "submission order");
                    assert_eq!(r.slot(slot), expect(blocks[slot], 2 * PAGE), "slot {slot}, direct {direct}");
                    seen += 1;
                }
                assert_eq!(seen, blocks.len());
                assert!(!fallback || matches!(r.ring, Ring::Unavailable));
            }
        }
    }

    /// A block past the end of the file is an error, not zeros.
    #[test]
    fn a_block_past_the_end_is_an_error() {
        let (_dir, path) = file_of(4);
        let file = DiskFile::open_direct(&path).unwrap();
        for fallback in [false, true] {
            let mut r = BlockReads::default();
            if fallback {
                r.ring = Ring::Unavailable;
            }
            r.prepare(2, PAGE);
            r.submit(&file, 3 * PAGE as u64, 0).unwrap();
            r.submit(&file, 4 * PAGE as u64, 1).unwrap();
            let mut results: Vec<_> = std::iter::from_fn(|| r.wait()).collect();
            results.sort_by_key(|(s, _)| *s);
            assert!(results[0].1.is_ok());
            let e = results[1].1.as_ref().unwrap_err();
            assert_eq!(e.kind(), std::io::ErrorKind::UnexpectedEof, "{e}");
        }
    }

    /// A ring's worth of reads at once: all submitted, all complete; more slots than that
    /// are not given.
    #[test]
    fn a_full_ring() {
        let (_dir, path) = file_of(200);
        let file = DiskFile::open_direct(&path).unwrap();
        let mut r = BlockReads::default();
        r.prepare(2 * MAX_IN_FLIGHT, PAGE);
        assert_eq!(r.slots(), MAX_IN_FLIGHT);
        for slot in 0..MAX_IN_FLIGHT {
            r.submit(&file, ((slot * 3) * PAGE) as u64, slot).unwrap();
        }
        let got: Vec<usize> = std::iter::from_fn(|| r.wait()).map(|(s, res)| res.map(|()| s).unwrap()).collect();
        assert_eq!(got, (0..MAX_IN_FLIGHT).collect::<Vec<_>>());
        assert_eq!(r.slot(50), expect(150, PAGE));
    }
}
