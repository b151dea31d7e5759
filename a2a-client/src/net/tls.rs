//! TLS for every https request: rustls on the crypto provider the rest of the client uses, the
//! system's roots (read once per process) plus any added, and the client identity for mutual TLS.

use std::fmt;
use std::sync::{Arc, OnceLock};

use rustls::RootCertStore;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject as _;

use crate::Error;
use crate::auth::ClientIdentity;

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

/// The system's roots, read once: every client of the process shares them.
fn system_roots() -> &'static [CertificateDer<'static>] {
    static ROOTS: OnceLock<Vec<CertificateDer<'static>>> = OnceLock::new();
    ROOTS.get_or_init(|| {
        let found = rustls_native_certs::load_native_certs();
        if !found.errors.is_empty() {
            tracing::debug!(errors = found.errors.len(), "some system root certificates did not load");
        }
        found.certs
    })
}

/// The rustls configuration: the system's roots unless `only_added`, then `added`; `identity`
/// presented to servers that ask for a client certificate.
pub(crate) fn client_config(
    added: &[Certificate],
    only_added: bool,
    identity: Option<&ClientIdentity>,
) -> Result<rustls::ClientConfig, Error> {
    let mut roots = RootCertStore::empty();
    if !only_added {
        roots.add_parsable_certificates(system_roots().iter().cloned());
    }
    for root in added {
        roots
            .add(root.der.clone())
            .map_err(|e| Error::config(format!("a root certificate is not usable: {e}")))?;
    }
    let builder = rustls::ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::config(format!("tls could not be set up: {e}")))?
        .with_root_certificates(roots);
    match identity {
        Some(identity) => {
            let (chain, key) = identity.parts();
            builder
                .with_client_auth_cert(chain, key)
                .map_err(|_| Error::config("the client identity's key does not match a usable certificate"))
        }
        None => Ok(builder.with_no_client_auth()),
    }
}
