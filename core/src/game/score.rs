//! Scoring: the one implementation of docs/scoring.md and of the plausibility rules of docs/api.md.
//!
//! The app uses it to show speeds while a game runs and to compute the result's
//! `value`; the server uses [`validate`] to accept or refuse a submitted score. Both
//! must agree to the last point on every platform, so `value` is computed with exact
//! integer arithmetic (no floats), rounding half up. The `f64` helpers are for display
//! only and never decide anything.
//!
//! How the counters read in the `zh` mode: an input method (IME) turns many keypresses
//! into one committed character, and docs/scoring.md says keystrokes inside a composition are
//! never held against the player. So in `zh` a "keystroke" is one *committed
//! character* (including characters later deleted), and a "correct keystroke" is a
//! committed character that matched the passage where it landed. With that reading
//! every rule below means the same in all four modes.

use crate::api::code::ApiCode;
use crate::game::mode::{CHARS_PER_WORD, Language, Mode};
use crate::game::options::Test;
use serde::{Deserialize, Serialize};
use std::fmt;

/// What a finished game measured; the `stats` object of the score submission body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Stats {
    /// From the first keystroke to the end condition.
    pub duration_ms: u64,
    /// Characters right in the final text.
    pub correct_chars: u32,
    /// Characters wrong in the final text.
    pub errors: u32,
    /// Every character keystroke, including those later corrected (in `zh`: every
    /// committed character).
    pub keystrokes: u32,
    /// Keystrokes that typed the expected character at the time they were typed.
    pub correct_keystrokes: u32,
}

/// The fastest net speed accepted in the English modes, in WPM.
pub const MAX_NET_WPM: u64 = 350;
/// The fastest 速度 accepted in the `zh` mode, in 字/分.
pub const MAX_ZI_PER_MINUTE: u64 = 600;
/// The shortest game accepted in any mode.
pub const MIN_DURATION_MS: u64 = 3_000;
/// How long a `time` game of the public test lasts; other lengths are options
/// ([`crate::game::options::TestOptions`]).
pub const TIME_MODE_DURATION_MS: u64 = 60_000;
/// How far a `time` game may stray from its time limit: timers in a busy
/// browser tab fire late, and the first keystroke is caught a frame late.
pub const TIME_MODE_TOLERANCE_MS: u64 = 1_000;

/// `value` is a speed × 100; speeds are rates per minute.
const VALUE_SCALE: u128 = 100;
const MS_PER_MINUTE: u128 = 60_000;
/// 错一罚五: each wrong character costs five.
const ZH_ERROR_PENALTY: u128 = 5;

/// The leaderboard value `stats` earn in `mode`: round(net WPM × 100) for the English
/// modes, round(速度 × 100) for `zh`. A game of no duration is worth 0.
pub fn value(mode: Mode, stats: &Stats) -> i64 {
    if stats.duration_ms == 0 {
        return 0;
    }
    let (units, per_unit) = speed_fraction(mode, stats);
    // units / per_unit / (ms / 60_000) × 100, as one fraction.
    let numerator = units * MS_PER_MINUTE * VALUE_SCALE;
    let denominator = per_unit * u128::from(stats.duration_ms);
    // Adding half the denominator before dividing rounds half up.
    let rounded = (numerator + denominator / 2) / denominator;
    // At most u32::MAX × 2 × 6_000_000, far inside i64.
    i64::try_from(rounded).expect("a value always fits in i64")
}

/// The characters a mode's speed counts, and how many make one unit of it: correct
/// characters, 5 to a word, in the English modes; penalised 字数, 1 to a 字, in `zh`.
fn speed_fraction(mode: Mode, stats: &Stats) -> (u128, u128) {
    match mode {
        Mode::Time | Mode::Words | Mode::Quote => {
            (u128::from(stats.correct_chars), u128::from(CHARS_PER_WORD))
        }
        Mode::Zh => (zh_scored_chars(stats), 1),
    }
}

/// max(字数 − 5 × 错字, 0) with 字数 = correct + wrong characters.
fn zh_scored_chars(stats: &Stats) -> u128 {
    let typed = u128::from(stats.correct_chars) + u128::from(stats.errors);
    typed.saturating_sub(ZH_ERROR_PENALTY * u128::from(stats.errors))
}

