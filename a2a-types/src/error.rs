//! The A2A error model (being written).
