//! Bit unpacking and packing kernels (in progress).
