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
