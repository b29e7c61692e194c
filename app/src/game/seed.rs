//! Prompt seeds. `?seed=<u64>` in the page URL makes every prompt reproducible (tests
//! use it to know what they will type); otherwise the page draws a random seed. Each
//! new game steps the seed, so a restart always brings a new prompt.

use keydo_core::Seed;
use leptos::prelude::window;
use web_sys::UrlSearchParams;

/// The seed of the page's first game.
pub fn first_seed() -> u64 {
    seed_from_url().unwrap_or_else(random_seed)
}

/// The seed of game number `round` (0 for the first), within the 53 bits a seed keeps
/// (docs/replay.md).
pub fn seed_of_round(first: u64, round: u64) -> Seed {
    Seed::from_bits(first.wrapping_add(round))
}

fn seed_from_url() -> Option<u64> {
    let search = window().location().search().ok()?;
    UrlSearchParams::new_with_str(&search)
        .ok()?
        .get("seed")?
        .parse()
        .ok()
}

/// 64 random bits from two 32-bit draws (`Math.random` has 52 bits of precision).
fn random_seed() -> u64 {
    let draw = || (js_sys::Math::random() * 4_294_967_296.0) as u64;
    (draw() << 32) | draw()
}
