//! A 0.3 Agent Card: parsing never panics, and a card that parses writes back and re-reads equal.
#![no_main]

use a2a_typestate_types::parse;
use a2a_typestate_types::v03::AgentCard;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(card) = parse::from_slice::<AgentCard>(data) {
        let written = serde_json::to_vec(&card).expect("a parsed card serializes");
        let again: AgentCard = parse::from_slice(&written).expect("a written card re-reads");
        assert_eq!(card, again);
    }
});
