//! Codec kernels in isolation, parq side by side with the `parquet` crate (arrow-rs) or with
//! the ceiling (a memcpy of the same bytes).
//!
//! Ids are `{group}/{impl}/{case}`. Every peer decodes the same bytes, and each case checks
//! once, before timing, that both produce the same values.
//!
//! ```text
//! cargo bench -p parq-benches --bench kernels -- --warm-up-time 1 --measurement-time 3
//! cargo bench -p parq-benches --bench kernels -- rle_decode      # one group
//! cargo run -p parq-benches --release --bin ratios               # the ratio table
//! ```

use std::hint::black_box;
use std::sync::Arc;

use arrow_buffer::{BooleanBuffer, BooleanBufferBuilder};

use bytes::Bytes;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use parq_benches::Rng;
use parq_codecs::compression::{new_codec, CodecKind, Decompressor};
use parq_codecs::encoding::{bitpack, dictionary, plain, rle};
use parq_codecs::levels;
use parquet::basic::{Compression, Repetition, Type as PhysicalType};
use parquet::compression::{create_codec, CodecOptionsBuilder};
use parquet::data_type::Int64Type;
use parquet::encodings::decoding::{Decoder, PlainDecoder};
use parquet::encodings::encoding::{DictEncoder, Encoder};
use parquet::encodings::rle::RleDecoder as PqRleDecoder;
use parquet::schema::types::{ColumnDescriptor, ColumnPath, Type as SchemaType};
use parquet::util::bit_util::BitReader;

/// Values per kernel call (1 Mi).
const N: usize = 1 << 20;

/// Values per `get_batch` call in the hybrid decoders, as a batch reader would ask.
const CHUNK: usize = 8192;

fn mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// Bit unpacking of 1 Mi values per width into `u32`, from identical packed bytes.
fn bench_bitpack(c: &mut Criterion) {
    let mut g = c.benchmark_group("bitpack_unpack_u32");
    g.throughput(Throughput::Elements(N as u64));
    let mut out = vec![0u32; N];
    for width in 1..=32u32 {
        let mut rng = Rng::new(width as u64);
        let values: Vec<u32> = (0..N)
            .map(|_| (rng.next_u64() & mask(width)) as u32)
            .collect();
        let mut packed = Vec::new();
        bitpack::pack(&values, width, &mut packed).expect("pack");
        let packed_bytes = Bytes::from(packed.clone());

        bitpack::unpack(&packed, width, &mut out).expect("unpack");
        assert_eq!(out, values, "parq unpack, width {width}");
        out.fill(0);
        let mut reader = BitReader::new(packed_bytes.clone());
        assert_eq!(reader.get_batch(&mut out, width as usize), N);
        assert_eq!(out, values, "parquet unpack, width {width}");

        let case = format!("w{width:02}");
        g.bench_function(BenchmarkId::new("parq", &case), |b| {
            b.iter(|| bitpack::unpack(black_box(&packed), width, &mut out).expect("unpack"))
        });
        g.bench_function(BenchmarkId::new("parquet", &case), |b| {
            b.iter(|| {
                let mut reader = BitReader::new(black_box(packed_bytes.clone()));
                reader.get_batch(&mut out, width as usize)
            })
        });
    }
    g.finish();
}

/// How the values of a hybrid stream are arranged.
#[derive(Clone, Copy)]
enum Mix {
    /// Uniform random values: (almost) everything bit-packed, like high-cardinality
    /// dictionary indices.
    Packed,
    /// Alternating stretches of 1..=64 values, half of them one repeated value and half
    /// random: a mix of short repeated and bit-packed runs.
    Mixed,
    /// Long runs (100..=2000) of one value: sorted or low-cardinality data.
    Runs,
}

impl Mix {
    fn name(self) -> &'static str {
        match self {
            Mix::Packed => "packed",
            Mix::Mixed => "mixed",
            Mix::Runs => "runs",
        }
    }

    fn values(self, width: u32, n: usize, seed: u64) -> Vec<u32> {
        let mut rng = Rng::new(seed);
        let m = mask(width);
        let mut v = Vec::with_capacity(n);
        while v.len() < n {
            let left = n - v.len();
            match self {
                Mix::Packed => v.push((rng.next_u64() & m) as u32),
                Mix::Mixed => {
                    let len = rng.range(1, 64).min(left);
                    if rng.chance(0.5) {
                        let x = (rng.next_u64() & m) as u32;
                        v.extend(std::iter::repeat_n(x, len));
                    } else {
                        v.extend((0..len).map(|_| (rng.next_u64() & m) as u32));
                    }
                }
                Mix::Runs => {
                    let len = rng.range(100, 2000).min(left);
                    let x = (rng.next_u64() & m) as u32;
                    v.extend(std::iter::repeat_n(x, len));
                }
            }
        }
        v
    }
}

