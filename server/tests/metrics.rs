//! The Prometheus metrics move with the requests that are made. One test in its own
//! binary, because the registry is process-wide and other tests would move it too.

mod common;

use axum::body::Body;
use axum::http::Request;
use common::{
    MONDAY_2026_11_30_UTC8, Options, TestServer, limits, post_json, with_token, words_game,
};
use keydo_core::week::week_of;
use keydo_server::metrics::{self, metrics};
use uuid::Uuid;

/// The value of the sample named exactly `series` (name and labels), 0 when absent.
fn sample(text: &str, series: &str) -> f64 {
    text.lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' '))
        .map_or(0.0, |value| value.trim().parse().unwrap())
}

#[tokio::test]
async fn counters_move_as_requests_are_made() {
    let server = TestServer::start(Options {
        rate_limits: limits(7, 100, 100),
        ..Options::default()
    })
    .await;
    let before = metrics().encode();
    for _ in 0..3 {
        assert_eq!(server.get("/api/health").await.status(), 200);
    }
    assert_eq!(server.get("/missing.js").await.status(), 404);
    let unknown = Request::get("/api/saves/me")
        .header(
            "authorization",
            "Bearer 6f1c1f5e-8a4e-4b8e-9d43-2f4c1d0b9a11",
        )
        .body(Body::empty())
        .unwrap();
    assert_eq!(server.send(unknown).await.status(), 401);
    let save = server.create_save().await;
    let game = words_game(
        Uuid::new_v4(),
        week_of(MONDAY_2026_11_30_UTC8),
        300,
        MONDAY_2026_11_30_UTC8,
    );
    let scored = server
        .send(with_token(post_json("/api/scores", &game), save.token))
        .await;
    assert_eq!(scored.status(), 200);
    // 6 API requests so far from this address (the 401 too); the 8th is over the limit.
    assert_eq!(server.get("/api/health").await.status(), 200);
    assert_eq!(server.get("/api/health").await.status(), 429);
    let after = metrics().encode();

    let moved = |series: &str| sample(&after, series) - sample(&before, series);
    assert_eq!(
        moved("keydo_http_requests_total{route=\"/api/health\",status=\"200\"}"),
        4.0
    );
    assert_eq!(
        moved("keydo_http_requests_total{route=\"/api/health\",status=\"429\"}"),
        1.0
    );
    assert_eq!(
        moved("keydo_http_requests_total{route=\"static\",status=\"404\"}"),
        1.0
    );
    assert_eq!(
        moved("keydo_http_requests_total{route=\"/api/saves/me\",status=\"401\"}"),
        1.0
    );
    assert_eq!(
        moved("keydo_http_requests_total{route=\"/api/scores\",status=\"200\"}"),
        1.0
    );
    assert_eq!(
        moved("keydo_http_request_duration_seconds_count{route=\"/api/health\"}"),
        5.0
    );
    assert_eq!(moved("keydo_api_errors_total{code=\"UNAUTHORIZED\"}"), 1.0);
    assert_eq!(moved("keydo_api_errors_total{code=\"RATE_LIMITED\"}"), 1.0);
    assert_eq!(moved("keydo_rate_limited_total{limit=\"PerIp\"}"), 1.0);
    // Two writes (the save, the game), each committed in a batch.
    assert_eq!(moved("keydo_database_write_batch_size_sum"), 2.0);
    assert_eq!(sample(&after, "keydo_database_writes_waiting"), 0.0);

    // A failure that is not an outage counts as another database error.
    let saboteur = rusqlite::Connection::open(server.sqlite_path()).unwrap();
    saboteur.execute_batch("DROP TABLE weekly_scores").unwrap();
    let game = words_game(
        Uuid::new_v4(),
        week_of(MONDAY_2026_11_30_UTC8),
        310,
        MONDAY_2026_11_30_UTC8,
    );
    let other_client = "192.0.2.1:1".parse().unwrap();
    let failed = server
        .send_from(
            other_client,
            with_token(post_json("/api/scores", &game), save.token),
        )
        .await;
    assert_eq!(failed.status(), 500);
    let broken = metrics().encode();
    assert_eq!(
        sample(&broken, "keydo_database_errors_total{kind=\"Other\"}")
            - sample(&after, "keydo_database_errors_total{kind=\"Other\"}"),
        1.0
    );

    // The same text over HTTP, on the metrics address.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(metrics::serve(listener));
    let answer = common::wire::get(address, "/metrics").await;
    assert_eq!(answer.status, 200);
    assert!(
        answer
            .head
            .contains("content-type: application/openmetrics-text")
    );
    let text = String::from_utf8(answer.body).unwrap();
    assert!(
        text.contains("# TYPE keydo_http_requests counter"),
        "{text}"
    );
    assert!(text.contains("keydo_http_requests_total{route=\"/api/scores\",status=\"500\"} "));
    assert!(text.ends_with("# EOF\n"));
}
