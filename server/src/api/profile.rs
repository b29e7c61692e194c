//! `PATCH /api/saves/me`: one profile operation, and `POST /api/saves/me/operations`:
//! several, applied in order (docs/api.md, "Profile"). The merge is
//! `keydo_core::profile::ProfileRecord::resolve`; these handlers validate each
//! operation, make requests with one `Idempotency-Key` take turns, and let the store
//! apply it once per (player, key).

use super::idempotency::{IdempotencyKey, RequiredKey, expired_before, key_reused, request_sha256};
use crate::error::ApiError;
use crate::json_body::BoundedJson;
use crate::names;
use crate::state::AppState;
use crate::store::Caller;
use crate::store::{KeyedOperation, Operation};
use axum::Json;
use axum::extract::State;
use keydo_core::api::{ApiCode, ProfileAnswer, ProfileAnswers, ProfileOperations};
use keydo_core::profile::{ChangeError, OPERATIONS_PER_REQUEST, ProfileOperation};

pub async fn apply(
    State(state): State<AppState>,
    caller: Caller,
    RequiredKey(key): RequiredKey,
    BoundedJson(operation): BoundedJson<ProfileOperation>,
) -> Result<Json<ProfileAnswer>, ApiError> {
    let keyed = keyed(&key, operation)?;
    let mut outcomes = apply_in_turn(&state, &caller, vec![keyed])
        .await?
        .into_iter();
    match outcomes.next() {
        Some(outcome) => answer(outcome).map(Json),
        None => Err(ApiError::internal("a profile operation came to nothing")),
    }
}

/// Applies the operations in order and answers each, stopping at the first refused:
/// that one's refusal is the answer when it is the first, else it is left out, and
/// the client sends it first in its next request (docs/api.md, "Profile"). A device
/// replaying a long line offline sends a request, and the server commits a
/// transaction, per [`OPERATIONS_PER_REQUEST`] operations instead of one each.
pub async fn apply_in_order(
    State(state): State<AppState>,
    caller: Caller,
    BoundedJson(request): BoundedJson<ProfileOperations>,
) -> Result<Json<ProfileAnswers>, ApiError> {
    if request.operations.is_empty() || request.operations.len() > OPERATIONS_PER_REQUEST {
        return Err(ApiError::new(
            ApiCode::InvalidBody,
            format!("Send between 1 and {OPERATIONS_PER_REQUEST} operations in a request."),
        ));
    }
    // The operations up to the first invalid one go to the store.
    let mut valid = Vec::with_capacity(request.operations.len());
    let mut invalid = None;
    for operation in request.operations {
        let key = IdempotencyKey::new(operation.idempotency_key);
        match keyed(&key, operation.operation) {
            Ok(keyed) => valid.push(keyed),
            Err(refusal) => {
                invalid = Some(refusal);
                break;
            }
        }
    }
    let outcomes = if valid.is_empty() {
        Vec::new()
    } else {
        apply_in_turn(&state, &caller, valid).await?
    };
    let mut answers = Vec::with_capacity(outcomes.len());
    for outcome in outcomes {
        match answer(outcome) {
            Ok(answer) => answers.push(answer),
            Err(refusal) if answers.is_empty() => return Err(refusal),
            Err(_) => break,
        }
    }
    match invalid {
        Some(refusal) if answers.is_empty() => Err(refusal),
        _ => Ok(Json(ProfileAnswers { answers })),
    }
}

/// A validated operation with its hashes, or why it is refused.
fn keyed(key: &IdempotencyKey, operation: ProfileOperation) -> Result<KeyedOperation, ApiError> {
    let request_sha256 = request_sha256(&operation);
    Ok(KeyedOperation {
        key_sha256: key.sha256().to_owned(),
        request_sha256,
        operation: validated(operation)?,
    })
}

/// Applies the operations once requests with the same keys have had their turn (taken
/// in one order, the keys' own, so two requests never wait on each other).
async fn apply_in_turn(
    state: &AppState,
    caller: &Caller,
    operations: Vec<KeyedOperation>,
) -> Result<Vec<Operation>, ApiError> {
    let mut turns: Vec<String> = operations
        .iter()
        .map(|keyed| format!("profile:{}:{}", caller.player_id, keyed.key_sha256))
        .collect();
    turns.sort();
    turns.dedup();
    let mut taken = Vec::with_capacity(turns.len());
    for turn in &turns {
        taken.push(state.key_turns.turn(turn).await);
    }
    let now = state.clock.now_ms();
    let outcomes = state
        .store
        .apply_operations(caller.player_id, operations, now, expired_before(now))
        .await?;
    Ok(outcomes)
}

/// The answer to an applied operation, or its refusal.
fn answer(outcome: Operation) -> Result<ProfileAnswer, ApiError> {
    match outcome {
        Operation::Answered(answer) => Ok(answer),
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
