//! The text corpora (loaded by [`crate::services::texts`]) and the prompt each mode
//! builds from them.
//!
//! Each corpus loads on its own, so a broken `quotes.json` costs the `quote` mode only.
//! The page reads the word list before it mounts the game, and a game fetches the
//! passages only once they are wanted: a first visit plays from the word list, and
//! its first keystroke waits for no byte of the others. The passages' JSON is read
//! in a module of its own, `passages`, fetched with them (docs/performance.md, "What
//! loads first").

use super::source::{Source, daily_mode};
use crate::on_demand::{SplitLoaderError, once_loaded};
use crate::services::texts::{LoadError, fetch, load};
use keydo_core::game::corpora;
use keydo_core::game::options::TestOptions;
use keydo_core::game::texts::{self, CorpusError, Passage, Passages, WordList};
use keydo_core::text::daily::raced_passage;
use keydo_core::{Mode, Prompt, PromptId, Seed};
use leptos::prelude::*;
use wasm_split_helpers::wasm_split;

/// What a game asks the player to type, and where a passage comes from.
#[derive(Debug, Clone, PartialEq)]
pub struct Assignment {
    pub prompt: Prompt,
    /// What the server rebuilds the prompt from (docs/replay.md).
    pub id: PromptId,
    /// Shown under a passage; random words have none.
    pub attribution: Option<String>,
    /// A loaded QQ text's 段号, for the 成绩 line.
    pub segment: Option<u32>,
    /// How long a timed custom text lasts from its first key (a `time` test's length
    /// is in its options).
    pub time_limit_ms: Option<u64>,
}

/// The three corpora, each loading (`None`), loaded or failed.
///
/// Each is a signal its fetch sets once, not a `LocalResource`: a corpus is fetched
/// once and never again, and the resource's code would be the main module's only use
/// of it (docs/performance.md, "What loads first").
#[derive(Clone, Copy)]
pub struct Corpora {
    words: RwSignal<Option<WordsRead>>,
    /// `None` until wanted and fetched.
    quotes: RwSignal<Option<Result<Passages, LoadError>>>,
    zh: RwSignal<Option<Result<Passages, LoadError>>>,
}

/// The word list as it was read, or why it could not be.
pub type WordsRead = Result<WordList, LoadError>;

/// The word list: `None` until it is read.
pub type Words = RwSignal<Option<WordsRead>>;

/// Fetches and reads the word list.
pub async fn read_words() -> WordsRead {
    load("words.txt", WordList::parse).await
}

impl Corpora {
    /// Starts fetching all three.
    pub fn load() -> Corpora {
        let words = RwSignal::new(None);
        set_when_loaded(words, read_words());
        Corpora::load_passages_when(words, Signal::stored(true))
    }

    /// The word list `words`, read by the page (`main`), and the passages, fetched once
    /// `wanted` is first true.
    pub fn load_passages_when(words: Words, wanted: Signal<bool>) -> Corpora {
        let passages = move |file| {
            let loaded = RwSignal::new(None);
            // Its value is whether the fetch has started: once it has, the effect
            // reads no signal and never runs again.
            Effect::new(move |started: Option<bool>| {
                if started == Some(true) || !wanted.get() {
                    return started == Some(true);
                }
                set_when_loaded(loaded, load_passages(file));
                true
            });
            loaded
        };
        Corpora {
            words,
            quotes: passages("quotes.json"),
            zh: passages("zh.json"),
        }
    }

    /// The game `mode` plays with `seed` (and, in the word modes, `options`) once its
    /// corpus is there (reactive).
    pub fn assignment(
        &self,
        mode: Mode,
        seed: Seed,
        options: TestOptions,
    ) -> Option<Result<Assignment, LoadError>> {
        let words_game = |words: &WordList| Assignment {
            prompt: texts::words_prompt(words, seed.get(), options.word_count(mode), &options),
            id: PromptId::for_game(mode, seed, None).with_options(options),
            attribution: None,
            segment: None,
            time_limit_ms: None,
        };
        let passage_game = |passages: &Passages| {
            let passage = texts::pick_passage(passages, seed.get());
            attributed(passage, PromptId::for_game(mode, seed, Some(&passage.id)))
        };
        match self.passage_corpus(mode) {
            None => made_from(self.words, words_game),
            Some(passages) => made_from(passages, passage_game),
        }
    }

