//! Every stable error code the API answers with, in one list: the server's error
//! answers, the sync's classification and the page's wording all read it, so a code
//! cannot exist in one place and be unknown in another (docs/api.md lists them).

use std::fmt;

/// Declares [`ApiCode`] from one table: variant, wire code, HTTP status, and whether
/// the code is a validation refusal (see [`ApiCode::is_validation`]).
macro_rules! api_codes {
    ($($(#[$doc:meta])* $variant:ident = $code:literal, $status:literal, $validation:literal;)*) => {
        /// A stable `SCREAMING_SNAKE` code from the API's error body.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ApiCode {
            $($(#[$doc])* $variant,)*
        }

        impl ApiCode {
            /// Every code, in the order of the table.
            pub const ALL: &'static [ApiCode] = &[$(ApiCode::$variant,)*];

            /// The code as it appears on the wire.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(ApiCode::$variant => $code,)*
                }
            }

            /// The HTTP status the API answers this code with.
            pub const fn status(self) -> u16 {
                match self {
                    $(ApiCode::$variant => $status,)*
                }
            }

            /// Whether the API refused the request's *content* (the result or the name
            /// is invalid): sending the same request again can never succeed, so the
            /// sync blocks it instead of retrying (docs/sync.md). Every other code is
            /// about the moment or the deployment and is retried.
            pub const fn is_validation(self) -> bool {
                match self {
                    $(ApiCode::$variant => $validation,)*
                }
            }
        }
    };
}

api_codes! {
    /// A request the API could not understand (a catch-all for odd statuses).
    BadRequest = "BAD_REQUEST", 400, false;
    /// The client stopped sending its body halfway.
    BodyUnreadable = "BODY_UNREADABLE", 400, false;
    /// The body's bytes are not UTF-8 (a client sends valid JSON; a proxy may mangle it).
    InvalidUtf8 = "INVALID_UTF8", 400, false;
    /// The body is not JSON.
    InvalidJson = "INVALID_JSON", 400, false;
    /// A leaderboard query parameter is malformed.
    InvalidQuery = "INVALID_QUERY", 400, false;
    /// No such mode.
    InvalidMode = "INVALID_MODE", 400, false;
    /// No such board.
    InvalidBoard = "INVALID_BOARD", 400, false;
    /// A board query names no text by a hash or a short hash.
    InvalidText = "INVALID_TEXT", 400, false;
    /// A text board's ranking is neither `first` nor `best`.
    InvalidRanking = "INVALID_RANKING", 400, false;
    /// The day of a day's race board is not a whole number of days.
    InvalidDay = "INVALID_DAY", 400, false;
    /// The language of a day's race board is neither `zh` nor `en`.
    InvalidLanguage = "INVALID_LANGUAGE", 400, false;
    /// The leaderboard limit is out of range.
    InvalidLimit = "INVALID_LIMIT", 400, false;
    /// The `Idempotency-Key` header is not a UUID.
    InvalidIdempotencyKey = "INVALID_IDEMPOTENCY_KEY", 400, true;
    /// The request changes something and so must carry an `Idempotency-Key`.
    IdempotencyKeyRequired = "IDEMPOTENCY_KEY_REQUIRED", 400, true;
    /// The bearer token names no known save.
    Unauthorized = "UNAUTHORIZED", 401, false;
    /// The `Origin` is not the server's own.
    ForbiddenOrigin = "FORBIDDEN_ORIGIN", 403, false;
    /// Nothing at this address.
    NotFound = "NOT_FOUND", 404, false;
    /// The player has no (unrevoked) device with this id.
    DeviceNotFound = "DEVICE_NOT_FOUND", 404, false;
    /// No stored text has this hash or short hash.
    TextNotFound = "TEXT_NOT_FOUND", 404, false;
    /// No public result has this code (none, held for review, or its player hidden).
    ResultNotFound = "RESULT_NOT_FOUND", 404, false;
    /// The address does not take this method.
    MethodNotAllowed = "METHOD_NOT_ALLOWED", 405, false;
    /// The body is larger than [`super::MAX_BODY_BYTES`].
    PayloadTooLarge = "PAYLOAD_TOO_LARGE", 413, false;
    /// The body is not `application/json`.
    UnsupportedMediaType = "UNSUPPORTED_MEDIA_TYPE", 415, false;
    /// The body's fields or types are wrong.
    InvalidBody = "INVALID_BODY", 422, true;
    /// The display name breaks the name rules.
    InvalidDisplayName = "INVALID_DISPLAY_NAME", 422, true;
    /// The display name holds a character that shows nothing (a variation selector, a
    /// Hangul filler, the braille blank…), so it would look like another name.
    NameInvisibleCharacter = "NAME_INVISIBLE_CHARACTER", 422, true;
    /// The display name shows nothing: only blank or invisible characters.
    NameBlank = "NAME_BLANK", 422, true;
    /// A setting's value is out of range (a font size, an input-method label).
    InvalidSetting = "INVALID_SETTING", 422, true;
    /// The link code is unknown, expired or used (which one is not said).
    LinkCodeInvalid = "LINK_CODE_INVALID", 422, true;
    /// The same `Idempotency-Key` came with a different body.
    IdempotencyKeyReused = "IDEMPOTENCY_KEY_REUSED", 422, true;
    /// The game's counters contradict each other.
    InconsistentStats = "INCONSISTENT_STATS", 422, true;
    /// The game was shorter than any game can be.
    TooShort = "TOO_SHORT", 422, true;
    /// A `time` game did not last 60 seconds.
    WrongDuration = "WRONG_DURATION", 422, true;
    /// The value does not follow from the game.
    ValueMismatch = "VALUE_MISMATCH", 422, true;
    /// Faster than the hard human limit.
    TooFast = "TOO_FAST", 422, true;
    /// Accuracy below the floor.
    LowAccuracy = "LOW_ACCURACY", 422, true;
    /// The result carries no prompt identity or input log, so it cannot be replayed.
    InputLogMissing = "INPUT_LOG_MISSING", 422, true;
    /// The input log cannot be read, or holds edits the game would not have recorded.
    InputLogInvalid = "INPUT_LOG_INVALID", 422, true;
    /// The input log is far larger than its prompt needs (docs/replay.md).
    InputLogTooLarge = "INPUT_LOG_TOO_LARGE", 422, true;
    /// One `zh` commit put in more characters than an input method commits at once.
    CommitTooLong = "COMMIT_TOO_LONG", 422, true;
    /// The prompt identity names no prompt of the result's mode.
    UnknownPrompt = "UNKNOWN_PROMPT", 422, true;
    /// Replaying the log does not finish the game (the prompt was not typed to its end).
    IncompleteGame = "INCOMPLETE_GAME", 422, true;
    /// The claimed value or statistics differ from the replay's.
    ReplayMismatch = "REPLAY_MISMATCH", 422, true;
    /// `week` is not the UTC+8 week of `playedAt`.
    WrongWeek = "WRONG_WEEK", 422, true;
    /// `playedAt` lies in the future. Not a validation code: once the server's clock
    /// passes it (a client clock running ahead), the same result is accepted.
    PlayedInFuture = "PLAYED_IN_FUTURE", 422, false;
    /// `playedAt` lies before the save existed (beyond the offline grace).
    PlayedBeforeSave = "PLAYED_BEFORE_SAVE", 422, true;
    /// The player already submitted another result on this seed.
    SeedReused = "SEED_REUSED", 422, true;
    /// The input log (its edits with their times) came with another result already:
    /// a game's typing counts once, under one save and one score id.
    LogReused = "LOG_REUSED", 422, true;
    /// Another player's name is the same up to case, compatibility forms and look-alike
    /// characters (the UTS #39 skeleton).
    NameTaken = "NAME_TAKEN", 422, true;
    /// Too many requests; `Retry-After` says when to come back.
    RateLimited = "RATE_LIMITED", 429, false;
    /// The game's text is new, and its save or address stored too many new texts this
    /// hour; `Retry-After` says when to come back.
    TooManyTexts = "TOO_MANY_TEXTS", 429, false;
    /// An unexpected failure, logged under the request id.
    Internal = "INTERNAL", 500, false;
    /// The service is briefly unavailable (a timeout, a restart).
    Unavailable = "UNAVAILABLE", 503, false;
    /// The database cannot be reached or is full; `Retry-After` says when to retry.
    DatabaseUnavailable = "DATABASE_UNAVAILABLE", 503, false;
}

impl ApiCode {
    /// The code for its wire form, if the API has it.
    pub fn parse(code: &str) -> Option<ApiCode> {
        ApiCode::ALL.iter().copied().find(|c| c.as_str() == code)
    }
}

impl fmt::Display for ApiCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn codes_are_unique_stable_snake_codes_that_round_trip() {
        let mut seen = HashSet::new();
        for &code in ApiCode::ALL {
            let wire = code.as_str();
            assert!(seen.insert(wire), "{wire} twice");
            assert_eq!(ApiCode::parse(wire), Some(code));
            assert!((400..=599).contains(&code.status()), "{wire}");
        }
        assert_eq!(ApiCode::parse("HTTP_404"), None);
        assert_eq!(ApiCode::parse("too_fast"), None);
    }

    #[test]
    fn only_refusals_of_content_are_validation_codes() {
        for &code in ApiCode::ALL {
            if code.is_validation() {
                assert!(matches!(code.status(), 400 | 422), "{code}");
            }
            // Nothing about the moment, the network or the deployment blocks a score.
            if code.status() >= 500
                || matches!(code.status(), 401 | 403 | 404 | 405 | 413 | 415 | 429)
            {
                assert!(!code.is_validation(), "{code}");
            }
        }
    }
}
