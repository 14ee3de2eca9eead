//! Parquet modular encryption: the encrypted files of parquet-testing against the parquet
//! crate (feature `encryption`), failure cases, interop both ways, and round trips.

use crate::python;
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
    let options = ReadOptions::default().with_decryption(props);
    let reader = ParquetReader::with_options(bytes, options)?;
    let batches = reader.record_batches(parq::read::EVERY_FIELD, 1000)?;
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

#[test]
fn external_key_material_is_refused_with_an_error_that_says_so() {
    let path = data_dir().join("external_key_material_java.parquet.encrypted");
    let bytes = Bytes::from(std::fs::read(path).unwrap());
    let props = FileDecryptionProperties::builder().build().unwrap();
    let e = read_parq(bytes, Some(props)).unwrap_err().to_string();
    assert!(e.contains("key material stored outside the file"), "{e}");
}

// ---- files parq writes -------------------------------------------------------------------

fn sample(rows: usize, seed: u64) -> RecordBatch {
    use arrow_array::builder::{Int32Builder, ListBuilder};
    use arrow_array::{ArrayRef, Float64Array, Int64Array, StringArray};
    let mut x = seed | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let ids: Int64Array = (0..rows as i64)
        .map(|i| i * 3 + (seed as i64 % 7))
        .collect();
    let names: StringArray = (0..rows)
        .map(|i| (next() % 5 != 0).then(|| format!("name-{}", (i * 7) % 23)))
        .collect();
    let scores: Float64Array = (0..rows).map(|_| (next() % 1000) as f64 / 8.0).collect();
    let mut tags = ListBuilder::new(Int32Builder::new());
    for i in 0..rows {
        if i % 9 == 4 {
            tags.append_null();
            continue;
        }
        for j in 0..(next() % 4) {
            tags.values().append_value((i as i32) * 10 + j as i32);
        }
        tags.append(true);
    }
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("id", Arc::new(ids)),
        ("name", Arc::new(names)),
        ("score", Arc::new(scores)),
        ("tags", Arc::new(tags.finish())),
    ];
    RecordBatch::try_from_iter(columns).unwrap()
}

/// Small pages and row groups: several of each, dictionary pages for `name`.
fn writer_options(encryption: FileEncryptionProperties) -> parq::write::WriterOptions {
    parq::write::WriterOptions::default()
        .with_encryption(Some(encryption))
        .with_data_page_size(2048)
        .with_row_group_rows(1500)
        .with_compression(parq::codecs::compression::CodecKind::Zstd)
}

fn write_parq(batch: &RecordBatch, options: parq::write::WriterOptions) -> Bytes {
    let mut w = parq::arrow::ArrowWriter::try_new(Vec::new(), batch.schema(), options).unwrap();
    w.write(batch).unwrap();
    Bytes::from(w.into_inner().unwrap())
}

