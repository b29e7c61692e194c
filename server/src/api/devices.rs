//! Devices of a player (docs/api.md, "Devices"): a one-time link code from a device of
//! the player, whose player a joining device may check first, a new device joining with
//! it (and folding in the save it had), the device list, and revocation.

use super::idempotency::{
    Created, RequiredKey, answer_again, created, expired_before, request_sha256,
};
use crate::auth::token_sha256;
use crate::client::ClientIp;
use crate::device_label;
use crate::error::ApiError;
use crate::json_body::BoundedJson;
use crate::link_code::{self, LINK_CODE_TTL_MS};
use crate::state::AppState;
use crate::store::{Caller, SaveCreation};
use crate::store::{LinkRequest, Linking};
use axum::Json;
use axum::extract::{Extension, Path, State};
use axum::http::{HeaderMap, StatusCode};
use keydo_core::api::{ApiCode, Device, Devices, LinkCode, LinkCodeOwner, LinkDevice};
use uuid::Uuid;

/// `POST /api/devices/link-codes`: a code that lives [`LINK_CODE_TTL_MS`], once.
pub async fn create_code(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<(StatusCode, Json<LinkCode>), ApiError> {
    let code = link_code::generate();
    let normalised = link_code::normalise(&code).expect("a generated code reads back");
    let now = state.clock.now_ms();
    let expires_at = now + LINK_CODE_TTL_MS;
    state
        .store
        .create_link_code(
            caller.player_id,
            link_code::sha256(&normalised),
            now,
            expires_at,
        )
        .await?;
    let expires_at = u64::try_from(expires_at).map_err(ApiError::internal)?;
    Ok((StatusCode::CREATED, Json(LinkCode { code, expires_at })))
}

/// `POST /api/devices/link-codes/check`: whose a live code is, without using it. It
/// spends the address's link-attempt budget like a link, so checking guesses no faster.
pub async fn check_code(
    State(state): State<AppState>,
    Extension(ClientIp(client)): Extension<ClientIp>,
    BoundedJson(request): BoundedJson<LinkDevice>,
) -> Result<Json<LinkCodeOwner>, ApiError> {
    state.rate_limiters.spend_link_attempt(client)?;
    let code = link_code::normalise(&request.code).ok_or_else(invalid_code)?;
    let owner = state
        .store
        .link_code_owner(link_code::sha256(&code), state.clock.now_ms())
        .await?
        .ok_or_else(invalid_code)?;
    Ok(Json(LinkCodeOwner {
        display_name: owner,
    }))
}

/// `POST /api/devices`: a new device for the code's player, with its own token. A
/// resend with the same key gets the same device and token; every other attempt
/// spends the address's link-attempt budget first.
pub async fn link(
    State(state): State<AppState>,
    Extension(ClientIp(client)): Extension<ClientIp>,
    caller: Option<Caller>,
    RequiredKey(key): RequiredKey,
    headers: HeaderMap,
    BoundedJson(request): BoundedJson<LinkDevice>,
) -> Result<Created, ApiError> {
    let code = link_code::normalise(&request.code);
    // A resend typed differently (case, dashes) is the same request.
    let request_sha256 = request_sha256(&LinkDevice {
        code: code.clone().unwrap_or(request.code),
    });
    let _turn = state
        .key_turns
        .turn(&format!("link:{}", key.sha256()))
        .await;
    let now = state.clock.now_ms();
    let expired_before = expired_before(now);
    let remembered = state
        .store
        .remembered_creation(key.sha256().to_owned(), expired_before)
        .await?;
    if let Some(remembered) = remembered {
        return answer_again(&key, &request_sha256, remembered);
    }
    state.rate_limiters.spend_link_attempt(client)?;
    let code = code.ok_or_else(invalid_code)?;
    let token = Uuid::new_v4();
    let link = LinkRequest {
        code_sha256: link_code::sha256(&code),
        device_id: Uuid::new_v4(),
        token_sha256: token_sha256(&token.to_string()),
        label: device_label::from_headers(&headers),
        fold_from: caller.map(|caller| caller.player_id),
        creation: SaveCreation {
            key_sha256: key.sha256().to_owned(),
            request_sha256: request_sha256.clone(),
            token_sealed: key.seal(token),
        },
        now,
        expired_before,
    };
    match state.store.link_device(link).await? {
        Linking::Linked { player_id, record } => Ok(created(player_id, record, token)),
        Linking::Remembered(remembered) => answer_again(&key, &request_sha256, remembered),
        Linking::InvalidCode => Err(invalid_code()),
    }
}

/// One answer for every code that cannot be used, so guesses learn nothing.
fn invalid_code() -> ApiError {
    ApiError::new(
        ApiCode::LinkCodeInvalid,
        "This link code is not valid: it may be mistyped, used already or expired. Ask the other device for a new one.",
    )
}

/// `GET /api/devices`: the player's devices, oldest first.
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<Json<Devices>, ApiError> {
    let devices = state
        .store
        .devices(caller.player_id)
        .await?
        .into_iter()
        .map(|device| Device {
            id: device.device_id,
            current: device.device_id == caller.device_id,
            label: device.label,
            linked_at: device.linked_at,
        })
        .collect();
    Ok(Json(Devices { devices }))
}

/// `DELETE /api/devices/{id}`: its token is refused from now on.
pub async fn revoke(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let Ok(id) = Uuid::try_parse(&id) else {
        return Err(device_not_found());
    };
    let revoked = state
        .store
        .revoke_device(caller.player_id, id, state.clock.now_ms())
        .await?;
    if revoked {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(device_not_found())
    }
}

fn device_not_found() -> ApiError {
    ApiError::new(
        ApiCode::DeviceNotFound,
        "You have no device with this id (it may have been removed already).",
    )
}
