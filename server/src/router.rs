//! The whole HTTP surface, assembled top-down in the order a request meets it.
//!
//! Every request: gets a fresh request id → is attributed to a client (the peer, or
//! who trusted proxies say it is) → is logged → gets the security headers → is counted
//! in the metrics → may be compressed → has its API error body written → is cut off
//! after the timeout → has panics turned into 500s. Then `/api/*` goes through the API
//! pipeline (see [`crate::api`]), `/admin` is the operator's review page (see
//! [`crate::admin_page`]) and everything else is a file of the built shell.

use crate::security_headers::{self, SecurityHeaders};
use crate::state::AppState;
use crate::{admin_page, api, client, error, metrics, request_log, static_files};
use axum::Router;
use axum::extract::Request;
use axum::http::StatusCode;
use axum::middleware::{from_fn, from_fn_with_state};
use std::sync::Arc;
use tower::ServiceBuilder;
use tower_http::CompressionLevel;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::compression::CompressionLayer;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::timeout::TimeoutLayer;

/// The compression level of answers made per request: brotli 4 makes a board of 100
/// lines 7 % larger than brotli 11 does, in under a hundredth of the time.
const DYNAMIC_COMPRESSION: i32 = 4;

/// The application: the API and the shell behind the shared layers.
pub fn build(state: AppState) -> Router {
    let request_timeout = state.settings.request_timeout;
    let trusted_proxies = Arc::new(state.settings.trusted_proxies.clone());
    let security_headers = Arc::new(SecurityHeaders::new(&state.settings));
    let api = api::routes(&state);
    Router::new()
        .nest("/api", api.clone())
        // `nest` leaves out "/api/" itself; the API still answers it, with its own 404.
        .route_service("/api/", api.with_state(state.clone()))
        .merge(admin_page::routes(&state))
        .merge(static_files::router(&state.settings.dist))
        .layer(
            ServiceBuilder::new()
                .map_request(forget_client_request_id)
                .layer(SetRequestIdLayer::x_request_id(MakeRequestUuid))
                .layer(PropagateRequestIdLayer::x_request_id())
                .layer(from_fn_with_state(trusted_proxies, client::identify))
                .layer(request_log::layer())
                .layer(from_fn_with_state(
                    security_headers,
                    security_headers::apply,
                ))
                .layer(from_fn(metrics::observe))
                // Brotli's default is its slowest level (11): milliseconds of CPU for
                // every board of 100 lines. The shell's files come precompressed; the
                // API's answers are made per request (docs/operations.md, "Ranks at a
                // million").
                .layer(
                    CompressionLayer::new().quality(CompressionLevel::Precise(DYNAMIC_COMPRESSION)),
                )
                .layer(from_fn(error::render))
                .layer(TimeoutLayer::with_status_code(
                    StatusCode::SERVICE_UNAVAILABLE,
                    request_timeout,
                ))
                .layer(CatchPanicLayer::custom(error::from_panic)),
        )
        .with_state(state)
}

/// A client's own `X-Request-Id` is dropped: ids in our logs are ours and unique.
fn forget_client_request_id(mut request: Request) -> Request {
    request.headers_mut().remove("x-request-id");
    request
}
