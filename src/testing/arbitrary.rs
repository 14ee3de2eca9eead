//! `arbitrary::Arbitrary` for [`FileSpec`]: a cargo-fuzz target turns its input into a valid
//! file.
//!
//! Every choice the generators make is read from the fuzzer's bytes ([`Unstructured`] as an
//! [`Entropy`]), so the fuzzer steers the schema, the values and the options directly, and
//! the same bytes always give the same spec. Sizes are capped by [`SpecConfig::default`]
//! (4 fields, depth 3, 300 rows, long values of 300 bytes, lists of 5); when the bytes run
//! out every further choice is 0, which still gives a valid spec.
//!
//! Another config (bounds, a [`LeafFilter`](super::LeafFilter)) comes in through
//! [`FileSpec::arbitrary_with`], or as a type: a fuzz target takes [`Configured<C>`] for a
//! [`ConfigSource`] `C`:
//!
//! ```
//! use arbitrary::{Arbitrary, Unstructured};
//! use parq::metadata::Type;
//! use parq::testing::arbitrary::{ConfigSource, Configured};
//! use parq::testing::{LeafFilter, SpecConfig};
//!
//! struct NoInt96;
//! impl ConfigSource for NoInt96 {
//!     fn config() -> SpecConfig {
//!         SpecConfig::default()
//!             .with_leaves(LeafFilter::all().without_physical(Type::INT96))
//!     }
//! }
//! // fuzz_target!(|spec: Configured<NoInt96>| { ... spec.spec ... });
//! let bytes = [3u8; 256];
//! let c = Configured::<NoInt96>::arbitrary(&mut Unstructured::new(&bytes)).unwrap();
//! assert!(c.spec.fields.iter().all(|f| !format!("{f:?}").contains("INT96")));
//! ```
//!
//! ```
//! use arbitrary::{Arbitrary, Unstructured};
//! use parq::testing::{check_roundtrip, FileSpec};
//! let bytes = [7u8; 64];
//! let spec = FileSpec::arbitrary(&mut Unstructured::new(&bytes)).unwrap();
//! check_roundtrip(&spec).unwrap();
//! ```

use std::marker::PhantomData;

use arbitrary::{Arbitrary, Result, Unstructured};

use super::spec::{gen_spec, FileSpec, SpecConfig};
use super::Entropy;

/// The fuzzer's bytes as an [`Entropy`]: 0 once they run out.
pub struct FuzzEntropy<'a, 'b>(pub &'a mut Unstructured<'b>);

impl Entropy for FuzzEntropy<'_, '_> {
    fn below(&mut self, n: u64) -> u64 {
        if n <= 1 {
            return 0;
        }
        self.0.int_in_range(0..=n - 1).unwrap_or(0)
    }

    fn bits(&mut self) -> u64 {
        u64::arbitrary(self.0).unwrap_or(0)
    }
}

impl FileSpec {
    /// A spec drawn from the fuzzer's bytes within `config` (what [`Arbitrary`] does with
    /// [`SpecConfig::default`]).
    pub fn arbitrary_with(u: &mut Unstructured<'_>, config: &SpecConfig) -> Result<FileSpec> {
        Ok(gen_spec(&mut FuzzEntropy(u), config))
    }
}

/// A [`SpecConfig`] named by a type, for [`Configured`].
pub trait ConfigSource {
    /// The config.
    fn config() -> SpecConfig;
}

/// A [`FileSpec`] drawn within `C`'s config: what a fuzz target takes for specs other than
/// the default's.
pub struct Configured<C: ConfigSource> {
    /// The spec.
    pub spec: FileSpec,
    config: PhantomData<C>,
}

impl<C: ConfigSource> std::fmt::Debug for Configured<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.spec.fmt(f)
    }
}

impl<'a, C: ConfigSource> Arbitrary<'a> for Configured<C> {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        Ok(Configured {
            spec: FileSpec::arbitrary_with(u, &C::config())?,
            config: PhantomData,
        })
    }

    fn size_hint(_depth: usize) -> (usize, Option<usize>) {
        (0, None)
    }
}

impl<'a> Arbitrary<'a> for FileSpec {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        Ok(gen_spec(&mut FuzzEntropy(u), &SpecConfig::default()))
    }

    fn size_hint(_depth: usize) -> (usize, Option<usize>) {
        (0, None)
    }
}
