//! 0.3 <-> 1.0 conversions: whatever 0.3 document parses converts to 1.0 and back without a panic,
//! and what the conversion produces serializes and re-reads.
#![no_main]

use a2a_typestate_types::{parse, v03, v1};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(result) = parse::from_slice::<v03::StreamResult>(data) {
        let converted = result.to_v1();
        let written = serde_json::to_vec(&converted.value).expect("a converted event serializes");
        let _: v1::StreamResponse = parse::from_slice(&written).expect("a converted event re-reads");
        let _ = v03::StreamResult::from_v1(&converted.value);
    }
    if let Ok(result) = parse::from_slice::<v03::SendMessageResult>(data) {
        let back = v03::SendMessageResult::from_v1(&result.to_v1().value);
        let _ = serde_json::to_vec(&back.value).expect("a converted result serializes");
    }
    if let Ok(params) = parse::from_slice::<v03::MessageSendParams>(data) {
        let _ = v03::MessageSendParams::from_v1(&params.to_v1().value);
    }
    if let Ok(card) = parse::from_slice::<v03::AgentCard>(data) {
        let converted = card.to_v1();
        let written = serde_json::to_vec(&converted.value).expect("a converted card serializes");
        let _: v1::AgentCard = parse::from_slice(&written).expect("a converted card re-reads");
        let _ = v03::AgentCard::from_v1(&converted.value);
    }
    if let Ok(card) = parse::from_slice::<v1::AgentCard>(data) {
        let _ = v03::AgentCard::from_v1(&card).value.to_v1();
    }
});
