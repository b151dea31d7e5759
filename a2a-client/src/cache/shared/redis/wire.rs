//! How the Redis backend lays its data out: key names, the stored JSON, and the events it publishes.
//!
//! - `{prefix}:suspect:{capability}:{agent}`: one mark on a lifecycle capability, as JSON, expiring
//!   with the mark (`PX`); `{prefix}:suspect:{claim}:{agent}` for a card claim (`extended-card`,
//!   `output-modes`, `security`), and `{prefix}:suspect:{claim}:{digest}:{agent}` for one that names
//!   a subject (`extensions`, `interfaces`: the digest is of the URI or URL);
//! - `{prefix}:card:{agent}`: the card, its `ETag` and the wall-clock end of its freshness, expiring a
//!   grace period after that (a stale copy still gives a validator);
//! - `{prefix}:epoch`: a random id naming the server's data generation (a server restarted without
//!   its data has a new one), kept alive by every resync and expiring a day after the last;
//! - channel `{prefix}:events`: every mark and clear, as JSON, for the other replicas.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use bytes::Bytes;
use serde::{Deserialize, Serialize};

use crate::SuspectClaim;
use crate::agent_url::{AgentBaseUrl, WellKnownPath};
use crate::shared::{SharedCard, SharedMark};
use crate::wire_caps::shared_ttl_ms;
use a2a_typestate_types::wire_number;

/// Key names under one prefix.
#[derive(Clone, Debug)]
pub(super) struct Keys {
    prefix: String,
}

impl Keys {
    pub(super) fn new(prefix: &str) -> Self {
        Self { prefix: prefix.to_owned() }
    }

    pub(super) fn mark(&self, claim: &SuspectClaim, agent: &AgentBaseUrl) -> String {
        match claim.subject() {
            None => format!("{}:suspect:{}:{}", self.prefix, claim.wire_name(), agent.as_str()),
            Some(subject) => {
                let digest = fnv64(subject.as_bytes());
                format!("{}:suspect:{}:{digest:016x}:{}", self.prefix, claim.wire_name(), agent.as_str())
            }
        }
    }

    pub(super) fn marks_pattern(&self) -> String {
        format!("{}:suspect:*", self.prefix)
    }

    /// Every mark key that may be `agent`'s (a longer agent URL ending in `:` and this one matches
    /// too: the stored mark's `agent` field tells them apart).
    pub(super) fn agent_marks_pattern(&self, agent: &AgentBaseUrl) -> String {
        let mut escaped = String::with_capacity(agent.as_str().len());
        for c in agent.as_str().chars() {
            if matches!(c, '*' | '?' | '[' | ']' | '\\') {
                escaped.push('\\');
            }
            escaped.push(c);
        }
        format!("{}:suspect:*:{escaped}", self.prefix)
    }

    pub(super) fn card(&self, agent: &AgentBaseUrl) -> String {
        format!("{}:card:{}", self.prefix, agent.as_str())
    }

    pub(super) fn route(&self, agent: &AgentBaseUrl) -> String {
        format!("{}:route:{}", self.prefix, agent.as_str())
    }

    /// An agent's open availability breaker (what `a2a watch --redis` lists): the JSON of
    /// [`StoredUnavailable`], expiring with the cool-down.
    pub(super) fn unavailable(&self, agent: &AgentBaseUrl) -> String {
        format!("{}:unavailable:{}", self.prefix, agent.as_str())
    }

    pub(super) fn lease(&self, agent: &AgentBaseUrl) -> String {
        format!("{}:lease:{}", self.prefix, agent.as_str())
    }

    pub(super) fn epoch(&self) -> String {
        format!("{}:epoch", self.prefix)
    }

    pub(super) fn channel(&self) -> String {
        format!("{}:events", self.prefix)
    }
}

