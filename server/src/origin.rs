//! Step 1 of the API pipeline: a request that names the web page it comes from must
//! come from ours.
//!
//! Browsers send `Origin` on cross-site requests, so checking it refuses other sites'
//! pages outright (403), while programs that send no `Origin` are unaffected. No CORS
//! header is ever sent, so browsers also keep other sites from reading any answer.

use crate::error::ApiError;
use crate::state::AppState;
use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::Response;

pub async fn check(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Result<Response, ApiError> {
    if let Some(origin) = request.headers().get(header::ORIGIN) {
        let ours = own_origin(state.settings.public_origin.as_deref(), &request);
        if !ours.is_some_and(|ours| origin.as_bytes().eq_ignore_ascii_case(ours.as_bytes())) {
            return Err(ApiError::forbidden_origin());
        }
    }
    Ok(next.run(request).await)
}

/// `--public-origin` when set (behind a proxy), else `http://<Host>`.
fn own_origin(public_origin: Option<&str>, request: &Request) -> Option<String> {
    if let Some(public_origin) = public_origin {
        return Some(public_origin.to_owned());
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
    Some(format!("http://{host}"))
}
