//! TLS for every https request: rustls on the crypto provider the rest of the client uses, the
//! system's roots (read once per process, at its first https handshake) plus any added, and the
//! client identity for mutual TLS.

use std::fmt;
use std::sync::{Arc, OnceLock};

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, RootCertStore, SignatureScheme};

use super::identity::ClientIdentity;
use crate::Error;

/// A root certificate to trust, for agents whose certificates chain to a private CA.
#[derive(Clone)]
pub struct Certificate {
    der: CertificateDer<'static>,
}

impl fmt::Debug for Certificate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Certificate({} bytes)", self.der.len())
    }
}

impl Certificate {
    /// The first certificate of a PEM document.
    ///
    /// # Errors
    /// [`crate::ErrorKind::Config`] when the PEM holds no certificate.
    pub fn from_pem(pem: &[u8]) -> Result<Self, Error> {
        CertificateDer::from_pem_slice(pem)
            .map(|der| Self { der })
            .map_err(|_| Error::config("the root certificate pem holds no certificate"))
    }

    /// Every certificate of a PEM bundle (such as a CA file), in order.
    ///
    /// # Errors
    /// [`crate::ErrorKind::Config`] when a section does not read, or there is none.
    pub fn bundle_from_pem(pem: &[u8]) -> Result<Vec<Self>, Error> {
        let certificates: Vec<Self> = CertificateDer::pem_slice_iter(pem)
            .map(|der| der.map(|der| Self { der }))
            .collect::<Result<_, _>>()
            .map_err(|_| Error::config("the root certificate pem does not read"))?;
        if certificates.is_empty() {
            return Err(Error::config("the root certificate pem holds no certificate"));
        }
        Ok(certificates)
    }

    /// A certificate in DER form.
    pub fn from_der(der: &[u8]) -> Self {
        Self { der: CertificateDer::from(der.to_vec()) }
    }
}

/// The crypto provider of every TLS connection (the one card signatures use too).
pub(crate) fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    static PROVIDER: OnceLock<Arc<rustls::crypto::CryptoProvider>> = OnceLock::new();
    PROVIDER.get_or_init(|| Arc::new(rustls::crypto::aws_lc_rs::default_provider())).clone()
}

/// The system's roots, read once per process, at the first https handshake of any client: a
/// process that speaks only plain http never reads or keeps them.
fn system_roots() -> Arc<RootCertStore> {
    static ROOTS: OnceLock<Arc<RootCertStore>> = OnceLock::new();
    ROOTS
        .get_or_init(|| {
            let found = rustls_native_certs::load_native_certs();
            if !found.errors.is_empty() {
                tracing::debug!(errors = found.errors.len(), "some system root certificates did not load");
            }
            let mut roots = RootCertStore::empty();
            let (_, ignored) = roots.add_parsable_certificates(found.certs);
            if ignored > 0 {
                tracing::debug!(ignored, "some system root certificates are not usable");
            }
            Arc::new(roots)
        })
        .clone()
}

/// The rustls configuration: the system's roots unless `only_added`, then `added`; `identity`
/// presented to servers that ask for a client certificate.
///
/// The verifier is returned too: the gRPC binding's TLS checks agents with the same one.
pub(crate) fn client_config(
    added: &[Certificate],
    only_added: bool,
    identity: Option<&ClientIdentity>,
) -> Result<(rustls::ClientConfig, Arc<dyn ServerCertVerifier>), Error> {
    // The added roots are checked now, so a bad one is a build error, not a handshake failure.
    let mut own = RootCertStore::empty();
    for root in added {
        own.add(root.der.clone())
            .map_err(|e| Error::config(format!("a root certificate is not usable: {e}")))?;
    }
    let verifier: Arc<dyn ServerCertVerifier> =
        Arc::new(FirstHandshake { added: own, only_added, verifier: OnceLock::new() });
    let builder = rustls::ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::config(format!("tls could not be set up: {e}")))?
        .dangerous()
        .with_custom_certificate_verifier(verifier.clone());
    let config = match identity {
        Some(identity) => {
            let (chain, key) = identity.parts();
            builder
                .with_client_auth_cert(chain, key)
                .map_err(|_| Error::config("the client identity's key does not match a usable certificate"))?
        }
        None => builder.with_no_client_auth(),
    };
    Ok((config, verifier))
}

/// rustls's own WebPKI verifier, made at the first handshake from the system's roots (unless only
/// added ones are trusted) and the added ones. It checks exactly what rustls checks: this type only
/// puts off reading the roots.
#[derive(Debug)]
struct FirstHandshake {
    added: RootCertStore,
    only_added: bool,
    verifier: OnceLock<Result<Arc<WebPkiServerVerifier>, rustls::Error>>,
}

impl FirstHandshake {
    fn verifier(&self) -> Result<&Arc<WebPkiServerVerifier>, rustls::Error> {
        self.verifier
            .get_or_init(|| {
                let roots = match (self.only_added, self.added.is_empty()) {
                    (true, _) => Arc::new(self.added.clone()),
                    (false, true) => system_roots(),
                    (false, false) => {
                        let mut roots = (*system_roots()).clone();
                        roots.roots.extend(self.added.roots.iter().cloned());
                        Arc::new(roots)
                    }
                };
                WebPkiServerVerifier::builder_with_provider(roots, provider()).build().map_err(|e| {
                    rustls::Error::General(format!(
                        "no root certificate to verify the agent with ({e}): the system has none and none were added"
                    ))
                })
            })
            .as_ref()
            .map_err(Clone::clone)
    }
}

impl ServerCertVerifier for FirstHandshake {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        self.verifier()?.verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.verifier()?.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.verifier()?.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        provider().signature_verification_algorithms.supported_schemes()
    }
}
