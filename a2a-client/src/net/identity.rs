//! The client identity for agents whose card asks for mutual TLS.

use std::fmt;
use std::sync::Arc;

use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

use crate::Error;
use crate::secret::Secret;

/// A client certificate chain and its private key, for agents whose card asks for mutual TLS.
///
/// Its `Debug` shows nothing of the key.
#[derive(Clone)]
pub struct ClientIdentity {
    chain: Vec<CertificateDer<'static>>,
    key: Arc<PrivateKeyDer<'static>>,
    /// The PEM it was read from, for the gRPC binding's TLS (which takes PEM).
    #[cfg_attr(not(feature = "grpc"), allow(dead_code))]
    pem: Arc<[u8]>,
}

impl fmt::Debug for ClientIdentity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ClientIdentity([redacted])")
    }
}

impl ClientIdentity {
    /// Reads one PEM document holding the private key (PKCS#8, PKCS#1 or SEC1) and the certificate
    /// chain, leaf first.
    ///
    /// # Errors
    /// [`crate::ErrorKind::Config`] when the PEM holds no usable key or certificate (the message
    /// never quotes the PEM).
    pub fn from_pem(pem: &[u8]) -> Result<Self, Error> {
        let unusable =
            || Error::config("the client identity pem holds no usable private key and certificate");
        let key = PrivateKeyDer::from_pem_slice(pem).map_err(|_| unusable())?;
        let chain: Vec<CertificateDer<'static>> =
            CertificateDer::pem_slice_iter(pem).collect::<Result<_, _>>().map_err(|_| unusable())?;
        if chain.is_empty() {
            return Err(unusable());
        }
        // Refused here, not at the first handshake: a key the crypto provider cannot load.
        crate::net::provider().key_provider.load_private_key(key.clone_key()).map_err(|_| unusable())?;
        Ok(Self { chain, key: Arc::new(key), pem: pem.into() })
    }

    /// As [`ClientIdentity::from_pem`], with the chain and the key in two documents.
    ///
    /// # Errors
    /// As [`ClientIdentity::from_pem`].
    pub fn from_pem_parts(certificate_chain: &[u8], private_key: &Secret) -> Result<Self, Error> {
        let mut pem = private_key.expose().as_bytes().to_vec();
        pem.push(b'\n');
        pem.extend_from_slice(certificate_chain);
        Self::from_pem(&pem)
    }

    /// The PEM holding the chain and the key.
    #[cfg(feature = "grpc")]
    pub(crate) fn pem(&self) -> &[u8] {
        &self.pem
    }

    /// The chain and a copy of the key, for the TLS configuration.
    pub(crate) fn parts(&self) -> (Vec<CertificateDer<'static>>, PrivateKeyDer<'static>) {
        (self.chain.clone(), self.key.clone_key())
    }
}
