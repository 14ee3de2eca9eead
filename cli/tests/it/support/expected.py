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

Nested columns (lists, structs, maps) follow pyarrow's reading of the file,
legacy layouts included (2-level lists, repeated fields without annotation as
non-null lists, ...), with each leaf formatted by its own Parquet leaf as above:

    list                       -> JSON array
    struct                     -> JSON object, keys = the Parquet field names
                                  in schema order
    map                        -> array of [key, value] arrays (duplicate and
                                  non-string keys kept)
    MAP with only a key        -> array of the keys (pyarrow and parq read it as a
                                  list of the keys)
    null at any level          -> null

Files pyarrow can only read in batches (a nested column over 2 GiB, e.g.
large_string_map.brotli) are read in batches.

Exit codes (single-file mode): 0 ok; 2 the file is skipped, stderr says
"unreadable: ..."; 3 this script met something it does not know how to format
(a bug here, not in the file).

Batch mode processes many files in one interpreter (importing pyarrow costs
~0.3 s) and writes MANIFEST.json: a list of
{"file", "status": "ok"|"unreadable"|"error", "reason", "out", "rows"}.
"""

import json
import math
import struct
import sys
from decimal import Decimal

import pyarrow as pa
import pyarrow.parquet as pq


class Skip(Exception):
    """The file is not compared: status is 'unreadable'."""

    def __init__(self, status, reason, too_big=False):
        super().__init__(reason)
        self.status = status
        self.reason = reason
        # pyarrow could read the file in batches, not whole (see read_attempts).
        self.too_big = too_big


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
                    for v in drain(vals)]
        return ["null" if v is None else '"' + bytes(v).hex() + '"' for v in drain(vals)]

    raise Unsupported("physical type %s" % pt)


def drain(vals):
    """Yields the items of a list, dropping each from it as it goes: a value can
    be a GiB long (large_string_map.brotli), and a copy of every value at once
    is too many."""
    for i, v in enumerate(vals):
        vals[i] = None
        yield v


def stored_ints_any(chunks):
    vals = []
    for ch in chunks:
        if pa.types.is_timestamp(ch.type):
            ch = ch.cast(pa.int64())
        elif not pa.types.is_integer(ch.type) and not pa.types.is_null(ch.type):
            raise Unsupported("INT96 as arrow type %s" % ch.type)
        vals.extend(ch.to_pylist())
    return vals


# ---------------------------------------------------------------- Parquet schema tree
#
# pyarrow's Python API shows the Parquet schema only as its leaves (ColumnSchema).
# Group annotations (MAP, LIST, MAP_KEY_VALUE) are needed to tell a MAP whose
# key_value group has only a key (pyarrow reads it as a list of keys) from a list, so
# the schema elements are read from the footer with a small Thrift compact reader.

REQUIRED, OPTIONAL, REPEATED = 0, 1, 2
CONVERTED_GROUP = {1: "MAP", 2: "MAP_KEY_VALUE", 3: "LIST"}
LOGICAL_GROUP = {2: "MAP", 3: "LIST"}  # LogicalType union member ids


class PNode:
    """One Parquet schema element: a group (children) or a leaf (physical type)."""

    def __init__(self, name, physical, repetition, converted, logical):
        self.name = name
        self.physical = physical  # None for groups
        self.repetition = repetition
        self.converted = converted  # "MAP" / "MAP_KEY_VALUE" / "LIST" / None
        self.logical = logical  # "MAP" / "LIST" / None
        self.children = []
        self.parent = None

    def is_leaf(self):
        return self.physical is not None

    def annotated(self, *kinds):
        return self.converted in kinds or self.logical in kinds

    def leaves(self):
        if self.is_leaf():
            return [self]
        return [leaf for c in self.children for leaf in c.leaves()]

    def chain(self):
        """Nodes from the top-level field down to this one (the root message excluded)."""
        out = []
        n = self
        while n.parent is not None:
            out.append(n)
            n = n.parent
        return out[::-1]


class ThriftCompact:
    def __init__(self, buf):
        self.b = buf
        self.i = 0

    def byte(self):
        v = self.b[self.i]
        self.i += 1
        return v

    def varint(self):
        shift = 0
        v = 0
        while True:
            c = self.byte()
            v |= (c & 0x7F) << shift
            shift += 7
            if not c & 0x80:
                return v

    def zigzag(self):
        v = self.varint()
        return (v >> 1) ^ -(v & 1)

    def binary(self):
        n = self.varint()
        v = bytes(self.b[self.i:self.i + n])
        self.i += n
        return v

    def fields(self):
        """(field id, type) of each field of a struct, up to its STOP.

        The caller reads (or skips) each field's value before asking for the next.
        """
        fid = 0
        while True:
            h = self.byte()
            if h == 0:
                return
            delta = h >> 4
            fid = fid + delta if delta else self.zigzag()
            yield fid, h & 0x0F

    def list_header(self):
        h = self.byte()
        n = h >> 4
        if n == 15:
            n = self.varint()
        return n, h & 0x0F

    def skip(self, t, in_collection=False):
        if t in (1, 2):  # booleans: in the field type, or one byte in a collection
            if in_collection:
                self.i += 1
        elif t == 3:
            self.i += 1
        elif t in (4, 5, 6):
            self.varint()
        elif t == 7:
            self.i += 8
        elif t == 8:
            self.binary()
        elif t in (9, 10):
            n, et = self.list_header()
            for _ in range(n):
                self.skip(et, True)
        elif t == 11:
            n = self.varint()
            if n:
                kv = self.byte()
                for _ in range(n):
                    self.skip(kv >> 4, True)
                    self.skip(kv & 0x0F, True)
        elif t == 12:
            for _, ft in self.fields():
                self.skip(ft)
        else:
            raise ValueError("thrift compact type %d" % t)

    def schema_element(self):
        e = {"name": "", "type": None, "rep": None, "children": 0, "converted": None, "logical": None}
        for fid, t in self.fields():
            if fid == 1 and t == 5:
                e["type"] = self.zigzag()
            elif fid == 3 and t == 5:
                e["rep"] = self.zigzag()
            elif fid == 4 and t == 8:
                e["name"] = self.binary().decode("utf-8", "replace")
            elif fid == 5 and t == 5:
                e["children"] = self.zigzag()
            elif fid == 6 and t == 5:
                e["converted"] = CONVERTED_GROUP.get(self.zigzag())
            elif fid == 10 and t == 12:
                for lf, lt in self.fields():
                    if e["logical"] is None:
                        e["logical"] = LOGICAL_GROUP.get(lf, "other")
                    self.skip(lt)
            else:
                self.skip(t)
        return e


def parquet_schema_tree(path):
    """The root PNode of the file's schema, read from its (plaintext) footer."""
    with open(path, "rb") as f:
        f.seek(0, 2)
        size = f.tell()
        f.seek(size - 8)
        tail = f.read(8)
        if tail[4:] != b"PAR1":
            raise Unsupported("no plaintext footer")
        n = int.from_bytes(tail[:4], "little")
        f.seek(size - 8 - n)
        buf = f.read(n)
    r = ThriftCompact(buf)
    elems = None
    for fid, t in r.fields():
        if fid == 2 and t == 9:
            count, et = r.list_header()
            if et != 12:
                raise Unsupported("schema list of thrift type %d" % et)
            elems = [r.schema_element() for _ in range(count)]
            break
        r.skip(t)
    if not elems:
        raise Unsupported("footer without schema")
    it = iter(elems)

    def node(e):
        n = PNode(e["name"], e["type"] if not e["children"] else None, e["rep"],
                  e["converted"], e["logical"])
        for _ in range(e["children"]):
            c = node(next(it))
            c.parent = n
            n.children.append(c)
        return n

    return node(next(it))


