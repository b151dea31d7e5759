//! How each answer left the agent: the bytes handed to the connection, and when the client had all
//! of it or let go. A client's bounds (on a stream that never ends, a send that never returns, an
//! answer too large to read) are visible from here without its cooperation.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes, HttpBody};
use axum::http::header;
use axum::response::Response;
use http_body::{Frame, SizeHint};

use crate::record::AnswerRecord;
use crate::store::Shared;

/// Spaces the padding is written from, one chunk at a time.
static SPACES: [u8; 64 * 1024] = [b' '; 64 * 1024];

/// The answer to one recorded request, from the moment it was recorded: its record is closed when
/// this is dropped, with the handler (the client let go before an answer existed) or with the body.
pub(crate) struct Answering {
    shared: Arc<Shared>,
    request: usize,
    bytes: u64,
    complete: bool,
}

impl Answering {
    pub(crate) fn begin(shared: &Arc<Shared>, request: usize) -> Self {
        shared.lock().answers.push(AnswerRecord { request, bytes_sent: 0, ended: None, complete: false });
        Self { shared: Arc::clone(shared), request, bytes: 0, complete: false }
    }

    /// `response` with its body counted; the JSON answer to an `operation` padded when the agent
    /// pads its answers.
    pub(crate) fn attach(mut self, response: Response, operation: bool) -> Response {
        let (mut parts, body) = response.into_parts();
        let padding = if operation { self.shared.padded_answers } else { 0 };
        let json = parts
            .headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("application/json"));
        let body = if padding > 0 && json {
            parts.headers.remove(header::CONTENT_LENGTH);
            padded(body, padding)
        } else {
            body
        };
        self.complete = body.is_end_stream();
        Response::from_parts(parts, Body::new(Counted { inner: body, answering: self }))
    }
}

impl Drop for Answering {
    fn drop(&mut self) {
        let ended = self.shared.started.elapsed();
        let mut state = self.shared.lock();
        if let Some(record) = state.answers.iter_mut().rev().find(|a| a.request == self.request) {
            record.bytes_sent = self.bytes;
            record.ended = Some(ended);
            record.complete = self.complete;
        }
    }
}

/// `body` (one JSON object) with `padding` spaces before its closing brace: still the same JSON,
/// and as long as the agent wants, produced as it is sent.
fn padded(body: Body, padding: u64) -> Body {
    use futures::StreamExt;
    let chunk = SPACES.len() as u64;
    let whole = (0..padding / chunk).map(|_| Bytes::from_static(&SPACES));
    let rest = usize::try_from(padding % chunk).unwrap_or(0);
    let spaces = whole.chain((rest > 0).then(|| Bytes::from_static(&SPACES[..rest])));
    let opening = futures::stream::once(async move {
        let bytes = axum::body::to_bytes(body, usize::MAX).await.unwrap_or_default();
        match bytes.iter().rposition(|&b| b == b'}') {
            Some(at) => (bytes.slice(..at), bytes.slice(at..)),
            None => (bytes, Bytes::new()),
        }
    });
    let pieces = opening.flat_map(move |(head, tail)| {
        futures::stream::iter(std::iter::once(head).chain(spaces.clone()).chain(std::iter::once(tail)))
    });
    Body::from_stream(pieces.map(Ok::<_, std::convert::Infallible>))
}

struct Counted {
    inner: Body,
    answering: Answering,
}

impl HttpBody for Counted {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let this = &mut *self;
        let polled = Pin::new(&mut this.inner).poll_frame(cx);
        match &polled {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    this.answering.bytes += data.len() as u64;
                }
                // A body whose end is known is not polled again after its last frame.
                this.answering.complete = this.inner.is_end_stream();
            }
            Poll::Ready(None) => this.answering.complete = true,
            _ => {}
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
