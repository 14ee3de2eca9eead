//! Parquet modular encryption: the encrypted files of parquet-testing against the parquet
//! crate (feature `encryption`), failure cases, interop both ways, and round trips.
#![cfg(all(feature = "encryption", feature = "arrow"))]

use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::{RecordBatch, RecordBatchReader};
use bytes::Bytes;
use parq::encryption::{Algorithm, FileDecryptionProperties, FileEncryptionProperties};
use parq::read::{ParquetReader, ReadOptions};

fn data_dir() -> PathBuf {
    std::env::var_os("PARQUET_TEST_DATA")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/parquet-testing/data")
        })
}

/// The keys of parquet-testing/data/README.md (as parquet-cpp's tests spell them).
const FOOTER_128: &[u8] = b"0123456789012345";
const DOUBLE_128: &[u8] = b"1234567890123450";
const FLOAT_128: &[u8] = b"1234567890123451";
const FOOTER_256: &[u8] = b"01234567890123456789012345678901";
/// The aes256 files' column keys: `1234567890123456789012345678901` then a last digit.
const COLUMNS_256: &[(&str, u8)] = &[
    ("double_field", b'2'),
    ("float_field", b'3'),
    ("boolean_field", b'4'),
    ("int32_field", b'5'),
    ("ba_field", b'6'),
    ("flba_field", b'7'),
    ("int64_field.list.element", b'8'),
    ("int96_field", b'9'),
];

/// One keyed file of parquet-testing: its path, footer key, column keys and AAD prefix.
struct Keyed {
    path: PathBuf,
    footer: Vec<u8>,
    columns: Vec<(String, Vec<u8>)>,
    aad_prefix: Option<Vec<u8>>,
}

fn keyed_files() -> Vec<Keyed> {
    let mut out = Vec::new();
    let dir = data_dir();
    let cols_128 = vec![
        ("double_field".to_string(), DOUBLE_128.to_vec()),
        ("float_field".to_string(), FLOAT_128.to_vec()),
    ];
    for name in [
        "encrypt_columns_and_footer",
        "encrypt_columns_and_footer_aad",
        "encrypt_columns_and_footer_bloom_filter",
        "encrypt_columns_and_footer_ctr",
        "encrypt_columns_and_footer_disable_aad_storage",
        "encrypt_columns_plaintext_footer",
        "uniform_encryption",
    ] {
        out.push(Keyed {
            path: dir.join(format!("{name}.parquet.encrypted")),
            footer: FOOTER_128.to_vec(),
            columns: if name == "uniform_encryption" {
                vec![]
            } else {
                cols_128.clone()
            },
            aad_prefix: name.contains("aad").then(|| b"tester".to_vec()),
        });
    }
    let cols_256: Vec<(String, Vec<u8>)> = COLUMNS_256
        .iter()
        .map(|(c, last)| {
            let mut k = b"1234567890123456789012345678901".to_vec();
            k.push(*last);
            (c.to_string(), k)
        })
        .collect();
    for name in [
        "encrypt_columns_and_footer",
        "encrypt_columns_and_footer_ctr",
        "encrypt_columns_and_footer_disable_aad_storage",
        "encrypt_columns_plaintext_footer",
        "uniform_encryption",
    ] {
        out.push(Keyed {
            path: dir.join(format!("aes256/{name}.parquet.encrypted")),
            footer: FOOTER_256.to_vec(),
            columns: if name == "uniform_encryption" {
                vec![]
            } else {
                cols_256.clone()
            },
            aad_prefix: name.contains("aad").then(|| b"tester".to_vec()),
        });
    }
    out
}

fn parq_props(k: &Keyed) -> FileDecryptionProperties {
    let mut b = FileDecryptionProperties::builder().with_footer_key(k.footer.clone());
    for (c, key) in &k.columns {
        b = b.with_column_key(c.clone(), key.clone());
    }
    if let Some(p) = &k.aad_prefix {
        b = b.with_aad_prefix(p.clone());
    }
    b.build().unwrap()
}

fn parquet_props(k: &Keyed) -> Arc<parquet::encryption::decrypt::FileDecryptionProperties> {
    let mut b = parquet::encryption::decrypt::FileDecryptionProperties::builder(k.footer.clone());
    for (c, key) in &k.columns {
        b = b.with_column_key(c, key.clone());
    }
    if let Some(p) = &k.aad_prefix {
        b = b.with_aad_prefix(p.clone());
    }
    b.build().unwrap()
}

fn concat(batches: &[RecordBatch]) -> RecordBatch {
    arrow_select::concat::concat_batches(&batches[0].schema(), batches).unwrap()
}

fn read_parq(bytes: Bytes, props: Option<FileDecryptionProperties>) -> parq::Result<RecordBatch> {
    let options = ReadOptions {
        decryption: props,
        ..ReadOptions::default()
    };
    let reader = ParquetReader::with_options(bytes, options)?;
    let batches = reader.record_batches(&[], 1000)?;
    let schema = batches.schema();
    let batches: Vec<RecordBatch> = batches
        .collect::<Result<_, _>>()
        .map_err(|e| parq::Error::InvalidArgument(format!("{e}")))?;
    Ok(arrow_select::concat::concat_batches(&schema, &batches).unwrap())
}

fn read_parquet_crate(
    bytes: Bytes,
    props: Arc<parquet::encryption::decrypt::FileDecryptionProperties>,
) -> RecordBatch {
    use parquet::arrow::arrow_reader::{ArrowReaderOptions, ParquetRecordBatchReaderBuilder};
    let options = ArrowReaderOptions::new().with_file_decryption_properties(props);
    let reader = ParquetRecordBatchReaderBuilder::try_new_with_options(bytes, options)
        .unwrap()
        .build()
        .unwrap();
    concat(&reader.collect::<Result<Vec<_>, _>>().unwrap())
}

fn assert_same(expected: &RecordBatch, got: &RecordBatch, who: &str) {
    assert_eq!(expected.num_rows(), got.num_rows(), "{who}: rows");
    assert_eq!(expected.num_columns(), got.num_columns(), "{who}: columns");
    for (i, f) in expected.schema().fields().iter().enumerate() {
        assert_eq!(
            expected.column(i).as_ref(),
            got.column(i).as_ref(),
            "{who}: column {}",
            f.name()
        );
    }
}

#[test]
fn parquet_testing_encrypted_files_equal_the_parquet_crate() {
    for k in keyed_files() {
        let who = k.path.display().to_string();
        let bytes = Bytes::from(std::fs::read(&k.path).unwrap());
        let got =
            read_parq(bytes.clone(), Some(parq_props(&k))).unwrap_or_else(|e| panic!("{who}: {e}"));
        assert!(got.num_rows() > 0, "{who}");
        // The parquet crate does not implement AES_GCM_CTR_V1: its files hold the same rows as
        // their GCM siblings, which the parquet crate reads.
        let oracle_path = who.replace("_ctr.parquet", ".parquet");
        let oracle = Bytes::from(std::fs::read(&oracle_path).unwrap());
        let expected = read_parquet_crate(oracle, parquet_props(&k));
        assert_same(&expected, &got, &who);
    }
}
