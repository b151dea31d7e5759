// Reconstructing missed states from `GetTask` history needs a stateTransitionHistory claim.
use a2a_typestate::{Claims, NoHistory, NoPush, Streaming, Handle};

fn main() {
    let task: Handle<Claims<Streaming, NoHistory, NoPush>> =
        Handle::try_from(ui_tests::dyn_task(r#"{"streaming":true}"#)).unwrap();
    let _permit = task.history_permit(); //~ ERROR E0277
}
