//! `parq cat` against pyarrow on the test files of other projects and writers (issue 36):
//! parquet-go, old Arrow (pyarrow 0.7.1, R arrow 1.x-3.x), parquet2, polars, Impala and Drill,
//! each vendored under `testdata/<project>/` (see its README). Every file pyarrow reads must
//! read the same in parq, value for value; files pyarrow refuses must not crash parq. The
//! lists below say, with a reason each, what parq does with every other file.

use crate::conformance::{run_corpus, Lists};
use crate::python;
use crate::support::*;

use std::path::PathBuf;

fn corpus(name: &str) -> PathBuf {
    let dir = workspace_dir().join("testdata").join(name);
    assert!(dir.is_dir(), "{} is missing", dir.display());
    dir
}

/// The same lists for every corpus but its own exceptions.
fn run(name: &str, min_files: usize, lists: Lists) {
    run_corpus(
        &corpus(name),
        &format!("conformance-{name}"),
        &Lists { min_files, ..lists },
    );
}

const NONE: Lists = Lists {
    known_failures: &[],
    not_compared: &[],
    pyarrow_unreadable: &[],
    elsewhere: |_| false,
    min_files: 1,
};

#[test]
fn conformance_parquet_go() {
    run(
        "parquet-go",
        9,
        Lists {
            known_failures: &[(
                "testdata/malformed/num_values_exceeds_data.parquet",
                "corrupted on purpose (parquet-go's TestIssue537MalformedPageHeader wants \
                 ErrCorrupted): parq refuses it with `invalid parquet: data page holds 7732 \
                 values but its column chunk has 500 left (column id, row group 0, page 0, file \
                 offset 4)`; pyarrow and DuckDB read the row group's 500 rows and stop there",
            )],
            pyarrow_unreadable: &[
                (
                    "testdata/malformed/negative_page_size.parquet",
                    "pyarrow: OSError: Invalid page header",
                ),
                (
                    "testdata/malformed/negative_row_group_num_rows.parquet",
                    "pyarrow: OSError: Negative size (corrupt file?)",
                ),
            ],
            ..NONE
        },
    );
}

#[test]
fn conformance_arrow_old() {
    run("arrow", 6, NONE);
}

#[test]
fn conformance_parquet2() {
    run("parquet2", 1, NONE);
}

#[test]
fn conformance_polars() {
    run("polars", 8, NONE);
}

#[test]
fn conformance_impala() {
    run(
        "impala",
        300,
        Lists {
            known_failures: IMPALA_KNOWN_FAILURES,
            pyarrow_unreadable: IMPALA_PYARROW_UNREADABLE,
            ..NONE
        },
    );
}

#[test]
fn conformance_drill() {
    run(
        "drill",
        200,
        Lists {
            known_failures: DRILL_KNOWN_FAILURES,
            not_compared: DRILL_NOT_COMPARED,
            pyarrow_unreadable: DRILL_PYARROW_UNREADABLE,
            ..NONE
        },
    );
}

/// The two Impala files pyarrow refuses and DuckDB reads: `parq cat` equals DuckDB's rows
/// (DECIMALs as their text, MAPs as [key, value] pairs).
#[test]
fn conformance_impala_duckdb_only() {
    python::require_python!("duckdb");
    let data = corpus("impala").join("testdata/data");
    let script = r#"
import sys, json, decimal, subprocess, duckdb
parq, files = sys.argv[1], sys.argv[2:]
def norm(v, got):
    if isinstance(v, dict) and isinstance(got, list):
        return [[k, norm(x, g[1] if isinstance(g, list) and len(g) == 2 else None)]
                for (k, x), g in zip(v.items(), got + [None] * len(v))]
    if isinstance(v, dict):
        return {k: norm(x, (got or {}).get(k)) for k, x in v.items()}
    if isinstance(v, list):
        return [norm(x, g) for x, g in zip(v, (got or []) + [None] * len(v))]
    if isinstance(v, decimal.Decimal):
        return str(v)
    return v
for f in files:
    rel = duckdb.sql(f"select * from '{f}'")
    cols = [d[0] for d in rel.description]
    got = [json.loads(l) for l in subprocess.run([parq, "cat", f], capture_output=True,
                                                  text=True, check=True).stdout.splitlines()]
    rows = rel.fetchall()
    want = [{c: norm(v, g.get(c) if g else None) for c, v in zip(cols, r)}
            for r, g in zip(rows, got + [None] * len(rows))]
    print(f.rsplit("/", 1)[-1], len(rows), "rows", "equal" if want == got else f"DIFFER {want} != {got}")
"#;
    let out = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(parq_bin())
        .arg(data.join("create_table_like_parquet_test.parquet"))
        .arg(data.join("decimal_padded_fixed_len_byte_array.parquet"))
        .output()
        .expect("python3");
    let stdout = String::from_utf8_lossy(&out.stdout);
    eprintln!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success());
    assert_eq!(
        stdout,
        "create_table_like_parquet_test.parquet 1 rows equal\n\
         decimal_padded_fixed_len_byte_array.parquet 5 rows equal\n"
    );
}

