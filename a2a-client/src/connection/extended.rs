//! What a connection adds for agents that require credentials: the extended card in place of the
//! public one, and connections that meet one skill's own security requirements.

use std::sync::Arc;

use a2a_typestate::{CardClaim, CardClaimVerdict, ClaimAnswer, ClaimCheck, Deployment, ExtendedCardAnswer};
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
        // While a mark says the agent has none to serve, the public card is used without asking.
        if !declared || self.held_mark(&crate::SuspectClaim::ExtendedAgentCard).is_some() {
            return self;
        }
        // Credentials withheld from the interface's origin: the extended card behind it is not
        // asked for, and the reason is kept for the caller.
        let fetched = match self.endpoint().auth.withheld_error(self.endpoint().url.as_str()) {
            Some(withheld) => Err(withheld),
            None if !self.endpoint().auth.sends_credentials() => return self,
            None => self.checked_extended_card().await,
        };
        // A refusal (the agent says it has none) is recorded: the public card is the fallback.
        if let Err(error) = &fetched
            && let Some(verdict) = self.judge_extended_card(extended_card_answer(error))
        {
            self.record_claim_verdict(&verdict);
        }
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

    /// The verdict on the card's `extendedAgentCard` claim from the fetch [`Self::with_extended_card`]
    /// made: verified when the extended card took the public one's place, refused when the agent
    /// answered that it has none (-32004 or -32007; the connection keeps the public card, the
    /// fallback), pending on a transport fault or an answer that says nothing about the claim.
    /// `None` when the card declares no extended card, or it was not asked for (no credentials).
    /// Checked at discovery, not during a task; the rule is [`a2a_typestate::card_claim`]'s. A card
    /// that marks itself a gateway claims nothing; a caller that knows the agent is a gateway
    /// (`Deployment::Gateway`) should not read this verdict, since a connection does not know that.
    /// A refusal was recorded when the card was fetched: the agent is marked suspect for the claim,
    /// and while the mark holds the connections made for it use the public card without asking
    /// (their verdict is then `None`: nothing was asked).
    pub fn extended_card_verdict(&self) -> Option<CardClaimVerdict> {
        let answer = if self.uses_extended_card() {
            Some(ClaimAnswer::ExtendedCard(ExtendedCardAnswer::Served))
        } else {
            extended_card_answer(self.extended_card_error()?)
        };
        self.judge_extended_card(answer)
    }

    /// Asks for the extended card now (with whatever credentials the connection sends) and judges
    /// the card's `extendedAgentCard` claim from the answer, as [`Self::extended_card_verdict`] does;
    /// `None` when the card declares none. For audits: a task needs no such call.
    pub async fn check_extended_card(&self) -> Option<CardClaimVerdict> {
        let answer = match self.get_extended_agent_card().await {
            Ok(_) => Some(ClaimAnswer::ExtendedCard(ExtendedCardAnswer::Served)),
            Err(error) => extended_card_answer(&error),
        };
        self.judge_extended_card(answer)
    }

    /// The verdict from `answer` (none: nothing exercised the claim), judged against the public card.
    fn judge_extended_card(&self, answer: Option<ClaimAnswer>) -> Option<CardClaimVerdict> {
        let card = self.public_card().unwrap_or_else(|| self.card());
        let mut check = ClaimCheck::new(card.claims(Deployment::Direct), CardClaim::ExtendedAgentCard, true);
        check.observe(answer?);
        check.verdict()
    }
}

/// `GetExtendedAgentCard`'s error as an answer to the `extendedAgentCard` claim, when it is one the
/// rule reads: a transport fault, the agent's protocol error, or a 401 / 403.
fn extended_card_answer(error: &Error) -> Option<ClaimAnswer> {
    if let Some(fault) = error.transport_fault() {
        return Some(ClaimAnswer::TransportFault(fault));
    }
    if let Some(code) = error.protocol_error().and_then(|p| p.code()).and_then(|c| i32::try_from(c).ok()) {
        return Some(ClaimAnswer::ExtendedCard(ExtendedCardAnswer::AgentError { code }));
    }
    match error.status() {
        Some(status @ (401 | 403)) => Some(ClaimAnswer::ExtendedCard(ExtendedCardAnswer::Denied { status })),
        _ => None,
    }
}
