//! `POST /api/scores`: verifies a finished game by replaying it, then records it on
//! the player's boards (docs/replay.md).
//!
//! The server rebuilds the game's prompt from the texts the shell ships, replays its
//! input log through the same typing engine as the page, and keeps the replay's value
//! (`keydo_core::verify`); a claim the replay does not back is refused. Results above
//! the review thresholds, with timing no person produces, or that would land where it
//! matters (a top place, a leap, a save with little verified typing: the store's gates)
//! are accepted but held off the public boards until an operator approves them; held
//! results have a rate limit of their own (429). The weekly board takes a game
//! only when its week is the server's current week (UTC+8). A resend of a `scoreId`
//! finds the first receipt and answers as it did; another game on a used seed is
//! refused, and so is a log another result spent already. `improved` says whether this
//! game (by `scoreId`) is the standing best on the public board, not whether this very
//! request wrote it.
//!
//! Where a game counts is `keydo_core::game::board::boards_of`: a built-in test on its
//! mode's boards (and the day's race board when it is that day's passage), a loaded
//! text on its own 首打 and best boards only. The day's race board takes a game only
//! when it reaches the server within [`DAILY_GRACE_MS`] of being played; later it
//! counts on its mode's boards alone. A loaded text is stored once, and a save or an
//! address may store only so many new texts an hour (429 `TOO_MANY_TEXTS`).

use crate::client::ClientIp;
use crate::error::ApiError;
use crate::json_body::BoundedJson;
use crate::state::AppState;
use crate::store::{Caller, Gate, NewResult, ResultBoards, ResultState, StoredBoard, log_sha256};
use crate::store::{Receipt, Recording};
use axum::Json;
use axum::extract::{Extension, State};
use keydo_core::PromptId;
use keydo_core::api::week;
use keydo_core::api::{ApiCode, MAX_SCORE_BODY_BYTES, ScoreAck, ScoreSubmission};
use keydo_core::game::board::{Board, Ranking, boards_of};
use keydo_core::game::corpora::Corpora;
use keydo_core::verify::review::Hold;
use keydo_core::verify::{self, Context, Refusal, Verified};

/// How long after it was played (`playedAt`, unix ms) a game of the day's race may
/// reach the server and still count on that day's board: 48 hours, inclusive
/// (`receivedAt − playedAt ≤ 48 h`, by the server's clock).
pub const DAILY_GRACE_MS: i64 = 48 * 3_600_000;

pub async fn submit(
    State(state): State<AppState>,
    Extension(ClientIp(client)): Extension<ClientIp>,
    player: Caller,
    BoundedJson(submission): BoundedJson<ScoreSubmission, MAX_SCORE_BODY_BYTES>,
) -> Result<Json<ScoreAck>, ApiError> {
    let now = state.clock.now_ms();
    let context = Context {
        corpora: Corpora::shipped(),
        thresholds: &state.settings.review,
        now_ms: now,
    };
    let verified = verify::verify(&submission, &context).map_err(refused)?;
    let boards = result_boards(&submission, &verified, now);
    let current_week = week::week_of(now);
    let weekly_accepted = boards.mode && submission.week == current_week;
    let weekly_board = weekly_accepted.then_some(current_week);
    let spends_log = state.settings.logs_spent_once;
    let result = stored_result(
        &player,
        &submission,
        verified,
        boards,
        now,
        weekly_board,
        spends_log,
    )?;
    let holds = state.rate_limiters.clone();
    let texts = state.rate_limiters.clone();
    let gate = Gate {
        gates: state.settings.gates,
        spend_hold: Box::new(move || holds.spend_held(player.player_id, client).is_ok()),
        spend_new_text: Box::new(move || texts.spend_new_text(player.player_id, client).is_ok()),
    };
    let recording = state
        .store
        .record_verified(result, weekly_board, gate)
        .await?;
    let receipt = match recording {
        Recording::Recorded(receipt) => receipt,
        Recording::SeedReused => {
            return Err(ApiError::new(
                ApiCode::SeedReused,
                "You already sent another game on this prompt; a prompt counts once.",
            ));
        }
        Recording::Refused(refusal) => return Err(refused(refusal)),
        Recording::HeldTooOften => return Err(ApiError::rate_limited()),
        Recording::TooManyTexts => return Err(ApiError::too_many_texts()),
        // As for its token from now on: the player signs in with the save it joined.
        Recording::SaveGone => return Err(ApiError::unauthorized()),
    };
    Ok(Json(ack(receipt, weekly_accepted, current_week)))
}

