//! Verifying a submitted result: its times, its prompt, its log's size, its replay,
//! its commits, the human limits and the review rules, in that order
//! (docs/replay.md). Pure: the server passes its clock in and stores what comes out; it
//! checks the time against the save's creation ([`check_played_after_save`]) where it
//! reads the save, inside the write.

pub mod bounds;
pub mod replay;
pub mod review;
#[cfg(feature = "simulate")]
pub mod simulate;

use crate::api::week::week_of;
use crate::api::{ApiCode, ScoreSubmission};
use crate::game::corpora::Corpora;
use crate::game::options::Test;
use crate::game::prompt_id::PromptId;
use crate::game::score::{self, Stats};
use replay::ReplayError;
use review::{Hold, Thresholds};

/// How far ahead of the server's clock `playedAt` may be: clocks drift.
pub const MAX_CLOCK_SKEW_MS: i64 = 5 * 60_000;
/// How long before its save a result may have been played: a profile plays offline
/// before its first sync creates the save (docs/replay.md).
pub const OFFLINE_GRACE_MS: i64 = 30 * 24 * 3_600_000;

/// What the checks need besides the submission.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    pub corpora: &'a Corpora,
    pub thresholds: &'a Thresholds,
    /// The server's clock, unix ms.
    pub now_ms: i64,
}

/// A result whose replay holds up.
#[derive(Debug, Clone, PartialEq)]
pub struct Verified {
    pub value: i64,
    pub stats: Stats,
    pub prompt: PromptId,
    /// Why it waits for an operator; empty if it goes straight to the boards.
    pub holds: Vec<Hold>,
}

/// Why a result is refused: a stable code and a sentence for the player.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub code: ApiCode,
    pub message: String,
}

impl Refusal {
    fn new(code: ApiCode, message: impl Into<String>) -> Refusal {
        Refusal {
            code,
            message: message.into(),
        }
    }
}

/// Checks `submission` and recomputes it from its input log.
pub fn verify(submission: &ScoreSubmission, context: &Context<'_>) -> Result<Verified, Refusal> {
    let (Some(prompt_id), Some(log)) = (&submission.prompt, &submission.input) else {
        return Err(Refusal::new(
            ApiCode::InputLogMissing,
            "This result carries no record of its prompt and typing, so it cannot be verified.",
        ));
    };
    check_times(submission, context)?;
    // The options travel in the prompt's identity: the test replayed is the one played.
    let test = Test {
        mode: submission.mode,
        options: prompt_id.options(),
    };
    let prompt = context
        .corpora
        .prompt(submission.mode, prompt_id)
        .map_err(|unknown| Refusal::new(ApiCode::UnknownPrompt, unknown.to_string()))?;
    bounds::check_log_size(test, &prompt, log.as_bytes().len())
        .map_err(|too_large| Refusal::new(ApiCode::InputLogTooLarge, too_large.to_string()))?;
    let replayed = replay::replay(test, &prompt, log).map_err(|error| {
        let code = match error {
            ReplayError::Unfinished { .. } => ApiCode::IncompleteGame,
            ReplayError::Unreadable(_) | ReplayError::NotAsRecorded => ApiCode::InputLogInvalid,
        };
        Refusal::new(code, error.to_string())
    })?;
    bounds::check_commits(submission.mode, &replayed.timing)
        .map_err(|too_long| Refusal::new(ApiCode::CommitTooLong, too_long.to_string()))?;
    if replayed.value != submission.value {
        return Err(Refusal::new(
            ApiCode::ReplayMismatch,
            format!(
                "The result claims {} but replaying its typing scores {}.",
                submission.value, replayed.value
            ),
        ));
    }
    if replayed.stats != submission.stats {
        return Err(Refusal::new(
            ApiCode::ReplayMismatch,
            "The result's statistics differ from what replaying its typing gives.",
        ));
    }
    let value = score::validate(test, &replayed.stats, replayed.value)
        .map_err(|implausible| Refusal::new(implausible.code(), implausible.message()))?;
    Ok(Verified {
        value,
        stats: replayed.stats,
        prompt: prompt_id.clone(),
        holds: review::review(submission.mode, value, &replayed.timing, context.thresholds),
    })
}

