#!/usr/bin/env python3
"""Expected output of `parq cat`, computed with pyarrow.

Usage:
    expected.py FILE OUT.jsonl [--columns a,b] [--limit N]
    expected.py --batch MANIFEST.json OUTDIR FILE...

Writes JSON Lines, one object per row, keys = the top-level field names in
schema order, values formatted from the *Parquet* schema (physical type,
logical type, converted type, scale), exactly as the `parq cat` contract says:

    null                       -> null
    BOOLEAN                    -> true / false
    INT32 / INT64 (not DECIMAL)-> the stored integer (dates, times, timestamps
                                  included; unsigned annotations as unsigned)
    INT96                      -> integer nanoseconds since the Unix epoch
                                  (days - 2440588) * 86400e9 + nanos of day
    FLOAT / DOUBLE             -> shortest decimal that round-trips in its own
                                  width; "NaN", "inf", "-inf" as strings
    BYTE_ARRAY STRING/ENUM/JSON (or UTF8/ENUM/JSON converted types)
                               -> JSON string
    DECIMAL (any physical)     -> JSON string with exactly `scale` digits
                                  after the point ("-12.30"; scale 0 -> "123")
    any other BYTE_ARRAY/FLBA  -> lowercase hex string

Exit codes (single-file mode): 0 ok; 2 the file is skipped, stderr says
"nested: ..." or "unreadable: ..."; 3 this script met something it does not
know how to format (a bug here, not in the file).

Batch mode processes many files in one interpreter (importing pyarrow costs
~0.3 s) and writes MANIFEST.json: a list of
{"file", "status": "ok"|"nested"|"unreadable"|"error", "reason", "out", "rows"}.
"""

import json
import math
import struct
import sys
from decimal import Decimal

import pyarrow as pa
import pyarrow.parquet as pq


class Skip(Exception):
    """The file is not compared: status is 'nested' or 'unreadable'."""

    def __init__(self, status, reason):
        super().__init__(reason)
        self.status = status
        self.reason = reason


class Unsupported(Exception):
    """This script does not know how to format a value (a bug in the script)."""


STRINGY_LOGICAL = {"STRING", "ENUM", "JSON"}
STRINGY_CONVERTED = {"UTF8", "ENUM", "JSON"}


# ---------------------------------------------------------------- helpers

def f32_text(x):
    """Shortest decimal that round-trips to the same f32 (closest if tied)."""
    if math.isnan(x):
        return '"NaN"'
    if math.isinf(x):
        return '"inf"' if x > 0 else '"-inf"'
    want = struct.pack("<f", x)
    for p in range(1, 10):
        s = "%.*g" % (p, x)
        try:
            packed = struct.pack("<f", float(s))
        except OverflowError:  # rounded up past f32::MAX
            continue
        if packed == want:
            return _json_number(s)
    raise Unsupported("no f32 repr for %r" % x)


def f64_text(x):
    if math.isnan(x):
        return '"NaN"'
    if math.isinf(x):
        return '"inf"' if x > 0 else '"-inf"'
    return repr(x)  # Python's repr is the shortest round-trip form


def _json_number(s):
    # "%g" gives e.g. "1e+20", "1.5", "7", "-0": make every one look like a
    # float ("7.0", "-0.0") so a JSON parser keeps it a float (and keeps -0.0).
    if "e" not in s and "." not in s:
        s += ".0"
    return s


def decimal_text(unscaled, scale):
    neg = unscaled < 0
    digits = str(-unscaled if neg else unscaled)
    if scale > 0:
        digits = digits.rjust(scale + 1, "0")
        digits = digits[:-scale] + "." + digits[-scale:]
    elif scale < 0:
        # Not allowed by the spec (scale >= 0); shown as an integer.
        digits = digits + "0" * (-scale)
    return '"' + ("-" if neg else "") + digits + '"'


