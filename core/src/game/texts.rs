//! The text corpora (`assets/texts/`) and the seeded choice of what to type.
//!
//! The app draws a seed and turns it into a prompt here, so a prompt can be rebuilt
//! from its seed on any platform. Corpora are parsed from text the caller loaded
//! (fetched, or embedded); a blank entry is refused with an error that says where it is.

use crate::game::options::TestOptions;
use crate::game::prompt::Prompt;
use crate::game::rng::SplitMix64;
use serde::Deserialize;
use std::collections::HashSet;
use std::fmt;
use std::num::NonZeroUsize;

/// A non-empty list of distinct words, from a file with one word per line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WordList(Vec<String>);

impl WordList {
    /// Parses one word per line. Blank lines, lines with more than one word and repeated
    /// words are refused: a repeat would quietly make its word more likely.
    pub fn parse(text: &str) -> Result<WordList, CorpusError> {
        let mut seen = HashSet::new();
        let mut words = Vec::new();
        for (index, line) in text.lines().enumerate() {
            let line_number = index + 1;
            let mut parts = line.split_whitespace();
            let word = parts
                .next()
                .ok_or(CorpusError::BlankLine { line: line_number })?;
            if parts.next().is_some() {
                return Err(CorpusError::NotOneWord { line: line_number });
            }
            if !seen.insert(word) {
                return Err(CorpusError::RepeatedWord {
                    line: line_number,
                    word: word.to_owned(),
                });
            }
            words.push(word.to_owned());
        }
        if words.is_empty() {
            return Err(CorpusError::Empty);
        }
        Ok(WordList(words))
    }

    pub fn words(&self) -> &[String] {
        &self.0
    }

    /// An endless stream of words drawn from `seed`, never the same word twice in a row
    /// (unless the list has only one). The same seed always gives the same stream.
    pub fn stream(&self, seed: u64) -> WordStream<'_> {
        WordStream {
            words: &self.0,
            rng: SplitMix64::new(seed),
            previous: None,
        }
    }
}

/// The words of [`WordList::stream`].
pub struct WordStream<'a> {
    words: &'a [String],
    rng: SplitMix64,
    previous: Option<usize>,
}

impl<'a> Iterator for WordStream<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let index = loop {
            let index = self.rng.below(self.words.len());
            if Some(index) != self.previous || self.words.len() == 1 {
                break index;
            }
        };
        self.previous = Some(index);
        Some(&self.words[index])
    }
}

/// The first `count` words of `words.stream(seed)`, dressed as `options` say
/// ([`TestOptions::dress`]) and joined by spaces.
pub fn words_prompt(
    words: &WordList,
    seed: u64,
    count: NonZeroUsize,
    options: &TestOptions,
) -> Prompt {
    let text = options
        .dress(words.stream(seed).take(count.get()), seed)
        .join(" ");
    Prompt::new(&text).expect("a word list holds non-blank words, and count is not zero")
}

/// One passage to type, with its attribution.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Passage {
    /// Stable, unique within its corpus.
    pub id: String,
    pub text: Prompt,
    /// The work it is taken from.
    pub source: String,
    pub author: String,
    /// First publication, when known.
    pub year: Option<i32>,
}

/// A non-empty list of passages with distinct ids, from a JSON array.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Passages(Vec<Passage>);

impl Passages {
    /// Parses `[{"id", "text", "source", "author", "year"}]`, refusing blank fields,
    /// repeated ids and an empty list.
    pub fn parse(json: &str) -> Result<Passages, CorpusError> {
        let passages: Vec<Passage> = serde_json::from_str(json).map_err(CorpusError::Json)?;
        let mut ids = HashSet::new();
        for passage in &passages {
            let blank_field = [
                ("id", &passage.id),
                ("source", &passage.source),
                ("author", &passage.author),
            ]
            .into_iter()
            .find(|(_, value)| value.trim().is_empty());
            if let Some((field, _)) = blank_field {
                return Err(CorpusError::BlankField {
                    id: passage.id.clone(),
                    field,
                });
            }
            if !ids.insert(passage.id.as_str()) {
                return Err(CorpusError::RepeatedId(passage.id.clone()));
            }
        }
        if passages.is_empty() {
            return Err(CorpusError::Empty);
        }
        Ok(Passages(passages))
    }

    pub fn passages(&self) -> &[Passage] {
        &self.0
    }
}

/// The passage `seed` picks, every passage equally likely.
pub fn pick_passage(passages: &Passages, seed: u64) -> &Passage {
    &passages.0[SplitMix64::new(seed).below(passages.0.len())]
}

