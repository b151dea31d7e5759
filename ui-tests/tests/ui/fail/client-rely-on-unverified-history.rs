// Relying on the agent's history alone needs the history claim verified first.
use a2a_typestate_client::{Claims, History, NoStreaming, Task};

fn rely(task: &Task<Claims<NoStreaming, History>>) {
    let _reliance = task.handle().rely_on_history(); //~ ERROR E0277
}

fn main() {
    let _ = rely;
}