/// Hybrid RLE/bit-packed decode of 1 Mi dictionary-index-like values, 8192 per call.
fn bench_rle(c: &mut Criterion) {
    let mut g = c.benchmark_group("rle_decode_u32");
    g.throughput(Throughput::Elements(N as u64));
    let mut out = vec![0u32; N];
    for mix in [Mix::Packed, Mix::Mixed, Mix::Runs] {
        let widths: Vec<u32> = match mix {
            Mix::Runs => vec![1, 4, 8, 12, 16, 20],
            _ => (1..=20).collect(),
        };
        for width in widths {
            let values = mix.values(width, N, 1000 + width as u64);
            let mut encoded = Vec::new();
            rle::encode(&values, width, &mut encoded);
            let encoded_bytes = Bytes::from(encoded.clone());

            let parq = |out: &mut [u32]| {
                let mut dec = rle::RleDecoder::new(black_box(&encoded), width).expect("rle");
                for chunk in out.chunks_mut(CHUNK) {
                    let n = dec.get_batch(chunk).expect("rle get_batch");
                    debug_assert_eq!(n, chunk.len());
                }
            };
            let parquet = |out: &mut [u32]| {
                let mut dec = PqRleDecoder::new(width as u8);
                dec.set_data(black_box(encoded_bytes.clone()))
                    .expect("set_data");
                for chunk in out.chunks_mut(CHUNK) {
                    let n = dec.get_batch(chunk).expect("rle get_batch");
                    debug_assert_eq!(n, chunk.len());
                }
            };
            parq(&mut out);
            assert_eq!(out, values, "parq rle {} w{width}", mix.name());
            out.fill(0);
            parquet(&mut out);
            assert_eq!(out, values, "parquet rle {} w{width}", mix.name());

            let case = format!("{}_w{width:02}", mix.name());
            g.bench_function(BenchmarkId::new("parq", &case), |b| {
                b.iter(|| parq(&mut out))
            });
            g.bench_function(BenchmarkId::new("parquet", &case), |b| {
                b.iter(|| parquet(&mut out))
            });
        }
    }
    g.finish();
}

/// PLAIN decode of 1 Mi int64 into an owned buffer, against a memcpy of the same bytes (the
/// ceiling) and parquet's `PlainDecoder`.
fn bench_plain(c: &mut Criterion) {
    let mut g = c.benchmark_group("plain_decode_i64");
    g.throughput(Throughput::Bytes((N * 8) as u64));
    let mut rng = Rng::new(7);
    let values: Vec<i64> = (0..N).map(|_| rng.next_u64() as i64).collect();
    // The values' own memory is aligned for i64; a copy one byte into a byte buffer is not.
    let aligned: &[u8] = bytemuck::cast_slice(&values);
    let mut unaligned_vec = vec![0u8; N * 8 + 1];
    unaligned_vec[1..].copy_from_slice(aligned);
    let unaligned = &unaligned_vec[1..];
    let aligned_bytes = Bytes::copy_from_slice(aligned);

    let mut out: Vec<i64> = Vec::with_capacity(N);
    for (case, input) in [("aligned", aligned), ("unaligned", unaligned)] {
        out.clear();
        plain::decode_fixed_into::<i64>(input, N, &mut out).expect("plain");
        assert_eq!(out, values);
        g.bench_function(BenchmarkId::new("parq", case), |b| {
            b.iter(|| {
                out.clear();
                plain::decode_fixed_into::<i64>(black_box(input), N, &mut out).expect("plain")
            })
        });
    }
    g.bench_function(BenchmarkId::new("parq_borrowed", "aligned"), |b| {
        b.iter(|| {
            let v = plain::decode_fixed::<i64>(black_box(aligned), N).expect("plain");
            assert!(matches!(v, std::borrow::Cow::Borrowed(_)));
            v.len()
        })
    });
    let mut sink = vec![0u8; N * 8];
    g.bench_function(BenchmarkId::new("memcpy", "aligned"), |b| {
        b.iter(|| sink.copy_from_slice(black_box(aligned)))
    });
    // Same answer from the peer, checked before timing (a filtered run may skip the bench).
    let mut pq_out = vec![0i64; N];
    let mut check = PlainDecoder::<Int64Type>::new(0);
    check.set_data(aligned_bytes.clone(), N).expect("set_data");
    check.get(&mut pq_out).expect("get");
    assert_eq!(pq_out, values);
    g.bench_function(BenchmarkId::new("parquet", "aligned"), |b| {
        b.iter(|| {
            let mut dec = PlainDecoder::<Int64Type>::new(0);
            dec.set_data(black_box(aligned_bytes.clone()), N)
                .expect("set_data");
            dec.get(&mut pq_out).expect("get")
        })
    });
    g.finish();
}

