//! What a hostile document costs, measured: each kind of member or field an agent controls is fed at
//! two sizes, and the peak memory the client allocated for it (a counting allocator, this test
//! binary's own) must grow at most linearly with what was sent: never a copy per event of a field
//! that persists across events, never a copy of every member per member.

use std::sync::Mutex;

use a2a_typestate::Deployment;
use a2a_typestate_client::sse::{SseLimits, SseStream};
use a2a_typestate_client::{
    AgentBaseUrl, AgentConnection, CallOptions, Client, DiscoveredCard, WellKnownPath,
};
use futures::StreamExt;

/// The system allocator, counting the bytes live and the peak since the last reset.
#[global_allocator]
static ALLOCATOR: peak_alloc::PeakAlloc = peak_alloc::PeakAlloc;

/// One measurement at a time: the counters are the whole process's.
static MEASURING: Mutex<()> = Mutex::new(());

/// The peak bytes allocated while `work` ran, above what was live when it started.
fn peak_of<T>(work: impl FnOnce() -> T) -> (usize, T) {
    let start = ALLOCATOR.current_usage();
    ALLOCATOR.reset_peak_usage();
    let out = work();
    (ALLOCATOR.peak_usage().saturating_sub(start), out)
}

/// Asserts the cost grew at most linearly: doubling the input at most (a little over) doubles the
/// peak, and the peak stays within a small multiple of the input.
fn assert_linear(
    kind: &str,
    (small_input, small_peak): (usize, usize),
    (large_input, large_peak): (usize, usize),
) {
    eprintln!("{kind}: {small_input} bytes sent -> {small_peak} peak; {large_input} -> {large_peak}");
    let growth = large_peak as f64 / small_peak.max(1) as f64;
    let input_growth = large_input as f64 / small_input as f64;
    assert!(
        growth <= input_growth * 1.5,
        "{kind}: input x{input_growth:.1} cost x{growth:.1} ({small_peak} -> {large_peak} bytes)"
    );
    assert!(large_peak <= 8 * large_input + (4 << 20), "{kind}: {large_peak} bytes for {large_input} sent");
}

/// An event stream: one `id:` line of `id_bytes`, then `events` small events, as one agent's stream.
fn long_id_stream(id_bytes: usize, events: usize) -> Vec<u8> {
    let mut stream = format!("id: {}\n", "i".repeat(id_bytes)).into_bytes();
    for index in 0..events {
        stream.extend_from_slice(format!("data: {{\"n\":{index}}}\n\n").as_bytes());
    }
    stream
}

#[test]
fn an_sse_field_costs_once_not_once_per_event() {
    let _one = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let run = |id_bytes: usize, events: usize| {
        let stream = long_id_stream(id_bytes, events);
        let sent = stream.len();
        let chunks: Vec<Result<bytes::Bytes, std::io::Error>> =
            stream.chunks(16 * 1024).map(|c| Ok(bytes::Bytes::copy_from_slice(c))).collect();
        drop(stream);
        let (peak, held) = peak_of(|| {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
            runtime.block_on(async {
                let parsed = SseStream::new(futures::stream::iter(chunks), SseLimits::default());
                // Every event kept, as a queue of events not yet taken holds them.
                parsed.collect::<Vec<_>>().await
            })
        });
        assert_eq!(held.len(), events);
        (sent, peak)
    };
    let small = run(256 * 1024, 500);
    let large = run(512 * 1024, 1_000);
    assert_linear("sse id", small, large);
}

