// Each slot of `Claims<S, H, P>` takes only its own capability's markers.
use a2a_typestate::{Claims, HistoryClaimed, Task};

fn orchestrate(_task: Task<Claims<HistoryClaimed>>) {} //~ ERROR E0277

fn main() {}
