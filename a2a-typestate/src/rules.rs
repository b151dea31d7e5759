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
pub use crate::media_type::{media_type_covers, media_type_matches};
pub use crate::observe::Reach;

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
