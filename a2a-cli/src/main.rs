//! The `a2a` binary.

fn main() {}