fn check_times(submission: &ScoreSubmission, context: &Context<'_>) -> Result<(), Refusal> {
    let future = || {
        Refusal::new(
            ApiCode::PlayedInFuture,
            "This result was played in the future by the server's clock; check the device's clock.",
        )
    };
    let played_at = i64::try_from(submission.played_at).map_err(|_| future())?;
    if submission.week != week_of(played_at) {
        return Err(Refusal::new(
            ApiCode::WrongWeek,
            format!(
                "The result says week {} but was played in week {} (UTC+8).",
                submission.week,
                week_of(played_at)
            ),
        ));
    }
    if played_at > context.now_ms.saturating_add(MAX_CLOCK_SKEW_MS) {
        return Err(future());
    }
    Ok(())
}

/// Refuses a result played more than [`OFFLINE_GRACE_MS`] before its save was created.
pub fn check_played_after_save(played_at: u64, save_created_at_ms: i64) -> Result<(), Refusal> {
    let earliest = save_created_at_ms.saturating_sub(OFFLINE_GRACE_MS);
    if i64::try_from(played_at).is_ok_and(|played_at| played_at < earliest) {
        return Err(Refusal::new(
            ApiCode::PlayedBeforeSave,
            "This result was played more than 30 days before its save was created.",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::mode::Mode;
    use crate::game::prompt_id::Seed;
    use crate::verify::simulate::{Typist, play};

    /// Tuesday 2026-12-01 12:00 UTC+8.
    const NOON: i64 = 1_796_097_600_000;

    fn context(thresholds: &Thresholds) -> Context<'_> {
        Context {
            corpora: Corpora::shipped(),
            thresholds,
            now_ms: NOON,
        }
    }

    fn game(mode: Mode, seed: u64) -> ScoreSubmission {
        let played = play(
            Corpora::shipped(),
            mode,
            Seed::new(seed).unwrap(),
            &Typist::steady_human(90),
        );
        played.submission(
            uuid::Uuid::from_u128(u128::from(seed)),
            NOON as u64 - 60_000,
        )
    }

    fn refused(submission: &ScoreSubmission) -> ApiCode {
        verify(submission, &context(&Thresholds::default()))
            .unwrap_err()
            .code
    }

    #[test]
    fn a_real_game_of_each_mode_is_verified() {
        for (seed, mode) in Mode::ALL.into_iter().enumerate() {
            let submission = game(mode, seed as u64);
            let verified = verify(&submission, &context(&Thresholds::default())).unwrap();
            assert_eq!(verified.value, submission.value, "{mode}");
            assert_eq!(verified.holds, [], "{mode}");
        }
    }

    #[test]
    fn a_game_of_each_option_is_verified_as_that_test_only() {
        use crate::game::options::{TIME_LENGTHS, TestOptions, WORDS_LENGTHS};
        let tests = TIME_LENGTHS
            .map(|seconds| (Mode::Time, seconds))
            .into_iter()
            .chain(WORDS_LENGTHS.map(|words| (Mode::Words, words)))
            .flat_map(|(mode, length)| {
                [(false, false), (true, false), (false, true), (true, true)].map(
                    |(punctuation, numbers)| Test {
                        mode,
                        options: TestOptions {
                            punctuation,
                            numbers,
                            ..TestOptions::default()
                        }
                        .with_length(mode, length),
                    },
                )
            });
        for (seed, test) in tests.enumerate() {
            let played = play(
                Corpora::shipped(),
                test,
                Seed::new(seed as u64).unwrap(),
                &Typist::steady_human(90),
            );
            let submission =
                played.submission(uuid::Uuid::from_u128(seed as u128), NOON as u64 - 60_000);
            let verified = verify(&submission, &context(&Thresholds::default()))
                .unwrap_or_else(|refusal| panic!("{test:?}: {}", refusal.message));
            assert_eq!(verified.value, submission.value, "{test:?}");
            assert_eq!(verified.prompt.options(), test.options);
            if let Some(limit) = test.time_limit_ms() {
                assert_eq!(verified.stats.duration_ms, limit, "{test:?}");
            }
            // The same log claimed as another length of the mode does not verify.
            let mut other = submission.clone();
            let lengths = TestOptions::lengths(test.mode);
            let length = test.options.length(test.mode).unwrap();
            let other_length =
                lengths[(lengths.iter().position(|l| *l == length).unwrap() + 1) % lengths.len()];
            let other_options = test.options.with_length(test.mode, other_length);
            other.prompt = Some(
                submission
                    .prompt
                    .clone()
                    .unwrap()
                    .with_options(other_options),
            );
            assert!(
                verify(&other, &context(&Thresholds::default())).is_err(),
                "{test:?}"
            );
        }
    }

    #[test]
    fn claims_the_replay_does_not_back_are_refused() {
        let honest = game(Mode::Words, 1);
        let mut inflated = honest.clone();
        inflated.value += 1;
        assert_eq!(refused(&inflated), ApiCode::ReplayMismatch);
        let mut stats = honest.clone();
        stats.stats.keystrokes += 1;
        assert_eq!(refused(&stats), ApiCode::ReplayMismatch);
        let mut no_log = honest.clone();
        no_log.input = None;
        assert_eq!(refused(&no_log), ApiCode::InputLogMissing);
        // The log of one prompt on another: a longer prompt is left unfinished, on a
        // shorter one the game ends while the log goes on.
        let length = |seed| {
            let id = PromptId::for_game(Mode::Words, Seed::new(seed).unwrap(), None);
            let prompt = Corpora::shipped().prompt(Mode::Words, &id).unwrap();
            (id, prompt.as_str().chars().count())
        };
        let own = length(1).1;
        let longer = (2..).map(length).find(|(_, n)| *n > own + 20).unwrap().0;
        let shorter = (2..).map(length).find(|(_, n)| *n < own).unwrap().0;
        for (other, code) in [
            (longer, ApiCode::IncompleteGame),
            (shorter, ApiCode::InputLogInvalid),
        ] {
            let mut other_prompt = honest.clone();
            other_prompt.prompt = Some(other);
            assert_eq!(refused(&other_prompt), code);
        }
        let mut wrong_mode = honest;
        wrong_mode.mode = Mode::Zh;
        assert_eq!(refused(&wrong_mode), ApiCode::UnknownPrompt);
    }

    #[test]
    fn times_must_be_believable() {
        let honest = game(Mode::Quote, 3);
        let mut wrong_week = honest.clone();
        wrong_week.week -= 1;
        assert_eq!(refused(&wrong_week), ApiCode::WrongWeek);
        let at = |played_at: i64| {
            let mut moved = honest.clone();
            moved.played_at = played_at as u64;
            moved.week = week_of(played_at);
            moved
        };
        assert!(
            verify(
                &at(NOON + MAX_CLOCK_SKEW_MS),
                &context(&Thresholds::default())
            )
            .is_ok()
        );
        assert_eq!(
            refused(&at(NOON + MAX_CLOCK_SKEW_MS + 1)),
            ApiCode::PlayedInFuture
        );
        let created = NOON - 3_600_000;
        let earliest = (created - OFFLINE_GRACE_MS) as u64;
        assert_eq!(check_played_after_save(earliest, created), Ok(()));
        assert_eq!(
            check_played_after_save(earliest - 1, created)
                .unwrap_err()
                .code,
            ApiCode::PlayedBeforeSave
        );
        let mut far = honest;
        far.played_at = u64::MAX;
        assert_eq!(refused(&far), ApiCode::PlayedInFuture);
    }

    #[test]
    fn a_fast_game_is_held_for_review() {
        let mut thresholds = Thresholds::default();
        thresholds.set(Mode::Words, 50);
        let verified = verify(&game(Mode::Words, 4), &context(&thresholds)).unwrap();
        assert_eq!(verified.holds, [Hold::Speed]);
    }
}