# ---------------------------------------------------------------- nested plans
#
# A plan mirrors one Arrow type as pyarrow reads the column, with each Arrow leaf
# tied to its Parquet leaf (same depth-first order) so that the leaf is formatted
# by its Parquet types. Each Arrow list or map is one repetition level, i.e. one
# REPEATED node on the leaf's Parquet path, in order.

class Plan:
    def __init__(self, kind, kids=(), names=None, cs=None, pnode=None):
        self.kind = kind  # "leaf" | "struct" | "list" | "fixed_list" | "map" | "keys"
        self.kids = list(kids)
        self.names = names
        self.cs = cs
        self.pnode = pnode

    def first_leaf(self):
        p = self
        while p.kind != "leaf":
            if not p.kids:
                raise Unsupported("a group without leaves")
            p = p.kids[0]
        return p


def make_plan(t, leaves, rep):
    """Plan for Arrow type `t`; takes its Parquet leaves from the iterator `leaves`."""
    if isinstance(t, pa.BaseExtensionType):
        t = t.storage_type
    if pa.types.is_struct(t):
        names = [t.field(j).name for j in range(t.num_fields)]
        kids = [make_plan(t.field(j).type, leaves, rep) for j in range(t.num_fields)]
        for name, kid in zip(names, kids):
            if kid.kind == "leaf" and kid.pnode.name != name:
                raise Unsupported("struct field %r is Parquet leaf %r" % (name, kid.pnode.name))
        return Plan("struct", kids, names)
    if pa.types.is_map(t):
        kids = [make_plan(t.key_type, leaves, rep + 1), make_plan(t.item_type, leaves, rep + 1)]
        return Plan("map", kids)
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        kid = make_plan(t.value_type, leaves, rep + 1)
        kind = "fixed_list" if pa.types.is_fixed_size_list(t) else "list"
        # The REPEATED Parquet node of this level, and the group that holds it.
        leaf = kid.first_leaf().pnode
        repeated = [n for n in leaf.chain() if n.repetition == REPEATED]
        r = repeated[rep]
        parent = r.parent
        if r.annotated("MAP_KEY_VALUE") or (parent is not None and parent.annotated("MAP", "MAP_KEY_VALUE")):
            # A MAP whose key_value group has only a key: pyarrow reads a list of keys,
            # and so does parq; it prints as that list.
            if kid.kind != "leaf" or len(r.children) != 1 or kind != "list":
                raise Unsupported("MAP group %r read by pyarrow as %s" % (parent.name, t))
            kind = "list"
        return Plan(kind, [kid])
    if pa.types.is_nested(t):
        raise Unsupported("arrow type %s" % t)
    try:
        pnode, cs = next(leaves)
    except StopIteration:
        raise Unsupported("more arrow leaves than Parquet leaves")
    if cs.max_repetition_level != rep:
        raise Unsupported("arrow leaf %s under %d lists is Parquet leaf %r with max repetition level %d"
                          % (t, rep, cs.path, cs.max_repetition_level))
    return Plan("leaf", cs=cs, pnode=pnode)


