//! The card claims beyond the lifecycle, as a connection acts on them: each verdict is judged by
//! [`a2a_typestate::card_claim`]'s rules, a refusal is recorded here (a suspect mark on that one
//! claim, with the evidence, for the cache's suspect TTL), and each claim's fallback is decided
//! here:
//!
//! - **extended card** refused: the public card stays ([`AgentConnection::with_extended_card`]);
//!   while the mark holds, the extended card is not asked for;
//! - **interface** contradicted on a call: the next declared interface in the card's order
//!   ([`AgentConnection::next_interface`]), when the task's first call failed and a check of the
//!   interface ([`AgentConnection::check_interface`]) refused it; while the mark holds, discovery
//!   skips the interface;
//! - **extension** asked for and answered without (the answer named others): while the mark holds
//!   the connections made go on without it (it is not asked for), unless the card marks it
//!   required: the agent refuses calls without it, so it is still asked for, and not relied on;
//! - **output modes** contradicted: recorded and marked; there is no fallback beyond taking what
//!   came;
//! - **security** (open access answered 401 without credentials): recorded, marked and surfaced
//!   as the verdict on the error ([`crate::Error::card_claim_violation`]); no credential is sent
//!   that the user did not configure for the agent's origin.
//!
//! A transport fault is never a contradiction: it leaves the claim pending and sets no mark.

use a2a_typestate::{
    CardClaim, CardClaimVerdict, ClaimAnswer, ClaimCheck, Deployment, ExchangeModes, ExtensionSet,
    InterfaceAnswer,
};
use a2a_typestate_types::SendMessageResponse;
use a2a_typestate_types::discovery::OfferedInterface;

use crate::cache::{SuspectClaim, SuspectMark};
use crate::transport::Wire;
use crate::{AgentConnection, Error, SuspectMarks};

impl AgentConnection {
    /// Judges `claim` from one `answer`, against this connection's card, for a caller that depends
    /// on it. `None` when the card does not declare it (or is a gateway's).
    fn judge(&self, claim: CardClaim, answer: ClaimAnswer) -> Option<CardClaimVerdict> {
        let mut check = ClaimCheck::new(self.card().claims(Deployment::Direct), claim, true);
        check.observe(answer);
        check.verdict()
    }

    /// The card's claim matching `wanted`, as lifted from this connection's card.
    fn declared(&self, wanted: impl Fn(&CardClaim) -> bool) -> Option<CardClaim> {
        self.card().claims(Deployment::Direct).card_claims().iter().find(|c| wanted(c)).cloned()
    }

    /// Records `verdict`: a refusal is logged, counted in the metrics and marks the agent suspect
    /// for that claim (unless marks are off). Every other verdict leaves the cache as it is. The one
    /// place a card-claim verdict reaches the cache.
    pub(crate) fn record_claim_verdict(&self, verdict: &CardClaimVerdict) {
        let Some(violation) = verdict.violation() else { return };
        tracing::warn!(agent = %self.agent().as_str(), %violation, "card claim refused");
        let client = self.client();
        client.metrics().record_card_claim_refusal(violation.claim().kind());
        if client.config().suspect_marks() == SuspectMarks::On {
            client.discovery_cache().mark_suspect(
                self.agent(),
                SuspectClaim::from(violation.claim()),
                violation.to_string(),
            );
        }
    }

    /// The unexpired mark on `claim` of this agent, when marks are on: while it holds, the claim's
    /// fallback is taken at once.
    pub(crate) fn held_mark(&self, claim: &SuspectClaim) -> Option<SuspectMark> {
        let client = self.client();
        if client.config().suspect_marks() == SuspectMarks::Off {
            return None;
        }
        client.discovery_cache().claim_mark(self.agent(), claim)
    }

