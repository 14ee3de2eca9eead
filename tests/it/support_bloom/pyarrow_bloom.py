"""Writes a parquet file with bloom filters using pyarrow: python3 pyarrow_bloom.py OUT.

Columns of every physical type pyarrow gives a filter (int32, int64, float, double, string,
binary, fixed_size_binary(16)), with nulls, in several row groups, plus `no_filter` (an int64
without one). The test reads the values back with parq and checks every one in its row
group's filter.
"""
import sys

import pyarrow as pa
import pyarrow.parquet as pq

N = 10_000
valid = [i % 7 != 0 for i in range(N)]


def col(values, ty):
    return pa.array([v if ok else None for v, ok in zip(values, valid)], type=ty)


table = pa.table(
    {
        "i32": col([(i * 2654435761) % (1 << 31) - (1 << 30) for i in range(N)], pa.int32()),
        "i64": col([i * 0x9E3779B97F4A7C15 % (1 << 63) for i in range(N)], pa.int64()),
        "i64_low": col([i % 13 for i in range(N)], pa.int64()),
        "f32": col([i * 0.37 - 100 for i in range(N)], pa.float32()),
        "f64": col([i * 1.0e-3 - 5 for i in range(N)], pa.float64()),
        "str": col([f"value-{i * 7919}" for i in range(N)], pa.string()),
        "bin": col([bytes([i % 251]) * (i % 17) for i in range(N)], pa.binary()),
        "fixed": col([i.to_bytes(16, "little") for i in range(N)], pa.binary(16)),
        "no_filter": col(list(range(N)), pa.int64()),
    }
)
options = {name: {"ndv": 4000, "fpp": 0.01} for name in table.column_names if name != "no_filter"}
options["i64_low"] = True
pq.write_table(table, sys.argv[1], row_group_size=3000, bloom_filter_options=options)
