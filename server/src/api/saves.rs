//! `POST /api/saves` creates a save (a server-side identity for a local profile);
//! `GET /api/saves/me` shows it back to its owner.

use crate::auth::token_sha256;
use crate::error::ApiError;
use crate::json_body::BoundedJson;
use crate::names::friendly_name;
use crate::state::AppState;
use crate::store::queries::Player;
use axum::Json;
use axum::extract::{Extension, State};
use axum::http::StatusCode;
use keydo_core::api::{ApiCode, CreateSave, DISPLAY_NAME_CHARS, Profile, Save, SaveCreated};
use uuid::Uuid;

/// The first version of a save; it grows when saves learn to change.
const FIRST_VERSION: i64 = 1;

pub async fn create(
    State(state): State<AppState>,
    BoundedJson(request): BoundedJson<CreateSave>,
) -> Result<(StatusCode, Json<SaveCreated>), ApiError> {
    let display_name = match request.display_name {
        Some(name) => checked_display_name(&name)?,
        None => friendly_name(),
    };
    let player_id = Uuid::new_v4();
    let token = Uuid::new_v4();
    let player = Player {
        player_id: player_id.to_string(),
        display_name: display_name.clone(),
        version: FIRST_VERSION,
    };
    state
        .store
        .create_player(
            player,
            token_sha256(&token.to_string()),
            state.clock.now_ms(),
        )
        .await
        .map_err(ApiError::internal)?;
    let created = SaveCreated {
        player_id,
        token,
        version: FIRST_VERSION,
        profile: Profile { display_name },
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

/// The name without surrounding whitespace, if it is 1–24 characters with no control
/// characters.
fn checked_display_name(name: &str) -> Result<String, ApiError> {
    let name = name.trim();
    if DISPLAY_NAME_CHARS.contains(&name.chars().count()) && !name.chars().any(char::is_control) {
        Ok(name.to_owned())
    } else {
        Err(ApiError::new(
            ApiCode::InvalidDisplayName,
            "A display name has 1 to 24 characters and no control characters.",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::checked_display_name;
    use keydo_core::api::ApiCode;

    #[test]
    fn display_names_are_trimmed_and_bounded() {
        assert_eq!(
            checked_display_name("  键道 Player ").unwrap(),
            "键道 Player"
        );
        assert!(checked_display_name(&"字".repeat(24)).is_ok());
        for refused in ["", "   ", "a\u{0}b", "tab\there", "new\nline", "\u{7f}"] {
            assert_eq!(
                checked_display_name(refused).unwrap_err().code,
                ApiCode::InvalidDisplayName,
                "{refused:?}"
            );
        }
        assert!(checked_display_name(&"x".repeat(25)).is_err());
    }
}
