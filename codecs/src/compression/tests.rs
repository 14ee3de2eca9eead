use std::io::{Read, Write};

use proptest::prelude::*;

use super::*;

/// Every kind a codec can be built for.
const SUPPORTED: [CodecKind; 7] = [
    CodecKind::Uncompressed,
    CodecKind::Snappy,
    CodecKind::Gzip,
    CodecKind::Brotli,
    CodecKind::Lz4,
    CodecKind::Zstd,
    CodecKind::Lz4Raw,
];

/// Kinds that really compress.
const COMPRESSING: [CodecKind; 6] = [
    CodecKind::Snappy,
    CodecKind::Gzip,
    CodecKind::Brotli,
    CodecKind::Lz4,
    CodecKind::Zstd,
    CodecKind::Lz4Raw,
];

fn compress(kind: CodecKind, input: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    new_codec(kind, None)
        .unwrap()
        .compress(input, &mut out)
        .unwrap();
    out
}

fn decompress(kind: CodecKind, input: &[u8], size: usize) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    Decompressor::default().decompress(kind, input, size, &mut out)?;
    Ok(out)
}

/// Bytes that compress well: runs and repeats.
fn compressible(len: usize) -> Vec<u8> {
    (0..len).map(|i| ((i / 37) % 7) as u8 * 3).collect()
}

fn pseudo_random(len: usize, mut seed: u64) -> Vec<u8> {
    (0..len)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed as u8
        })
        .collect()
}

#[test]
fn kind_thrift_numbers_round_trip() {
    for (i, kind) in CodecKind::ALL.iter().enumerate() {
        assert_eq!(kind.to_thrift(), i as i32);
        assert_eq!(CodecKind::from_thrift(i as i32), Some(*kind));
        assert_eq!(CodecKind::parse(kind.name()), Some(*kind));
        assert_eq!(CodecKind::parse(&kind.name().to_uppercase()), Some(*kind));
    }
    assert_eq!(CodecKind::from_thrift(8), None);
    assert_eq!(CodecKind::from_thrift(-1), None);
    assert_eq!(CodecKind::parse("none"), Some(CodecKind::Uncompressed));
    assert_eq!(CodecKind::parse("lz4raw"), Some(CodecKind::Lz4Raw));
    assert_eq!(CodecKind::parse("deflate"), None);
    assert_eq!(CodecKind::Lz4Raw.to_string(), "lz4_raw");
}

#[test]
fn lzo_is_unsupported() {
    assert!(matches!(
        new_codec(CodecKind::Lzo, None),
        Err(Error::Unsupported(_))
    ));
    let mut out = Vec::new();
    let err = Decompressor::default()
        .decompress(CodecKind::Lzo, b"abc", 3, &mut out)
        .unwrap_err();
    assert!(matches!(err, Error::Unsupported(_)), "{err:?}");
}

#[test]
fn levels_are_validated() {
    for level in [0, 6, 9] {
        assert!(new_codec(CodecKind::Gzip, Some(level)).is_ok());
    }
    for level in [0, 5, 11] {
        assert!(new_codec(CodecKind::Brotli, Some(level)).is_ok());
    }
    for level in [-5, 1, 19, 22] {
        assert!(new_codec(CodecKind::Zstd, Some(level)).is_ok());
    }
    for (kind, level) in [
        (CodecKind::Gzip, 10),
        (CodecKind::Gzip, -1),
        (CodecKind::Brotli, 12),
        (CodecKind::Zstd, 23),
    ] {
        let err = new_codec(kind, Some(level)).err().unwrap();
        assert!(matches!(err, Error::Compression { .. }), "{err:?}");
    }
    for kind in [
        CodecKind::Uncompressed,
        CodecKind::Snappy,
        CodecKind::Lz4,
        CodecKind::Lz4Raw,
    ] {
        assert!(matches!(
            new_codec(kind, Some(1)),
            Err(Error::Unsupported(_))
        ));
    }
}

