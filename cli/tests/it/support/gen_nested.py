#!/usr/bin/env python3
"""Writes nested Parquet files with pyarrow for tests/it/nested_pyarrow.rs.

Usage: gen_nested.py OUTDIR [--quick] [--check]

Deterministic (fixed seeds). Each file holds a flat `id` column and one nested
column `v` of one of these shapes:

    list_i64        list<int64>
    list_struct     list<struct<a: int32, b: list<string>>>
    map_list        map<string, list<int32>>
    struct_struct   struct<s: struct<i: int32, t: string>, f: float>
    list_map        list<map<string, int64>>
    list3           list<list<list<int32>>>
    list4           list<list<list<list<string>>>>
    leaves          struct<f32, f64, bool, decimal, timestamp, date, binary,
                    fixed binary, list<float>>  (leaf types inside a struct)
    map_struct      map<int64, struct<x: double, y: list<float>>>

and, per shape, FILES_PER_SHAPE files from a covering design: file j of shape s
gets
    nullability   every level optional / every level required / alternating
                  (MODES[(j + s) % 3]; map keys are always required)
    nulls         NULL_FRACTIONS[(j + depth) % 4] (0 %, 1 %, 50 %, 100 %) at
                  each optional level (at most 50 % at the top level), and
                  empty lists
    compression   COMPRESSIONS[(j + s) % 6] (each codec pyarrow has)
    page version  "1.0" / "2.0"                  (bit 0 of j)
    dictionary    on / off                       (bit 1 of j)
    tiny pages    data_page_size=64, write_batch_size=5  (bit 2 of j)
    row groups    several when j % 4 == 3.

pyarrow (and DuckDB, and parquet-rs) never let a record cross a page, even in
v1 pages. So that readers meet records that do, `*-crossing*` files are
pyarrow's files (uncompressed, PLAIN, v1) with every column chunk cut again
into pages of 1 to 7 levels at random (see `repaginate`): most pages then
start inside a record. pyarrow reads them (that gives the expected output).

Map keys are unique within a map (DuckDB refuses repeated keys), except in
the edge files with repeated keys. Other edge files: an empty table, all rows
null, all lists empty, one record of 20,000 elements.

--check renders the generator's own data the way the `parq cat` contract says
and compares it with what tests/it/support/expected.py computes from pyarrow's
reading of each file (a check of the oracle itself). Writes OUTDIR/*.parquet
and OUTDIR/files.json (name -> settings).
"""

import datetime
import json
import math
import os
import random
import struct
import sys
import zlib
from decimal import Decimal

import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import expected  # noqa: E402  (the oracle; also its Thrift compact reader)

COMPRESSIONS = ["none", "snappy", "gzip", "zstd", "lz4", "brotli"]
NULL_FRACTIONS = [0.0, 0.01, 0.5, 1.0]
MODES = ["optional", "required", "mixed"]
FILES_PER_SHAPE = 8

# ------------------------------------------------------------------ shapes
#
# A shape is a tree of tuples:
#   ("leaf", kind)                 kind: one of LEAVES
#   ("list", child)
#   ("struct", [(name, child), ...])
#   ("map", key_kind, child)       the key is a required leaf


def L(kind):
    return ("leaf", kind)


SHAPES = [
    ("list_i64", ("list", L("i64"))),
    ("list_struct", ("list", ("struct", [("a", L("i32")), ("b", ("list", L("str")))]))),
    ("map_list", ("map", "str", ("list", L("i32")))),
    ("struct_struct", ("struct", [("s", ("struct", [("i", L("i32")), ("t", L("str"))])),
                                  ("f", L("f32"))])),
    ("list_map", ("list", ("map", "str", L("i64")))),
    ("list3", ("list", ("list", ("list", L("i32"))))),
    ("list4", ("list", ("list", ("list", ("list", L("str")))))),
    ("leaves", ("struct", [("f32", L("f32")), ("f64", L("f64")), ("bool", L("bool")),
                           ("dec", L("dec")), ("ts", L("ts")), ("date", L("date")),
                           ("bin", L("bin")), ("fixed", L("fixed")),
                           ("floats", ("list", L("f32")))])),
    ("map_struct", ("map", "i64", ("struct", [("x", L("f64")), ("y", ("list", L("f32")))]))),
]

