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

use crate::client::ClientIp;
use crate::error::ApiError;
use crate::json_body::BoundedJson;
use crate::state::AppState;
use crate::store::Recording;
use crate::store::{Caller, Gate, NewResult, ResultState, log_sha256};
use axum::Json;
use axum::extract::{Extension, State};
use keydo_core::api::week;
use keydo_core::api::{ApiCode, ScoreAck, ScoreSubmission};
use keydo_core::game::corpora::Corpora;
use keydo_core::verify::review::Hold;
use keydo_core::verify::{self, Context, Refusal, Verified};

pub async fn submit(
    State(state): State<AppState>,
    Extension(ClientIp(client)): Extension<ClientIp>,
    player: Caller,
    BoundedJson(submission): BoundedJson<ScoreSubmission>,
) -> Result<Json<ScoreAck>, ApiError> {
    let now = state.clock.now_ms();
    let context = Context {
        corpora: Corpora::shipped(),
        thresholds: &state.settings.review,
        now_ms: now,
    };
    let verified = verify::verify(&submission, &context).map_err(refused)?;
    let current_week = week::week_of(now);
    let weekly_accepted = submission.week == current_week;
    let weekly_board = weekly_accepted.then_some(current_week);
    let spends_log = state.settings.logs_spent_once;
    let result = stored_result(
        &player,
        &submission,
        verified,
        now,
        weekly_board,
        spends_log,
    )?;
    let limiters = state.rate_limiters.clone();
    let gate = Gate {
        gates: state.settings.gates,
        spend_hold: Box::new(move || limiters.spend_held(player.player_id, client).is_ok()),
    };
    let recording = state
        .store
        .record_verified(result, weekly_board, gate)
        .await?;
    let (bests, held) = match recording {
        Recording::Recorded { bests, held } => (bests, held),
        Recording::SeedReused => {
            return Err(ApiError::new(
                ApiCode::SeedReused,
                "You already sent another game on this prompt; a prompt counts once.",
            ));
        }
        Recording::Refused(refusal) => return Err(refused(refusal)),
        Recording::HeldTooOften => return Err(ApiError::rate_limited()),
    };
    Ok(Json(ScoreAck {
        improved: bests.all_time.is_this_game,
        best: bests.all_time.value,
        weekly_accepted,
        weekly_improved: bests.weekly.as_ref().is_some_and(|best| best.is_this_game),
        weekly_best: bests.weekly.map(|best| best.value),
        week: current_week,
        held,
        code: None,
        first_attempt: None,
    }))
}

fn refused(refusal: Refusal) -> ApiError {
    ApiError::new(refusal.code, refusal.message)
}

/// The row that keeps a verified result, with its input log: the store keeps the log
/// only if the result ends up held (for review). With `spends_log`, its log's digest
/// goes with it (docs/replay.md).
fn stored_result(
    player: &Caller,
    submission: &ScoreSubmission,
    verified: Verified,
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
