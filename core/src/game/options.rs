//! The options of the English word tests (docs/scoring.md, "Options"): how long a
//! `time` game lasts (15, 30, 60 or 120 s), how many words a `words` game has (10, 25,
//! 50 or 100), and whether its words carry punctuation and numbers.
//!
//! The options are part of a game's prompt identity ([`crate::PromptId`]), so the server
//! rebuilds and replays exactly the test that was played. The default test (60 s, 50
//! words, plain words) has no options at all, so games from before options existed keep
//! their identity; any other choice counts on a personal board of its own
//! ([`crate::game::board::boards_of`]).

use crate::game::mode::Mode;
use crate::game::rng::SplitMix64;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::num::NonZeroUsize;

/// How many words a `words` game has (docs/scoring.md).
pub const WORDS_MODE_WORD_COUNT: NonZeroUsize = NonZeroUsize::new(50).unwrap();

/// How many words the public `time` test's prompt has (other lengths draw in
/// proportion, [`TestOptions::word_count`]). 60 s at the fastest accepted 350 WPM is
/// 1 750 characters; 400 common words (about 6 characters each with their space) leave
/// a wide margin.
pub const TIME_MODE_WORD_COUNT: NonZeroUsize = NonZeroUsize::new(400).unwrap();

/// The seconds a `time` game may last, shortest first.
pub const TIME_LENGTHS: [u16; 4] = [15, 30, 60, 120];
/// The words a `words` game may have, fewest first.
pub const WORDS_LENGTHS: [u16; 4] = [10, 25, 50, 100];
/// The length of the public tests: 60 s and 50 words.
const DEFAULT_SECONDS: u16 = 60;
const DEFAULT_WORDS: u16 = WORDS_MODE_WORD_COUNT.get() as u16;

/// The options of one English word test. `Default` is the public test of its mode.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TestOptions {
    /// Seconds of a `time` game or words of a `words` game; `None` is the mode's
    /// default (60 s, 50 words), never written out, so an identity has one spelling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub length: Option<u16>,
    /// Words carry capitals and punctuation marks.
    #[serde(default, skip_serializing_if = "is_false")]
    pub punctuation: bool,
    /// Some words are numbers.
    #[serde(default, skip_serializing_if = "is_false")]
    pub numbers: bool,
}

fn is_false(value: &bool) -> bool {
    !value
}