/// A card with `count` members of one kind, each about 100 bytes.
fn card_with(kind: &str, count: usize) -> String {
    let members: Vec<String> = (0..count)
        .map(|i| match kind {
            "extensions" => format!(r#"{{"uri":"https://example.com/ext/{i:06}/{}","required":false}}"#, "x".repeat(60)),
            "interfaces" => format!(
                r#"{{"url":"http://127.0.0.1:9/a2a/{i:06}/{}","protocolBinding":"JSONRPC","protocolVersion":"1.0"}}"#,
                "x".repeat(40)
            ),
            "skills" => format!(
                r#"{{"id":"s{i}","name":"skill {i}","description":"{}","tags":["t"],"inputModes":["text"],"outputModes":["text/plain"]}}"#,
                "x".repeat(40)
            ),
            "schemes" => format!(r#""scheme{i:06}":{{"apiKeySecurityScheme":{{"location":"header","name":"X-Key-{}"}}}}"#, "x".repeat(40)),
            "signatures" => format!(r#"{{"protected":"{}","signature":"{}"}}"#, "e".repeat(60), "s".repeat(40)),
            _ => unreachable!(),
        })
        .collect();
    let list = members.join(",");
    let (extensions, interfaces, skills, schemes, signatures) = match kind {
        "extensions" => (list.as_str(), "", "", "", ""),
        "interfaces" => ("", list.as_str(), "", "", ""),
        "skills" => ("", "", list.as_str(), "", ""),
        "schemes" => ("", "", "", list.as_str(), ""),
        _ => ("", "", "", "", list.as_str()),
    };
    let first = r#"{"url":"http://127.0.0.1:9/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}"#;
    let interfaces = if interfaces.is_empty() { first.to_owned() } else { format!("{first},{interfaces}") };
    format!(
        r#"{{"name":"a","description":"d","version":"1","capabilities":{{"streaming":true,"extensions":[{extensions}]}},
            "defaultInputModes":["text"],"defaultOutputModes":["text/plain"],"skills":[{skills}],
            "securitySchemes":{{{schemes}}},"signatures":[{signatures}],
            "supportedInterfaces":[{interfaces}]}}"#
    )
}

/// Everything the client does with a card before and around a task, short of the network: read
/// it, lift its claims, list its interfaces and deviations, open a connection, ask for every
/// extension it declares, and judge the extension claims.
fn read_and_use(card: &str) -> usize {
    let client = Client::builder().build().unwrap();
    let discovered = DiscoveredCard::from_bytes(
        card.to_owned().into(),
        "http://127.0.0.1:9/.well-known/agent-card.json",
        WellKnownPath::AgentCard,
    )
    .unwrap();
    let claims = discovered.claims(Deployment::Direct);
    let deviations = discovered.deviations();
    let interface = discovered.offered_interfaces().unwrap()[0].clone();
    let agent = AgentBaseUrl::parse("http://127.0.0.1:9").unwrap();
    let connection = AgentConnection::open(&client, agent, discovered.clone(), interface).unwrap();
    let declared = discovered.card().capabilities.extensions.iter().map(|e| e.uri.clone());
    // Over the header bound, asking for all is an error naming it; the verdicts are judged either way.
    let asking = connection.with_options(CallOptions::new().extensions(declared)).unwrap_or(connection);
    let verdicts = asking.extension_verdicts();
    claims.card_claims().len() + deviations.len() + verdicts.len()
}

#[test]
fn a_cards_members_cost_linearly_in_their_number() {
    let _one = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let _entered = runtime.enter();
    for kind in ["extensions", "interfaces", "skills", "schemes", "signatures"] {
        let measure = |count: usize| {
            let card = card_with(kind, count);
            let (peak, used) = peak_of(|| read_and_use(&card));
            assert!(used > 0, "{kind}");
            (card.len(), peak)
        };
        let small = measure(1_000);
        let large = measure(2_000);
        assert_linear(kind, small, large);
    }
}

#[test]
fn a_card_declaring_ten_thousand_interfaces_costs_linearly_to_read_and_use() {
    let _one = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let _entered = runtime.enter();
    let measure = |count: usize| {
        let card = card_with("interfaces", count);
        let started = std::time::Instant::now();
        let (peak, used) = peak_of(|| read_and_use(&card));
        eprintln!("{count} interfaces: {} bytes read and used in {:?}", card.len(), started.elapsed());
        assert!(used > 0);
        (card.len(), peak)
    };
    let (small, large) = (measure(10_000), measure(20_000));
    eprintln!("interfaces: {} bytes sent -> {} peak; {} -> {}", small.0, small.1, large.0, large.1);
    let growth = large.1 as f64 / small.1 as f64;
    assert!(growth <= 2.0 * 1.5, "twice the interfaces cost x{growth:.1}");
    // Each interface is held several times over (the typed card, the offered list, the lifted
    // claims): about ten bytes per byte read, measured 10.0 at both sizes. Linear, and bounded here.
    assert!(large.1 <= 12 * large.0, "{} bytes for {} sent", large.1, large.0);
}
