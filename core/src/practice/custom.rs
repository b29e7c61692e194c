//! Custom text (docs/practice.md, "Custom text"): the player's own text, typed in its
//! order again and again or shuffled, limited by words (字 in Chinese) or by time.
//!
//! A game on it is practice: it feeds the statistics and keeps a personal best of its
//! own on the device, and no board sees it. The server could not verify it without the
//! text, and a shuffled text is a new text every game; a text to be ranked on is
//! loaded instead (载文, docs/genda.md), which has its own verified boards.

use crate::game::mode::{Language, Mode};
use crate::game::prompt::Prompt;
use crate::game::rng::SplitMix64;
use crate::practice::drill::practice_mode;
use crate::text::hash::TextHash;
use crate::text::{TextError, cap, normalise};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The fewest and most words (字) a word-limited game may ask for.
pub const WORD_LIMIT_RANGE: (u16, u16) = (1, 1_000);
/// The shortest and longest a timed game may last, in seconds.
pub const SECONDS_LIMIT_RANGE: (u16, u16) = (5, 600);

/// English characters a timed game's prompt holds per second: 350 WPM, the fastest a
/// board accepts, is 29 characters a second, so a player never runs out of text
/// (unless the language's cap stops the prompt first).
const EN_CHARS_PER_SECOND: usize = 30;
/// Chinese 字 per second, likewise: 600 字/分 is 10 a second.
const ZH_CHARS_PER_SECOND: usize = 10;

/// In which order the text's words come.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    /// As written, starting again at the top.
    Repeat,
    /// In a new random order each time round.
    Shuffle,
}

/// When a game on the text ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Limit {
    /// After this many words (字 in Chinese).
    Words(u16),
    /// This many seconds after the first key.
    Seconds(u16),
}

impl Limit {
    /// The limit kept within its range ([`WORD_LIMIT_RANGE`], [`SECONDS_LIMIT_RANGE`]).
    pub fn clamped(self) -> Limit {
        match self {
            Limit::Words(n) => Limit::Words(n.clamp(WORD_LIMIT_RANGE.0, WORD_LIMIT_RANGE.1)),
            Limit::Seconds(s) => {
                Limit::Seconds(s.clamp(SECONDS_LIMIT_RANGE.0, SECONDS_LIMIT_RANGE.1))
            }
        }
    }
}

/// The player's text with how it is played. Stored as the player set it
/// (`{"text": …, "order": "shuffle", "limit": {"seconds": 30}}`), the text normalised.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CustomText {
    text: String,
    order: Order,
    limit: Limit,
}

impl CustomText {
    /// `raw` normalised as a loaded text is (NFC, no invisible characters, whitespace
    /// as its language has it), refused when nothing is left or it is over its
    /// language's cap; `limit` kept within its range.
    pub fn new(raw: &str, order: Order, limit: Limit) -> Result<CustomText, TextError> {
        let text = normalise::normalise(raw);
        if text.is_empty() {
            return Err(TextError::Empty);
        }
        let chars = text.chars().count();
        let cap = cap(normalise::language_of(&text));
        if chars > cap {
            return Err(TextError::TooLong { chars, cap });
        }
        Ok(CustomText {
            text,
            order,
            limit: limit.clamped(),
        })
    }

    /// The normalised text.
    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn order(&self) -> Order {
        self.order
    }

    pub fn limit(&self) -> Limit {
        self.limit
    }

    pub fn language(&self) -> Language {
        normalise::language_of(&self.text)
    }

    /// The rules it is typed with, as any practice in its language.
    pub fn mode(&self) -> Mode {
        practice_mode(self.language())
    }

    /// How long a game lasts from its first key, when it is timed.
    pub fn time_limit_ms(&self) -> Option<u64> {
        match self.limit {
            Limit::Seconds(seconds) => Some(u64::from(seconds) * 1_000),
            Limit::Words(_) => None,
        }
    }

    /// What its personal best is kept under: the text's hash, the order and the
    /// limit, so a best of one setting never stands for another.
    pub fn best_key(&self) -> String {
        format!("{}:{self}", TextHash::of(&self.text))
    }

