//! The file footer: Thrift compact protocol and the `parquet.thrift` structs (in progress).
