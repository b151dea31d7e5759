//! A gRPC `Status` as an [`Error`]: an A2A error when its details hold a `google.rpc.ErrorInfo`
//! (read through the one table, `a2a_typestate_types::error::A2aErrorCode`, by its reason, as the HTTP+JSON
//! binding does) or when it is an `INVALID_ARGUMENT` without one (the agent's invalid params), a
//! credentials problem for `UNAUTHENTICATED` / `PERMISSION_DENIED`, a transport
//! fault when the status stands for a broken connection or a deadline, and otherwise the status as
//! its HTTP equivalent (`Error::status`), as an HTTP+JSON error without a `google.rpc.Status` body is.

use std::error::Error as _;

use a2a_typestate_types::error::A2A_ERROR_DOMAIN;
use a2a_typestate_types::parse::{ParseError, ParseErrorKind};
use tonic::Code;
use tonic_types::StatusExt as _;

use crate::auth::AuthLayer;
use crate::{Error, ProtocolError, TransportFault};

/// The error for `status`, answered at `url`; `auth` words a 401/403 (what was sent, what the card
/// asks) when the call's auth layer is at hand.
pub(crate) fn to_error(auth: Option<&AuthLayer>, status: tonic::Status, url: &str) -> Error {
    if let Some(error) = a2a_error(&status) {
        return super::super::protocol(error, url);
    }
    let code = status.code();
    if matches!(code, Code::Unauthenticated | Code::PermissionDenied) {
        let http = if code == Code::Unauthenticated { 401 } else { 403 };
        return match auth {
            Some(auth) => auth.rejected(http, url),
            None => {
                Error::auth(Some(http), format!("the agent answered grpc {}", code_name(code))).with_url(url)
            }
        };
    }
    if let Some(fault) = transport_fault(&status) {
        let message = status.message().to_owned();
        return Error::transport(fault, Some(message.into())).with_url(url);
    }
    if matches!(code, Code::OutOfRange | Code::ResourceExhausted) && status.message().contains("too large") {
        let parse = ParseError::new(ParseErrorKind::TooLarge, "", status.message().to_owned());
        return Error::bad_input("grpc message", parse).with_url(url);
    }
    Error::from_status(http_equivalent(code), Some(url))
}

/// The A2A error in `status`, when its details carry an `ErrorInfo` (of the A2A domain, or with a
/// reason the table knows), or when the agent answered `INVALID_ARGUMENT` with none: the JSON-RPC
/// standard errors have no reason, and that status is where the spec puts invalid params (read as
/// -32602, as over HTTP+JSON: [`ProtocolError::code`]).
fn a2a_error(status: &tonic::Status) -> Option<ProtocolError> {
    let details = status.get_error_details();
    let Some(info) = details.error_info() else {
        let from_the_agent = status.source().is_none();
        return (from_the_agent && status.code() == Code::InvalidArgument)
            .then(|| ProtocolError::from_grpc(code_name(status.code()), status.message(), None));
    };
    let known = a2a_typestate_types::error::A2aErrorCode::from_reason(&info.reason).is_some();
    if info.domain != A2A_ERROR_DOMAIN && !known {
        return None;
    }
    Some(ProtocolError::from_grpc(code_name(status.code()), status.message(), Some(info.reason.clone())))
}

/// The fault a status stands for when it was made on this side from a broken connection, or is a
/// deadline or an unavailable server.
fn transport_fault(status: &tonic::Status) -> Option<TransportFault> {
    let local = status.source().is_some();
    if local {
        // Find an I/O error in the chain (connection refused, reset...).
        let mut source = status.source();
        while let Some(error) = source {
            if let Some(io) = error.downcast_ref::<std::io::Error>() {
                return Some(match io.kind() {
                    std::io::ErrorKind::ConnectionRefused | std::io::ErrorKind::AddrNotAvailable => {
                        TransportFault::Connect
                    }
                    std::io::ErrorKind::TimedOut => TransportFault::Timeout,
                    _ => TransportFault::Reset,
                });
            }
            source = error.source();
        }
    }
    match status.code() {
        Code::DeadlineExceeded => Some(TransportFault::Timeout),
        Code::Unavailable if local => Some(TransportFault::Connect),
        Code::Unavailable => Some(TransportFault::Unavailable(503)),
        Code::Cancelled | Code::Unknown | Code::Internal if local => Some(TransportFault::Reset),
        // An HTTP/2 reset of the stream by the server reaches tonic as CANCELLED without a body.
        Code::Cancelled => Some(TransportFault::Reset),
        _ => None,
    }
}

