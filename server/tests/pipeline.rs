//! The API pipeline of docs/api.md, one test per row of its status matrix, plus the order
//! of the steps: origin → auth → rate limits → bounded JSON → handler.

mod common;

use axum::body::{Body, Bytes};
use axum::http::{Request, header};
use common::{
    MONDAY_2026_11_30_UTC8, Options, TestServer, assert_error, body_json, client_addr, header,
    limits, post_json, with_token, words_game,
};
use keydo_core::api::MAX_SCORE_BODY_BYTES;
use serde_json::json;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const UNKNOWN_TOKEN: &str = "6f1c1f5e-8a4e-4b8e-9d43-2f4c1d0b9a11";
const MAX_BODY: usize = 100 * 1024;

fn get_me(token: impl std::fmt::Display) -> Request<Body> {
    with_token(
        Request::get("/api/saves/me").body(Body::empty()).unwrap(),
        token,
    )
}

fn with_origin(mut request: Request<Body>, origin: &str) -> Request<Body> {
    request
        .headers_mut()
        .insert(header::ORIGIN, origin.parse().unwrap());
    request
        .headers_mut()
        .insert(header::HOST, "keydo.test".parse().unwrap());
    request
}

fn raw_post(uri: &str, content_type: &str, body: impl Into<Body>) -> Request<Body> {
    Request::post(uri)
        .header(header::CONTENT_TYPE, content_type)
        .body(body.into())
        .unwrap()
}

fn a_game() -> serde_json::Value {
    words_game(1, 80, MONDAY_2026_11_30_UTC8)
}

#[tokio::test]
async fn a_foreign_origin_is_403() {
    let server = TestServer::sqlite().await;
    for origin in [
        "http://evil.example",
        "https://keydo.test",
        "null",
        "http://keydo.test.evil.example",
    ] {
        let response = server
            .send(with_origin(post_json("/api/saves", &json!({})), origin))
            .await;
        assert_error(response, 403, "FORBIDDEN_ORIGIN").await;
    }
    let same_origin = server
        .send(with_origin(
            post_json("/api/saves", &json!({})),
            "http://keydo.test",
        ))
        .await;
    assert_eq!(same_origin.status(), 201);
    let no_origin = server.send(post_json("/api/saves", &json!({}))).await;
    assert_eq!(no_origin.status(), 201);
}

#[tokio::test]
async fn behind_a_proxy_the_public_origin_is_ours() {
    let options = Options {
        public_origin: Some("https://keydo.example".into()),
        ..Options::default()
    };
    let server = TestServer::start(options).await;
    let ours = server
        .send(with_origin(
            post_json("/api/saves", &json!({})),
            "https://keydo.example",
        ))
        .await;
    assert_eq!(ours.status(), 201);
    let by_host = server
        .send(with_origin(
            post_json("/api/saves", &json!({})),
            "http://keydo.test",
        ))
        .await;
    assert_error(by_host, 403, "FORBIDDEN_ORIGIN").await;
}

#[tokio::test]
async fn no_cors_header_is_ever_sent() {
    let server = TestServer::sqlite().await;
    let preflight = Request::options("/api/scores")
        .header(header::ORIGIN, "http://evil.example")
        .header(header::ACCESS_CONTROL_REQUEST_METHOD, "POST")
        .body(Body::empty())
        .unwrap();
    let same_origin = with_origin(
        Request::get("/api/health").body(Body::empty()).unwrap(),
        "http://keydo.test",
    );
    for request in [preflight, same_origin] {
        let response = server.send(request).await;
        let cors: Vec<_> = response
            .headers()
            .keys()
            .filter(|name| name.as_str().starts_with("access-control-"))
            .collect();
        assert!(cors.is_empty(), "{cors:?}");
    }
}