/// Impala files pyarrow reads and parq refuses: all three have metadata that contradicts
/// their data, made so on purpose; Impala's own tests want an error from the first and
/// DuckDB refuses both.
const IMPALA_KNOWN_FAILURES: &[(&str, &str)] = &[
    (
        "testdata/data/bad_column_metadata.parquet",
        "column chunks whose num_values contradict their pages (IMPALA-2558: Impala fails with \
         `Column metadata states there are 50 values, but read 100`; DuckDB: `Column has 11 \
         values but row group has 10 rows`): parq refuses it with `invalid parquet: data page \
         holds 100 values but its column chunk has 50 left (column int_array.list.element, \
         row group 0, page 0, file offset 133)`; pyarrow reads its 30 rows from the pages",
    ),
    (
        "testdata/data/huge_num_rows.parquet",
        "a row group of 4294967294 rows holding one value (IMPALA-5021: Impala only counts its \
         rows from the footer; DuckDB: `Column has 1 values but row group has 4294967294 \
         rows`): parq refuses it with `invalid parquet: column chunk holds 1 values for the \
         4294967294 rows of its row group (column i, row group 0)`; pyarrow reads one row, 123",
    ),
];

/// Impala files pyarrow cannot read (all but three are corrupted on purpose by Impala's tests).
const IMPALA_PYARROW_UNREADABLE: &[(&str, &str)] = &[
    (
        "testdata/bad_parquet_data/dict-encoded-negative-len.parq",
        "pyarrow: OSError: Invalid BYTE_ARRAY value",
    ),
    (
        "testdata/bad_parquet_data/dict-encoded-out-of-bounds.parq",
        "pyarrow: OSError: Unexpected end of stream",
    ),
    (
        "testdata/bad_parquet_data/illegal_decimals.parq",
        "pyarrow: OSError: Precision must be greater than or equal to 1 for Decimal logical type",
    ),
    (
        "testdata/bad_parquet_data/plain-encoded-negative-len.parq",
        "pyarrow: ArrowInvalid: Invalid or truncated PLAIN-encoded BYTE_ARRAY data",
    ),
    (
        "testdata/bad_parquet_data/plain-encoded-out-of-bounds.parq",
        "pyarrow: ArrowInvalid: Invalid or truncated PLAIN-encoded BYTE_ARRAY data",
    ),
    (
        "testdata/data/bad_codec.parquet",
        "pyarrow: OSError: Unsupported compression codec value: 5000",
    ),
    (
        "testdata/data/bad_compressed_dict_page_size.parquet",
        "pyarrow: OSError: Corrupt snappy compressed data.",
    ),
    (
        "testdata/data/bad_compressed_size.parquet",
        "pyarrow: OSError: Invalid column metadata (corrupt file?); parq reads its one value, 1 (the chunk's total_compressed_size of 1000000 overruns the file; parq reads the page its header describes; DuckDB refuses it too)",
    ),
    (
        "testdata/data/bad_dict_page_offset.parquet",
        "pyarrow: OSError: Invalid column metadata (corrupt file?)",
    ),
    (
        "testdata/data/bad_magic_number.parquet",
        "pyarrow: ArrowInvalid: Parquet magic bytes not found in footer.",
    ),
    (
        "testdata/data/bad_metadata_len.parquet",
        "pyarrow: ArrowInvalid: Parquet file size is 241 bytes, smaller than the size reported by footer's (4294967295bytes)",
    ),
    (
        "testdata/data/bad_rle_literal_count.parquet",
        "pyarrow: OSError: Unexpected end of stream",
    ),
    (
        "testdata/data/bad_rle_repeat_count.parquet",
        "pyarrow: OSError: Unexpected end of stream",
    ),
    (
        "testdata/data/corrupt_footer_len_decr.parquet",
        "pyarrow: OSError: Couldn't deserialize thrift: TProtocolException: Invalid data",
    ),
    (
        "testdata/data/corrupt_footer_len_incr.parquet",
        "pyarrow: ArrowInvalid: Parquet file size is 320 bytes, smaller than the size reported by footer's (446bytes)",
    ),
    (
        "testdata/data/create_table_like_parquet_test.parquet",
        "pyarrow: OSError: Logical type Null cannot be applied to group node; parq reads it as DuckDB does (conformance_impala_duckdb_only)",
    ),
    (
        "testdata/data/decimal_padded_fixed_len_byte_array.parquet",
        "pyarrow: ArrowInvalid: Length of byte array passed to Decimal128::FromBigEndian was 17, but must be between 1 and 16; parq reads it as DuckDB does (conformance_impala_duckdb_only)",
    ),
    (
        "testdata/data/num_values_def_levels_mismatch.parquet",
        "pyarrow: OSError: Number of decoded rep / def levels do not match num_values in page header",
    ),
    (
        "testdata/max_nesting_depth/parquet/int_array/file.parq",
        "pyarrow: OSError: Parquet schema too deeply nested, consider increasing schema depth limit (current limit is 100)",
    ),
    (
        "testdata/max_nesting_depth/parquet/struct/file.parq",
        "pyarrow: OSError: Parquet schema too deeply nested, consider increasing schema depth limit (current limit is 100)",
    ),
    (
        "testdata/max_nesting_depth/parquet/struct_array/file.parq",
        "pyarrow: OSError: Parquet schema too deeply nested, consider increasing schema depth limit (current limit is 100)",
    ),
    (
        "testdata/max_nesting_depth/parquet/struct_map/file.parq",
        "pyarrow: OSError: Parquet schema too deeply nested, consider increasing schema depth limit (current limit is 100)",
    ),
];

