//! An interface's `tenant` travels as v1.0.1 §8.3.2 rule 4 says: in `params.tenant` over JSON-RPC,
//! as the first path segment over HTTP+JSON, on every operation, the extended card included.

use std::time::Duration;

use a2a_testkit::{Capabilities, Guard, RunningAgent, ScriptedAgent};
use a2a_typestate_client::auth::{BearerToken, Credentials, Secret};
use a2a_typestate_client::{AgentBaseUrl, AgentConnection, Client};
use a2a_typestate_types::discovery::{ProtocolBinding, ProtocolVersion, offered_interfaces};
use a2a_typestate_types::{GetTaskRequest, Message, SendMessageRequest, SendMessageResponse};

async fn tenanted() -> RunningAgent {
    ScriptedAgent::builder()
        .tenant("acme")
        .guard(Guard::bearer("tok-tenant"))
        .extended_card(Capabilities::none().with_streaming())
        .spawn()
        .await
        .unwrap()
}

fn client() -> Client {
    Client::builder()
        .request_timeout(Duration::from_secs(20))
        .credentials(Credentials::new().with(BearerToken::new(Secret::new("tok-tenant"))))
        .build()
        .unwrap()
}

async fn connection(client: &Client, agent: &RunningAgent, binding: ProtocolBinding) -> AgentConnection {
    let base = AgentBaseUrl::parse(&agent.base_url()).unwrap();
    let card = client.discover_agent(&base).await.unwrap();
    let interface = offered_interfaces(&card.json())
        .unwrap()
        .into_iter()
        .find(|i| i.protocol_version == ProtocolVersion::V1_0 && i.binding == binding)
        .unwrap();
    assert_eq!(interface.tenant.as_deref(), Some("acme"));
    AgentConnection::open(client, base, card, interface).unwrap().with_extended_card().await
}

async fn send_and_get(connection: &AgentConnection) {
    let request = SendMessageRequest::new(Message::user("hi"));
    let SendMessageResponse::Task(task) = connection.send_message(request).await.unwrap() else {
        panic!("expected a task")
    };
    connection.get_task(GetTaskRequest::new(task.id)).await.unwrap();
}

#[tokio::test]
async fn json_rpc_requests_carry_the_interfaces_tenant_in_their_params() {
    let agent = tenanted().await;
    let connection = connection(&client(), &agent, ProtocolBinding::JsonRpc).await;
    assert!(connection.uses_extended_card(), "{:?}", connection.extended_card_error());
    send_and_get(&connection).await;
    for operation in ["GetExtendedAgentCard", "SendMessage", "GetTask"] {
        let sent = &agent.requests_for(operation)[0];
        assert_eq!(sent.body.as_ref().unwrap()["params"]["tenant"], "acme", "{operation}");
    }
}

#[tokio::test]
async fn http_json_paths_start_with_the_tenant_and_bodies_leave_it_out() {
    let agent = tenanted().await;
    let connection = connection(&client(), &agent, ProtocolBinding::HttpJson).await;
    assert!(connection.uses_extended_card(), "{:?}", connection.extended_card_error());
    send_and_get(&connection).await;
    let paths: Vec<String> =
        agent.requests().iter().filter(|r| r.operation.is_some()).map(|r| r.path.clone()).collect();
    assert_eq!(paths[0], "/a2a/rest/acme/extendedAgentCard");
    assert_eq!(paths[1], "/a2a/rest/acme/message:send");
    assert!(paths[2].starts_with("/a2a/rest/acme/tasks/"), "{paths:?}");
    let send = &agent.requests_for("SendMessage")[0];
    assert!(send.body.as_ref().unwrap().get("tenant").is_none(), "the tenant is in the path, not the body");
}
