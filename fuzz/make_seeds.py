#!/usr/bin/env python3
"""Seed the fuzz corpora (fuzz/corpus/, git-ignored).

read_file:      the parquet-testing files: the argument, else $PARQUET_TEST_DATA (its data/
                directory, as for the tests), else testdata/parquet-testing/data.
                Among them every nested one (NESTED below: lists, structs, maps, legacy
                spellings), so the target reaches record assembly from the first run.
read_arrow:     the same parquet-testing files as read_file.
read_file, read_arrow, push_decoder, read_filtered, read_builder: also the real files of other projects:
                DuckDB's (testdata/duckdb/) and parquet-go's, old Arrow's, parquet2's,
                polars', Impala's and Drill's (testdata/<project>/, CORPORA below).
read_filtered:  the read_file seeds behind 8 control bytes (predicate, batch size, offset,
                limit).
read_builder:   the same seeds as read_filtered (its 8 bytes draw the builder's settings).
push_decoder:   the read_file seeds behind 8 control bytes (piece sizes, push order, request
                shape).
read_footer:    their footers (the thrift FileMetaData) and their first page headers.
decode_bloom_filter: bloom_filter.xxhash.bin (parquet-mr: header + 1 KiB bitset).
read_encrypted: the encrypted parquet-testing files (data/ and data/aes256/), each behind the
                key-set byte that opens it (see fuzz_targets/read_encrypted.rs).
decode_variant: parquet-testing's variant/ values (2-byte metadata length, metadata, value)
                and shredded_variant/'s .variant.bin files (split the same way); the
                shredded_variant/ Parquet files go to read_file too (variant rebuilding).
decompress_*:   4-byte declared size + a page compressed by pyarrow (if installed).
seeds/<target>/: files kept in the repository, copied as they are: for read_file the small
                lying files of cli/tests/it/hostile_files.rs (issue 19: counts and sizes
                that disagree with the bytes), regenerated with
                `PARQ_HOSTILE_SEEDS=fuzz/seeds/read_file cargo test -p parq-format-cli
                --test it hostile_files::`; for read_arrow and push_decoder (behind
                control bytes) two small pyarrow files of a list, a struct and a map in
                row groups of 150 rows, so that row groups are decoded ahead on threads.

Usage: python3 fuzz/make_seeds.py [parquet-testing data dir]
"""
import hashlib
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")


# The nested parquet-testing files (issue 8); all are seeded, a missing one is reported.
NESTED = [
    "datapage_v2.snappy",
    "incorrect_map_schema",
    "large_string_map.brotli",
    "list_columns",
    "map_no_value",
    "nested_lists.snappy",
    "nested_maps.snappy",
    "nested_structs.rust",
    "nonnullable.impala",
    "null_list",
    "nullable.impala",
    "nulls.snappy",
    "old_list_structure",
    "repeated_no_annotation",
    "repeated_primitive_no_list",
]


def put(target, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)


def kept_seeds():
    """Copy fuzz/seeds/<target>/* into the corpora."""
    root = os.path.join(HERE, "seeds")
    if not os.path.isdir(root):
        return
    for target in sorted(os.listdir(root)):
        d = os.path.join(root, target)
        names = sorted(os.listdir(d))
        for name in names:
            with open(os.path.join(d, name), "rb") as f:
                put(target, f.read())
        print(f"{target}: {len(names)} kept seeds")


def metadata_len(b):
    """Length of the Variant metadata at the start of `b` (header, offsets, strings)."""
    if not b:
        return 0
    width = (b[0] >> 6) + 1
    at = lambda i: int.from_bytes(b[i : i + width], "little")
    n = at(1)
    strings = 1 + width * (n + 2)
    return min(len(b), strings + at(1 + width * (n + 1)))


def seed_variants(root):
    values = 0
    d = os.path.join(root, "variant")
    if os.path.isdir(d):
        for name in sorted(os.listdir(d)):
            if name.endswith(".value"):
                with open(os.path.join(d, name), "rb") as f:
                    value = f.read()
                with open(os.path.join(d, name[: -len(".value")] + ".metadata"), "rb") as f:
                    meta = f.read()
                put("decode_variant", struct.pack("<H", len(meta)) + meta + value)
                values += 1
    files = 0
    d = os.path.join(root, "shredded_variant")
    if os.path.isdir(d):
        for name in sorted(os.listdir(d)):
            with open(os.path.join(d, name), "rb") as f:
                data = f.read()
            if name.endswith(".variant.bin"):
                n = metadata_len(data)
                put("decode_variant", struct.pack("<H", n) + data)
                values += 1
            elif name.endswith(".parquet"):
                put("read_file", data)
                files += 1
    print(f"decode_variant: {values} values; read_file: {files} shredded variant files")


# The vendored folders of other projects' files besides DuckDB's (testdata/<name>/, each
# file under 64 KiB; see their READMEs).
CORPORA = ["parquet-go", "arrow", "parquet2", "polars", "impala", "drill"]