LEAF_TYPES = {
    "i32": pa.int32(),
    "i64": pa.int64(),
    "str": pa.string(),
    "f32": pa.float32(),
    "f64": pa.float64(),
    "bool": pa.bool_(),
    "dec": pa.decimal128(9, 2),
    "ts": pa.timestamp("us"),
    "date": pa.date32(),
    "bin": pa.binary(),
    "fixed": pa.binary(3),
}


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


STRINGS = ["", "a", "é", "中文", 'quote"d', "back\\slash", "tab\tnew\nline", "\x00\x01\x1f",
           "emoji 🦀", "key", "k1", "k2", "x" * 40]
F32_SPECIAL = [0.0, -0.0, 1.0, -1.5, float("nan"), float("inf"), float("-inf"), f32(0.1),
               f32(1e-45), f32(3.4028235e38), f32(19781.0625), f32(16777217.0)]
F64_SPECIAL = [0.0, -0.0, 0.1, 1e16, 5e-324, 1.7976931348623157e308, float("nan"),
               float("inf"), float("-inf"), 123456.789]
I32_SPECIAL = [0, 1, -1, 2 ** 31 - 1, -2 ** 31]
I64_SPECIAL = [0, 1, -1, 2 ** 63 - 1, -2 ** 63]


def leaf_value(rng, kind):
    r = rng.random()
    if kind == "i32":
        return rng.choice(I32_SPECIAL) if r < 0.1 else rng.randint(-1000, 1000)
    if kind == "i64":
        return rng.choice(I64_SPECIAL) if r < 0.1 else rng.randint(-10 ** 12, 10 ** 12)
    if kind == "str":
        return rng.choice(STRINGS) if r < 0.5 else "s%d" % rng.randint(0, 500)
    if kind == "f32":
        return rng.choice(F32_SPECIAL) if r < 0.2 else f32(rng.uniform(-1e6, 1e6))
    if kind == "f64":
        return rng.choice(F64_SPECIAL) if r < 0.2 else rng.uniform(-1e9, 1e9)
    if kind == "bool":
        return r < 0.5
    if kind == "dec":
        return Decimal(rng.randint(-10 ** 9 + 1, 10 ** 9 - 1)).scaleb(-2)
    if kind == "ts":
        return rng.randint(-10 ** 16, 10 ** 16)
    if kind == "date":
        return datetime.date(1970, 1, 1) + datetime.timedelta(days=rng.randint(-700000, 2900000))
    if kind == "bin":
        return bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 6)))
    if kind == "fixed":
        return bytes(rng.getrandbits(8) for _ in range(3))
    raise ValueError(kind)


# ------------------------------------------------------------------ types and data

def nullable_at(mode, depth):
    """Whether the level at `depth` (0 = the top-level field) is optional."""
    if mode == "optional":
        return True
    if mode == "required":
        return False
    return depth % 2 == 0


def arrow_type(shape, mode, depth):
    """The Arrow type of `shape`, whose own nullability is decided by the parent."""
    kind = shape[0]
    if kind == "leaf":
        return LEAF_TYPES[shape[1]]
    if kind == "list":
        child = shape[1]
        return pa.list_(pa.field("element", arrow_type(child, mode, depth + 1),
                                 nullable=nullable_at(mode, depth + 1)))
    if kind == "struct":
        return pa.struct([pa.field(name, arrow_type(child, mode, depth + 1),
                                   nullable=nullable_at(mode, depth + 1))
                          for name, child in shape[1]])
    if kind == "map":
        return pa.map_(pa.field("key", LEAF_TYPES[shape[1]], nullable=False),
                       pa.field("value", arrow_type(shape[2], mode, depth + 1),
                                nullable=nullable_at(mode, depth + 1)))
    raise ValueError(kind)


