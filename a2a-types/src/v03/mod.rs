//! The A2A 0.3 wire shapes and their conversion to and from 1.0 (being written).
