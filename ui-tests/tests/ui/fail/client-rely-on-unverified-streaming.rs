// Relying on the stream alone needs the claim verified, through the client's calls and a settle.
use a2a_typestate_client::{Claims, Streaming, Task};

fn rely(task: &Task<Claims<Streaming>>) {
    let _reliance = task.handle().rely_on_streaming(); //~ ERROR E0277
}

fn main() {
    let _ = rely;
}
