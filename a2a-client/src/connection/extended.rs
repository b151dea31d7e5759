//! What a connection adds for agents that require credentials: the extended card in place of the
//! public one, and connections that meet one skill's own security requirements.

use std::sync::Arc;

use a2a_typestate_types::GetExtendedAgentCardRequest;

use super::Inner;
use crate::discovery::DiscoveredCard;
use crate::transport::Endpoint;
use crate::transport::v03::LossLog;
use crate::{AgentConnection, Error};

impl AgentConnection {
    /// A connection to the same interface that meets the security requirements of the card's skill
    /// `skill` (its own when it lists any, else the card's), for messages meant for that skill.
    ///
    /// # Errors
    /// [`crate::ErrorKind::Config`] when the card has no such skill; [`crate::ErrorKind::Auth`] when
    /// the client holds no credentials that meet its requirements.
    pub fn for_skill(&self, skill: &str) -> Result<Self, Error> {
        let endpoint = self.endpoint();
        let card = self.inner.public_card.clone().unwrap_or_else(|| endpoint.card.clone());
        let mut opened = Endpoint::for_skill(
            endpoint.client.clone(),
            endpoint.agent.clone(),
            card,
            endpoint.interface.clone(),
            Some(skill),
        )?;
        if let Some(public) = &self.inner.public_card {
            opened = opened.with_card(endpoint.card.clone());
            let inner = Inner {
                endpoint: opened,
                losses: LossLog::default(),
                deviations: Default::default(),
                public_card: Some(public.clone()),
                extended_card_error: None,
            };
            return Ok(Self { inner: Arc::new(inner) });
        }
        Ok(Self::from_endpoint(opened))
    }

    /// With the extended card in place of the public one, when the card declares one and the
    /// connection sends credentials and the extended card satisfies the client's
    /// [`CardSignaturePolicy`](crate::signing::CardSignaturePolicy); on failure the public card stays and the error is kept
    /// ([`AgentConnection::extended_card_error`]), as it is when the credentials are withheld
    /// because the interface is on another origin than the agent's (see [`crate::auth`]). [`Client::connect`](crate::Client::connect) does this; a connection made
    /// with [`AgentConnection::open`] uses the public card until this is called.
    pub async fn with_extended_card(self) -> Self {
        let declared = self.card().card().capabilities.extended_agent_card == Some(true);
        if !declared {
            return self;
        }
        // Credentials withheld from the interface's origin: the extended card behind it is not
        // asked for, and the reason is kept for the caller.
        let fetched = match self.endpoint().auth.withheld_error(self.endpoint().url.as_str()) {
            Some(withheld) => Err(withheld),
            None if !self.endpoint().auth.sends_credentials() => return self,
            None => self.checked_extended_card().await,
        };
        // Only the maker holds a connection under construction; were it shared, it stays as it is.
        let mut inner = match Arc::try_unwrap(self.inner) {
            Ok(inner) => inner,
            Err(shared) => return Self { inner: shared },
        };
        match fetched {
            Ok(extended) => {
                tracing::debug!(agent = %inner.endpoint.agent.as_str(), "using the extended agent card");
                let public = inner.endpoint.card.clone();
                inner.endpoint = inner.endpoint.with_card(extended);
                inner.public_card = Some(public);
            }
            Err(error) => {
                tracing::warn!(agent = %inner.endpoint.agent.as_str(), %error, "the extended agent card is not used; using the public card");
                inner.extended_card_error = Some(error);
            }
        }
        Self { inner: Arc::new(inner) }
    }

    /// The extended card, held to the client's signature policy as the public card was: its claims
    /// replace the public card's, so under `Require` an unsigned or unverified one is not used.
    async fn checked_extended_card(&self) -> Result<DiscoveredCard, Error> {
        let extended = self.extended_card_document().await?;
        let client = &self.endpoint().client;
        let config = client.config();
        crate::discovery::check_card_signatures(
            client.http_client(),
            config.card_signature_policy(),
            config.card_trust_store(),
            config.request_timeout(),
            extended,
        )
        .await
        .map_err(|e| e.with_url(self.endpoint().url.as_str()))
    }

    /// `GetExtendedAgentCard`'s answer as a card document, read as discovery reads a card (1.0 or
    /// 0.3, converted to the 1.0 model, its claims lifted once).
    pub(super) async fn extended_card_document(&self) -> Result<DiscoveredCard, Error> {
        let mut req = GetExtendedAgentCardRequest::default();
        self.tenant(&mut req.tenant);
        let value = self
            .measured(
                a2a_typestate_types::jsonrpc::Method::GetExtendedAgentCard,
                self.binding().get_extended_agent_card(self, req),
            )
            .await?;
        let bytes = serde_json::to_vec(&value)
            .map_err(|e| Error::config(format!("card could not be written: {e}")))?;
        let endpoint = self.endpoint();
        DiscoveredCard::from_bytes(bytes.into(), endpoint.url.as_str(), endpoint.card.well_known_path())
    }

    /// The public card, when the extended card replaced it for this connection ([`AgentConnection::card`]
    /// is then the extended one); `None` when the connection uses the public card.
    pub fn public_card(&self) -> Option<&DiscoveredCard> {
        self.inner.public_card.as_ref()
    }

    /// Whether [`AgentConnection::card`] is the extended card, fetched with the credentials.
    pub fn uses_extended_card(&self) -> bool {
        self.inner.public_card.is_some()
    }

    /// Why the extended card the public card declares is not in use, when fetching it failed.
    pub fn extended_card_error(&self) -> Option<&Error> {
        self.inner.extended_card_error.as_ref()
    }
}