/// Net words per minute: (correct characters / 5) / minutes.
pub fn net_wpm(stats: &Stats) -> f64 {
    per_minute(
        f64::from(stats.correct_chars) / f64::from(CHARS_PER_WORD),
        stats,
    )
}

/// Raw words per minute: every typed character, right or wrong, fixed or not.
pub fn raw_wpm(stats: &Stats) -> f64 {
    per_minute(
        f64::from(stats.keystrokes) / f64::from(CHARS_PER_WORD),
        stats,
    )
}

/// 速度 in 字/分: max(字数 − 5 × 错字, 0) per minute.
pub fn zi_per_minute(stats: &Stats) -> f64 {
    // At most 2 × u32::MAX, which an f64 holds exactly.
    per_minute(zh_scored_chars(stats) as f64, stats)
}

/// Committed characters (every keystroke, in `zh`: every 字 committed, kept or not)
/// per minute: the `zh` mode's raw speed.
pub fn committed_per_minute(stats: &Stats) -> f64 {
    per_minute(f64::from(stats.keystrokes), stats)
}

impl Mode {
    /// The speed the mode is scored in, in [`Mode::speed_unit`]: net WPM, or 速度 (字/分,
    /// with 错一罚五). The leaderboard value is this × 100, rounded ([`value`]).
    pub fn speed(self, stats: &Stats) -> f64 {
        match self.language() {
            Language::English => net_wpm(stats),
            Language::Chinese => zi_per_minute(stats),
        }
    }

    /// The raw speed, in [`Mode::speed_unit`]: every character typed, right or wrong,
    /// kept or deleted, without the net speed's deductions (raw WPM; 字/分 before 错一罚五).
    pub fn raw_speed(self, stats: &Stats) -> f64 {
        match self.language() {
            Language::English => raw_wpm(stats),
            Language::Chinese => committed_per_minute(stats),
        }
    }
}

/// Correct keystrokes / all keystrokes, in `0.0..=1.0`. Before the first keystroke
/// nothing has gone wrong yet, so it reads 1.0.
pub fn accuracy(stats: &Stats) -> f64 {
    if stats.keystrokes == 0 {
        return 1.0;
    }
    f64::from(stats.correct_keystrokes) / f64::from(stats.keystrokes)
}

/// `count` per minute over the game's duration; 0 before any time has passed.
fn per_minute(count: f64, stats: &Stats) -> f64 {
    if stats.duration_ms == 0 {
        return 0.0;
    }
    count * 60_000.0 / stats.duration_ms as f64
}

/// Checks a submitted score and returns its value, or why it cannot be a real game.
///
/// The rules, in the order they are checked (the first broken one is reported):
/// 1. [`Implausible::Inconsistent`]: the counters contradict each other
///    (see [`Inconsistency`]).
/// 2. [`Implausible::TooShort`]: every game lasts at least [`MIN_DURATION_MS`].
/// 3. [`Implausible::WrongDuration`]: a `time` game lasts its time limit ± 1 s (60 s,
///    or the length its options chose).
/// 4. [`Implausible::ValueMismatch`]: `value` must be exactly [`value`]`(mode, stats)`.
/// 5. [`Implausible::TooFast`]: at most [`MAX_NET_WPM`] net WPM in the English modes and
///    [`MAX_ZI_PER_MINUTE`] 字/分 in `zh`, compared exactly (not after rounding).
/// 6. [`Implausible::LowAccuracy`]: at least half of the keystrokes are correct.
pub fn validate(test: impl Into<Test>, stats: &Stats, value: i64) -> Result<i64, Implausible> {
    let test = test.into();
    let mode = test.mode;
    if let Some(inconsistency) = Inconsistency::find(stats) {
        return Err(Implausible::Inconsistent(inconsistency));
    }
    let duration_ms = stats.duration_ms;
    if duration_ms < MIN_DURATION_MS {
        return Err(Implausible::TooShort { duration_ms });
    }
    if let Some(limit_ms) = test.time_limit_ms()
        && duration_ms.abs_diff(limit_ms) > TIME_MODE_TOLERANCE_MS
    {
        return Err(Implausible::WrongDuration {
            duration_ms,
            limit_ms,
        });
    }
    let derived = self::value(mode, stats);
    if value != derived {
        return Err(Implausible::ValueMismatch {
            claimed: value,
            derived,
        });
    }
    if exceeds_speed_limit(mode, stats) {
        return Err(Implausible::TooFast {
            mode,
            value: derived,
        });
    }
    // accuracy ≥ 50 %, without division.
    if 2 * u64::from(stats.correct_keystrokes) < u64::from(stats.keystrokes) {
        return Err(Implausible::LowAccuracy {
            correct_keystrokes: stats.correct_keystrokes,
            keystrokes: stats.keystrokes,
        });
    }
    Ok(derived)
}

