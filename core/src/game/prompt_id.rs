//! Which prompt a game was played on: enough for the server to rebuild the exact text
//! from the corpora the shell ships (docs/replay.md).
//!
//! Random-word games name their seed (`{"corpus": "words", "seed": 42}`) and any test
//! options besides the default (`"length": 30, "punctuation": true, "numbers": true`,
//! [`TestOptions`]); passage games
//! name the passage (`{"corpus": "quotes", "passage": "austen-pride"}`), so adding a
//! passage to a corpus never changes what an older game typed. A text the player
//! loaded travels whole (`{"corpus": "text", "text": "…"}`, docs/genda.md).

use crate::game::mode::Mode;
use crate::game::options::TestOptions;
use crate::text::LoadedText;
use serde::{Deserialize, Serialize};
use std::fmt;

/// One of the shell's text corpora (`assets/texts/`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Corpus {
    /// `words.txt`: common English words, drawn by seed.
    Words,
    /// `quotes.json`: English passages.
    Quotes,
    /// `zh.json`: Chinese passages.
    Zh,
    /// Not a shipped corpus: a text the player loaded, carried by the prompt itself.
    Text,
}

impl Corpus {
    /// The corpus a mode's prompts come from.
    pub fn of(mode: Mode) -> Corpus {
        match mode {
            Mode::Time | Mode::Words => Corpus::Words,
            Mode::Quote => Corpus::Quotes,
            Mode::Zh => Corpus::Zh,
        }
    }

    pub fn id(self) -> &'static str {
        match self {
            Corpus::Words => "words",
            Corpus::Quotes => "quotes",
            Corpus::Zh => "zh",
            Corpus::Text => "text",
        }
    }
}

/// A prompt seed. At most 2^53 − 1, so it survives JavaScript numbers and IndexedDB
/// unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "u64", into = "u64")]
pub struct Seed(u64);

impl Seed {
    /// The largest seed: JavaScript's `Number.MAX_SAFE_INTEGER`.
    pub const MAX: u64 = (1 << 53) - 1;

    /// `seed`, if it is at most [`Seed::MAX`].
    pub fn new(seed: u64) -> Option<Seed> {
        (seed <= Seed::MAX).then_some(Seed(seed))
    }

    /// The low 53 bits of any number: how the page turns random bits into a seed.
    pub fn from_bits(bits: u64) -> Seed {
        Seed(bits & Seed::MAX)
    }

    pub fn get(self) -> u64 {
        self.0
    }
}

impl TryFrom<u64> for Seed {
    type Error = SeedTooLarge;

    fn try_from(seed: u64) -> Result<Self, Self::Error> {
        Seed::new(seed).ok_or(SeedTooLarge)
    }
}

impl From<Seed> for u64 {
    fn from(seed: Seed) -> u64 {
        seed.0
    }
}

/// A seed above [`Seed::MAX`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeedTooLarge;

impl fmt::Display for SeedTooLarge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a seed is at most {}", Seed::MAX)
    }
}

/// The identity of a game's prompt.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "WirePromptId", into = "WirePromptId")]
pub enum PromptId {
    /// Words drawn from `corpus` by `seed` (how many depends on the mode and the
    /// options), dressed as the options say.
    Seeded {
        corpus: Corpus,
        seed: Seed,
        options: TestOptions,
    },
    /// The passage of `corpus` whose id is `passage`.
    Passage { corpus: Corpus, passage: String },
    /// A text the player loaded; its corpus is [`Corpus::Text`].
    Text { text: LoadedText },
}

impl PromptId {
    /// The identity of the prompt the page builds for `mode` from `seed` and, for
    /// passage modes, the passage the seed picked.
    pub fn for_game(mode: Mode, seed: Seed, passage_id: Option<&str>) -> PromptId {
        let corpus = Corpus::of(mode);
        match passage_id {
            Some(passage) if corpus != Corpus::Words => PromptId::Passage {
                corpus,
                passage: passage.to_owned(),
            },
            _ => PromptId::Seeded {
                corpus,
                seed,
                options: TestOptions::default(),
            },
        }
    }

    /// The same prompt played with `options`; only seeded prompts take any.
    pub fn with_options(self, options: TestOptions) -> PromptId {
        match self {
            PromptId::Seeded { corpus, seed, .. } => PromptId::Seeded {
                corpus,
                seed,
                options,
            },
            other => other,
        }
    }

    /// The test options the prompt was played with: the default for passages and
    /// loaded texts.
    pub fn options(&self) -> TestOptions {
        match self {
            PromptId::Seeded { options, .. } => *options,
            PromptId::Passage { .. } | PromptId::Text { .. } => TestOptions::default(),
        }
    }

    pub fn corpus(&self) -> Corpus {
        match self {
            PromptId::Seeded { corpus, .. } | PromptId::Passage { corpus, .. } => *corpus,
            PromptId::Text { .. } => Corpus::Text,
        }
    }

