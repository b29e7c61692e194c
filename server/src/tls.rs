//! TLS for the server's own listener (`--tls-cert`/`--tls-key`), with rustls.
//!
//! Most deployments terminate TLS at a reverse proxy (deploy/nginx.conf); this is for
//! those that expose `keydo-server` directly. HTTP/1.1 only, as the server speaks.

use rustls::ServerConfig;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use std::path::Path;
use std::sync::Arc;
use tokio_rustls::TlsAcceptor;

/// Why TLS could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("reading the certificates in {path}: {source}")]
    Certificates {
        path: String,
        source: rustls_pki_types::pem::Error,
    },
    #[error("{0} holds no certificate")]
    NoCertificate(String),
    #[error("reading the private key in {path}: {source}")]
    Key {
        path: String,
        source: rustls_pki_types::pem::Error,
    },
    #[error("the certificate and key do not make a TLS configuration: {0}")]
    Config(#[from] rustls::Error),
}

/// The PEM certificates in `path` (a chain: the server's first, then intermediates).
pub fn certificates(path: &Path) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let display = path.display().to_string();
    let certificates = CertificateDer::pem_file_iter(path)
        .and_then(|certificates| certificates.collect::<Result<Vec<_>, _>>())
        .map_err(|source| TlsError::Certificates {
            path: display.clone(),
            source,
        })?;
    if certificates.is_empty() {
        return Err(TlsError::NoCertificate(display));
    }
    Ok(certificates)
}

/// The ring provider, chosen explicitly so no process-wide default is needed.
pub fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// An acceptor serving the certificate chain in `cert` with the key in `key`.
pub fn acceptor(cert: &Path, key: &Path) -> Result<TlsAcceptor, TlsError> {
    let chain = certificates(cert)?;
    let key = PrivateKeyDer::from_pem_file(key).map_err(|source| TlsError::Key {
        path: key.display().to_string(),
        source,
    })?;
    let mut config = ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()?
        .with_no_client_auth()
        .with_single_cert(chain, key)?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(TlsAcceptor::from(Arc::new(config)))
}
