//! How long an outbox entry waits before its next automatic attempt (docs/sync.md,
//! "Backoff").
//!
//! Exponential backoff with jitter: after the n-th failure in a row the wait is drawn
//! from `[w/2, w]` with `w = min(2 s × 2^(n−1), 5 min)`. The random half spreads out the
//! clients that all lost the network at once, so they do not return in lockstep; the
//! fixed half keeps a client from retrying at once by bad luck. The caller passes the
//! randomness in, so the rule is the same natively and in Wasm.
//!
//! No wait is ever set longer than [`MAX_DELAY_MS`], so a wait that reaches further
//! than that from now means the clock went back: it is over ([`is_over`]), and a timer
//! for it never sleeps longer than the cap ([`timer_delay_ms`]).

/// The first failure's window.
pub const BASE_DELAY_MS: u64 = 2_000;
/// No automatic retry waits longer.
pub const MAX_DELAY_MS: u64 = 300_000;

/// The wait after `failures` failures in a row (the first is 1), given `jitter`, a random
/// number in `[0, 1)` (values outside are clamped), and the server's `Retry-After`.
///
/// A `Retry-After` is waited out in full unless it is longer than [`MAX_DELAY_MS`]: the
/// cap wins, so a misconfigured proxy cannot park scores for hours.
pub fn retry_delay_ms(failures: u32, jitter: f64, retry_after_ms: Option<u64>) -> u64 {
    let doublings = failures.saturating_sub(1);
    let window = 1u64
        .checked_shl(doublings)
        .and_then(|factor| BASE_DELAY_MS.checked_mul(factor))
        .map_or(MAX_DELAY_MS, |delay| delay.min(MAX_DELAY_MS));
    let half = window / 2;
    // `as` saturates, and a NaN becomes 0.
    let jittered = half + (jitter.clamp(0.0, 1.0) * half as f64) as u64;
    let server_asked = retry_after_ms.unwrap_or(0).min(MAX_DELAY_MS);
    jittered.max(server_asked)
}

/// Whether a wait until `until_ms` is over at `now_ms`: it has passed, or it lies
/// further ahead than any wait is ever set (the clock was turned back since).
pub fn is_over(until_ms: u64, now_ms: u64) -> bool {
    now_ms >= until_ms || until_ms - now_ms > MAX_DELAY_MS
}

/// How long a timer set at `now_ms` for `at_ms` sleeps: clamped to `[0, MAX_DELAY_MS]`,
/// so a clock that jumped back cannot park it for longer than the cap.
pub fn timer_delay_ms(at_ms: u64, now_ms: u64) -> u64 {
    at_ms.saturating_sub(now_ms).min(MAX_DELAY_MS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const NOW: u64 = 1_796_097_600_000;

    #[test]
    fn a_wait_beyond_the_cap_means_the_clock_went_back() {
        assert!(!is_over(NOW + 1, NOW));
        assert!(!is_over(NOW + MAX_DELAY_MS, NOW), "the longest real wait");
        assert!(is_over(NOW, NOW));
        assert!(is_over(NOW - 1, NOW), "the clock jumped forward: over");
        // Set at NOW for 5 minutes, then the clock went back an hour.
        let until = NOW + MAX_DELAY_MS;
        assert!(is_over(until, NOW - 3_600_000));
        assert!(is_over(u64::MAX, NOW));
    }

    #[test]
    fn timer_delays_are_clamped_to_the_cap() {
        assert_eq!(timer_delay_ms(NOW + 1_500, NOW), 1_500);
        assert_eq!(timer_delay_ms(NOW - 10, NOW), 0, "overdue: now");
        assert_eq!(timer_delay_ms(NOW + MAX_DELAY_MS, NOW), MAX_DELAY_MS);
        // The clock went back a day after the wait was set.
        assert_eq!(timer_delay_ms(NOW + 60_000, NOW - 86_400_000), MAX_DELAY_MS);
        assert_eq!(timer_delay_ms(u64::MAX, 0), MAX_DELAY_MS);
    }

    #[test]
    fn doubles_from_two_seconds_to_the_cap() {
        // jitter 0 gives the window's lower half: 1 s, 2 s, 4 s, ... 150 s.
        let lows: Vec<u64> = (1..=10).map(|n| retry_delay_ms(n, 0.0, None)).collect();
        assert_eq!(
            lows,
            [
                1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000, 150_000, 150_000
            ]
        );
        // jitter 0.5: three quarters of the window.
        assert_eq!(retry_delay_ms(1, 0.5, None), 1_500);
        assert_eq!(retry_delay_ms(3, 0.5, None), 6_000);
        // Just under 1: just under the window, never over the cap.
        assert_eq!(retry_delay_ms(1, 0.999_999, None), 1_999);
        assert_eq!(retry_delay_ms(u32::MAX, 0.999_999, None), 299_999);
    }

    #[test]
    fn odd_jitter_is_clamped() {
        assert_eq!(retry_delay_ms(2, -3.0, None), 2_000);
        assert_eq!(retry_delay_ms(2, f64::NAN, None), 2_000);
        assert_eq!(retry_delay_ms(2, 7.0, None), 4_000);
        // Zero failures is treated as the first.
        assert_eq!(retry_delay_ms(0, 0.0, None), 1_000);
    }

    #[test]
    fn retry_after_is_a_floor_under_the_cap() {
        // A 429's 60 s outweighs the early, short backoff...
        assert_eq!(retry_delay_ms(1, 0.3, Some(60_000)), 60_000);
        // ...but not a longer one.
        assert_eq!(retry_delay_ms(9, 0.0, Some(60_000)), 150_000);
        // An hour is capped at five minutes.
        assert_eq!(retry_delay_ms(1, 0.0, Some(3_600_000)), MAX_DELAY_MS);
    }

    proptest! {
        #[test]
        fn bounded_by_the_cap_and_the_retry_after(
            failures in any::<u32>(),
            jitter in 0.0f64..1.0,
            retry_after_ms in proptest::option::of(any::<u64>()),
        ) {
            let delay = retry_delay_ms(failures, jitter, retry_after_ms);
            prop_assert!(delay <= MAX_DELAY_MS);
            prop_assert!(delay >= retry_after_ms.unwrap_or(0).min(MAX_DELAY_MS));
            prop_assert!(delay >= BASE_DELAY_MS / 2);
        }

        #[test]
        fn a_fresh_wait_is_never_over_early_and_always_over_at_its_time(
            failures in any::<u32>(),
            jitter in 0.0f64..1.0,
            retry_after_ms in proptest::option::of(any::<u64>()),
            now in 0u64..(1 << 53),
            back in 0u64..(1 << 40),
        ) {
            let until = now + retry_delay_ms(failures, jitter, retry_after_ms);
            prop_assert!(!is_over(until, now) || until == now);
            prop_assert!(is_over(until, until));
            prop_assert!(timer_delay_ms(until, now) == until - now);
            // However far the clock goes back, the wait never exceeds the cap from there.
            let earlier = now.saturating_sub(back);
            prop_assert!(is_over(until, earlier) || until - earlier <= MAX_DELAY_MS);
            prop_assert!(timer_delay_ms(until, earlier) <= MAX_DELAY_MS);
        }

        #[test]
        fn more_failures_never_wait_less(failures in 1u32..40, jitter in 0.0f64..1.0) {
            prop_assert!(retry_delay_ms(failures, jitter, None) <= retry_delay_ms(failures + 1, jitter, None));
        }
    }
}
