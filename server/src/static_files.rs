//! The built shell (`dist/`): files with their MIME types and a cache policy.
//!
//! tower-http's `ServeDir` reads the files and refuses paths that leave the directory;
//! where the build wrote a brotli or gzip copy beside a file (`x.wasm.br`), a client
//! that accepts it gets that copy as it is, with `Content-Encoding` (the router's own
//! compression then leaves the response alone).
//! This module adds what it does not know: Trunk's content-hashed assets never change,
//! so browsers may keep them for a year; everything else (`/`, `index.html`, `sw.js`,
//! the manifest, icons, the precache manifest, the worker scripts) must be revalidated,
//! or a deployment would be invisible until caches expire. A missing file is a plain
//! 404, never the HTML shell: the service worker must not precache a page as a script.
//! The shell's own addresses, a text's `/t/<short>` and a result's replay `/r/<code>`
//! (docs/genda.md), are `index.html` itself: the page reads its address.
//! A path no file can have (a segment longer than file systems allow, or an absurd
//! length) is a 404 before the file system is asked, which would answer with an error.

use axum::Router;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get_service;
use std::path::Path;
use tower_http::services::{ServeDir, ServeFile};

const HASHED: &str = "public, max-age=31536000, immutable";
const REVALIDATE: &str = "no-cache";
/// Trunk's content hash: `-<16 lowercase hex>` before the extension.
const HASH_LEN: usize = 16;
/// Longest file name Linux file systems take (`NAME_MAX`), in bytes.
const MAX_SEGMENT: usize = 255;
/// Longest path worth looking up; the shell's deepest file is far shorter.
const MAX_PATH: usize = 1024;

/// A router answering every path from `dist`.
pub fn router<S: Clone + Send + Sync + 'static>(dist: &Path) -> Router<S> {
    let files = ServeDir::new(dist)
        .append_index_html_on_directories(true)
        .precompressed_br()
        .precompressed_gzip();
    let shell = ServeFile::new(dist.join("index.html"));
    Router::new()
        .route("/t/{short}", get_service(shell.clone()))
        .route("/r/{code}", get_service(shell))
        .fallback_service(files)
        .layer(middleware::from_fn(with_headers))
}

/// Middleware: the cache policy by path, and `charset=utf-8` on text.
async fn with_headers(request: Request, next: Next) -> Response {
    if !could_be_a_file(request.uri().path()) {
        return StatusCode::NOT_FOUND.into_response();
    }
    let cache_control = if is_content_hashed(request.uri().path()) {
        HASHED
    } else {
        REVALIDATE
    };
    let mut response = next.run(request).await;
    if response.status().is_success() || response.status() == StatusCode::NOT_MODIFIED {
        response.headers_mut().insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static(cache_control),
        );
    }
    declare_utf8(&mut response);
    response
}

/// Whether `path` (still percent-encoded, so at least as long as the name it
/// encodes) fits what a file system can hold.
fn could_be_a_file(path: &str) -> bool {
    path.len() <= MAX_PATH && path.split('/').all(|segment| segment.len() <= MAX_SEGMENT)
}

/// Whether the last path segment carries Trunk's content hash, as in
/// `keydo-app-1a2b3c4d5e6f7a8b.js`, `keydo-app-1a2b3c4d5e6f7a8b_bg.wasm` or
/// `style-1a2b3c4d5e6f7a8b.css`.
fn is_content_hashed(path: &str) -> bool {
    let file_name = path.rsplit('/').next().unwrap_or_default();
    let stem = match file_name.strip_suffix("_bg.wasm") {
        Some(stem) => stem,
        None => file_name
            .rsplit_once('.')
            .map_or("", |(stem, _extension)| stem),
    };
    stem.rsplit_once('-').is_some_and(|(name, hash)| {
        !name.is_empty()
            && hash.len() == HASH_LEN
            && hash
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// Text files are UTF-8; saying so keeps browsers from guessing (the Chinese corpora
/// would turn into mojibake under a Latin-1 guess).
fn declare_utf8(response: &mut Response) {
    let Some(content_type) = response.headers().get(header::CONTENT_TYPE) else {
        return;
    };
    let Ok(content_type) = content_type.to_str() else {
        return;
    };
    let is_text = content_type.starts_with("text/")
        || matches!(
            content_type,
            "application/javascript" | "application/json" | "application/manifest+json"
        );
    if is_text && !content_type.contains("charset") {
        let with_charset = format!("{content_type}; charset=utf-8");
        if let Ok(value) = HeaderValue::from_str(&with_charset) {
            response.headers_mut().insert(header::CONTENT_TYPE, value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{could_be_a_file, is_content_hashed};

    #[test]
    fn paths_no_file_can_have_are_recognised() {
        assert!(could_be_a_file("/icons/icon-192.png"));
        assert!(could_be_a_file(&format!("/{}", "a".repeat(255))));
        assert!(!could_be_a_file(&format!("/{}", "a".repeat(256))));
        assert!(!could_be_a_file(&format!("/x/{}/y", "%41".repeat(100))));
        assert!(!could_be_a_file(&"/a".repeat(600)));
    }

    #[test]
    fn trunk_hashes_are_recognised() {
        assert!(is_content_hashed("/keydo-app-1a2b3c4d5e6f7a8b.js"));
        assert!(is_content_hashed("/keydo-app-1a2b3c4d5e6f7a8b_bg.wasm"));
        assert!(is_content_hashed("/style-0123456789abcdef.css"));
        assert!(is_content_hashed("/fonts/inter-0123456789abcdef.woff2"));
    }

    #[test]
    fn other_files_are_not_hashed() {
        for path in [
            "/",
            "/index.html",
            "/sw.js",
            "/manifest.webmanifest",
            "/precache-manifest.json",
            "/keydo_worker.js",
            "/keydo_worker_wasm.js",
            "/keydo_worker_bg.wasm",
            "/icons/icon-512.png",
            "/style-0123456789ABCDEF.css",
            "/style-0123456789abcde.css",
            "/-0123456789abcdef.css",
            "/app-0123456789abcdef",
        ] {
            assert!(!is_content_hashed(path), "{path}");
        }
    }
}