    /// The game `source` plays (reactive, for the passages a source needs); `seed`
    /// draws a mode's prompt, played with `options` in the word modes; `today` is the
    /// race day for the day's race.
    pub fn assignment_of(
        &self,
        source: &Source,
        seed: Seed,
        options: TestOptions,
        today: i64,
    ) -> Option<Result<Assignment, LoadError>> {
        match source {
            Source::Mode(mode) => self.assignment(*mode, seed, options),
            Source::Text(loaded) => {
                let text = loaded.current().clone();
                let (place, count) = loaded.progress();
                let part = (count > 1).then(|| format!("{place}/{count}"));
                let attribution = [loaded.title.clone(), part]
                    .into_iter()
                    .flatten()
                    .collect::<Vec<_>>();
                Some(Ok(Assignment {
                    prompt: text.prompt(),
                    id: PromptId::Text { text },
                    attribution: (!attribution.is_empty()).then(|| attribution.join(" · ")),
                    segment: loaded.segment_no(),
                    time_limit_ms: None,
                }))
            }
            Source::Practice(practice) => Some(
                practice
                    .id
                    .clone()
                    .map(|id| Assignment {
                        prompt: practice.prompt.clone(),
                        id,
                        attribution: Some(practice.label()),
                        segment: None,
                        time_limit_ms: practice.time_limit_ms(),
                    })
                    .map_err(|e| LoadError::new("practice", e.to_string())),
            ),
            Source::Daily(language) => {
                let mode = daily_mode(*language);
                made_from(self.passage_corpus(mode)?, |passages| {
                    let passage = raced_passage(passages, today);
                    attributed(passage, PromptId::for_game(mode, seed, Some(&passage.id)))
                })
            }
        }
    }

    /// The passages of a passage mode's corpus, once loaded (reactive); `None` for the
    /// word modes, whose prompts come from the word list.
    pub fn passages(&self, mode: Mode) -> Option<Result<Passages, LoadError>> {
        self.passage_corpus(mode)?.get()
    }

    /// The corpus a passage mode's prompts come from; `None` for the word modes.
    fn passage_corpus(&self, mode: Mode) -> Option<RwSignal<Option<Result<Passages, LoadError>>>> {
        match mode {
            Mode::Quote => Some(self.quotes),
            Mode::Zh => Some(self.zh),
            Mode::Time | Mode::Words => None,
        }
    }
}

impl Corpora {
    /// The prompt `id` names for a game of `mode`, built as the server builds it
    /// (core's `Corpora::prompt`), once all three corpora are there (reactive): what a
    /// board entry's replay plays its log on.
    pub fn prompt(&self, mode: Mode, id: &PromptId) -> Option<Result<Prompt, String>> {
        let (words, quotes, zh) = (self.words.get()?, self.quotes.get()?, self.zh.get()?);
        let all = (|| {
            Ok(corpora::Corpora {
                words: words?,
                quotes: quotes?,
                zh: zh?,
            })
        })();
        Some(
            all.map_err(|error: LoadError| error.to_string())
                .and_then(|all| all.prompt(mode, id).map_err(|error| error.to_string())),
        )
    }
}

/// What `make` makes from `corpus` once it is loaded, or why it is not (reactive),
/// read in place: a corpus is thousands of strings, not copied for one game.
fn made_from<T: Send + Sync + 'static, A>(
    corpus: RwSignal<Option<Result<T, LoadError>>>,
    make: impl FnOnce(&T) -> A,
) -> Option<Result<A, LoadError>> {
    corpus.with(|loaded| {
        loaded
            .as_ref()
            .map(|loaded| loaded.as_ref().map(make).map_err(LoadError::clone))
    })
}

/// Sets `corpus` to what `loading` gives, once it is in (unless the game that asked
/// for it is gone).
fn set_when_loaded<T: Send + Sync + 'static>(
    corpus: RwSignal<Option<T>>,
    loading: impl Future<Output = T> + 'static,
) {
    leptos::task::spawn_local(async move {
        corpus.try_set(Some(loading.await));
    });
}

/// Fetches `/texts/<file>` and reads it in the `passages` module, tried again until
/// it is in. The module is fetched beside the corpus, not after it: a game that plays
/// a passage first (the settings' mode, the day's race) waits for both.
async fn load_passages(file: &'static str) -> Result<Passages, LoadError> {
    leptos::task::spawn_local(async {
        // A failure here is the read's to try again.
        let _ = preload_passages_reader().await;
    });
    let json = fetch(file).await?;
    once_loaded(|| read_passages(json.clone()))
        .await
        .map_err(|e| LoadError::new(file, e.to_string()))
}

/// Reads a passage corpus ([`Passages::parse`]) in the module that holds the JSON
/// reader.
#[wasm_split(passages, fallible, preload(preload_passages_reader))]
fn read_passages(json: String) -> Result<Result<Passages, CorpusError>, SplitLoaderError> {
    Ok(Passages::parse(&json))
}

/// "— Author, Source (year)".
fn attributed(passage: &Passage, id: PromptId) -> Assignment {
    let year = passage.year.map(|y| format!(" ({y})")).unwrap_or_default();
    Assignment {
        prompt: passage.text.clone(),
        id,
        attribution: Some(format!("— {}, {}{year}", passage.author, passage.source)),
        segment: None,
        time_limit_ms: None,
    }
}
