#!/usr/bin/env python3
"""Checks that two Parquet files hold the same data, as pyarrow and DuckDB read them.

Usage: compare_nested.py ORIGINAL REWRITTEN [ORIGINAL REWRITTEN ...]

For tests/it/nested_pyarrow.rs (parq rewrites a nested file; the rewrite must read
back equal). For each pair, prints one JSON object (one line):

    {"original", "rewritten", "pyarrow": VERDICT, "duckdb": VERDICT}

a VERDICT being "equal", "differs: ..." (what and where), "skip: ..." (that
reader cannot read the ORIGINAL, so there is nothing to compare) or
"error: ..." (it reads the original but not the rewrite).

pyarrow: pq.read_table of both files; the schemas must match (field names,
types, nullability at every level; the names Parquet gives list elements and
map entries are not compared), then every value and every null at every level:
floats by their bits (NaN payloads and -0.0 included), temporal values by their
stored integers, decimals by their bytes, maps as lists of [key, value] in
order (duplicate keys kept).

DuckDB: SELECT * FROM read_parquet(...) of both files; the column names and
DuckDB types must match, then the rows of fetchall(), with DuckDB's Python
dicts (maps and structs) turned into lists of [key, value] in their order and
floats compared by their bits.

Exit status: 0 when every pair is equal (or skipped), 1 when one is not, 64 on
bad usage.
"""

import json
import struct
import sys

import pyarrow as pa
import pyarrow.parquet as pq


def clip(x, n=300):
    s = repr(x)
    return s if len(s) <= n else s[:n] + "..."


# ------------------------------------------------------------------ pyarrow

def canonical_type(t):
    """An Arrow type as text, nullability at every level, without the names of
    list elements and map entries."""
    if isinstance(t, pa.BaseExtensionType):
        return "ext<%s, %s>" % (t.extension_name, canonical_type(t.storage_type))
    if pa.types.is_dictionary(t):
        return canonical_type(t.value_type)  # pyarrow's reading choice, not data
    if pa.types.is_map(t):
        return "map<%s, %s%s>" % (canonical_type(t.key_type), canonical_type(t.item_type),
                                  "" if t.item_field.nullable else " not null")
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        head = "list" if pa.types.is_list(t) else (
            "large_list" if pa.types.is_large_list(t) else "fixed_list[%d]" % t.list_size)
        return "%s<%s%s>" % (head, canonical_type(t.value_type),
                             "" if t.value_field.nullable else " not null")
    if pa.types.is_struct(t):
        return "struct<%s>" % ", ".join(
            "%s: %s%s" % (json.dumps(f.name), canonical_type(f.type), "" if f.nullable else " not null")
            for f in t)
    return str(t)


def storage(arr):
    while isinstance(arr.type, pa.BaseExtensionType):
        arr = arr.storage
    return arr


def list_parts(arr):
    n = len(arr)
    if pa.types.is_fixed_size_list(arr.type):
        size = arr.type.list_size
        offs = [(arr.offset + i) * size for i in range(n + 1)]
    else:
        offs = arr.offsets.to_pylist()
    base = offs[0]
    return [o - base for o in offs], arr.values.slice(base, offs[-1] - base)


def values(arr):
    """Every slot of an Arrow array as comparable Python data (None for null)."""
    arr = storage(arr)
    t = arr.type
    n = len(arr)
    valid = arr.is_valid().to_pylist() if arr.null_count else [True] * n
    if pa.types.is_dictionary(t):
        return values(arr.dictionary_decode())
    if pa.types.is_null(t):
        return [None] * n
    if pa.types.is_struct(t):
        kids = [values(k) for k in arr.flatten()]
        names = [f.name for f in t]
        return [tuple(zip(names, (k[i] for k in kids))) if valid[i] else None for i in range(n)]
    if pa.types.is_map(t):
        offs, entries = list_parts(arr)
        keys, items = (values(k) for k in entries.flatten())
        pairs = [[k, v] for k, v in zip(keys, items)]
        return [pairs[offs[i]:offs[i + 1]] if valid[i] else None for i in range(n)]
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        offs, child = list_parts(arr)
        elems = values(child)
        return [elems[offs[i]:offs[i + 1]] if valid[i] else None for i in range(n)]
    if pa.types.is_float16(t):
        return arr.view(pa.uint16()).to_pylist()
    if pa.types.is_float32(t):
        return arr.view(pa.uint32()).to_pylist()
    if pa.types.is_float64(t):
        return arr.view(pa.uint64()).to_pylist()
    if pa.types.is_date32(t) or pa.types.is_time32(t):
        return arr.view(pa.int32()).to_pylist()
    if pa.types.is_temporal(t):  # date64, time64, timestamp, duration
        return arr.view(pa.int64()).to_pylist()
    if pa.types.is_decimal(t):
        return arr.view(pa.binary(t.byte_width)).to_pylist()
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return arr.cast(pa.large_binary()).to_pylist()
    if pa.types.is_string_view(t):
        return arr.cast(pa.binary_view()).to_pylist()
    if pa.types.is_nested(t):
        raise ValueError("arrow type %s" % t)
    return arr.to_pylist()


