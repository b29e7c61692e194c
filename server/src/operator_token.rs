//! The operator's token for the review page (`/admin`, [`crate::admin_page`]), from
//! `--admin-token` / `KEYDO_ADMIN_TOKEN`: kept only as digests, compared in constant
//! time, and the source of the form token the page's forms carry back (docs/replay.md,
//! "Moderation").

use sha2::{Digest, Sha256};
use std::fmt;
use subtle::ConstantTimeEq;

/// The shortest operator token accepted: guessing one stays hopeless even at the
/// per-address rate limit.
pub const MIN_TOKEN_CHARS: usize = 32;

/// The operator's token, kept only as digests.
#[derive(Clone)]
pub struct OperatorToken {
    sha256: [u8; 32],
    /// What every form on the page carries back: hex SHA-256 of a prefix and the
    /// token, so another site cannot know it.
    form_token: String,
}

impl OperatorToken {
    pub fn new(token: &str) -> Result<Self, String> {
        if token.chars().count() < MIN_TOKEN_CHARS {
            return Err(format!(
                "the admin token must be at least {MIN_TOKEN_CHARS} characters long, e.g. \
                 the output of `openssl rand -hex 32`"
            ));
        }
        Ok(OperatorToken {
            sha256: Sha256::digest(token).into(),
            form_token: hex::encode(Sha256::digest(format!("keydo-admin-form:{token}"))),
        })
    }

    /// Whether `given` is the token (in constant time).
    pub fn admits(&self, given: &str) -> bool {
        let given: [u8; 32] = Sha256::digest(given).into();
        given.ct_eq(&self.sha256).into()
    }

    pub fn form_token(&self) -> &str {
        &self.form_token
    }

    /// Whether `given` is the form token (in constant time).
    pub fn admits_form(&self, given: &str) -> bool {
        given.as_bytes().ct_eq(self.form_token.as_bytes()).into()
    }
}

/// Never prints the token's digests.
impl fmt::Debug for OperatorToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("OperatorToken(..)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_tokens_are_refused_and_the_token_is_compared_whole() {
        assert!(OperatorToken::new("short").is_err());
        let token = OperatorToken::new(&"a".repeat(MIN_TOKEN_CHARS)).unwrap();
        assert!(token.admits(&"a".repeat(MIN_TOKEN_CHARS)));
        assert!(!token.admits(&"a".repeat(MIN_TOKEN_CHARS - 1)));
        assert!(!token.admits(""));
        assert!(token.admits_form(token.form_token()));
        assert!(!token.admits_form(&"a".repeat(MIN_TOKEN_CHARS)));
        assert_eq!(format!("{token:?}"), "OperatorToken(..)");
    }
}
