//! `GET /api/health`: liveness for operators and load balancers, including whether
//! the database answers. `GET /api/ready`: readiness, which also runs and commits a
//! write transaction (see [`crate::store::Store::check_writable`]), so a server whose
//! database is read-only, locked, gone or full is taken out of rotation.

use crate::error::ApiError;
use crate::state::AppState;
use crate::store::StoreError;
use axum::Json;
use axum::extract::State;
use serde_json::{Value, json};

pub async fn check(State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    let answered = state.store.ping().await;
    verdict(answered, json!({ "status": "ok", "database": "ok" }))
}

pub async fn ready(State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    let committed = state.store.check_writable().await;
    verdict(
        committed,
        json!({ "status": "ready", "database": "writable" }),
    )
}

/// `healthy` when the database did its part, else 503 `DATABASE_UNAVAILABLE`.
fn verdict(outcome: Result<(), StoreError>, healthy: Value) -> Result<Json<Value>, ApiError> {
    match outcome {
        Ok(()) => Ok(Json(healthy)),
        Err(error) => {
            tracing::error!(cause = %error, "the database failed a health check");
            Err(ApiError::database_unavailable())
        }
    }
}
