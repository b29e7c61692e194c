//! Playback frames: what the board looked like at any moment of a recorded game, for a
//! player that plays it back key by key, pauses, changes speed and seeks
//! (docs/replay.md, "Playback").
//!
//! [`Playback::new`] replays the input log once through a [`Session`], as the server
//! does, and keeps each edit's change to the typed text; [`Playback::state_at`] rebuilds
//! the frame at any time from the nearest checkpoint, so seeking costs at most
//! [`CHECKPOINT_EVERY`] edits and one copy of the text, wherever the player jumps.

use crate::game::input_log::{InputLog, LoggedEdit};
use crate::game::options::Test;
use crate::game::prompt::Prompt;
use crate::game::typing::{CharState, Session};
use crate::verify::replay::ReplayError;

/// How many edits apart the stored copies of the typed text are.
pub const CHECKPOINT_EVERY: usize = 64;

/// The board at one moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// The text typed so far.
    pub typed: String,
    /// The state of each typed character ([`CharState::Correct`] or
    /// [`CharState::Incorrect`]); the prompt's other characters are pending.
    pub states: Vec<CharState>,
    /// Where the next character lands, in characters.
    pub caret: usize,
    /// While an IME composition is open: the text it goes on to commit (empty if it
    /// commits nothing). The log keeps no text shown inside a composition
    /// (docs/replay.md), so the player shows where it is heading.
    pub composing: Option<String>,
}

/// One edit's change: keep the first `keep` characters, then append `append`.
#[derive(Debug, Clone)]
struct Change {
    at: u64,
    keep: usize,
    append: Vec<char>,
    /// The composition open after this edit.
    composing: Option<String>,
}

/// A recorded game, ready to be shown at any moment.
#[derive(Debug, Clone)]
pub struct Playback {
    target: Vec<char>,
    changes: Vec<Change>,
    /// The typed text before change `k × CHECKPOINT_EVERY`.
    checkpoints: Vec<Vec<char>>,
    duration_ms: u64,
}

impl Playback {
    /// Replays `log` on `prompt` in `mode`. Refuses what the server's replay refuses:
    /// an unreadable log, one the session would not have recorded, an unfinished game.
    pub fn new(
        test: impl Into<Test>,
        prompt: &Prompt,
        log: &InputLog,
    ) -> Result<Playback, ReplayError> {
        let test = test.into();
        let mode = test.mode;
        let mut session = Session::new(test, prompt);
        let mut changes: Vec<Change> = Vec::new();
        let mut checkpoints = Vec::new();
        let mut composing: Option<String> = None;
        // The changes made while the open composition was, to learn its text at its end.
        let mut composing_from = 0;
        let mut last_at = 0;
        let mut start = None;
        for entry in log.entries() {
            let entry = entry?;
            last_at = entry.at;
            if changes.len().is_multiple_of(CHECKPOINT_EVERY) {
                checkpoints.push(session.typed().to_vec());
            }
            let before = session.caret();
            let finished_before = session.is_finished();
            session.apply_logged(entry.at, entry.edit);
            if start.is_none() && session.is_started() {
                start = Some(entry.at);
            }
            if !finished_before {
                match entry.edit {
                    LoggedEdit::CompositionStart => {
                        composing = Some(String::new());
                        composing_from = changes.len();
                    }
                    LoggedEdit::CompositionEnd { text, .. } => {
                        if composing.take().is_some() {
                            for change in &mut changes[composing_from..] {
                                change.composing = Some(text.to_owned());
                            }
                        }
                    }
                    LoggedEdit::Commit(_) | LoggedEdit::Backspace | LoggedEdit::DeleteWord => {}
                }
            }
            let after = session.caret();
            changes.push(Change {
                at: entry.at,
                keep: before.min(after),
                append: session.typed()[before.min(after)..after].to_vec(),
                composing: composing.clone(),
            });
        }
        if session.input_log() != *log {
            return Err(ReplayError::NotAsRecorded);
        }
        session.run_out(last_at);
        if session.result().is_none() {
            return Err(ReplayError::Unfinished { mode });
        }
        // The log's time 0 is its first edit, which started the game unless it was a
        // deletion.
        let start = start.expect("a finished game has started");
        Ok(Playback {
            target: session.target().to_vec(),
            changes,
            checkpoints,
            duration_ms: start + session.elapsed_ms(),
        })
    }

    /// When the game ended, in ms since the log's first edit: the player's timeline
    /// runs from 0 to here.
    pub fn duration_ms(&self) -> u64 {
        self.duration_ms
    }

