//! Compression codecs: <https://github.com/apache/parquet-format/blob/master/Compression.md>.