#[test]
fn every_level_round_trips() {
    let data = compressible(10_000);
    let levels: &[(CodecKind, &[i32])] = &[
        (CodecKind::Gzip, &[0, 1, 9]),
        (CodecKind::Brotli, &[0, 1, 5, 11]),
        (CodecKind::Zstd, &[-3, 0, 1, 19]),
    ];
    for (kind, levels) in levels {
        for &level in *levels {
            let mut codec = new_codec(*kind, Some(level)).unwrap();
            let mut c = Vec::new();
            codec.compress(&data, &mut c).unwrap();
            let mut d = Vec::new();
            codec.decompress(&c, data.len(), &mut d).unwrap();
            assert_eq!(d, data, "{kind} level {level}");
        }
    }
}

fn round_trip(kind: CodecKind, data: &[u8]) {
    let mut codec = new_codec(kind, None).unwrap();
    // Append after existing bytes, twice, to check the codec appends and reuses its state.
    let mut compressed = b"prefix".to_vec();
    codec.compress(data, &mut compressed).unwrap();
    let first = compressed[6..].to_vec();
    compressed.truncate(6);
    codec.compress(data, &mut compressed).unwrap();
    assert_eq!(&compressed[..6], b"prefix");
    assert_eq!(&compressed[6..], &first[..], "{kind}: not deterministic");

    let mut out = b"xy".to_vec();
    codec.decompress(&first, data.len(), &mut out).unwrap();
    assert_eq!(&out[..2], b"xy");
    assert_eq!(&out[2..], data, "{kind}");
    codec.decompress(&first, data.len(), &mut out).unwrap();
    assert_eq!(&out[2 + data.len()..], data, "{kind}: second decompression");

    let mut slice = vec![0xaa; data.len()];
    Decompressor::default()
        .decompress_to_slice(kind, &first, &mut slice)
        .unwrap();
    assert_eq!(slice, data, "{kind}: to slice");

    assert_eq!(decompress(kind, &first, data.len()).unwrap(), data);
    // A wrong declared size is an error, and leaves `out` alone.
    for wrong in [data.len() + 1, data.len().wrapping_sub(1)] {
        if wrong == usize::MAX {
            continue;
        }
        let mut out = b"keep".to_vec();
        let result = Decompressor::default().decompress(kind, &first, wrong, &mut out);
        assert!(
            result.is_err(),
            "{kind}: declared {wrong} for {}",
            data.len()
        );
        assert_eq!(out, b"keep");
    }
}

#[test]
fn round_trip_fixed_cases() {
    let cases: Vec<Vec<u8>> = vec![
        vec![],
        vec![0],
        b"hello".to_vec(),
        compressible(100_000),
        pseudo_random(70_000, 7),
        vec![0; 300_000],
    ];
    for kind in SUPPORTED {
        for data in &cases {
            round_trip(kind, data);
        }
    }
}

fn data_strategy() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..4096),
        // Runs of a few distinct bytes: compressible.
        proptest::collection::vec((any::<u8>(), 1usize..300), 0..40).prop_map(|runs| {
            runs.into_iter()
                .flat_map(|(b, n)| std::iter::repeat_n(b, n))
                .collect()
        }),
        Just(Vec::new()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn proptest_round_trip(data in data_strategy()) {
        for kind in SUPPORTED {
            round_trip(kind, &data);
        }
    }

    /// Corrupted compressed bytes give `Err` or the declared size, never a panic.
    #[test]
    fn proptest_corruption_never_panics(
        data in data_strategy(),
        flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..4),
        cut in any::<usize>(),
    ) {
        for kind in COMPRESSING {
            let good = compress(kind, &data);
            let mut bad = good.clone();
            if !bad.is_empty() {
                for &(at, x) in &flips {
                    let i = at % bad.len();
                    bad[i] ^= x | 1;
                }
            }
            for input in [&bad[..], &good[..cut % (good.len() + 1)]] {
                if let Ok(out) = decompress(kind, input, data.len()) {
                    prop_assert_eq!(out.len(), data.len());
                }
                let mut slice = vec![0; data.len()];
                let _ = Decompressor::default().decompress_to_slice(kind, input, &mut slice);
            }
        }
    }

    /// Arbitrary bytes under any codec and declared size: no panic, no huge allocation.
    #[test]
    fn proptest_garbage_never_panics(
        input in proptest::collection::vec(any::<u8>(), 0..512),
        size in 0usize..100_000,
    ) {
        let limits = Limits { max_uncompressed_size: 1 << 20 };
        let mut d = Decompressor::new(limits);
        for kind in CodecKind::ALL {
            let mut out = Vec::new();
            if d.decompress(kind, &input, size, &mut out).is_ok() {
                prop_assert_eq!(out.len(), size);
            } else {
                prop_assert!(out.is_empty());
            }
        }
    }
}

