//! Step 4 of the API pipeline: a bounded JSON body.
//!
//! axum's own `Json` accepts `application/*+json`, reads before it checks the size
//! and answers with the parser's messages; this extractor answers exactly as docs/api.md
//! says, in this order: not `application/json` → 415; a `Content-Length` over the cap
//! → 413 without reading; the body counted while it streams and dropped the moment it
//! passes the cap → 413; not UTF-8 → 400; not JSON → 400; JSON of the wrong shape
//! (including unknown fields, or not an object) → 422. No parser message ever reaches the client.

use crate::error::ApiError;
use axum::extract::{FromRequest, Request};
use axum::http::{HeaderMap, header};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use keydo_core::api::MAX_BODY_BYTES;
use serde::de::DeserializeOwned;
use serde_json::error::Category;

/// A request body parsed as `T` within the limits above, of at most `LIMIT` bytes
/// (a score's body may be larger than others: `keydo_core::api::MAX_SCORE_BODY_BYTES`).
#[derive(Debug)]
pub struct BoundedJson<T, const LIMIT: usize = MAX_BODY_BYTES>(pub T);

impl<T: DeserializeOwned, S: Send + Sync, const LIMIT: usize> FromRequest<S>
    for BoundedJson<T, LIMIT>
{
    type Rejection = ApiError;

    async fn from_request(request: Request, _state: &S) -> Result<Self, ApiError> {
        if !is_json_content_type(request.headers()) {
            return Err(ApiError::unsupported_media_type());
        }
        if declared_length(request.headers()).is_some_and(|length| length > LIMIT as u64) {
            return Err(ApiError::payload_too_large(LIMIT));
        }
        let bytes = Limited::new(request.into_body(), LIMIT)
            .collect()
            .await
            .map_err(|error| {
                if error.downcast_ref::<LengthLimitError>().is_some() {
                    ApiError::payload_too_large(LIMIT)
                } else {
                    ApiError::body_unreadable()
                }
            })?
            .to_bytes();
        let text = std::str::from_utf8(&bytes).map_err(|_| ApiError::invalid_utf8())?;
        let value = serde_json::from_str(text).map_err(|error| match error.classify() {
            Category::Data => ApiError::invalid_shape(),
            Category::Syntax | Category::Eof | Category::Io => ApiError::invalid_json(),
        })?;
        // serde also reads a struct from an array of its fields; the API's bodies are
        // objects.
        if !text.trim_start().starts_with('{') {
            return Err(ApiError::invalid_shape());
        }
        Ok(BoundedJson(value))
    }
}

/// `application/json`, optionally with `charset=utf-8`; nothing else.
fn is_json_content_type(headers: &HeaderMap) -> bool {
    let Some(Ok(content_type)) = headers
        .get(header::CONTENT_TYPE)
        .map(|value| value.to_str())
    else {
        return false;
    };
    let mut parts = content_type.split(';').map(str::trim);
    let essence_is_json = parts
        .next()
        .is_some_and(|essence| essence.eq_ignore_ascii_case("application/json"));
    essence_is_json
        && parts.all(|parameter| {
            parameter.split_once('=').is_some_and(|(name, value)| {
                name.trim().eq_ignore_ascii_case("charset")
                    && value.trim().trim_matches('"').eq_ignore_ascii_case("utf-8")
            })
        })
}

fn declared_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(content_type: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_str(content_type).unwrap(),
        );
        headers
    }

    #[test]
    fn json_with_or_without_utf8_charset_is_json() {
        for accepted in [
            "application/json",
            "Application/JSON",
            "application/json; charset=utf-8",
            "application/json;charset=UTF-8",
            "application/json; charset=\"utf-8\"",
        ] {
            assert!(is_json_content_type(&headers(accepted)), "{accepted}");
        }
    }

    #[test]
    fn everything_else_is_not() {
        for refused in [
            "application/merge-patch+json",
            "application/vnd.api+json",
            "text/json",
            "text/plain",
            "application/json; charset=latin1",
            "application/json; boundary=x",
            "application/jsonx",
            "",
        ] {
            assert!(!is_json_content_type(&headers(refused)), "{refused}");
        }
        assert!(!is_json_content_type(&HeaderMap::new()));
    }
}
