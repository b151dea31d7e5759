//! Server-Sent Events over any byte stream, with bounded memory and an idle timeout.
//!
//! A2A streams (`SendStreamingMessage`, `SubscribeToTask`) are `text/event-stream` bodies whose `data:`
//! holds one JSON document per event; the Python server adds `event: error` for errors and `: ping`
//! comments every 15 s. This parser follows the WHATWG event-stream rules: CRLF, LF and CR line ends,
//! comments skipped without being buffered, multi-line `data:` joined with `\n`, one leading space
//! after the colon removed, events dispatched on a blank line, events without data dropped. The
//! `data` is given as sent: what JSON it holds (a leading record separator 0x1E, as a JSON text
//! sequence frames each text, included) is the stream opener's to read, the same for every binding.
//!
//! Three endings are told apart: the stream ends cleanly between events (the stream yields `None`),
//! it ends in the middle of an event (an error with [`TransportFault::Truncated`], retryable), or no
//! byte arrives within the idle bound (an error with [`Error::is_timeout`]). An event larger than the
//! limit is refused as bad input before more of it is buffered. Dropping the stream drops the body and
//! so cancels the request.
//!
//! ```
//! use a2a_typestate_client::sse::{SseLimits, SseStream};
//! use bytes::Bytes;
//! use futures::StreamExt;
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let chunks = vec![
//!     Ok::<_, std::io::Error>(Bytes::from_static(b": ping\n\ndata: {\"task\"")),
//!     Ok(Bytes::from_static(b":{}}\r\n\r\nevent: error\ndata: {}\n\n")),
//! ];
//! let mut events = SseStream::new(futures::stream::iter(chunks), SseLimits::default());
//! assert_eq!(events.next().await.unwrap().unwrap().data, r#"{"task":{}}"#);
//! assert!(events.next().await.unwrap().unwrap().is_error());
//! assert!(events.next().await.is_none());
//! # });
//! ```

use std::collections::VecDeque;
use std::fmt;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use a2a_typestate_types::parse::{ParseError, ParseErrorKind};
use bytes::Bytes;
use futures::stream::{BoxStream, Stream, StreamExt};
use tokio::time::{Instant, Sleep};

use crate::config::{ClientConfig, DEFAULT_MAX_SSE_EVENT_BYTES, DEFAULT_SSE_IDLE_TIMEOUT};
use crate::{Error, TransportFault};

/// One dispatched event.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// The `event:` type, when one was given (A2A servers send `error` for errors, nothing otherwise).
    pub event: Option<String>,
    /// The `data:` lines joined with `\n`.
    pub data: String,
    /// The last event id seen on the stream (`id:` persists across events, as in the SSE standard):
    /// shared by every event it applies to, never copied per event, and at most
    /// [`MAX_SSE_FIELD_BYTES`] long (a longer one is ignored).
    pub id: Option<Arc<str>>,
}

/// The longest `event:`, `id:` or `retry:` value the parser keeps (1 KiB): a longer line is
/// skipped as it arrives, so a hostile field costs neither memory nor a copy per event. A2A's
/// event types are a few bytes (`error`), and the client resumes with `SubscribeToTask`, not ids.
pub const MAX_SSE_FIELD_BYTES: usize = 1024;

impl SseEvent {
    /// Whether this is an `event: error`.
    #[cfg(any(test, feature = "test-util"))]
    pub fn is_error(&self) -> bool {
        self.event.as_deref() == Some("error")
    }
}

/// The bounds an [`SseStream`] works within.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SseLimits {
    /// Largest event, in bytes of data, type and the line being read.
    pub max_event_bytes: usize,
    /// Longest wait for the next byte (pings count).
    pub idle_timeout: Duration,
}

impl Default for SseLimits {
    /// 8 MiB events, 60 s idle.
    fn default() -> Self {
        Self { max_event_bytes: DEFAULT_MAX_SSE_EVENT_BYTES, idle_timeout: DEFAULT_SSE_IDLE_TIMEOUT }
    }
}

impl SseLimits {
    /// The limits a client is configured with.
    pub fn from_config(config: &ClientConfig) -> Self {
        Self { max_event_bytes: config.max_sse_event_bytes(), idle_timeout: config.sse_idle_timeout() }
    }
}

/// A stream of [`SseEvent`]s parsed from a stream of byte chunks. Ends after its first error.
pub struct SseStream {
    body: BoxStream<'static, Result<Bytes, Error>>,
    parser: Parser,
    idle: Pin<Box<Sleep>>,
    idle_timeout: Duration,
    done: bool,
}

