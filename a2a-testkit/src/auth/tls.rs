//! TLS for test agents: certificates generated fresh for each test, the server side of them, and a
//! listener that hands axum only connections whose handshake succeeded.

use std::sync::Arc;
use std::time::Duration;

use crate::TestkitError;

/// A CA, a server certificate for `127.0.0.1` and `localhost`, a client identity it signed, and
/// one it did not, all generated fresh (PEM).
#[derive(Clone)]
pub struct TestPki {
    /// The CA certificate, to trust as a root.
    pub ca_pem: String,
    server_cert_pem: String,
    server_key_pem: String,
    /// Client certificate and key signed by the CA, one PEM document.
    pub client_identity_pem: String,
    /// Client certificate and key from another CA, which the agent refuses.
    pub untrusted_client_identity_pem: String,
}

impl std::fmt::Debug for TestPki {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestPki").finish_non_exhaustive()
    }
}

fn tls_error(e: impl std::fmt::Display) -> TestkitError {
    TestkitError::Tls(e.to_string())
}

impl TestPki {
    /// Generates the certificates.
    ///
    /// # Errors
    /// [`TestkitError::Tls`] when generation fails.
    pub fn generate() -> Result<Self, TestkitError> {
        use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
        let ca = |name: &str| -> Result<(String, Issuer<'static, KeyPair>), TestkitError> {
            let mut params = CertificateParams::new(Vec::<String>::new()).map_err(tls_error)?;
            params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
            params.distinguished_name.push(rcgen::DnType::CommonName, name);
            let key = KeyPair::generate().map_err(tls_error)?;
            let cert = params.self_signed(&key).map_err(tls_error)?;
            Ok((cert.pem(), Issuer::new(params, key)))
        };
        let leaf = |names: Vec<String>,
                    issuer: &Issuer<'static, KeyPair>,
                    client: bool|
         -> Result<(String, String), TestkitError> {
            let mut params = CertificateParams::new(names).map_err(tls_error)?;
            params.extended_key_usages = vec![if client {
                rcgen::ExtendedKeyUsagePurpose::ClientAuth
            } else {
                rcgen::ExtendedKeyUsagePurpose::ServerAuth
            }];
            let key = KeyPair::generate().map_err(tls_error)?;
            let cert = params.signed_by(&key, issuer).map_err(tls_error)?;
            Ok((cert.pem(), key.serialize_pem()))
        };
        let (ca_pem, issuer) = ca("a2a-testkit CA")?;
        let (_, stranger) = ca("a2a-testkit stranger CA")?;
        let (server_cert_pem, server_key_pem) =
            leaf(vec!["127.0.0.1".to_owned(), "localhost".to_owned()], &issuer, false)?;
        let (client_cert, client_key) = leaf(vec!["a2a-client".to_owned()], &issuer, true)?;
        let (other_cert, other_key) = leaf(vec!["stranger".to_owned()], &stranger, true)?;
        Ok(Self {
            ca_pem,
            server_cert_pem,
            server_key_pem,
            client_identity_pem: format!("{client_key}{client_cert}"),
            untrusted_client_identity_pem: format!("{other_key}{other_cert}"),
        })
    }

    /// The server side: this PKI's server certificate, and client certificates of its CA required
    /// when `require_client_certificate`.
    pub(crate) fn acceptor(
        &self,
        client_auth: ClientAuth,
    ) -> Result<tokio_rustls::TlsAcceptor, TestkitError> {
        use rustls::pki_types::pem::PemObject;
        use rustls::pki_types::{CertificateDer, PrivateKeyDer};
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let certs = CertificateDer::pem_slice_iter(self.server_cert_pem.as_bytes())
            .collect::<Result<Vec<_>, _>>()
            .map_err(tls_error)?;
        let key = PrivateKeyDer::from_pem_slice(self.server_key_pem.as_bytes()).map_err(tls_error)?;
        let builder = rustls::ServerConfig::builder_with_provider(Arc::clone(&provider))
            .with_safe_default_protocol_versions()
            .map_err(tls_error)?;
        let builder = match client_auth {
            ClientAuth::Required => {
                let mut roots = rustls::RootCertStore::empty();
                for ca in CertificateDer::pem_slice_iter(self.ca_pem.as_bytes()) {
                    roots.add(ca.map_err(tls_error)?).map_err(tls_error)?;
                }
                let verifier =
                    rustls::server::WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
                        .build()
                        .map_err(tls_error)?;
                builder.with_client_cert_verifier(verifier)
            }
            ClientAuth::None => builder.with_no_client_auth(),
        };
        let mut config = builder.with_single_cert(certs, key).map_err(tls_error)?;
        config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        Ok(tokio_rustls::TlsAcceptor::from(Arc::new(config)))
    }
}

/// Whether the TLS server asks for a client certificate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ClientAuth {
    Required,
    None,
}

/// How long one TLS handshake may take before the connection is dropped.
const HANDSHAKE_BOUND: Duration = Duration::from_secs(5);

/// A TCP listener that hands axum only connections whose TLS handshake succeeded.
pub(crate) struct TlsListener {
    pub(crate) tcp: tokio::net::TcpListener,
    pub(crate) acceptor: tokio_rustls::TlsAcceptor,
}

impl axum::serve::Listener for TlsListener {
    type Io = tokio_rustls::server::TlsStream<tokio::net::TcpStream>;
    type Addr = std::net::SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            let Ok((stream, addr)) = self.tcp.accept().await else {
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            };
            // A failed handshake (no or a foreign client certificate) drops that connection only.
            if let Ok(Ok(tls)) = tokio::time::timeout(HANDSHAKE_BOUND, self.acceptor.accept(stream)).await {
                return (tls, addr);
            }
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        self.tcp.local_addr()
    }
}
