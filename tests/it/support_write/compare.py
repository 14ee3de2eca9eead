"""Compare parquet files pairwise as pyarrow reads them, for cli/tests/it/rewrite.rs (`parq rewrite`).

Usage: compare.py ORIGINAL REWRITTEN [ORIGINAL REWRITTEN ...]
Prints one JSON object per pair: {"original", "rewritten", "skip"} when pyarrow cannot read
the original, else {"schema_equal", "kv_equal", "arrow_schema_equal", "num_rows_equal",
"columns_differ": [names whose values differ bit for bit], "error"}.
"""
import json
import os
import sys

import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dump import values  # noqa: E402


def columns_equal(a, b):
    """Bit for bit for flat columns (dump.values); Arrow equality for nested ones."""
    a, b = a.combine_chunks(), b.combine_chunks()
    if pa.types.is_nested(a.type):
        return a.type == b.type and a.equals(b)
    return values(a) == values(b)


def compare(a, b):
    out = {"original": a, "rewritten": b}
    try:
        fa = pq.ParquetFile(a)
        ta = fa.read()
    except Exception as e:  # pyarrow cannot read the original: nothing to compare
        out["skip"] = f"{type(e).__name__}: {e}"
        return out
    try:
        fb = pq.ParquetFile(b)
        tb = fb.read()
    except Exception as e:
        out["error"] = f"{type(e).__name__}: {e}"
        return out
    out["schema_equal"] = fa.metadata.schema.equals(fb.metadata.schema)
    out["kv_equal"] = (fa.metadata.metadata or {}) == (fb.metadata.metadata or {})
    out["arrow_schema_equal"] = ta.schema.equals(tb.schema, check_metadata=True)
    # Rows read (a footer may miscount: repeated_no_annotation says 0 for its 6).
    out["num_rows_equal"] = ta.num_rows == tb.num_rows
    # By position: names may repeat (DuckDB's bug13053-2.parquet).
    try:
        out["columns_differ"] = [
            name
            for i, name in enumerate(ta.column_names)
            if i >= tb.num_columns or not columns_equal(ta.column(i), tb.column(i))
        ]
    except (Exception, SystemExit) as e:  # a type the dump cannot compare: say which file
        out["error"] = "comparing %s: %s: %s" % (a, type(e).__name__, e)
    return out


def main():
    args = sys.argv[1:]
    for a, b in zip(args[0::2], args[1::2]):
        print(json.dumps(compare(a, b)))


if __name__ == "__main__":
    main()
