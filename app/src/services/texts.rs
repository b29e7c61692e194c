//! The text corpora, fetched from `/texts/` (the service worker's precache serves them
//! offline) and parsed by `core`.

use gloo_net::http::Request;
use keydo_core::game::texts::CorpusError;
use std::fmt;

/// Fetches `/texts/<file>` and parses it.
pub async fn load<T>(
    file: &'static str,
    parse: fn(&str) -> Result<T, CorpusError>,
) -> Result<T, LoadError> {
    let body = fetch(file).await?;
    parse(&body).map_err(|e| LoadError::new(file, e.to_string()))
}

/// Fetches `/texts/<file>` as text.
pub async fn fetch(file: &'static str) -> Result<String, LoadError> {
    let failed = |reason: String| LoadError::new(file, reason);
    let response = Request::get(&format!("/texts/{file}"))
        .send()
        .await
        .map_err(|e| failed(e.to_string()))?;
    if !response.ok() {
        return Err(failed(format!("the server answered {}", response.status())));
    }
    response.text().await.map_err(|e| failed(e.to_string()))
}

/// A corpus that could not be fetched or read.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadError {
    file: &'static str,
    reason: String,
}

impl LoadError {
    pub fn new(file: &'static str, reason: String) -> LoadError {
        LoadError { file, reason }
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "The texts for this mode ({}) could not be loaded: {}. The other modes still play.",
            self.file, self.reason
        )
    }
}
