//! Passes over a decoded byte-array column's buffers: whether the values are all ASCII (then
//! they are UTF-8 and every offset sits on a character boundary), whether offsets never
//! decrease, and i64 offsets narrowed to the i32 of Arrow's `Utf8` and `Binary`. Offsets are
//! i64 or i32 ([`Offset`]).
//!
//! All are portable loops the compiler vectorises, compiled again inside `#[target_feature]`
//! functions (AVX2 for all, AVX-512 for the offsets) and picked by [`super::simd::level`]:
//! at the baseline (SSE2) the ASCII check ORs 16 bytes per instruction, at AVX2 32. The
//! results are the same at every level.
//!
//! Probe names: `kernels.ascii.{scalar,avx2}`, `kernels.narrow_offsets.{scalar,avx2,avx512}`
//! and `kernels.offsets_monotonic.{scalar,avx2,avx512}` (one hit per call, naming the kernel
//! that ran).

use super::simd::level;
use crate::probe;

/// A byte array offset type: i64 (Arrow's `LargeBinary`, parq's `Values::Binary`) or i32
/// (Arrow's `Binary` and `Utf8`). Kernels that append offsets keep the running end in i64
/// and store each as [`Offset::truncate`] of it: that the ends fit (for i32, that the bytes
/// they index stay within `i32::MAX`) is their caller's to check.
pub trait Offset:
    Copy
    + Ord
    + Default
    + Into<i64>
    + std::ops::BitOr<Output = Self>
    + Send
    + Sync
    + std::fmt::Debug
    + 'static
{
    /// The largest offset of this type.
    const MAX: i64;
    /// `v` as this type: its low bits, exact when `0 <= v <= Self::MAX`.
    fn truncate(v: i64) -> Self;
    /// 1 when `b < a`, else 0: a lane of the order check as wide as the offsets, so that
    /// it vectorises with one compare per vector of offsets.
    fn below(b: Self, a: Self) -> Self;
    /// [`crate::levels::scatter_offsets`] into offsets of this type (call that instead).
    #[doc(hidden)]
    fn scatter_offsets(
        dense_offsets: &[i64],
        validity: &[u8],
        bit_offset: usize,
        len: usize,
        out: &mut Vec<Self>,
    ) -> crate::Result<()>;
}

impl Offset for i64 {
    const MAX: i64 = i64::MAX;
    #[inline(always)]
    fn truncate(v: i64) -> i64 {
        v
    }
    #[inline(always)]
    fn below(b: i64, a: i64) -> i64 {
        (b < a) as i64
    }
    fn scatter_offsets(
        dense_offsets: &[i64],
        validity: &[u8],
        bit_offset: usize,
        len: usize,
        out: &mut Vec<i64>,
    ) -> crate::Result<()> {
        crate::levels::scatter_offsets_as(dense_offsets, validity, bit_offset, len, out)
    }
}

impl Offset for i32 {
    const MAX: i64 = i32::MAX as i64;
    #[inline(always)]
    fn truncate(v: i64) -> i32 {
        v as i32
    }
    #[inline(always)]
    fn below(b: i32, a: i32) -> i32 {
        (b < a) as i32
    }
    fn scatter_offsets(
        dense_offsets: &[i64],
        validity: &[u8],
        bit_offset: usize,
        len: usize,
        out: &mut Vec<i32>,
    ) -> crate::Result<()> {
        crate::levels::scatter_offsets_as(dense_offsets, validity, bit_offset, len, out)
    }
}

/// Bytes ORed together between two checks of the high bits: non-ASCII input stops early.
const BLOCK: usize = 4096;

/// The ASCII check: 64 bytes per step into eight 8-byte lanes (one 512-bit OR, two 256-bit
/// or four 128-bit ones), checked once per [`BLOCK`].
#[inline(always)]
fn ascii_portable(bytes: &[u8]) -> bool {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    for block in bytes.chunks(BLOCK) {
        let mut lanes = [0u64; 8];
        let mut steps = block.chunks_exact(64);
        for step in &mut steps {
            for (lane, word) in lanes.iter_mut().zip(step.chunks_exact(8)) {
                *lane |= u64::from_le_bytes(word.try_into().expect("8 bytes"));
            }
        }
        let tail = steps.remainder().iter().fold(0u8, |a, &b| a | b);
        if lanes.iter().fold(0, |a, &l| a | l) & HIGH != 0 || tail >= 0x80 {
            return false;
        }
    }
    true
}

