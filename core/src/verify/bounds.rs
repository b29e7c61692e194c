//! What a submitted log may hold, whatever it scores (docs/replay.md, "What a log may
//! hold"): a size in proportion to its prompt, checked before anything is replayed, and
//! in `zh` no commit longer than an input method commits at once.
//!
//! Both bounds refuse: a log beyond them is no game a person played, and a refused
//! result costs no storage and no reviewer's time.

use crate::game::mode::{CHARS_PER_WORD, Mode};
use crate::game::options::Test;
use crate::game::prompt::Prompt;
use crate::game::score::MAX_NET_WPM;
use crate::verify::replay::Timing;
use std::fmt;

/// The most log bytes per character a game can type. Simulated typists measure at
/// most 4.7 in the English modes and 11.3 in `zh` (one 字 per composition, a wrong 字
/// and its Backspace every three keys, at 30 WPM); a keystroke costs 2–3 bytes.
pub const MAX_LOG_BYTES_PER_CHAR: usize = 32;
/// Bytes every log may take besides, for the shortest prompts.
pub const LOG_BYTES_ALLOWANCE: usize = 1_024;
/// The most 字 one commit may put in, in `zh`. Shape codes and 顶功 commit a 词 (up
/// to about 8 字); sentence-mode pinyin commits a clause, and the longest clause of the
/// shipped passages has 17 字 (the commit that carries its punctuation, 18).
pub const MAX_ZH_COMMIT_CHARS: u32 = 24;

/// The characters a game of `test` on `prompt` can type: the prompt's, or in `time`
/// what its time limit allows at the hard speed limit, if fewer.
pub fn typable_chars(test: impl Into<Test>, prompt: &Prompt) -> usize {
    let prompt_chars = prompt.as_str().chars().count();
    match test.into().time_limit_ms() {
        Some(limit_ms) => {
            let per_minute = MAX_NET_WPM * u64::from(CHARS_PER_WORD);
            prompt_chars.min((per_minute * limit_ms / 60_000) as usize)
        }
        None => prompt_chars,
    }
}

/// The largest log a game of `test` on `prompt` may send, in bytes.
pub fn max_log_bytes(test: impl Into<Test>, prompt: &Prompt) -> usize {
    typable_chars(test, prompt) * MAX_LOG_BYTES_PER_CHAR + LOG_BYTES_ALLOWANCE
}

/// A log beyond [`max_log_bytes`]. Every entry takes at least a byte, so this bounds
/// the replay's work too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogTooLarge {
    pub bytes: usize,
    pub max: usize,
}

impl fmt::Display for LogTooLarge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "The record of this game's typing is {} bytes, far more than its text needs \
             (at most {}).",
            self.bytes, self.max
        )
    }
}

/// Refuses a log larger than its prompt needs.
pub fn check_log_size(
    test: impl Into<Test>,
    prompt: &Prompt,
    log_bytes: usize,
) -> Result<(), LogTooLarge> {
    let max = max_log_bytes(test, prompt);
    if log_bytes > max {
        return Err(LogTooLarge {
            bytes: log_bytes,
            max,
        });
    }
    Ok(())
}

/// A `zh` commit of more than [`MAX_ZH_COMMIT_CHARS`] 字.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommitTooLong {
    pub chars: u32,
}

impl fmt::Display for CommitTooLong {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "One input put in {} characters at once; an input method commits at most a \
             clause ({MAX_ZH_COMMIT_CHARS}).",
            self.chars
        )
    }
}