class Gen:
    """Random values of a shape. `nulls[d]` is the null fraction at depth d."""

    def __init__(self, rng, mode, nulls, max_len, duplicate_keys=False):
        self.rng = rng
        self.mode = mode
        self.nulls = nulls
        self.max_len = max_len
        self.duplicate_keys = duplicate_keys

    def length(self):
        r = self.rng.random()
        if r < 0.15:
            return 0
        return self.rng.randint(1, self.max_len)

    def value(self, shape, depth):
        if nullable_at(self.mode, depth):
            frac = self.nulls[depth % len(self.nulls)]
            if frac and (frac >= 1.0 or self.rng.random() < frac):
                return None
        kind = shape[0]
        if kind == "leaf":
            return leaf_value(self.rng, shape[1])
        if kind == "list":
            return [self.value(shape[1], depth + 1) for _ in range(self.length())]
        if kind == "struct":
            return {name: self.value(child, depth + 1) for name, child in shape[1]}
        if kind == "map":
            # Keys are unique (DuckDB refuses a map with a repeated key);
            # edge-map-duplicate-keys.parquet repeats keys.
            keys = []
            for _ in range(self.length()):
                for _ in range(20):
                    k = leaf_value(self.rng, shape[1])
                    if self.duplicate_keys or k not in keys:
                        keys.append(k)
                        break
            return [(k, self.value(shape[2], depth + 1)) for k in keys]
        raise ValueError(kind)


def make_table(shape, mode, values):
    top_nullable = nullable_at(mode, 0)
    schema = pa.schema([
        pa.field("id", pa.int64(), nullable=False),
        pa.field("v", arrow_type(shape, mode, 0), nullable=top_nullable),
    ])
    ids = pa.array(range(len(values)), pa.int64())
    return pa.Table.from_arrays([ids, pa.array(values, schema.field("v").type)], schema=schema)


# ------------------------------------------------------------------ the contract, from our own data

def render(shape, v):
    """The generator's value as the `parq cat` contract prints it (Python JSON data;
    floats as ("f32" | "f64", value) so that the check compares them exactly)."""
    if v is None:
        return None
    kind = shape[0]
    if kind == "list":
        return [render(shape[1], x) for x in v]
    if kind == "struct":
        return {name: render(child, v[name]) for name, child in shape[1]}
    if kind == "map":
        return [[render_leaf(shape[1], k), render(shape[2], x)] for k, x in v]
    return render_leaf(shape[1], v)


def render_leaf(kind, v):
    if kind in ("f32", "f64"):
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return (kind, v)
    if kind == "dec":
        return format(v, ".2f")
    if kind == "date":
        return (v - datetime.date(1970, 1, 1)).days
    if kind in ("bin", "fixed"):
        return v.hex()
    return v


def same(want, got):
    """`got` (json.loads of expected.py's line) equals `want` (render)."""
    if isinstance(want, tuple):
        kind, x = want
        if isinstance(got, bool) or not isinstance(got, (int, float)):
            return False
        if kind == "f32":
            return struct.pack("<f", x) == struct.pack("<f", got)
        return struct.pack("<d", x) == struct.pack("<d", float(got))
    if isinstance(want, list):
        return isinstance(got, list) and len(want) == len(got) and all(map(same, want, got))
    if isinstance(want, dict):
        return (isinstance(got, dict) and list(want) == list(got)
                and all(same(want[k], got[k]) for k in want))
    if isinstance(want, bool) or isinstance(got, bool):
        return want is got
    return want == got


def check_file(path, shape, values):
    """Compares expected.py's output for `path` with our rendering of `values`."""
    out = path + ".check.jsonl"
    try:
        expected.write_expected(path, out)
        with open(out, encoding="utf-8") as f:
            lines = f.read().splitlines()
    finally:
        for p in (out, out + ".f32.json"):
            if os.path.exists(p):
                os.remove(p)
    if len(lines) != len(values):
        return "expected.py gave %d rows, the generator wrote %d" % (len(lines), len(values))
    for i, (line, v) in enumerate(zip(lines, values)):
        got = json.loads(line, object_pairs_hook=dict)
        want = {"id": i, "v": render(shape, v)}
        if list(got) != ["id", "v"] or got["id"] != i or not same(want["v"], got["v"]):
            return "row %d: expected.py %s, generator %r" % (i, line[:300], want)
    return None


# ------------------------------------------------------------------ re-paging (records across pages)

