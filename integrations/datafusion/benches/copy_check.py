"""Reads back the files `COPY_OUT=<dir> cargo bench --bench copy` left (parq's COPY of
TPC-H lineitem) with DuckDB and with pyarrow, and checks both equal the source table as a
multiset of rows. Usage: python3 benches/copy_check.py <source lineitem.parquet> <dir>"""
import sys

import duckdb
import pyarrow.dataset as ds

source, out = sys.argv[1], sys.argv[2]
con = duckdb.connect()
con.execute(f"CREATE VIEW src AS SELECT * FROM read_parquet('{source}')")
con.execute(f"CREATE VIEW by_duckdb AS SELECT * FROM read_parquet('{out}/**/*.parquet')")
by_pyarrow = ds.dataset(out, format="parquet").to_table()
con.register("by_pyarrow", by_pyarrow)
rows = con.execute("SELECT count(*) FROM src").fetchone()[0]
for reader in ["by_duckdb", "by_pyarrow"]:
    n = con.execute(f"SELECT count(*) FROM {reader}").fetchone()[0]
    missing = con.execute(f"SELECT count(*) FROM (FROM src EXCEPT ALL FROM {reader})").fetchone()[0]
    extra = con.execute(f"SELECT count(*) FROM (FROM {reader} EXCEPT ALL FROM src)").fetchone()[0]
    print(f"{reader}: {n} rows of {rows}; {missing} missing, {extra} extra")
    assert n == rows and missing == 0 and extra == 0, reader
print("equal")
