// After a refusal the handle is `Handle<SingleShot>`: it offers only the single-shot send.
use a2a_typestate::{SingleShot, Handle};

fn main() {
    let task: Handle<SingleShot> = Handle::try_from(ui_tests::dyn_task(r#"{"streaming":true}"#)).unwrap();
    let _permit = task.stream_permit(); //~ ERROR E0277
}
