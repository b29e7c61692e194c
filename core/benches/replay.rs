//! What verifying one submitted result costs the server: rebuilding its prompt,
//! bounding its log, replaying it through `Session`, and the review rules
//! (docs/replay.md).
//!
//! `cargo bench -p keydo-core --bench replay`

use criterion::{Criterion, criterion_group, criterion_main};
use keydo_core::game::corpora::Corpora;
use keydo_core::verify::review::Thresholds;
use keydo_core::verify::simulate::{Typist, play};
use keydo_core::verify::{Context, verify};
use keydo_core::{Mode, Seed};
use std::hint::black_box;
use uuid::Uuid;

/// Tuesday 2026-12-01 12:00 UTC+8.
const NOON: i64 = 1_796_097_600_000;

fn verification(c: &mut Criterion) {
    let corpora = Corpora::shipped();
    let thresholds = Thresholds::default();
    let context = Context {
        corpora,
        thresholds: &thresholds,
        now_ms: NOON,
    };
    let games = [
        ("time 60 s at 120 WPM", Mode::Time, 120),
        ("time 60 s at 250 WPM", Mode::Time, 250),
        ("words at 120 WPM", Mode::Words, 120),
        ("quote at 120 WPM", Mode::Quote, 120),
        ("zh passage", Mode::Zh, 100),
    ];
    let mut group = c.benchmark_group("verify");
    for (name, mode, wpm) in games {
        let played = play(
            corpora,
            mode,
            Seed::new(7).unwrap(),
            &Typist::steady_human(wpm),
        );
        let submission = played.submission(Uuid::nil(), NOON as u64 - 1_000);
        verify(&submission, &context).expect("a real game verifies");
        group.bench_function(name, |b| {
            b.iter(|| verify(black_box(&submission), black_box(&context)))
        });
    }
    group.finish();
}

criterion_group!(benches, verification);
criterion_main!(benches);