#[test]
fn over_limit_is_refused_before_allocating() {
    let data = vec![7u8; 4096];
    let limits = Limits {
        max_uncompressed_size: 4095,
    };
    for kind in SUPPORTED {
        let compressed = compress(kind, &data);
        let mut d = Decompressor::new(limits);
        let mut out = Vec::new();
        let err = d
            .decompress(kind, &compressed, data.len(), &mut out)
            .unwrap_err();
        assert!(
            matches!(
                err,
                Error::TooLarge {
                    declared: 4096,
                    limit: 4095,
                    ..
                }
            ),
            "{kind}: {err:?}"
        );
        assert_eq!(out.capacity(), 0, "{kind} allocated");
        let mut slice = vec![0; 4096];
        assert!(d
            .decompress_to_slice(kind, &compressed, &mut slice)
            .is_err());
        assert_eq!(
            check_declared_size(kind, compressed.len(), 4096, &limits),
            Err(err)
        );
    }
}

#[test]
fn huge_declared_size_is_refused_before_allocating() {
    for kind in SUPPORTED {
        let compressed = compress(kind, b"tiny page");
        for size in [usize::MAX, 1 << 40, (1 << 30) + 1] {
            let mut out = Vec::new();
            let err = Decompressor::default()
                .decompress(kind, &compressed, size, &mut out)
                .unwrap_err();
            assert!(matches!(err, Error::TooLarge { .. }), "{kind}: {err:?}");
            assert_eq!(out.capacity(), 0);
        }
    }
}

#[test]
fn size_beyond_codec_ratio_is_refused() {
    let unlimited = Limits {
        max_uncompressed_size: usize::MAX,
    };
    for kind in COMPRESSING {
        let compressed = compress(kind, b"0123456789");
        let max = max_decompressed_len(kind, compressed.len()).unwrap();
        let err = check_declared_size(kind, compressed.len(), max + 1, &unlimited).unwrap_err();
        assert!(matches!(err, Error::TooLarge { .. }), "{kind}: {err:?}");
        assert!(check_declared_size(kind, compressed.len(), max, &unlimited).is_ok());
        let mut out = Vec::new();
        let err = Decompressor::new(unlimited)
            .decompress(kind, &compressed, max + 1, &mut out)
            .unwrap_err();
        assert!(matches!(err, Error::TooLarge { .. }), "{kind}: {err:?}");
        assert_eq!(out.capacity(), 0);
        // The bare codec applies the ratio bound too.
        let err = new_codec(kind, None)
            .unwrap()
            .decompress(&compressed, max + 1, &mut out)
            .unwrap_err();
        assert!(matches!(err, Error::TooLarge { .. }), "{kind}: {err:?}");
        assert_eq!(out.capacity(), 0);
    }
    // Uncompressed: sizes must match.
    assert!(check_declared_size(CodecKind::Uncompressed, 3, 3, &unlimited).is_ok());
    assert!(check_declared_size(CodecKind::Uncompressed, 3, 4, &unlimited).is_err());
}