/// Drill files pyarrow reads otherwise than parq.
const DRILL_KNOWN_FAILURES: &[(&str, &str)] = &[];

/// Drill files not compared by value here.
const DRILL_NOT_COMPARED: &[(&str, &str)] = &[
    (
        "exec/java-exec/src/test/resources/store/parquet/complex/repeated_types.parquet",
        "an all-zero INT96 (Julian day 0), which parq prints as -210866803200000000000 ns, as \
         DuckDB reads it (4714-11-24 BC), where pyarrow says 0 (1970-01-01); its INT(8), \
         INT(16), UINT_8 and UINT_16 values stored out of range (110000001) print cut to \
         their width as pyarrow's, as in uint_types.parquet, which is compared",
    ),
    (
        "exec/java-exec/src/test/resources/parquet/interval_dictionary.parquet",
        INTERVAL_AS_NULL,
    ),
    (
        "exec/java-exec/src/test/resources/parquet/nullable_interval_dictionary.parquet",
        INTERVAL_AS_NULL,
    ),
];

/// Why the dictionary-encoded INTERVAL files are not compared.
const INTERVAL_AS_NULL: &str = "a dictionary-encoded INTERVAL column: pyarrow and DuckDB read \
    every value as null, parq prints each 12-byte value as hex (expected.py cannot format a \
    null-typed column)";

