#!/usr/bin/env python3
"""Writes OUT.parquet (with ARROW:schema) and OUT_NOSCHEMA.parquet (without) holding many
Arrow types, for tests/it/arrow.rs (parq must read them as the parquet crate does)."""
import sys, datetime, decimal, pyarrow as pa, pyarrow.parquet as pq
n = [0, 1, None, 3]
t = pa.table({
    "sv": pa.array(["a", None, "ccccccccccccccccccc", "d"], pa.string_view()),
    "bv": pa.array([b"a", None, b"c" * 20, b"d"], pa.binary_view()),
    "ls": pa.array(["a", None, "c", "d"], pa.large_string()),
    "lb": pa.array([b"a", None, b"c", b"d"], pa.large_binary()),
    "dict": pa.array(["x", "y", None, "x"]).dictionary_encode(),
    "ts_s_tz": pa.array(n, pa.timestamp("s", "Europe/Paris")),
    "ts_ms": pa.array(n, pa.timestamp("ms")),
    "ts_ns_utc": pa.array(n, pa.timestamp("ns", "UTC")),
    "d64": pa.array([0, 86400000, None, 3 * 86400000], pa.date64()),
    "t32s": pa.array(n, pa.time32("s")),
    "t64ns": pa.array(n, pa.time64("ns")),
    "dur_ms": pa.array(n, pa.duration("ms")),
    "dec_9": pa.array([decimal.Decimal("1.5"), None, decimal.Decimal("-2.25"), decimal.Decimal("0")], pa.decimal128(9, 2)),
    "dec_40": pa.array([decimal.Decimal("1.5"), None, decimal.Decimal("-2.25"), decimal.Decimal("0")], pa.decimal256(40, 2)),
    "f16": pa.array([1.5, None, -2.0, 0.0], pa.float16()),
    "fsb": pa.array([b"ab", None, b"cd", b"ef"], pa.binary(2)),
    "u8": pa.array(n, pa.uint8()),
    "u64": pa.array(n, pa.uint64()),
    "ll": pa.array([[1], None, [], [2, 3]], pa.large_list(pa.int32())),
    "fsl": pa.array([[1, 2], None, [3, 4], [5, 6]], pa.list_(pa.int32(), 2)),
    "m": pa.array([[("a", 1)], None, [], [("b", None)]], pa.map_(pa.string(), pa.int32())),
    "st": pa.array([{"x": 1, "y": "a"}, None, {"x": None, "y": "b"}, {"x": 3, "y": None}]),
    "nul": pa.array([None] * 4, pa.null()),
})
pq.write_table(t, sys.argv[1])
pq.write_table(t, sys.argv[2], store_schema=False)
