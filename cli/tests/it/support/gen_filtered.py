#!/usr/bin/env python3
"""Files and predicates for `parq cat --where`, with pyarrow's answers.

Usage: gen_filtered.py OUTDIR
       gen_filtered.py --parquet-testing DATADIR OUT.json

Writes several files with pyarrow (several row groups, small pages, page index and bloom
filters on or off, sorted and unsorted columns, nulls, NaN, -0.0, unsigned and decimal
columns) and OUTDIR/cases.json: a list of {"file", "where", "rids"}. Every file has a
non-null int64 column `rid` (the row number); `rids` are the rows the predicate keeps.

Each predicate is a small tree, turned into three things: the `--where` text parq reads, a
pyarrow compute expression, and a plain Python evaluation with SQL's three-valued logic.
The expected rows are `pq.read_table(file, filters=expression)` (pyarrow prunes row groups
by statistics, then filters exactly); the Python evaluation must agree with it, or this
script fails (a disagreement would be a bug here, not in parq).
"""

import json
import os
import random
import sys
from decimal import Decimal

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

N = 3000
rng = random.Random(20261130)


def maybe_null(values, p):
    return [None if rng.random() < p else v for v in values]


def make_table():
    ids = list(range(N))
    floats = []
    for i in range(N):
        r = rng.random()
        if r < 0.05:
            floats.append(float("nan"))
        elif r < 0.10:
            floats.append(-0.0)
        elif r < 0.15:
            floats.append(0.0)
        elif r < 0.20:
            floats.append(None)
        else:
            floats.append(rng.randint(-40, 40) / 4)
    words = ["apple", "banana", "cherry", "date", "elder", "fig", "grape", "kiwi"]
    strings = maybe_null([rng.choice(words) + ("" if rng.random() < 0.5 else "x" * rng.randint(1, 5)) for _ in ids], 0.1)
    sorted_strings = ["k%06d" % i for i in ids]
    u32 = [rng.choice([0, 1, 7, 2**31 - 1, 2**31, 2**32 - 1, rng.randint(0, 2**32 - 1)]) for _ in ids]
    u64 = [rng.choice([0, 5, 2**63 - 1, 2**63, 2**64 - 1, rng.randint(0, 2**64 - 1)]) for _ in ids]
    dec_small = maybe_null([Decimal(rng.randint(-5000, 5000)).scaleb(-2) for _ in ids], 0.05)
    dec_big = maybe_null([Decimal(rng.randint(-10**12, 10**12)).scaleb(-3) for _ in ids], 0.05)
    return pa.table(
        {
            "rid": pa.array(ids, pa.int64()),
            "id": pa.array(ids, pa.int32()),
            "grp": pa.array(maybe_null([rng.randint(0, 9) for _ in ids], 0.1), pa.int64()),
            "f": pa.array(floats, pa.float64()),
            "f32": pa.array(floats, pa.float32()),
            "s": pa.array(strings, pa.string()),
            "ss": pa.array(sorted_strings, pa.string()),
            "u32": pa.array(u32, pa.uint32()),
            "u64": pa.array(u64, pa.uint64()),
            "d": pa.array(dec_small, pa.decimal128(9, 2)),
            "dbig": pa.array(dec_big, pa.decimal128(20, 3)),
            "b": pa.array(maybe_null([rng.random() < 0.3 for _ in ids], 0.1), pa.bool_()),
        }
    )


# Literals per column: what predicates compare each column with.
def literal(column):
    if column in ("id", "rid"):
        return rng.choice([0, 1, 100, 1499, 1500, 2999, 3000, -1, rng.randint(0, N)])
    if column == "grp":
        return rng.randint(-1, 10)
    if column in ("f", "f32"):
        return rng.choice([0.0, -0.0, 0.25, -3.5, 10.0, 11.0, -10.0, rng.randint(-40, 40) / 4])
    if column == "s":
        return rng.choice(["apple", "banana", "cherryxx", "fig", "zzz", "", "a", "kiwixxxxx"])
    if column == "ss":
        return "k%06d" % rng.randint(-5, N + 5)
    if column == "u32":
        return rng.choice([0, 7, 2**31 - 1, 2**31, 2**32 - 1, 3000000000])
    if column == "u64":
        return rng.choice([0, 5, 2**63 - 1, 2**63, 2**64 - 1, 10**19])
    if column == "d":
        return Decimal(rng.randint(-5000, 5000)).scaleb(-2)
    if column == "dbig":
        return Decimal(rng.randint(-10**12, 10**12)).scaleb(-3)
    if column == "b":
        return rng.random() < 0.5
    raise ValueError(column)


