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
    /// Opening the database waits on another tab that holds an older version open.
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
            StorageError::Blocked => f.write_str(
                "the browser's database is held by another KeyDo tab; close it or reload",
            ),
            StorageError::Database(e) => write!(f, "the browser's database failed: {e}"),
            StorageError::Record(e) => write!(f, "a stored record could not be read: {e}"),
        }
    }
}

impl std::error::Error for StorageError {}

impl From<idb::Error> for StorageError {
    fn from(e: idb::Error) -> Self {
        match e {
            idb::Error::DomException(dom) => StorageError::from_dom(&dom.name(), &dom.message()),
            idb::Error::IndexedDbNotFound(_) | idb::Error::IndexedDbOpenFailed(_) => {
                StorageError::Unavailable(e.to_string())
            }
            other => StorageError::Database(other.to_string()),
        }
    }
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
}
