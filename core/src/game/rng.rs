//! A tiny seeded random number generator, so a prompt can be rebuilt from its seed.
//!
//! SplitMix64 (Steele, Lea and Flood, 2014): one 64-bit word of state, statistically
//! sound for picking words, and the same on every platform. Not for secrets.

/// The SplitMix64 generator.
pub(crate) struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    pub(crate) fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n`, for `n > 0`. Lemire's multiply-shift: its bias, below
    /// n / 2^64, is far too small to see in a list of words.
    pub(crate) fn below(&mut self, n: usize) -> usize {
        debug_assert!(n > 0, "no number is below 0");
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_reference_sequence() {
        // The first outputs of the reference C implementation seeded with 0.
        let mut rng = SplitMix64::new(0);
        assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(rng.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(rng.next_u64(), 0x06C4_5D18_8009_454F);
    }

    #[test]
    fn below_stays_in_range() {
        let mut rng = SplitMix64::new(7);
        for n in [1, 2, 3, 10, 1_000, usize::MAX] {
            for _ in 0..1_000 {
                assert!(rng.below(n) < n);
            }
        }
    }
}
