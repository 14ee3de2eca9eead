//! The cost of modular encryption: one zstd file of 1,000,000 rows (`PARQ_BENCH_ROWS`) with
//! three columns (`id` i64 random, `score` f64 random, `name` strings of 8..=24 bytes from
//! 1,000 distinct, 10 % null), ~1 MiB v1 pages, one row group, read and written in memory on
//! one thread, plaintext against encrypted (all columns and the footer under one 128-bit key).
//!
//! Groups:
//! * `encryption_read`: every column decoded to Arrow-layout buffers (`read_column`);
//!   `parq/plain`, `parq/gcm` (AES_GCM_V1), `parq/ctr` (AES_GCM_CTR_V1), and the parquet crate
//!   reading the same plaintext and GCM files to record batches (`parquet/plain`,
//!   `parquet/gcm`; it has no CTR).
//! * `encryption_write`: the same three columns from Arrow buffers, same ids.
//! * `aes_gcm`: AES-GCM seal and open of the same 64 KiB and 1 MiB buffers (random bytes,
//!   13-byte AAD, fixed nonce) with AES-128 and AES-256 keys, by RustCrypto's `aes-gcm`,
//!   `ring` and `aws-lc-rs`: the backends `parq::encryption` could sit on; and AES-CTR
//!   (AES_GCM_CTR_V1 page bodies) by RustCrypto's `ctr` and `aws-lc-rs`, in place.
//!
//! Target: encrypted reading at most 15 % and writing at most 20 % slower than plaintext.
//!
//! The read and write groups time the CPU time of the bench thread (`/proc/thread-self/
//! schedstat`; wall time where it is missing): on a shared machine the time other processes
//! take from the core is left out, which moved wall-clock medians by up to 2x between runs.

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
use bytes::Bytes;
use criterion::{
    criterion_group, criterion_main, BatchSize, Bencher, BenchmarkId, Criterion, Throughput,
};
use parq::encryption::{Algorithm, FileDecryptionProperties, FileEncryptionProperties};
use parq::read::{ParquetReader, ReadOptions};
use parq::write::WriterOptions;
use parq_benches::Rng;
use parq_codecs::compression::CodecKind;

const KEY: &[u8] = b"0123456789012345";

fn batch(rows: usize) -> RecordBatch {
    let mut rng = Rng::new(42);
    let ids: Int64Array = (0..rows).map(|_| rng.next_u64() as i64).collect();
    let scores: Float64Array = (0..rows).map(|_| rng.next_u64() as f64 / 7.0).collect();
    let words: Vec<String> = (0..1000)
        .map(|i| {
            let len = 8 + i % 17;
            (0..len)
                .map(|j| (b'a' + ((i * 7 + j * 13) % 26) as u8) as char)
                .collect()
        })
        .collect();
    let names: StringArray = (0..rows)
        .map(|_| (rng.below(10) != 0).then(|| words[rng.below(1000) as usize].as_str()))
        .collect();
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("id", Arc::new(ids)),
        ("score", Arc::new(scores)),
        ("name", Arc::new(names)),
    ];
    RecordBatch::try_from_iter(columns).expect("batch")
}

fn encryption(algorithm: Option<Algorithm>) -> Option<FileEncryptionProperties> {
    algorithm.map(|a| {
        FileEncryptionProperties::builder(KEY.to_vec())
            .with_algorithm(a)
            .build()
            .expect("props")
    })
}

fn write_parq(batch: &RecordBatch, algorithm: Option<Algorithm>) -> Vec<u8> {
    let options = WriterOptions::default()
        .with_compression(CodecKind::Zstd)
        .with_row_group_rows(usize::MAX)
        .with_encryption(encryption(algorithm));
    let mut w =
        parq::arrow::ArrowWriter::try_new(Vec::new(), batch.schema(), options).expect("writer");
    w.write(batch).expect("write");
    w.into_inner().expect("finish")
}

