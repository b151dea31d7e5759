// The fallback handle holds no claim: there is nothing to settle on it.
use a2a_typestate_client::{SingleShot, Task};

fn settle(task: Task<SingleShot>) {
    let _settled = task.settle_streaming(); //~ ERROR E0277
}

fn main() {
    let _ = settle;
}
