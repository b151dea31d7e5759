//! `a2a card URL`: fetch an agent's card, validate it, and show what it offers and claims.
//!
//! A card is shown whatever its faults, as far as it can be read: an interface without a url, a
//! field of the wrong type, no interface this client speaks or would contact are each named (a
//! `Faults` section, `faults` in `--json`, a warning on stderr), beside what was served. Only a
//! document that cannot be read as a JSON object at all (or none served) is an error.
//!
//! ```
//! use a2a_typestate_cli::card::CardSummary;
//! use a2a_testkit::{Capabilities, ScriptedAgent};
//! # #[tokio::main] async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let agent = ScriptedAgent::builder().capabilities(Capabilities::none().with_streaming()).spawn().await?;
//!
//! let client = a2a_typestate_client::Client::builder().build()?;
//! let summary = CardSummary::of(&client.discover(&agent.base_url()).await?);
//! assert_eq!(summary.claims.streaming, Some(true));
//! assert!(summary.faults.is_empty());
//! assert_eq!(summary.protocol_versions, ["1.0"]);
//! print!("{}", summary.render());
//! # Ok(()) }
//! ```

use std::io::Write;
use std::process::ExitCode;

use a2a_typestate::{Capability, Deployment};
use a2a_typestate_client::connection::{SUPPORTED_BINDINGS, SUPPORTED_VERSIONS};
use a2a_typestate_client::signing::{CanonicalForm, CardSignaturePolicy, TrustStore};
use a2a_typestate_client::{Client, DiscoveredCard, Error, ErrorKind, WellKnownPath};
use a2a_typestate_types::discovery::OfferedInterface;
use a2a_typestate_types::v03::CardShape;
use serde::Serialize;
use serde_json::Value;

use crate::cli::CardArgs;
use crate::exit::Exit;
use crate::output;
use crate::style::{self, paint};
use crate::table::{Cell, Table};
use a2a_typestate_client::text;

/// What `a2a card` shows about one card; also its `--json` output.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CardSummary {
    /// The URL the card was fetched from.
    pub source_url: String,
    /// `"1.0"` or `"0.3"`: the shape the document was read as.
    pub card_shape: String,
    /// Whether the card came from the 0.2.x path `/.well-known/agent.json`.
    pub legacy_path: bool,
    /// The card's `name`.
    pub name: String,
    /// The card's `description`.
    pub description: String,
    /// The agent's own `version`.
    pub version: String,
    /// The distinct protocol versions the interfaces speak, best first.
    pub protocol_versions: Vec<String>,
    /// The interfaces, in the card's order of preference.
    pub interfaces: Vec<InterfaceSummary>,
    /// The three lifecycle claims and `extendedAgentCard`, as declared.
    pub claims: ClaimsSummary,
    /// Whether the card marks the agent as a gateway (its claims then describe nothing verifiable).
    pub gateway: bool,
    /// The poll cadence the card declares with this SDK's extension, in milliseconds.
    pub poll_cadence_ms: Option<u64>,
    /// `defaultInputModes`.
    pub default_input_modes: Vec<String>,
    /// `defaultOutputModes`.
    pub default_output_modes: Vec<String>,
    /// The skills' names.
    pub skills: Vec<String>,
    /// What the 1.0 model could not hold of a 0.3 card (`path: what`).
    pub conversion_losses: Vec<String>,
    /// The card's signatures and who signed it, when that was checked.
    pub signature: SignatureSummary,
    /// The extended card, when the card declares one and the credentials given fetched it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extended_card: Option<Box<CardSummary>>,
    /// What is wrong with the card, one fault a line (a field that cannot be read, naming its path;
    /// no interface this client speaks or would contact): empty for a card a client can use.
    pub faults: Vec<String>,
}

