//! `GET /api/leaderboard?mode=&board=weekly|alltime&limit=`: the best players of a
//! mode, and the caller's own place when the request carries a token.

use super::texts::limit_of;
use crate::error::ApiError;
use crate::names;
use crate::state::AppState;
use crate::store::{self, Caller};
use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use keydo_core::api::{ApiCode, Board, Leaderboard, LeaderboardEntry, OwnRank};
use keydo_core::{Mode, api::week};
use serde::Deserialize;

/// The query string, read as text so each parameter gets its own error.
#[derive(Debug, Deserialize)]
pub struct Params {
    mode: Option<String>,
    board: Option<String>,
    limit: Option<String>,
}

/// A leaderboard request, each parameter checked on its own (docs/api.md).
#[derive(Debug)]
struct LeaderboardQuery {
    mode: Mode,
    board: Board,
    limit: u32,
}

impl LeaderboardQuery {
    fn parse(params: Params) -> Result<Self, ApiError> {
        let mode = params
            .mode
            .as_deref()
            .and_then(|mode| mode.parse().ok())
            .ok_or_else(|| {
                let modes: Vec<&str> = Mode::ALL.iter().map(|mode| mode.id()).collect();
                ApiError::new(
                    ApiCode::InvalidMode,
                    format!("`mode` must be one of {}.", modes.join(", ")),
                )
            })?;
        let board = match params.board.as_deref() {
            Some("weekly") => Board::Weekly,
            Some("alltime") => Board::Alltime,
            _ => {
                return Err(ApiError::new(
                    ApiCode::InvalidBoard,
                    "`board` must be weekly or alltime.",
                ));
            }
        };
        let limit = limit_of(params.limit.as_deref())?;
        Ok(LeaderboardQuery { mode, board, limit })
    }
}

pub async fn show(
    State(state): State<AppState>,
    player: Option<Caller>,
    params: Result<Query<Params>, QueryRejection>,
) -> Result<Json<Leaderboard>, ApiError> {
    let Query(params) = params
        .map_err(|_| ApiError::new(ApiCode::InvalidQuery, "The query string could not be read."))?;
    let LeaderboardQuery { mode, board, limit } = LeaderboardQuery::parse(params)?;
    let current_week = week::week_of(state.clock.now_ms());
    let stored_board = match board {
        Board::Weekly => store::Board::Week(current_week),
        Board::Alltime => store::Board::AllTime,
    };
    let player_id = player.map(|player| player.player_id);
    let (entries, standing) = state
        .store
        .leaderboard(stored_board, mode, i64::from(limit), player_id)
        .await?;
    let suffixes = names::board_suffixes(&entries);
    let entries = (1..)
        .zip(entries)
        .zip(suffixes)
        .map(|((rank, entry), name_suffix)| LeaderboardEntry {
            rank,
            display_name: entry.display_name,
            name_suffix,
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

#[cfg(test)]
mod tests {
    use super::*;
    use keydo_core::api::DEFAULT_LEADERBOARD_LIMIT;

    fn parse(mode: &str, board: &str, limit: Option<&str>) -> Result<LeaderboardQuery, ApiError> {
        LeaderboardQuery::parse(Params {
            mode: Some(mode.into()),
            board: Some(board.into()),
            limit: limit.map(Into::into),
        })
    }

    #[test]
    fn each_parameter_is_checked_with_its_own_message() {
        let query = parse("zh", "weekly", None).unwrap();
        assert_eq!(
            (query.mode, query.board, query.limit),
            (Mode::Zh, Board::Weekly, DEFAULT_LEADERBOARD_LIMIT)
        );
        assert_eq!(parse("time", "alltime", Some("100")).unwrap().limit, 100);
        let mode = parse("typing", "weekly", None).unwrap_err();
        assert_eq!(
            (mode.code, mode.message.as_ref()),
            (
                ApiCode::InvalidMode,
                "`mode` must be one of time, words, quote, zh."
            )
        );
        let board = parse("time", "daily", None).unwrap_err();
        assert_eq!(
            (board.code, board.message.as_ref()),
            (ApiCode::InvalidBoard, "`board` must be weekly or alltime.")
        );
        for limit in ["0", "101", "ten", "-1"] {
            let error = parse("time", "weekly", Some(limit)).unwrap_err();
            assert_eq!(
                (error.code, error.message.as_ref()),
                (
                    ApiCode::InvalidLimit,
                    "`limit` must be a whole number from 1 to 100."
                ),
                "{limit}"
            );
        }
    }
}