def decimal_unscaled(v, scale):
    """Unscaled integer of a pyarrow decimal value (Decimal, int or bytes)."""
    if isinstance(v, Decimal):
        sign, digits, exp = v.as_tuple()
        n = 0
        for d in digits:
            n = n * 10 + d
        shift = exp + scale
        if shift >= 0:
            n *= 10 ** shift
        else:
            q, r = divmod(n, 10 ** (-shift))
            if r:
                raise Unsupported("decimal %s has more than %d digits" % (v, scale))
            n = q
        return -n if sign else n
    if isinstance(v, int):
        return v
    if isinstance(v, (bytes, bytearray)):
        return int.from_bytes(v, "big", signed=True) if v else 0
    raise Unsupported("decimal value of type %s" % type(v).__name__)


def plain_chunks(arr):
    """Chunks with dictionary encoding and extension types removed."""
    out = []
    for ch in arr.chunks:
        if isinstance(ch.type, pa.BaseExtensionType):
            ch = ch.storage
        if pa.types.is_dictionary(ch.type):
            ch = ch.dictionary_decode()
            if isinstance(ch.type, pa.BaseExtensionType):
                ch = ch.storage
        out.append(ch)
    return out


def raw_bytes(chunks):
    """Python bytes (or None) for each slot of binary-like chunks."""
    vals = []
    for ch in chunks:
        t = ch.type
        if pa.types.is_string(t):
            ch = ch.cast(pa.binary())
        elif pa.types.is_large_string(t):
            ch = ch.cast(pa.large_binary())
        elif pa.types.is_string_view(t):
            ch = ch.cast(pa.binary_view())
        elif pa.types.is_float16(t):
            # FLOAT16 is a 2-byte little-endian FLBA: recover the bits.
            bits = ch.view(pa.uint16()).to_pylist()
            vals.extend(None if b is None else struct.pack("<H", b) for b in bits)
            continue
        elif not (pa.types.is_binary(t) or pa.types.is_large_binary(t)
                  or pa.types.is_binary_view(t) or pa.types.is_fixed_size_binary(t)):
            raise Unsupported("bytes from arrow type %s" % t)
        vals.extend(ch.to_pylist())
    return vals


def timestamp_unit(cs):
    lt = cs.logical_type
    if lt.type == "TIMESTAMP":
        unit = json.loads(lt.to_json()).get("timeUnit")
        return {"milliseconds": "ms", "microseconds": "us", "nanoseconds": "ns"}[unit]
    return {"TIMESTAMP_MILLIS": "ms", "TIMESTAMP_MICROS": "us"}.get(cs.converted_type)


def time_unit(cs):
    lt = cs.logical_type
    if lt.type == "TIME":
        unit = json.loads(lt.to_json()).get("timeUnit")
        return {"milliseconds": "ms", "microseconds": "us", "nanoseconds": "ns"}[unit]
    return {"TIME_MILLIS": "ms", "TIME_MICROS": "us"}.get(cs.converted_type)


def stored_ints(cs, chunks):
    """The stored INT32/INT64 values, undoing pyarrow's temporal conversions.

    pyarrow may restore the original Arrow type from the ARROW:schema metadata
    (e.g. timestamp[s] stored as TIMESTAMP(MILLIS), date64 stored as DATE), so
    we cast to the type that matches the *Parquet* annotation first.
    """
    int_type = pa.int32() if cs.physical_type == "INT32" else pa.int64()
    vals = []
    for ch in chunks:
        t = ch.type
        if pa.types.is_integer(t):
            pass
        elif pa.types.is_null(t):
            pass
        elif pa.types.is_date(t):
            ch = ch.cast(pa.date32()).cast(pa.int32()) if cs.physical_type == "INT32" \
                else ch.cast(pa.int64())
        elif pa.types.is_timestamp(t):
            unit = timestamp_unit(cs) or t.unit
            ch = ch.cast(pa.timestamp(unit, t.tz)).cast(pa.int64())
        elif pa.types.is_time(t):
            unit = time_unit(cs) or t.unit
            target = pa.time32(unit) if unit in ("s", "ms") else pa.time64(unit)
            ch = ch.cast(target).cast(int_type)
        elif pa.types.is_duration(t):
            ch = ch.cast(pa.int64())
        else:
            raise Unsupported("integers from arrow type %s" % t)
        vals.extend(ch.to_pylist())
    return vals