fn write_parquet(batch: &RecordBatch, encrypted: bool) -> Vec<u8> {
    use parquet::basic::{Compression, ZstdLevel};
    use parquet::file::properties::WriterProperties;
    let mut props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(1).expect("level")))
        .set_max_row_group_row_count(Some(usize::MAX));
    if encrypted {
        let p = parquet::encryption::encrypt::FileEncryptionProperties::builder(KEY.to_vec())
            .build()
            .expect("props");
        props = props.with_file_encryption_properties(p);
    }
    let mut out = Vec::new();
    let mut w = parquet::arrow::ArrowWriter::try_new(&mut out, batch.schema(), Some(props.build()))
        .expect("writer");
    w.write(batch).expect("write");
    w.close().expect("close");
    out
}

fn read_parq(file: &Bytes, encrypted: bool) -> usize {
    let options = ReadOptions::default().with_decryption(encrypted.then(|| {
        FileDecryptionProperties::builder()
            .with_footer_key(KEY.to_vec())
            .build()
            .expect("props")
    }));
    let reader = ParquetReader::with_options(file.clone(), options).expect("open");
    (0..reader.schema().leaves.len())
        .map(|i| reader.read_column(i).expect("read").len)
        .sum()
}

fn read_parquet(file: &Bytes, encrypted: bool) -> usize {
    use parquet::arrow::arrow_reader::{ArrowReaderOptions, ParquetRecordBatchReaderBuilder};
    let mut options = ArrowReaderOptions::new();
    if encrypted {
        let p = parquet::encryption::decrypt::FileDecryptionProperties::builder(KEY.to_vec())
            .build()
            .expect("props");
        options = options.with_file_decryption_properties(p);
    }
    let reader = ParquetRecordBatchReaderBuilder::try_new_with_options(file.clone(), options)
        .expect("open")
        .with_batch_size(8192)
        .build()
        .expect("reader");
    reader.map(|b| b.expect("batch").num_rows()).sum()
}

/// Nanoseconds this thread has run on a CPU, where Linux says (`None` elsewhere).
fn cpu_ns() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

/// Times `f` by the CPU time it takes (wall time where that is unknown).
fn cpu_timed<O>(b: &mut Bencher, mut f: impl FnMut() -> O) {
    b.iter_custom(|iters| {
        let (cpu, wall) = (cpu_ns(), Instant::now());
        for _ in 0..iters {
            black_box(f());
        }
        match (cpu, cpu_ns()) {
            (Some(a), Some(b)) => Duration::from_nanos(b - a),
            _ => wall.elapsed(),
        }
    })
}

fn bench(c: &mut Criterion) {
    let rows = parq_benches::rows();
    let batch = batch(rows);
    let cases = [
        ("parq/plain", None),
        ("parq/gcm", Some(Algorithm::AesGcmV1)),
        ("parq/ctr", Some(Algorithm::AesGcmCtrV1)),
    ];
    let files: Vec<(&str, Bytes, bool)> = cases
        .iter()
        .map(|(id, a)| (*id, Bytes::from(write_parq(&batch, *a)), a.is_some()))
        .collect();
    let theirs = [
        (
            "parquet/plain",
            Bytes::from(write_parquet(&batch, false)),
            false,
        ),
        (
            "parquet/gcm",
            Bytes::from(write_parquet(&batch, true)),
            true,
        ),
    ];
    for (id, f, _) in files.iter().chain(&theirs) {
        eprintln!("{id}: {} bytes", f.len());
    }

    let mut g = c.benchmark_group("encryption_read");
    g.throughput(Throughput::Elements(rows as u64));
    for (id, file, encrypted) in &files {
        assert_eq!(read_parq(file, *encrypted), rows * 3);
        g.bench_with_input(BenchmarkId::new(*id, "zstd"), file, |b, f| {
            cpu_timed(b, || read_parq(f, *encrypted))
        });
    }
    for (id, file, encrypted) in &theirs {
        g.bench_with_input(BenchmarkId::new(*id, "zstd"), file, |b, f| {
            cpu_timed(b, || read_parquet(f, *encrypted))
        });
    }
    g.finish();

    let mut g = c.benchmark_group("encryption_write");
    g.throughput(Throughput::Elements(rows as u64));
    for (id, algorithm) in cases {
        g.bench_function(BenchmarkId::new(id, "zstd"), |b| {
            cpu_timed(b, || write_parq(&batch, algorithm).len())
        });
    }
    for (id, encrypted) in [("parquet/plain", false), ("parquet/gcm", true)] {
        g.bench_function(BenchmarkId::new(id, "zstd"), |b| {
            cpu_timed(b, || write_parquet(&batch, encrypted).len())
        });
    }
    g.finish();
}

