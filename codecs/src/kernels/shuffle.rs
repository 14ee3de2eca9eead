//! Byte shuffles for BYTE_STREAM_SPLIT.
//!
//! `n` values of `W` bytes are stored as `W` streams of `n` bytes: byte `k` of value `i` is at
//! `k * n + i`. `split` scatters values into streams, `join` gathers them back:
//!
//! ```text
//! join:  for i in 0..n { for k in 0..W { out[i * W + k] = streams[k * n + i] } }
//! split: for i in 0..n { for k in 0..W { out[k * n + i] = values[i * W + k] } }
//! ```
//!
//! The `_const` kernels fix `W` at compile time (4 for FLOAT/INT32, 8 for DOUBLE/INT64), so the
//! inner loop over `k` can be unrolled; they move blocks of 16 values through fixed-size
//! arrays so that the inner loops have constant bounds the compiler can check once (the asm
//! and the speed-up over the generic kernel are still to be measured). The `_generic` kernels
//! take any width and are the oracle the fast ones are tested against. All of it is safe code.
// Safe code only; whether intrinsics would pay here is for a benchmark to show.
#![forbid(unsafe_code)]

/// Values per block in the const kernels: one 16-byte load per stream.
const BLOCK: usize = 16;

/// Gather `n` values of `width` bytes from `width` streams of `n` bytes in `input` into `out`.
///
/// # Panics
///
/// If `input.len() < n * width` or `out.len() != n * width` (callers check the input first).
pub fn join_generic(input: &[u8], width: usize, n: usize, out: &mut [u8]) {
    assert!(input.len() >= n * width && out.len() == n * width);
    if n == 0 {
        return;
    }
    for (k, stream) in input.chunks_exact(n).take(width).enumerate() {
        for (dst, &b) in out[k..].iter_mut().step_by(width).zip(stream) {
            *dst = b;
        }
    }
}

/// Scatter the `width`-byte values in `values` into `width` streams appended as `out`.
///
/// # Panics
///
/// If `values.len() != n * width` or `out.len() != values.len()`, where `n` is the value count.
pub fn split_generic(values: &[u8], width: usize, out: &mut [u8]) {
    assert!(width > 0 && values.len() % width == 0 && out.len() == values.len());
    let n = values.len() / width;
    if n == 0 {
        return;
    }
    for (k, stream) in out.chunks_exact_mut(n).take(width).enumerate() {
        for (dst, &b) in stream.iter_mut().zip(values[k..].iter().step_by(width)) {
            *dst = b;
        }
    }
}

/// [`join_generic`] for a width fixed at compile time.
///
/// # Panics
///
/// If `input.len() < n * W` or `out.len() != n * W`.
pub fn join_const<const W: usize>(input: &[u8], n: usize, out: &mut [u8]) {
    assert!(input.len() >= n * W && out.len() == n * W);
    let streams: [&[u8]; W] = std::array::from_fn(|k| &input[k * n..(k + 1) * n]);
    let full = n / BLOCK * BLOCK;
    for (b, dst) in out[..full * W].chunks_exact_mut(BLOCK * W).enumerate() {
        let start = b * BLOCK;
        let src: [[u8; BLOCK]; W] = std::array::from_fn(|k| {
            let mut block = [0u8; BLOCK];
            block.copy_from_slice(&streams[k][start..start + BLOCK]);
            block
        });
        for (i, value) in dst.chunks_exact_mut(W).enumerate() {
            for k in 0..W {
                value[k] = src[k][i];
            }
        }
    }
    for i in full..n {
        for k in 0..W {
            out[i * W + k] = streams[k][i];
        }
    }
}

/// [`split_generic`] for a width fixed at compile time.
///
/// # Panics
///
/// If `values.len() % W != 0` or `out.len() != values.len()`.
pub fn split_const<const W: usize>(values: &[u8], out: &mut [u8]) {
    assert!(values.len() % W == 0 && out.len() == values.len());
    let n = values.len() / W;
    let full = n / BLOCK * BLOCK;
    let streams: [&mut [u8]; W] = {
        let mut rest = out;
        std::array::from_fn(|_| {
            let (head, tail) = std::mem::take(&mut rest).split_at_mut(n);
            rest = tail;
            head
        })
    };
    for (b, src) in values[..full * W].chunks_exact(BLOCK * W).enumerate() {
        let mut dst = [[0u8; BLOCK]; W];
        for (i, value) in src.chunks_exact(W).enumerate() {
            for k in 0..W {
                dst[k][i] = value[k];
            }
        }
        let start = b * BLOCK;
        for k in 0..W {
            streams[k][start..start + BLOCK].copy_from_slice(&dst[k]);
        }
    }
    for i in full..n {
        for k in 0..W {
            streams[k][i] = values[i * W + k];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 131 + i / 7) as u8).collect()
    }

    fn check<const W: usize>() {
        for n in [0, 1, 3, 15, 16, 17, 31, 32, 33, 100, 128, 129] {
            let values = data(n * W);
            let mut generic = vec![0; n * W];
            let mut fast = vec![0; n * W];
            split_generic(&values, W, &mut generic);
            split_const::<W>(&values, &mut fast);
            assert_eq!(fast, generic, "split W={W} n={n}");
            let mut back_generic = vec![0; n * W];
            let mut back_fast = vec![0; n * W];
            join_generic(&generic, W, n, &mut back_generic);
            join_const::<W>(&generic, n, &mut back_fast);
            assert_eq!(back_generic, values, "join_generic W={W} n={n}");
            assert_eq!(back_fast, values, "join_const W={W} n={n}");
        }
    }

    #[test]
    fn const_kernels_match_generic() {
        check::<1>();
        check::<2>();
        check::<4>();
        check::<8>();
        check::<12>();
    }

    #[test]
    fn spec_example() {
        let values = [
            0xAA, 0xBB, 0xCC, 0xDD, 0x00, 0x11, 0x22, 0x33, 0xA3, 0xB4, 0xC5, 0xD6,
        ];
        let mut out = [0; 12];
        split_const::<4>(&values, &mut out);
        assert_eq!(
            out,
            [0xAA, 0x00, 0xA3, 0xBB, 0x11, 0xB4, 0xCC, 0x22, 0xC5, 0xDD, 0x33, 0xD6]
        );
    }
}
