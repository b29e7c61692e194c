//! A public deployment's concerns: client addresses behind trusted proxies, the public
//! origin, security headers, paths no file can have, database outages as 503, and the
//! binary's own refusal to start and its log lines.

mod common;

use axum::body::Body;
use axum::http::{Request, header};
use common::{
    MONDAY_2026_11_30_UTC8, Options, TestServer, assert_error, body_json, header, limits,
    post_json, with_token, words_game,
};
use keydo_core::week::week_of;
use keydo_server::client::{TrustedProxies, parse_network};
use keydo_server::origin;
use serde_json::json;
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::time::Duration;
use uuid::Uuid;

const PROXY: &str = "127.0.0.1:40000";

fn trusting(list: &[&str]) -> TrustedProxies {
    TrustedProxies::new(list.iter().map(|n| parse_network(n).unwrap()).collect())
}

fn health_for(forwarded_for: &str) -> Request<Body> {
    Request::get("/api/health")
        .header("x-forwarded-for", forwarded_for)
        .body(Body::empty())
        .unwrap()
}

#[tokio::test]
async fn behind_a_trusted_proxy_each_forwarded_client_has_its_own_budget() {
    let server = TestServer::start(Options {
        rate_limits: limits(2, 100, 1),
        trusted_proxies: trusting(&["127.0.0.1"]),
        ..Options::default()
    })
    .await;
    let proxy: SocketAddr = PROXY.parse().unwrap();
    for _ in 0..2 {
        let response = server.send_from(proxy, health_for("203.0.113.1")).await;
        assert_eq!(response.status(), 200);
    }
    let spent = server.send_from(proxy, health_for("203.0.113.1")).await;
    assert_error(spent, 429, "RATE_LIMITED").await;
    // The same client, having written its own header in front of the proxy's entry.
    let forged = server
        .send_from(proxy, health_for("198.51.100.7, 203.0.113.1"))
        .await;
    assert_error(forged, 429, "RATE_LIMITED").await;
    let other = server.send_from(proxy, health_for("203.0.113.2")).await;
    assert_eq!(other.status(), 200, "another client has its own budget");

    // New saves count per forwarded client too.
    let create = |client: &str| {
        let mut request = post_json("/api/saves", &json!({}));
        request
            .headers_mut()
            .insert("forwarded", format!("for={client}").parse().unwrap());
        request
    };
    assert_eq!(
        server.send_from(proxy, create("192.0.2.1")).await.status(),
        201
    );
    assert_error(
        server.send_from(proxy, create("192.0.2.1")).await,
        429,
        "RATE_LIMITED",
    )
    .await;
    assert_eq!(
        server.send_from(proxy, create("192.0.2.2")).await.status(),
        201
    );
}

#[tokio::test]
async fn a_client_forging_forwarding_headers_keeps_its_own_budget() {
    let server = TestServer::start(Options {
        rate_limits: limits(2, 100, 100),
        trusted_proxies: trusting(&["127.0.0.1"]),
        ..Options::default()
    })
    .await;
    let client: SocketAddr = "192.0.2.50:5000".parse().unwrap();
    for forged in ["203.0.113.1", "203.0.113.2"] {
        let response = server.send_from(client, health_for(forged)).await;
        assert_eq!(response.status(), 200);
    }
    let mut forwarded = Request::get("/api/health").body(Body::empty()).unwrap();
    forwarded
        .headers_mut()
        .insert("forwarded", "for=203.0.113.3".parse().unwrap());
    assert_error(
        server.send_from(client, forwarded).await,
        429,
        "RATE_LIMITED",
    )
    .await;
    assert_error(
        server.send_from(client, health_for("203.0.113.4")).await,
        429,
        "RATE_LIMITED",
    )
    .await;
}

#[tokio::test]
async fn forwarded_ipv6_clients_share_a_budget_per_64() {
    let server = TestServer::start(Options {
        rate_limits: limits(2, 100, 100),
        trusted_proxies: trusting(&["127.0.0.1"]),
        ..Options::default()
    })
    .await;
    let proxy: SocketAddr = PROXY.parse().unwrap();
    for client in ["2001:db8:1:2::1", "2001:db8:1:2:ffff::9"] {
        assert_eq!(
            server.send_from(proxy, health_for(client)).await.status(),
            200
        );
    }
    assert_error(
        server
            .send_from(proxy, health_for("[2001:db8:1:2::77]:443"))
            .await,
        429,
        "RATE_LIMITED",
    )
    .await;
    let neighbour = server.send_from(proxy, health_for("2001:db8:1:3::1")).await;
    assert_eq!(neighbour.status(), 200);
}

