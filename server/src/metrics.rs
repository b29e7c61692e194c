//! Prometheus metrics, served on their own address (`--metrics-addr`) so they are never
//! exposed next to the game: requests by route template and status, their latency,
//! refusals by error code, rate-limit hits, open connections, the database's write
//! queue and batches, database errors, and what fills the disk (the review queue and
//! the database's size, next to their alert thresholds: [`crate::capacity`]).
//!
//! One registry per process ([`metrics`]): the store's writer thread and the connection
//! loop record into it without being handed anything.

use crate::paths::is_api_path;
use axum::Router;
use axum::extract::{MatchedPath, Request};
use axum::http::header;
use axum::middleware::Next;
use axum::response::Response;
use axum::routing::get;
use keydo_core::api::ApiCode;
use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;
use std::sync::LazyLock;
use std::time::Instant;
use tokio::net::TcpListener;

/// The route label of shell files and of API paths no route matched.
const STATIC_ROUTE: &str = "static";
const UNMATCHED_API_ROUTE: &str = "/api (no route)";

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    route: String,
    status: u16,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    route: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CodeLabels {
    code: &'static str,
}

/// Which rate limit refused a request.
#[derive(Debug, Clone, Copy, Hash, PartialEq, Eq, EncodeLabelValue)]
pub enum Limit {
    PerIp,
    PerIdentity,
    SaveCreations,
    /// Save creations from one IPv6 /56 (the wider prefixes in docs/api.md).
    SaveCreationsPer56,
    /// Save creations from one IPv6 /48.
    SaveCreationsPer48,
    LinkAttempts,
    HeldPerSave,
    HeldPerIp,
    /// New texts stored by one save per hour.
    TextsPerSave,
    /// New texts stored from one address per hour.
    TextsPerIp,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct LimitLabels {
    limit: Limit,
}

/// Whether a database error means "unreachable, full or too slow" (answered 503).
#[derive(Debug, Clone, Copy, Hash, PartialEq, Eq, EncodeLabelValue)]
pub enum DatabaseErrorKind {
    Unavailable,
    Other,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct DatabaseErrorLabels {
    kind: DatabaseErrorKind,
}

/// The process's metrics.
pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    latency: Family<RouteLabels, Histogram>,
    api_errors: Family<CodeLabels, Counter>,
    rate_limited: Family<LimitLabels, Counter>,
    connections_open: Gauge,
    connections_at_cap: Counter,
    writes_waiting: Gauge,
    write_batch_size: Histogram,
    database_errors: Family<DatabaseErrorLabels, Counter>,
    review_queue: Gauge,
    review_queue_alert: Gauge,
    database_bytes: Gauge,
    database_bytes_alert: Gauge,
}

/// The process's metrics.
pub fn metrics() -> &'static Metrics {
    static METRICS: LazyLock<Metrics> = LazyLock::new(Metrics::new);
    &METRICS
}

fn latency_histogram() -> Histogram {
    // 0.25 ms to about 4 s.
    Histogram::new(exponential_buckets(0.000_25, 2.0, 15))
}

impl Metrics {
    fn new() -> Self {
        let mut metrics = Metrics {
            registry: Registry::default(),
            requests: Family::default(),
            latency: Family::new_with_constructor(latency_histogram as fn() -> Histogram),
            api_errors: Family::default(),
            rate_limited: Family::default(),
            connections_open: Gauge::default(),
            connections_at_cap: Counter::default(),
            writes_waiting: Gauge::default(),
            write_batch_size: Histogram::new(exponential_buckets(1.0, 2.0, 8)),
            database_errors: Family::default(),
            review_queue: Gauge::default(),
            review_queue_alert: Gauge::default(),
            database_bytes: Gauge::default(),
            database_bytes_alert: Gauge::default(),
        };
        let mut registry = Registry::with_prefix("keydo");
        registry.register(
            "http_requests",
            "HTTP requests answered, by route template and status",
            metrics.requests.clone(),
        );
        registry.register(
            "http_request_duration_seconds",
            "Time to answer a request (until the response head), by route template",
            metrics.latency.clone(),
        );
        registry.register(
            "api_errors",
            "API error answers by stable code (refusals, rate limits, outages)",
            metrics.api_errors.clone(),
        );
        registry.register(
            "rate_limited",
            "Requests refused by a rate limit, by limit",
            metrics.rate_limited.clone(),
        );
        registry.register(
            "connections_open",
            "Client connections open now",
            metrics.connections_open.clone(),
        );
        registry.register(
            "connections_at_cap",
            "Times a connection waited because --max-connections were open",
            metrics.connections_at_cap.clone(),
        );
        registry.register(
            "database_writes_waiting",
            "Writes queued for the database and not yet taken into a transaction",
            metrics.writes_waiting.clone(),
        );
        registry.register(
            "database_write_batch_size",
            "Writes committed together in one transaction",
            metrics.write_batch_size.clone(),
        );
        registry.register(
            "database_errors",
            "Failed database operations, by kind",
            metrics.database_errors.clone(),
        );
        registry.register(
            "review_queue_results",
            "Results waiting for an operator's review",
            metrics.review_queue.clone(),
        );
        registry.register(
            "review_queue_alert_results",
            "The review queue's alert threshold (--alert-review-queue)",
            metrics.review_queue_alert.clone(),
        );
        registry.register(
            "database_bytes",
            "The database's size on disk",
            metrics.database_bytes.clone(),
        );
        registry.register(
            "database_alert_bytes",
            "The database size's alert threshold (--alert-database-mib)",
            metrics.database_bytes_alert.clone(),
        );
        metrics.registry = registry;
        metrics
    }