/// The ratio bounds hold for the best compression the libraries achieve.
#[test]
fn ratio_bounds_hold_for_highly_compressible_data() {
    let zeros = vec![0u8; 8 << 20];
    for (kind, level) in [
        (CodecKind::Snappy, None),
        (CodecKind::Lz4, None),
        (CodecKind::Lz4Raw, None),
        (CodecKind::Gzip, Some(9)),
        (CodecKind::Zstd, Some(19)),
        (CodecKind::Brotli, Some(9)),
    ] {
        let mut c = Vec::new();
        new_codec(kind, level)
            .unwrap()
            .compress(&zeros, &mut c)
            .unwrap();
        let max = max_decompressed_len(kind, c.len()).unwrap();
        assert!(
            max >= zeros.len(),
            "{kind}: {} bytes from {} but bound {max}",
            zeros.len(),
            c.len()
        );
        assert_eq!(decompress(kind, &c, zeros.len()).unwrap(), zeros);
    }
}

#[test]
fn empty_input_and_zero_size() {
    for kind in SUPPORTED {
        // No bytes, no output: fine for every codec (some writers skip the codec here).
        assert_eq!(decompress(kind, &[], 0).unwrap(), Vec::<u8>::new());
        let mut codec = new_codec(kind, None).unwrap();
        let mut out = Vec::new();
        codec.decompress(&[], 0, &mut out).unwrap();
        codec.decompress_to_slice(&[], &mut []).unwrap();
        // No bytes cannot produce any output.
        assert!(decompress(kind, &[], 1).is_err(), "{kind}");
        // A compressed empty page decompresses to nothing, and to nothing else.
        let c = compress(kind, &[]);
        assert_eq!(decompress(kind, &c, 0).unwrap(), Vec::<u8>::new());
        assert!(decompress(kind, &c, 1).is_err(), "{kind}");
    }
}

#[test]
fn snappy_header_must_match_declared_size() {
    let data = compressible(5000);
    let c = compress(CodecKind::Snappy, &data);
    let mut out = Vec::new();
    let err = Decompressor::default()
        .decompress(CodecKind::Snappy, &c, 4000, &mut out)
        .unwrap_err();
    assert!(matches!(err, Error::InvalidData { .. }), "{err:?}");
    assert_eq!(out.capacity(), 0);
    // A header claiming more than the ratio allows is refused as well.
    let forged = [0xff, 0xff, 0xff, 0x7f, 0x00];
    assert!(decompress(CodecKind::Snappy, &forged, 0x0fff_ffff).is_err());
}

#[test]
fn zstd_content_size_must_match_declared_size() {
    let data = compressible(5000);
    let c = compress(CodecKind::Zstd, &data);
    let mut out = Vec::new();
    let err = Decompressor::default()
        .decompress(CodecKind::Zstd, &c, 5001, &mut out)
        .unwrap_err();
    assert!(matches!(err, Error::InvalidData { .. }), "{err:?}");
    assert_eq!(out.capacity(), 0);
}

#[test]
fn zstd_reads_concatenated_and_unsized_frames() {
    let a = compressible(3000);
    let b = pseudo_random(2000, 3);
    let mut both = compress(CodecKind::Zstd, &a);
    both.extend(compress(CodecKind::Zstd, &b));
    let expected = [&a[..], &b[..]].concat();
    assert_eq!(
        decompress(CodecKind::Zstd, &both, expected.len()).unwrap(),
        expected
    );
    assert!(decompress(CodecKind::Zstd, &both, a.len()).is_err());

    // A streamed frame has no content size: the ratio bound applies instead.
    let mut enc = ::zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
    enc.write_all(&a).unwrap();
    let unsized_frame = enc.finish().unwrap();
    assert!(matches!(
        ::zstd::zstd_safe::get_frame_content_size(&unsized_frame),
        Ok(None)
    ));
    assert_eq!(
        decompress(CodecKind::Zstd, &unsized_frame, a.len()).unwrap(),
        a
    );
    assert!(decompress(CodecKind::Zstd, &unsized_frame, a.len() + 1).is_err());
    assert!(decompress(CodecKind::Zstd, &unsized_frame, a.len() - 1).is_err());
    // Spare capacity beyond the declared size does not let an unsized frame overshoot.
    let mut codec = new_codec(CodecKind::Zstd, None).unwrap();
    let mut out = Vec::with_capacity(10 * a.len());
    out.extend_from_slice(b"keep");
    assert!(codec
        .decompress(&unsized_frame, a.len() - 1, &mut out)
        .is_err());
    assert_eq!(out, b"keep");
    codec.decompress(&unsized_frame, a.len(), &mut out).unwrap();
    assert_eq!(&out[4..], &a[..]);

    // A skippable frame in between is skipped.
    let mut with_skippable = compress(CodecKind::Zstd, &a);
    with_skippable.extend_from_slice(&[0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3]);
    with_skippable.extend(compress(CodecKind::Zstd, &b));
    assert_eq!(
        decompress(CodecKind::Zstd, &with_skippable, expected.len()).unwrap(),
        expected
    );

    // Trailing garbage after a frame is an error.
    let mut trailing = compress(CodecKind::Zstd, &a);
    trailing.extend_from_slice(b"junk");
    assert!(decompress(CodecKind::Zstd, &trailing, a.len()).is_err());
}

