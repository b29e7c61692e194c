//! `PATCH /api/saves/me`: one profile operation (docs/api.md, "Profile"). The merge is
//! `keydo_core::profile::ProfileRecord::resolve`; this handler validates the operation,
//! makes requests with one `Idempotency-Key` take turns, and lets the store apply it
//! once per (player, key).

use super::idempotency::{RequiredKey, expired_before, key_reused, request_sha256};
use crate::error::ApiError;
use crate::json_body::BoundedJson;
use crate::names;
use crate::state::AppState;
use crate::store::Caller;
use crate::store::Operation;
use axum::Json;
use axum::extract::State;
use keydo_core::api::{ApiCode, ProfileAnswer};
use keydo_core::profile::{ChangeError, ProfileOperation};

pub async fn apply(
    State(state): State<AppState>,
    caller: Caller,
    RequiredKey(key): RequiredKey,
    BoundedJson(operation): BoundedJson<ProfileOperation>,
) -> Result<Json<ProfileAnswer>, ApiError> {
    let request_sha256 = request_sha256(&operation);
    let operation = validated(operation)?;
    let _turn = state
        .key_turns
        .turn(&format!("profile:{}:{}", caller.player_id, key.sha256()))
        .await;
    let now = state.clock.now_ms();
    let applied = state
        .store
        .apply_operation(
            caller.player_id,
            key.sha256().to_owned(),
            request_sha256,
            operation,
            now,
            expired_before(now),
        )
        .await?;
    match applied {
        Operation::Answered(answer) => Ok(Json(answer)),
        Operation::KeyReused => Err(key_reused()),
        Operation::NameTaken => Err(names::no_free_name(true)),
        Operation::NoSuchPlayer => Err(ApiError::unauthorized()),
    }
}

/// The operation with its changes normalised, or the reason it is refused.
fn validated(operation: ProfileOperation) -> Result<ProfileOperation, ApiError> {
    let changes = operation.changes.validated().map_err(|error| {
        let code = match &error {
            ChangeError::Empty => ApiCode::InvalidBody,
            ChangeError::Name(name) => return names::refused(name),
            ChangeError::FontSize(_) | ChangeError::InputMethod => ApiCode::InvalidSetting,
        };
        ApiError::new(code, error.to_string())
    })?;
    if operation.base.fields() != changes.fields() {
        return Err(ApiError::new(
            ApiCode::InvalidBody,
            "The operation's base must give the old value of exactly the fields it changes.",
        ));
    }
    Ok(ProfileOperation {
        changes,
        ..operation
    })
}
