//! Valid random Parquet files for other crates' tests and fuzzers (feature `testing`).
//!
//! - **Strategies** (`proptest`): schemas flat and nested ([`schema`]), columns matching a
//!   schema with null rates, value distributions and edge values ([`columns`]), writer options
//!   ([`options`]), and whole files ([`spec::file_spec`]).
//! - **[`FileSpec`]**: a schema, the columns and the writer options of one file.
//!   [`FileSpec::write`] gives the bytes and the arrays they must decode to. `FileSpec`
//!   implements `arbitrary::Arbitrary` ([`mod@arbitrary`]), so a cargo-fuzz target turns fuzzer
//!   bytes into a valid file.
//! - **A round-trip checker**: [`assert_roundtrip`] / [`check_roundtrip`] write a spec, read it
//!   back (with parq, or a reader of yours through [`ParquetReadUnderTest`]) and report the
//!   first difference by column path, row and value.
//! - **Near-valid corruptions** ([`mod@mutate`]): each names what it broke, so a test can assert
//!   the reader's error names it too.
//!
//! # Plugging in another reader, to find its bugs
//!
//! A reader that returns parq arrays implements [`ParquetReadUnderTest`]; one that returns
//! Arrow `RecordBatch`es (most do) implements `arrow::ArrowReadUnderTest` (features `testing`
//! and `arrow`) and runs through `arrow::check_roundtrip_arrow`, which inverts the usual Arrow
//! mappings (INT96 as `Timestamp(ns)`, byte-array decimals as `Decimal128/256`, INTERVAL) so
//! that only real differences are reported. [`SpecConfig::leaves`] ([`LeafFilter`]) leaves out
//! the types a reader does not support, [`FileSpec::arbitrary_with`] fuzzes within a config,
//! and [`mutate()`] checks that corrupt files give errors, not panics.
//! `examples/find_reader_bugs.rs` does all three against the parquet crate, and finds, in
//! version 60.1, invalid nested arrays for `list<struct<required struct<...>>>` and a panic on
//! a FIXED_LEN_BYTE_ARRAY dictionary index past the end:
//!
//! ```text
//! cargo run --features testing,arrow --example find_reader_bugs
//! 2. list<struct<required struct<required INT32>>>: 24 of 50 files differ
//!    e.g. parquet crate: ... an invalid array: ... non-nullable child of type Int32 contains
//!    nulls not present in parent Struct ...
//! 3. ... the parquet crate panicked: range end index 28 out of range for slice of length 24;
//!    parq: dictionary index 6 out of range for 6 entries (column f0, row group 0, page 1, ...)
//! ```
//!
//! ```
//! use parq::testing::{assert_roundtrip, spec::file_spec, SpecConfig};
//! use proptest::prelude::*;
//! use proptest::test_runner::{Config, TestRunner};
//!
//! let mut runner = TestRunner::new(Config { cases: 4, ..Config::default() });
//! runner.run(&file_spec(SpecConfig::default()), |spec| {
//!     assert_roundtrip(&spec);
//!     Ok(())
//! }).unwrap();
//! ```
//!
//! Every generator draws from an [`Entropy`]: a seeded [`Rng`] under proptest, the fuzzer's
//! bytes under `arbitrary`. The same code builds both, so what proptest reaches, a fuzzer can
//! reach too.
//!
//! # What the generators cover
//!
//! - **Strategies** (`parq::testing::{schema, columns, options, spec}`): schemas flat or nested
//!   (lists, structs, maps, required or optional at each level) over every leaf type parq writes
//!   (integers of every width and sign; decimals on INT32, INT64, FIXED_LEN_BYTE_ARRAY and
//!   BYTE_ARRAY; dates, times and timestamps of every unit; string, enum, JSON, BSON, UUID,
//!   FLOAT16, INTERVAL, INT96, fixed-length byte arrays of several widths). Columns come with
//!   null rates (none to all), distributions (unique, low cardinality, sorted, runs) and edge
//!   values (NaN payloads, -0.0, subnormals, `i64::MIN/MAX`, empty and long strings). Writer
//!   options cover every codec, v1 and v2 pages, every encoding valid for each column, page and
//!   row-group limits down to one row, statistics and page index on and off. `file_spec(config)`
//!   combines them, and `FileSpec::write()` returns the bytes and the arrays they must read back
//!   as.
//! - **`arbitrary::Arbitrary for FileSpec`**: the fuzzer's bytes steer every choice
//!   (deterministic; at most 4 fields, depth 3, 300 rows; bytes that run out read as zeros, which
//!   still make a valid spec).
//! - **Round-trip checker**: `assert_roundtrip(&spec)` / `check_roundtrip(&spec) -> Result<(),
//!   Mismatch>` write the file and read it back with parq. With `arrow`, they also read it as
//!   `RecordBatch`es. They report the first difference by path (`f0[3].c1[0]`), row and typed
//!   value, comparing floats bit for bit. Your reader plugs in through `ParquetReadUnderTest`
//!   (`check_roundtrip_with`).
//! - **Named corruptions**: `mutate(&file, Mutation::X)` breaks one thing and says what:
//!   - a page header's compressed size, or its uncompressed size;
//!   - a dictionary index past the dictionary;
//!   - a level stream that ends early;
//!   - a column chunk offset past the end;
//!   - the footer length;
//!   - the magic.
//!
//!   `Mutation::named_by(error_message)` checks that a reader's error names what broke.
//!
//! [`check_roundtrip`] returns the mismatch instead of panicking, for a proptest runner:
//!
//! ```
//! use parq::testing::{check_roundtrip, spec::file_spec, SpecConfig};
//! use proptest::test_runner::{Config, TestCaseError, TestRunner};
//! let mut runner = TestRunner::new(Config { cases: 8, failure_persistence: None, ..Config::default() });
//! runner
//!     .run(&file_spec(SpecConfig::default()), |spec| {
//!         check_roundtrip(&spec).map_err(|m| TestCaseError::fail(m.to_string()))
//!     })
//!     .unwrap();
//! ```