def int96_ns(ns_vals, s_vals):
    """Exact nanoseconds from pyarrow's (wrapping) ns and (exact) s readings.

    pyarrow computes days*86400e9 + nanos in int64 and wraps on overflow, and
    days*86400 + nanos/1e9 (truncated) for unit 's'. The true value V is
    congruent to the ns reading mod 2**64 and lies within 1e9 of s*1e9, which
    pins it down exactly, even beyond i64.
    """
    out = []
    for ns, s in zip(ns_vals, s_vals):
        if ns is None:
            out.append(None)
            continue
        base = s * 1_000_000_000
        r = (ns - base) % (1 << 64)
        if r >= 1 << 63:
            r -= 1 << 64
        if not -1_000_000_000 < r < 1_000_000_000:
            raise Unsupported("inconsistent INT96 readings ns=%d s=%d" % (ns, s))
        out.append(base + r)
    return out


def column_texts(cs, arr, arr_s=None):
    """JSON texts for every slot of one flat column."""
    pt = cs.physical_type
    lt = cs.logical_type.type
    ct = cs.converted_type
    chunks = plain_chunks(arr)
    is_decimal = lt == "DECIMAL" or ct == "DECIMAL"

    if is_decimal:
        scale = cs.scale or 0
        vals = []
        for ch in chunks:
            vals.extend(ch.to_pylist())
        return ["null" if v is None else decimal_text(decimal_unscaled(v, scale), scale)
                for v in vals]

    if pt == "BOOLEAN":
        vals = [v for ch in chunks for v in ch.to_pylist()]
        return ["null" if v is None else ("true" if v else "false") for v in vals]

    if pt in ("INT32", "INT64"):
        vals = stored_ints(cs, chunks)
        return ["null" if v is None else str(int(v)) for v in vals]

    if pt == "INT96":
        ns_vals = stored_ints_any(chunks)
        s_vals = stored_ints_any(plain_chunks(arr_s))
        return ["null" if v is None else str(v) for v in int96_ns(ns_vals, s_vals)]

    if pt in ("FLOAT", "DOUBLE"):
        fmt = f32_text if pt == "FLOAT" else f64_text
        vals = [v for ch in chunks for v in ch.to_pylist()]
        return ["null" if v is None else fmt(v) for v in vals]

    if pt in ("BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"):
        vals = raw_bytes(chunks)
        if pt == "BYTE_ARRAY" and (lt in STRINGY_LOGICAL or ct in STRINGY_CONVERTED):
            return ["null" if v is None else json.dumps(bytes(v).decode("utf-8", "replace"), ensure_ascii=False)
                    for v in vals]
        return ["null" if v is None else '"' + bytes(v).hex() + '"' for v in vals]

    raise Unsupported("physical type %s" % pt)


def stored_ints_any(chunks):
    vals = []
    for ch in chunks:
        if pa.types.is_timestamp(ch.type):
            ch = ch.cast(pa.int64())
        elif not pa.types.is_integer(ch.type) and not pa.types.is_null(ch.type):
            raise Unsupported("INT96 as arrow type %s" % ch.type)
        vals.extend(ch.to_pylist())
    return vals


# ---------------------------------------------------------------- per file

def flat_columns(pf):
    """(index, ColumnSchema) for each top-level field; Skip if nested."""
    s = pf.schema
    cols = []
    for i in range(len(s)):
        c = s.column(i)
        if c.max_repetition_level > 0:
            raise Skip("nested", "column %r is repeated" % c.path)
        if c.path != c.name:
            raise Skip("nested", "column %r is inside a group" % c.path)
        cols.append((i, c))
    return cols


