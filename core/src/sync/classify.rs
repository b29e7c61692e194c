//! Sorting a failed sync request into what happens next, and the stable error code
//! persisted with an outbox entry (docs/sync.md, "Classification").
//!
//! Only the API itself can refuse a result for good: a 4xx that carries the API's own
//! error body with a validation code ([`ApiCode::is_validation`]) blocks the entry.
//! Everything else is about the moment or the path to the server (no network, a
//! timeout, a proxy's or captive portal's page, a 403 from a misconfigured origin, a
//! 429, a 5xx) and is retried with backoff. One exception keeps scores from being
//! stranded: the API's own `UNAUTHORIZED` on an authenticated request means the server
//! does not know the save (say, it was restored from an older backup), so the client
//! forgets that save, creates a new one and resends. A bare 401 from an intermediary
//! is retried and never forgets the save.

use crate::api::code::ApiCode;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::fmt;

/// How long the client waits for any API request, answer body included, before it
/// aborts the request and counts a [`Failure::Timeout`].
pub const REQUEST_TIMEOUT_MS: u64 = 20_000;

/// How a sync request failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// No answer: offline, DNS failure, connection reset.
    Network,
    /// No complete answer within [`REQUEST_TIMEOUT_MS`]; the request was aborted.
    Timeout,
    /// A success status whose body is not what the API sends (a captive portal's page,
    /// a cut-off body). The request may have been applied; resending is harmless
    /// because the server only ever keeps the better score.
    InvalidResponse,
    /// An error status. `api_code` is set only when the body was the API's own error
    /// body; a proxy's page, an empty body or someone else's JSON leave it `None`.
    Status {
        status: u16,
        api_code: Option<ErrorCode>,
        /// From the `Retry-After` header, in milliseconds, whoever sent it.
        retry_after_ms: Option<u64>,
        /// The message of the API's error body, for a page to show; never stored.
        message: Option<String>,
    },
}

impl Failure {
    /// An error answer, from its raw parts: the status, the `code` of the API's error
    /// body if the body was one, and the `Retry-After` header if present.
    ///
    /// A body code that is not a stable SCREAMING_SNAKE code is treated as no API body
    /// (and persisted as `HTTP_<status>`), so nothing else, least of all a token, can
    /// reach storage. `Retry-After` is honoured in its delta-seconds form (the one this
    /// API sends); an HTTP-date is ignored and the usual backoff applies.
    pub fn http(status: u16, api_body_code: Option<&str>, retry_after: Option<&str>) -> Failure {
        let retry_after_ms = retry_after
            .and_then(|seconds| seconds.trim().parse::<u64>().ok())
            .map(|seconds| seconds.saturating_mul(1_000));
        Failure::Status {
            status,
            api_code: api_body_code.and_then(ErrorCode::new),
            retry_after_ms,
            message: None,
        }
    }

    /// The same failure with the message of the API's error body, if it is an error
    /// status.
    pub fn with_message(mut self, body_message: Option<String>) -> Failure {
        if let Failure::Status { message, .. } = &mut self {
            *message = body_message;
        }
        self
    }

    /// The code to persist and show.
    pub fn code(&self) -> ErrorCode {
        match self {
            Failure::Network => ErrorCode::NETWORK_ERROR,
            Failure::Timeout => ErrorCode::TIMEOUT,
            Failure::InvalidResponse => ErrorCode::INVALID_RESPONSE,
            Failure::Status {
                api_code: Some(code),
                ..
            } => code.clone(),
            Failure::Status { status, .. } => ErrorCode(Cow::Owned(format!("HTTP_{status}"))),
        }
    }

    /// The least wait the server (or a proxy in front of it) asked for.
    pub fn retry_after_ms(&self) -> Option<u64> {
        match self {
            Failure::Status { retry_after_ms, .. } => *retry_after_ms,
            Failure::Network | Failure::Timeout | Failure::InvalidResponse => None,
        }
    }

    /// Whether the request got no answer at all: the other requests of a flush would
    /// fail alike, and reconnecting makes the entry due at once.
    pub fn is_unreachable(&self) -> bool {
        matches!(self, Failure::Network | Failure::Timeout)
    }
}

