#!/usr/bin/env python3
"""Writes Parquet files with pyarrow for tests/it/pyarrow_roundtrip.rs.

Usage: gen_roundtrip.py OUTDIR [--quick]

Deterministic (fixed seeds). A covering design, not the full cross product:

* six type groups (ints, floats, bytes, temporal, decimal, int96), each column
  a different Arrow type, so every physical type and the common logical types
  are written;
* 12 files per group; file j of group g gets
    compression    COMPRESSIONS[(j + g) % 6]      (each codec twice per group)
    page version   "1.0" / "2.0"                  (bit 0 of j)
    dictionary     on / off                       (bit 1 of j)
    tiny pages     data_page_size=64, write_batch_size=7 (bit 2 of j)
    encoding       when dictionary is off: PLAIN, or the type's alternative
                   (DELTA_BINARY_PACKED, BYTE_STREAM_SPLIT, DELTA_LENGTH_BYTE_ARRAY,
                   DELTA_BYTE_ARRAY, RLE for booleans) in half of those files
  and column c of file j gets nulls NULL_FRACTIONS[(j + c) % 4] (0 %, 1 %,
  50 %, 100 %), so every type meets every null level, codec, page version,
  dictionary setting and page size at least once;
* rows per file drawn in 2,000..12,000; some files have several row groups,
  page indexes or page checksums;
* edge files: empty table, empty row groups between full ones, all-NaN floats,
  -0.0, empty strings, 100 KB strings, many row groups, dictionary fallback to
  PLAIN, extreme values, awkward column names, the null type.

Writes OUTDIR/*.parquet and OUTDIR/files.json (name -> settings).
"""

import json
import math
import os
import random
import struct
import sys
from decimal import Decimal, getcontext

import pyarrow as pa
import pyarrow.parquet as pq

getcontext().prec = 100

COMPRESSIONS = ["none", "snappy", "gzip", "zstd", "lz4", "brotli"]
NULL_FRACTIONS = [0.0, 0.01, 0.5, 1.0]
FILES_PER_GROUP = 12

# ------------------------------------------------------------------ values


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


SPECIAL_FLOATS = [0.0, -0.0, 1.0, -1.0, float("nan"), float("inf"), float("-inf"),
                  5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 0.1, 1e16, 123456.789]
SPECIAL_FLOATS32 = [0.0, -0.0, 1.0, -1.0, float("nan"), float("inf"), float("-inf"),
                    f32(1e-45), f32(1.17549435e-38), f32(3.4028235e38), f32(0.1), f32(16777217.0),
                    f32(3.14159265)]
STRING_ALPHABET = ("abcdefghijklmnopqrstuvwxyz ABCXYZ0123456789"
                   "\"\\/\n\t\r\x00\x01\x1f\x7f é€中\u2028\U0001F600")


def ints(rng, lo, hi, card):
    if card == "low":
        pool = [rng.randint(lo, hi) for _ in range(40)] + [lo, hi]
        return lambda: rng.choice(pool)
    if card == "small":
        return lambda: rng.randint(max(lo, -1000), min(hi, 1000))

    def gen():
        r = rng.random()
        if r < 0.02:
            return rng.choice([lo, hi, 0, lo + 1, hi - 1])
        return rng.randint(lo, hi)
    return gen


def floats(rng, card, single):
    special = SPECIAL_FLOATS32 if single else SPECIAL_FLOATS
    if card == "low":
        pool = [round(rng.uniform(-100, 100), 2) for _ in range(30)] + special[:5]
        return lambda: rng.choice(pool)

    def gen():
        r = rng.random()
        if r < 0.05:
            return rng.choice(special)
        if r < 0.5:
            return rng.uniform(-1e6, 1e6)
        if r < 0.7:
            return float(rng.randint(-1000, 1000))
        e = rng.randint(-30, 30) if single else rng.randint(-300, 300)
        return rng.uniform(-10, 10) * 10.0 ** e
    return gen


def text(rng, card, max_len=24):
    def make():
        n = rng.randint(0, max_len)
        return "".join(rng.choice(STRING_ALPHABET) for _ in range(n))
    if card == "low":
        pool = [make() for _ in range(30)] + [""]
        return lambda: rng.choice(pool)
    return make


def blob(rng, card, width=None, max_len=20):
    def make():
        n = width if width is not None else rng.randint(0, max_len)
        return bytes(rng.getrandbits(8) for _ in range(n))
    if card == "low":
        pool = [make() for _ in range(30)]
        return lambda: rng.choice(pool)
    return make