/// The mode's human speed limit, in its [`Mode::speed_unit`].
fn max_speed(mode: Mode) -> u64 {
    match mode {
        Mode::Time | Mode::Words | Mode::Quote => MAX_NET_WPM,
        Mode::Zh => MAX_ZI_PER_MINUTE,
    }
}

/// Whether the unrounded speed is above the mode's human limit.
fn exceeds_speed_limit(mode: Mode, stats: &Stats) -> bool {
    let limit = u128::from(max_speed(mode));
    // units / per_unit / (ms / 60_000) > limit, cross-multiplied.
    let (units, per_unit) = speed_fraction(mode, stats);
    units * MS_PER_MINUTE > limit * per_unit * u128::from(stats.duration_ms)
}

/// Why a submitted score cannot come from a real game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Implausible {
    /// The counters contradict each other.
    Inconsistent(Inconsistency),
    /// The game is shorter than [`MIN_DURATION_MS`].
    TooShort { duration_ms: u64 },
    /// A `time` game did not last its time limit ± 1 s.
    WrongDuration { duration_ms: u64, limit_ms: u64 },
    /// The value is not the one the stats earn.
    ValueMismatch { claimed: i64, derived: i64 },
    /// Faster than any person types; `value` is the derived value.
    TooFast { mode: Mode, value: i64 },
    /// Fewer than half of the keystrokes were correct.
    LowAccuracy {
        correct_keystrokes: u32,
        keystrokes: u32,
    },
}

impl Implausible {
    /// A stable code for the API's error body and for logs.
    pub fn code(&self) -> ApiCode {
        match self {
            Implausible::Inconsistent(_) => ApiCode::InconsistentStats,
            Implausible::TooShort { .. } => ApiCode::TooShort,
            Implausible::WrongDuration { .. } => ApiCode::WrongDuration,
            Implausible::ValueMismatch { .. } => ApiCode::ValueMismatch,
            Implausible::TooFast { .. } => ApiCode::TooFast,
            Implausible::LowAccuracy { .. } => ApiCode::LowAccuracy,
        }
    }

    /// A sentence a person understands.
    pub fn message(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Implausible {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Implausible::Inconsistent(inconsistency) => {
                write!(
                    f,
                    "The game's counters contradict each other: {inconsistency}."
                )
            }
            Implausible::TooShort { duration_ms } => write!(
                f,
                "The game lasted {}, but every game lasts at least {}.",
                Seconds(*duration_ms),
                Seconds(MIN_DURATION_MS)
            ),
            Implausible::WrongDuration {
                duration_ms,
                limit_ms,
            } => write!(
                f,
                "A timed game lasts {} (± {}), but this one lasted {}.",
                Seconds(*limit_ms),
                Seconds(TIME_MODE_TOLERANCE_MS),
                Seconds(*duration_ms)
            ),
            Implausible::ValueMismatch { claimed, derived } => write!(
                f,
                "The score {claimed} does not match the game's statistics, which earn {derived}."
            ),
            Implausible::TooFast { mode, value } => write!(
                f,
                "A speed of {} is beyond the human limit of {} {}.",
                mode.format_value(*value),
                max_speed(*mode),
                mode.speed_unit()
            ),
            Implausible::LowAccuracy {
                correct_keystrokes,
                keystrokes,
            } => write!(
                f,
                "Only {correct_keystrokes} of {keystrokes} keystrokes were correct; \
                 at least half must be."
            ),
        }
    }
}

impl std::error::Error for Implausible {}

/// Milliseconds shown as seconds, e.g. `2.5 s`.
struct Seconds(u64);

impl fmt::Display for Seconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (whole, millis) = (self.0 / 1000, self.0 % 1000);
        if millis == 0 {
            write!(f, "{whole} s")
        } else {
            let fraction = format!("{millis:03}");
            write!(f, "{whole}.{} s", fraction.trim_end_matches('0'))
        }
    }
}

