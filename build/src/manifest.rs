//! `precache-manifest.json`: the list of files the game needs offline.
//!
//! Every file of the build output is precached except the service worker's own
//! scripts and this manifest ([`is_worker_file`]), which are fetched by the browser's
//! update check, not served from the cache they describe, and the compressed copies
//! of files ([`is_compressed_copy`]), which are the same files in another encoding.

use crate::BuildError;
use crate::digest::{cache_name, digest, sha256_hex};
use crate::precompress::is_compressed_copy;
use crate::worker_files::is_worker_file;
use serde::{Deserialize, Serialize};
use std::path::Path;
use walkdir::WalkDir;

/// The manifest's file name in the output.
pub const MANIFEST_FILE: &str = "precache-manifest.json";

/// One precached file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrecacheFile {
    pub url: String,
    pub sha256: String,
    pub bytes: u64,
}

/// The manifest as written to `precache-manifest.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PrecacheManifest {
    pub cache_name: String,
    /// In ascending URL order.
    pub files: Vec<PrecacheFile>,
}

impl PrecacheManifest {
    /// Hashes every precachable file under `out_dir`.
    pub fn scan(out_dir: &Path) -> Result<Self, BuildError> {
        let mut files = Vec::new();
        for entry in WalkDir::new(out_dir).sort_by_file_name() {
            let entry = entry.map_err(|e| BuildError::Io {
                path: out_dir.display().to_string(),
                source: e.into(),
            })?;
            if !entry.file_type().is_file() {
                continue;
            }
            let url = url_of(out_dir, entry.path())?;
            if is_worker_file(&url) || is_compressed_copy(&url) {
                continue;
            }
            let bytes = read(entry.path())?;
            files.push(PrecacheFile {
                url,
                sha256: sha256_hex(&bytes),
                bytes: bytes.len() as u64,
            });
        }
        files.sort_by(|a, b| a.url.cmp(&b.url));
        let digest = digest(files.iter().map(|f| (f.url.as_str(), f.sha256.as_str())));
        Ok(PrecacheManifest {
            cache_name: cache_name(&digest),
            files,
        })
    }

    /// Whether `url` is precached.
    pub fn contains(&self, url: &str) -> bool {
        self.files
            .binary_search_by(|f| f.url.as_str().cmp(url))
            .is_ok()
    }

    /// Writes `precache-manifest.json` into `out_dir`.
    pub fn write(&self, out_dir: &Path) -> Result<(), BuildError> {
        let path = out_dir.join(MANIFEST_FILE);
        let json = serde_json::to_string_pretty(self).expect("manifest serialises");
        write(&path, json.as_bytes())
    }
}

/// The URL path of `path` below `out_dir`, with `/` separators and a leading `/`.
fn url_of(out_dir: &Path, path: &Path) -> Result<String, BuildError> {
    let relative = path
        .strip_prefix(out_dir)
        .expect("walkdir stays below its root");
    let mut url = String::new();
    for part in relative.components() {
        let part = part
            .as_os_str()
            .to_str()
            .ok_or_else(|| BuildError::Invalid {
                path: path.display().to_string(),
                reason: "file names in the output must be UTF-8 to be served".into(),
            })?;
        url.push('/');
        url.push_str(part);
    }
    Ok(url)
}

pub(crate) fn read(path: &Path) -> Result<Vec<u8>, BuildError> {
    std::fs::read(path).map_err(|source| BuildError::Io {
        path: path.display().to_string(),
        source,
    })
}

pub(crate) fn write(path: &Path, bytes: &[u8]) -> Result<(), BuildError> {
    std::fs::write(path, bytes).map_err(|source| BuildError::Io {
        path: path.display().to_string(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn output(files: &[(&str, &[u8])]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, bytes) in files {
            let path = dir.path().join(name);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, bytes).unwrap();
        }
        dir
    }

    #[test]
    fn lists_every_file_but_the_workers_own_in_url_order() {
        let dir = output(&[
            ("index.html", b"<html>"),
            ("texts/words.txt", b"the\nof\n"),
            ("app-0123456789abcdef.js", b"js"),
            ("sw.js", b"sw"),
            ("keydo_worker.js", b"glue"),
            ("keydo_worker_wasm.js", b"bytes"),
            ("keydo_flush.js", b"glue"),
            ("keydo_flush_bg.wasm", b"\0asm"),
            ("precache-manifest.json", b"{}"),
        ]);
        let manifest = PrecacheManifest::scan(dir.path()).unwrap();
        let urls: Vec<_> = manifest.files.iter().map(|f| f.url.as_str()).collect();
        assert_eq!(
            urls,
            [
                "/app-0123456789abcdef.js",
                "/index.html",
                "/keydo_flush_bg.wasm",
                "/texts/words.txt"
            ]
        );
        assert_eq!(manifest.files[3].bytes, 7);
        assert_eq!(manifest.files[1].sha256, sha256_hex(b"<html>"));
        assert!(manifest.contains("/texts/words.txt"));
        assert!(!manifest.contains("/sw.js"));
    }

    #[test]
    fn cache_name_follows_the_spec_digest() {
        let dir = output(&[("b.css", b"body{}"), ("a.js", b"1")]);
        let manifest = PrecacheManifest::scan(dir.path()).unwrap();
        let lines = format!(
            "/a.js {}\n/b.css {}\n",
            sha256_hex(b"1"),
            sha256_hex(b"body{}")
        );
        assert_eq!(
            manifest.cache_name,
            format!("keydo-precache-{}", sha256_hex(lines.as_bytes()))
        );
    }

    #[test]
    fn scanning_twice_gives_the_same_name_and_one_byte_changes_it() {
        let dir = output(&[("index.html", b"<html>"), ("a.js", b"x")]);
        let first = PrecacheManifest::scan(dir.path()).unwrap();
        assert_eq!(first, PrecacheManifest::scan(dir.path()).unwrap());
        fs::write(dir.path().join("a.js"), b"y").unwrap();
        assert_ne!(
            first.cache_name,
            PrecacheManifest::scan(dir.path()).unwrap().cache_name
        );
    }

    #[test]
    fn written_manifest_uses_the_spec_field_names() {
        let dir = output(&[("a.js", b"x")]);
        let manifest = PrecacheManifest::scan(dir.path()).unwrap();
        manifest.write(dir.path()).unwrap();
        let json: serde_json::Value =
            serde_json::from_slice(&fs::read(dir.path().join(MANIFEST_FILE)).unwrap()).unwrap();
        assert_eq!(json["cacheName"], manifest.cache_name.as_str());
        assert_eq!(json["files"][0]["url"], "/a.js");
        assert_eq!(json["files"][0]["bytes"], 1);
        assert_eq!(json["files"][0]["sha256"], sha256_hex(b"x"));
    }
}