#[tokio::test]
async fn a_missing_malformed_or_unknown_token_is_401() {
    let server = TestServer::sqlite().await;
    let missing = Request::get("/api/saves/me").body(Body::empty()).unwrap();
    assert_error(server.send(missing).await, 401, "UNAUTHORIZED").await;
    for authorization in [
        format!("Bearer {UNKNOWN_TOKEN}"),
        format!("bearer {UNKNOWN_TOKEN}"),
        "Bearer not-a-token".to_owned(),
        format!("Basic {UNKNOWN_TOKEN}"),
    ] {
        let request = Request::post("/api/scores")
            .header(header::AUTHORIZATION, authorization)
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(a_game().to_string()))
            .unwrap();
        assert_error(server.send(request).await, 401, "UNAUTHORIZED").await;
    }
    // The leaderboard is open, but a token that is present must be valid.
    let board = with_token(
        Request::get("/api/leaderboard?mode=zh&board=weekly")
            .body(Body::empty())
            .unwrap(),
        UNKNOWN_TOKEN,
    );
    assert_error(server.send(board).await, 401, "UNAUTHORIZED").await;
}

#[tokio::test]
async fn tokens_are_checked_before_the_body_is_read() {
    let server = TestServer::sqlite().await;
    let request = with_token(
        raw_post("/api/scores", "text/plain", "not json"),
        UNKNOWN_TOKEN,
    );
    assert_error(server.send(request).await, 401, "UNAUTHORIZED").await;
}

#[tokio::test]
async fn the_origin_is_checked_before_the_token() {
    let server = TestServer::sqlite().await;
    let request = with_origin(get_me(UNKNOWN_TOKEN), "http://evil.example");
    assert_error(server.send(request).await, 403, "FORBIDDEN_ORIGIN").await;
}

#[tokio::test]
async fn too_many_requests_from_one_ip_is_429_with_retry_after_60() {
    let server = TestServer::start(Options {
        rate_limits: limits(3, 100, 100),
        ..Options::default()
    })
    .await;
    for _ in 0..3 {
        assert_eq!(
            server
                .get("/api/leaderboard?mode=time&board=alltime")
                .await
                .status(),
            200
        );
    }
    let response = server.get("/api/leaderboard?mode=time&board=alltime").await;
    assert_eq!(header(&response, "retry-after"), "60");
    assert_error(response, 429, "RATE_LIMITED").await;
    // Another address has its own budget.
    let elsewhere = server
        .send_from(
            "192.0.2.9:5000".parse().unwrap(),
            Request::get("/api/health").body(Body::empty()).unwrap(),
        )
        .await;
    assert_eq!(elsewhere.status(), 200);
}

#[tokio::test]
async fn too_many_requests_from_one_save_is_429_with_retry_after_60() {
    let server = TestServer::start(Options {
        rate_limits: limits(1_000, 2, 100),
        ..Options::default()
    })
    .await;
    let save = server.create_save().await;
    let other = server.create_save().await;
    for _ in 0..2 {
        assert_eq!(server.send(get_me(save.token)).await.status(), 200);
    }
    let response = server.send(get_me(save.token)).await;
    assert_eq!(header(&response, "retry-after"), "60");
    assert_error(response, 429, "RATE_LIMITED").await;
    assert_eq!(
        server.send(get_me(other.token)).await.status(),
        200,
        "budgets are per save"
    );
}

#[tokio::test]
async fn an_ip_creates_at_most_two_saves_per_60_seconds() {
    // The default limit, with generous general limits around it.
    let server = TestServer::start(Options {
        rate_limits: limits(1_000, 1_000, 2),
        ..Options::default()
    })
    .await;
    for _ in 0..2 {
        assert_eq!(
            server
                .send(post_json("/api/saves", &json!({})))
                .await
                .status(),
            201
        );
    }
    let third = server.send(post_json("/api/saves", &json!({}))).await;
    assert_eq!(header(&third, "retry-after"), "60");
    assert_error(third, 429, "RATE_LIMITED").await;
    let elsewhere = server
        .send_from(
            "192.0.2.10:1".parse().unwrap(),
            post_json("/api/saves", &json!({})),
        )
        .await;
    assert_eq!(elsewhere.status(), 201);
}

#[tokio::test]
async fn failed_authentications_spend_the_ip_budget() {
    let server = TestServer::start(Options {
        rate_limits: limits(3, 100, 100),
        ..Options::default()
    })
    .await;
    for _ in 0..3 {
        assert_error(
            server.send(get_me(UNKNOWN_TOKEN)).await,
            401,
            "UNAUTHORIZED",
        )
        .await;
    }
    assert_error(
        server.send(get_me(UNKNOWN_TOKEN)).await,
        429,
        "RATE_LIMITED",
    )
    .await;
}