    /// The metrics in the OpenMetrics text format.
    pub fn encode(&self) -> String {
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &self.registry)
            .expect("writing to a String cannot fail");
        text
    }

    pub fn rate_limited(&self, limit: Limit) {
        self.rate_limited
            .get_or_create(&LimitLabels { limit })
            .inc();
    }

    /// Counts an open connection until the guard is dropped.
    pub fn connection_opened(&self) -> OpenConnection {
        self.connections_open.inc();
        OpenConnection
    }

    pub fn connections_at_cap(&self) {
        self.connections_at_cap.inc();
    }

    pub fn write_queued(&self) {
        self.writes_waiting.inc();
    }

    /// `size` queued writes were taken into one transaction.
    pub fn write_batch(&self, size: usize) {
        self.writes_waiting
            .dec_by(i64::try_from(size).unwrap_or(i64::MAX));
        self.write_batch_size.observe(size as f64);
    }

    /// What fills the disk now, and where it counts as too much.
    pub fn capacity(&self, held_results: i64, database_bytes: i64, alerts: (i64, i64)) {
        self.review_queue.set(held_results);
        self.database_bytes.set(database_bytes);
        self.review_queue_alert.set(alerts.0);
        self.database_bytes_alert.set(alerts.1);
    }

    pub fn database_error(&self, kind: DatabaseErrorKind) {
        self.database_errors
            .get_or_create(&DatabaseErrorLabels { kind })
            .inc();
    }
}

/// Keeps `keydo_connections_open` counted while a connection lives.
pub struct OpenConnection;

impl Drop for OpenConnection {
    fn drop(&mut self) {
        metrics().connections_open.dec();
    }
}

/// Middleware at the edge: counts and times every request, and counts API errors by
/// code (which [`crate::error::render`] leaves on the response).
pub async fn observe(request: Request, next: Next) -> Response {
    let started = Instant::now();
    let is_api = is_api_path(request.uri().path());
    let response = next.run(request).await;
    let route = match response.extensions().get::<MatchedPath>() {
        Some(matched) => matched.as_str(),
        None if is_api => UNMATCHED_API_ROUTE,
        None => STATIC_ROUTE,
    };
    let metrics = metrics();
    metrics
        .requests
        .get_or_create(&RequestLabels {
            route: route.to_owned(),
            status: response.status().as_u16(),
        })
        .inc();
    metrics
        .latency
        .get_or_create(&RouteLabels {
            route: route.to_owned(),
        })
        .observe(started.elapsed().as_secs_f64());
    if let Some(code) = response.extensions().get::<ApiCode>() {
        metrics
            .api_errors
            .get_or_create(&CodeLabels {
                code: code.as_str(),
            })
            .inc();
    }
    response
}

/// Route middleware: hands the matched route template to [`observe`] on the response,
/// where the edge can see it (routing happens inside).
pub async fn remember_route(request: Request, next: Next) -> Response {
    let matched = request.extensions().get::<MatchedPath>().cloned();
    let mut response = next.run(request).await;
    if let Some(matched) = matched {
        response.extensions_mut().insert(matched);
    }
    response
}

/// Serves `GET /metrics` on `listener` until the process ends.
pub async fn serve(listener: TcpListener) -> std::io::Result<()> {
    let app = Router::new().route(
        "/metrics",
        get(|| async {
            (
                [(
                    header::CONTENT_TYPE,
                    "application/openmetrics-text; version=1.0.0; charset=utf-8",
                )],
                metrics().encode(),
            )
        }),
    );
    axum::serve(listener, app).await
}