#[tokio::test]
async fn the_public_origin_is_compared_in_normal_form() {
    let server = TestServer::start(Options {
        public_origin: Some(origin::normalise("HTTPS://KeyDo.Example:443/").unwrap()),
        ..Options::default()
    })
    .await;
    let with_origin = |origin: &str| {
        let mut request = post_json("/api/saves", &json!({}));
        request
            .headers_mut()
            .insert(header::ORIGIN, origin.parse().unwrap());
        request
    };
    for ours in ["https://keydo.example", "https://KEYDO.example:443"] {
        assert_eq!(server.send(with_origin(ours)).await.status(), 201, "{ours}");
    }
    for foreign in ["http://keydo.example", "https://keydo.example:8443", "null"] {
        assert_error(
            server.send(with_origin(foreign)).await,
            403,
            "FORBIDDEN_ORIGIN",
        )
        .await;
    }
}

/// A dist whose index.html has an inline module script, as Trunk writes it.
fn dist_with_inline_script(script: &str) -> tempfile::TempDir {
    let dist = common::temp_dist();
    std::fs::write(
        dist.path().join("index.html"),
        format!("<!doctype html><script type=\"module\">{script}</script><title>KeyDo</title>"),
    )
    .unwrap();
    dist
}

fn sha256_source(script: &str) -> String {
    use base64::Engine;
    use sha2::Digest;
    let digest = sha2::Sha256::digest(script.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

#[tokio::test]
async fn every_response_carries_the_security_headers() {
    let script = "import init from '/keydo-app-1a2b3c4d5e6f7a8b.js'; init();";
    let dist = dist_with_inline_script(script);
    let server = TestServer::start(Options {
        dist: Some(dist.path().to_owned()),
        request_timeout: Duration::from_millis(300),
        ..Options::default()
    })
    .await;
    let stalled = Request::post("/api/saves")
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from_stream(futures_util::stream::pending::<
            Result<axum::body::Bytes, std::io::Error>,
        >()))
        .unwrap();
    let mut responses = Vec::new();
    for path in [
        "/",
        "/index.html",
        "/keydo-app-1a2b3c4d5e6f7a8b.js",
        "/sw.js",
        "/missing.js",
        "/api/saves/me",
        "/api/health",
    ] {
        responses.push((path.to_owned(), server.get(path).await));
    }
    responses.push(("a timed-out request".to_owned(), server.send(stalled).await));
    for (what, response) in responses {
        let policy = header(&response, "content-security-policy");
        assert!(
            policy.starts_with("script-src 'self' 'wasm-unsafe-eval' "),
            "{what}: {policy}"
        );
        assert!(policy.contains(&sha256_source(script)), "{what}: {policy}");
        for directive in [
            "default-src 'self'",
            "connect-src 'self'",
            "worker-src 'self'",
            "manifest-src 'self'",
            "frame-ancestors 'none'",
            "base-uri 'none'",
            "object-src 'none'",
        ] {
            assert!(policy.contains(directive), "{what}: {directive}");
        }
        assert!(!policy.contains("unsafe-inline"), "{what}");
        assert_eq!(
            header(&response, "x-content-type-options"),
            "nosniff",
            "{what}"
        );
        assert_eq!(
            header(&response, "referrer-policy"),
            "no-referrer",
            "{what}"
        );
        assert_eq!(header(&response, "x-frame-options"), "DENY", "{what}");
        assert_eq!(
            header(&response, "cross-origin-opener-policy"),
            "same-origin",
            "{what}"
        );
        assert!(
            response
                .headers()
                .get("strict-transport-security")
                .is_none(),
            "{what}: plain HTTP sets no HSTS"
        );
    }
}

#[tokio::test]
async fn a_new_index_html_brings_its_own_script_hash() {
    let dist = dist_with_inline_script("init(1);");
    let server = TestServer::start(Options {
        dist: Some(dist.path().to_owned()),
        public_origin: Some("https://keydo.example".into()),
        ..Options::default()
    })
    .await;
    let before = server.get("/").await;
    assert!(header(&before, "content-security-policy").contains(&sha256_source("init(1);")));
    assert_eq!(
        header(&before, "strict-transport-security"),
        "max-age=31536000"
    );
    // A deployment replaces index.html under the running server.
    std::thread::sleep(Duration::from_millis(20));
    std::fs::write(
        dist.path().join("index.html"),
        "<script type=\"module\">init(2);</script>",
    )
    .unwrap();
    let after = server.get("/").await;
    let policy = header(&after, "content-security-policy");
    assert!(policy.contains(&sha256_source("init(2);")), "{policy}");
    assert!(!policy.contains(&sha256_source("init(1);")), "{policy}");
}

#[tokio::test]
async fn paths_no_file_can_have_are_404_not_500() {
    let server = TestServer::sqlite().await;
    let long = "a".repeat(300);
    for path in [
        format!("/{long}"),
        format!("/icons/{long}.png"),
        format!("/{long}/x"),
        format!("/{}", "%E9%94%AE".repeat(40)),
        "/x".repeat(700),
    ] {
        let response = server.get(&path).await;
        assert_eq!(response.status(), 404, "{}", &path[..40]);
    }
    assert_error(server.get(&format!("/api/{long}")).await, 404, "NOT_FOUND").await;
}

#[tokio::test]
async fn a_locked_database_is_503_with_retry_after() {
    let server = TestServer::sqlite().await;
    let save = server.create_save().await;
    assert_eq!(server.get("/api/ready").await.status(), 200);
    // Another process holds SQLite's write lock past the busy timeout.
    let saboteur = rusqlite::Connection::open(server.sqlite_path()).unwrap();
    saboteur.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let game = words_game(
        Uuid::new_v4(),
        week_of(MONDAY_2026_11_30_UTC8),
        300,
        MONDAY_2026_11_30_UTC8,
    );
    let response = server
        .send(with_token(post_json("/api/scores", &game), save.token))
        .await;
    assert_eq!(header(&response, "retry-after"), "5");
    assert_error(response, 503, "DATABASE_UNAVAILABLE").await;
    saboteur.execute_batch("ROLLBACK").unwrap();
    let ready = server.get("/api/ready").await;
    assert_eq!(ready.status(), 200);
    assert_eq!(
        body_json(ready).await,
        json!({ "status": "ready", "database": "writable" })
    );
    let document = body_json(server.get("/api/openapi.json").await).await;
    assert!(
        document["paths"]["/api/ready"]["get"].is_object(),
        "/api/ready is documented"
    );
    let retried = server
        .send(with_token(post_json("/api/scores", &game), save.token))
        .await;
    assert_eq!(retried.status(), 200);
    assert_eq!(body_json(retried).await["improved"], true);
}

/// Runs the `keydo-server` binary with `args`; returns its exit status and output.
fn run_binary(args: &[&str]) -> (std::process::ExitStatus, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_keydo-server"))
        .args(args)
        .env("RUST_LOG", "info")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status, text)
}