pub mod arbitrary;
#[cfg(feature = "arrow")]
pub mod arrow;
pub mod columns;
pub mod leaves;
pub mod mutate;
pub mod options;
pub mod roundtrip;
pub mod schema;
pub mod spec;
pub mod variant;

pub use leaves::{LeafFilter, LogicalKind};
pub use mutate::{mutate, mutations, Mutated, Mutation};
pub use roundtrip::{
    assert_roundtrip, assert_roundtrip_with, check_roundtrip, check_roundtrip_with, compare,
    Mismatch, ParqReader, ParquetReadUnderTest,
};
pub use spec::{FileSpec, SpecConfig};

/// A source of choices for the generators.
///
/// Both methods must be deterministic in the source's state. A source that runs dry (a
/// fuzzer's bytes) returns 0, and every generator still builds a valid spec from zeros.
pub trait Entropy {
    /// A number in `0..n` (0 when `n` is 0).
    fn below(&mut self, n: u64) -> u64;
    /// 64 bits.
    fn bits(&mut self) -> u64;

    /// True with probability about `p`.
    fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && (self.below(1 << 20) as f64) < p * (1u64 << 20) as f64
    }

    /// A number in `lo..=hi`.
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        let span = hi.wrapping_sub(lo) as u64;
        if span == u64::MAX {
            return self.bits() as i64;
        }
        lo.wrapping_add(self.below(span + 1) as i64)
    }
}

impl dyn Entropy + '_ {
    /// One of `items` (which must not be empty).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

/// A small deterministic generator (xorshift64*), what the proptest strategies draw from:
/// proptest picks the seed and the shape, the seed picks the values.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed` (any value, 0 included).
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
}

impl Entropy for Rng {
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.bits() % n
        }
    }

    fn bits(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}