/// A card's signatures as `a2a card` reports them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SignatureSummary {
    /// How many entries the card's `signatures` holds.
    pub count: usize,
    /// `"verified"`, `"unsigned"`, or `"not checked"` (signed, but no trust store was given).
    pub status: String,
    /// The verified key's `kid`.
    pub key_id: Option<String>,
    /// Who the trust store says holds that key.
    pub issuer: Option<String>,
    /// The verified signature's algorithm.
    pub algorithm: Option<String>,
    /// What the signature covers: `"served document"`, or `"1.0 proto fields"` when fields outside
    /// the 1.0 proto were served unsigned (they then drive no claim).
    pub covers: Option<String>,
    /// The signed card's interfaces whose URLs are relative: the signature covers their paths, not
    /// the host they resolve to, which is whichever served the card (one line each).
    pub unbound_interfaces: Vec<String>,
}

impl SignatureSummary {
    fn of(discovered: &DiscoveredCard) -> Self {
        let count = served_signatures(discovered.raw());
        let signer = discovered.signer();
        let status = match (signer, count) {
            (Some(_), _) => "verified",
            (None, 0) => "unsigned",
            (None, _) => "not checked",
        };
        Self {
            count,
            status: status.to_owned(),
            key_id: signer.map(|s| s.key_id().to_owned()),
            issuer: signer.and_then(|s| s.issuer().map(str::to_owned)),
            algorithm: signer.map(|s| s.algorithm().to_string()),
            covers: signer.map(|s| match s.canonical_form() {
                CanonicalForm::ServedDocument => "served document".to_owned(),
                _ => "1.0 proto fields".to_owned(),
            }),
            unbound_interfaces: discovered.unbound_interfaces().iter().map(ToString::to_string).collect(),
        }
    }

    /// One line for people: `verified: <issuer> (kid 'k', ES256)`, `unsigned`, ...
    fn render(&self) -> String {
        match (&self.key_id, &self.algorithm) {
            (Some(kid), Some(alg)) => {
                let who = self.issuer.as_deref().map(|i| format!("{i} ")).unwrap_or_default();
                let covers = self.covers.as_deref().unwrap_or("served document");
                format!("verified: {who}(kid '{kid}', {alg}; covers the {covers})")
            }
            _ if self.count == 0 => "unsigned".to_owned(),
            _ => format!("{} signature(s), not checked (give --trust-jwks)", self.count),
        }
    }
}

/// One interface of a card.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InterfaceSummary {
    /// `1.0`, `0.3` or what the card wrote.
    pub protocol_version: String,
    /// `JSONRPC`, `HTTP+JSON`, `GRPC` or a custom binding.
    pub binding: String,
    /// The endpoint.
    pub url: String,
    /// The tenant sent with each request, if any.
    pub tenant: Option<String>,
}

/// What the card declares (`None`: the field is absent).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClaimsSummary {
    /// `capabilities.streaming`.
    pub streaming: Option<bool>,
    /// `capabilities.pushNotifications`.
    pub push_notifications: Option<bool>,
    /// `capabilities.stateTransitionHistory` (a 0.3 field; a 1.0 card may carry it as a leftover).
    pub state_transition_history: Option<bool>,
    /// `capabilities.extendedAgentCard`.
    pub extended_agent_card: Option<bool>,
}

impl ClaimsSummary {
    /// The declared value of one lifecycle claim.
    pub fn get(&self, capability: Capability) -> Option<bool> {
        match capability {
            Capability::Streaming => self.streaming,
            Capability::StateTransitionHistory => self.state_transition_history,
            Capability::PushNotifications => self.push_notifications,
        }
    }
}