    /// `corpus:seed` for seeded prompts: a seed counts once per player, whatever the
    /// options (docs/replay.md).
    pub fn seed_key(&self) -> Option<String> {
        match self {
            PromptId::Seeded { corpus, seed, .. } => {
                Some(format!("{}:{}", corpus.id(), seed.get()))
            }
            PromptId::Passage { .. } | PromptId::Text { .. } => None,
        }
    }
}

impl fmt::Display for PromptId {
    /// `words:42` (and `/` and the options' key when not the default:
    /// `words:42/30+punctuation`), `quotes:austen-pride`, or `text:` and the text's
    /// full hash.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PromptId::Seeded {
                corpus,
                seed,
                options,
            } => {
                write!(f, "{}:{}", corpus.id(), seed.get())?;
                if !options.is_default() {
                    write!(f, "/{}", options.key())?;
                }
                Ok(())
            }
            PromptId::Passage { corpus, passage } => write!(f, "{}:{passage}", corpus.id()),
            PromptId::Text { text } => write!(f, "{}:{}", Corpus::Text.id(), text.hash()),
        }
    }
}

/// The JSON object: a corpus and exactly one of `seed` and `passage`, or the `text`
/// corpus and its `text`; a seed with the options that are not the default.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct WirePromptId {
    corpus: Corpus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    seed: Option<Seed>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    passage: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    text: Option<LoadedText>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    length: Option<u16>,
    #[serde(default, skip_serializing_if = "is_false")]
    punctuation: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    numbers: bool,
}

fn is_false(value: &bool) -> bool {
    !value
}

impl WirePromptId {
    /// `corpus` alone, for the other fields to be filled in.
    fn none(corpus: Corpus) -> WirePromptId {
        WirePromptId {
            corpus,
            seed: None,
            passage: None,
            text: None,
            length: None,
            punctuation: false,
            numbers: false,
        }
    }

    fn options(&self) -> TestOptions {
        TestOptions {
            length: self.length,
            punctuation: self.punctuation,
            numbers: self.numbers,
        }
    }
}

impl TryFrom<WirePromptId> for PromptId {
    type Error = &'static str;

    fn try_from(wire: WirePromptId) -> Result<Self, Self::Error> {
        let options = wire.options();
        if !options.is_default() && (wire.seed.is_none() || wire.corpus != Corpus::Words) {
            return Err("only a seeded prompt of the words corpus carries options");
        }
        match (wire.corpus, wire.seed, wire.passage, wire.text) {
            (Corpus::Text, None, None, Some(text)) => Ok(PromptId::Text { text }),
            (Corpus::Text, ..) => Err("a prompt of the text corpus carries its text alone"),
            (_, _, _, Some(_)) => Err("only a prompt of the text corpus carries a text"),
            (corpus, Some(seed), None, None) => Ok(PromptId::Seeded {
                corpus,
                seed,
                options,
            }),
            (corpus, None, Some(passage), None) => Ok(PromptId::Passage { corpus, passage }),
            _ => Err("a prompt names either a seed or a passage"),
        }
    }
}