    /// Checks this connection's interface (its `supportedInterfaces` entry) with the one call
    /// every binding serves and that changes nothing: `GetTask` for a task that does not exist.
    /// Refused when the interface answers outside its declared binding (HTTP 405 or 415, a 404
    /// from a JSON-RPC endpoint, whose one URL must exist, a JSON-RPC "method not found") or
    /// rejects its declared version (-32009); verified on "task not found" or any answer in the
    /// binding; pending on a transport fault or another protocol error. `None` when the card does
    /// not declare the interface (a gateway's card, say), nothing was sent, or the answer is one the
    /// rule cannot read: a bare 404 from an HTTP+JSON interface may mean "no such task", and a 401
    /// or 403 is about credentials. The verdict is recorded: a refusal marks the interface.
    ///
    /// The client calls it when a task's first call on the interface failed with anything but a
    /// transport fault, before taking the next interface: a call the agent may not serve (a stream
    /// it does not claim) is no evidence against the interface.
    pub async fn check_interface(&self) -> Option<CardClaimVerdict> {
        let url = self.interface().url.clone();
        let claim =
            self.declared(|c| matches!(c, CardClaim::Interface { url: declared, .. } if *declared == url))?;
        let answer = match self.get_unknown_task().await {
            Ok(_) => {
                ClaimAnswer::Interface { url, answer: InterfaceAnswer::Served { protocol_version: None } }
            }
            Err(error) => self.interface_answer(&error)?,
        };
        let verdict = self.judge(claim, answer)?;
        self.record_claim_verdict(&verdict);
        Some(verdict)
    }

    /// `GetTask` for a task no one assigned: the one call every binding serves that changes
    /// nothing. Its error, read by [`interface_answer`](Self::interface_answer), says whether the
    /// interface speaks its binding.
    pub(crate) async fn get_unknown_task(&self) -> Result<a2a_typestate_types::Task, Error> {
        let id = a2a_typestate_types::TaskId::new(format!(
            "a2a-interface-check-{}",
            uuid::Uuid::new_v4().simple()
        ));
        self.get_task(a2a_typestate_types::GetTaskRequest::new(id)).await
    }

    /// `error`, the answer to a `GetTask` for a task that does not exist made on this connection's
    /// interface, as the interface rule reads it (the one reading, for the client's check and the
    /// audit's): "task not found" is an answer in the binding, "method not found", a 404 or a 400
    /// without a JSON-RPC error from a JSON-RPC endpoint, 405 and 415 are answers outside it. `None` when the error is nothing the
    /// rule reads: nothing was sent, a 401 or 403 (about credentials), a bare 404 from HTTP+JSON
    /// (which may mean "no such task").
    pub fn interface_answer(&self, error: &Error) -> Option<ClaimAnswer> {
        let url = self.interface().url.clone();
        if let Some(fault) = error.transport_fault() {
            return Some(ClaimAnswer::TransportFault(fault));
        }
        if let Some(code) = error.protocol_error().and_then(|p| p.code()) {
            let answer = match i32::try_from(code).unwrap_or(0) {
                // Task not found: understood, in this binding and version.
                -32001 => InterfaceAnswer::Served { protocol_version: None },
                -32601 => InterfaceAnswer::OtherBinding { detail: "method not found (-32601)".to_owned() },
                code => InterfaceAnswer::AgentError { code },
            };
            return Some(ClaimAnswer::Interface { url, answer });
        }
        let jsonrpc = matches!(self.wire(), Wire::JsonRpc | Wire::JsonRpcV03);
        let answer = match error.status()? {
            404 if jsonrpc => InterfaceAnswer::OtherBinding { detail: "http 404".to_owned() },
            // A JSON-RPC endpoint answers a well-formed request with JSON-RPC, errors included: a
            // 400 without a JSON-RPC error in its body is not that binding speaking.
            400 if jsonrpc => {
                InterfaceAnswer::OtherBinding { detail: "http 400 without a JSON-RPC error".to_owned() }
            }
            status @ (405 | 415) => InterfaceAnswer::OtherBinding { detail: format!("http {status}") },
            _ => return None,
        };
        Some(ClaimAnswer::Interface { url, answer })
    }