impl fmt::Debug for SseStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SseStream")
            .field("idle_timeout", &self.idle_timeout)
            .field("max_event_bytes", &self.parser.max)
            .field("queued", &self.parser.out.len())
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

impl SseStream {
    /// Parses `body`, a stream of chunks, within `limits`.
    pub fn new<S, E>(body: S, limits: SseLimits) -> Self
    where
        S: Stream<Item = Result<Bytes, E>> + Send + 'static,
        E: Into<Error>,
    {
        Self {
            body: body.map(|chunk| chunk.map_err(Into::into)).boxed(),
            parser: Parser::new(limits.max_event_bytes),
            idle: Box::pin(tokio::time::sleep(limits.idle_timeout)),
            idle_timeout: limits.idle_timeout,
            done: false,
        }
    }

    /// Parses the body of `response` within `limits`.
    pub fn from_response(response: crate::net::Response, limits: SseLimits) -> Self {
        Self::new(response.into_stream(), limits)
    }

    fn fail(&mut self, error: Error) -> Poll<Option<Result<SseEvent, Error>>> {
        self.done = true;
        Poll::Ready(Some(Err(error)))
    }
}

impl Stream for SseStream {
    type Item = Result<SseEvent, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        loop {
            if let Some(event) = this.parser.out.pop_front() {
                return Poll::Ready(Some(Ok(event)));
            }
            if this.done {
                return Poll::Ready(None);
            }
            match this.body.poll_next_unpin(cx) {
                Poll::Ready(Some(Ok(chunk))) => {
                    let deadline = Instant::now() + this.idle_timeout;
                    this.idle.as_mut().reset(deadline);
                    if let Err(error) = this.parser.feed(&chunk) {
                        return this.fail(error);
                    }
                }
                Poll::Ready(Some(Err(error))) => return this.fail(error),
                Poll::Ready(None) => {
                    this.done = true;
                    if this.parser.is_mid_event() {
                        let error =
                            Error::transport(TransportFault::Truncated, Some(Box::new(StreamTruncated)));
                        return Poll::Ready(Some(Err(error)));
                    }
                }
                Poll::Pending => {
                    return match this.idle.as_mut().poll(cx) {
                        Poll::Ready(()) => {
                            let idle = SseIdle(this.idle_timeout);
                            this.fail(Error::transport(TransportFault::Timeout, Some(Box::new(idle))))
                        }
                        Poll::Pending => Poll::Pending,
                    };
                }
            }
        }
    }
}

#[derive(Debug, thiserror::Error)]
#[error("no sse bytes received for {0:?}")]
struct SseIdle(Duration);

#[derive(Debug, thiserror::Error)]
#[error("sse stream closed before the blank line ending its last event")]
struct StreamTruncated;

/// The event-stream state machine; pure, fed chunk by chunk.
#[derive(Debug)]
struct Parser {
    max: usize,
    line: Vec<u8>,
    in_comment: bool,
    skip_lf: bool,
    first_line: bool,
    event_type: String,
    data: String,
    has_data: bool,
    last_id: Option<Arc<str>>,
    fields_pending: bool,
    /// The line being read is a field other than `data` past [`MAX_SSE_FIELD_BYTES`]: the rest of
    /// it is dropped as it arrives.
    skip_line: bool,
    out: VecDeque<SseEvent>,
}

impl Parser {
    fn new(max: usize) -> Self {
        Self {
            max,
            line: Vec::new(),
            in_comment: false,
            skip_lf: false,
            first_line: true,
            event_type: String::new(),
            data: String::new(),
            has_data: false,
            last_id: None,
            fields_pending: false,
            skip_line: false,
            out: VecDeque::new(),
        }
    }

    fn feed(&mut self, chunk: &[u8]) -> Result<(), Error> {
        // The chunk's UTF-8 prefix, checked once, is where whole frames are looked for.
        let text = match std::str::from_utf8(chunk) {
            Ok(text) => text,
            Err(e) => chunk.get(..e.valid_up_to()).and_then(|b| std::str::from_utf8(b).ok()).unwrap_or(""),
        };
        let mut rest = chunk;
        while !rest.is_empty() {
            let offset = chunk.len() - rest.len();
            if let Some(frame) = text.get(offset..).and_then(|t| self.whole_frame(t)) {
                rest = rest.get(frame..).unwrap_or_default();
                continue;
            }
            if std::mem::take(&mut self.skip_lf)
                && let Some((b'\n', tail)) = rest.split_first()
            {
                rest = tail;
                continue;
            }
            match memchr::memchr2(b'\n', b'\r', rest) {
                Some(end) => {
                    let (line, tail) = rest.split_at(end);
                    self.append(line)?;
                    if let Some((terminator, tail)) = tail.split_first() {
                        self.skip_lf = *terminator == b'\r';
                        rest = tail;
                    } else {
                        rest = &[];
                    }
                    self.end_line()?;
                }
                None => {
                    self.append(rest)?;
                    rest = &[];
                }
            }
        }
        Ok(())
    }

