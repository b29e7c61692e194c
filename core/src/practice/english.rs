//! English lessons that adapt (docs/practice.md, "English lessons").
//!
//! Letters are unlocked in the order of their frequency in the word list, starting
//! with the [`STARTING_LETTERS`](crate::practice::stats::STARTING_LETTERS) most
//! frequent; the next one unlocks once every
//! unlocked letter has reached the target speed (confidence ≥ 1), and an unlocked
//! letter stays unlocked. The focus is the weakest unlocked letter (one never timed
//! counts as the weakest). A lesson is [`LESSON_WORDS`] words of unlocked letters only:
//! pseudo-words from a trigram model of the word list, and, once the list holds
//! [`ENOUGH_REAL_WORDS`] words of unlocked letters, real words for about half of
//! them; words with the focus letter are [`FOCUS_WEIGHT`] times as likely.

use crate::game::prompt::Prompt;
use crate::game::rng::SplitMix64;
use crate::game::texts::WordList;
use crate::practice::stats::{Target, UnitStats};

/// Words in a lesson.
pub const LESSON_WORDS: usize = 30;
/// Real words of unlocked letters needed before lessons use real words.
pub const ENOUGH_REAL_WORDS: usize = 30;
/// How much likelier a word, or a letter in a pseudo-word, is when it is the focus.
pub const FOCUS_WEIGHT: u64 = 3;
/// How many letters a pseudo-word has.
const PSEUDO_WORD_LETTERS: std::ops::RangeInclusive<usize> = 3..=8;
/// Pseudo-words drawn, at most, to find one with the focus letter.
const FOCUS_TRIES: usize = 4;

const LETTERS: usize = 26;
/// The model's word boundary, after the 26 letters.
const BOUNDARY: usize = LETTERS;
const SYMBOLS: usize = LETTERS + 1;

/// The letter model and real words a course of lessons is drawn from, built from a
/// word list (only its words of lowercase ASCII letters are used).
#[derive(Debug, Clone)]
pub struct Course {
    /// The letters in the list, most frequent first (ties alphabetical).
    order: Vec<char>,
    /// Counts of (two symbols before, symbol) over the words, with boundaries.
    trigrams: Vec<u32>,
    bigrams: Vec<u32>,
    unigrams: [u32; SYMBOLS],
    words: Vec<Vec<usize>>,
}

/// One lesson: what to type, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lesson {
    pub prompt: Prompt,
    /// The weakest unlocked letter, which the lesson stresses.
    pub focus: char,
    /// The unlocked letters, in unlocking order: the lesson uses nothing else.
    pub letters: Vec<char>,
}

fn index(letter: u8) -> usize {
    usize::from(letter - b'a')
}

fn letter(index: usize) -> char {
    char::from(b'a' + index as u8)
}

impl Course {
    /// Builds the letter model from `words`.
    pub fn new(words: &WordList) -> Course {
        let words: Vec<Vec<usize>> = words
            .words()
            .iter()
            .filter(|w| w.bytes().all(|b| b.is_ascii_lowercase()))
            .map(|w| w.bytes().map(index).collect())
            .collect();
        let mut trigrams = vec![0u32; SYMBOLS * SYMBOLS * SYMBOLS];
        let mut bigrams = vec![0u32; SYMBOLS * SYMBOLS];
        let mut unigrams = [0u32; SYMBOLS];
        for word in &words {
            let (mut a, mut b) = (BOUNDARY, BOUNDARY);
            for &c in word.iter().chain([BOUNDARY].iter()) {
                trigrams[(a * SYMBOLS + b) * SYMBOLS + c] += 1;
                bigrams[b * SYMBOLS + c] += 1;
                unigrams[c] += 1;
                (a, b) = (b, c);
            }
        }
        let mut order: Vec<usize> = (0..LETTERS).filter(|&l| unigrams[l] > 0).collect();
        order.sort_by_key(|&l| (std::cmp::Reverse(unigrams[l]), l));
        Course {
            order: order.into_iter().map(letter).collect(),
            trigrams,
            bigrams,
            unigrams,
            words,
        }
    }