#[test]
fn gzip_is_gzip_and_interoperates_with_flate2() {
    let data = compressible(20_000);
    let c = compress(CodecKind::Gzip, &data);
    assert_eq!(&c[..3], &[0x1f, 0x8b, 8]);
    let mut back = Vec::new();
    flate2::read::GzDecoder::new(&c[..])
        .read_to_end(&mut back)
        .unwrap();
    assert_eq!(back, data);

    // A member with every optional header field, written by flate2.
    let mut enc = flate2::GzBuilder::new()
        .filename("page.bin")
        .comment("a comment")
        .extra(vec![1, 2, 3, 4])
        .mtime(12345)
        .write(Vec::new(), flate2::Compression::best());
    enc.write_all(&data).unwrap();
    let theirs = enc.finish().unwrap();
    assert_eq!(
        decompress(CodecKind::Gzip, &theirs, data.len()).unwrap(),
        data
    );
}

#[test]
fn gzip_header_crc_is_checked() {
    // FHCRC set: header CRC16 = low 16 bits of the header's CRC32.
    let body = compress(CodecKind::Gzip, b"abc");
    let mut header = body[..10].to_vec();
    header[3] |= 0x02;
    let mut crc = flate2::Crc::new();
    crc.update(&header);
    let crc16 = (crc.sum() & 0xffff) as u16;
    let mut good = header.clone();
    good.extend_from_slice(&crc16.to_le_bytes());
    good.extend_from_slice(&body[10..]);
    assert_eq!(decompress(CodecKind::Gzip, &good, 3).unwrap(), b"abc");
    let mut bad = header;
    bad.extend_from_slice(&(crc16 ^ 1).to_le_bytes());
    bad.extend_from_slice(&body[10..]);
    assert!(decompress(CodecKind::Gzip, &bad, 3).is_err());
}

#[test]
fn gzip_concatenated_members() {
    let parts = [
        compressible(10_000),
        Vec::new(),
        pseudo_random(5000, 9),
        b"tail".to_vec(),
    ];
    let mut page = Vec::new();
    for p in &parts {
        page.extend(compress(CodecKind::Gzip, p));
    }
    let expected = parts.concat();
    assert_eq!(
        decompress(CodecKind::Gzip, &page, expected.len()).unwrap(),
        expected
    );
    assert!(decompress(CodecKind::Gzip, &page, expected.len() - 1).is_err());
    assert!(decompress(CodecKind::Gzip, &page, expected.len() + 1).is_err());
    // flate2's multi-member reader agrees.
    let mut back = Vec::new();
    flate2::read::MultiGzDecoder::new(&page[..])
        .read_to_end(&mut back)
        .unwrap();
    assert_eq!(back, expected);

    // Trailing bytes that are not a member are an error.
    let mut trailing = page.clone();
    trailing.extend_from_slice(&[0, 0, 0]);
    assert!(decompress(CodecKind::Gzip, &trailing, expected.len()).is_err());
    // So is a truncated second member.
    let first = compress(CodecKind::Gzip, &parts[0]);
    let cut = &page[..first.len() + 5];
    assert!(decompress(CodecKind::Gzip, cut, parts[0].len()).is_err());
}