def f32_paths(plan, prefix):
    """JSON paths of the FLOAT leaves: key names for objects, None for any array
    element, 0 / 1 for the key / value of a map entry."""
    if plan.kind == "leaf":
        return [prefix] if plan.cs.physical_type == "FLOAT" else []
    if plan.kind == "struct":
        return [p for name, k in zip(plan.names, plan.kids) for p in f32_paths(k, prefix + [name])]
    if plan.kind in ("map", "keys"):
        return [p for pos, k in enumerate(plan.kids) for p in f32_paths(k, prefix + [None, pos])]
    return f32_paths(plan.kids[0], prefix + [None])


def has_int96(plan):
    if plan.kind == "leaf":
        return plan.cs.physical_type == "INT96"
    return any(has_int96(k) for k in plan.kids)


def storage(arr):
    while arr is not None and isinstance(arr.type, pa.BaseExtensionType):
        arr = arr.storage
    return arr


def list_parts(arr, kind):
    """(offsets relative to the first, the child values they index) of a list-like array."""
    n = len(arr)
    if kind == "fixed_list":
        size = arr.type.list_size
        offs = [(arr.offset + i) * size for i in range(n + 1)]
    else:
        offs = arr.offsets.to_pylist()
    base = offs[0]
    values = arr.values.slice(base, offs[-1] - base)
    return [o - base for o in offs], values


