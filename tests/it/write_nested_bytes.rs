//! The nested writer's output stays byte-identical: files of random nested data (random
//! schemas and options from the testing kit, and large lists with many pages) hash to the
//! values the writer gave before the level and shredding fast paths changed. A change to
//! these hashes is a change to parq's files: make it on purpose, never by accident.
//! Run with `--features testing`.

use crate::support_nested;

use parq::codecs::compression::CodecKind;
use parq::field::Field;
use parq::metadata::Type;
use parq::testing::spec::gen_spec;
use parq::testing::SpecConfig;
use parq::write::{PageVersion, WriterOptions};
use support_nested::{build, random_value, write_arrays, Rng};

/// FNV-1a, 64 bits: a fixed, dependency-free hash of a file's bytes.
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Random schemas (up to 3 levels deep), columns and writer options.
#[test]
fn random_specs_write_the_same_bytes() {
    let config = SpecConfig::default().with_max_rows(2000);
    let mut all = 0u64;
    for seed in 0..300u64 {
        let spec = gen_spec(&mut Rng::new(seed), &config);
        let (bytes, _) = spec.write().expect("write");
        all = all.rotate_left(5) ^ fnv(&bytes);
    }
    // Written by main before the change (commit 6d1180d).
    assert_eq!(
        all, 0x8938_4b67_4d59_5087,
        "hash of 300 random specs: {all:#x}"
    );
}

/// Large nested columns cut into many pages, at both page versions and with a codec.
#[test]
fn large_nested_columns_write_the_same_bytes() {
    let fields = [
        Field::list("a", Field::primitive("element", Type::INT64)),
        Field::list(
            "a",
            Field::list("element", Field::primitive("element", Type::INT32)),
        ),
        Field::structure(
            "a",
            vec![
                Field::primitive("x", Type::INT64),
                Field::list("y", Field::primitive("element", Type::BYTE_ARRAY)),
            ],
        ),
    ];
    let mut got = Vec::new();
    for field in &fields {
        for null_rate in [0.0, 0.05, 0.5] {
            let mut rng = Rng::new(5);
            let rows: Vec<_> = (0..20_000)
                .map(|_| random_value(field, &mut rng, null_rate, 9))
                .collect();
            let array = build(field, &rows);
            for (version, codec, page) in [
                (PageVersion::V1, CodecKind::Uncompressed, 1 << 20),
                (PageVersion::V1, CodecKind::Snappy, 4096),
                (PageVersion::V2, CodecKind::Uncompressed, 4096),
            ] {
                let mut options = WriterOptions::default().with_compression(codec);
                options.page_version = version;
                options.data_page_size = page;
                let bytes =
                    write_arrays(std::slice::from_ref(field), &[vec![array.clone()]], options);
                got.push(fnv(&bytes));
            }
        }
    }
    // Written by main before the change (commit 6d1180d).
    let want: [u64; 27] = [
        0xae1728c021e2cdb,
        0x4daa12bc8b89b5a2,
        0x9d5646a2f8ebd4af,
        0xca11d59f63826810,
        0xdf4f7b1da40264f0,
        0x8728bc02242b1811,
        0x242800342fab1399,
        0x6d6e206cdef5a27,
        0xe75ff543f9aab158,
        0x6e6bea0f1dbbdd1f,
        0x2f681052390be2e9,
        0xf153e6767de55e20,
        0x69c584d7ab0d1ce4,
        0xfcca7f6f68302728,
        0xa98e8f057709a268,
        0x37b64cb87f7d04ee,
        0xdcdf8ada46f595e5,
        0x50d884c1878e2a27,
        0xd644a08dc4a97fab,
        0x158c6f0813b73ec4,
        0x8ed08aa4ff93e081,
        0x4ed4b67d78280186,
        0xbc2a2d4777f4b315,
        0x47807578249890d1,
        0x3bb04f9c00a76831,
        0x621f179b78fae825,
        0x15eed5cfbfda0483,
    ];
    assert_eq!(got, want, "hashes: {got:#x?}");
}
