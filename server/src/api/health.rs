//! `GET /api/health`: liveness for operators and load balancers, including whether
//! the database answers. `GET /api/ready`: readiness, which also runs and commits a
//! write transaction (see [`crate::store::Store::check_writable`]), so a server whose
//! database is read-only, locked, gone or full is taken out of rotation.

use crate::error::ApiError;
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use serde_json::{Value, json};

pub async fn check(State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    match state.store.ping().await {
        Ok(()) => Ok(Json(json!({ "status": "ok", "database": "ok" }))),
        Err(error) => {
            tracing::error!(cause = %error, "the database does not answer");
            Err(ApiError::database_unavailable())
        }
    }
}

pub async fn ready(State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    match state.store.check_writable().await {
        Ok(()) => Ok(Json(json!({ "status": "ready", "database": "writable" }))),
        Err(error) => {
            tracing::error!(cause = %error, "the database does not take writes");
            Err(ApiError::database_unavailable())
        }
    }
}