/// A mark as stored under its key (its TTL is the key's).
///
/// `capability` names the claim ([`SuspectClaim`]'s wire name: a capability's card field, as
/// replicas before card-claim marks wrote it, or a claim kind's name) and `subject` the extension
/// URI or interface URL. A replica of that earlier version finds no capability by a claim kind's
/// name and skips the mark, and ignores `subject`; a name this version does not know is skipped
/// the same way.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct StoredMark {
    pub(super) agent: String,
    pub(super) capability: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) subject: Option<String>,
    pub(super) evidence: String,
    pub(super) card_version: Option<String>,
    pub(super) marked_by: Option<String>,
}

impl StoredMark {
    pub(super) fn new(agent: &AgentBaseUrl, mark: &SharedMark) -> Self {
        Self {
            agent: agent.as_str().to_owned(),
            capability: mark.claim.wire_name().to_owned(),
            subject: mark.claim.subject().map(str::to_owned),
            evidence: mark.evidence.clone(),
            card_version: mark.card_version.clone(),
            marked_by: mark.marked_by.clone(),
        }
    }

    /// Back to an agent and a mark that lasts `ttl`; `None` when a field does not read or names a
    /// claim this version does not know (skipped, never an error).
    pub(super) fn into_mark(self, ttl: Duration) -> Option<(AgentBaseUrl, SharedMark)> {
        let agent = AgentBaseUrl::parse(&self.agent).ok()?;
        let claim = SuspectClaim::from_wire(&self.capability, self.subject)?;
        let mark = SharedMark {
            claim,
            evidence: self.evidence,
            card_version: self.card_version,
            ttl,
            marked_by: self.marked_by,
        };
        Some((agent, mark))
    }
}

/// What is published on the events channel.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(super) enum Event {
    /// A mark was set; `ttl_ms` is what was left of it when published.
    Mark {
        origin: String,
        #[serde(flatten)]
        mark: StoredMark,
        ttl_ms: u64,
    },
    /// Marks on `agent` were cleared (all, or all but those on `keep_card_version`).
    Clear { origin: String, agent: String, keep_card_version: Option<String> },
    /// `interface_url` answered for `agent` after another of its interfaces could not be reached;
    /// `ttl_ms` is how long to go there first. Replicas that predate routes ignore the event.
    Route { origin: String, agent: String, interface_url: String, ttl_ms: u64 },
    /// `agent`'s availability breaker opened on replica `origin` (named `by`) for `ttl_ms`.
    /// Replicas that predate breakers ignore the event.
    Unavailable {
        origin: String,
        agent: String,
        failures: u32,
        evidence: String,
        by: Option<String>,
        ttl_ms: u64,
    },
    /// `agent`'s breaker closed on replica `origin`: the agent answered.
    Available { origin: String, agent: String },
}

/// A card as stored under its key.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct StoredCard {
    raw: String,
    source_url: String,
    legacy_path: bool,
    etag: Option<String>,
    fresh_until_unix_ms: u64,
}

impl StoredCard {
    pub(super) fn new(card: &SharedCard) -> Self {
        Self {
            raw: STANDARD.encode(&card.raw),
            source_url: card.source_url.clone(),
            legacy_path: card.path == WellKnownPath::LegacyAgent,
            etag: card.etag.clone(),
            fresh_until_unix_ms: unix_ms(wire_number::system_time_after(SystemTime::now(), card.fresh_for)),
        }
    }

    pub(super) fn into_card(self) -> Option<SharedCard> {
        let raw = STANDARD.decode(self.raw).ok()?;
        let now = unix_ms(SystemTime::now());
        Some(SharedCard {
            raw: Bytes::from(raw),
            source_url: self.source_url,
            path: if self.legacy_path { WellKnownPath::LegacyAgent } else { WellKnownPath::AgentCard },
            etag: self.etag,
            fresh_for: shared_ttl_ms("fresh_until_unix_ms", self.fresh_until_unix_ms.saturating_sub(now)),
        })
    }
}