def expected_lines(path, columns=None, limit=None):
    try:
        pf = pq.ParquetFile(path, arrow_extensions_enabled=False)
        cols = flat_columns(pf)
    except Skip:
        raise
    except Exception as e:  # encrypted, malformed footer, unsupported schema
        raise Skip("unreadable", "%s: %s" % (type(e).__name__, e))

    if columns is not None:
        names = [c.name for _, c in cols]
        for want in columns:
            if want not in names:
                raise Skip("unreadable", "no column %r" % want)
        cols = [(i, c) for i, c in cols if c.name in columns]

    try:
        table = pf.read(use_threads=False)
        if table.num_columns != len(pf.schema):
            raise Unsupported("arrow table has %d columns, parquet schema %d"
                              % (table.num_columns, len(pf.schema)))
        int96 = [i for i, c in cols if c.physical_type == "INT96"]
        table_s = None
        if int96:
            pf_s = pq.ParquetFile(path, arrow_extensions_enabled=False,
                                  coerce_int96_timestamp_unit="s")
            table_s = pf_s.read(use_threads=False)
    except Unsupported:
        raise
    except Exception as e:
        raise Skip("unreadable", "%s: %s" % (type(e).__name__, e))

    if limit is not None:
        table = table.slice(0, limit)
        if table_s is not None:
            table_s = table_s.slice(0, limit)

    texts = []
    keys = []
    for i, c in cols:
        arr_s = table_s.column(i) if table_s is not None and c.physical_type == "INT96" else None
        try:
            t = column_texts(c, table.column(i), arr_s)
        except Exception as e:  # a failure to format is a bug here, not in the file
            raise Unsupported("column %r: %s: %s" % (c.name, type(e).__name__, e))
        if len(t) != table.num_rows:
            raise Unsupported("column %r gave %d values for %d rows" % (c.name, len(t), table.num_rows))
        texts.append(t)
        keys.append(json.dumps(c.name, ensure_ascii=False) + ":")

    lines = []
    for r in range(table.num_rows):
        lines.append("{" + ",".join(k + t[r] for k, t in zip(keys, texts)) + "}\n")
    return lines, [c.name for _, c in cols if c.physical_type == "FLOAT"]


def write_expected(path, out, columns=None, limit=None):
    """Writes OUT (JSON Lines) and OUT.f32.json (the keys of FLOAT columns).

    FLOAT keys matter to the comparison: a shortest f32 decimal can have two
    equally short forms (19781.0625 -> "19781.062" or "19781.063"), which are
    equal only when parsed as f32.
    """
    lines, f32_keys = expected_lines(path, columns, limit)
    with open(out, "w", encoding="utf-8") as f:
        f.writelines(lines)
    with open(out + ".f32.json", "w", encoding="utf-8") as f:
        json.dump(f32_keys, f)
    return len(lines)


# ---------------------------------------------------------------- CLI

def main(argv):
    if argv and argv[0] == "--batch":
        if len(argv) < 3:
            print(__doc__, file=sys.stderr)
            return 64
        manifest, outdir, files = argv[1], argv[2], argv[3:]
        results = []
        for n, path in enumerate(files):
            out = "%s/%04d.jsonl" % (outdir, n)
            entry = {"file": path, "out": out, "status": "ok", "reason": "", "rows": 0}
            try:
                entry["rows"] = write_expected(path, out)
            except Skip as e:
                entry["status"], entry["reason"] = e.status, e.reason
            except Exception as e:  # Unsupported or a bug in this script
                entry["status"] = "error"
                entry["reason"] = "%s: %s" % (type(e).__name__, e)
            results.append(entry)
        with open(manifest, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)
        return 0

    columns = None
    limit = None
    pos = []
    it = iter(argv)
    for a in it:
        if a == "--columns":
            columns = next(it).split(",")
        elif a.startswith("--columns="):
            columns = a.split("=", 1)[1].split(",")
        elif a == "--limit":
            limit = int(next(it))
        elif a.startswith("--limit="):
            limit = int(a.split("=", 1)[1])
        else:
            pos.append(a)
    if len(pos) != 2:
        print(__doc__, file=sys.stderr)
        return 64
    try:
        write_expected(pos[0], pos[1], columns, limit)
    except Skip as e:
        print("%s: %s" % (e.status, e.reason), file=sys.stderr)
        return 2
    except Unsupported as e:
        print("unsupported: %s" % e, file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
