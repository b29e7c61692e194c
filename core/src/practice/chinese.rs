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

/// The pools and 词 a course of Chinese lessons is drawn from, indexed so that a
/// lesson takes a fraction of a millisecond.
#[derive(Debug, Clone)]
pub struct Course {
    chars: Vec<char>,
    rank: HashMap<char, usize>,
    /// The 词 as their 字, those of the first pool first, then those the second pool
    /// unlocks, and so on, each group in frequency order.
    words: Vec<Vec<char>>,
    /// How many of `words` each number of unlocked pools allows (index: pools − 1).
    words_unlocked: Vec<usize>,
    /// Per 字 (by rank): the indices in `words` of the 词 that contain it.
    containing: Vec<Vec<usize>>,
    /// Per 字 (by rank): the pools needed before a 词 of at most
    /// [`FOCUS_WORD_CHARS`] 字 contains it (`usize::MAX` if none ever does).
    short_word_pools: Vec<usize>,
}

/// One passage to practise, and the 字 it stresses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lesson {
    pub prompt: Prompt,
    /// The weakest unlocked 字, weakest first.
    pub focus: Vec<char>,
}

/// Where a passage's next 词 is drawn from.
#[derive(Clone, Copy)]
enum Draw {
    Any,
    WithFocus,
    MostlyFocus,
}

impl Course {
    pub fn new(lists: &ZhLists) -> Course {
        let rank: HashMap<char, usize> = lists
            .chars
            .iter()
            .enumerate()
            .map(|(i, &zi)| (zi, i))
            .collect();
        let pools_needed = |w: &[char]| {
            w.iter()
                .map(|zi| rank[zi] / POOL_SIZE + 1)
                .max()
                .unwrap_or(1)
        };
        let mut words: Vec<Vec<char>> = lists.words.iter().map(|w| w.chars().collect()).collect();
        // Stable: frequency order is kept within each pool.
        words.sort_by_key(|w| pools_needed(w));
        let pools = lists.chars.len().div_ceil(POOL_SIZE);
        let words_unlocked = (1..=pools)
            .map(|p| words.partition_point(|w| pools_needed(w) <= p))
            .collect();
        let mut containing = vec![Vec::new(); lists.chars.len()];
        let mut short_word_pools = vec![usize::MAX; lists.chars.len()];
        for (index, word) in words.iter().enumerate() {
            let needs = pools_needed(word);
            for zi in word {
                let zi_rank = rank[zi];
                if containing[zi_rank].last() != Some(&index) {
                    containing[zi_rank].push(index);
                }
                if word.len() <= FOCUS_WORD_CHARS {
                    short_word_pools[zi_rank] = short_word_pools[zi_rank].min(needs);
                }
            }
        }
        Course {
            chars: lists.chars.clone(),
            rank,
            words,
            words_unlocked,
            containing,
            short_word_pools,
        }
    }

    /// How many pools the 字 list makes.
    pub fn pools(&self) -> usize {
        self.chars.len().div_ceil(POOL_SIZE)
    }

    fn pools_unlocked(&self, stats: &UnitStats) -> usize {
        stats.pools_unlocked.clamp(1, self.pools())
    }

    /// The unlocked 字, most frequent first.
    pub fn unlocked(&self, stats: &UnitStats) -> &[char] {
        &self.chars[..(self.pools_unlocked(stats) * POOL_SIZE).min(self.chars.len())]
    }

    /// Unlocks pools while the newest one is mastered. Never locks one.
    pub(crate) fn unlock(&self, stats: &mut UnitStats, target: Target) {
        let mut pools = self.pools_unlocked(stats);
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
        let pools = self.pools_unlocked(stats);
        let mut candidates: Vec<(f64, usize)> = self
            .unlocked(stats)
            .iter()
            .enumerate()
            .filter(|(rank, _)| self.short_word_pools[*rank] <= pools)
            .map(|(rank, &zi)| (stats.zi_confidence(zi, target).unwrap_or(0.0), rank))
            .collect();
        candidates.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        candidates
            .into_iter()
            .take(FOCUS_ZI)
            .map(|(_, rank)| self.chars[rank])
            .collect()
    }

