//! The store's side of verified results, review and moderation (docs/replay.md): each
//! operation one transaction, built from the statements of its tables.

use super::board_scores::{self, BoardBest, BoardGame, StoredBoard};
use super::boards::{self, Best, Board, Game, Recorded};
use super::gates::{self, Gate};
use super::log_digests;
use super::names;
use super::players;
use super::result_codes;
use super::results::{
    self, KeptLog, ListedResult, Listing, NewResult, ResultState, StoredReplay, StoredResult,
    Submitter,
};
use super::sql::Sql;
use super::texts;
use super::{Store, StoreError};
use keydo_core::names::DisplayName;
use keydo_core::verify::{Refusal, check_played_after_save};
use uuid::Uuid;

/// What recording a verified result came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recording {
    /// Stored (or, for a resend, found). `held`: off the public boards for now; the
    /// bests and rows then describe the boards without it.
    Recorded(Receipt),
    /// The player already has another result on this seed.
    SeedReused,
    /// Refused on the save's facts (played long before the save existed) or because its
    /// log is spent.
    Refused(Refusal),
    /// Not recorded: it would be held, and its save or address sent too many held
    /// results lately (docs/replay.md, "The review queue").
    HeldTooOften,
    /// Not recorded: its text is new, and its save or address stored too many new
    /// texts lately (docs/api.md, "Rate limits").
    TooManyTexts,
    /// Not recorded: the save is gone since its token was checked (folded into another
    /// by a device link that committed first).
    SaveGone,
}

/// What the boards say of a recorded result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Receipt {
    /// The player's mode bests (written only when the result counts on its mode's
    /// boards).
    pub bests: Recorded,
    /// The player's row on each of the result's other boards, in its boards' order
    /// (`None`: not on that board).
    pub boards: Vec<(StoredBoard, Option<BoardBest>)>,
    pub held: bool,
    /// The result's code (docs/api.md, "Results").
    pub code: String,
}

/// What an operator's approval came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approval {
    /// It is public now (on the boards unless the player is hidden).
    Approved(StoredResult),
    /// No such result waits for review.
    NotHeld,
}

/// How many saves from before name keys existed get theirs per name check.
const UNKEYED_BATCH: i64 = 1_000;

