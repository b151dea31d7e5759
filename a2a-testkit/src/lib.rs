//! Scripted A2A agents that behave or misbehave on purpose, and a harness for the official SDK servers.
#![deny(missing_docs, missing_debug_implementations)]
#![forbid(unsafe_code)]

pub mod official;
