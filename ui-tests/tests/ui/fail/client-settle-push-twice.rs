// A verified push claim is settled already; settling it again is a mistake the compiler names.
use a2a_typestate_client::{Claims, NoHistory, NoStreaming, PushVerified, Task};

fn settle(task: Task<Claims<NoStreaming, NoHistory, PushVerified>>) {
    let _settled = task.settle_push(); //~ ERROR E0277
}

fn main() {
    let _ = settle;
}
