//! SSE framing under arbitrary chunking: the first byte picks chunk sizes, the rest is the body. The
//! events parsed from any chunking equal those parsed from the body in one chunk, and the parser
//! never panics nor buffers past its limit.
#![no_main]

use std::time::Duration;

use a2a_typestate_client::sse::{SseLimits, SseStream};
use bytes::Bytes;
use futures::StreamExt;
use libfuzzer_sys::fuzz_target;

fn events(chunks: Vec<Bytes>) -> Vec<Result<a2a_typestate_client::sse::SseEvent, String>> {
    thread_local! {
        static RUNTIME: tokio::runtime::Runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .expect("a runtime");
    }
    let limits = SseLimits { max_event_bytes: 4096, idle_timeout: Duration::from_secs(60) };
    RUNTIME.with(|runtime| {
        runtime.block_on(async {
            let body = futures::stream::iter(chunks.into_iter().map(Ok::<_, std::io::Error>));
            SseStream::new(body, limits).map(|item| item.map_err(|e| format!("{:?}", e.kind()))).collect().await
        })
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&seed, body)) = data.split_first() else { return };
    let whole = events(vec![Bytes::copy_from_slice(body)]);
    let mut chunks = Vec::new();
    let mut rest = body;
    let mut size = usize::from(seed % 7) + 1;
    while !rest.is_empty() {
        let take = size.min(rest.len());
        chunks.push(Bytes::copy_from_slice(&rest[..take]));
        rest = &rest[take..];
        size = size * 3 % 11 + 1;
    }
    let split = events(chunks);
    assert_eq!(whole, split, "the chunking changed the events");
    for event in whole.iter().flatten() {
        assert!(event.data.len() <= 4096);
    }
});