    /// Reads a whole `data: <one line>\n\n` frame (what A2A servers send for every event) from the
    /// start of `text` in one step, when the parser is between events: the bytes it took, or `None`
    /// to leave them to the line-by-line path. Framing line by line cost four times a blank-line
    /// split (BENCHMARKS.md, figure 1); this gives the same events, as the chunking proptest checks.
    fn whole_frame(&mut self, text: &str) -> Option<usize> {
        let between_events = !self.skip_lf
            && !self.first_line
            && !self.in_comment
            && !self.skip_line
            && !self.fields_pending
            && !self.has_data
            && self.line.is_empty()
            && self.event_type.is_empty();
        if !between_events {
            return None;
        }
        let after = text.strip_prefix("data:")?;
        // The line's end, found once: a `\r` in it leaves the frame to the line-by-line path.
        let end = memchr::memchr2(b'\n', b'\r', after.as_bytes())?;
        let (value, tail) = after.split_at(end);
        if !tail.starts_with("\n\n") {
            return None;
        }
        let line = "data:".len() + value.len();
        if line > self.max {
            // The line-by-line path refuses it with the limit's error.
            return None;
        }
        self.out.push_back(SseEvent {
            event: None,
            data: value.strip_prefix(' ').unwrap_or(value).to_owned(),
            id: self.last_id.clone(),
        });
        Some(line + "\n\n".len())
    }

    /// Whether the input so far stops inside an event (a line or fields not yet ended by a blank line).
    fn is_mid_event(&self) -> bool {
        !self.line.is_empty() || self.fields_pending
    }

    fn held(&self) -> usize {
        self.line.len() + self.data.len() + self.event_type.len()
    }

    fn append(&mut self, bytes: &[u8]) -> Result<(), Error> {
        if self.line.is_empty() && !self.in_comment && bytes.first() == Some(&b':') {
            self.in_comment = true;
        }
        if self.in_comment || self.skip_line || bytes.is_empty() {
            return Ok(());
        }
        // A field other than `data` is short: past the bound (and room for its name), the rest of
        // its line is dropped as it arrives.
        if self.line.len() + bytes.len() > MAX_SSE_FIELD_BYTES + 16 {
            let head: Vec<u8> = self.line.iter().chain(bytes).take(5).copied().collect();
            if head != b"data:" {
                self.line.clear();
                self.skip_line = true;
                return Ok(());
            }
        }
        if self.held() + bytes.len() > self.max {
            let message = format!("sse event over the limit of {} bytes", self.max);
            return Err(Error::bad_input(
                "event stream",
                ParseError::new(ParseErrorKind::TooLarge, "", message),
            ));
        }
        self.line.extend_from_slice(bytes);
        Ok(())
    }

