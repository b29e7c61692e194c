//! Serving the built shell: MIME types, cache policy, compression, 404s and traversal.

mod common;

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use common::{Options, TestServer, assert_error, body_bytes, header};

#[tokio::test]
async fn files_have_their_mime_types() {
    let server = TestServer::sqlite().await;
    for (path, content_type) in [
        ("/", "text/html; charset=utf-8"),
        ("/index.html", "text/html; charset=utf-8"),
        ("/keydo-app-1a2b3c4d5e6f7a8b_bg.wasm", "application/wasm"),
        ("/keydo_worker_bg.wasm", "application/wasm"),
        (
            "/manifest.webmanifest",
            "application/manifest+json; charset=utf-8",
        ),
        (
            "/keydo-app-1a2b3c4d5e6f7a8b.js",
            "text/javascript; charset=utf-8",
        ),
        ("/sw.js", "text/javascript; charset=utf-8"),
        ("/style-0123456789abcdef.css", "text/css; charset=utf-8"),
        ("/icons/icon-192.png", "image/png"),
        ("/precache-manifest.json", "application/json; charset=utf-8"),
        ("/corpus/zh.txt", "text/plain; charset=utf-8"),
    ] {
        let response = server.get(path).await;
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        assert_eq!(header(&response, "content-type"), content_type, "{path}");
    }
}

#[tokio::test]
async fn root_serves_index_html() {
    let server = TestServer::sqlite().await;
    let body = body_bytes(server.get("/").await).await;
    assert_eq!(body, b"<!doctype html><title>KeyDo</title>");
}

#[tokio::test]
async fn text_and_replay_links_serve_the_shell() {
    let server = TestServer::sqlite().await;
    for path in ["/t/0123456789ab", "/r/ABC234"] {
        let response = server.get(path).await;
        assert_eq!(response.status(), 200, "{path}");
        assert_eq!(response.headers()["cache-control"], "no-cache", "{path}");
        let body = body_bytes(response).await;
        assert_eq!(body, b"<!doctype html><title>KeyDo</title>", "{path}");
    }
    // Deeper paths under them are files, and there are none.
    assert_eq!(server.get("/t/0123456789ab/x").await.status(), 404);
}

#[tokio::test]
async fn hashed_assets_are_immutable_and_the_rest_revalidates() {
    let server = TestServer::sqlite().await;
    for path in [
        "/keydo-app-1a2b3c4d5e6f7a8b.js",
        "/keydo-app-1a2b3c4d5e6f7a8b_bg.wasm",
        "/style-0123456789abcdef.css",
    ] {
        let response = server.get(path).await;
        assert_eq!(
            header(&response, "cache-control"),
            "public, max-age=31536000, immutable",
            "{path}"
        );
    }
    for path in [
        "/",
        "/index.html",
        "/sw.js",
        "/manifest.webmanifest",
        "/icons/icon-192.png",
        "/precache-manifest.json",
        "/keydo_worker.js",
        "/keydo_worker_wasm.js",
        "/keydo_worker_bg.wasm",
    ] {
        let response = server.get(path).await;
        assert_eq!(header(&response, "cache-control"), "no-cache", "{path}");
    }
}

#[tokio::test]
async fn compressible_files_are_compressed() {
    let server = TestServer::sqlite().await;
    let big_script = "console.log('KeyDo');\n".repeat(200);
    std::fs::write(server.dist().join("big.js"), &big_script).unwrap();
    for encoding in ["gzip", "br"] {
        let request = Request::get("/big.js")
            .header(header::ACCEPT_ENCODING, encoding)
            .body(Body::empty())
            .unwrap();
        let response = server.send(request).await;
        assert_eq!(header(&response, "content-encoding"), encoding);
        assert!(body_bytes(response).await.len() < big_script.len() / 4);
    }
}

