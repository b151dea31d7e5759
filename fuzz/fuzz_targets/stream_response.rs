//! `StreamResponse` (1.0) and `StreamResult` (0.3) events: never a panic; a 1.0 event that parses
//! writes back and re-reads equal, and its accessors agree with the re-read one.
#![no_main]

use a2a_typestate_types::parse;
use a2a_typestate_types::v1::StreamResponse;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(event) = parse::from_slice::<StreamResponse>(data) {
        let written = serde_json::to_vec(&event).expect("an event serializes");
        let again: StreamResponse = parse::from_slice(&written).expect("a written event re-reads");
        assert_eq!(event.state(), again.state());
        assert_eq!(event.task_id(), again.task_id());
    }
    let _ = parse::from_slice::<a2a_typestate_types::v03::StreamResult>(data);
});
