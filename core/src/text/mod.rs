//! Texts a player brings, and the day's race (跟打, docs/genda.md).
//!
//! * [`normalise`]: the one normalisation the page and the server share, and the
//!   language a text is typed in.
//! * [`qq`]: a pasted QQ 发文 message: its title, body and 段号.
//! * [`segment`]: a text longer than its cap, split at sentence ends into 段.
//! * [`hash`]: a text's identity, the SHA-256 of its normalised form.
//! * [`LoadedText`]: a text ready to type, the prompt of a `PromptId::Text` game.
//! * [`daily`]: the day's race, one Chinese and one English passage per UTC+8 day.

pub mod daily;
pub mod hash;
pub mod normalise;
pub mod qq;
pub mod segment;

use crate::game::mode::{Language, Mode};
use crate::game::prompt::Prompt;
use hash::TextHash;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The most characters a Chinese text may have: 3,000 字 (punctuation counts).
pub const MAX_ZH_CHARS: usize = 3_000;

/// The most characters an English text may have, spaces and punctuation included.
pub const MAX_EN_CHARS: usize = 6_000;

/// The cap of a text in `language`, in characters (Unicode scalar values).
pub fn cap(language: Language) -> usize {
    match language {
        Language::Chinese => MAX_ZH_CHARS,
        Language::English => MAX_EN_CHARS,
    }
}

/// A loaded text: normalised ([`normalise::normalise`]), not empty, and within the cap
/// of its language. Made by [`LoadedText::new`] from anything pasted, or read with
/// `TryFrom<String>` (JSON: a string), which with the feature `normalised-reads` (the
/// server's) refuses a text that is not already normalised, so a server knows the page
/// typed exactly what it hashes. The page reads only what it normalised itself.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct LoadedText {
    text: String,
    language: Language,
    hash: TextHash,
}

impl LoadedText {
    /// Normalises `raw` and takes it if it is neither empty nor over its cap (a longer
    /// text can first be split into 段 with [`segment::split`]).
    pub fn new(raw: &str) -> Result<LoadedText, TextError> {
        LoadedText::checked(normalise::normalise(raw))
    }

    /// `raw` normalised and loaded as one text per 段 ([`segment::split`]): one when
    /// it is within its cap. Refused only when nothing is left to type.
    pub fn segments(raw: &str) -> Result<Vec<LoadedText>, TextError> {
        let normalised = normalise::normalise(raw);
        if normalised.is_empty() {
            return Err(TextError::Empty);
        }
        let mut texts = Vec::new();
        LoadedText::push_segments(&normalised, &mut texts);
        Ok(texts)
    }

    /// Appends the 段 of `normalised` to `texts`.
    fn push_segments(normalised: &str, texts: &mut Vec<LoadedText>) {
        let language = normalise::language_of(normalised);
        for piece in segment::split(normalised, language) {
            match LoadedText::new(&piece) {
                Ok(text) => texts.push(text),
                // A 段 can read as the other language: one mostly of Han inside an
                // English text is typed as Chinese, loses its spaces and has the
                // smaller cap, so it is split again as Chinese; those 段 load as they are.
                Err(_) => LoadedText::push_segments(&normalise::normalise(&piece), texts),
            }
        }
    }

    /// `normalised` if it is not empty and within its cap.
    fn checked(normalised: String) -> Result<LoadedText, TextError> {
        if normalised.is_empty() {
            return Err(TextError::Empty);
        }
        let language = normalise::language_of(&normalised);
        let chars = normalised.chars().count();
        let cap = cap(language);
        if chars > cap {
            return Err(TextError::TooLong { chars, cap });
        }
        Ok(LoadedText {
            hash: TextHash::of(&normalised),
            text: normalised,
            language,
        })
    }

    /// The language it is typed in.
    pub fn language(&self) -> Language {
        self.language
    }

    /// The normalised text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Its identity: the SHA-256 of [`LoadedText::as_str`].
    pub fn hash(&self) -> TextHash {
        self.hash
    }

    /// The rules it is typed with: [`Mode::Zh`] (中文, 错一罚五) for a Chinese text,
    /// [`Mode::Quote`] (an English passage) for any other.
    pub fn mode(&self) -> Mode {
        match self.language {
            Language::Chinese => Mode::Zh,
            Language::English => Mode::Quote,
        }
    }

    /// The prompt a game on it types: the text itself.
    pub fn prompt(&self) -> Prompt {
        Prompt::new(&self.text).expect("a loaded text is not empty and has no stray whitespace")
    }
}

impl TryFrom<String> for LoadedText {
    type Error = TextError;

    /// `text` as it is, refused unless normalising would leave it unchanged (with
    /// `normalised-reads`; docs/genda.md, "Normalisation").
    fn try_from(text: String) -> Result<Self, Self::Error> {
        #[cfg(feature = "normalised-reads")]
        if normalise::normalise(&text) != text {
            return Err(TextError::NotNormalised);
        }
        LoadedText::checked(text)
    }
}

impl From<LoadedText> for String {
    fn from(text: LoadedText) -> String {
        text.text
    }
}

impl fmt::Display for LoadedText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Why a text cannot be loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextError {
    /// Nothing is left once it is normalised.
    Empty,
    /// It has `chars` characters, over the `cap` of its language.
    TooLong { chars: usize, cap: usize },
    /// Sent as a loaded text, but normalising it would change it.
    NotNormalised,
}

impl fmt::Display for TextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TextError::Empty => f.write_str("The text is empty: there is nothing to type."),
            TextError::TooLong { chars, cap } => write!(
                f,
                "The text has {chars} characters; at most {cap} are typed in one game."
            ),
            TextError::NotNormalised => f.write_str(
                "The text is not in its normalised form (NFC, no invisible characters, \
                 whitespace as the language has it).",
            ),
        }
    }
}