fn unix_ms(at: SystemTime) -> u64 {
    at.duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// FNV-1a: a short, stable name for a subject inside a key.
fn fnv64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Milliseconds for `PX`, at least 1 (Redis refuses 0).
pub(super) fn px(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Capability;

    #[test]
    fn a_stored_mark_reads_back_as_the_same_mark() {
        let agent = AgentBaseUrl::parse("http://a.example:8080/x").unwrap();
        let mark = SharedMark {
            claim: Capability::StateTransitionHistory.into(),
            evidence: "empty history".into(),
            card_version: Some("W/\"1\"".into()),
            ttl: Duration::from_secs(9),
            marked_by: Some("r1".into()),
        };
        let json = serde_json::to_string(&StoredMark::new(&agent, &mark)).unwrap();
        let back: StoredMark = serde_json::from_str(&json).unwrap();
        assert_eq!(back.into_mark(Duration::from_secs(9)), Some((agent, mark)));
    }

    #[test]
    fn events_carry_their_kind_and_origin() {
        let event = Event::Clear { origin: "o".into(), agent: "http://a".into(), keep_card_version: None };
        let json = serde_json::to_string(&event).unwrap();
        assert!(json.contains("\"kind\":\"clear\""), "{json}");
        assert!(matches!(serde_json::from_str(&json).unwrap(), Event::Clear { .. }));
    }

    #[test]
    fn a_stored_card_keeps_its_bytes_etag_and_remaining_freshness() {
        let card = SharedCard {
            raw: Bytes::from_static(b"{\"name\":\"a\"}"),
            source_url: "http://a/.well-known/agent.json".into(),
            path: WellKnownPath::LegacyAgent,
            etag: Some("\"e\"".into()),
            fresh_for: Duration::from_secs(60),
        };
        let back = StoredCard::new(&card).into_card().unwrap();
        assert_eq!((back.raw.clone(), back.path, back.etag.clone()), (card.raw, card.path, card.etag));
        assert!(back.fresh_for > Duration::from_secs(58) && back.fresh_for <= Duration::from_secs(60));
    }

    fn claim_mark(claim: SuspectClaim) -> SharedMark {
        SharedMark {
            claim,
            evidence: "GetExtendedAgentCard answered error -32004".into(),
            card_version: Some("\"7\"".into()),
            ttl: Duration::from_secs(30),
            marked_by: Some("r2".into()),
        }
    }

    #[test]
    fn a_card_claim_mark_round_trips_through_its_stored_and_published_forms() {
        let agent = AgentBaseUrl::parse("http://a.example").unwrap();
        for claim in [
            SuspectClaim::ExtendedAgentCard,
            SuspectClaim::Extension { uri: "https://ext.example/v1".into() },
            SuspectClaim::Interface { url: "http://a.example/retired".into() },
            SuspectClaim::OutputModes,
            SuspectClaim::Security,
        ] {
            let mark = claim_mark(claim);
            let json = serde_json::to_string(&StoredMark::new(&agent, &mark)).unwrap();
            let back: StoredMark = serde_json::from_str(&json).unwrap();
            assert_eq!(back.into_mark(mark.ttl), Some((agent.clone(), mark.clone())), "{json}");
            let event =
                Event::Mark { origin: "o".into(), mark: StoredMark::new(&agent, &mark), ttl_ms: 30_000 };
            let Event::Mark { mark: published, .. } =
                serde_json::from_str(&serde_json::to_string(&event).unwrap()).unwrap()
            else {
                panic!("a mark event reads back as a mark");
            };
            assert_eq!(published.into_mark(mark.ttl).map(|(_, m)| m), Some(mark));
        }
    }

    /// The previous version's stored mark and its reading, kept to check that its replicas read
    /// the new format: a capability mark as before, a card-claim mark skipped (never an error).
    #[derive(Deserialize)]
    struct PreviousStoredMark {
        agent: String,
        capability: String,
        evidence: String,
        card_version: Option<String>,
        marked_by: Option<String>,
    }

    impl PreviousStoredMark {
        fn capability(&self) -> Option<Capability> {
            let _ = (&self.agent, &self.evidence, &self.card_version, &self.marked_by);
            Capability::ALL.into_iter().find(|c| c.card_field() == self.capability)
        }
    }

    #[derive(Deserialize)]
    #[serde(tag = "kind", rename_all = "snake_case")]
    enum PreviousEvent {
        Mark {
            #[serde(flatten)]
            mark: PreviousStoredMark,
        },
    }

    #[test]
    fn a_previous_replica_reads_capability_marks_and_skips_card_claim_marks() {
        let agent = AgentBaseUrl::parse("http://a.example").unwrap();
        let capability = StoredMark::new(&agent, &claim_mark(Capability::Streaming.into()));
        let json = serde_json::to_string(&capability).unwrap();
        assert!(!json.contains("subject"), "a capability mark is written as before: {json}");
        let old: PreviousStoredMark = serde_json::from_str(&json).unwrap();
        assert_eq!(old.capability(), Some(Capability::Streaming));
        let interface = SuspectClaim::Interface { url: "http://a.example/retired".into() };
        let claim = StoredMark::new(&agent, &claim_mark(interface));
        let old: PreviousStoredMark = serde_json::from_str(&serde_json::to_string(&claim).unwrap())
            .expect("the previous version parses a card-claim mark");
        assert_eq!(old.capability(), None, "and skips it");
        let event = Event::Mark { origin: "o".into(), mark: claim, ttl_ms: 1 };
        let PreviousEvent::Mark { mark } = serde_json::from_str(&serde_json::to_string(&event).unwrap())
            .expect("the previous version parses a card-claim mark event");
        assert_eq!(mark.capability(), None);
    }

    #[test]
    fn a_mark_stored_by_the_previous_version_reads_here() {
        let json = r#"{"agent":"http://a.example","capability":"pushNotifications","evidence":"e",
            "card_version":null,"marked_by":"old"}"#;
        let stored: StoredMark = serde_json::from_str(json).unwrap();
        let (_, mark) = stored.into_mark(Duration::from_secs(1)).unwrap();
        assert_eq!(mark.claim, SuspectClaim::Capability(Capability::PushNotifications));
    }

    #[test]
    fn a_mark_naming_a_claim_unknown_here_is_skipped() {
        let json = r#"{"agent":"http://a.example","capability":"skills","subject":"s","evidence":"e",
            "card_version":null,"marked_by":null}"#;
        let stored: StoredMark = serde_json::from_str(json).unwrap();
        assert_eq!(stored.into_mark(Duration::from_secs(1)), None);
    }

    #[test]
    fn each_claim_mark_has_its_own_key_and_the_agent_pattern_escapes_globs() {
        let keys = Keys::new("p");
        let agent = AgentBaseUrl::parse("http://a.example").unwrap();
        let one = keys.mark(&SuspectClaim::Extension { uri: "urn:a".into() }, &agent);
        let two = keys.mark(&SuspectClaim::Extension { uri: "urn:b".into() }, &agent);
        assert_ne!(one, two);
        assert!(one.ends_with(":http://a.example"), "{one}");
        assert_eq!(keys.mark(&Capability::Streaming.into(), &agent), "p:suspect:streaming:http://a.example");
        let odd = AgentBaseUrl::parse("http://a.example/x*y").unwrap();
        assert!(keys.agent_marks_pattern(&odd).ends_with(r"x\*y"), "{}", keys.agent_marks_pattern(&odd));
    }
}

/// An open availability breaker as stored under its key.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct StoredUnavailable {
    /// The agent's base URL.
    pub(super) agent: String,
    /// Tasks in a row that ended in a transport fault.
    pub(super) failures: u32,
    /// The last fault, in words.
    pub(super) evidence: String,
    /// The replica that opened it, when named.
    pub(super) by: Option<String>,
}