/// Drill files pyarrow cannot read.
const DRILL_PYARROW_UNREADABLE: &[(&str, &str)] = &[
    (
        "exec/java-exec/src/test/resources/datetime.parquet",
        "pyarrow: ArrowInvalid: MAP-annotated groups must have a single child.",
    ),
    (
        "exec/java-exec/src/test/resources/multilevel/parquetWithBadFormat/1996/Q1/badFormat.parquet",
        "pyarrow: ArrowInvalid: Parquet magic bytes not found in footer.",
    ),
    (
        "exec/java-exec/src/test/resources/parquet/parquet_logical_types_simple.parquet",
        "pyarrow: ArrowInvalid: Length of byte array passed to Decimal128::FromBigEndian was 20, but must be between 1 and 16; parq reads it (DECIMAL on FIXED_LEN_BYTE_ARRAY(20), beyond 38 digits); DuckDB refuses it too: Invalid decimal encoding",
    ),
    (
        "exec/java-exec/src/test/resources/parquet/parquet_logical_types_simple_nodict.parquet",
        "pyarrow: ArrowInvalid: Length of byte array passed to Decimal128::FromBigEndian was 20, but must be between 1 and 16; parq reads it (DECIMAL on FIXED_LEN_BYTE_ARRAY(20), beyond 38 digits); DuckDB refuses it too: Invalid decimal encoding",
    ),
    (
        "exec/java-exec/src/test/resources/parquet/parquet_logical_types_simple_nullable.parquet",
        "pyarrow: ArrowInvalid: Length of byte array passed to Decimal128::FromBigEndian was 20, but must be between 1 and 16; parq reads it (DECIMAL on FIXED_LEN_BYTE_ARRAY(20), beyond 38 digits); DuckDB refuses it too: Invalid decimal encoding",
    ),
    (
        "exec/java-exec/src/test/resources/parquet/parquet_logical_types_simple_nullable_nodict.parquet",
        "pyarrow: ArrowInvalid: Length of byte array passed to Decimal128::FromBigEndian was 20, but must be between 1 and 16; parq reads it (DECIMAL on FIXED_LEN_BYTE_ARRAY(20), beyond 38 digits); DuckDB refuses it too: Invalid decimal encoding",
    ),
    (
        "exec/java-exec/src/test/resources/parquet/parquet_test_file_simple.parquet",
        "pyarrow: ArrowInvalid: Length of byte array passed to Decimal128::FromBigEndian was 20, but must be between 1 and 16; parq reads it (DECIMAL on FIXED_LEN_BYTE_ARRAY(20), beyond 38 digits); DuckDB refuses it too: Invalid decimal encoding",
    ),
    (
        "exec/java-exec/src/test/resources/parquet/parquet_v2_logical_types_simple.parquet",
        "pyarrow: ArrowInvalid: Length of byte array passed to Decimal128::FromBigEndian was 20, but must be between 1 and 16; parq reads it (DECIMAL on FIXED_LEN_BYTE_ARRAY(20), beyond 38 digits); DuckDB refuses it too: Invalid decimal encoding",
    ),
    (
        "exec/java-exec/src/test/resources/parquet/parquet_v2_logical_types_simple_nodict.parquet",
        "pyarrow: ArrowInvalid: Length of byte array passed to Decimal128::FromBigEndian was 20, but must be between 1 and 16; parq reads it (DECIMAL on FIXED_LEN_BYTE_ARRAY(20), beyond 38 digits); DuckDB refuses it too: Invalid decimal encoding",
    ),
    (
        "exec/java-exec/src/test/resources/parquet/parquet_v2_logical_types_simple_nullable.parquet",
        "pyarrow: ArrowInvalid: Length of byte array passed to Decimal128::FromBigEndian was 20, but must be between 1 and 16; parq reads it (DECIMAL on FIXED_LEN_BYTE_ARRAY(20), beyond 38 digits); DuckDB refuses it too: Invalid decimal encoding",
    ),
    (
        "exec/java-exec/src/test/resources/parquet/parquet_v2_logical_types_simple_nullable_nodict.parquet",
        "pyarrow: ArrowInvalid: Length of byte array passed to Decimal128::FromBigEndian was 20, but must be between 1 and 16; parq reads it (DECIMAL on FIXED_LEN_BYTE_ARRAY(20), beyond 38 digits); DuckDB refuses it too: Invalid decimal encoding",
    ),
    (
        "exec/java-exec/src/test/resources/project/pushdown/empty.parquet",
        "pyarrow: ArrowInvalid: Parquet file size is 0 bytes",
    ),
    (
        "exec/java-exec/src/test/resources/store/parquet/complex/parquet_logical_types_complex.parquet",
        "pyarrow: ArrowInvalid: Length of byte array passed to Decimal128::FromBigEndian was 20, but must be between 1 and 16; parq reads it (DECIMAL on FIXED_LEN_BYTE_ARRAY(20), beyond 38 digits); DuckDB refuses it too: Invalid decimal encoding",
    ),
    (
        "exec/java-exec/src/test/resources/store/parquet/complex/parquet_logical_types_complex_nodict.parquet",
        "pyarrow: ArrowInvalid: Length of byte array passed to Decimal128::FromBigEndian was 20, but must be between 1 and 16; parq reads it (DECIMAL on FIXED_LEN_BYTE_ARRAY(20), beyond 38 digits); DuckDB refuses it too: Invalid decimal encoding",
    ),
    (
        "exec/java-exec/src/test/resources/store/parquet/complex/parquet_logical_types_complex_nullable.parquet",
        "pyarrow: ArrowInvalid: Length of byte array passed to Decimal128::FromBigEndian was 20, but must be between 1 and 16; parq reads it (DECIMAL on FIXED_LEN_BYTE_ARRAY(20), beyond 38 digits); DuckDB refuses it too: Invalid decimal encoding",
    ),
    (
        "exec/java-exec/src/test/resources/store/parquet/complex/parquet_logical_types_complex_nullable_nodict.parquet",
        "pyarrow: ArrowInvalid: Length of byte array passed to Decimal128::FromBigEndian was 20, but must be between 1 and 16; parq reads it (DECIMAL on FIXED_LEN_BYTE_ARRAY(20), beyond 38 digits); DuckDB refuses it too: Invalid decimal encoding",
    ),
    (
        "exec/java-exec/src/test/resources/supplier_lzo.parquet",
        "pyarrow: OSError: LZO compression is not supported by the C++ implementation",
    ),
];
