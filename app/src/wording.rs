//! What the page says about a sync error code: what happened, in words a player
//! understands, and whether KeyDo will try again by itself.
//!
//! It covers every code of the API's one list ([`ApiCode`]) — the `match` is exhaustive,
//! so a code added there does not build until it has words here — and the client's own
//! codes: `NETWORK_ERROR`, `TIMEOUT`, `INVALID_RESPONSE` and `HTTP_<status>` for an
//! answer without the API's error body. Whether KeyDo tries again follows the sync's
//! rule (docs/sync.md): only the API's validation codes block a score; everything else
//! is retried with backoff.

use keydo_core::api::ApiCode;

/// A failure explained.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explanation {
    /// What happened.
    pub what: String,
    /// Whether KeyDo sends it again on its own.
    pub tries_again: bool,
}

impl Explanation {
    /// What happened, then what KeyDo does about it.
    pub fn sentence(&self) -> String {
        let next = if self.tries_again {
            "KeyDo will try again by itself."
        } else {
            "KeyDo will not send it again unless you press Retry now; you can also discard it."
        };
        format!("{} {next}", self.what)
    }
}

/// The explanation of a stored error code.
pub fn explain(code: &str) -> Explanation {
    if let Some(code) = ApiCode::parse(code) {
        return Explanation {
            what: api_words(code).to_owned(),
            tries_again: !code.is_validation(),
        };
    }
    let what = match code {
        "NETWORK_ERROR" => "You are offline or the server cannot be reached.".to_owned(),
        "TIMEOUT" => "The server took too long to answer.".to_owned(),
        "INVALID_RESPONSE" => "The server's answer could not be read.".to_owned(),
        other => match other.strip_prefix("HTTP_").and_then(|s| s.parse().ok()) {
            Some(status) => status_words(status),
            // A code from a newer server: not one of the validation codes this page
            // knows, so the sync keeps retrying it.
            None => format!("The server could not take this score yet ({other})."),
        },
    };
    Explanation {
        what,
        tries_again: true,
    }
}

/// What a result the server holds for review means for the player (docs/replay.md).
pub const HELD: &str = "counts for you; on the public board once reviewed.";

/// The API's own codes: the server explained itself.
fn api_words(code: ApiCode) -> &'static str {
    match code {
        ApiCode::BadRequest
        | ApiCode::BodyUnreadable
        | ApiCode::InvalidUtf8
        | ApiCode::InvalidJson
        | ApiCode::PayloadTooLarge
        | ApiCode::UnsupportedMediaType => {
            "The server could not read what KeyDo sent; it may have been damaged on the way."
        }
        ApiCode::InvalidQuery
        | ApiCode::InvalidMode
        | ApiCode::InvalidBoard
        | ApiCode::InvalidText
        | ApiCode::InvalidRanking
        | ApiCode::InvalidDay
        | ApiCode::InvalidLanguage
        | ApiCode::InvalidLimit => "The server did not understand the leaderboard request.",
        ApiCode::TextNotFound => "The server does not know this text's link.",
        ApiCode::ResultNotFound => "No public result has this code.",
        ApiCode::TooManyTexts => {
            "This device sent many new texts lately; the server takes more in a while."
        }
        ApiCode::InvalidIdempotencyKey | ApiCode::IdempotencyKeyReused => {
            "The server refused this request's resend key."
        }
        ApiCode::Unauthorized => {
            "The server no longer knew your player (say, after a restore); KeyDo makes a new one."
        }
        ApiCode::ForbiddenOrigin => {
            "The server refused this site's address; its operator must fix that."
        }
        ApiCode::NotFound | ApiCode::MethodNotAllowed => {
            "The server's address for scores did not answer as expected."
        }
        ApiCode::InvalidBody => "The server found this score's fields malformed.",
        ApiCode::InvalidDisplayName => "The server refused the player name.",
        ApiCode::NameInvisibleCharacter => {
            "The player name holds a character that shows nothing, so it would look like another name."
        }
        ApiCode::NameBlank => "The player name shows nothing: it needs a visible character.",
        ApiCode::InconsistentStats => "The score's statistics contradict each other.",
        ApiCode::TooShort => "The game was too short to count.",
        ApiCode::WrongDuration => "A timed game must last 60 seconds.",
        ApiCode::ValueMismatch => "The server could not reproduce this score from its statistics.",
        ApiCode::TooFast => "The server judged this score faster than humanly possible.",
        ApiCode::LowAccuracy => "Accuracy below 50 % does not count.",
        ApiCode::InputLogMissing => {
            "This result was recorded without its typing, so the server cannot verify it."
        }
        ApiCode::InputLogInvalid => {
            "The record of your typing arrived damaged, so the server could not replay it."
        }
        ApiCode::InputLogTooLarge => {
            "The record of your typing was far larger than this text needs."
        }
        ApiCode::CommitTooLong => {
            "Your input method put in more text at once than any input method commits."
        }
        ApiCode::IncompleteGame => "The game ended before its whole text was typed.",
        ApiCode::ReplayMismatch => "Replaying your typing did not give this score.",
        ApiCode::UnknownPrompt => "The server does not know this game's text.",
        ApiCode::WrongWeek => "The result's week does not match when it was played.",
        ApiCode::PlayedInFuture => "This device's clock is ahead of the server's.",
        ApiCode::PlayedBeforeSave => "This result is too old to count.",
        ApiCode::SeedReused => "You already sent a game on this text; a text counts once.",
        ApiCode::LogReused => "This game's typing was already sent with another result.",
        ApiCode::NameTaken => "Another player already has this name, or one that looks the same.",
        ApiCode::IdempotencyKeyRequired => {
            "The request lacked the key that makes it safe to resend."
        }
        ApiCode::InvalidSetting => "The server does not accept this setting's value.",
        ApiCode::LinkCodeInvalid => {
            "This code is unknown, expired or already used: show a new one on your other device."
        }
        ApiCode::DeviceNotFound => "That device is not one of yours any more.",
        ApiCode::RateLimited => "The server asked KeyDo to slow down.",
        ApiCode::Internal | ApiCode::Unavailable | ApiCode::DatabaseUnavailable => {
            "The server is briefly unavailable."
        }
    }
}

