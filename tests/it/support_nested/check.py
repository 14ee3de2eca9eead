"""Check that pyarrow and DuckDB read parq's nested files as parq wrote them.

Usage: check.py MANIFEST.json
The manifest lists {"what", "path", "columns": {name: [expected row values]}}; expected values
are JSON: numbers, strings, {"hex": ...} for other bytes, lists as arrays, structs as objects,
maps as arrays of [key, value]. Prints "checked N files" when every file matches.
"""
import json
import sys

import duckdb
import pyarrow.parquet as pq


def norm_arrow(v, expected):
    """pyarrow's to_pylist value in the manifest's JSON form (maps are lists of tuples)."""
    if v is None:
        return None
    if isinstance(v, bytes):
        return {"hex": v.hex()}
    if isinstance(v, dict):
        return {k: norm_arrow(x, (expected or {}).get(k)) for k, x in v.items()}
    if isinstance(v, tuple):
        return [norm_arrow(x, None) for x in v]
    if isinstance(v, list):
        exp = expected if isinstance(expected, list) else [None] * len(v)
        return [norm_arrow(x, e) for x, e in zip(v, exp + [None] * len(v))]
    return v


def norm_duck(v, expected):
    """DuckDB's value in the manifest's JSON form: maps come as dicts, in entry order."""
    if v is None:
        return None
    if isinstance(v, (bytes, bytearray)):
        return {"hex": bytes(v).hex()}
    if isinstance(v, dict):
        if isinstance(expected, list):
            # A map: {key: value}; keys are distinct in these files.
            items = list(v.items())
            return [
                [norm_duck(k, e[0] if e else None), norm_duck(x, e[1] if e else None)]
                for (k, x), e in zip(items, expected + [None] * len(items))
            ]
        return {k: norm_duck(x, (expected or {}).get(k)) for k, x in v.items()}
    if isinstance(v, list):
        exp = expected if isinstance(expected, list) else []
        return [norm_duck(x, e) for x, e in zip(v, exp + [None] * len(v))]
    return v


def main():
    cases = json.load(open(sys.argv[1]))
    failures = []
    for case in cases:
        table = pq.read_table(case["path"])
        for name, expected in case["columns"].items():
            got = [norm_arrow(v, e) for v, e in zip(table.column(name).to_pylist(), expected)]
            if got != expected or table.num_rows != len(expected):
                bad = next(
                    (i for i, (g, e) in enumerate(zip(got, expected)) if g != e), None
                )
                failures.append(
                    f"pyarrow {case['what']} {case['path']} column {name} row {bad}: "
                    f"{got[bad] if bad is not None else len(got)} != "
                    f"{expected[bad] if bad is not None else len(expected)}"
                )
            quoted = '"' + name.replace('"', '""') + '"'
            rows = duckdb.sql(
                f"select {quoted} from read_parquet('{case['path']}')"
            ).fetchall()
            got = [norm_duck(r[0], e) for r, e in zip(rows, expected)]
            if got != expected or len(rows) != len(expected):
                bad = next(
                    (i for i, (g, e) in enumerate(zip(got, expected)) if g != e), None
                )
                failures.append(
                    f"duckdb {case['what']} {case['path']} column {name} row {bad}: "
                    f"{got[bad] if bad is not None else len(got)} != "
                    f"{expected[bad] if bad is not None else len(expected)}"
                )
    for f in failures[:20]:
        print(f)
    if failures:
        print(f"{len(failures)} failures")
        sys.exit(1)
    print(f"checked {len(cases)} files")


main()
