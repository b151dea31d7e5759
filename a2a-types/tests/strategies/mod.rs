//! Generators of valid documents shared by the property tests: each test file uses some of them.
#![allow(dead_code)]

pub mod card;
pub mod messages;
pub mod v03;