#[test]
fn gzip_trailer_is_checked() {
    let data = compressible(1000);
    let c = compress(CodecKind::Gzip, &data);
    let n = c.len();
    for at in [n - 8, n - 5, n - 4, n - 1] {
        let mut bad = c.clone();
        bad[at] ^= 0x40;
        let err = decompress(CodecKind::Gzip, &bad, data.len()).unwrap_err();
        assert!(matches!(err, Error::InvalidData { .. }), "{err:?}");
    }
    assert!(matches!(
        decompress(CodecKind::Gzip, &c[..n - 3], data.len()),
        Err(Error::Truncated { .. })
    ));
}

#[test]
fn brotli_trailing_bytes_and_truncation() {
    let data = compressible(10_000);
    let c = compress(CodecKind::Brotli, &data);
    let mut trailing = c.clone();
    trailing.push(0);
    assert!(decompress(CodecKind::Brotli, &trailing, data.len()).is_err());
    assert!(decompress(CodecKind::Brotli, &c[..c.len() - 1], data.len()).is_err());
}

/// `[ulen BE][clen BE][raw block]` per chunk, as Arrow C++ writes each block.
fn hadoop_blocks(chunks: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::new();
    for chunk in chunks {
        let block = lz4_flex::block::compress(chunk);
        out.extend_from_slice(&(chunk.len() as u32).to_be_bytes());
        out.extend_from_slice(&(block.len() as u32).to_be_bytes());
        out.extend_from_slice(&block);
    }
    out
}

#[test]
fn lz4_hadoop_layout() {
    let data = compressible(50_000);
    let c = compress(CodecKind::Lz4, &data);
    assert_eq!(&c[..4], &(data.len() as u32).to_be_bytes());
    assert_eq!(&c[4..8], &((c.len() - 8) as u32).to_be_bytes());
    assert_eq!(
        lz4_flex::block::decompress(&c[8..], data.len()).unwrap(),
        data
    );
    assert_eq!(c, hadoop_blocks(&[&data]));
}

#[test]
fn lz4_hadoop_multiple_blocks() {
    let a = compressible(30_000);
    let b = pseudo_random(1000, 5);
    let expected = [&a[..], &[], &b[..]].concat();
    // Several outer blocks, one inner block each (Arrow C++), with an empty one.
    let page = hadoop_blocks(&[&a, &[], &b]);
    assert_eq!(
        decompress(CodecKind::Lz4, &page, expected.len()).unwrap(),
        expected
    );
    // One outer block holding several inner blocks (Hadoop's BlockCompressorStream).
    let mut page = Vec::new();
    page.extend_from_slice(&(expected.len() as u32).to_be_bytes());
    for chunk in [&a[..], &b[..]] {
        let block = lz4_flex::block::compress(chunk);
        page.extend_from_slice(&(block.len() as u32).to_be_bytes());
        page.extend_from_slice(&block);
    }
    assert_eq!(
        decompress(CodecKind::Lz4, &page, expected.len()).unwrap(),
        expected
    );
    assert!(decompress(CodecKind::Lz4, &page, expected.len() + 1).is_err());
    assert!(decompress(CodecKind::Lz4, &page, expected.len() - 1).is_err());
}

#[test]
fn lz4_falls_back_to_raw_block_and_frame() {
    for data in [compressible(40_000), pseudo_random(3000, 11), b"x".to_vec()] {
        // A bare LZ4 block, as old parquet-cpp wrote codec LZ4.
        let raw = lz4_flex::block::compress(&data);
        assert_eq!(decompress(CodecKind::Lz4, &raw, data.len()).unwrap(), data);
        // An LZ4 frame, as old arrow-rs wrote codec LZ4.
        let mut enc = lz4_flex::frame::FrameEncoder::new(Vec::new());
        enc.write_all(&data).unwrap();
        let frame = enc.finish().unwrap();
        assert_eq!(
            decompress(CodecKind::Lz4, &frame, data.len()).unwrap(),
            data
        );
        assert!(decompress(CodecKind::Lz4, &frame, data.len() + 1).is_err());
        // LZ4_RAW takes only the bare block.
        assert_eq!(
            decompress(CodecKind::Lz4Raw, &raw, data.len()).unwrap(),
            data
        );
        assert!(decompress(CodecKind::Lz4Raw, &frame, data.len()).is_err());
    }
}

