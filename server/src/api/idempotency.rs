//! The `Idempotency-Key` of the requests that change something (`POST /api/saves`,
//! `PATCH /api/saves/me`, `POST /api/saves/me/operations`, `POST /api/devices`), what the server keeps under it, and the
//! answer it gives again from that record.
//!
//! The key is a UUID the client chose before its first attempt. The server stores
//! neither it nor the token it answered with: the record is found by SHA-256(key), and
//! the token is kept sealed as token XOR SHA-256("keydo-idempotency-token" || key), so
//! only someone holding the key (the client) can read the token back; the database
//! alone gives away no token (docs/api.md, "Idempotency").

use crate::error::ApiError;
use crate::store::RememberedCreation;
use axum::Json;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};
use keydo_core::api::{ApiCode, IDEMPOTENCY_KEY_HEADER, SaveCreated};
use keydo_core::profile::ProfileRecord;
use serde::Serialize;
use sha2::{Digest, Sha256};
use uuid::Uuid;

/// Separates the token's pad from every other hash of the key.
const TOKEN_PAD_CONTEXT: &[u8] = b"keydo-idempotency-token";
/// A hyphenated UUID: `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`.
const KEY_LEN: usize = 36;
/// How long a key's answer is kept: a day, so a client that lost the answer can come
/// back the next day and still get its save (or its profile operation's answer).
const KEY_RETENTION_MS: i64 = 24 * 60 * 60 * 1000;

/// A well-formed key, with the hash its record is stored under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdempotencyKey {
    key: Uuid,
    sha256: String,
}

impl IdempotencyKey {
    /// The request's key: `None` without the header; 400 `INVALID_IDEMPOTENCY_KEY`
    /// unless it is exactly one hyphenated UUID (hex digits in either case).
    pub fn from_headers(headers: &HeaderMap) -> Result<Option<Self>, ApiError> {
        let mut values = headers.get_all(IDEMPOTENCY_KEY_HEADER).iter();
        let Some(value) = values.next() else {
            return Ok(None);
        };
        let key = value
            .to_str()
            .ok()
            .filter(|text| text.len() == KEY_LEN && values.next().is_none())
            .and_then(|text| Uuid::try_parse(text).ok())
            .ok_or_else(|| {
                ApiError::new(
                    ApiCode::InvalidIdempotencyKey,
                    "The Idempotency-Key header must be one UUID, like 6f1c1f5e-8a4e-4b8e-9d43-2f4c1d0b9a11.",
                )
            })?;
        Ok(Some(Self::new(key)))
    }

    /// The request's key; 400 `IDEMPOTENCY_KEY_REQUIRED` without one.
    pub fn required(headers: &HeaderMap) -> Result<Self, ApiError> {
        Self::from_headers(headers)?.ok_or_else(|| {
            ApiError::new(
                ApiCode::IdempotencyKeyRequired,
                "This request needs an Idempotency-Key header: a UUID chosen once per change and sent again with every retry of it.",
            )
        })
    }

    /// A key that came in a request's body (one of several operations' keys).
    pub fn new(key: Uuid) -> Self {
        let sha256 = hex::encode(Sha256::digest(key.hyphenated().to_string()));
        IdempotencyKey { key, sha256 }
    }

    /// The hex SHA-256 of the key's lowercase hyphenated form: the record's id.
    pub fn sha256(&self) -> &str {
        &self.sha256
    }

    /// The token as stored: hex of its 16 bytes XOR the key's pad.
    pub fn seal(&self, token: Uuid) -> String {
        hex::encode(self.xor_pad(*token.as_bytes()))
    }

    /// The token back from [`Self::seal`]'s output.
    pub fn unseal(&self, sealed: &str) -> Result<Uuid, String> {
        let bytes: [u8; 16] = hex::decode(sealed)
            .map_err(|error| format!("a sealed token is not hex: {error}"))?
            .try_into()
            .map_err(|_| "a sealed token is not 16 bytes".to_owned())?;
        Ok(Uuid::from_bytes(self.xor_pad(bytes)))
    }

    fn xor_pad(&self, mut bytes: [u8; 16]) -> [u8; 16] {
        let pad = Sha256::new()
            .chain_update(TOKEN_PAD_CONTEXT)
            .chain_update(self.key.hyphenated().to_string())
            .finalize();
        for (byte, pad) in bytes.iter_mut().zip(pad) {
            *byte ^= pad;
        }
        bytes
    }
}

/// An extractor for requests that must carry a key: 400 without one, before the body
/// is read.
#[derive(Debug, Clone)]
pub struct RequiredKey(pub IdempotencyKey);

impl<S: Send + Sync> FromRequestParts<S> for RequiredKey {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, ApiError> {
        IdempotencyKey::required(&parts.headers).map(RequiredKey)
    }
}

/// The hex SHA-256 of the request as parsed (so spacing and field order do not
/// matter): a key sent again with another body is told apart by it.
pub fn request_sha256(request: &impl Serialize) -> String {
    let canonical = serde_json::to_vec(request).expect("API bodies serialise");
    hex::encode(Sha256::digest(canonical))
}

