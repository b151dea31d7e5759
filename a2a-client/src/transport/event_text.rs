//! The JSON text an SSE event's `data` holds, taken out the same way for every binding that streams
//! over SSE (JSON-RPC and HTTP+JSON, 1.0 and 0.3): every event passes through
//! [`Endpoint::open_stream`](super::Endpoint::open_stream), which calls [`take_json_text`] before the
//! binding's decoder sees the event, so no decoder reads `data` any other way.
//!
//! A2A puts one JSON document in each event's `data`. Some servers write it as an element of a JSON
//! text sequence (RFC 7464), the record separator 0x1E before the text (VoltAgent's A2A server,
//! `@voltagent/a2a-server` 2.0.3, does so on every event). RFC 7464's grammar,
//! `JSON-sequence = *(1*RS possible-JSON)`, puts one or more separators before each text and none
//! inside it, so only separators at the very start of `data` are taken as this framing: a separator
//! after whitespace, inside the text or after it is left where it is, for the JSON parser to refuse
//! as any other stray byte.
//!
//! Under [`WireReading::Strict`](crate::WireReading::Strict) such an event is bad input whose message
//! names the separator; under [`WireReading::Tolerant`](crate::WireReading::Tolerant) the separators
//! are removed and recorded as a wire deviation
//! ([`DeviationKind::JsonTextSequence`](a2a_typestate_types::tolerant::DeviationKind::JsonTextSequence))
//! against the call and the event's number, its path the whole document.

use a2a_typestate_types::parse::{ParseError, ParseErrorKind};
use a2a_typestate_types::tolerant::{Deviation, DeviationKind};

use super::deviation::DeviationLog;
use crate::Error;
use crate::sse::SseEvent;

/// The ASCII record separator, RFC 7464's `RS`.
const RECORD_SEPARATOR: char = '\u{1e}';

/// How the events of one stream are read: strictly, or tolerantly with the deviations recorded in
/// `log` against `call` (the 1.0 operation name, as every other deviation of a stream is).
#[derive(Clone, Debug)]
pub(crate) enum EventReading {
    /// A deviation is bad input.
    Strict,
    /// A deviation is read and recorded.
    Tolerant {
        /// The connection's deviations.
        log: DeviationLog,
        /// The operation whose stream it is.
        call: &'static str,
    },
}

impl EventReading {
    /// Tolerant reading into `log` when `tolerant`, else strict.
    pub(crate) fn new(tolerant: bool, log: &DeviationLog, call: &'static str) -> Self {
        if tolerant { Self::Tolerant { log: log.clone(), call } } else { Self::Strict }
    }
}

/// Leaves in `event.data` only the JSON text it holds: the leading record separators of a JSON text
/// sequence (RFC 7464) removed under tolerant reading and recorded as event `number`'s deviation;
/// bad input under strict reading. Data without a leading separator is left untouched.
pub(crate) fn take_json_text(event: &mut SseEvent, number: u64, reading: &EventReading) -> Result<(), Error> {
    let separators = event.data.len() - event.data.trim_start_matches(RECORD_SEPARATOR).len();
    if separators == 0 {
        return Ok(());
    }
    // One byte per separator (it is ASCII), so this is also their count.
    let found = match separators {
        1 => "a record separator (0x1E) before the event's JSON".to_owned(),
        n => format!("{n} record separators (0x1E) before the event's JSON"),
    };
    match reading {
        EventReading::Strict => Err(Error::bad_input(
            "stream event",
            ParseError::new(
                ParseErrorKind::Syntax,
                "",
                format!(
                    "event data starts with {found}, as a JSON text sequence (RFC 7464) writes each \
                     text, not the bare JSON an A2A event holds; read it with WireReading::Tolerant"
                ),
            ),
        )),
        EventReading::Tolerant { log, call } => {
            event.data.replace_range(..separators, "");
            let deviation = Deviation {
                path: String::new(),
                kind: DeviationKind::JsonTextSequence,
                found,
                read_as: "a JSON text sequence's framing (RFC 7464): removed, the JSON after it read"
                    .to_owned(),
            };
            log.record(call, Some(number), deviation);
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(data: &str) -> SseEvent {
        SseEvent { event: None, data: data.to_owned(), id: None }
    }

    fn tolerant(log: &DeviationLog) -> EventReading {
        EventReading::new(true, log, "SendStreamingMessage")
    }

    #[test]
    fn data_without_a_separator_is_left_as_it_is_and_nothing_recorded() {
        let log = DeviationLog::default();
        for data in ["{\"a\":1}", " {\"a\":1}", "", "{\"a\":\"\u{1e}\"}"] {
            let mut read = event(data);
            take_json_text(&mut read, 1, &tolerant(&log)).unwrap();
            take_json_text(&mut read, 1, &EventReading::Strict).unwrap();
            assert_eq!(read.data, data);
        }
        assert!(log.all().is_empty());
    }

    #[test]
    fn leading_separators_are_removed_and_recorded_under_tolerant_reading() {
        let log = DeviationLog::default();
        let mut one = event("\u{1e}{\"a\":1}");
        take_json_text(&mut one, 3, &tolerant(&log)).unwrap();
        assert_eq!(one.data, "{\"a\":1}");
        let mut two = event("\u{1e}\u{1e}{\"a\":1}");
        take_json_text(&mut two, 4, &tolerant(&log)).unwrap();
        assert_eq!(two.data, "{\"a\":1}", "RFC 7464 allows several separators before a text");
        let recorded = log.all();
        let seen: Vec<_> = recorded.iter().map(|d| (d.call, d.event, d.kind(), d.path())).collect();
        assert_eq!(
            seen,
            [
                ("SendStreamingMessage", Some(3), DeviationKind::JsonTextSequence, ""),
                ("SendStreamingMessage", Some(4), DeviationKind::JsonTextSequence, ""),
            ]
        );
        assert!(recorded[1].deviation.found.starts_with("2 record separators"), "{}", recorded[1]);
    }

    #[test]
    fn a_leading_separator_is_bad_input_under_strict_reading_and_says_so() {
        let mut read = event("\u{1e}{\"a\":1}");
        let err = take_json_text(&mut read, 1, &EventReading::Strict).unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::BadInput);
        let parse = err.parse_error().expect("a parse error");
        assert!(parse.message().starts_with("event data starts with a record separator (0x1E)"), "{parse}");
        assert_eq!(read.data, "\u{1e}{\"a\":1}", "refused, not rewritten");
    }

    #[test]
    fn a_separator_anywhere_but_the_start_is_left_for_the_json_parser() {
        let log = DeviationLog::default();
        for data in [" \u{1e}{}", "{}\u{1e}", "{\"a\":\u{1e}1}", "\n\u{1e}{}"] {
            let mut read = event(data);
            take_json_text(&mut read, 1, &tolerant(&log)).unwrap();
            assert_eq!(read.data, data);
        }
        assert!(log.all().is_empty());
    }
}
