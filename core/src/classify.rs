//! Sorting a failed sync request into what happens next (SPEC §5), and the stable
//! error code persisted with an outbox entry.
//!
//! Retrying only helps when the failure is about the moment (no network, a server
//! restarting, a rate limit, a conflict), not about the request. So: network errors,
//! invalid responses, 409, 429 and 5xx are retried; any other 4xx is blocked and never
//! replayed on a timer. One exception keeps scores from being stranded: a 401 on a score
//! means the server does not know the save (say, it was restored from an older backup),
//! so the client forgets that save, creates a new one and resends.

use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::fmt;

/// How a sync request failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// No answer: offline, DNS failure, connection reset, timeout.
    Network,
    /// An answer that is not the API's: an unparseable body, a wrong shape, a captive
    /// portal's page. The request may have been applied; resending is harmless because
    /// the server only ever keeps the better score.
    InvalidResponse,
    /// The API answered with an error status.
    Status {
        status: u16,
        /// The error body's code, or `HTTP_<status>` when it had none.
        code: ErrorCode,
        /// From the `Retry-After` header, in milliseconds.
        retry_after_ms: Option<u64>,
    },
}

impl Failure {
    /// An error answer, from its raw parts: the status, the error body's `code` if one
    /// could be read, and the `Retry-After` header if present.
    ///
    /// A body code that is not a stable SCREAMING_SNAKE code is replaced by
    /// `HTTP_<status>`, so nothing else (least of all a token) can reach storage.
    /// `Retry-After` is honoured in its delta-seconds form (the one this API sends); an
    /// HTTP-date is ignored and the usual backoff applies.
    pub fn http(status: u16, body_code: Option<&str>, retry_after: Option<&str>) -> Failure {
        let code = body_code
            .and_then(ErrorCode::new)
            .unwrap_or_else(|| ErrorCode(Cow::Owned(format!("HTTP_{status}"))));
        let retry_after_ms = retry_after
            .and_then(|seconds| seconds.trim().parse::<u64>().ok())
            .map(|seconds| seconds.saturating_mul(1_000));
        Failure::Status {
            status,
            code,
            retry_after_ms,
        }
    }

    /// The code to persist and show.
    pub fn code(&self) -> ErrorCode {
        match self {
            Failure::Network => ErrorCode::NETWORK_ERROR,
            Failure::InvalidResponse => ErrorCode::INVALID_RESPONSE,
            Failure::Status { code, .. } => code.clone(),
        }
    }

    /// The least wait the server asked for.
    pub fn retry_after_ms(&self) -> Option<u64> {
        match self {
            Failure::Status { retry_after_ms, .. } => *retry_after_ms,
            Failure::Network | Failure::InvalidResponse => None,
        }
    }
}

/// Which sync request failed; a 401 means different things for each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Request {
    /// `POST /api/saves`, which needs no auth.
    CreateSave,
    /// `POST /api/scores`. `save_renewed` says whether this flush already replaced an
    /// unknown save: a brand-new save answered with 401 is the server's confusion (a
    /// lagging replica, a restore in progress), not ours, so it is retried instead of
    /// renewed again in a loop.
    SubmitScore { save_renewed: bool },
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
///
/// A status that is not an error (1xx–3xx, or a nonsense number) reached as a failure
/// means the answer made no sense, so it is retried like an invalid response.
pub fn classify(request: Request, failure: &Failure) -> Disposition {
    let status = match failure {
        Failure::Network | Failure::InvalidResponse => return Disposition::Retryable,
        Failure::Status { status, .. } => *status,
    };
    match (status, request) {
        (
            401,
            Request::SubmitScore {
                save_renewed: false,
            },
        ) => Disposition::RenewSave,
        (401, Request::SubmitScore { save_renewed: true }) => Disposition::Retryable,
        (409 | 429, _) | (500..=599, _) => Disposition::Retryable,
        (400..=499, _) => Disposition::Blocked,
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
    /// The answer was not the API's.
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

    const SCORE: Request = Request::SubmitScore {
        save_renewed: false,
    };

    fn status(status: u16) -> Failure {
        Failure::http(status, None, None)
    }

    #[test]
    fn classification_table() {
        use Disposition::*;
        let table: &[(Failure, Disposition)] = &[
            (Failure::Network, Retryable),
            (Failure::InvalidResponse, Retryable),
            (status(409), Retryable),
            (status(429), Retryable),
            (status(500), Retryable),
            (status(502), Retryable),
            (status(503), Retryable),
            (status(504), Retryable),
            (status(599), Retryable),
            (status(400), Blocked),
            (status(401), RenewSave),
            (status(403), Blocked),
            (status(404), Blocked),
            (status(405), Blocked),
            (status(408), Blocked),
            (status(410), Blocked),
            (status(413), Blocked),
            (status(415), Blocked),
            (status(422), Blocked),
            (status(499), Blocked),
            (status(200), Retryable),
            (status(302), Retryable),
            (status(600), Retryable),
        ];
        for (failure, expected) in table {
            assert_eq!(classify(SCORE, failure), *expected, "{failure:?}");
        }
    }

    #[test]
    fn a_401_renews_the_save_only_for_a_score_and_only_once() {
        assert_eq!(classify(SCORE, &status(401)), Disposition::RenewSave);
        assert_eq!(
            classify(Request::SubmitScore { save_renewed: true }, &status(401)),
            Disposition::Retryable
        );
        assert_eq!(
            classify(Request::CreateSave, &status(401)),
            Disposition::Blocked
        );
        // Everything else is classified the same for both requests.
        for code in [409, 429, 500, 400, 403, 422] {
            assert_eq!(
                classify(Request::CreateSave, &status(code)),
                classify(SCORE, &status(code))
            );
        }
    }

    #[test]
    fn codes_come_from_the_body_or_the_status() {
        assert_eq!(Failure::Network.code().as_str(), "NETWORK_ERROR");
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
            assert_eq!(
                Failure::http(400, Some(junk), None).code().as_str(),
                "HTTP_400",
                "{junk}"
            );
        }
        assert_eq!(
            ErrorCode::new(&"A".repeat(64)).map(|c| c.as_str().len()),
            Some(64)
        );
    }

    #[test]
    fn retry_after_is_read_in_seconds() {
        assert_eq!(
            Failure::http(429, None, Some("60")).retry_after_ms(),
            Some(60_000)
        );
        assert_eq!(
            Failure::http(429, None, Some(" 5 ")).retry_after_ms(),
            Some(5_000)
        );
        assert_eq!(
            Failure::http(429, None, Some("Wed, 21 Oct 2015 07:28:00 GMT")).retry_after_ms(),
            None
        );
        assert_eq!(Failure::http(429, None, Some("-1")).retry_after_ms(), None);
        assert_eq!(Failure::Network.retry_after_ms(), None);
    }

    #[test]
    fn codes_persist_as_plain_strings_and_refuse_non_codes() {
        let code = ErrorCode::new("RATE_LIMITED").unwrap();
        let json = serde_json::to_string(&code).unwrap();
        assert_eq!(json, r#""RATE_LIMITED""#);
        assert_eq!(serde_json::from_str::<ErrorCode>(&json).unwrap(), code);
        assert!(serde_json::from_str::<ErrorCode>(r#""Bearer abc""#).is_err());
    }
}
