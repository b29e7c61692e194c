//! `GET /api/leaderboard?mode=&board=weekly|alltime&limit=`: the best players of a
//! mode, and the caller's own place when the request carries a token.

use crate::error::ApiError;
use crate::state::AppState;
use crate::store::queries::{self, Caller};
use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Extension, Query, State};
use keydo_core::api::{
    ApiCode, Board, DEFAULT_LEADERBOARD_LIMIT, Leaderboard, LeaderboardEntry,
    MAX_LEADERBOARD_LIMIT, OwnRank,
};
use keydo_core::{Mode, api::week};
use serde::Deserialize;

/// The query string, read as text so each parameter gets its own error.
#[derive(Debug, Deserialize)]
pub struct Params {
    mode: Option<String>,
    board: Option<String>,
    limit: Option<String>,
}

pub async fn show(
    State(state): State<AppState>,
    player: Option<Extension<Caller>>,
    params: Result<Query<Params>, QueryRejection>,
) -> Result<Json<Leaderboard>, ApiError> {
    let Query(params) = params
        .map_err(|_| bad_query(ApiCode::InvalidQuery, "The query string could not be read."))?;
    let mode: Mode = params
        .mode
        .as_deref()
        .and_then(|mode| mode.parse().ok())
        .ok_or_else(|| {
            bad_query(
                ApiCode::InvalidMode,
                "`mode` must be one of time, words, quote, zh.",
            )
        })?;
    let board = match params.board.as_deref() {
        Some("weekly") => Board::Weekly,
        Some("alltime") => Board::Alltime,
        _ => {
            return Err(bad_query(
                ApiCode::InvalidBoard,
                "`board` must be weekly or alltime.",
            ));
        }
    };
    let limit = match params.limit.as_deref() {
        None => DEFAULT_LEADERBOARD_LIMIT,
        Some(limit) => limit
            .parse()
            .ok()
            .filter(|limit| (1..=MAX_LEADERBOARD_LIMIT).contains(limit))
            .ok_or_else(|| {
                bad_query(
                    ApiCode::InvalidLimit,
                    "`limit` must be a whole number from 1 to 100.",
                )
            })?,
    };
    let current_week = week::week_of(state.clock.now_ms());
    let stored_board = match board {
        Board::Weekly => queries::Board::Week(current_week),
        Board::Alltime => queries::Board::AllTime,
    };
    let player_id = player.map(|Extension(player)| player.player_id);
    let (entries, standing) = state
        .store
        .leaderboard(stored_board, mode, i64::from(limit), player_id)
        .await
        .map_err(ApiError::internal)?;
    let entries = (1..)
        .zip(entries)
        .map(|(rank, entry)| LeaderboardEntry {
            rank,
            display_name: entry.display_name,
            value: entry.value,
            achieved_at: entry.achieved_at,
        })
        .collect();
    let me = standing.map(|standing| OwnRank {
        rank: standing.rank,
        value: standing.value,
        achieved_at: standing.achieved_at,
    });
    Ok(Json(Leaderboard {
        mode,
        board,
        week: current_week,
        entries,
        me,
    }))
}

fn bad_query(code: ApiCode, message: &'static str) -> ApiError {
    ApiError::new(code, message)
}