def slot_texts(plan, arr, arr_s=None):
    """JSON texts for every slot of one (non-chunked) array of a nested column.

    `arr_s` is the same column read with INT96 as seconds (only when it holds INT96).
    """
    if plan.kind == "leaf":
        return column_texts(plan.cs, pa.chunked_array([arr], type=arr.type),
                            None if arr_s is None else pa.chunked_array([arr_s], type=arr_s.type))
    arr, arr_s = storage(arr), storage(arr_s)
    n = len(arr)
    if arr_s is not None and len(arr_s) != n:
        raise Unsupported("INT96 second reading has %d slots, not %d" % (len(arr_s), n))
    valid = arr.is_valid().to_pylist() if arr.null_count else None

    if plan.kind == "struct":
        kids = arr.flatten()  # applies the struct's offset and its nulls
        kids_s = arr_s.flatten() if arr_s is not None else [None] * len(kids)
        texts = [slot_texts(p, k, ks) for p, k, ks in zip(plan.kids, kids, kids_s)]
        keys = [json.dumps(name, ensure_ascii=False) + ":" for name in plan.names]
        out = []
        for i in range(n):
            if valid is not None and not valid[i]:
                out.append("null")
            else:
                out.append("{" + ",".join(k + t[i] for k, t in zip(keys, texts)) + "}")
            for t in texts:
                t[i] = None
        return out

    offs, values = list_parts(arr, plan.kind)
    values_s = None
    if arr_s is not None:
        offs_s, values_s = list_parts(arr_s, plan.kind)
        if offs_s != offs:
            raise Unsupported("INT96 second reading has other list offsets")
    if plan.kind == "map":
        entries = values.flatten()
        entries_s = values_s.flatten() if values_s is not None else [None, None]
        keys = slot_texts(plan.kids[0], entries[0], entries_s[0])
        items = slot_texts(plan.kids[1], entries[1], entries_s[1])
        elems = ["[" + k + "," + v + "]" for k, v in zip(drain(keys), drain(items))]
    elif plan.kind == "keys":
        elems = ["[" + k + ",null]" for k in drain(slot_texts(plan.kids[0], values, values_s))]
    else:
        elems = slot_texts(plan.kids[0], values, values_s)
    out = []
    for i in range(n):
        a, b = offs[i], offs[i + 1]
        if valid is not None and not valid[i]:
            out.append("null")
        else:
            out.append("[" + ",".join(elems[a:b]) + "]")
        elems[a:b] = [None] * (b - a)
    return out


# ---------------------------------------------------------------- per file

class Col:
    """One top-level field: its name, its Parquet leaf (flat) or its plan (nested)."""

    def __init__(self, index, name, cs=None, plan=None):
        self.index = index  # position among the top-level fields
        self.name = name
        self.cs = cs
        self.plan = plan

    def int96(self):
        if self.plan is not None:
            return has_int96(self.plan)
        return self.cs.physical_type == "INT96"

    def f32_keys(self):
        if self.plan is not None:
            return f32_paths(self.plan, [self.name])
        return [self.name] if self.cs.physical_type == "FLOAT" else []

    def texts(self, col, col_s):
        """Texts for every row of a chunked column (col_s: its INT96 seconds reading)."""
        if self.plan is None:
            return column_texts(self.cs, col, col_s)
        chunks = col.chunks
        chunks_s = [None] * len(chunks)
        if col_s is not None:
            chunks_s = col_s.chunks
            if [len(c) for c in chunks] != [len(c) for c in chunks_s]:
                chunks, chunks_s = [col.combine_chunks()], [col_s.combine_chunks()]
        out = []
        for ch, ch_s in zip(chunks, chunks_s):
            out.extend(slot_texts(self.plan, ch, ch_s))
        return out