impl Store {
    /// Records a verified result: once per score id, once per seed, on its public
    /// boards (its mode's: all-time, and `weekly_board` if given; its others: a text's,
    /// the day's race) unless it is held (by the replay's review or by `gate`) or its
    /// player is hidden. Its text, if new, is stored once; every result gets a code.
    /// The first receipt's time is the boards' `achievedAt`.
    pub async fn record_verified(
        &self,
        result: NewResult,
        weekly_board: Option<i64>,
        gate: Gate,
    ) -> Result<Recording, StoreError> {
        // A game on a text may store the text, a row other players' games share: it is
        // written alone, so batches lock only their players' own rows
        // (docs/operations.md, "Writes committed together").
        let batched_for = result.text.is_none().then_some(result.player_id);
        self.write_for(batched_for, move |sql| {
            let (player_id, score_id) = (result.player_id, result.score_id);
            let Submitter {
                save,
                receipt,
                mode_best,
            } = match results::submitter(sql, player_id, score_id, result.mode)? {
                Some(submitter) => submitter,
                None => return Ok(Recording::SaveGone),
            };
            if let Err(refusal) = check_played_after_save(result.played_at as u64, save.created_at)
            {
                return Ok(Recording::Refused(refusal));
            }
            let Gate {
                gates,
                spend_hold,
                spend_new_text,
            } = gate;
            // A resend is answered from its first receipt: nothing about it is checked,
            // spent or written again.
            let (stored, code) = if let Some(first) = receipt {
                (first, result_codes::assign(sql, player_id, score_id)?)
            } else {
                if let Some(text) = &result.text
                    && !texts::is_stored(sql, text.hash())?
                    && !spend_new_text()
                {
                    return Ok(Recording::TooManyTexts);
                }
                let Some(result) = gates::gate(
                    sql,
                    result,
                    &save,
                    mode_best,
                    weekly_board,
                    &gates,
                    spend_hold,
                )?
                else {
                    return Ok(Recording::HeldTooOften);
                };
                if let Some(refusal) = log_digests::spend(sql, &result)? {
                    return Ok(Recording::Refused(refusal));
                }
                if results::insert_result(sql, &result)? {
                    gates::bound_pending(sql, &result, &gates)?;
                    if let Some(text) = &result.text {
                        texts::store(sql, text, result.player_id, result.received_at)?;
                    }
                    let code = result_codes::assign_new(sql, player_id, score_id)?;
                    (StoredResult::from(&result), code)
                } else {
                    // Stored since it was looked for: on PostgreSQL a concurrent
                    // receipt of the same game may have committed (the insert waited
                    // for it). Otherwise its seed is taken.
                    match results::stored_result(sql, player_id, score_id)? {
                        Some(first) => (first, result_codes::assign(sql, player_id, score_id)?),
                        None => return Ok(Recording::SeedReused),
                    }
                }
            };
            let held = !stored.state.is_public() || save.hidden;
            let game = Game {
                player_id,
                mode: stored.mode,
                score_id,
                value: stored.value,
                achieved_at: stored.received_at,
            };
            let bests = if held || !stored.boards.mode {
                public_bests(sql, &game, stored.board_week)?
            } else {
                boards::record_mode(sql, &game, stored.board_week)?
            };
            let board_game = BoardGame {
                player_id,
                score_id,
                value: stored.value,
                played_at: stored.played_at,
                achieved_at: stored.received_at,
            };
            let mut rows = Vec::new();
            for board in stored.boards.others {
                let row = if held {
                    board_scores::row(sql, &board.id, player_id)?.map(|(value, _)| BoardBest {
                        value,
                        is_this_game: false,
                    })
                } else {
                    Some(board_scores::record(sql, &board, &board_game)?)
                };
                rows.push((board, row));
            }
            Ok(Recording::Recorded(Receipt {
                bests,
                boards: rows,
                held,
                code,
            }))
        })
        .await
    }

    /// The replay of a public result by its code (docs/api.md, "Results"), with its
    /// text when it was played on one.
    pub async fn public_replay(
        &self,
        code: String,
    ) -> Result<Option<(StoredReplay, Option<texts::StoredText>)>, StoreError> {
        self.read(move |sql| {
            if !result_codes::is_code(&code) {
                return Ok(None);
            }
            let Some(replay) = results::public_replay(sql, &code)? else {
                return Ok(None);
            };
            let text = match replay.prompt.strip_prefix("text:") {
                Some(hash) => Some(texts::find(sql, hash)?.ok_or_else(|| {
                    StoreError::UnexpectedValue(format!("result on unstored text {hash}"))
                })?),
                None => None,
            };
            Ok(Some((replay, text)))
        })
        .await
    }

    /// A stored text by its hash or short hash.
    pub async fn text(
        &self,
        hash_or_short: String,
    ) -> Result<Option<texts::StoredText>, StoreError> {
        self.read(move |sql| texts::find(sql, &hash_or_short)).await
    }

    pub async fn list_results(
        &self,
        listing: Listing,
        limit: i64,
    ) -> Result<Vec<ListedResult>, StoreError> {
        self.read(move |sql| results::list_results(sql, listing, limit))
            .await
    }

    /// The input log a held result kept, for an operator's replay.
    pub async fn kept_log(
        &self,
        player_id: Uuid,
        score_id: Uuid,
    ) -> Result<Option<KeptLog>, StoreError> {
        self.read(move |sql| results::kept_log(sql, player_id, score_id))
            .await
    }

