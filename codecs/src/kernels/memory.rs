//! Large output buffers: reserved once, and backed by transparent huge pages where Linux
//! offers them on request (`/sys/kernel/mm/transparent_hugepage/enabled` = `madvise`).
//!
//! A whole-column read fills one fresh buffer of tens of MiB. With 4 KiB pages the kernel
//! takes a page fault (and zeroes a page) every 4 KiB the decoder first touches; with 2 MiB
//! pages it takes one per 2 MiB. Readers that hand out small batches reuse memory the
//! allocator already holds and pay no faults at all, so for one big buffer this is the
//! difference between losing and winning.
//!
//! Probe names: `memory.huge_pages_advised` (a reservation large enough was advised).

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
    let size = std::mem::size_of::<T>().max(1);
    let wanted = v.len().saturating_add(additional).saturating_mul(size);
    if wanted < HUGE_PAGE_MIN_BYTES || v.capacity() >= v.len().saturating_add(additional) {
        v.reserve(additional);
        return;
    }
    // One huge page more, so that the 2 MiB-aligned part (the allocation itself is only
    // 4 KiB-aligned) covers everything past the first huge page boundary.
    v.reserve(additional.saturating_add(HUGE / size));
    let bytes = v.capacity().saturating_mul(size);
    // The part not yet written: pages already touched keep their backing anyway.
    let used = v.len() * size;
    if advise_huge(v.as_ptr() as usize + used, bytes - used) {
        probe::hit("memory.huge_pages_advised");
    }
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

#[cfg(test)]
mod tests {
    use super::*;

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