    /// Every letter the list uses, in unlocking order.
    pub fn order(&self) -> &[char] {
        &self.order
    }

    /// The letters `stats` has unlocked, in unlocking order.
    pub fn unlocked(&self, stats: &UnitStats) -> &[char] {
        &self.order[..stats.letters_unlocked.min(self.order.len())]
    }

    /// Unlocks letters while every unlocked one is at the target. Never locks one.
    pub(crate) fn unlock(&self, stats: &mut UnitStats, target: Target) {
        let mut count = stats.letters_unlocked.min(self.order.len());
        while count < self.order.len()
            && self.order[..count]
                .iter()
                .all(|&l| stats.letter_confidence(l, target).is_some_and(|c| c >= 1.0))
        {
            count += 1;
        }
        stats.letters_unlocked = stats.letters_unlocked.max(count);
    }

    /// The weakest unlocked letter: the lowest confidence, a letter never timed lowest
    /// of all, the more frequent letter on a tie.
    pub fn focus(&self, stats: &UnitStats, target: Target) -> char {
        let confidence = |l: char| stats.letter_confidence(l, target).unwrap_or(0.0);
        let mut unlocked = self.unlocked(stats).iter().copied();
        let first = unlocked.next().expect("a course has letters");
        unlocked.fold(first, |weakest, l| {
            if confidence(l) < confidence(weakest) {
                l
            } else {
                weakest
            }
        })
    }

    /// The lesson for `stats` at `target`, drawn from `seed`: the same arguments
    /// always give the same lesson.
    pub fn lesson(&self, stats: &UnitStats, target: Target, seed: u64) -> Lesson {
        let letters = self.unlocked(stats).to_vec();
        let focus = self.focus(stats, target);
        let mut allowed = [false; LETTERS];
        for &l in &letters {
            allowed[index(l as u8)] = true;
        }
        let focus_index = index(focus as u8);
        let real: Vec<&[usize]> = self
            .words
            .iter()
            .filter(|w| w.len() >= 2 && w.iter().all(|&l| allowed[l]))
            .map(Vec::as_slice)
            .collect();
        let use_real = real.len() >= ENOUGH_REAL_WORDS;
        // Each real word's weight, summed up to it: one draw is a binary search.
        let cumulative: Vec<u64> = real
            .iter()
            .scan(0, |sum, w| {
                *sum += if w.contains(&focus_index) {
                    FOCUS_WEIGHT
                } else {
                    1
                };
                Some(*sum)
            })
            .collect();
        let mut rng = SplitMix64::new(seed);
        let mut words: Vec<String> = Vec::with_capacity(LESSON_WORDS);
        while words.len() < LESSON_WORDS {
            let word = if use_real && rng.below(2) == 0 {
                let pick = rng.below(*cumulative.last().expect("enough real words") as usize);
                let index = cumulative.partition_point(|&sum| sum <= pick as u64);
                real[index].iter().map(|&l| letter(l)).collect()
            } else {
                self.pseudo_word_with_focus(&allowed, focus_index, &mut rng)
            };
            if words.last() != Some(&word) {
                words.push(word);
            }
        }
        Lesson {
            prompt: Prompt::new(&words.join(" ")).expect("a lesson has words"),
            focus,
            letters,
        }
    }

    fn pseudo_word_with_focus(
        &self,
        allowed: &[bool; LETTERS],
        focus: usize,
        rng: &mut SplitMix64,
    ) -> String {
        let mut word = self.pseudo_word(allowed, focus, rng);
        for _ in 1..FOCUS_TRIES {
            if word.contains(&focus) {
                break;
            }
            word = self.pseudo_word(allowed, focus, rng);
        }
        word.into_iter().map(letter).collect()
    }