COLUMNS = ["id", "grp", "f", "f32", "s", "ss", "u32", "u64", "d", "dbig", "b"]
OPS = ["=", "!=", "<", "<=", ">", ">="]


def leaf():
    c = rng.choice(COLUMNS)
    r = rng.random()
    if r < 0.6:
        return ("cmp", c, rng.choice(OPS if c != "b" else ["=", "!="]), literal(c))
    if r < 0.85:
        return ("in", c, [literal(c) for _ in range(rng.randint(1, 3))], rng.random() < 0.3)
    return ("isnull", c, rng.random() < 0.5)


def tree(depth):
    if depth == 0 or rng.random() < 0.4:
        return leaf()
    r = rng.random()
    if r < 0.4:
        return ("and", tree(depth - 1), tree(depth - 1))
    if r < 0.8:
        return ("or", tree(depth - 1), tree(depth - 1))
    return ("not", tree(depth - 1))


def lit_text(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return "'" + v.replace("'", "''") + "'"
    if isinstance(v, float):
        return repr(v)
    return str(v)


def where(t):
    k = t[0]
    if k == "cmp":
        return "%s %s %s" % (t[1], t[2], lit_text(t[3]))
    if k == "in":
        return "%s %sin (%s)" % (t[1], "not " if t[3] else "", ", ".join(lit_text(v) for v in t[2]))
    if k == "isnull":
        return "%s is %snull" % (t[1], "not " if t[2] else "")
    if k == "not":
        return "not (%s)" % where(t[1])
    return "(%s %s %s)" % (where(t[1]), k, where(t[2]))


def arrow_expr(t, schema):
    k = t[0]
    if k in ("cmp", "in"):
        field = pc.field(t[1])
        typ = schema.field(t[1]).type

        def scalar(v):
            return pa.scalar(v, type=typ)

        if k == "cmp":
            op = t[2]
            v = scalar(t[3])
            return {
                "=": field == v,
                "!=": field != v,
                "<": field < v,
                "<=": field <= v,
                ">": field > v,
                ">=": field >= v,
            }[op]
        # IN as an OR of equalities: SQL semantics (a null value is unknown, NaN equals
        # nothing), which pyarrow's is_in does not have.
        e = None
        for v in t[2]:
            eq = field == scalar(v)
            e = eq if e is None else (e | eq)
        return ~e if t[3] else e
    if k == "isnull":
        e = pc.field(t[1]).is_null()
        return ~e if t[2] else e
    if k == "not":
        return ~arrow_expr(t[1], schema)
    a, b = arrow_expr(t[1], schema), arrow_expr(t[2], schema)
    return (a & b) if k == "and" else (a | b)


def evaluate(t, row):
    """SQL three-valued logic: True, False or None (unknown)."""
    k = t[0]
    if k == "cmp":
        x = row[t[1]]
        if x is None:
            return None
        v = t[3]
        op = t[2]
        return {
            "=": x == v,
            "!=": x != v,
            "<": x < v,
            "<=": x <= v,
            ">": x > v,
            ">=": x >= v,
        }[op]
    if k == "in":
        x = row[t[1]]
        if x is None:
            return None
        hit = any(x == v for v in t[2])
        return (not hit) if t[3] else hit
    if k == "isnull":
        return (row[t[1]] is not None) if t[2] else (row[t[1]] is None)
    if k == "not":
        v = evaluate(t[1], row)
        return None if v is None else (not v)
    a, b = evaluate(t[1], row), evaluate(t[2], row)
    if k == "and":
        if a is False or b is False:
            return False
        return None if (a is None or b is None) else True
    if a is True or b is True:
        return True
    return None if (a is None or b is None) else False


FIXED = [
    ("cmp", "id", ">=", 1200),
    ("and", ("cmp", "id", ">=", 1200), ("cmp", "id", "<", 1210)),
    ("cmp", "ss", "=", "k001234"),
    ("in", "ss", ["k000007", "k002998", "zzz"], False),
    ("cmp", "f", "=", 0.0),
    ("cmp", "f", "=", -0.0),
    ("not", ("cmp", "f", "<", 1.0)),
    ("cmp", "f", "!=", 0.0),
    ("cmp", "f32", ">", -0.0),
    ("isnull", "f", False),
    ("cmp", "u32", ">", 2**31 - 1),
    ("cmp", "u64", ">=", 2**63),
    ("cmp", "d", "<", Decimal("-10.50")),
    ("cmp", "dbig", ">", Decimal("123.456")),
    ("in", "s", ["apple", "fig"], True),
    ("cmp", "s", "=", "zzz"),
    ("or", ("cmp", "grp", "=", 3), ("isnull", "grp", False)),
    ("not", ("in", "grp", [1, 2, 3], False)),
    ("cmp", "b", "=", True),
]


def parquet_testing(data_dir, out):
    """Cases over parquet-testing's files: for up to three flat integer, float, decimal or string
    columns of each file pyarrow reads, `>=`, `!=` and `=` a value of the column, and
    `is null`, with the number of rows pyarrow keeps ({"file", "where", "column", "count"})."""
    import glob
    import math

    keywords = {"and", "or", "not", "in", "is", "null", "true", "false"}
    cases = []
    for f in sorted(glob.glob(os.path.join(data_dir, "*.parquet"))):
        try:
            t = pq.read_table(f)
        except Exception:
            continue
        used = 0
        for field in t.schema:
            ty, name = field.type, field.name
            if used == 3 or not name.isidentifier() or name.lower() in keywords:
                continue
            if not (pa.types.is_integer(ty) or pa.types.is_floating(ty) or pa.types.is_string(ty)
                    or pa.types.is_large_string(ty) or pa.types.is_decimal(ty)):
                continue
            values = t[name].drop_null()
            if len(values) == 0:
                continue
            v = values[len(values) // 2].as_py()
            if isinstance(v, float) and not math.isfinite(v):
                continue
            column = t[name]
            scalar = pa.scalar(v, type=ty)
            if pa.types.is_float16(ty):
                column, scalar = column.cast(pa.float64()), pa.scalar(v, type=pa.float64())
            used += 1
            for op, fn in ((">=", pc.greater_equal), ("!=", pc.not_equal), ("=", pc.equal)):
                count = t.filter(fn(column, scalar)).num_rows
                cases.append({"file": f, "where": "%s %s %s" % (name, op, lit_text(v)),
                              "column": name, "count": count})
            cases.append({"file": f, "where": "%s is null" % name, "column": name,
                          "count": t[name].null_count})
    with open(out, "w") as fh:
        json.dump(cases, fh)


def main():
    if sys.argv[1] == "--parquet-testing":
        return parquet_testing(sys.argv[2], sys.argv[3])
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    table = make_table()
    rows = table.to_pylist()
    variants = {
        # Sorted columns, small row groups and pages, page index on.
        "index_small_pages": dict(row_group_size=500, data_page_size=512, write_page_index=True,
                                  max_rows_per_page=64),
        # No page index, dictionary off.
        "no_index_plain": dict(row_group_size=700, use_dictionary=False, write_page_index=False),
        # Bloom filters on the equality columns, page index on.
        "bloom": dict(row_group_size=1000, write_page_index=True, max_rows_per_page=100,
                      bloom_filter_options={"ss": True, "s": True, "grp": True, "u64": True}),
        # Decimals as integers (INT32/INT64), data page v2, zstd.
        "decimal_as_int_v2": dict(row_group_size=800, store_decimal_as_integer=True,
                                  data_page_version="2.0", compression="zstd",
                                  write_page_index=True, max_rows_per_page=50),
    }
    # The same rows shuffled (unsorted columns everywhere).
    order = list(range(N))
    rng.shuffle(order)
    shuffled = table.take(pa.array(order))
    shuffled_rows = [rows[i] for i in order]
    files = []
    for name, opts in variants.items():
        path = os.path.join(out, name + ".parquet")
        pq.write_table(table, path, **opts)
        files.append((path, rows))
    path = os.path.join(out, "shuffled.parquet")
    pq.write_table(shuffled, path, row_group_size=600, write_page_index=True, max_rows_per_page=40)
    files.append((path, shuffled_rows))

    predicates = FIXED + [tree(3) for _ in range(60)]
    cases = []
    for path, file_rows in files:
        for t in predicates:
            got = pq.read_table(path, filters=arrow_expr(t, table.schema), columns=["rid"])
            via_pyarrow = got.column("rid").to_pylist()
            via_python = [r["rid"] for r in file_rows if evaluate(t, r) is True]
            if via_pyarrow != via_python:
                sys.exit(
                    "pyarrow and the Python evaluation disagree on %s for %s: %d vs %d rows"
                    % (where(t), path, len(via_pyarrow), len(via_python))
                )
            cases.append({"file": path, "where": where(t), "rids": via_pyarrow})
    with open(os.path.join(out, "cases.json"), "w") as f:
        json.dump(cases, f)


if __name__ == "__main__":
    main()