/// About 1 MiB of page-like data: PLAIN int64 timestamps with small random steps, then PLAIN
/// byte arrays of e-mail-like strings from a vocabulary.
fn page_data() -> Vec<u8> {
    let mut rng = Rng::new(42);
    let mut out = Vec::with_capacity(1 << 20);
    let mut ts: i64 = 1_700_000_000_000_000;
    for _ in 0..(64 * 1024) {
        ts += rng.below(1_000_000) as i64;
        out.extend_from_slice(&ts.to_le_bytes());
    }
    let names: Vec<String> = (0..2000)
        .map(|_| parq_benches::random_string(&mut rng, 4, 12))
        .collect();
    let domains = ["example.com", "mail.org", "corp.net", "uni.edu"];
    while out.len() < (1 << 20) {
        let s = format!(
            "{}.{}@{}",
            names[rng.below(names.len() as u64) as usize],
            rng.below(1000),
            domains[rng.below(domains.len() as u64) as usize]
        );
        out.extend_from_slice(&(s.len() as u32).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
    }
    out
}

/// Each decompressor on the same ~1 MiB page, compressed once by parq at default levels;
/// parquet decompresses the identical bytes. `memcpy` of the uncompressed page is the floor.
fn bench_decompress(c: &mut Criterion) {
    let mut g = c.benchmark_group("decompress");
    let page = page_data();
    g.throughput(Throughput::Bytes(page.len() as u64));
    let options = CodecOptionsBuilder::default().build();
    for (kind, pq_kind) in [
        (CodecKind::Snappy, Compression::SNAPPY),
        (CodecKind::Zstd, Compression::ZSTD(Default::default())),
        (CodecKind::Gzip, Compression::GZIP(Default::default())),
        (CodecKind::Lz4Raw, Compression::LZ4_RAW),
        (CodecKind::Brotli, Compression::BROTLI(Default::default())),
    ] {
        let mut compressed = Vec::new();
        new_codec(kind, None)
            .expect("codec")
            .compress(&page, &mut compressed)
            .expect("compress");
        let name = kind.name().to_lowercase();
        eprintln!(
            "decompress/{name}: {} -> {} bytes ({:.2}x)",
            page.len(),
            compressed.len(),
            page.len() as f64 / compressed.len() as f64
        );

        let mut dec = Decompressor::default();
        let mut out = Vec::with_capacity(page.len());
        dec.decompress(kind, &compressed, page.len(), &mut out)
            .expect("parq decompress");
        assert_eq!(out, page);
        let mut pq = create_codec(pq_kind, &options)
            .expect("parquet codec")
            .expect("compressed");
        let mut pq_out = Vec::with_capacity(page.len());
        pq.decompress(&compressed, &mut pq_out, Some(page.len()))
            .expect("parquet decompress");
        assert_eq!(pq_out, page);

        g.bench_function(BenchmarkId::new("parq", &name), |b| {
            b.iter(|| {
                out.clear();
                dec.decompress(kind, black_box(&compressed), page.len(), &mut out)
                    .expect("decompress")
            })
        });
        g.bench_function(BenchmarkId::new("parquet", &name), |b| {
            b.iter(|| {
                pq_out.clear();
                pq.decompress(black_box(&compressed), &mut pq_out, Some(page.len()))
                    .expect("decompress")
            })
        });
    }
    let mut sink = vec![0u8; page.len()];
    g.bench_function(BenchmarkId::new("memcpy", "uncompressed"), |b| {
        b.iter(|| sink.copy_from_slice(black_box(&page)))
    });
    g.finish();
}

/// 1 Mi definition levels (max level 1) with about `null_fraction` nulls, drawn per slot, as
/// the hybrid stream a writer emits for them.
fn def_levels(null_fraction: f64, seed: u64) -> (Vec<bool>, Vec<u8>) {
    let mut rng = Rng::new(seed);
    let valid = parq_benches::validity(&mut rng, N, null_fraction);
    let levels: Vec<u8> = valid.iter().map(|&v| v as u8).collect();
    let mut encoded = Vec::new();
    rle::encode(&levels, 1, &mut encoded);
    (valid, encoded)
}

const NULL_CASES: [(&str, f64); 3] = [
    ("nulls_0pct", 0.0),
    ("nulls_1pct", 0.01),
    ("nulls_50pct", 0.5),
];

/// Definition levels of a flat nullable column to an Arrow validity bitmap: by runs (parq),
/// through a `Vec<i16>` and a bit per slot (parq's naive oracle), and parquet's RleDecoder into
/// `i16` levels (only the first half of parquet's work: no bitmap is built).
fn bench_levels(c: &mut Criterion) {
    let mut g = c.benchmark_group("def_levels_to_bitmap");
    g.throughput(Throughput::Elements(N as u64));
    for (case, p) in NULL_CASES {
        let (valid, encoded) = def_levels(p, 77);
        let encoded_bytes = Bytes::from(encoded.clone());
        let expected = BooleanBuffer::from(valid.clone());

        let mut b = BooleanBufferBuilder::new(N);
        levels::def_levels_to_bitmap(&encoded, N, &mut b).expect("levels");
        assert_eq!(b.finish(), expected);
        let mut b = BooleanBufferBuilder::new(N);
        levels::naive::def_levels_to_bitmap_via_i16(&encoded, N, &mut b).expect("levels");
        assert_eq!(b.finish(), expected);
        let mut i16_out = vec![0i16; N];
        let pq = |out: &mut [i16]| {
            let mut dec = PqRleDecoder::new(1);
            dec.set_data(black_box(encoded_bytes.clone()))
                .expect("set_data");
            for chunk in out.chunks_mut(CHUNK) {
                dec.get_batch(chunk).expect("get_batch");
            }
        };
        pq(&mut i16_out);
        assert!(i16_out.iter().zip(&valid).all(|(&l, &v)| (l == 1) == v));

        g.bench_function(BenchmarkId::new("parq", case), |bch| {
            bch.iter(|| {
                let mut b = BooleanBufferBuilder::new(N);
                levels::def_levels_to_bitmap(black_box(&encoded), N, &mut b).expect("levels");
                b.finish()
            })
        });
        g.bench_function(BenchmarkId::new("naive_via_i16", case), |bch| {
            bch.iter(|| {
                let mut b = BooleanBufferBuilder::new(N);
                levels::naive::def_levels_to_bitmap_via_i16(black_box(&encoded), N, &mut b)
                    .expect("levels");
                b.finish()
            })
        });
        g.bench_function(BenchmarkId::new("parquet_i16_only", case), |bch| {
            bch.iter(|| pq(&mut i16_out))
        });
    }
    g.finish();
}

/// Scatter the dense non-null int64 values of 1 Mi slots into their slots: by runs (parq) or
/// one branch per slot (naive).
/// The null scatter of 1 Mi slots at every SIMD level this CPU has (`parq_{level}`), against a
/// branch per slot (`naive_per_slot`), for 4- and 8-byte values.
fn bench_scatter(c: &mut Criterion) {
    scatter_group::<i32>(c, "scatter_fixed_i32");
    scatter_group::<i64>(c, "scatter_fixed_i64");
}

fn scatter_group<T: bytemuck::Pod + Default + PartialEq + std::fmt::Debug>(
    c: &mut Criterion,
    name: &str,
) {
    use parq_codecs::simd;
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::Elements(N as u64));
    for (case, p) in [
        ("nulls_1pct", 0.01),
        ("nulls_10pct", 0.1),
        ("nulls_50pct", 0.5),
    ] {
        let mut rng = Rng::new(99);
        let valid = parq_benches::validity(&mut rng, N, p);
        let bitmap = BooleanBuffer::from(valid.clone());
        let bits = bitmap.values();
        let dense: Vec<T> = valid
            .iter()
            .filter(|&&v| v)
            .map(|_| bytemuck::cast_slice::<u64, T>(&[rng.next_u64()])[0])
            .collect();
        let mut naive_out: Vec<T> = Vec::with_capacity(N);
        levels::naive::scatter_fixed_per_slot(&dense, bits, 0, N, &mut naive_out).expect("scatter");
        for level in simd::available() {
            let mut out: Vec<T> = Vec::with_capacity(N);
            simd::with_level(level, || {
                levels::scatter_fixed(&dense, bits, 0, N, &mut out).expect("scatter")
            })
            .expect("available level");
            assert_eq!(out, naive_out, "{level}");
            g.bench_function(BenchmarkId::new(format!("parq_{level}"), case), |b| {
                simd::with_level(level, || {
                    b.iter(|| {
                        out.clear();
                        levels::scatter_fixed(black_box(&dense), bits, 0, N, &mut out)
                            .expect("scatter")
                    })
                })
                .expect("available level")
            });
        }
        g.bench_function(BenchmarkId::new("naive_per_slot", case), |b| {
            b.iter(|| {
                naive_out.clear();
                levels::naive::scatter_fixed_per_slot(black_box(&dense), bits, 0, N, &mut naive_out)
                    .expect("scatter")
            })
        });
    }
    g.finish();
}

