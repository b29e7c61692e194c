//! The `/api` routes and the pipeline in front of them (docs/api.md).
//!
//! Every API request passes, in this order:
//! 1. [`origin::check`]: a foreign `Origin` → 403;
//! 2. [`auth::identify`]: a bearer token, when present → the save, else 401;
//! 3. [`rate_limit::spend`]: per IP, then per save → 429 (and, for creating saves,
//!    [`rate_limit::spend_save_creation`], after [`saves::replay`] has answered the
//!    resends of a known `Idempotency-Key`), all before the body is read;
//! 4. the handler (whose `Caller` argument, on routes that need a save, answers 401
//!    to a request without a token; which, for `PATCH /api/saves/me` and
//!    `POST /api/devices`, first requires an `Idempotency-Key`; using or checking a link code also spends
//!    [`rate_limit::RateLimiters::spend_link_attempt`] unless it is a replay), whose [`crate::json_body::BoundedJson`] reads the body within its
//!    limits (415, 413, 400, 422).
//!
//! Errors become JSON bodies in [`crate::error::render`].

mod devices;
mod health;
mod idempotency;
mod leaderboard;
mod openapi;
mod profile;
mod saves;
mod scores;
mod texts;

use crate::error::ApiError;
use crate::state::AppState;
use crate::{auth, metrics, origin, rate_limit};
use axum::Router;
use axum::http::{HeaderValue, header};
use axum::middleware::{from_fn, from_fn_with_state};
use axum::routing::{delete, get, post};
use tower::ServiceBuilder;
use tower_http::set_header::SetResponseHeaderLayer;

/// The routes under `/api` (paths here are relative to it). Which routes need a save
/// is said by their handlers: those that take a [`crate::store::Caller`].
pub fn routes(state: &AppState) -> Router<AppState> {
    Router::new()
        .route("/health", get(health::check))
        .route("/ready", get(health::ready))
        .route("/openapi.json", get(openapi::document))
        .route(
            "/saves",
            post(saves::create)
                .layer(from_fn_with_state(
                    state.clone(),
                    rate_limit::spend_save_creation,
                ))
                // Outside the creation limit: a replay creates nothing.
                .layer(from_fn_with_state(state.clone(), saves::replay)),
        )
        .route("/saves/me", get(saves::me).patch(profile::apply))
        .route("/saves/me/operations", post(profile::apply_in_order))
        .route("/scores", post(scores::submit))
        .route("/leaderboard", get(leaderboard::show))
        .route("/boards", get(texts::board))
        .route("/texts/{hash}", get(texts::text))
        .route("/results/{code}/replay", get(texts::replay))
        // Linking is open: the joining device has no token of this player (it may
        // bring the token of another save, to fold in).
        .route("/devices", get(devices::list).post(devices::link))
        .route("/devices/link-codes", post(devices::create_code))
        .route("/devices/link-codes/check", post(devices::check_code))
        .route("/devices/{id}", delete(devices::revoke))
        .fallback(not_found)
        .layer(
            ServiceBuilder::new()
                .layer(from_fn_with_state(state.clone(), origin::check))
                .layer(from_fn_with_state(state.clone(), auth::identify))
                .layer(from_fn_with_state(state.clone(), rate_limit::spend)),
        )
        // A stale leaderboard is worse than none: nothing under /api is ever cached.
        .layer(SetResponseHeaderLayer::overriding(
            header::CACHE_CONTROL,
            HeaderValue::from_static("no-store"),
        ))
        .layer(from_fn(metrics::remember_route))
}

async fn not_found() -> ApiError {
    ApiError::not_found()
}
