//! Which request paths are the API's: one rule, shared by the error renderer and the
//! metrics (docs/api.md).

/// Whether `path` belongs to the API (and so never gets the shell or an empty error).
pub fn is_api_path(path: &str) -> bool {
    path == "/api" || path.starts_with("/api/")
}
