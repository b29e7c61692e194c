//! 跟打's reads (docs/api.md, "Text boards and the day's race" and "Results"):
//!
//! * `GET /api/boards?text=<hash or short hash>&ranking=first|best[&limit=]`: a loaded
//!   text's 首打 or best board; `GET /api/boards?daily=<day>&lang=zh|en[&limit=]`: the
//!   day's race of a UTC+8 day (days since 1970-01-01), any day, so yesterday's stays
//!   readable. Entries carry their result's code, so a page can open its replay.
//! * `GET /api/texts/{hash or short hash}`: a stored text, so a `/t/<short>` link loads
//!   it. No route lists texts: a text's board is reached from its game or its link.
//! * `GET /api/results/{code}/replay`: the prompt and input log of a public result.

use crate::error::ApiError;
use crate::names;
use crate::state::AppState;
use crate::store::{self, Caller, StoredBoard, StoredText};
use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use keydo_core::api::{
    ApiCode, DEFAULT_LEADERBOARD_LIMIT, MAX_LEADERBOARD_LIMIT, OwnRank, ResultReplay,
    StoredTextAnswer, TextBoard, TextBoardEntry,
};
use keydo_core::game::board::{Board, Ranking};
use keydo_core::game::mode::Language;
use keydo_core::text::hash::TextHash;
use keydo_core::{InputLog, Mode, PromptId};
use serde::Deserialize;

/// The query string of `GET /api/boards`, read as text so each parameter gets its
/// own error.
#[derive(Debug, Deserialize)]
pub struct BoardParams {
    text: Option<String>,
    ranking: Option<String>,
    daily: Option<String>,
    lang: Option<String>,
    limit: Option<String>,
}

/// Which board a `GET /api/boards` asks for.
#[derive(Debug, PartialEq, Eq)]
enum BoardQuery {
    /// A text's board, by its hash or short hash.
    Text {
        text: String,
        ranking: Ranking,
    },
    Daily {
        day: i64,
        language: Language,
    },
}

impl BoardQuery {
    fn parse(params: &BoardParams) -> Result<BoardQuery, ApiError> {
        match (&params.text, &params.daily) {
            (Some(text), None) => {
                let ranking = match params.ranking.as_deref() {
                    Some("first") => Ranking::First,
                    Some("best") => Ranking::Best,
                    _ => {
                        return Err(ApiError::new(
                            ApiCode::InvalidRanking,
                            "`ranking` must be first or best.",
                        ));
                    }
                };
                Ok(BoardQuery::Text {
                    text: text_key(text).ok_or_else(invalid_text)?,
                    ranking,
                })
            }
            (None, Some(day)) => {
                let day = day.parse().map_err(|_| {
                    ApiError::new(
                        ApiCode::InvalidDay,
                        "`daily` must be a UTC+8 day: whole days since 1970-01-01.",
                    )
                })?;
                let language = match params.lang.as_deref() {
                    Some("zh") => Language::Chinese,
                    Some("en") => Language::English,
                    _ => {
                        return Err(ApiError::new(
                            ApiCode::InvalidLanguage,
                            "`lang` must be zh or en.",
                        ));
                    }
                };
                Ok(BoardQuery::Daily { day, language })
            }
            _ => Err(ApiError::new(
                ApiCode::InvalidBoard,
                "Give either `text` (and `ranking`) or `daily` (and `lang`).",
            )),
        }
    }
}

/// A text's hash (64 lowercase hex digits) or its short hash (the first 12), as
/// given; `None` for anything else.
fn text_key(given: &str) -> Option<String> {
    let hex = given
        .bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    (hex && (given.len() == TextHash::SHORT_LEN || given.len() == 64)).then(|| given.to_owned())
}

fn invalid_text() -> ApiError {
    ApiError::new(
        ApiCode::InvalidText,
        "A text is named by its hash: 64 lowercase hex digits, or the first 12.",
    )
}

fn text_not_found() -> ApiError {
    ApiError::new(ApiCode::TextNotFound, "No text has this hash.")
}

pub(super) fn limit_of(limit: Option<&str>) -> Result<u32, ApiError> {
    match limit {
        None => Ok(DEFAULT_LEADERBOARD_LIMIT),
        Some(limit) => limit
            .parse()
            .ok()
            .filter(|limit| (1..=MAX_LEADERBOARD_LIMIT).contains(limit))
            .ok_or_else(|| {
                ApiError::new(
                    ApiCode::InvalidLimit,
                    format!("`limit` must be a whole number from 1 to {MAX_LEADERBOARD_LIMIT}."),
                )
            }),
    }
}

