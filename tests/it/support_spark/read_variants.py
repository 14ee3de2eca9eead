"""Read parq's variant files with Spark 4 and compare each row with parq's JSON.

Usage: read_variants.py CASES.json
CASES.json: [{"file": path, "expected": [json text or null per row]}, ...]
Each file has an `id` (int64) and a variant column `var`. Spark reads `var` as VARIANT (from
the VARIANT annotation, shredded or not) and prints it with `to_json`; both texts are parsed
as JSON and compared as values (object key order and number spelling aside: 1.10 == 1.1).
Two spellings differ and are normalised before comparing: timestamps (Spark's `to_json` puts
a space between date and time and drops trailing zeros of the fraction, parq writes ISO
8601's `T` and six digits), and FLOAT values (Spark prints the float's 9 significant digits,
parq the shortest text that reads back as the same float: compared after rounding to f32).
Huge doubles are spelt out as integers by parq (`1797…0000` for f64::MAX) and in exponent
form by Spark: integers of 20 digits or more are compared as doubles.
Prints one line per file, `ok FILE ROWS` or `mismatch FILE ...`, and exits 1 on a mismatch.
"""
import json
import re
import struct
import sys
import time

TIMESTAMP = re.compile(r"^([+-]?\d{4,}-\d\d-\d\d)[T ](\d\d:\d\d:\d\d)(\.\d+)?([+-]\d\d:\d\d|Z)?$")


def timestamp(m):
    fraction = (m.group(3) or "").rstrip("0").rstrip(".")
    return f"{m.group(1)} {m.group(2)}{fraction}{m.group(4) or ''}"


def normal(v):
    """`v` with timestamp strings spelt with a space between date and time."""
    if isinstance(v, str):
        return TIMESTAMP.sub(timestamp, v)
    if isinstance(v, int) and not isinstance(v, bool) and abs(v) >= 10**20:
        v = float(v)
    if isinstance(v, float):
        return struct.unpack("f", struct.pack("f", v))[0] if abs(v) < 3.4e38 else v
    if isinstance(v, list):
        return [normal(x) for x in v]
    if isinstance(v, dict):
        return {k: normal(x) for k, x in v.items()}
    return v


t0 = time.time()
from pyspark.sql import SparkSession

spark = (
    SparkSession.builder.master("local[1]")
    .config("spark.ui.enabled", "false")
    .config("spark.sql.shuffle.partitions", "1")
    .config("spark.driver.memory", "512m")
    .getOrCreate()
)
spark.sparkContext.setLogLevel("ERROR")
started = time.time() - t0

cases = json.load(open(sys.argv[1]))
bad = 0
for case in cases:
    df = spark.read.parquet(case["file"])
    kind = dict(df.dtypes)["var"]
    if kind != "variant":
        print(f"mismatch {case['file']}: Spark reads var as {kind}, not variant")
        bad += 1
        continue
    rows = df.selectExpr("id", "to_json(var) AS j").orderBy("id").collect()
    want = case["expected"]
    if len(rows) != len(want):
        print(f"mismatch {case['file']}: {len(rows)} rows, parq has {len(want)}")
        bad += 1
        continue
    for r, w in zip(rows, want):
        got = None if r.j is None else normal(json.loads(r.j))
        exp = None if w is None else normal(json.loads(w))
        if got != exp:
            print(f"mismatch {case['file']} row {r.id}: spark {r.j} parq {w}")
            bad += 1
            break
    else:
        print(f"ok {case['file']} {len(rows)}")
print(f"spark {spark.version} started in {started:.1f} s, total {time.time() - t0:.1f} s")
spark.stop()
sys.exit(1 if bad else 0)
