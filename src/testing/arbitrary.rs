//! `arbitrary::Arbitrary` for [`FileSpec`]: a cargo-fuzz target turns its input into a valid
//! file.
//!
//! Every choice the generators make is read from the fuzzer's bytes ([`Unstructured`] as an
//! [`Entropy`]), so the fuzzer steers the schema, the values and the options directly, and
//! the same bytes always give the same spec. Sizes are capped by [`SpecConfig::default`]
//! (4 fields, depth 3, 300 rows, long values of 300 bytes, lists of 5); when the bytes run
//! out every further choice is 0, which still gives a valid spec.
//!
//! ```
//! use arbitrary::{Arbitrary, Unstructured};
//! use parq::testing::{check_roundtrip, FileSpec};
//! let bytes = [7u8; 64];
//! let spec = FileSpec::arbitrary(&mut Unstructured::new(&bytes)).unwrap();
//! check_roundtrip(&spec).unwrap();
//! ```

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

impl<'a> Arbitrary<'a> for FileSpec {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        Ok(gen_spec(&mut FuzzEntropy(u), &SpecConfig::default()))
    }

    fn size_hint(_depth: usize) -> (usize, Option<usize>) {
        (0, None)
    }
}