/// A writing mode and the keys a reader needs for it.
struct Mode {
    name: &'static str,
    enc: FileEncryptionProperties,
    footer: Vec<u8>,
    columns: Vec<(&'static str, Vec<u8>)>,
    aad_prefix: Option<Vec<u8>>,
}

fn modes() -> Vec<Mode> {
    let f16 = b"0123456789abcdef".to_vec();
    let f24 = b"0123456789abcdef01234567".to_vec();
    let f32 = b"0123456789abcdef0123456789abcdef".to_vec();
    let k_name = b"namekey-16-bytes".to_vec();
    let k_tags = b"tags-key-24-bytes-long!!".to_vec();
    let b = |k: &Vec<u8>| FileEncryptionProperties::builder(k.clone());
    let mut out = vec![
        Mode {
            name: "uniform, encrypted footer",
            enc: b(&f16).build().unwrap(),
            footer: f16.clone(),
            columns: vec![],
            aad_prefix: None,
        },
        Mode {
            name: "uniform, plaintext footer, 256-bit",
            enc: b(&f32).with_plaintext_footer(true).build().unwrap(),
            footer: f32.clone(),
            columns: vec![],
            aad_prefix: None,
        },
        Mode {
            name: "column keys, encrypted footer, 192-bit (parq only)",
            enc: b(&f24)
                .with_column_key("name", k_name.clone())
                .with_column_key("tags.list.item", k_tags.clone())
                .build()
                .unwrap(),
            footer: f24.clone(),
            columns: vec![("name", k_name.clone()), ("tags.list.item", k_tags.clone())],
            aad_prefix: None,
        },
        Mode {
            name: "column keys and a footer-key column, plaintext footer",
            enc: b(&f16)
                .with_plaintext_footer(true)
                .with_column_key("name", k_name.clone())
                .with_column_footer_key("score")
                .build()
                .unwrap(),
            footer: f16.clone(),
            columns: vec![("name", k_name.clone())],
            aad_prefix: None,
        },
        Mode {
            name: "column keys, encrypted footer",
            enc: b(&f16)
                .with_column_key("name", k_name.clone())
                .with_column_key("tags.list.item", f32.clone())
                .build()
                .unwrap(),
            footer: f16.clone(),
            columns: vec![("name", k_name.clone()), ("tags.list.item", f32.clone())],
            aad_prefix: None,
        },
        Mode {
            name: "stored AAD prefix",
            enc: b(&f16)
                .with_column_key("name", k_name.clone())
                .with_aad_prefix(b"table-2026".to_vec())
                .build()
                .unwrap(),
            footer: f16.clone(),
            columns: vec![("name", k_name.clone())],
            aad_prefix: None,
        },
        Mode {
            name: "AAD prefix not stored, plaintext footer",
            enc: b(&f16)
                .with_plaintext_footer(true)
                .with_column_key("name", k_name.clone())
                .with_aad_prefix(b"table-2026".to_vec())
                .with_aad_prefix_storage(false)
                .build()
                .unwrap(),
            footer: f16.clone(),
            columns: vec![("name", k_name.clone())],
            aad_prefix: Some(b"table-2026".to_vec()),
        },
    ];
    // The same modes with AES_GCM_CTR_V1 (parq reads them; the parquet crate cannot).
    let ctr: Vec<Mode> = vec![
        Mode {
            name: "CTR, uniform, encrypted footer",
            enc: b(&f16)
                .with_algorithm(Algorithm::AesGcmCtrV1)
                .build()
                .unwrap(),
            footer: f16.clone(),
            columns: vec![],
            aad_prefix: None,
        },
        Mode {
            name: "CTR, column keys, plaintext footer, unstored prefix",
            enc: b(&f32)
                .with_algorithm(Algorithm::AesGcmCtrV1)
                .with_plaintext_footer(true)
                .with_column_key("name", k_name.clone())
                .with_aad_prefix(b"p".to_vec())
                .with_aad_prefix_storage(false)
                .build()
                .unwrap(),
            footer: f32,
            columns: vec![("name", k_name)],
            aad_prefix: Some(b"p".to_vec()),
        },
    ];
    out.extend(ctr);
    out
}

fn mode_parq_props(m: &Mode) -> FileDecryptionProperties {
    let mut b = FileDecryptionProperties::builder().with_footer_key(m.footer.clone());
    for (c, k) in &m.columns {
        b = b.with_column_key(*c, k.clone());
    }
    if let Some(p) = &m.aad_prefix {
        b = b.with_aad_prefix(p.clone());
    }
    b.build().unwrap()
}

fn mode_parquet_props(m: &Mode) -> Arc<parquet::encryption::decrypt::FileDecryptionProperties> {
    let mut b = parquet::encryption::decrypt::FileDecryptionProperties::builder(m.footer.clone());
    for (c, k) in &m.columns {
        b = b.with_column_key(c, k.clone());
    }
    if let Some(p) = &m.aad_prefix {
        b = b.with_aad_prefix(p.clone());
    }
    b.build().unwrap()
}

#[test]
fn parq_encrypted_files_read_back_in_parq_and_the_parquet_crate() {
    let batch = sample(4000, 11);
    for m in modes() {
        let file = write_parq(&batch, writer_options(m.enc.clone()));
        let magic = if m.enc.plaintext_footer() {
            b"PAR1"
        } else {
            b"PARE"
        };
        assert_eq!(&file[..4], magic, "{}", m.name);
        assert_eq!(&file[file.len() - 4..], magic, "{}", m.name);
        let got = read_parq(file.clone(), Some(mode_parq_props(&m)))
            .unwrap_or_else(|e| panic!("{}: {e}", m.name));
        assert_same(&batch, &got, m.name);
        // The parquet crate implements neither AES_GCM_CTR_V1 nor 192-bit keys (ring).
        let no_192 = m.footer.len() != 24 && m.columns.iter().all(|(_, k)| k.len() != 24);
        if m.enc.algorithm() == Algorithm::AesGcmV1 && no_192 {
            let theirs = read_parquet_crate(file.clone(), mode_parquet_props(&m));
            assert_same(&batch, &theirs, &format!("parquet crate, {}", m.name));
        }
        // The page index decrypts too, and its locations point at the encrypted pages.
        let options = ReadOptions::default().with_decryption(Some(mode_parq_props(&m)));
        let reader = ParquetReader::with_options(file.clone(), options).unwrap();
        for rg in 0..reader.metadata().row_groups.len() {
            for c in 0..reader.schema().leaves.len() {
                let oi = reader
                    .read_offset_index(rg, c)
                    .unwrap()
                    .expect("offset index");
                let ci = reader
                    .read_column_index(rg, c)
                    .unwrap()
                    .expect("column index");
                assert_eq!(oi.page_locations.len(), ci.null_pages.len(), "{}", m.name);
                let meta = reader.metadata().row_groups[rg].columns[c]
                    .meta_data
                    .as_ref()
                    .unwrap();
                assert_eq!(
                    oi.page_locations[0].offset, meta.data_page_offset,
                    "{}",
                    m.name
                );
            }
        }
    }
}

#[test]
fn plaintext_footer_files_keep_plaintext_columns_readable_and_hide_encrypted_statistics() {
    let m = &modes()[3]; // column keys and a footer-key column, plaintext footer
    let batch = sample(3000, 5);
    let file = write_parq(&batch, writer_options(m.enc.clone()));
    // Without keys: the footer opens, plaintext columns read, encrypted ones say why not.
    let reader = ParquetReader::new(file.clone()).unwrap();
    let id = reader.read_column_by_path("id").unwrap();
    assert_eq!(id.len, 3000);
    let e = reader.read_column_by_path("name").unwrap_err().to_string();
    assert!(
        e.contains("column name is encrypted") && e.contains("no key"),
        "{e}"
    );
    let e = reader.read_column_by_path("score").unwrap_err().to_string();
    assert!(
        e.contains("column score is encrypted with the footer key"),
        "{e}"
    );
    // The plaintext footer holds no statistics of encrypted columns (Encryption.md §5.5).
    let footer = parq::metadata::decode_footer(&file).unwrap();
    for rg in &footer.row_groups {
        for chunk in &rg.columns {
            let meta = chunk.meta_data.as_ref().unwrap();
            let encrypted = chunk.crypto_metadata.is_some();
            assert_eq!(encrypted, chunk.encrypted_column_metadata.is_some());
            assert_eq!(
                meta.statistics.is_some(),
                !encrypted,
                "{:?}",
                meta.path_in_schema
            );
        }
    }
    // With the keys, the statistics come back from the encrypted column metadata.
    let options = ReadOptions::default().with_decryption(Some(mode_parq_props(m)));
    let reader = ParquetReader::with_options(file, options).unwrap();
    for rg in &reader.metadata().row_groups {
        for chunk in &rg.columns {
            assert!(chunk.meta_data.as_ref().unwrap().statistics.is_some());
        }
    }
}

#[test]
fn parquet_crate_encrypted_files_read_in_parq() {
    use parquet::arrow::ArrowWriter;
    use parquet::encryption::encrypt::FileEncryptionProperties as TheirProps;
    use parquet::file::properties::WriterProperties;
    let batch = sample(5000, 3);
    let footer = b"0123456789012345".to_vec();
    let k_name = b"1234567890123450".to_vec();
    type Case = (
        &'static str,
        Arc<TheirProps>,
        Vec<(&'static str, Vec<u8>)>,
        Option<Vec<u8>>,
    );
    let cases: Vec<Case> = vec![
        (
            "uniform",
            TheirProps::builder(footer.clone()).build().unwrap(),
            vec![],
            None,
        ),
        (
            "column key, plaintext footer",
            TheirProps::builder(footer.clone())
                .with_column_key("name", k_name.clone())
                .with_plaintext_footer(true)
                .build()
                .unwrap(),
            vec![("name", k_name.clone())],
            None,
        ),
        (
            "column key, unstored AAD prefix",
            TheirProps::builder(footer.clone())
                .with_column_key("name", k_name.clone())
                .with_aad_prefix(b"x".to_vec())
                .with_aad_prefix_storage(false)
                .build()
                .unwrap(),
            vec![("name", k_name.clone())],
            Some(b"x".to_vec()),
        ),
    ];
    for (name, props, columns, prefix) in cases {
        let wp = WriterProperties::builder()
            .with_file_encryption_properties(props)
            .set_data_page_size_limit(2048)
            .set_max_row_group_row_count(Some(2000))
            .build();
        let mut out = Vec::new();
        let mut w = ArrowWriter::try_new(&mut out, batch.schema(), Some(wp)).unwrap();
        w.write(&batch).unwrap();
        w.close().unwrap();
        let m = Mode {
            name,
            enc: FileEncryptionProperties::builder(footer.clone())
                .build()
                .unwrap(),
            footer: footer.clone(),
            columns,
            aad_prefix: prefix,
        };
        let got = read_parq(Bytes::from(out), Some(mode_parq_props(&m)))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_same(&batch, &got, name);
    }
}

// ---- failures: clean errors naming the module, never a panic, never plaintext ------------

/// A GCM file with an encrypted footer, `name` under its own key, the rest under the footer
/// key, and its reader's keys.
fn victim(plaintext_footer: bool) -> (Bytes, FileDecryptionProperties) {
    let enc = FileEncryptionProperties::builder(FOOTER_128.to_vec())
        .with_column_key("name", DOUBLE_128.to_vec())
        .with_column_footer_key("id")
        .with_plaintext_footer(plaintext_footer)
        .with_aad_prefix(b"tester".to_vec())
        .build()
        .unwrap();
    let file = write_parq(&sample(3000, 9), writer_options(enc));
    let props = FileDecryptionProperties::builder()
        .with_footer_key(FOOTER_128.to_vec())
        .with_column_key("name", DOUBLE_128.to_vec())
        .build()
        .unwrap();
    (file, props)
}

/// Reads every column; the first error, as text.
fn read_all(file: Bytes, props: FileDecryptionProperties) -> Result<(), String> {
    read_parq(file, Some(props))
        .map(|_| ())
        .map_err(|e| e.to_string())
}

fn flip(file: &Bytes, at: usize) -> Bytes {
    let mut v = file.to_vec();
    v[at] ^= 0x10;
    Bytes::from(v)
}

fn expect_error(result: Result<(), String>, needles: &[&str]) {
    let e = result.expect_err("must fail");
    for n in needles {
        assert!(e.contains(n), "{e:?} should mention {n:?}");
    }
}

#[test]
fn wrong_and_missing_keys_and_prefixes_are_clean_errors() {
    let (file, _) = victim(false);
    let with = |footer: &[u8], name: Option<&[u8]>, prefix: Option<&[u8]>| {
        let mut b = FileDecryptionProperties::builder().with_footer_key(footer.to_vec());
        if let Some(k) = name {
            b = b.with_column_key("name", k.to_vec());
        }
        if let Some(p) = prefix {
            b = b.with_aad_prefix(p.to_vec());
        }
        read_all(file.clone(), b.build().unwrap())
    };
    expect_error(
        with(FLOAT_128, Some(DOUBLE_128), None),
        &["decrypting the footer", "authentication failed"],
    );
    expect_error(
        with(FOOTER_128, Some(FLOAT_128), None),
        &[
            "decrypting column metadata of column name in row group 0",
            "authentication failed",
        ],
    );
    expect_error(
        with(FOOTER_128, None, None),
        &["column name is encrypted", "no key of column name"],
    );
    expect_error(
        with(FOOTER_128, Some(DOUBLE_128), Some(b"other")),
        &["AAD prefix", "differs"],
    );
    expect_error(
        read_parq(file.clone(), None)
            .map(|_| ())
            .map_err(|e| e.to_string()),
        &["footer is encrypted"],
    );
    // A file whose prefix is not stored: a wrong prefix fails the footer's authentication.
    let enc = FileEncryptionProperties::builder(FOOTER_128.to_vec())
        .with_aad_prefix(b"tester".to_vec())
        .with_aad_prefix_storage(false)
        .build()
        .unwrap();
    let file = write_parq(&sample(100, 1), writer_options(enc));
    let props = |p: Option<&[u8]>| {
        let mut b = FileDecryptionProperties::builder().with_footer_key(FOOTER_128.to_vec());
        if let Some(p) = p {
            b = b.with_aad_prefix(p.to_vec());
        }
        b.build().unwrap()
    };
    expect_error(
        read_all(file.clone(), props(Some(b"tester!"))),
        &["decrypting the footer", "authentication failed"],
    );
    expect_error(
        read_all(file.clone(), props(None)),
        &["AAD prefix it does not store"],
    );
    read_all(file, props(Some(b"tester"))).unwrap();
}

#[test]
fn flipped_bits_are_clean_errors_naming_the_module() {
    let (file, props) = victim(false);
    read_all(file.clone(), props.clone()).unwrap();
    let reader = ParquetReader::with_options(
        file.clone(),
        ReadOptions::default().with_decryption(Some(props.clone())),
    )
    .unwrap();
    let meta = reader.metadata().row_groups[0].columns[0]
        .meta_data
        .clone()
        .unwrap(); // id
    let header = meta.data_page_offset as usize;
    let header_len = u32::from_le_bytes(file[header..header + 4].try_into().unwrap()) as usize;
    let body = header + 4 + header_len;
    // Ciphertext of the first data page of `id`.
    expect_error(
        read_all(flip(&file, body + 4 + 12 + 3), props.clone()),
        &[
            "decrypting data page 0 of column id in row group 0",
            "authentication failed",
        ],
    );
    // Its header.
    expect_error(
        read_all(flip(&file, header + 4 + 12 + 1), props.clone()),
        &[
            "decrypting data page header 0 of column id in row group 0",
            "authentication failed",
        ],
    );
    // A dictionary page header of `name`.
    let name = reader.metadata().row_groups[0].columns[1]
        .meta_data
        .clone()
        .unwrap();
    let dict = name.dictionary_page_offset.expect("name has a dictionary") as usize;
    expect_error(
        read_all(flip(&file, dict + 20), props.clone()),
        &["decrypting dictionary page header of column name in row group 0"],
    );
    // The encrypted footer (its tag is just before the 8-byte tail).
    expect_error(
        read_all(flip(&file, file.len() - 8 - 3), props.clone()),
        &["decrypting the footer", "authentication failed"],
    );
    // An offset index.
    let chunk = &reader.metadata().row_groups[0].columns[0];
    let oi = chunk.offset_index_offset.unwrap() as usize;
    let broken = ParquetReader::with_options(
        flip(&file, oi + 20),
        ReadOptions::default().with_decryption(Some(props.clone())),
    )
    .unwrap();
    let e = broken.read_offset_index(0, 0).unwrap_err().to_string();
    assert!(
        e.contains("decrypting offset index of column id in row group 0"),
        "{e}"
    );

    // Plaintext footer: a changed footer byte or signature byte fails the signature.
    let (file, props) = victim(true);
    read_all(file.clone(), props.clone()).unwrap();
    let at = file
        .windows(12)
        .rposition(|w| w == b"parq version")
        .expect("created_by in the footer");
    expect_error(
        read_all(flip(&file, at + 1), props.clone()),
        &["footer signature", "does not match"],
    );
    expect_error(
        read_all(flip(&file, file.len() - 8 - 2), props.clone()),
        &["footer signature", "does not match"],
    );
}

#[test]
fn truncated_and_cut_files_are_errors_not_panics() {
    for plaintext_footer in [false, true] {
        let (file, props) = victim(plaintext_footer);
        for cut in (0..file.len())
            .step_by(97)
            .chain(file.len() - 40..file.len())
        {
            let mut v = file[..cut].to_vec();
            // Also keep a valid-looking tail so the reader gets past the magic checks.
            let short = Bytes::from(v.clone());
            assert!(read_all(short, props.clone()).is_err());
            v.extend_from_slice(&file[file.len() - 8..]);
            let _ = read_all(Bytes::from(v), props.clone());
        }
        // Every byte of the last 200 flipped: never a panic, and a flipped module never
        // reads as data.
        for at in file.len() - 200..file.len() {
            let _ = read_all(flip(&file, at), props.clone());
        }
    }
}

/// The `aes` crate takes its AES-NI path when the CPU has it; the probe says which path ran.
#[cfg(feature = "probes")]
#[test]
fn the_aes_ni_path_is_taken_where_the_cpu_has_aes() {
    use parq::codecs::probe;
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    let hardware = std::arch::is_x86_feature_detected!("aes");
    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
    let hardware = false;
    assert_eq!(parq::encryption::aes_ni_available(), hardware);
    let (file, props) = victim(false);
    probe::reset();
    read_all(file, props).unwrap();
    let (ni, soft) = (probe::get("crypto.aes_ni"), probe::get("crypto.aes_soft"));
    if hardware {
        assert!(ni > 10 && soft == 0, "aes_ni {ni}, aes_soft {soft}");
    } else {
        assert!(soft > 10 && ni == 0, "aes_ni {ni}, aes_soft {soft}");
    }
}

mod round_trips {
    use super::*;
    use proptest::prelude::*;
    use proptest::test_runner::FileFailurePersistence;

    const LEAVES: [&str; 4] = ["id", "name", "score", "tags.list.item"];

    fn key(len_choice: u8, seed: u8) -> Vec<u8> {
        let len = [16, 24, 32][len_choice as usize % 3];
        (0..len)
            .map(|i| seed.wrapping_mul(31).wrapping_add(i as u8))
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 16,
            failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("regressions"))),
            ..ProptestConfig::default()
        })]

        #[test]
        fn random_keys_columns_and_modes(
            rows in 1usize..1500,
            seed in any::<u64>(),
            footer_len in 0u8..3,
            key_seed in any::<u8>(),
            // Per leaf: 0 plaintext, 1 own key, 2 footer key; all plaintext means uniform.
            columns in proptest::collection::vec((0u8..3, 0u8..3), 4),
            ctr in any::<bool>(),
            plaintext_footer in any::<bool>(),
            prefix in 0u8..3, // none, stored, not stored
        ) {
            let batch = sample(rows, seed);
            let footer = key(footer_len, key_seed);
            let mut enc = FileEncryptionProperties::builder(footer.clone())
                .with_plaintext_footer(plaintext_footer)
                .with_algorithm(if ctr { Algorithm::AesGcmCtrV1 } else { Algorithm::AesGcmV1 });
            let mut dec = FileDecryptionProperties::builder().with_footer_key(footer.clone());
            let mut keys = vec![footer.len()];
            for (i, (choice, len)) in columns.iter().enumerate() {
                match choice {
                    1 => {
                        let k = key(*len, key_seed.wrapping_add(i as u8 + 1));
                        keys.push(k.len());
                        enc = enc.with_column_key(LEAVES[i], k.clone());
                        dec = dec.with_column_key(LEAVES[i], k);
                    }
                    2 => enc = enc.with_column_footer_key(LEAVES[i]),
                    _ => {}
                }
            }
            if prefix > 0 {
                enc = enc.with_aad_prefix(b"prop".to_vec()).with_aad_prefix_storage(prefix == 1);
            }
            if prefix == 2 {
                dec = dec.with_aad_prefix(b"prop".to_vec());
            }
            let mut options = writer_options(enc.build().unwrap());
            options.data_page_size = 512;
            options.row_group_rows = 700;
            let file = write_parq(&batch, options);
            let got = read_parq(file.clone(), Some(dec.build().unwrap())).unwrap();
            assert_same(&batch, &got, "parq");
            if !ctr && !keys.contains(&24) {
                let mut b = parquet::encryption::decrypt::FileDecryptionProperties::builder(footer);
                for (i, (choice, len)) in columns.iter().enumerate() {
                    if *choice == 1 {
                        b = b.with_column_key(LEAVES[i], key(*len, key_seed.wrapping_add(i as u8 + 1)));
                    }
                }
                if prefix == 2 {
                    b = b.with_aad_prefix(b"prop".to_vec());
                }
                let theirs = read_parquet_crate(file, b.build().unwrap());
                assert_same(&batch, &theirs, "parquet crate");
            }
        }
    }
}

