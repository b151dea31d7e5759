//! Answers about another task ([`Misaddress`]): the task and context ids an answer carries,
//! wherever they appear in it, swapped for other ones.

use serde_json::Value;

use super::{Op, Outcome};
use crate::script::{Misaddress, Script};

/// `outcome` of `op` (asked with `params`) as the script misaddresses it: a `GetTask`/`CancelTask`
/// answer or a follow-up's `SendMessage` answer about another task, or a stream whose events after
/// the first are.
pub(crate) fn outcome(script: &Script, op: Op, params: &Value, outcome: Outcome) -> Outcome {
    let follow_up =
        params.pointer("/message/taskId").and_then(Value::as_str).is_some_and(|id| !id.is_empty());
    let misaddressed = match op {
        Op::GetTask | Op::CancelTask => script.misaddresses(Misaddress::TaskAnswers),
        Op::SendMessage => follow_up && script.misaddresses(Misaddress::FollowUpAnswers),
        _ => false,
    };
    match outcome {
        Outcome::Json(answer) if misaddressed => Outcome::Json(about_another_task(&answer)),
        Outcome::Stream(mut plan) => {
            plan.misaddress_after_first = script.misaddresses(Misaddress::StreamEventsAfterFirst);
            Outcome::Stream(plan)
        }
        other => other,
    }
}

/// `body` (a task, a wrapped 1.0 stream item or a `kind`-tagged 0.3 one) naming another task and
/// context: every string equal to its task id or context id is replaced.
pub(crate) fn about_another_task(body: &Value) -> Value {
    let inner = ["task", "statusUpdate", "artifactUpdate"]
        .iter()
        .find_map(|key| body.get(key).filter(|v| v.is_object()))
        .unwrap_or(body);
    let id =
        |field: &str| inner.get(field).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned);
    let task = id("taskId").or_else(|| id("id"));
    let context = id("contextId");
    let mut body = body.clone();
    for real in [task, context].into_iter().flatten() {
        replace(&mut body, &real, &Misaddress::other_id(&real));
    }
    body
}

fn replace(value: &mut Value, real: &str, other: &str) {
    match value {
        Value::String(s) if s == real => *s = other.to_owned(),
        Value::Array(items) => items.iter_mut().for_each(|v| replace(v, real, other)),
        Value::Object(map) => map.values_mut().for_each(|v| replace(v, real, other)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_status_update_names_the_other_task_and_context_everywhere() {
        let update = json!({"statusUpdate": {"taskId": "t1", "contextId": "c1",
            "status": {"state": "TASK_STATE_WORKING", "message": {"taskId": "t1", "contextId": "c1"}}}});
        let other = about_another_task(&update);
        assert_eq!(other["statusUpdate"]["taskId"], "elsewhere-t1");
        assert_eq!(other["statusUpdate"]["contextId"], "elsewhere-c1");
        assert_eq!(other["statusUpdate"]["status"]["message"]["taskId"], "elsewhere-t1");
        assert_eq!(other["statusUpdate"]["status"]["state"], "TASK_STATE_WORKING");
    }
}
