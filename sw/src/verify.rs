//! Fetching a precached file and proving it is the build's: a same-origin 200, not
//! redirected, whose bytes hash (SHA-256, WebCrypto) to the manifest's digest.
//!
//! A captive portal's sign-in page, a proxy's error page or a half-finished deploy
//! answers with the wrong bytes; none of them may enter the cache.

use crate::scope;
use js_sys::{ArrayBuffer, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Request, RequestCache, RequestInit, Response, ResponseType};

/// Fetches `url` past the HTTP cache and returns the response once its bytes are
/// known to hash to `sha256` (lowercase hex); any other answer is an error.
pub async fn fetch_verified(url: &str, sha256: &str) -> Result<Response, JsValue> {
    let init = RequestInit::new();
    init.set_cache(RequestCache::Reload);
    let request = Request::new_with_str_and_init(url, &init)?;
    let response: Response = JsFuture::from(scope().fetch_with_request(&request))
        .await?
        .unchecked_into();
    if response.redirected() || response.type_() != ResponseType::Basic {
        return Err(refused(url, "was redirected or is not same-origin"));
    }
    if response.status() != 200 {
        return Err(refused(url, "did not answer 200"));
    }
    // The clone's body is the same bytes the original will put into the cache.
    let body = JsFuture::from(response.clone()?.array_buffer()?).await?;
    let digest = JsFuture::from(
        scope()
            .crypto()?
            .subtle()
            .digest_with_str_and_buffer_source("SHA-256", body.unchecked_ref())?,
    )
    .await?;
    let digest = Uint8Array::new(digest.unchecked_ref::<ArrayBuffer>()).to_vec();
    if !hex_eq(&digest, sha256) {
        return Err(refused(url, "does not hash to the build's SHA-256"));
    }
    Ok(response)
}

fn refused(url: &str, why: &str) -> JsValue {
    js_sys::Error::new(&["keydo: precache refused ", url, ": it ", why].concat()).into()
}

/// Whether `bytes` are what the lowercase hex string `hex` spells.
fn hex_eq(bytes: &[u8], hex: &str) -> bool {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    hex.len() == 2 * bytes.len()
        && bytes
            .iter()
            .zip(hex.as_bytes().chunks_exact(2))
            .all(|(b, pair)| {
                pair[0] == DIGITS[usize::from(b >> 4)] && pair[1] == DIGITS[usize::from(b & 0xf)]
            })
}

#[cfg(test)]
mod tests {
    use super::hex_eq;

    #[test]
    fn hex_matches_only_the_same_bytes() {
        assert!(hex_eq(&[0x00, 0xab, 0xff], "00abff"));
        assert!(hex_eq(&[], ""));
        assert!(!hex_eq(&[0x00, 0xab, 0xff], "00abfe"));
        assert!(
            !hex_eq(&[0x00, 0xab, 0xff], "00ABFF"),
            "the build writes lowercase"
        );
        assert!(!hex_eq(&[0x00, 0xab], "00abff"));
        assert!(!hex_eq(&[0x00, 0xab, 0xff], "00ab"));
    }
}
