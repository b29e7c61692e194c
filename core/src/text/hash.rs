//! A loaded text's identity: the SHA-256 of its normalised form (docs/genda.md), so
//! everyone who loads the same text lands on the same board.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fmt;
use std::str::FromStr;

/// The SHA-256 of a normalised text's UTF-8. Serialised as 64 lowercase hex digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct TextHash([u8; 32]);

impl TextHash {
    /// The hash of `normalised`.
    pub fn of(normalised: &str) -> TextHash {
        TextHash(Sha256::digest(normalised.as_bytes()).into())
    }

    /// The first 12 hex digits: the `/t/<short hash>` link.
    pub fn short(&self) -> String {
        hex::encode(&self.0[..6])
    }
}

impl fmt::Display for TextHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&hex::encode(self.0))
    }
}

/// Not 64 hex digits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadTextHash;

impl fmt::Display for BadTextHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a text hash is 64 hex digits")
    }
}

impl FromStr for TextHash {
    type Err = BadTextHash;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut bytes = [0; 32];
        hex::decode_to_slice(s, &mut bytes).map_err(|_| BadTextHash)?;
        if s.bytes().any(|b| b.is_ascii_uppercase()) {
            return Err(BadTextHash);
        }
        Ok(TextHash(bytes))
    }
}

impl TryFrom<String> for TextHash {
    type Error = BadTextHash;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

impl From<TextHash> for String {
    fn from(hash: TextHash) -> String {
        hash.to_string()
    }
}
