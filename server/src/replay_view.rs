//! An operator's replay of a held result (docs/replay.md, "Moderation"): its kept input
//! log played again through the game's own session, one line per edit: when it came,
//! the pause before it, what it did, and whether each character it typed was right.
//!
//! The summary is the server's own replay (`keydo_core::verify::replay`), so what the
//! operator reads is what the server judged. Also how the operator's views (`admin`,
//! `admin_page`) write speeds and receipt times.

use crate::store::KeptLog;
use keydo_core::game::corpora::Corpora;
use keydo_core::game::input_log::LoggedEdit;
use keydo_core::game::options::{Test, TestOptions};
use keydo_core::game::score;
use keydo_core::verify::replay::replay;
use keydo_core::{CharState, Corpus, InputLog, Mode, PromptId, Seed, Session};
use std::fmt::Write as _;
use std::time::{Duration, UNIX_EPOCH};

/// Why a kept log cannot be shown (its prompt left the shipped texts, or it is
/// damaged: neither happens to a log the server accepted with this build's texts).
#[derive(Debug, thiserror::Error)]
pub enum ReplayViewError {
    #[error("the result's prompt {0:?} is not one this server knows")]
    UnknownPrompt(String),
    #[error("the kept log does not replay: {0}")]
    Unreadable(String),
}

/// The replay as text: a summary line, a header, then one line per edit.
pub fn render(kept: &KeptLog) -> Result<String, ReplayViewError> {
    let unknown = || ReplayViewError::UnknownPrompt(kept.prompt.clone());
    let prompt_id = prompt_id(kept.mode, &kept.prompt).ok_or_else(unknown)?;
    let prompt = Corpora::shipped()
        .prompt(kept.mode, &prompt_id)
        .map_err(|_| unknown())?;
    let log = InputLog::from_base64(&kept.input)
        .map_err(|error| ReplayViewError::Unreadable(error.to_string()))?;
    let test = Test {
        mode: kept.mode,
        options: prompt_id.options(),
    };
    let replayed = replay(test, &prompt, &log)
        .map_err(|error| ReplayViewError::Unreadable(error.to_string()))?;
    let stats = &replayed.stats;
    let mut text = format!(
        "{} on {}: {} in {:.3} s, accuracy {:.1} %, {} keystrokes, {} errors left\n",
        kept.mode,
        kept.prompt,
        speed(kept.mode, replayed.value),
        stats.duration_ms as f64 / 1_000.0,
        score::accuracy(stats) * 100.0,
        stats.keystrokes,
        stats.errors,
    );
    text.push_str("      time     pause  edit\n");
    let mut session = Session::new(kept.mode, &prompt);
    let mut previous_at = 0;
    for entry in log.entries() {
        let entry = entry.map_err(|error| ReplayViewError::Unreadable(error.to_string()))?;
        let caret = session.caret();
        session.apply_logged(entry.at, entry.edit);
        let typed_marks = || {
            (caret..session.caret())
                .map(|index| match session.char_state(index) {
                    CharState::Correct => '✓',
                    CharState::Incorrect => '✗',
                    CharState::Pending => '·',
                })
                .collect::<String>()
        };
        let edit = match entry.edit {
            LoggedEdit::Commit(typed) => format!("type {typed:?} {}", typed_marks()),
            LoggedEdit::Backspace => "Backspace".to_owned(),
            LoggedEdit::DeleteWord => "delete word".to_owned(),
            LoggedEdit::CompositionStart => "IME composition starts".to_owned(),
            LoggedEdit::CompositionEnd { text, keys } => {
                format!("IME commits {text:?} after {keys} keys {}", typed_marks())
            }
        };
        let _ = writeln!(
            text,
            "{:>8.3} s  {:>+6} ms  {edit}",
            entry.at as f64 / 1_000.0,
            entry.at - previous_at,
        );
        previous_at = entry.at;
    }
    Ok(text)
}

/// A receipt time as RFC 3339, UTC, to the second.
pub fn received(received_at: i64) -> String {
    let received = UNIX_EPOCH + Duration::from_millis(received_at.max(0) as u64);
    humantime::format_rfc3339_seconds(received).to_string()
}