/// Counters that cannot all be true of one game.
///
/// Not a rule: errors are not tied to keystrokes, because a word skipped with the space
/// bar may leave characters wrong (missed) in the final text without typing them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Inconsistency {
    /// Duration runs from the first keystroke, so a finished game has at least one.
    NoKeystrokes,
    /// Correct keystrokes are a subset of keystrokes.
    MoreCorrectKeystrokesThanKeystrokes,
    /// A character right in the final text was put there by the last keystroke at its
    /// position, which was then correct: there are at least as many correct keystrokes
    /// as correct characters (and so at least as many keystrokes).
    MoreCorrectCharsThanCorrectKeystrokes,
}

impl Inconsistency {
    /// The first contradiction in `stats`, if any.
    fn find(stats: &Stats) -> Option<Inconsistency> {
        if stats.keystrokes == 0 {
            Some(Inconsistency::NoKeystrokes)
        } else if stats.correct_keystrokes > stats.keystrokes {
            Some(Inconsistency::MoreCorrectKeystrokesThanKeystrokes)
        } else if stats.correct_chars > stats.correct_keystrokes {
            Some(Inconsistency::MoreCorrectCharsThanCorrectKeystrokes)
        } else {
            None
        }
    }
}

impl fmt::Display for Inconsistency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Inconsistency::NoKeystrokes => "a finished game has at least one keystroke",
            Inconsistency::MoreCorrectKeystrokesThanKeystrokes => {
                "there are more correct keystrokes than keystrokes"
            }
            Inconsistency::MoreCorrectCharsThanCorrectKeystrokes => {
                "there are more correct characters than correct keystrokes"
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const ENGLISH: [Mode; 3] = [Mode::Time, Mode::Words, Mode::Quote];

    fn stats(duration_ms: u64, correct_chars: u32, errors: u32) -> Stats {
        Stats {
            duration_ms,
            correct_chars,
            errors,
            keystrokes: correct_chars + errors,
            correct_keystrokes: correct_chars,
        }
    }

    #[test]
    fn english_value_is_net_wpm_times_100() {
        // 250 chars = 50 words in 1 min: 50 WPM → 5000.
        assert_eq!(value(Mode::Time, &stats(60_000, 250, 9)), 5_000);
        // 251 chars in 61.234 s: 251 × 1_200_000 / 61_234 = 4918.84 → 4919.
        assert_eq!(value(Mode::Words, &stats(61_234, 251, 0)), 4_919);
        // 123 chars in 45.678 s: 147_600_000 / 45_678 = 3231.31 → 3231.
        assert_eq!(value(Mode::Quote, &stats(45_678, 123, 4)), 3_231);
    }

    #[test]
    fn rounding_is_half_up() {
        // 3 chars in 800 s: 3_600_000 / 800_000 = 4.5 → 5.
        assert_eq!(value(Mode::Words, &stats(800_000, 3, 0)), 5);
        // zh: 1 字 in 4000 s: 6_000_000 / 4_000_000 = 1.5 → 2.
        assert_eq!(value(Mode::Zh, &stats(4_000_000, 1, 0)), 2);
    }

    #[test]
    fn zh_value_penalises_each_error_fivefold() {
        // 字数 102, 错字 2: (102 − 10) = 92 字 in 30 s = 184 字/分 → 18400.
        assert_eq!(value(Mode::Zh, &stats(30_000, 100, 2)), 18_400);
        // 字数 60, 错字 3: 45 字 in 12.345 s: 45 × 6_000_000 / 12_345 = 21871.2 → 21871.
        assert_eq!(value(Mode::Zh, &stats(12_345, 57, 3)), 21_871);
        // 字数 130, 错字 30: 130 − 150 < 0 → 0, never negative.
        assert_eq!(value(Mode::Zh, &stats(30_000, 100, 30)), 0);
    }

    #[test]
    fn zero_duration_is_worth_nothing() {
        for mode in Mode::ALL {
            assert_eq!(value(mode, &stats(0, 10, 0)), 0);
        }
        assert_eq!(net_wpm(&stats(0, 10, 0)), 0.0);
    }

    #[test]
    fn display_helpers_worked_examples() {
        // 300 correct + 20 wrong chars, 340 keystrokes (306 correct) in 30 s.
        let s = Stats {
            duration_ms: 30_000,
            correct_chars: 300,
            errors: 20,
            keystrokes: 340,
            correct_keystrokes: 306,
        };
        assert_eq!(net_wpm(&s), 120.0); // 60 words / 0.5 min
        assert_eq!(raw_wpm(&s), 136.0); // 68 words / 0.5 min
        assert_eq!(accuracy(&s), 0.9); // 306 / 340
        assert_eq!(committed_per_minute(&s), 680.0);
        assert_eq!(zi_per_minute(&s), 440.0); // (320 − 100) 字 / 0.5 min
        assert_eq!(accuracy(&stats(0, 0, 0)), 1.0);
    }

    /// 100 right and 2 wrong in the text, 110 typed (105 right) in half a minute.
    const HALF_MINUTE: Stats = Stats {
        duration_ms: 30_000,
        correct_chars: 100,
        errors: 2,
        keystrokes: 110,
        correct_keystrokes: 105,
    };

    #[test]
    fn the_speed_is_the_value_before_scaling() {
        let stats = HALF_MINUTE;
        // 100 characters = 20 words in half a minute; (102 − 10) 字 in half a minute.
        assert_eq!(Mode::Words.speed(&stats), 40.0);
        assert_eq!(Mode::Zh.speed(&stats), 184.0);
        for mode in Mode::ALL {
            let value = value(mode, &stats);
            assert_eq!(value, (mode.speed(&stats) * 100.0).round() as i64, "{mode}");
        }
    }

    #[test]
    fn raw_speeds_count_every_character_typed() {
        let stats = HALF_MINUTE;
        assert_eq!(Mode::Quote.raw_speed(&stats), 44.0); // 22 words in half a minute
        assert_eq!(Mode::Zh.raw_speed(&stats), 220.0); // 110 字, no penalty
        assert_eq!(Mode::Time.format_speed(61.26), "61.3 WPM");
        assert_eq!(Mode::Zh.format_speed(220.0), "220.0 字/分");
    }

    #[test]
    fn accepts_a_real_game() {
        let s = Stats {
            duration_ms: 60_000,
            correct_chars: 250,
            errors: 2,
            keystrokes: 270,
            correct_keystrokes: 255,
        };
        assert_eq!(validate(Mode::Time, &s, 5_000), Ok(5_000));
        assert_eq!(validate(Mode::Zh, &s, value(Mode::Zh, &s)), Ok(24_200));
    }

    #[test]
    fn refuses_a_value_the_stats_do_not_earn() {
        let s = stats(60_000, 250, 0);
        let err = validate(Mode::Words, &s, 5_001).unwrap_err();
        assert_eq!(
            err,
            Implausible::ValueMismatch {
                claimed: 5_001,
                derived: 5_000
            }
        );
        assert_eq!(err.code().as_str(), "VALUE_MISMATCH");
        assert_eq!(
            err.message(),
            "The score 5001 does not match the game's statistics, which earn 5000."
        );
    }

    #[test]
    fn speed_limit_is_exact_not_rounded() {
        // 350 WPM for 6 s is exactly 175 chars: allowed. 176 is 352 WPM.
        let at_limit = stats(6_000, 175, 0);
        assert_eq!(validate(Mode::Quote, &at_limit, 35_000), Ok(35_000));
        let over = stats(6_000, 176, 0);
        let err = validate(Mode::Quote, &over, 35_200).unwrap_err();
        assert_eq!(err.code().as_str(), "TOO_FAST");
        assert_eq!(
            err.message(),
            "A speed of 352.00 WPM is beyond the human limit of 350 WPM."
        );
        // Rounding can hide a little excess: 501 chars in 17.177 s is 350.0029 WPM,
        // 601_200_000 / 17_177 = 35_000.29 → 35_000, yet it is over the limit.
        let hidden = stats(17_177, 501, 0);
        assert_eq!(value(Mode::Words, &hidden), 35_000);
        assert_eq!(
            validate(Mode::Words, &hidden, 35_000).unwrap_err().code(),
            ApiCode::TooFast
        );
    }

    #[test]
    fn zh_speed_limit_is_600_zi_per_minute() {
        // 600 字/分 for 10 s is 100 字.
        assert_eq!(
            validate(Mode::Zh, &stats(10_000, 100, 0), 60_000),
            Ok(60_000)
        );
        let err = validate(Mode::Zh, &stats(10_000, 101, 0), 60_600).unwrap_err();
        assert_eq!(
            err,
            Implausible::TooFast {
                mode: Mode::Zh,
                value: 60_600
            }
        );
        assert_eq!(
            err.message(),
            "A speed of 606.00 字/分 is beyond the human limit of 600 字/分."
        );
    }

    #[test]
    fn durations() {
        let short = stats(2_999, 10, 0);
        let err = validate(Mode::Words, &short, value(Mode::Words, &short)).unwrap_err();
        assert_eq!(err, Implausible::TooShort { duration_ms: 2_999 });
        assert_eq!(
            err.message(),
            "The game lasted 2.999 s, but every game lasts at least 3 s."
        );
        assert!(validate(Mode::Words, &stats(3_000, 10, 0), 4_000).is_ok());

        for (duration_ms, ok) in [
            (58_999, false),
            (59_000, true),
            (61_000, true),
            (61_001, false),
        ] {
            let s = stats(duration_ms, 200, 0);
            let result = validate(Mode::Time, &s, value(Mode::Time, &s));
            assert_eq!(result.is_ok(), ok, "{duration_ms} ms");
            if !ok {
                assert_eq!(result.unwrap_err().code().as_str(), "WRONG_DURATION");
            }
        }
        assert_eq!(
            Implausible::WrongDuration {
                duration_ms: 61_500,
                limit_ms: TIME_MODE_DURATION_MS
            }
            .message(),
            "A timed game lasts 60 s (± 1 s), but this one lasted 61.5 s."
        );
        // A 30 s test lasts 30 s: the 60 s of the public test is wrong for it.
        let thirty = Test {
            mode: Mode::Time,
            options: crate::game::options::TestOptions::default().with_length(Mode::Time, 30),
        };
        let s = stats(30_400, 200, 0);
        assert!(validate(thirty, &s, value(Mode::Time, &s)).is_ok());
        assert_eq!(
            validate(Mode::Time, &s, value(Mode::Time, &s))
                .unwrap_err()
                .code(),
            ApiCode::WrongDuration
        );
        let s = stats(60_000, 200, 0);
        assert_eq!(
            validate(thirty, &s, value(Mode::Time, &s))
                .unwrap_err()
                .code(),
            ApiCode::WrongDuration
        );
        // Only `time` has a fixed length.
        assert!(validate(Mode::Quote, &stats(90_000, 200, 0), 2_667).is_ok());
    }

    #[test]
    fn accuracy_must_be_at_least_half() {
        let mut s = stats(30_000, 100, 0);
        s.keystrokes = 200;
        s.correct_keystrokes = 100;
        assert!(
            validate(Mode::Words, &s, 4_000).is_ok(),
            "exactly 50 % passes"
        );
        s.keystrokes = 201;
        let err = validate(Mode::Words, &s, 4_000).unwrap_err();
        assert_eq!(
            err,
            Implausible::LowAccuracy {
                correct_keystrokes: 100,
                keystrokes: 201
            }
        );
        assert_eq!(err.code().as_str(), "LOW_ACCURACY");
    }

    #[test]
    fn inconsistent_counters() {
        let cases = [
            (stats(30_000, 0, 0), Inconsistency::NoKeystrokes),
            (
                Stats {
                    correct_keystrokes: 11,
                    keystrokes: 10,
                    ..stats(30_000, 10, 0)
                },
                Inconsistency::MoreCorrectKeystrokesThanKeystrokes,
            ),
            (
                Stats {
                    correct_keystrokes: 9,
                    ..stats(30_000, 10, 0)
                },
                Inconsistency::MoreCorrectCharsThanCorrectKeystrokes,
            ),
        ];
        for (s, inconsistency) in cases {
            for mode in Mode::ALL {
                let err = validate(mode, &s, value(mode, &s)).unwrap_err();
                assert_eq!(err, Implausible::Inconsistent(inconsistency));
                assert_eq!(err.code().as_str(), "INCONSISTENT_STATS");
            }
        }
        assert_eq!(
            Implausible::Inconsistent(Inconsistency::NoKeystrokes).message(),
            "The game's counters contradict each other: a finished game has at least one keystroke."
        );
    }

    #[test]
    fn stats_use_the_wire_names_and_refuse_unknown_fields() {
        let json = r#"{"durationMs":60000,"correctChars":250,"errors":2,"keystrokes":270,"correctKeystrokes":255}"#;
        let s: Stats = serde_json::from_str(json).unwrap();
        assert_eq!(serde_json::to_string(&s).unwrap(), json);
        let extra = json.replace('}', r#","bonus":1}"#);
        assert!(serde_json::from_str::<Stats>(&extra).is_err());
    }

    /// Stats a real game could produce in `mode`: consistent, long enough, under the
    /// speed limit, at least 50 % accurate.
    fn plausible(mode: Mode) -> impl Strategy<Value = Stats> {
        let durations = if mode == Mode::Time {
            59_000..=61_000u64
        } else {
            3_000..=600_000u64
        };
        durations
            .prop_flat_map(move |duration_ms| {
                // English: c ≤ 350 × 5 × d / 60_000; zh: c − 4e ≤ 600 × d / 60_000.
                let max_chars = match mode {
                    Mode::Zh => duration_ms / 100,
                    _ => duration_ms * 7 / 240,
                } as u32;
                (Just(duration_ms), 0..=max_chars, 0..=200u32)
            })
            .prop_flat_map(|(duration_ms, correct_chars, errors)| {
                let min_correct = correct_chars.max(1);
                (
                    Just((duration_ms, correct_chars, errors)),
                    min_correct..=min_correct * 2,
                )
            })
            .prop_flat_map(|(stats, correct_keystrokes)| {
                (
                    Just(stats),
                    Just(correct_keystrokes),
                    correct_keystrokes..=correct_keystrokes * 2,
                )
            })
            .prop_map(
                |((duration_ms, correct_chars, errors), correct_keystrokes, keystrokes)| Stats {
                    duration_ms,
                    correct_chars,
                    errors,
                    keystrokes,
                    correct_keystrokes,
                },
            )
    }

    fn mode() -> impl Strategy<Value = Mode> {
        proptest::sample::select(Mode::ALL.to_vec())
    }

    fn any_stats() -> impl Strategy<Value = Stats> {
        (
            0..=u64::from(u32::MAX),
            any::<u32>(),
            any::<u32>(),
            any::<u32>(),
            any::<u32>(),
        )
            .prop_map(
                |(duration_ms, correct_chars, errors, keystrokes, correct_keystrokes)| Stats {
                    duration_ms,
                    correct_chars,
                    errors,
                    keystrokes,
                    correct_keystrokes,
                },
            )
    }

    proptest! {
        #[test]
        fn validate_accepts_value_and_only_value(
            (mode, s) in mode().prop_flat_map(|m| (Just(m), plausible(m)))
        ) {
            let v = value(mode, &s);
            prop_assert_eq!(validate(mode, &s, v), Ok(v));
            prop_assert_eq!(validate(mode, &s, v + 1).unwrap_err().code().as_str(), "VALUE_MISMATCH");
            prop_assert_eq!(validate(mode, &s, v - 1).unwrap_err().code().as_str(), "VALUE_MISMATCH");
        }

        #[test]
        fn perfect_typing_earns_at_least_as_much(mode in mode(), s in any_stats()) {
            let perfect = Stats { correct_chars: s.correct_chars.saturating_add(s.errors), errors: 0, ..s };
            prop_assert!(value(mode, &s) <= value(mode, &perfect));
        }

        #[test]
        fn more_correct_chars_never_lower_the_value(mode in mode(), s in any_stats()) {
            prop_assume!(s.correct_chars < u32::MAX);
            let better = Stats { correct_chars: s.correct_chars + 1, ..s };
            prop_assert!(value(mode, &s) <= value(mode, &better));
        }

        #[test]
        fn value_is_the_displayed_speed_rounded(s in any_stats()) {
            for mode in ENGLISH {
                let shown = net_wpm(&s) * 100.0;
                prop_assert!((value(mode, &s) as f64 - shown).abs() <= 0.5 + shown * 1e-12);
            }
            let shown = zi_per_minute(&s) * 100.0;
            prop_assert!((value(Mode::Zh, &s) as f64 - shown).abs() <= 0.5 + shown * 1e-12);
        }

        #[test]
        fn never_panics_and_never_negative(mode in mode(), s in any_stats(), claimed in any::<i64>()) {
            prop_assert!(value(mode, &s) >= 0);
            let _ = validate(mode, &s, claimed);
        }
    }
}
