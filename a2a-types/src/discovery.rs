//! Which protocol versions and bindings an agent offers (being written).