impl CardSummary {
    /// Summarises a discovered card. A card whose interfaces cannot be read (no `supportedInterfaces`
    /// nor 0.3 `url`, an interface without url or binding) is summarised with its interfaces as
    /// written, the fault in [`faults`](Self::faults), as is one this client speaks no interface of.
    pub fn of(discovered: &DiscoveredCard) -> Self {
        let (interfaces, faults) = match discovered.offered_interfaces() {
            Ok(offered) => (offered.iter().map(InterfaceSummary::of).collect(), spoken_faults(offered)),
            Err(e) => (interfaces_as_written(&discovered.json()), vec![e.to_string()]),
        };
        let card = discovered.card();
        let caps = &card.capabilities;
        let lifted = discovered.claims(Deployment::Direct);
        Self {
            source_url: discovered.source_url().to_owned(),
            card_shape: match discovered.shape() {
                CardShape::V03 => "0.3".to_owned(),
                _ => "1.0".to_owned(),
            },
            legacy_path: discovered.well_known_path() == WellKnownPath::LegacyAgent,
            name: card.name.clone(),
            description: card.description.clone(),
            version: card.version.clone(),
            protocol_versions: a2a_typestate_client::discovery::protocol_versions(
                interfaces.iter().map(|i| i.protocol_version.as_str()),
            ),
            interfaces,
            claims: ClaimsSummary {
                streaming: discovered.declared(Capability::Streaming),
                push_notifications: discovered.declared(Capability::PushNotifications),
                state_transition_history: discovered.declared(Capability::StateTransitionHistory),
                extended_agent_card: caps.extended_agent_card,
            },
            gateway: lifted.is_gateway(),
            poll_cadence_ms: lifted.poll_cadence().map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
            default_input_modes: card.default_input_modes.clone(),
            default_output_modes: card.default_output_modes.clone(),
            skills: card.skills.iter().map(|s| s.name.clone()).collect(),
            conversion_losses: discovered.conversion_losses().iter().map(ToString::to_string).collect(),
            signature: SignatureSummary::of(discovered),
            extended_card: None,
            faults,
        }
    }

