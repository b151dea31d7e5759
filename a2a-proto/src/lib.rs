//! The A2A 1.0 protobuf messages (package `lf.a2a.v1`) and the gRPC `A2AService`, generated at build
//! time from the normative `a2a.proto` (shipped in this package, under `proto/`), with the proto3
//! JSON mapping (ProtoJSON) as serde impls.
//!
//! The rest of the SDK speaks the `a2a-types` model, whose JSON is ProtoJSON; these types exist only
//! at the gRPC edge, where `a2a-client` (feature `grpc`) and the testkit's scripted agents convert
//! through that JSON form.
//!
//! ```
//! use a2a_proto::v1::{Message, Part, Role, part::Content};
//!
//! let message = Message {
//!     message_id: "m1".into(),
//!     role: Role::User.into(),
//!     parts: vec![Part { content: Some(Content::Text("hi".into())), ..Part::default() }],
//!     ..Message::default()
//! };
//! let json = serde_json::to_value(&message).unwrap();
//! assert_eq!(json["role"], "ROLE_USER");
//! assert_eq!(json["parts"][0]["text"], "hi");
//! ```
// docs.rs (`--cfg docsrs`): label each item that needs a feature with that feature.
#![cfg_attr(docsrs, feature(doc_cfg))]

/// `lf.a2a.v1`: the messages, `a2a_service_client` and (feature `server`) `a2a_service_server`.
#[allow(missing_docs, missing_debug_implementations, clippy::all, rust_2018_idioms)]
pub mod v1 {
    tonic::include_proto!("lf.a2a.v1");
    include!(concat!(env!("OUT_DIR"), "/lf.a2a.v1.serde.rs"));
}

/// The gRPC service's full name, as in each method's path (`/lf.a2a.v1.A2AService/SendMessage`).
pub const SERVICE_NAME: &str = "lf.a2a.v1.A2AService";
