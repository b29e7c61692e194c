//! `GET /api/openapi.json`: the API described in OpenAPI 3.1 (`server/openapi.json`).

use axum::http::header;
use axum::response::IntoResponse;

const DOCUMENT: &str = include_str!("../../openapi.json");

pub async fn document() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "application/json")], DOCUMENT)
}
