//! Writer options: every encoding valid for each leaf's type, every codec parq writes, v1 and
//! v2 pages, page and row-group sizes from one row to the defaults, statistics and the page
//! index on and off, per-column overrides.

use proptest::prelude::*;

use super::schema::leaf_paths;
use super::{Entropy, Rng};
use crate::codecs::compression::CodecKind;
use crate::field::Field;
use crate::metadata::{Encoding, Type};
use crate::write::{BloomFilterOptions, ColumnOptions, EncodingPolicy, PageVersion, WriterOptions};

/// Every codec the writer can write (all but LZO).
pub const CODECS: [CodecKind; 7] = [
    CodecKind::Uncompressed,
    CodecKind::Snappy,
    CodecKind::Gzip,
    CodecKind::Brotli,
    CodecKind::Lz4,
    CodecKind::Zstd,
    CodecKind::Lz4Raw,
];

/// The value encodings a column of physical type `t` may be written with (besides the
/// dictionary, which every type takes).
pub fn valid_encodings(t: Type) -> &'static [Encoding] {
    match t {
        Type::BOOLEAN => &[Encoding::PLAIN, Encoding::RLE],
        Type::INT32 | Type::INT64 => &[
            Encoding::PLAIN,
            Encoding::DELTA_BINARY_PACKED,
            Encoding::BYTE_STREAM_SPLIT,
        ],
        Type::FLOAT | Type::DOUBLE => &[Encoding::PLAIN, Encoding::BYTE_STREAM_SPLIT],
        Type::BYTE_ARRAY => &[
            Encoding::PLAIN,
            Encoding::DELTA_LENGTH_BYTE_ARRAY,
            Encoding::DELTA_BYTE_ARRAY,
        ],
        Type::FIXED_LEN_BYTE_ARRAY => &[
            Encoding::PLAIN,
            Encoding::DELTA_BYTE_ARRAY,
            Encoding::BYTE_STREAM_SPLIT,
        ],
        _ => &[Encoding::PLAIN],
    }
}

/// A random encoding policy valid for type `t`: automatic, dictionary, or one of
/// [`valid_encodings`].
pub fn gen_policy(e: &mut dyn Entropy, t: Type) -> EncodingPolicy {
    match e.below(4) {
        0 => EncodingPolicy::Auto,
        1 => EncodingPolicy::Dictionary,
        _ => EncodingPolicy::Explicit(*e.pick(valid_encodings(t))),
    }
}

/// Random writer options for `fields` with `rows` rows: sizes are drawn relative to `rows`,
/// so that small files still get several pages and row groups.
pub fn gen_options(e: &mut dyn Entropy, fields: &[Field], rows: usize) -> WriterOptions {
    let rows = rows.max(1) as u64;
    let page_version = if e.below(2) == 1 {
        PageVersion::V2
    } else {
        PageVersion::V1
    };
    let mut o = WriterOptions {
        compression: *e.pick(&CODECS),
        page_version,
        data_page_size: *e.pick(&[1 << 20, 1, 64, 1024]),
        data_page_row_limit: match e.below(3) {
            0 => 20_000,
            _ => 1 + e.below(rows) as usize,
        },
        row_group_rows: match e.below(3) {
            0 => 1 << 20,
            _ => 1 + e.below(rows) as usize,
        },
        dictionary_size_limit: *e.pick(&[1 << 20, 64]),
        statistics: e.below(4) != 1,
        page_header_statistics: e.below(2) == 1,
        statistics_truncate_length: *e.pick(&[Some(64), None, Some(4)]),
        page_index: e.below(4) != 1,
        ..WriterOptions::default()
    };
    for f in fields {
        for (path, prim) in leaf_paths(f) {
            let over = ColumnOptions {
                encoding: Some(gen_policy(e, prim.physical_type)),
                compression: (e.below(4) == 0).then(|| *e.pick(&CODECS)),
                statistics: (e.below(8) == 0).then(|| e.below(2) == 1),
                // BOOLEAN columns have no bloom filter (the writer refuses one).
                bloom_filter: (prim.physical_type != Type::BOOLEAN && e.below(4) == 0).then(|| {
                    BloomFilterOptions {
                        ndv: *e.pick(&[None, Some(1), Some(1000)]),
                        fpp: *e.pick(&[0.01, 0.1, 0.5]),
                    }
                }),
                ..ColumnOptions::default()
            };
            o.columns.insert(path, over);
        }
    }
    o
}

/// Writer options for `fields` (see [`gen_options`]).
pub fn options_strategy(fields: Vec<Field>, rows: usize) -> impl Strategy<Value = WriterOptions> {
    any::<u64>().prop_map(move |seed| gen_options(&mut Rng::new(seed), &fields, rows))
}