    /// A word from the trigram model over the allowed letters, falling back to bigrams
    /// and then single letters where the model has nothing allowed to say.
    fn pseudo_word(
        &self,
        allowed: &[bool; LETTERS],
        focus: usize,
        rng: &mut SplitMix64,
    ) -> Vec<usize> {
        let mut word = Vec::with_capacity(*PSEUDO_WORD_LETTERS.end());
        let (mut a, mut b) = (BOUNDARY, BOUNDARY);
        while word.len() < *PSEUDO_WORD_LETTERS.end() {
            let may_end = word.len() >= *PSEUDO_WORD_LETTERS.start();
            let next = self.next_symbol(a, b, allowed, focus, may_end, rng);
            if next == BOUNDARY {
                break;
            }
            word.push(next);
            (a, b) = (b, next);
        }
        word
    }

    fn next_symbol(
        &self,
        a: usize,
        b: usize,
        allowed: &[bool; LETTERS],
        focus: usize,
        may_end: bool,
        rng: &mut SplitMix64,
    ) -> usize {
        let tables: [&[u32]; 3] = [
            &self.trigrams[(a * SYMBOLS + b) * SYMBOLS..][..SYMBOLS],
            &self.bigrams[b * SYMBOLS..][..SYMBOLS],
            &self.unigrams,
        ];
        for counts in tables {
            let weight = |symbol: usize| -> u64 {
                let ok = if symbol == BOUNDARY {
                    may_end
                } else {
                    allowed[symbol]
                };
                let focus_factor = if symbol == focus { FOCUS_WEIGHT } else { 1 };
                if ok {
                    u64::from(counts[symbol]) * focus_factor
                } else {
                    0
                }
            };
            let total: u64 = (0..SYMBOLS).map(weight).sum();
            if total == 0 {
                continue;
            }
            let mut pick = rng.below(total as usize) as u64;
            for symbol in 0..SYMBOLS {
                if pick < weight(symbol) {
                    return symbol;
                }
                pick -= weight(symbol);
            }
        }
        unreachable!(
            "every allowed letter occurs in the list, so single letters always have weight"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::mode::{Language, Mode};
    use crate::practice::stats::{STARTING_LETTERS, UnitRecord};
    use crate::verify::simulate::{Typist, play_prompt};

    fn course() -> &'static Course {
        &crate::practice::Course::shipped().english
    }

    /// A record of a letter typed in `ms` on average.
    fn timed(ms: u64) -> UnitRecord {
        UnitRecord {
            smoothed_us: ms * 1_000,
            samples: 1,
            ..UnitRecord::default()
        }
    }

    /// Stats with the first `unlocked` letters timed at `ms` each.
    fn progress(unlocked: usize, ms: u64) -> UnitStats {
        let mut stats = UnitStats {
            letters_unlocked: unlocked,
            ..UnitStats::default()
        };
        for &l in &course().order()[..unlocked] {
            stats.english.insert(l, timed(ms));
        }
        stats
    }

    #[test]
    fn letters_unlock_in_the_frequency_order_of_the_shipped_list() {
        assert_eq!(
            course().order().iter().collect::<String>(),
            "eratoinslcpduhmgfbywvkxjzq"
        );
        let stats = UnitStats::default();
        assert_eq!(course().unlocked(&stats), ['e', 'r', 'a', 't', 'o', 'i']);
    }

    #[test]
    fn a_fixed_seed_and_progress_give_the_golden_lesson() {
        let mut stats = progress(8, 250);
        stats.english.insert('t', timed(600));
        let lesson = course().lesson(&stats, Target::default(), 42);
        assert_eq!(lesson.focus, 't');
        assert_eq!(lesson.letters, ['e', 'r', 'a', 't', 'o', 'i', 'n', 's']);
        assert_eq!(
            lesson.prompt.as_str(),
            "noster teete astaist trit as stone roast nation teart insist noise tear stait \
             noon ter ent start note its ton ate stairs store tainiter too onion test tree \
             tientane tote"
        );
        assert_eq!(course().lesson(&stats, Target::default(), 42), lesson);
        assert_ne!(
            course().lesson(&stats, Target::default(), 43).prompt,
            lesson.prompt
        );
    }

    #[test]
    fn lessons_use_unlocked_letters_only_and_stress_the_focus() {
        for unlocked in [STARTING_LETTERS, 7, 10, 16, 26] {
            let mut stats = progress(unlocked, 200);
            let slow = course().order()[unlocked / 2];
            stats.english.insert(slow, timed(500));
            assert_eq!(course().focus(&stats, Target::default()), slow);
            let mut with_focus = 0;
            let mut words = 0;
            for seed in 0..50 {
                let lesson = course().lesson(&stats, Target::default(), seed);
                assert_eq!(lesson.focus, slow);
                for word in lesson.prompt.as_str().split(' ') {
                    assert!(
                        word.chars().all(|c| lesson.letters.contains(&c)),
                        "{unlocked}: {word}"
                    );
                    words += 1;
                    with_focus += usize::from(word.contains(slow));
                }
                assert_eq!(lesson.prompt.as_str().split(' ').count(), LESSON_WORDS);
            }
            // Most words carry the focus letter, whatever its own frequency: it is
            // FOCUS_WEIGHT times as likely.
            assert!(
                with_focus * 2 > words,
                "{unlocked} letters, focus {slow}: {with_focus}/{words}"
            );
        }
    }

    #[test]
    fn the_focus_is_the_weakest_letter_and_one_never_timed_comes_first() {
        let mut stats = progress(7, 200);
        let order = course().order();
        stats.english.insert(order[2], timed(300));
        stats.english.insert(order[5], timed(400));
        assert_eq!(course().focus(&stats, Target::default()), order[5]);
        stats.english.remove(&order[4]);
        assert_eq!(course().focus(&stats, Target::default()), order[4]);
        // All equal: the most frequent.
        assert_eq!(
            course().focus(&progress(7, 200), Target::default()),
            order[0]
        );
    }

    #[test]
    fn few_real_words_give_pseudo_words_of_the_model() {
        let words = WordList::parse("abc\nbca\ncab\nacb\nBad").unwrap();
        let tiny = Course::new(&words);
        assert_eq!(tiny.order(), ['a', 'b', 'c']);
        let lesson = tiny.lesson(&UnitStats::default(), Target::default(), 7);
        let real = ["abc", "bca", "cab", "acb"];
        assert!(real.len() < ENOUGH_REAL_WORDS);
        for word in lesson.prompt.as_str().split(' ') {
            assert!(PSEUDO_WORD_LETTERS.contains(&word.len()), "{word}");
            assert!(word.chars().all(|c| "abc".contains(c)), "{word}");
        }
        // Pseudo-words, not only the four real ones: the model strings them on.
        assert!(
            lesson
                .prompt
                .as_str()
                .split(' ')
                .any(|w| !real.contains(&w))
        );
    }

    /// Plays each lesson through a session the way the page does, and folds it in.
    fn practise(stats: &mut UnitStats, key_ms: f64, seed: u64) {
        let lesson = course().lesson(stats, Target::default(), seed);
        let session = play_prompt(Mode::Words, &lesson.prompt, &Typist::metronome(key_ms));
        crate::practice::Course::shipped().add_game(
            stats,
            Mode::Words,
            &lesson.prompt,
            &session.input_log(),
            Target::default(),
        );
    }

    #[test]
    fn letters_unlock_one_by_one_at_the_target_and_never_lock_again() {
        let mut stats = UnitStats::default();
        let target_ms = Target::default().unit_us(Language::English) / 1_000.0;
        // 100 ms a key is 120 WPM: every letter typed reaches the target in one game.
        for game in 0..5u64 {
            practise(&mut stats, 100.0, game);
            assert_eq!(stats.letters_unlocked, STARTING_LETTERS + 1 + game as usize);
        }
        let unlocked = course().unlocked(&stats).to_vec();
        // Much slower games drag every letter below the target, and unlock nothing more.
        for game in 0..6 {
            practise(&mut stats, target_ms * 4.0, 100 + game);
            assert_eq!(course().unlocked(&stats), unlocked);
        }
        assert!(
            unlocked
                .iter()
                .all(|&l| stats.letter_confidence(l, Target::default()).unwrap() < 1.0)
        );
        // And a lower target unlocks again from there.
        let easy = Target {
            wpm: 5,
            ..Target::default()
        };
        course().unlock(&mut stats, easy);
        assert_eq!(stats.letters_unlocked, unlocked.len() + 1);
    }
}