/// Why a corpus was refused.
#[derive(Debug)]
pub enum CorpusError {
    /// The corpus has no entry at all.
    Empty,
    /// A line of the word list is blank.
    BlankLine { line: usize },
    /// A line of the word list holds more than one word.
    NotOneWord { line: usize },
    /// A word appears twice in the word list.
    RepeatedWord { line: usize, word: String },
    /// The passages are not valid JSON of the expected shape, or a text is blank.
    Json(serde_json::Error),
    /// A passage's id, source or author is blank.
    BlankField { id: String, field: &'static str },
    /// Two passages share an id.
    RepeatedId(String),
}

impl fmt::Display for CorpusError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CorpusError::Empty => f.write_str("the corpus has no entries"),
            CorpusError::BlankLine { line } => write!(f, "line {line} of the word list is blank"),
            CorpusError::NotOneWord { line } => {
                write!(f, "line {line} of the word list holds more than one word")
            }
            CorpusError::RepeatedWord { line, word } => {
                write!(f, "line {line} of the word list repeats the word {word:?}")
            }
            CorpusError::Json(error) => write!(f, "the passages cannot be read: {error}"),
            CorpusError::BlankField { id, field } => {
                write!(f, "the passage {id:?} has a blank {field}")
            }
            CorpusError::RepeatedId(id) => write!(f, "two passages have the id {id:?}"),
        }
    }
}