/// A request without a token to a route that needs a save spends the per-IP budget
/// once, as a wrong token does, and is refused before its body is read.
#[tokio::test]
async fn missing_tokens_spend_the_ip_budget_once_each() {
    let server = TestServer::start(Options {
        rate_limits: limits(3, 100, 100),
        ..Options::default()
    })
    .await;
    let untokened = || raw_post("/api/scores", "text/plain", "not json");
    for _ in 0..3 {
        assert_error(server.send(untokened()).await, 401, "UNAUTHORIZED").await;
    }
    assert_error(server.send(untokened()).await, 429, "RATE_LIMITED").await;
}

#[tokio::test]
async fn rate_limits_are_spent_before_the_body_is_read() {
    let server = TestServer::start(Options {
        rate_limits: limits(1_000, 1, 100),
        ..Options::default()
    })
    .await;
    let save = server.create_save().await;
    assert_eq!(server.send(get_me(save.token)).await.status(), 200);
    let broken = with_token(
        raw_post("/api/scores", "application/json", "{not json"),
        save.token,
    );
    assert_error(server.send(broken).await, 429, "RATE_LIMITED").await;
}

#[tokio::test]
async fn a_body_that_is_not_json_is_415() {
    let server = TestServer::sqlite().await;
    for content_type in [
        "text/plain",
        "application/merge-patch+json",
        "application/json; charset=latin1",
        "text/json",
    ] {
        let response = server
            .send(raw_post("/api/saves", content_type, "{}"))
            .await;
        assert_error(response, 415, "UNSUPPORTED_MEDIA_TYPE").await;
    }
    let without = Request::post("/api/saves").body(Body::from("{}")).unwrap();
    assert_error(server.send(without).await, 415, "UNSUPPORTED_MEDIA_TYPE").await;
    let with_charset = server
        .send(raw_post(
            "/api/saves",
            "application/json; charset=utf-8",
            "{}",
        ))
        .await;
    assert_eq!(with_charset.status(), 201);
}

#[tokio::test]
async fn a_content_length_over_100_kib_is_413_unread() {
    let server = TestServer::sqlite().await;
    // The declared length is refused as such: the short body is never read.
    let request = Request::post("/api/saves")
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::CONTENT_LENGTH, (MAX_BODY + 1).to_string())
        .body(Body::from("{}"))
        .unwrap();
    assert_error(server.send(request).await, 413, "PAYLOAD_TOO_LARGE").await;
}

#[tokio::test]
async fn exactly_100_kib_is_accepted_and_one_byte_more_is_413() {
    let server = TestServer::sqlite().await;
    let padded = |len: usize| {
        let mut body = String::from("{}");
        body.insert_str(1, &" ".repeat(len - 2));
        body
    };
    let at_cap = server
        .send(raw_post("/api/saves", "application/json", padded(MAX_BODY)))
        .await;
    assert_eq!(at_cap.status(), 201);
    let over = server
        .send(raw_post(
            "/api/saves",
            "application/json",
            padded(MAX_BODY + 1),
        ))
        .await;
    assert_error(over, 413, "PAYLOAD_TOO_LARGE").await;
}

/// A score's body has a limit of its own, above the others': the longest game the log
/// bounds allow, on the longest text a player may load, is never refused for its size.
#[tokio::test]
async fn a_score_body_is_read_up_to_its_own_limit_and_one_byte_more_is_413() {
    const { assert!(MAX_SCORE_BODY_BYTES > MAX_BODY) };
    let server = TestServer::sqlite().await;
    let save = server.create_save().await;
    let game = serde_json::to_string(&a_game()).unwrap();
    let padded = |len: usize| {
        let mut body = game.clone();
        body.insert_str(1, &" ".repeat(len - game.len()));
        body
    };
    let post = |body: String| {
        with_token(
            raw_post("/api/scores", "application/json", body),
            save.token,
        )
    };
    let over = server.send(post(padded(MAX_SCORE_BODY_BYTES + 1))).await;
    let body = assert_error(over, 413, "PAYLOAD_TOO_LARGE").await;
    assert_eq!(
        body["error"]["message"],
        format!(
            "The request body is larger than {} KiB.",
            MAX_SCORE_BODY_BYTES / 1024
        )
    );
    assert_eq!(server.count_rows("results").await, 0);
    let at_cap = server.send(post(padded(MAX_SCORE_BODY_BYTES))).await;
    assert_eq!(at_cap.status(), 200);
    assert_eq!(server.count_rows("results").await, 1);
}

