//! Honest players are not held (docs/replay.md, "How often honest games are held"):
//! the simulated typists the suites play with, in every mode and both languages, at
//! every speed under the review thresholds, are held by none of the timing rules. The
//! speed rule is left aside: a fast person is held by design.

use keydo_core::game::corpora::Corpora;
use keydo_core::verify::review::{Hold, Thresholds};
use keydo_core::verify::simulate::{Typist, play};
use keydo_core::verify::{Context, verify};
use keydo_core::{Mode, Seed};

/// Tuesday 2026-12-01 12:00 UTC+8.
const NOON: i64 = 1_796_097_600_000;

/// Games played, and those a timing rule held (with the rules).
#[derive(Default)]
struct Tally {
    games: usize,
    held: Vec<(String, Vec<Hold>)>,
}

impl Tally {
    /// Plays `mode` on `seed` with `typist`, if its prompt has at most `max_chars`
    /// characters, and notes what the timing rules say.
    fn play(&mut self, mode: Mode, seed: u64, typist: &Typist, max_chars: usize) {
        let corpora = Corpora::shipped();
        let played = play(corpora, mode, Seed::new(seed).unwrap(), typist);
        let prompt = corpora.prompt(mode, &played.prompt).unwrap();
        if prompt.as_str().chars().count() > max_chars {
            return;
        }
        let thresholds = Thresholds::default();
        let context = Context {
            corpora,
            thresholds: &thresholds,
            now_ms: NOON,
        };
        let submission = played.submission(uuid::Uuid::nil(), NOON as u64 - 60_000);
        let verified = verify(&submission, &context).expect("an honest game verifies");
        let timing: Vec<Hold> = verified
            .holds
            .into_iter()
            .filter(|hold| *hold != Hold::Speed)
            .collect();
        self.games += 1;
        if !timing.is_empty() {
            self.held
                .push((format!("{mode} seed {seed} {typist:?}"), timing));
        }
    }
}

/// The core simulated person (`Typist::steady_human`, what the server tests submit)
/// from 30 to 180 WPM, with 1 to 4 字 per composition at 2 to 4 keys per 字, and the
/// e2e typists' rhythm (a human pause of 0.4–1.6 × the pace per key or per 字 inserted
/// without a composition, no mistakes).
#[test]
fn simulated_people_are_held_by_no_timing_rule() {
    let mut tally = Tally::default();
    for mode in Mode::ALL {
        for wpm in [30, 60, 90, 120, 150, 180] {
            for seed in 1..=6 {
                let person = Typist {
                    seed: seed * 1_000 + u64::from(wpm),
                    ..Typist::steady_human(wpm)
                };
                tally.play(mode, seed, &person, usize::MAX);
                if mode == Mode::Zh {
                    for (chars, keys) in [(1, 2), (1, 4), (3, 2), (4, 3)] {
                        let composing = Typist {
                            zh_chars_per_commit: chars,
                            zh_keys_per_char: keys,
                            ..person.clone()
                        };
                        tally.play(mode, seed, &composing, usize::MAX);
                    }
                }
            }
        }
        // The e2e typists: `PACE` in tests/e2e/play.mjs, paced by `humanPause`.
        for (pace_en, pace_zh) in [(45.0, 120.0), (70.0, 180.0)] {
            for seed in 1..=6 {
                let e2e = Typist {
                    mean_interval_ms: if mode == Mode::Zh { pace_zh } else { pace_en },
                    mistake_every: 0,
                    zh_composes: false,
                    seed,
                    ..Typist::steady_human(100)
                };
                tally.play(mode, seed, &e2e, usize::MAX);
            }
        }
    }
    assert!(tally.games >= 300, "{}", tally.games);
    assert_eq!(tally.held, [], "held of {} games", tally.games);
}

/// The chaos typists (`playHumanGame` in scripts/chaos.mjs): a uniform pace of 60–110 ms
/// per English key and 280–400 ms per 字 inserted without a composition, on the
/// passages they play (at most 135 characters of `quote`, 50 of `zh`). That pace is
/// narrower than a person's (a coefficient of variation of 0.17 per key, near the key
/// rhythm bound of 0.15), so the key rule holds about one long `words` game in a hundred
/// of it as regular; nothing else is held. In the browser, input latency widens it.
#[test]
fn the_chaos_typists_are_held_by_no_timing_rule() {
    let mut tally = Tally::default();
    for seed in 1..=200 {
        let english = Typist {
            mean_interval_ms: 85.0,
            spread: 25.0 / 85.0,
            mistake_every: 0,
            seed,
            ..Typist::steady_human(100)
        };
        tally.play(Mode::Words, seed, &english, usize::MAX);
        tally.play(Mode::Quote, seed, &english, 135);
        let chinese = Typist {
            mean_interval_ms: 340.0,
            spread: 60.0 / 340.0,
            zh_composes: false,
            ..english
        };
        tally.play(Mode::Zh, seed, &chinese, 50);
    }
    assert!(tally.games >= 250, "{}", tally.games);
    let regular_words = |(game, holds): &(String, Vec<Hold>)| {
        game.starts_with("words") && *holds == [Hold::Regular]
    };
    assert!(
        tally.held.iter().all(regular_words) && tally.held.len() * 100 <= tally.games,
        "held of {} games: {:?}",
        tally.games,
        tally.held
    );
}