/// A new save or a linked device: 201 with its player and token.
pub type Created = (StatusCode, Json<SaveCreated>);

/// The answer for a key that already names a save (or a linked device): that save and
/// its token, if the body is the one the key was first sent with.
pub fn answer_again(
    key: &IdempotencyKey,
    request_sha256: &str,
    remembered: RememberedCreation,
) -> Result<Created, ApiError> {
    if request_sha256 != remembered.request_sha256 {
        return Err(key_reused());
    }
    let token = key
        .unseal(&remembered.token_sealed)
        .map_err(ApiError::internal)?;
    Ok(created(remembered.player_id, remembered.record, token))
}

pub fn key_reused() -> ApiError {
    ApiError::new(
        ApiCode::IdempotencyKeyReused,
        "This Idempotency-Key was already used with a different request body.",
    )
}

/// 201 with a token for the player.
pub fn created(player_id: Uuid, record: ProfileRecord, token: Uuid) -> Created {
    let created = SaveCreated {
        player_id,
        token,
        version: record.version,
        profile: record.profile,
    };
    (StatusCode::CREATED, Json(created))
}

/// Records made before this instant (given now) are forgotten: their keys are free
/// again.
pub fn expired_before(now: i64) -> i64 {
    now - KEY_RETENTION_MS
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;
    use keydo_core::api::CreateSave;

    const KEY: &str = "6f1c1f5e-8a4e-4b8e-9d43-2f4c1d0b9a11";

    fn headers(values: &[&str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append(
                IDEMPOTENCY_KEY_HEADER,
                HeaderValue::from_str(value).unwrap(),
            );
        }
        headers
    }

    fn key(text: &str) -> IdempotencyKey {
        IdempotencyKey::from_headers(&headers(&[text]))
            .unwrap()
            .unwrap()
    }

    #[test]
    fn a_key_is_one_hyphenated_uuid_in_either_case() {
        assert_eq!(IdempotencyKey::from_headers(&HeaderMap::new()), Ok(None));
        assert_eq!(
            IdempotencyKey::required(&HeaderMap::new())
                .unwrap_err()
                .code,
            ApiCode::IdempotencyKeyRequired
        );
        assert_eq!(IdempotencyKey::required(&headers(&[KEY])), Ok(key(KEY)));
        assert_eq!(key(KEY), key(&KEY.to_uppercase()));
        assert_eq!(key(KEY).sha256().len(), 64);
        for refused in [
            "",
            "not-a-uuid",
            "6f1c1f5e8a4e4b8e9d432f4c1d0b9a11",
            "{6f1c1f5e-8a4e-4b8e-9d43-2f4c1d0b9a11}",
            "urn:uuid:6f1c1f5e-8a4e-4b8e-9d43-2f4c1d0b9a11",
            " 6f1c1f5e-8a4e-4b8e-9d43-2f4c1d0b9a11",
            "6f1c1f5e-8a4e-4b8e-9d43-2f4c1d0b9a1g",
        ] {
            let error = IdempotencyKey::from_headers(&headers(&[refused])).unwrap_err();
            assert_eq!(error.code, ApiCode::InvalidIdempotencyKey, "{refused:?}");
        }
        let two = headers(&[KEY, "0d4f3c52-7a43-4f7e-8f8e-1d2c3b4a5968"]);
        assert!(IdempotencyKey::from_headers(&two).is_err());
    }

    #[test]
    fn a_sealed_token_opens_only_with_its_key() {
        let token = Uuid::new_v4();
        let sealed = key(KEY).seal(token);
        assert_eq!(sealed.len(), 32);
        assert_ne!(sealed, token.simple().to_string());
        assert_eq!(key(KEY).unseal(&sealed), Ok(token));
        assert_eq!(key(&KEY.to_uppercase()).unseal(&sealed), Ok(token));
        let other = key("0d4f3c52-7a43-4f7e-8f8e-1d2c3b4a5968");
        assert_ne!(other.unseal(&sealed), Ok(token));
        assert!(key(KEY).unseal("zz").is_err());
        assert!(key(KEY).unseal("00ff").is_err());
    }

    #[test]
    fn the_record_id_reveals_neither_the_key_nor_the_pad() {
        let key = key(KEY);
        assert!(!key.sha256().contains(&KEY.replace('-', "")));
        // The pad is not the record id: knowing the id does not open the token.
        let zero = key.seal(Uuid::nil());
        assert!(!key.sha256().starts_with(&zero));
    }

    #[test]
    fn requests_hash_by_meaning() {
        let named = CreateSave {
            display_name: Some("Ann".into()),
        };
        let parsed: CreateSave = serde_json::from_str("{ \"displayName\" :\n \"Ann\" }").unwrap();
        assert_eq!(request_sha256(&named), request_sha256(&parsed));
        assert_ne!(
            request_sha256(&named),
            request_sha256(&CreateSave::default())
        );
    }
}
