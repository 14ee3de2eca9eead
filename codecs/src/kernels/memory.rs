//! Large output buffers: reserved once, and backed by transparent huge pages where Linux
//! offers them on request (`/sys/kernel/mm/transparent_hugepage/enabled` = `madvise`).
//!
//! A whole-column read fills one fresh buffer of tens of MiB. With 4 KiB pages the kernel
//! takes a page fault (and zeroes a page) every 4 KiB the decoder first touches; with 2 MiB
//! pages it takes one per 2 MiB: for one big buffer this is the difference between losing
//! and winning.
//!
//! Batches are slices of larger run buffers (several batches decoded at once). Once a
//! consumer has dropped a run's batches, its buffer is freed, and the next run's buffer is a
//! fresh allocation: glibc serves buffers this large from the top of its heap or from
//! `mmap`, trims and unmaps them when they are freed, and the next run faults every page in
//! again. A [`Recycler`]
//! puts a run's buffer back on its thread's shelf when the last Arrow buffer made from it is
//! dropped, so that the next run, of this decoder or of the next one the thread makes (the
//! next row group's, the next file's), writes into pages already faulted in.
//!
//! Probe names: `memory.huge_pages_advised` (a reservation large enough was advised),
//! `memory.recycled` (a run's buffer was taken back off the shelf), `memory.hint_refused` (a
//! reservation hint the allocator refused was dropped).

use std::any::Any;
use std::cell::RefCell;
use std::collections::TryReserveError;
use std::panic::RefUnwindSafe;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};

use arrow_buffer::{ArrowNativeType, Buffer};

use crate::probe;

/// Reservations from this many bytes up are advised to use huge pages.
pub const HUGE_PAGE_MIN_BYTES: usize = 2 << 20;

/// The huge page size advised for (x86-64 and aarch64 with 4 KiB base pages).
const HUGE: usize = 2 << 20;

/// Reserve room for `additional` more elements in `v` (as `Vec::reserve`), and when the
/// allocation is at least [`HUGE_PAGE_MIN_BYTES`], ask the OS to back its untouched part
/// with huge pages. Only how pages are backed changes: contents and capacity are as after
/// `Vec::reserve`.
pub fn reserve_huge<T>(v: &mut Vec<T>, additional: usize) {
    if try_reserve_huge(v, additional).is_err() {
        // Not even with the huge-page slack: the room asked for, or the usual abort.
        v.reserve(additional);
    }
}

/// [`reserve_huge`] for a reservation that is only a hint (room for the data a footer or a
/// page projects, not data already there): dropped when the allocator refuses it, so that
/// the buffer grows as the data arrives instead of the process aborting. Probe
/// `memory.hint_refused`.
pub fn reserve_huge_hint<T>(v: &mut Vec<T>, additional: usize) {
    if try_reserve_huge(v, additional).is_err() {
        probe::hit("memory.hint_refused");
    }
}

/// `Vec::reserve` for a reservation that is only a hint, dropped like
/// [`reserve_huge_hint`]'s when the allocator refuses it.
pub fn reserve_hint<T>(v: &mut Vec<T>, additional: usize) {
    if v.try_reserve(additional).is_err() {
        probe::hit("memory.hint_refused");
    }
}

/// [`reserve_huge`], fallibly: on `Err`, `v` is unchanged.
pub fn try_reserve_huge<T>(v: &mut Vec<T>, additional: usize) -> Result<(), TryReserveError> {
    let size = std::mem::size_of::<T>().max(1);
    let wanted = v.len().saturating_add(additional).saturating_mul(size);
    if wanted < HUGE_PAGE_MIN_BYTES || v.capacity() >= v.len().saturating_add(additional) {
        return v.try_reserve(additional);
    }
    // One huge page more, so that the 2 MiB-aligned part (the allocation itself is only
    // 4 KiB-aligned) covers everything past the first huge page boundary.
    v.try_reserve(additional.saturating_add(HUGE / size))?;
    let bytes = v.capacity().saturating_mul(size);
    // The part not yet written: pages already touched keep their backing anyway.
    let used = v.len() * size;
    if advise_huge(v.as_ptr() as usize + used, bytes - used) {
        probe::hit("memory.huge_pages_advised");
    }
    Ok(())
}

/// Advise huge pages for the 2 MiB-aligned part of `start..start + len`; true when the
/// advice was given (and accepted).
#[cfg(all(target_os = "linux", not(miri)))]
fn advise_huge(start: usize, len: usize) -> bool {
    let lo = start.next_multiple_of(HUGE);
    let hi = (start + len) & !(HUGE - 1);
    if hi <= lo {
        return false;
    }
    // SAFETY: `lo..hi` lies inside an allocation the caller's `Vec` owns (aligned inward, so
    // no byte of another allocation is named). `MADV_HUGEPAGE` is advice: it changes only how
    // the kernel backs pages not yet faulted in, never their contents or the mapping's
    // validity, so no Rust-visible memory changes. A failure (THP disabled) is harmless.
    unsafe { libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE) == 0 }
}

