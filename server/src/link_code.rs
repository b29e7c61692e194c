//! One-time link codes (docs/api.md, "Devices"): 10 characters of Crockford's base32
//! (50 random bits), shown as `XXXXX-XXXXX`. Typed back, case, dashes and spaces do not
//! matter, and the letters people confuse with digits read as those digits (I and L as
//! 1, O as 0). The server keeps only the SHA-256 of the normalised code.

use sha2::{Digest, Sha256};
use uuid::Uuid;

/// How long a code may be used: 10 minutes.
pub const LINK_CODE_TTL_MS: i64 = 10 * 60 * 1000;
/// Crockford's base32 digits.
const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
/// Characters in a code: 10 × 5 = 50 bits.
const CHARS: usize = 10;
const RANDOM_BITS: u32 = 5 * CHARS as u32;

/// A code as shown to people, e.g. `7KQ2M-9XW4D`.
pub fn generate() -> String {
    // A version 4 UUID holds 122 bits from the operating system's random source.
    let random = Uuid::new_v4().as_u128() & ((1 << RANDOM_BITS) - 1);
    let digits: String = (0..CHARS)
        .rev()
        .map(|i| char::from(ALPHABET[(random >> (5 * i)) as usize & 31]))
        .collect();
    format!("{}-{}", &digits[..CHARS / 2], &digits[CHARS / 2..])
}

/// The code's canonical digits, if `typed` can be one: 10 base32 digits once dashes
/// and spaces are dropped, any case, I/L read as 1 and O as 0.
pub fn normalise(typed: &str) -> Option<String> {
    let digits: String = typed
        .chars()
        .filter(|c| *c != '-' && !c.is_whitespace())
        .map(|c| match c.to_ascii_uppercase() {
            'I' | 'L' => '1',
            'O' => '0',
            other => other,
        })
        .collect();
    let valid = digits.len() == CHARS && digits.bytes().all(|b| ALPHABET.contains(&b));
    valid.then_some(digits)
}

/// The hex SHA-256 the database keeps for a normalised code.
pub fn sha256(normalised: &str) -> String {
    hex::encode(Sha256::digest(normalised.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn codes_are_two_groups_of_five_that_normalise_to_themselves() {
        let codes: HashSet<String> = (0..1000).map(|_| generate()).collect();
        assert_eq!(codes.len(), 1000);
        for code in &codes {
            assert_eq!(code.len(), 11, "{code}");
            assert_eq!(&code[5..6], "-");
            assert_eq!(normalise(code), Some(code.replace('-', "")));
        }
    }

    #[test]
    fn typing_is_forgiving_but_only_base32_digits_are_codes() {
        let canonical = Some("7KQ2M9XW4D".to_owned());
        for typed in [
            "7KQ2M-9XW4D",
            "7kq2m9xw4d",
            " 7KQ2M 9XW4D ",
            "7-K-Q-2-M-9-X-W-4-D",
        ] {
            assert_eq!(normalise(typed), canonical, "{typed}");
        }
        assert_eq!(normalise("ILO00-00000").as_deref(), Some("1100000000"));
        for refused in [
            "",
            "7KQ2M-9XW4",
            "7KQ2M-9XW4DD",
            "7KQ2M-9XW4U",
            "7KQ2M-9XW4é",
        ] {
            assert_eq!(normalise(refused), None, "{refused}");
        }
    }
}
