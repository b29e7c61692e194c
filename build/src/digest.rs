//! The precache digest and cache name (docs/service-worker.md).
//!
//! For each precached file in ascending URL order, the line `<url> <hex sha256>\n`;
//! the digest is the hex SHA-256 of all lines concatenated. Same input, same name;
//! one changed byte, a new name.

use sha2::{Digest, Sha256};

/// Every precache cache is named with this prefix; activate deletes the others.
pub const CACHE_PREFIX: &str = "keydo-precache-";

/// Hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// The digest of `(url, sha256 hex)` pairs; the order they come in does not matter.
pub fn digest<'a>(files: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let mut files: Vec<_> = files.into_iter().collect();
    files.sort_unstable();
    let mut hasher = Sha256::new();
    for (url, sha) in files {
        hasher.update(url.as_bytes());
        hasher.update(b" ");
        hasher.update(sha.as_bytes());
        hasher.update(b"\n");
    }
    hex::encode(hasher.finalize())
}

/// `keydo-precache-<digest>`.
pub fn cache_name(digest: &str) -> String {
    format!("{CACHE_PREFIX}{digest}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_of_known_bytes() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn digest_hashes_sorted_lines() {
        let a = sha256_hex(b"A");
        let b = sha256_hex(b"B");
        // Computed independently: the lines, sorted by URL, then hashed as one string.
        let expected = sha256_hex(format!("/a.js {a}\n/b.css {b}\n").as_bytes());
        assert_eq!(
            digest([("/b.css", b.as_str()), ("/a.js", a.as_str())]),
            expected
        );
        assert_eq!(
            digest([("/a.js", a.as_str()), ("/b.css", b.as_str())]),
            expected
        );
    }

    #[test]
    fn fixed_input_gives_a_fixed_name() {
        let name = cache_name(&digest([("/index.html", sha256_hex(b"<html>").as_str())]));
        assert_eq!(
            name,
            cache_name(&sha256_hex(
                format!("/index.html {}\n", sha256_hex(b"<html>")).as_bytes()
            ))
        );
        assert_eq!(name.len(), CACHE_PREFIX.len() + 64);
    }

    #[test]
    fn one_changed_byte_changes_the_digest() {
        let before = digest([("/app.wasm", sha256_hex(b"\0asm1").as_str())]);
        let after = digest([("/app.wasm", sha256_hex(b"\0asm2").as_str())]);
        assert_ne!(before, after);
        let renamed = digest([("/app2.wasm", sha256_hex(b"\0asm1").as_str())]);
        assert_ne!(before, renamed);
    }

    #[test]
    fn empty_list_is_the_hash_of_nothing() {
        assert_eq!(digest([]), sha256_hex(b""));
    }
}
