"""Dump parquet files as pyarrow reads them, for tests/it/write_interop.rs.

Usage: dump.py FILE...   Prints one JSON object per file (one line each):
  {"file", "num_rows", "columns": {name: [value...]}, "row_groups": [[chunk...]...]}

Values are made exactly comparable: floats (incl. FLOAT16) as their bit patterns (ints),
temporal types as their stored integers, decimals as unscaled integer strings, strings and
binaries as hex of their bytes, nulls as null. Each chunk carries what the footer says:
encodings, compression, statistics (min/max raw values in the same forms), page index flags.
"""
import json
import struct
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pyarrow.types as t


def storage(arr):
    if isinstance(arr.type, pa.BaseExtensionType):
        return storage(arr.storage)
    return arr


def values(arr):
    arr = storage(arr)
    ty = arr.type
    if t.is_boolean(ty) or t.is_integer(ty) or t.is_null(ty):
        return arr.to_pylist()
    if t.is_float16(ty):
        return arr.view(pa.uint16()).to_pylist()
    if t.is_float32(ty):
        return arr.view(pa.uint32()).to_pylist()
    if t.is_float64(ty):
        return arr.view(pa.uint64()).to_pylist()
    if t.is_date32(ty) or t.is_time32(ty):
        return arr.view(pa.int32()).to_pylist()
    if t.is_date64(ty) or t.is_time64(ty) or t.is_timestamp(ty) or t.is_duration(ty):
        return arr.view(pa.int64()).to_pylist()
    if t.is_decimal(ty):
        width = ty.byte_width
        raw = arr.view(pa.binary(width)).to_pylist()
        return [None if b is None else str(int.from_bytes(b, "little", signed=True)) for b in raw]
    if t.is_string(ty) or t.is_large_string(ty) or t.is_string_view(ty):
        # As bytes: a writer may have stored invalid UTF-8 (DuckDB's invalid_utf8_*.parquet).
        as_bytes = {pa.string(): pa.binary(), pa.large_string(): pa.large_binary()}.get(ty, pa.binary_view())
        return [None if b is None else b.hex() for b in arr.view(as_bytes).to_pylist()]
    if t.is_binary(ty) or t.is_large_binary(ty) or t.is_fixed_size_binary(ty) or t.is_binary_view(ty):
        return [None if b is None else b.hex() for b in arr.to_pylist()]
    raise SystemExit(f"unhandled arrow type {ty}")


def raw(v, physical, width):
    if v is None:
        return None
    if isinstance(v, bool):
        return v
    if isinstance(v, float):
        if physical == "FLOAT":
            return struct.unpack("<I", struct.pack("<f", v))[0]
        return struct.unpack("<Q", struct.pack("<d", v))[0]
    if isinstance(v, int):
        return v
    if isinstance(v, str):
        v = v.encode("utf-8")
    return bytes(v).hex()


def chunk(c):
    out = {
        "path": c.path_in_schema,
        "physical": c.physical_type,
        "encodings": sorted(c.encodings),
        "compression": c.compression,
        "num_values": c.num_values,
        "has_dictionary_page": c.has_dictionary_page,
        "has_column_index": c.has_column_index,
        "has_offset_index": c.has_offset_index,
        "statistics": None,
    }
    s = c.statistics
    if c.is_stats_set and s is not None:
        st = {"null_count": s.null_count if s.has_null_count else None, "has_min_max": s.has_min_max}
        if s.has_min_max:
            st["min"] = raw(s.min_raw, c.physical_type, None)
            st["max"] = raw(s.max_raw, c.physical_type, None)
        out["statistics"] = st
    return out


def dump(path):
    f = pq.ParquetFile(path)
    md = f.metadata
    table = f.read()
    cols = {name: values(table.column(name).combine_chunks()) for name in table.column_names}
    rgs = [[chunk(md.row_group(i).column(j)) for j in range(md.num_columns)] for i in range(md.num_row_groups)]
    kv = {k.decode("utf-8", "replace"): v.decode("utf-8", "replace") for k, v in (md.metadata or {}).items()}
    return {"file": path, "num_rows": md.num_rows, "columns": cols, "row_groups": rgs, "created_by": md.created_by, "kv": kv}


def main():
    for path in sys.argv[1:]:
        try:
            print(json.dumps(dump(path)))
        except Exception as e:  # report per file, keep going
            print(json.dumps({"file": path, "error": f"{type(e).__name__}: {e}"}))


if __name__ == "__main__":
    main()
