//! How the Redis backend lays its data out: key names, the stored JSON, and the events it publishes.
//!
//! - `{prefix}:suspect:{capability}:{agent}`: one mark, as JSON, expiring with the mark (`PX`);
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

use crate::Capability;
use crate::agent_url::{AgentBaseUrl, WellKnownPath};
use crate::shared::{SharedCard, SharedMark};

/// Key names under one prefix.
#[derive(Clone, Debug)]
pub(super) struct Keys {
    prefix: String,
}

impl Keys {
    pub(super) fn new(prefix: &str) -> Self {
        Self { prefix: prefix.to_owned() }
    }

    pub(super) fn mark(&self, capability: Capability, agent: &AgentBaseUrl) -> String {
        format!("{}:suspect:{}:{}", self.prefix, capability.card_field(), agent.as_str())
    }

    pub(super) fn marks_pattern(&self) -> String {
        format!("{}:suspect:*", self.prefix)
    }

    pub(super) fn card(&self, agent: &AgentBaseUrl) -> String {
        format!("{}:card:{}", self.prefix, agent.as_str())
    }

    pub(super) fn epoch(&self) -> String {
        format!("{}:epoch", self.prefix)
    }

    pub(super) fn channel(&self) -> String {
        format!("{}:events", self.prefix)
    }
}

/// A mark as stored under its key (its TTL is the key's).
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct StoredMark {
    pub(super) agent: String,
    pub(super) capability: String,
    pub(super) evidence: String,
    pub(super) card_version: Option<String>,
    pub(super) marked_by: Option<String>,
}

impl StoredMark {
    pub(super) fn new(agent: &AgentBaseUrl, mark: &SharedMark) -> Self {
        Self {
            agent: agent.as_str().to_owned(),
            capability: mark.capability.card_field().to_owned(),
            evidence: mark.evidence.clone(),
            card_version: mark.card_version.clone(),
            marked_by: mark.marked_by.clone(),
        }
    }

    /// Back to an agent and a mark that lasts `ttl`; `None` when a field does not read.
    pub(super) fn into_mark(self, ttl: Duration) -> Option<(AgentBaseUrl, SharedMark)> {
        let agent = AgentBaseUrl::parse(&self.agent).ok()?;
        let capability = Capability::ALL.into_iter().find(|c| c.card_field() == self.capability)?;
        let mark = SharedMark {
            capability,
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
            fresh_until_unix_ms: unix_ms(SystemTime::now() + card.fresh_for),
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
            fresh_for: Duration::from_millis(self.fresh_until_unix_ms.saturating_sub(now)),
        })
    }
}

fn unix_ms(at: SystemTime) -> u64 {
    at.duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Milliseconds for `PX`, at least 1 (Redis refuses 0).
pub(super) fn px(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_mark_reads_back_as_the_same_mark() {
        let agent = AgentBaseUrl::parse("http://a.example:8080/x").unwrap();
        let mark = SharedMark {
            capability: Capability::StateTransitionHistory,
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
}