#[test]
fn lz4_hadoop_header_lies_fall_back_then_fail() {
    let data = compressible(2000);
    let mut c = compress(CodecKind::Lz4, &data);
    // Inner length past the end: not Hadoop, and not a valid raw block either.
    c[4..8].copy_from_slice(&u32::MAX.to_be_bytes());
    let err = decompress(CodecKind::Lz4, &c, data.len()).unwrap_err();
    assert!(
        matches!(err, Error::Compression { codec: "lz4", .. }),
        "{err:?}"
    );
    // Outer length larger than the page.
    let mut c = compress(CodecKind::Lz4, &data);
    c[0..4].copy_from_slice(&(data.len() as u32 + 1).to_be_bytes());
    assert!(decompress(CodecKind::Lz4, &c, data.len()).is_err());
}

#[test]
fn decompressor_reuses_codecs_across_kinds() {
    let data = compressible(9000);
    // On a thread of its own, so that the cache starts empty.
    std::thread::spawn(move || {
        assert!(Decompressor::cached_kinds().is_empty());
        // Decompressors of one thread (a reader's columns) share its codecs.
        for _ in 0..3 {
            let mut d = Decompressor::new(Limits::default());
            for kind in SUPPORTED {
                let c = compress(kind, &data);
                let mut out = Vec::new();
                d.decompress(kind, &c, data.len(), &mut out).unwrap();
                assert_eq!(out, data);
            }
        }
        // The codecs with large state, once each; snappy's and the uncompressed one are each
        // decompressor's own.
        let cached = Decompressor::cached_kinds();
        let own = [CodecKind::Snappy, CodecKind::Uncompressed];
        let shared: Vec<_> = SUPPORTED.into_iter().filter(|k| !own.contains(k)).collect();
        assert_eq!(cached.len(), shared.len(), "one codec per kind: {cached:?}");
        for kind in shared {
            assert!(cached.contains(&kind), "{kind} not cached: {cached:?}");
        }
    })
    .join()
    .unwrap();
}

#[cfg(feature = "probes")]
#[test]
fn lz4_probes_tell_which_reading_was_taken() {
    use crate::probe;
    let data = compressible(5000);
    let cases = [
        (compress(CodecKind::Lz4, &data), "compression.lz4_hadoop"),
        (
            lz4_flex::block::compress(&data),
            "compression.lz4_block_fallback",
        ),
        (
            {
                let mut enc = lz4_flex::frame::FrameEncoder::new(Vec::new());
                enc.write_all(&data).unwrap();
                enc.finish().unwrap()
            },
            "compression.lz4_frame_fallback",
        ),
    ];
    for (input, path) in cases {
        probe::reset();
        assert_eq!(
            decompress(CodecKind::Lz4, &input, data.len()).unwrap(),
            data
        );
        let hits: Vec<_> = probe::snapshot()
            .into_iter()
            .filter(|(k, _)| k.starts_with("compression.lz4"))
            .collect();
        assert_eq!(hits, vec![(path, 1)]);
    }
}

