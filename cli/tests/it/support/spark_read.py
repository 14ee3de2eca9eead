"""Spark reads parq's rewrites as pyarrow reads the originals (cli/tests/it/spark_interop.rs).

Usage: spark_read.py MANIFEST OUT
MANIFEST is a JSON list of {"what", "original", "rewrite"}. One Spark session (local, one
core) reads every rewrite twice, with the vectorised reader and with parquet-mr's, and
compares the rows with pyarrow's reading of the original, after both are put in one
canonical form (maps as sorted pairs, timestamps as UTC microseconds, decimals normalised,
bytes as hex, NaN as a string). Where they differ, Spark reads the original too: when it
reads the original the same way as the rewrite, the difference is Spark's own (e.g. types
it maps differently) and not parq's. OUT gets one result per entry and reader.
"""

import datetime as dt
import decimal
import json
import math
import os
import sys
import time

os.environ["TZ"] = "UTC"
time.tzset()

import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402
from pyspark.sql import Row, SparkSession  # noqa: E402

EPOCH = dt.datetime(1970, 1, 1)


def micros(v):
    """A datetime (naive: UTC or local wall time) or pandas Timestamp as epoch microseconds."""
    if hasattr(v, "value") and hasattr(v, "to_pydatetime"):
        return ("ts", v.value // 1000)
    if v.tzinfo is not None:
        v = v.astimezone(dt.timezone.utc).replace(tzinfo=None)
    return ("ts", (v - EPOCH) // dt.timedelta(microseconds=1))


def scalar(v):
    if isinstance(v, bool) or isinstance(v, str):
        return v
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        return "NaN" if math.isnan(v) else v
    if isinstance(v, decimal.Decimal):
        n = v.normalize()
        return int(n) if n == n.to_integral_value() else str(n)
    if isinstance(v, (bytes, bytearray, memoryview)):
        return ("hex", bytes(v).hex())
    if isinstance(v, dt.datetime) or hasattr(v, "to_pydatetime"):
        return micros(v)
    if isinstance(v, dt.date):
        return ("date", v.isoformat())
    if isinstance(v, dt.time):
        return ("time", v.isoformat())
    return ("other", repr(v))


def canon_arrow(v, t):
    """A pyarrow value of type `t` in canonical form."""
    if v is None:
        return None
    if pa.types.is_map(t):
        pairs = [[canon_arrow(k, t.key_type), canon_arrow(x, t.item_type)] for k, x in v]
        return ("map", sorted(pairs, key=repr))
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return [canon_arrow(x, t.value_type) for x in v]
    if pa.types.is_struct(t):
        return {t.field(i).name: canon_arrow(v.get(t.field(i).name), t.field(i).type)
                for i in range(t.num_fields)}
    if pa.types.is_dictionary(t):
        return canon_arrow(v, t.value_type)
    return scalar(v)


def canon_spark(v):
    """A value Spark collected in canonical form."""
    if v is None:
        return None
    if isinstance(v, Row):
        return {k: canon_spark(x) for k, x in v.asDict(recursive=False).items()}
    if isinstance(v, dict):
        return ("map", sorted([[canon_spark(k), canon_spark(x)] for k, x in v.items()], key=repr))
    if isinstance(v, (list, tuple)):
        return [canon_spark(x) for x in v]
    return scalar(v)


MICROS_PER = {"s": 1_000_000, "ms": 1_000, "us": 1}


def arrow_column(column):
    """A pyarrow column in canonical form (top-level timestamps through their integers, which
    also holds for nanoseconds out of datetime's range)."""
    t = column.type
    if pa.types.is_timestamp(t):
        ints = column.cast(pa.int64()).to_pylist()
        if t.unit == "ns":
            return [None if v is None else ("ts", v // 1000) for v in ints]
        return [None if v is None else ("ts", v * MICROS_PER[t.unit]) for v in ints]
    return [canon_arrow(v, t) for v in column.to_pylist()]


def arrow_rows(path):
    table = pq.read_table(path)
    columns = [arrow_column(table.column(i)) for i in range(table.num_columns)]
    return table.column_names, [list(r) for r in zip(*columns)] if columns else []


def spark_rows(spark, path, vectorized):
    spark.conf.set("spark.sql.parquet.enableVectorizedReader", "true" if vectorized else "false")
    df = spark.read.parquet(path)
    return df.columns, [[canon_spark(x) for x in r] for r in df.collect()]


def first_difference(a, b):
    if a[0] != b[0]:
        return f"columns {a[0]} against {b[0]}"
    if len(a[1]) != len(b[1]):
        return f"{len(a[1])} rows against {len(b[1])}"
    for i, (x, y) in enumerate(zip(a[1], b[1])):
        if x != y:
            return f"row {i}: {x!r:.300} against {y!r:.300}"
    return None


def main():
    manifest = json.load(open(sys.argv[1]))
    spark = (SparkSession.builder.master("local[1]").appName("parq-spark-interop")
             .config("spark.ui.enabled", "false")
             .config("spark.sql.session.timeZone", "UTC")
             .config("spark.driver.extraJavaOptions", "-Duser.timezone=UTC")
             .config("spark.sql.parquet.int96RebaseModeInRead", "CORRECTED")
             .config("spark.sql.parquet.datetimeRebaseModeInRead", "CORRECTED")
             .getOrCreate())
    spark.sparkContext.setLogLevel("OFF")
    results = []
    for entry in manifest:
        try:
            want = arrow_rows(entry["original"])
        except Exception as e:  # pyarrow cannot read the original: nothing to compare with
            results.append({"what": entry["what"], "reader": "pyarrow",
                            "status": "skipped", "why": f"pyarrow: {e}"[:300]})
            continue
        for vectorized in (True, False):
            reader = "vectorized" if vectorized else "parquet-mr"
            result = {"what": entry["what"], "reader": reader}
            try:
                got = spark_rows(spark, entry["rewrite"], vectorized)
                diff = first_difference(got, want)
            except Exception as e:
                got, diff = None, f"Spark cannot read the rewrite: {str(e).splitlines()[0][:300]}"
            if diff is None:
                result["status"] = "equal"
            else:
                try:
                    original = spark_rows(spark, entry["original"], vectorized)
                except Exception as e:
                    original = ("unreadable", str(e).splitlines()[0][:300])
                if got is not None and original == got:
                    result["status"] = "spark-reads-the-original-so"
                elif got is None and original[0] == "unreadable":
                    result["status"] = "spark-cannot-read-the-original"
                else:
                    result["status"] = "differs"
                result["why"] = diff
            results.append(result)
    spark.stop()
    json.dump(results, open(sys.argv[2], "w"), indent=1)
    print(f"checked {len(manifest)} files")


if __name__ == "__main__":
    main()