    /// The prompt of the game drawn with `seed`: the text's words in order or
    /// shuffled (each round a new order), round after round, until the limit: that
    /// many words (字), or enough for its seconds at the fastest speed a board takes;
    /// never over the language's cap.
    pub fn prompt(&self, seed: u64) -> Prompt {
        let language = self.language();
        let units = units(&self.text, language);
        let wanted = match (self.limit, language) {
            (Limit::Words(n), _) => usize::from(n),
            (Limit::Seconds(s), Language::English) => usize::from(s) * EN_CHARS_PER_SECOND,
            (Limit::Seconds(s), Language::Chinese) => usize::from(s) * ZH_CHARS_PER_SECOND,
        };
        let cap = cap(language);
        let mut rng = SplitMix64::new(seed);
        let mut round: Vec<&str> = Vec::new();
        let mut out = String::new();
        // Characters in `out`, kept as it grows rather than counted again each time.
        let mut out_chars = 0;
        // Counted as the limit counts: words in English, 字 (characters) in Chinese;
        // a timed English prompt counts characters.
        let mut count = 0;
        let counts_words = matches!(self.limit, Limit::Words(_)) && language == Language::English;
        while count < wanted {
            if round.is_empty() {
                round = units.iter().rev().copied().collect();
                if self.order == Order::Shuffle {
                    shuffle(&mut round, &mut rng);
                }
            }
            let unit = round.pop().expect("a round is refilled when empty");
            let separator = if out.is_empty() || language == Language::Chinese {
                ""
            } else {
                " "
            };
            let piece_chars = separator.chars().count() + unit.chars().count();
            if out_chars + piece_chars > cap {
                break;
            }
            out.push_str(separator);
            out.push_str(unit);
            out_chars += piece_chars;
            count += if counts_words { 1 } else { piece_chars };
        }
        if let (Limit::Words(n), Language::Chinese) = (self.limit, language) {
            // Exactly `n` 字: the last clause may be cut.
            out = out.chars().take(usize::from(n)).collect();
        }
        Prompt::new(&out).expect("a custom text has at least one unit and its cap one character")
    }
}

/// "shuffle, 30 s" style: the order and the limit.
impl fmt::Display for CustomText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let order = match self.order {
            Order::Repeat => "repeat",
            Order::Shuffle => "shuffle",
        };
        match (self.limit, self.language()) {
            (Limit::Words(n), Language::English) => write!(f, "{order}, {n} words"),
            (Limit::Words(n), Language::Chinese) => write!(f, "{order}, {n} 字"),
            (Limit::Seconds(s), _) => write!(f, "{order}, {s} s"),
        }
    }
}

/// What the order moves: English words, or Chinese clauses, each with the punctuation
/// that ends it (a lone 字 would be a text no one writes).
fn units(text: &str, language: Language) -> Vec<&str> {
    match language {
        Language::English => text.split_whitespace().collect(),
        Language::Chinese => text
            .split_inclusive(|c| "，。！？；：、…,.!?;:".contains(c))
            .filter(|unit| !unit.is_empty())
            .collect(),
    }
}