    /// The board after every edit made at or before `ms` (since the log's first edit).
    pub fn state_at(&self, ms: u64) -> Frame {
        let applied = self.changes.partition_point(|change| change.at <= ms);
        // After the last edit there is no copy ahead: the one before serves.
        let checkpoint = (applied / CHECKPOINT_EVERY).min(self.checkpoints.len().saturating_sub(1));
        let mut typed = self
            .checkpoints
            .get(checkpoint)
            .cloned()
            .unwrap_or_default();
        for change in &self.changes[checkpoint * CHECKPOINT_EVERY..applied] {
            typed.truncate(change.keep);
            typed.extend_from_slice(&change.append);
        }
        let states = typed
            .iter()
            .zip(&self.target)
            .map(|(typed, expected)| {
                if typed == expected {
                    CharState::Correct
                } else {
                    CharState::Incorrect
                }
            })
            .collect();
        Frame {
            caret: typed.len(),
            typed: typed.into_iter().collect(),
            states,
            composing: applied
                .checked_sub(1)
                .and_then(|last| self.changes[last].composing.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::mode::Mode;
    use crate::game::typing::tests::random_edit;
    use proptest::prelude::*;

    #[test]
    fn frames_follow_the_game_and_show_where_a_composition_heads() {
        let prompt = Prompt::new("学而时习之").unwrap();
        let mut session = Session::new(Mode::Zh, &prompt);
        session.backspace(500); // Before the game: time 0 of the log, not of the game.
        session.composition_start(1_000);
        session.composition_update("xue");
        session.composition_end("学儿", 1_400);
        session.backspace(1_600);
        session.composition_start(1_800);
        session.composition_update("er");
        session.composition_end("而时习之", 2_500);
        let playback = Playback::new(Mode::Zh, &prompt, &session.input_log()).unwrap();
        assert_eq!(playback.duration_ms(), 2_000, "1.5 s of game, 0.5 s in");

        let at = |ms| playback.state_at(ms);
        assert_eq!(at(0).caret, 0);
        assert_eq!(at(499).composing, None);
        assert_eq!(at(500).composing.as_deref(), Some("学儿"));
        assert_eq!(at(900).typed, "学儿");
        assert_eq!(at(900).states, [CharState::Correct, CharState::Incorrect]);
        assert_eq!(at(900).composing, None);
        assert_eq!(at(1_100).typed, "学");
        assert_eq!(at(1_300).composing.as_deref(), Some("而时习之"));
        let end = at(playback.duration_ms());
        assert_eq!(end.typed, "学而时习之");
        assert_eq!(end.composing, None);
        assert_eq!(end, at(u64::MAX));
    }

    #[test]
    fn the_last_frame_of_a_game_of_whole_checkpoints_is_its_text() {
        let text = "a".repeat(2 * CHECKPOINT_EVERY);
        let prompt = Prompt::new(&text).unwrap();
        let mut session = Session::new(Mode::Quote, &prompt);
        for i in 0..text.len() {
            session.commit("a", i as u64 * 100);
        }
        let playback = Playback::new(Mode::Quote, &prompt, &session.input_log()).unwrap();
        assert_eq!(playback.state_at(playback.duration_ms()).typed, text);
        let at = CHECKPOINT_EVERY as u64 * 100;
        assert_eq!(playback.state_at(at - 1).caret, CHECKPOINT_EVERY);
        assert_eq!(playback.state_at(at).caret, CHECKPOINT_EVERY + 1);
    }

    #[test]
    fn an_unfinished_game_has_no_playback() {
        let prompt = Prompt::new("ab").unwrap();
        let mut session = Session::new(Mode::Quote, &prompt);
        session.commit("a", 0);
        assert_eq!(
            Playback::new(Mode::Quote, &prompt, &session.input_log()).unwrap_err(),
            ReplayError::Unfinished { mode: Mode::Quote }
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Seeking anywhere shows what replaying the log from its start up to then
        /// shows, and the last frame is the game's final text.
        #[test]
        fn seeking_equals_replaying_from_the_start(
            mode in proptest::sample::select(Mode::ALL.to_vec()),
            edits in proptest::collection::vec(random_edit(400), 0..200),
            seeks in proptest::collection::vec(0..1_000u64, 1..12),
        ) {
            let prompt = Prompt::new("ab ba 学 ab").unwrap();
            let mut session = Session::new(mode, &prompt);
            let mut now = 0;
            for (gap, edit) in edits {
                now += gap;
                session.apply(edit, now);
            }
            // Finish the game: type the rest of the prompt, or let the clock run out.
            let rest: String = session.target()[session.caret()..].iter().collect();
            session.commit(&rest, now + 1);
            session.tick(now + 61_000);
            let log = session.input_log();
            if session.result().is_none() {
                // A `time` game whose clock ran out on an open composition, nothing typed.
                prop_assert_eq!(
                    Playback::new(mode, &prompt, &log).unwrap_err(),
                    ReplayError::Unfinished { mode }
                );
                return Ok(());
            }
            let playback = Playback::new(mode, &prompt, &log).unwrap();
            let fin = playback.state_at(playback.duration_ms());
            prop_assert_eq!(fin.typed.chars().collect::<Vec<_>>(), session.typed());
            let span = log.entries().last().map_or(0, |e| e.unwrap().at);
            for seek in seeks {
                let ms = seek * (span + 1) / 1_000;
                let mut fresh = Session::new(mode, &prompt);
                for entry in log.entries() {
                    let entry = entry.unwrap();
                    if entry.at > ms {
                        break;
                    }
                    fresh.apply_logged(entry.at, entry.edit);
                }
                let frame = playback.state_at(ms);
                prop_assert_eq!(frame.typed.chars().collect::<Vec<_>>(), fresh.typed());
                prop_assert_eq!(frame.caret, fresh.caret());
                let states: Vec<_> = (0..fresh.caret()).map(|i| fresh.char_state(i)).collect();
                prop_assert_eq!(frame.states, states);
            }
        }
    }
}
