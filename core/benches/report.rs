//! What the result screen's report and the replay player cost on a long pasted text:
//! the report of a 3,000-字 game, and one seek into its playback (docs/performance.md,
//! "The 跟打 report").
//!
//! `cargo bench -p keydo-core --bench report`

use criterion::{Criterion, criterion_group, criterion_main};
use keydo_core::Mode;
use keydo_core::game::corpora::Corpora;
use keydo_core::game::mode::Language;
use keydo_core::game::playback::Playback;
use keydo_core::game::report::report;
use keydo_core::verify::simulate::{Typist, longest_text, play_prompt};
use std::hint::black_box;

/// The longest text a game takes (docs/scoring.md, "The report").
const ZI: usize = keydo_core::text::MAX_ZH_CHARS;

fn long_game(c: &mut Criterion) {
    let text = longest_text(Corpora::shipped(), Language::Chinese, 0);
    let prompt = text.prompt();
    let session = play_prompt(Mode::Zh, &prompt, &Typist::steady_human(100));
    let log = session.input_log();
    let full = report(Mode::Zh, &prompt, &log).expect("a finished game");
    assert_eq!(full.units.len(), ZI);

    let mut group = c.benchmark_group("report");
    group.bench_function("3,000 字 game", |b| {
        b.iter(|| report(black_box(Mode::Zh), black_box(&prompt), black_box(&log)))
    });
    let playback = Playback::new(Mode::Zh, &prompt, &log).expect("a finished game");
    group.bench_function("playback of it", |b| {
        b.iter(|| Playback::new(black_box(Mode::Zh), black_box(&prompt), black_box(&log)))
    });
    let middle = playback.duration_ms() / 2;
    group.bench_function("a seek into it", |b| {
        b.iter(|| playback.state_at(black_box(middle)))
    });
    group.finish();
}

criterion_group!(benches, long_game);
criterion_main!(benches);
