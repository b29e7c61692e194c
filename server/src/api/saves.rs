//! `POST /api/saves` creates a save (a server-side identity for a local profile);
//! `GET /api/saves/me` shows it back to its owner, with the bests the server holds.
//!
//! Creating a save may carry an `Idempotency-Key`. [`replay`] runs in front of the
//! save-creation rate limit: a key that already names a save is answered from its
//! record (the same save and token, 201 again, or 422 for another body) without
//! spending a creation slot, since it creates nothing; requests with one key take
//! turns, so concurrent resends wait for the first answer instead of racing it. Any
//! other request goes on through the limit to [`create`] (docs/api.md).

use super::idempotency::{IdempotencyKey, request_sha256};
use super::in_flight::InFlight;
use crate::auth::token_sha256;
use crate::device_label;
use crate::error::ApiError;
use crate::json_body::BoundedJson;
use crate::names;
use crate::state::AppState;
use crate::store::Creation;
use crate::store::queries::{Caller, Player, RememberedCreation, SaveCreation};
use axum::Json;
use axum::extract::{Extension, FromRequest, Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use keydo_core::api::week;
use keydo_core::api::{ApiCode, CreateSave, Save, SaveCreated};
use keydo_core::profile::{Profile, ProfileRecord};
use std::sync::Arc;
use uuid::Uuid;

/// The first version of a save's profile.
const FIRST_VERSION: i64 = 1;
/// How long a key's answer is kept: a day, so a client that lost the answer can come
/// back the next day and still get its save (or its profile operation's answer).
const KEY_RETENTION_MS: i64 = 24 * 60 * 60 * 1000;

pub type Created = (StatusCode, Json<SaveCreated>);

/// What [`replay`] needs: the app, and the keys being answered right now.
#[derive(Clone)]
pub struct Replays {
    state: AppState,
    in_flight: Arc<InFlight>,
}

impl Replays {
    pub fn new(state: AppState) -> Self {
        Replays {
            state,
            in_flight: Arc::default(),
        }
    }
}

/// Middleware for `POST /api/saves`, outside the save-creation limit: a malformed key
/// is 400; a key with a live record is answered from it; anything else goes on, with
/// the key as a request extension, while holding the key's turn.
pub async fn replay(
    State(replays): State<Replays>,
    mut request: Request,
    next: Next,
) -> Result<Response, ApiError> {
    let Some(key) = IdempotencyKey::from_headers(request.headers())? else {
        return Ok(next.run(request).await);
    };
    let _turn = replays.in_flight.turn(key.sha256()).await;
    let state = &replays.state;
    let remembered = state
        .store
        .remembered_creation(
            key.sha256().to_owned(),
            expired_before(state.clock.now_ms()),
        )
        .await
        .map_err(ApiError::internal)?;
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
    let player_id = Uuid::new_v4().to_string();
    let now = state.clock.now_ms();
    let token_hash = token_sha256(&token.to_string());
    let store = &state.store;
    // One save per name (docs/replay.md): a taken generated name is drawn again.
    for name in names::candidates(requested.clone()) {
        let player = Player {
            player_id: player_id.clone(),
            display_name: name.to_string(),
            version: FIRST_VERSION,
        };
        let made = match &key {
            None => store
                .create_named_player(
                    player.clone(),
                    name.key(),
                    token_hash.clone(),
                    label.clone(),
                    now,
                )
                .await
                .map_err(ApiError::internal)?,
            Some(Extension(key)) => {
                let creation = SaveCreation {
                    key_sha256: key.sha256().to_owned(),
                    request_sha256: request_sha256(&request),
                    token_sealed: key.seal(token),
                };
                match store
                    .create_player_once(
                        player.clone(),
                        name.key(),
                        token_hash.clone(),
                        label.clone(),
                        now,
                        creation,
                        expired_before(now),
                    )
                    .await
                    .map_err(ApiError::internal)?
                {
                    Creation::Created => true,
                    Creation::NameTaken => false,
                    // Another process answered this key first (PostgreSQL, several servers).
                    Creation::Remembered(remembered) => {
                        return answer_again(key, &request_sha256(&request), remembered);
                    }
                }
            }
        };
        if made {
            let record = ProfileRecord::new(Profile::named(player.display_name));
            return created(&player.player_id, record, token);
        }
    }
    Err(names::no_free_name(requested.is_some()))
}

/// The answer for a key that already names a save (or a linked device): that save and
/// its token, if the body is the one the key was first sent with.
pub fn answer_again(
    key: &IdempotencyKey,
    request_sha256: &str,
    remembered: RememberedCreation,
) -> Result<Created, ApiError> {
    if request_sha256 != remembered.request_sha256 {
        return Err(key_reused());
    }
    let token = key
        .unseal(&remembered.token_sealed)
        .map_err(ApiError::internal)?;
    created(&remembered.player_id, remembered.record, token)
}

pub fn key_reused() -> ApiError {
    ApiError::new(
        ApiCode::IdempotencyKeyReused,
        "This Idempotency-Key was already used with a different request body.",
    )
}

/// 201 with a token for the player.
pub fn created(player_id: &str, record: ProfileRecord, token: Uuid) -> Result<Created, ApiError> {
    let created = SaveCreated {
        player_id: Uuid::parse_str(player_id).map_err(ApiError::internal)?,
        token,
        version: record.version,
        profile: record.profile,
    };
    Ok((StatusCode::CREATED, Json(created)))
}

/// Records made before this instant (given now) are forgotten: their keys are free
/// again.
pub fn expired_before(now: i64) -> i64 {
    now - KEY_RETENTION_MS
}

pub async fn me(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
) -> Result<Json<Save>, ApiError> {
    let player_id = Uuid::parse_str(&caller.player_id).map_err(ApiError::internal)?;
    // The leaderboard's week: the one the weekly bests are for.
    let week = week::week_of(state.clock.now_ms());
    let store = &state.store;
    let record = store
        .profile(caller.player_id.clone())
        .await
        .map_err(ApiError::internal)?
        .ok_or_else(ApiError::unauthorized)?;
    let bests = store
        .bests(caller.player_id, week)
        .await
        .map_err(ApiError::internal)?;
    Ok(Json(Save {
        player_id,
        version: record.version,
        profile: record.profile,
        week,
        bests,
    }))
}
