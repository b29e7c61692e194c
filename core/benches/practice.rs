//! What practice costs (docs/practice.md, "Cost"): rebuilding the per-unit statistics
//! from 1,000 stored games, and one lesson of each language.
//!
//! `cargo bench -p keydo-core --bench practice`

use criterion::{Criterion, criterion_group, criterion_main};
use keydo_core::game::corpora::Corpora;
use keydo_core::practice::stats::{Target, UnitStats};
use keydo_core::practice::{Course, StoredGame};
use keydo_core::verify::simulate::{Typist, play, play_prompt};
use keydo_core::{InputLog, Mode, Prompt, Seed};
use std::hint::black_box;

/// Games in the rebuilt store: a player's first months.
const GAMES: u64 = 1_000;

fn practice(c: &mut Criterion) {
    let course = Course::shipped();
    let corpora = Corpora::shipped();
    let target = Target::default();
    // A mix as a player's history has it: the board modes and lessons of both languages.
    let games: Vec<(Mode, Prompt, InputLog)> = (1..=GAMES)
        .map(|seed| {
            let typist = Typist {
                seed,
                mistake_every: 20,
                ..Typist::steady_human(60)
            };
            let stats = UnitStats::default();
            let (mode, prompt) = match seed % 4 {
                0 => (
                    Mode::Words,
                    course.english.lesson(&stats, target, seed).prompt,
                ),
                1 => (Mode::Zh, course.chinese.lesson(&stats, target, seed).prompt),
                2 => {
                    let game = play(corpora, Mode::Words, Seed::new(seed).unwrap(), &typist);
                    (
                        Mode::Words,
                        corpora.prompt(Mode::Words, &game.prompt).unwrap(),
                    )
                }
                _ => {
                    let game = play(corpora, Mode::Zh, Seed::new(seed).unwrap(), &typist);
                    (Mode::Zh, corpora.prompt(Mode::Zh, &game.prompt).unwrap())
                }
            };
            let log = play_prompt(mode, &prompt, &typist).input_log();
            (mode, prompt, log)
        })
        .collect();
    let stored = || {
        games.iter().map(|(mode, prompt, log)| StoredGame {
            mode: *mode,
            prompt,
            log,
            target,
        })
    };
    assert_eq!(course.rebuild(stored()).games as u64, GAMES);

    let mut group = c.benchmark_group("practice");
    group.sample_size(10);
    group.bench_function("rebuild from 1,000 games", |b| {
        b.iter(|| course.rebuild(black_box(stored())))
    });
    let stats = course.rebuild(stored());
    group.bench_function("English lesson", |b| {
        b.iter(|| {
            course
                .english
                .lesson(black_box(&stats), target, black_box(7))
        })
    });
    group.bench_function("Chinese lesson", |b| {
        b.iter(|| {
            course
                .chinese
                .lesson(black_box(&stats), target, black_box(7))
        })
    });
    group.finish();
}

criterion_group!(benches, practice);
criterion_main!(benches);
