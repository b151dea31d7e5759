// Each slot of `Claims<S, H, P>` takes only its own capability's markers.
use a2a_typestate::{Claims, History, Handle};

fn orchestrate(_task: Handle<Claims<History>>) {} //~ ERROR E0277

fn main() {}
