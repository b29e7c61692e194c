//! The replay player's pure parts, tested natively: the prompt of one frame as runs of
//! characters in one state, the player's clock, and the code in a `/r/<code>` path.

use keydo_core::CharState;
use keydo_core::game::playback::Frame;
use keydo_core::game::result_line::is_code;

/// How a run of the prompt is drawn, as during the game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunKind {
    Correct,
    Incorrect,
    /// Not typed yet.
    Pending,
}

impl RunKind {
    /// The CSS class of its characters.
    pub fn class(self) -> &'static str {
        match self {
            RunKind::Correct => "correct",
            RunKind::Incorrect => "incorrect",
            RunKind::Pending => "pending",
        }
    }
}

/// Consecutive prompt characters in one state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    pub kind: RunKind,
    pub text: String,
}

/// The prompt `target` as `frame` shows it, split at the caret: the runs before it
/// (typed) and after it (pending). Runs, not characters, so a frame of a long text is a
/// few elements whatever its length. A character typed past the prompt's end (never
/// kept by the game) is not drawn.
pub fn frame_runs(target: &[char], frame: &Frame) -> (Vec<Run>, Vec<Run>) {
    let mut typed: Vec<Run> = Vec::new();
    for (expected, state) in target.iter().zip(&frame.states) {
        let kind = match state {
            CharState::Correct => RunKind::Correct,
            _ => RunKind::Incorrect,
        };
        match typed.last_mut() {
            Some(run) if run.kind == kind => run.text.push(*expected),
            _ => typed.push(Run {
                kind,
                text: expected.to_string(),
            }),
        }
    }
    let rest: String = target
        .get(frame.caret.min(target.len())..)
        .unwrap_or_default()
        .iter()
        .collect();
    let pending = if rest.is_empty() {
        Vec::new()
    } else {
        vec![Run {
            kind: RunKind::Pending,
            text: rest,
        }]
    };
    (typed, pending)
}

/// The playback rates the player offers, as (label, rate).
pub const RATES: [(&str, f64); 3] = [("0.5×", 0.5), ("1×", 1.0), ("2×", 2.0)];

/// The player's position after `real_ms` of wall time at `rate` from `position`, and
/// whether it reached the game's end (`duration_ms`), where it stops.
pub fn advance(position: u64, real_ms: f64, rate: f64, duration_ms: u64) -> (u64, bool) {
    let next = position as f64 + (real_ms * rate).max(0.0);
    if next >= duration_ms as f64 {
        (duration_ms, true)
    } else {
        (next as u64, false)
    }
}

/// `m:ss.s`, the player's clock.
pub fn clock(ms: u64) -> String {
    let tenths = ms / 100;
    format!("{}:{:02}.{}", tenths / 600, tenths % 600 / 10, tenths % 10)
}

/// The verification code a page path opens the replay of: `/r/<code>` (a trailing
/// slash allowed, letters in either case), `None` for any other path.
pub fn replay_code(path: &str) -> Option<String> {
    let code = path.strip_prefix("/r/")?;
    let code = code.strip_suffix('/').unwrap_or(code).to_ascii_uppercase();
    is_code(&code).then_some(code)
}

#[cfg(test)]
mod tests {
    use super::*;
    use keydo_core::game::playback::Playback;
    use keydo_core::{Edit, Mode, Prompt, Session};

    #[test]
    fn a_frame_is_runs_of_its_states_then_the_pending_rest() {
        let prompt = Prompt::new("the cat sat").unwrap();
        let mut session = Session::new(Mode::Quote, &prompt);
        let mut at = 0;
        for text in ["t", "h", "x", " ", "c", "a", "t", " ", "s", "a", "t"] {
            session.apply(Edit::Commit(text.into()), at);
            at += 150;
        }
        let playback = Playback::new(Mode::Quote, &prompt, &session.input_log()).unwrap();
        let target: Vec<char> = prompt.as_str().chars().collect();

        // After "thx " (the fourth key at 450 ms).
        let (typed, pending) = frame_runs(&target, &playback.state_at(450));
        let kinds: Vec<(RunKind, &str)> = typed.iter().map(|r| (r.kind, r.text.as_str())).collect();
        assert_eq!(
            kinds,
            [
                (RunKind::Correct, "th"),
                (RunKind::Incorrect, "e"),
                (RunKind::Correct, " ")
            ]
        );
        assert_eq!(
            pending,
            [Run {
                kind: RunKind::Pending,
                text: "cat sat".into()
            }]
        );

        // The end: every character drawn once, nothing pending.
        let last = playback.state_at(playback.duration_ms());
        assert_eq!(last.typed, "thx cat sat");
        let (typed, pending) = frame_runs(&target, &last);
        assert!(pending.is_empty());
        let drawn: String = typed.iter().map(|r| r.text.as_str()).collect();
        assert_eq!(drawn, "the cat sat");

        // Before the first key: all pending.
        let (typed, pending) = frame_runs(
            &target,
            &Frame {
                typed: String::new(),
                states: Vec::new(),
                caret: 0,
                composing: None,
            },
        );
        assert!(typed.is_empty());
        assert_eq!(pending[0].text, "the cat sat");
    }

    #[test]
    fn the_clock_moves_at_the_rate_and_stops_at_the_end() {
        assert_eq!(advance(1_000, 100.0, 1.0, 5_000), (1_100, false));
        assert_eq!(advance(1_000, 100.0, 0.5, 5_000), (1_050, false));
        assert_eq!(advance(1_000, 100.0, 2.0, 5_000), (1_200, false));
        assert_eq!(advance(4_950, 100.0, 1.0, 5_000), (5_000, true));
        assert_eq!(advance(5_000, 0.0, 1.0, 5_000), (5_000, true));
        // A clock that went backwards does not rewind.
        assert_eq!(advance(1_000, -50.0, 1.0, 5_000), (1_000, false));
        assert_eq!(clock(0), "0:00.0");
        assert_eq!(clock(83_456), "1:23.4");
    }

    #[test]
    fn only_a_replay_path_names_a_code() {
        assert_eq!(replay_code("/r/ABC234").as_deref(), Some("ABC234"));
        assert_eq!(replay_code("/r/abc234/").as_deref(), Some("ABC234"));
        assert_eq!(replay_code("/"), None);
        assert_eq!(replay_code("/r/"), None);
        assert_eq!(replay_code("/r/ABC23"), None);
        // 0, 1, I and O are not in codes.
        assert_eq!(replay_code("/r/ABC230"), None);
        assert_eq!(replay_code("/r/ABC234/x"), None);
        assert_eq!(replay_code("/t/ABC234"), None);
    }
}
