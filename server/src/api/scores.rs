//! `POST /api/scores`: records a finished game on the player's boards.
//!
//! The game is checked with the same rules the app scored it with
//! (`keydo_core::score::validate`). The weekly board takes it only when its week is
//! the server's current week (UTC+8), so scores kept offline for days do not land on
//! a later week. Resends and lower scores change nothing and still answer 200, with
//! the same answer for the same game: `improved` says whether this game (by
//! `scoreId`) is the standing best, not whether this very request wrote it.

use crate::error::ApiError;
use crate::json_body::BoundedJson;
use crate::state::AppState;
use crate::store::queries::{Game, Player};
use axum::Json;
use axum::extract::{Extension, State};
use keydo_core::api::{ScoreAck, ScoreSubmission};
use keydo_core::{score, week};

pub async fn submit(
    State(state): State<AppState>,
    Extension(player): Extension<Player>,
    BoundedJson(submission): BoundedJson<ScoreSubmission>,
) -> Result<Json<ScoreAck>, ApiError> {
    let value = score::validate(submission.mode, &submission.stats, submission.value)
        .map_err(ApiError::implausible)?;
    let now = state.clock.now_ms();
    let current_week = week::week_of(now);
    // A game cannot end in the future; a clock running ahead must not win ties.
    let achieved_at = i64::try_from(submission.played_at)
        .unwrap_or(i64::MAX)
        .min(now);
    let game = Game {
        player_id: player.player_id,
        mode: submission.mode,
        score_id: submission.score_id.to_string(),
        value,
        achieved_at,
    };
    let weekly_accepted = submission.week == current_week;
    let recorded = state
        .store
        .record_game(game, weekly_accepted.then_some(current_week))
        .await
        .map_err(ApiError::internal)?;
    Ok(Json(ScoreAck {
        improved: recorded.all_time.is_this_game,
        best: recorded.all_time.value,
        weekly_accepted,
        weekly_improved: recorded
            .weekly
            .as_ref()
            .is_some_and(|best| best.is_this_game),
        weekly_best: recorded.weekly.map(|best| best.value),
        week: current_week,
    }))
}
