//! Chinese lessons that adapt (docs/practice.md, "Chinese lessons"), and the two lists
//! they come from (`assets/texts/zh_chars.txt`, `assets/texts/zh_words.txt`).
//!
//! The 字 list is cut into pools of [`POOL_SIZE`] by frequency. The first pool is
//! unlocked before any game; the next unlocks once [`POOL_MASTERY_PERCENT`] % of the
//! newest pool's 字 have reached the target speed (confidence ≥ 1), and an unlocked
//! pool stays unlocked. A lesson is a passage of real 词 whose 字 are all unlocked,
//! [`PASSAGE_CHARS`] 字 or a little more (never over [`MAX_PASSAGE_CHARS`]), at least a
//! third of them focus 字: the [`FOCUS_ZI`] weakest unlocked ones.

use crate::game::prompt::Prompt;
use crate::game::rng::SplitMix64;
use crate::practice::stats::{Target, UnitStats, is_hanzi};
use std::collections::{HashMap, HashSet};
use std::fmt;

/// 字 in a pool.
pub const POOL_SIZE: usize = 500;
/// The share of the newest pool's 字, in percent, that must be at the target before
/// the next pool unlocks. Not all of them: the rarest 字 of a pool seldom come up in
/// real 词, and waiting for every one would stall the ladder.
pub const POOL_MASTERY_PERCENT: usize = 80;
/// How many of the weakest unlocked 字 a lesson stresses.
pub const FOCUS_ZI: usize = 10;
/// A passage is at least this long.
pub const PASSAGE_CHARS: usize = 30;
/// And never longer than this.
pub const MAX_PASSAGE_CHARS: usize = 50;
/// A focus 字 must occur in an unlocked 词 this short, so a passage can always add
/// 词 that are at least half focus 字 (see [`Course::lesson`]).
const FOCUS_WORD_CHARS: usize = 2;

/// The 字 in frequency order and the common 词 made only of them, in frequency order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZhLists {
    chars: Vec<char>,
    words: Vec<String>,
}

impl ZhLists {
    /// Parses one 字 per line and one 词 per line. Each 字 must be a 汉字 and appear
    /// once; each 词 must be made of listed 字 only and appear once.
    pub fn parse(chars_txt: &str, words_txt: &str) -> Result<ZhLists, ZhListError> {
        let mut chars = Vec::new();
        let mut seen = HashSet::new();
        for (index, line) in chars_txt.lines().enumerate() {
            let line_number = index + 1;
            let mut it = line.trim().chars();
            let zi = match (it.next(), it.next()) {
                (Some(zi), None) if is_hanzi(zi) => zi,
                _ => return Err(ZhListError::NotOneZi { line: line_number }),
            };
            if !seen.insert(zi) {
                return Err(ZhListError::RepeatedZi {
                    line: line_number,
                    zi,
                });
            }
            chars.push(zi);
        }
        let mut words = Vec::new();
        let mut seen_words = HashSet::new();
        for (index, line) in words_txt.lines().enumerate() {
            let line_number = index + 1;
            let word = line.trim();
            if word.is_empty() {
                return Err(ZhListError::BlankWord { line: line_number });
            }
            if let Some(zi) = word.chars().find(|c| !seen.contains(c)) {
                return Err(ZhListError::UnlistedZi {
                    line: line_number,
                    zi,
                });
            }
            if !seen_words.insert(word) {
                return Err(ZhListError::RepeatedWord {
                    line: line_number,
                    word: word.to_owned(),
                });
            }
            words.push(word.to_owned());
        }
        if chars.is_empty() || words.is_empty() {
            return Err(ZhListError::Empty);
        }
        // A lesson needs a 词 before any pool beyond the first is unlocked.
        let first_pool: HashSet<char> = chars.iter().take(POOL_SIZE).copied().collect();
        if !words.iter().any(|w| {
            w.chars().count() <= FOCUS_WORD_CHARS && w.chars().all(|zi| first_pool.contains(&zi))
        }) {
            return Err(ZhListError::NoFirstPoolWord);
        }
        Ok(ZhLists { chars, words })
    }

    /// The 字, most frequent first.
    pub fn chars(&self) -> &[char] {
        &self.chars
    }

    /// The 词, most frequent first.
    pub fn words(&self) -> &[String] {
        &self.words
    }
}

/// Why a list was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ZhListError {
    /// A list is empty.
    Empty,
    /// A line of the 字 list is not one 汉字.
    NotOneZi { line: usize },
    /// A 字 appears twice.
    RepeatedZi { line: usize, zi: char },
    /// A line of the 词 list is blank.
    BlankWord { line: usize },
    /// A 词 uses a 字 the 字 list does not have.
    UnlistedZi { line: usize, zi: char },
    /// A 词 appears twice.
    RepeatedWord { line: usize, word: String },
    /// No 词 of one or two 字 is made of the first pool's 字 only.
    NoFirstPoolWord,
}

impl fmt::Display for ZhListError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ZhListError::Empty => f.write_str("a Chinese list is empty"),
            ZhListError::NotOneZi { line } => {
                write!(f, "line {line} of the 字 list is not one 汉字")
            }
            ZhListError::RepeatedZi { line, zi } => {
                write!(f, "line {line} of the 字 list repeats {zi}")
            }
            ZhListError::BlankWord { line } => write!(f, "line {line} of the 词 list is blank"),
            ZhListError::UnlistedZi { line, zi } => {
                write!(
                    f,
                    "line {line} of the 词 list uses {zi}, not in the 字 list"
                )
            }
            ZhListError::RepeatedWord { line, word } => {
                write!(f, "line {line} of the 词 list repeats {word}")
            }
            ZhListError::NoFirstPoolWord => {
                f.write_str("no short 词 is made of the first pool's 字 alone")
            }
        }
    }
}