/// The fixed-width dictionary gather at every level this CPU has, against the loop it replaced
/// (a checked `dict[i]` per value): 1 Mi random indices into 4096 entries, 1024 indices per
/// call as the hybrid decoder hands them out.
fn bench_gather(c: &mut Criterion) {
    gather_group::<u32>(c, "dictionary_gather_i32");
    gather_group::<u64>(c, "dictionary_gather_i64");
}

fn gather_group<T: Copy + PartialEq + std::fmt::Debug + From<u32>>(c: &mut Criterion, name: &str) {
    use parq_codecs::kernels::gather::gather_fixed;
    use parq_codecs::simd;
    let mut rng = Rng::new(5);
    let dict: Vec<T> = (0..4096).map(|_| T::from(rng.next_u32())).collect();
    let indices: Vec<u32> = (0..N).map(|_| rng.below(4096) as u32).collect();
    let naive = |out: &mut Vec<T>| {
        for chunk in indices.chunks(1024) {
            out.extend(chunk.iter().map(|&i| dict[i as usize]));
        }
    };
    let mut want = Vec::with_capacity(N);
    naive(&mut want);
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::Elements(N as u64));
    let mut out: Vec<T> = Vec::with_capacity(N);
    for level in simd::available() {
        let run = |out: &mut Vec<T>| {
            for chunk in indices.chunks(1024) {
                gather_fixed(&dict, black_box(chunk), out).expect("gather");
            }
        };
        out.clear();
        simd::with_level(level, || run(&mut out)).expect("available level");
        assert_eq!(out, want, "{level}");
        g.bench_function(
            BenchmarkId::new(format!("parq_{level}"), "random_4096"),
            |b| {
                simd::with_level(level, || {
                    parq_benches::iter(b, || {
                        out.clear();
                        run(&mut out)
                    })
                })
                .expect("available level")
            },
        );
    }
    g.bench_function(BenchmarkId::new("naive_checked", "random_4096"), |b| {
        parq_benches::iter(b, || {
            out.clear();
            naive(&mut out)
        })
    });
    g.finish();
}