    /// A connection to the next interface the card declares, in the card's order, after this one
    /// and those in `tried` (their URLs), skipping the interfaces marked suspect, among those this
    /// client speaks; `None` when none is left, or when this one and those in `tried` are already
    /// as many as one task may try ([`TaskBudget::interfaces`](crate::TaskBudget::interfaces), 8
    /// by default: a card may declare thousands). The fallback of a contradicted or unreachable
    /// interface. Its card is this connection's public card (the extended card is asked for again
    /// as [`crate::Client::connect`] does), its calls carry this connection's call options.
    pub async fn next_interface(&self, tried: &[String]) -> Option<AgentConnection> {
        if self.interfaces_left(tried) == 0 {
            return None;
        }
        let card = self.public_card().unwrap_or_else(|| self.card());
        let offered = card.offered_interfaces().ok()?;
        let own = &self.interface().url;
        let chosen = super::choose_interface(offered, |i| {
            &i.url == own || tried.contains(&i.url) || self.interface_marked(i)
        })?;
        self.reopened_on(chosen).await
    }

    /// How many more interfaces a task on this connection may try, this one and those in `tried`
    /// (their URLs) spent, under [`TaskBudget::interfaces`](crate::TaskBudget::interfaces).
    fn interfaces_left(&self, tried: &[String]) -> usize {
        let bound = self.client().config().task_budget().interfaces() as usize;
        let own = &self.interface().url;
        let mut spent: Vec<&String> = Vec::with_capacity(tried.len() + 1);
        for url in tried.iter().chain(std::iter::once(own)) {
            if spent.len() >= bound {
                break;
            }
            if !spent.contains(&url) {
                spent.push(url);
            }
        }
        bound.saturating_sub(spent.len())
    }

    /// `error`, the last interface's, saying how many of the card's declared interfaces the task
    /// tried (`tried`, this one included) and under which bound, when it tried more than one or
    /// stopped at the bound.
    pub(crate) fn after_interfaces_tried(&self, error: Error, tried: usize) -> Error {
        let bound = self.client().config().task_budget().interfaces();
        let card = self.public_card().unwrap_or_else(|| self.card());
        let declared = card.offered_interfaces().map_or(0, <[_]>::len);
        if tried > 1 || (tried >= bound as usize && declared > tried) {
            error.with_interfaces_tried(tried, declared, bound)
        } else {
            error
        }
    }

    /// `error`, ending a task that moved across `unreachable` interfaces to this one, saying how
    /// many it tried: the unreachable ones, and this one too when it was reached (`error` is then
    /// not a connect fault). Unchanged when the task moved nowhere.
    pub(crate) fn after_failover(&self, error: Error, unreachable: usize) -> Error {
        if unreachable == 0 {
            return error;
        }
        let tried = unreachable + usize::from(!error.is_connect());
        self.after_interfaces_tried(error, tried)
    }

    /// Why this connection's interface cannot be reached, when its URL says so plainly: the card was
    /// served from one place and names an address inside the agent's host or network (a
    /// container's `localhost`, `0.0.0.0`, a private address, a service name), which a client
    /// elsewhere cannot call. `None` when the URL says nothing of the kind.
    pub fn unreachable_diagnosis(&self) -> Option<String> {
        crate::agent_url::inside_address_diagnosis(self.card().source_url(), &self.interface().url)
    }

    /// This connection's card and call options on another interface its card declares, the one at
    /// `url` (as the card writes it); `None` when the card declares none there that this client
    /// speaks. Marks are not consulted: the caller names the interface (the one a task ended on,
    /// say).
    pub async fn on_interface(&self, url: &str) -> Option<AgentConnection> {
        let card = self.public_card().unwrap_or_else(|| self.card());
        let chosen = card.offered_interfaces().ok()?.iter().find(|i| i.url == url)?.clone();
        self.reopened_on(chosen).await
    }

    /// A connection like this one (public card, extended card asked for again, call options,
    /// marked extensions left out) on `interface`.
    async fn reopened_on(&self, interface: OfferedInterface) -> Option<AgentConnection> {
        let card = self.public_card().unwrap_or_else(|| self.card()).clone();
        let next = AgentConnection::open(self.client(), self.agent().clone(), card, interface).ok()?;
        // The same call options as this connection (a view's headers, timeout, extensions).
        let next = next.with_extended_card().await.rescoped(self.endpoint().scope.without_extensions(&[]));
        Some(next.without_marked_extensions())
    }

