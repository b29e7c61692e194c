//! A loaded text's identity (docs/genda.md, "Text hash"): the SHA-256 of its normalised
//! form's UTF-8, so everyone who loads the same text has the same hash, and a text one
//! 字 different has another.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fmt;
use std::str::FromStr;

/// The SHA-256 of a normalised text. Written as 64 lowercase hex digits (JSON,
/// `Display`, `FromStr`); [`TextHash::short`] is the first 12 of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct TextHash([u8; 32]);

impl TextHash {
    /// How many hex digits [`TextHash::short`] keeps: 48 bits, so two different texts
    /// share a short hash only once there are some 16 million texts.
    pub const SHORT_LEN: usize = 12;

    /// The hash of `normalised`'s UTF-8 (the caller normalised it:
    /// [`crate::text::LoadedText::hash`] is the one way a game gets it).
    pub fn of(normalised: &str) -> TextHash {
        TextHash(Sha256::digest(normalised.as_bytes()).into())
    }

    /// The first [`TextHash::SHORT_LEN`] hex digits: the text's link, `/t/<short>`.
    pub fn short(&self) -> String {
        let mut hex = self.to_string();
        hex.truncate(TextHash::SHORT_LEN);
        hex
    }

    /// Whether this hash begins with `short` (a link's [`TextHash::short`]).
    pub fn starts_with(&self, short: &str) -> bool {
        self.to_string().starts_with(short)
    }
}

impl fmt::Display for TextHash {
    /// 64 lowercase hex digits.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&hex::encode(self.0))
    }
}

/// Text that is not 64 lowercase hex digits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotATextHash;

impl fmt::Display for NotATextHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a text hash is 64 lowercase hexadecimal digits")
    }
}

impl std::error::Error for NotATextHash {}

impl FromStr for TextHash {
    type Err = NotATextHash;

    /// Exactly 64 lowercase hex digits: one spelling per hash, so stored keys compare
    /// as strings.
    fn from_str(hex_digits: &str) -> Result<Self, Self::Err> {
        if hex_digits.len() != 64 || hex_digits.bytes().any(|b| b.is_ascii_uppercase()) {
            return Err(NotATextHash);
        }
        let mut bytes = [0; 32];
        hex::decode_to_slice(hex_digits, &mut bytes).map_err(|_| NotATextHash)?;
        Ok(TextHash(bytes))
    }
}

impl TryFrom<String> for TextHash {
    type Error = NotATextHash;

    fn try_from(hex_digits: String) -> Result<Self, Self::Error> {
        hex_digits.parse()
    }
}

impl From<TextHash> for String {
    fn from(hash: TextHash) -> String {
        hash.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_the_sha256_of_the_utf8() {
        // Known SHA-256 values (FIPS 180-2 test vector "abc", and the empty string).
        assert_eq!(
            TextHash::of("abc").to_string(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            TextHash::of("").to_string(),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_ne!(TextHash::of("学而时习之"), TextHash::of("学而时习乎"));
    }

    #[test]
    fn short_is_the_first_twelve_digits() {
        let hash = TextHash::of("abc");
        assert_eq!(hash.short(), "ba7816bf8f01");
        assert!(hash.starts_with(&hash.short()));
        assert!(!TextHash::of("abd").starts_with(&hash.short()));
    }

    #[test]
    fn round_trips_through_hex_and_json() {
        let hash = TextHash::of("有朋自远方来");
        assert_eq!(hash.to_string().parse::<TextHash>(), Ok(hash));
        let json = serde_json::to_string(&hash).unwrap();
        assert_eq!(json, format!("\"{hash}\""));
        assert_eq!(serde_json::from_str::<TextHash>(&json).unwrap(), hash);
    }

    #[test]
    fn refuses_anything_but_64_lowercase_hex_digits() {
        let good = TextHash::of("abc").to_string();
        for bad in [
            String::new(),
            good[..63].to_owned(),
            format!("{good}0"),
            good.to_uppercase(),
            format!("{}g", &good[..63]),
            format!("{}é", &good[..62]),
        ] {
            assert_eq!(bad.parse::<TextHash>(), Err(NotATextHash), "{bad}");
            assert!(serde_json::from_value::<TextHash>(bad.into()).is_err());
        }
    }
}
