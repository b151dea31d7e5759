//! What the journal stores, as JSON: one record per task (rewritten whole at each change, so a
//! reader never has to replay a log) and one per suspect mark.
//!
//! A record is bounded: ids, URLs and an error's text are cut to [`MAX_FIELD_BYTES`]. Nothing of
//! the message's content is stored.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use a2a_typestate_types::TaskState;
use serde::{Deserialize, Serialize};

use crate::SuspectClaim;
use crate::agent_url::AgentBaseUrl;
use crate::shared::SharedMark;

/// The longest id, URL or error text a record keeps, in bytes.
pub const MAX_FIELD_BYTES: usize = 1024;
/// The record format; a record of another version is skipped when read.
const VERSION: u32 = 1;

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// `text` cut to [`MAX_FIELD_BYTES`] on a character boundary.
pub(crate) fn bounded(text: &str) -> String {
    if text.len() <= MAX_FIELD_BYTES {
        return text.to_owned();
    }
    let mut cut = MAX_FIELD_BYTES;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    text[..cut].to_owned()
}

/// One task as the journal holds it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TaskRecord {
    pub(crate) v: u32,
    /// The replica that ran it (its name, or empty): each replica recovers its own tasks.
    pub(crate) owner: String,
    pub(crate) agent: String,
    /// The first message's id: the record's key.
    pub(crate) message_id: String,
    /// The context id the first message went with (chosen by the client when it had none), under
    /// which the agent lists the task when its answer never arrived.
    pub(crate) context_id: String,
    /// The task id, once the agent named it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) task_id: Option<String>,
    /// The path the run took when it began: `streaming`, `polling` or `single-shot`.
    pub(crate) path: String,
    /// The capabilities the caller depended on (card field names).
    pub(crate) depends: Vec<String>,
    /// Of those, the ones the card claimed when the run began.
    pub(crate) claimed: Vec<String>,
    /// The last state the client read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) state: Option<TaskState>,
    pub(crate) begun_at_ms: u64,
    pub(crate) updated_at_ms: u64,
    /// How the run ended, once it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) ended: Option<Ended>,
    /// The replica that began it, when another took it over after that one's lease ran out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) taken_over_from: Option<String>,
}

/// How a run ended: its last state (none for a direct message), or the error it ended with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Ended {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) state: Option<TaskState>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<String>,
    pub(crate) at_ms: u64,
}

impl TaskRecord {
    /// A new record: what identifies the task, before its first byte is sent.
    pub(crate) fn new(owner: &str, agent: &AgentBaseUrl, message_id: &str, context_id: &str) -> Self {
        let now = now_ms();
        Self {
            v: VERSION,
            owner: bounded(owner),
            agent: bounded(agent.as_str()),
            message_id: bounded(message_id),
            context_id: bounded(context_id),
            task_id: None,
            path: String::new(),
            depends: Vec::new(),
            claimed: Vec::new(),
            state: None,
            begun_at_ms: now,
            updated_at_ms: now,
            ended: None,
            taken_over_from: None,
        }
    }

    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// A stored record; `None` when it does not read or is of another version (skipped).
    pub(crate) fn from_bytes(bytes: &[u8]) -> Option<Self> {
        serde_json::from_slice::<Self>(bytes).ok().filter(|r| r.v == VERSION)
    }
}

/// A suspect mark as the journal holds it, with the wall-clock end of its TTL (a restart keeps
/// the time left, not a monotonic instant).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct MarkRecord {
    pub(crate) agent: String,
    pub(crate) claim: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) subject: Option<String>,
    pub(crate) evidence: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) card_version: Option<String>,
    pub(crate) expires_at_ms: u64,
}

impl MarkRecord {
    pub(crate) fn new(
        agent: &AgentBaseUrl,
        claim: &SuspectClaim,
        evidence: &str,
        card_version: Option<&str>,
        ttl: Duration,
    ) -> Self {
        let ttl_ms = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX);
        Self {
            agent: agent.as_str().to_owned(),
            claim: claim.wire_name().to_owned(),
            subject: claim.subject().map(bounded),
            evidence: bounded(evidence),
            card_version: card_version.map(bounded),
            expires_at_ms: now_ms().saturating_add(ttl_ms),
        }
    }

    /// The key a mark is stored under: one per agent and claim.
    pub(crate) fn key(&self) -> String {
        format!("{}\u{1f}{}\u{1f}{}", self.agent, self.claim, self.subject.as_deref().unwrap_or(""))
    }

    /// The time left, from now; zero once it expired.
    pub(crate) fn ttl(&self) -> Duration {
        crate::wire_caps::shared_ttl_ms("expiresAtMs", self.expires_at_ms.saturating_sub(now_ms()))
    }

    /// Back to an agent and a mark for the local cache; `None` when expired or unreadable.
    pub(crate) fn into_mark(self) -> Option<(AgentBaseUrl, SharedMark)> {
        let ttl = self.ttl();
        if ttl.is_zero() {
            return None;
        }
        let agent = AgentBaseUrl::parse(&self.agent).ok()?;
        let claim = SuspectClaim::from_wire(&self.claim, self.subject)?;
        let mark = SharedMark {
            claim,
            evidence: self.evidence,
            card_version: self.card_version,
            ttl,
            marked_by: None,
        };
        Some((agent, mark))
    }

    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    pub(crate) fn from_bytes(bytes: &[u8]) -> Option<Self> {
        serde_json::from_slice(bytes).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_bounded_whatever_the_ids_it_is_given() {
        let agent = AgentBaseUrl::parse("http://agent.example").unwrap();
        let long = "é".repeat(4 * MAX_FIELD_BYTES);
        let record = TaskRecord::new(&long, &agent, &long, &long);
        assert!(record.message_id.len() <= MAX_FIELD_BYTES);
        assert!(record.to_bytes().len() < 3 * MAX_FIELD_BYTES + 512, "{}", record.to_bytes().len());
    }

    #[test]
    fn a_record_reads_back_and_a_record_of_another_version_is_skipped() {
        let agent = AgentBaseUrl::parse("http://agent.example").unwrap();
        let mut record = TaskRecord::new("r", &agent, "m1", "c1");
        record.state = Some(TaskState::Working);
        assert_eq!(TaskRecord::from_bytes(&record.to_bytes()), Some(record.clone()));
        record.v = VERSION + 1;
        assert_eq!(TaskRecord::from_bytes(&record.to_bytes()), None);
        assert_eq!(TaskRecord::from_bytes(b"not json"), None);
    }

    #[test]
    fn an_expired_mark_does_not_come_back() {
        let agent = AgentBaseUrl::parse("http://agent.example").unwrap();
        let claim = SuspectClaim::from(crate::Capability::Streaming);
        let live = MarkRecord::new(&agent, &claim, "no artifact", None, Duration::from_secs(60));
        let (_, mark) = live.clone().into_mark().unwrap();
        assert!(mark.ttl > Duration::from_secs(58) && mark.ttl <= Duration::from_secs(60));
        let expired = MarkRecord { expires_at_ms: now_ms() - 1, ..live };
        assert!(expired.into_mark().is_none());
    }
}