    /// Summarises a card the client could not read into its model (a field of the wrong type,
    /// say), from its JSON as served at `source_url`, `fault` naming why: every member that can be
    /// read is shown as written, the others as absent.
    pub fn as_written(card: &Value, source_url: &str, fault: String) -> Self {
        let text = |key: &str| card.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
        let texts = |value: Option<&Value>| -> Vec<String> {
            value
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        };
        let capabilities = card.get("capabilities");
        let claim = |key: &str| capabilities.and_then(|c| c.get(key)).and_then(Value::as_bool);
        let interfaces = interfaces_as_written(card);
        let v1 = card.get("supportedInterfaces").or_else(|| card.get("supported_interfaces")).is_some();
        Self {
            source_url: source_url.to_owned(),
            card_shape: if v1 || card.get("url").is_none() { "1.0" } else { "0.3" }.to_owned(),
            legacy_path: source_url.ends_with(WellKnownPath::LegacyAgent.path()),
            name: text("name"),
            description: text("description"),
            version: text("version"),
            protocol_versions: a2a_typestate_client::discovery::protocol_versions(
                interfaces.iter().map(|i| i.protocol_version.as_str()),
            ),
            interfaces,
            claims: ClaimsSummary {
                streaming: claim("streaming"),
                push_notifications: claim("pushNotifications"),
                state_transition_history: claim("stateTransitionHistory"),
                extended_agent_card: claim("extendedAgentCard")
                    .or_else(|| card.get("supportsAuthenticatedExtendedCard").and_then(Value::as_bool)),
            },
            gateway: false,
            poll_cadence_ms: None,
            default_input_modes: texts(card.get("defaultInputModes")),
            default_output_modes: texts(card.get("defaultOutputModes")),
            skills: card
                .get("skills")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|s| s.get("name").and_then(Value::as_str).map(str::to_owned))
                .collect(),
            conversion_losses: Vec::new(),
            signature: SignatureSummary {
                count: card.get("signatures").and_then(Value::as_array).map_or(0, Vec::len),
                status: "not checked".to_owned(),
                key_id: None,
                issuer: None,
                algorithm: None,
                covers: None,
                unbound_interfaces: Vec::new(),
            },
            extended_card: None,
            faults: vec![fault],
        }
    }

    /// The summary as tables for people.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let path = if self.legacy_path { " from the 0.2.x path" } else { "" };
        out.push_str(&format!(
            "{} {}  {}\n",
            paint(style::TITLE, "Agent card"),
            a2a_typestate_client::text::message(&self.name),
            paint(
                style::DIM,
                format!(
                    "({} card{path}, {})",
                    self.card_shape,
                    a2a_typestate_client::text::message(&self.source_url)
                )
            )
        ));
        let mut facts = Table::new(&["FIELD", "VALUE"]);
        facts.row([Cell::plain("description"), Cell::plain(self.description.clone())]);
        facts.row([Cell::plain("version"), Cell::plain(self.version.clone())]);
        facts.row([Cell::plain("protocol versions"), Cell::plain(self.protocol_versions.join(", "))]);
        facts.row([Cell::plain("input modes"), Cell::plain(self.default_input_modes.join(", "))]);
        facts.row([Cell::plain("output modes"), Cell::plain(self.default_output_modes.join(", "))]);
        let skills = if self.skills.is_empty() { "none".to_owned() } else { self.skills.join(", ") };
        facts.row([Cell::plain("skills"), Cell::plain(skills)]);
        let cadence =
            self.poll_cadence_ms.map_or_else(|| "none declared".to_owned(), |ms| format!("{ms} ms"));
        facts.row([Cell::plain("poll cadence"), Cell::plain(cadence)]);
        facts.row([Cell::plain("signature"), Cell::plain(self.signature.render())]);
        for unbound in &self.signature.unbound_interfaces {
            facts.row([Cell::plain("warning"), Cell::plain(unbound.clone())]);
        }
        out.push_str(&facts.render(2));

        if !self.faults.is_empty() {
            out.push_str(&format!("\n{}\n", paint(style::TITLE, "Faults")));
            for fault in &self.faults {
                out.push_str(&format!(
                    "  {}\n",
                    paint(style::BAD, a2a_typestate_client::text::message(fault))
                ));
            }
        }

        out.push_str(&format!("\n{}\n", paint(style::TITLE, "Interfaces")));
        let mut interfaces = Table::new(&["VERSION", "BINDING", "URL", "TENANT"]);
        for i in &self.interfaces {
            interfaces.row([
                Cell::plain(i.protocol_version.clone()),
                Cell::plain(i.binding.clone()),
                Cell::plain(if i.url.is_empty() { "\"\"".to_owned() } else { i.url.clone() }),
                Cell::plain(i.tenant.clone().unwrap_or_default()),
            ]);
        }
        out.push_str(&interfaces.render(2));

        out.push_str(&format!("\n{}\n", paint(style::TITLE, "Claims")));
        if self.gateway {
            out.push_str(&format!(
                "  {}\n",
                paint(style::NOTE, "gateway: these claims describe the gateway and cannot be verified")
            ));
        }
        let mut claims = Table::new(&["CAPABILITY", "DECLARED"]);
        let shown = |value: Option<bool>| match value {
            Some(true) => Cell::styled("yes", style::GOOD),
            Some(false) => Cell::plain("no"),
            None => Cell::styled("absent", style::DIM),
        };
        for capability in Capability::ALL {
            claims.row([Cell::plain(capability.card_field()), shown(self.claims.get(capability))]);
        }
        claims.row([Cell::plain("extendedAgentCard"), shown(self.claims.extended_agent_card)]);
        out.push_str(&claims.render(2));

        if !self.conversion_losses.is_empty() {
            out.push_str(&format!("\n{}\n", paint(style::TITLE, "Not representable in 1.0")));
            for loss in &self.conversion_losses {
                out.push_str(&format!("  {}\n", a2a_typestate_client::text::message(&loss.to_string())));
            }
        }
        if let Some(extended) = &self.extended_card {
            out.push_str(&format!(
                "\n{}\n",
                paint(style::TITLE, "Extended card (fetched with the credentials)")
            ));
            out.push_str(&extended.render());
        }
        out
    }
}

impl InterfaceSummary {
    fn of(interface: &OfferedInterface) -> Self {
        Self {
            protocol_version: interface.protocol_version.as_str().to_owned(),
            binding: interface.binding.as_str().to_owned(),
            url: interface.url.clone(),
            tenant: interface.tenant.clone(),
        }
    }
}

/// The fault of a card none of whose interfaces this client speaks, if it is one.
fn spoken_faults(offered: &[OfferedInterface]) -> Vec<String> {
    let spoken = |i: &OfferedInterface| {
        SUPPORTED_VERSIONS.contains(&i.protocol_version) && SUPPORTED_BINDINGS.contains(&i.binding)
    };
    if offered.iter().any(spoken) {
        return Vec::new();
    }
    let bindings: Vec<&str> = SUPPORTED_BINDINGS.iter().map(|b| b.as_str()).collect();
    vec![format!(
        "the card offers no interface this client speaks (it speaks 1.0 and 0.3 over {})",
        bindings.join(", ")
    )]
}

