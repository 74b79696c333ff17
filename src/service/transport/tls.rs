//! TLS and mutual TLS from certificate files (rustls, via tonic).
//!
//! The configuration holds only paths; the private key is read when the
//! server starts, handed to rustls and never logged or kept in `Debug` output.

use std::path::{Path, PathBuf};
use tonic::transport::{Certificate, Identity, ServerTlsConfig};

use crate::service::config::TransportConfig;

/// Why the TLS files could not be used.
#[derive(Debug, thiserror::Error)]
#[error("cannot read {what} {}: {source}", path.display())]
pub struct TlsFileError {
    /// Which file: `--tls-cert`, `--tls-key` or `--tls-client-ca`.
    pub what: &'static str,
    /// The path configured.
    pub path: PathBuf,
    /// Why not.
    pub source: std::io::Error,
}

/// How the server speaks, for the start-up log line.
pub fn mode(config: &TransportConfig) -> &'static str {
    match (&config.tls.cert, &config.tls.client_ca) {
        (None, _) => "plaintext",
        (Some(_), None) => "TLS",
        (Some(_), Some(_)) => "mutual TLS",
    }
}

/// The server's TLS settings: none without `--tls-cert` (plaintext, the
/// laptop default); with `--tls-client-ca`, clients must present a
/// certificate that CA signed, or the handshake fails.
///
/// # Errors
/// A configured file cannot be read. (Whether it holds a usable
/// certificate or key shows when the server applies it.)
pub fn server_config(config: &TransportConfig) -> Result<Option<ServerTlsConfig>, TlsFileError> {
    let (Some(cert), Some(key)) = (&config.tls.cert, &config.tls.key) else {
        return Ok(None);
    };
    let identity = Identity::from_pem(read("--tls-cert", cert)?, read("--tls-key", key)?);
    // A client that opens a connection and never finishes the handshake must not hold it.
    let mut tls = ServerTlsConfig::new()
        .identity(identity)
        .timeout(config.handshake_timeout);
    if let Some(ca) = &config.tls.client_ca {
        tls = tls.client_ca_root(Certificate::from_pem(read("--tls-client-ca", ca)?));
    }
    Ok(Some(tls))
}

fn read(what: &'static str, path: &Path) -> Result<Vec<u8>, TlsFileError> {
    std::fs::read(path).map_err(|source| TlsFileError {
        what,
        path: path.to_owned(),
        source,
    })
}
