//! Step 2 of the API pipeline: `Authorization: Bearer <token>` naming a known save.
//!
//! A token is a UUID the server showed once, when the save was created or a device
//! linked; the database
//! keeps only its SHA-256, so a leaked database does not leak tokens. Each token is one
//! device of a player; a revoked device's token is refused like an unknown one. The
//! resolved [`Caller`] travels to the handler as a request extension, which handlers
//! read as an extractor: `Caller` where a save is needed, `Option<Caller>` where it
//! only says more. Failed attempts spend the client's per-IP budget, so guessing
//! tokens is as slow as any other abuse.

use crate::client::ClientIp;
use crate::error::ApiError;
use crate::state::AppState;
use crate::store::Caller;
use axum::extract::{Extension, FromRequestParts, OptionalFromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::Response;
use sha2::{Digest, Sha256};
use std::convert::Infallible;
use std::net::IpAddr;

/// The token part of `^Bearer ([a-fA-F0-9-]{36})$`.
const TOKEN_LEN: usize = 36;

/// Middleware in front of every API route: a request that carries a token gets its
/// [`Caller`] as an extension; one that carries none goes on as anonymous. A token that
/// is present must be valid (else 401, spending the client's per-IP budget).
pub async fn identify(
    State(state): State<AppState>,
    Extension(ClientIp(client)): Extension<ClientIp>,
    mut request: Request,
    next: Next,
) -> Result<Response, ApiError> {
    if let Some(authorization) = request.headers().get(header::AUTHORIZATION) {
        let caller = resolve(&state, client, authorization).await?;
        request.extensions_mut().insert(caller);
    }
    Ok(next.run(request).await)
}

/// A handler that takes a [`Caller`] needs a save: without a token it answers 401.
/// The request has spent its per-IP budget once already, in [`crate::rate_limit::spend`],
/// as a refused token does in [`identify`], so an anonymous request spends no more than
/// a wrong token.
impl<S: Send + Sync> FromRequestParts<S> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, ApiError> {
        parts
            .extensions
            .get::<Caller>()
            .copied()
            .ok_or_else(ApiError::unauthorized)
    }
}

/// A handler that takes an `Option<Caller>` is open to all and says more to a known
/// save (the leaderboard's `me`, the old save a linking device folds in).
impl<S: Send + Sync> OptionalFromRequestParts<S> for Caller {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Option<Self>, Infallible> {
        Ok(parts.extensions.get::<Caller>().copied())
    }
}

/// The hex SHA-256 the database keeps for a token (of its lowercase form, so the hex
/// digits' case does not matter).
pub fn token_sha256(token: &str) -> String {
    hex::encode(Sha256::digest(token.to_ascii_lowercase().as_bytes()))
}

async fn resolve(
    state: &AppState,
    client: IpAddr,
    authorization: &HeaderValue,
) -> Result<Caller, ApiError> {
    let Some(token) = bearer_token(authorization) else {
        return Err(refuse(state, client));
    };
    match state.store.caller_by_token(token_sha256(token)).await? {
        Some(caller) => Ok(caller),
        None => Err(refuse(state, client)),
    }
}

/// The token of a well-formed `Bearer` header.
fn bearer_token(authorization: &HeaderValue) -> Option<&str> {
    let token = authorization.to_str().ok()?.strip_prefix("Bearer ")?;
    let well_formed =
        token.len() == TOKEN_LEN && token.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-');
    well_formed.then_some(token)
}

/// 401, or 429 once this client has failed too often.
fn refuse(state: &AppState, client: IpAddr) -> ApiError {
    match state.rate_limiters.spend_ip(client) {
        Ok(()) => ApiError::unauthorized(),
        Err(rate_limited) => rate_limited,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_bearer_uuids_are_tokens() {
        let token = "6f1c1f5e-8a4e-4b8e-9d43-2f4c1d0b9a11";
        let header = |value: &str| HeaderValue::from_str(value).unwrap();
        assert_eq!(
            bearer_token(&header(&format!("Bearer {token}"))),
            Some(token)
        );
        assert_eq!(
            bearer_token(&header(&format!("Bearer {}", token.to_uppercase()))).map(str::len),
            Some(36)
        );
        for refused in [
            format!("bearer {token}"),
            format!("Bearer  {token}"),
            format!("Bearer {token} "),
            format!("Bearer {token}0"),
            format!("Basic {token}"),
            "Bearer 6f1c1f5e-8a4e-4b8e-9d43-2f4c1d0b9a1g".to_owned(),
            "Bearer ".to_owned(),
        ] {
            assert_eq!(bearer_token(&header(&refused)), None, "{refused}");
        }
    }

    #[test]
    fn token_hashes_ignore_case() {
        let token = "6f1c1f5e-8a4e-4b8e-9d43-2f4c1d0b9a11";
        assert_eq!(token_sha256(token), token_sha256(&token.to_uppercase()));
        assert_eq!(token_sha256(token).len(), 64);
    }
}