    fn end_line(&mut self) -> Result<(), Error> {
        let first_line = std::mem::replace(&mut self.first_line, false);
        if std::mem::take(&mut self.in_comment) {
            return Ok(());
        }
        if std::mem::take(&mut self.skip_line) {
            // A field too long to keep (an `event`, `id` or `retry` past the bound): ignored, and
            // the event it belongs to still has its other fields.
            self.fields_pending = true;
            return Ok(());
        }
        if self.line.is_empty() {
            self.dispatch();
            return Ok(());
        }
        let raw = std::mem::take(&mut self.line);
        let text = String::from_utf8_lossy(&raw);
        let text = if first_line { text.strip_prefix('\u{feff}').unwrap_or(&text) } else { &text };
        if text.starts_with(':') {
            return Ok(());
        }
        let (field, value) = match text.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (text, ""),
        };
        match field {
            "event" if value.len() <= MAX_SSE_FIELD_BYTES => {
                self.event_type = value.to_owned();
                self.fields_pending = true;
            }
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
                self.fields_pending = true;
            }
            "id" if !value.contains('\0') && value.len() <= MAX_SSE_FIELD_BYTES => {
                self.last_id = (!value.is_empty()).then(|| Arc::from(value));
                self.fields_pending = true;
            }
            // `retry` only matters to a reconnecting EventSource; A2A resumes with SubscribeToTask.
            _ => {}
        }
        if self.held() > self.max {
            let message = format!("sse event over the limit of {} bytes", self.max);
            return Err(Error::bad_input(
                "event stream",
                ParseError::new(ParseErrorKind::TooLarge, "", message),
            ));
        }
        Ok(())
    }

    fn dispatch(&mut self) {
        self.fields_pending = false;
        let event_type = std::mem::take(&mut self.event_type);
        if !std::mem::take(&mut self.has_data) {
            return;
        }
        self.out.push_back(SseEvent {
            event: (!event_type.is_empty()).then_some(event_type),
            data: std::mem::take(&mut self.data),
            id: self.last_id.clone(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;
    use proptest::prelude::*;

    fn parse_all(chunks: &[&[u8]]) -> Result<Vec<SseEvent>, Error> {
        let mut parser = Parser::new(1024);
        for chunk in chunks {
            parser.feed(chunk)?;
        }
        Ok(parser.out.into_iter().collect())
    }

    fn data(events: &[SseEvent]) -> Vec<&str> {
        events.iter().map(|e| e.data.as_str()).collect()
    }

    #[test]
    fn comments_are_skipped() {
        let events = parse_all(&[b": ping\n\n: ping\ndata: a\n\n"]).unwrap();
        assert_eq!(data(&events), ["a"]);
    }

    #[test]
    fn event_error_type_is_reported() {
        let events = parse_all(&[b"event: error\ndata: {\"error\":{}}\n\ndata: next\n\n"]).unwrap();
        assert!(events[0].is_error());
        assert_eq!(events[1].event, None, "the type does not leak into the next event");
    }

    #[test]
    fn multi_line_data_is_joined_with_newlines() {
        let events = parse_all(&[b"data: {\ndata:  \"a\": 1\ndata\ndata: }\n\n"]).unwrap();
        assert_eq!(events[0].data, "{\n \"a\": 1\n\n}");
    }

    #[test]
    fn crlf_lf_and_cr_line_ends_are_all_accepted() {
        for stream in
            [&b"data: x\r\n\r\n"[..], b"data: x\n\n", b"data: x\r\r", b"data: x\r\n\n", b"data: x\r\r\n"]
        {
            assert_eq!(data(&parse_all(&[stream]).unwrap()), ["x"], "{stream:?}");
        }
    }

    #[test]
    fn crlf_split_between_chunks_is_one_line_end() {
        let events = parse_all(&[b"data: x\r", b"\ndata: y\r", b"\n\r", b"\n"]).unwrap();
        assert_eq!(data(&events), ["x\ny"]);
    }

    #[test]
    fn events_without_data_are_not_dispatched() {
        let events = parse_all(&[b"event: error\n\nid: 7\n\ndata:\n\n"]).unwrap();
        assert_eq!(events.len(), 1);
        assert_eq!(events[0], SseEvent { event: None, data: String::new(), id: Some("7".into()) });
    }

    #[test]
    fn a_field_past_its_bound_is_ignored_and_an_id_is_shared_not_copied_per_event() {
        let long = "x".repeat(MAX_SSE_FIELD_BYTES * 64);
        let mut stream = format!("id: short\ndata: a\n\nid: {long}\nevent: {long}\ndata: b\n\n");
        for _ in 0..10 {
            stream.push_str("data: c\n\n");
        }
        let mut parser = Parser::new(1 << 20);
        // Fed in small chunks, as a slow agent sends it: the long lines are never held.
        for chunk in stream.as_bytes().chunks(97) {
            parser.feed(chunk).unwrap();
            assert!(parser.line.len() <= MAX_SSE_FIELD_BYTES + 16 + 97, "a long field line is not buffered");
        }
        let events: Vec<SseEvent> = parser.out.into_iter().collect();
        assert_eq!(events.len(), 12);
        assert_eq!(events[1].event, None, "an event type past the bound is ignored");
        assert!(events.iter().all(|e| e.id.as_deref() == Some("short")), "an id past the bound is ignored");
        let first = events[0].id.as_ref().unwrap();
        assert!(events.iter().all(|e| Arc::ptr_eq(first, e.id.as_ref().unwrap())), "one id, shared");
    }

    #[test]
    fn ids_persist_across_events() {
        let events = parse_all(&[b"id: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\n"]).unwrap();
        let ids: Vec<_> = events.iter().map(|e| e.id.as_deref()).collect();
        assert_eq!(ids, [Some("1"), Some("1"), None]);
    }

    #[test]
    fn field_without_colon_and_unknown_fields_are_tolerated() {
        let events = parse_all(&[b"retry: 10\nfoo: bar\ndata\n\n"]).unwrap();
        assert_eq!(data(&events), [""]);
    }

    #[test]
    fn a_leading_byte_order_mark_is_ignored() {
        let events = parse_all(&[b"\xEF\xBB\xBFdata: a\n\n"]).unwrap();
        assert_eq!(data(&events), ["a"]);
    }

    #[test]
    fn an_event_over_the_limit_is_refused_before_it_is_buffered() {
        let mut parser = Parser::new(16);
        parser.feed(b"data: 0123456789").unwrap();
        let err = parser.feed(b"abcdef").unwrap_err();
        assert_eq!(err.kind(), ErrorKind::BadInput);
        assert_eq!(err.parse_error().map(ParseError::kind), Some(ParseErrorKind::TooLarge));
        assert!(parser.line.len() <= 16, "nothing was buffered past the limit");
    }

    #[test]
    fn many_data_lines_count_toward_the_limit() {
        let mut parser = Parser::new(16);
        let err = parser.feed(b"data: 12345\ndata: 12345\ndata: 12345\n").unwrap_err();
        assert_eq!(err.kind(), ErrorKind::BadInput);
    }

    #[test]
    fn long_comments_do_not_count_toward_the_limit() {
        let mut parser = Parser::new(16);
        parser.feed(b": ").unwrap();
        parser.feed(&[b'x'; 100]).unwrap();
        parser.feed(b"\ndata: ok\n\n").unwrap();
        assert_eq!(parser.out.len(), 1);
    }

    #[test]
    fn whole_frames_read_at_once_match_the_line_by_line_reading() {
        let body = "data: first\n\nid: 7\ndata: {\"a\":\"é\"}\n\ndata:no space\n\ndata: \n\n\
                    data: x\r\n\r\ndata: two\ndata: lines\n\nevent: error\ndata: e\n\ndata: last\n\n";
        let whole = parse_all(&[body.as_bytes()]).unwrap();
        let byte_by_byte: Vec<&[u8]> = body.as_bytes().chunks(1).collect();
        assert_eq!(whole, parse_all(&byte_by_byte).unwrap());
        assert_eq!(data(&whole), ["first", "{\"a\":\"é\"}", "no space", "", "x", "two\nlines", "e", "last"]);
        assert_eq!(whole[2].id.as_deref(), Some("7"), "the id persists into whole frames");
        assert!(whole[6].is_error());
    }

    #[test]
    fn a_whole_frame_over_the_limit_is_still_refused() {
        let mut parser = Parser::new(16);
        parser.feed(b"data: a\n\n").unwrap();
        let err = parser.feed(b"data: 0123456789abcdef\n\n").unwrap_err();
        assert_eq!(err.parse_error().map(ParseError::kind), Some(ParseErrorKind::TooLarge));
        assert_eq!(data(&parser.out.into_iter().collect::<Vec<_>>()), ["a"]);
    }

    fn stream_of(chunks: Vec<&'static [u8]>) -> SseStream {
        let chunks = chunks.into_iter().map(|c| Ok::<_, std::io::Error>(Bytes::from_static(c)));
        SseStream::new(futures::stream::iter(chunks.collect::<Vec<_>>()), SseLimits::default())
    }

    #[tokio::test]
    async fn clean_end_between_events_ends_the_stream() {
        let events: Vec<_> = stream_of(vec![b"data: a\n\n", b": bye\n"]).collect().await;
        assert_eq!(events.len(), 1);
        assert!(events[0].is_ok());
    }

    #[tokio::test]
    async fn end_in_the_middle_of_an_event_is_a_retryable_truncation() {
        let mut events = stream_of(vec![b"data: a\n\ndata: {\"partial\""]);
        assert!(events.next().await.unwrap().is_ok());
        let err = events.next().await.unwrap().unwrap_err();
        assert_eq!(err.transport_fault(), Some(TransportFault::Truncated));
        assert!(err.is_retryable());
        assert!(events.next().await.is_none());
    }

    #[tokio::test]
    async fn a_data_line_without_its_blank_line_is_truncated_too() {
        let mut events = stream_of(vec![b"data: whole line\n"]);
        let err = events.next().await.unwrap().unwrap_err();
        assert_eq!(err.transport_fault(), Some(TransportFault::Truncated));
    }

    #[tokio::test]
    async fn a_body_error_is_reported_once_then_the_stream_ends() {
        let chunks = vec![
            Ok(Bytes::from_static(b"data: a\n\n")),
            Err(std::io::Error::from(std::io::ErrorKind::ConnectionReset)),
            Ok(Bytes::from_static(b"data: never\n\n")),
        ];
        let mut events = SseStream::new(futures::stream::iter(chunks), SseLimits::default());
        assert!(events.next().await.unwrap().is_ok());
        assert_eq!(events.next().await.unwrap().unwrap_err().transport_fault(), Some(TransportFault::Reset));
        assert!(events.next().await.is_none());
    }

    #[tokio::test(start_paused = true)]
    async fn silence_past_the_idle_bound_is_a_timeout() {
        let (tx, rx) = futures::channel::mpsc::unbounded::<Result<Bytes, std::io::Error>>();
        let limits = SseLimits { idle_timeout: Duration::from_secs(5), ..SseLimits::default() };
        let mut events = SseStream::new(rx, limits);
        tx.unbounded_send(Ok(Bytes::from_static(b"data: a\n\n"))).unwrap();
        assert!(events.next().await.unwrap().is_ok());
        let start = Instant::now();
        let err = events.next().await.unwrap().unwrap_err();
        assert!(err.is_timeout() && err.is_retryable());
        assert_eq!(start.elapsed(), Duration::from_secs(5));
        drop(tx);
    }

    #[tokio::test(start_paused = true)]
    async fn pings_keep_an_idle_stream_alive() {
        let (tx, rx) = futures::channel::mpsc::unbounded::<Result<Bytes, std::io::Error>>();
        let limits = SseLimits { idle_timeout: Duration::from_secs(5), ..SseLimits::default() };
        let mut events = SseStream::new(rx, limits);
        tokio::spawn(async move {
            for _ in 0..4 {
                tokio::time::sleep(Duration::from_secs(4)).await;
                let _ = tx.unbounded_send(Ok(Bytes::from_static(b": ping\n\n")));
            }
            let _ = tx.unbounded_send(Ok(Bytes::from_static(b"data: late\n\n")));
        });
        let event = events.next().await.unwrap().unwrap();
        assert_eq!(event.data, "late", "16 s of pings, 4 s apart, never tripped the 5 s bound");
    }

    /// A stream of events, serialised with a mix of line ends, comments and ids.
    fn arb_stream() -> impl Strategy<Value = Vec<u8>> {
        let line_end = prop_oneof![Just("\n"), Just("\r\n"), Just("\r")];
        let event = (
            proptest::option::of("[a-z]{1,6}"),
            proptest::collection::vec("[ -~é✓]{0,12}", 1..4),
            proptest::option::of("[0-9]{1,3}"),
            any::<bool>(),
            line_end,
        );
        proptest::collection::vec(event, 0..6).prop_map(|events| {
            let mut out = String::new();
            for (kind, lines, id, ping, nl) in events {
                if ping {
                    out.push_str(&format!(": ping{nl}"));
                }
                if let Some(kind) = kind {
                    out.push_str(&format!("event: {kind}{nl}"));
                }
                if let Some(id) = id {
                    out.push_str(&format!("id: {id}{nl}"));
                }
                for line in lines {
                    out.push_str(&format!("data: {line}{nl}"));
                }
                out.push_str(nl);
            }
            out.into_bytes()
        })
    }

    proptest! {
        #[test]
        fn any_chunking_of_the_same_bytes_gives_the_same_events(
            bytes in arb_stream(),
            cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..12),
        ) {
            let whole = parse_all(&[&bytes]).unwrap();
            let mut points: Vec<usize> = cuts.iter().map(|c| c.index(bytes.len() + 1)).collect();
            points.sort_unstable();
            let mut chunks = Vec::new();
            let mut start = 0;
            for point in points {
                chunks.push(&bytes[start..point]);
                start = point;
            }
            chunks.push(&bytes[start..]);
            prop_assert_eq!(parse_all(&chunks).unwrap(), whole.clone());
            let byte_by_byte: Vec<&[u8]> = bytes.chunks(1).collect();
            prop_assert_eq!(parse_all(&byte_by_byte).unwrap(), whole);
        }
    }
}
