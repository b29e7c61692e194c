//! `POST /api/saves` creates a save (a server-side identity for a local profile);
//! `GET /api/saves/me` shows it back to its owner, with the bests the server holds:
//! per mode, and per test with options (docs/scoring.md, "Options").
//!
//! Creating a save may carry an `Idempotency-Key`. [`replay`] runs in front of the
//! save-creation rate limit: a key that already names a save is answered from its
//! record (the same save and token, 201 again, or 422 for another body) without
//! spending a creation slot, since it creates nothing; requests with one key take
//! turns, so concurrent resends wait for the first answer instead of racing it. Any
//! other request goes on through the limit to [`create`] (docs/api.md).

use super::idempotency::{
    Created, IdempotencyKey, answer_again, created, expired_before, request_sha256,
};
use crate::auth::token_sha256;
use crate::device_label;
use crate::error::ApiError;
use crate::json_body::BoundedJson;
use crate::names;
use crate::state::AppState;
use crate::store::{Caller, NewSave, Player, SaveCreation};
use crate::store::{Creation, KeyedCreation};
use axum::Json;
use axum::extract::{Extension, FromRequest, Request, State};
use axum::http::HeaderMap;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use keydo_core::api::week;
use keydo_core::api::{CreateSave, Save};
use keydo_core::profile::{Profile, ProfileRecord};
use uuid::Uuid;

/// The first version of a save's profile.
const FIRST_VERSION: i64 = 1;

/// Middleware for `POST /api/saves`, outside the save-creation limit: a malformed key
/// is 400; a key with a live record is answered from it; anything else goes on, with
/// the key as a request extension, while holding the key's turn.
pub async fn replay(
    State(state): State<AppState>,
    mut request: Request,
    next: Next,
) -> Result<Response, ApiError> {
    let Some(key) = IdempotencyKey::from_headers(request.headers())? else {
        return Ok(next.run(request).await);
    };
    let _turn = state
        .key_turns
        .turn(&format!("save:{}", key.sha256()))
        .await;
    let remembered = state
        .store
        .remembered_creation(
            key.sha256().to_owned(),
            expired_before(state.clock.now_ms()),
        )
        .await?;
    if let Some(remembered) = remembered {
        let BoundedJson(body) = BoundedJson::<CreateSave>::from_request(request, &()).await?;
        return Ok(answer_again(&key, &request_sha256(&body), remembered)?.into_response());
    }
    request.extensions_mut().insert(key);
    Ok(next.run(request).await)
}

pub async fn create(
    State(state): State<AppState>,
    key: Option<Extension<IdempotencyKey>>,
    headers: HeaderMap,
    BoundedJson(request): BoundedJson<CreateSave>,
) -> Result<Created, ApiError> {
    let label = device_label::from_headers(&headers);
    let requested = request
        .display_name
        .as_deref()
        .map(names::requested)
        .transpose()?;
    let token = Uuid::new_v4();
    let player_id = Uuid::new_v4();
    let now = state.clock.now_ms();
    let token_hash = token_sha256(&token.to_string());
    let request_sha256 = request_sha256(&request);
    let keyed = key.as_ref().map(|Extension(key)| KeyedCreation {
        creation: SaveCreation {
            key_sha256: key.sha256().to_owned(),
            request_sha256: request_sha256.clone(),
            token_sealed: key.seal(token),
        },
        expired_before: expired_before(now),
    });
    // One save per name (docs/replay.md): a taken generated name is drawn again.
    for name in names::candidates(requested.clone()) {
        let save = NewSave {
            player: Player {
                player_id,
                display_name: name.to_string(),
                version: FIRST_VERSION,
            },
            name_key: name.key(),
            token_sha256: token_hash.clone(),
            device_label: label.clone(),
            created_at: now,
        };
        match state.store.create_save(save, keyed.clone()).await? {
            Creation::Created => {
                let record = ProfileRecord::new(Profile::named(name.to_string()));
                return Ok(created(player_id, record, token));
            }
            Creation::NameTaken => {}
            // Another process answered this key first (PostgreSQL, several servers).
            Creation::Remembered(remembered) => {
                let Some(Extension(key)) = &key else {
                    return Err(ApiError::internal("a save without a key was remembered"));
                };
                return answer_again(key, &request_sha256, remembered);
            }
        }
    }
    Err(names::no_free_name(requested.is_some()))
}

pub async fn me(State(state): State<AppState>, caller: Caller) -> Result<Json<Save>, ApiError> {
    // The leaderboard's week: the one the weekly bests are for.
    let week = week::week_of(state.clock.now_ms());
    let store = &state.store;
    let record = store
        .profile(caller.player_id)
        .await?
        .ok_or_else(ApiError::unauthorized)?;
    let (bests, option_bests) = store.bests(caller.player_id, week).await?;
    Ok(Json(Save {
        player_id: caller.player_id,
        version: record.version,
        profile: record.profile,
        week,
        bests,
        option_bests,
    }))
}
