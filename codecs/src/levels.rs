//! Definition levels to validity bitmaps, and run-based null scatter.
