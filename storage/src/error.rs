//! Storage failures, typed by what the caller can do about them, in words a player
//! can read.

use std::fmt;

/// IndexedDB refused or failed an operation, or a stored record was unreadable.
///
/// Every kind but [`StorageError::Record`] can pass: a caller that fails to record a
/// result keeps it in memory and tries the same write again later
/// ([`StorageError::is_transient`]); the write is idempotent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StorageError {
    /// The browser has no usable IndexedDB here, or refused to open it.
    Unavailable(String),
    /// The browser refused to store more: this site's storage quota is used up.
    QuotaExceeded,
    /// Opening the database waited past [`crate::OPEN_WAIT`] on another tab that
    /// holds an older version open (and lets no upgrade through).
    Blocked,
    /// The database failed or aborted the operation for another reason (named).
    Database(String),
    /// A stored record could not be read.
    Record(String),
}

impl StorageError {
    /// Whether the same operation may succeed later (the result should be kept in
    /// memory meanwhile and the write retried).
    pub fn is_transient(&self) -> bool {
        !matches!(self, StorageError::Record(_))
    }

    /// The error a `DOMException` of this name stands for.
    pub(crate) fn from_dom(name: &str, message: &str) -> StorageError {
        match name {
            "QuotaExceededError" => StorageError::QuotaExceeded,
            _ => StorageError::Database(format!("{name}: {message}")),
        }
    }
}

impl fmt::Display for StorageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StorageError::Unavailable(e) => write!(f, "the browser's database is unavailable: {e}"),
            StorageError::QuotaExceeded => {
                f.write_str("the browser's storage for this site is full")
            }
            StorageError::Blocked => {
                f.write_str("another KeyDo tab of an older version is open; close it")
            }
            StorageError::Database(e) => write!(f, "the browser's database failed: {e}"),
            StorageError::Record(e) => write!(f, "a stored record could not be read: {e}"),
        }
    }
}

impl std::error::Error for StorageError {}

impl StorageError {
    /// An open that failed: an error without a `DOMException` means IndexedDB itself
    /// is missing or refused.
    pub(crate) fn opening(e: rexie::Error) -> StorageError {
        match StorageError::from(e) {
            StorageError::Database(text) => StorageError::Unavailable(text),
            other => other,
        }
    }
}

impl From<rexie::Error> for StorageError {
    fn from(e: rexie::Error) -> Self {
        // rexie hands the browser's error over as text only, a `DOMException` in it as
        // "…: QuotaExceededError: <message>"; its own text for idb's errors is bare.
        let text = match &e {
            rexie::Error::IdbError(inner) => inner.to_string(),
            other => other.to_string(),
        };
        match dom_exception(&text) {
            Some((name, message)) => StorageError::from_dom(name, message),
            None => StorageError::Database(text),
        }
    }
}

/// The name and message of the `DOMException` a rexie error's text carries.
fn dom_exception(text: &str) -> Option<(&str, &str)> {
    let is_name = |part: &str| {
        part.ends_with("Error")
            && part.starts_with(|c: char| c.is_ascii_uppercase())
            && part.chars().all(|c| c.is_ascii_alphanumeric())
    };
    let mut rest = text;
    while let Some((part, after)) = rest.split_once(": ") {
        if is_name(part) {
            return Some((part, after));
        }
        rest = after;
    }
    is_name(rest).then_some((rest, ""))
}

impl From<serde_wasm_bindgen::Error> for StorageError {
    fn from(e: serde_wasm_bindgen::Error) -> Self {
        StorageError::Record(e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_quota_is_told_apart_and_every_database_failure_may_pass() {
        assert_eq!(
            StorageError::from_dom("QuotaExceededError", "full"),
            StorageError::QuotaExceeded
        );
        let aborted = StorageError::from_dom("AbortError", "aborted");
        assert_eq!(
            aborted,
            StorageError::Database("AbortError: aborted".into())
        );
        for transient in [
            StorageError::QuotaExceeded,
            StorageError::Blocked,
            aborted,
            StorageError::Unavailable("no indexedDB".into()),
        ] {
            assert!(transient.is_transient(), "{transient}");
        }
        assert!(!StorageError::Record("bad".into()).is_transient());
    }

    #[test]
    fn the_dom_exception_is_read_from_the_text_rexie_gives() {
        assert_eq!(
            dom_exception("DOM exception: QuotaExceededError: the quota: it is full"),
            Some(("QuotaExceededError", "the quota: it is full"))
        );
        assert_eq!(
            dom_exception("failed to update a value: DataCloneError"),
            Some(("DataCloneError", ""))
        );
        assert_eq!(dom_exception("DOM exception not found"), None);
        assert_eq!(dom_exception("failed to get all values: undefined"), None);
    }
}
