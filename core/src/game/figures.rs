//! The figures a finished game shows beside its speed: accuracy, raw speed,
//! consistency and time in every mode, and for 中文 the 击键 (keys per second), 码长
//! (keys per character) and corrections (退格) that 跟打 players compare. Display
//! only: none of them decides a score (that is [`crate::game::score`]).

use crate::game::mode::Mode;
use crate::game::score::{self, Stats};
use crate::game::typing::{KeyCounts, SAMPLE_INTERVAL_MS};

/// What the result screen reads, in the units named on each field.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Figures {
    /// The scored speed, in the mode's [`Mode::speed_unit`].
    pub speed: f64,
    /// [`Mode::raw_speed`], in the same unit.
    pub raw_speed: f64,
    /// Correct keystrokes / keystrokes, `0.0..=1.0`.
    pub accuracy: f64,
    /// How even the pace was, `0.0..=1.0` (see [`consistency`]); `None` for a game too
    /// short to have a pace.
    pub consistency: Option<f64>,
    pub seconds: f64,
    /// 击键: keys pressed per second, composition keys included.
    pub keys_per_second: f64,
    /// 码长: keys pressed per character of the final text; `None` with no text.
    pub keys_per_char: Option<f64>,
    /// Deletions that removed something: the 成绩 line's 退格 (docs/scoring.md, "The 成绩
    /// line", where 回改 counts runs of them).
    pub corrections: u32,
}

impl Figures {
    /// The figures of a game that ended with `stats`, sampled every second into
    /// `samples` ([`crate::Session::samples`]) and taking `keys`.
    pub fn of(mode: Mode, stats: &Stats, samples: &[Stats], keys: KeyCounts) -> Figures {
        let seconds = stats.duration_ms as f64 / 1000.0;
        let text_chars = stats.correct_chars + stats.errors;
        Figures {
            speed: mode.speed(stats),
            raw_speed: mode.raw_speed(stats),
            accuracy: score::accuracy(stats),
            consistency: consistency(samples),
            seconds,
            keys_per_second: if seconds > 0.0 {
                f64::from(keys.pressed) / seconds
            } else {
                0.0
            },
            keys_per_char: (text_chars > 0)
                .then(|| f64::from(keys.pressed) / f64::from(text_chars)),
            corrections: keys.corrections,
        }
    }
}

/// An interval shorter than this (the end of a game between two seconds) says too
/// little about the pace to count.
const MIN_INTERVAL_MS: u64 = SAMPLE_INTERVAL_MS / 2;

