"""Writes the object-store scan bench's dataset with pyarrow (called once by
benches/benches/object_store.rs, which caches the result under the target directory).

usage: gen_object_store_data.py OUT_DIR FILES ROWS_PER_FILE

Each file: ROWS_PER_FILE rows of
  id       int64, ascending across the dataset
  ts       timestamp[us], ascending
  category string, one of 64 values (dictionary-encoded by pyarrow)
  name     string, "user-" and a random number (high cardinality: pyarrow's dictionary
           falls back to plain)
  value    float64, random
  qty      int32, 0..1000
snappy, row groups of 131,072 rows, pyarrow's defaults otherwise (no page index).
Deterministic: the same arguments give the same files.
"""

import os
import sys

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq


def uniform(rows: int, seed: int, scale: float) -> pa.Array:
    """`rows` doubles in [0, scale), the same for the same seed."""
    return pc.multiply(pc.random(rows, initializer=seed), scale)


def integers(rows: int, seed: int, below: int, kind: pa.DataType) -> pa.Array:
    return pc.cast(pc.floor(uniform(rows, seed, below)), kind)


def main() -> None:
    out, files, rows = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    os.makedirs(out, exist_ok=True)
    categories = pa.array([f"category-{i:02}" for i in range(64)])
    for f in range(files):
        seed = f * 8
        start = f * rows
        ids = pa.array(range(start, start + rows), pa.int64())
        jitter = integers(rows, seed, 1_000, pa.int64())
        ts = pc.add(pc.add(pc.multiply(ids, 1_000), jitter), 1_700_000_000_000_000)
        category = pc.take(categories, integers(rows, seed + 1, 64, pa.int32()))
        number = pc.cast(integers(rows, seed + 2, 1 << 40, pa.int64()), pa.string())
        name = pc.binary_join_element_wise("user-", number, "")
        table = pa.table(
            {
                "id": ids,
                "ts": pc.cast(ts, pa.timestamp("us")),
                "category": category,
                "name": name,
                "value": uniform(rows, seed + 3, 1000.0),
                "qty": integers(rows, seed + 4, 1_000, pa.int32()),
            }
        )
        path = os.path.join(out, f"part-{f:03}.parquet")
        pq.write_table(table, path, compression="snappy", row_group_size=131_072)


if __name__ == "__main__":
    main()