impl TestOptions {
    /// The lengths `mode` offers; none for the passage modes.
    pub fn lengths(mode: Mode) -> &'static [u16] {
        match mode {
            Mode::Time => &TIME_LENGTHS,
            Mode::Words => &WORDS_LENGTHS,
            Mode::Quote | Mode::Zh => &[],
        }
    }

    /// The length of `mode`'s public test, if it has one.
    pub fn default_length(mode: Mode) -> Option<u16> {
        match mode {
            Mode::Time => Some(DEFAULT_SECONDS),
            Mode::Words => Some(DEFAULT_WORDS),
            Mode::Quote | Mode::Zh => None,
        }
    }

    /// These options with `length`, the mode's default length written as none.
    pub fn with_length(self, mode: Mode, length: u16) -> TestOptions {
        TestOptions {
            length: (Some(length) != TestOptions::default_length(mode)).then_some(length),
            ..self
        }
    }

    /// The length played: the chosen one, or the mode's default.
    pub fn length(&self, mode: Mode) -> Option<u16> {
        self.length.or(TestOptions::default_length(mode))
    }

    /// The public test of its mode: no option chosen.
    pub fn is_default(&self) -> bool {
        *self == TestOptions::default()
    }

    /// Whether `mode` offers these options: only the word modes have any, a length is
    /// one the mode offers, and the default length is written as none.
    pub fn check(&self, mode: Mode) -> Result<(), OptionsError> {
        if self.is_default() {
            return Ok(());
        }
        if TestOptions::lengths(mode).is_empty() {
            return Err(OptionsError::NotAWordMode { mode });
        }
        match self.length {
            Some(length) if Some(length) == TestOptions::default_length(mode) => {
                Err(OptionsError::DefaultLengthWritten { mode, length })
            }
            Some(length) if !TestOptions::lengths(mode).contains(&length) => {
                Err(OptionsError::UnknownLength { mode, length })
            }
            _ => Ok(()),
        }
    }

    /// How long a game of `mode` lasts: `Some` for `time` only.
    pub fn time_limit_ms(&self, mode: Mode) -> Option<u64> {
        (mode == Mode::Time)
            .then(|| self.length(mode))
            .flatten()
            .map(|seconds| u64::from(seconds) * 1_000)
    }

    /// How many words the prompt of a game of `mode` draws: the length of a `words`
    /// game; for `time`, enough for its seconds at the fastest accepted speed.
    pub fn word_count(&self, mode: Mode) -> NonZeroUsize {
        let words = match mode {
            // As many words a second as the public test's 400 in 60 s.
            Mode::Time => {
                let seconds = usize::from(self.length(mode).unwrap_or(DEFAULT_SECONDS));
                TIME_MODE_WORD_COUNT.get() * seconds / usize::from(DEFAULT_SECONDS)
            }
            Mode::Words | Mode::Quote | Mode::Zh => {
                usize::from(self.length(mode).unwrap_or(DEFAULT_WORDS))
            }
        };
        NonZeroUsize::new(words).expect("every offered length is positive")
    }

    /// `words`' words as the options dress them: with punctuation, sentences start
    /// with a capital and words end in marks now and then, the last in a full stop;
    /// with numbers, about one word in ten is a number of 1 to 4 digits. The marks
    /// come from their own generator seeded by `seed`, so the same seed draws the
    /// same words with and without them.
    pub fn dress<'a>(&self, words: impl Iterator<Item = &'a str>, seed: u64) -> Vec<String> {
        let mut rng = SplitMix64::new(seed ^ DRESSING_SALT);
        let mut sentence_starts = true;
        let mut dressed: Vec<String> = words
            .map(|word| {
                let mut word = if self.numbers && rng.below(10) == 0 {
                    let digits = 1 + rng.below(4) as u32;
                    (rng.below(10usize.pow(digits))).to_string()
                } else {
                    word.to_owned()
                };
                if self.punctuation {
                    if sentence_starts {
                        word = capitalised(&word);
                    }
                    let mark = match rng.below(100) {
                        0..8 => ",",
                        8..14 => ".",
                        14..16 => "?",
                        16..18 => "!",
                        18..19 => ";",
                        19..20 => ":",
                        _ => "",
                    };
                    word.push_str(mark);
                    sentence_starts = matches!(mark, "." | "?" | "!");
                }
                word
            })
            .collect();
        if self.punctuation
            && let Some(last) = dressed.last_mut()
            && !last.ends_with(['.', '?', '!'])
        {
            last.truncate(last.trim_end_matches([',', ';', ':']).len());
            last.push('.');
        }
        dressed
    }

    /// The options as one word: the length, then `punctuation` and `numbers` when on,
    /// joined by `+` (`30+punctuation`); empty for the default test. Names a personal
    /// board (docs/sync.md, "Outbox") and follows a stored prompt identity.
    pub fn key(&self) -> String {
        let length = self.length.map(|length| length.to_string());
        [
            length.as_deref(),
            self.punctuation.then_some("punctuation"),
            self.numbers.then_some("numbers"),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join("+")
    }

    /// The options [`TestOptions::key`] wrote, or `None` if `key` is not one.
    pub fn parse_key(key: &str) -> Option<TestOptions> {
        let mut options = TestOptions::default();
        let mut parts = key.split('+').filter(|part| !part.is_empty()).peekable();
        if let Some(length) = parts.peek().and_then(|part| part.parse::<u16>().ok()) {
            options.length = Some(length);
            parts.next();
        }
        if parts.peek() == Some(&"punctuation") {
            options.punctuation = true;
            parts.next();
        }
        if parts.peek() == Some(&"numbers") {
            options.numbers = true;
            parts.next();
        }
        (parts.next().is_none() && options.key() == key).then_some(options)
    }

    /// How people read the options of a `mode` game: `30 s · punctuation`.
    pub fn label(&self, mode: Mode) -> String {
        let length = self.length(mode).map(|length| match mode {
            Mode::Time => format!("{length} s"),
            Mode::Words | Mode::Quote | Mode::Zh => format!("{length} words"),
        });
        [
            length,
            self.punctuation.then(|| "punctuation".to_owned()),
            self.numbers.then(|| "numbers".to_owned()),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" · ")
    }
}

/// A test: a mode and the options it is played with. A mode alone is its public test,
/// so everything that plays or scores a game takes either.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Test {
    pub mode: Mode,
    pub options: TestOptions,
}

impl From<Mode> for Test {
    fn from(mode: Mode) -> Test {
        Test {
            mode,
            options: TestOptions::default(),
        }
    }
}

impl Test {
    /// How long a game of the test lasts: `Some` for `time` only.
    pub fn time_limit_ms(&self) -> Option<u64> {
        self.options.time_limit_ms(self.mode)
    }
}

/// Keeps the marks' generator apart from the words' ([`TestOptions::dress`]).
const DRESSING_SALT: u64 = 0x7075_6E63_7475_6174;

fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// Options a mode does not offer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionsError {
    /// Only `time` and `words` have options.
    NotAWordMode { mode: Mode },
    /// The mode does not offer this length.
    UnknownLength { mode: Mode, length: u16 },
    /// The default length is written as none, so an identity has one spelling.
    DefaultLengthWritten { mode: Mode, length: u16 },
}

