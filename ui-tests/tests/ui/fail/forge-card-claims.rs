// Claims come only from a card: `CardClaims` has no constructor but `CardClaims::lift(&card, ..)`.
use a2a_typestate::{CapabilitySet, CardClaims};

fn main() {
    let _forged = CardClaims { declared: CapabilitySet::ALL, gateway: false }; //~ ERROR private fields
}