/// The nested-level loops at every level this CPU has, on the levels of a `list<int64>` of 1
/// Mi level pairs (0–7 items per list, 5 % null lists, 5 % null items): list offsets and the
/// list's validity, as a reader derives them for each batch.
fn bench_nested_levels(c: &mut Criterion) {
    use parq_codecs::{nested_levels, simd};
    let mut rng = Rng::new(7);
    let (mut def, mut rep) = (Vec::with_capacity(N), Vec::with_capacity(N));
    while def.len() < N {
        if rng.chance(0.05) {
            def.push(0);
            rep.push(0);
            continue;
        }
        let items = rng.below(8) as usize;
        if items == 0 {
            def.push(1);
            rep.push(0);
        }
        for k in 0..items {
            def.push(if rng.chance(0.05) { 2 } else { 3 });
            rep.push((k > 0) as i16);
        }
    }
    def.truncate(N);
    rep.truncate(N);
    let mut g = c.benchmark_group("nested_levels");
    g.throughput(Throughput::Elements(N as u64));
    let mut want = None;
    for level in simd::available() {
        let mut out = Vec::with_capacity(N + 1);
        let got = simd::with_level(level, || {
            let n = nested_levels::list_offsets(&def, &rep, (0, 0), (2, 1), 1, 0, &mut out);
            (n, out.clone())
        })
        .expect("available level");
        assert_eq!(want.get_or_insert_with(|| got.clone()), &got, "{level}");
        g.bench_function(
            BenchmarkId::new(format!("parq_{level}"), "list_offsets"),
            |b| {
                simd::with_level(level, || {
                    parq_benches::iter(b, || {
                        out.clear();
                        nested_levels::list_offsets(
                            black_box(&def),
                            &rep,
                            (0, 0),
                            (2, 1),
                            1,
                            0,
                            &mut out,
                        )
                    })
                })
                .expect("available level")
            },
        );
        g.bench_function(
            BenchmarkId::new(format!("parq_{level}"), "slot_validity"),
            |b| {
                simd::with_level(level, || {
                    parq_benches::iter(b, || {
                        let mut v = BooleanBufferBuilder::new(N);
                        nested_levels::slot_validity(black_box(&def), Some((&rep, 0)), 0, 1, &mut v)
                    })
                })
                .expect("available level")
            },
        );
    }
    g.finish();
}

