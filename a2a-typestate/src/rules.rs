//! The refusal rules in one place: the clauses every claim is judged by, the lifecycle claims
//! ([`Verifier`](crate::Verifier)) and the card's other claims ([`ClaimCheck`](crate::ClaimCheck))
//! alike, and the one reading of media types they use.
//!
//! ```
//! use a2a_typestate::rules::media_type_covers;
//!
//! // A card that writes `text` means any text; parameters and case do not matter.
//! assert!(media_type_covers("text", "text/plain"));
//! assert!(media_type_covers("text/plain", "Text/Plain; charset=utf-8"));
//! assert!(media_type_covers("*/*", "application/json"));
//! assert!(!media_type_covers("application/json", "text/plain"));
//! ```
//!
//! A claim is refused only when all three clauses hold:
//! 1. the card declares it and the caller's path depends on it ([`checked`]; a gateway's card
//!    declares nothing);
//! 2. the first answer that exercises it contradicts it: each claim's own reading, in
//!    [`verify`](crate::verify) and [`claim_check`](crate::claim_check);
//! 3. that answer was reachable through the card's declared modes ([`reachable`]). What clause 3
//!    reads depends on how the answer was reached ([`Reach`]): an answer to a message is held
//!    against the card only when the message used media types the card's `defaultInputModes`
//!    declares and accepted at least one of its `defaultOutputModes` (or any); the agent's own
//!    answer to the claim's own call (its "not supported" to the streaming or push-config call,
//!    `GetExtendedAgentCard`, the interface's call, a call made without credentials) is about the
//!    call, not about any content, and counts whatever the modes.
//!
//! A contradiction that fails clause 3 is not a refusal: the claim is unverifiable from that
//! exchange ([`Reachability::OutsideDeclaredModes`]), and the report says so.

use crate::card::CardClaims;
use crate::observe::ExchangeModes;

/// How the answer that exercised a claim was reached: what clause 3 reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach<'a> {
    /// The agent's own answer to the claim's own call: evidence whatever the modes.
    OwnCall,
    /// A transition that followed a message exchange with these modes; `None` when no sent message
    /// is on record.
    Exchange(Option<&'a ExchangeModes>),
}

/// What clause 3 makes of a contradiction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reachability {
    /// Reachable through the card's declared modes: the contradiction refuses.
    Declared,
    /// Reached through media types the card does not declare: unverifiable from this exchange.
    OutsideDeclaredModes,
    /// No sent message says which modes reached it: unverifiable.
    ModesUnknown,
}

/// Clause 1: a claim is checked only when the card declares it and the caller depends on it, and
/// never for a gateway (its card describes the gateway, not the agent behind it).
pub fn checked(card: &CardClaims, declared: bool, depended_on: bool) -> bool {
    declared && depended_on && !card.is_gateway()
}

/// Clause 3: whether an answer reached as `reach` can be held against `card`.
pub fn reachable(card: &CardClaims, reach: Reach<'_>) -> Reachability {
    match reach {
        Reach::OwnCall => Reachability::Declared,
        Reach::Exchange(None) => Reachability::ModesUnknown,
        Reach::Exchange(Some(modes)) => {
            if modes.reachable_through(card.default_input_modes(), card.default_output_modes()) {
                Reachability::Declared
            } else {
                Reachability::OutsideDeclaredModes
            }
        }
    }
}

/// `true` when the media range `range` covers media type `media_type`, by meaning: case and
/// parameters ignored (`Text/Plain; charset=utf-8` is `text/plain`), `*` or `*/*` covers anything,
/// and a subtype of `*` or none at all (`text/*`, or `text` as cards in the wild write it) covers
/// every subtype of its type. Only `range`'s wildcards widen: `*/*` as the `media_type` is not
/// covered by `application/json`.
pub fn media_type_covers(range: &str, media_type: &str) -> bool {
    let (r_kind, r_sub) = essence(range);
    let (m_kind, m_sub) = essence(media_type);
    let any = |part: &str| part.is_empty() || part == "*";
    !r_kind.is_empty()
        && !m_kind.is_empty()
        && (any(&r_kind) || r_kind == m_kind)
        && (any(&r_sub) || r_sub == m_sub)
}

/// `true` when media types or ranges `a` and `b` share a media type: either covers the other
/// ([`media_type_covers`]). What "accepted `*/*`" and "declares `text/plain`" have in common.
pub fn media_type_matches(a: &str, b: &str) -> bool {
    media_type_covers(a, b) || media_type_covers(b, a)
}

/// A media type's type and subtype, lowercased, parameters dropped (`""` for a missing subtype).
fn essence(media_type: &str) -> (String, String) {
    let base = media_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    match base.split_once('/') {
        Some((kind, sub)) => (kind.trim().to_owned(), sub.trim().to_owned()),
        None => (base, String::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::{media_type_covers, media_type_matches};

    #[test]
    fn media_types_match_by_meaning() {
        assert!(media_type_matches("text/plain", "Text/Plain; charset=utf-8"));
        assert!(media_type_matches("*/*", "image/png"));
        assert!(media_type_matches("*", "image/png"));
        assert!(media_type_matches("text/*", "text/markdown"));
        assert!(media_type_matches("text", "text/plain"));
        assert!(media_type_matches("text/plain", "text"));
        assert!(media_type_matches("TEXT", "text/plain"));
        assert!(!media_type_matches("text/*", "application/json"));
        assert!(!media_type_matches("text/plain", "text/html"));
        assert!(!media_type_matches("text/plain", "image/png"));
        assert!(!media_type_matches("text", "image/png"));
        assert!(!media_type_matches("", "text/plain"));
        assert!(!media_type_matches("text/plain", ""));
    }

    #[test]
    fn only_the_range_widens_when_covering() {
        assert!(media_type_covers("text", "text/plain"));
        assert!(media_type_covers("*/*", "application/json"));
        assert!(!media_type_covers("application/json", "*/*"));
        assert!(!media_type_covers("text/plain", "text/*"));
        assert!(media_type_matches("application/json", "*/*"));
    }
}