/// Which sync request failed; a 401 means different things for each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Request {
    /// `POST /api/saves`, which needs no auth.
    CreateSave,
    /// An authenticated request: `POST /api/scores`, `GET /api/saves/me` or a profile
    /// operation (`PATCH /api/saves/me`).
    /// `save_renewed` says whether this flush already replaced an unknown save: a
    /// brand-new save answered with 401 is the server's confusion (a lagging replica, a
    /// restore in progress), not ours, so it is retried instead of renewed again in a
    /// loop.
    Authenticated { save_renewed: bool },
}

/// What the sync does after a failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Disposition {
    /// Try again later, with backoff.
    Retryable,
    /// Do not replay on a timer; only a manual retry sends it again.
    Blocked,
    /// Forget the save, create a new one and resend at once; the entry is not blocked.
    RenewSave,
}

/// What to do after `request` failed with `failure`.
pub fn classify(request: Request, failure: &Failure) -> Disposition {
    let Failure::Status {
        status,
        api_code: Some(code),
        ..
    } = failure
    else {
        // No answer, or an answer that is not the API's: about the moment or the path.
        return Disposition::Retryable;
    };
    let api_code = ApiCode::parse(code.as_str());
    match (*status, api_code, request) {
        (
            401,
            Some(ApiCode::Unauthorized),
            Request::Authenticated {
                save_renewed: false,
            },
        ) => Disposition::RenewSave,
        (400..=499, Some(code), _) if code.is_validation() => Disposition::Blocked,
        _ => Disposition::Retryable,
    }
}

/// A stable SCREAMING_SNAKE error code (`NETWORK_ERROR`, `TOO_FAST`, `HTTP_404`...),
/// the only trace of a failure that is persisted.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ErrorCode(Cow<'static, str>);

impl ErrorCode {
    /// The request got no answer.
    pub const NETWORK_ERROR: ErrorCode = ErrorCode(Cow::Borrowed("NETWORK_ERROR"));
    /// The request got no complete answer within [`REQUEST_TIMEOUT_MS`].
    pub const TIMEOUT: ErrorCode = ErrorCode(Cow::Borrowed("TIMEOUT"));
    /// A success status with a body that is not the API's.
    pub const INVALID_RESPONSE: ErrorCode = ErrorCode(Cow::Borrowed("INVALID_RESPONSE"));

    /// Longer codes are not codes.
    const MAX_LEN: usize = 64;