/// Fisher–Yates.
fn shuffle<T>(items: &mut [T], rng: &mut SplitMix64) {
    for i in (1..items.len()).rev() {
        items.swap(i, rng.below(i + 1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn words(prompt: &Prompt) -> Vec<&str> {
        prompt.as_str().split(' ').collect()
    }

    #[test]
    fn repeat_types_the_words_in_order_round_after_round() {
        let custom =
            CustomText::new(" one  two\u{200b} three ", Order::Repeat, Limit::Words(7)).unwrap();
        assert_eq!(custom.text(), "one two three");
        assert_eq!(custom.mode(), Mode::Words);
        assert_eq!(custom.time_limit_ms(), None);
        assert_eq!(custom.prompt(1).as_str(), "one two three one two three one");
        // Repeat does not depend on the seed.
        assert_eq!(custom.prompt(1), custom.prompt(2));
    }

    #[test]
    fn shuffle_uses_every_word_once_a_round_in_an_order_of_its_seed() {
        let text = "alpha bravo charlie delta echo foxtrot golf hotel";
        let custom = CustomText::new(text, Order::Shuffle, Limit::Words(16)).unwrap();
        let prompt = custom.prompt(42);
        let all = words(&prompt);
        assert_eq!(all.len(), 16);
        for round in all.chunks(8) {
            let mut sorted = round.to_vec();
            sorted.sort_unstable();
            assert_eq!(sorted.join(" "), text, "each round is a permutation");
        }
        assert_eq!(prompt, custom.prompt(42), "the same seed, the same prompt");
        assert_ne!(prompt, custom.prompt(43));
        assert_ne!(&all[..8], &all[8..], "each round its own order");
    }

    #[test]
    fn chinese_moves_clauses_and_counts_zi() {
        let custom = CustomText::new(
            "春天来了，\n花开了。鸟儿在唱歌！",
            Order::Repeat,
            Limit::Words(12),
        )
        .unwrap();
        assert_eq!(custom.mode(), Mode::Zh);
        assert_eq!(custom.to_string(), "repeat, 12 字");
        assert_eq!(custom.prompt(0).as_str(), "春天来了，花开了。鸟儿在");
        let shuffled = CustomText::new(custom.text(), Order::Shuffle, Limit::Words(1_000)).unwrap();
        let prompt = shuffled.prompt(9);
        assert_eq!(prompt.as_str().chars().count(), 1_000);
        for clause in ["春天来了，", "花开了。", "鸟儿在唱歌！"] {
            assert!(prompt.as_str().contains(clause));
        }
    }

    #[test]
    fn a_timed_game_has_text_for_the_fastest_typist_within_the_cap() {
        let custom =
            CustomText::new("the quick brown fox", Order::Repeat, Limit::Seconds(30)).unwrap();
        assert_eq!(custom.time_limit_ms(), Some(30_000));
        assert_eq!(custom.to_string(), "repeat, 30 s");
        let chars = custom.prompt(0).as_str().chars().count();
        assert!((30 * EN_CHARS_PER_SECOND..30 * EN_CHARS_PER_SECOND + 10).contains(&chars));
        let longest =
            CustomText::new("the quick brown fox", Order::Repeat, Limit::Seconds(600)).unwrap();
        let prompt = longest.prompt(0);
        assert!(prompt.as_str().chars().count() <= cap(Language::English));
        assert!(
            prompt.as_str().ends_with(['e', 'k', 'n', 'x']),
            "whole words only"
        );
    }

    #[test]
    fn limits_are_kept_within_range_and_bad_texts_refused() {
        let custom = CustomText::new("a b", Order::Repeat, Limit::Seconds(1)).unwrap();
        assert_eq!(custom.limit(), Limit::Seconds(SECONDS_LIMIT_RANGE.0));
        let custom = CustomText::new("a b", Order::Repeat, Limit::Words(0)).unwrap();
        assert_eq!(custom.limit(), Limit::Words(WORD_LIMIT_RANGE.0));
        assert_eq!(
            CustomText::new(" \u{feff} ", Order::Repeat, Limit::Words(5)),
            Err(TextError::Empty)
        );
        assert!(matches!(
            CustomText::new(&"字".repeat(3_001), Order::Repeat, Limit::Words(5)),
            Err(TextError::TooLong {
                chars: 3_001,
                cap: 3_000
            })
        ));
    }

    #[test]
    fn bests_of_different_settings_are_kept_apart() {
        let a = CustomText::new("one two", Order::Repeat, Limit::Words(10)).unwrap();
        let b = CustomText::new("one two", Order::Shuffle, Limit::Words(10)).unwrap();
        let c = CustomText::new("one two", Order::Repeat, Limit::Seconds(10)).unwrap();
        let d = CustomText::new("one three", Order::Repeat, Limit::Words(10)).unwrap();
        let keys = [&a, &b, &c, &d].map(CustomText::best_key);
        for (i, key) in keys.iter().enumerate() {
            assert_eq!(keys.iter().filter(|k| *k == key).count(), 1, "{i}: {key}");
        }
        // Stored and read back, the same setting.
        let json = serde_json::to_value(&c).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"text": "one two", "order": "repeat", "limit": {"seconds": 10}})
        );
        assert_eq!(serde_json::from_value::<CustomText>(json).unwrap(), c);
    }

    proptest! {
        #[test]
        fn a_word_limited_prompt_has_exactly_its_words(
            text in "[a-z]{1,8}( [a-z]{1,8}){0,30}",
            n in 1u16..200,
            seed: u64,
            shuffle in any::<bool>(),
        ) {
            let order = if shuffle { Order::Shuffle } else { Order::Repeat };
            let custom = CustomText::new(&text, order, Limit::Words(n)).unwrap();
            let prompt = custom.prompt(seed);
            prop_assert_eq!(words(&prompt).len(), usize::from(n));
            for word in words(&prompt) {
                prop_assert!(text.split(' ').any(|w| w == word));
            }
        }
    }
}