/// The interfaces a card's JSON names, as written, whatever their faults: 1.0
/// `supportedInterfaces`, else the 0.3 `url` and `additionalInterfaces`; a member that is not a
/// string is shown empty.
fn interfaces_as_written(card: &Value) -> Vec<InterfaceSummary> {
    let text = |entry: &Value, keys: &[&str]| -> String {
        keys.iter().find_map(|k| entry.get(*k)).and_then(Value::as_str).unwrap_or_default().to_owned()
    };
    let listed = card.get("supportedInterfaces").or_else(|| card.get("supported_interfaces"));
    if let Some(list) =
        listed.and_then(Value::as_array).filter(|l| !l.is_empty() || card.get("url").is_none())
    {
        return list
            .iter()
            .map(|entry| InterfaceSummary {
                protocol_version: text(entry, &["protocolVersion", "protocol_version"]),
                binding: text(entry, &["protocolBinding", "protocol_binding"]),
                url: text(entry, &["url"]),
                tenant: Some(text(entry, &["tenant"])).filter(|t| !t.is_empty()),
            })
            .collect();
    }
    if card.get("url").is_none() {
        return Vec::new();
    }
    let version = text(card, &["protocolVersion", "protocol_version"]);
    let preferred = text(card, &["preferredTransport", "preferred_transport"]);
    let first = InterfaceSummary {
        protocol_version: version.clone(),
        binding: if preferred.is_empty() { "JSONRPC".to_owned() } else { preferred },
        url: text(card, &["url"]),
        tenant: None,
    };
    let additional = card.get("additionalInterfaces").or_else(|| card.get("additional_interfaces"));
    let others = additional.and_then(Value::as_array).into_iter().flatten().map(|entry| InterfaceSummary {
        protocol_version: version.clone(),
        binding: text(entry, &["transport"]),
        url: text(entry, &["url"]),
        tenant: None,
    });
    std::iter::once(first).chain(others).collect()
}

/// The card a failed discovery fetched but could not read into the client's model (a field of the
/// wrong type, say), summarised as written, when `err` says so and the document at its URL is a
/// JSON object: asked for once more, as the client asks (its proxies, credentials and URL policy).
async fn as_written_after(client: &Client, err: &Error) -> Option<CardSummary> {
    if err.kind() != ErrorKind::BadInput {
        return None;
    }
    let url = err.url()?;
    let request = hyper::Request::get(url).body(bytes::Bytes::new()).ok()?;
    let response = client.http_client().send(request).await.ok()?;
    if !response.status().is_success() {
        return None;
    }
    let body = response.bytes(a2a_typestate_types::parse::DEFAULT_MAX_DOCUMENT_BYTES, url).await.ok()?;
    let card: Value = serde_json::from_slice(&body).ok().filter(Value::is_object)?;
    // The parser's own words name the path; the URL is the summary's.
    let fault = std::error::Error::source(err).map_or_else(|| text::one_line(err), ToString::to_string);
    Some(CardSummary::as_written(&card, url, fault))
}

/// The trust store named by `--trust-jwks`/`--trust-key` (each file's keys held by an issuer named
/// after the file), and the policy.
fn signature_settings(args: &CardArgs) -> Result<(CardSignaturePolicy, TrustStore), String> {
    let mut store = TrustStore::new();
    for path in &args.trust_jwks {
        store = trust_file(store, path)?;
    }
    let policy = match (args.trust_jwks.is_empty(), args.require_signature) {
        (true, _) => CardSignaturePolicy::Ignore,
        (false, false) => CardSignaturePolicy::VerifyIfPresent,
        (false, true) => CardSignaturePolicy::Require,
    };
    Ok((policy, store))
}

