"""The tables of tests/it/cdc.rs, written by pyarrow.

usage: gen.py OUT_DIR ROWS NESTED(0|1) [MIN MAX NORM]

Writes into OUT_DIR:
  src.parquet       the table, without content-defined chunking (what parq rewrites);
  src_edit.parquet  the same with 1 % new rows inserted in the middle;
  py.parquet        the table by pyarrow with use_content_defined_chunking=True,
                    use_dictionary=False, data page v1, no compression;
  py_edit.parquet   the edited table, the same way.
Prints {"pyarrow": version, "edit_at": row, "inserted": rows} as JSON.
"""

import decimal
import json
import random
import string
import sys

import pyarrow as pa
import pyarrow.parquet as pq


def table(rows, seed, nested):
    r = random.Random(seed)
    letters = string.ascii_letters + string.digits

    def text(lo, hi):
        return "".join(r.choices(letters, k=r.randint(lo, hi)))

    def maybe(p, f):
        return None if r.random() < p else f()

    cols = {
        "req": pa.array([r.randint(-(2**40), 2**40) for _ in range(rows)], pa.int64()),
        "i64": pa.array([r.randint(-(2**62), 2**62) for _ in range(rows)], pa.int64()),
        "i32": pa.array([r.randint(-(2**31), 2**31 - 1) for _ in range(rows)], pa.int32()),
        "i16": pa.array([r.randint(-(2**15), 2**15 - 1) for _ in range(rows)], pa.int16()),
        "f64": pa.array([r.random() * 1e6 for _ in range(rows)], pa.float64()),
        "flag": pa.array([maybe(0.1, lambda: r.random() < 0.5) for _ in range(rows)], pa.bool_()),
        "s": pa.array([text(0, 24) for _ in range(rows)], pa.string()),
        "long_s": pa.array([text(40, 120) for _ in range(rows)], pa.string()),
        "opt_i64": pa.array(
            [maybe(0.1, lambda: r.randint(0, 2**50)) for _ in range(rows)], pa.int64()
        ),
        "opt_s": pa.array([maybe(0.1, lambda: text(1, 16)) for _ in range(rows)], pa.string()),
        "dec": pa.array(
            [
                maybe(0.05, lambda: decimal.Decimal(r.randint(-(10**11), 10**11)).scaleb(-2))
                for _ in range(rows)
            ],
            pa.decimal128(12, 2),
        ),
    }
    schema = [pa.field(k, v.type, nullable=(k != "req")) for k, v in cols.items()]
    if nested:

        def items(f):
            if r.random() < 0.05:
                return None
            return [maybe(0.05, f) for _ in range(r.randint(0, 5))]

        cols["li"] = pa.array(
            [items(lambda: r.randint(0, 2**40)) for _ in range(rows)], pa.list_(pa.int64())
        )
        cols["ls"] = pa.array(
            [items(lambda: text(0, 12)) for _ in range(rows)], pa.list_(pa.string())
        )
        schema += [pa.field("li", cols["li"].type), pa.field("ls", cols["ls"].type)]
    return pa.Table.from_arrays(list(cols.values()), schema=pa.schema(schema))


def main():
    out, rows, nested = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
    cdc = {}
    if len(sys.argv) > 4:
        cdc = {
            "min_chunk_size": int(sys.argv[4]),
            "max_chunk_size": int(sys.argv[5]),
            "norm_level": int(sys.argv[6]),
        }
    t = table(rows, 1, nested)
    inserted = max(1, rows // 100)
    at = rows // 2
    new = table(inserted, 2, nested)
    edited = pa.concat_tables([t.slice(0, at), new, t.slice(at)]).combine_chunks()
    # One chunk per column, as parq's writer gets a row group: pyarrow's chunker sees each
    # Arrow chunk in its own call (and does not cut at the end of one).
    for name, tab in [("", t), ("_edit", edited)]:
        pq.write_table(tab, f"{out}/src{name}.parquet", compression="none")
        pq.write_table(
            tab,
            f"{out}/py{name}.parquet",
            compression="none",
            use_dictionary=False,
            data_page_version="1.0",
            use_content_defined_chunking=cdc or True,
        )
    print(json.dumps({"pyarrow": pa.__version__, "edit_at": at, "inserted": inserted}))


main()