/// Over a real connection: a chunked body without `Content-Length` that never ends is
/// answered 413 once 100 KiB have arrived. Had the server waited for the rest, the
/// answer would never come.
#[tokio::test]
async fn a_streamed_body_over_100_kib_is_413_without_reading_the_rest() {
    let server = TestServer::sqlite().await;
    let address = server.listen().await;
    let mut connection = tokio::net::TcpStream::connect(address).await.unwrap();
    let head = format!(
        "POST /api/saves HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Transfer-Encoding: chunked\r\n\r\n"
    );
    connection.write_all(head.as_bytes()).await.unwrap();
    let chunk = [b' '; 4096];
    for _ in 0..(MAX_BODY / chunk.len() + 2) {
        connection
            .write_all(format!("{:x}\r\n", chunk.len()).as_bytes())
            .await
            .unwrap();
        connection.write_all(&chunk).await.unwrap();
        connection.write_all(b"\r\n").await.unwrap();
    }
    // No terminating chunk: the body is unfinished.
    let mut answer = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(10), async {
        let mut buffer = [0; 1024];
        while !answer.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = connection.read(&mut buffer).await.unwrap();
            assert!(n > 0, "the server closed without answering");
            answer.extend_from_slice(&buffer[..n]);
        }
    })
    .await;
    assert!(read.is_ok(), "no answer while the body was unfinished");
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 413 "), "{answer}");
    assert!(
        answer.to_ascii_lowercase().contains("x-request-id: "),
        "{answer}"
    );
}

#[tokio::test]
async fn a_body_that_is_not_utf8_is_400() {
    let server = TestServer::sqlite().await;
    let bytes = Bytes::from_static(b"{\"displayName\":\"\xff\xfe\"}");
    let response = server
        .send(raw_post("/api/saves", "application/json", bytes))
        .await;
    assert_error(response, 400, "INVALID_UTF8").await;
}

#[tokio::test]
async fn a_body_that_is_not_json_syntax_is_400() {
    let server = TestServer::sqlite().await;
    for body in ["{\"displayName\":", "", "{'displayName': 'x'}", "{} {}"] {
        let response = server
            .send(raw_post("/api/saves", "application/json", body))
            .await;
        let error = assert_error(response, 400, "INVALID_JSON").await;
        assert!(
            !error.to_string().contains("line"),
            "a parser message leaked: {error}"
        );
    }
}

#[tokio::test]
async fn json_of_the_wrong_shape_is_422() {
    let server = TestServer::sqlite().await;
    let save = server.create_save().await;
    for body in [
        json!({ "nickname": "x" }),
        json!({ "displayName": 5 }),
        json!([]),
    ] {
        let response = server.send(post_json("/api/saves", &body)).await;
        let error = assert_error(response, 422, "INVALID_BODY").await;
        assert!(
            !error.to_string().contains("nickname"),
            "a parser message leaked: {error}"
        );
    }
    let mut unknown_top = a_game();
    unknown_top["extra"] = json!(true);
    let mut unknown_stats = a_game();
    unknown_stats["stats"]["extra"] = json!(1);
    let mut missing = a_game();
    missing.as_object_mut().unwrap().remove("playedAt");
    let mut unknown_mode = a_game();
    unknown_mode["mode"] = json!("chess");
    let mut not_a_uuid = a_game();
    not_a_uuid["scoreId"] = json!("score-1");
    let mut negative = a_game();
    negative["stats"]["errors"] = json!(-1);
    for body in [
        unknown_top,
        unknown_stats,
        missing,
        unknown_mode,
        not_a_uuid,
        negative,
    ] {
        let response = server
            .send(with_token(post_json("/api/scores", &body), save.token))
            .await;
        assert_error(response, 422, "INVALID_BODY").await;
    }
}

