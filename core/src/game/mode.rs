//! The four game modes and everything that differs between them: stable ids (`time`,
//! `words`, `quote`, `zh`), names, the language typed, the unit of the speed a mode is
//! scored in (net WPM or 字/分), and how a leaderboard `value` (speed × 100) and other
//! speeds read. The speeds themselves are scoring ([`Mode::speed`] and
//! [`Mode::raw_speed`] live in [`crate::game::score`]).
//! Every other crate asks here instead of matching on modes itself.

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

    /// How many typed characters make one unit of speed: a word is
    /// [`CHARS_PER_WORD`] characters, a 字 is one.
    pub fn chars_per_unit(self) -> u32 {
        match self.language() {
            Language::English => CHARS_PER_WORD,
            Language::Chinese => 1,
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

/// Words per minute count five characters as one word.
pub const CHARS_PER_WORD: u32 = 5;

/// A leaderboard value (speed × 100) as the speed's digits, without a unit:
/// `5234` → `52.34`. Exact: no float is involved.
pub fn value_digits(value: i64) -> String {
    let sign = if value < 0 { "-" } else { "" };
    let magnitude = value.unsigned_abs();
    format!("{sign}{}.{:02}", magnitude / 100, magnitude % 100)
}

/// The language a mode is typed in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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
}