class ThriftWriter:
    def __init__(self):
        self.b = bytearray()

    def varint(self, v):
        while True:
            c = v & 0x7F
            v >>= 7
            if v:
                self.b.append(c | 0x80)
            else:
                self.b.append(c)
                return

    def zigzag(self, v):
        self.varint((v << 1) ^ (v >> 63))

    def struct(self, fields):
        last = 0
        for fid, t, v in fields:
            ct = (1 if v else 2) if t in (1, 2) else t
            delta = fid - last
            if 0 < delta <= 15:
                self.b.append((delta << 4) | ct)
            else:
                self.b.append(ct)
                self.zigzag(fid)
            if t not in (1, 2):
                self.value(t, v)
            last = fid
        self.b.append(0)

    def value(self, t, v):
        if t == 3:
            self.b.append(v & 0xFF)
        elif t in (4, 5, 6):
            self.zigzag(v)
        elif t == 7:
            self.b += v
        elif t == 8:
            self.varint(len(v))
            self.b += v
        elif t in (9, 10):
            et, items = v
            if len(items) < 15:
                self.b.append((len(items) << 4) | et)
            else:
                self.b.append(0xF0 | et)
                self.varint(len(items))
            for x in items:
                self.elem(et, x)
        elif t == 11:
            kt, vt, items = v
            self.varint(len(items))
            if items:
                self.b.append((kt << 4) | vt)
            for k, x in items:
                self.elem(kt, k)
                self.elem(vt, x)
        elif t == 12:
            self.struct(v)
        else:
            raise ValueError("thrift type %d" % t)

    def elem(self, t, v):
        if t in (1, 2):
            self.b.append(1 if v else 2)
        else:
            self.value(t, v)


def t_struct(r):
    """A Thrift struct as a list of [field id, type, value] (a generic tree)."""
    out = []
    for fid, t in r.fields():
        if t in (1, 2):
            out.append([fid, 1, t == 1])
        else:
            out.append([fid, t, t_value(r, t)])
    return out


def t_value(r, t):
    if t == 3:
        return r.byte()
    if t in (4, 5, 6):
        return r.zigzag()
    if t == 7:
        v = bytes(r.b[r.i:r.i + 8])
        r.i += 8
        return v
    if t == 8:
        return r.binary()
    if t in (9, 10):
        n, et = r.list_header()
        return (et, [t_elem(r, et) for _ in range(n)])
    if t == 11:
        n = r.varint()
        kv = r.byte() if n else 0
        return (kv >> 4, kv & 0x0F, [(t_elem(r, kv >> 4), t_elem(r, kv & 0x0F)) for _ in range(n)])
    if t == 12:
        return t_struct(r)
    raise ValueError("thrift type %d" % t)


def t_elem(r, t):
    if t in (1, 2):
        return r.byte() == 1
    return t_value(r, t)


def t_get(fields, fid, default=None):
    for f in fields:
        if f[0] == fid:
            return f[2]
    return default


def t_set(fields, fid, t, v):
    for f in fields:
        if f[0] == fid:
            f[1], f[2] = t, v
            return
    fields.append([fid, t, v])
    fields.sort(key=lambda f: f[0])


def t_drop(fields, *fids):
    fields[:] = [f for f in fields if f[0] not in fids]


def rle_decode(buf, bw, n):
    r = expected.ThriftCompact(buf)
    out = []
    mask = (1 << bw) - 1
    width = (bw + 7) // 8
    while len(out) < n:
        h = r.varint()
        if h & 1:
            groups = h >> 1
            nbytes = groups * bw
            data = int.from_bytes(buf[r.i:r.i + nbytes], "little")
            r.i += nbytes
            out.extend((data >> (k * bw)) & mask for k in range(groups * 8))
        else:
            v = int.from_bytes(buf[r.i:r.i + width], "little")
            r.i += width
            out.extend([v] * (h >> 1))
    return out[:n]


def rle_encode(levels, bw):
    """RLE runs only (valid RLE/bit-packed hybrid), with the v1 4-byte length."""
    w = ThriftWriter()
    width = (bw + 7) // 8
    i = 0
    while i < len(levels):
        j = i
        while j < len(levels) and levels[j] == levels[i]:
            j += 1
        w.varint((j - i) << 1)
        w.b += levels[i].to_bytes(width, "little")
        i = j
    return len(w.b).to_bytes(4, "little") + bytes(w.b)


PLAIN_WIDTH = {"INT32": 4, "FLOAT": 4, "INT64": 8, "DOUBLE": 8, "INT96": 12}


