//! `POST /api/saves` creates a save (a server-side identity for a local profile);
//! `GET /api/saves/me` shows it back to its owner, with the bests the server holds.
//!
//! Creating a save may carry an `Idempotency-Key`. [`replay`] runs in front of the
//! save-creation rate limit: a key that already names a save is answered from its
//! record (the same save and token, 201 again, or 422 for another body) without
//! spending a creation slot, since it creates nothing; requests with one key take
//! turns, so concurrent resends wait for the first answer instead of racing it. Any
//! other request goes on through the limit to [`create`] (docs/api.md).

mod idempotency;
mod in_flight;

use crate::auth::token_sha256;
use crate::error::ApiError;
use crate::json_body::BoundedJson;
use crate::names;
use crate::state::AppState;
use crate::store::Creation;
use crate::store::queries::{Player, RememberedCreation, SaveCreation};
use axum::Json;
use axum::extract::{Extension, FromRequest, Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use idempotency::{IdempotencyKey, request_sha256};
use in_flight::InFlight;
use keydo_core::api::{ApiCode, CreateSave, Profile, Save, SaveCreated};
use keydo_core::week;
use std::sync::Arc;
use uuid::Uuid;

/// The first version of a save; it grows when saves learn to change.
const FIRST_VERSION: i64 = 1;
/// How long a key's answer is kept: a day, so a client that lost the answer can come
/// back the next day and still get its save.
const KEY_RETENTION_MS: i64 = 24 * 60 * 60 * 1000;

type Created = (StatusCode, Json<SaveCreated>);

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
        return Ok(answer_again(&key, &body, remembered)?.into_response());
    }
    request.extensions_mut().insert(key);
    Ok(next.run(request).await)
}

pub async fn create(
    State(state): State<AppState>,
    key: Option<Extension<IdempotencyKey>>,
    BoundedJson(request): BoundedJson<CreateSave>,
) -> Result<Created, ApiError> {
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
                .create_named_player(player.clone(), name.key(), token_hash.clone(), now)
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
                        return answer_again(key, &request, remembered);
                    }
                }
            }
        };
        if made {
            return created(player, token);
        }
    }
    Err(names::no_free_name(requested.is_some()))
}

/// The answer for a key that already names a save: that save and its token, if the
/// body is the one the key was first sent with.
fn answer_again(
    key: &IdempotencyKey,
    request: &CreateSave,
    remembered: RememberedCreation,
) -> Result<Created, ApiError> {
    if request_sha256(request) != remembered.request_sha256 {
        return Err(ApiError::new(
            ApiCode::IdempotencyKeyReused,
            "This Idempotency-Key was already used with a different request body.",
        ));
    }
    let token = key
        .unseal(&remembered.token_sealed)
        .map_err(ApiError::internal)?;
    created(remembered.player, token)
}

fn created(player: Player, token: Uuid) -> Result<Created, ApiError> {
    let created = SaveCreated {
        player_id: Uuid::parse_str(&player.player_id).map_err(ApiError::internal)?,
        token,
        version: player.version,
        profile: Profile::named(player.display_name),
    };
    Ok((StatusCode::CREATED, Json(created)))
}

/// Records made before this instant (given now) are forgotten: their keys are free
/// again.
fn expired_before(now: i64) -> i64 {
    now - KEY_RETENTION_MS
}

pub async fn me(
    State(state): State<AppState>,
    Extension(player): Extension<Player>,
) -> Result<Json<Save>, ApiError> {
    let player_id = Uuid::parse_str(&player.player_id).map_err(ApiError::internal)?;
    // The leaderboard's week: the one the weekly bests are for.
    let week = week::week_of(state.clock.now_ms());
    let bests = state
        .store
        .bests(player.player_id, week)
        .await
        .map_err(ApiError::internal)?;
    Ok(Json(Save {
        player_id,
        version: player.version,
        profile: Profile::named(player.display_name),
        week,
        bests,
    }))
}
