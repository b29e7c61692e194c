//! Security headers on every response, the shell's files and the API's answers alike
//! (errors and timeouts included): what the page may load, that types are not sniffed,
//! that no other site frames or reads it.
//!
//! The Content-Security-Policy allows only this origin, plus what the shell needs:
//! `'wasm-unsafe-eval'` to compile its WebAssembly (page and service worker) and the
//! SHA-256 of each inline `<script>` and `<style>` Trunk writes into `index.html` (the
//! game's loader; the style sheet, inlined so the first paint waits for no request),
//! so no `'unsafe-inline'`. The hashes are read from the served `index.html` at start
//! and again whenever that file changes, so a new build deployed under a running
//! server keeps working.

use crate::settings::Settings;
use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue, header};
use axum::middleware::Next;
use axum::response::Response;
use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::SystemTime;

/// Everything but scripts, styles and the hashes; see [`policy`].
const POLICY: &str = "default-src 'self'; img-src 'self' data:; \
     connect-src 'self'; worker-src 'self'; manifest-src 'self'; font-src 'self'; \
     object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// Headers that never change.
const FIXED: [(HeaderName, &str); 5] = [
    (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
    (header::REFERRER_POLICY, "no-referrer"),
    (header::X_FRAME_OPTIONS, "DENY"),
    (
        HeaderName::from_static("cross-origin-opener-policy"),
        "same-origin",
    ),
    (
        HeaderName::from_static("cross-origin-resource-policy"),
        "same-origin",
    ),
];

/// HTTPS-only sites tell browsers never to try plain HTTP (a year, this host only).
const HSTS: &str = "max-age=31536000";

/// The headers, with the policy kept in step with `index.html`.
pub struct SecurityHeaders {
    index_html: PathBuf,
    policy: RwLock<Policy>,
    https: bool,
}

struct Policy {
    index_modified: Option<SystemTime>,
    value: HeaderValue,
}

impl SecurityHeaders {
    pub fn new(settings: &Settings) -> Self {
        let index_html = settings.dist.join("index.html");
        let https = settings.tls
            || settings
                .public_origin
                .as_deref()
                .is_some_and(|origin| origin.starts_with("https://"));
        SecurityHeaders {
            policy: RwLock::new(Policy::read(&index_html)),
            index_html,
            https,
        }
    }

    /// The current policy; re-read when serving HTML, as `index.html` may have changed.
    fn policy(&self, serving_html: bool) -> HeaderValue {
        if serving_html {
            let modified = modified(&self.index_html);
            let stale = self.policy.read().expect("never poisoned").index_modified != modified;
            if stale {
                *self.policy.write().expect("never poisoned") = Policy::read(&self.index_html);
            }
        }
        self.policy.read().expect("never poisoned").value.clone()
    }
}

impl Policy {
    fn read(index_html: &Path) -> Policy {
        let html = std::fs::read_to_string(index_html).unwrap_or_default();
        let value = policy(
            &inline_bodies(&html, "script"),
            &inline_bodies(&html, "style"),
        );
        Policy {
            index_modified: modified(index_html),
            value: HeaderValue::from_str(&value).expect("hashes are base64"),
        }
    }
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// The Content-Security-Policy allowing these inline scripts and styles.
fn policy(inline_scripts: &[&str], inline_styles: &[&str]) -> String {
    let script_hashes = hashes(inline_scripts);
    let style_hashes = hashes(inline_styles);
    format!(
        "script-src 'self' 'wasm-unsafe-eval'{script_hashes}; style-src 'self'{style_hashes}; {POLICY}"
    )
}

/// ` 'sha256-…'` for each body.
fn hashes(bodies: &[&str]) -> String {
    bodies
        .iter()
        .map(|body| format!(" 'sha256-{}'", BASE64.encode(Sha256::digest(body))))
        .collect()
}

/// The bodies of the `<tag>` elements without a `src` (`tag` in lowercase).
fn inline_bodies<'a>(html: &'a str, tag: &str) -> Vec<&'a str> {
    // ASCII lowercasing keeps byte offsets, so positions found in `lower` index `html`.
    let lower = html.to_ascii_lowercase();
    let (open, close) = (format!("<{tag}"), format!("</{tag}"));
    let mut bodies = Vec::new();
    let mut at = 0;
    while let Some(found) = lower[at..].find(&open) {
        let tag_start = at + found;
        let Some(tag_len) = lower[tag_start..].find('>') else {
            break;
        };
        let body_start = tag_start + tag_len + 1;
        let Some(body_len) = lower[body_start..].find(&close) else {
            break;
        };
        let tag = &lower[tag_start..body_start];
        let has_src = tag
            .split(|c: char| c.is_ascii_whitespace())
            .any(|attribute| attribute.starts_with("src="));
        if !has_src {
            bodies.push(&html[body_start..body_start + body_len]);
        }
        at = body_start + body_len;
    }
    bodies
}

/// Middleware: sets the headers on every response.
pub async fn apply(
    State(headers): State<Arc<SecurityHeaders>>,
    request: Request,
    next: Next,
) -> Response {
    let mut response = next.run(request).await;
    let serving_html = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|value| value.as_bytes().starts_with(b"text/html"));
    let policy = headers.policy(serving_html);
    let map = response.headers_mut();
    map.insert(header::CONTENT_SECURITY_POLICY, policy);
    for (name, value) in FIXED {
        map.insert(name, HeaderValue::from_static(value));
    }
    if headers.https {
        map.insert(
            header::STRICT_TRANSPORT_SECURITY,
            HeaderValue::from_static(HSTS),
        );
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_scripts_and_styles_are_found_and_external_ones_skipped() {
        let html = r#"<head><script src="/a.js"></script>
            <SCRIPT type="module">import init from '/app.js';init();</SCRIPT>
            <style>p{margin:0}</style><link rel="stylesheet" href="/s.css">
            <script defer src='/b.js'></script><script>1</script></head>"#;
        assert_eq!(
            inline_bodies(html, "script"),
            ["import init from '/app.js';init();", "1"]
        );
        assert_eq!(inline_bodies(html, "style"), ["p{margin:0}"]);
        assert!(inline_bodies("<p>no scripts</p>", "script").is_empty());
        assert!(inline_bodies("<script>unterminated", "script").is_empty());
    }

    #[test]
    fn the_policy_lists_one_hash_per_inline_script_and_style() {
        // printf '1' | openssl dgst -sha256 -binary | base64
        let policy = policy(&["1"], &["1"]);
        assert!(policy.starts_with(
            "script-src 'self' 'wasm-unsafe-eval' 'sha256-a4ayc/80/OGda4BO/1o/V0etpOqiLx1JwB5S3beHW0s='; \
             style-src 'self' 'sha256-a4ayc/80/OGda4BO/1o/V0etpOqiLx1JwB5S3beHW0s='; "
        ));
        assert!(policy.contains("frame-ancestors 'none'"));
        assert!(!policy.contains("unsafe-inline"));
    }
}