/// A value as the speed it stands for: `212.50 WPM`, `230.00 字/分`.
pub fn speed(mode: Mode, value: i64) -> String {
    format!("{}.{:02} {}", value / 100, value % 100, mode.speed_unit())
}

/// The prompt identity a result stored as text (`words:42`, with options
/// `words:42/30+punctuation`, `quotes:austen-pride`); `None` for a loaded text
/// (`text:<hash>`: its text is in the `texts` table).
pub fn prompt_id(mode: Mode, stored: &str) -> Option<PromptId> {
    let corpus = Corpus::of(mode);
    let rest = stored.strip_prefix(corpus.id())?.strip_prefix(':')?;
    Some(match corpus {
        Corpus::Words => {
            let (seed, options) = match rest.split_once('/') {
                Some((seed, key)) => (seed, TestOptions::parse_key(key)?),
                None => (rest, TestOptions::default()),
            };
            PromptId::Seeded {
                corpus,
                seed: Seed::new(seed.parse().ok()?)?,
                options,
            }
        }
        Corpus::Quotes | Corpus::Zh => PromptId::Passage {
            corpus,
            passage: rest.to_owned(),
        },
        // Never a mode's corpus; a loaded text is not rebuilt from its hash alone.
        Corpus::Text => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use keydo_core::verify::simulate::{Typist, play};

    #[test]
    fn stored_prompt_identities_read_back() {
        for (mode, seed) in [(Mode::Words, 42), (Mode::Quote, 3), (Mode::Zh, 5)] {
            let played = play(
                Corpora::shipped(),
                mode,
                Seed::new(seed).unwrap(),
                &Typist::steady_human(80),
            );
            let id = played.submission(uuid::Uuid::nil(), 0).prompt.unwrap();
            assert_eq!(prompt_id(mode, &id.to_string()), Some(id));
        }
        let thirty = Test {
            mode: Mode::Time,
            options: TestOptions {
                punctuation: true,
                ..TestOptions::default()
            }
            .with_length(Mode::Time, 30),
        };
        let played = play(
            Corpora::shipped(),
            thirty,
            Seed::new(9).unwrap(),
            &Typist::steady_human(80),
        );
        let id = played.submission(uuid::Uuid::nil(), 0).prompt.unwrap();
        assert_eq!(id.to_string(), "words:9/30+punctuation");
        assert_eq!(prompt_id(Mode::Time, &id.to_string()), Some(id));
        assert_eq!(
            prompt_id(Mode::Time, "words:9/45"),
            Some(PromptId::Seeded {
                corpus: Corpus::Words,
                seed: Seed::new(9).unwrap(),
                options: TestOptions {
                    length: Some(45),
                    ..TestOptions::default()
                },
            }),
            "read back as stored; the corpora refuse the length"
        );
        assert_eq!(prompt_id(Mode::Time, "words:9/fast"), None);
        assert_eq!(prompt_id(Mode::Words, "quotes:1"), None);
        assert_eq!(prompt_id(Mode::Words, "words:x"), None);
    }

    #[test]
    fn a_replay_shows_each_edit_with_its_time_and_marks() {
        let played = play(
            Corpora::shipped(),
            Mode::Words,
            Seed::new(7).unwrap(),
            &Typist::steady_human(90),
        );
        let submission = played.submission(uuid::Uuid::nil(), 0);
        let log = submission.input.unwrap();
        let kept = KeptLog {
            mode: Mode::Words,
            prompt: submission.prompt.unwrap().to_string(),
            input: log.to_base64(),
        };
        let text = render(&kept).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[0].starts_with(&format!(
                "words on words:7: {}",
                speed(Mode::Words, submission.value)
            )),
            "{}",
            lines[0]
        );
        assert_eq!(lines.len(), 2 + log.entries().count());
        assert!(lines[2].trim_start().starts_with("0.000 s"), "{}", lines[2]);
        assert!(lines[2].ends_with('✓'), "{}", lines[2]);
        // The simulated person makes a mistake every 40 keys and fixes it.
        assert!(text.contains('✗') && text.contains("Backspace"), "{text}");
        let damaged = KeptLog {
            input: "AQ==".into(),
            ..kept
        };
        assert!(matches!(
            render(&damaged),
            Err(ReplayViewError::Unreadable(_))
        ));
    }
}
