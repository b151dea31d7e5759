// A handle whose card claims streaming only has no history claim to settle.
use a2a_typestate_client::{Claims, Streaming, Task};

fn settle(task: Task<Claims<Streaming>>) {
    let _settled = task.settle_history(); //~ ERROR E0277
}

fn main() {
    let _ = settle;
}
