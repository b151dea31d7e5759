//! `read_any_card`: either shape, never a panic; the 1.0 card it returns writes back and re-reads.
#![no_main]

use a2a_typestate_types::parse;
use a2a_typestate_types::v03::read_any_card;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok((_shape, card)) = read_any_card(data) {
        let written = serde_json::to_vec(&card.value).expect("a read card serializes");
        let _: a2a_typestate_types::v1::AgentCard = parse::from_slice(&written).expect("a written card re-reads");
    }
});
