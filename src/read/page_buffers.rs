//! Recycled buffers for decompressed pages.
//!
//! A page decompresses into a buffer of its uncompressed size, often about 1 MiB. An
//! allocation that large comes from the top of glibc's heap or from `mmap`, goes back to the
//! OS when it is freed (the heap is trimmed, the map unmapped), and the next page faults every
//! one of its pages in again. A streamed scan keeps the heap warm, but a sparse filtered read
//! decompresses a few pages between long skips, each into memory the kernel maps and zeroes
//! anew. So a page's buffer comes back to its thread's shelf when the last view of the
//! page's bytes is dropped (wherever that happens), and the next page that thread
//! decompresses is written into it.
//!
//! The shelf is per thread, so taking and returning take no lock, and small: at most
//! [`SHELF_BYTES`] are kept per thread, in buffers of [`MIN_BYTES`] to [`MAX_BYTES`].
//! Returned buffers are emptied; a page's bytes are only ever those its codec wrote.
//!
//! Probe: `page.buffer_recycled` (a page decompressed into a buffer from the shelf).

use std::cell::RefCell;

use bytes::Bytes;

use parq_codecs::probe;

/// Buffers smaller than this are cheap to allocate and are not kept.
const MIN_BYTES: usize = 64 << 10;
/// Buffers larger than this are rare (pages are usually 1 MiB) and are not kept.
const MAX_BYTES: usize = 8 << 20;
/// At most this many bytes of buffers wait on a thread's shelf.
const SHELF_BYTES: usize = 8 << 20;

thread_local! {
    /// This thread's emptied page buffers.
    static SHELF: RefCell<Vec<Vec<u8>>> = const { RefCell::new(Vec::new()) };
}

/// An empty buffer to decompress a page of `len` bytes into: the smallest on this thread's
/// shelf that holds `len` bytes, else a new one (which allocates nothing until written).
pub(crate) fn take(len: usize) -> Vec<u8> {
    let found = SHELF.try_with(|shelf| {
        let mut shelf = shelf.try_borrow_mut().ok()?;
        let best = shelf
            .iter()
            .enumerate()
            .filter(|(_, b)| b.capacity() >= len)
            .min_by_key(|(_, b)| b.capacity())
            .map(|(i, _)| i)?;
        Some(shelf.swap_remove(best))
    });
    match found {
        Ok(Some(buffer)) => {
            probe::hit("page.buffer_recycled");
            buffer
        }
        _ => Vec::new(),
    }
}

/// `page` as bytes (no copy) whose buffer returns to the shelf of the thread that drops the
/// last view of them, when its size is worth keeping.
pub(crate) fn into_bytes(page: Vec<u8>) -> Bytes {
    if (MIN_BYTES..=MAX_BYTES).contains(&page.capacity()) {
        Bytes::from_owner(Returning(page))
    } else {
        Bytes::from(page)
    }
}

/// The owner of a page's buffer: shelves it when the page's last view is dropped.
struct Returning(Vec<u8>);

impl AsRef<[u8]> for Returning {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl Drop for Returning {
    fn drop(&mut self) {
        let mut buffer = std::mem::take(&mut self.0);
        buffer.clear();
        // While the thread exits its shelf is gone, and the buffer is freed.
        let _ = SHELF.try_with(|shelf| {
            let Ok(mut shelf) = shelf.try_borrow_mut() else {
                return;
            };
            let kept: usize = shelf.iter().map(Vec::capacity).sum();
            if kept + buffer.capacity() <= SHELF_BYTES {
                shelf.push(buffer);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filled(len: usize) -> Vec<u8> {
        let mut v = take(len);
        v.extend((0..len).map(|i| i as u8));
        v
    }

    #[test]
    fn a_dropped_page_buffer_is_taken_again_empty() {
        SHELF.with_borrow_mut(Vec::clear);
        let page = into_bytes(filled(1 << 20));
        let at = page.as_ptr();
        let view = page.slice(10..20);
        drop(page);
        // A view still holds the buffer: nothing is on the shelf yet.
        assert_eq!(take(1 << 20).capacity(), 0);
        assert_eq!(view[0], 10);
        drop(view);
        probe::reset();
        let again = take(1 << 20);
        assert_eq!(again.as_ptr(), at);
        assert!(again.is_empty());
        if probe::ENABLED {
            assert_eq!(probe::get("page.buffer_recycled"), 1);
        }
    }

    #[test]
    fn too_small_a_buffer_is_not_taken_and_the_shelf_is_bounded() {
        SHELF.with_borrow_mut(Vec::clear);
        drop(into_bytes(filled(1 << 20)));
        assert_eq!(
            take(2 << 20).capacity(),
            0,
            "a 1 MiB buffer cannot hold 2 MiB"
        );
        let pages: Vec<Bytes> = (0..12).map(|_| into_bytes(filled(1 << 20))).collect();
        drop(pages);
        let kept: usize = SHELF.with_borrow(|s| s.iter().map(Vec::capacity).sum());
        assert!(kept <= SHELF_BYTES, "{kept} bytes kept");
        drop(into_bytes(filled(1 << 10)));
        assert!(SHELF.with_borrow(|s| s.iter().all(|b| b.capacity() >= MIN_BYTES)));
    }
}