impl std::error::Error for ZhListError {}

/// The pools and 词 a course of Chinese lessons is drawn from.
#[derive(Debug, Clone)]
pub struct Course {
    chars: Vec<char>,
    rank: HashMap<char, usize>,
    /// Each 词 as its 字, with the number of pools it needs.
    words: Vec<(Vec<char>, usize)>,
}

/// One passage to practise, and the 字 it stresses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lesson {
    pub prompt: Prompt,
    /// The weakest unlocked 字, weakest first.
    pub focus: Vec<char>,
}

impl Course {
    pub fn new(lists: &ZhLists) -> Course {
        let rank: HashMap<char, usize> = lists
            .chars
            .iter()
            .enumerate()
            .map(|(i, &zi)| (zi, i))
            .collect();
        let words = lists
            .words
            .iter()
            .map(|w| {
                let chars: Vec<char> = w.chars().collect();
                let needs = chars.iter().map(|zi| rank[zi] / POOL_SIZE + 1).max();
                (chars, needs.unwrap_or(1))
            })
            .collect();
        Course {
            chars: lists.chars.clone(),
            rank,
            words,
        }
    }

    /// How many pools the 字 list makes.
    pub fn pools(&self) -> usize {
        self.chars.len().div_ceil(POOL_SIZE)
    }

    /// The unlocked 字, most frequent first.
    pub fn unlocked(&self, stats: &UnitStats) -> &[char] {
        let pools = stats.pools_unlocked.clamp(1, self.pools());
        &self.chars[..(pools * POOL_SIZE).min(self.chars.len())]
    }

    /// Unlocks pools while the newest one is mastered. Never locks one.
    pub(crate) fn unlock(&self, stats: &mut UnitStats, target: Target) {
        let mut pools = stats.pools_unlocked.clamp(1, self.pools());
        while pools < self.pools() {
            let newest = &self.chars[(pools - 1) * POOL_SIZE..pools * POOL_SIZE];
            let at_target = newest
                .iter()
                .filter(|&&zi| stats.zi_confidence(zi, target).is_some_and(|c| c >= 1.0))
                .count();
            if at_target * 100 < newest.len() * POOL_MASTERY_PERCENT {
                break;
            }
            pools += 1;
        }
        stats.pools_unlocked = stats.pools_unlocked.max(pools);
    }

    /// The [`FOCUS_ZI`] weakest unlocked 字 that short unlocked 词 use: lowest
    /// confidence first, a 字 never timed lowest of all, the more frequent on a tie.
    pub fn focus(&self, stats: &UnitStats, target: Target) -> Vec<char> {
        let pools = stats.pools_unlocked.clamp(1, self.pools());
        let in_short_words: HashSet<char> = self
            .words
            .iter()
            .filter(|(w, needs)| *needs <= pools && w.len() <= FOCUS_WORD_CHARS)
            .flat_map(|(w, _)| w.iter().copied())
            .collect();
        let mut candidates: Vec<(f64, usize, char)> = self
            .unlocked(stats)
            .iter()
            .filter(|zi| in_short_words.contains(zi))
            .map(|&zi| {
                let confidence = stats.zi_confidence(zi, target).unwrap_or(0.0);
                (confidence, self.rank[&zi], zi)
            })
            .collect();
        candidates.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        candidates
            .into_iter()
            .take(FOCUS_ZI)
            .map(|(_, _, zi)| zi)
            .collect()
    }

    /// The passage for `stats` at `target`, drawn from `seed`: the same arguments
    /// always give the same passage.
    ///
    /// 词 are added until the passage has [`PASSAGE_CHARS`] 字 and at least a third
    /// are focus 字. While a third are, the next 词 is one with a focus 字 half the
    /// time; while fewer are, it is one at least half focus 字, so each such 词 raises
    /// 3 × focus − length and the passage ends within [`MAX_PASSAGE_CHARS`].
    pub fn lesson(&self, stats: &UnitStats, target: Target, seed: u64) -> Lesson {
        let pools = stats.pools_unlocked.clamp(1, self.pools());
        let focus = self.focus(stats, target);
        let is_focus = |zi: &char| focus.contains(zi);
        let focus_count = |w: &[char]| w.iter().filter(|zi| is_focus(zi)).count();
        let unlocked: Vec<&[char]> = self
            .words
            .iter()
            .filter(|(_, needs)| *needs <= pools)
            .map(|(w, _)| w.as_slice())
            .collect();
        let with_focus: Vec<&[char]> = unlocked
            .iter()
            .copied()
            .filter(|w| focus_count(w) > 0)
            .collect();
        let mostly_focus: Vec<&[char]> = with_focus
            .iter()
            .copied()
            .filter(|w| focus_count(w) * 2 >= w.len())
            .collect();
        let mut rng = SplitMix64::new(seed);
        let mut passage: Vec<char> = Vec::with_capacity(MAX_PASSAGE_CHARS);
        let mut focus_in_passage = 0;
        let mut previous: Option<&[char]> = None;
        while passage.len() < PASSAGE_CHARS || focus_in_passage * 3 < passage.len() {
            let pool = if focus_in_passage * 3 < passage.len() {
                &mostly_focus
            } else if rng.below(2) == 0 {
                &with_focus
            } else {
                &unlocked
            };
            let word = pool[rng.below(pool.len())];
            if previous == Some(word) && pool.len() > 1 {
                continue;
            }
            previous = Some(word);
            passage.extend_from_slice(word);
            focus_in_passage += focus_count(word);
        }
        let text: String = passage.into_iter().collect();
        Lesson {
            prompt: Prompt::new(&text).expect("a passage has 字"),
            focus,
        }
    }
}