impl From<PromptId> for WirePromptId {
    fn from(id: PromptId) -> Self {
        match id {
            PromptId::Seeded {
                corpus,
                seed,
                options,
            } => WirePromptId {
                corpus,
                seed: Some(seed),
                length: options.length,
                punctuation: options.punctuation,
                numbers: options.numbers,
                ..WirePromptId::none(corpus)
            },
            PromptId::Passage { corpus, passage } => WirePromptId {
                passage: Some(passage),
                ..WirePromptId::none(corpus)
            },
            PromptId::Text { text } => WirePromptId {
                text: Some(text),
                ..WirePromptId::none(Corpus::Text)
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_and_writes_the_two_shapes() {
        let seeded = PromptId::Seeded {
            corpus: Corpus::Words,
            seed: Seed::new(42).unwrap(),
            options: TestOptions::default(),
        };
        let passage = PromptId::Passage {
            corpus: Corpus::Zh,
            passage: "lunyu-1".into(),
        };
        for (id, wire) in [
            (&seeded, json!({"corpus": "words", "seed": 42})),
            (&passage, json!({"corpus": "zh", "passage": "lunyu-1"})),
        ] {
            assert_eq!(serde_json::to_value(id).unwrap(), wire);
            assert_eq!(&serde_json::from_value::<PromptId>(wire).unwrap(), id);
        }
        assert_eq!(seeded.seed_key().as_deref(), Some("words:42"));
        assert_eq!(passage.seed_key(), None);
        assert_eq!(passage.to_string(), "zh:lunyu-1");
    }

    #[test]
    fn options_travel_with_a_seed_and_only_when_chosen() {
        let options = TestOptions {
            length: Some(30),
            punctuation: true,
            numbers: false,
        };
        let id = PromptId::for_game(Mode::Time, Seed::new(42).unwrap(), None).with_options(options);
        let wire = json!({"corpus": "words", "seed": 42, "length": 30, "punctuation": true});
        assert_eq!(serde_json::to_value(&id).unwrap(), wire);
        assert_eq!(serde_json::from_value::<PromptId>(wire).unwrap(), id);
        assert_eq!(id.options(), options);
        assert_eq!(id.to_string(), "words:42/30+punctuation");
        // A seed counts once, whatever the options.
        assert_eq!(id.seed_key().as_deref(), Some("words:42"));
        // The default options write nothing: older identities read as before.
        let plain = id.clone().with_options(TestOptions::default());
        assert_eq!(
            serde_json::to_value(&plain).unwrap(),
            json!({"corpus": "words", "seed": 42})
        );
        assert_eq!(plain.to_string(), "words:42");
        for wrong in [
            json!({"corpus": "quotes", "passage": "a", "punctuation": true}),
            json!({"corpus": "zh", "seed": 1, "length": 30}),
            json!({"corpus": "text", "text": "a", "numbers": true}),
            json!({"corpus": "words", "seed": 1, "length": -1}),
        ] {
            assert!(
                serde_json::from_value::<PromptId>(wrong.clone()).is_err(),
                "{wrong}"
            );
        }
        // Passages keep their options out.
        let passage =
            PromptId::for_game(Mode::Quote, Seed::new(1).unwrap(), Some("q")).with_options(options);
        assert_eq!(passage.options(), TestOptions::default());
    }

    #[test]
    fn refuses_what_is_not_exactly_one_identity() {
        for wrong in [
            json!({"corpus": "words"}),
            json!({"corpus": "words", "seed": 1, "passage": "a"}),
            json!({"corpus": "words", "seed": 1, "extra": 1}),
            json!({"corpus": "poems", "seed": 1}),
            json!({"corpus": "words", "seed": -1}),
            json!({"corpus": "words", "seed": 9_007_199_254_740_992_u64}),
        ] {
            assert!(
                serde_json::from_value::<PromptId>(wrong.clone()).is_err(),
                "{wrong}"
            );
        }
        assert!(
            serde_json::from_value::<PromptId>(
                json!({"corpus": "words", "seed": 9_007_199_254_740_991_u64})
            )
            .is_ok()
        );
    }

    #[test]
    fn a_loaded_text_travels_whole_and_is_named_by_its_hash() {
        let text = LoadedText::new("学而时习之，\n不亦说乎？").unwrap();
        let id = PromptId::Text { text: text.clone() };
        let wire = json!({"corpus": "text", "text": "学而时习之，不亦说乎？"});
        assert_eq!(serde_json::to_value(&id).unwrap(), wire);
        assert_eq!(serde_json::from_value::<PromptId>(wire).unwrap(), id);
        assert_eq!(id.to_string(), format!("text:{}", text.hash()));
        assert_eq!(id.to_string().len(), "text:".len() + 64);
        assert_eq!((id.corpus(), id.seed_key()), (Corpus::Text, None));
        assert_eq!(Corpus::Text.id(), "text");
        let english = PromptId::Text {
            text: LoadedText::new("It was the best of times.").unwrap(),
        };
        let json = serde_json::to_string(&english).unwrap();
        assert_eq!(serde_json::from_str::<PromptId>(&json).unwrap(), english);
    }

    #[test]
    fn refuses_a_text_that_is_not_normalised_or_not_alone() {
        for (wrong, message) in [
            (
                json!({"corpus": "text", "text": "学而 时习之"}),
                "not in its normalised form",
            ),
            (json!({"corpus": "text", "text": ""}), "The text is empty"),
            (
                json!({"corpus": "text", "text": "a", "seed": 1}),
                "carries its text alone",
            ),
            (
                json!({"corpus": "text", "passage": "a"}),
                "carries its text alone",
            ),
            (json!({"corpus": "text"}), "carries its text alone"),
            (
                json!({"corpus": "zh", "text": "学"}),
                "only a prompt of the text corpus",
            ),
            (
                json!({"corpus": "zh", "passage": "lunyu-1", "text": "学"}),
                "only a prompt of the text corpus",
            ),
        ] {
            let error = serde_json::from_value::<PromptId>(wrong.clone()).unwrap_err();
            assert!(error.to_string().contains(message), "{wrong}: {error}");
        }
    }

    #[test]
    fn the_page_seeds_fit_javascript_numbers() {
        assert_eq!(Seed::from_bits(u64::MAX).get(), Seed::MAX);
        assert_eq!(Seed::from_bits(7).get(), 7);
        assert_eq!(
            PromptId::for_game(Mode::Quote, Seed::from_bits(3), Some("q")),
            PromptId::Passage {
                corpus: Corpus::Quotes,
                passage: "q".into()
            }
        );
        assert_eq!(
            PromptId::for_game(Mode::Time, Seed::from_bits(3), None).corpus(),
            Corpus::Words
        );
    }
}
