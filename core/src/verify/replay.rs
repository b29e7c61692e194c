//! Replaying an input log through a fresh [`Session`]: the server's way of knowing
//! what a game really scored (docs/replay.md).
//!
//! The replayed session records its own log as it goes; the submitted log must be
//! byte for byte what it records. So a log is accepted only in the form the page's
//! session writes it: nothing after the game's end, no edit the game ignored, no
//! second encoding of the same edits.

use crate::game::input_log::{InputLog, LogError, LoggedEdit};
use crate::game::mode::Mode;
use crate::game::options::Test;
use crate::game::prompt::Prompt;
use crate::game::score::{self, Stats};
use crate::game::typing::Session;
use std::fmt;

/// What a replay found.
#[derive(Debug, Clone, PartialEq)]
pub struct Replayed {
    pub stats: Stats,
    pub value: i64,
    pub timing: Timing,
}

/// The timing of a game, as the review rules read it ([`crate::verify::review`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Timing {
    /// When each key was pressed, in ms since the log's start, in order. In the English
    /// modes every committed character is a key (a multi-character commit is that many
    /// keys at one instant); in `zh` every commit is one (an IME commits whole phrases).
    /// Deletions are keys in every mode.
    pub key_times: Vec<u64>,
    /// Every edit that put text in, in order: a typed character, a multi-character
    /// commit or an IME composition's commit. The rules read their rhythm and sizes
    /// here, where a commit of many characters is one event.
    pub commits: Vec<Commit>,
    /// Keys pressed inside IME compositions, and the time those compositions lasted
    /// (a composition's end without a start lasted no time).
    pub composition_keys: u64,
    pub composition_ms: u64,
}

/// One edit that put text in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Commit {
    /// When, in ms since the log's start.
    pub at: u64,
    /// How many characters (字 in `zh`) it put in.
    pub chars: u32,
    /// For an IME composition's commit: the keys pressed inside the composition.
    pub composition_keys: Option<u32>,
}

impl Timing {
    fn note(
        &mut self,
        mode: Mode,
        at: u64,
        edit: LoggedEdit<'_>,
        composing_since: &mut Option<u64>,
    ) {
        let (keys, commit) = match edit {
            LoggedEdit::Commit(text) => (committed_keys(mode, text), Some((text, None))),
            LoggedEdit::Backspace | LoggedEdit::DeleteWord => (1, None),
            LoggedEdit::CompositionStart => {
                *composing_since = Some(at);
                (0, None)
            }
            LoggedEdit::CompositionEnd { text, keys } => {
                // Counted even without a start: a log that leaves the start out must
                // not leave its keys out of the IME rules.
                let since = composing_since.take().unwrap_or(at);
                self.composition_ms += at - since;
                self.composition_keys += u64::from(keys);
                (committed_keys(mode, text), Some((text, Some(keys))))
            }
        };
        self.key_times.extend(std::iter::repeat_n(at, keys));
        if let Some((text, composition_keys)) = commit.filter(|(text, _)| !text.is_empty()) {
            self.commits.push(Commit {
                at,
                chars: u32::try_from(text.chars().count()).unwrap_or(u32::MAX),
                composition_keys,
            });
        }
    }
}

fn committed_keys(mode: Mode, text: &str) -> usize {
    match mode {
        Mode::Zh => usize::from(!text.is_empty()),
        Mode::Time | Mode::Words | Mode::Quote => text.chars().count(),
    }
}

/// Plays `log` on `prompt` in `test` (a mode, for its public test) and scores the
/// result.
pub fn replay(
    test: impl Into<Test>,
    prompt: &Prompt,
    log: &InputLog,
) -> Result<Replayed, ReplayError> {
    let test = test.into();
    let mode = test.mode;
    let (session, timing) = run(test, prompt, log)?;
    let stats = session.result().ok_or(ReplayError::Unfinished { mode })?;
    Ok(Replayed {
        value: score::value(mode, &stats),
        stats,
        timing,
    })
}

/// The session `log` leaves behind (finished, if the log finishes the game): its
/// samples and character states are the page's too.
pub fn replay_session(
    test: impl Into<Test>,
    prompt: &Prompt,
    log: &InputLog,
) -> Result<Session, ReplayError> {
    run(test.into(), prompt, log).map(|(session, _)| session)
}

fn run(test: Test, prompt: &Prompt, log: &InputLog) -> Result<(Session, Timing), ReplayError> {
    let mode = test.mode;
    let mut session = Session::new(test, prompt);
    let mut timing = Timing::default();
    let mut composing_since = None;
    let mut last_at = 0;
    for entry in log.entries() {
        let entry = entry?;
        session.apply_logged(entry.at, entry.edit);
        timing.note(mode, entry.at, entry.edit, &mut composing_since);
        last_at = entry.at;
    }
    if session.input_log() != *log {
        return Err(ReplayError::NotAsRecorded);
    }
    session.run_out(last_at);
    Ok((session, timing))
}

/// Why a log does not replay into a finished game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplayError {
    /// The log cannot be read.
    Unreadable(LogError),
    /// The log holds edits the game would not have recorded (after its end, or encoded
    /// another way).
    NotAsRecorded,
    /// The game did not end: the prompt was not typed to its end (or, in `time`, nothing
    /// was typed).
    Unfinished { mode: Mode },
}