#[tokio::test]
async fn an_implausible_game_is_422_with_its_code() {
    let server = TestServer::sqlite().await;
    let save = server.create_save().await;
    let mut wrong_value = a_game();
    wrong_value["value"] = json!(wrong_value["value"].as_i64().unwrap() + 1);
    let mut wrong_stats = a_game();
    wrong_stats["stats"]["durationMs"] = json!(2_000);
    // Real games, replayed: 50 words in under 3 s, and at 400 WPM.
    let too_short = words_game(2, 6_000, MONDAY_2026_11_30_UTC8);
    let too_fast = words_game(3, 400, MONDAY_2026_11_30_UTC8);
    for (game, code) in [
        (wrong_value, "REPLAY_MISMATCH"),
        (wrong_stats, "REPLAY_MISMATCH"),
        (too_short, "TOO_SHORT"),
        (too_fast, "TOO_FAST"),
    ] {
        let response = server
            .send(with_token(post_json("/api/scores", &game), save.token))
            .await;
        assert_error(response, 422, code).await;
    }
    let board = server
        .get("/api/leaderboard?mode=words&board=alltime")
        .await;
    assert_eq!(
        body_json(board).await["entries"],
        json!([]),
        "nothing implausible was recorded"
    );
}

#[tokio::test]
async fn bad_leaderboard_parameters_are_400_with_codes() {
    let server = TestServer::sqlite().await;
    for (query, code) in [
        ("board=weekly", "INVALID_MODE"),
        ("mode=chess&board=weekly", "INVALID_MODE"),
        ("mode=time", "INVALID_BOARD"),
        ("mode=time&board=monthly", "INVALID_BOARD"),
        ("mode=time&board=weekly&limit=0", "INVALID_LIMIT"),
        ("mode=time&board=weekly&limit=101", "INVALID_LIMIT"),
        ("mode=time&board=weekly&limit=ten", "INVALID_LIMIT"),
    ] {
        let response = server.get(&format!("/api/leaderboard?{query}")).await;
        assert_error(response, 400, code).await;
    }
    let ok = server
        .get("/api/leaderboard?mode=time&board=weekly&limit=100")
        .await;
    assert_eq!(ok.status(), 200);
}

#[tokio::test]
async fn an_unknown_api_path_or_method_is_json() {
    let server = TestServer::sqlite().await;
    assert_error(server.get("/api/scores/123").await, 404, "NOT_FOUND").await;
    let wrong_method = Request::delete("/api/saves").body(Body::empty()).unwrap();
    assert_error(server.send(wrong_method).await, 405, "METHOD_NOT_ALLOWED").await;
}

/// An injected fault: the table the write needs is gone. The client learns only that
/// the service is briefly unavailable.
#[tokio::test]
async fn an_unexpected_failure_is_500_without_internals() {
    let server = TestServer::sqlite().await;
    let save = server.create_save().await;
    let saboteur = rusqlite::Connection::open(server.sqlite_path()).unwrap();
    saboteur.execute_batch("DROP TABLE weekly_scores").unwrap();
    let response = server
        .send(with_token(post_json("/api/scores", &a_game()), save.token))
        .await;
    let error = assert_error(response, 500, "INTERNAL").await;
    assert_eq!(
        error["error"]["message"],
        "The service is briefly unavailable. Please try again."
    );
    let text = error.to_string().to_lowercase();
    for internal in ["weekly_scores", "sqlite", "table", "sql"] {
        assert!(!text.contains(internal), "{internal} leaked: {text}");
    }
}

#[tokio::test]
async fn a_request_that_takes_too_long_is_503() {
    let options = Options {
        request_timeout: Duration::from_millis(200),
        ..Options::default()
    };
    let server = TestServer::start(options).await;
    // A body that never arrives.
    let stalled = futures_util::stream::pending::<Result<Bytes, std::io::Error>>();
    let request = raw_post("/api/saves", "application/json", Body::from_stream(stalled));
    let response = server.send_from(client_addr(), request).await;
    assert_error(response, 503, "UNAVAILABLE").await;
}
