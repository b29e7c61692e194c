//! Compressed copies of the output's text files, written beside them (`x.wasm.br`,
//! `x.wasm.gz`) so the server sends them as they are (`Content-Encoding`) instead of
//! compressing every response: brotli at its best quality, which costs seconds at
//! build time and nothing per request, and makes the game's wasm smaller than
//! on-the-fly compression can afford to.
//!
//! The copies are not part of the precache: the service worker's fetch decodes them,
//! so it hashes and caches the very bytes the manifest lists ([`is_compressed_copy`]).

use crate::BuildError;
use crate::manifest::{read, write};
use std::io::Write;
use std::path::Path;
use walkdir::WalkDir;

/// The encodings written, by file extension.
const ENCODINGS: [&str; 2] = ["br", "gz"];
/// Types that compress: code, styles, data and text (images are compressed already).
const COMPRESSIBLE: [&str; 8] = [
    "wasm",
    "js",
    "css",
    "html",
    "json",
    "txt",
    "md",
    "webmanifest",
];
/// Below this a compressed copy saves less than a packet.
const MIN_BYTES: usize = 1024;
/// Brotli's best quality and largest window.
const BROTLI_QUALITY: u32 = 11;
const BROTLI_WINDOW_BITS: u32 = 22;

/// Whether `url` is a compressed copy of another output file.
pub fn is_compressed_copy(url: &str) -> bool {
    url.rsplit_once('.')
        .is_some_and(|(_, extension)| ENCODINGS.contains(&extension))
}

/// Writes (or rewrites, after the files changed) the compressed copies of every
/// compressible file in `out_dir` that compression makes smaller, and removes
/// copies left from files that no longer have one.
pub fn write_all(out_dir: &Path) -> Result<usize, BuildError> {
    let mut written = 0;
    for entry in WalkDir::new(out_dir).sort_by_file_name() {
        let entry = entry.map_err(|e| BuildError::Io {
            path: out_dir.display().to_string(),
            source: e.into(),
        })?;
        let path = entry.path();
        let name = path.to_string_lossy();
        if !entry.file_type().is_file() || is_compressed_copy(&name) {
            continue;
        }
        let compressible = path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| COMPRESSIBLE.contains(&e));
        let bytes = read(path)?;
        for encoding in ENCODINGS {
            let copy = path.with_file_name(format!(
                "{}.{encoding}",
                path.file_name()
                    .expect("a file has a name")
                    .to_string_lossy()
            ));
            let compressed = (compressible && bytes.len() >= MIN_BYTES)
                .then(|| compress(encoding, &bytes))
                .filter(|c| c.len() < bytes.len());
            match compressed {
                Some(compressed) => {
                    write(&copy, &compressed)?;
                    written += 1;
                }
                None => remove_if_present(&copy)?,
            }
        }
    }
    Ok(written)
}

fn compress(encoding: &str, bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() / 2);
    if encoding == "br" {
        let mut writer =
            brotli::CompressorWriter::new(&mut out, 64 * 1024, BROTLI_QUALITY, BROTLI_WINDOW_BITS);
        writer.write_all(bytes).expect("writing to memory");
        drop(writer);
    } else {
        let mut writer = flate2::write::GzEncoder::new(&mut out, flate2::Compression::best());
        writer.write_all(bytes).expect("writing to memory");
        writer.finish().expect("writing to memory");
    }
    out
}

fn remove_if_present(path: &Path) -> Result<(), BuildError> {
    match std::fs::remove_file(path) {
        Err(error) if error.kind() != std::io::ErrorKind::NotFound => Err(BuildError::Io {
            path: path.display().to_string(),
            source: error,
        }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::io::Read;

    #[test]
    fn copies_decode_to_the_original_and_are_kept_only_when_smaller() {
        let dir = tempfile::tempdir().unwrap();
        let text = "the quick brown fox ".repeat(200);
        fs::write(dir.path().join("app.js"), &text).unwrap();
        fs::write(dir.path().join("tiny.css"), "a{}").unwrap();
        fs::write(dir.path().join("icon.png"), vec![7u8; 4096]).unwrap();
        assert_eq!(write_all(dir.path()).unwrap(), 2);

        let mut decoded = String::new();
        brotli::Decompressor::new(&fs::read(dir.path().join("app.js.br")).unwrap()[..], 4096)
            .read_to_string(&mut decoded)
            .unwrap();
        assert_eq!(decoded, text);
        decoded.clear();
        flate2::read::GzDecoder::new(&fs::read(dir.path().join("app.js.gz")).unwrap()[..])
            .read_to_string(&mut decoded)
            .unwrap();
        assert_eq!(decoded, text);
        for absent in ["tiny.css.br", "icon.png.gz", "app.js.br.br"] {
            assert!(!dir.path().join(absent).exists(), "{absent}");
        }

        // The file changes: its copies follow; a copy whose file shrank away goes.
        fs::write(dir.path().join("app.js"), "changed").unwrap();
        assert_eq!(write_all(dir.path()).unwrap(), 0);
        assert!(!dir.path().join("app.js.br").exists());
    }

    #[test]
    fn compressed_copies_are_recognised() {
        assert!(is_compressed_copy("/keydo-app-0123456789abcdef_bg.wasm.br"));
        assert!(is_compressed_copy("/texts/zh.json.gz"));
        assert!(!is_compressed_copy("/texts/zh.json"));
        assert!(!is_compressed_copy("/icons/icon-192.png"));
    }
}