    /// `code` if it is one: an uppercase ASCII letter, then uppercase letters, digits or
    /// underscores, at most 64 in all.
    pub fn new(code: &str) -> Option<ErrorCode> {
        let mut chars = code.chars();
        let starts_with_letter = chars.next().is_some_and(|c| c.is_ascii_uppercase());
        let rest_is_code = chars.all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
        (starts_with_letter && rest_is_code && code.len() <= Self::MAX_LEN)
            .then(|| ErrorCode(Cow::Owned(code.to_owned())))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether a failure with this code was only for want of a network (no answer, or
    /// none in time), so connectivity coming back makes the entry due at once.
    pub fn is_unreachable(&self) -> bool {
        *self == ErrorCode::NETWORK_ERROR || *self == ErrorCode::TIMEOUT
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The stored text is not an error code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotAnErrorCode;

impl fmt::Display for NotAnErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not a SCREAMING_SNAKE error code")
    }
}

impl TryFrom<String> for ErrorCode {
    type Error = NotAnErrorCode;

    fn try_from(code: String) -> Result<Self, Self::Error> {
        ErrorCode::new(&code).ok_or(NotAnErrorCode)
    }
}

impl From<ErrorCode> for String {
    fn from(code: ErrorCode) -> String {
        code.0.into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCORE: Request = Request::Authenticated {
        save_renewed: false,
    };
    const RENEWED: Request = Request::Authenticated { save_renewed: true };

    /// What came back with an error status, as the client reads the body.
    #[derive(Debug, Clone, Copy)]
    enum Body {
        /// No body, or one that is not JSON (a proxy's HTML page).
        NoneOrHtml,
        /// JSON, but not the API's error body (`{"message": ...}` from a gateway).
        ForeignJson,
        /// The API's error body with a validation code.
        ApiValidation,
        /// The API's error body with a code that is not a validation refusal.
        ApiOther,
        /// The API's `UNAUTHORIZED`.
        ApiUnauthorized,
        /// The API's error body with a code this client does not know (a newer server).
        ApiUnknownCode,
    }

    /// The client's reading of an error answer: only the API's own body yields a code.
    fn answer(status: u16, body: Body) -> Failure {
        let code = match body {
            Body::NoneOrHtml | Body::ForeignJson => None,
            Body::ApiValidation => Some("VALUE_MISMATCH"),
            Body::ApiOther => Some(if status == 429 {
                "RATE_LIMITED"
            } else {
                "UNAVAILABLE"
            }),
            Body::ApiUnauthorized => Some("UNAUTHORIZED"),
            Body::ApiUnknownCode => Some("SOMETHING_NEW"),
        };
        Failure::http(status, code, None)
    }

    #[test]
    fn classification_table_over_every_status_and_body() {
        use Body::*;
        use Disposition::*;
        let bodies = [
            NoneOrHtml,
            ForeignJson,
            ApiValidation,
            ApiOther,
            ApiUnauthorized,
            ApiUnknownCode,
        ];
        let statuses = [
            200, 302, 400, 401, 403, 404, 405, 408, 409, 410, 413, 415, 422, 429, 499, 500, 502,
            503, 504, 599, 600,
        ];
        for status in statuses {
            for body in bodies {
                let failure = answer(status, body);
                let expected = match (status, body) {
                    // The API refused the content: blocked, whichever 4xx carried it.
                    (400..=499, ApiValidation) => Blocked,
                    // The API does not know the save: renew it (once per flush).
                    (401, ApiUnauthorized) => RenewSave,
                    // Everything else: no body, HTML, foreign JSON, non-validation codes,
                    // unknown codes, 5xx, odd statuses.
                    _ => Retryable,
                };
                assert_eq!(classify(SCORE, &failure), expected, "{status} {body:?}");
                // After one renewal, nothing renews again; the rest is unchanged.
                let after_renewal = if expected == RenewSave {
                    Retryable
                } else {
                    expected
                };
                assert_eq!(
                    classify(RENEWED, &failure),
                    after_renewal,
                    "{status} {body:?}"
                );
                // Creating a save needs no auth: a 401 there is never the save's fault.
                let creating = if expected == RenewSave {
                    Retryable
                } else {
                    expected
                };
                assert_eq!(
                    classify(Request::CreateSave, &failure),
                    creating,
                    "{status} {body:?}"
                );
            }
        }
        for unanswered in [Failure::Network, Failure::Timeout, Failure::InvalidResponse] {
            for request in [SCORE, RENEWED, Request::CreateSave] {
                assert_eq!(classify(request, &unanswered), Retryable, "{unanswered:?}");
            }
        }
    }

    #[test]
    fn every_validation_code_blocks_and_no_other_api_code_does() {
        for &code in ApiCode::ALL {
            let failure = Failure::http(code.status(), Some(code.as_str()), None);
            let expected = if code.is_validation() {
                Disposition::Blocked
            } else if code == ApiCode::Unauthorized {
                Disposition::RenewSave
            } else {
                Disposition::Retryable
            };
            assert_eq!(classify(SCORE, &failure), expected, "{code}");
            // A validation code on a 5xx is not a refusal: only a 4xx blocks.
            let on_5xx = Failure::http(503, Some(code.as_str()), None);
            assert_eq!(classify(SCORE, &on_5xx), Disposition::Retryable, "{code}");
        }
    }

    #[test]
    fn a_bare_401_is_retried_and_keeps_the_save() {
        for failure in [
            Failure::http(401, None, None),
            Failure::http(401, Some("AUTH_REQUIRED"), None),
        ] {
            assert_eq!(classify(SCORE, &failure), Disposition::Retryable);
        }
    }

    #[test]
    fn codes_come_from_the_api_body_or_the_status() {
        assert_eq!(Failure::Network.code().as_str(), "NETWORK_ERROR");
        assert_eq!(Failure::Timeout.code().as_str(), "TIMEOUT");
        assert_eq!(Failure::InvalidResponse.code().as_str(), "INVALID_RESPONSE");
        assert_eq!(
            Failure::http(422, Some("TOO_FAST"), None).code().as_str(),
            "TOO_FAST"
        );
        assert_eq!(Failure::http(404, None, None).code().as_str(), "HTTP_404");
        // Anything that is not a code never reaches storage.
        let token = "6f1c2e4a-0b7d-4f57-9a53-1d2b3c4d5e6f";
        for junk in [
            token,
            "",
            "lower",
            "9LIVES",
            "SPACE BAR",
            "Ünï",
            &"A".repeat(65),
        ] {
            let failure = Failure::http(400, Some(junk), None);
            assert_eq!(failure.code().as_str(), "HTTP_400", "{junk}");
            assert_eq!(classify(SCORE, &failure), Disposition::Retryable, "{junk}");
        }
        assert_eq!(
            ErrorCode::new(&"A".repeat(64)).map(|c| c.as_str().len()),
            Some(64)
        );
    }

    #[test]
    fn only_missing_answers_are_unreachable() {
        assert!(Failure::Network.is_unreachable());
        assert!(Failure::Timeout.is_unreachable());
        assert!(!Failure::InvalidResponse.is_unreachable());
        assert!(!Failure::http(503, None, None).is_unreachable());
        assert!(ErrorCode::NETWORK_ERROR.is_unreachable());
        assert!(ErrorCode::TIMEOUT.is_unreachable());
        for other in ["HTTP_503", "RATE_LIMITED", "INVALID_RESPONSE"] {
            assert!(!ErrorCode::new(other).unwrap().is_unreachable(), "{other}");
        }
    }

    #[test]
    fn retry_after_is_read_in_seconds_from_any_answer() {
        assert_eq!(
            Failure::http(429, None, Some("60")).retry_after_ms(),
            Some(60_000)
        );
        assert_eq!(
            Failure::http(429, Some("RATE_LIMITED"), Some(" 5 ")).retry_after_ms(),
            Some(5_000)
        );
        assert_eq!(
            Failure::http(429, None, Some("Wed, 21 Oct 2015 07:28:00 GMT")).retry_after_ms(),
            None
        );
        assert_eq!(Failure::http(429, None, Some("-1")).retry_after_ms(), None);
        assert_eq!(Failure::Network.retry_after_ms(), None);
        assert_eq!(Failure::Timeout.retry_after_ms(), None);
    }

    #[test]
    fn every_api_code_is_an_error_code() {
        for &code in ApiCode::ALL {
            let wire = code.as_str();
            assert!(ErrorCode::new(wire).is_some(), "{wire}");
        }
    }

    #[test]
    fn codes_persist_as_plain_strings_and_refuse_non_codes() {
        let code = ErrorCode::new("RATE_LIMITED").unwrap();
        let json = serde_json::to_string(&code).unwrap();
        assert_eq!(json, r#""RATE_LIMITED""#);
        assert_eq!(serde_json::from_str::<ErrorCode>(&json).unwrap(), code);
        assert!(serde_json::from_str::<ErrorCode>(r#""Bearer abc""#).is_err());
    }

    #[test]
    fn the_api_message_is_kept_for_the_page_and_changes_nothing_else() {
        let plain = Failure::http(422, Some("TOO_FAST"), None);
        let told = plain
            .clone()
            .with_message(Some("Typed too fast.".to_owned()));
        assert!(
            matches!(&told, Failure::Status { message: Some(m), .. } if m == "Typed too fast.")
        );
        assert_eq!(told.code(), plain.code());
        assert_eq!(classify(SCORE, &told), classify(SCORE, &plain));
        assert_eq!(
            Failure::Network.with_message(Some("lost".to_owned())),
            Failure::Network
        );
    }
}
