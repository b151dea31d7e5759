//! The demo fleet: thirteen agents, five over-declaring (three a lifecycle claim, two another card
//! claim), one under-declaring, each as labelled.

mod common;

use std::collections::HashSet;

use a2a_testkit::fleet::{Claim, Honesty, demo_fleet};
use common::*;
use serde_json::{Value, json};

#[tokio::test]
async fn demo_fleet_has_thirteen_agents_five_over_declaring_and_one_under_declaring() {
    let fleet = demo_fleet().await.unwrap();
    assert_eq!(fleet.members.len(), 13);
    let over: HashSet<Honesty> = fleet.over_declaring().map(|m| m.honesty).collect();
    assert_eq!(
        over,
        HashSet::from([
            Honesty::OverDeclares(Claim::Streaming),
            Honesty::OverDeclares(Claim::StateTransitionHistory),
            Honesty::OverDeclares(Claim::PushNotifications),
            Honesty::OverDeclares(Claim::ExtendedAgentCard),
            Honesty::OverDeclares(Claim::Interface),
        ])
    );
    let lifecycle =
        fleet.over_declaring().filter(|m| matches!(m.honesty, Honesty::OverDeclares(c) if c.is_lifecycle()));
    assert_eq!(lifecycle.count(), 3);
    let under = fleet.members.iter().filter(|m| matches!(m.honesty, Honesty::UnderDeclares(_))).count();
    assert_eq!(under, 1);
    let names: HashSet<&str> = fleet.members.iter().map(|m| m.agent.name()).collect();
    assert_eq!(names.len(), 13, "names are unique");
    for member in &fleet.members {
        let response = http().get(member.agent.card_url()).send().await.unwrap();
        assert_eq!(response.status(), 200, "{} serves its card", member.agent.name());
    }
    fleet.shutdown().await;
}

#[tokio::test]
async fn fleet_labels_match_behaviour_on_the_wire() {
    let fleet = demo_fleet().await.unwrap();
    let refuser = &fleet.member("streaming-refuser").unwrap().agent;
    assert_eq!(refuser.card()["capabilities"]["streaming"], true);
    let refused = rpc(refuser, "SendStreamingMessage", json!({ "message": user_message("x") })).await;
    assert_eq!(refused["error"]["code"], -32004);

    let forgetter = &fleet.member("history-forgetter").unwrap().agent;
    let sent = rpc(forgetter, "SendMessage", json!({ "message": user_message("x") })).await;
    assert!(sent["result"]["task"].get("history").is_none());

    let quiet = &fleet.member("quiet-streamer").unwrap().agent;
    assert_eq!(quiet.card()["capabilities"]["streaming"], false);
    let response =
        rpc_raw(quiet, "SendStreamingMessage", json!({ "message": user_message("x") }), Some("1.0")).await;
    assert_eq!(read_sse(response).await.events.len(), 4);

    let legacy = &fleet.member("honest-legacy").unwrap().agent;
    let card: Value = http().get(legacy.card_url()).send().await.unwrap().json().await.unwrap();
    assert_eq!(card["protocolVersion"], "0.3.0");

    let extended = &fleet.member("extended-card-liar").unwrap().agent;
    assert_eq!(extended.card()["capabilities"]["extendedAgentCard"], true);
    let asked = http()
        .post(extended.jsonrpc_url())
        .bearer_auth(a2a_testkit::fleet::EXTENDED_CARD_LIAR_TOKEN)
        .header("A2A-Version", "1.0")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "GetExtendedAgentCard", "params": {}}))
        .send()
        .await
        .unwrap();
    let asked: Value = asked.json().await.unwrap();
    assert_eq!(asked["error"]["code"], -32004, "{asked}");

    let retired = &fleet.member("retired-interface").unwrap().agent;
    let first = retired.card()["supportedInterfaces"][0]["url"].as_str().unwrap().to_owned();
    assert!(first.ends_with(a2a_testkit::RETIRED_INTERFACE_PATH), "{first}");
    let gone = http().post(first).json(&json!({})).send().await.unwrap();
    assert_eq!(gone.status(), 404);
}
