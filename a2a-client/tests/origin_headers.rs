//! A header given for one origin (`ClientBuilder::origin_header`) is sent on every request to that
//! origin, card discovery included, over every binding, and on no request to any other origin: a
//! card cannot take it to an interface elsewhere.

mod transport_common;

use a2a_testkit::{Binding, ScriptedAgent};
use a2a_typestate_client::Client;
use a2a_typestate_types::discovery::{ProtocolBinding, ProtocolVersion};
use transport_common::{connect_over, text};

const HEADER: &str = "x-origin-secret";

#[tokio::test]
async fn an_origin_header_reaches_its_origin_on_every_binding_and_no_other_origin() {
    let agent = ScriptedAgent::builder().bindings(Binding::ALL).spawn().await.unwrap();
    let other = ScriptedAgent::builder().bindings(Binding::ALL).spawn().await.unwrap();
    let client = Client::builder().origin_header(agent.base_url(), HEADER, "for-the-agent").build().unwrap();
    for binding in [ProtocolBinding::JsonRpc, ProtocolBinding::HttpJson, ProtocolBinding::Grpc] {
        for target in [&agent, &other] {
            let connection = connect_over(&client, target, ProtocolVersion::V1_0, binding.clone()).await;
            connection.send_message(text("hello")).await.unwrap();
        }
    }
    let requests = agent.requests();
    assert!(requests.iter().any(|r| r.path.ends_with("agent-card.json")), "discovery was recorded");
    for request in &requests {
        assert_eq!(request.header(HEADER), Some("for-the-agent"), "{} {}", request.http_method, request.path);
    }
    assert_eq!(agent.requests_for("SendMessage").len(), 3, "one send per binding");
    assert!(other.requests().iter().all(|r| r.header(HEADER).is_none()), "{:?}", other.requests());
}

#[test]
fn an_origin_that_is_not_an_http_url_is_a_configuration_error_naming_the_header() {
    for origin in ["agent.example", "file:///etc/passwd", "ftp://agent.example", ""] {
        let error = Client::builder().origin_header(origin, "X-Tenant", "acme").build().unwrap_err();
        assert_eq!(error.kind(), a2a_typestate_client::ErrorKind::Config, "{origin}");
        assert!(error.to_string().contains("X-Tenant"), "{error}");
        assert!(!error.to_string().contains("acme"), "the value is never shown: {error}");
    }
}
