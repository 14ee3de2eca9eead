//! Byte shuffles for BYTE_STREAM_SPLIT (in progress).