    /// The passage for `stats` at `target`, drawn from `seed`: the same arguments
    /// always give the same passage.
    ///
    /// 词 are added until the passage has [`PASSAGE_CHARS`] 字 and at least a third
    /// are focus 字. While a third are, the next 词 is one with a focus 字 half the
    /// time; while fewer are, it is one at least half focus 字 (one always exists: a
    /// focus 字 is in a 词 of at most two 字), so each such 词 raises
    /// 3 × focus − length and the passage ends within [`MAX_PASSAGE_CHARS`].
    pub fn lesson(&self, stats: &UnitStats, target: Target, seed: u64) -> Lesson {
        let unlocked = self.words_unlocked[self.pools_unlocked(stats) - 1];
        let focus = self.focus(stats, target);
        let focus_count = |w: &[char]| w.iter().filter(|zi| focus.contains(zi)).count();
        let mut with_focus: Vec<usize> = focus
            .iter()
            .flat_map(|zi| self.containing[self.rank[zi]].iter().copied())
            .filter(|&w| w < unlocked)
            .collect();
        with_focus.sort_unstable();
        with_focus.dedup();
        let mostly_focus: Vec<usize> = with_focus
            .iter()
            .copied()
            .filter(|&w| focus_count(&self.words[w]) * 2 >= self.words[w].len())
            .collect();
        let mut rng = SplitMix64::new(seed);
        let mut passage: Vec<char> = Vec::with_capacity(MAX_PASSAGE_CHARS);
        let mut focus_in_passage = 0;
        let mut previous = None;
        while passage.len() < PASSAGE_CHARS || focus_in_passage * 3 < passage.len() {
            let draw = if focus_in_passage * 3 < passage.len() {
                Draw::MostlyFocus
            } else if rng.below(2) == 0 {
                Draw::WithFocus
            } else {
                Draw::Any
            };
            let (index, choices) = match draw {
                Draw::Any => (rng.below(unlocked), unlocked),
                Draw::WithFocus => (with_focus[rng.below(with_focus.len())], with_focus.len()),
                Draw::MostlyFocus => (
                    mostly_focus[rng.below(mostly_focus.len())],
                    mostly_focus.len(),
                ),
            };
            if previous == Some(index) && choices > 1 {
                continue;
            }
            previous = Some(index);
            let word = &self.words[index];
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::input_log::{LoggedEdit, Recorder};
    use crate::game::mode::{Language, Mode};
    use crate::practice::stats::UnitRecord;

    const ZH_CHARS_TXT: &str = include_str!("../../../assets/texts/zh_chars.txt");
    const ZH_WORDS_TXT: &str = include_str!("../../../assets/texts/zh_words.txt");

    fn course() -> &'static Course {
        &crate::practice::Course::shipped().chinese
    }

    fn timed(ms: u64) -> UnitRecord {
        UnitRecord {
            smoothed_us: ms * 1_000,
            samples: 1,
            ..UnitRecord::default()
        }
    }

    /// Stats with the first `count` 字 timed at `ms` each.
    fn progress(pools: usize, count: usize, ms: u64) -> UnitStats {
        let mut stats = UnitStats {
            pools_unlocked: pools,
            ..UnitStats::default()
        };
        for &zi in &course().chars[..count] {
            stats.chinese.insert(zi, timed(ms));
        }
        stats
    }

    #[test]
    fn the_shipped_lists_are_three_pools_and_their_common_words() {
        let lists = ZhLists::parse(ZH_CHARS_TXT, ZH_WORDS_TXT).unwrap();
        assert_eq!(lists.chars().len(), 3 * POOL_SIZE);
        assert_eq!(lists.chars()[..5], ['一', '是', '人', '了', '不']);
        assert!(
            (5_000..=8_000).contains(&lists.words().len()),
            "{}",
            lists.words().len()
        );
        for word in lists.words() {
            assert!((1..=4).contains(&word.chars().count()), "{word}");
        }
        assert_eq!(course().pools(), 3);
        // Every pool has plenty of short 词 of its own and earlier 字.
        let mut before = 0;
        for pools in 1..=3 {
            let unlocked = course().words_unlocked[pools - 1];
            let short = course().words[before..unlocked]
                .iter()
                .filter(|w| w.len() <= FOCUS_WORD_CHARS)
                .count();
            assert!(short > 500, "pool {pools}: {short}");
            before = unlocked;
        }
        assert_eq!(before, course().words.len());
    }

    #[test]
    fn list_errors_say_where() {
        let cases = [
            ("一\n是", "一\n\n是", "line 2 of the 词 list is blank"),
            ("一\nab", "一", "line 2 of the 字 list is not one 汉字"),
            ("一\n是一", "一", "line 2 of the 字 list is not one 汉字"),
            ("一\n是\n一", "一", "line 3 of the 字 list repeats 一"),
            (
                "一\n是",
                "一是\n人",
                "line 2 of the 词 list uses 人, not in the 字 list",
            ),
            (
                "一\n是",
                "一是\n是\n一是",
                "line 3 of the 词 list repeats 一是",
            ),
            ("", "", "a Chinese list is empty"),
        ];
        for (chars, words, message) in cases {
            assert_eq!(
                ZhLists::parse(chars, words).unwrap_err().to_string(),
                message,
                "{chars:?} {words:?}"
            );
        }
        // The only 词 needs the 501st 字.
        let chars: String = ('\u{4E00}'..)
            .take(POOL_SIZE + 1)
            .map(|c| format!("{c}\n"))
            .collect();
        let beyond = char::from_u32(0x4E00 + POOL_SIZE as u32).unwrap();
        assert_eq!(
            ZhLists::parse(&chars, &format!("{beyond}")).unwrap_err(),
            ZhListError::NoFirstPoolWord
        );
        assert!(ZhLists::parse(&chars, "一丁").is_ok());
    }

    #[test]
    fn the_focus_is_the_weakest_zi_and_one_never_timed_comes_first() {
        let mut stats = progress(1, POOL_SIZE, 1_000);
        stats.chinese.insert('学', timed(3_000));
        stats.chinese.insert('和', timed(2_000));
        let focus = course().focus(&stats, Target::default());
        assert_eq!(focus.len(), FOCUS_ZI);
        // Then the rest, all equal, most frequent first.
        assert_eq!(focus[..5], ['学', '和', '一', '是', '人']);
        stats.chinese.remove(&'人');
        assert_eq!(course().focus(&stats, Target::default())[0], '人');
    }

    #[test]
    fn a_fixed_seed_and_progress_give_the_golden_lesson() {
        let mut stats = progress(1, 300, 1_000);
        stats.chinese.insert('学', timed(3_000));
        let lesson = course().lesson(&stats, Target::default(), 42);
        // The 字 of the first pool never timed come first, the most frequent of them.
        assert_eq!(
            lesson.focus.iter().collect::<String>(),
            "京河接条规县式白它改"
        );
        assert_eq!(
            lesson.prompt.as_str(),
            "这次接着改为生产方式法规反而常规改变接过主观改变改建接下来作用白天"
        );
        assert_eq!(course().lesson(&stats, Target::default(), 42), lesson);
        assert_ne!(
            course().lesson(&stats, Target::default(), 43).prompt,
            lesson.prompt
        );
    }

    /// Whether `text` splits into `words`.
    fn splits_into_words(text: &[char], words: &HashSet<&[char]>) -> bool {
        let mut reachable = vec![false; text.len() + 1];
        reachable[0] = true;
        for end in 1..=text.len() {
            reachable[end] = (end.saturating_sub(4)..end)
                .any(|start| reachable[start] && words.contains(&text[start..end]));
        }
        reachable[text.len()]
    }

    #[test]
    fn passages_are_unlocked_real_words_and_a_third_focus() {
        for (pools, timed_count) in [(1, 0), (1, 450), (2, 700), (3, 1_500)] {
            let stats = progress(pools, timed_count, 1_000);
            let unlocked: HashSet<char> = course().unlocked(&stats).iter().copied().collect();
            let words: HashSet<&[char]> = course().words[..course().words_unlocked[pools - 1]]
                .iter()
                .map(Vec::as_slice)
                .collect();
            assert_eq!(unlocked.len(), pools * POOL_SIZE);
            for seed in 0..100 {
                let lesson = course().lesson(&stats, Target::default(), seed);
                let text: Vec<char> = lesson.prompt.as_str().chars().collect();
                assert!(
                    (PASSAGE_CHARS..=MAX_PASSAGE_CHARS).contains(&text.len()),
                    "{}",
                    lesson.prompt
                );
                assert!(
                    text.iter().all(|zi| unlocked.contains(zi)),
                    "{}",
                    lesson.prompt
                );
                let focus = text.iter().filter(|zi| lesson.focus.contains(zi)).count();
                assert!(
                    focus * 3 >= text.len(),
                    "{focus}/{}: {}",
                    text.len(),
                    lesson.prompt
                );
                assert!(splits_into_words(&text, &words), "{}", lesson.prompt);
            }
        }
    }

    /// A 中文 game typing `text` one 字 per composition, `ms` apart.
    fn game(text: &str, ms: u64) -> (crate::Prompt, crate::InputLog) {
        let mut recorder = Recorder::default();
        let mut buffer = [0u8; 4];
        for (i, zi) in text.chars().enumerate() {
            let at = i as u64 * ms;
            recorder.record(at, LoggedEdit::CompositionStart);
            let text = zi.encode_utf8(&mut buffer);
            recorder.record(at + ms / 2, LoggedEdit::CompositionEnd { text, keys: 3 });
        }
        (crate::Prompt::new(text).unwrap(), recorder.log())
    }

    #[test]
    fn a_pool_unlocks_at_mastery_and_never_locks_again() {
        let shipped = crate::practice::Course::shipped();
        let target = Target::default();
        let needed = POOL_SIZE * POOL_MASTERY_PERCENT / 100;
        // One 字 short of mastering the first pool, at 500 ms a 字 (120 字/分).
        let mut stats = progress(1, needed - 1, 500);
        let (prompt, log) = game(
            &course().chars[needed - 2..needed]
                .iter()
                .collect::<String>(),
            500,
        );
        shipped.add_game(&mut stats, Mode::Zh, &prompt, &log, target);
        assert_eq!(stats.pools_unlocked, 2);
        assert_eq!(course().unlocked(&stats).len(), 2 * POOL_SIZE);
        // Slow games drag the first pool's 字 below the target; nothing locks.
        let first: String = course().chars[..60].iter().collect();
        for _ in 0..3 {
            let (prompt, log) = game(&first, 6_000);
            shipped.add_game(&mut stats, Mode::Zh, &prompt, &log, target);
        }
        assert!(stats.zi_confidence('一', target).unwrap() < 1.0);
        assert_eq!(stats.pools_unlocked, 2);
        let with_one_less = progress(1, needed - 1, 500);
        let mut again = with_one_less.clone();
        course().unlock(&mut again, target);
        assert_eq!(
            again,
            with_one_less,
            "{} of {POOL_SIZE} is not mastery",
            needed - 1
        );
        assert!(target.unit_us(Language::Chinese) > 500_000.0);
    }
}