impl From<LogError> for ReplayError {
    fn from(error: LogError) -> Self {
        ReplayError::Unreadable(error)
    }
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::Unreadable(error) => write!(f, "The input log cannot be read: {error}."),
            ReplayError::NotAsRecorded => {
                f.write_str("The input log holds edits the game would not have recorded.")
            }
            ReplayError::Unfinished { mode: Mode::Time } => {
                f.write_str("Nothing was typed in this timed game.")
            }
            ReplayError::Unfinished { .. } => {
                f.write_str("The input log does not type the prompt to its end.")
            }
        }
    }
}

impl std::error::Error for ReplayError {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::input_log::Recorder;
    use crate::game::typing::Edit;

    fn prompt(text: &str) -> Prompt {
        Prompt::new(text).unwrap()
    }

    #[test]
    fn a_replay_scores_what_the_page_scored() {
        let p = prompt("ab cd");
        let mut page = Session::new(Mode::Words, &p);
        for (edit, at) in [
            (Edit::Commit("a".into()), 10_000),
            (Edit::Commit("x".into()), 10_400),
            (Edit::Backspace, 10_700),
            (Edit::Commit("b".into()), 11_000),
            (Edit::Commit(" cd".into()), 14_000),
        ] {
            page.apply(edit, at);
        }
        let replayed = replay(Mode::Words, &p, &page.input_log()).unwrap();
        assert_eq!(Some(replayed.stats), page.result());
        assert_eq!(replayed.value, score::value(Mode::Words, &replayed.stats));
        assert_eq!(
            replayed.timing.key_times,
            [0, 400, 700, 1_000, 4_000, 4_000, 4_000]
        );
    }

    #[test]
    fn compositions_count_their_keys_and_time() {
        let p = prompt("学而时习之");
        let mut page = Session::new(Mode::Zh, &p);
        page.composition_start(1_000);
        for text in ["x", "xu", "xue", "xue er"] {
            page.composition_update(text);
        }
        page.composition_end("学而", 2_500);
        page.composition_start(2_600);
        page.composition_update("s");
        page.composition_end("时习之", 3_600);
        let replayed = replay(Mode::Zh, &p, &page.input_log()).unwrap();
        assert_eq!(Some(replayed.stats), page.result());
        let timing = replayed.timing;
        assert_eq!(timing.key_times, [1_500, 2_600]);
        assert_eq!((timing.composition_keys, timing.composition_ms), (5, 2_500));
        let session = replay_session(Mode::Zh, &p, &page.input_log()).unwrap();
        assert_eq!(session.key_counts(), page.key_counts());
        assert_eq!(
            u64::from(session.key_counts().pressed),
            timing.composition_keys
        );
    }

    #[test]
    fn a_composition_end_without_its_start_still_counts_its_keys() {
        let p = prompt("学而");
        let mut page = Session::new(Mode::Zh, &p);
        for text in ["x", "xu", "xue"] {
            page.composition_update(text);
        }
        page.composition_end("学而", 1_000);
        let timing = replay(Mode::Zh, &p, &page.input_log()).unwrap().timing;
        assert_eq!((timing.composition_keys, timing.composition_ms), (3, 0));
        assert_eq!(
            timing.commits,
            [Commit {
                at: 0,
                chars: 2,
                composition_keys: Some(3)
            }]
        );
    }

    #[test]
    fn a_time_game_ends_sixty_seconds_after_its_first_key() {
        let p = prompt("aa bb cc dd ee ff gg");
        let mut page = Session::new(Mode::Time, &p);
        page.commit("a", 500);
        page.commit("a", 20_000);
        page.tick(61_000);
        let replayed = replay(Mode::Time, &p, &page.input_log()).unwrap();
        assert_eq!(
            replayed.stats.duration_ms,
            crate::game::score::TIME_MODE_DURATION_MS
        );
        assert_eq!(Some(replayed.stats), page.result());
    }

    #[test]
    fn an_unfinished_or_empty_game_is_refused() {
        let p = prompt("abc");
        let mut page = Session::new(Mode::Quote, &p);
        page.commit("ab", 0);
        assert_eq!(
            replay(Mode::Quote, &p, &page.input_log()),
            Err(ReplayError::Unfinished { mode: Mode::Quote })
        );
        let empty = Session::new(Mode::Time, &p).input_log();
        assert_eq!(
            replay(Mode::Time, &p, &empty).unwrap_err().to_string(),
            "Nothing was typed in this timed game."
        );
    }

    #[test]
    fn a_log_the_game_would_not_write_is_refused() {
        let p = prompt("ab");
        // Edits after the end.
        let mut after_end = Recorder::default();
        after_end.record(0, LoggedEdit::Commit("ab"));
        after_end.record(10, LoggedEdit::Commit("c"));
        // One character written as text: the page writes it as a character.
        let mut other_encoding = Recorder::default();
        other_encoding.record(0, LoggedEdit::Commit("a"));
        let mut bytes = other_encoding.log().as_bytes().to_vec();
        bytes.extend([(5 << 3) | 1, 1, b'b']);
        for log in [after_end.log(), InputLog::from_bytes(bytes)] {
            assert_eq!(
                replay(Mode::Words, &p, &log),
                Err(ReplayError::NotAsRecorded)
            );
        }
        assert!(matches!(
            replay(Mode::Words, &p, &InputLog::from_bytes(vec![9])),
            Err(ReplayError::Unreadable(_))
        ));
    }
}
