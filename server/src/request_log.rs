//! One log line per request: method, path, status, latency and request id.
//!
//! tower-http's `TraceLayer` does the timing; this module decides what the span holds
//! (the request id travels in it, so every event logged while handling the request,
//! such as the cause of a 500, carries the id) and at which level the line is written.

use axum::http::{Request, Response};
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
            method = %request.method(),
            path = request.uri().path(),
            request_id,
        )
    }
}

/// The line written when the response starts: info for success, warn for client
/// errors, error for server errors.
#[derive(Debug, Clone, Copy)]
pub struct LogLine;

impl<B> OnResponse<B> for LogLine {
    fn on_response(self, response: &Response<B>, latency: Duration, _span: &Span) {
        let status = response.status().as_u16();
        let latency_ms = latency.as_secs_f64() * 1000.0;
        if response.status().is_server_error() {
            tracing::error!(status, latency_ms, "answered");
        } else if response.status().is_client_error() {
            tracing::warn!(status, latency_ms, "answered");
        } else {
            tracing::info!(status, latency_ms, "answered");
        }
    }
}