/// [`ascii_portable`] compiled for AVX2.
///
/// # Safety
///
/// The CPU must support AVX2.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[target_feature(enable = "avx2")]
unsafe fn ascii_avx2(bytes: &[u8]) -> bool {
    ascii_portable(bytes)
}

/// Whether every byte of `bytes` is ASCII (below 0x80). The AVX-512 level runs the AVX2
/// kernel: compiled for AVX-512 the same loop measured slower on Zen 4 (whose 512-bit ORs
/// are two 256-bit ones anyway): `record_batches` on Utf8 took 1.22–1.27× `array_batches`
/// with it against 1.04–1.07× with the AVX2 kernel.
pub fn is_ascii(bytes: &[u8]) -> bool {
    match level() {
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        super::simd::Level::Avx512 | super::simd::Level::Avx2 => {
            probe::hit("kernels.ascii.avx2");
            // SAFETY: `level()` is never above what the CPU supports (see `simd`), and the
            // AVX-512 level includes AVX2.
            unsafe { ascii_avx2(bytes) }
        }
        _ => {
            probe::hit("kernels.ascii.scalar");
            ascii_portable(bytes)
        }
    }
}

/// Whether `data[offsets[0]..offsets[last]]` is UTF-8 with every offset on a character
/// boundary, i.e. whether each value `data[offsets[i]..offsets[i + 1]]` is UTF-8 on its own
/// (what Arrow's `Utf8` asks of every value): an ASCII pass first ([`is_ascii`]), then, only
/// for buffers holding multi-byte characters, `simdutf8` over the span and a look at the byte
/// under each offset. Offsets past `data` are the caller's to prevent (they are not checked
/// here beyond not reading out of bounds: such an offset is not a boundary).
pub fn is_utf8<O: Offset>(data: &[u8], offsets: &[O]) -> bool {
    let (Some(&first), Some(&last)) = (offsets.first(), offsets.last()) else {
        return true;
    };
    let (first, last): (i64, i64) = (first.into(), last.into());
    let Some(bytes) = usize::try_from(first)
        .ok()
        .zip(usize::try_from(last).ok())
        .and_then(|(first, last)| data.get(first..last))
    else {
        return false;
    };
    if is_ascii(bytes) {
        return true;
    }
    if simdutf8::basic::from_utf8(bytes).is_err() {
        return false;
    }
    // A position is a boundary unless it points at a continuation byte (0b10xx_xxxx); the
    // end of `data` is one too.
    offsets.iter().all(|&o| {
        let o: i64 = o.into();
        match data.get(o as usize) {
            Some(&b) => (b as i8) >= -0x40,
            None => o as usize == data.len(),
        }
    })
}

/// Truncate each of `src` to i32 into the spare capacity of `out` (reserved by the caller)
/// and extend `out` by `src.len()`.
#[inline(always)]
fn narrow_portable(src: &[i64], out: &mut Vec<i32>) {
    let spare = &mut out.spare_capacity_mut()[..src.len()];
    for (d, &s) in spare.iter_mut().zip(src) {
        d.write(s as i32);
    }
    let len = out.len() + src.len();
    // SAFETY: the `src.len()` slots after the old length were written just above and lie
    // within the capacity (the slice of the spare capacity would have panicked otherwise).
    unsafe { out.set_len(len) };
}

/// [`narrow_portable`] compiled for AVX2.
///
/// # Safety
///
/// The CPU must support AVX2.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[target_feature(enable = "avx2")]
unsafe fn narrow_avx2(src: &[i64], out: &mut Vec<i32>) {
    narrow_portable(src, out)
}

/// [`narrow_portable`] compiled for AVX-512.
///
/// # Safety
///
/// The CPU must support AVX-512 F.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[target_feature(enable = "avx512f")]
unsafe fn narrow_avx512(src: &[i64], out: &mut Vec<i32>) {
    narrow_portable(src, out)
}