impl fmt::Display for OptionsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionsError::NotAWordMode { mode } => {
                write!(f, "the {mode} mode has no options")
            }
            OptionsError::UnknownLength { mode, length } => write!(
                f,
                "the {mode} mode offers the lengths {:?}, not {length}",
                TestOptions::lengths(*mode)
            ),
            OptionsError::DefaultLengthWritten { mode, length } => write!(
                f,
                "{length} is the {mode} mode's default length, which a prompt leaves out"
            ),
        }
    }
}

impl std::error::Error for OptionsError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_and_limits_follow_the_mode() {
        let default = TestOptions::default();
        assert_eq!(default.time_limit_ms(Mode::Time), Some(60_000));
        assert_eq!(default.time_limit_ms(Mode::Words), None);
        assert_eq!(default.word_count(Mode::Words).get(), 50);
        assert_eq!(default.word_count(Mode::Time).get(), 400);
        let short = default.with_length(Mode::Time, 15);
        assert_eq!(short.time_limit_ms(Mode::Time), Some(15_000));
        assert_eq!(short.word_count(Mode::Time).get(), 100);
        assert_eq!(
            default
                .with_length(Mode::Time, 120)
                .word_count(Mode::Time)
                .get(),
            800
        );
        assert_eq!(
            default
                .with_length(Mode::Words, 10)
                .word_count(Mode::Words)
                .get(),
            10
        );
        // The default length is written as none.
        assert_eq!(default.with_length(Mode::Words, 50), default);
        assert!(default.with_length(Mode::Time, 60).is_default());
    }

    #[test]
    fn only_offered_options_pass() {
        let punctuated = TestOptions {
            punctuation: true,
            ..TestOptions::default()
        };
        assert_eq!(punctuated.check(Mode::Time), Ok(()));
        assert_eq!(TestOptions::default().check(Mode::Zh), Ok(()));
        assert_eq!(
            punctuated.check(Mode::Quote),
            Err(OptionsError::NotAWordMode { mode: Mode::Quote })
        );
        let odd = TestOptions {
            length: Some(45),
            ..TestOptions::default()
        };
        assert!(matches!(
            odd.check(Mode::Time),
            Err(OptionsError::UnknownLength { length: 45, .. })
        ));
        let written = TestOptions {
            length: Some(50),
            ..TestOptions::default()
        };
        assert!(matches!(
            written.check(Mode::Words),
            Err(OptionsError::DefaultLengthWritten { .. })
        ));
        // 10 words is a `words` length, not a `time` one.
        let ten = TestOptions::default().with_length(Mode::Words, 10);
        assert_eq!(ten.check(Mode::Words), Ok(()));
        assert!(ten.check(Mode::Time).is_err());
    }

    #[test]
    fn keys_round_trip_and_name_one_spelling() {
        for length in [None, Some(15), Some(100)] {
            for punctuation in [false, true] {
                for numbers in [false, true] {
                    let options = TestOptions {
                        length,
                        punctuation,
                        numbers,
                    };
                    assert_eq!(TestOptions::parse_key(&options.key()), Some(options));
                }
            }
        }
        assert_eq!(TestOptions::default().key(), "");
        assert_eq!(
            TestOptions::default().with_length(Mode::Time, 30).key(),
            "30"
        );
        for wrong in ["numbers+punctuation", "30+", "+30", "x", "30+30", "030"] {
            assert_eq!(TestOptions::parse_key(wrong), None, "{wrong}");
        }
    }

    #[test]
    fn dressing_keeps_the_words_and_ends_a_sentence() {
        let words = ["alpha", "beta", "gamma", "delta", "epsilon"].repeat(40);
        let plain = TestOptions::default().dress(words.iter().copied(), 7);
        assert_eq!(plain, words);
        let punctuated = TestOptions {
            punctuation: true,
            ..TestOptions::default()
        }
        .dress(words.iter().copied(), 7);
        assert!(punctuated[0].starts_with('A'));
        assert!(punctuated.last().unwrap().ends_with('.'));
        assert!(punctuated.iter().any(|word| word.ends_with(',')));
        for (dressed, word) in punctuated.iter().zip(&words) {
            assert_eq!(
                dressed
                    .trim_end_matches([',', '.', '?', '!', ';', ':'])
                    .to_lowercase(),
                *word
            );
        }
        let numbered = TestOptions {
            numbers: true,
            ..TestOptions::default()
        }
        .dress(words.iter().copied(), 7);
        let numbers = numbered
            .iter()
            .filter(|word| word.parse::<u32>().is_ok())
            .count();
        assert!(
            (5..=50).contains(&numbers),
            "{numbers} numbers in 200 words"
        );
        // The same seed dresses alike.
        assert_eq!(
            numbered,
            TestOptions {
                numbers: true,
                ..TestOptions::default()
            }
            .dress(words.iter().copied(), 7)
        );
    }

    #[test]
    fn options_read_as_people_say_them() {
        let options = TestOptions {
            length: Some(30),
            punctuation: true,
            numbers: false,
        };
        assert_eq!(options.label(Mode::Time), "30 s · punctuation");
        assert_eq!(TestOptions::default().label(Mode::Words), "50 words");
    }
}