/// How many signatures the served card carries, counted from its bytes without reading the rest
/// of it into memory (a card's other members can be 8 MiB of anything).
fn served_signatures(raw: &[u8]) -> usize {
    #[derive(serde::Deserialize)]
    struct Signed {
        #[serde(default)]
        signatures: Vec<serde::de::IgnoredAny>,
    }
    serde_json::from_slice::<Signed>(raw).map_or(0, |signed| signed.signatures.len())
}

/// Adds the keys of the file at `path` to `store`: a JWKS (`{"keys": [...]}`), a single JWK (what
/// the official SDK's signer exports) or a PEM public key, whose key id is the file's name without
/// its extension (`signer-1.pem` holds key `signer-1`), since a PEM block carries none.
fn trust_file(store: TrustStore, path: &std::path::Path) -> Result<TrustStore, String> {
    let shown = path.display();
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    let issuer = path.file_name().map_or_else(|| shown.to_string(), |n| n.to_string_lossy().into_owned());
    let failed = |e: Error| format!("{shown}: {}", text::describe(&e));
    if text.trim_start().starts_with("-----BEGIN") {
        let key_id = path.file_stem().map_or_else(|| issuer.clone(), |s| s.to_string_lossy().into_owned());
        return store.with_pem(&key_id, &text, &issuer).map_err(failed);
    }
    let document: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| format!("{shown} is neither json (a jwk or a jwks) nor a pem public key: {e}"))?;
    if document.get("keys").is_some() {
        store.with_jwks(&document, &issuer).map_err(failed)
    } else if document.get("kty").is_some() {
        store.with_jwk(&document, &issuer).map_err(failed)
    } else {
        Err(format!(
            "{shown} is neither a jwk (an object with 'kty'), a jwks (an object with a 'keys' array) nor a pem public key"
        ))
    }
}

/// The extended card's summary, when the card declares one and the credentials fetch it.
async fn extended_summary(
    client: &Client,
    base: &str,
    discovered: &DiscoveredCard,
    credentials: &crate::credentials::CredentialArgs,
    err_out: &mut dyn Write,
) -> Option<Box<CardSummary>> {
    if discovered.card().capabilities.extended_agent_card != Some(true) || credentials.is_empty() {
        return None;
    }
    match client.connect(base).await {
        Ok(connection) if connection.uses_extended_card() => {
            Some(Box::new(CardSummary::of(connection.card())))
        }
        Ok(connection) => {
            if let Some(e) = connection.extended_card_error() {
                let _ = writeln!(err_out, "note: the extended card was not fetched: {}", text::one_line(e));
            }
            None
        }
        Err(e) => {
            let _ = writeln!(err_out, "note: the extended card was not fetched: {}", text::one_line(&e));
            None
        }
    }
}