def file_columns(pf, path):
    """A Col per top-level field, in schema order."""
    s = pf.schema
    leaves = [s.column(i) for i in range(len(s))]
    if all(c.max_repetition_level == 0 and c.path == c.name for c in leaves):
        return [Col(i, c.name, cs=c) for i, c in enumerate(leaves)]
    arrow = pf.schema_arrow
    root = parquet_schema_tree(path)
    pleaves = root.leaves()
    if len(pleaves) != len(leaves) or len(root.children) != len(arrow):
        raise Unsupported("footer schema has %d leaves and %d fields, pyarrow %d and %d"
                          % (len(pleaves), len(root.children), len(leaves), len(arrow)))
    cols = []
    pos = 0
    for i, (field, top) in enumerate(zip(arrow, root.children)):
        if field.name != top.name:
            raise Unsupported("arrow field %r is Parquet field %r" % (field.name, top.name))
        mine = top.leaves()
        pairs = list(zip(mine, leaves[pos:pos + len(mine)]))
        pos += len(mine)
        if top.is_leaf() and top.repetition != REPEATED:
            cols.append(Col(i, field.name, cs=pairs[0][1]))
            continue
        it = iter(pairs)
        plan = make_plan(field.type, it, 0)
        if next(it, None) is not None:
            raise Unsupported("field %r: more Parquet leaves than arrow leaves" % field.name)
        cols.append(Col(i, field.name, plan=plan))
    return cols


def expected_lines(path, columns=None, limit=None, batch_size=None):
    """(f32 keys, an iterator over the expected rows) of one file.

    Each row is a list of text pieces that make one line when joined.

    Reads the whole table, or `batch_size` rows at a time when given (for files
    pyarrow can only read in batches). Raises Skip for files pyarrow cannot open
    or whose columns are not there; reading errors surface while iterating.
    """
    try:
        pf = pq.ParquetFile(path, arrow_extensions_enabled=False)
        cols = file_columns(pf, path)
    except Unsupported:
        raise
    except Exception as e:  # encrypted, malformed footer, unsupported schema
        raise Skip("unreadable", "%s: %s" % (type(e).__name__, e))

    if columns is not None:
        names = [c.name for c in cols]
        for want in columns:
            if want not in names:
                raise Skip("unreadable", "no column %r" % want)
        cols = [c for c in cols if c.name in columns]
    f32_keys = [k for c in cols for k in c.f32_keys()]
    return f32_keys, _lines(pf, path, cols, limit, batch_size)


def names_apart(names):
    """Top-level names made distinct as `parq cat` prints them (and DuckDB reads them): a
    repeated name takes the first free suffix _1, _2, ..."""
    taken, out = set(), []
    for i, name in enumerate(names):
        printed = name
        if name in names[:i]:
            k = 1
            while "%s_%d" % (name, k) in taken or "%s_%d" % (name, k) in names:
                k += 1
            printed = "%s_%d" % (name, k)
        taken.add(printed)
        out.append(printed)
    return out