/// Refuses a `zh` game with a commit no input method makes.
pub fn check_commits(mode: Mode, timing: &Timing) -> Result<(), CommitTooLong> {
    if mode != Mode::Zh {
        return Ok(());
    }
    match timing
        .commits
        .iter()
        .map(|commit| commit.chars)
        .find(|chars| *chars > MAX_ZH_COMMIT_CHARS)
    {
        Some(chars) => Err(CommitTooLong { chars }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::corpora::Corpora;
    use crate::game::prompt_id::Seed;
    use crate::verify::replay::Commit;
    use crate::verify::simulate::{Typist, play};

    #[test]
    fn a_log_may_be_its_bound_and_not_a_byte_more() {
        let prompt = Prompt::new("学而时习之").unwrap();
        let max = 5 * MAX_LOG_BYTES_PER_CHAR + LOG_BYTES_ALLOWANCE;
        assert_eq!(max_log_bytes(Mode::Zh, &prompt), max);
        assert_eq!(check_log_size(Mode::Zh, &prompt, max), Ok(()));
        let refused = check_log_size(Mode::Zh, &prompt, max + 1).unwrap_err();
        assert_eq!(
            refused,
            LogTooLarge {
                bytes: max + 1,
                max
            }
        );
        assert_eq!(
            refused.to_string(),
            "The record of this game's typing is 1185 bytes, far more than its text needs \
             (at most 1184)."
        );
        // A `time` game types what 60 s allow, not its whole word stream.
        let long = Prompt::new(&"word ".repeat(1_000)).unwrap();
        assert_eq!(typable_chars(Mode::Time, &long), 1_750);
        assert_eq!(
            typable_chars(Mode::Words, &long),
            long.as_str().chars().count()
        );
    }

    /// The bound leaves at least twice the room the most wasteful simulated typist
    /// needs: the slowest, one 字 per composition, a mistake fixed every three keys.
    #[test]
    fn honest_logs_use_under_half_the_bound() {
        let corpora = Corpora::shipped();
        for mode in Mode::ALL {
            for (wpm, zh_chars_per_commit) in [(30, 1), (30, 2), (120, 1), (250, 2)] {
                for seed in 1..=12 {
                    let typist = Typist {
                        mistake_every: 3,
                        zh_chars_per_commit,
                        seed,
                        ..Typist::steady_human(wpm)
                    };
                    let played = play(corpora, mode, Seed::new(seed).unwrap(), &typist);
                    let prompt = corpora.prompt(mode, &played.prompt).unwrap();
                    let bytes = played.session.input_log().as_bytes().len();
                    assert!(
                        bytes * 2 <= max_log_bytes(mode, &prompt),
                        "{mode} at {wpm}: {bytes} bytes of {}",
                        max_log_bytes(mode, &prompt)
                    );
                }
            }
        }
    }

    #[test]
    fn a_zh_commit_may_be_a_clause_not_a_passage() {
        let timing = |chars| Timing {
            commits: vec![Commit {
                at: 0,
                chars,
                composition_keys: Some(0),
            }],
            ..Timing::default()
        };
        let most = timing(MAX_ZH_COMMIT_CHARS);
        assert_eq!(check_commits(Mode::Zh, &most), Ok(()));
        let passage = timing(MAX_ZH_COMMIT_CHARS + 1);
        assert_eq!(
            check_commits(Mode::Zh, &passage),
            Err(CommitTooLong { chars: 25 })
        );
        assert_eq!(
            check_commits(Mode::Words, &passage),
            Ok(()),
            "a paste is a burst"
        );
    }

    /// Every clause of the shipped passages, with the punctuation after it, fits in one
    /// commit: a sentence-mode typist is never refused.
    #[test]
    fn every_shipped_clause_fits_in_a_commit() {
        let longest = Corpora::shipped()
            .zh
            .passages()
            .iter()
            .flat_map(|passage| {
                passage
                    .text
                    .as_str()
                    .split_inclusive(|c: char| !is_han(c))
                    .map(|clause| clause.chars().count())
                    .collect::<Vec<_>>()
            })
            .max()
            .unwrap();
        assert!(
            (2..=MAX_ZH_COMMIT_CHARS as usize).contains(&longest),
            "{longest}"
        );
    }

    fn is_han(c: char) -> bool {
        ('\u{4e00}'..='\u{9fff}').contains(&c)
    }
}
