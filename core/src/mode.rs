//! The four game modes and their stable ids (`time`, `words`, `quote`, `zh`).

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
}