    /// Approves a held result and puts it on the boards it belongs to (unless its
    /// player is hidden).
    pub async fn approve(&self, player_id: Uuid, score_id: Uuid) -> Result<Approval, StoreError> {
        self.write(move |sql| {
            let Some(approved) = results::approve_result(sql, player_id, score_id)? else {
                return Ok(Approval::NotHeld);
            };
            let hidden = players::save_facts(sql, player_id)?.is_some_and(|save| save.hidden);
            if !hidden {
                put_on_boards(sql, player_id, score_id, &approved)?;
            }
            Ok(Approval::Approved(approved))
        })
        .await
    }

    /// Hides the player from the public boards, or shows them again (their public
    /// results go back on the boards). `false` if no such player.
    pub async fn set_hidden(&self, player_id: Uuid, hidden: bool) -> Result<bool, StoreError> {
        self.write(move |sql| {
            if !players::set_hidden(sql, player_id, hidden)? {
                return Ok(false);
            }
            boards::remove_from_boards(sql, player_id)?;
            board_scores::remove_player(sql, player_id)?;
            if !hidden {
                for (score_id, result) in results::public_results(sql, player_id)? {
                    put_on_boards(sql, player_id, score_id, &result)?;
                }
            }
            Ok(true)
        })
        .await
    }
}

/// Another player has the name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NameTaken;

/// Whether a player other than `except` holds `name_key`. Saves from before name keys
/// existed get their keys first (a name refused by today's rules, or one whose key is
/// taken already, gets a key no name has, so it blocks nothing).
pub(super) fn name_taken(
    sql: &mut dyn Sql,
    name_key: &str,
    except: Option<Uuid>,
) -> Result<bool, StoreError> {
    loop {
        let unkeyed = names::unkeyed_names(sql, UNKEYED_BATCH)?;
        let last_batch = (unkeyed.len() as i64) < UNKEYED_BATCH;
        for (player_id, display_name) in unkeyed {
            let key = match DisplayName::parse(&display_name).map(|name| name.key()) {
                Ok(key) if names::name_key_owner(sql, &key)?.is_none() => key,
                _ => format!("legacy:{player_id}"),
            };
            names::set_name_key(sql, &player_id, &key)?;
        }
        if last_batch {
            break;
        }
    }
    // Legacy saves' ids need not be UUIDs: compare as text.
    let except = except.map(|id| id.to_string());
    Ok(names::name_key_owner(sql, name_key)?.is_some_and(|owner| Some(owner) != except))
}

/// The player's public bests, without the game (held, or its player hidden).
fn public_bests(
    sql: &mut dyn Sql,
    game: &Game,
    weekly_board: Option<i64>,
) -> Result<Recorded, StoreError> {
    let best = |sql: &mut dyn Sql, board| -> Result<Best, StoreError> {
        Ok(Best {
            value: boards::board_value(sql, board, game.player_id, game.mode)?.unwrap_or(0),
            is_this_game: false,
        })
    };
    Ok(Recorded {
        all_time: best(sql, Board::AllTime)?,
        weekly: weekly_board
            .map(|week| best(sql, Board::Week(week)))
            .transpose()?,
    })
}

fn put_on_boards(
    sql: &mut dyn Sql,
    player_id: Uuid,
    score_id: Uuid,
    result: &StoredResult,
) -> Result<(), StoreError> {
    debug_assert!(result.state != ResultState::Held);
    let game = Game {
        player_id,
        mode: result.mode,
        score_id,
        value: result.value,
        achieved_at: result.received_at,
    };
    if result.boards.mode {
        boards::record_mode(sql, &game, result.board_week)?;
    }
    let board_game = BoardGame {
        player_id,
        score_id,
        value: result.value,
        played_at: result.played_at,
        achieved_at: result.received_at,
    };
    for board in &result.boards.others {
        board_scores::record(sql, board, &board_game)?;
    }
    Ok(())
}
