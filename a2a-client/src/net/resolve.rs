//! Name resolution under the URL policy: the addresses a host name resolves to are checked against
//! the policy before any is connected to, so a name cannot resolve past it (a public-looking name
//! that answers `169.254.169.254`), and an answer that changes between a check and the connection
//! cannot either: the addresses checked are the ones connected to.

use std::collections::HashMap;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use hyper_util::client::legacy::connect::dns::{GaiResolver, Name};
use tower_service::Service;

use crate::error::AddressRefused;
use crate::url_policy::UrlPolicy;

/// A resolver that drops the addresses the URL policy refuses.
#[derive(Clone, Debug)]
pub(crate) struct PolicyResolver {
    policy: UrlPolicy,
    system: GaiResolver,
    /// Host names the user resolved by hand (`ClientBuilder::resolve`), lowercased.
    overrides: Arc<HashMap<String, Vec<IpAddr>>>,
}

impl PolicyResolver {
    pub(crate) fn new(policy: UrlPolicy, overrides: &[(String, IpAddr)]) -> Self {
        let mut by_host: HashMap<String, Vec<IpAddr>> = HashMap::new();
        for (host, address) in overrides {
            by_host.entry(host.clone()).or_default().push(*address);
        }
        Self { policy, system: GaiResolver::new(), overrides: Arc::new(by_host) }
    }
}

impl Service<Name> for PolicyResolver {
    type Response = std::vec::IntoIter<SocketAddr>;
    type Error = Box<dyn std::error::Error + Send + Sync>;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.system.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, name: Name) -> Self::Future {
        let policy = self.policy;
        let overridden = self.overrides.get(&name.as_str().to_ascii_lowercase()).cloned();
        let resolving = overridden.is_none().then(|| self.system.call(name.clone()));
        Box::pin(async move {
            let resolved: Vec<SocketAddr> = match (overridden, resolving) {
                (Some(addresses), _) => addresses.into_iter().map(|ip| SocketAddr::new(ip, 0)).collect(),
                (None, Some(resolving)) => resolving.await?.collect(),
                (None, None) => Vec::new(),
            };
            let mut refused = None;
            let allowed: Vec<SocketAddr> = resolved
                .into_iter()
                .filter(|address| match policy.refused_address(address.ip()) {
                    Some(why) => {
                        refused.get_or_insert((address.ip(), why));
                        false
                    }
                    None => true,
                })
                .collect();
            match (allowed.is_empty(), refused) {
                (true, Some((address, why))) => {
                    Err(AddressRefused { host: name.as_str().to_owned(), address, why }.into())
                }
                _ => Ok(allowed.into_iter()),
            }
        })
    }
}