/// The `google.rpc.Code` name of `code`, as the spec's table writes it.
pub(crate) fn code_name(code: Code) -> &'static str {
    match code {
        Code::Ok => "OK",
        Code::Cancelled => "CANCELLED",
        Code::Unknown => "UNKNOWN",
        Code::InvalidArgument => "INVALID_ARGUMENT",
        Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
        Code::NotFound => "NOT_FOUND",
        Code::AlreadyExists => "ALREADY_EXISTS",
        Code::PermissionDenied => "PERMISSION_DENIED",
        Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
        Code::FailedPrecondition => "FAILED_PRECONDITION",
        Code::Aborted => "ABORTED",
        Code::OutOfRange => "OUT_OF_RANGE",
        Code::Unimplemented => "UNIMPLEMENTED",
        Code::Internal => "INTERNAL",
        Code::Unavailable => "UNAVAILABLE",
        Code::DataLoss => "DATA_LOSS",
        Code::Unauthenticated => "UNAUTHENTICATED",
    }
}

/// The HTTP status a gRPC code corresponds to (the mapping `google.rpc.Code` documents).
fn http_equivalent(code: Code) -> u16 {
    match code {
        Code::Ok => 200,
        Code::Cancelled => 499,
        Code::InvalidArgument | Code::FailedPrecondition | Code::OutOfRange => 400,
        Code::DeadlineExceeded => 504,
        Code::NotFound => 404,
        Code::AlreadyExists | Code::Aborted => 409,
        Code::PermissionDenied => 403,
        Code::ResourceExhausted => 429,
        Code::Unimplemented => 501,
        Code::Unavailable => 503,
        Code::Unauthenticated => 401,
        Code::Unknown | Code::Internal | Code::DataLoss => 500,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_typestate_types::error::A2aErrorCode;
    use tonic_types::ErrorDetails;

    fn a2a_status(code: Code, reason: &str) -> tonic::Status {
        let details =
            ErrorDetails::with_error_info(reason, A2A_ERROR_DOMAIN, std::collections::HashMap::new());
        tonic::Status::with_error_details(code, "said by the agent", details)
    }

    #[test]
    fn every_a2a_error_is_read_by_its_error_info_reason_with_the_codes_of_the_other_bindings() {
        for code in (1..=9).map(|n| A2aErrorCode::from_code(-32000 - n)) {
            let reason = code.reason().unwrap();
            let grpc = Code::from_i32(code.grpc_code());
            let error = to_error(None, a2a_status(grpc, reason), "http://a/x");
            assert_eq!(error.kind(), crate::ErrorKind::Protocol, "{reason}");
            let protocol = error.protocol_error().unwrap();
            assert_eq!(protocol.a2a_code(), Some(code));
            assert_eq!(protocol.reason(), Some(reason));
            assert_eq!(protocol.rpc_status(), Some(code.grpc_status()));
            assert_eq!(protocol.http_status(), None);
        }
    }

    #[test]
    fn an_error_info_of_another_domain_with_an_unknown_reason_is_not_an_a2a_error() {
        let details = ErrorDetails::with_error_info("QUOTA", "example.com", std::collections::HashMap::new());
        let status = tonic::Status::with_error_details(Code::FailedPrecondition, "no", details);
        let error = to_error(None, status, "http://a/x");
        assert_eq!((error.kind(), error.status()), (crate::ErrorKind::Status, Some(400)));
    }

    #[test]
    fn statuses_without_details_map_as_their_http_equivalents_do() {
        let kind = |code: Code| to_error(None, tonic::Status::new(code, "m"), "http://a/x");
        assert_eq!(kind(Code::Unauthenticated).kind(), crate::ErrorKind::Auth);
        assert_eq!(kind(Code::PermissionDenied).status(), Some(403));
        assert_eq!(kind(Code::DeadlineExceeded).transport_fault(), Some(TransportFault::Timeout));
        assert_eq!(kind(Code::Unavailable).transport_fault(), Some(TransportFault::Unavailable(503)));
        assert!(kind(Code::Unavailable).is_retryable());
        assert_eq!(kind(Code::Cancelled).transport_fault(), Some(TransportFault::Reset));
        assert_eq!(
            (kind(Code::NotFound).kind(), kind(Code::NotFound).status()),
            (crate::ErrorKind::Status, Some(404))
        );
        assert_eq!(kind(Code::Unimplemented).status(), Some(501));
        assert!(!kind(Code::InvalidArgument).is_retryable());
    }

    #[test]
    fn an_invalid_argument_without_error_info_is_the_agents_invalid_params() {
        let error = to_error(None, tonic::Status::invalid_argument("webhook host is private"), "http://a/x");
        assert_eq!(error.kind(), crate::ErrorKind::Protocol);
        assert_eq!(
            error.protocol_error().and_then(ProtocolError::a2a_code),
            Some(A2aErrorCode::InvalidParams)
        );
    }

    #[test]
    fn a_message_over_the_size_bound_is_bad_input_not_a_fault() {
        let status = tonic::Status::out_of_range(
            "Error, decoded message length too large: found 9 bytes, the limit is: 4 bytes",
        );
        let error = to_error(None, status, "http://a/x");
        assert_eq!(error.kind(), crate::ErrorKind::BadInput);
        assert_eq!(error.parse_error().unwrap().kind(), ParseErrorKind::TooLarge);
    }
}
