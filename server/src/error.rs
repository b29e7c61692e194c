//! The API's error answers: `{"error": {"code", "message", "requestId"}}`.
//!
//! Handlers and middleware return an [`ApiError`]. Its response carries the error as an
//! extension and no body yet; [`render`], a middleware near the edge where the request
//! id is known, writes the body. It also gives a JSON body to any other error under
//! `/api` (a 405 from the router, a timeout, a caught panic), so no API answer is ever
//! an empty body or the HTML shell. Causes of unexpected failures are logged inside the
//! request's span, which carries the request id, and never reach the client.

use crate::store::StoreError;
use axum::Json;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use keydo_core::Implausible;
use keydo_core::api::ApiCode;
use serde_json::json;
use std::any::Any;
use std::borrow::Cow;
use tower_http::request_id::RequestId;

/// What a client may rely on when 429 arrives: the limits are per minute.
const RETRY_AFTER_SECONDS: &str = "60";
/// When to try again after a 503 (a timeout, a database outage).
const RETRY_AFTER_UNAVAILABLE_SECONDS: &str = "5";
const UNAVAILABLE_MESSAGE: &str = "The service is briefly unavailable. Please try again.";

/// An error answer: a status, a stable code and a sentence a person understands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: ApiCode,
    pub message: Cow<'static, str>,
}

/// Handlers use `?` on the store's errors: 503 or 500 as [`ApiError::internal`] picks.
impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> Self {
        Self::internal(error)
    }
}

impl ApiError {
    /// The answer for `code`, with the status the code list gives it.
    pub fn new(code: ApiCode, message: impl Into<Cow<'static, str>>) -> Self {
        ApiError {
            status: StatusCode::from_u16(code.status())
                .expect("the code list holds valid HTTP statuses"),
            code,
            message: message.into(),
        }
    }

    /// An unexpected failure. The cause is logged (with the request id, from the span)
    /// and the client learns only that the service is briefly unavailable: 503
    /// `DATABASE_UNAVAILABLE` when the cause is a database that cannot be reached, is
    /// full or too slow (see [`StoreError::is_unavailable`]), else 500.
    pub fn internal<E: std::fmt::Display + 'static>(cause: E) -> Self {
        let store_error = (&cause as &dyn Any).downcast_ref::<StoreError>();
        if store_error.is_some_and(StoreError::is_unavailable) {
            tracing::warn!(cause = %cause, "the database is unavailable");
            return Self::database_unavailable();
        }
        tracing::error!(cause = %cause, "unexpected failure");
        Self::unavailable()
    }

    pub fn database_unavailable() -> Self {
        Self::new(ApiCode::DatabaseUnavailable, UNAVAILABLE_MESSAGE)
    }

    /// The `Retry-After` this answer carries, if any.
    fn retry_after(&self) -> Option<&'static str> {
        match self.status {
            StatusCode::TOO_MANY_REQUESTS => Some(RETRY_AFTER_SECONDS),
            StatusCode::SERVICE_UNAVAILABLE => Some(RETRY_AFTER_UNAVAILABLE_SECONDS),
            _ => None,
        }
    }

    fn unavailable() -> Self {
        Self::new(ApiCode::Internal, UNAVAILABLE_MESSAGE)
    }

    pub fn not_found() -> Self {
        Self::new(ApiCode::NotFound, "There is nothing at this address.")
    }

    pub fn forbidden_origin() -> Self {
        Self::new(
            ApiCode::ForbiddenOrigin,
            "Requests from other websites are not accepted.",
        )
    }

    pub fn unauthorized() -> Self {
        Self::new(
            ApiCode::Unauthorized,
            "This request needs the token of a known save.",
        )
    }

    pub fn rate_limited() -> Self {
        Self::new(
            ApiCode::RateLimited,
            "Too many requests. Please wait a minute and try again.",
        )
    }

    /// A result on a new text, from a save or address that stored too many this hour.
    pub fn too_many_texts() -> Self {
        Self::new(
            ApiCode::TooManyTexts,
            "Too many new texts this hour. Please type a text already played, or wait and try again.",
        )
    }

    pub fn unsupported_media_type() -> Self {
        Self::new(
            ApiCode::UnsupportedMediaType,
            "The request body must be JSON, sent as `Content-Type: application/json`.",
        )
    }

    /// The body is over `limit` bytes.
    pub fn payload_too_large(limit: usize) -> Self {
        Self::new(
            ApiCode::PayloadTooLarge,
            format!("The request body is larger than {} KiB.", limit / 1024),
        )
    }

    /// The client stopped sending its body halfway (or sent broken chunking).
    pub fn body_unreadable() -> Self {
        Self::new(
            ApiCode::BodyUnreadable,
            "The request body could not be read.",
        )
    }

    pub fn invalid_utf8() -> Self {
        Self::new(ApiCode::InvalidUtf8, "The request body is not valid UTF-8.")
    }

    pub fn invalid_json() -> Self {
        Self::new(ApiCode::InvalidJson, "The request body is not valid JSON.")
    }

    pub fn invalid_shape() -> Self {
        Self::new(
            ApiCode::InvalidBody,
            "The request body does not have the expected fields and types.",
        )
    }

    pub fn implausible(implausible: Implausible) -> Self {
        Self::new(implausible.code(), implausible.message())
    }

    /// The answer for an error status that carries no [`ApiError`] (the router's 405,
    /// the timeout's 503, ...).
    fn for_status(status: StatusCode) -> Self {
        match status {
            StatusCode::NOT_FOUND => Self::not_found(),
            StatusCode::METHOD_NOT_ALLOWED => Self::new(
                ApiCode::MethodNotAllowed,
                "This address does not accept this method.",
            ),
            StatusCode::SERVICE_UNAVAILABLE => Self::new(ApiCode::Unavailable, UNAVAILABLE_MESSAGE),
            status if status.is_server_error() => Self::unavailable(),
            // Keeps the status it came with (a 408, a 411...), under the catch-all code.
            status => ApiError {
                status,
                ..Self::new(ApiCode::BadRequest, "The request could not be understood.")
            },
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = self.status.into_response();
        if let Some(seconds) = self.retry_after() {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static(seconds));
        }
        response.extensions_mut().insert(self);
        response
    }
}