/// Runs `a2a card`.
pub async fn run(args: &CardArgs, out: &mut dyn Write, err_out: &mut dyn Write) -> ExitCode {
    let base = a2a_typestate_client::discovery::base_url_of(&args.url);
    let (policy, store) = match signature_settings(args) {
        Ok(settings) => settings,
        Err(e) => {
            let _ = writeln!(err_out, "error: {e}");
            return Exit::NoResult.into();
        }
    };
    let signing = Client::builder().card_signature_policy(policy).card_trust_store(store);
    // `--request-timeout` is the longest wait for the card: every attempt, and the waits between
    // them, within it (not three attempts of it each).
    let bounded = signing.request_timeout(args.request_timeout).operation_deadline(args.request_timeout);
    let builder = match args.credentials.apply(bounded, &[args.url.as_str()]) {
        Ok(builder) => builder,
        Err(e) => {
            let _ = writeln!(err_out, "error: {e}");
            return Exit::NoResult.into();
        }
    };
    let client = match builder.build() {
        Ok(client) => client,
        Err(e) => {
            let _ = writeln!(err_out, "error: {}", text::describe(&e));
            return Exit::NoResult.into();
        }
    };
    let mut summary = match client.discover(base).await {
        Ok(discovered) => {
            let mut summary = CardSummary::of(&discovered);
            summary.extended_card =
                extended_summary(&client, base, &discovered, &args.credentials, err_out).await;
            summary
        }
        Err(e) => match as_written_after(&client, &e).await {
            Some(summary) => summary,
            None => {
                let _ = writeln!(err_out, "error: {}", text::card_fetch_error(base, &e, text::describe));
                // What was served is no card, or its signatures fail: a finding about the card.
                // Anything else fetched none.
                return match e.kind() {
                    ErrorKind::BadInput | ErrorKind::CardSignature => Exit::Contradicted.into(),
                    _ => Exit::NoResult.into(),
                };
            }
        },
    };
    // A card none of whose interfaces the client would contact (a `file://` URL, a metadata
    // address) cannot be used, as `a2a audit` says too.
    let policy = client.config().url_policy();
    let refusals: Vec<String> = summary
        .interfaces
        .iter()
        .filter(|i| !i.url.is_empty())
        .filter_map(|i| policy.check_relative(&summary.source_url, &i.url).err().map(|e| e.to_string()))
        .collect();
    if !refusals.is_empty() && refusals.len() == summary.interfaces.len() {
        summary
            .faults
            .push(format!("the card offers no interface this client would contact: {}", refusals[0]));
    }
    for fault in &summary.faults {
        let _ = writeln!(
            err_out,
            "warning: the agent card at {}: {}",
            a2a_typestate_client::text::message(&summary.source_url),
            a2a_typestate_client::text::message(fault)
        );
    }
    // Shown whatever its faults: what was served is what a person asked to see.
    match output::write_report(out, args.json, &summary, CardSummary::render) {
        Ok(()) => Exit::Done.into(),
        Err(_) => Exit::NoResult.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn serve(app: axum::Router) -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        format!("http://{addr}")
    }

    async fn fetch_error(url: &str) -> Error {
        let client =
            Client::builder().retry_policy(a2a_typestate_client::RetryPolicy::no_retry()).build().unwrap();
        client.discover(a2a_typestate_client::discovery::base_url_of(url)).await.unwrap_err()
    }

    #[tokio::test]
    async fn a_card_served_as_html_is_explained_with_its_content_type() {
        let page = || async { ([("content-type", "text/html")], "<html><body>login</body></html>") };
        let base =
            serve(axum::Router::new().route("/.well-known/agent-card.json", axum::routing::get(page))).await;
        let err = fetch_error(&base).await;
        let said = text::card_fetch_error(&base, &err, text::describe);
        let first = said.lines().next().unwrap_or_default();
        assert_eq!(
            first,
            format!("the agent card at {base}/.well-known/agent-card.json is not JSON (got text/html)")
        );
    }

    #[tokio::test]
    async fn a_missing_card_names_what_was_asked() {
        let base = serve(axum::Router::new()).await;
        let err = fetch_error(&base).await;
        let said = text::card_fetch_error(&base, &err, text::one_line);
        assert!(
            said.starts_with(&format!(
                "no agent card at {base}: {base}/.well-known/agent-card.json answered 404"
            )),
            "{said}"
        );
        assert!(said.contains(&format!("{base}/.well-known/agent.json answered 404")), "{said}");
        // A card URL off the well-known paths is asked as it is, and only it is named.
        let card_url = format!("{base}/api/agent-card.json");
        let err = fetch_error(&card_url).await;
        assert_eq!(
            text::card_fetch_error(
                a2a_typestate_client::discovery::base_url_of(&card_url),
                &err,
                text::one_line
            ),
            format!("no agent card at {card_url}: it answered 404")
        );
    }

    #[tokio::test]
    async fn a_missing_card_url_quotes_what_the_server_answered() {
        let said = "no card here: this agent serves its card at /v2/card.json";
        let missing = move || async move { (axum::http::StatusCode::NOT_FOUND, said) };
        let base =
            serve(axum::Router::new().route("/api/agent-card.json", axum::routing::get(missing))).await;
        let card_url = format!("{base}/api/agent-card.json");
        let err = fetch_error(&card_url).await;
        assert_eq!(
            text::card_fetch_error(
                a2a_typestate_client::discovery::base_url_of(&card_url),
                &err,
                text::one_line
            ),
            format!("no agent card at {card_url}: it answered 404: {said}")
        );
    }
}