    /// Whether `interface` is marked suspect (and marks are on).
    pub(super) fn interface_marked(&self, interface: &OfferedInterface) -> bool {
        self.held_mark(&SuspectClaim::Interface { url: interface.url.clone() }).is_some()
    }

    /// The verdicts on the extensions this connection asked for and its card declares, from the
    /// answers read through it so far: refused for one the agent answered without while naming
    /// others, pending when the answers named none (an agent that does not echo them). Each is
    /// recorded (a refusal marks the extension: the connections made while the mark holds do not
    /// ask for it, unless the card marks it required).
    pub fn extension_verdicts(&self) -> Vec<CardClaimVerdict> {
        // One answer, shared by every claim it is read against: linear in the card's extensions.
        let asked: ExtensionSet = self.requested_extensions().iter().cloned().collect();
        let activated: ExtensionSet = self.activated_extensions().iter().cloned().collect();
        let card = self.card().claims(Deployment::Direct);
        let verdicts: Vec<CardClaimVerdict> = card
            .card_claims()
            .iter()
            .filter(|c| matches!(c, CardClaim::Extension { uri } if asked.contains(uri)))
            .filter_map(|claim| {
                let answer = ClaimAnswer::Extensions { asked: asked.clone(), activated: activated.clone() };
                self.judge(claim.clone(), answer)
            })
            .collect();
        for verdict in &verdicts {
            self.record_claim_verdict(verdict);
        }
        verdicts
    }

    /// The verdict on the card's output modes from `result`, the answer to a message sent with
    /// `modes` (its parts' media types and its `acceptedOutputModes`): refused when the message
    /// used input modes the card declares, accepted only output modes the card declares, and a
    /// part came in a media type none of them covers; unverifiable when the message used input
    /// modes the card does not declare. `None` when the card declares no output mode or the answer
    /// has no part that says its media type. Recorded (a refusal is marked; there is no fallback
    /// beyond the answer that came).
    pub fn output_modes_verdict(
        &self,
        modes: &ExchangeModes,
        result: &SendMessageResponse,
    ) -> Option<CardClaimVerdict> {
        let claim = self.declared(|c| matches!(c, CardClaim::OutputModes { .. }))?;
        let answered = result.answered_media_types();
        if answered.is_empty() {
            return None;
        }
        let verdict = self.judge(claim, ClaimAnswer::Output { modes: modes.clone(), answered })?;
        self.record_claim_verdict(&verdict);
        Some(verdict)
    }

    /// The verdict on the card's security claim from `error`, the answer to a call on this
    /// connection: refused when the card claims open access, the connection is sure to have sent no
    /// credentials (none configured for the origin, no client certificate, no interceptor and no
    /// header the client does not write itself), and the call was answered 401, or 403 with the
    /// agent's own A2A error (a bare 403 may be a gateway's, and is no evidence). `None` when the
    /// card claims nothing about access, or the answer was neither. Recorded (a refusal is marked).
    pub fn security_verdict(&self, error: &Error) -> Option<CardClaimVerdict> {
        let status = error.status().filter(|s| matches!(s, 401 | 403))?;
        let claim = self.declared(|c| matches!(c, CardClaim::Security(_)))?;
        let answer = ClaimAnswer::Access {
            credentials_sent: self.may_send_credentials(),
            status,
            agent_error: error.protocol_error().is_some(),
        };
        let verdict = self.judge(claim, answer)?;
        self.record_claim_verdict(&verdict);
        Some(verdict)
    }
}

impl AgentConnection {
    /// Whether this connection's calls may carry credentials: the ones the auth layer sends, a
    /// client certificate, or what it cannot see: an interceptor, default or per-call headers, a
    /// user's own HTTP stack. Only a call sure to carry none tests a claim of open access, so a
    /// wrong credential the user added is never read as the agent's lie.
    pub fn may_send_credentials(&self) -> bool {
        let client = self.client();
        self.endpoint().auth.sends_credentials()
            || client.auth().has_client_identity
            || !client.auth().interceptors.is_empty()
            || !self.endpoint().scope.headers().is_empty()
            || client.http_client().may_add_headers()
    }
}