/// Middleware: writes the JSON body of every API error, with the request id, and
/// leaves the error's [`ApiCode`] on the response for the log line and the metrics.
pub async fn render(request: Request, next: Next) -> Response {
    let is_api = crate::paths::is_api_path(request.uri().path());
    let request_id = request
        .extensions()
        .get::<RequestId>()
        .and_then(|id| id.header_value().to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let mut response = next.run(request).await;
    let error = match response.extensions_mut().remove::<ApiError>() {
        Some(error) => error,
        None if is_api && is_error(response.status()) && !is_json(&response) => {
            ApiError::for_status(response.status())
        }
        None => return response,
    };
    let body = json!({
        "error": { "code": error.code.as_str(), "message": error.message, "requestId": request_id }
    });
    let (mut parts, _) = response.into_parts();
    parts.headers.remove(header::CONTENT_LENGTH);
    if let Some(seconds) = error.retry_after() {
        parts
            .headers
            .entry(header::RETRY_AFTER)
            .or_insert(HeaderValue::from_static(seconds));
    }
    parts.extensions.insert(error.code);
    // Whoever answered (the API, the timeout, the panic guard), an error is never cached.
    parts
        .headers
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    let (json_parts, json_body) = Json(body).into_response().into_parts();
    parts.headers.extend(json_parts.headers);
    Response::from_parts(parts, json_body)
}

/// The answer for a panic inside a handler (tower-http's `CatchPanicLayer`).
pub fn from_panic(payload: Box<dyn Any + Send + 'static>) -> Response<Body> {
    let message = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_owned());
    ApiError::internal(format!("panic: {message}")).into_response()
}

fn is_error(status: StatusCode) -> bool {
    status.is_client_error() || status.is_server_error()
}

fn is_json(response: &Response) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|value| value.as_bytes().starts_with(b"application/json"))
}
