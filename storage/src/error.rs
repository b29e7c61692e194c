//! Storage failures, in words a player can read.

use std::fmt;

/// IndexedDB refused or failed an operation, or a stored record was unreadable.
#[derive(Debug)]
pub enum StorageError {
    Database(rexie::Error),
    Record(String),
}

impl fmt::Display for StorageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StorageError::Database(e) => write!(f, "the browser's database failed: {e}"),
            StorageError::Record(e) => write!(f, "a stored record could not be read: {e}"),
        }
    }
}

impl std::error::Error for StorageError {}

impl From<rexie::Error> for StorageError {
    fn from(e: rexie::Error) -> Self {
        StorageError::Database(e)
    }
}

impl From<serde_wasm_bindgen::Error> for StorageError {
    fn from(e: serde_wasm_bindgen::Error) -> Self {
        StorageError::Record(e.to_string())
    }
}
