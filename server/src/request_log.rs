//! One log line per request: method, path, status, error code, latency and request id.
//!
//! tower-http's `TraceLayer` does the timing; this module decides what the span holds
//! (the request id travels in it, so every event logged while handling the request,
//! such as the cause of a 500, carries the id) and at which level the line is written.
//! What the client chose (method, path) is echoed only up to [`ECHO_LIMIT`] bytes, so
//! a hostile request cannot fill the log.

use axum::http::{Request, Response};
use keydo_core::api::ApiCode;
use std::time::Duration;
use tower_http::classify::{ServerErrorsAsFailures, SharedClassifier};
use tower_http::request_id::RequestId;
use tower_http::trace::{MakeSpan, OnResponse, TraceLayer};
use tracing::Span;

/// The tracing layer: a [`RequestSpan`] per request, a [`LogLine`] per response.
pub type RequestLogLayer =
    TraceLayer<SharedClassifier<ServerErrorsAsFailures>, RequestSpan, (), LogLine, (), (), ()>;

pub fn layer() -> RequestLogLayer {
    TraceLayer::new_for_http()
        .make_span_with(RequestSpan)
        .on_request(())
        .on_response(LogLine)
        .on_body_chunk(())
        .on_eos(())
        .on_failure(())
}

/// The most bytes of a client's method or path a log line repeats.
pub const ECHO_LIMIT: usize = 200;

/// `text` cut to [`ECHO_LIMIT`] bytes (on a character boundary), marked when cut.
pub fn capped(text: &str) -> std::borrow::Cow<'_, str> {
    if text.len() <= ECHO_LIMIT {
        return text.into();
    }
    let end = (0..=ECHO_LIMIT)
        .rev()
        .find(|&end| text.is_char_boundary(end))
        .unwrap_or(0);
    format!("{}…", &text[..end]).into()
}

/// A span named `request` with the method, the path (never the query) and the id.
#[derive(Debug, Clone, Copy)]
pub struct RequestSpan;

impl<B> MakeSpan<B> for RequestSpan {
    fn make_span(&mut self, request: &Request<B>) -> Span {
        let request_id = request
            .extensions()
            .get::<RequestId>()
            .and_then(|id| id.header_value().to_str().ok())
            .unwrap_or_default();
        tracing::error_span!(
            "request",
            method = %capped(request.method().as_str()),
            path = %capped(request.uri().path()),
            request_id,
        )
    }
}

/// The line written when the response starts: info for success, warn for client
/// errors, error for server errors; API errors name their code.
#[derive(Debug, Clone, Copy)]
pub struct LogLine;

impl<B> OnResponse<B> for LogLine {
    fn on_response(self, response: &Response<B>, latency: Duration, _span: &Span) {
        let status = response.status().as_u16();
        let latency_ms = latency.as_secs_f64() * 1000.0;
        let code = response
            .extensions()
            .get::<ApiCode>()
            .map(|code| code.as_str());
        if response.status().is_server_error() {
            tracing::error!(status, code, latency_ms, "answered");
        } else if response.status().is_client_error() {
            tracing::warn!(status, code, latency_ms, "answered");
        } else {
            tracing::info!(status, latency_ms, "answered");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{ECHO_LIMIT, capped};

    #[test]
    fn echoes_are_capped_on_character_boundaries() {
        assert_eq!(capped("/api/health"), "/api/health");
        let long = "/".to_owned() + &"a".repeat(1000);
        assert_eq!(capped(&long).len(), ECHO_LIMIT + "…".len());
        let wide = "键".repeat(100); // 300 bytes, 3 per character
        let cut = capped(&wide);
        assert!(cut.ends_with('…'));
        assert!(cut.len() <= ECHO_LIMIT + "…".len());
    }
}
