//! Fast-path counters.
//!
//! Every fast path and its general fallback bump a named counter with [`hit`]. With the
//! `probes` feature the counters are thread-local (tests run in parallel) and can be read with
//! [`snapshot`] / [`get`] and cleared with [`reset`]. Without it, [`hit`] compiles to nothing.
//!
//! Counter names are `&'static str`s of the form `module.path_name`, e.g.
//! `levels.bitmap_repeated_run`; each module documents the names it uses.

#[cfg(feature = "probes")]
mod imp {
    use std::cell::RefCell;
    use std::collections::BTreeMap;

    thread_local! {
        static COUNTERS: RefCell<BTreeMap<&'static str, u64>> = const { RefCell::new(BTreeMap::new()) };
    }

    pub fn hit_n(name: &'static str, n: u64) {
        COUNTERS.with(|c| *c.borrow_mut().entry(name).or_insert(0) += n);
    }

    pub fn snapshot() -> Vec<(&'static str, u64)> {
        COUNTERS.with(|c| c.borrow().iter().map(|(k, v)| (*k, *v)).collect())
    }

    pub fn reset() {
        COUNTERS.with(|c| c.borrow_mut().clear());
    }
}

/// True when the crate was built with the `probes` feature.
pub const ENABLED: bool = cfg!(feature = "probes");

/// Count one pass through the path `name`.
#[inline(always)]
pub fn hit(name: &'static str) {
    hit_n(name, 1);
}

/// Count `n` passes through the path `name`.
#[inline(always)]
pub fn hit_n(name: &'static str, n: u64) {
    #[cfg(feature = "probes")]
    imp::hit_n(name, n);
    #[cfg(not(feature = "probes"))]
    let _ = (name, n);
}

/// All counters of this thread that are non-zero, sorted by name. Empty without `probes`.
pub fn snapshot() -> Vec<(&'static str, u64)> {
    #[cfg(feature = "probes")]
    return imp::snapshot();
    #[cfg(not(feature = "probes"))]
    Vec::new()
}

/// The value of one counter on this thread (0 when never hit or without `probes`).
pub fn get(name: &str) -> u64 {
    snapshot()
        .into_iter()
        .find(|(k, _)| *k == name)
        .map_or(0, |(_, v)| v)
}

/// Clear this thread's counters.
pub fn reset() {
    #[cfg(feature = "probes")]
    imp::reset();
}

#[cfg(all(test, feature = "probes"))]
mod tests {
    use super::*;

    #[test]
    fn counts_and_resets() {
        reset();
        hit("a");
        hit_n("a", 2);
        hit("b");
        assert_eq!(get("a"), 3);
        assert_eq!(snapshot(), vec![("a", 3), ("b", 1)]);
        reset();
        assert_eq!(get("a"), 0);
    }
}
