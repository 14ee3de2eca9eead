"""pyarrow as the oracle of uniform encryption (one key for the footer and every column),
through its direct-key API (pyarrow.parquet.encryption.create_*_properties, pyarrow >= 26).

  read  KEYHEX AAD IN.parquet OUT.arrow        decrypt IN, write its table as Arrow IPC
  write KEYHEX AAD ALGORITHM PLAINTEXT STORE IN.arrow OUT.parquet
                                               encrypt IN's table into OUT

AAD is the AAD prefix as text, or "-" for none; ALGORITHM AES_GCM_V1 or AES_GCM_CTR_V1;
PLAINTEXT and STORE are 0 or 1 (plaintext footer, store the AAD prefix).
"""
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pyarrow.parquet.encryption as pe


def aad(arg):
    return None if arg == "-" else arg.encode()


def main():
    mode, key, prefix = sys.argv[1], bytes.fromhex(sys.argv[2]), aad(sys.argv[3])
    if mode == "read":
        src, dst = sys.argv[4], sys.argv[5]
        props = pe.create_decryption_properties(key, aad_prefix=prefix)
        table = pq.read_table(src, decryption_properties=props)
        with pa.ipc.new_file(dst, table.schema) as w:
            w.write_table(table)
    elif mode == "write":
        algorithm, plaintext, store = sys.argv[4], sys.argv[5] == "1", sys.argv[6] == "1"
        src, dst = sys.argv[7], sys.argv[8]
        table = pa.ipc.open_file(src).read_all()
        props = pe.create_encryption_properties(
            key,
            aad_prefix=prefix,
            store_aad_prefix=store,
            encryption_algorithm=algorithm,
            plaintext_footer=plaintext,
        )
        pq.write_table(table, dst, encryption_properties=props, data_page_size=2048)
    else:
        sys.exit(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