#[cfg(not(all(target_os = "linux", not(miri))))]
fn advise_huge(_start: usize, _len: usize) -> bool {
    false
}

/// Buffers of one element type kept on a thread's shelf at most; more returning are freed.
const SHELF: usize = 16;

/// Bytes kept on one thread's shelves at most, every element type together: the runs of a
/// few columns in flight, not a whole read's output held after it ends.
const THREAD_SHELVED_MAX: usize = 32 << 20;

/// Buffers this small are left to the allocator's free lists, which reuse them warm.
const RECYCLE_MIN_BYTES: usize = 64 << 10;

/// Buffers this large are freed, not kept (a whole-column read's output, dropped late).
const RECYCLE_MAX_BYTES: usize = 64 << 20;

/// One element type's shelf of one thread.
#[derive(Debug)]
struct Shelf<T> {
    buffers: Mutex<Vec<Vec<T>>>,
    /// Bytes on all of the owning thread's shelves (shared by them).
    shelved: Arc<AtomicUsize>,
}

impl<T> Shelf<T> {
    fn new(shelved: Arc<AtomicUsize>) -> Self {
        Shelf {
            buffers: Mutex::new(Vec::new()),
            shelved,
        }
    }

    /// A shelf of no thread, counting only its own bytes.
    fn own() -> Arc<Self> {
        Arc::new(Shelf::new(Arc::default()))
    }
}

thread_local! {
    /// This thread's shelves, one per element type (each an `Arc<Shelf<T>>`).
    static SHELVES: RefCell<Vec<Box<dyn Any>>> = const { RefCell::new(Vec::new()) };
    /// Bytes on this thread's shelves.
    static SHELVED: Arc<AtomicUsize> = Arc::new(AtomicUsize::new(0));
}

/// A shelf of output buffers that come back once the Arrow buffers made from them
/// ([`Recycler::buffer`]) are dropped; see the module docs. Cloning shares the shelf.
///
/// [`Recycler::default`] is the shelf of the calling thread for `T`, shared by every decoder
/// on it: a decoder made for the next row group or file takes up the buffers the last one
/// handed out, so that its runs too land in memory already faulted in. A buffer dropped on
/// another thread goes back to the shelf of the thread that made it.
#[derive(Debug)]
pub struct Recycler<T> {
    shelf: Arc<Shelf<T>>,
}

impl<T: 'static> Default for Recycler<T> {
    fn default() -> Self {
        let shared = SHELVES.try_with(|shelves| {
            let mut shelves = shelves.borrow_mut();
            if let Some(s) = shelves
                .iter()
                .find_map(|s| s.downcast_ref::<Arc<Shelf<T>>>())
            {
                return Arc::clone(s);
            }
            let shelved = SHELVED.with(Arc::clone);
            let s = Arc::new(Shelf::new(shelved));
            shelves.push(Box::new(Arc::clone(&s)));
            s
        });
        Recycler {
            // A thread being torn down keeps no shelf: this one is the recycler's own.
            shelf: shared.unwrap_or_else(|_| Shelf::own()),
        }
    }
}

impl<T> Clone for Recycler<T> {
    fn clone(&self) -> Self {
        Recycler {
            shelf: Arc::clone(&self.shelf),
        }
    }
}

impl<T: ArrowNativeType + RefUnwindSafe> Recycler<T> {
    /// A recycler with a shelf of its own, shared with no other.
    #[cfg(test)]
    fn private() -> Self {
        Recycler {
            shelf: Shelf::own(),
        }
    }

    /// An empty vector: the largest that came back (its pages already faulted in) when there
    /// is one, else a new one.
    pub fn take(&self) -> Vec<T> {
        let back = self.shelf.buffers.lock().ok().and_then(|mut s| {
            let largest = (0..s.len()).max_by_key(|&i| s[i].capacity())?;
            Some(s.swap_remove(largest))
        });
        match back {
            Some(v) => {
                self.shelf
                    .shelved
                    .fetch_sub(v.capacity() * size_of::<T>(), Ordering::Relaxed);
                probe::hit("memory.recycled");
                v
            }
            None => Vec::new(),
        }
    }

    /// `values` as an Arrow buffer (no copy) whose allocation returns to this shelf, emptied,
    /// when the buffer and every slice of it are dropped.
    pub fn buffer(&self, values: Vec<T>) -> Buffer {
        let bytes = values.capacity().saturating_mul(size_of::<T>());
        if values.is_empty() || !(RECYCLE_MIN_BYTES..=RECYCLE_MAX_BYTES).contains(&bytes) {
            return Buffer::from_vec(values);
        }
        let len = values.len() * size_of::<T>();
        let ptr = NonNull::new(values.as_ptr() as *mut u8).expect("a Vec's pointer is non-null");
        let owner = Arc::new(Returning {
            values,
            home: Arc::downgrade(&self.shelf),
        });
        // SAFETY: `ptr` points at `len` initialised bytes (`values.len()` Arrow native values, plain old data)
        // of the allocation `owner` owns. Moving the `Vec` into `owner` does not move its heap
        // allocation, and `owner` never touches the vector until it is dropped, which Arrow
        // does only after the last `Buffer` over these bytes is gone: the bytes stay valid and
        // unchanged for as long as Arrow can read them.
        unsafe { Buffer::from_custom_allocation(ptr, len, owner) }
    }
}

