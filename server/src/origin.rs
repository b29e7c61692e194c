//! Step 1 of the API pipeline: a request that names the web page it comes from must
//! come from ours.
//!
//! Browsers send `Origin` on cross-site requests, so checking it refuses other sites'
//! pages outright (403), while programs that send no `Origin` are unaffected. No CORS
//! header is ever sent, so browsers also keep other sites from reading any answer.
//! Origins are compared in their normal form (lowercase scheme and host, no default
//! port, no trailing slash), the form browsers send.

use crate::error::ApiError;
use crate::state::AppState;
use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::Response;
use url::Url;

pub async fn check(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Result<Response, ApiError> {
    if let Some(origin) = request.headers().get(header::ORIGIN) {
        let theirs = origin
            .to_str()
            .ok()
            .and_then(|origin| normalise(origin).ok());
        let ours = own_origin(&state, &request);
        if theirs.is_none() || theirs != ours {
            return Err(ApiError::forbidden_origin());
        }
    }
    Ok(next.run(request).await)
}

/// `--public-origin` when set, else `<scheme>://<Host>` (https when this server
/// terminates TLS itself).
fn own_origin(state: &AppState, request: &Request) -> Option<String> {
    if let Some(public_origin) = &state.settings.public_origin {
        return Some(public_origin.clone());
    }
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|host| host.to_str().ok())
        .or_else(|| {
            request
                .uri()
                .authority()
                .map(|authority| authority.as_str())
        })?;
    let scheme = if state.settings.tls { "https" } else { "http" };
    normalise(&format!("{scheme}://{host}")).ok()
}

/// The normal form of an origin given as a URL: `HTTPS://KeyDo.Example:443/` →
/// `https://keydo.example`. Only a scheme (http or https), a host and a port; no
/// user, path, query or fragment.
pub fn normalise(origin: &str) -> Result<String, String> {
    let url = Url::parse(origin).map_err(|error| format!("{origin:?} is not a URL: {error}"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!("{origin:?} must start with https:// or http://"));
    }
    if url.host().is_none() {
        return Err(format!("{origin:?} has no host"));
    }
    if !url.username().is_empty()
        || url.password().is_some()
        || url.path() != "/"
        || url.query().is_some()
        || url.fragment().is_some()
    {
        return Err(format!(
            "{origin:?} must be only a scheme, a host and maybe a port, such as https://keydo.example"
        ));
    }
    Ok(url.origin().ascii_serialization())
}

#[cfg(test)]
mod tests {
    use super::normalise;

    #[test]
    fn origins_are_normalised() {
        for (given, normal) in [
            ("https://keydo.example", "https://keydo.example"),
            ("https://keydo.example/", "https://keydo.example"),
            ("HTTPS://KeyDo.Example", "https://keydo.example"),
            ("https://keydo.example:443", "https://keydo.example"),
            ("http://keydo.example:80/", "http://keydo.example"),
            ("https://keydo.example:8443", "https://keydo.example:8443"),
            ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
            ("https://[::1]:443/", "https://[::1]"),
            ("https://bücher.example", "https://xn--bcher-kva.example"),
        ] {
            assert_eq!(normalise(given).as_deref(), Ok(normal), "{given}");
        }
    }

    #[test]
    fn what_is_not_an_origin_is_refused() {
        for refused in [
            "keydo.example",
            "ftp://keydo.example",
            "https://keydo.example/play",
            "https://keydo.example/?x=1",
            "https://keydo.example/#top",
            "https://user@keydo.example",
            "null",
            "",
        ] {
            assert!(normalise(refused).is_err(), "{refused}");
        }
    }
}
