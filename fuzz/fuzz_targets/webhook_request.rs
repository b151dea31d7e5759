//! The push receiver's request handling: arbitrary headers and body against one registration. Never
//! a panic; a request without the issued credentials is never accepted, whatever its body.
#![no_main]

use a2a_typestate_client::webhook::fuzzing::{Outcome, handle};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Layout: one byte of flags, then header bytes and body separated by the first 0xFF.
    let Some((&flags, rest)) = data.split_first() else { return };
    let (headers, body) = match rest.iter().position(|b| *b == 0xFF) {
        Some(at) => (&rest[..at], &rest[at + 1..]),
        None => (rest, &[][..]),
    };
    let outcome = handle(flags, headers, body);
    if !outcome.credentialed {
        assert_ne!(outcome.status, 200, "accepted without credentials");
        assert!(!outcome.body_read, "the body was read before the credentials were checked");
    }
    let _: Outcome = outcome;
});
