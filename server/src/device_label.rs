//! A device's label in the player's device list ("Chrome on Android"), derived from
//! its `User-Agent`: a browser and a system from short fixed lists, never any text of
//! the header itself, so the list shows nothing a client chose to write there.

use axum::http::{HeaderMap, header};

/// The label when the header names no browser we know.
pub const UNKNOWN_BROWSER: &str = "Browser";

/// Browsers by a token of their `User-Agent`, most specific first (Edge and Opera
/// also say "Chrome", Chrome also says "Safari").
const BROWSERS: &[(&str, &str)] = &[
    ("Edg", "Edge"),
    ("OPR/", "Opera"),
    ("SamsungBrowser/", "Samsung Internet"),
    ("Firefox/", "Firefox"),
    ("FxiOS/", "Firefox"),
    ("CriOS/", "Chrome"),
    ("Chromium/", "Chromium"),
    ("Chrome/", "Chrome"),
    ("Safari/", "Safari"),
];

/// Systems likewise (Android also says "Linux", iOS also says "Mac OS X").
const SYSTEMS: &[(&str, &str)] = &[
    ("Android", "Android"),
    ("iPhone", "iOS"),
    ("iPad", "iPadOS"),
    ("CrOS", "ChromeOS"),
    ("Windows", "Windows"),
    ("Mac OS X", "macOS"),
    ("Linux", "Linux"),
];

/// "Chrome on Android", "Firefox", "Browser on Linux" or "Browser".
pub fn from_headers(headers: &HeaderMap) -> String {
    let agent = headers
        .get(header::USER_AGENT)
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default();
    let first = |list: &[(&str, &'static str)]| {
        list.iter()
            .find(|(token, _)| agent.contains(token))
            .map(|(_, name)| *name)
    };
    let browser = first(BROWSERS).unwrap_or(UNKNOWN_BROWSER);
    match first(SYSTEMS) {
        Some(system) => format!("{browser} on {system}"),
        None => browser.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn label(agent: &[u8]) -> String {
        let mut headers = HeaderMap::new();
        headers.insert(header::USER_AGENT, HeaderValue::from_bytes(agent).unwrap());
        from_headers(&headers)
    }

    #[test]
    fn common_browsers_get_their_names() {
        for (agent, expected) in [
            (
                "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
                "Chrome on Android",
            ),
            (
                "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
                "Firefox on Linux",
            ),
            (
                "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
                "Safari on iOS",
            ),
            (
                "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
                "Edge on Windows",
            ),
            (
                "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
                "Safari on macOS",
            ),
        ] {
            assert_eq!(label(agent.as_bytes()), expected, "{agent}");
        }
    }

    #[test]
    fn anything_else_is_a_browser_and_the_header_never_shows() {
        assert_eq!(from_headers(&HeaderMap::new()), "Browser");
        assert_eq!(label(b"curl/8.5.0"), "Browser");
        assert_eq!(
            label(b"<script>alert(1)</script> Linux"),
            "Browser on Linux"
        );
        assert_eq!(label(b"\xff\xfe"), "Browser");
    }
}
