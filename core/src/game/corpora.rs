//! The three text corpora together, and the prompt a [`PromptId`] names in them.
//!
//! The page and the server build prompts with the same functions from the same files
//! (`assets/texts/`): the page fetches them, the server compiles them in
//! ([`Corpora::shipped`], feature `shipped-texts`), so there is no copy to drift.

use crate::game::mode::Mode;
use crate::game::options::OptionsError;
use crate::game::prompt::Prompt;
use crate::game::prompt_id::{Corpus, PromptId};
use crate::game::texts::{self, CorpusError, Passages, WordList};
use std::fmt;

/// The word list and the two passage corpora.
#[derive(Debug, Clone)]
pub struct Corpora {
    pub words: WordList,
    pub quotes: Passages,
    pub zh: Passages,
}

impl Corpora {
    /// Parses the three files' contents.
    pub fn parse(words_txt: &str, quotes_json: &str, zh_json: &str) -> Result<Self, CorpusError> {
        Ok(Corpora {
            words: WordList::parse(words_txt)?,
            quotes: Passages::parse(quotes_json)?,
            zh: Passages::parse(zh_json)?,
        })
    }

    /// The corpora of `assets/texts/`, compiled in and parsed once.
    #[cfg(feature = "shipped-texts")]
    pub fn shipped() -> &'static Corpora {
        static SHIPPED: std::sync::OnceLock<Corpora> = std::sync::OnceLock::new();
        SHIPPED.get_or_init(|| {
            Corpora::parse(
                include_str!("../../../assets/texts/words.txt"),
                include_str!("../../../assets/texts/quotes.json"),
                include_str!("../../../assets/texts/zh.json"),
            )
            .expect("the shipped corpora are valid (checked by core's tests)")
        })
    }

    /// The passages of a passage corpus; `None` for the word list and loaded texts.
    pub fn passages(&self, corpus: Corpus) -> Option<&Passages> {
        match corpus {
            Corpus::Quotes => Some(&self.quotes),
            Corpus::Zh => Some(&self.zh),
            Corpus::Words | Corpus::Text => None,
        }
    }

    /// The prompt `id` names for a game of `mode`. A loaded text is its own prompt,
    /// played in the mode its language takes ([`crate::text::LoadedText::mode`]).
    pub fn prompt(&self, mode: Mode, id: &PromptId) -> Result<Prompt, UnknownPrompt> {
        match id {
            PromptId::Text { text } if text.mode() == mode => Ok(text.prompt()),
            PromptId::Text { text } => Err(UnknownPrompt::WrongTextMode {
                mode,
                text_mode: text.mode(),
            }),
            PromptId::Seeded { .. } | PromptId::Passage { .. }
                if id.corpus() != Corpus::of(mode) =>
            {
                Err(UnknownPrompt::WrongCorpus {
                    mode,
                    corpus: id.corpus(),
                })
            }
            PromptId::Seeded { seed, options, .. } => {
                if matches!(mode, Mode::Quote | Mode::Zh) {
                    return Err(UnknownPrompt::NeedsPassage { mode });
                }
                options.check(mode).map_err(UnknownPrompt::Options)?;
                Ok(texts::words_prompt(
                    &self.words,
                    seed.get(),
                    options.word_count(mode),
                    options,
                ))
            }
            PromptId::Passage { corpus, passage } => {
                let passages = match corpus {
                    Corpus::Quotes => &self.quotes,
                    Corpus::Zh => &self.zh,
                    Corpus::Words => return Err(UnknownPrompt::NeedsSeed { mode }),
                    // No mode's corpus: refused above, whatever the mode.
                    Corpus::Text => {
                        return Err(UnknownPrompt::WrongCorpus {
                            mode,
                            corpus: *corpus,
                        });
                    }
                };
                passages
                    .passages()
                    .iter()
                    .find(|p| p.id == *passage)
                    .map(|p| p.text.clone())
                    .ok_or_else(|| UnknownPrompt::NoSuchPassage {
                        corpus: *corpus,
                        passage: passage.clone(),
                    })
            }
        }
    }
}

/// Why a prompt identity names no prompt of its mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UnknownPrompt {
    /// The corpus is not the mode's.
    WrongCorpus {
        mode: Mode,
        corpus: Corpus,
    },
    /// Random words are named by a seed.
    NeedsSeed {
        mode: Mode,
    },
    /// Passages are named by their id.
    NeedsPassage {
        mode: Mode,
    },
    NoSuchPassage {
        corpus: Corpus,
        passage: String,
    },
    /// A loaded text is typed in the mode of its language (`text_mode`), not `mode`.
    WrongTextMode {
        mode: Mode,
        text_mode: Mode,
    },
    /// The mode does not offer these test options.
    Options(OptionsError),
}

