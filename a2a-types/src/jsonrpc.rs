//! JSON-RPC 2.0 envelopes (being written).