/// The answer: for a loaded text, `improved` and `best` are of its best board.
fn ack(receipt: Receipt, weekly_accepted: bool, week: i64) -> ScoreAck {
    let Receipt {
        bests,
        boards,
        held,
        code,
    } = receipt;
    let row_of = |ranking: Ranking| {
        boards
            .iter()
            .find(|(board, _)| board.ranking == ranking)
            .map(|(_, row)| *row)
    };
    let text_best = row_of(Ranking::Best);
    let (improved, best) = match text_best {
        Some(row) => (
            row.is_some_and(|row| row.is_this_game),
            row.map_or(0, |row| row.value),
        ),
        None => (bests.all_time.is_this_game, bests.all_time.value),
    };
    ScoreAck {
        improved,
        best,
        weekly_accepted,
        weekly_improved: bests.weekly.as_ref().is_some_and(|best| best.is_this_game),
        weekly_best: bests.weekly.map(|best| best.value),
        week,
        held,
        code: Some(code),
        first_attempt: row_of(Ranking::First).map(|row| row.is_some_and(|row| row.is_this_game)),
    }
}

/// The boards the game counts on (`boards_of`), without the day's race board when it
/// arrived more than [`DAILY_GRACE_MS`] after it was played.
fn result_boards(submission: &ScoreSubmission, verified: &Verified, now: i64) -> ResultBoards {
    let late = i64::try_from(submission.played_at).map_or(true, |played_at| {
        now.saturating_sub(played_at) > DAILY_GRACE_MS
    });
    let corpora = Corpora::shipped();
    let boards = boards_of(
        &verified.prompt,
        submission.played_at,
        corpora.passages(verified.prompt.corpus()),
    );
    ResultBoards {
        mode: boards.contains(&Board::Mode),
        others: boards
            .into_iter()
            .filter(|board| !(late && matches!(board, Board::DailyFirst { .. })))
            .filter_map(|board| StoredBoard::of(board, submission.mode))
            .collect(),
    }
}

fn refused(refusal: Refusal) -> ApiError {
    ApiError::new(refusal.code, refusal.message)
}

/// The row that keeps a verified result, with its input log (public once the result
/// is, docs/api.md) and its text. With `spends_log`, its log's digest goes with it
/// (docs/replay.md).
fn stored_result(
    player: &Caller,
    submission: &ScoreSubmission,
    verified: Verified,
    boards: ResultBoards,
    now: i64,
    board_week: Option<i64>,
    spends_log: bool,
) -> Result<NewResult, ApiError> {
    let held = !verified.holds.is_empty();
    let holds: Vec<&str> = verified.holds.iter().map(|hold| hold.id()).collect();
    Ok(NewResult {
        player_id: player.player_id,
        score_id: submission.score_id,
        mode: submission.mode,
        value: verified.value,
        prompt: verified.prompt.to_string(),
        text: match &verified.prompt {
            PromptId::Text { text } => Some(text.clone()),
            PromptId::Seeded { .. } | PromptId::Passage { .. } => None,
        },
        boards,
        seed_key: verified.prompt.seed_key(),
        // Verification refused any time beyond i64 as in the future.
        played_at: i64::try_from(submission.played_at).map_err(ApiError::internal)?,
        received_at: now,
        board_week,
        state: if held {
            ResultState::Held
        } else {
            ResultState::Public
        },
        holds: holds.join(","),
        suspicious: verified.holds.iter().any(|hold| Hold::is_suspicious(*hold)),
        stats_json: serde_json::to_string(&verified.stats).map_err(ApiError::internal)?,
        typing_ms: i64::try_from(verified.stats.duration_ms).map_err(ApiError::internal)?,
        input: submission.input.as_ref().map(|log| log.to_base64()),
        log_sha256: spends_log
            .then(|| submission.input.as_ref().map(log_sha256))
            .flatten(),
    })
}
