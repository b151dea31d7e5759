//! JSON-RPC envelopes, requests and responses, with typed 1.0 and 0.3 payloads: never a panic.
#![no_main]

use a2a_typestate_types::jsonrpc::{JsonRpcRequest, JsonRpcResponse};
use a2a_typestate_types::parse;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    if let Ok(request) = parse::from_slice::<JsonRpcRequest<Value>>(data) {
        let _ = request.method();
        let written = serde_json::to_vec(&request).expect("a request serializes");
        let again: JsonRpcRequest<Value> = parse::from_slice(&written).expect("a written request re-reads");
        assert_eq!(request.id, again.id);
    }
    let _ = parse::from_slice::<JsonRpcRequest<a2a_typestate_types::v1::SendMessageRequest>>(data);
    if let Ok(response) = parse::from_slice::<JsonRpcResponse<Value>>(data) {
        let _ = response.id();
        let _ = response.into_result();
    }
    let _ = parse::from_slice::<JsonRpcResponse<a2a_typestate_types::v1::SendMessageResponse>>(data);
    let _ = parse::from_slice::<JsonRpcResponse<a2a_typestate_types::v1::Task>>(data);
    let _ = parse::from_slice::<JsonRpcResponse<a2a_typestate_types::v03::SendMessageResult>>(data);
});