def plain_split(buf, physical, type_length, n):
    """PLAIN values as a list of encoded values (booleans as bools)."""
    if physical == "BOOLEAN":
        return [bool(buf[k // 8] >> (k % 8) & 1) for k in range(n)]
    out = []
    pos = 0
    for _ in range(n):
        if physical == "BYTE_ARRAY":
            ln = int.from_bytes(buf[pos:pos + 4], "little")
            size = 4 + ln
        elif physical == "FIXED_LEN_BYTE_ARRAY":
            size = type_length
        else:
            size = PLAIN_WIDTH[physical]
        out.append(bytes(buf[pos:pos + size]))
        pos += size
    return out


def plain_join(vals, physical):
    if physical == "BOOLEAN":
        b = bytearray((len(vals) + 7) // 8)
        for k, v in enumerate(vals):
            if v:
                b[k // 8] |= 1 << (k % 8)
        return bytes(b)
    return b"".join(vals)


def page_header(r):
    h = t_struct(r)
    return h


def repaginate(src, dst, rng, max_levels=7, codec="none"):
    """Rewrites pyarrow's file `src` (uncompressed, PLAIN, v1 pages, no dictionary,
    no page index) with each column chunk cut into pages of 1..max_levels levels
    at random, so that pages start inside records. codec: "none" or "gzip"."""
    pf = pq.ParquetFile(src)
    md = pf.metadata
    data = open(src, "rb").read()
    n = int.from_bytes(data[-8:-4], "little")
    fmd = t_struct(expected.ThriftCompact(data[-8 - n:-8]))
    out = bytearray(b"PAR1")
    crossing = 0
    for g, rg in enumerate(t_get(fmd, 4)[1]):
        chunks = t_get(rg, 1)[1]
        rg_start = len(out)
        rg_comp = rg_uncomp = 0
        for c, cc in enumerate(chunks):
            meta = t_get(cc, 3)
            col = pf.schema.column(c)
            if md.row_group(g).column(c).compression != "UNCOMPRESSED":
                raise ValueError("repaginate wants an uncompressed file")
            start = t_get(meta, 9)
            end = start + t_get(meta, 7)
            pos = start
            defs, reps, vals = [], [], []
            while pos < end:
                r = expected.ThriftCompact(data[pos:pos + 4096])
                h = page_header(r)
                body = data[pos + r.i:pos + r.i + t_get(h, 3)]
                pos += r.i + t_get(h, 3)
                if t_get(h, 1) != 0:
                    raise ValueError("repaginate wants v1 data pages only")
                dph = t_get(h, 5)
                count = t_get(dph, 1)
                if t_get(dph, 2) != 0:
                    raise ValueError("repaginate wants PLAIN values")
                p = 0
                page_reps = [0] * count
                page_defs = [col.max_definition_level] * count
                if col.max_repetition_level:
                    ln = int.from_bytes(body[p:p + 4], "little")
                    page_reps = rle_decode(body[p + 4:p + 4 + ln], col.max_repetition_level.bit_length(), count)
                    p += 4 + ln
                if col.max_definition_level:
                    ln = int.from_bytes(body[p:p + 4], "little")
                    page_defs = rle_decode(body[p + 4:p + 4 + ln], col.max_definition_level.bit_length(), count)
                    p += 4 + ln
                present = sum(1 for d in page_defs if d == col.max_definition_level)
                vals += plain_split(body[p:], col.physical_type, col.length, present)
                reps += page_reps
                defs += page_defs
            chunk_start = len(out)
            comp = uncomp = 0
            i = v = 0
            while i < len(defs):
                k = min(len(defs) - i, rng.randint(1, max_levels))
                page_defs, page_reps = defs[i:i + k], reps[i:i + k]
                present = sum(1 for d in page_defs if d == col.max_definition_level)
                body = b""
                if col.max_repetition_level:
                    body += rle_encode(page_reps, col.max_repetition_level.bit_length())
                    crossing += page_reps[0] != 0
                if col.max_definition_level:
                    body += rle_encode(page_defs, col.max_definition_level.bit_length())
                body += plain_join(vals[v:v + present], col.physical_type)
                raw = len(body)
                if codec == "gzip":
                    z = zlib.compressobj(6, zlib.DEFLATED, 31)
                    body = z.compress(body) + z.flush()
                w = ThriftWriter()
                w.struct([[1, 5, 0], [2, 5, raw], [3, 5, len(body)],
                          [5, 12, [[1, 5, k], [2, 5, 0], [3, 5, 3], [4, 5, 3]]]])
                out += w.b
                out += body
                comp += len(w.b) + len(body)
                uncomp += len(w.b) + raw
                i += k
                v += present
            if v != len(vals):
                raise ValueError("values left over")
            t_set(meta, 4, 5, 2 if codec == "gzip" else 0)
            t_set(meta, 6, 6, uncomp)
            t_set(meta, 7, 6, comp)
            t_set(meta, 9, 6, chunk_start)
            t_drop(meta, 10, 11, 13, 14, 15)
            t_set(cc, 2, 6, chunk_start)
            t_drop(cc, 4, 5, 6, 7)
            rg_comp += comp
            rg_uncomp += uncomp
        t_set(rg, 2, 6, rg_uncomp)
        t_set(rg, 5, 6, rg_start)
        t_set(rg, 6, 6, rg_comp)
    w = ThriftWriter()
    w.struct(fmd)
    out += w.b
    out += len(w.b).to_bytes(4, "little") + b"PAR1"
    with open(dst, "wb") as f:
        f.write(out)
    return crossing


# ------------------------------------------------------------------ files

def write(outdir, name, table, manifest, **kw):
    path = os.path.join(outdir, name)
    pq.write_table(table, path, **kw)
    manifest[name] = {k: (v if isinstance(v, (int, float, str, bool, type(None))) else str(v))
                      for k, v in kw.items()}
    manifest[name]["rows"] = table.num_rows
    return path


def rows_for(rng, shape_name, quick):
    big = {"list3": 600, "list4": 300}.get(shape_name, 2000)
    if quick:
        big //= 5
    return rng.randint(big // 4, big)


def max_len_for(shape_name):
    return {"list3": 3, "list4": 3, "list_map": 4}.get(shape_name, 5)


def main_files(outdir, manifest, quick, data):
    for s, (sname, shape) in enumerate(SHAPES):
        for j in range(FILES_PER_SHAPE):
            rng = random.Random(7000 + 100 * s + j)
            mode = MODES[(j + s) % len(MODES)]
            nulls = [NULL_FRACTIONS[(j + d) % len(NULL_FRACTIONS)] for d in range(6)]
            if nulls[0] == 1.0:
                nulls[0] = 0.5  # all rows null: edge-all-null.parquet has that
            comp = COMPRESSIONS[(j + s) % len(COMPRESSIONS)]
            version = "2.0" if j & 1 else "1.0"
            dictionary = not (j & 2)
            tiny = bool(j & 4)
            rows = rows_for(rng, sname, quick)
            gen = Gen(rng, mode, nulls, max_len_for(sname))
            values = [gen.value(shape, 0) for _ in range(rows)]
            table = make_table(shape, mode, values)
            kw = dict(compression=comp, data_page_version=version, use_dictionary=dictionary)
            if tiny:
                kw["data_page_size"] = 64
                kw["write_batch_size"] = 5
            if j % 4 == 3:
                kw["row_group_size"] = max(1, rows // 3)
            name = "%s-%d-%s-%s-v%s-%s%s.parquet" % (
                sname, j, mode, comp, version[0], "dict" if dictionary else "plain",
                "-tiny" if tiny else "")
            write(outdir, name, table, manifest, **kw)
            manifest[name].update(shape=sname, mode=mode, nulls=nulls[:5])
            data[name] = (shape, values)


def repeated(shape):
    if shape[0] in ("list", "map"):
        return True
    if shape[0] == "struct":
        return any(repeated(c) for _, c in shape[1])
    return False


def crossing_files(outdir, manifest, quick, data):
    """Pages that start inside records (see `repaginate`)."""
    scratch = os.path.join(outdir, "crossing-src.tmp")
    for s, (sname, shape) in enumerate(SHAPES):
        rng = random.Random(9000 + s)
        mode = MODES[s % len(MODES)] if s % 2 else "optional"
        nulls = [[0.0, 0.01, 0.5, 0.01, 0.0, 0.5][(s + d) % 6] for d in range(6)]
        rows = rows_for(rng, sname, quick) // 2
        gen = Gen(rng, mode, nulls, max_len_for(sname) + 2)
        values = [gen.value(shape, 0) for _ in range(rows)]
        table = make_table(shape, mode, values)
        kw = dict(compression="none", data_page_version="1.0", use_dictionary=False,
                  write_page_index=False, row_group_size=max(1, rows // 2) if s % 3 == 0 else None)
        pq.write_table(table, scratch, **{k: v for k, v in kw.items() if v is not None})
        codec = "gzip" if s % 2 else "none"
        name = "%s-crossing-%s-%s.parquet" % (sname, mode, codec)
        crossing = repaginate(scratch, os.path.join(outdir, name), rng, codec=codec)
        manifest[name] = dict(shape=sname, mode=mode, nulls=nulls[:5], rows=rows, codec=codec,
                              pages_starting_inside_a_record=crossing)
        data[name] = (shape, values)
        if not crossing and rows > 10 and repeated(shape):
            raise SystemExit("%s: no page starts inside a record" % name)
    os.remove(scratch)


def edge_files(outdir, manifest, data):
    shape = dict(SHAPES)["list_struct"]
    empty = make_table(shape, "optional", [])
    write(outdir, "edge-empty-table.parquet", empty, manifest)
    data["edge-empty-table.parquet"] = (shape, [])

    values = [None] * 3000
    write(outdir, "edge-all-null.parquet", make_table(shape, "optional", values), manifest,
          data_page_version="2.0")
    data["edge-all-null.parquet"] = (shape, values)

    shape3 = dict(SHAPES)["list3"]
    values = [[] if i % 2 else [[], [[]]] for i in range(3000)]
    write(outdir, "edge-all-empty.parquet", make_table(shape3, "required", values), manifest,
          use_dictionary=False)
    data["edge-all-empty.parquet"] = (shape3, values)

    rng = random.Random(77)
    long_list = [rng.randint(-10 ** 12, 10 ** 12) if i % 9 else None for i in range(20000)]
    shape1 = dict(SHAPES)["list_i64"]
    values = [[1], long_list, [], None, long_list[:5]]
    for version in ("1.0", "2.0"):
        name = "edge-long-record-v%s.parquet" % version[0]
        write(outdir, name, make_table(shape1, "optional", values), manifest,
              data_page_version=version, data_page_size=64, write_batch_size=5,
              use_dictionary=False)
        data[name] = (shape1, values)
    # Maps with repeated keys (the contract keeps every [key, value] pair).
    for sname in ("map_list", "list_map", "map_struct"):
        dshape = dict(SHAPES)[sname]
        gen = Gen(random.Random(len(sname)), "optional", [0.0, 0.1, 0.1, 0.1, 0.1, 0.1], 6,
                  duplicate_keys=True)
        dvalues = [gen.value(dshape, 0) for _ in range(500)]
        name = "edge-map-duplicate-keys-%s.parquet" % sname
        write(outdir, name, make_table(dshape, "optional", dvalues), manifest)
        data[name] = (dshape, dvalues)

    tmp = os.path.join(outdir, "long-src.tmp")
    pq.write_table(make_table(shape1, "optional", values), tmp, compression="none",
                   use_dictionary=False, write_page_index=False)
    name = "edge-long-record-crossing.parquet"
    crossing = repaginate(tmp, os.path.join(outdir, name), rng, max_levels=500)
    os.remove(tmp)
    manifest[name] = dict(shape="list_i64", pages_starting_inside_a_record=crossing)
    data[name] = (shape1, values)


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 64
    outdir = argv[0]
    quick = "--quick" in argv[1:]
    os.makedirs(outdir, exist_ok=True)
    manifest = {}
    data = {}
    main_files(outdir, manifest, quick, data)
    crossing_files(outdir, manifest, quick, data)
    edge_files(outdir, manifest, data)
    with open(os.path.join(outdir, "files.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
    if "--check" in argv[1:]:
        bad = []
        for name, (shape, values) in sorted(data.items()):
            err = check_file(os.path.join(outdir, name), shape, values)
            if err:
                bad.append("%s: %s" % (name, err))
        if bad:
            print("gen_nested --check: expected.py disagrees with the generated data:\n  "
                  + "\n  ".join(bad), file=sys.stderr)
            return 1
        print("gen_nested --check: expected.py agrees with the generated data on %d files" % len(data))
    print("gen_nested: %d files in %s" % (len(manifest), outdir))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
