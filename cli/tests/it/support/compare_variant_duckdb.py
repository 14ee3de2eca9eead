#!/usr/bin/env python3
"""`parq cat` of VARIANT files against DuckDB's reading of them.

Usage: compare_variant_duckdb.py PARQ FILE...

pyarrow reads a VARIANT column as its raw metadata/value groups; DuckDB decodes it. Each
row DuckDB gives is compared with the JSON line `parq cat` prints: numbers exactly (as
decimals; FLOAT as 32-bit), binary as base64, dates and timestamps as ISO text. A file
DuckDB cannot read is counted apart (parq must not crash on it). The last line is
`variant vs duckdb: N equal, M differ, K duckdb cannot read`.
"""
import sys, json, subprocess, base64, datetime, decimal, uuid, struct, math
import duckdb
def norm_duck(v):
    if isinstance(v, dict): return {k: norm_duck(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)): return [norm_duck(x) for x in v]
    if isinstance(v, bytes): return base64.b64encode(v).decode()
    if isinstance(v, decimal.Decimal): return v
    if isinstance(v, bool) or v is None or isinstance(v, str): return v
    if isinstance(v, int): return decimal.Decimal(v)
    if isinstance(v, float): return v
    if isinstance(v, (datetime.datetime, datetime.date, datetime.time)): return v
    if isinstance(v, uuid.UUID): return str(v)
    return repr(v)
def eq(a, b):
    # a: duckdb normalised, b: parq json (Decimal numbers)
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(eq(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(eq(x, y) for x, y in zip(a, b))
    if isinstance(a, float):
        if not isinstance(b, decimal.Decimal):
            return isinstance(b, str) and ((math.isnan(a) and b == "NaN") or str(a) == b)
        fb = float(b)
        return fb == a or struct.unpack('f', struct.pack('f', fb))[0] == struct.unpack('f', struct.pack('f', a))[0]
    if isinstance(a, decimal.Decimal):
        return isinstance(b, decimal.Decimal) and a == b
    if isinstance(a, (datetime.datetime, datetime.date, datetime.time)):
        if not isinstance(b, str): return False
        s = a.isoformat()
        return b.replace('T', ' ').rstrip('Z').startswith(s.replace('T', ' ').split('+')[0][:19]) 
    return a == b
parq = sys.argv[1]
ok = bad = err = 0
for f in sys.argv[2:]:
    p = subprocess.run([parq, 'cat', f], capture_output=True, text=True)
    if "panicked" in p.stderr or p.returncode not in (0, 1):
        print(f"{f}: parq crashed ({p.returncode}): {p.stderr.strip()[:150]}"); bad += 1; continue
    try:
        rel = duckdb.sql(f"select * from '{f}'")
        cols = [d[0] for d in rel.description]
        rows = rel.fetchall()
    except Exception as e:
        print(f"{f}: duckdb error {str(e)[:100]}; parq exit {p.returncode}"); err += 1; continue
    if p.returncode != 0:
        print(f"{f}: parq error {p.stderr.strip()[:150]}"); bad += 1; continue
    got = [json.loads(l, parse_float=decimal.Decimal, parse_int=decimal.Decimal) for l in p.stdout.splitlines()]
    good = len(got) == len(rows)
    why = f"rows {len(got)} vs {len(rows)}"
    for r, g in zip(rows, got):
        want = {c: norm_duck(v) for c, v in zip(cols, r)}
        if not eq(want, g):
            good = False; why = f"{str(want)[:150]} != {str(g)[:150]}"; break
    if good: ok += 1
    else: bad += 1; print(f"{f}: MISMATCH {why}")
print(f"variant vs duckdb: {ok} equal, {bad} differ, {err} duckdb cannot read")