// ---- pyarrow, uniform encryption (its direct-key API) --------------------------------------

fn hex(key: &[u8]) -> String {
    key.iter().map(|b| format!("{b:02x}")).collect()
}

fn pyarrow(args: &[&str]) {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/it/support_encryption/pyarrow_uniform.py");
    let out = std::process::Command::new("python3")
        .arg(&script)
        .args(args)
        .output()
        .expect("python3 with pyarrow (the oracle; .ci/test installs it)");
    assert!(
        out.status.success(),
        "pyarrow {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn read_ipc(path: &std::path::Path) -> RecordBatch {
    let reader =
        arrow_ipc::reader::FileReader::try_new(std::fs::File::open(path).unwrap(), None).unwrap();
    let schema = reader.schema();
    let batches: Vec<RecordBatch> = reader.collect::<Result<_, _>>().unwrap();
    arrow_select::concat::concat_batches(&schema, &batches).unwrap()
}

fn write_ipc(path: &std::path::Path, batch: &RecordBatch) {
    let mut w = arrow_ipc::writer::FileWriter::try_new(
        std::fs::File::create(path).unwrap(),
        &batch.schema(),
    )
    .unwrap();
    w.write(batch).unwrap();
    w.finish().unwrap();
}

/// Column by column; a list compares its offsets, validity and values (pyarrow and parq
/// may name a list's item field differently).
fn assert_same_values(expected: &RecordBatch, got: &RecordBatch, who: &str) {
    use arrow_array::Array;
    assert_eq!(expected.num_rows(), got.num_rows(), "{who}: rows");
    for (i, f) in expected.schema().fields().iter().enumerate() {
        let (e, g) = (expected.column(i), got.column(i));
        match (
            e.as_any().downcast_ref::<arrow_array::ListArray>(),
            g.as_any().downcast_ref::<arrow_array::ListArray>(),
        ) {
            (Some(e), Some(g)) => {
                assert_eq!(e.offsets(), g.offsets(), "{who}: {} offsets", f.name());
                assert_eq!(e.nulls(), g.nulls(), "{who}: {} validity", f.name());
                assert_eq!(
                    e.values().as_ref(),
                    g.values().as_ref(),
                    "{who}: {} values",
                    f.name()
                );
            }
            _ => assert_eq!(e.as_ref(), g.as_ref(), "{who}: column {}", f.name()),
        }
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("parq-encryption-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn uniform_files_equal_pyarrow() {
    python::require_python!("pyarrow");
    let dir = scratch("uniform");
    for (path, key) in [
        (
            data_dir().join("uniform_encryption.parquet.encrypted"),
            FOOTER_128,
        ),
        (
            data_dir().join("aes256/uniform_encryption.parquet.encrypted"),
            FOOTER_256,
        ),
    ] {
        let ipc = dir.join("uniform.arrow");
        pyarrow(&[
            "read",
            &hex(key),
            "-",
            path.to_str().unwrap(),
            ipc.to_str().unwrap(),
        ]);
        let expected = read_ipc(&ipc);
        let props = FileDecryptionProperties::builder()
            .with_footer_key(key.to_vec())
            .build()
            .unwrap();
        let got = read_parq(Bytes::from(std::fs::read(&path).unwrap()), Some(props)).unwrap();
        assert_same_values(&expected, &got, &path.display().to_string());
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn pyarrow_reads_parq_uniform_files_and_parq_reads_pyarrows() {
    python::require_python!("pyarrow");
    let dir = scratch("pyarrow");
    let batch = sample(3000, 21);
    let ipc_in = dir.join("in.arrow");
    write_ipc(&ipc_in, &batch);
    let key16 = b"0123456789abcdef".to_vec();
    let key32 = b"0123456789abcdef0123456789abcdef".to_vec();
    // (key, algorithm, plaintext footer, AAD prefix, store it)
    type Case<'a> = (&'a Vec<u8>, Algorithm, bool, Option<&'a str>, bool);
    let cases: [Case; 4] = [
        (&key16, Algorithm::AesGcmV1, false, None, true),
        (&key32, Algorithm::AesGcmCtrV1, false, Some("part-1"), true),
        (&key16, Algorithm::AesGcmV1, true, Some("part-2"), false),
        (&key32, Algorithm::AesGcmCtrV1, true, None, true),
    ];
    for (key, algorithm, plaintext, prefix, store) in cases {
        let who = format!(
            "{algorithm:?}, plaintext footer {plaintext}, prefix {prefix:?} stored {store}"
        );
        let (alg, aad) = (
            match algorithm {
                Algorithm::AesGcmV1 => "AES_GCM_V1",
                Algorithm::AesGcmCtrV1 => "AES_GCM_CTR_V1",
            },
            prefix.unwrap_or("-"),
        );
        // parq writes, pyarrow reads.
        let mut enc = FileEncryptionProperties::builder(key.clone())
            .with_algorithm(algorithm)
            .with_plaintext_footer(plaintext);
        if let Some(p) = prefix {
            enc = enc
                .with_aad_prefix(p.as_bytes().to_vec())
                .with_aad_prefix_storage(store);
        }
        let file = dir.join("parq.parquet");
        std::fs::write(
            &file,
            write_parq(&batch, writer_options(enc.build().unwrap())),
        )
        .unwrap();
        let ipc_out = dir.join("out.arrow");
        pyarrow(&[
            "read",
            &hex(key),
            aad,
            file.to_str().unwrap(),
            ipc_out.to_str().unwrap(),
        ]);
        assert_same_values(
            &batch,
            &read_ipc(&ipc_out),
            &format!("pyarrow reads parq, {who}"),
        );
        // pyarrow writes, parq reads.
        let theirs = dir.join("pyarrow.parquet");
        let (p, s) = (
            if plaintext { "1" } else { "0" },
            if store { "1" } else { "0" },
        );
        pyarrow(&[
            "write",
            &hex(key),
            aad,
            alg,
            p,
            s,
            ipc_in.to_str().unwrap(),
            theirs.to_str().unwrap(),
        ]);
        let mut dec = FileDecryptionProperties::builder().with_footer_key(key.clone());
        if let (Some(p), false) = (prefix, store) {
            dec = dec.with_aad_prefix(p.as_bytes().to_vec());
        }
        let got = read_parq(
            Bytes::from(std::fs::read(&theirs).unwrap()),
            Some(dec.build().unwrap()),
        )
        .unwrap_or_else(|e| panic!("parq reads pyarrow, {who}: {e}"));
        assert_same_values(&batch, &got, &format!("parq reads pyarrow, {who}"));
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Bloom filters are not encrypted yet: the writer refuses one on an encrypted column rather
/// than write it in plaintext, and keeps one on a plaintext column of an encrypted file.
#[test]
fn bloom_filters_only_on_plaintext_columns() {
    use parq::column::{Column, Values};
    use parq::write::{BloomFilterOptions, Field, ParquetWriter, WriterOptions};
    let bloom = BloomFilterOptions::default()
        .with_ndv(Some(10))
        .with_fpp(0.01);
    let encryption = FileEncryptionProperties::builder(b"0123456789012345".to_vec())
        .with_column_key("secret", b"1234567890123450".to_vec())
        .with_plaintext_footer(true)
        .build()
        .unwrap();
    let fields = || vec![Field::int64("id"), Field::int64("secret")];
    let refused = WriterOptions::default()
        .with_bloom_filter("secret", bloom)
        .with_encryption(Some(encryption.clone()));
    let Err(err) = ParquetWriter::new(Vec::new(), fields(), refused) else {
        panic!("a bloom filter on an encrypted column was accepted");
    };
    assert!(err.to_string().contains("secret"), "{err}");

    let kept = WriterOptions::default()
        .with_bloom_filter("id", bloom)
        .with_encryption(Some(encryption));
    let mut file = Vec::new();
    let mut w = ParquetWriter::new(&mut file, fields(), kept).unwrap();
    let col = |v: Vec<i64>| Column {
        len: v.len(),
        validity: None,
        values: Values::Int64(v.into()),
    };
    w.write_batch(&[col(vec![1, 2]), col(vec![3, 4])]).unwrap();
    w.finish().unwrap();
    let reader = ParquetReader::new(Bytes::from(file)).unwrap();
    let filter = reader
        .read_bloom_filter(0, 0)
        .unwrap()
        .expect("a filter on id");
    assert!(filter.check_hash(parq::bloom::hash_i64(2)));
}

/// A selected read of an encrypted file skips pages through the (decrypted) offset index and
/// decrypts the pages it keeps with their own module ordinals: the rows equal the full read's.
#[test]
fn selected_reads_of_encrypted_files_skip_pages_by_the_offset_index() {
    use parq::codecs::probe;
    use parq::column::{Column, Values};
    use parq::read::RowSelection;
    use parq::write::{Field, ParquetWriter, WriterOptions};
    let key = b"0123456789012345".to_vec();
    for algorithm in [Algorithm::AesGcmV1, Algorithm::AesGcmCtrV1] {
        let encryption = FileEncryptionProperties::builder(key.clone())
            .with_algorithm(algorithm)
            .build()
            .unwrap();
        let options = WriterOptions::default()
            .with_encryption(Some(encryption))
            .with_data_page_row_limit(100);
        let mut file = Vec::new();
        let mut w = ParquetWriter::new(&mut file, vec![Field::int64("id")], options).unwrap();
        let ids: Vec<i64> = (0..1000).collect();
        w.write_batch(&[Column {
            len: ids.len(),
            validity: None,
            values: Values::Int64(ids.into()),
        }])
        .unwrap();
        w.finish().unwrap();
        let file = Bytes::from(file);
        let decryption = || {
            FileDecryptionProperties::builder()
                .with_footer_key(key.clone())
                .build()
                .unwrap()
        };
        let selection = RowSelection::from_ranges([150..160, 720..730]);
        let options = ReadOptions::default()
            .with_decryption(Some(decryption()))
            .with_selection(Some(selection));
        probe::reset();
        let reader = ParquetReader::with_options(file, options).unwrap();
        let col = reader.read_column(0).unwrap();
        let Values::Int64(v) = &col.values else {
            panic!("int64 expected")
        };
        let want: Vec<i64> = (150..160).chain(720..730).collect();
        assert_eq!(&v[..], &want[..], "{algorithm:?}");
        if probe::ENABLED {
            assert_eq!(
                probe::get("read.pages_skipped_by_offset_index"),
                8,
                "{algorithm:?}"
            );
            assert_eq!(probe::get("read.pages_decoded"), 2, "{algorithm:?}");
        }
    }
}
