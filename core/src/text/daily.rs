//! The day's race, 每日赛文 (docs/genda.md, "The day's race"): each UTC+8 day has one
//! Chinese and one English passage, chosen from the shipped corpora by the day alone,
//! so every device knows it offline and the server agrees.
//!
//! The days are dealt in rounds of as many days as the corpus has passages: each round
//! is a shuffle of the corpus seeded by the round's number, so every passage comes up
//! once a round, and when a round would begin with the passage the last one ended on,
//! its first two are swapped, so no passage is raced two days running. Adding or
//! removing a passage changes every later pick (a test pins a few).

use crate::api::week::{DAY_MS, UTC8_OFFSET_MS};
use crate::game::corpora::Corpora;
use crate::game::mode::Language;
use crate::game::rng::SplitMix64;
use crate::game::texts::Passage;

/// The race day of the instant `unix_ms`: days since 1970-01-01 in UTC+8, so a day
/// begins at 00:00 UTC+8 (16:00 UTC the day before).
pub fn race_day(unix_ms: i64) -> i64 {
    (unix_ms + UTC8_OFFSET_MS).div_euclid(DAY_MS)
}

/// The passage raced on `day` in `language`: from the Chinese corpus (`zh`) or the
/// English one (`quotes`).
pub fn daily_passage(corpora: &Corpora, day: i64, language: Language) -> &Passage {
    let passages = match language {
        Language::Chinese => corpora.zh.passages(),
        Language::English => corpora.quotes.passages(),
    };
    let count = passages.len() as i64;
    let round = day.div_euclid(count);
    let place = day.rem_euclid(count) as usize;
    &passages[round_order(round, passages.len())[place]]
}

/// The order of a round's passages (indices), never starting with the previous
/// round's last. Two passages simply alternate: swapping the only two would move the
/// round's last as well.
fn round_order(round: i64, count: usize) -> Vec<usize> {
    if count == 2 {
        return vec![0, 1];
    }
    let mut order = shuffled(round, count);
    // The swap moves neither this round's last nor, so, the one the next round checks.
    if count > 2 && shuffled(round - 1, count)[count - 1] == order[0] {
        order.swap(0, 1);
    }
    order
}

/// `0..count` shuffled (Fisher–Yates) by a generator seeded with `round`.
fn shuffled(round: i64, count: usize) -> Vec<usize> {
    let mut rng = SplitMix64::new(round as u64);
    let mut order: Vec<usize> = (0..count).collect();
    for i in (1..count).rev() {
        order.swap(i, rng.below(i + 1));
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::week::days_from_civil;
    use crate::game::texts::Passages;
    use std::collections::HashSet;

    /// Unix ms of midnight UTC+8 starting the given date.
    fn utc8_midnight(year: i64, month: u32, day: u32) -> i64 {
        days_from_civil(year, month, day) * DAY_MS - UTC8_OFFSET_MS
    }

    #[test]
    fn the_day_changes_at_midnight_utc8() {
        let midnight = utc8_midnight(2026, 12, 2);
        // 00:00 UTC+8 on 2 December is 16:00 UTC on 1 December.
        assert_eq!(
            midnight,
            days_from_civil(2026, 12, 1) * DAY_MS + 16 * 3_600_000
        );
        let day = race_day(midnight);
        assert_eq!(day, days_from_civil(2026, 12, 2));
        assert_eq!(race_day(midnight - 1), day - 1, "23:59:59.999 UTC+8");
        assert_eq!(race_day(midnight + DAY_MS - 1), day);
        assert_eq!(race_day(midnight + DAY_MS), day + 1);
        assert_eq!(race_day(0), 0, "1970-01-01 08:00 UTC+8");
        assert_eq!(race_day(-UTC8_OFFSET_MS - 1), -1);
        for language in [Language::Chinese, Language::English] {
            let corpora = Corpora::shipped();
            assert_ne!(
                daily_passage(corpora, race_day(midnight - 1), language).id,
                daily_passage(corpora, race_day(midnight), language).id
            );
        }
    }

    #[test]
    fn ten_thousand_days_are_deterministic_fair_and_never_repeat_next_day() {
        let corpora = Corpora::shipped();
        for (language, passages) in [
            (Language::Chinese, &corpora.zh),
            (Language::English, &corpora.quotes),
        ] {
            let count = passages.passages().len() as i64;
            let first = days_from_civil(2026, 1, 1);
            let picks: Vec<&Passage> = (first..first + 10_000)
                .map(|day| daily_passage(corpora, day, language))
                .collect();
            for (offset, pick) in picks.iter().enumerate() {
                let day = first + offset as i64;
                // Picked again from the same day alone, and from the corpus.
                assert_eq!(daily_passage(corpora, day, language), *pick);
                assert!(passages.passages().contains(pick));
            }
            assert!(picks.windows(2).all(|pair| pair[0].id != pair[1].id));
            // Every passage once in each round.
            let round_start = first + (count - first.rem_euclid(count)) % count;
            let round: HashSet<&str> = (round_start..round_start + count)
                .map(|day| daily_passage(corpora, day, language).id.as_str())
                .collect();
            assert_eq!(round.len() as i64, count);
        }
    }

    #[test]
    fn a_corpus_of_two_alternates_and_of_one_repeats() {
        let json = |ids: &[&str]| {
            let entries: Vec<String> = ids
                .iter()
                .map(|id| {
                    format!(r#"{{"id":"{id}","text":"x","source":"S","author":"A","year":null}}"#)
                })
                .collect();
            format!("[{}]", entries.join(","))
        };
        let two = Corpora {
            quotes: Passages::parse(&json(&["a", "b"])).unwrap(),
            zh: Passages::parse(&json(&["solo"])).unwrap(),
            ..Corpora::shipped().clone()
        };
        let english: Vec<&str> = (-50..50)
            .map(|day| daily_passage(&two, day, Language::English).id.as_str())
            .collect();
        assert!(
            english.windows(2).all(|pair| pair[0] != pair[1]),
            "{english:?}"
        );
        assert!((-50..50).all(|day| daily_passage(&two, day, Language::Chinese).id == "solo"));
    }

    #[test]
    fn golden_picks() {
        // Computed once from the shipped corpora: a change to the rule or to the corpora
        // changes which passage past and future days race, and must be deliberate.
        let corpora = Corpora::shipped();
        let picks: Vec<(String, String)> =
            [(2026, 12, 1), (2026, 12, 2), (2027, 1, 1), (2030, 6, 15)]
                .into_iter()
                .map(|(y, m, d)| {
                    let day = race_day(utc8_midnight(y, m, d));
                    (
                        daily_passage(corpora, day, Language::Chinese).id.clone(),
                        daily_passage(corpora, day, Language::English).id.clone(),
                    )
                })
                .collect();
        let expected = [
            ("mengzi-gaozi", "shakespeare-sonnet-18"),
            ("daodejing-64", "austen-emma-opening"),
            ("luxun-guxiang", "dickens-carol-marley"),
            ("xunzi-quanxue", "dickens-expectations-opening"),
        ];
        let expected: Vec<(String, String)> = expected
            .iter()
            .map(|(zh, en)| ((*zh).to_owned(), (*en).to_owned()))
            .collect();
        assert_eq!(picks, expected);
    }
}