/// A page whose header declares far more than its bytes inflate to (`declared` up to what
/// the codec's ratio allows): an error, and `out` never grew anywhere near the declared
/// size. Snappy's and LZ4's reservations are bounded by their bytes (snappy's length header,
/// 255:1), so the streaming codecs are the ones that must grow with the data.
#[test]
fn declared_size_beyond_the_data_is_not_reserved() {
    // 8 KiB of incompressible bytes: the ratio bound lets the header declare a lot.
    let page = pseudo_random(8 << 10, 11);
    let mut unsized_zstd = ::zstd::stream::Encoder::new(Vec::new(), 1).unwrap();
    unsized_zstd.write_all(&page).unwrap();
    let unsized_zstd = unsized_zstd.finish().unwrap();
    let cases = [
        (CodecKind::Gzip, compress(CodecKind::Gzip, &page)),
        (CodecKind::Brotli, compress(CodecKind::Brotli, &page)),
        (CodecKind::Zstd, unsized_zstd),
    ];
    for (kind, compressed) in cases {
        let declared = max_decompressed_len(kind, compressed.len())
            .unwrap()
            .min(Limits::DEFAULT_MAX_UNCOMPRESSED_SIZE);
        assert!(declared >= 8 << 20, "{kind}: declares only {declared}");
        let mut out = b"keep".to_vec();
        let err = Decompressor::default()
            .decompress(kind, &compressed, declared, &mut out)
            .unwrap_err();
        assert!(
            matches!(err, Error::InvalidData { what, .. } if what.contains("fewer")),
            "{kind}: {err:?}"
        );
        assert_eq!(out, b"keep");
        assert!(
            out.capacity() <= 2 * FIRST_GROWTH,
            "{kind}: reserved {} for {declared} declared",
            out.capacity()
        );
        // The honest declaration reads, through the same growing path.
        let mut out = Vec::new();
        Decompressor::default()
            .decompress(kind, &compressed, page.len(), &mut out)
            .unwrap();
        assert_eq!(out, page, "{kind}");
    }
}

/// Pages above [`FIRST_GROWTH`] read by growing the output, and one that inflates to more
/// than declared stops at the declared size (plus one byte for zstd) with an error.
#[test]
fn growing_output_reads_large_pages_and_stops_at_the_declared_size() {
    let page = compressible(5 * FIRST_GROWTH + 123);
    let mut unsized_zstd = ::zstd::stream::Encoder::new(Vec::new(), 1).unwrap();
    unsized_zstd.write_all(&page).unwrap();
    let unsized_zstd = unsized_zstd.finish().unwrap();
    let cases = [
        (CodecKind::Gzip, compress(CodecKind::Gzip, &page)),
        (CodecKind::Brotli, compress(CodecKind::Brotli, &page)),
        (CodecKind::Zstd, unsized_zstd),
    ];
    for (kind, compressed) in cases {
        let mut out = Vec::new();
        Decompressor::default()
            .decompress(kind, &compressed, page.len(), &mut out)
            .unwrap();
        assert!(out == page, "{kind}: differs");
        for declared in [page.len() - 1, 2 * FIRST_GROWTH, 8 << 10] {
            let mut out = Vec::new();
            let err = Decompressor::default()
                .decompress(kind, &compressed, declared, &mut out)
                .unwrap_err();
            // Into a window of the whole page, the library may report the overflow as its
            // own buffer error.
            assert!(
                matches!(err, Error::InvalidData { what, .. } if what.contains("more"))
                    || matches!(err, Error::Compression { .. }),
                "{kind} declaring {declared}: {err:?}"
            );
            assert!(out.is_empty());
            assert!(out.capacity() <= declared + 1, "{kind}: {}", out.capacity());
        }
    }
}

/// `compress_reusing` gives the bytes of `compress`, page after page into one buffer, for
/// every codec; snappy zeroes only what the buffer lacks (probe `compress.snappy_reused`
/// once the buffer is long enough).
#[test]
fn compress_reusing_gives_the_bytes_of_compress() {
    let pages: Vec<Vec<u8>> = [5000usize, 300, 0, 4000, 70_000]
        .iter()
        .enumerate()
        .map(|(k, &n)| (0..n).map(|i| ((i * (k + 3)) % 251 / 7) as u8).collect())
        .collect();
    for kind in SUPPORTED {
        let mut codec = new_codec(kind, None).unwrap();
        let mut buf = vec![0xAA; 3];
        crate::probe::reset();
        for page in &pages {
            let n = codec.compress_reusing(page, &mut buf).unwrap();
            assert_eq!(&buf[..n], &compress(kind, page)[..], "{kind:?}");
        }
        if cfg!(feature = "probes") && kind == CodecKind::Snappy {
            // Pages 2 to 4 fit in the bound of the first; the last grows the buffer.
            assert_eq!(crate::probe::get("compress.snappy_reused"), 3);
        }
    }
}