impl fmt::Display for UnknownPrompt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UnknownPrompt::WrongCorpus { mode, corpus } => write!(
                f,
                "A {mode} game is not played on the {} texts.",
                corpus.id()
            ),
            UnknownPrompt::NeedsSeed { mode } => {
                write!(f, "A {mode} game's words are named by a seed.")
            }
            UnknownPrompt::NeedsPassage { mode } => {
                write!(f, "A {mode} game's passage is named by its id.")
            }
            UnknownPrompt::NoSuchPassage { corpus, passage } => {
                write!(f, "The {} texts have no passage {passage:?}.", corpus.id())
            }
            UnknownPrompt::WrongTextMode { mode, text_mode } => write!(
                f,
                "This text is typed in a {text_mode} game, not a {mode} game: its language decides."
            ),
            UnknownPrompt::Options(error) => write!(f, "No such test: {error}."),
        }
    }
}

impl std::error::Error for UnknownPrompt {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::options::TestOptions;
    use crate::game::prompt_id::Seed;
    use crate::text::LoadedText;

    #[test]
    fn rebuilds_what_the_page_builds() {
        let corpora = Corpora::shipped();
        let seed = Seed::new(9).unwrap();
        let words = corpora
            .prompt(Mode::Words, &PromptId::for_game(Mode::Words, seed, None))
            .unwrap();
        assert_eq!(
            words,
            texts::words_prompt(
                &corpora.words,
                9,
                crate::game::options::WORDS_MODE_WORD_COUNT,
                &TestOptions::default()
            )
        );
        // With options: as many words as chosen, dressed as chosen.
        let options = TestOptions {
            length: Some(10),
            punctuation: true,
            numbers: false,
        };
        let short = corpora
            .prompt(
                Mode::Words,
                &PromptId::for_game(Mode::Words, seed, None).with_options(options),
            )
            .unwrap();
        assert_eq!(short.as_str().split(' ').count(), 10);
        assert!(short.as_str().ends_with('.'));
        let odd = PromptId::for_game(Mode::Time, seed, None).with_options(options);
        assert!(matches!(
            corpora.prompt(Mode::Time, &odd),
            Err(UnknownPrompt::Options(_))
        ));
        let time = corpora
            .prompt(Mode::Time, &PromptId::for_game(Mode::Time, seed, None))
            .unwrap();
        assert!(time.as_str().starts_with(words.as_str()));
        let quote = texts::pick_passage(&corpora.quotes, 9);
        assert_eq!(
            corpora
                .prompt(
                    Mode::Quote,
                    &PromptId::for_game(Mode::Quote, seed, Some(&quote.id))
                )
                .unwrap(),
            quote.text
        );
    }

    #[test]
    fn refuses_identities_of_another_mode_or_nothing() {
        let corpora = Corpora::shipped();
        let seed = Seed::new(1).unwrap();
        let cases = [
            (
                Mode::Zh,
                PromptId::Seeded {
                    corpus: Corpus::Words,
                    seed,
                    options: TestOptions::default(),
                },
                "A zh game is not played on the words texts.",
            ),
            (
                Mode::Quote,
                PromptId::Seeded {
                    corpus: Corpus::Quotes,
                    seed,
                    options: TestOptions::default(),
                },
                "A quote game's passage is named by its id.",
            ),
            (
                Mode::Words,
                PromptId::Passage {
                    corpus: Corpus::Words,
                    passage: "x".into(),
                },
                "A words game's words are named by a seed.",
            ),
            (
                Mode::Zh,
                PromptId::Passage {
                    corpus: Corpus::Zh,
                    passage: "nope".into(),
                },
                "The zh texts have no passage \"nope\".",
            ),
        ];
        for (mode, id, message) in cases {
            assert_eq!(corpora.prompt(mode, &id).unwrap_err().to_string(), message);
        }
    }

    #[test]
    fn a_loaded_text_is_its_own_prompt_in_its_languages_mode() {
        let corpora = Corpora::shipped();
        let zh = LoadedText::new("有朋自远方来，\r\n不亦乐乎？").unwrap();
        let id = PromptId::Text { text: zh.clone() };
        assert_eq!(
            corpora.prompt(Mode::Zh, &id).unwrap().as_str(),
            "有朋自远方来，不亦乐乎？"
        );
        for mode in [Mode::Time, Mode::Words, Mode::Quote] {
            assert_eq!(
                corpora.prompt(mode, &id).unwrap_err(),
                UnknownPrompt::WrongTextMode {
                    mode,
                    text_mode: Mode::Zh
                }
            );
        }
        let en = PromptId::Text {
            text: LoadedText::new("Call me Ishmael.").unwrap(),
        };
        assert_eq!(
            corpora.prompt(Mode::Quote, &en).unwrap().as_str(),
            "Call me Ishmael."
        );
        assert_eq!(
            corpora.prompt(Mode::Zh, &en).unwrap_err().to_string(),
            "This text is typed in a quote game, not a zh game: its language decides."
        );
        // A passage cannot claim the text corpus.
        let claimed = PromptId::Passage {
            corpus: Corpus::Text,
            passage: "x".into(),
        };
        assert_eq!(
            corpora.prompt(Mode::Zh, &claimed).unwrap_err().to_string(),
            "A zh game is not played on the text texts."
        );
    }
}
