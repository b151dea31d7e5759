//! What counts as progress for the unobservable bound: something the task has not shown since the
//! client last acted. Flipping between states already reported is not.

mod support;

use a2a_typestate::{Channel, LifecycleFault, Observed};
use a2a_typestate_types::MessageId;
use a2a_typestate_types::TaskState::{self, *};
use support::*;

fn asked(state: TaskState, question: &str) -> Observed {
    Observed::Status {
        task_id: task_id(),
        context_id: Some(context_id()),
        state,
        message: Some(MessageId::new(question)),
        via: Channel::Stream,
        artifacts: None,
    }
}

#[test]
fn alternating_working_and_submitted_is_no_progress() {
    let mut verifier = verifier(ALL_CLAIMS);
    feed(&mut verifier, [sent_text(), status(Submitted, Channel::Stream), status(Working, Channel::Stream)]);
    // One flip a second, for a minute: each differs from the one before, none is new.
    for second in 1..=60 {
        let state = if second % 2 == 0 { Working } else { Submitted };
        verifier.observe(secs(second), status(state, Channel::Stream));
    }
    assert_eq!(
        verifier.lifecycle_deadline(),
        Some(ms(2) + secs(30)),
        "the bound runs from WORKING's first report"
    );
    let fault = verifier.lifecycle_fault(secs(60)).expect("flips past the bound are a lifecycle fault");
    assert!(
        matches!(fault, LifecycleFault::NoProgress { since, state: Some(Working), .. } if since == ms(2)),
        "{fault:?}"
    );
}

#[test]
fn alternating_polled_snapshots_are_no_progress() {
    let mut verifier = verifier(r#"{}"#);
    feed(&mut verifier, [sent_text(), snapshot(Working, Channel::SendResponse, 0)]);
    for poll in 1..=40 {
        let state = if poll % 2 == 0 { Working } else { Submitted };
        verifier.observe(secs(poll), snapshot(state, Channel::GetTask, 0));
    }
    // The first polled SUBMITTED (at 1 s) was new; nothing after it was.
    let fault = verifier.lifecycle_fault(secs(32)).expect("polled flips past the bound");
    assert!(matches!(fault, LifecycleFault::NoProgress { since, .. } if since == secs(1)), "{fault:?}");
}

#[test]
fn a_new_question_between_flips_is_progress() {
    let mut verifier = verifier(ALL_CLAIMS);
    feed(&mut verifier, [sent_text(), status(Working, Channel::Stream)]);
    verifier.observe(secs(20), asked(InputRequired, "q1"));
    verifier.observe(secs(21), follow_up());
    verifier.observe(secs(22), status(Working, Channel::Stream));
    verifier.observe(secs(45), asked(InputRequired, "q2"));
    assert_eq!(verifier.lifecycle_fault(secs(70)), None, "a new question restarts the bound");
    // Unanswered, the agent flips back and forth between what it already showed.
    verifier.observe(secs(50), status(Working, Channel::Stream));
    verifier.observe(secs(60), asked(InputRequired, "q2"));
    verifier.observe(secs(70), status(Working, Channel::Stream));
    assert_eq!(verifier.lifecycle_fault(secs(75)), None, "within the bound of the new question");
    let fault =
        verifier.lifecycle_fault(secs(76)).expect("the same question and WORKING again are nothing new");
    assert!(matches!(fault, LifecycleFault::NoProgress { since, .. } if since == secs(45)), "{fault:?}");
}

#[test]
fn a_new_artifact_between_flips_is_progress_and_the_flips_after_it_are_not() {
    let mut verifier = verifier(ALL_CLAIMS);
    feed(&mut verifier, [sent_text(), status(Submitted, Channel::Stream), status(Working, Channel::Stream)]);
    verifier.observe(secs(25), Observed::Artifact { via: Channel::Stream });
    verifier.observe(secs(30), status(Submitted, Channel::Stream));
    verifier.observe(secs(40), status(Working, Channel::Stream));
    assert_eq!(verifier.lifecycle_fault(secs(55)), None, "within the bound of the artifact");
    let fault = verifier.lifecycle_fault(secs(56)).expect("no progress since the artifact");
    assert!(matches!(fault, LifecycleFault::NoProgress { since, .. } if since == secs(25)), "{fault:?}");
}

#[test]
fn a_growing_artifact_count_in_polled_snapshots_is_progress() {
    let mut verifier = verifier(r#"{}"#);
    feed(&mut verifier, [sent_text(), snapshot(Working, Channel::SendResponse, 0)]);
    for poll in 1..=10 {
        let state = if poll % 2 == 0 { Working } else { Submitted };
        verifier.observe(secs(20 * poll), snapshot(state, Channel::GetTask, poll as usize));
    }
    assert_eq!(verifier.lifecycle_fault(secs(220)), None, "each snapshot carried a new artifact");
}

#[test]
fn the_clients_follow_up_makes_an_earlier_state_new_again() {
    let mut verifier = verifier(ALL_CLAIMS);
    feed(&mut verifier, [sent_text(), status(Working, Channel::Stream), asked(InputRequired, "q1")]);
    verifier.observe(secs(10), follow_up());
    verifier.observe(secs(35), status(Working, Channel::Stream));
    assert_eq!(verifier.lifecycle_fault(secs(64)), None, "WORKING after the answer is the answer's effect");
    assert!(verifier.lifecycle_fault(secs(66)).is_some(), "and nothing after it");
}