def decimals(rng, precision, scale, card):
    hi = 10 ** precision - 1
    gen = ints(rng, -hi, hi, card)
    return lambda: Decimal(gen()).scaleb(-scale)


I64 = (-(1 << 63), (1 << 63) - 1)

# (column name, arrow type, value maker(rng, card), alternative encoding)
GROUPS = [
    ("ints", [
        ("i8", pa.int8(), lambda r, c: ints(r, -128, 127, c), "DELTA_BINARY_PACKED"),
        ("i16", pa.int16(), lambda r, c: ints(r, -32768, 32767, c), "DELTA_BINARY_PACKED"),
        ("i32", pa.int32(), lambda r, c: ints(r, -(1 << 31), (1 << 31) - 1, c), "DELTA_BINARY_PACKED"),
        ("i64", pa.int64(), lambda r, c: ints(r, *I64, c), "DELTA_BINARY_PACKED"),
        ("u8", pa.uint8(), lambda r, c: ints(r, 0, 255, c), "DELTA_BINARY_PACKED"),
        ("u16", pa.uint16(), lambda r, c: ints(r, 0, 65535, c), "BYTE_STREAM_SPLIT"),
        ("u32", pa.uint32(), lambda r, c: ints(r, 0, (1 << 32) - 1, c), "DELTA_BINARY_PACKED"),
        ("u64", pa.uint64(), lambda r, c: ints(r, 0, (1 << 64) - 1, c), "DELTA_BINARY_PACKED"),
        ("i32_bss", pa.int32(), lambda r, c: ints(r, -(1 << 31), (1 << 31) - 1, c), "BYTE_STREAM_SPLIT"),
    ]),
    ("floats", [
        ("f32", pa.float32(), lambda r, c: floats(r, c, True), "BYTE_STREAM_SPLIT"),
        ("f64", pa.float64(), lambda r, c: floats(r, c, False), "BYTE_STREAM_SPLIT"),
        ("bool", pa.bool_(), lambda r, c: (lambda: r.random() < 0.3), "RLE"),
        ("f16", pa.float16(), lambda r, c: floats(r, "low", True), "BYTE_STREAM_SPLIT"),
        ("bool_all_true", pa.bool_(), lambda r, c: (lambda: True), "RLE"),
    ]),
    ("bytes", [
        ("str", pa.string(), lambda r, c: text(r, c), "DELTA_LENGTH_BYTE_ARRAY"),
        ("large_str", pa.large_string(), lambda r, c: text(r, c), "DELTA_BYTE_ARRAY"),
        ("bin", pa.binary(), lambda r, c: blob(r, c), "DELTA_BYTE_ARRAY"),
        ("large_bin", pa.large_binary(), lambda r, c: blob(r, c), "DELTA_LENGTH_BYTE_ARRAY"),
        ("fixed7", pa.binary(7), lambda r, c: blob(r, c, width=7), "BYTE_STREAM_SPLIT"),
        ("uuid", pa.uuid(), lambda r, c: blob(r, c, width=16), "DELTA_BYTE_ARRAY"),
        ("json", pa.json_(), lambda r, c: (lambda: json.dumps({"k": r.randint(0, 99)})), "DELTA_LENGTH_BYTE_ARRAY"),
        ("str_prefixes", pa.string(), lambda r, c: (lambda: "common/prefix/%06d" % r.randint(0, 999999)),
         "DELTA_BYTE_ARRAY"),
    ]),
    ("temporal", [
        ("date32", pa.date32(), lambda r, c: ints(r, -1000000, 1000000, c), "DELTA_BINARY_PACKED"),
        ("date64", pa.date64(), lambda r, c: (lambda g: lambda: g() * 86400000)(ints(r, -100000, 100000, c)),
         "DELTA_BINARY_PACKED"),
        ("time32s", pa.time32("s"), lambda r, c: ints(r, 0, 86399, c), "DELTA_BINARY_PACKED"),
        ("time32ms", pa.time32("ms"), lambda r, c: ints(r, 0, 86399999, c), "BYTE_STREAM_SPLIT"),
        ("time64us", pa.time64("us"), lambda r, c: ints(r, 0, 86399999999, c), "DELTA_BINARY_PACKED"),
        ("time64ns", pa.time64("ns"), lambda r, c: ints(r, 0, 86399999999999, c), "DELTA_BINARY_PACKED"),
        ("ts_s", pa.timestamp("s"), lambda r, c: ints(r, -10 ** 10, 10 ** 10, c), "DELTA_BINARY_PACKED"),
        ("ts_ms", pa.timestamp("ms"), lambda r, c: ints(r, -10 ** 13, 10 ** 13, c), "DELTA_BINARY_PACKED"),
        ("ts_us", pa.timestamp("us"), lambda r, c: ints(r, -10 ** 16, 10 ** 16, c), "BYTE_STREAM_SPLIT"),
        ("ts_ns", pa.timestamp("ns"), lambda r, c: ints(r, *I64, c), "DELTA_BINARY_PACKED"),
        ("ts_us_utc", pa.timestamp("us", "UTC"), lambda r, c: ints(r, -10 ** 16, 10 ** 16, c),
         "DELTA_BINARY_PACKED"),
        ("ts_ms_tz", pa.timestamp("ms", "Europe/Paris"), lambda r, c: ints(r, -10 ** 13, 10 ** 13, c),
         "DELTA_BINARY_PACKED"),
        ("dur_ms", pa.duration("ms"), lambda r, c: ints(r, *I64, c), "DELTA_BINARY_PACKED"),
    ]),
    ("decimal", [
        ("dec5_2", pa.decimal128(5, 2), lambda r, c: decimals(r, 5, 2, c), "BYTE_STREAM_SPLIT"),
        ("dec9_0", pa.decimal128(9, 0), lambda r, c: decimals(r, 9, 0, c), "DELTA_BINARY_PACKED"),
        ("dec18_4", pa.decimal128(18, 4), lambda r, c: decimals(r, 18, 4, c), "DELTA_BINARY_PACKED"),
        ("dec30_10", pa.decimal128(30, 10), lambda r, c: decimals(r, 30, 10, c), "BYTE_STREAM_SPLIT"),
        ("dec38_0", pa.decimal128(38, 0), lambda r, c: decimals(r, 38, 0, c), "DELTA_BYTE_ARRAY"),
        ("dec38_38", pa.decimal128(38, 38), lambda r, c: decimals(r, 38, 38, c), "BYTE_STREAM_SPLIT"),
        ("dec60_6", pa.decimal256(60, 6), lambda r, c: decimals(r, 60, 6, c), "BYTE_STREAM_SPLIT"),
        ("dec3_1", pa.decimal32(3, 1), lambda r, c: decimals(r, 3, 1, c), "DELTA_BINARY_PACKED"),
    ]),
    ("int96", [
        ("i96_ns", pa.timestamp("ns"), lambda r, c: ints(r, *I64, c), None),
        ("i96_us", pa.timestamp("us"), lambda r, c: ints(r, -10 ** 16, 10 ** 16, c), None),
        ("i96_ms", pa.timestamp("ms"), lambda r, c: ints(r, -10 ** 13, 10 ** 13, c), None),
        ("i96_s_utc", pa.timestamp("s", "UTC"), lambda r, c: ints(r, -10 ** 10, 10 ** 10, c), None),
    ]),
]


