//! TLS from the server to PostgreSQL (rustls).
//!
//! With a CA file (`--database-ca-file`) the database's certificate must chain to it
//! and name the host, as libpq's `sslmode=verify-full`. Without one, TLS encrypts but
//! does not authenticate the server, as libpq's `sslmode=require` does with no root
//! certificate: the handshake's signatures are still checked, the chain is not.
//! Whether TLS is used follows the URL's `sslmode` (`disable`, `prefer`, `require`).

use super::StoreError;
use crate::tls;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, verify_tls12_signature, verify_tls13_signature};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use std::path::Path;
use std::sync::Arc;
use tokio_postgres_rustls::MakeRustlsConnect;

/// The connector for the pool.
pub fn connector(ca_file: Option<&Path>) -> Result<MakeRustlsConnect, StoreError> {
    let provider = tls::provider();
    let builder = ClientConfig::builder_with_provider(Arc::clone(&provider))
        .with_safe_default_protocol_versions()
        .map_err(|error| StoreError::Tls(error.to_string()))?;
    let config = match ca_file {
        Some(ca_file) => {
            let mut roots = RootCertStore::empty();
            for certificate in
                tls::certificates(ca_file).map_err(|error| StoreError::Tls(error.to_string()))?
            {
                roots
                    .add(certificate)
                    .map_err(|error| StoreError::Tls(error.to_string()))?;
            }
            builder.with_root_certificates(roots).with_no_client_auth()
        }
        None => builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(EncryptOnly(provider)))
            .with_no_client_auth(),
    };
    Ok(MakeRustlsConnect::new(config))
}

/// Accepts any certificate chain, but checks the handshake signatures with it.
#[derive(Debug)]
struct EncryptOnly(Arc<CryptoProvider>);

impl ServerCertVerifier for EncryptOnly {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}
