// Claims come only from a card: nobody outside the crate can make up a claim marker.
use a2a_typestate::{ClaimStatus, StreamingSlot};

enum MyStreamingClaim {}

impl StreamingSlot for MyStreamingClaim { //~ ERROR E0277
    const STATUS: ClaimStatus = ClaimStatus::Verified;
    type Settled = a2a_typestate::StreamingVerified;
}

fn main() {}