/// One AES-GCM implementation: seal in place (returning the tag), open in place.
trait Backend {
    fn seal(&self, aad: &[u8], buf: &mut [u8]) -> [u8; 16];
    fn open(&self, aad: &[u8], buf: &mut [u8], tag: &[u8; 16]);
}

const NONCE: [u8; 12] = [7; 12];

struct RustCrypto128(aes_gcm::Aes128Gcm);
struct RustCrypto256(aes_gcm::Aes256Gcm);

macro_rules! rust_crypto {
    ($t:ty) => {
        impl Backend for $t {
            fn seal(&self, aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
                use aes_gcm::aead::AeadInOut;
                self.0
                    .encrypt_inout_detached(&NONCE.into(), aad, buf.into())
                    .expect("seal")
                    .into()
            }
            fn open(&self, aad: &[u8], buf: &mut [u8], tag: &[u8; 16]) {
                use aes_gcm::aead::AeadInOut;
                self.0
                    .decrypt_inout_detached(&NONCE.into(), aad, buf.into(), tag.into())
                    .expect("open")
            }
        }
    };
}
rust_crypto!(RustCrypto128);
rust_crypto!(RustCrypto256);

struct Ring(ring::aead::LessSafeKey);

impl Backend for Ring {
    fn seal(&self, aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        use ring::aead::{Aad, Nonce};
        let tag = self
            .0
            .seal_in_place_separate_tag(Nonce::assume_unique_for_key(NONCE), Aad::from(aad), buf)
            .expect("seal");
        tag.as_ref().try_into().expect("tag")
    }
    fn open(&self, aad: &[u8], buf: &mut [u8], tag: &[u8; 16]) {
        use ring::aead::{Aad, Nonce};
        self.0
            .open_in_place_separate_tag(
                Nonce::assume_unique_for_key(NONCE),
                Aad::from(aad),
                ring::aead::Tag::from(*tag),
                buf,
                0..,
            )
            .expect("open");
    }
}

struct AwsLc(aws_lc_rs::aead::LessSafeKey);

impl Backend for AwsLc {
    fn seal(&self, aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        use aws_lc_rs::aead::{Aad, Nonce};
        let tag = self
            .0
            .seal_in_place_separate_tag(Nonce::assume_unique_for_key(NONCE), Aad::from(aad), buf)
            .expect("seal");
        tag.as_ref().try_into().expect("tag")
    }
    fn open(&self, aad: &[u8], buf: &mut [u8], tag: &[u8; 16]) {
        use aws_lc_rs::aead::{Aad, Nonce};
        self.0
            .open_in_place_separate_tag(
                Nonce::assume_unique_for_key(NONCE),
                Aad::from(aad),
                tag,
                buf,
            )
            .expect("open");
    }
}

fn backends(key: &[u8]) -> Vec<(&'static str, Box<dyn Backend>)> {
    use aes_gcm::aead::KeyInit;
    let rust_crypto: Box<dyn Backend> = match key.len() {
        16 => Box::new(RustCrypto128(KeyInit::new_from_slice(key).expect("key"))),
        _ => Box::new(RustCrypto256(KeyInit::new_from_slice(key).expect("key"))),
    };
    let ring_alg = match key.len() {
        16 => &ring::aead::AES_128_GCM,
        _ => &ring::aead::AES_256_GCM,
    };
    let aws_alg = match key.len() {
        16 => &aws_lc_rs::aead::AES_128_GCM,
        _ => &aws_lc_rs::aead::AES_256_GCM,
    };
    vec![
        ("rustcrypto", rust_crypto),
        (
            "ring",
            Box::new(Ring(ring::aead::LessSafeKey::new(
                ring::aead::UnboundKey::new(ring_alg, key).expect("key"),
            ))),
        ),
        (
            "aws-lc-rs",
            Box::new(AwsLc(aws_lc_rs::aead::LessSafeKey::new(
                aws_lc_rs::aead::UnboundKey::new(aws_alg, key).expect("key"),
            ))),
        ),
    ]
}

