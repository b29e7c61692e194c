//! The four game modes and everything that differs between them: stable ids (`time`,
//! `words`, `quote`, `zh`), names, the language typed, the speed a mode is scored in
//! (net WPM or 字/分) and its raw counterpart, the unit, and how a leaderboard `value`
//! (speed × 100) and other speeds read.
//! Every other crate asks here instead of matching on modes itself.

use crate::score::{self, Stats};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A game mode. Each has its own leaderboards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Random common English words for 60 seconds.
    Time,
    /// Fifty random common English words.
    Words,
    /// One English passage.
    Quote,
    /// One Chinese passage typed through an input method.
    Zh,
}

impl Mode {
    /// Every mode, in the order the UI shows them.
    pub const ALL: [Mode; 4] = [Mode::Time, Mode::Words, Mode::Quote, Mode::Zh];

    /// The stable id used in URLs, storage keys and test ids.
    pub fn id(self) -> &'static str {
        match self {
            Mode::Time => "time",
            Mode::Words => "words",
            Mode::Quote => "quote",
            Mode::Zh => "zh",
        }
    }

    /// The name people read.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Time => "Time",
            Mode::Words => "Words",
            Mode::Quote => "Quote",
            Mode::Zh => "中文",
        }
    }

    /// What the mode asks of the player, in the language it is played in.
    pub fn description(self) -> &'static str {
        match self {
            Mode::Time => "60 seconds of common words",
            Mode::Words => "50 common words",
            Mode::Quote => "one English passage",
            Mode::Zh => "一段中文，用输入法",
        }
    }

    /// The language of the text the player types.
    pub fn language(self) -> Language {
        match self {
            Mode::Time | Mode::Words | Mode::Quote => Language::English,
            Mode::Zh => Language::Chinese,
        }
    }

    /// The unit of the mode's speed: net words per minute, or 字 per minute.
    pub fn speed_unit(self) -> &'static str {
        match self.language() {
            Language::English => "WPM",
            Language::Chinese => "字/分",
        }
    }

    /// How many typed characters make one unit of speed: a word is five characters,
    /// a 字 is one.
    pub fn chars_per_unit(self) -> u32 {
        match self.language() {
            Language::English => 5,
            Language::Chinese => 1,
        }
    }

    /// The speed the mode is scored in, in [`Mode::speed_unit`]: net WPM, or 速度 (字/分,
    /// with 错一罚五). The leaderboard value is this × 100, rounded ([`score::value`]).
    pub fn speed(self, stats: &Stats) -> f64 {
        match self.language() {
            Language::English => score::net_wpm(stats),
            Language::Chinese => score::zi_per_minute(stats),
        }
    }

    /// The raw speed, in [`Mode::speed_unit`]: every character typed, right or wrong,
    /// kept or deleted, without the net speed's deductions (raw WPM; 字/分 before 错一罚五).
    pub fn raw_speed(self, stats: &Stats) -> f64 {
        match self.language() {
            Language::English => score::raw_wpm(stats),
            Language::Chinese => score::committed_per_minute(stats),
        }
    }

    /// A leaderboard value as people read it: the speed with two decimals and its
    /// unit, e.g. `5234` → `52.34 WPM`.
    pub fn format_value(self, value: i64) -> String {
        format!("{} {}", value_digits(value), self.speed_unit())
    }

    /// A speed to one decimal with its unit, e.g. `61.25` → `61.3 WPM`.
    pub fn format_speed(self, speed: f64) -> String {
        format!("{speed:.1} {}", self.speed_unit())
    }
}

/// A leaderboard value (speed × 100) as the speed's digits, without a unit:
/// `5234` → `52.34`. Exact: no float is involved.
pub fn value_digits(value: i64) -> String {
    let sign = if value < 0 { "-" } else { "" };
    let magnitude = value.unsigned_abs();
    format!("{sign}{}.{:02}", magnitude / 100, magnitude % 100)
}

/// The language a mode is typed in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    English,
    Chinese,
}

impl Language {
    /// The BCP 47 tag, for `lang` attributes.
    pub fn tag(self) -> &'static str {
        match self {
            Language::English => "en",
            Language::Chinese => "zh-Hans",
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// The id is not one of the four modes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownMode;

impl FromStr for Mode {
    type Err = UnknownMode;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Mode::ALL
            .into_iter()
            .find(|m| m.id() == s)
            .ok_or(UnknownMode)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_through_str_and_json() {
        for mode in Mode::ALL {
            assert_eq!(mode.id().parse::<Mode>(), Ok(mode));
            let json = serde_json::to_string(&mode).unwrap();
            assert_eq!(json, format!("\"{}\"", mode.id()));
        }
        assert_eq!("TIME".parse::<Mode>(), Err(UnknownMode));
    }

    #[test]
    fn names_are_distinct_and_units_follow_the_language() {
        let names: std::collections::HashSet<_> = Mode::ALL.iter().map(|m| m.name()).collect();
        assert_eq!(names.len(), Mode::ALL.len());
        for mode in [Mode::Time, Mode::Words, Mode::Quote] {
            assert_eq!(mode.language().tag(), "en");
            assert_eq!((mode.speed_unit(), mode.chars_per_unit()), ("WPM", 5));
        }
        assert_eq!(Mode::Zh.language().tag(), "zh-Hans");
        assert_eq!(
            (Mode::Zh.speed_unit(), Mode::Zh.chars_per_unit()),
            ("字/分", 1)
        );
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
            let value = score::value(mode, &stats);
            assert_eq!(value, (mode.speed(&stats) * 100.0).round() as i64, "{mode}");
        }
    }

    #[test]
    fn values_read_as_speeds_with_two_decimals() {
        assert_eq!(Mode::Time.format_value(5234), "52.34 WPM");
        assert_eq!(Mode::Quote.format_value(7), "0.07 WPM");
        assert_eq!(Mode::Words.format_value(0), "0.00 WPM");
        assert_eq!(Mode::Zh.format_value(18_400), "184.00 字/分");
        // Never sent by the server, but a negative value must still read as one.
        assert_eq!(Mode::Words.format_value(-5), "-0.05 WPM");
        assert_eq!(value_digits(12_634), "126.34");
        assert_eq!(value_digits(100), "1.00");
    }

    #[test]
    fn raw_speeds_count_every_character_typed() {
        let stats = HALF_MINUTE;
        assert_eq!(Mode::Quote.raw_speed(&stats), 44.0); // 22 words in half a minute
        assert_eq!(Mode::Zh.raw_speed(&stats), 220.0); // 110 字, no penalty
        assert_eq!(Mode::Time.format_speed(61.26), "61.3 WPM");
        assert_eq!(Mode::Zh.format_speed(220.0), "220.0 字/分");
    }
}