/// `offsets` truncated to i32 (`o as i32` each: the caller checks that they fit).
pub fn narrow_offsets(offsets: &[i64]) -> Vec<i32> {
    let mut out = Vec::with_capacity(offsets.len());
    match level() {
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        super::simd::Level::Avx512 => {
            probe::hit("kernels.narrow_offsets.avx512");
            // SAFETY: `level()` is never above what the CPU supports (see `simd`).
            unsafe { narrow_avx512(offsets, &mut out) }
        }
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        super::simd::Level::Avx2 => {
            probe::hit("kernels.narrow_offsets.avx2");
            // SAFETY: as above.
            unsafe { narrow_avx2(offsets, &mut out) }
        }
        _ => {
            probe::hit("kernels.narrow_offsets.scalar");
            narrow_portable(offsets, &mut out)
        }
    }
    out
}

/// True when no element of `offsets` is below the one before it: every adjacent pair
/// compared and the results ORed, without an early exit, so that the loop vectorises.
#[inline(always)]
fn monotonic_portable<O: Offset>(offsets: &[O]) -> bool {
    let Some(next) = offsets.get(1..) else {
        return true;
    };
    let mut down = O::default();
    for (&a, &b) in offsets.iter().zip(next) {
        down = down | O::below(b, a);
    }
    down == O::default()
}

/// [`monotonic_portable`] compiled for AVX2.
///
/// # Safety
///
/// The CPU must support AVX2.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[target_feature(enable = "avx2")]
unsafe fn monotonic_avx2<O: Offset>(offsets: &[O]) -> bool {
    monotonic_portable(offsets)
}

/// [`monotonic_portable`] compiled for AVX-512.
///
/// # Safety
///
/// The CPU must support AVX-512 F.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[target_feature(enable = "avx512f")]
unsafe fn monotonic_avx512<O: Offset>(offsets: &[O]) -> bool {
    monotonic_portable(offsets)
}