/// Parquet's default dictionary page size limit, where its writer falls back to PLAIN.
const DICT_PAGE_LIMIT: usize = 1024 * 1024;

/// A 1 Mi-value high-cardinality int64 column: what a writer pays to find out a dictionary does
/// not pay. parq's estimate (a sample), parq's builder with early abort (what a wrong estimate
/// costs), and parquet's DictEncoder fed 1024 values at a time until its dictionary passes the
/// page size limit (how arrow-rs's writer decides to fall back).
fn bench_dictionary(c: &mut Criterion) {
    let mut g = c.benchmark_group("dictionary_high_cardinality_i64");
    g.throughput(Throughput::Elements(N as u64));
    let mut rng = Rng::new(5);
    let values: Vec<i64> = (0..N).map(|_| rng.next_u64() as i64).collect();

    let est = dictionary::estimate_fixed(&values, N);
    assert!(!est.use_dictionary, "estimate should skip: {est:?}");
    let mut builder = dictionary::DictionaryBuilder::<i64>::new(N, DICT_PAGE_LIMIT);
    let aborted = builder.extend(&values).expect_err("builder should abort");
    eprintln!("dictionary: estimate {est:?}; builder aborted {aborted:?}");

    let desc = Arc::new(ColumnDescriptor::new(
        Arc::new(
            SchemaType::primitive_type_builder("c", PhysicalType::INT64)
                .with_repetition(Repetition::REQUIRED)
                .build()
                .expect("type"),
        ),
        0,
        0,
        ColumnPath::from("c"),
    ));
    let parquet_fallback = |values: &[i64]| {
        let mut enc = DictEncoder::<Int64Type>::new(desc.clone());
        let mut fed = 0;
        for chunk in values.chunks(1024) {
            enc.put(chunk).expect("put");
            fed += chunk.len();
            if enc.dict_encoded_size() >= DICT_PAGE_LIMIT {
                break;
            }
        }
        fed
    };
    eprintln!(
        "dictionary: parquet DictEncoder falls back after {} values",
        parquet_fallback(&values)
    );

    g.bench_function(BenchmarkId::new("parq_estimate", "unique"), |b| {
        b.iter(|| dictionary::estimate_fixed(black_box(&values), N))
    });
    g.bench_function(BenchmarkId::new("parq_build_abort", "unique"), |b| {
        b.iter(|| {
            let mut builder = dictionary::DictionaryBuilder::<i64>::new(N, DICT_PAGE_LIMIT);
            builder.extend(black_box(&values)).is_err()
        })
    });
    g.bench_function(
        BenchmarkId::new("parq_build_no_size_limit", "unique"),
        |b| {
            b.iter(|| {
                let mut builder = dictionary::DictionaryBuilder::<i64>::new(N, usize::MAX);
                builder.extend(black_box(&values)).is_err()
            })
        },
    );
    g.bench_function(BenchmarkId::new("parquet_until_fallback", "unique"), |b| {
        b.iter(|| parquet_fallback(black_box(&values)))
    });
    g.finish();
}

criterion_group!(
    benches,
    bench_bitpack,
    bench_rle,
    bench_levels,
    bench_scatter,
    bench_nested_levels,
    bench_gather,
    bench_plain,
    bench_decompress,
    bench_dictionary
);
criterion_main!(benches);
