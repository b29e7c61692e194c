//! The records kept besides outbox entries, and conversions to and from JS values.

use crate::StorageError;
use keydo_core::Mode;
use keydo_core::game::board::Board;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use uuid::Uuid;
use wasm_bindgen::JsValue;

/// The local player, created on first launch. Scores belong to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    pub id: Uuid,
    pub created_at: u64,
}

/// The server save this browser plays as, stored under `meta`, never in the outbox.
pub use keydo_core::api::Credentials;

/// The personal best of one mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Best {
    pub mode: Mode,
    /// The board the best is on: the mode's, or a loaded text's. Bests stored before
    /// texts existed have none and are the mode's.
    #[serde(default)]
    pub board: Board,
    pub value: i64,
    pub score_id: Uuid,
    pub played_at: u64,
}

/// How the next `POST /api/saves` starts: with the save already stored (another
/// context made it), or with the `Idempotency-Key` to send on every attempt until the
/// save is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SaveStart {
    Existing(Credentials),
    Create { idempotency_key: Uuid },
}

/// The `Idempotency-Key` of the save being created, kept under `meta` beside the
/// profile (never in the outbox) from before the first attempt until the save is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SaveRequest {
    pub idempotency_key: Uuid,
}

/// When the client last compared its delivered bests with the server's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct HealedAt {
    pub at: u64,
}

/// What recording a finished game did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recorded {
    /// The game beat the previous personal best of its mode (or was the first).
    pub new_best: bool,
    /// The personal best of the mode after this game.
    pub best: i64,
    /// A personal best was there before this game: a new best beat an earlier one.
    pub had_best: bool,
}

/// To a plain JS object (numbers, not BigInts; maps as objects).
pub fn to_js<T: Serialize>(value: &T) -> Result<JsValue, StorageError> {
    Ok(value.serialize(&serde_wasm_bindgen::Serializer::json_compatible())?)
}

pub fn from_js<T: DeserializeOwned>(value: JsValue) -> Result<T, StorageError> {
    Ok(serde_wasm_bindgen::from_value(value)?)
}