def column(rng, typ, maker, card, rows, null_frac):
    gen = maker(rng, card)
    if null_frac >= 1.0:
        return pa.nulls(rows, typ)
    values = [None if (null_frac and rng.random() < null_frac) else gen() for _ in range(rows)]
    return make_array(values, typ)


def make_array(values, typ):
    if isinstance(typ, pa.BaseExtensionType):
        return pa.ExtensionArray.from_storage(typ, pa.array(values, typ.storage_type))
    if pa.types.is_temporal(typ):
        storage = pa.int32() if typ.bit_width == 32 else pa.int64()
        return pa.array(values, storage).view(typ)
    return pa.array(values, typ)


# ------------------------------------------------------------------ writing

def write(outdir, name, table, manifest, **kw):
    path = os.path.join(outdir, name)
    pq.write_table(table, path, **kw)
    manifest[name] = {k: (v if isinstance(v, (int, float, str, bool, type(None))) else str(v))
                      for k, v in kw.items()}
    manifest[name]["rows"] = table.num_rows


def main_files(outdir, manifest, quick):
    for g, (group, cols) in enumerate(GROUPS):
        for j in range(FILES_PER_GROUP):
            rng = random.Random(1000 * g + j)
            comp = COMPRESSIONS[(j + g) % len(COMPRESSIONS)]
            version = "2.0" if j & 1 else "1.0"
            dictionary = not (j & 2)
            tiny = bool(j & 4)
            alt = (not dictionary) and j in (2, 7, 10, 11)
            rows = rng.randint(2000, 12000) if not quick else rng.randint(200, 500)
            arrays, names, encodings = [], [], {}
            for c, (cname, typ, maker, alt_enc) in enumerate(cols):
                null_frac = NULL_FRACTIONS[(j + c) % len(NULL_FRACTIONS)]
                card = ["low", "high", "small"][(j + c) % 3]
                arrays.append(column(rng, typ, maker, card, rows, null_frac))
                names.append(cname)
                if group == "decimal" and j % 3 == 2 and alt_enc == "DELTA_BINARY_PACKED":
                    alt_enc = "DELTA_BYTE_ARRAY"  # stored as FLBA in these files
                if alt and alt_enc:
                    encodings[cname] = alt_enc
            table = pa.table(arrays, names=names)
            kw = dict(
                compression=comp,
                data_page_version=version,
                use_dictionary=dictionary,
                write_page_index=(j % 3 == 0),
                write_page_checksum=(j % 4 == 1),
            )
            if encodings:
                kw["column_encoding"] = encodings
            if tiny:
                kw["data_page_size"] = 64
                kw["write_batch_size"] = 7
            if j % 5 == 4:
                kw["row_group_size"] = max(1, rows // 3)
            if group == "decimal":
                kw["store_decimal_as_integer"] = j % 3 != 2
            if group == "int96":
                kw["use_deprecated_int96_timestamps"] = True
            name = "%s-%02d-%s-v%s-%s%s.parquet" % (
                group, j, comp, version[0],
                "dict" if dictionary else ("alt" if alt else "plain"),
                "-tiny" if tiny else "")
            write(outdir, name, table, manifest, **kw)


def edge_files(outdir, manifest):
    rng = random.Random(42)
    many = pa.table({
        "i32": pa.array([1, None, 3], pa.int32()),
        "str": pa.array(["a", None, ""], pa.string()),
        "f64": pa.array([1.5, None, float("nan")], pa.float64()),
        "dec": pa.array([Decimal("1.50"), None, Decimal("-0.01")], pa.decimal128(9, 2)),
        "ts": pa.array([1, None, 2], pa.timestamp("ms")),
        "bool": pa.array([True, None, False]),
        "fixed": pa.array([b"abcd", None, b"\x00\x00\x00\x00"], pa.binary(4)),
    })
    write(outdir, "edge-empty-table.parquet", many.slice(0, 0), manifest)

    # Row groups of 2, 0, 1000 and 0 rows.
    path = os.path.join(outdir, "edge-empty-row-groups.parquet")
    with pq.ParquetWriter(path, many.schema) as w:
        w.write_table(many.slice(0, 2))
        w.write_table(many.slice(0, 0))
        w.write_table(pa.concat_tables([many] * 334).slice(0, 1000))
        w.write_table(many.slice(0, 0))
    manifest[os.path.basename(path)] = {"row_groups": [2, 0, 1000, 0]}

    n = 3000
    write(outdir, "edge-all-nan.parquet", pa.table({
        "f32": pa.array([float("nan")] * n, pa.float32()),
        "f64": pa.array([float("nan")] * n, pa.float64()),
        "f64_nan_or_null": pa.array([float("nan") if i % 3 else None for i in range(n)], pa.float64()),
        "f16": pa.array([float("nan")] * n, pa.float16()),
    }), manifest)
    for dictionary in (True, False):
        write(outdir, "edge-negative-zero-%s.parquet" % ("dict" if dictionary else "plain"), pa.table({
            "f32": pa.array([-0.0 if i % 2 else 0.0 for i in range(n)], pa.float32()),
            "f64": pa.array([-0.0 if i % 3 else 0.0 for i in range(n)], pa.float64()),
            "f16": pa.array([-0.0 if i % 2 else 0.0 for i in range(n)], pa.float16()),
        }), manifest, use_dictionary=dictionary)
    for dictionary in (True, False):
        write(outdir, "edge-empty-strings-%s.parquet" % ("dict" if dictionary else "plain"), pa.table({
            "str": pa.array(["" if i % 5 else None for i in range(n)], pa.string()),
            "bin": pa.array([b""] * n, pa.binary()),
            "str_required": pa.array([""] * n, pa.string()),
        }), manifest, use_dictionary=dictionary, data_page_version="2.0")
    long_rows = 24
    longs = ["".join(rng.choice(STRING_ALPHABET) for _ in range(100_000)) if i % 4 else None
             for i in range(long_rows)]
    for dictionary in (True, False):
        write(outdir, "edge-long-strings-%s.parquet" % ("dict" if dictionary else "plain"), pa.table({
            "str": pa.array(longs, pa.string()),
            "bin": pa.array([bytes(rng.getrandbits(8) for _ in range(100_000)) for _ in range(long_rows)]),
        }), manifest, use_dictionary=dictionary, compression="zstd")
    n = 10000
    write(outdir, "edge-many-row-groups.parquet", pa.table({
        "id": pa.array(range(n), pa.int64()),
        "s": pa.array(["row %d" % (i % 97) for i in range(n)]),
        "f": pa.array([i / 7 for i in range(n)], pa.float64()),
        "b": pa.array([i % 3 == 0 if i % 11 else None for i in range(n)]),
    }), manifest, row_group_size=1000, compression="snappy")
    for version in ("1.0", "2.0"):
        write(outdir, "edge-dict-fallback-v%s.parquet" % version[0], pa.table({
            "s": pa.array(["value-%08d" % rng.randint(0, 10 ** 8) for _ in range(n)]),
            "i": pa.array([rng.randint(-(1 << 63), (1 << 63) - 1) for _ in range(n)], pa.int64()),
        }), manifest, dictionary_pagesize_limit=2000, data_page_version=version)
    ext = {
        "i8": pa.array([-128, 127, 0, -1], pa.int8()),
        "i16": pa.array([-32768, 32767, 0, -1], pa.int16()),
        "i32": pa.array([-(1 << 31), (1 << 31) - 1, 0, -1], pa.int32()),
        "i64": pa.array([-(1 << 63), (1 << 63) - 1, 0, -1], pa.int64()),
        "u8": pa.array([0, 255, 128, 1], pa.uint8()),
        "u16": pa.array([0, 65535, 32768, 1], pa.uint16()),
        "u32": pa.array([0, (1 << 32) - 1, 1 << 31, 1], pa.uint32()),
        "u64": pa.array([0, (1 << 64) - 1, 1 << 63, 1], pa.uint64()),
        "f32": pa.array([f32(3.4028235e38), f32(1e-45), float("-inf"), f32(-1.17549435e-38)], pa.float32()),
        "f64": pa.array([1.7976931348623157e308, 5e-324, float("inf"), -2.2250738585072014e-308]),
        "dec": pa.array([Decimal("9" * 38), Decimal("-" + "9" * 38), Decimal(0), Decimal(-1)],
                        pa.decimal128(38, 0)),
        "dec_frac": pa.array([Decimal("0.0000000001"), Decimal("-0.0000000001"), Decimal(0), None],
                             pa.decimal128(10, 10)),
    }
    write(outdir, "edge-extremes.parquet", pa.table(ext), manifest)
    write(outdir, "edge-extremes-v1format.parquet", pa.table(ext), manifest, version="1.0")
    write(outdir, "edge-odd-names.parquet", pa.table({
        'quote"d': pa.array([1, 2], pa.int32()),
        "back\\slash": pa.array(["x", "y"]),
        "ünïcødé 中": pa.array([True, False]),
        "": pa.array([1.0, 2.0]),
        "nulls": pa.nulls(2),
    }), manifest)
    write(outdir, "edge-arrow-dictionary.parquet", pa.table({
        "d": pa.array(["x", "y", None, "x"] * 500).dictionary_encode(),
        "di": pa.array([1, 2, None, 1] * 500, pa.int64()).dictionary_encode(),
    }), manifest)
    write(outdir, "edge-max-rows-per-page.parquet", pa.table({
        "i": pa.array(range(5000), pa.int32()),
        "s": pa.array([None if i % 7 == 0 else str(i) for i in range(5000)]),
    }), manifest, max_rows_per_page=100, data_page_version="2.0", compression="lz4")
    write(outdir, "edge-cdc.parquet", pa.table({
        "i": pa.array([rng.randint(0, 10 ** 9) for _ in range(20000)], pa.int64()),
        "s": pa.array(["%x" % rng.getrandbits(40) for _ in range(20000)]),
    }), manifest, use_content_defined_chunking=True)


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 64
    outdir = argv[0]
    quick = "--quick" in argv[1:]
    os.makedirs(outdir, exist_ok=True)
    manifest = {}
    main_files(outdir, manifest, quick)
    edge_files(outdir, manifest)
    with open(os.path.join(outdir, "files.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
    print("gen_roundtrip: %d files in %s" % (len(manifest), outdir))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
