// Relying on push callbacks alone needs the push claim verified first.
use a2a_typestate_client::{Claims, NoHistory, NoStreaming, Push, Task};

fn rely(task: &Task<Claims<NoStreaming, NoHistory, Push>>) {
    let _reliance = task.handle().rely_on_push(); //~ ERROR E0277
}

fn main() {
    let _ = rely;
}
