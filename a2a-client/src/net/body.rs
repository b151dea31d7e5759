//! Reading a response body with a bound: every body this client reads goes through here, so none
//! is read past its limit, and an agent's documents are read within the client's document budget.

use a2a_typestate_types::parse::{ParseError, ParseErrorKind};
use bytes::Bytes;

use super::Response;
use crate::Error;
use crate::budget::{Body, DocumentBudget};

/// Reads a response body within the client's [`DocumentBudget`]: room for it is reserved first
/// (its `Content-Length`, else `limit`), and held by the returned [`Body`] until the caller drops it
/// after parsing.
pub(crate) async fn read_budgeted(
    response: Response,
    limit: usize,
    url: &str,
    budget: &DocumentBudget,
) -> Result<Body, Error> {
    let announced = response.content_length().and_then(|len| usize::try_from(len).ok());
    let room = budget.reserve(announced.map_or(limit, |len| len.min(limit))).await;
    Ok(Body::new(read_bounded(response, limit, url).await?, room))
}

/// Reads a response body, refusing it as soon as it passes `limit` bytes. For small documents
/// (keys, tokens); an agent's cards and answers go through [`read_budgeted`].
pub(crate) async fn read_bounded(mut response: Response, limit: usize, url: &str) -> Result<Bytes, Error> {
    let too_large = || {
        let problem = ParseError::new(
            ParseErrorKind::TooLarge,
            "",
            format!("document over the limit of {limit} bytes"),
        );
        Error::bad_input("response body", problem).with_url(url)
    };
    if response.content_length().is_some_and(|len| len > u64::try_from(limit).unwrap_or(u64::MAX)) {
        return Err(too_large());
    }
    let read = |chunk: Result<Option<Bytes>, Error>| chunk.map_err(|e| e.with_url(url));
    // A body that comes in one chunk (most answers) is returned as it is, without a copy.
    let Some(first) = read(response.chunk().await)? else { return Ok(Bytes::new()) };
    if first.len() > limit {
        return Err(too_large());
    }
    let Some(second) = read(response.chunk().await)? else { return Ok(first) };
    let mut body = Vec::with_capacity(first.len() + second.len());
    body.extend_from_slice(&first);
    let mut chunk = Some(second);
    while let Some(more) = chunk {
        if body.len() + more.len() > limit {
            return Err(too_large());
        }
        body.extend_from_slice(&more);
        chunk = read(response.chunk().await)?;
    }
    Ok(Bytes::from(body))
}

/// The first bytes of an error answer's body, for the error to quote ([`Error::with_body`]): read
/// until more than [`SNIPPET_BYTES`](crate::error::SNIPPET_BYTES) came or the body ended, and whether
/// it went on past them. A body that breaks off gives what came before the break; the caller bounds
/// the wait.
pub(crate) async fn read_snippet(response: &mut Response) -> (Vec<u8>, bool) {
    let mut head = Vec::new();
    while head.len() <= crate::error::SNIPPET_BYTES {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                head.extend_from_slice(&chunk[..chunk.len().min(crate::error::SNIPPET_BYTES + 1)])
            }
            Ok(None) | Err(_) => return (head, false),
        }
    }
    (head, true)
}

/// How many chunks a stream's reader task may hold ahead of its consumer. Each chunk is at most
/// the connection's read buffer (hyper's, a few hundred KiB at most), so a stream holds a bounded
/// amount ahead of its parser whatever the agent sends.
const READ_AHEAD_CHUNKS: usize = 16;

/// A streamed body, read by a task of its own a few chunks ahead of the consumer.
///
/// Why a task: a consumer that polls the connection's body itself hands each chunk across threads
/// twice (its demand to the connection task, the chunk back), a wake-up each way, per event. The
/// reader runs beside the connection task and queues chunks; the consumer drains them in batches.
/// Dropping the stream aborts the reader, so nothing outlives it on a silent agent.
pub(crate) struct BodyChunks {
    chunks: tokio::sync::mpsc::Receiver<Result<Bytes, Error>>,
    reader: tokio::task::AbortHandle,
}

impl BodyChunks {
    /// Starts reading `response`'s body on the current Tokio runtime.
    pub(crate) fn spawn(mut response: Response) -> Self {
        let (queue, chunks) = tokio::sync::mpsc::channel(READ_AHEAD_CHUNKS);
        let reader = tokio::spawn(async move {
            while let Some(chunk) = response.chunk().await.transpose() {
                let failed = chunk.is_err();
                if queue.send(chunk).await.is_err() || failed {
                    return;
                }
            }
        });
        Self { chunks, reader: reader.abort_handle() }
    }
}

impl futures::Stream for BodyChunks {
    type Item = Result<Bytes, Error>;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        self.chunks.poll_recv(cx)
    }
}

impl Drop for BodyChunks {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use futures::StreamExt as _;
    use http_body_util::{BodyExt as _, StreamBody};

    use super::*;
    use crate::net::service::ResponseBody;

    /// A response whose body is `frames`, counted as the reader pulls them.
    fn response(
        frames: impl futures::Stream<Item = Bytes> + Send + 'static,
        pulled: Arc<AtomicUsize>,
    ) -> Response {
        let frames = frames.map(move |chunk| {
            pulled.fetch_add(1, Ordering::SeqCst);
            Ok::<_, crate::error::BoxError>(http_body::Frame::data(chunk))
        });
        let body = ResponseBody::Service(StreamBody::new(frames).boxed_unsync());
        Response::new(http::Response::new(body), None)
    }

    #[tokio::test]
    async fn a_streamed_body_arrives_whole_and_in_order() {
        let sent: Vec<Bytes> = (0..100).map(|n| Bytes::from(format!("chunk {n};"))).collect();
        let chunks = BodyChunks::spawn(response(futures::stream::iter(sent.clone()), Arc::default()));
        let got: Vec<Bytes> = chunks.map(|chunk| chunk.unwrap()).collect().await;
        assert_eq!(got, sent);
    }

    #[tokio::test]
    async fn the_reader_holds_a_bounded_number_of_chunks_ahead_of_its_consumer() {
        let pulled = Arc::new(AtomicUsize::new(0));
        let endless = futures::stream::repeat(Bytes::from_static(b"data: x\n\n"));
        let mut chunks = BodyChunks::spawn(response(endless, Arc::clone(&pulled)));
        tokio::time::sleep(Duration::from_millis(100)).await;
        let ahead = pulled.load(Ordering::SeqCst);
        assert!(ahead <= READ_AHEAD_CHUNKS + 1, "{ahead} chunks read ahead");
        chunks.next().await.unwrap().unwrap();
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(pulled.load(Ordering::SeqCst) <= READ_AHEAD_CHUNKS + 2);
    }

    #[tokio::test]
    async fn dropping_the_stream_lets_go_of_a_silent_body() {
        let (feed, frames) = futures::channel::mpsc::unbounded::<Bytes>();
        let chunks = BodyChunks::spawn(response(frames, Arc::default()));
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!feed.is_closed(), "the reader holds the body while the stream lives");
        drop(chunks);
        tokio::time::timeout(Duration::from_secs(5), async {
            while !feed.is_closed() {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
        .await
        .expect("the body is dropped once its stream is");
    }
}
