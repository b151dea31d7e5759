// A verified handle comes only out of a verification step; it cannot be built by hand.
#![allow(unreachable_code)]
use std::marker::PhantomData;

use a2a_typestate::{Claims, StreamingVerified, Handle};

fn main() {
    let _forged = Handle::<Claims<StreamingVerified>> { state: unreachable!(), _claims: PhantomData }; //~ ERROR E0451
}