/// Whether `offsets` never decrease (each is at least the one before it); true for fewer
/// than two.
pub fn offsets_monotonic<O: Offset>(offsets: &[O]) -> bool {
    match level() {
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        super::simd::Level::Avx512 => {
            probe::hit("kernels.offsets_monotonic.avx512");
            // SAFETY: `level()` is never above what the CPU supports (see `simd`).
            unsafe { monotonic_avx512(offsets) }
        }
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        super::simd::Level::Avx2 => {
            probe::hit("kernels.offsets_monotonic.avx2");
            // SAFETY: as above.
            unsafe { monotonic_avx2(offsets) }
        }
        _ => {
            probe::hit("kernels.offsets_monotonic.scalar");
            monotonic_portable(offsets)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::simd::{with_level, Level};

    /// Every level this CPU has, scalar first.
    fn levels() -> Vec<Level> {
        Level::ALL
            .into_iter()
            .filter(|l| l.is_supported())
            .collect()
    }

    #[test]
    fn ascii_at_every_level_and_position() {
        let base: Vec<u8> = (0..3 * BLOCK + 77).map(|i| b'a' + (i % 26) as u8).collect();
        for l in levels() {
            with_level(l, || {
                for len in [0, 1, 63, 64, 65, BLOCK, BLOCK + 1, base.len()] {
                    assert!(is_ascii(&base[..len]), "{l} {len}");
                }
                // One high byte anywhere: in a 64-byte step, a block's tail, the last block.
                for at in [
                    0,
                    7,
                    63,
                    64,
                    BLOCK - 1,
                    BLOCK,
                    2 * BLOCK + 5,
                    base.len() - 1,
                ] {
                    let mut b = base.clone();
                    b[at] = 0x80;
                    assert!(!is_ascii(&b), "{l} at {at}");
                    b[at] = 0xff;
                    assert!(!is_ascii(&b[at..]), "{l} from {at}");
                }
            })
            .unwrap();
        }
    }

    #[test]
    fn utf8_values_at_every_level() {
        let check = |values: &[&[u8]]| {
            let mut data = b"prefix".to_vec();
            let mut offsets = vec![data.len() as i64];
            for v in values {
                data.extend_from_slice(v);
                offsets.push(data.len() as i64);
            }
            let want = values.iter().all(|v| std::str::from_utf8(v).is_ok());
            let small: Vec<i32> = offsets.iter().map(|&o| o as i32).collect();
            for l in levels() {
                with_level(l, || {
                    assert_eq!(is_utf8(&data, &offsets), want, "{l} {values:?}");
                    assert_eq!(is_utf8(&data, &small), want, "{l} {values:?}");
                })
                .unwrap();
            }
        };
        check(&[]);
        check(&[
            b"",
            b"abc",
            b"a longer ascii string than one block of sixty-four bytes....",
        ]);
        check(&["é".as_bytes(), "ünïcødé".as_bytes(), b"x"]);
        // Valid bytes as a whole, but an offset cuts a character in two.
        let e = "é".as_bytes();
        check(&[&e[..1], &e[1..]]);
        check(&[b"ok", b"\xff"]);
        check(&[b"\xc3\x28"]);
        // Offsets out of the buffer are not UTF-8 values.
        assert!(!is_utf8(b"abc", &[0, 4]));
        assert!(!is_utf8(b"abc", &[-1, 2]));
        assert!(is_utf8(b"abc", &[0, 3]));
        assert!(!is_utf8(b"abc", &[0i32, 4]));
        assert!(!is_utf8(b"abc", &[-1i32, 2]));
        assert!(is_utf8(b"abc", &[0i32, 3]));
    }

    #[test]
    fn narrowing_at_every_level() {
        let src: Vec<i64> = (0..1000).map(|i| i * 3 + (i % 7) * 1_000_000).collect();
        for l in levels() {
            with_level(l, || {
                for len in [0, 1, 7, 8, 9, 1000] {
                    let got = narrow_offsets(&src[..len]);
                    let want: Vec<i32> = src[..len].iter().map(|&o| o as i32).collect();
                    assert_eq!(got, want, "{l} {len}");
                }
            })
            .unwrap();
        }
    }

    /// The order check, of i64 and of i32 offsets: a decrease anywhere (first pair, a
    /// vector's lanes and boundaries, the last pair) is found, equal neighbours are not one.
    #[test]
    fn order_checks_at_every_level() {
        let src: Vec<i64> = (0..1000).map(|i| i * 3 + (i % 5 == 0) as i64).collect();
        let small = |v: &[i64]| v.iter().map(|&o| o as i32).collect::<Vec<i32>>();
        for l in levels() {
            with_level(l, || {
                for len in [0, 1, 2, 7, 8, 9, 16, 17, 1000] {
                    assert!(offsets_monotonic(&src[..len]), "{l} {len}");
                    assert!(offsets_monotonic(&small(&src[..len])), "{l} {len}");
                }
                assert!(offsets_monotonic(&[5i64; 40]) && offsets_monotonic(&[5i32; 40]));
                for at in [1, 2, 7, 8, 9, 15, 16, 17, 500, 999] {
                    let mut bad = src.clone();
                    bad[at] = bad[at - 1] - 1;
                    assert!(!offsets_monotonic(&bad), "{l} at {at}");
                    assert!(!offsets_monotonic(&small(&bad)), "{l} at {at}");
                    // Far below, and across the i32 range: compared as i64.
                    bad[at] = i64::MIN;
                    assert!(!offsets_monotonic(&bad), "{l} at {at}");
                    let mut wide = src.clone();
                    wide[at..].iter_mut().for_each(|o| *o += 1 << 32);
                    assert!(offsets_monotonic(&wide), "{l} at {at}");
                    let mut top = small(&src);
                    top[at] = i32::MIN;
                    assert!(!offsets_monotonic(&top), "{l} at {at}");
                }
            })
            .unwrap();
        }
    }

    #[test]
    fn probes_name_the_level() {
        if !probe::ENABLED {
            return;
        }
        for l in levels() {
            with_level(l, || {
                probe::reset();
                assert!(is_ascii(b"abc"));
                assert_eq!(narrow_offsets(&[0, 3]), [0, 3]);
                assert!(offsets_monotonic(&[0i64, 3]));
                let name = match l {
                    Level::Avx512 | Level::Avx2 => l.name(),
                    _ => "scalar",
                };
                let ascii_name = if l.has_avx2() { "avx2" } else { "scalar" };
                let ascii = format!("kernels.ascii.{ascii_name}");
                let narrow = format!("kernels.narrow_offsets.{name}");
                assert_eq!(probe::get(&ascii), 1, "{l}");
                assert_eq!(probe::get(&narrow), 1, "{l}");
                let order = format!("kernels.offsets_monotonic.{name}");
                assert_eq!(probe::get(&order), 1, "{l}");
            })
            .unwrap();
        }
    }
}
