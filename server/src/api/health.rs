//! `GET /api/health`: liveness for operators and load balancers, including whether
//! the database answers.

use crate::error::ApiError;
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use keydo_core::api::ApiCode;
use serde_json::{Value, json};

pub async fn check(State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    match state.store.ping().await {
        Ok(()) => Ok(Json(json!({ "status": "ok", "database": "ok" }))),
        Err(error) => {
            tracing::error!(cause = %error, "the database does not answer");
            Err(ApiError::new(
                ApiCode::DatabaseUnavailable,
                "The service is briefly unavailable. Please try again.",
            ))
        }
    }
}