def seed_duckdb(root, who="DuckDB"):
    """A folder of real files (testdata/duckdb/ and the CORPORA, all under 100 KB): bug-report
    and test files of many writers, broken ones and fuzzer finds among them, for read_file,
    read_arrow, push_decoder and read_filtered."""
    files = 0
    for d, _, names in sorted(os.walk(root)):
        for name in sorted(names):
            if not name.endswith((".parquet", ".parq")):
                continue
            with open(os.path.join(d, name), "rb") as f:
                data = f.read()
            files += 1
            put("read_file", data)
            put("read_arrow", data)
            put("push_decoder", struct.pack("<Q", files * 0x2545F4914F6CDD1D % (1 << 64)) + data)
            put("read_filtered", struct.pack("<Q", files * 0x9E3779B97F4A7C15 % (1 << 64)) + data)
            put("read_builder", struct.pack("<Q", files * 0x9E3779B97F4A7C15 % (1 << 64)) + data)
    print(f"read_file, read_arrow, push_decoder, read_filtered: {files} {who} files from {root}")


def main():
    kept_seeds()
    default = os.environ.get("PARQUET_TEST_DATA") or os.path.join(
        HERE, "..", "testdata", "parquet-testing", "data"
    )
    data_dir = sys.argv[1] if len(sys.argv) > 1 else default
    files = 0
    nested = set()
    if os.path.isdir(data_dir):
        for name in sorted(os.listdir(data_dir)):
            if not name.endswith(".parquet"):
                continue
            with open(os.path.join(data_dir, name), "rb") as f:
                data = f.read()
            stem = name[: -len(".parquet")]
            # Large flat files are skipped; the nested ones are seeded whatever their size.
            if len(data) > 1 << 20 and stem not in NESTED:
                continue
            files += 1
            if stem in NESTED:
                nested.add(stem)
            put("read_file", data)
            put("read_arrow", data)
            # push_decoder: 8 control bytes (piece sizes, order, request shape), then the file.
            put("push_decoder", struct.pack("<Q", files * 0x9E3779B97F4A7C15 % (1 << 64)) + data)
            # read_filtered: 8 control bytes (predicate, batch size, offset, limit), the file.
            put("read_filtered", struct.pack("<Q", files * 0x2545F4914F6CDD1D % (1 << 64)) + data)
            put("read_builder", struct.pack("<Q", files * 0x2545F4914F6CDD1D % (1 << 64)) + data)
            if len(data) >= 12 and data[-4:] == b"PAR1":
                (n,) = struct.unpack("<I", data[-8:-4])
                if n <= len(data) - 12:
                    put("read_footer", data[-8 - n : -8])
                    put("read_footer", data)
            put("read_footer", data[4:4 + 256])
    bloom = os.path.join(data_dir, "bloom_filter.xxhash.bin")
    if os.path.isfile(bloom):
        with open(bloom, "rb") as f:
            data = f.read()
        put("decode_bloom_filter", data)
        put("read_footer", data[:16])
    print(f"read_file: {files} files from {data_dir}, {len(nested)} of {len(NESTED)} nested")
    seed_duckdb(os.path.join(HERE, "..", "testdata", "duckdb"))
    for name in CORPORA:
        seed_duckdb(os.path.join(HERE, "..", "testdata", name), name)
    encrypted = 0
    for sub, base in [("", 0), ("aes256", 2)]:
        d = os.path.join(data_dir, sub)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if not name.endswith(".parquet.encrypted"):
                continue
            with open(os.path.join(d, name), "rb") as f:
                data = f.read()
            # Key set: 128-bit keys (0, 1) or 256-bit keys (2, 3); odd: AAD prefix "tester";
            # +4: the plaintext footer's signature is not checked.
            selector = base + (1 if "aad" in name else 0)
            put("read_encrypted", bytes([selector]) + data)
            if data[-4:] == b"PAR1":  # plaintext footer: also without its signature check
                put("read_encrypted", bytes([selector | 4]) + data)
            encrypted += 1
    print(f"read_encrypted: {encrypted} files")
    seed_variants(os.path.join(data_dir, ".."))
    missing = sorted(set(NESTED) - nested)
    if os.path.isdir(data_dir) and missing:
        print("read_file: nested files missing: " + ", ".join(missing))

    payloads = [
        b"",
        b"a",
        b"hello hello hello hello hello parquet",
        bytes(range(256)) * 4,
        b"\x00" * 5000,
        struct.pack("<64q", *range(64)),
    ]
    for p in payloads:
        put("decompress_uncompressed", struct.pack("<I", len(p)) + p)
    try:
        import pyarrow as pa
    except ImportError:
        print("pyarrow missing: no compressed seeds")
        return
    for codec, target in [
        ("snappy", "decompress_snappy"),
        ("gzip", "decompress_gzip"),
        ("brotli", "decompress_brotli"),
        ("zstd", "decompress_zstd"),
        ("lz4", "decompress_lz4"),
        ("lz4_raw", "decompress_lz4_raw"),
    ]:
        for p in payloads:
            try:
                c = pa.compress(p, codec=codec, asbytes=True)
            except Exception as e:  # codec not built into this pyarrow
                print(codec, e)
                break
            put(target, struct.pack("<I", len(p)) + c)
    print("compressed seeds written")


if __name__ == "__main__":
    main()