#[tokio::test]
async fn precompressed_copies_are_sent_as_they_are() {
    let server = TestServer::sqlite().await;
    let wasm = "keydo-app-1a2b3c4d5e6f7a8b_bg.wasm";
    // Stand-ins the server cannot have made: it must send these bytes untouched.
    std::fs::write(server.dist().join(format!("{wasm}.br")), b"brotli bytes").unwrap();
    std::fs::write(server.dist().join(format!("{wasm}.gz")), b"gzip bytes").unwrap();
    for (accept, encoding, body) in [
        ("br, gzip", "br", &b"brotli bytes"[..]),
        ("gzip", "gzip", &b"gzip bytes"[..]),
    ] {
        let request = Request::get(format!("/{wasm}"))
            .header(header::ACCEPT_ENCODING, accept)
            .body(Body::empty())
            .unwrap();
        let response = server.send(request).await;
        assert_eq!(response.status(), StatusCode::OK, "{accept}");
        assert_eq!(header(&response, "content-encoding"), encoding);
        assert_eq!(header(&response, "content-type"), "application/wasm");
        assert_eq!(header(&response, "vary"), "accept-encoding");
        assert_eq!(
            header(&response, "cache-control"),
            "public, max-age=31536000, immutable"
        );
        assert_eq!(body_bytes(response).await, body, "{accept}");
    }
    // A client that takes no encoding gets the file itself.
    let plain = body_bytes(server.get(&format!("/{wasm}")).await).await;
    assert_ne!(plain, b"brotli bytes");
}

#[tokio::test]
async fn a_missing_asset_is_a_plain_404() {
    let server = TestServer::sqlite().await;
    for path in [
        "/missing.js",
        "/icons/missing.png",
        "/deep/er/missing.wasm",
        "/leaderboard",
    ] {
        let response = server.get(path).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
        let body = body_bytes(response).await;
        assert!(
            !String::from_utf8_lossy(&body).contains("<title>KeyDo"),
            "{path} got the shell"
        );
    }
}

#[tokio::test]
async fn unknown_api_paths_are_json_404s() {
    let server = TestServer::sqlite().await;
    for path in [
        "/api",
        "/api/",
        "/api/nope",
        "/api/index.html",
        "/api/saves/me/extra",
    ] {
        assert_error(server.get(path).await, 404, "NOT_FOUND").await;
    }
}

#[tokio::test]
async fn traversal_never_leaves_dist() {
    let root = tempfile::TempDir::new().unwrap();
    let dist = root.path().join("dist");
    std::fs::create_dir(&dist).unwrap();
    std::fs::write(dist.join("index.html"), "shell").unwrap();
    std::fs::write(root.path().join("secret.txt"), "SECRET").unwrap();
    let server = TestServer::start(Options {
        dist: Some(dist),
        ..Options::default()
    })
    .await;
    for path in [
        "/../secret.txt",
        "/%2e%2e/secret.txt",
        "/%2E%2E/secret.txt",
        "/.%2e/secret.txt",
        "/%2e%2e%2fsecret.txt",
        "/..%2fsecret.txt",
        "/..%5csecret.txt",
        "/icons/../../secret.txt",
        "/%00",
        "/index.html%00",
        "/secret.txt%00.html",
        "//secret.txt",
        "/%252e%252e/secret.txt",
        "/%ff%fe",
    ] {
        let response = server.get(path).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
        let body = body_bytes(response).await;
        assert!(
            !String::from_utf8_lossy(&body).contains("SECRET"),
            "{path} leaked"
        );
    }
}

#[tokio::test]
async fn every_response_has_a_fresh_request_id() {
    let server = TestServer::sqlite().await;
    let request = Request::get("/")
        .header("x-request-id", "chosen-by-client")
        .body(Body::empty())
        .unwrap();
    let first = server.send(request).await;
    let second = server.get("/missing").await;
    let (first, second) = (
        header(&first, "x-request-id"),
        header(&second, "x-request-id"),
    );
    assert_ne!(first, "chosen-by-client");
    assert_ne!(first, second);
    assert!(uuid::Uuid::parse_str(first).is_ok());
}

#[tokio::test]
async fn health_reports_the_database() {
    let server = TestServer::sqlite().await;
    let response = server.get("/api/health").await;
    assert_eq!(response.status(), 200);
    assert_eq!(header(&response, "cache-control"), "no-store");
    assert_eq!(
        common::body_json(response).await,
        serde_json::json!({ "status": "ok", "database": "ok" })
    );
}

#[tokio::test]
async fn the_openapi_document_describes_every_route() {
    let server = TestServer::sqlite().await;
    let response = server.get("/api/openapi.json").await;
    assert_eq!(response.status(), 200);
    let document = common::body_json(response).await;
    assert!(document["openapi"].as_str().unwrap().starts_with("3.1"));
    for path in [
        "/api/health",
        "/api/saves",
        "/api/saves/me",
        "/api/scores",
        "/api/leaderboard",
        "/api/boards",
        "/api/texts/{hash}",
        "/api/results/{code}/replay",
    ] {
        assert!(
            document["paths"].get(path).is_some(),
            "{path} is not documented"
        );
    }
}