fn aes_gcm(c: &mut Criterion) {
    const AAD: &[u8] = b"parquet-aad01";
    let mut g = c.benchmark_group("aes_gcm");
    for size in [64 << 10, 1 << 20] {
        let mut rng = Rng::new(size as u64);
        let plain: Vec<u8> = (0..size).map(|_| rng.next_u64() as u8).collect();
        g.throughput(Throughput::Bytes(size as u64));
        for key in [&[5u8; 16][..], &[5u8; 32][..]] {
            let bits = key.len() * 8;
            let all = backends(key);
            // Every backend seals to the same ciphertext and tag.
            let mut reference = plain.clone();
            let reference_tag = all[0].1.seal(AAD, &mut reference);
            for (name, b) in &all {
                let mut buf = plain.clone();
                assert_eq!(b.seal(AAD, &mut buf), reference_tag, "{name}");
                assert_eq!(buf, reference, "{name}");
                b.open(AAD, &mut buf, &reference_tag);
                assert_eq!(buf, plain, "{name}");
            }
            let param = format!("aes{bits}/{}KiB", size >> 10);
            for (name, b) in &all {
                let mut buf = plain.clone();
                g.bench_with_input(
                    BenchmarkId::new(format!("seal/{name}"), &param),
                    &(),
                    |t, _| t.iter(|| black_box(b.seal(AAD, &mut buf))),
                );
                g.bench_with_input(
                    BenchmarkId::new(format!("open/{name}"), &param),
                    &(),
                    |t, _| {
                        // The ciphertext is copied afresh outside the timed part.
                        t.iter_batched_ref(
                            || reference.clone(),
                            |ct| b.open(AAD, ct, &reference_tag),
                            BatchSize::LargeInput,
                        )
                    },
                );
            }
        }
    }
    for size in [64 << 10, 1 << 20] {
        g.throughput(Throughput::Bytes(size as u64));
        for key in [&[5u8; 16][..], &[5u8; 32][..]] {
            let param = format!("aes{}/{}KiB", key.len() * 8, size >> 10);
            let iv = [3u8; 16];
            let mut buf = vec![1u8; size];
            g.bench_with_input(BenchmarkId::new("ctr/rustcrypto", &param), &(), |t, _| {
                use ctr::cipher::{KeyIvInit, StreamCipher};
                t.iter(|| match key.len() {
                    16 => ctr::Ctr32BE::<aes::Aes128>::new_from_slices(key, &iv)
                        .expect("key")
                        .apply_keystream(&mut buf),
                    _ => ctr::Ctr32BE::<aes::Aes256>::new_from_slices(key, &iv)
                        .expect("key")
                        .apply_keystream(&mut buf),
                })
            });
            g.bench_with_input(BenchmarkId::new("ctr/aws-lc-rs", &param), &(), |t, _| {
                use aws_lc_rs::cipher::{
                    EncryptingKey, EncryptionContext, UnboundCipherKey, AES_128, AES_256,
                };
                let alg = if key.len() == 16 { &AES_128 } else { &AES_256 };
                let k =
                    EncryptingKey::ctr(UnboundCipherKey::new(alg, key).expect("key")).expect("key");
                t.iter(|| {
                    k.less_safe_encrypt(&mut buf, EncryptionContext::Iv128(iv.into()))
                        .expect("ctr")
                })
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench, aes_gcm);
criterion_main!(benches);
