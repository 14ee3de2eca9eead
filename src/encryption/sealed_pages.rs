//! The encrypted write path against the plaintext one: every page of an encrypted chunk is the
//! plaintext file's page sealed (its header only counting the module's overhead), and every
//! column's metadata is the plaintext file's but for offsets and the compressed size.

use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use bytes::Bytes;

use super::read::{decode_footer, parse_tail, FileDecryptor};
use super::{Algorithm, FileDecryptionProperties, FileEncryptionProperties};
use super::{CTR_OVERHEAD, GCM_OVERHEAD};
use crate::column::{Column, Values};
use crate::metadata::{self, FileMetaData};
use crate::write::{Field, PageVersion, ParquetWriter, WriterOptions};
use parq_codecs::compression::CodecKind;

const KEY: &[u8] = b"0123456789abcdef";
const ROWS: usize = 5000;

fn columns() -> Vec<Column> {
    let ids: Vec<i64> = (0..ROWS as i64)
        .map(|i| i.wrapping_mul(2654435761))
        .collect();
    let words: Vec<String> = (0..ROWS).map(|i| format!("word-{}", i % 37)).collect();
    let strings = |words: &[String]| {
        let mut offsets = vec![0i64];
        let mut data = Vec::new();
        for w in words {
            data.extend_from_slice(w.as_bytes());
            offsets.push(data.len() as i64);
        }
        Values::Binary {
            offsets: OffsetBuffer::new(ScalarBuffer::from(offsets)),
            data: Buffer::from_vec(data),
        }
    };
    // One 44-byte value: its dictionary page (48 bytes, and zstd's ~60) has a one-byte size
    // in its header, the sealed page a two-byte one.
    let tags = vec!["abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH".to_string(); ROWS];
    vec![
        Column {
            len: ROWS,
            validity: Some(NullBuffer::from(
                (0..ROWS).map(|i| i % 7 != 0).collect::<Vec<_>>(),
            )),
            values: Values::Int64(ScalarBuffer::from(ids)),
        },
        Column {
            len: ROWS,
            validity: None,
            values: strings(&words),
        },
        Column {
            len: ROWS,
            validity: None,
            values: strings(&tags),
        },
    ]
}

fn write(codec: CodecKind, version: PageVersion, enc: Option<Algorithm>) -> Vec<u8> {
    let options = WriterOptions {
        compression: codec,
        page_version: version,
        data_page_size: 4096,
        row_group_rows: 3000,
        encryption: enc.map(|a| {
            FileEncryptionProperties::builder(KEY.to_vec())
                .with_algorithm(a)
                .build()
                .unwrap()
        }),
        ..WriterOptions::default()
    };
    let fields = vec![
        Field::int64("id").optional(),
        Field::string("word"),
        Field::string("tag"),
    ];
    let mut out = Vec::new();
    let mut w = ParquetWriter::new(&mut out, fields, options).unwrap();
    w.write_batch(&columns()).unwrap();
    w.finish().unwrap();
    out
}

fn footer(file: &[u8]) -> (FileMetaData, Option<std::sync::Arc<FileDecryptor>>) {
    let tail: [u8; 8] = file[file.len() - 8..].try_into().unwrap();
    let (len, encrypted) = parse_tail(&tail).unwrap();
    let props = FileDecryptionProperties::builder()
        .with_footer_key(KEY.to_vec())
        .build()
        .unwrap();
    let footer = &file[file.len() - 8 - len..file.len() - 8];
    decode_footer(footer, encrypted, Some(&props), u64::MAX).unwrap()
}

#[test]
fn encrypted_pages_are_the_plaintext_pages_sealed() {
    for codec in [CodecKind::Uncompressed, CodecKind::Zstd] {
        for version in [PageVersion::V1, PageVersion::V2] {
            for (algorithm, overhead) in [
                (Algorithm::AesGcmV1, GCM_OVERHEAD),
                (Algorithm::AesGcmCtrV1, CTR_OVERHEAD),
            ] {
                let case = format!("{codec:?} {version:?} {algorithm:?}");
                let plain = write(codec, version, None);
                let sealed = write(codec, version, Some(algorithm));
                let (pm, _) = footer(&plain);
                let (em, dec) = footer(&sealed);
                let dec = dec.unwrap();
                assert_eq!(pm.row_groups.len(), 2, "{case}");
                assert_eq!(pm.row_groups.len(), em.row_groups.len(), "{case}");
                let mut pages = 0;
                for (rg, (prg, erg)) in pm.row_groups.iter().zip(&em.row_groups).enumerate() {
                    for (col, (pc, ec)) in prg.columns.iter().zip(&erg.columns).enumerate() {
                        let p = pc.meta_data.as_ref().unwrap();
                        let e = ec.meta_data.as_ref().unwrap();
                        let mut expected = p.clone();
                        expected.data_page_offset = e.data_page_offset;
                        expected.dictionary_page_offset = e.dictionary_page_offset;
                        expected.total_compressed_size = e.total_compressed_size;
                        assert_eq!(&expected, e, "{case}: metadata of {rg}/{col}");
                        let d = dec.chunk(rg, col).unwrap().unwrap();
                        let start = |m: &metadata::ColumnMetaData| {
                            m.dictionary_page_offset.unwrap_or(m.data_page_offset) as usize
                        };
                        let (mut at, mut et) = (start(p), start(e));
                        let (p_end, e_end) = (
                            at + p.total_compressed_size as usize,
                            et + e.total_compressed_size as usize,
                        );
                        let mut i = 0;
                        while at < p_end {
                            let (ph, n) = metadata::decode_page_header(&plain[at..]).unwrap();
                            let body = &plain[at + n..at + n + ph.compressed_page_size as usize];
                            at += n + body.len();
                            let (eh, n) = d.page_header(i, &sealed[et..]).unwrap();
                            let mut want = ph.clone();
                            want.compressed_page_size += overhead as i32;
                            assert_eq!(eh, want, "{case}: header of page {i} of {rg}/{col}");
                            let module = &sealed[et + n..et + n + eh.compressed_page_size as usize];
                            et += n + module.len();
                            let opened = d
                                .page_body(i, &eh, &Bytes::copy_from_slice(module))
                                .unwrap();
                            assert_eq!(&opened[..], body, "{case}: body of page {i} of {rg}/{col}");
                            i += 1;
                        }
                        assert_eq!((at, et), (p_end, e_end), "{case}: ends of {rg}/{col}");
                        pages += i;
                    }
                }
                assert!(pages > 10, "{case}: {pages} pages");
            }
        }
    }
}