def first_difference(a, b, where):
    """Where two normalized values first differ, or None."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and type(a) is type(b):
        if len(a) != len(b):
            return "%s: %d elements != %d elements (%s != %s)" % (where, len(a), len(b), clip(a), clip(b))
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, "%s[%d]" % (where, i))
            if d:
                return d
        return None
    if type(a) is not type(b) or a != b:
        return "%s: %s != %s" % (where, clip(a), clip(b))
    return None


def compare_pyarrow(a, b):
    try:
        ta = pq.read_table(a, use_threads=False)
    except Exception as e:
        return "skip: %s: %s" % (type(e).__name__, e)
    try:
        tb = pq.read_table(b, use_threads=False)
    except Exception as e:
        return "error: %s: %s" % (type(e).__name__, e)
    if ta.num_rows != tb.num_rows:
        return "differs: %d rows != %d rows" % (ta.num_rows, tb.num_rows)
    sa = [(f.name, canonical_type(f.type), f.nullable) for f in ta.schema]
    sb = [(f.name, canonical_type(f.type), f.nullable) for f in tb.schema]
    if sa != sb:
        for x, y in zip(sa, sb):
            if x != y:
                return "differs: schema: field %s != %s" % (x, y)
        return "differs: schema: %d fields != %d fields" % (len(sa), len(sb))
    for name, ca, cb in zip(ta.column_names, ta.columns, tb.columns):
        va = values(ca.combine_chunks()) if ca.num_chunks != 1 else values(ca.chunk(0))
        vb = values(cb.combine_chunks()) if cb.num_chunks != 1 else values(cb.chunk(0))
        for row, (x, y) in enumerate(zip(va, vb)):
            d = first_difference(x, y, "column %r row %d" % (name, row))
            if d:
                return "differs: " + d
    return "equal"


# ------------------------------------------------------------------ DuckDB

def duck_norm(v):
    if isinstance(v, dict):
        return [[duck_norm(k), duck_norm(x)] for k, x in v.items()]
    if isinstance(v, (list, tuple)):
        return [duck_norm(x) for x in v]
    if isinstance(v, float):
        return ("float", struct.pack("<d", v).hex())
    return v


def duck_read(con, path):
    rel = "SELECT * FROM read_parquet(?)"
    cols = [(r[0], r[1]) for r in con.execute("DESCRIBE " + rel, [path]).fetchall()]
    rows = con.execute(rel, [path]).fetchall()
    return cols, rows


def compare_duckdb(con, a, b):
    try:
        ca, ra = duck_read(con, a)
    except Exception as e:
        return "skip: %s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")
    try:
        cb, rb = duck_read(con, b)
    except Exception as e:
        return "error: %s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")
    if ca != cb:
        for x, y in zip(ca, cb):
            if x != y:
                return "differs: column %s != %s" % (x, y)
        return "differs: %d columns != %d columns" % (len(ca), len(cb))
    if len(ra) != len(rb):
        return "differs: %d rows != %d rows" % (len(ra), len(rb))
    names = [c for c, _ in ca]
    for row, (x, y) in enumerate(zip(ra, rb)):
        for name, u, w in zip(names, duck_norm(x), duck_norm(y)):
            d = first_difference(u, w, "column %r row %d" % (name, row))
            if d:
                return "differs: " + d
    return "equal"


def main(argv):
    if not argv or len(argv) % 2:
        print(__doc__, file=sys.stderr)
        return 64
    try:
        import duckdb
    except ImportError as e:
        print("compare_nested.py needs duckdb (python3 -m pip install duckdb): %s" % e, file=sys.stderr)
        return 64
    con = duckdb.connect()
    con.execute("SET preserve_insertion_order = true")
    failed = 0
    for a, b in zip(argv[0::2], argv[1::2]):
        out = {"original": a, "rewritten": b,
               "pyarrow": compare_pyarrow(a, b), "duckdb": compare_duckdb(con, a, b)}
        bad = [k for k in ("pyarrow", "duckdb") if out[k].startswith(("differs", "error"))]
        if bad:
            failed += 1
            for k in bad:
                print("%s -> %s: %s %s" % (a, b, k, out[k]), file=sys.stderr)
        print(json.dumps(out, ensure_ascii=False), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
