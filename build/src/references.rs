//! Checks that every file the shell references is in the output.
//!
//! The precache list is everything in the output, so a file that `index.html` or the
//! web manifest names but that is missing would silently break offline play (or
//! installability). The build fails instead, naming the file and who wanted it.

use crate::BuildError;
use crate::manifest::{PrecacheManifest, read};
use std::path::Path;

/// The files the offline shell cannot do without, whatever they reference.
const REQUIRED: [&str; 2] = ["/index.html", "/manifest.webmanifest"];

/// Fails unless the required files and everything they reference are precached.
pub fn check_all_present(out_dir: &Path, manifest: &PrecacheManifest) -> Result<(), BuildError> {
    for url in REQUIRED {
        require(manifest, url, "the offline shell")?;
    }
    let html = read_text(out_dir, "/index.html")?;
    for url in html_references(&html) {
        require(manifest, &url, "/index.html")?;
    }
    let web_manifest = read_text(out_dir, "/manifest.webmanifest")?;
    for url in web_manifest_icons(&web_manifest).map_err(|reason| BuildError::Invalid {
        path: "manifest.webmanifest".into(),
        reason,
    })? {
        require(manifest, &url, "/manifest.webmanifest")?;
    }
    Ok(())
}

fn require(manifest: &PrecacheManifest, url: &str, referenced_by: &str) -> Result<(), BuildError> {
    if manifest.contains(url) {
        Ok(())
    } else {
        Err(BuildError::MissingFile {
            url: url.to_owned(),
            referenced_by: referenced_by.to_owned(),
        })
    }
}

fn read_text(out_dir: &Path, url: &str) -> Result<String, BuildError> {
    let bytes = read(&out_dir.join(url.trim_start_matches('/')))?;
    String::from_utf8(bytes).map_err(|_| BuildError::Invalid {
        path: url.to_owned(),
        reason: "not valid UTF-8".into(),
    })
}

/// Same-origin URLs in `href="..."` and `src="..."` attributes, as absolute paths.
fn html_references(html: &str) -> Vec<String> {
    let mut urls = Vec::new();
    for attribute in ["href=\"", "src=\""] {
        let mut rest = html;
        while let Some(start) = rest.find(attribute) {
            rest = &rest[start + attribute.len()..];
            let Some(end) = rest.find('"') else { break };
            if let Some(url) = local_path(&rest[..end]) {
                urls.push(url);
            }
            rest = &rest[end..];
        }
    }
    urls
}

/// `icons[].src` of a web manifest, as absolute paths.
fn web_manifest_icons(json: &str) -> Result<Vec<String>, String> {
    let value: serde_json::Value =
        serde_json::from_str(json).map_err(|e| format!("not valid JSON: {e}"))?;
    let icons = value["icons"].as_array().ok_or("has no \"icons\" list")?;
    icons
        .iter()
        .map(|icon| {
            icon["src"]
                .as_str()
                .and_then(local_path)
                .ok_or_else(|| "every icon needs a same-origin \"src\"".to_owned())
        })
        .collect()
}

/// The path of a same-origin file reference; `None` for other origins, data URLs,
/// fragments and the root navigation URL.
fn local_path(reference: &str) -> Option<String> {
    let path = reference.split(['?', '#']).next().unwrap_or_default();
    if path.is_empty() || path == "/" || path.starts_with("//") || path.contains(':') {
        return None;
    }
    let path = path.trim_start_matches("./");
    Some(if path.starts_with('/') {
        path.to_owned()
    } else {
        format!("/{path}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_local_links_and_ignores_the_rest() {
        let html = r##"<link rel="manifest" href="/manifest.webmanifest">
            <link rel="icon" href="icons/icon-192.png?v=1">
            <script src="./app.js"></script><a href="#main"></a>
            <link href="https://example.com/x.css"><img src="data:image/png;base64,AAAA">"##;
        assert_eq!(
            html_references(html),
            ["/manifest.webmanifest", "/icons/icon-192.png", "/app.js"]
        );
    }

    #[test]
    fn reads_manifest_icons() {
        let json = r#"{"icons": [{"src": "/icons/a.png"}, {"src": "icons/b.png"}]}"#;
        assert_eq!(
            web_manifest_icons(json).unwrap(),
            ["/icons/a.png", "/icons/b.png"]
        );
        assert!(web_manifest_icons(r#"{"icons": [{}]}"#).is_err());
        assert!(web_manifest_icons("{").is_err());
    }
}
