//! Audit the design note's fleet of thirteen embedded agents twice: the first batch negotiates with
//! every agent and catches the three that over-declare a lifecycle claim, and the retired interface
//! (the task goes to the next declared one); the second batch sends the suspects single-shot at
//! once, so no round trip is wasted on them, and skips the marked interface. The client holds the
//! token of the one card that asks for a bearer, so the extended-card liar is asked for its
//! extended card, refused, and used through its public card.
//!
//! Run with `cargo run -p a2a-typestate-client --example audit_fleet`.

use a2a_testkit::fleet::{EXTENDED_CARD_LIAR_TOKEN, Honesty, demo_fleet};
use a2a_typestate_client::auth::{BearerToken, Credentials, Secret};
use a2a_typestate_client::negotiate::{FollowUp, Negotiation, TaskOutcome, TaskPath};
use a2a_typestate_client::{Capability, Client, Error, Message, Report};

#[tokio::main]
async fn main() -> Result<(), Report> {
    let fleet = demo_fleet().await?;
    let bearer = BearerToken::new(Secret::new(EXTENDED_CARD_LIAR_TOKEN.to_owned()));
    let client = Client::builder()
        .credentials(Credentials::new().with(bearer))
        .push_arrival_bound(std::time::Duration::from_secs(1))
        .build()?;
    // An orchestrator whose path depends on every claim a card can make.
    let negotiation = Negotiation::depending_on(&Capability::ALL).follow_up(FollowUp::reply("more detail"));

    let mut wasted = Vec::new();
    for batch in 1..=2 {
        println!("batch {batch}");
        let before = client.metrics().snapshot();
        let mut wasted_here = 0;
        for member in &fleet.members {
            let message = Message::user("summarise the report");
            let trips_before = client.metrics().snapshot().negotiation_round_trips;
            let result = client.run_task(&member.agent.base_url(), message, &negotiation).await;
            let trips = client.metrics().snapshot().negotiation_round_trips - trips_before;
            let (verdict, refused) = describe(&result);
            if refused {
                wasted_here += trips;
            }
            let truth = match member.honesty {
                Honesty::Honest => "honest".to_owned(),
                other => format!("{other:?}"),
            };
            println!("  {:<18} {:<38} {verdict}", member.agent.name(), truth);
        }
        let after = client.metrics().snapshot();
        let spent = after.negotiation_round_trips - before.negotiation_round_trips;
        println!("  negotiation round trips: {spent}, wasted on refused paths: {wasted_here}");
        wasted.push(wasted_here);
    }
    if let [first, second] = wasted[..] {
        println!("the suspect cache saved {} wasted round trips in the second batch", first - second);
    }
    let metrics = client.metrics().snapshot();
    println!("refusals by capability: {:?}", metrics.refusals);
    println!("refused tasks whose result was kept (they had ended): {}", metrics.refused_results_kept);
    println!("single-shot fallbacks after a refusal: {}", metrics.fallbacks);
    println!("discoveries that went on to the legacy agent.json path: {}", metrics.legacy_card_fetches);
    println!("retries: {}", metrics.retries);
    fleet.shutdown().await;
    Ok(())
}

/// A one-line verdict, and whether the negotiated path ended in a refusal (its round trips were
/// wasted: the error of an abandoned task carries none, so they are read from the counters).
fn describe(result: &Result<TaskOutcome, Error>) -> (String, bool) {
    match result {
        Ok(outcome) => match &outcome.path {
            TaskPath::Negotiated => {
                let card: Vec<String> =
                    outcome.card_claims.iter().filter_map(|v| v.violation()).map(|v| v.to_string()).collect();
                if card.is_empty() {
                    (format!("verified {:?}", outcome.verified), false)
                } else {
                    (
                        format!("verified {:?}; card claims refused {card:?}, fell back", outcome.verified),
                        false,
                    )
                }
            }
            TaskPath::KeptAfterRefusal => {
                let refused: Vec<String> = outcome.refusals().map(|v| v.capability().to_string()).collect();
                (format!("refused {refused:?} after the task ended, its result kept"), true)
            }
            TaskPath::Fallback => {
                let refused: Vec<String> = outcome.refusals().map(|v| v.capability().to_string()).collect();
                (format!("refused {refused:?}, fell back"), true)
            }
            TaskPath::SingleShotBecauseSuspect(mark) => {
                (format!("suspect ({}), single-shot at once", mark.claim()), false)
            }
            other => (format!("{other:?}"), false),
        },
        Err(error) => match error.lifecycle_violation() {
            Some(violation) => (format!("refused [\"{}\"], abandoned", violation.capability()), true),
            None => (format!("error: {error}"), false),
        },
    }
}
