//! Codecs as cargo features (`snappy`, `zstd`, `gzip`, `lz4`, `brotli`): in any build, a codec
//! compiled in writes and reads back, and one compiled out is a clean error, on write and on
//! read, that names the feature to turn on. CI runs this with the defaults and with
//! `--no-default-features --features snappy`.

use bytes::Bytes;
use parq::codecs::compression::{is_available, CodecKind};
use parq::column::{Column, Values};
use parq::read::ParquetReader;
use parq::write::{Field, ParquetWriter, WriterOptions};

const KINDS: [(CodecKind, &str); 6] = [
    (CodecKind::Snappy, "snappy"),
    (CodecKind::Gzip, "gzip"),
    (CodecKind::Brotli, "brotli"),
    (CodecKind::Lz4, "lz4"),
    (CodecKind::Zstd, "zstd"),
    (CodecKind::Lz4Raw, "lz4"),
];

fn ids() -> Column {
    Column {
        len: 1000,
        validity: None,
        values: Values::Int64((0..1000i64).map(|i| i % 7).collect::<Vec<_>>().into()),
    }
}

fn write(codec: CodecKind) -> parq::Result<Vec<u8>> {
    let mut file = Vec::new();
    let options = WriterOptions::default().with_compression(codec);
    let mut writer = ParquetWriter::new(&mut file, vec![Field::int64("id")], options)?;
    writer.write_batch(&[ids()])?;
    writer.finish()?;
    Ok(file)
}

#[test]
fn writing_a_codec_works_or_names_its_feature() {
    for (kind, feature) in KINDS {
        match write(kind) {
            Ok(file) => {
                assert!(is_available(kind), "{kind} wrote without its feature");
                let reader = ParquetReader::new(Bytes::from(file)).unwrap();
                let column = reader.read_column(0).unwrap();
                let (Values::Int64(got), Values::Int64(want)) = (&column.values, &ids().values)
                else {
                    panic!("not int64")
                };
                assert_eq!(got, want, "{kind}");
            }
            Err(e) => {
                assert!(!is_available(kind), "{kind} is compiled in but failed: {e}");
                let message = e.to_string();
                assert!(
                    message.contains(&format!("cargo feature `{feature}`")),
                    "{kind}: {message}"
                );
            }
        }
    }
}

/// A parquet-testing file per codec, read in full or refused with the feature's name.
#[test]
fn reading_a_codec_works_or_names_its_feature() {
    let data =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/parquet-testing/data");
    let files = [
        ("alltypes_plain.snappy.parquet", CodecKind::Snappy, "snappy"),
        ("concatenated_gzip_members.parquet", CodecKind::Gzip, "gzip"),
        ("hadoop_lz4_compressed.parquet", CodecKind::Lz4, "lz4"),
        ("lz4_raw_compressed.parquet", CodecKind::Lz4Raw, "lz4"),
        ("byte_stream_split.zstd.parquet", CodecKind::Zstd, "zstd"),
    ];
    for (name, kind, feature) in files {
        let bytes = Bytes::from(std::fs::read(data.join(name)).unwrap());
        // The footer never needs a codec: the file always opens.
        let reader = ParquetReader::new(bytes).unwrap();
        let result = reader.read_column(0);
        if is_available(kind) {
            assert!(result.is_ok(), "{name}: {:?}", result.err());
        } else {
            let Err(e) = result else {
                panic!("{name}: read without its codec")
            };
            let message = e.to_string();
            assert!(
                message.contains(&format!("cargo feature `{feature}`")),
                "{name}: {message}"
            );
        }
    }
}