/// The owner of a recycled buffer's allocation: puts it back on its shelf when dropped.
struct Returning<T> {
    values: Vec<T>,
    home: Weak<Shelf<T>>,
}

impl<T> Drop for Returning<T> {
    fn drop(&mut self) {
        let Some(home) = self.home.upgrade() else {
            return; // the shelf is gone (its thread ended): the vector is freed
        };
        let Ok(mut buffers) = home.buffers.lock() else {
            return;
        };
        let bytes = self.values.capacity() * size_of::<T>();
        if buffers.len() >= SHELF {
            return;
        }
        let before = home.shelved.fetch_add(bytes, Ordering::Relaxed);
        if before + bytes > THREAD_SHELVED_MAX {
            home.shelved.fetch_sub(bytes, Ordering::Relaxed);
            return;
        }
        let mut v = std::mem::take(&mut self.values);
        v.clear();
        buffers.push(v);
    }
}

/// Ask the CPU to start loading the cache line `ahead` bytes past the start of `bytes`
/// (on x86-64; nothing on other targets, which have no stable prefetch instruction). For
/// loops whose next load address is only known from the previous one (length-prefixed
/// values), which hardware prefetchers follow poorly. Past the end of `bytes` it prefetches
/// whatever lies there, harmlessly.
#[inline(always)]
pub fn prefetch(bytes: &[u8], ahead: usize) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: a prefetch is a hint: it reads nothing the program sees and cannot fault,
    // whatever the address (the pointer is made with `wrapping_add`, never dereferenced).
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(bytes.as_ptr().wrapping_add(ahead).cast::<i8>());
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    let _ = (bytes, ahead);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recycled_buffers_come_back_once_dropped() {
        let r = Recycler::<i64>::private();
        let mut v = r.take();
        v.extend(0..100_000);
        let ptr = v.as_ptr();
        let buf = r.buffer(v);
        let slice = buf.slice(800);
        assert_eq!(&buf.typed_data::<i64>()[..3], &[0, 1, 2]);
        drop(buf);
        assert_eq!(r.take().capacity(), 0, "a slice still holds it");
        assert_eq!(slice.typed_data::<i64>()[0], 100);
        drop(slice);
        let back = r.take();
        assert_eq!(back.as_ptr(), ptr, "the same allocation, back on the shelf");
        assert!(back.is_empty() && back.capacity() >= 100_000);
    }

    #[test]
    fn small_large_and_orphaned_buffers_are_freed() {
        let r = Recycler::<u8>::private();
        drop(r.buffer(vec![1u8; 100]));
        assert_eq!(r.take().capacity(), 0, "too small to keep");
        let buf = r.buffer(vec![7u8; RECYCLE_MIN_BYTES]);
        drop(r);
        assert_eq!(buf.as_slice()[0], 7, "outlives its recycler");
    }

    #[test]
    fn recyclers_of_one_thread_share_its_shelf_up_to_its_bytes() {
        std::thread::spawn(|| {
            let first = Recycler::<i64>::default();
            let mut v = first.take();
            v.extend(0..100_000i64);
            let ptr = v.as_ptr();
            drop(first.buffer(v));
            drop(first);
            let next = Recycler::<i64>::default();
            let back = next.take();
            assert_eq!(back.as_ptr(), ptr, "a later decoder's recycler takes it up");
            assert_eq!(SHELVED.with(|s| s.load(Ordering::Relaxed)), 0);

            let bytes = Recycler::<u8>::default();
            let big = THREAD_SHELVED_MAX / 2 + 1;
            drop(bytes.buffer(vec![0u8; big]));
            drop(next.buffer(vec![0i64; big / 8 + 1]));
            let shelved = SHELVED.with(|s| s.load(Ordering::Relaxed));
            assert!(shelved <= THREAD_SHELVED_MAX, "{shelved} bytes shelved");
            assert_eq!(next.take().capacity(), 0, "over the thread's bytes: freed");
            assert!(bytes.take().capacity() >= big);
        })
        .join()
        .unwrap();
    }

    #[test]
    fn reserves_and_keeps_contents() {
        let mut v: Vec<u64> = (0..1000).collect();
        reserve_huge(&mut v, (HUGE_PAGE_MIN_BYTES / 8) * 2);
        assert!(v.capacity() >= 1000 + HUGE_PAGE_MIN_BYTES / 4);
        let cap = v.capacity();
        reserve_huge(&mut v, 10);
        assert_eq!(v.capacity(), cap, "room enough: nothing reserved");
        assert!(v.iter().copied().eq(0..1000));
        v.extend(1000..5000);
        assert_eq!(v[4999], 4999);
        let mut small: Vec<u8> = Vec::new();
        reserve_huge(&mut small, 100);
        assert!(small.capacity() >= 100);
    }
}