/// `GET /api/boards`.
pub async fn board(
    State(state): State<AppState>,
    player: Option<Caller>,
    params: Result<Query<BoardParams>, QueryRejection>,
) -> Result<Json<TextBoard>, ApiError> {
    let Query(params) = params
        .map_err(|_| ApiError::new(ApiCode::InvalidQuery, "The query string could not be read."))?;
    let query = BoardQuery::parse(&params)?;
    let limit = limit_of(params.limit.as_deref())?;
    let (board, mode) = match query {
        BoardQuery::Text { text, ranking } => {
            let stored = state.store.text(text).await?.ok_or_else(text_not_found)?;
            let text = stored.text.hash();
            let board = match ranking {
                Ranking::First => Board::TextFirst { text },
                Ranking::Best => Board::TextBest { text },
            };
            (board, stored.text.mode())
        }
        BoardQuery::Daily { day, language } => {
            let mode = match language {
                Language::Chinese => Mode::Zh,
                Language::English => Mode::Quote,
            };
            (Board::DailyFirst { day }, mode)
        }
    };
    let stored = StoredBoard::of(board, mode).ok_or_else(|| ApiError::internal("a mode board"))?;
    let (entries, standing) = state
        .store
        .board(
            stored.id.clone(),
            i64::from(limit),
            player.map(|player| player.player_id),
        )
        .await?;
    let as_lines: Vec<store::Entry> = entries
        .iter()
        .map(|entry| store::Entry {
            display_name: entry.display_name.clone(),
            value: entry.value,
            achieved_at: entry.achieved_at,
            player_id: entry.player_id.clone(),
            name_key: entry.name_key.clone(),
        })
        .collect();
    let suffixes = names::board_suffixes(&as_lines);
    let entries = (1..)
        .zip(entries)
        .zip(suffixes)
        .map(|((rank, entry), name_suffix)| TextBoardEntry {
            rank,
            display_name: entry.display_name,
            name_suffix,
            value: entry.value,
            achieved_at: entry.achieved_at,
            played_at: entry.played_at,
            code: entry.code,
        })
        .collect();
    Ok(Json(TextBoard {
        board: stored.id,
        mode,
        ranking: stored.ranking,
        entries,
        me: standing.map(|standing| OwnRank {
            rank: standing.rank,
            value: standing.value,
            achieved_at: standing.achieved_at,
        }),
    }))
}

/// `GET /api/texts/{hash}`.
pub async fn text(
    State(state): State<AppState>,
    Path(hash): Path<String>,
) -> Result<Json<StoredTextAnswer>, ApiError> {
    let key = text_key(&hash).ok_or_else(invalid_text)?;
    let StoredText { text, .. } = state.store.text(key).await?.ok_or_else(text_not_found)?;
    Ok(Json(StoredTextAnswer {
        hash: text.hash().to_string(),
        short: text.hash().short(),
        mode: text.mode(),
        text: text.as_str().to_owned(),
    }))
}

/// `GET /api/results/{code}/replay`: 404 `RESULT_NOT_FOUND` for a code no public
/// result has (none, held for review, displaced, or its player hidden).
pub async fn replay(
    State(state): State<AppState>,
    Path(code): Path<String>,
) -> Result<Json<ResultReplay>, ApiError> {
    let not_found = || ApiError::new(ApiCode::ResultNotFound, "No public result has this code.");
    let (replay, text) = state
        .store
        .public_replay(code)
        .await?
        .ok_or_else(not_found)?;
    let prompt = match text {
        Some(stored) => PromptId::Text { text: stored.text },
        None => crate::replay_view::prompt_id(replay.mode, &replay.prompt)
            .ok_or_else(|| ApiError::internal(format!("stored prompt {:?}", replay.prompt)))?,
    };
    let input = InputLog::from_base64(&replay.input).map_err(ApiError::internal)?;
    Ok(Json(ResultReplay {
        mode: replay.mode,
        prompt,
        input,
        value: replay.value,
        display_name: replay.display_name,
        played_at: replay.played_at,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pairs: &[(&str, &str)]) -> BoardParams {
        let get = |name: &str| {
            pairs
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| (*value).to_owned())
        };
        BoardParams {
            text: get("text"),
            ranking: get("ranking"),
            daily: get("daily"),
            lang: get("lang"),
            limit: get("limit"),
        }
    }

    fn code_of(pairs: &[(&str, &str)]) -> ApiCode {
        BoardQuery::parse(&params(pairs)).unwrap_err().code
    }

    #[test]
    fn a_board_query_names_a_text_and_ranking_or_a_day_and_language() {
        let hash = TextHash::of("学而时习之");
        assert_eq!(
            BoardQuery::parse(&params(&[("text", &hash.short()), ("ranking", "first")])).unwrap(),
            BoardQuery::Text {
                text: hash.short(),
                ranking: Ranking::First
            }
        );
        assert_eq!(
            BoardQuery::parse(&params(&[("text", &hash.to_string()), ("ranking", "best")]))
                .unwrap(),
            BoardQuery::Text {
                text: hash.to_string(),
                ranking: Ranking::Best
            }
        );
        assert_eq!(
            BoardQuery::parse(&params(&[("daily", "-3"), ("lang", "en")])).unwrap(),
            BoardQuery::Daily {
                day: -3,
                language: Language::English
            }
        );
        assert_eq!(code_of(&[]), ApiCode::InvalidBoard);
        assert_eq!(
            code_of(&[("text", &hash.short()), ("daily", "1"), ("lang", "zh")]),
            ApiCode::InvalidBoard
        );
        assert_eq!(code_of(&[("text", &hash.short())]), ApiCode::InvalidRanking);
        let upper = hash.short().to_uppercase();
        for wrong in ["abc", "g23456789abc", upper.as_str()] {
            assert_eq!(
                code_of(&[("text", wrong), ("ranking", "best")]),
                ApiCode::InvalidText,
                "{wrong}"
            );
        }
        assert_eq!(
            code_of(&[("daily", "today"), ("lang", "zh")]),
            ApiCode::InvalidDay
        );
        assert_eq!(
            code_of(&[("daily", "1"), ("lang", "fr")]),
            ApiCode::InvalidLanguage
        );
        assert_eq!(limit_of(Some("0")).unwrap_err().code, ApiCode::InvalidLimit);
        assert_eq!(limit_of(None).unwrap(), DEFAULT_LEADERBOARD_LIMIT);
    }
}