/// How even the pace was: 1 − the coefficient of variation (standard deviation /
/// mean) of the keystroke rate over each second of play, floored at 0. A steady typist
/// reads near 1.0; bursts and pauses pull it down. `None` below two intervals of at
/// least half a second, or when nothing was typed in them.
pub fn consistency(samples: &[Stats]) -> Option<f64> {
    let mut previous = Stats {
        duration_ms: 0,
        correct_chars: 0,
        errors: 0,
        keystrokes: 0,
        correct_keystrokes: 0,
    };
    let mut rates = Vec::with_capacity(samples.len());
    for sample in samples {
        let span = sample.duration_ms.saturating_sub(previous.duration_ms);
        if span >= MIN_INTERVAL_MS {
            let keys = sample.keystrokes.saturating_sub(previous.keystrokes);
            rates.push(f64::from(keys) * 1000.0 / span as f64);
        }
        previous = *sample;
    }
    if rates.len() < 2 {
        return None;
    }
    let count = rates.len() as f64;
    let mean = rates.iter().sum::<f64>() / count;
    if mean <= 0.0 {
        return None;
    }
    let variance = rates.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / count;
    Some((1.0 - variance.sqrt() / mean).max(0.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Prompt, Session};

    /// Cumulative stats at `duration_ms` with `keystrokes` typed, all correct.
    fn at(duration_ms: u64, keystrokes: u32) -> Stats {
        Stats {
            duration_ms,
            correct_chars: keystrokes,
            errors: 0,
            keystrokes,
            correct_keystrokes: keystrokes,
        }
    }

    #[test]
    fn an_even_pace_is_fully_consistent() {
        let samples: Vec<_> = (1..=10).map(|s| at(s * 1000, s as u32 * 5)).collect();
        assert_eq!(consistency(&samples), Some(1.0));
    }

    #[test]
    fn an_uneven_pace_loses_its_coefficient_of_variation() {
        // Rates 2, 6, 2, 6 per second: mean 4, standard deviation 2 → 1 − 0.5.
        let samples = [at(1000, 2), at(2000, 8), at(3000, 10), at(4000, 16)];
        assert_eq!(consistency(&samples), Some(0.5));
        // Rates 0 and 10: deviation 5 on a mean of 5, so nothing is left.
        assert_eq!(consistency(&[at(1000, 0), at(2000, 10)]), Some(0.0));
        // Much wilder than the mean: floored at 0.
        let wild = [at(1000, 0), at(2000, 0), at(3000, 0), at(4000, 40)];
        assert_eq!(consistency(&wild), Some(0.0));
    }

    #[test]
    fn a_short_last_interval_is_left_out_and_short_games_have_none() {
        // The game ended 100 ms into its third second, with a burst that says nothing.
        let samples = [at(1000, 4), at(2000, 8), at(2100, 12)];
        assert_eq!(consistency(&samples), Some(1.0));
        // Ending 600 ms in counts, at its rate per second (5 keys in 0.6 s ≈ 8.3/s).
        let longer = [at(1000, 4), at(2000, 8), at(2600, 13)];
        assert!(consistency(&longer).unwrap() < 0.9);
        assert_eq!(consistency(&[at(1000, 4), at(1400, 5)]), None);
        assert_eq!(consistency(&[]), None);
        assert_eq!(consistency(&[at(1000, 0), at(2000, 0)]), None);
    }

    #[test]
    fn zh_figures_count_every_key_pressed() {
        let prompt = Prompt::new("学而时习之").unwrap();
        let mut s = Session::new(Mode::Zh, &prompt);
        s.composition_start(0);
        for text in ["x", "xu", "xue", "xue e", "xue er", "学而"] {
            s.composition_update(text);
        }
        s.composition_end("学而", 1_000);
        s.composition_start(1_100);
        for text in ["s", "sh", "shi", "时"] {
            s.composition_update(text);
        }
        s.composition_end("时", 2_000);
        s.backspace(2_200);
        s.composition_start(2_300);
        for text in ["s", "sh", "shi", "shi x", "shi xi", "shi xi z", "时习之"] {
            s.composition_update(text);
        }
        s.composition_end("时习之", 4_000);
        let stats = s.result().unwrap();
        let figures = Figures::of(Mode::Zh, &stats, s.samples(), s.key_counts());
        // 6 + 4 + 1 backspace + 7 (each commit's own update included) = 18 keys in 4 s for
        // 5 字.
        assert_eq!(figures.keys_per_second, 18.0 / 4.0);
        assert_eq!(figures.keys_per_char, Some(18.0 / 5.0));
        assert_eq!(figures.corrections, 1);
        assert_eq!(figures.seconds, 4.0);
        // 6 字 committed (时 twice), all correct where they landed; 5 kept.
        assert_eq!(figures.accuracy, 1.0);
        assert_eq!(figures.raw_speed, 90.0);
        assert_eq!(figures.speed, 75.0);
    }

    #[test]
    fn english_figures_match_the_score_helpers() {
        let prompt = Prompt::new("ab cd").unwrap();
        let mut s = Session::new(Mode::Words, &prompt);
        for (i, key) in ["a", "x"].into_iter().enumerate() {
            s.commit(key, i as u64 * 1000);
        }
        s.backspace(2_000);
        s.commit("b cd", 3_000);
        let stats = s.result().unwrap();
        let figures = Figures::of(Mode::Words, &stats, s.samples(), s.key_counts());
        assert_eq!(figures.speed, score::net_wpm(&stats));
        assert_eq!(figures.raw_speed, score::raw_wpm(&stats));
        assert_eq!(figures.accuracy, 5.0 / 6.0);
        assert_eq!(figures.keys_per_char, Some(7.0 / 5.0));
        assert_eq!(figures.corrections, 1);
        assert_eq!(figures.consistency, consistency(s.samples()));
        assert!(figures.consistency.is_some(), "three seconds were sampled");
    }
}