impl std::error::Error for CorpusError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CorpusError::Json(error) => Some(error),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::mode::Mode;
    use crate::game::options::{TIME_MODE_WORD_COUNT, WORDS_MODE_WORD_COUNT};

    const WORDS_TXT: &str = include_str!("../../../assets/texts/words.txt");
    const QUOTES_JSON: &str = include_str!("../../../assets/texts/quotes.json");
    const ZH_JSON: &str = include_str!("../../../assets/texts/zh.json");

    fn list(words: &[&str]) -> WordList {
        WordList::parse(&words.join("\n")).unwrap()
    }

    fn passage_json(id: &str, text: &str, source: &str) -> String {
        format!(
            r#"{{"id": "{id}", "text": "{text}", "source": "{source}", "author": "A", "year": null}}"#
        )
    }

    #[test]
    fn the_same_seed_gives_the_same_prompt() {
        let words = WordList::parse(WORDS_TXT).unwrap();
        for seed in [0, 1, 42, u64::MAX] {
            assert_eq!(
                words_prompt(&words, seed, WORDS_MODE_WORD_COUNT, &TestOptions::default()),
                words_prompt(&words, seed, WORDS_MODE_WORD_COUNT, &TestOptions::default())
            );
        }
        let prompts: HashSet<Prompt> = (0..100)
            .map(|seed| words_prompt(&words, seed, WORDS_MODE_WORD_COUNT, &TestOptions::default()))
            .collect();
        assert_eq!(prompts.len(), 100, "different seeds give different prompts");
        // Pinned: a change here silently changes every prompt built from a stored seed.
        assert_eq!(
            words_prompt(
                &list(&["ant", "bee", "cat", "dog"]),
                42,
                NonZeroUsize::new(8).unwrap(),
                &TestOptions::default()
            )
            .as_str(),
            "cat ant bee ant dog ant dog bee"
        );
    }

    #[test]
    fn a_longer_prompt_extends_a_shorter_one() {
        let words = WordList::parse(WORDS_TXT).unwrap();
        let short = words_prompt(&words, 9, WORDS_MODE_WORD_COUNT, &TestOptions::default());
        let long = words_prompt(&words, 9, TIME_MODE_WORD_COUNT, &TestOptions::default());
        assert!(long.as_str().starts_with(&format!("{short} ")));
        assert_eq!(long.as_str().split(' ').count(), 400);
    }

    #[test]
    fn a_time_prompt_outlasts_the_fastest_player() {
        let words = WordList::parse(WORDS_TXT).unwrap();
        for seconds in crate::game::options::TIME_LENGTHS {
            let options = TestOptions::default().with_length(Mode::Time, seconds);
            for seed in 0..200 {
                let count = options.word_count(Mode::Time);
                let prompt = words_prompt(&words, seed, count, &options);
                // 350 WPM × 5 characters × the game's minutes.
                let fastest = 350 * 5 * usize::from(seconds) / 60;
                assert!(prompt.as_str().len() > fastest, "{seconds} s, seed {seed}");
            }
        }
    }

    #[test]
    fn options_dress_the_same_words() {
        let options = TestOptions {
            punctuation: true,
            numbers: true,
            ..TestOptions::default()
        };
        let count = NonZeroUsize::new(12).unwrap();
        let list = list(&["ant", "bee", "cat", "dog"]);
        // Pinned like the plain prompt: stored seeds with options rebuild from it.
        assert_eq!(
            words_prompt(&list, 42, count, &options).as_str(),
            "Cat ant bee, ant 5 ant dog bee cat 91 bee cat!"
        );
    }

    #[test]
    fn words_are_drawn_evenly_and_never_twice_in_a_row() {
        let words = list(&["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]);
        let drawn: Vec<&str> = words.stream(3).take(100_000).collect();
        for word in words.words() {
            let count = drawn.iter().filter(|w| *w == word).count();
            assert!((9_000..=11_000).contains(&count), "{word}: {count}");
        }
        assert!(drawn.windows(2).all(|pair| pair[0] != pair[1]));
        // A single word can only repeat.
        assert_eq!(
            list(&["solo"]).stream(0).take(3).collect::<Vec<_>>(),
            ["solo"; 3]
        );
    }

    #[test]
    fn passages_are_picked_evenly() {
        let passages = Passages::parse(QUOTES_JSON).unwrap();
        let n = passages.passages().len();
        let draws = 1_000 * n as u64;
        let mut counts = vec![0u32; n];
        for seed in 0..draws {
            let picked = pick_passage(&passages, seed);
            counts[passages
                .passages()
                .iter()
                .position(|p| p == picked)
                .unwrap()] += 1;
        }
        for (passage, count) in passages.passages().iter().zip(counts) {
            assert!((850..=1_150).contains(&count), "{}: {count}", passage.id);
        }
        assert_eq!(pick_passage(&passages, 5), pick_passage(&passages, 5));
    }

    #[test]
    fn word_list_errors_say_where() {
        let cases = [
            ("", "the corpus has no entries"),
            ("ant\n\nbee", "line 2 of the word list is blank"),
            ("ant\n  \t\nbee", "line 2 of the word list is blank"),
            (
                "ant\nbumble bee",
                "line 2 of the word list holds more than one word",
            ),
            (
                "ant\nbee\nant",
                "line 3 of the word list repeats the word \"ant\"",
            ),
        ];
        for (text, message) in cases {
            assert_eq!(WordList::parse(text).unwrap_err().to_string(), message);
        }
        // Windows line endings and surrounding spaces are fine.
        assert_eq!(
            WordList::parse("ant\r\n bee \r\n").unwrap().words(),
            ["ant", "bee"]
        );
    }

    #[test]
    fn passage_errors_say_what() {
        let ok = passage_json("a", "Some text.", "A Work");
        assert_eq!(
            Passages::parse(&format!("[{ok}]")).unwrap().passages()[0]
                .text
                .as_str(),
            "Some text."
        );
        let cases = [
            ("[]".to_owned(), "the corpus has no entries"),
            (
                format!("[{}]", passage_json("b", "", "W")),
                "the passages cannot be read: a prompt cannot be empty or only whitespace",
            ),
            (
                format!("[{}]", passage_json("c", " \\n ", "W")),
                "a prompt cannot be empty",
            ),
            (
                format!("[{}]", passage_json("d", "x", " ")),
                "the passage \"d\" has a blank source",
            ),
            (
                format!("[{}]", passage_json(" ", "x", "W")),
                "the passage \" \" has a blank id",
            ),
            (format!("[{ok}, {ok}]"), "two passages have the id \"a\""),
            (
                format!("[{}]", ok.replace("\"year\"", "\"yaer\"")),
                "unknown field `yaer`",
            ),
            ("[{\"id\": \"e\"}]".to_owned(), "missing field `text`"),
        ];
        for (json, message) in cases {
            let error = Passages::parse(&json).unwrap_err().to_string();
            assert!(error.contains(message), "{json}: {error}");
        }
    }

    #[test]
    fn shipped_words_are_a_thousand_common_lowercase_words() {
        let words = WordList::parse(WORDS_TXT).unwrap();
        assert!(words.words().len() >= 1_000, "{}", words.words().len());
        for word in words.words() {
            assert!(word.chars().all(|c| c.is_ascii_lowercase()), "{word:?}");
        }
    }

    #[test]
    fn shipped_quotes_are_typeable_on_any_keyboard() {
        let quotes = Passages::parse(QUOTES_JSON).unwrap();
        assert!(quotes.passages().len() >= 40, "{}", quotes.passages().len());
        for quote in quotes.passages() {
            let text = quote.text.as_str();
            assert!(
                text.chars().all(|c| c.is_ascii_graphic() || c == ' '),
                "{}: {text}",
                quote.id
            );
            assert!(
                (80..=500).contains(&text.len()),
                "{}: {} chars",
                quote.id,
                text.len()
            );
            assert!(quote.year.is_some_and(|year| year < 1929), "{}", quote.id);
        }
    }

    #[test]
    fn shipped_chinese_passages_use_ime_punctuation_only() {
        const IME_PUNCTUATION: &str = "，。！？、；：“”";
        let passages = Passages::parse(ZH_JSON).unwrap();
        assert!(
            passages.passages().len() >= 30,
            "{}",
            passages.passages().len()
        );
        for passage in passages.passages() {
            let text = passage.text.as_str();
            let hanzi = text
                .chars()
                .filter(|c| ('\u{4E00}'..='\u{9FFF}').contains(c))
                .count();
            assert!((30..=200).contains(&hanzi), "{}: {hanzi} 汉字", passage.id);
            assert_eq!(
                hanzi
                    + text
                        .chars()
                        .filter(|c| IME_PUNCTUATION.contains(*c))
                        .count(),
                text.chars().count(),
                "{}: only 汉字 and IME punctuation",
                passage.id
            );
        }
    }
}
