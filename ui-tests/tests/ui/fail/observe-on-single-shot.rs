// The fallback handle tracks no lifecycle: feeding it an observation names why.
use std::time::Duration;

use a2a_typestate::{Observed, SingleShot, Handle};

fn main() {
    let mut task: Handle<SingleShot> = Handle::try_from(ui_tests::dyn_task(r#"{"streaming":true}"#)).unwrap();
    let _ = task.observe(Duration::ZERO, Observed::StreamClosed); //~ ERROR E0277
}
