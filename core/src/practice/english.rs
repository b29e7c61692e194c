//! English lessons that adapt (docs/practice.md, "English lessons").
//!
//! Letters are unlocked in the order of their frequency in the word list, starting
//! with the [`STARTING_LETTERS`] most frequent; the next one unlocks once every
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

/// Letters unlocked before any game.
pub const STARTING_LETTERS: usize = 6;
/// Words in a lesson.
pub const LESSON_WORDS: usize = 30;
/// Real words of unlocked letters needed before lessons use real words.
pub const ENOUGH_REAL_WORDS: usize = 30;
/// How much likelier a word, or a letter in a pseudo-word, is when it is the focus.
pub const FOCUS_WEIGHT: u64 = 3;
/// Pseudo-words are this long at least (unless the model cannot go on) and at most.
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
        let mut rng = SplitMix64::new(seed);
        let mut words: Vec<String> = Vec::with_capacity(LESSON_WORDS);
        while words.len() < LESSON_WORDS {
            let word = if use_real && rng.below(2) == 0 {
                self.real_word(&real, focus_index, &mut rng)
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

    fn real_word(&self, real: &[&[usize]], focus: usize, rng: &mut SplitMix64) -> String {
        let weight = |w: &[usize]| if w.contains(&focus) { FOCUS_WEIGHT } else { 1 };
        let total: u64 = real.iter().map(|w| weight(w)).sum();
        let mut pick = rng.below(total as usize) as u64;
        for word in real {
            if pick < weight(word) {
                return word.iter().map(|&l| letter(l)).collect();
            }
            pick -= weight(word);
        }
        unreachable!("the pick is below the total weight")
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