/// An answer without the API's error body: a proxy, a captive portal, a misconfigured
/// deployment.
fn status_words(status: u16) -> String {
    let what = match status {
        401 | 403 => "refused access",
        404 | 405 | 410 => "did not find the scores address",
        408 | 504 => "gave up waiting",
        413 | 415 => "refused the request's size or format",
        429 => "asked KeyDo to slow down",
        500..=599 => "failed",
        _ => "answered oddly",
    };
    format!("The server or something on the way {what} (HTTP {status}).")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn every_api_code_has_words_and_says_whether_it_is_retried() {
        for &code in ApiCode::ALL {
            let explained = explain(code.as_str());
            assert!(explained.what.ends_with('.'), "{code}: {explained:?}");
            // The sync blocks exactly the validation codes.
            assert_eq!(explained.tries_again, !code.is_validation(), "{code}");
            let sentence = explained.sentence();
            if code.is_validation() {
                assert!(
                    sentence.contains("unless you press Retry now"),
                    "{sentence}"
                );
            } else {
                assert!(sentence.contains("will try again by itself"), "{sentence}");
            }
        }
    }

    #[test]
    fn refusals_of_a_score_each_say_their_own_reason() {
        let refusals: Vec<ApiCode> = ApiCode::ALL
            .iter()
            .copied()
            .filter(|c| c.status() == 422)
            .collect();
        assert!(refusals.len() >= 6, "{refusals:?}");
        let distinct: HashSet<_> = refusals.iter().map(|&c| api_words(c)).collect();
        assert_eq!(distinct.len(), refusals.len());
        assert!(
            explain("VALUE_MISMATCH")
                .what
                .contains("could not reproduce this score")
        );
    }

    #[test]
    fn the_clients_own_codes_are_retried() {
        for code in ["NETWORK_ERROR", "TIMEOUT", "INVALID_RESPONSE"] {
            let explained = explain(code);
            assert!(explained.tries_again, "{code}");
            assert!(!explained.what.contains(code), "{code} has its own words");
        }
        assert!(explain("NETWORK_ERROR").what.contains("offline"));
    }

    #[test]
    fn answers_without_the_apis_body_name_their_status_and_are_retried() {
        for (code, words) in [
            ("HTTP_403", "refused access (HTTP 403)"),
            ("HTTP_401", "refused access (HTTP 401)"),
            ("HTTP_404", "did not find the scores address (HTTP 404)"),
            ("HTTP_413", "size or format (HTTP 413)"),
            ("HTTP_429", "slow down (HTTP 429)"),
            ("HTTP_502", "failed (HTTP 502)"),
            ("HTTP_200", "answered oddly (HTTP 200)"),
        ] {
            let explained = explain(code);
            assert!(explained.what.contains(words), "{code}: {}", explained.what);
            assert!(explained.tries_again, "{code}");
        }
    }

    #[test]
    fn an_unknown_code_is_named_and_retried() {
        let explained = explain("SOMETHING_NEW");
        assert!(explained.what.contains("(SOMETHING_NEW)"));
        assert!(explained.tries_again);
        // Not a status after all.
        assert!(explain("HTTP_X").what.contains("(HTTP_X)"));
    }
}
