//! `POST /api/saves` creates a save (a server-side identity for a local profile);
//! `GET /api/saves/me` shows it back to its owner.

use crate::auth::token_sha256;
use crate::error::ApiError;
use crate::json_body::BoundedJson;
use crate::names;
use crate::state::AppState;
use crate::store::queries::Player;
use axum::Json;
use axum::extract::{Extension, State};
use axum::http::StatusCode;
use keydo_core::api::{CreateSave, Profile, Save, SaveCreated};
use uuid::Uuid;

/// The first version of a save; it grows when saves learn to change.
const FIRST_VERSION: i64 = 1;

pub async fn create(
    State(state): State<AppState>,
    BoundedJson(request): BoundedJson<CreateSave>,
) -> Result<(StatusCode, Json<SaveCreated>), ApiError> {
    let requested = request
        .display_name
        .as_deref()
        .map(names::requested)
        .transpose()?;
    let player_id = Uuid::new_v4();
    let token = Uuid::new_v4();
    let player = Player {
        player_id: player_id.to_string(),
        display_name: String::new(),
        version: FIRST_VERSION,
    };
    let display_name = names::create_save(
        &state.store,
        player,
        requested,
        token_sha256(&token.to_string()),
        state.clock.now_ms(),
    )
    .await?;
    let created = SaveCreated {
        player_id,
        token,
        version: FIRST_VERSION,
        profile: Profile {
            display_name: display_name.into_string(),
        },
    };
    Ok((StatusCode::CREATED, Json(created)))
}

pub async fn me(Extension(player): Extension<Player>) -> Result<Json<Save>, ApiError> {
    let player_id = Uuid::parse_str(&player.player_id).map_err(ApiError::internal)?;
    Ok(Json(Save {
        player_id,
        version: player.version,
        profile: Profile {
            display_name: player.display_name,
        },
        // Filled from the scores tables by the restore-healing change that follows.
        week: 0,
        bests: Vec::new(),
    }))
}