impl std::error::Error for TextError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_normalised_with_its_language_mode_and_hash() {
        let zh = LoadedText::new("  学而时习之，\r\n不亦说乎？\u{200B}").unwrap();
        assert_eq!(zh.as_str(), "学而时习之，不亦说乎？");
        assert_eq!((zh.language(), zh.mode()), (Language::Chinese, Mode::Zh));
        assert_eq!(zh.hash(), TextHash::of("学而时习之，不亦说乎？"));
        assert_eq!(zh.prompt().as_str(), zh.as_str());

        let en = LoadedText::new("It was the best\nof times.").unwrap();
        assert_eq!(en.to_string(), "It was the best of times.");
        assert_eq!((en.language(), en.mode()), (Language::English, Mode::Quote));
        // The same text however it was pasted is the same text.
        assert_eq!(
            LoadedText::new(" It was  the best of\ttimes.\u{FEFF}").unwrap(),
            en
        );
        assert_ne!(
            LoadedText::new("It was the best of times!").unwrap().hash(),
            en.hash()
        );
    }

    #[test]
    fn refuses_empty_and_over_the_cap_but_takes_exactly_the_cap() {
        assert_eq!(LoadedText::new(" \u{200B}\r\n"), Err(TextError::Empty));
        let zh = "字".repeat(MAX_ZH_CHARS);
        assert_eq!(
            LoadedText::new(&zh).unwrap().as_str().chars().count(),
            3_000
        );
        assert_eq!(
            LoadedText::new(&format!("{zh}。")),
            Err(TextError::TooLong {
                chars: 3_001,
                cap: 3_000
            })
        );
        let en = "abcd ".repeat(MAX_EN_CHARS / 5);
        // 6,000 characters less the trailing space.
        assert!(LoadedText::new(&en).is_ok());
        assert_eq!(
            LoadedText::new(&format!("{en}x")),
            Err(TextError::TooLong {
                chars: 6_001,
                cap: 6_000
            })
        );
    }

    #[test]
    fn reads_back_only_what_is_already_normalised() {
        let text = LoadedText::new("有朋自远方来，不亦乐乎？").unwrap();
        let json = serde_json::to_string(&text).unwrap();
        assert_eq!(json, "\"有朋自远方来，不亦乐乎？\"");
        assert_eq!(serde_json::from_str::<LoadedText>(&json).unwrap(), text);
        for raw in ["有朋 自远方来", "Cafe\u{0301}", " a", "a\u{200B}b", "⋯"] {
            assert_eq!(
                LoadedText::try_from(raw.to_owned()),
                Err(TextError::NotNormalised),
                "{raw:?}"
            );
        }
        assert_eq!(LoadedText::try_from(String::new()), Err(TextError::Empty));
        let error = serde_json::from_str::<LoadedText>("\"a  b\"").unwrap_err();
        assert!(
            error.to_string().contains("not in its normalised form"),
            "{error}"
        );
    }

    #[test]
    fn a_long_text_loads_as_its_segments() {
        let sentence = "天行健，君子以自强不息。";
        let zh = sentence.repeat(400);
        let texts = LoadedText::segments(&format!("{zh}\r\n")).unwrap();
        assert_eq!(texts.len(), 2);
        assert!(texts.iter().all(|t| t.mode() == Mode::Zh));
        assert_eq!(texts.iter().map(LoadedText::as_str).collect::<String>(), zh);
        assert_eq!(
            LoadedText::segments("  Call me\nIshmael. ").unwrap(),
            [LoadedText::new("Call me Ishmael.").unwrap()]
        );
        assert_eq!(LoadedText::segments("\u{200B} "), Err(TextError::Empty));
    }

    #[test]
    fn a_segment_in_the_other_language_is_split_again_in_its_own() {
        // An English text over its cap, holding a run of Han sentences with spaces
        // between them, longer than the Chinese cap.
        let english = "This is an English sentence of some length. ".repeat(250);
        let han = "汉 字 汉 字 汉 字。".repeat(600);
        let raw = format!("{english}{han} {english}");
        let normalised = normalise::normalise(&raw);
        assert_eq!(normalise::language_of(&normalised), Language::English);
        // Split as English, some 段 is Chinese and over the Chinese cap.
        assert!(
            segment::split(&normalised, Language::English)
                .iter()
                .any(|piece| matches!(
                    LoadedText::new(piece),
                    Err(TextError::TooLong {
                        cap: MAX_ZH_CHARS,
                        ..
                    })
                ))
        );
        let texts = LoadedText::segments(&raw).unwrap();
        for text in &texts {
            assert!(text.as_str().chars().count() <= cap(text.language()));
            // Each is loaded as itself.
            assert_eq!(
                LoadedText::try_from(text.as_str().to_owned()).as_ref(),
                Ok(text)
            );
        }
        let han_texts: Vec<_> = texts.iter().filter(|t| t.mode() == Mode::Zh).collect();
        assert!(han_texts.len() >= 2, "{}", han_texts.len());
        assert!(han_texts.iter().all(|t| !t.as_str().contains(' ')));
        let letters = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
        assert_eq!(
            letters(&texts.iter().map(LoadedText::as_str).collect::<String>()),
            letters(&raw)
        );
    }

    #[test]
    fn errors_read_as_sentences() {
        assert_eq!(
            TextError::TooLong {
                chars: 3_500,
                cap: 3_000
            }
            .to_string(),
            "The text has 3500 characters; at most 3000 are typed in one game."
        );
        assert_eq!(
            TextError::Empty.to_string(),
            "The text is empty: there is nothing to type."
        );
    }
}