def _lines(pf, path, cols, limit, batch_size):
    need_s = any(c.int96() for c in cols)
    ncols = len(pf.schema_arrow)
    if batch_size is None:
        try:
            table = pf.read(use_threads=False)
            table_s = None
            if need_s:
                pf_s = pq.ParquetFile(path, arrow_extensions_enabled=False,
                                      coerce_int96_timestamp_unit="s")
                table_s = pf_s.read(use_threads=False)
        except Exception as e:
            too_big = isinstance(e, pa.ArrowNotImplementedError) and "chunked array" in str(e)
            raise Skip("unreadable", "%s: %s" % (type(e).__name__, e), too_big)
        if limit is not None:
            table = table.slice(0, limit)
            if table_s is not None:
                table_s = table_s.slice(0, limit)
        parts = iter([(table, table_s)])
        del table, table_s
    else:
        def batches():
            left = limit
            it = pf.iter_batches(batch_size=batch_size, use_threads=False)
            it_s = None
            if need_s:
                it_s = pq.ParquetFile(path, arrow_extensions_enabled=False,
                                      coerce_int96_timestamp_unit="s").iter_batches(
                                          batch_size=batch_size, use_threads=False)
            while left is None or left > 0:
                try:
                    b = next(it, None)
                    b_s = next(it_s) if it_s is not None and b is not None else None
                except Exception as e:
                    raise Skip("unreadable", "%s: %s" % (type(e).__name__, e))
                if b is None:
                    return
                if left is not None:
                    b = b.slice(0, left)
                    b_s = b_s.slice(0, left) if b_s is not None else None
                    left -= b.num_rows
                part = (pa.Table.from_batches([b]),
                        pa.Table.from_batches([b_s]) if b_s is not None else None)
                del b, b_s  # held only by the caller while it formats the batch
                yield part
                del part
        parts = batches()

    for part in parts:
        table, table_s = part
        del part
        if table.num_columns != ncols:
            raise Unsupported("arrow table has %d columns, arrow schema %d" % (table.num_columns, ncols))
        texts = []
        keys = []
        printed = names_apart([c.name for c in cols])
        for c, name in zip(cols, printed):
            col_s = table_s.column(c.index) if table_s is not None and c.int96() else None
            try:
                t = c.texts(table.column(c.index), col_s)
            except Exception as e:  # a failure to format is a bug here, not in the file
                raise Unsupported("column %r: %s: %s" % (c.name, type(e).__name__, e))
            if len(t) != table.num_rows:
                raise Unsupported("column %r gave %d values for %d rows" % (c.name, len(t), table.num_rows))
            texts.append(t)
            keys.append(json.dumps(name, ensure_ascii=False) + ":")
            del t, col_s
        sep = [","] * len(keys)
        if sep:
            sep[0] = "{"
        rows = table.num_rows
        del table, table_s  # a batch's memory goes before the next batch is read
        for r in range(rows):
            # A row as pieces, not one string: a value can be a GiB long.
            pieces = [p for s, k, t in zip(sep, keys, texts) for p in (s, k, t[r])] if keys else ["{"]
            pieces.append("}\n")
            for t in texts:
                t[r] = None
            yield pieces
            del pieces
        del texts


def read_attempts(path):
    """How to read a file: whole (None), then in batches of the sizes that follow.

    pyarrow cannot return a nested column of more than 2 GiB of binary data in
    one piece ("Nested data conversions not implemented for chunked array
    outputs"; large_string_map.brotli: two 1 GiB map keys). Only then is the file
    read in batches, sized to hold about 256 MiB of the largest row group, then
    one row at a time. (Any other failure of a whole read stands: iter_batches
    is laxer, e.g. it reads bad_data/ARROW-GH-41317, whose columns differ in
    length. Only row group totals are looked at: touching a column chunk's
    metadata of a file with encrypted columns aborts pyarrow.)
    """
    try:
        md = pq.ParquetFile(path).metadata
        rgs = [md.row_group(i) for i in range(md.num_row_groups)]
        biggest = max(rgs, key=lambda rg: rg.total_byte_size, default=None)
    except Exception:  # expected_lines says why
        return [None]
    sized = 1
    if biggest is not None and biggest.total_byte_size > 0:
        sized = biggest.num_rows * (256 << 20) // biggest.total_byte_size
    return [None] + ([sized] if sized > 1 else []) + [1]


def write_expected(path, out, columns=None, limit=None):
    """Writes OUT (JSON Lines) and OUT.f32.json (where the FLOAT values are).

    FLOAT keys matter to the comparison: a shortest f32 decimal can have two
    equally short forms (19781.0625 -> "19781.062" or "19781.063"), which are
    equal only when parsed as f32. OUT.f32.json lists the top-level keys of flat
    FLOAT columns as strings, and the FLOAT leaves inside nested columns as JSON
    paths: [key, step, ...], a step being an object key (string), null (any
    element of an array) or 0 / 1 (the key / value of a map's [key, value] pair).
    """
    first_error = None
    for batch_size in read_attempts(path):
        f32_keys, lines = expected_lines(path, columns, limit, batch_size)
        rows = 0
        try:
            with open(out, "w", encoding="utf-8") as f:
                for pieces in lines:
                    f.writelines(pieces)
                    rows += 1
                    pieces = None  # not kept while the next row is made
        except Skip as e:
            first_error = first_error or e
            if batch_size is None and not e.too_big:
                break
            continue
        with open(out + ".f32.json", "w", encoding="utf-8") as f:
            json.dump(f32_keys, f)
        return rows
    raise first_error


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