#[test]
fn off_loopback_without_a_public_origin_the_server_refuses_to_start() {
    let data = tempfile::TempDir::new().unwrap();
    let data_dir = data.path().to_str().unwrap();
    let (status, output) = run_binary(&["--addr", "0.0.0.0:0", "--data-dir", data_dir]);
    assert!(!status.success());
    assert!(
        output.contains("set --public-origin (or KEYDO_PUBLIC_ORIGIN)"),
        "{output}"
    );
    let (status, output) = run_binary(&[
        "--addr",
        "127.0.0.1:0",
        "--data-dir",
        data_dir,
        "--public-origin",
        "https://keydo.example/play",
    ]);
    assert!(!status.success());
    assert!(output.contains("--public-origin: "), "{output}");
}

/// The binary end to end: logs name the error code and cap the echoed path, and
/// SIGTERM stops it cleanly.
#[tokio::test]
async fn log_lines_cap_the_path_and_name_the_code() {
    let data = tempfile::TempDir::new().unwrap();
    let dist = common::temp_dist();
    let mut child = Command::new(env!("CARGO_BIN_EXE_keydo-server"))
        .args(["--addr", "127.0.0.1:0", "--dist"])
        .arg(dist.path())
        .arg("--data-dir")
        .arg(data.path())
        .env("RUST_LOG", "info")
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let address: SocketAddr = lines
        .by_ref()
        .take(20)
        .map(Result::unwrap)
        .find_map(|line| {
            let rest = line.split("addr=").nth(1)?;
            rest.split_whitespace().next()?.parse().ok()
        })
        .expect("a `listening addr=...` line");
    let long_path = format!("/api/{}", "z".repeat(5_000));
    let answer = common::wire::get(address, &long_path).await;
    assert_eq!(answer.status, 404);
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    assert!(child.wait().unwrap().success(), "SIGTERM is a clean stop");
    let rest: Vec<String> = lines.map(Result::unwrap).collect();
    let line = rest
        .iter()
        .find(|line| line.contains("answered"))
        .expect("a log line for the request");
    assert!(line.contains("status=404"), "{line}");
    assert!(
        line.contains("code=\"NOT_FOUND\"") || line.contains("code=NOT_FOUND"),
        "{line}"
    );
    assert!(
        line.len() < 600,
        "the 5 kB path was echoed: {} bytes",
        line.len()
    );
    assert!(line.contains(&format!("{}…", "z".repeat(195))), "{line}");
    assert!(rest.iter().any(|line| line.contains("stopped")), "{rest:?}");
}
